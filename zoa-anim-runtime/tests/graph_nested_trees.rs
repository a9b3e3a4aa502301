//! Nested blend trees: a blend-tree child may be a tree (1D, 2D or direct),
//! compiled once into a flat list; each clip's weight is the product of the
//! child weights on its path, its clock the state's shared normalized clock.
//! Checked against a recursive evaluation of the authored tree that shares
//! nothing with the flattening but the per-tree weight functions.

mod graph_common;

use graph_common::*;
use proptest::prelude::*;
use zoa_anim_core::graph::*;
use zoa_anim_runtime::character::graph::{ClipId, ContributionSource, GraphDefinition};
use zoa_anim_runtime::pose::CompiledBlendTree;

const IDLE: ClipId = ClipId(0);
const WALK: ClipId = ClipId(1);
const RUN: ClipId = ClipId(2);
const AIM: ClipId = ClipId(6);

/// The weights of `motion`'s clips, depth first, by recursion over the
/// authored tree: each tree's own weights times its parent's share.
fn oracle(motion: &Motion, share: f32, values: &[f32], out: &mut Vec<(String, f32)>) {
    match motion {
        Motion::Clip(c) => out.push((c.clone(), share)),
        Motion::Machine(_) => unreachable!("no machine in a tree"),
        Motion::BlendTree(t) => {
            let tree = match t.kind {
                BlendTreeKind::OneD => {
                    CompiledBlendTree::one_d(&t.children.iter().map(|c| c.threshold).collect::<Vec<_>>())
                }
                BlendTreeKind::TwoD => CompiledBlendTree::two_d(
                    &t.children.iter().map(|c| [c.threshold, c.threshold_y.unwrap()]).collect::<Vec<_>>(),
                    t.weighting,
                ),
                BlendTreeKind::Direct => {
                    CompiledBlendTree::direct(&t.children.iter().map(|c| c.weight.unwrap()).collect::<Vec<_>>())
                }
            }
            .unwrap();
            let mut w = vec![0.0; t.children.len()];
            let x = t.parameter.map_or(0.0, |p| values[p.index()]);
            let y = t.parameter_y.map_or(0.0, |p| values[p.index()]);
            tree.weights(x, y, &mut w);
            for (c, w) in t.children.iter().zip(w) {
                oracle(&c.motion, share * w, values, out);
            }
        }
    }
}

fn child(motion: Motion, threshold: f32, threshold_y: Option<f32>, weight: Option<f32>) -> BlendChild {
    BlendChild { motion, threshold, threshold_y, weight }
}

fn clip(name: &str) -> Motion {
    Motion::Clip(name.into())
}

/// Three levels: a 2D (x, y) tree of [idle, a direct tree of [aim, the
/// idle/moving tree of [idle, walk/run]], run].
fn deep_tree() -> BlendTree {
    let direct = BlendTree {
        kind: BlendTreeKind::Direct,
        parameter: None,
        parameter_y: None,
        weighting: Weighting2D::default(),
        children: vec![
            child(clip("aim"), 0.0, None, Some(1.0)),
            child(Motion::BlendTree(idle_moving_tree(0)), 0.0, None, Some(3.0)),
        ],
    };
    BlendTree {
        kind: BlendTreeKind::TwoD,
        parameter: Some(ParameterIndex(0)),
        parameter_y: Some(ParameterIndex(1)),
        weighting: Weighting2D::GradientBand,
        children: vec![
            child(clip("idle"), 0.0, Some(0.0), None),
            child(Motion::BlendTree(direct), 2.0, Some(0.0), None),
            child(clip("run"), 0.0, Some(2.0), None),
        ],
    }
}

fn graph_of(tree: BlendTree, x: f32, y: f32) -> AnimationGraph {
    let mut loco = state("loco", "idle", true);
    loco.motion = Motion::BlendTree(tree);
    graph(
        vec![param("x", ParameterDefault::Float(x)), param("y", ParameterDefault::Float(y))],
        vec![layer("base", 0)],
        vec![loco],
        vec![],
    )
}

#[test]
fn a_nested_tree_weighs_each_clip_by_the_product_on_its_path() {
    // idle at 0, walk/run at 1; speed 2.5: the moving tree alone (weight 1),
    // walk 0.5 and run 0.5 inside it, as the flat walk/run tree gives.
    let (mut inst, mut out) = instance(graph_of(idle_moving_tree(0), 2.5, 0.0));
    inst.update(0.1, &mut out);
    let cs = out.layer_contributions(0);
    let got: Vec<(ClipId, f32, u16)> = cs
        .iter()
        .map(|c| {
            let ContributionSource::State { child, .. } = c.source else { panic!() };
            (c.clip, c.weight, child)
        })
        .collect();
    assert_eq!(got, [(WALK, 0.5, 1), (RUN, 0.5, 2)], "children numbered depth first: idle 0, walk 1, run 2");
    // Speed 0.25: idle 0.75, the moving tree 0.25 with walk alone inside it.
    inst.set_float("x", 0.25);
    inst.update(0.1, &mut out);
    let weights: Vec<(ClipId, f32)> = out.layer_contributions(0).iter().map(|c| (c.clip, c.weight)).collect();
    assert_eq!(weights, [(IDLE, 0.75), (WALK, 0.25)]);
}

#[test]
fn the_shared_clock_runs_on_the_product_weights() {
    // Speed 2.5: walk 0.5 (1 s) and run 0.5 (0.5 s): a 0.75 s cycle, as flat.
    let (mut inst, mut out) = instance(graph_of(idle_moving_tree(0), 2.5, 0.0));
    inst.update(0.375, &mut out);
    assert!((inst.active_states(0).next().unwrap().normalized_time - 0.5).abs() < 1e-6);
    let cs = out.layer_contributions(0);
    assert_eq!((cs[0].clip, cs[0].time), (WALK, 0.5));
    assert_eq!((cs[1].clip, cs[1].time), (RUN, 0.25));
}

#[test]
fn three_levels_of_2d_direct_and_1d_match_the_recursive_evaluation() {
    let tree = deep_tree();
    let motion = Motion::BlendTree(tree.clone());
    for (x, y) in [(0.5, 0.5), (1.5, 0.2), (0.1, 1.7), (2.0, 0.0), (0.7, 0.7)] {
        let (mut inst, mut out) = instance(graph_of(tree.clone(), x, y));
        inst.update(0.05, &mut out);
        let mut want = Vec::new();
        oracle(&motion, 1.0, &[x, y], &mut want);
        let clips = inst.definition().unwrap().clips().clone();
        let mut got = vec![0.0f32; want.len()];
        for c in out.layer_contributions(0) {
            let ContributionSource::State { child, .. } = c.source else { panic!() };
            assert_eq!(clips.name(c.clip).as_str(), want[usize::from(child)].0, "child {child} plays its clip");
            got[usize::from(child)] = c.weight;
        }
        for (g, (name, w)) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-6, "({x}, {y}) {name}: {g} vs {w}");
        }
        assert!((got.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
    let def = GraphDefinition::new(graph_of(tree, 0.0, 0.0), clips()).unwrap();
    let names: Vec<ClipId> = def.state_clips(StateIndex(0)).to_vec();
    assert_eq!(names, [IDLE, AIM, IDLE, WALK, RUN, RUN], "depth first, a clip as often as it is a leaf");
}

#[test]
fn nesting_deeper_than_the_budget_and_bad_inner_trees_are_set_up_problems() {
    let mut tree = walk_run_tree(0);
    for _ in 0..4 {
        tree = BlendTree {
            kind: BlendTreeKind::Direct,
            parameter: None,
            parameter_y: None,
            weighting: Weighting2D::default(),
            children: vec![child(Motion::BlendTree(tree), 0.0, None, Some(1.0))],
        };
    }
    let e = GraphDefinition::new(graph_of(tree, 0.0, 0.0), clips()).unwrap_err().to_string();
    assert!(e.contains("blend_tree.depth") && e.contains('5'), "{e}");
    // An inner 1D tree with one child is refused and named.
    let mut bad = idle_moving_tree(0);
    let Motion::BlendTree(inner) = &mut bad.children[1].motion else { panic!() };
    inner.children.truncate(1);
    let e = GraphDefinition::new(graph_of(bad, 0.0, 0.0), clips()).unwrap_err().to_string();
    assert!(e.contains("state `loco`") && e.contains("1D tree needs 2 children"), "{e}");
}

proptest! {
    /// A tree of one level gives exactly (bit for bit) the weights its own
    /// weight function gives: nesting support changes nothing for flat trees.
    #[test]
    fn a_flat_tree_is_unchanged_bit_for_bit(x in -1.0f32..6.0, thresholds in prop::collection::vec(-1.0f32..6.0, 2..6)) {
        let names = ["idle", "walk", "run", "aim", "attack", "jump"];
        let tree = BlendTree {
            kind: BlendTreeKind::OneD,
            parameter: Some(ParameterIndex(0)),
            parameter_y: None,
            weighting: Weighting2D::default(),
            children: thresholds.iter().zip(names).map(|(&t, n)| child(clip(n), t, None, None)).collect(),
        };
        let (mut inst, mut out) = instance(graph_of(tree.clone(), x, 0.0));
        inst.update(0.05, &mut out);
        let mut want = vec![0.0; thresholds.len()];
        CompiledBlendTree::one_d(&thresholds).unwrap().weights(x, 0.0, &mut want);
        let mut got = vec![0.0f32; thresholds.len()];
        for c in out.layer_contributions(0) {
            let ContributionSource::State { child, .. } = c.source else { panic!() };
            got[usize::from(child)] = c.weight;
        }
        // Children are stored sorted by threshold by the reader; here in authored order.
        for (g, w) in got.iter().zip(&want) {
            prop_assert_eq!(g.to_bits(), w.to_bits());
        }
    }

    /// Nested trees: the flattened evaluation equals the recursive one for
    /// every parameter position.
    #[test]
    fn nested_weights_equal_the_recursive_evaluation(x in -0.5f32..2.5, y in -0.5f32..2.5) {
        let tree = deep_tree();
        let (mut inst, mut out) = instance(graph_of(tree.clone(), x, y));
        inst.update(0.05, &mut out);
        let mut want = Vec::new();
        oracle(&Motion::BlendTree(tree), 1.0, &[x, y], &mut want);
        let mut got = vec![0.0f32; want.len()];
        for c in out.layer_contributions(0) {
            let ContributionSource::State { child, .. } = c.source else { panic!() };
            got[usize::from(child)] = c.weight;
        }
        for (g, (_, w)) in got.iter().zip(&want) {
            prop_assert!((g - w).abs() < 1e-6, "{} vs {}", g, w);
        }
    }
}
