//! Rules of definition folders, one behaviour per test, on small folders
//! written to a temporary directory.

use std::path::PathBuf;

use proptest::prelude::*;
use zoa_anim_assets::defs::{DefinitionSet, Severity, load_folder};
use zoa_anim_core::graph::{ConditionTest, Motion};
use zoa_anim_core::preview::{BindingValue, PreviewStep};

/// The fixture model as an absolute path (definitions accept absolute paths).
fn model() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/models/humanoid.glb").to_string_lossy().into_owned()
}

fn model_available() -> bool {
    let ok = std::path::Path::new(&model()).is_file();
    if !ok {
        eprintln!("note: fixtures/models/humanoid.glb is absent (run `zoa-anim gen-fixtures`); skipping");
    }
    ok
}

/// Writes `files` under a fresh temporary folder and loads it.
fn load(name: &str, files: &[(&str, &str)]) -> DefinitionSet {
    let tmp = zoa_test_support::paths::temp_dir(&format!("defs-rules-{name}"));
    let dir = tmp.path();
    for (file, text) in files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    load_folder(dir)
}

fn codes(set: &DefinitionSet) -> Vec<(&'static str, String)> {
    set.diagnostics.iter().map(|d| (d.code, d.field.clone())).collect()
}

#[test]
fn both_tag_forms_read_alike() {
    let set = load(
        "tags",
        &[(
            "p.toml",
            r#"
kind = "animation_profile"
id = "p"
[[entries]]
tags = "locomotion=walk combat=armed_rifle|aiming"
clip = "a"
[[entries]]
locomotion = "run"
combat = ["ArmedRifle", "aiming"]
clip = "b"
"#,
        )],
    );
    let p = &set.animation_profiles[0].value;
    assert_eq!(p.entries[0].to_pattern().to_string(), "locomotion=walk combat=armed_rifle|aiming");
    assert_eq!(p.entries[1].to_pattern().to_string(), "locomotion=run combat=armed_rifle|aiming");
}

#[test]
fn every_problem_in_every_file_is_reported_in_sorted_order() {
    let set = load(
        "many",
        &[
            ("b/second.toml", "kind = \"rig_policy\"\nid = \"r2\"\nfoot_plant = 1\nlook_at_fov_degrees = 200\n"),
            ("a.toml", "kind = \"rig_policy\"\nid = \"r1\"\nbreath_frequency = -1\nextra = true\n"),
            ("notes.txt", "not a definition"),
        ],
    );
    let got: Vec<String> =
        set.diagnostics.iter().map(|d| format!("{}:{}:{} {}", d.file.display(), d.line, d.column, d.code)).collect();
    let sep = std::path::MAIN_SEPARATOR;
    assert_eq!(
        got,
        [
            "a.toml:3:20 E008".to_owned(),
            "a.toml:4:1 E005".to_owned(),
            format!("b{sep}second.toml:3:14 E007"),
            format!("b{sep}second.toml:4:23 E008"),
        ]
    );
    assert!(set.rig_policies.is_empty(), "definitions with errors are left out");
}

#[test]
fn ids_are_unique_per_kind_only() {
    let set = load(
        "ids",
        &[("a.toml", "kind = \"rig_policy\"\nid = \"same\"\n"), ("b.toml", "kind = \"state_graph\"\nid = \"same\"\n")],
    );
    assert!(set.diagnostics.is_empty(), "{:?}", set.diagnostics);
    assert!(set.rig_policy("same").is_some() && set.state_graph("same").is_some());
}

#[test]
fn numbers_accept_integers_underscores_and_reject_non_finite() {
    let set = load(
        "numbers",
        &[(
            "s.toml",
            r#"
kind = "sound_profile"
id = "s"
[[entries]]
event = "weapon.fire"
variants = [{ clip = "x.wav", weight = 2 }]
max_distance = 1_000
cooldown = -inf
"#,
        )],
    );
    let c = codes(&set);
    assert!(c.contains(&("E009", "entries[0].cooldown".into())), "{c:?}");
    assert!(c.contains(&("W005", "entries[0].variants[0]".into())), "{c:?}");
    assert_eq!(set.error_count(), 1);
}

#[test]
fn sound_ids_never_name_files_and_shadowing_warns() {
    let set = load(
        "sound",
        &[
            ("x.wav", ""),
            (
                "s.toml",
                r#"
kind = "sound_profile"
id = "s"
[[entries]]
event = "footstep.wav"
variants = ["x.wav"]
[[entries]]
event = "footstep"
surface = "grass"
variants = ["x.wav"]
[[entries]]
event = "footstep"
surface = "grass"
variants = ["x.wav"]
"#,
            ),
        ],
    );
    let c = codes(&set);
    assert_eq!(c, [("E010", "entries[0].event".into()), ("W001", "entries[2].event".into())]);
}

#[test]
fn sound_throttles_read_with_an_optional_star_and_repeats_warn() {
    let good = r#"
kind = "sound_profile"
id = "s"
[[entries]]
event = "weapon.fire"
variants = ["x.wav"]
[[throttles]]
prefix = "weapon.fire.*"
max_voices = 4
max_starts_per_second = 12
cooldown = 0.05
[[throttles]]
prefix = "vocal"
cooldown = 0.5
[[throttles]]
prefix = "weapon.fire"
max_voices = 9
"#;
    let set = load("throttles", &[("x.wav", ""), ("s.toml", good)]);
    assert_eq!(codes(&set), [("W001", "throttles[2].prefix".into())]);
    let p = set.sound_profile("s").unwrap();
    let got: Vec<(&str, u32, u32, f32)> =
        p.throttles.iter().map(|t| (t.prefix.as_str(), t.max_voices, t.max_starts_per_second, t.cooldown)).collect();
    assert_eq!(got, [("weapon.fire", 4, 12, 0.05), ("vocal", 0, 0, 0.5)], "the repeated prefix is dropped");

    let bad = r#"
kind = "sound_profile"
id = "b"
[[entries]]
event = "weapon.fire"
variants = ["x.wav"]
[[throttles]]
prefix = "Weapon.*"
[[throttles]]
prefix = "weapon"
max_starts_per_second = 20000
speed = 3
[[throttles]]
max_voices = -1
"#;
    let set = load("throttles-bad", &[("x.wav", ""), ("b.toml", bad)]);
    assert_eq!(
        codes(&set),
        [
            ("E010", "throttles[0].prefix".into()),
            ("E008", "throttles[1].max_starts_per_second".into()),
            ("E005", "throttles[1].speed".into()),
            ("E006", "throttles[2].prefix".into()),
            ("E008", "throttles[2].max_voices".into()),
        ]
    );
}

#[test]
fn preview_steps_resolve_against_binding_profiles() {
    let set = load(
        "preview",
        &[
            (
                "b.toml",
                r#"
kind = "binding_profile"
id = "b"
bindings = [
  { id = "fire", parameter = "Fire", type = "trigger" },
  { id = "speed", parameter = "Speed", type = "float" },
]
"#,
            ),
            (
                "p.toml",
                r#"
kind = "preview_preset"
id = "p"
steps = [
  { fire = "fire" },
  { set = "speed", value = 2 },
  { set = "fire", value = true },
  { fire = "reload" },
  { play_slot = "death" },
  { wait = 0.5 },
]
"#,
            ),
        ],
    );
    let c = codes(&set);
    assert_eq!(
        c,
        [("E018", "steps[2].set".into()), ("E012", "steps[3].fire".into()), ("E012", "steps[4].play_slot".into()),]
    );
    let p = &set.preview_presets[0].value;
    assert_eq!(
        p.steps[1],
        PreviewStep::Set { binding: zoa_anim_core::DefaultBindings::SPEED, value: BindingValue::Float(2.0) }
    );
}

#[test]
fn graph_rules_conditions_layers_and_loop_hints() {
    if !model_available() {
        return;
    }
    let model = model();
    let graph = format!(
        r#"
kind = "animation_graph"
id = "g"
model = '{model}'
entry = "idle"
parameters = [
  {{ name = "speed", type = "float" }},
  {{ name = "posture", type = "int" }},
  {{ name = "grounded", type = "bool", default = true }},
  {{ name = "jump", type = "trigger" }},
]
[[layers]]
name = "upper"
entry = "aim"
bone_mask = {{ include = ["Spine1"], colour = "red" }}
[[states]]
name = "idle"
clip = "idle"
[[states]]
name = "land"
clip = "land"
[[states]]
name = "aim"
layer = "upper"
clip = "rifle_aim"
[[transitions]]
from = "idle"
to = "land"
conditions = ["speed>=0.5", "posture != 2", "grounded is false", "jump"]
[[transitions]]
from = "land"
to = "idle"
exit_time = 0.9
[[transitions]]
from = "land"
to = "idle"
conditions = ["posture == 1.5", "nothing > 1"]
"#
    );
    let clip = format!("kind = \"clip\"\nid = \"land\"\nsource = '{model}'\nloop = false\nnotifies = [\"Land@9.5\"]\n");
    let set = load("graph", &[("g.toml", &graph), ("land.toml", &clip)]);
    let c = codes(&set);
    assert_eq!(
        c,
        [
            ("E005", "layers[0].bone_mask.colour".into()),
            ("E018", "transitions[2].conditions[0]".into()),
            ("E012", "transitions[2].conditions[1]".into()),
            ("E008", "notifies[0]".into()),
        ],
        "{:#?}",
        set.diagnostics
    );
    // The same graph without the mistakes loads, with the clip's loop hint.
    let fixed = graph
        .replace(", colour = \"red\"", "")
        .replace("conditions = [\"posture == 1.5\", \"nothing > 1\"]", "conditions = [\"posture == 1\"]");
    let clip = clip.replace("9.5", "0.25");
    let set = load("graph_ok", &[("g.toml", &fixed), ("land.toml", &clip)]);
    assert_eq!(set.error_count(), 0, "{:#?}", set.diagnostics);
    let g = &set.animation_graphs[0].value;
    let t = &g.transitions[0];
    assert!(
        matches!(t.conditions[0].test, ConditionTest::CompareFloat(zoa_anim_core::graph::CompareOp::Ge, v) if v == 0.5)
    );
    assert!(matches!(t.conditions[1].test, ConditionTest::CompareInt(zoa_anim_core::graph::CompareOp::Ne, 2)));
    assert_eq!(t.conditions[2].test, ConditionTest::IsFalse);
    assert_eq!(t.conditions[3].test, ConditionTest::Triggered);
    let land = &g.states[g.state("land").unwrap().index()];
    assert!(!land.looping, "loop hint of the clip asset");
    assert!(g.states[0].looping);
    assert!(matches!(&g.states[2].motion, Motion::Clip(c) if c == "rifle_aim"), "bare animation name of the model");
    assert_eq!(g.layers[1].entry.index(), 2);
}

#[test]
fn transitions_stay_in_their_layer_and_any_is_reserved() {
    if !model_available() {
        return;
    }
    let model = model();
    let graph = format!(
        r#"
kind = "animation_graph"
id = "g"
model = '{model}'
entry = "idle"
[[layers]]
name = "upper"
entry = "aim"
[[states]]
name = "idle"
clip = "idle"
[[states]]
name = "aim"
layer = "upper"
clip = "rifle_aim"
[[states]]
name = "any"
clip = "idle"
[[transitions]]
from = "idle"
to = "aim"
exit_time = 1.0
"#
    );
    let set = load("layers", &[("g.toml", &graph)]);
    assert_eq!(codes(&set), [("E010", "states[2].name".into()), ("E010", "transitions[0].to".into())]);
}

#[test]
fn graph_canvas_positions_are_points_the_reader_checks_and_ignores() {
    if !model_available() {
        return;
    }
    let model = model();
    let graph = |idle: &str, any: &str| {
        format!(
            r#"
kind = "animation_graph"
id = "g"
model = '{model}'
entry = "idle"
any_position = {any}
[[layers]]
name = "upper"
entry = "aim"
any_position = [10, -2.5]
[[states]]
name = "idle"
clip = "idle"
position = {idle}
[[states]]
name = "aim"
layer = "upper"
clip = "rifle_aim"
position = [1e3, 0]
"#
        )
    };
    let good = load("positions", &[("g.toml", &graph("[120, 40.5]", "[0, 0]"))]);
    assert_eq!(codes(&good), []);
    assert_eq!(good.animation_graphs.len(), 1, "layout changes nothing the runtime sees");
    let bad = load("positions-bad", &[("g.toml", &graph("[1, 2, 3]", "[\"a\", 1]"))]);
    assert_eq!(codes(&bad), [("E007", "any_position[0]".into()), ("E007", "states[0].position".into())]);
}

#[test]
fn clip_animation_by_index_and_unknown_name() {
    if !model_available() {
        return;
    }
    let model = model();
    let a = format!("kind = \"clip\"\nid = \"second\"\nsource = '{model}'\nanimation = 1\n");
    let b = format!("kind = \"clip\"\nid = \"dance\"\nsource = '{model}'\n");
    let c = format!("kind = \"clip\"\nid = \"far\"\nsource = '{model}'\nanimation = 999\n");
    let set = load("clips", &[("a.toml", &a), ("b.toml", &b), ("c.toml", &c)]);
    assert_eq!(codes(&set), [("E012", "id".into()), ("E012", "animation".into())]);
    assert_eq!(set.clip("second").unwrap().animation, zoa_anim_core::AnimationSelector::Index(1));
}

#[test]
fn error_positions_count_characters_not_bytes() {
    let set = load("utf8", &[("r.toml", "kind = \"rig_policy\"\nid = \"r\" # ünïcödé\n\"ünknown\" = 1\n")]);
    assert_eq!(set.diagnostics.len(), 1);
    let d = &set.diagnostics[0];
    assert_eq!((d.code, d.line, d.column), ("E005", 3, 1));
    let set = load("utf8b", &[("r.toml", "kind = \"rig_policy\"\nid = \"r\"\n  look_at = \"é\"\n")]);
    assert_eq!((set.diagnostics[0].line, set.diagnostics[0].column), (3, 13));
    assert_eq!(set.diagnostics[0].severity, Severity::Error);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Arbitrary text never panics the loader, and every position points
    /// inside the file.
    #[test]
    fn any_text_yields_diagnostics_inside_the_file(body in "(kind = \"(clip|rig_policy|animation_graph|sound_profile)\"\n)?(id = \"x\"\n)?[ -~\n\\[\\]=\"]{0,200}") {
        let set = load("prop", &[("f.toml", &body)]);
        let lines = body.lines().count().max(1) + 1;
        for d in &set.diagnostics {
            prop_assert!(d.line >= 1 && d.line <= lines, "{d}");
            prop_assert!(d.column >= 1, "{d}");
        }
    }
}

#[test]
fn an_overlay_replaces_a_file_and_adds_unsaved_ones() {
    use zoa_anim_assets::defs::load_folder_with_overlay;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("defs-rules").join("overlay");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("b")).unwrap();
    let good = "kind = \"binding_profile\"\nid = \"a\"\n[[bindings]]\nid = \"fire\"\nparameter = \"Fire\"\ntype = \"trigger\"\n";
    std::fs::write(dir.join("b/a.toml"), good).unwrap();
    // The disk file is fine; the buffer breaks it on line 6.
    let broken = good.replace("\"trigger\"", "\"triger\"");
    let set = load_folder_with_overlay(&dir, &[(PathBuf::from("b/a.toml"), broken)]);
    let errors: Vec<_> = set.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
    assert_eq!(errors.len(), 1, "{:?}", set.diagnostics);
    assert_eq!((errors[0].file.as_path(), errors[0].line), (std::path::Path::new("b/a.toml"), 6));
    assert!(set.binding_profiles.is_empty());
    // An unsaved second file joins the folder and sees the first (a duplicate id).
    let dup = good.to_owned();
    let set = load_folder_with_overlay(&dir, &[(PathBuf::from("b/copy.toml"), dup)]);
    assert_eq!(set.binding_profiles.len(), 2);
    assert!(
        set.diagnostics.iter().any(|d| d.severity == Severity::Error && d.file == std::path::Path::new("b/copy.toml"))
    );
    // Non-TOML overlay paths are ignored; the disk stays untouched.
    let set = load_folder_with_overlay(&dir, &[(PathBuf::from("notes.txt"), "x".into())]);
    assert_eq!((set.binding_profiles.len(), set.diagnostics.len()), (1, 0));
    assert_eq!(std::fs::read_to_string(dir.join("b/a.toml")).unwrap(), good);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A broken file does not cascade: references to what it declared are
/// listed once in an I005 note at that file, never as unresolved elsewhere;
/// a broken binding profile leaves binding and slot references unchecked and
/// the note says how many.
#[test]
fn a_file_that_does_not_load_is_reported_once_not_at_every_reference() {
    let set = load(
        "no-cascade",
        &[
            // Not TOML: the binding profile `rifle` does not load.
            ("bindings/rifle.toml", "kind = \"binding_profile\"\nid = \"rifle\"\n[[bindings]\nid = \"fire\"\n"),
            // Not a known kind, no id line: the file stem `gone` is what it declares.
            ("graphs/gone.toml", "kind = \"animation_graf\"\n"),
            (
                "player.toml",
                r#"
kind = "player_profile_set"
id = "player"
default_profile = "rifle"
[[profiles]]
class = "rifle"
binding_profile = "rifle"
animation_graph = "gone"
"#,
            ),
            (
                "presets/p.toml",
                r#"
kind = "preview_preset"
id = "p"
steps = [{ fire = "fire" }, { play_slot = "fire_auto" }]
"#,
            ),
        ],
    );
    let unresolved: Vec<_> = set.diagnostics.iter().filter(|d| d.code == "E012").collect();
    assert!(unresolved.is_empty(), "{unresolved:#?}");
    let notes: Vec<_> = set.diagnostics.iter().filter(|d| d.code == "I005").collect();
    let at = |file: &str| notes.iter().filter(|d| d.file == std::path::Path::new(file)).count();
    assert_eq!(at("bindings/rifle.toml"), 2, "{notes:#?}"); // the profile's one reference, the two step references
    assert_eq!(at("graphs/gone.toml"), 2, "{notes:#?}"); // its reference, and: it may be a binding profile
    let rifle = notes.iter().find(|d| d.message.contains("binding_profile `rifle`")).unwrap();
    assert!(rifle.message.contains("1 reference(s)") && rifle.message.contains("player.toml:7:"), "{}", rifle.message);
    assert!(notes.iter().any(|d| d.message.contains("2 binding and slot reference(s)")), "{notes:#?}");
    assert!(set.diagnostics.iter().any(|d| d.code == "E003" && d.message.contains("not loaded")));
}

#[test]
fn forced_states_resolve_against_the_folders_graphs() {
    if !model_available() {
        return;
    }
    let model = model();
    let graph = format!(
        "kind = \"animation_graph\"\nid = \"g\"\nmodel = '{model}'\nentry = \"idle\"\n\
         [[states]]\nname = \"idle\"\nclip = \"idle\"\n[[states]]\nname = \"land\"\nclip = \"land\"\n\
         [[transitions]]\nfrom = \"idle\"\nto = \"land\"\nexit_time = 1.0\n"
    );
    let preset = r#"
kind = "preview_preset"
id = "p"
steps = [
  { play_state = "land", blend = 0.1 },
  { play_state = "idle" },
  { play_state = "lnad" },
  { wait = 0.5, blend = 0.2 },
  { play_state = "idle", blend = -1 },
]
"#;
    let set = load("forced", &[("g.toml", &graph), ("p.toml", preset)]);
    assert_eq!(
        codes(&set),
        [("E012", "steps[2].play_state".into()), ("E019", "steps[3].blend".into()), ("E008", "steps[4].blend".into())]
    );
    let unresolved = set.diagnostics.iter().find(|d| d.code == "E012").unwrap();
    assert!(unresolved.message.contains("did you mean `land`"), "{}", unresolved.message);
    let good = "kind = \"preview_preset\"\nid = \"p\"\nsteps = [{ play_state = \"land\", blend = 0.1 }, { play_state = \"idle\" }]\n";
    let set = load("forced-good", &[("g.toml", &graph), ("p.toml", good)]);
    assert_eq!(codes(&set), []);
    let p = &set.preview_presets[0].value;
    assert_eq!(p.steps[0], PreviewStep::PlayState { state: "land".into(), blend: Some(0.1) });
    assert_eq!(p.steps[1], PreviewStep::PlayState { state: "idle".into(), blend: None });

    // Without any graph in the folder every forced state is unresolved.
    let alone = load(
        "forced-alone",
        &[("p.toml", "kind = \"preview_preset\"\nid = \"p\"\nsteps = [{ play_state = \"land\" }]\n")],
    );
    assert_eq!(codes(&alone), [("E012", "steps[0].play_state".into())]);
}

#[test]
fn rig_policy_chains_read_with_defaults_and_their_bones_are_checked_against_the_models() {
    let policy = "kind = \"rig_policy\"\nid = \"p\"\n\n[[chains]]\nname = \"spine\"\nroot = \"Spine\"\ntip = \"Head\"\n\
                  iterations = 20\ntolerance = 0.002\nweight = 0.5\nswing_limit_degrees = 30\n\n\
                  [[chains]]\nname = \"tail\"\nroot = \"Tail1\"\ntip = \"Tail3\"\n";
    // No model in the folder: nothing to check the bones against.
    let set = load("chains-no-model", &[("rig.toml", policy)]);
    assert!(set.diagnostics.is_empty(), "{:?}", codes(&set));
    let chains = &set.rig_policies[0].value.chains;
    assert_eq!(chains.len(), 2);
    let (spine, tail) = (&chains[0], &chains[1]);
    assert_eq!((spine.name.as_str(), spine.root.as_str(), spine.tip.as_str()), ("spine", "Spine", "Head"));
    assert_eq!((spine.iterations, spine.tolerance, spine.weight), (20, 0.002, 0.5));
    assert_eq!((spine.swing_limit_degrees, spine.twist_limit_degrees), (30.0, 180.0));
    assert_eq!(tail, &zoa_anim_core::RigChain::new("tail", "Tail1", "Tail3"), "defaults");

    if !model_available() {
        return;
    }
    // With the humanoid in the folder: the spine's bones exist, the tail's do not.
    let clip =
        format!("kind = \"clip\"\nid = \"idle\"\nsource = \"{}\"\nanimation = \"idle\"\n", model().replace('\\', "/"));
    let set = load("chains-model", &[("rig.toml", policy), ("idle.toml", &clip)]);
    assert_eq!(
        codes(&set),
        [("E015", "chains[1].root".to_owned()), ("E015", "chains[1].tip".to_owned())],
        "{:?}",
        set.diagnostics
    );
    // A missing name, a wrong type, an unknown key: the usual located diagnostics.
    let bad = "kind = \"rig_policy\"\nid = \"q\"\nchains = [{ root = \"Spine\", tip = 3, pole = 1 }]\n";
    let set = load("chains-bad", &[("rig.toml", bad)]);
    let found = codes(&set);
    for expected in [("E006", "chains[0].name"), ("E007", "chains[0].tip"), ("E005", "chains[0].pole")] {
        assert!(found.contains(&(expected.0, expected.1.to_owned())), "{found:?}");
    }
}

#[test]
fn clip_notifies_read_as_windows_with_payloads_and_markers_come_from_both_forms() {
    if !model_available() {
        return;
    }
    let text = format!(
        r#"
kind = "clip"
id = "c"
source = "{}"
animation = "walk"
notifies = [
    {{ name = "step", time = 0.5, marker = true, payload = {{ foot = "right", volume = 0.5, heavy = true }} }},
    {{ name = "combo", time = 0.2, duration = 0.3 }},
    "Whoosh@0.2",
]
markers = ["foot_l@0.1", {{ name = "foot_r", time = 0.5 }}]
"#,
        model().replace('\\', "/")
    );
    let set = load("clip-time", &[("c.toml", &text)]);
    assert!(set.diagnostics.is_empty(), "{:?}", codes(&set));
    let c = &set.clips[0].value;
    let notifies: Vec<(&str, f32, f32)> = c.notifies.iter().map(|n| (n.name.as_str(), n.time, n.duration)).collect();
    assert_eq!(notifies, [("combo", 0.2, 0.3), ("Whoosh", 0.2, 0.0), ("step", 0.5, 0.0)], "by time, stable");
    let p = &c.notifies[2].payload;
    assert_eq!((p.text("foot"), p.number("volume"), p.flag("heavy")), (Some("right"), Some(0.5), Some(true)));
    let markers: Vec<(&str, f32)> = c.markers.iter().map(|m| (m.name.as_str(), m.time)).collect();
    assert_eq!(markers, [("foot_l", 0.1), ("step", 0.5), ("foot_r", 0.5)], "the notify's marker comes first on a tie");
}

#[test]
fn a_clip_carries_at_most_64_windows() {
    if !model_available() {
        return;
    }
    let windows: Vec<String> = (0..65).map(|i| format!("{{ name = \"w{i}\", time = 0.0, duration = 0.5 }}")).collect();
    let text = format!(
        "kind = \"clip\"\nid = \"c\"\nsource = \"{}\"\nanimation = \"walk\"\nnotifies = [{}]\n",
        model().replace('\\', "/"),
        windows.join(", ")
    );
    let set = load("clip-windows", &[("c.toml", &text)]);
    assert_eq!(codes(&set), [("E008", "notifies[64]".to_owned())]);
}
