//! Loadout switches on a hand-built two-graph character: during the
//! cross-fade each graph's layers keep that graph's own masks.

mod common;
mod graph_common;

use common::{full_clip, skeleton};
use graph_common::{graph, layer, state};
use zoa_anim_core::graph::{AnimationGraph, BoneMask};
use zoa_anim_core::{
    AnimationSelector, BindingProfileBuilder, BundledClip, CharacterBundle, ClipAsset, PlayerProfileEntry,
    PlayerProfileSet, PlayerProfileType,
};
use zoa_anim_runtime::{Character, CharacterDefinition, CharacterSettings, Pose, blend_into};

fn clip(name: &str, k: f32) -> BundledClip {
    BundledClip {
        asset: ClipAsset {
            id: name.into(),
            source: "test.glb".into(),
            animation: AnimationSelector::Index(0),
            rate: 1.0,
            loop_hint: true,
            notifies: Vec::new(),
        },
        clip: full_clip(name, k),
        bind_by_name: false,
    }
}

/// A base layer playing `base` and an upper layer playing `upper` masked to `masked`'s subtree.
fn two_layer_graph(id: &str, base: &str, upper: &str, masked: &str) -> AnimationGraph {
    let mut up = layer("upper", 1);
    up.bone_mask = Some(BoneMask { include: vec![masked.into()], exclude: vec![] });
    let mut upper_state = state("upper", upper, true);
    upper_state.layer = 1;
    let mut g = graph(vec![], vec![layer("base", 0), up], vec![state("base", base, true), upper_state], vec![]);
    g.id = id.into();
    g
}

fn bundle(default: PlayerProfileType) -> CharacterBundle {
    let entry = |class, graph: &str| PlayerProfileEntry {
        class,
        binding_profile: "b".into(),
        animation_profile: None,
        animation_graph: Some(graph.into()),
    };
    let mut b = CharacterBundle::new(skeleton());
    b.clips = vec![clip("c0", 0.0), clip("c1", 1.0), clip("c2", 2.0), clip("c3", 3.0)];
    b.graphs = vec![two_layer_graph("a", "c0", "c1", "arm"), two_layer_graph("b", "c2", "c3", "leg")];
    b.binding_profiles = vec![BindingProfileBuilder::new("b", "B").build().unwrap()];
    b.player_set = Some(PlayerProfileSet {
        id: "set".into(),
        default_profile: default,
        profiles: vec![entry(PlayerProfileType::Unarmed, "a"), entry(PlayerProfileType::Rifle, "b")],
    });
    b
}

#[test]
fn during_a_loadout_cross_fade_each_graph_uses_its_own_masks() {
    let settings = CharacterSettings::default();
    let on_a = CharacterDefinition::new(&bundle(PlayerProfileType::Unarmed), settings.clone()).unwrap();
    let on_b = CharacterDefinition::new(&bundle(PlayerProfileType::Rifle), settings).unwrap();
    let dt = 1.0 / 60.0;
    let mut switching = Character::new(&on_a).unwrap();
    let mut stays_a = Character::new(&on_a).unwrap();
    for _ in 0..30 {
        switching.update(dt).unwrap();
        stays_a.update(dt).unwrap();
    }
    let change = switching.equip(PlayerProfileType::Rifle).unwrap();
    assert!(change.graph_changed);
    let mut starts_b = Character::new(&on_b).unwrap();
    let mut checked = 0;
    for _ in 0..20 {
        switching.update(dt).unwrap();
        stays_a.update(dt).unwrap();
        starts_b.update(dt).unwrap();
        let alpha = switching.switch_alpha();
        let mut want: Pose = starts_b.local_pose().clone();
        blend_into(&mut want, stays_a.local_pose(), 1.0 - alpha);
        assert_eq!(switching.local_pose(), &want, "alpha {alpha}");
        if alpha < 1.0 {
            checked += 1;
            // The arm is in graph a's upper mask only, the leg in graph b's only: both show their graph's clip.
            assert_ne!(stays_a.local_pose().get(2), starts_b.local_pose().get(2));
        }
    }
    assert!(checked >= 10, "the cross-fade lasts 0.25 s: {checked} frames");
    assert_eq!(switching.graph_id(), Some("b"));
    assert_eq!(switching.local_pose(), starts_b.local_pose(), "after the fade only graph b shows");
}
