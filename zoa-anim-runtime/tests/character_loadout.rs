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
use zoa_anim_runtime::{Character, CharacterDefinition, CharacterSettings, pose::Pose, pose::blend_into};

fn clip(name: &str, k: f32) -> BundledClip {
    BundledClip {
        asset: ClipAsset {
            id: name.into(),
            source: "test.glb".into(),
            animation: AnimationSelector::Index(0),
            rate: 1.0,
            loop_hint: true,
            notifies: Vec::new(),
            markers: Vec::new(),
            curves: Vec::new(),
            binding: Default::default(),
        },
        clip: full_clip(name, k),
        source_skeleton: None,
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

#[test]
fn an_upper_graph_layer_at_full_weight_shows_its_clip_alone_on_its_mask() {
    // Graph a: the base plays c0 everywhere, the upper layer (weight 1) plays c1 on the arm's subtree.
    // Layered composition: the arm and hand show c1 exactly, not an average with c0 (three.js mixing
    // of the two layers would give each half); the other joints show c0.
    let def = CharacterDefinition::new(&bundle(PlayerProfileType::Unarmed), CharacterSettings::default()).unwrap();
    let mut c = Character::new(&def).unwrap();
    for _ in 0..40 {
        c.update(1.0 / 60.0).unwrap();
    }
    let time_of = |layer: u16| c.frame().find_layer(layer).unwrap().1[0].time;
    let sample = |clip: &str, t: f32| {
        let a = &def.animations()[def.clips().index_of(clip).unwrap().index()];
        a.sample_to_new(t, def.skeleton().rest()).unwrap()
    };
    let (base, upper) = (sample("c0", time_of(0)), sample("c1", time_of(1)));
    let pose = c.local_pose();
    for j in 0..pose.len() {
        let want = if [2, 3].contains(&j) { upper.get(j) } else { base.get(j) };
        let got = pose.get(j);
        assert!((got.translation - want.translation).length() < 1e-5, "joint {j}: {got:?} vs {want:?}");
        assert!(got.rotation.dot(want.rotation).abs() > 1.0 - 1e-6, "joint {j}: {got:?} vs {want:?}");
    }
}

/// The pose `c`'s last update composed, rebuilt from `c.contributions()`
/// alone: each stack layer at weight 1 with every input at the weight the
/// character reports, through the public `ComposeJob`, the outgoing stack
/// cross-faded by the switch's alpha.
fn recompose(def: &CharacterDefinition, c: &Character) -> Pose {
    use zoa_anim_runtime::character::PosePart;
    use zoa_anim_runtime::character::graph::{GraphMasks, MaskRef};
    use zoa_anim_runtime::pose::{
        Animation, ComposeJob, Composition, PoseScratch, PoseStack, ReferencePose, SamplingContext, StackInput,
        StackSources,
    };
    struct Sources<'a> {
        animations: &'a [std::sync::Arc<Animation>],
        references: Vec<ReferencePose>,
        masks: Option<GraphMasks>,
        refs: Vec<MaskRef>,
    }
    impl StackSources for Sources<'_> {
        fn animation(&self, i: u32) -> &Animation {
            &self.animations[i as usize]
        }
        fn mask(&self, m: u32) -> Option<&[f32]> {
            self.masks.as_ref()?.get(*self.refs.get(m as usize)?)
        }
        fn reference(&self, r: u32) -> Option<&ReferencePose> {
            self.references.get(r as usize)
        }
    }
    let rest = def.skeleton().rest();
    let graph_masks = |g: Option<usize>| {
        let id = def.graph_ids().nth(g?)?;
        GraphMasks::new(def.graph(id)?, def.skeleton()).ok()
    };
    let compose = |outgoing: bool| {
        let g = if outgoing { c.previous_graph_index() } else { c.graph_index() };
        let mut sources = Sources {
            animations: def.animations(),
            references: def
                .animations()
                .iter()
                .map(|a| ReferencePose::from_pose(&a.sample_to_new(0.0, rest).unwrap()))
                .collect(),
            masks: graph_masks(g),
            refs: Vec::new(),
        };
        let mut stack = PoseStack::default();
        let mut open = None;
        for k in c.contributions().filter(|k| k.outgoing == outgoing) {
            assert!(k.part != PosePart::Procedural, "no procedural layer on this character");
            if open != Some(k.stack_layer) {
                stack.layer(k.mode, 1.0);
                open = Some(k.stack_layer);
            }
            let clip = k.clip.unwrap().0;
            let mask = if k.mask == MaskRef::None {
                u32::MAX
            } else {
                sources.refs.push(k.mask);
                sources.refs.len() as u32 - 1
            };
            let reference = if k.mode == zoa_anim_runtime::pose::BlendMode::Additive { clip } else { u32::MAX };
            stack.push(StackInput { animation: clip, cursor: clip, time: k.time, weight: k.weight, mask, reference });
        }
        let mut contexts: Vec<SamplingContext> =
            def.animations().iter().map(|a| SamplingContext::for_animation(a)).collect();
        let mut out = rest.clone();
        ComposeJob {
            composition: Composition::Layered,
            skeleton: def.skeleton(),
            stack: &stack,
            sources: &sources,
            contexts: &mut contexts,
            extra: None,
            scratch: &mut PoseScratch::for_rest(rest),
            output: &mut out,
            morphs: None,
        }
        .run()
        .unwrap();
        out
    };
    let mut pose = compose(false);
    if c.contributions().any(|k| k.outgoing) {
        blend_into(&mut pose, &compose(true), 1.0 - c.switch_alpha());
    }
    pose
}

#[test]
fn the_contributions_rebuild_the_pose_through_a_loadout_switch() {
    use zoa_anim_runtime::character::PosePart;
    use zoa_anim_runtime::character::graph::{ContributionSource, MaskRef};
    let def = CharacterDefinition::new(&bundle(PlayerProfileType::Unarmed), CharacterSettings::default()).unwrap();
    let mut c = Character::new(&def).unwrap();
    for _ in 0..30 {
        c.update(1.0 / 60.0).unwrap();
    }
    c.equip(PlayerProfileType::Rifle);
    let mut switching = 0;
    for frame in 0..25 {
        c.update(1.0 / 60.0).unwrap();
        let all: Vec<_> = c.contributions().collect();
        let outgoing = all.iter().filter(|k| k.outgoing).count();
        assert_eq!(outgoing > 0, c.switch_alpha() < 1.0, "frame {frame}: the outgoing stack only while it blends");
        switching += usize::from(outgoing > 0);
        for side in [false, true] {
            let of = |layer: u16| all.iter().filter(move |k| k.outgoing == side && k.part_layer() == Some(layer));
            if side && outgoing == 0 {
                continue;
            }
            // Each graph layer plays one state at full weight here: base everywhere, upper on its mask.
            let base: f32 = of(0).map(|k| k.weight).sum();
            assert!((base - 1.0).abs() < 1e-6, "frame {frame}: base weights sum to 1: {all:?}");
            let upper: Vec<_> = of(1).collect();
            assert_eq!(upper.len(), 1);
            assert_eq!(upper[0].mask, MaskRef::Layer(1), "the upper layer's mask is reported");
            assert!(matches!(upper[0].part, PosePart::Graph { source: ContributionSource::State { .. }, .. }));
            assert!(upper[0].stack_layer > of(0).next().unwrap().stack_layer);
        }
        assert_eq!(&recompose(&def, &c), c.local_pose(), "frame {frame}: the contributions are the pose");
    }
    assert!(switching >= 10, "{switching} frames of the 0.25 s switch");
    assert_eq!(c.previous_graph_index(), None, "the switch is over");
}

trait PartLayer {
    fn part_layer(&self) -> Option<u16>;
}

impl PartLayer for zoa_anim_runtime::character::PoseContribution {
    fn part_layer(&self) -> Option<u16> {
        match self.part {
            zoa_anim_runtime::character::PosePart::Graph { layer, .. } => Some(layer),
            _ => None,
        }
    }
}
