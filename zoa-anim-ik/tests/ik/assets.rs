//! Discovery on real skeletons is exercised through `zoa-anim ik --discover`
//! in `zoa-anim-tools/tests/cli_ik.rs` (the glTF loader lives in the tools'
//! dependency tree). Here: the fixture humanoid's rows, by name only.

use zoa_anim_ik::{BoneRoles, PolicyKind, Role};

use crate::common::humanoid;

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
