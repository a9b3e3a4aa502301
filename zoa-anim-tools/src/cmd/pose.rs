//! `zoa-anim pose FILE`: the local joint transforms the runtime produces, for
//! one clip at one time or for a stack of layers read from a TOML mix file.
//!
//! The JSON shape is a contract for outside scripts:
//! `{"joints":[{"node":N,"name":…|null,"t":[x,y,z],"r":[x,y,z,w],"s":[x,y,z]}],
//! "morph":[{"node":N,"name":…|null,"weights":[…]}]}`: `joints` in skin joint
//! order, or in ascending node order with `--all-nodes` (every node targeted
//! by a channel of any clip in the file). Rotations are printed as the sampler
//! produced them (no sign canonicalization). Joints a clip does not animate
//! show their rest pose. `morph` has one entry per node whose mesh has morph
//! targets and that a `weights` channel of any clip in the file targets, in
//! ascending node order (empty when there is none): its morph-target weights
//! as three.js's `morphTargetInfluences` would hold them, blended with the same
//! weights and masks as the joints; the node's default weights (its own
//! `weights`, else its mesh's, else 0) where the playing clips do not animate
//! it. A mask weighs a morphed node's weights as it weighs the node's nearest
//! joint (itself or an ancestor); a node below no joint is not masked.
//!
//! Mix file (`--mix`): one `[[layer]]` table per layer, in blending order
//! (format and checks: `zoa_anim_assets::mix`); the clips and mask joints it
//! names are looked up in FILE.
//!
//! Retargeting (`--retarget-from OTHER.glb`): `--clip` is a clip of OTHER,
//! sampled on OTHER's first skin, and carried onto FILE's skeleton by bone
//! role (discovered on both rigs as `zoa-anim ik --discover` shows them; a
//! rig policy's `bone_overrides` from `--defs DIR --rig-policy ID` and
//! `--override ROLE=BONE` name FILE's bones explicitly, `--source-override
//! ROLE=BONE` OTHER's; a bone so named plays only that role), then by bone name for joints no role pairs. The output
//! is the same JSON, for FILE's joints. `--retarget-mode rest` (default)
//! carries each bone's model-space turn away from its rest orientation onto
//! the target bone's rest orientation and the hips' move scaled by leg
//! length; `rotation` copies local rotations and keeps the target's rest
//! translations; `full` copies translation, rotation and scale.
//!
//! A file without a skin reports as with `--all-nodes` (a warning says so)
//! unless `--skin` asks for one.
//!
//! Exit codes: 0 ok; 1 the mix file has errors (every problem is listed);
//! 2 usage or IO failure (unreadable or malformed glTF, unknown `--clip`,
//! missing skin).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use zoa_anim_assets::gltf::{GltfAsset, load_gltf};
use zoa_anim_assets::mix::{ClipKey, parse_mix};
use zoa_anim_core::RigPolicy;
use zoa_anim_core::{MorphNode, Skeleton};
use zoa_anim_ik::BoneRoles;
use zoa_anim_runtime::{
    pose::AdditiveReference, pose::Animation, pose::BindBy, pose::BoneWeights, pose::BoundMotion, pose::ClipPlayer,
    pose::Layer, pose::LayerSource, pose::MorphPose, pose::MorphSet, pose::Pose, pose::RetargetMode, pose::Retargeter,
    pose::RuntimeSkeleton,
};

use super::Format;

/// Arguments of `zoa-anim pose`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["clip", "mix"])))]
pub struct Args {
    /// A `.glb` or `.gltf` file.
    file: PathBuf,
    /// Clip to sample alone: animation name, `<stem>_<name>`, or index.
    #[arg(long, requires = "time")]
    clip: Option<String>,
    /// Time in seconds (before looping / clamping), with `--clip`.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_seconds)]
    time: Option<f32>,
    /// Play `--clip` once: clamp the time to the clip instead of looping.
    #[arg(long, requires = "clip")]
    once: bool,
    /// A TOML file of `[[layer]]` tables to blend (see the module docs).
    #[arg(long, conflicts_with_all = ["clip", "once"])]
    mix: Option<PathBuf>,
    /// Skin index whose joints are reported (default 0).
    #[arg(long, conflicts_with = "all_nodes")]
    skin: Option<usize>,
    /// Report every node targeted by a channel, in node order (for assets without skins).
    #[arg(long)]
    all_nodes: bool,
    /// Take `--clip` from this other glTF file and retarget it onto FILE's skeleton by bone role.
    #[arg(long, requires = "clip", conflicts_with = "all_nodes")]
    retarget_from: Option<PathBuf>,
    /// How `--retarget-from` carries the pose over.
    #[arg(long, value_enum, default_value_t, requires = "retarget_from")]
    retarget_mode: RetargetModeArg,
    /// With `--retarget-from`: map a role to a bone of FILE (as a rig policy's `bone_overrides`).
    #[arg(long = "override", value_name = "ROLE=BONE", requires = "retarget_from")]
    overrides: Vec<String>,
    /// With `--retarget-from`: map a role to a bone of the other file.
    #[arg(long = "source-override", value_name = "ROLE=BONE", requires = "retarget_from")]
    source_overrides: Vec<String>,
    /// Definition folder holding `--rig-policy`.
    #[arg(long, requires = "rig_policy")]
    defs: Option<PathBuf>,
    /// With `--retarget-from`: the rig policy whose `bone_overrides` name FILE's bones.
    #[arg(long, requires_all = ["defs", "retarget_from"])]
    rig_policy: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `--retarget-mode`.
#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
enum RetargetModeArg {
    /// Model-space turns relative to each rig's rest pose; hips move scaled by leg length.
    #[default]
    Rest,
    /// Local rotations copied; translations and scales from the target's rest pose.
    Rotation,
    /// Translation, rotation and scale copied.
    Full,
}

impl From<RetargetModeArg> for RetargetMode {
    fn from(m: RetargetModeArg) -> Self {
        match m {
            RetargetModeArg::Rest => RetargetMode::RestCorrected,
            RetargetModeArg::Rotation => RetargetMode::RotationOnly,
            RetargetModeArg::Full => RetargetMode::Full,
        }
    }
}

/// A skeleton to evaluate plus which of its joints to report, in output order.
pub(crate) struct Target {
    pub skeleton: Skeleton,
    pub report: Vec<usize>,
}

impl Target {
    /// Skin `skin` (default 0), or every node when `all_nodes`.
    pub(crate) fn select(asset: &GltfAsset, skin: Option<usize>, all_nodes: bool) -> anyhow::Result<Target> {
        if all_nodes {
            let skeleton = asset.node_skeleton().context("too many nodes for one skeleton")?;
            let mut report: Vec<usize> = asset.clips.iter().flat_map(|c| c.tracks()).map(|t| t.node as usize).collect();
            report.sort_unstable();
            report.dedup();
            return Ok(Target { skeleton, report });
        }
        if asset.skeletons.is_empty() && skin.is_none() {
            errln!("warning: {} has no skin; reporting every animated node (as --all-nodes)", asset.file_name);
            return Target::select(asset, None, true);
        }
        let index = skin.unwrap_or(0);
        let Some(skeleton) = asset.skeletons.get(index) else {
            if asset.skeletons.is_empty() {
                bail!("{} has no skin; use --all-nodes to report animated nodes", asset.file_name);
            }
            bail!("{} has {} skin(s); there is no skin {index}", asset.file_name, asset.skeletons.len());
        };
        Ok(Target { skeleton: skeleton.clone(), report: (0..skeleton.joint_count()).collect() })
    }
}

/// Samples or blends, then prints the reported joints.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let asset = load_gltf(&args.file)?;
    for w in &asset.warnings {
        errln!("warning: {w}");
    }
    let target = Target::select(&asset, args.skin, args.all_nodes)?;
    if let (Some(other), Some(key)) = (&args.retarget_from, &args.clip) {
        return retargeted(&args, &asset, &target, other, key);
    }
    let skeleton = Arc::new(RuntimeSkeleton::with_morphs(target.skeleton.clone(), &animated_morph_nodes(&asset)));
    let layers = match (&args.clip, &args.mix) {
        (Some(key), _) => clip_layer(&asset, key, &skeleton, args.time.unwrap_or(0.0), args.once)?,
        (None, Some(mix)) => match mix_layers(mix, &asset, &skeleton) {
            Ok(layers) => layers,
            Err(MixError::Io(e)) => return Err(e),
            Err(MixError::Input(problems)) => {
                return Err(crate::output::fail_all(1, "invalid-input", problems).at(mix).into());
            }
        },
        (None, None) => bail!("give --clip NAME --time T or --mix MIX.toml"),
    };
    let mut instance = ClipPlayer::new(skeleton.clone(), layers)?;
    instance.set_compute_model(false);
    instance.evaluate()?;
    let morphs = Morphs { set: skeleton.morphs(), weights: instance.morph_pose().map(MorphPose::weights) };
    print_pose(&args, &target, instance.local_pose(), &morphs)
}

/// The nodes of `asset` whose mesh has morph targets and that a `weights`
/// track of any clip targets, in node order: what `"morph"` reports.
fn animated_morph_nodes(asset: &GltfAsset) -> Vec<MorphNode> {
    let animated = |node: u32| asset.clips.iter().flat_map(|c| c.morph_tracks()).any(|t| t.node == node);
    asset.morph_nodes.iter().filter(|m| animated(m.node)).cloned().collect()
}

/// The morph weights to print: a set's layout and the blended weights
/// (`None`: the set's defaults).
struct Morphs<'a> {
    set: &'a MorphSet,
    weights: Option<&'a [f32]>,
}

fn print_pose(args: &Args, target: &Target, pose: &Pose, morphs: &Morphs<'_>) -> anyhow::Result<ExitCode> {
    match args.format {
        Format::Json => crate::output::json_document(serde_json::to_string_pretty(&to_json(target, pose, morphs))?)?,
        Format::Human => out!("{}", to_human(target, pose, morphs)),
    }
    Ok(ExitCode::SUCCESS)
}

/// One layer playing clip `key` of `asset` alone at `time`.
fn clip_layer(
    asset: &GltfAsset,
    key: &str,
    skeleton: &Arc<RuntimeSkeleton>,
    time: f32,
    once: bool,
) -> anyhow::Result<Vec<Layer>> {
    let (_, clip) =
        asset.clip(key).with_context(|| format!("{} has no clip `{key}` ({})", asset.file_name, clip_list(asset)))?;
    let animation = Arc::new(Animation::bind_to(clip, skeleton, BindBy::Node)?);
    let motion = BoundMotion { animation, looping: !once };
    Ok(vec![Layer::new(clip.name(), LayerSource::Clip { motion, time, speed: 1.0 })])
}

/// `ROLE=BONE` arguments as rig-policy overrides.
fn overrides(list: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    list.iter()
        .map(|o| match o.split_once('=') {
            Some((role, bone)) => Ok((role.trim().to_owned(), bone.trim().to_owned())),
            None => bail!("--override `{o}`: expected ROLE=BONE"),
        })
        .collect()
}

/// `--retarget-from`: sample the other file's clip on its own skeleton, then
/// carry the pose onto `target` by role.
fn retargeted(args: &Args, asset: &GltfAsset, target: &Target, other: &Path, key: &str) -> anyhow::Result<ExitCode> {
    let source_asset = load_gltf(other)?;
    for w in &source_asset.warnings {
        errln!("warning: {w}");
    }
    let Some(source) = source_asset.skeletons.first() else {
        bail!("{} has no skin to retarget from", source_asset.file_name);
    };
    let mut policy = RigPolicy { id: "cli".into(), ..RigPolicy::default() };
    if let (Some(dir), Some(id)) = (&args.defs, &args.rig_policy) {
        let set = zoa_anim_assets::defs::load_folder(dir);
        let Some(p) = set.rig_policy(id) else {
            bail!("{}: no rig policy `{id}`", dir.display());
        };
        policy = p.clone();
    }
    policy.bone_overrides.extend(overrides(&args.overrides)?);
    let source_policy =
        RigPolicy { id: "source".into(), bone_overrides: overrides(&args.source_overrides)?, ..RigPolicy::default() };
    let (target_roles, mut problems) = BoneRoles::discover_exclusive(&target.skeleton, &policy);
    let (source_roles, source_problems) = BoneRoles::discover_exclusive(source, &source_policy);
    problems.extend(source_problems);
    if !problems.is_empty() {
        let problems = problems.iter().map(ToString::to_string).collect();
        return Err(crate::output::fail_all(2, "usage", problems).into());
    }

    let source_skeleton = Arc::new(RuntimeSkeleton::new(source.clone()));
    let layers = clip_layer(&source_asset, key, &source_skeleton, args.time.unwrap_or(0.0), args.once)?;
    let mut instance = ClipPlayer::new(source_skeleton, layers)?;
    instance.set_compute_model(false);
    instance.evaluate()?;
    let retargeter =
        Retargeter::by_role(source, &source_roles, &target.skeleton, &target_roles, args.retarget_mode.into());
    let rest = Pose::rest(&target.skeleton);
    let mut pose = rest.clone();
    retargeter.run(instance.local_pose(), &rest, &mut pose)?;
    // The other file's clip animates none of FILE's morph targets: they show their defaults.
    let set = MorphSet::new(&animated_morph_nodes(asset), &target.skeleton);
    print_pose(args, target, &pose, &Morphs { set: &set, weights: None })
}

pub(crate) fn clip_list(asset: &GltfAsset) -> String {
    if asset.clips.is_empty() {
        return "it has no clips".into();
    }
    let names: Vec<String> = asset.clips.iter().enumerate().map(|(i, c)| format!("{i}: {}", c.name())).collect();
    format!("clips: {}", names.join(", "))
}

/// `--time`: a finite number of seconds (`inf` would reach the sampler as NaN).
fn parse_seconds(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(t) if t.is_finite() => Ok(t),
        Ok(t) => Err(format!("{t} is not a finite number of seconds")),
        Err(e) => Err(e.to_string()),
    }
}

enum MixError {
    /// The file could not be read: usage / IO (exit 2).
    Io(anyhow::Error),
    /// The file has errors (exit 1), every one listed.
    Input(Vec<String>),
}

fn mix_layers(path: &Path, asset: &GltfAsset, skeleton: &Arc<RuntimeSkeleton>) -> Result<Vec<Layer>, MixError> {
    let text = zoa_anim_assets::files::read_to_string(path, zoa_anim_assets::files::FileKind::SmallText)
        .map_err(|e| MixError::Io(anyhow::Error::new(e).context("cannot read the mix file")))?;
    let file = path.display();
    let mix = parse_mix(&text).map_err(|problems| MixError::Input(prefixed(&file, problems)))?;
    let mut problems = Vec::new();
    let mut layers = Vec::new();
    for (i, l) in mix.layers.iter().enumerate() {
        let at = format!("{file}: layer[{i}]");
        problems.extend(prefixed(&file, l.problems(i)));
        let mask = if l.include.is_empty() && l.exclude.is_empty() {
            None
        } else {
            match BoneWeights::from_names(skeleton.skeleton(), &l.include, &l.exclude) {
                Ok(m) => Some(Arc::new(m)),
                Err(e) => {
                    problems.push(format!("{at}: mask: {e}"));
                    None
                }
            }
        };
        let clip = match &l.clip {
            ClipKey::Index(k) => asset.clips.get(*k).map(|c| (*k, c)),
            ClipKey::Name(n) => asset.clip(n),
        };
        let Some((_, clip)) = clip else {
            problems.push(format!("{at}.clip: {} has no clip {} ({})", asset.file_name, l.clip, clip_list(asset)));
            continue;
        };
        let animation = match Animation::bind_to(clip, skeleton, BindBy::Node) {
            Ok(a) => Arc::new(a),
            Err(e) => {
                problems.push(format!("{at}: {e}"));
                continue;
            }
        };
        let source =
            LayerSource::Clip { motion: BoundMotion { animation, looping: l.looping }, time: l.time, speed: 1.0 };
        let mut layer = Layer::new(format!("layer[{i}] {}", clip.name()), source).with_weight(l.weight);
        if l.additive {
            layer = layer.additive(AdditiveReference::Time(l.reference_time));
        }
        layer.mask = mask;
        layers.push(layer);
    }
    if problems.is_empty() { Ok(layers) } else { Err(MixError::Input(problems)) }
}

/// `problems` each prefixed with the mix file's path.
fn prefixed(file: &impl std::fmt::Display, problems: Vec<String>) -> Vec<String> {
    problems.into_iter().map(|p| format!("{file}: {p}")).collect()
}

/// One reported joint; serialized directly (not through `serde_json::Value`)
/// so floats print in their shortest `f32` form.
#[derive(Debug, serde::Serialize)]
struct JointOut<'a> {
    node: u32,
    name: Option<&'a str>,
    t: [f32; 3],
    r: [f32; 4],
    s: [f32; 3],
}

/// One reported morphed node.
#[derive(Debug, serde::Serialize)]
struct MorphOut<'a> {
    node: u32,
    name: Option<&'a str>,
    weights: &'a [f32],
}

#[derive(Debug, serde::Serialize)]
struct PoseOut<'a> {
    joints: Vec<JointOut<'a>>,
    morph: Vec<MorphOut<'a>>,
}

impl<'a> Morphs<'a> {
    /// Every slot with its weights, in node order.
    fn entries(&self) -> Vec<MorphOut<'a>> {
        let weights = self.weights.unwrap_or(self.set.defaults());
        let mut out: Vec<MorphOut<'a>> = self
            .set
            .slots()
            .iter()
            .map(|s| MorphOut {
                node: s.node,
                name: s.name.as_deref(),
                weights: weights.get(s.range.clone()).unwrap_or_default(),
            })
            .collect();
        out.sort_by_key(|m| m.node);
        out
    }
}

fn to_json<'a>(target: &'a Target, pose: &Pose, morphs: &Morphs<'a>) -> PoseOut<'a> {
    let joints = target
        .report
        .iter()
        .map(|&j| {
            let joint = &target.skeleton.joints()[j];
            let t = pose.get(j);
            JointOut {
                node: joint.node,
                name: joint.name.as_deref(),
                t: t.translation.to_array(),
                r: t.rotation.to_array(),
                s: t.scale.to_array(),
            }
        })
        .collect();
    PoseOut { joints, morph: morphs.entries() }
}

fn to_human(target: &Target, pose: &Pose, morphs: &Morphs<'_>) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for &j in &target.report {
        let t = pose.get(j);
        let name = target.skeleton.display_name(j);
        let (p, r, s) = (t.translation, t.rotation, t.scale);
        let _ = writeln!(
            out,
            "{:>4} {name:<28} t=({:.5}, {:.5}, {:.5}) r=({:.5}, {:.5}, {:.5}, {:.5}) s=({:.5}, {:.5}, {:.5})",
            target.skeleton.joints()[j].node,
            p.x,
            p.y,
            p.z,
            r.x,
            r.y,
            r.z,
            r.w,
            s.x,
            s.y,
            s.z
        );
    }
    for m in morphs.entries() {
        let name = m.name.map_or_else(|| format!("node {}", m.node), str::to_owned);
        let weights: Vec<String> = m.weights.iter().map(|w| format!("{w:.5}")).collect();
        let _ = writeln!(out, "{:>4} {name:<28} morph weights [{}]", m.node, weights.join(", "));
    }
    out
}
