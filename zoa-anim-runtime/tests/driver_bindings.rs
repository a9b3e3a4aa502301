//! The binding driver: mutators by semantic id, no-ops when a binding is
//! absent or broken, layer routing, slots through the clip-resolver contract,
//! and validation that lists every problem at once.

mod graph_common;

use std::sync::Arc;

use graph_common::*;
use zoa_anim_core::contracts::{AnimationClipResolver, AnimationDriver, DriverProblem};
use zoa_anim_core::graph::*;
use zoa_anim_core::{AnimationBindingId, AnimationSlotId, BindingProfileBuilder};
use zoa_anim_runtime::character::driver::GraphDriver;
use zoa_anim_runtime::character::graph::{ClipId, GraphDefinition, GraphInstance, ParamValue, SLOT_LAYER};

const FIRE: AnimationBindingId = AnimationBindingId::from_static("fire");
const AIMING: AnimationBindingId = AnimationBindingId::from_static("is_aiming");
const SPEED: AnimationBindingId = AnimationBindingId::from_static("speed");
const STANCE: AnimationBindingId = AnimationBindingId::from_static("stance");
const LEAN: AnimationBindingId = AnimationBindingId::from_static("lean");
const RELOAD: AnimationBindingId = AnimationBindingId::from_static("reload");
const EQUIP: AnimationBindingId = AnimationBindingId::from_static("equip");
const UPPER_AIM: AnimationBindingId = AnimationBindingId::from_static("upper_aim");
const ATTACK: AnimationSlotId = AnimationSlotId::from_static("attack");
const BOGUS: AnimationSlotId = AnimationSlotId::from_static("bogus");

fn rig() -> GraphInstance {
    let mut aim = state("aim", "aim", true);
    aim.layer = 1;
    let g = graph(
        vec![
            param("Fire", ParameterDefault::Trigger),
            param("Aiming", ParameterDefault::Bool(false)),
            param("Speed", ParameterDefault::Float(0.0)),
            param("Stance", ParameterDefault::Int(0)),
        ],
        vec![layer("base", 0), layer("upper", 1)],
        vec![state("idle", "idle", true), aim],
        vec![],
    );
    GraphInstance::new(Arc::new(GraphDefinition::new(g, clips()).unwrap()))
}

fn profile() -> Arc<zoa_anim_core::BindingProfile> {
    Arc::new(
        BindingProfileBuilder::new("rifle", "Rifle")
            .add_trigger(FIRE, "Fire")
            .add_bool(AIMING, "Aiming")
            .add_float(SPEED, "Speed")
            .add_int(STANCE, "Stance")
            .add_float(LEAN, "Lean") // the rig has no Lean
            .add_trigger(RELOAD, "Aiming") // declared trigger, the rig's is a bool
            .add_trigger_on_layer(EQUIP, "Fire", 5) // layer 5 of 2
            .add_bool_on_layer(UPPER_AIM, "Aiming", 1)
            .add_slot_with(ATTACK, "attack", 2.0, true)
            .add_slot(BOGUS, "no_such_clip")
            .build()
            .unwrap(),
    )
}

#[test]
fn mutators_reach_parameters_by_semantic_id() {
    let mut d = GraphDriver::new(rig());
    d.load_profile(profile());
    d.fire_trigger(FIRE);
    d.set_bool(AIMING, true);
    d.set_float(SPEED, 3.5);
    d.set_int(STANCE, 2);
    let v = d.instance().parameters().values();
    assert_eq!(v, [ParamValue::Trigger(true), ParamValue::Bool(true), ParamValue::Float(3.5), ParamValue::Int(2)]);
    assert_eq!(d.binding_layer(FIRE), Some(0), "base layer (-1) routes to layer 0");
    assert_eq!(d.binding_layer(UPPER_AIM), Some(1));
    assert_eq!(d.active_profile().unwrap().profile_id(), "rifle");
}

#[test]
fn every_mutator_is_a_no_op_when_the_binding_is_absent_or_broken() {
    let mut d = GraphDriver::new(rig());
    let before = d.instance().parameters().clone();
    // No profile loaded at all.
    d.fire_trigger(FIRE);
    d.set_float(SPEED, 1.0);
    assert!(!d.play_slot(ATTACK));
    assert_eq!(d.instance().parameters(), &before);
    d.load_profile(profile());
    d.set_float(LEAN, 1.0); // missing parameter
    d.fire_trigger(RELOAD); // type mismatch
    d.fire_trigger(EQUIP); // layer out of range
    d.set_bool(FIRE, true); // wrong setter for the binding's type
    d.set_int(AnimationBindingId::from_static("not.in.profile"), 4);
    assert_eq!(d.instance().parameters(), &before);
    assert_eq!(d.binding_layer(EQUIP), None);
    assert!(!d.play_slot(BOGUS), "an unresolved slot does not play");
    assert!(!d.play_slot(AnimationSlotId::from_static("absent")));
    assert!(!d.instance().slot_playing());
}

#[test]
fn validate_profile_lists_every_problem_at_once() {
    let mut d = GraphDriver::new(rig());
    assert_eq!(d.validate_profile(), Ok(()), "nothing loaded, nothing wrong");
    d.load_profile(profile());
    let problems = d.validate_profile().unwrap_err();
    assert_eq!(
        problems,
        vec![
            DriverProblem::MissingParameter { binding: LEAN, parameter: "Lean".into() },
            DriverProblem::TypeMismatch {
                binding: RELOAD,
                parameter: "Aiming".into(),
                declared: zoa_anim_core::AnimationParameterType::Trigger,
                actual: zoa_anim_core::AnimationParameterType::Bool,
            },
            DriverProblem::LayerOutOfRange { binding: EQUIP, layer: 5, layer_count: 2 },
            DriverProblem::UnresolvedSlot { slot: BOGUS, clip_reference: "no_such_clip".into() },
        ]
    );
}

#[test]
fn play_slot_plays_the_resolved_clip_in_the_override_slot() {
    let mut d = GraphDriver::new(rig());
    d.load_profile(profile());
    assert!(d.play_slot(ATTACK));
    let mut out = d.instance().new_output();
    d.instance_mut().update(0.125, &mut out);
    let (l, cs) = out.find_layer(SLOT_LAYER).unwrap();
    assert_eq!(l.blend_mode, BlendMode::Additive, "the slot's additive flag");
    assert_eq!(cs[0].clip, ClipId(5));
    assert_eq!(cs[0].time, 0.25, "speed multiplier 2");
    // Progress is state; the receiver hears the start (0) and, later, the end (1).
    assert_eq!(d.instance().slot_status().map(|s| s.progress), Some(0.25));
    let mut rec = Recorder::default();
    d.instance_mut().deliver_events(&mut rec);
    assert_eq!(rec.log, ["slot attack 0.000"]);
}

/// Maps weapon-package references onto the table, proving slots go through the contract.
struct Aliases;

impl AnimationClipResolver for Aliases {
    type Handle = ClipId;
    fn try_resolve(&mut self, clip_reference: &str) -> Option<ClipId> {
        (clip_reference == "anim_rifle_attack").then_some(ClipId(5))
    }
}

#[test]
fn slots_resolve_through_the_clip_resolver_contract_once_at_load() {
    let mut d = GraphDriver::with_resolver(rig(), Aliases);
    d.load_profile(Arc::new(
        BindingProfileBuilder::new("p", "P").add_slot(ATTACK, "anim_rifle_attack").build().unwrap(),
    ));
    assert_eq!(d.validate_profile(), Ok(()));
    assert!(d.play_slot(ATTACK));
    assert_eq!(d.instance().slot_clip(), Some(ClipId(5)));
}
