//! The humanoid fixture folder: validates clean and loads every kind with the
//! values its files spell out.

use std::path::PathBuf;

use zoa_anim_assets::defs::{DefinitionSet, load_folder};
use zoa_anim_core::graph::{BlendMode, BlendTreeKind, Motion, TransitionSource};
use zoa_anim_core::resolver::resolve_best_match;
use zoa_anim_core::{AnimationBindingProfile, DefaultBindings, PlayerProfileType, StateDimension, StateTagSet};

fn load() -> DefinitionSet {
    load_folder(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/defs/humanoid"))
}

#[test]
fn humanoid_folder_validates_clean_and_uses_every_kind() {
    let set = load();
    let all: Vec<String> = set.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(set.error_count(), 0, "{}", all.join("\n"));
    assert_eq!(set.warning_count(), 0, "{}", all.join("\n"));
    assert_eq!(set.binding_profiles.len(), 2);
    assert_eq!(set.animation_profiles.len(), 3);
    assert_eq!(set.state_graphs.len(), 1);
    assert_eq!(set.rig_policies.len(), 1);
    assert_eq!(set.sound_profiles.len(), 2);
    assert_eq!(set.player_profile_sets.len(), 1);
    assert_eq!(set.clips.len(), 14);
    assert_eq!(set.animation_graphs.len(), 2);
    assert_eq!(set.preview_presets.len(), 7);
    assert_eq!(set.equipment.len(), 2);
    // Lists are in sorted file order.
    let files: Vec<_> = set.clips.iter().map(|c| c.file.clone()).collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
}

#[test]
fn the_pistol_table_uses_chooser_columns_and_a_random_pick() {
    use zoa_anim_core::{RowPick, ValueRange};
    let set = load();
    let pistol = set.animation_profile("humanoid_pistol").unwrap();
    assert_eq!((pistol.pick, pistol.range_crossfade), (Some(RowPick::Random), Some(0.3)));
    let walk = pistol.entries.iter().find(|e| !e.ranges.is_empty()).unwrap();
    assert_eq!(walk.ranges, [ValueRange { parameter: "speed".into(), min: f32::NEG_INFINITY, max: 1.2 }]);
    assert_eq!(walk.ranges[0].to_string(), "speed in ..1.2");
    // Two idle rows of one pattern: variants, kept by inheritance and free of W001.
    let rows = set.flattened_profile("humanoid_pistol").unwrap().unwrap();
    let idles = rows.iter().filter(|r| r.row.pattern == "locomotion=idle combat=armed_pistol".parse().unwrap());
    assert_eq!(idles.map(|r| r.row.weight).collect::<Vec<_>>(), [2.0, 1.0]);
}

#[test]
fn humanoid_uses_markers_sync_groups_windows_payloads_and_curves() {
    let set = load();
    let clip = |id: &str| &set.clips.iter().find(|c| c.value.id == id).unwrap().value;
    let walk = clip("walk");
    let markers: Vec<(&str, f32)> = walk.markers.iter().map(|m| (m.name.as_str(), m.time)).collect();
    assert_eq!(markers, [("foot_l", 0.1), ("foot_r", 0.5)]);
    assert_eq!(clip("run").notifies[0].payload.text("foot"), Some("left"));
    assert_eq!(clip("crouch_walk").notifies[1].payload.number("volume"), Some(0.4));
    let reload = clip("reload");
    let window = reload.notifies.iter().find(|n| n.is_window()).unwrap();
    assert_eq!((window.name.as_str(), window.time, window.duration), ("mag_swap", 0.4, 0.6));
    assert_eq!(reload.notifies[0].payload.text("surface"), Some("metal"), "sorted by time, authoring order on ties");
    let curve = &reload.curves[0];
    assert_eq!(curve.name, "ik.hand_on_weapon");
    assert_eq!(curve.sample(0.7), 0.0);
    assert_eq!(clip("hit_react").notifies[0].payload.flag("heavy"), Some(false));
    let graph = &set.animation_graphs.iter().find(|g| g.value.id == "humanoid_locomotion").unwrap().value;
    let groups: Vec<_> =
        graph.states.iter().filter_map(|s| Some((s.name.as_str(), s.sync_group.as_deref()?))).collect();
    assert_eq!(groups, [("locomotion", "feet"), ("crouch", "feet")]);
    assert!(set.preview_presets.iter().any(|p| p.value.id == "crouch_walk_sync"));
}

#[test]
fn child_profile_inherits_and_overrides() {
    let set = load();
    let base = set.animation_profile("humanoid_base").unwrap();
    assert!(base.entries.len() >= 20);
    assert!(base.entries.iter().any(|e| !e.has_any_tag()), "base has an untagged default row");
    let flat = set.flattened_profile("humanoid_wounded").unwrap().unwrap();
    let pick = |state: &str| {
        let r = resolve_best_match(&flat, state.parse::<StateTagSet>().unwrap()).unwrap();
        (flat[r.row].row.clip.clone(), flat[r.row].source.clone())
    };
    assert_eq!(pick("locomotion=walk"), ("crouch_walk".into(), "humanoid_wounded".into()));
    assert_eq!(pick("locomotion=jump posture=standing"), ("jump_start".into(), "humanoid_base".into()));
    assert_eq!(pick("locomotion=idle combat=armed_rifle|aiming"), ("rifle_aim".into(), "humanoid_base".into()));
    // Both tag forms were used and read alike.
    let crouch = base.entries.iter().find(|e| e.clip == "crouch_idle").unwrap();
    assert_eq!(crouch.to_pattern(), "locomotion=idle posture=crouching".parse().unwrap());
}

#[test]
fn bindings_timing_rig_and_player_set() {
    let set = load();
    let rifle = set.binding_profile("rifle").unwrap();
    assert_eq!(rifle.binding(DefaultBindings::FIRE).unwrap().layer_index, 1);
    assert_eq!(rifle.binding(DefaultBindings::IS_GROUNDED).unwrap().layer_index, -1);
    let speed = rifle.binding(DefaultBindings::SPEED).unwrap();
    assert_eq!(speed.parameter_name, "move_y", "the rifle graph strafes on move_x / move_y: speed drives move_y");
    assert!(rifle.slots().iter().any(|s| s.additive && s.clip_reference == "fire_recoil"));
    let heavy = set.state_graph("heavy").unwrap();
    assert_eq!(heavy.gaits, zoa_anim_core::GaitSpeeds::default(), "the fixture writes the shipped gait speeds out");
    assert_eq!(heavy.resolve_policy(StateDimension::Posture).min_hold_seconds, 0.6);
    assert_eq!(heavy.resolve_policy(StateDimension::Locomotion).crossfade_seconds, 0.1);
    assert_eq!(
        heavy.resolve_policy(StateDimension::Locomotion).min_hold_seconds,
        0.05,
        "unwritten field keeps the default"
    );
    assert_eq!(heavy.policies.len(), 2);
    let rig = set.rig_policy("humanoid").unwrap();
    assert_eq!(rig.look_at_fov_degrees, 75.0);
    assert_eq!(rig.bone_overrides.len(), 3);
    let player = set.player_profile_set("player").unwrap();
    assert_eq!(player.resolve_profile(PlayerProfileType::Shotgun).unwrap().binding_profile, "unarmed");
    assert_eq!(
        player.resolve_profile(PlayerProfileType::Rifle).unwrap().animation_graph.as_deref(),
        Some("humanoid_rifle")
    );
}

#[test]
fn equipment_grips_with_their_overrides() {
    let set = load();
    let rifle = set.equipment_for(PlayerProfileType::Rifle).unwrap();
    assert_eq!(rifle.id, "rifle");
    assert_eq!(rifle.attach, "right_hand");
    let idle = rifle.grips.off_hand.unwrap();
    assert_eq!((idle.position, idle.rotation, idle.weight), ([-0.06, -0.10, 0.0], None, 1.0));
    let aim = rifle.aim.unwrap().off_hand.unwrap();
    assert_eq!(aim.position, [-0.18, -0.13, 0.03]);
    // `euler = [45, 0, 180]` degrees, intrinsic XYZ.
    let want = zoa_anim_core::glam::Quat::from_euler(
        zoa_anim_core::glam::EulerRot::XYZ,
        45f32.to_radians(),
        0.0,
        180f32.to_radians(),
    );
    let got = zoa_anim_core::glam::Quat::from_array(aim.rotation.unwrap());
    assert!(got.abs_diff_eq(want, 1e-6), "{got} vs {want}");
    let reload = rifle.slot_grips(zoa_anim_core::DefaultSlots::RELOAD_MAGAZINE).unwrap().off_hand.unwrap();
    assert_eq!((reload.position, reload.weight), (idle.position, 0.0), "the slot takes what it leaves out from idle");
    let pistol = set.equipment_for(PlayerProfileType::Pistol).unwrap();
    assert_eq!(pistol.grips.off_hand.unwrap().weight, 0.9);
    assert!(set.equipment_for(PlayerProfileType::Shotgun).is_none());
}

#[test]
fn sounds_keep_dotted_ids_and_folder_relative_paths() {
    let set = load();
    let human = set.sound_profile("human").unwrap();
    let grass = human.entries.iter().find(|e| e.surface.as_deref() == Some("grass")).unwrap();
    assert_eq!(grass.variants[0].clip, "../../sounds/footstep_grass_1.wav");
    assert!(human.entries.iter().any(|e| e.event.as_str() == "vocal.hurt"));
    assert!(human.entries.iter().any(|e| e.event.as_str() == "weapon.reload"));
    let flat = set.flattened_sound_profile("human_female").unwrap().unwrap();
    let hurt: Vec<_> = flat.iter().filter(|r| r.row.event.as_str() == "vocal.hurt").collect();
    assert_eq!(hurt.len(), 1);
    assert_eq!(hurt[0].source, "human_female");
}

#[test]
fn clips_and_graphs() {
    let set = load();
    let walk = set.clip("walk").unwrap();
    assert_eq!(walk.source, "../../models/humanoid.glb");
    assert_eq!(walk.notifies.len(), 2);
    assert!(walk.notifies.windows(2).all(|w| w[0].time <= w[1].time));
    assert!(!set.clip("land").unwrap().loop_hint);

    let loco = set.animation_graph("humanoid_locomotion").unwrap();
    assert_eq!(loco.model, "../../models/humanoid.glb");
    let s = &loco.states[loco.entry().index()];
    let Motion::BlendTree(tree) = &s.motion else { panic!("locomotion is a blend tree") };
    assert_eq!(tree.kind, BlendTreeKind::OneD);
    assert_eq!(s.motion.clips(), ["idle", "walk", "run", "sprint"]);
    assert_eq!(s.motion.depth(), 2, "the gaits are a tree nested in the locomotion tree");
    let Motion::BlendTree(moving) = &tree.children[1].motion else { panic!("a nested tree") };
    assert_eq!((moving.kind, moving.children.len(), tree.children[1].threshold), (BlendTreeKind::OneD, 3, 1.5));
    assert!(s.crossfade.warp);
    // `loop` left out: the clip asset's loop hint applies.
    let jump = &loco.states[loco.state("jump_start").unwrap().index()];
    assert!(!jump.looping);
    assert!(loco.transitions.iter().any(|t| t.from == TransitionSource::Any));

    let rifle = set.animation_graph("humanoid_rifle").unwrap();
    assert_eq!(rifle.layers.len(), 3);
    let recoil = &rifle.layers[rifle.layer("recoil").unwrap()];
    assert_eq!(recoil.blend_mode, BlendMode::Additive);
    assert_eq!(recoil.weight, 0.8);
    let upper = &rifle.layers[rifle.layer("upper_body").unwrap()];
    assert_eq!(upper.bone_mask.as_ref().unwrap().include, ["Spine1"]);
    let kinds: Vec<BlendTreeKind> = rifle
        .states
        .iter()
        .filter_map(|s| if let Motion::BlendTree(t) = &s.motion { Some(t.kind) } else { None })
        .collect();
    assert!(kinds.contains(&BlendTreeKind::TwoD) && kinds.contains(&BlendTreeKind::Direct));
    assert_eq!(set.preview_preset("rifle_fire_cycle").unwrap().duration(), 2.8);
}
