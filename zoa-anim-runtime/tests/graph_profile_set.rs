//! Player profile sets: equip switches graph and binding profile (falling back
//! to the default class) with a cross-fade; unequip returns to unarmed.

mod graph_common;

use std::collections::HashMap;
use std::sync::Arc;

use graph_common::*;
use zoa_anim_core::contracts::{AnimationDriver, SharedBindingProfile};
use zoa_anim_core::graph::*;
use zoa_anim_core::{
    AnimationBindingId, BindingProfileBuilder, PlayerProfileEntry, PlayerProfileSet, PlayerProfileType,
};
use zoa_anim_runtime::character::graph::{ClipId, GraphDefinition};
use zoa_anim_runtime::character::loadout::Loadout;

fn def(id: &str, clip: &str) -> Arc<GraphDefinition> {
    let mut g = graph(
        vec![param("Speed", ParameterDefault::Float(0.0))],
        vec![layer("base", 0)],
        vec![state("main", clip, true)],
        vec![],
    );
    g.id = id.into();
    Arc::new(GraphDefinition::new(g, clips()).unwrap())
}

fn binding(id: &str) -> SharedBindingProfile {
    Arc::new(
        BindingProfileBuilder::new(id, id)
            .add_float(AnimationBindingId::from_static("speed"), "Speed")
            .build()
            .unwrap(),
    )
}

fn entry(class: PlayerProfileType, b: &str, graph: Option<&str>, profile: Option<&str>) -> PlayerProfileEntry {
    PlayerProfileEntry {
        class,
        binding_profile: b.into(),
        animation_profile: profile.map(Into::into),
        animation_graph: graph.map(Into::into),
    }
}

fn switcher() -> Loadout {
    let set = PlayerProfileSet {
        id: "player".into(),
        default_profile: PlayerProfileType::Unarmed,
        profiles: vec![
            entry(PlayerProfileType::Unarmed, "unarmed", Some("unarmed_graph"), None),
            entry(PlayerProfileType::Rifle, "rifle", Some("rifle_graph"), None),
            entry(PlayerProfileType::Pistol, "pistol", None, Some("pistol_tags")),
        ],
    };
    let graphs = HashMap::from([
        ("unarmed_graph".to_owned(), def("unarmed_graph", "idle")),
        ("rifle_graph".to_owned(), def("rifle_graph", "aim")),
    ]);
    let bindings = HashMap::from([
        ("unarmed".to_owned(), binding("unarmed")),
        ("rifle".to_owned(), binding("rifle")),
        ("pistol".to_owned(), binding("pistol")),
    ]);
    Loadout::new(set, graphs, bindings, 0.5).unwrap()
}

#[test]
fn equipping_cross_fades_to_the_class_graph_and_loads_its_bindings() {
    let mut s = switcher();
    let mut out = s.new_output();
    assert_eq!((s.class(), s.graph_id()), (PlayerProfileType::Unarmed, "unarmed_graph"));
    s.driver_mut().set_float(AnimationBindingId::from_static("speed"), 2.0);
    let change = s.equip(PlayerProfileType::Rifle);
    assert!(change.graph_changed);
    assert_eq!(change.binding_profile, "rifle");
    assert_eq!(s.driver().active_profile().unwrap().profile_id(), "rifle");
    assert_eq!(s.driver().instance().parameters().number(ParameterIndex(0)), 2.0, "same-named values carry over");
    s.update(0.125, &mut out);
    let aim: f32 = out.contributions.iter().filter(|c| c.clip == ClipId(6)).map(|c| c.weight).sum();
    let idle: f32 = out.contributions.iter().filter(|c| c.clip == ClipId(0)).map(|c| c.weight).sum();
    assert!(close(aim, 0.25) && close(idle, 0.75), "cross-fading, not popping: {aim} {idle}");
    run_switch(&mut s, &mut out, 3);
    assert_eq!(out.contributions.len(), 1);
    assert_eq!(out.contributions[0].clip, ClipId(6));
    assert!(s.previous_definition().is_none());
}

fn run_switch(s: &mut Loadout, out: &mut zoa_anim_runtime::character::graph::FrameOutput, n: usize) {
    for _ in 0..n {
        s.update(0.125, out);
    }
}

#[test]
fn unknown_classes_fall_back_to_the_default_and_unequip_returns_to_unarmed() {
    let mut s = switcher();
    let mut out = s.new_output();
    s.equip(PlayerProfileType::Rifle);
    run_switch(&mut s, &mut out, 8);
    let change = s.equip(PlayerProfileType::Shotgun);
    assert_eq!((change.requested, change.class), (PlayerProfileType::Shotgun, PlayerProfileType::Unarmed));
    assert!(change.graph_changed);
    assert_eq!(s.graph_id(), "unarmed_graph");
    s.equip(PlayerProfileType::Rifle);
    let change = s.unequip();
    assert_eq!((change.class, change.binding_profile.as_str()), (PlayerProfileType::Unarmed, "unarmed"));
    // A tag-driven class keeps the graph and reports its animation profile.
    let change = s.equip(PlayerProfileType::Pistol);
    assert!(!change.graph_changed);
    assert_eq!(change.animation_profile.as_deref(), Some("pistol_tags"));
    assert_eq!(s.driver().active_profile().unwrap().profile_id(), "pistol");
}

#[test]
fn missing_graphs_and_bindings_are_all_reported() {
    let set = PlayerProfileSet {
        id: "player".into(),
        default_profile: PlayerProfileType::Unarmed,
        profiles: vec![
            entry(PlayerProfileType::Unarmed, "nope", None, None),
            entry(PlayerProfileType::Rifle, "rifle", Some("missing_graph"), None),
        ],
    };
    let err =
        Loadout::new(set, HashMap::new(), HashMap::from([("rifle".to_owned(), binding("rifle"))]), 0.2).unwrap_err();
    let zoa_anim_runtime::RuntimeError::InvalidJob { reasons, .. } = err else { panic!() };
    assert_eq!(reasons.len(), 3, "{reasons:#?}");
}
