//! The fixture humanoid's names, and the rig pass on real skeletons from the
//! shared assets (loaded with `zoa-anim-assets`, a dev-dependency only):
//! discovery finds the bones, the inferred axes make sense, and planting and
//! reaching work on rigs whose model space is not glTF's (CesiumMan is Z-up
//! under a rotated node; the Fox is in centimetres).

use std::sync::Arc;
use zoa_anim_core::RigPolicy;
use zoa_anim_core::glam::Vec3;

use zoa_anim_ik::{BoneRoles, FlatGround, HandTarget, IkInputs, PolicyKind, RigIk, RigIkSettings, Role};

use crate::common::{all_finite, humanoid, positions};
use zoa_test_support::paths::shared_assets;

#[test]
fn fixture_humanoid_names_are_discovered() {
    let s = humanoid();
    let r = BoneRoles::discover(&s);
    let name = |role| r.get(role).map(|j| s.display_name(j as usize).into_owned());
    assert_eq!(name(Role::Hips).as_deref(), Some("Hips"));
    assert_eq!(name(Role::Head).as_deref(), Some("Head"));
    assert_eq!(name(Role::LeftLowerLeg).as_deref(), Some("LeftLeg"));
    assert_eq!(name(Role::RightForearm).as_deref(), Some("RightForeArm"));
    assert_eq!(r.spine, [1, 2, 3]);
    for kind in PolicyKind::ALL {
        assert!(r.is_available(kind), "{}", kind.name());
    }
}

#[test]
fn rig_pass_plants_and_reaches_on_real_skeletons() {
    let Some(dir) = shared_assets() else { return };
    for file in ["CesiumMan.glb", "RiggedFigure.glb", "Fox.glb"] {
        let asset = zoa_anim_assets::gltf::load_gltf(&dir.join(file)).unwrap();
        let s = &asset.skeletons[0];
        let roles = BoneRoles::discover(s);
        let settings = RigIkSettings::from_rest(s, &roles);
        assert!(settings.up.is_normalized() && settings.forward.is_normalized(), "{file}");
        assert!(settings.up.dot(settings.forward).abs() < 1e-3, "{file}: axes orthogonal");
        let policy = RigPolicy { climb_hand: true, ..RigPolicy::default() };
        let rig = RigIk::new(s, &policy, &roles, settings);
        assert!(PolicyKind::ALL.iter().all(|&k| rig.is_active(k)), "{file}");

        let rest: Vec<_> = s.rest_pose().collect();
        let p0 = positions(s, &rest);
        let leg = {
            let l = roles.legs[0];
            let p = |j: Option<u16>| p0[j.unwrap() as usize];
            (p(l.lower) - p(l.upper)).length() + (p(l.foot) - p(l.lower)).length()
        };
        // Ground 5 % of a leg above the model's ground plane along the rig's own up.
        let lift = leg * 0.05;
        let up = settings.up;
        let probe = Arc::new(move |_p: Vec3| Some(zoa_anim_ik::GroundHit { height: lift, normal: up }));
        let left_hand = roles.arms[0].hand.unwrap() as usize;
        let shoulder = roles.arms[0].upper.unwrap() as usize;
        let ledge = p0[shoulder] + (p0[left_hand] - p0[shoulder]) * 0.6 + up * leg * 0.1;
        let mut ctx = rig.new_context();
        let mut local = rest.clone();
        let input = IkInputs {
            ground: Some(probe),
            ledge_targets: [Some(HandTarget { position: ledge, rotation: None, weight: 1.0 }), None],
            ..IkInputs::default()
        };
        for _ in 0..5 {
            local.copy_from_slice(&rest);
            rig.apply(s, &mut local, &mut ctx, &input, 1.0).unwrap();
        }
        assert!(all_finite(&local), "{file}");
        let p = positions(s, &local);
        for foot in [roles.legs[0].foot.unwrap() as usize, roles.legs[1].foot.unwrap() as usize] {
            let rose = (p[foot] - p0[foot]).dot(up);
            assert!((rose - lift).abs() < lift * 0.05, "{file}: foot rose {rose}, ground rose {lift}");
        }
        assert!((p[left_hand] - ledge).length() < leg * 1e-3, "{file}: hand on the ledge");
    }
}

/// greenman (Blender export, CC0) has legs of two joints, `hip_L` → `leg_L`,
/// and no foot joint: its feet are the ends of the `leg_*` bones. Foot plant
/// runs on the tips, which sit on the model's ground plane at rest.
#[test]
fn greenman_plants_the_tips_of_its_legs() {
    let Some(dir) = shared_assets() else { return };
    let asset = zoa_anim_assets::gltf::load_gltf(&dir.join("greenman.glb")).unwrap();
    let s = &asset.skeletons[0];
    let roles = BoneRoles::discover(s);
    assert!(roles.is_available(PolicyKind::FootPlant));
    let settings = RigIkSettings::from_rest(s, &roles);
    assert!(settings.up.dot(Vec3::Y) > 0.999, "up {}", settings.up);
    assert!(settings.forward.dot(Vec3::Z) > 0.99, "forward {}", settings.forward);
    let rig = RigIk::new(s, &RigPolicy::default(), &roles, settings);
    assert!(rig.is_active(PolicyKind::FootPlant));

    let rest: Vec<_> = s.rest_pose().collect();
    let tip_at = |local: &[zoa_anim_core::Transform], side: usize| {
        let mut m = zoa_anim_ik::ModelPose::new(s.joint_count());
        m.update(s, local);
        let tip = roles.legs[side].tip.unwrap();
        let j = m.get(tip.joint as usize);
        j.position + j.rotation * (j.scale * tip.offset)
    };
    for side in 0..2 {
        let t = tip_at(&rest, side);
        assert!(t.y.abs() < 0.01, "rest tip on the ground plane: {t}");
        assert!(t.x.abs() > 0.5, "below the leg, not under the body: {t}");
    }
    let lift = 0.05;
    let probe =
        IkInputs { ground: Some(Arc::new(FlatGround { height: lift, normal: Vec3::Y })), ..IkInputs::default() };
    let mut local = rest.clone();
    let mut ctx = rig.new_context();
    for _ in 0..5 {
        local.copy_from_slice(&rest);
        rig.apply(s, &mut local, &mut ctx, &probe, 1.0).unwrap();
    }
    assert!(all_finite(&local));
    for side in 0..2 {
        let rose = tip_at(&local, side).y - tip_at(&rest, side).y;
        assert!((rose - lift).abs() < 1e-3, "tip rose {rose}, ground rose {lift}");
    }
}
