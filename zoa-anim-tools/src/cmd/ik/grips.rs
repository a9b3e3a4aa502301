//! `zoa-anim ik --defs DIR --class CLASS [--time T] [--aim]`: spawns the
//! folder's character already holding the class's `equipment`, plays `T`
//! seconds (steps of 1/30 s; aiming with `--aim`) and reports, per hand the
//! item has a grip for, how far the hand's wrist is from its grip before and
//! after the rig IK.
//!
//! "Before" is the same character with the grips switched off (an empty
//! weapon pose, so hand on weapon does nothing and everything else runs
//! alike); the grip is placed from that pose exactly as the rig places it
//! (`zoa_anim_ik::hand_target`, after foot plant and look-at), so the two
//! distances measure what hand on weapon did.
//!
//! The JSON shape is a contract for outside scripts:
//! `{"defs":DIR,"class":CLASS,"equipment":ID,"attach":{"role":ROLE,"bone":NAME},"time":S,"aiming":BOOL,
//! "hands":[{"hand":"main_hand"|"off_hand","target":"left_hand_grip"|"right_hand_grip","bone":NAME,
//! "weight":W,"grip":[X,Y,Z],"distance_before":M,"distance_after":M}…]}`
//! (model space, metres, six decimals; `weight` is the grip's weight in
//! effect, 0 ..= 1). A class that holds no item is an error (exit 1, with the
//! classes that do), as is a folder with errors or an item whose attach bone
//! the model lacks; a class name that is not a weapon class is a usage error (exit 2).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};
use zoa_anim_core::contracts::{IkPoseProvider, PoseSnapshot};
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{DefaultBindings, PlayerProfileType, StateTagSet, Transform};
use zoa_anim_ik::{CompiledEquipment, LEFT_HAND_GRIP, ModelPose, Side, hand_target};
use zoa_anim_runtime::{Character, CharacterDefinition};

use crate::cmd::Format;
use crate::output::fail;

/// Longest `--time`, seconds.
pub const MAX_TIME: f32 = 600.0;
/// The step the character is played in, seconds.
const STEP: f32 = 1.0 / 30.0;

/// What to measure.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The definition folder.
    pub dir: &'a Path,
    /// The weapon class, as written.
    pub class: &'a str,
    /// Seconds to play after spawning.
    pub time: f32,
    /// Whether the character aims.
    pub aim: bool,
}

/// One hand's measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct HandReport {
    /// `main_hand` or `off_hand`.
    pub hand: &'static str,
    /// The IK target id.
    pub target: &'static str,
    /// The hand bone's name.
    pub bone: String,
    /// The grip's weight in effect, 0 ..= 1.
    pub weight: f32,
    /// The grip in model space.
    pub grip: Vec3,
    /// Wrist to grip without hand on weapon, metres.
    pub before: f32,
    /// Wrist to grip with it.
    pub after: f32,
}

/// Loads, measures and prints (see the module docs).
pub fn run(req: &Request<'_>, format: Format) -> anyhow::Result<ExitCode> {
    let Some(class) = PlayerProfileType::from_name(req.class) else {
        let all: Vec<&str> = PlayerProfileType::ALL.iter().map(|c| c.name()).collect();
        return Err(fail(2, "usage", format!("--class `{}`: expected one of {}", req.class, all.join(", "))).into());
    };
    if !(req.time.is_finite() && (0.0..=MAX_TIME).contains(&req.time)) {
        return Err(fail(2, "usage", format!("--time {}: expected seconds in 0..={MAX_TIME}", req.time)).into());
    }
    let def = load(req.dir)?;
    let Some(item) = def.equipment_for(class) else {
        return Err(no_item(&def, class).into());
    };
    let hands = measure(&def, class, item, req.time, req.aim)?;
    let skeleton = def.skeleton().skeleton();
    let attach = skeleton.display_name(usize::from(item.attach_joint())).into_owned();
    let role = item.attach_role().name();
    match format {
        Format::Json => {
            let doc = json!({
                "defs": req.dir.display().to_string(),
                "class": class.name(),
                "equipment": item.equipment_id(),
                "attach": { "role": role, "bone": attach },
                "time": round(req.time),
                "aiming": req.aim,
                "hands": hands.iter().map(hand_json).collect::<Vec<_>>(),
            });
            crate::output::json_document(serde_json::to_string_pretty(&doc)?)?;
        }
        Format::Human => {
            outln!(
                "{}: class `{}` holds `{}` (attach {role} = `{attach}`), t = {:.3} s{}\n",
                req.dir.display(),
                class.name(),
                item.equipment_id(),
                req.time,
                if req.aim { ", aiming" } else { "" }
            );
            outln!(
                "{:<9} {:<16} {:<14} {:>6} {:>11} {:>11}",
                "hand",
                "target",
                "bone",
                "weight",
                "before IK",
                "after IK"
            );
            for h in &hands {
                outln!(
                    "{:<9} {:<16} {:<14} {:>6.3} {:>9.4} m {:>9.4} m",
                    h.hand,
                    h.target,
                    h.bone,
                    h.weight,
                    h.before,
                    h.after
                );
            }
            if hands.is_empty() {
                outln!("(the item has no grip in effect now)");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn load(dir: &Path) -> anyhow::Result<Arc<CharacterDefinition>> {
    zoa_animation::load(dir).map_err(|e| match e {
        zoa_animation::LoadError::Invalid { .. } => fail(1, "invalid-input", e.to_string()).into(),
        _ => anyhow::Error::from(fail(2, "io", e.to_string()).at(dir)),
    })
}

/// Why `class` has nothing to measure: the classes that hold an item, and
/// the items left out for want of their attach bone.
fn no_item(def: &CharacterDefinition, class: PlayerProfileType) -> crate::output::Failure {
    let holding: Vec<&str> =
        PlayerProfileType::ALL.into_iter().filter(|c| def.equipment_for(*c).is_some()).map(|c| c.name()).collect();
    let mut message = format!(
        "class `{}` holds no equipment; classes that do: {}",
        class.name(),
        if holding.is_empty() { "none".to_owned() } else { holding.join(", ") }
    );
    for skipped in def.equipment_skipped() {
        message.push_str(&format!("; {skipped}"));
    }
    fail(1, "not-found", message)
}

/// Plays the two characters (with and without the grips) and measures each
/// grip in effect at the end.
fn measure(
    def: &Arc<CharacterDefinition>,
    class: PlayerProfileType,
    item: &CompiledEquipment,
    time: f32,
    aim: bool,
) -> anyhow::Result<Vec<HandReport>> {
    let spawn = |grips: bool| -> anyhow::Result<Character> {
        let mut c = Character::spawn(def, Some(class), StateTagSet::EMPTY)?;
        if !grips {
            c.set_weapon_pose(Some(PoseSnapshot::default()));
        }
        c.set_bool(DefaultBindings::IS_AIMING, aim);
        let mut left = time;
        while left > 0.0 {
            let dt = left.min(STEP);
            c.update(dt)?;
            left -= dt;
        }
        Ok(c)
    };
    let (before, after) = (spawn(false)?, spawn(true)?);
    let skeleton = def.skeleton().skeleton();
    let model = |c: &Character| {
        let local: Vec<Transform> = (0..skeleton.joint_count()).map(|j| c.local_pose().get(j)).collect();
        let mut m = ModelPose::new(skeleton.joint_count());
        m.update(skeleton, &local);
        m
    };
    let (m_before, m_after) = (model(&before), model(&after));
    let Some(pose) = after.weapon_pose() else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for t in &pose.targets {
        let side = if t.target == LEFT_HAND_GRIP { Side::Left } else { Side::Right };
        let (Some(joint), Some(target)) = (def.roles().arms[side.index()].hand, hand_target(t, pose.weight, &m_before))
        else {
            continue;
        };
        let j = usize::from(joint);
        out.push(HandReport {
            hand: if t.target == item.main_target() { "main_hand" } else { "off_hand" },
            target: if side == Side::Left { "left_hand_grip" } else { "right_hand_grip" },
            bone: skeleton.display_name(j).into_owned(),
            weight: target.weight.clamp(0.0, 1.0),
            grip: target.position,
            before: (m_before.get(j).position - target.position).length(),
            after: (m_after.get(j).position - target.position).length(),
        });
    }
    Ok(out)
}

fn hand_json(h: &HandReport) -> Value {
    json!({
        "hand": h.hand,
        "target": h.target,
        "bone": h.bone,
        "weight": round(h.weight),
        "grip": [round(h.grip.x), round(h.grip.y), round(h.grip.z)],
        "distance_before": round(h.before),
        "distance_after": round(h.after),
    })
}

/// Six decimals (and no negative zero): stable in snapshots and scripts.
fn round(v: f32) -> f64 {
    (f64::from(v) * 1e6).round() / 1e6 + 0.0
}
