//! `zoa-anim ik FILE [--skin N] --discover`: which bone of a glTF skin plays
//! which IK role, and which rig-policy behaviours it can therefore run.
//! `zoa-anim ik --defs DIR --class CLASS [--time T] [--aim]`: how far each
//! hand of a character holding the class's `equipment` is from its grip
//! before and after the rig IK (see [`grips`]).
//!
//! The JSON shape is a contract for outside scripts:
//! `{"roles":{"hips":NAME|null,"spine":[NAME…],"neck":…,"head":…,
//! "left_upper_leg":…,"left_lower_leg":…,"left_foot":…,"left_toe":…,"right_upper_leg":…,…,"right_toe":…,
//! "left_shoulder":…,"left_upper_arm":…,"left_forearm":…,"left_hand":…,"right_shoulder":…,…,"right_hand":…},
//! "policies":{"foot_plant":BOOL,"look_at":BOOL,"hand_on_weapon":BOOL,"climb_hand":BOOL},
//! "leg_ends":{"left":{"bone":NAME,"at":"foot"|"tip","tip":[X,Y,Z]|null,"source":"joint"|"end_joint"|"estimated"}|null,"right":…},
//! "rejected":[{"bone":NAME,"role":ROLE|null,"reason":TEXT}…]}`
//! where a policy is true when every bone it needs was found. `leg_ends` says
//! where each leg's two-bone chain ends: at the foot joint, or, when the
//! chain has no foot, at the lower leg's tip (`tip` is the offset in the
//! lower leg's local space, from an end marker joint or estimated from the
//! rest pose). `rejected` lists joints whose names suggested a role they did
//! not get, and why (an IK control outside the chain, hips that do not carry
//! the legs, …). Names are the joints' names (`node<N>` for unnamed joints).
//! With `--chain ROOT..TIP` (repeatable: a rig policy's `[[chains]]` entry to
//! try), the document also has
//! `"chains":[{"name":"ROOT..TIP","root":NAME,"tip":NAME,"joints":N,"available":BOOL,"problem":TEXT|null}…]`,
//! where `joints` counts root to tip (0 when the chain does not compile) and
//! `problem` says why it would be compiled out.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_core::{RigChain, RigPolicy, Skeleton};
use zoa_anim_ik::{BoneRoles, ChainAvailability, Role, Side, TipSource, chain_availability};

use super::Format;

pub mod grips;

/// Arguments of `zoa-anim ik`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A `.glb` or `.gltf` file (with `--discover`).
    #[arg(required_unless_present = "defs", conflicts_with = "defs")]
    file: Option<PathBuf>,
    /// Which skin (index in the file's skin order).
    #[arg(long, default_value_t = 0, conflicts_with = "defs")]
    skin: usize,
    /// Discover bone roles and policy availability of FILE.
    #[arg(long, required_unless_present = "defs", conflicts_with = "defs")]
    discover: bool,
    /// Map a role to a bone explicitly, as a rig policy's `bone_overrides`
    /// would (`--override left_foot=foot_l`); repeatable.
    #[arg(long = "override", value_name = "ROLE=BONE", conflicts_with = "defs")]
    overrides: Vec<String>,
    /// Check an IK chain from bone ROOT down to bone TIP, as a rig policy's
    /// `[[chains]]` entry would (`--chain Spine..Head`); repeatable.
    #[arg(long = "chain", value_name = "ROOT..TIP")]
    chains: Vec<String>,
    /// A definition folder: report each hand's distance to the grips of the
    /// `equipment` that `--class` holds, before and after IK.
    #[arg(long, requires = "class")]
    defs: Option<PathBuf>,
    /// With `--defs`: the weapon class to equip (`rifle`, `pistol`, …).
    #[arg(long, requires = "defs")]
    class: Option<String>,
    /// With `--defs`: seconds to play after spawning (0 ..= 600, steps of 1/30 s).
    #[arg(long, requires = "defs", default_value_t = 0.0)]
    time: f32,
    /// With `--defs`: the character aims (the item's aim grips).
    #[arg(long, requires = "defs")]
    aim: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Runs the mode the arguments ask for. Discovery: loads the file,
/// discovers the roles of one skin and prints them; a file that cannot be
/// read, a missing skin or a bad override is a usage / IO error (exit 2).
/// Grips: see [`grips::run`].
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let (Some(dir), Some(class)) = (&args.defs, &args.class) {
        return grips::run(&grips::Request { dir, class, time: args.time, aim: args.aim }, args.format);
    }
    let Some(path) = &args.file else { bail!("give a glTF file with --discover, or --defs DIR --class CLASS") };
    debug_assert!(args.discover);
    let asset = load_gltf(path)?;
    for w in &asset.warnings {
        errln!("warning: {w}");
    }
    let file = path.display();
    let skeleton = asset
        .skeletons
        .get(args.skin)
        .with_context(|| format!("{file}: no skin {} (the file has {} skin(s))", args.skin, asset.skeletons.len()))?;
    let mut policy = RigPolicy { id: "cli".into(), ..RigPolicy::default() };
    for o in &args.overrides {
        let Some((role, bone)) = o.split_once('=') else {
            bail!("--override `{o}`: expected ROLE=BONE");
        };
        policy.bone_overrides.push((role.trim().to_owned(), bone.trim().to_owned()));
    }
    for c in &args.chains {
        let Some((root, tip)) = c.split_once("..") else {
            bail!("--chain `{c}`: expected ROOT..TIP");
        };
        policy.chains.push(RigChain::new(c.as_str(), root.trim(), tip.trim()));
    }
    let (roles, problems) = BoneRoles::discover_with_overrides(skeleton, &policy);
    if !problems.is_empty() {
        let problems = problems.iter().map(ToString::to_string).collect();
        return Err(crate::output::fail_all(2, "usage", problems).into());
    }
    let chains = chain_availability(skeleton, &policy);
    match args.format {
        Format::Json => {
            let mut doc = crate::reports::ik_roles(skeleton, &roles);
            if !chains.is_empty() {
                doc["chains"] = chains.iter().map(chain_json).collect();
            }
            crate::output::json_document(serde_json::to_string_pretty(&doc)?)?;
        }
        Format::Human => {
            let mut text = to_human(&file.to_string(), args.skin, skeleton, &roles);
            if !chains.is_empty() {
                text.push_str(&chains_human(&chains));
            }
            out!("{text}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn to_human(file: &str, skin: usize, s: &Skeleton, roles: &BoneRoles) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "{file}: skin {skin} `{}`, {} joint(s)\n", s.name(), s.joint_count());
    let _ = writeln!(out, "{:<17} bone", "role");
    for role in Role::ALL {
        let text = if role == Role::Spine {
            let names: Vec<String> = roles.spine.iter().map(|&j| s.display_name(j as usize).into_owned()).collect();
            if names.is_empty() { "-".to_owned() } else { names.join(", ") }
        } else {
            roles.get(role).map_or_else(|| "-".to_owned(), |j| s.display_name(j as usize).into_owned())
        };
        let _ = writeln!(out, "{:<17} {text}", role.name());
    }
    let _ = writeln!(out, "\n{:<17} available", "policy");
    for a in roles.availability(&RigPolicy::default()) {
        if a.available {
            let _ = writeln!(out, "{:<17} yes", a.policy.name());
        } else {
            let missing: Vec<&str> = a.missing.iter().map(|r| r.name()).collect();
            let _ = writeln!(out, "{:<17} no (missing {})", a.policy.name(), missing.join(", "));
        }
    }
    for side in Side::BOTH {
        if let Some(tip) = roles.legs[side.index()].tip {
            let how = match tip.source {
                TipSource::EndJoint(j) => format!("end marker `{}`", s.display_name(j as usize)),
                _ => "estimated from the rest pose".to_owned(),
            };
            let _ = writeln!(
                out,
                "\n{} leg ends at the tip of `{}` (no foot joint; {how})",
                side.name(),
                s.display_name(tip.joint as usize)
            );
        }
    }
    if !roles.rejected.is_empty() {
        let _ = writeln!(out, "\nrejected");
        for x in &roles.rejected {
            let role = x.role.map_or_else(String::new, |r| format!(" as {r}"));
            let _ = writeln!(out, "  `{}`{role}: {}", s.display_name(x.joint as usize), x.reason);
        }
    }
    out
}

fn chain_json(c: &ChainAvailability) -> serde_json::Value {
    serde_json::json!({
        "name": c.name,
        "root": c.root,
        "tip": c.tip,
        "joints": c.joints,
        "available": c.is_available(),
        "problem": c.problem.as_ref().map(ToString::to_string),
    })
}

fn chains_human(chains: &[ChainAvailability]) -> String {
    use std::fmt::Write;
    let mut out = format!("\n{:<17} available\n", "chain");
    for c in chains {
        let _ = match &c.problem {
            None => writeln!(out, "{:<17} yes ({} joints)", c.name, c.joints),
            Some(p) => writeln!(out, "{:<17} no ({p})", c.name),
        };
    }
    out
}
