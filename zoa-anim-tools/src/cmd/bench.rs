//! `zoa-anim bench FILE`: times the runtime on a crowd of characters built
//! from the file's first skin (or every node, for assets without skins) and
//! its clips.
//!
//! Each instance `i` plays a two-clip 1D blend (clips `i` and `i+1`, modulo the
//! clip count, on a shared normalized clock) plus an additive layer (clip
//! `i+2` against its first frame), then computes model-space matrices.
//! `--clips A,B,C` pins the clips instead: every instance blends A and B and
//! adds C (each a clip name, `<stem>_<name>` or index). The
//! JSON shape is a contract for outside scripts:
//! `{"characters":N,"joints":N,"threads":K,"frames":N,"ns_per_character_frame":X,"ns_per_joint":X}`
//! where `joints` is the joint count of one character, then
//! `"bytes_per_character":B`: the heap bytes each character holds after its
//! frames, its own state only (what the crowd shares — definitions, clips,
//! skeleton — is not counted; measured by the binary's counting allocator,
//! `alloc_meter`). Timings are wall-clock means over `frames` frames after
//! one warm-up frame.
//!
//! `--pool team` (the default) spreads each frame over a
//! [`Team`](zoa_anim_runtime::Team): `--threads` threads, the calling one
//! included, that each take a fixed share of the crowd and stay awake
//! between back-to-back frames; `--pool rayon` runs `update_parallel` on a
//! rayon pool of `--threads` workers instead, to compare the two.
//!
//! `--simd scalar` runs the portable scalar pose kernels instead of the
//! widest vector kernels the CPU has (`auto`, the default), to compare them.
//!
//! `zoa-anim bench --defs DIR [--profile-set ID]` times the full character
//! pipeline instead (the public character API on the folder's character:
//! driver, selector, graph, slot, pose, IK, local-to-model, skinning, events;
//! see `bench/character.rs` for the crowd and its per-frame inputs). Its JSON is
//! the same contract plus `"pipeline":"character"` at the end. `--lod` turns
//! the level of detail on over a fixed spread of significances (documented in
//! `bench/character.rs`) and adds `"evaluated_share"`: the share of
//! character-frames evaluated rather than skipped.
//!
//! `zoa-anim bench --baked FILE [--defs DIR]` runs the same character
//! pipeline on a baked file's character (`zoa-anim bake`) and appends
//! `"clip_bytes":N` (the file's clip section) and
//! `"load_ms":{"folder":X,"baked":Y}` (median of five loads each; `folder`,
//! through `zoa_animation::load`, only with `--defs`).

mod character;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use zoa_anim_assets::gltf::{GltfAsset, load_gltf};
use zoa_anim_runtime::{
    Crowd, Team, pose::AdditiveReference, pose::Animation, pose::BindBy, pose::BoundMotion, pose::ClipPlayer,
    pose::CompiledBlendTree, pose::Layer, pose::LayerSource, pose::RuntimeSkeleton, pose::Simd, pose::SyncClock,
    pose::set_simd,
};

use super::Format;
use super::pose::{Target, clip_list};

/// Arguments of `zoa-anim bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A `.glb` or `.gltf` file with at least one clip (or `--defs`, `--baked`).
    #[arg(required_unless_present_any = ["defs", "baked"])]
    file: Option<PathBuf>,
    /// A definition folder: time the full character pipeline on its character instead.
    #[arg(long, conflicts_with_all = ["file", "clips"])]
    defs: Option<PathBuf>,
    /// A baked file (`zoa-anim bake`): time the full character pipeline on
    /// its character; with `--defs` too, the crowd uses the baked file and
    /// both load times are reported.
    #[arg(long, conflicts_with_all = ["file", "clips"])]
    baked: Option<PathBuf>,
    /// With `--defs` or `--baked`: the player profile set to use (default: the first by id).
    #[arg(long, conflicts_with = "file")]
    profile_set: Option<String>,
    /// With `--defs` or `--baked`: level of detail on, the crowd spread over
    /// a disc around the camera (significance = 1 − distance / radius; see
    /// `bench/character.rs`).
    #[arg(long, conflicts_with = "file")]
    lod: bool,
    /// Number of characters in the crowd.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    characters: u32,
    /// Worker threads (default: all available cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Seconds to keep running frames (at least one frame runs).
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Clips every character plays, `A,B,C`: A and B in the 1D blend, C as
    /// the additive layer (each an animation name, `<stem>_<name>`, or index).
    /// Default: character `i` plays clips `i`, `i+1` and `i+2`.
    #[arg(long, value_delimiter = ',', num_args = 1)]
    clips: Option<Vec<String>>,
    /// Pose kernels: `auto` (the widest vector kernels this CPU has) or
    /// `scalar` (the portable reference path).
    #[arg(long, value_enum, default_value_t)]
    simd: SimdArg,
    /// How a frame is spread over the threads: `team` (fixed shares,
    /// workers awake between frames) or `rayon` (work stealing).
    #[arg(long, value_enum, default_value_t)]
    pool: PoolArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `--pool` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
enum PoolArg {
    /// A `zoa_anim_runtime::Team`.
    #[default]
    Team,
    /// A rayon thread pool.
    Rayon,
}

/// The threads frames run on (`--pool`, `--threads`).
pub(super) enum Workers {
    /// Fixed shares on a team.
    Team(Team),
    /// Work stealing on a rayon pool.
    Rayon(rayon::ThreadPool),
}

impl Workers {
    fn new(pool: PoolArg, threads: usize) -> anyhow::Result<Workers> {
        Ok(match pool {
            PoolArg::Team => Workers::Team(Team::new(threads)?),
            PoolArg::Rayon => Workers::Rayon(
                rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("cannot start worker threads")?,
            ),
        })
    }

    /// Runs one warm-up frame, then frames until `budget` has passed (at
    /// least one); returns the timed frames and their wall-clock time.
    /// `frame(team, k)` runs timed frame `Some(k)` (or the warm-up, `None`),
    /// on `team` or, when it is `None`, with rayon on this pool.
    pub(super) fn time_frames(
        &mut self,
        budget: Duration,
        mut frame: impl FnMut(Option<&mut Team>, Option<u64>) -> anyhow::Result<()> + Send,
    ) -> anyhow::Result<(u64, Duration)> {
        let mut run = |mut team: Option<&mut Team>| -> anyhow::Result<(u64, Duration)> {
            frame(team.as_deref_mut(), None)?; // warm-up: caches, cursors, worker start-up
            let start = Instant::now();
            let mut frames = 0u64;
            loop {
                frame(team.as_deref_mut(), Some(frames))?;
                frames += 1;
                if start.elapsed() >= budget {
                    return Ok((frames, start.elapsed()));
                }
            }
        };
        match self {
            Workers::Team(team) => run(Some(team)),
            Workers::Rayon(pool) => pool.install(|| run(None)),
        }
    }
}

/// `--simd` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
enum SimdArg {
    /// The widest vector kernels this CPU supports.
    #[default]
    Auto,
    /// The portable scalar kernels.
    Scalar,
}

/// Largest crowd `bench` builds, bytes (384 MiB, so the largest accepted
/// crowd stays under the 512 MiB the hostile-input tests allow a process):
/// `--characters` × the estimate per character must fit, checked before any
/// character is built.
pub const MAX_CROWD_BYTES: u64 = 384 << 20;

/// Estimated bytes one benchmark character takes (its instance, three layer
/// contexts, local and model poses): measured on the fixture humanoid (55
/// joints) at about 26 KiB per character, i.e. under 512 bytes per joint.
pub fn bytes_per_character(joints: usize) -> u64 {
    4096 + 512 * joints as u64
}

/// Refuses a crowd over [`MAX_CROWD_BYTES`] at `per` bytes a character.
pub(super) fn check_crowd_budget(characters: usize, joints: usize, per: u64) -> anyhow::Result<()> {
    let max = MAX_CROWD_BYTES / per;
    if characters as u64 > max {
        return Err(crate::output::fail(
            2,
            "over-budget",
            format!(
                "--characters {characters}: a crowd of {joints}-joint characters fits at most {max} characters in \
                 the {} MiB budget",
                MAX_CROWD_BYTES >> 20
            ),
        )
        .into());
    }
    Ok(())
}

/// Builds the crowd, runs frames for `--seconds`, prints the timing.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !(args.seconds.is_finite() && args.seconds >= 0.0 && args.seconds <= 3600.0) {
        bail!("--seconds {} must be between 0 and 3600", args.seconds);
    }
    let threads = match args.threads {
        Some(k) => k as usize,
        None => std::thread::available_parallelism().map(|p| p.get()).unwrap_or(1),
    };
    let mut workers = Workers::new(args.pool, threads)?;
    let budget = Duration::from_secs_f64(args.seconds);
    set_simd(match args.simd {
        SimdArg::Auto => Simd::Auto,
        SimdArg::Scalar => Simd::Scalar,
    });
    let n = args.characters as usize;
    let file = match (&args.file, &args.defs, &args.baked) {
        (Some(f), _, _) => f,
        (None, dir, Some(baked)) => {
            let loads = load_times(dir.as_deref(), baked, args.profile_set.as_deref())?;
            let source = character::Source::Baked(baked);
            let m = character::run(source, args.profile_set.as_deref(), n, args.lod, &mut workers, budget)?;
            return report(&args, n, threads, m.timing(), Some(loads));
        }
        (None, Some(dir), None) => {
            let source = character::Source::Folder(dir);
            let m = character::run(source, args.profile_set.as_deref(), n, args.lod, &mut workers, budget)?;
            return report(&args, n, threads, m.timing(), None);
        }
        (None, None, None) => bail!("give a glTF file, --defs DIR or --baked FILE"),
    };
    let asset = load_gltf(Path::new(file))?;
    let target = Target::select(&asset, None, asset.skeletons.is_empty())?;
    if asset.clips.is_empty() {
        bail!("{} has no clips to play", asset.file_name);
    }
    let skeleton = Arc::new(RuntimeSkeleton::new(target.skeleton));
    let clips: Vec<Arc<Animation>> = asset
        .clips
        .iter()
        .map(|c| Animation::bind(c, skeleton.skeleton(), BindBy::Node).map(Arc::new))
        .collect::<Result<_, _>>()?;
    let pinned = match &args.clips {
        None => None,
        Some(keys) => Some(pinned_clips(&asset, keys)?),
    };
    check_crowd_budget(n, skeleton.joint_count(), bytes_per_character(skeleton.joint_count()))?;
    let before = crate::alloc_meter::live_bytes();
    let instances = (0..n)
        .map(|i| {
            let clip = |k: usize| match pinned {
                Some(p) => clips[p[k]].clone(),
                None => clips[(i + k) % clips.len()].clone(),
            };
            instance(&skeleton, [clip(0), clip(1), clip(2)], i)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut crowd = Crowd::new(instances);
    let dt = 1.0 / 60.0;
    let (frames, elapsed) = workers.time_frames(budget, |team, _| {
        match team {
            Some(team) => crowd.update_on(team, dt)?,
            None => crowd.update_parallel(dt)?,
        }
        Ok(())
    })?;
    let bytes = held_per_character(before, n);
    drop(crowd);
    let timing = Timing { joints: skeleton.joint_count(), frames, elapsed, bytes, evaluated_share: None };
    report(&args, n, threads, timing, None)
}

/// Loads measured for `--baked`: the baked file's clip bytes and load time,
/// and the folder's (through `zoa_animation::load`, what a game calls) when
/// `--defs` is given too. Each time is the median of [`LOAD_RUNS`] loads.
#[derive(Debug, serde::Serialize)]
pub(super) struct Loads {
    /// Bytes of the baked file's clip section.
    clip_bytes: u64,
    /// Milliseconds.
    load_ms: LoadMs,
}

#[derive(Debug, serde::Serialize)]
struct LoadMs {
    #[serde(skip_serializing_if = "Option::is_none")]
    folder: Option<f64>,
    baked: f64,
}

/// Loads timed per source (the median is reported).
const LOAD_RUNS: usize = 5;

fn median_ms(mut f: impl FnMut() -> anyhow::Result<()>) -> anyhow::Result<f64> {
    let mut times = Vec::with_capacity(LOAD_RUNS);
    for _ in 0..LOAD_RUNS {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[LOAD_RUNS / 2])
}

fn load_times(dir: Option<&Path>, baked: &Path, profile_set: Option<&str>) -> anyhow::Result<Loads> {
    let clip_bytes = zoa_anim_assets::baked::read_baked_file(baked)
        .map_err(|e| crate::output::fail(1, "invalid-input", e.to_string()).at(baked))?
        .clip_bytes;
    let baked_ms = median_ms(|| character::baked_definition(baked, profile_set).map(drop))?;
    let folder = match dir {
        None => None,
        Some(dir) => {
            let mut loader = zoa_animation::Loader::new();
            if let Some(id) = profile_set {
                loader = loader.player_set(id);
            }
            Some(median_ms(|| {
                loader
                    .load(dir)
                    .map(drop)
                    .map_err(|e| crate::output::fail(1, "invalid-input", e.to_string()).at(dir).into())
            })?)
        }
    };
    Ok(Loads { clip_bytes, load_ms: LoadMs { folder, baked: baked_ms } })
}

/// Heap bytes allocated since `before` (live bytes before the crowd was
/// built) and still held, per character: each character's own state after
/// its frames (poses, cursors, scratch, queues), not what the crowd shares
/// (definitions, clips, the skeleton). `None` without the allocation meter.
fn held_per_character(before: Option<i64>, n: usize) -> Option<u64> {
    let held = crate::alloc_meter::live_bytes()? - before?;
    Some(u64::try_from(held.max(0)).unwrap_or(0) / n.max(1) as u64)
}

/// What one bench run measured.
pub(super) struct Timing {
    pub(super) joints: usize,
    pub(super) frames: u64,
    pub(super) elapsed: Duration,
    pub(super) bytes: Option<u64>,
    /// With `--lod`: the share of character-frames evaluated (the rest were skipped).
    pub(super) evaluated_share: Option<f64>,
}

/// Prints the timing (the JSON contract, `pipeline` only for `--defs`).
fn report(
    args: &Args,
    n: usize,
    threads: usize,
    Timing { joints, frames, elapsed, bytes: bytes_per_character, evaluated_share }: Timing,
    loads: Option<Loads>,
) -> anyhow::Result<ExitCode> {
    let pipeline = (args.defs.is_some() || args.baked.is_some()).then_some("character");
    let ns_per_character_frame = elapsed.as_nanos() as f64 / (frames as f64 * n as f64);
    let ns_per_joint = if joints > 0 { ns_per_character_frame / joints as f64 } else { 0.0 };
    match args.format {
        Format::Json => crate::output::json_document(serde_json::to_string(&BenchOut {
            characters: n,
            joints,
            threads,
            frames,
            ns_per_character_frame,
            ns_per_joint,
            bytes_per_character,
            pipeline,
            evaluated_share,
            loads: loads.as_ref(),
        })?)?,
        Format::Human => outln!(
            "{}{n} characters x {joints} joints on {threads} thread(s): {frames} frames, \
             {ns_per_character_frame:.0} ns per character-frame, {ns_per_joint:.1} ns per joint{}{}",
            pipeline.map_or(String::new(), |p| format!("{p} pipeline: ")),
            bytes_per_character.map_or(String::new(), |b| format!(", {b} bytes per character")),
            evaluated_share.map_or(String::new(), |e| format!(", level of detail: {:.0}% evaluated", e * 100.0))
        ),
    }
    if let (Format::Human, Some(l)) = (args.format, &loads) {
        outln!(
            "baked file: {} clip bytes, loads in {:.2} ms{}",
            l.clip_bytes,
            l.load_ms.baked,
            l.load_ms
                .folder
                .map_or(String::new(), |f| format!(" (the folder: {f:.2} ms, {:.1}x)", f / l.load_ms.baked))
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON result, fields in contract order.
#[derive(Debug, serde::Serialize)]
struct BenchOut<'a> {
    characters: usize,
    joints: usize,
    threads: usize,
    frames: u64,
    ns_per_character_frame: f64,
    ns_per_joint: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes_per_character: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pipeline: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evaluated_share: Option<f64>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    loads: Option<&'a Loads>,
}

/// Indices of the three `--clips` keys; every unknown key is reported.
fn pinned_clips(asset: &GltfAsset, keys: &[String]) -> anyhow::Result<[usize; 3]> {
    if keys.len() != 3 {
        bail!("--clips takes three clips, A,B,C (got {})", keys.len());
    }
    let mut found = [0; 3];
    let mut missing = Vec::new();
    for (slot, key) in found.iter_mut().zip(keys) {
        match asset.clip(key) {
            Some((i, _)) => *slot = i,
            None => missing.push(format!("`{key}`")),
        }
    }
    if !missing.is_empty() {
        bail!("{} has no clip {} ({})", asset.file_name, missing.join(", "), clip_list(asset));
    }
    Ok(found)
}

/// Character `i`: `clips[0]` and `clips[1]` in a 1D blend, `clips[2]` additive.
fn instance(skeleton: &Arc<RuntimeSkeleton>, clips: [Arc<Animation>; 3], i: usize) -> anyhow::Result<ClipPlayer> {
    let [a, b, c] = clips;
    let blend = LayerSource::Tree {
        tree: CompiledBlendTree::one_d(&[0.0, 1.0])?,
        motions: vec![BoundMotion::looping(a), BoundMotion::looping(b)],
        x: (i % 11) as f32 / 10.0,
        y: 0.0,
        clock: SyncClock { phase: (i % 13) as f32 / 13.0 },
        speed: 1.0,
    };
    let additive = LayerSource::Clip { motion: BoundMotion::looping(c), time: (i % 7) as f32 * 0.1, speed: 1.0 };
    let layers = vec![
        Layer::new("blend", blend),
        Layer::new("additive", additive).additive(AdditiveReference::Time(0.0)).with_weight(0.5),
    ];
    Ok(ClipPlayer::new(skeleton.clone(), layers)?)
}
