//! The graph canvas's endpoints over HTTP (`/api/graph/*`), from outside:
//! views with diagnostics on their rows, edits that write nothing, renames
//! shown before they apply, and hostile requests (paths leaving `--defs`,
//! unknown rows, oversized texts and bodies, missing token or Origin, stale
//! saves of an edited text).

mod serve_support;

use serde_json::{Value, json};
use serve_support::{Reply, Server};

const GRAPH: &str = "defs/graphs/humanoid_locomotion.toml";

fn ok(r: &Reply) -> Value {
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn opened(s: &Server, path: &str) -> (String, String) {
    let f = ok(&s.get(&format!("/api/file?path={path}")));
    (f["text"].as_str().unwrap().to_owned(), f["version"].as_str().unwrap().to_owned())
}

fn disk(s: &Server) -> String {
    std::fs::read_to_string(s.defs().join("graphs/humanoid_locomotion.toml")).unwrap()
}

#[test]
fn the_view_lists_states_transitions_clips_and_problems_on_their_rows() {
    let s = Server::start();
    let (text, _) = opened(&s, GRAPH);
    let v = ok(&s.post("/api/graph/view", &json!({ "path": GRAPH, "text": text })));
    assert_eq!(v["view"]["states"].as_array().unwrap().len(), 8, "the airborne machine is a state too");
    assert_eq!(v["view"]["transitions"].as_array().unwrap().len(), 10);
    assert_eq!(v["diagnostics"], json!([]));
    // The clip pickers: every clip of the humanoid's skeleton, nothing else.
    let clips: Vec<&str> = v["clips"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert!(clips.contains(&"walk") && clips.contains(&"rifle_aim") && clips.len() == 14, "{clips:?}");
    assert_eq!(v["models"], json!(["../../../models/humanoid.glb"]));
    assert_eq!(v["used_by"][0], json!({ "profile_set": "player", "class": "unarmed", "binding_profile": "unarmed" }));
    // An unsaved text with problems: each lands on its row.
    let broken = text.replace("to = \"fall\"", "to = \"falling\"").replace("clip = \"land\"", "clip = \"landing\"");
    let v = ok(&s.post("/api/graph/view", &json!({ "path": GRAPH, "text": broken })));
    let targets: Vec<(&str, &Value)> =
        v["diagnostics"].as_array().unwrap().iter().map(|d| (d["code"].as_str().unwrap(), &d["target"])).collect();
    assert_eq!(targets, [("E012", &json!({ "state": 5 })), ("E012", &json!({ "transition": 3 }))]);
    assert_eq!(disk(&s), text, "viewing writes nothing");
    // A model that is not a model of the folder: no clips to pick.
    let other = text.replace("models/humanoid.glb", "models/nothing.glb");
    let v = ok(&s.post("/api/graph/view", &json!({ "path": GRAPH, "text": other })));
    assert_eq!(v["clips"], json!([]));
}

#[test]
fn edits_return_the_new_text_and_write_nothing_until_saved() {
    let s = Server::start();
    let (text, version) = opened(&s, GRAPH);
    let edits = json!([
        { "op": "add_state", "name": "dodge", "clip": "hit_react", "position": [100, 50] },
        { "op": "add_transition", "from": "locomotion", "to": "dodge", "conditions": ["speed > 5"] },
    ]);
    let r = ok(&s.post("/api/graph/edit", &json!({ "path": GRAPH, "text": text, "edits": edits })));
    let new = r["text"].as_str().unwrap();
    assert!(new.contains("name = \"dodge\"") && new.starts_with(&text[..text.find("[[transitions]]").unwrap()]));
    assert_eq!(r["view"]["states"].as_array().unwrap().len(), 9);
    assert_eq!(disk(&s), text, "nothing written");
    // Saved through the safe save; a second save from the opened version is stale.
    ok(&s.post("/api/save", &json!({ "path": GRAPH, "text": new, "version": version })));
    assert_eq!(disk(&s), new);
    let r = s.post("/api/save", &json!({ "path": GRAPH, "text": text, "version": version }));
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["stale"], true);
    assert_eq!(disk(&s), new);
}

#[test]
fn refused_edits_say_why_and_change_nothing() {
    let s = Server::start();
    let (text, _) = opened(&s, GRAPH);
    let edit = |edits: Value| s.post("/api/graph/edit", &json!({ "path": GRAPH, "text": text, "edits": edits }));
    for (edits, says) in [
        (json!([{ "op": "delete_state", "state": 400 }]), "no states[400]"),
        (json!([{ "op": "add_state", "name": "fall", "position": [0, 0] }]), "exists"),
        (json!([{ "op": "set", "target": "graph", "key": "id", "value": "x" }]), "not set"),
        (json!([{ "op": "set", "target": { "transition": 0 }, "key": "../x", "value": 1 }]), "not a field"),
        (json!([{ "op": "swap_transitions", "a": 0, "b": 99 }]), "no such transition"),
    ] {
        let r = edit(edits);
        assert_eq!(r.status, 422, "{}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains(says), "{}", r.text());
    }
    // Not an edit at all: refused by the request's shape.
    let r = edit(json!([{ "op": "format_disk" }]));
    assert_eq!(r.status, 422, "{}", r.text());
    // Not a graph.
    let (clip, _) = opened(&s, "defs/clips/walk.toml");
    let r = s.post("/api/graph/edit", &json!({ "path": "defs/clips/walk.toml", "text": clip, "edits": [] }));
    assert!(r.json()["error"].as_str().unwrap().contains("animation_graph"), "{}", r.text());
    assert_eq!(disk(&s), text);
}

#[test]
fn hostile_paths_bodies_and_headers_are_refused() {
    let s = Server::start();
    let (text, _) = opened(&s, GRAPH);
    for path in ["defs/../secret.toml", "/etc/passwd", "assets/humanoid.glb", "defs/graphs/x.txt", "other/a.toml"] {
        for endpoint in ["/api/graph/view", "/api/graph/edit"] {
            let r = s.post(endpoint, &json!({ "path": path, "text": text, "edits": [] }));
            assert_eq!(r.status, 403, "{endpoint} {path}: {}", r.text());
        }
    }
    // A text larger than a definition file may be.
    let big = format!("{text}#{}\n", "x".repeat(4 << 20));
    let r = s.post("/api/graph/edit", &json!({ "path": GRAPH, "text": big, "edits": [] }));
    assert_eq!(r.status, 400, "{}", r.text());
    // A body over the server's limit.
    let huge = format!("{{\"path\":\"{GRAPH}\",\"text\":\"{}\",\"edits\":[]}}", "y".repeat(10 << 20));
    let r = s.raw(
        "POST",
        "/api/graph/edit",
        &[("x-zoa-token", &s.token), ("Origin", &s.origin), ("Content-Type", "application/json")],
        Some(huge.as_bytes()),
    );
    assert_eq!(r.status, 413, "{}", r.text());
    // Too many edits at once.
    let many: Vec<Value> = (0..1001).map(|_| json!({ "op": "set_entry", "state": 0 })).collect();
    let r = s.post("/api/graph/edit", &json!({ "path": GRAPH, "text": text, "edits": many }));
    assert_eq!(r.status, 422);
    // No token; no Origin.
    let body = serde_json::to_vec(&json!({ "path": GRAPH, "text": text, "edits": [] })).unwrap();
    let r =
        s.raw("POST", "/api/graph/edit", &[("Origin", &s.origin), ("Content-Type", "application/json")], Some(&body));
    assert_eq!(r.status, 401);
    let r = s.raw(
        "POST",
        "/api/graph/edit",
        &[("x-zoa-token", &s.token), ("Content-Type", "application/json")],
        Some(&body),
    );
    assert_eq!(r.status, 403);
}

#[test]
fn a_parameter_rename_is_shown_with_every_file_it_changes_before_anything_is_written() {
    let s = Server::start();
    let (text, _) = opened(&s, GRAPH);
    let (profile, profile_version) = opened(&s, "defs/bindings/unarmed.toml");
    let r = ok(&s.post(
        "/api/graph/rename_parameter",
        &json!({ "path": GRAPH, "text": text, "parameter": 1, "name": "on_ground" }),
    ));
    assert_eq!((r["from"].as_str(), r["to"].as_str()), (Some("is_grounded"), Some("on_ground")));
    // The graph: its row and the two conditions naming it.
    assert_eq!(r["changes"].as_array().unwrap().len(), 3, "{}", r["changes"]);
    assert!(r["text"].as_str().unwrap().contains("conditions = [\"jump\", \"on_ground is true\"]"));
    // The binding profile that drives the graph (player set `player`, class unarmed).
    let files = r["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0]["path"], "defs/bindings/unarmed.toml");
    assert_eq!(files[0]["version"], profile_version.as_str());
    assert_eq!(
        files[0]["changes"][0]["after"],
        "    { id = \"is_grounded\", parameter = \"on_ground\", type = \"bool\" },"
    );
    // Nothing is written.
    assert_eq!(disk(&s), text);
    assert_eq!(std::fs::read_to_string(s.defs().join("bindings/unarmed.toml")).unwrap(), profile);
    let r =
        s.post("/api/graph/rename_parameter", &json!({ "path": GRAPH, "text": text, "parameter": 70, "name": "x" }));
    assert_eq!(r.status, 400);
}

#[test]
fn the_clip_editor_reads_samples_and_edits_a_clip() {
    let s = Server::start();
    let path = "defs/clips/walk.toml";
    let (text, version) = opened(&s, path);
    let v = ok(&s.post("/api/clip/view", &json!({ "path": path, "text": text })));
    assert_eq!(
        v["view"]["notifies"],
        json!([{ "name": "Footstep", "time": 0.1 }, { "name": "Footstep", "time": 0.5 }])
    );
    assert_eq!(v["skeleton"]["joints"], 55);
    assert_eq!(v["model"], "assets/humanoid.glb");
    let samples = &v["samples"];
    let ticks = (samples["playback_length"].as_f64().unwrap() * 30.0).ceil() as usize + 1;
    assert_eq!(samples["frames"].as_array().unwrap().len(), ticks);
    assert_eq!(samples["frames"][0].as_array().unwrap().len(), 55 * 3);
    assert_ne!(samples["frames"][0], samples["frames"][ticks / 2], "the figure moves");
    // Edit: move a notify and set the rate; nothing written until saved.
    let set =
        json!({ "notifies": [{ "name": "Footstep", "time": 0.1 }, { "name": "Footstep", "time": 0.3 }], "rate": 2 });
    let r = ok(&s.post("/api/clip/edit", &json!({ "path": path, "text": text, "set": set })));
    let new = r["text"].as_str().unwrap();
    assert!(new.contains("notifies = [\"Footstep@0.1\", \"Footstep@0.3\"]") && new.contains("rate = 2"), "{new}");
    assert_eq!(std::fs::read_to_string(s.defs().join("clips/walk.toml")).unwrap(), text);
    // The rate halves the playback length of the samples of the unsaved text.
    let v2 = ok(&s.post("/api/clip/view", &json!({ "path": path, "text": new })));
    let (a, b) = (samples["playback_length"].as_f64().unwrap(), v2["samples"]["playback_length"].as_f64().unwrap());
    assert!((a / 2.0 - b).abs() < 1e-3, "{a} {b}");
    ok(&s.post("/api/save", &json!({ "path": path, "text": new, "version": version })));
    // Refused: other fields, bad values, other kinds, paths outside --defs.
    for (set, says) in [
        (json!({ "source": "x.glb" }), "not a field"),
        (json!({ "rate": -1 }), "> 0"),
        (json!({ "notifies": [{ "name": "x", "time": "soon" }] }), "notifies"),
    ] {
        let r = s.post("/api/clip/edit", &json!({ "path": path, "text": new, "set": set }));
        assert_eq!(r.status, 422, "{}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains(says), "{}", r.text());
    }
    let (graph, _) = opened(&s, GRAPH);
    let r = s.post("/api/clip/edit", &json!({ "path": GRAPH, "text": graph, "set": {} }));
    assert_eq!(r.status, 422);
    let r = s.post("/api/clip/view", &json!({ "path": "defs/../walk.toml", "text": new }));
    assert_eq!(r.status, 403);
}
