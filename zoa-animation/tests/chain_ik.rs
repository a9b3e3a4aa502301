//! A rig policy's IK chain from the definition file to the posed character:
//! `[[chains]]` in the folder's rig policy, loaded through the front door,
//! given a target with `Character::set_chain_target`, puts the chain's tip
//! on it — the fixture humanoid's spine (Spine..Head) and, when the shared
//! assets are present, the Fox's tail.

use std::path::{Path, PathBuf};

use zoa_animation::glam::Vec3;
use zoa_animation::ik::HandTarget;
use zoa_animation::prelude::*;
use zoa_test_support::paths::{copy_dir, fixture, shared_assets, temp_dir};

/// The fixture humanoid (definitions and model) in `tmp`, its rig policy
/// given `chains` (TOML appended to `rig/humanoid.toml`); returns the
/// definition folder.
fn humanoid_with(tmp: &Path, chains: &str) -> PathBuf {
    let defs = tmp.join("defs/humanoid");
    copy_dir(&fixture("defs/humanoid"), &defs);
    std::fs::create_dir_all(tmp.join("models")).unwrap();
    std::fs::copy(fixture("models/humanoid.glb"), tmp.join("models/humanoid.glb")).unwrap();
    let rig = defs.join("rig/humanoid.toml");
    let text = std::fs::read_to_string(&rig).unwrap();
    // The chains go before `[bone_overrides]` so they stay top-level arrays of tables.
    let (head, overrides) = text.split_at(text.find("[bone_overrides]").unwrap());
    std::fs::write(&rig, format!("{head}{chains}\n{overrides}")).unwrap();
    defs
}

fn joint(def: &CharacterDefinition, name: &str) -> usize {
    def.skeleton().skeleton().find(name).unwrap_or_else(|| panic!("no joint {name}"))
}

fn position(c: &Character, j: usize) -> Vec3 {
    c.model_matrices()[j].w_axis.truncate()
}

fn target(at: Vec3) -> Option<HandTarget> {
    Some(HandTarget { position: at, rotation: None, weight: 1.0 })
}

#[test]
fn a_spine_chain_puts_the_head_on_its_target_and_lets_go_again() {
    let tmp = temp_dir("chain-ik-humanoid");
    let defs = humanoid_with(
        tmp.path(),
        "[[chains]]\nname = \"spine\"\nroot = \"Spine\"\ntip = \"Head\"\niterations = 32\ntolerance = 0.0005\n\
         swing_limit_degrees = 60\n",
    );
    let def = zoa_animation::load(&defs).unwrap();
    assert_eq!(def.rig_policy().chains.len(), 1);
    let rig = def.rig_ik().expect("the rig IK runs");
    assert_eq!(rig.chains()[0].joints, 5, "{:?}", rig.chains());
    let mut c = Character::new(&def).unwrap();
    assert_eq!((c.chain_index("spine"), c.chain_index("tail")), (Some(0), None));
    let head = joint(&def, "Head");
    c.update(1.0 / 60.0).unwrap();
    let animated = position(&c, head);
    let pose = c.local_pose().clone();

    let goal = animated + Vec3::new(0.08, -0.05, 0.1);
    c.set_chain_target(0, target(goal));
    c.set_chain_target(99, target(goal)); // past the policy's chains: ignored
    c.update(0.0).unwrap();
    let reached = position(&c, head);
    assert!(reached.distance(goal) < 1e-3, "the head goes to {goal}: {reached}");
    assert_ne!(c.local_pose(), &pose);

    c.set_chain_target(0, None);
    c.update(0.0).unwrap();
    assert!(position(&c, head).distance(animated) < 1e-5, "no target: the head is where the animation puts it");
}

#[test]
fn a_chain_naming_a_bone_no_model_has_fails_the_load_at_that_bone() {
    let tmp = temp_dir("chain-ik-unknown-bone");
    let defs = humanoid_with(tmp.path(), "[[chains]]\nname = \"tail\"\nroot = \"Spine\"\ntip = \"Haed\"\n");
    let err = zoa_animation::load(&defs).unwrap_err();
    let zoa_animation::LoadError::Invalid { diagnostics, .. } = &err else { panic!("{err}") };
    let d = diagnostics.iter().find(|d| d.code == "E015").unwrap_or_else(|| panic!("{err}"));
    assert_eq!((d.file.as_path(), d.field.as_str()), (Path::new("rig/humanoid.toml"), "chains[0].tip"));
    assert!(d.message.contains("`Haed`") && d.message.contains("Head"), "{}", d.message);
}

/// The Fox (shared assets): a folder of one clip, one graph and a rig policy
/// whose chain is the three-joint tail.
fn fox_folder(tmp: &Path, assets: &Path) -> PathBuf {
    let defs = tmp.join("fox");
    std::fs::create_dir_all(&defs).unwrap();
    std::fs::copy(assets.join("Fox.glb"), defs.join("Fox.glb")).unwrap();
    let files = [
        ("survey.toml", "kind = \"clip\"\nid = \"survey\"\nsource = \"Fox.glb\"\nanimation = \"Survey\"\n"),
        (
            "graph.toml",
            "kind = \"animation_graph\"\nid = \"g\"\nmodel = \"Fox.glb\"\nentry = \"survey\"\n\n\
             [[states]]\nname = \"survey\"\nclip = \"survey\"\n",
        ),
        ("bindings.toml", "kind = \"binding_profile\"\nid = \"b\"\n"),
        (
            "player.toml",
            "kind = \"player_profile_set\"\nid = \"player\"\ndefault_profile = \"unarmed\"\n\n\
             [[profiles]]\nclass = \"unarmed\"\nbinding_profile = \"b\"\nanimation_graph = \"g\"\n",
        ),
        (
            "rig.toml",
            "kind = \"rig_policy\"\nid = \"fox\"\nfoot_plant = false\nlook_at = false\nhand_on_weapon = false\n\n\
             [[chains]]\nname = \"tail\"\nroot = \"b_Tail01_012\"\ntip = \"b_Tail03_014\"\niterations = 32\n\
             tolerance = 0.01\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(defs.join(name), text).unwrap();
    }
    defs
}

#[test]
fn the_fox_tail_follows_its_target() {
    let Some(assets) = shared_assets() else { return };
    let tmp = temp_dir("chain-ik-fox");
    let def = zoa_animation::load(fox_folder(tmp.path(), &assets)).unwrap();
    let mut c = Character::new(&def).unwrap();
    let (base, tip) = (joint(&def, "b_Tail01_012"), joint(&def, "b_Tail03_014"));
    c.update(0.5).unwrap();
    let (root, animated) = (position(&c, base), position(&c, tip));
    // Swing the tail a third of a right angle about the model's up axis, around its root.
    let goal = root + zoa_animation::glam::Quat::from_rotation_y(0.5) * (animated - root);
    let tail = c.chain_index("tail").unwrap();
    c.set_chain_target(tail, target(goal));
    c.update(0.0).unwrap();
    let reached = position(&c, tip);
    assert!(reached.distance(goal) < 0.01, "the tail's tip goes to {goal}: {reached} (was {animated})");
    assert!(position(&c, base).distance(root) < 1e-3, "the tail's root stays where it hangs");
}
