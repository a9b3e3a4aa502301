//! Proves the behaviour layer allocates nothing per frame after warm-up: a
//! counting global allocator wraps the system one while graph instances (with
//! transitions, cross-fades, a nested blend tree, travels, the override slot and events), a
//! driver's mutators and slot plays, event delivery, and a tag selector run
//! many frames. Its own test binary, so no other test's allocations count.

mod graph_common;

use std::sync::Arc;

use graph_common::*;
use zoa_anim_core::contracts::{AnimationDriver, AnimationEventReceiver};
use zoa_anim_core::glam::{Mat4, Quat, Vec3};
use zoa_anim_core::graph::*;
use zoa_anim_core::{
    AnimationBindingId, AnimationSlotId, BindingProfileBuilder, DimensionSet, NoMatchPolicy, RigPolicy, StateGraph,
    StateTagSet, TaggedClipEntry,
};
use zoa_anim_core::{
    Clip, Interpolation, Joint, PlayerProfileEntry, PlayerProfileSet, PlayerProfileType, Skeleton, Track,
    TrackProperty, Transform,
};
use zoa_anim_runtime::character::driver::GraphDriver;
use zoa_anim_runtime::character::graph::{GraphDefinition, GraphInstance, RootMotionContext, RootMotionJob};
use zoa_anim_runtime::character::loadout::Loadout;
use zoa_anim_runtime::character::selector::TagSelector;
use zoa_anim_runtime::{pose::Animation, pose::BindBy, pose::RuntimeSkeleton};
use zoa_test_support::alloc::{self, CountingAllocator};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Counts deliveries without allocating.
#[derive(Default)]
struct Tally {
    notifies: usize,
    states: usize,
    progress: usize,
}

impl AnimationEventReceiver for Tally {
    fn on_animation_event(&mut self, _binding: AnimationBindingId, _event_tag: &str) {}
    fn on_slot_progress(&mut self, _slot: AnimationSlotId, _normalized_time: f32) {
        self.progress += 1;
    }
    fn on_notify(&mut self, _name: &str) {
        self.notifies += 1;
    }
    fn on_state_changed(&mut self, _from: &str, _to: &str) {
        self.states += 1;
    }
}

fn busy_graph() -> AnimationGraph {
    let tree = idle_moving_tree(2);
    let mut loco = state("loco", "walk", true);
    loco.motion = Motion::BlendTree(tree);
    loco.crossfade.warp = true;
    let mut aim = state("aim", "aim", true);
    aim.layer = 1;
    let mut upper = layer("upper", 3);
    upper.blend_mode = BlendMode::Additive;
    graph(
        vec![
            param("go", ParameterDefault::Trigger),
            param("back", ParameterDefault::Bool(false)),
            param("speed", ParameterDefault::Float(2.0)),
        ],
        vec![layer("base", 0), upper],
        vec![state("idle", "idle", true), loco, state("hit", "hit", false), aim],
        vec![
            GraphTransition {
                conditions: vec![when(0, ConditionTest::Triggered)],
                blend: 0.3,
                interruption: Interruption::Next,
                ..tr(Some(0), 1)
            },
            GraphTransition { conditions: vec![when(1, ConditionTest::IsTrue)], blend: 0.2, ..tr(Some(1), 0) },
            GraphTransition {
                conditions: vec![when(0, ConditionTest::Triggered)],
                blend: 0.1,
                mode: TransitionMode::Inertialize,
                ..tr(None, 2)
            },
            GraphTransition { exit_time: Some(0.9), blend: 0.1, ..tr(Some(2), 0) },
        ],
    )
}

#[test]
fn frames_allocate_nothing_after_warm_up() {
    let def = Arc::new(GraphDefinition::new(busy_graph(), clips()).unwrap());
    let mut instances: Vec<GraphInstance> = (0..8).map(|_| GraphInstance::new(Arc::clone(&def))).collect();
    let mut outputs: Vec<_> = instances.iter().map(GraphInstance::new_output).collect();
    let profile = BindingProfileBuilder::new("p", "P")
        .add_trigger(AnimationBindingId::from_static("go"), "go")
        .add_bool(AnimationBindingId::from_static("back"), "back")
        .add_float(AnimationBindingId::from_static("speed"), "speed")
        .add_int(AnimationBindingId::from_static("absent"), "nothing")
        .add_slot(AnimationSlotId::from_static("attack"), "attack")
        .build()
        .unwrap();
    let mut driver = GraphDriver::new(GraphInstance::new(Arc::clone(&def)));
    driver.load_profile(Arc::new(profile));
    let mut driver_out = driver.instance().new_output();
    // Chooser columns and a random pick among tied rows run each frame too.
    let speed_in = |min, max| vec![zoa_anim_core::ValueRange { parameter: "speed".into(), min, max }];
    let rows = vec![
        TaggedClipEntry::new(StateTagSet::EMPTY, "idle"),
        TaggedClipEntry::new("posture=crouching".parse().unwrap(), "walk"),
        TaggedClipEntry {
            ranges: speed_in(0.0, 1.0),
            ..TaggedClipEntry::new("posture=crouching".parse().unwrap(), "run")
        },
        TaggedClipEntry {
            ranges: speed_in(0.0, 1.0),
            ..TaggedClipEntry::new("posture=crouching".parse().unwrap(), "aim")
        },
        TaggedClipEntry { one_shot: true, ..TaggedClipEntry::new("reaction=flinch".parse().unwrap(), "hit") },
    ];
    let table = zoa_anim_runtime::character::selector::SelectorTable::new(
        rows,
        NoMatchPolicy::Hold,
        clips(),
        StateGraph::default(),
        RigPolicy::default(),
    )
    .unwrap()
    .with_pick(zoa_anim_core::RowPick::Random, 0.1)
    .unwrap();
    let mut selector = TagSelector::with_table(Arc::new(table), StateTagSet::EMPTY);
    selector.set_seed(42);
    let mut selector_out = selector.new_output();
    let tags: [StateTagSet; 3] =
        ["posture=crouching".parse().unwrap(), "reaction=flinch".parse().unwrap(), StateTagSet::EMPTY];
    let mut tally = Tally::default();

    // Root motion over the first instance's frames: one bound animation per clip id.
    let joint = |name: &str, node, parent| Joint {
        name: Some(name.into()),
        node,
        parent,
        rest: Transform { translation: Vec3::Y, rotation: Quat::IDENTITY, scale: Vec3::ONE },
        inverse_bind: Mat4::IDENTITY,
    };
    let skeleton = Skeleton::new("s", vec![joint("root", 0, None), joint("spine", 1, Some(0))]).unwrap();
    let animations: Vec<Arc<Animation>> = clips()
        .clips()
        .iter()
        .map(|c| {
            let d = c.duration;
            let t = Track {
                node: 0,
                node_name: None,
                property: TrackProperty::Translation,
                interpolation: Interpolation::Linear,
                times: vec![0.0, d],
                values: vec![0.0, 1.0, 0.0, d, 1.0, 0.5],
            };
            Arc::new(Animation::bind(&Clip::new(&c.name, vec![t]).unwrap(), &skeleton, BindBy::Node).unwrap())
        })
        .collect();
    let rest = RuntimeSkeleton::new(skeleton).rest().clone();
    let mut root_ctx = RootMotionContext::new(&rest, &animations, 0).unwrap();
    let mut travelled = 0.0f32;

    // A loadout switcher changing class now and then.
    let entry = |class, graph: &str| PlayerProfileEntry {
        class,
        binding_profile: "p".into(),
        animation_profile: None,
        animation_graph: Some(graph.into()),
    };
    let mut switcher = Loadout::new(
        PlayerProfileSet {
            id: "player".into(),
            default_profile: PlayerProfileType::Unarmed,
            profiles: vec![entry(PlayerProfileType::Unarmed, "a"), entry(PlayerProfileType::Rifle, "b")],
        },
        std::collections::HashMap::from([("a".to_owned(), Arc::clone(&def)), ("b".to_owned(), Arc::clone(&def))]),
        std::collections::HashMap::from([("p".to_owned(), driver.active_profile().unwrap().clone())]),
        0.25,
    )
    .unwrap();
    let mut switcher_out = switcher.new_output();

    let mut frame = |k: usize,
                     instances: &mut Vec<GraphInstance>,
                     outputs: &mut Vec<zoa_anim_runtime::character::graph::FrameOutput>,
                     tally: &mut Tally| {
        for (i, inst) in instances.iter_mut().enumerate() {
            if (k + i).is_multiple_of(23) {
                inst.set_trigger("go");
            }
            inst.set_bool("back", (k / 15 + i).is_multiple_of(2));
            inst.set_float("speed", 1.0 + (k % 30) as f32 / 10.0);
            if (k + i).is_multiple_of(41) {
                inst.play(zoa_anim_runtime::character::graph::ClipId(5), false);
            }
            if (k + i).is_multiple_of(61) {
                // A travel searches its chain in scratch sized at creation.
                inst.travel_named(if k.is_multiple_of(2) { "hit" } else { "loco" });
            }
            if (k + i).is_multiple_of(97) {
                inst.play_state_named("idle", Some(0.2));
            }
        }
        for (i, o) in instances.iter_mut().zip(outputs.iter_mut()) {
            i.update(1.0 / 60.0, o);
        }
        for i in instances.iter_mut() {
            i.deliver_events(tally);
        }
        driver.fire_trigger(AnimationBindingId::from_static("go"));
        driver.set_bool(AnimationBindingId::from_static("back"), k % 50 < 25);
        driver.set_float(AnimationBindingId::from_static("speed"), 2.5);
        driver.set_int(AnimationBindingId::from_static("absent"), 3);
        if k.is_multiple_of(70) {
            driver.play_slot(AnimationSlotId::from_static("attack"));
        }
        driver.instance_mut().update(1.0 / 60.0, &mut driver_out);
        driver.instance_mut().deliver_events(tally);
        if k.is_multiple_of(40) {
            selector.set_tags(tags[(k / 40) % 3]);
            selector.send_event(DimensionSet::ALL);
        }
        selector.set_value(zoa_anim_core::DefaultBindings::SPEED, (k % 7) as f32 * 0.3);
        selector.update(1.0 / 60.0, &mut selector_out);
        selector.deliver_events(tally);
        let motion = RootMotionJob { animations: &animations, frame: &outputs[0], rest: &rest, context: &mut root_ctx }
            .run()
            .unwrap();
        travelled += motion.translation.x.abs();
        switcher.update(1.0 / 60.0, &mut switcher_out);
        switcher.driver_mut().instance_mut().clear_events();
    };

    for k in 0..600 {
        frame(k, &mut instances, &mut outputs, &mut tally);
    }
    // Counted on this thread, where every frame runs: libtest's own thread
    // sometimes allocates meanwhile (seen: 4 allocations in 1 run of 10).
    let before = alloc::on_this_thread();
    for k in 600..3000 {
        frame(k, &mut instances, &mut outputs, &mut tally);
    }
    let after = alloc::on_this_thread();
    // Equipping is a set-up operation (it may allocate); the frames after it must not.
    switcher.equip(PlayerProfileType::Rifle);
    let mut switch_out = switcher.new_output();
    for _ in 0..5 {
        switcher.update(1.0 / 60.0, &mut switch_out);
    }
    let before_switch = alloc::on_this_thread();
    for _ in 0..30 {
        switcher.update(1.0 / 60.0, &mut switch_out);
        switcher.driver_mut().instance_mut().clear_events();
    }
    assert_eq!(alloc::on_this_thread() - before_switch, 0, "allocations during a loadout cross-fade");
    assert!(travelled > 0.0, "root motion was extracted");
    assert_eq!(after - before, 0, "allocations during 2400 frames after warm-up");
    assert!(tally.notifies > 0 && tally.states > 0 && tally.progress > 0, "the frames did real work");
    assert!(outputs.iter().all(|o| o.overflow == 0));
}
