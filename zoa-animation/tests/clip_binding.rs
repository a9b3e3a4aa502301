//! Clips authored on another rig: a character whose bones are named
//! differently from the clip's plays it by bone role, baked at load, and
//! `validate` says which clips bind so (I006).
//!
//! The two rigs are the shared assets RiggedFigure (the character: bones
//! `torso_joint_1`, `arm_joint_L_1`, …) and CesiumMan (the clip's rig:
//! `Skeleton_torso_joint_1`, `Skeleton_arm_joint_L__4_`, … — only its legs share
//! names with RiggedFigure's).

use std::path::{Path, PathBuf};

use zoa_animation::assets::gltf::load_gltf;
use zoa_animation::core::glam::Quat;
use zoa_animation::core::{Skeleton, budget};
use zoa_animation::ik::BoneRoles;
use zoa_animation::runtime::pose::animation::{Animation, BindBy};
use zoa_animation::runtime::pose::{ClipBindingPlan, Pose, RetargetMode, Retargeter};
use zoa_test_support::paths::{shared_assets, temp_dir};

/// A definition folder under `root` with RiggedFigure as the character's
/// model and CesiumMan's walk as a second clip (`bind` written when given).
fn folder(root: &Path, assets: &Path, bind: Option<&str>) -> PathBuf {
    let defs = root.join("defs");
    std::fs::create_dir_all(defs.join("clips")).unwrap();
    std::fs::create_dir_all(defs.join("models")).unwrap();
    for (from, to) in [("RiggedFigure.glb", "figure.glb"), ("CesiumMan.glb", "cesium.glb")] {
        std::fs::copy(assets.join(from), defs.join("models").join(to)).unwrap();
    }
    std::fs::write(
        defs.join("clips/1_figure.toml"),
        "kind = \"clip\"\nid = \"figure_walk\"\nsource = \"../models/figure.glb\"\nanimation = 0\n",
    )
    .unwrap();
    let bind = bind.map_or(String::new(), |b| format!("bind = \"{b}\"\n"));
    std::fs::write(
        defs.join("clips/2_cesium.toml"),
        format!("kind = \"clip\"\nid = \"cesium_walk\"\nsource = \"../models/cesium.glb\"\nanimation = 0\n{bind}"),
    )
    .unwrap();
    defs
}

/// The angle between two rotations, radians (precise near 0, where `acos` of
/// an f32 dot product is not).
fn angle(a: Quat, b: Quat) -> f32 {
    let d = a.inverse() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// The independent reference: CesiumMan's pose at `time`, retargeted onto
/// RiggedFigure's skeleton by the runtime's `Retargeter` (rest-corrected).
struct Reference {
    source: Skeleton,
    animation: Animation,
    retargeter: Retargeter,
    target_rest: Pose,
}

impl Reference {
    fn new(assets: &Path, target: &Skeleton) -> Reference {
        let cesium = load_gltf(&assets.join("CesiumMan.glb")).unwrap();
        let source = cesium.skeletons[0].clone();
        let animation = Animation::bind(&cesium.clips[0], &source, BindBy::Node).unwrap();
        let retargeter = Retargeter::by_role(
            &source,
            &BoneRoles::discover(&source),
            target,
            &BoneRoles::discover(target),
            RetargetMode::RestCorrected,
        );
        Reference { source, animation, retargeter, target_rest: Pose::rest(target) }
    }

    fn pose(&self, time: f32) -> Pose {
        let sampled = self.animation.sample_to_new(time, &Pose::rest(&self.source)).unwrap();
        let mut out = self.target_rest.clone();
        self.retargeter.run(&sampled, &self.target_rest, &mut out).unwrap();
        out
    }
}

#[test]
fn a_clip_of_a_differently_named_rig_plays_by_role_and_matches_the_retargeted_pose() {
    let Some(assets) = shared_assets() else { return };
    let tmp = temp_dir("clip-by-role");
    let defs = folder(tmp.path(), &assets, None);
    let def = zoa_animation::load(&defs).unwrap();

    let plan = def.clip_binding("cesium_walk").unwrap();
    let ClipBindingPlan::Role { by_role, by_name, matched, animated } = plan else { panic!("{plan:?}") };
    assert!(by_role >= 15 && (matched, animated) == (9, 19), "{plan:?}");
    assert_eq!(by_role + by_name, 19, "every joint of RiggedFigure pairs: {plan:?}");
    assert_eq!(def.clip_binding("figure_walk"), Some(ClipBindingPlan::Node));

    let target = def.skeleton().skeleton().clone();
    let reference = Reference::new(&assets, &target);
    let id = def.clips().index_of("cesium_walk").unwrap();
    let baked = &def.animations()[id.index()];
    let rest = Pose::rest(&target);
    let arm = target.find("arm_joint_L_2").unwrap();
    let (mut worst_at_keys, mut worst_between, mut arm_moves) = (0.0f32, 0.0f32, 0.0f32);
    // CesiumMan keys every 1/24 s from 1/24 s to 2 s: check each key and each midpoint.
    for k in 1..=48 {
        for (time, at_key) in [(k as f32 / 24.0, true), ((k as f32 + 0.5) / 24.0, false)] {
            let want = reference.pose(time);
            let got = baked.sample_to_new(time, &rest).unwrap();
            for j in 0..target.joint_count() {
                let e = angle(want.rotation(j), got.rotation(j));
                if at_key {
                    worst_at_keys = worst_at_keys.max(e);
                } else {
                    worst_between = worst_between.max(e);
                }
            }
            let hips = def.roles().hips.unwrap() as usize;
            assert!((want.translation(hips) - got.translation(hips)).length() < 1e-4, "hips at {time}");
            arm_moves = arm_moves.max(angle(got.rotation(arm), rest.rotation(arm)));
        }
    }
    eprintln!("bake vs retargeted pose: {worst_at_keys:e} rad at keys, {worst_between:e} rad between keys");
    assert!(worst_at_keys < 1e-5, "at key times the bake is the retargeted pose: {worst_at_keys} rad");
    assert!(worst_between < 1e-3, "between keys within a milliradian: {worst_between} rad");
    // By name only the legs would move; by role the arm swings.
    assert!(arm_moves > 0.05, "the left forearm never leaves its rest pose ({arm_moves} rad)");
}

#[test]
fn bind_name_keeps_name_binding_and_the_arms_at_rest() {
    let Some(assets) = shared_assets() else { return };
    let tmp = temp_dir("clip-by-name");
    let defs = folder(tmp.path(), &assets, Some("name"));
    let def = zoa_animation::load(&defs).unwrap();
    assert_eq!(def.clip_binding("cesium_walk"), Some(ClipBindingPlan::Name { matched: 9, animated: 19 }));
    let target = def.skeleton().skeleton();
    let arm = target.find("arm_joint_L_2").unwrap();
    let id = def.clips().index_of("cesium_walk").unwrap();
    let pose = def.animations()[id.index()].sample_to_new(1.0, &Pose::rest(target)).unwrap();
    assert_eq!(pose.rotation(arm), Pose::rest(target).rotation(arm));
}

#[test]
fn validate_notes_each_clip_bound_by_role() {
    let Some(assets) = shared_assets() else { return };
    let tmp = temp_dir("clip-by-role-note");
    for (bind, field, line) in [(None, "source", 3), (Some("role"), "bind", 5)] {
        let defs = folder(&tmp.path().join(field), &assets, bind);
        let checked = zoa_animation::validate(&defs);
        let notes: Vec<_> = checked.diagnostics().iter().filter(|d| d.code == "I006").collect();
        assert_eq!(notes.len(), 1, "{}", checked.render(false));
        let n = notes[0];
        assert_eq!((n.file.as_path(), n.field.as_str(), n.line), (Path::new("clips/2_cesium.toml"), field, line));
        for part in ["`cesium_walk`", "by bone role", "pair by role", "9 of the 19 joints it animates"] {
            assert!(n.message.contains(part), "{} lacks {part}", n.message);
        }
        assert_eq!(checked.error_count(), 0);
    }
    let defs = folder(&tmp.path().join("name"), &assets, Some("name"));
    assert!(!zoa_animation::validate(&defs).diagnostics().iter().any(|d| d.code == "I006"));
}

#[test]
fn a_bake_over_its_key_budget_is_refused_at_set_up() {
    let Some(assets) = shared_assets() else { return };
    let cesium = load_gltf(&assets.join("CesiumMan.glb")).unwrap();
    let figure = load_gltf(&assets.join("RiggedFigure.glb")).unwrap();
    let (source, target) = (&cesium.skeletons[0], &figure.skeletons[0]);
    let r = Retargeter::by_role(
        source,
        &BoneRoles::discover(source),
        target,
        &BoneRoles::discover(target),
        RetargetMode::RestCorrected,
    );
    // Two keys a day apart: the 30 Hz grid alone is millions of samples × 19 joints.
    let mut clip = cesium.clips[0].clone();
    let long = zoa_animation::core::Clip::new(
        "long",
        clip.tracks()
            .iter()
            .map(|t| {
                let mut t = t.clone();
                let last = t.times.len() - 1;
                t.times[last] = 86_400.0;
                t
            })
            .collect(),
    )
    .unwrap();
    clip = long;
    let err = zoa_animation::runtime::pose::bake_by_role(&clip, source, &r, target).unwrap_err();
    assert!(err.to_string().contains(budget::RETARGET_KEYS.name), "{err}");
}
