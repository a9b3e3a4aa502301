//! `equipment` definitions: what a valid item reads as (overrides take what
//! they leave out from the idle grips; Euler angles become quaternions), and
//! every field's problem located by file, line, column and field path.

use zoa_anim_assets::defs::{DefinitionSet, load_folder};
use zoa_anim_core::glam::{EulerRot, Quat};
use zoa_anim_core::{AnimationSlotId, PlayerProfileType};

/// Writes `files` under a fresh temporary folder and loads it.
fn load(name: &str, files: &[(&str, &str)]) -> DefinitionSet {
    let tmp = zoa_test_support::paths::temp_dir(&format!("defs-equipment-{name}"));
    for (file, text) in files {
        std::fs::write(tmp.path().join(file), text).unwrap();
    }
    load_folder(tmp.path())
}

/// `file:line:column code field` per diagnostic of the equipment files (the
/// binding profile's slot names a clip the folder does not have).
fn located(set: &DefinitionSet) -> Vec<String> {
    set.diagnostics
        .iter()
        .filter(|d| d.file.as_os_str() != "bindings.toml")
        .map(|d| format!("{}:{}:{} {} {}", d.file.display(), d.line, d.column, d.code, d.field))
        .collect()
}

const BINDINGS: &str = r#"
kind = "binding_profile"
id = "rifle"
[[slots]]
id = "reload_magazine"
clip = "reload"
"#;

#[test]
fn a_valid_item_with_offset_aim_and_slot_grips() {
    let set = load(
        "valid",
        &[
            ("bindings.toml", BINDINGS),
            (
                "rifle.toml",
                r#"
kind = "equipment"
id = "rifle"
classes = ["rifle", "shotgun"]
attach = "left_hand"
offset = { position = [0.0, 0.1, 0.0], euler = [0.0, 90.0, 0.0] }

[grips.main_hand]
position = [0, 0, 0]
weight = 0.5

[grips.off_hand]
position = [0.0, 0.0, 0.3]
rotation = [0.0, 0.0, 0.0, 2.0]

[aim]
off_hand = { position = [0.0, 0.0, 0.35] }

[[slots]]
slot = "reload_magazine"
off_hand = { weight = 0 }
"#,
            ),
        ],
    );
    assert!(located(&set).is_empty(), "{:?}", located(&set));
    let e = set.equipment("rifle").unwrap();
    assert_eq!(e.classes, [PlayerProfileType::Rifle, PlayerProfileType::Shotgun]);
    assert!(e.main_hand_is_left());
    let turn = Quat::from_euler(EulerRot::XYZ, 0.0, 90f32.to_radians(), 0.0);
    assert!(Quat::from_array(e.offset.rotation).abs_diff_eq(turn, 1e-6));
    assert_eq!(e.offset.position, [0.0, 0.1, 0.0]);
    let off = e.grips.off_hand.unwrap();
    assert_eq!(off.rotation, Some([0.0, 0.0, 0.0, 1.0]), "quaternions are normalised");
    assert_eq!(e.grips.main_hand.unwrap().weight, 0.5);
    let aim = e.aim.unwrap();
    assert_eq!(aim.off_hand.unwrap().position, [0.0, 0.0, 0.35]);
    assert_eq!(aim.off_hand.unwrap().rotation, off.rotation, "left out: the idle socket's");
    assert_eq!(aim.main_hand, e.grips.main_hand, "a hand the override does not name keeps its idle grip");
    let reload = e.slot_grips(AnimationSlotId::from_static("reload_magazine")).unwrap();
    assert_eq!(reload.off_hand.unwrap().weight, 0.0);
    assert_eq!(reload.off_hand.unwrap().position, off.position);
    assert_eq!(set.equipment_for(PlayerProfileType::Shotgun).map(|e| e.id.as_str()), Some("rifle"));
}

#[test]
fn the_defaults_hold_with_the_right_hand_and_no_offset() {
    let set = load("defaults", &[("p.toml", "kind = \"equipment\"\nid = \"p\"\nclasses = [\"pistol\"]\ngrips = {}\n")]);
    assert!(set.diagnostics.is_empty(), "{:?}", located(&set));
    let e = set.equipment("p").unwrap();
    assert_eq!(e.attach, "right_hand");
    assert_eq!(e.offset, zoa_anim_core::ItemOffset::default());
    assert_eq!(e.grips, zoa_anim_core::Grips::default());
    assert!(e.aim.is_none() && e.slots.is_empty());
}

#[test]
fn every_field_problem_is_located() {
    let text = r#"kind = "equipment"
id = "bad"
classes = ["rifle", "sword", "rifle"]
attach = "tail"
offset = { position = [0, 0], rotation = [0, 0, 0, 0] }
grips = { off_hand = { position = [1, "x", 3], weight = 2 }, main_hand = { rotation = [0, 0, 0, 1] } }
aim = { off_hand = { euler = [nan, 0, 0] }, extra = 1 }

[[slots]]
slot = "Reload"

[[slots]]
main_hand = { position = [0, 0, 0], spin = 1 }

[[slots]]
slot = "reload_magazine"

[[slots]]
slot = "reload_magazine"
"#;
    let set = load("bad", &[("bindings.toml", BINDINGS), ("bad.toml", text)]);
    assert_eq!(
        located(&set),
        [
            "bad.toml:3:21 E010 classes[1]",
            "bad.toml:3:30 E017 classes[2]",
            "bad.toml:4:10 E010 attach",
            "bad.toml:5:23 E008 offset.position",
            "bad.toml:5:42 E010 offset.rotation",
            "bad.toml:6:39 E007 grips.off_hand.position[1]",
            "bad.toml:6:57 E008 grips.off_hand.weight",
            "bad.toml:6:74 E006 grips.main_hand.position",
            "bad.toml:7:31 E009 aim.off_hand.euler[0]",
            "bad.toml:7:45 E005 aim.extra",
            "bad.toml:10:8 E010 slots[0].slot",
            "bad.toml:12:1 E006 slots[1].slot",
            "bad.toml:13:37 E005 slots[1].main_hand.spin",
            "bad.toml:19:8 E017 slots[3].slot",
        ]
    );
    assert!(set.equipment.is_empty(), "an item with errors is left out");
}

#[test]
fn required_fields_types_counts_and_references() {
    let set = load(
        "shapes",
        &[
            ("a.toml", "kind = \"equipment\"\nid = \"a\"\n"),
            ("b.toml", "kind = \"equipment\"\nid = \"b\"\nclasses = []\ngrips = {}\n"),
            ("c.toml", "kind = \"equipment\"\nid = \"c\"\nclasses = \"rifle\"\ngrips = []\n"),
            (
                "d.toml",
                "kind = \"equipment\"\nid = \"d\"\nclasses = [\"heavy\"]\ngrips = {}\naim = { off_hand = { weight = 1 } }\n[[slots]]\nslot = \"no_such_slot\"\n",
            ),
        ],
    );
    let got: Vec<String> = set
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}:{} {} {}: {}", d.file.display(), d.line, d.column, d.code, d.field, d.message))
        .collect();
    insta::assert_snapshot!(got.join("\n"));
}
