use super::*;
use serde_json::json;

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(format!("{}/../fixtures/defs/humanoid/{rel}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The editing mechanics are checked on a stable text: the fixture's
/// locomotion graph as it was before it grew nested trees, sync groups and a
/// sub-state machine (it still validates in the fixture folder, which the
/// diagnostics checks load it into). The fixture itself is viewed by
/// `the_view_reads_the_fixture_with_its_sub_state_machine`.
fn graph() -> String {
    include_str!("testdata/flat_locomotion.toml").to_owned()
}

fn edits(v: serde_json::Value) -> Vec<Edit> {
    serde_json::from_value(v).unwrap()
}

/// The folder's diagnostics of the locomotion graph with `text` in its place.
fn codes_with(text: &str) -> Vec<(String, String)> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/defs/humanoid");
    let rel = std::path::PathBuf::from("graphs/humanoid_locomotion.toml");
    let set = zoa_anim_assets::defs::load_folder_with_overlay(&dir, &[(rel.clone(), text.to_owned())]);
    set.diagnostics.iter().filter(|d| d.file == rel).map(|d| (d.code.to_owned(), d.field.clone())).collect()
}

#[test]
fn no_edit_changes_nothing_and_the_view_reads_the_fixture() {
    let text = graph();
    assert_eq!(apply(&text, &[]).unwrap(), text);
    let v = view(&text).unwrap();
    assert_eq!(v.states.len(), 7);
    assert_eq!(v.transitions.len(), 9);
    assert_eq!(v.parameters.len(), 7);
    assert_eq!(v.layers.len(), 1);
    assert!(v.states[0].entry && v.states[0].name == "locomotion");
    assert!(v.states.iter().all(|s| s.reachable));
    let any = &v.transitions[8];
    assert!(any.from_any && any.from_state.is_none() && any.to_state == Some(6));
    assert!(!v.transitions.iter().any(|t| t.unconditional));
    assert_eq!(v.states[0].fields["blend_tree"]["children"][1], json!({ "clip": "walk", "threshold": 1.5 }));
}

#[test]
fn the_view_reads_the_fixture_with_its_sub_state_machine() {
    let text = fixture("graphs/humanoid_locomotion.toml");
    assert_eq!(apply(&text, &[]).unwrap(), text);
    let v = view(&text).unwrap();
    let names: Vec<&str> = v.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["locomotion", "crouch", "airborne", "jump_start", "fall", "land", "hit_react", "death"]);
    // Entering `airborne` enters `jump_start`; `fall` and `land` follow inside it.
    assert!(v.states.iter().all(|s| s.reachable), "{names:?}");
    assert_eq!(v.transitions.len(), 10);
    assert!(codes_with(&text).is_empty(), "{:?}", codes_with(&text));
    // Cutting the way into the machine leaves all of it unreachable, its entry included.
    let cut = apply(&text, &edits(json!([{ "op": "delete_transition", "transition": 2 }]))).unwrap();
    let v = view(&cut).unwrap();
    let unreachable: Vec<&str> = v.states.iter().filter(|s| !s.reachable).map(|s| s.name.as_str()).collect();
    assert_eq!(unreachable, ["airborne", "jump_start", "fall", "land"]);
    let w003: Vec<_> = codes_with(&cut).into_iter().filter(|(c, _)| c == "W003").map(|(_, f)| target_of(&f)).collect();
    assert_eq!(w003, [Target::State(2), Target::State(3), Target::State(4), Target::State(5)]);
}

#[test]
fn machines_follow_renames_deletes_and_motion_changes() {
    let text = fixture("graphs/humanoid_locomotion.toml");
    // Renaming the machine renames what names it; renaming its entry renames the entry.
    let out = apply(
        &text,
        &edits(json!([
            { "op": "rename_state", "state": 2, "name": "in_air" },
            { "op": "rename_state", "state": 3, "name": "take_off" },
        ])),
    )
    .unwrap();
    assert!(out.contains("name = \"in_air\"\nentry = \"take_off\"\n"), "{out}");
    assert_eq!(out.matches("machine = \"in_air\"").count(), 3);
    assert!(codes_with(&out).is_empty(), "{:?}", codes_with(&out));
    // A state becomes a machine (its clip goes) and back (its entry goes).
    let out = apply(&text, &edits(json!([{ "op": "set", "target": { "state": 2 }, "key": "clip", "value": "fall" }])))
        .unwrap();
    assert!(out.contains("name = \"airborne\"\nclip = \"fall\"\n") && !out.contains("entry = \"jump_start\""));
    let back = apply(&out, &edits(json!([{ "op": "set", "target": { "state": 2 }, "key": "entry", "value": "fall" }])))
        .unwrap();
    assert!(back.contains("name = \"airborne\"\nentry = \"fall\"\n"), "{back}");
    // Deleting the machine keeps its states, outside it.
    let out = apply(&text, &edits(json!([{ "op": "delete_state", "state": 2 }]))).unwrap();
    assert!(!out.contains("machine = ") && out.contains("name = \"fall\"\nclip = \"fall\""), "{out}");
}

#[test]
fn a_new_state_and_transition_go_after_their_kind_and_the_file_validates() {
    let text = graph();
    let out = apply(
        &text,
        &edits(json!([
            { "op": "add_state", "name": "dodge", "clip": "hit_react", "position": [310.4, 120.6] },
            { "op": "add_transition", "from": "locomotion", "to": "dodge", "conditions": ["speed > 3"] },
            { "op": "add_transition", "from": "dodge", "to": "locomotion", "conditions": [] },
        ])),
    )
    .unwrap();
    // Everything before is untouched, comments included.
    let before_states = &text[..text.find("[[transitions]]").unwrap()];
    assert!(out.starts_with(before_states.trim_end()), "{out}");
    assert!(out.contains(
        "loop = false\n\n[[states]]\nname = \"dodge\"\nclip = \"hit_react\"\nposition = [310, 121]\n\n[[transitions]]\n"
    ));
    assert!(out.ends_with(
        "[[transitions]]\nfrom = \"locomotion\"\nto = \"dodge\"\nconditions = [\"speed > 3\"]\n\n[[transitions]]\nfrom = \"dodge\"\nto = \"locomotion\"\n"
    ));
    // The arrow back has neither exit time nor conditions: flagged by the view and by validate (W002).
    let v = view(&out).unwrap();
    assert!(v.transitions[10].unconditional && !v.transitions[9].unconditional);
    assert_eq!(codes_with(&out), [("W002".to_owned(), "transitions[10].from".to_owned())]);
    assert_eq!(target_of("transitions[10].from"), Target::Transition(10));
}

#[test]
fn deleting_renaming_and_entries_follow_the_names() {
    let text = graph();
    let out = apply(
        &text,
        &edits(json!([
            { "op": "rename_state", "state": 0, "name": "move" },
            { "op": "delete_state", "state": 4 },
            { "op": "set_entry", "state": 1 },
        ])),
    )
    .unwrap();
    assert!(out.contains("entry = \"crouch\""));
    assert!(!out.contains("\"land\""), "the state and its two transitions are gone");
    assert!(!out.contains("\"locomotion\""), "every reference renamed");
    assert_eq!(out.matches("[[transitions]]").count(), 7);
    let v = view(&out).unwrap();
    assert!(v.states[1].entry && v.states[1].name == "crouch");
    // `fall` now leads nowhere and `move` is reached from crouch; nothing is unreachable.
    assert!(v.states.iter().all(|s| s.reachable));
    // A state only a deleted arrow led to is flagged (W003's rule), here and by validate.
    let cut = apply(&text, &edits(json!([{ "op": "delete_transition", "transition": 2 }]))).unwrap();
    let v = view(&cut).unwrap();
    let unreachable: Vec<&str> = v.states.iter().filter(|s| !s.reachable).map(|s| s.name.as_str()).collect();
    assert_eq!(unreachable, ["jump_start", "fall", "land"]);
    let w003: Vec<_> = codes_with(&cut).into_iter().filter(|(c, _)| c == "W003").map(|(_, f)| target_of(&f)).collect();
    assert_eq!(w003, [Target::State(2), Target::State(3), Target::State(4)]);
}

#[test]
fn positions_are_whole_units_and_reordering_keeps_comments_with_their_rows() {
    let text = graph();
    let out = apply(
        &text,
        &edits(json!([
            { "op": "place", "states": [[0, [10.2, -20.7]], [1, [200, 0]]], "any": [[0, [-150, 40]]] },
            { "op": "swap_transitions", "a": 7, "b": 8 },
        ])),
    )
    .unwrap();
    assert!(out.contains("any_position = [-150, 40]\n"));
    assert!(out.contains("name = \"locomotion\"\ncrossfade = { duration = 0.2, warp = true }\nposition = [10, -21]\n"));
    // The any->death arrow now fires before hit_react->locomotion; the comment moved with its row.
    let tail = &out[out.rfind("from = \"any\"").unwrap()..];
    assert!(tail.contains("# death may cut the recovery short\ninterruption = \"next\""), "{out}");
    let v = view(&out).unwrap();
    assert!(v.transitions[7].from_any);
    assert_eq!(v.states[0].position, Some([10.0, -21.0]));
    assert_eq!(v.layers[0].any_position, Some([-150.0, 40.0]));
    assert!(codes_with(&out).is_empty());
}

#[test]
fn field_edits_keep_what_did_not_change() {
    let text = graph();
    let tree = view(&text).unwrap().states[0].fields["blend_tree"].clone();
    let mut faster = tree.clone();
    faster["children"][3]["threshold"] = json!(7);
    let out = apply(
        &text,
        &edits(json!([
            { "op": "set", "target": { "state": 0 }, "key": "blend_tree", "value": faster },
            { "op": "set", "target": { "state": 5 }, "key": "crossfade.warp", "value": true },
            { "op": "set", "target": { "state": 0 }, "key": "crossfade.duration", "value": null },
            { "op": "set", "target": { "transition": 3 }, "key": "exit_time", "value": 0.75 },
            { "op": "set", "target": { "state": 2 }, "key": "blend_tree",
              "value": { "type": "1D", "parameter": "speed", "children": [
                  { "clip": "jump_start", "threshold": 0 }, { "clip": "fall", "threshold": 1 }] } },
        ])),
    )
    .unwrap();
    // Unchanged thresholds keep their `0.0`; the changed one is written as given.
    assert!(out.contains("    { clip = \"idle\", threshold = 0.0 },\n"));
    assert!(out.contains("    { clip = \"sprint\", threshold = 7 },\n"));
    assert!(out.contains("name = \"locomotion\"\ncrossfade = { warp = true }\n"));
    assert!(out.contains("name = \"hit_react\"\nclip = \"hit_react\"\nloop = false\ncrossfade = { warp = true }\n"));
    assert!(out.contains("exit_time = 0.75\n"));
    // A clip state becomes a blend-tree state: `clip` goes, a `[states.blend_tree]` table comes.
    assert!(
        out.contains("name = \"jump_start\"\n\n[states.blend_tree]\ntype = \"1D\"\nparameter = \"speed\""),
        "{out}"
    );
    assert!(codes_with(&out).is_empty(), "{:?}", codes_with(&out));
    // Removing the last field of a sub-table removes it.
    let out =
        apply(&out, &edits(json!([{ "op": "set", "target": { "state": 0 }, "key": "crossfade.warp", "value": null }])))
            .unwrap();
    assert!(out.contains("name = \"locomotion\"\n[states.blend_tree]"), "{out}");
}

#[test]
fn parameters_rename_through_conditions_axes_and_bound_profiles() {
    let text = graph();
    let out = apply(
        &text,
        &edits(json!([
            { "op": "rename_parameter", "parameter": 0, "name": "forward" },
            { "op": "rename_parameter", "parameter": 1, "name": "on_ground" },
            { "op": "add_parameter", "name": "lean", "type": "float", "default": 0.5 },
            { "op": "add_parameter", "name": "wave", "type": "trigger" },
            { "op": "delete_parameter", "parameter": 3 },
        ])),
    )
    .unwrap();
    assert!(!out.contains("\"speed\"") && out.matches("parameter = \"forward\"").count() == 2);
    assert!(out.contains("conditions = [\"jump\", \"on_ground is true\"]"));
    assert!(out.contains("[[parameters]]\nname = \"die\"\ntype = \"trigger\"\n\n[[parameters]]\nname = \"lean\"\ntype = \"float\"\ndefault = 0.5\n\n[[parameters]]\nname = \"wave\"\ntype = \"trigger\"\n\n[[states]]"));
    assert!(!out.contains("name = \"posture\""));
    // The condition on the deleted parameter stays and is flagged where it is.
    let codes = codes_with(&out);
    assert_eq!(codes, [("E012".to_owned(), "transitions[1].conditions[1]".to_owned())]);
    // The binding profile that drives the graph follows, shown line by line.
    let profile = fixture("bindings/unarmed.toml");
    let (renamed, changes) = rename_bound_parameter(&profile, "speed", "forward").unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].before, "    { id = \"speed\", parameter = \"speed\", type = \"float\" },");
    assert_eq!(changes[0].after, "    { id = \"speed\", parameter = \"forward\", type = \"float\" },");
    assert_eq!(renamed.lines().count(), profile.lines().count());
    assert!(rename_bound_parameter(&profile, "nothing", "x").unwrap().1.is_empty());
}

#[test]
fn an_empty_graph_grows_into_a_valid_one() {
    let start = "kind = \"animation_graph\"\nid = \"built\"\n";
    let out = apply(
        start,
        &edits(json!([
            { "op": "set", "target": "graph", "key": "model", "value": "../../../models/humanoid.glb" },
            { "op": "add_parameter", "name": "speed", "type": "float" },
            { "op": "add_state", "name": "idle", "clip": "idle", "position": [0, 0] },
            { "op": "add_state", "name": "walk", "clip": "walk", "position": [200, 0] },
            { "op": "add_transition", "from": "idle", "to": "walk", "conditions": ["speed > 0.5"] },
            { "op": "add_transition", "from": "walk", "to": "idle", "conditions": ["speed < 0.5"] },
        ])),
    )
    .unwrap();
    assert!(
        out.starts_with(
            "kind = \"animation_graph\"\nid = \"built\"\nmodel = \"../../../models/humanoid.glb\"\nentry = \"idle\"\n"
        ),
        "{out}"
    );
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/defs/humanoid");
    let rel = std::path::PathBuf::from("graphs/built.toml");
    let set = zoa_anim_assets::defs::load_folder_with_overlay(&dir, &[(rel.clone(), out.clone())]);
    let mine: Vec<_> = set.diagnostics.iter().filter(|d| d.file == rel).collect();
    assert!(mine.is_empty(), "{mine:?}\n{out}");
    assert!(set.animation_graphs.iter().any(|g| g.value.id == "built"));
}

#[test]
fn refused_edits_change_nothing_and_say_why() {
    let text = graph();
    let refuse = |v: serde_json::Value| apply(&text, &edits(v)).unwrap_err().0;
    assert!(refuse(json!([{ "op": "add_state", "name": "fall", "position": [0, 0] }])).contains("exists"));
    assert!(refuse(json!([{ "op": "add_state", "name": "any", "position": [0, 0] }])).contains("reserved"));
    assert!(
        refuse(json!([{ "op": "add_state", "name": "x", "layer": "upper", "position": [0, 0] }])).contains("no layer")
    );
    assert!(refuse(json!([{ "op": "delete_state", "state": 99 }])).contains("no states[99]"));
    assert!(refuse(json!([{ "op": "set", "target": "graph", "key": "kind", "value": "clip" }])).contains("not set"));
    assert!(
        refuse(json!([{ "op": "set", "target": { "state": 0 }, "key": "Bad Key", "value": 1 }]))
            .contains("not a field")
    );
    assert!(
        refuse(json!([{ "op": "add_parameter", "name": "t", "type": "trigger", "default": true }]))
            .contains("no default")
    );
    assert!(refuse(json!([{ "op": "rename_parameter", "parameter": 0, "name": "a b" }])).contains("no spaces"));
    // All or nothing: a good edit before a bad one is not applied either (the text is returned unchanged by the caller).
    assert!(apply("kind = \"clip\"\nid = \"c\"\n", &[]).is_err());
    assert!(apply("kind = [", &[]).is_err());
    let many: Vec<Edit> = (0..=MAX_EDITS).map(|_| Edit::SetEntry { state: 0 }).collect();
    assert!(apply(&text, &many).unwrap_err().0.contains("at most"));
}

#[test]
fn inline_rows_are_edited_in_place() {
    let text = "kind = \"animation_graph\"\nid = \"g\"\nmodel = \"m.glb\"\nentry = \"a\"\nstates = [\n    { name = \"a\", clip = \"x\" },\n    { name = \"b\", clip = \"y\" },\n]\ntransitions = [{ from = \"a\", to = \"b\", exit_time = 1 }, { from = \"b\", to = \"a\", exit_time = 1 }]\n";
    let out = apply(
        text,
        &edits(json!([
            { "op": "add_state", "name": "c", "clip": "z", "position": [1, 2] },
            { "op": "swap_transitions", "a": 0, "b": 1 },
            { "op": "set", "target": { "state": 1 }, "key": "speed", "value": 1.5 },
        ])),
    )
    .unwrap();
    assert_eq!(
        out,
        "kind = \"animation_graph\"\nid = \"g\"\nmodel = \"m.glb\"\nentry = \"a\"\nstates = [\n    { name = \"a\", clip = \"x\" },\n    { name = \"b\", clip = \"y\", speed = 1.5 },\n    { name = \"c\", clip = \"z\", position = [1, 2] },\n]\ntransitions = [{ from = \"b\", to = \"a\", exit_time = 1 }, { from = \"a\", to = \"b\", exit_time = 1 }]\n"
    );
}

#[test]
fn diagnostics_land_on_their_rows() {
    assert_eq!(target_of("states[3].blend_tree.children[1].clip"), Target::State(3));
    assert_eq!(target_of("transitions[0].conditions[2]"), Target::Transition(0));
    assert_eq!(target_of("parameters[12].default"), Target::Parameter(12));
    assert_eq!(target_of("layers[1].entry"), Target::Layer(1));
    assert_eq!(target_of("entry"), Target::Graph);
    assert_eq!(target_of("states"), Target::Graph);
    assert_eq!(target_of("statesx[1]"), Target::Graph);
}
