//! A character's morph-target weights go through its whole frame: every clip
//! the graph, the selector and the slot play blends them with the weights
//! the joints get, and a clip that does not animate them leaves the node's
//! defaults showing for its share.

mod character_common;

use character_common::*;
use zoa_anim_core::{CharacterBundle, Interpolation, MorphNode, MorphTrack};
use zoa_anim_runtime::Character;

/// The fixture humanoid with a face (2 targets, defaults `[0, 1]`) under its
/// head joint, and every clip keying the face at `[0.7, 0.2]` (`Some`) or
/// not at all (`None`).
fn with_face(keys: Option<[f32; 2]>) -> CharacterBundle {
    let mut b = without_ik(fixture_bundle());
    let head = b.skeleton.joints().iter().position(|j| j.name.as_deref() == Some("Head")).expect("a Head joint");
    let head_node = b.skeleton.joints()[head].node;
    let face = b.skeleton.joints().iter().map(|j| j.node).max().unwrap() + 100;
    b.morph_nodes =
        vec![MorphNode { node: face, name: Some("face".into()), ancestors: vec![head_node], weights: vec![0.0, 1.0] }];
    if let Some(keys) = keys {
        for c in &mut b.clips {
            let track = MorphTrack {
                node: face,
                node_name: Some("face".into()),
                targets: 2,
                interpolation: Interpolation::Linear,
                times: vec![0.0],
                values: keys.to_vec(),
            };
            c.clip = c.clip.clone().with_morph_tracks(vec![track]).unwrap();
        }
    }
    b
}

fn face(c: &Character) -> Vec<f32> {
    let set = c.definition().skeleton().morphs();
    c.morph_weights().expect("the model has a morphed node").of(&set.slots()[0]).to_vec()
}

#[test]
fn every_clip_that_plays_blends_the_face_and_the_defaults_fill_the_rest() {
    let def = definition(&with_face(Some([0.7, 0.2])));
    let mut c = Character::new(&def).unwrap();
    for (what, seconds) in [("idle", 0.5), ("locomotion=run", 1.0), ("locomotion=walk", 0.3)] {
        if what != "idle" {
            c.set_tags(tags(what));
        }
        run(&mut c, seconds);
        // Whatever blend plays, every clip keys the same weights: the result
        // is those, within rounding, unless some weight is missing.
        let w = face(&c);
        assert!((w[0] - 0.7).abs() < 1e-5 && (w[1] - 0.2).abs() < 1e-5, "{what}: {w:?}");
    }
}

#[test]
fn clips_without_weight_tracks_show_the_defaults() {
    let def = definition(&with_face(None));
    let mut c = Character::new(&def).unwrap();
    c.set_tags(tags("locomotion=run"));
    run(&mut c, 0.5);
    assert_eq!(face(&c), [0.0, 1.0]);
}

#[test]
fn a_model_without_morph_targets_has_no_morph_weights() {
    let def = definition(&without_ik(fixture_bundle()));
    let mut c = Character::new(&def).unwrap();
    run(&mut c, 0.1);
    assert!(c.morph_weights().is_none());
}
