//! Graph builder: the generated locomotion + weapon graph written as TOML
//! loads back through `load_folder` as exactly the graph that was built.

use std::path::Path;

use zoa_anim_assets::authoring::graph_builder::{GraphBuilder, graph_toml, locomotion_weapon_graph};
use zoa_anim_assets::defs::{Severity, load_folder};
use zoa_anim_core::graph::{BlendMode, BoneMask, Motion, ParameterDefault, TransitionSource};
use zoa_test_support::paths::{copy_dir, fixture, temp_dir};
use zoa_test_support::tempfile::TempDir;

/// A copy of `fixtures/defs/humanoid` and `fixtures/models` with the same
/// relative layout, so the fixture's model paths still resolve.
fn fixture_copy(name: &str) -> TempDir {
    let root = temp_dir(name);
    copy_dir(&fixture("defs/humanoid"), &root.path().join("defs/humanoid"));
    copy_dir(&fixture("models"), &root.path().join("models"));
    root
}

fn assert_loads_back(root: &Path, graph: &zoa_anim_core::AnimationGraph) {
    let folder = root.join("defs/humanoid");
    let text = graph_toml(graph, "../../../models/humanoid.glb");
    std::fs::write(folder.join(format!("graphs/{}.toml", graph.id)), &text).unwrap();
    let set = load_folder(&folder);
    // No error anywhere, and no warning about the generated file (the copy
    // leaves the fixture's sound files behind, so sound warnings are expected).
    let mine = Path::new("graphs").join(format!("{}.toml", graph.id));
    let problems: Vec<_> = set
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error || (d.file == mine && d.severity == Severity::Warning))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}\n{text}");
    let mut loaded = set.animation_graph(&graph.id).expect("graph loads").clone();
    assert_eq!(loaded.model, "../../models/humanoid.glb");
    loaded.model = graph.model.clone();
    assert_eq!(&loaded, graph, "{text}");
}

#[test]
fn generated_locomotion_weapon_graph_round_trips_through_toml() {
    let tmp = fixture_copy("graph-gen");
    let root = tmp.path();
    let defs = load_folder(&root.join("defs/humanoid"));
    let g = locomotion_weapon_graph(&defs, "player", "player_generated", "../models/humanoid.glb").unwrap();
    // Locomotion: a 1D speed blend over the four unarmed locomotion clips.
    let loco = &g.states[g.state("locomotion").unwrap().index()];
    let Motion::BlendTree(_) = &loco.motion else { panic!("blend tree") };
    let clips = loco.motion.clips();
    assert_eq!(clips, ["idle", "walk", "run", "sprint"]);
    for s in ["crouch", "jump", "fall", "land", "death", "weapon_rest", "fire", "reload"] {
        assert!(g.state(s).is_some(), "state {s}");
    }
    let weapon = g.layer("weapon").unwrap();
    assert_eq!(g.layers[weapon].blend_mode, BlendMode::Additive);
    assert!(g.transitions.iter().any(|t| t.from == TransitionSource::Any && t.to == g.state("death").unwrap()));
    assert!(g.transitions.iter().any(|t| t.exit_time.is_some()));
    assert_loads_back(root, &g);
    // Generating again gives the same graph.
    let again = locomotion_weapon_graph(&defs, "player", "player_generated", "../models/humanoid.glb").unwrap();
    assert_eq!(again, g);
    assert!(locomotion_weapon_graph(&defs, "nope", "x", "m").is_err());
}

#[test]
fn hand_built_graph_with_2d_tree_and_masked_layer_round_trips() {
    let tmp = fixture_copy("graph-2d");
    let root = tmp.path();
    let mut b = GraphBuilder::new("strafe_built", "../models/humanoid.glb");
    b.parameter("move_x", ParameterDefault::Float(0.0)).unwrap();
    b.parameter("move_y", ParameterDefault::Float(0.25)).unwrap();
    b.parameter("stance", ParameterDefault::Int(2)).unwrap();
    let strafe = b
        .blend_2d(0, "strafe", "move_x", "move_y", &[("idle", 0.0, 0.0), ("walk", 0.0, 1.5), ("run", 0.0, 4.0)])
        .unwrap();
    b.crossfade(strafe, 0.2, true);
    let mask = BoneMask { include: vec!["Spine1".into()], exclude: vec!["Neck".into()] };
    let upper = b.layer("upper_body", 0.8, BlendMode::Override, Some(mask)).unwrap();
    let lowered = b.clip_state(upper, "lowered", "idle", true).unwrap();
    let aim = b.clip_state(upper, "aim", "rifle_aim", true).unwrap();
    b.bool_transition(lowered, aim, "is_aiming", true, 0.15).unwrap();
    b.bool_transition(aim, lowered, "is_aiming", false, 0.15).unwrap();
    b.float_transition(aim, lowered, "move_y", zoa_anim_core::graph::CompareOp::Gt, 5.5, 0.1).unwrap();
    let g = b.build().unwrap();
    assert_loads_back(root, &g);
}
