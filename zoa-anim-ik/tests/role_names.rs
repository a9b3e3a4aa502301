//! The role names the definition reader accepts in `bone_overrides`
//! (`zoa_anim_core::rig::BONE_ROLES`) are exactly the roles discovery knows.

use zoa_anim_ik::roles::Role;

#[test]
fn core_bone_roles_match_the_ik_roles() {
    let names: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(names, zoa_anim_core::rig::BONE_ROLES);
}
