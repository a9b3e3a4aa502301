//! The Preview Lab's live mode over HTTP (`/api/live/*`): free play of a
//! graph with parameters set while it plays, a single clip with its
//! notifies, one session at a time, sessions that end when their page stops
//! polling, and refused requests.

mod serve_support;

use std::time::Duration;

use serde_json::{Value, json};
use serve_support::{Reply, Server, eventually};

fn ok(r: &Reply) -> Value {
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn start(s: &Server, body: Value) -> Value {
    ok(&s.post("/api/live/start", &body))
}

fn poll(s: &Server, id: &str) -> Reply {
    s.post("/api/live/poll", &json!({ "session": id }))
}

/// Polls until the base layer's first active state is `state` (a few seconds at most).
fn until_state(s: &Server, id: &str, state: &str) -> Value {
    eventually(20, || {
        std::thread::sleep(Duration::from_millis(30));
        let f = ok(&poll(s, id));
        let states = &f["frame"]["layers"][0]["states"];
        states.as_array().unwrap().iter().any(|x| x[0] == state && x[1].as_f64().unwrap() > 0.99).then_some(f)
    })
    .unwrap_or_else(|| panic!("`{state}` never played"))
}

#[test]
fn a_graph_plays_freely_and_its_parameters_are_set_while_it_plays() {
    let s = Server::start();
    let r = start(&s, json!({ "mode": "graph", "graph": "humanoid_locomotion" }));
    let id = r["session"].as_str().unwrap().to_owned();
    let names: Vec<&str> = r["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["speed", "is_grounded", "is_crouching", "posture", "jump", "hit", "die"]);
    assert!(r["parameters"].as_array().unwrap().iter().all(|p| p["settable"] == true));
    assert_eq!(r["frame"]["layers"][0]["states"][0][0], "locomotion");
    assert_eq!(r["joint_names"].as_array().unwrap().len() * 3, r["frame"]["joints"].as_array().unwrap().len());
    // Crouch, then back; a value set shows in the frame's values.
    ok(&s.post("/api/live/set", &json!({ "session": id, "parameter": "is_crouching", "value": true })));
    let f = until_state(&s, &id, "crouch");
    assert_eq!(f["frame"]["values"][2], true);
    ok(&s.post("/api/live/set", &json!({ "session": id, "parameter": "is_crouching", "value": false })));
    until_state(&s, &id, "locomotion");
    // A trigger fires (any -> death); the transition under way shows with its progress.
    ok(&s.post("/api/live/set", &json!({ "session": id, "parameter": "die", "value": null })));
    let seen = eventually(20, || {
        std::thread::sleep(Duration::from_millis(20));
        let f = ok(&poll(&s, &id));
        f["frame"]["layers"][0]["transition"].as_object().cloned()
    })
    .expect("a transition under way");
    assert_eq!((seen["from"].as_str(), seen["to"].as_str()), (Some("locomotion"), Some("death")));
    until_state(&s, &id, "death");
    // Refused: wrong type, unknown parameter, unknown session.
    let r = s.post("/api/live/set", &json!({ "session": id, "parameter": "speed", "value": true }));
    assert_eq!(r.status, 400, "{}", r.text());
    let r = s.post("/api/live/set", &json!({ "session": id, "parameter": "fly", "value": 1 }));
    assert!(r.status == 400 && r.text().contains("no parameter `fly`"), "{}", r.text());
    let r = s.post("/api/live/set", &json!({ "session": id, "parameter": "speed", "value": "fast" }));
    assert_eq!(r.status, 400);
    let r = s.post("/api/live/set", &json!({ "session": id, "playback_speed": -1 }));
    assert_eq!(r.status, 400);
    assert_eq!(poll(&s, "not-a-session").status, 404);
    // Stopped: gone.
    ok(&s.post("/api/live/stop", &json!({ "session": id })));
    let r = poll(&s, &id);
    assert_eq!((r.status, r.json()["ended"].as_bool()), (404, Some(true)));
}

#[test]
fn a_state_added_on_the_canvas_plays_when_its_condition_is_met() {
    let s = Server::start();
    let path = "defs/graphs/humanoid_locomotion.toml";
    let f = ok(&s.get(&format!("/api/file?path={path}")));
    let edits = json!([
        { "op": "add_state", "name": "dodge", "clip": "hit_react", "position": [100, 50] },
        { "op": "add_transition", "from": "locomotion", "to": "dodge", "conditions": ["speed > 5"] },
    ]);
    let e = ok(&s.post("/api/graph/edit", &json!({ "path": path, "text": f["text"], "edits": edits })));
    ok(&s.post("/api/save", &json!({ "path": path, "text": e["text"], "version": f["version"] })));
    let r = start(&s, json!({ "mode": "graph", "graph": "humanoid_locomotion", "rate": 60 }));
    let id = r["session"].as_str().unwrap().to_owned();
    until_state(&s, &id, "locomotion");
    ok(&s.post("/api/live/set", &json!({ "session": id, "parameter": "speed", "value": 6.0 })));
    until_state(&s, &id, "dodge");
}

#[test]
fn a_single_clip_loops_with_its_notifies_and_one_session_plays_at_a_time() {
    let s = Server::start();
    let first = start(&s, json!({ "mode": "graph", "graph": "humanoid_locomotion" }));
    let r = start(&s, json!({ "mode": "clip", "clip": "walk", "loop": true }));
    let id = r["session"].as_str().unwrap().to_owned();
    assert_eq!(r["parameters"], json!([]));
    assert_eq!(r["frame"]["layers"][0]["states"][0][0], "walk");
    // The new session ended the first.
    assert_eq!(poll(&s, first["session"].as_str().unwrap()).status, 404);
    ok(&s.post("/api/live/set", &json!({ "session": id, "playback_speed": 2.0 })));
    // The walk's footsteps arrive as events.
    let steps = eventually(20, || {
        std::thread::sleep(Duration::from_millis(50));
        let f = ok(&poll(&s, &id));
        let events: Vec<String> =
            f["events"].as_array().unwrap().iter().map(|e| e.as_str().unwrap().to_owned()).collect();
        events.iter().any(|e| e.ends_with("notify Footstep")).then_some(events)
    });
    assert!(steps.is_some(), "no footstep notify");
}

#[test]
fn refused_starts_say_why() {
    let s = Server::start();
    for (body, status) in [
        (json!({ "mode": "dance" }), 400),
        (json!({ "mode": "graph" }), 400),
        (json!({ "mode": "graph", "graph": "humanoid_locomotion", "rate": 0 }), 400),
        (json!({ "mode": "graph", "graph": "humanoid_locomotion", "rate": 1000 }), 400),
        (json!({ "mode": "graph", "graph": "nope" }), 422),
        (json!({ "mode": "clip", "clip": "nope" }), 422),
        (json!({ "mode": "graph", "graph": "humanoid_locomotion", "extra": 1 }), 422),
    ] {
        let r = s.post("/api/live/start", &body);
        assert_eq!(r.status, status, "{body}: {}", r.text());
    }
    let r = s.post("/api/live/start", &json!({ "mode": "graph", "graph": "nope" }));
    assert!(r.json()["problems"][0].as_str().unwrap().contains("no animation_graph `nope`"), "{}", r.text());
    // Without the token: refused by the guard.
    let body = serde_json::to_vec(&json!({ "mode": "clip", "clip": "walk" })).unwrap();
    let r =
        s.raw("POST", "/api/live/start", &[("Origin", &s.origin), ("Content-Type", "application/json")], Some(&body));
    assert_eq!(r.status, 401);
}

#[test]
fn a_session_whose_page_stops_polling_ends() {
    let s = Server::start();
    let r = start(&s, json!({ "mode": "clip", "clip": "idle" }));
    let id = r["session"].as_str().unwrap().to_owned();
    ok(&poll(&s, &id));
    // Nobody polls for longer than the idle limit (5 s): the session is gone.
    std::thread::sleep(Duration::from_secs(7));
    let r = poll(&s, &id);
    assert_eq!(r.status, 404, "{}", r.text());
}

#[test]
fn the_skinned_character_comes_with_its_mesh_and_skinning_matrices() {
    let s = Server::start();
    let plain = start(&s, json!({ "mode": "clip", "clip": "walk" }));
    assert!(plain["frame"].get("skin").is_none(), "no matrices unless asked");
    let r = start(&s, json!({ "mode": "clip", "clip": "walk", "skin": true }));
    let id = r["session"].as_str().unwrap().to_owned();
    let joints = r["joint_names"].as_array().unwrap().len();
    assert_eq!(r["frame"]["skin"].as_array().unwrap().len(), joints * 16);
    let m = ok(&s.post("/api/live/mesh", &json!({ "session": id })));
    let model = s.root.path().join("fixtures/models/humanoid.glb");
    let mesh = zoa_anim_assets::gltf::load_skinned_mesh(&model, 0).unwrap();
    let n = mesh.positions.len();
    assert_eq!(m["positions"].as_array().unwrap().len(), n * 3);
    assert_eq!(m["normals"].as_array().unwrap().len(), n * 3);
    assert_eq!(m["joints"].as_array().unwrap().len(), n * 4);
    assert_eq!(m["weights"].as_array().unwrap().len(), n * 4);
    assert_eq!(m["indices"].as_array().unwrap().len(), mesh.indices.len());
    assert!(m["joints"].as_array().unwrap().iter().all(|j| (j.as_u64().unwrap() as usize) < joints));
    // The matrices move with the clip.
    let later = eventually(20, || {
        std::thread::sleep(Duration::from_millis(50));
        let f = ok(&poll(&s, &id));
        (f["frame"]["skin"] != r["frame"]["skin"]).then_some(f)
    });
    assert!(later.is_some());
    assert_eq!(s.post("/api/live/mesh", &json!({ "session": "gone" })).status, 404);
}
