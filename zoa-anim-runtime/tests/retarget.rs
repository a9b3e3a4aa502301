//! Retargeting by role on the shared real rigs (CesiumMan, RiggedFigure,
//! greenman; skipped with a note when the assets are absent): which joints
//! pair up, the rest-corrected mode's defining properties, rotation-only
//! copies, and no allocation while running (counted on the calling thread,
//! so the other tests of this binary may run beside it).

use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_core::Skeleton;
use zoa_anim_core::glam::{Mat4, Quat};
use zoa_anim_ik::{BoneRoles, Role};
use zoa_anim_runtime::{
    pose::Animation, pose::BindBy, pose::MatchedBy, pose::Pose, pose::RetargetMode, pose::Retargeter,
};
use zoa_test_support::alloc::{CountingAllocator, thread_allocations_during};
use zoa_test_support::paths::shared_assets;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

struct Rig {
    skeleton: Skeleton,
    roles: BoneRoles,
    clip: zoa_anim_core::Clip,
}

fn rig(name: &str) -> Option<Rig> {
    let asset = load_gltf(&shared_assets()?.join(name)).unwrap();
    let skeleton = asset.skeletons[0].clone();
    let roles = BoneRoles::discover(&skeleton);
    Some(Rig { skeleton, roles, clip: asset.clips[0].clone() })
}

fn sample(r: &Rig, time: f32) -> Pose {
    let a = Animation::bind(&r.clip, &r.skeleton, BindBy::Node).unwrap();
    a.sample_to_new(time, &Pose::rest(&r.skeleton)).unwrap()
}

fn retarget(from: &Rig, to: &Rig, mode: RetargetMode, pose: &Pose) -> (Retargeter, Pose) {
    let rt = Retargeter::by_role(&from.skeleton, &from.roles, &to.skeleton, &to.roles, mode);
    let rest = Pose::rest(&to.skeleton);
    let mut out = rest.clone();
    rt.run(pose, &rest, &mut out).unwrap();
    (rt, out)
}

/// Model-space rotations of a pose.
fn model_rotations(s: &Skeleton, pose: &Pose) -> Vec<Quat> {
    let mut out = vec![Mat4::IDENTITY; s.joint_count()];
    for &j in s.eval_order() {
        let j = j as usize;
        let t = pose.get(j);
        let local = Mat4::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
        out[j] = s.parent(j).map_or(local, |p| out[p] * local);
    }
    out.iter().map(|m| m.to_scale_rotation_translation().1.normalize()).collect()
}

fn same_rotation(a: Quat, b: Quat) -> bool {
    a.dot(b).abs() > 1.0 - 1e-4
}

/// CesiumMan names its bones `Skeleton_torso_joint_1`, `Skeleton_arm_joint_L__4_`;
/// RiggedFigure `torso_joint_1`, `arm_joint_L_1`: by name only the legs pair,
/// by role the hips, spine, neck, head and arms pair too (CesiumMan numbers
/// its left arm from the hand up, its right arm from the shoulder down).
#[test]
fn roles_pair_what_names_cannot() {
    let (Some(cesium), Some(figure)) = (rig("CesiumMan.glb"), rig("RiggedFigure.glb")) else { return };
    let by_name = Retargeter::by_name(&cesium.skeleton, &figure.skeleton, RetargetMode::RotationOnly);
    let (by_role, _) = retarget(&cesium, &figure, RetargetMode::RotationOnly, &Pose::rest(&cesium.skeleton));
    assert!(
        by_role.mapped_count() > by_name.mapped_count(),
        "{} vs {}",
        by_role.mapped_count(),
        by_name.mapped_count()
    );
    let name = |s: &Skeleton, j: u16| s.display_name(j as usize).into_owned();
    let pairs: Vec<(String, String, MatchedBy)> = by_role
        .pairs()
        .iter()
        .map(|p| (name(&figure.skeleton, p.target), name(&cesium.skeleton, p.source), p.by))
        .collect();
    for want in [
        ("torso_joint_1", "Skeleton_torso_joint_1", MatchedBy::Role(Role::Hips)),
        ("neck_joint_2", "Skeleton_neck_joint_2", MatchedBy::Role(Role::Head)),
        ("arm_joint_L_1", "Skeleton_arm_joint_L__4_", MatchedBy::Role(Role::LeftUpperArm)),
        ("arm_joint_R_3", "Skeleton_arm_joint_R__3_", MatchedBy::Role(Role::RightHand)),
        ("leg_joint_L_2", "leg_joint_L_2", MatchedBy::Role(Role::LeftLowerLeg)),
    ] {
        let want = (want.0.to_owned(), want.1.to_owned(), want.2);
        assert!(pairs.contains(&want), "{want:?} not in {pairs:?}");
    }
    // No source joint is used twice.
    let mut sources: Vec<u16> = by_role.pairs().iter().map(|p| p.source).collect();
    sources.sort_unstable();
    sources.dedup();
    assert_eq!(sources.len(), by_role.mapped_count());
}

/// Rest-corrected: the source's rest pose lands exactly on the target's rest
/// pose, whatever the two rigs' bone axes, for every ordered pair of rigs.
#[test]
fn rest_corrected_maps_rest_onto_rest() {
    let rigs: Vec<Rig> = ["CesiumMan.glb", "RiggedFigure.glb", "greenman.glb"].iter().filter_map(|n| rig(n)).collect();
    for from in &rigs {
        for to in &rigs {
            let (_, out) = retarget(from, to, RetargetMode::RestCorrected, &Pose::rest(&from.skeleton));
            let rest = Pose::rest(&to.skeleton);
            for j in 0..rest.len() {
                let (a, b) = (out.get(j), rest.get(j));
                assert!(
                    same_rotation(a.rotation, b.rotation),
                    "{} -> {} joint {j}",
                    from.skeleton.name(),
                    to.skeleton.name()
                );
                assert!(
                    a.translation.distance(b.translation) < 1e-4,
                    "{} -> {} joint {j}",
                    from.skeleton.name(),
                    to.skeleton.name()
                );
            }
        }
    }
}

/// Rest-corrected, mid-walk: every paired bone turned away from its rest
/// orientation by the same model-space rotation as its source bone, and the
/// hips moved by the source's offset scaled by the leg-length ratio.
#[test]
fn rest_corrected_carries_model_space_turns() {
    let (Some(cesium), Some(green)) = (rig("CesiumMan.glb"), rig("greenman.glb")) else { return };
    let src = sample(&cesium, 0.5);
    let (rt, out) = retarget(&cesium, &green, RetargetMode::RestCorrected, &src);
    assert!(rt.mapped_count() >= 8, "{:?}", rt.pairs());
    let (ws, wt) = (model_rotations(&cesium.skeleton, &src), model_rotations(&green.skeleton, &out));
    let (rs, rt_rest) = (
        model_rotations(&cesium.skeleton, &Pose::rest(&cesium.skeleton)),
        model_rotations(&green.skeleton, &Pose::rest(&green.skeleton)),
    );
    let mut moved = 0;
    for p in rt.pairs() {
        let (s, t) = (p.source as usize, p.target as usize);
        let delta_s = ws[s] * rs[s].inverse();
        let delta_t = wt[t] * rt_rest[t].inverse();
        assert!(same_rotation(delta_s, delta_t), "{p:?}: {delta_s:?} vs {delta_t:?}");
        moved += usize::from(!same_rotation(delta_s, Quat::IDENTITY));
    }
    assert!(moved >= 4, "the walk turns several paired bones");
    // The unmapped joints keep their rest rotation relative to their parent.
    for j in 0..out.len() {
        if rt.source_of(j).is_none() {
            assert!(same_rotation(out.get(j).rotation, green.skeleton.joints()[j].rest.rotation), "joint {j}");
        }
    }
}

/// Rotation-only: paired joints copy the source's local rotation, everything
/// else is the target's rest; the output is never the source's translation.
#[test]
fn rotation_only_copies_local_rotations() {
    let (Some(cesium), Some(figure)) = (rig("CesiumMan.glb"), rig("RiggedFigure.glb")) else { return };
    let src = sample(&cesium, 0.7);
    let (rt, out) = retarget(&cesium, &figure, RetargetMode::RotationOnly, &src);
    let rest = Pose::rest(&figure.skeleton);
    for j in 0..out.len() {
        match rt.source_of(j) {
            Some(s) => assert_eq!(out.rotation(j), src.rotation(s)),
            None => assert_eq!(out.rotation(j), rest.rotation(j)),
        }
        assert_eq!(out.translation(j), rest.translation(j));
    }
}

#[test]
fn running_allocates_nothing() {
    let (Some(cesium), Some(green)) = (rig("CesiumMan.glb"), rig("greenman.glb")) else { return };
    let src = sample(&cesium, 0.3);
    let rest = Pose::rest(&green.skeleton);
    let mut out = rest.clone();
    for mode in [RetargetMode::Full, RetargetMode::RotationOnly, RetargetMode::RestCorrected] {
        let rt = Retargeter::by_role(&cesium.skeleton, &cesium.roles, &green.skeleton, &green.roles, mode);
        rt.run(&src, &rest, &mut out).unwrap();
        let n = thread_allocations_during(|| rt.run(&src, &rest, &mut out).unwrap());
        assert_eq!(n, 0, "{mode:?}");
    }
}
