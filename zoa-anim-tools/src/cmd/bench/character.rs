//! `zoa-anim bench --defs DIR`: the full character pipeline (driver,
//! selector, graph, slot, pose, IK, local-to-model, skinning, events) on a
//! crowd built from a definition folder through the public character API.
//!
//! The crowd runs the runtime's fixed workload
//! (`zoa_anim_runtime::character::CrowdWorkload`, the one the crowd tests
//! check): each character spawns in a class and state of its own with a
//! matching speed, on flat ground with a look target, and each frame, before
//! the crowd updates, a fixed schedule fires triggers, plays a slot, changes
//! tags, speed and flags and moves the look target; after the update the
//! events are delivered. Gameplay calls, update and delivery are all timed,
//! as a game pays for all three.
//!
//! `--lod` turns the level of detail on with a fixed spread: the crowd stands
//! evenly over a disc around the camera (character `k` at distance
//! `r = sqrt(frac(k·φ))` of the radius, φ the golden ratio, so equal areas
//! hold equal numbers of characters), its significance `1 − r`, its LOD phase
//! its index. With the default [`LodSettings`](zoa_anim_runtime::character::LodSettings)
//! that is 25% of the crowd every frame, 31% every 2nd, 25% every 4th and
//! 19% every 8th frame (IK and procedural motion off for the last two): about
//! half the character-frames are evaluated.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::load_folder;
use zoa_anim_core::glam::Vec3;
use zoa_anim_ik::FlatGround;
use zoa_anim_runtime::character::{CharacterEventReceiver, CrowdWorkload, Event};
use zoa_anim_runtime::{Character, CharacterDefinition, CharacterSettings, Crowd};

use super::Workers;
use crate::output::fail;

/// Estimated bytes one character takes (graph instances, selector, frames,
/// sampling cursors per clip, poses, matrices, IK state, event queues):
/// measured on the fixture humanoid (55 joints, 14 clips) at 34.8 KB
/// (`bytes_per_character` in the JSON); this estimate gives 37.4 KB there
/// (and 22 KB for the Fox definition of `many_foxes`, measured 15.1 KB), so
/// the crowd budget check errs on the safe side.
fn bytes_per_character(joints: usize, clips: usize) -> u64 {
    12288 + joints as u64 * (400 + 4 * clips as u64)
}

/// What one run measured.
pub(super) struct Measured {
    pub joints: usize,
    pub frames: u64,
    pub elapsed: Duration,
    /// Heap bytes the crowd holds per character after its frames (see
    /// [`super::held_per_character`]).
    pub bytes_per_character: Option<u64>,
    /// With `--lod`: the share of character-frames evaluated.
    pub evaluated_share: Option<f64>,
}

impl Measured {
    /// What the report prints.
    pub(super) fn timing(&self) -> super::Timing {
        super::Timing {
            joints: self.joints,
            frames: self.frames,
            elapsed: self.elapsed,
            bytes: self.bytes_per_character,
            evaluated_share: self.evaluated_share,
        }
    }
}

/// Counts delivered events (a game would dispatch them).
struct Count(u64);

impl CharacterEventReceiver for Count {
    fn on_character_event(&mut self, _character: usize, _source: &Character, _event: &Event) {
        self.0 += 1;
    }
}

/// Where the crowd's definition comes from.
pub(super) enum Source<'a> {
    /// A definition folder (checked and compiled from TOML and glTF).
    Folder(&'a Path),
    /// A baked file (`zoa-anim bake`).
    Baked(&'a Path),
}

/// The definition of `dir`, as the bench has always built it.
fn folder_definition(dir: &Path, profile_set: Option<&str>) -> anyhow::Result<Arc<CharacterDefinition>> {
    if !dir.is_dir() {
        return Err(fail(2, "io", format!("`{}` is not a folder (or cannot be reached)", dir.display()))
            .at(dir)
            .into());
    }
    let set = load_folder(dir);
    let choice = CharacterChoice { player_set: profile_set, ..CharacterChoice::default() };
    let bundle = match load_character(&set, dir, choice) {
        Ok(b) => b,
        Err(problems) => {
            let lines = problems.iter().map(ToString::to_string).collect();
            return Err(crate::output::fail_all(1, "invalid-input", lines).into());
        }
    };
    match CharacterDefinition::new(&bundle, CharacterSettings::default()) {
        Ok(d) => Ok(d),
        Err(e) => Err(fail(1, "invalid-input", format!("the runtime rejects the definitions: {e}")).into()),
    }
}

/// The definition of a baked file.
pub(super) fn baked_definition(file: &Path, profile_set: Option<&str>) -> anyhow::Result<Arc<CharacterDefinition>> {
    let mut loader = zoa_animation::Loader::new();
    if let Some(id) = profile_set {
        loader = loader.player_set(id);
    }
    loader.load_baked(file).map_err(|e| {
        let code = if matches!(&e, zoa_animation::LoadError::Baked { problem: Some(_), .. }) { 1 } else { 2 };
        fail(code, if code == 1 { "invalid-input" } else { "io" }, e.to_string()).at(file).into()
    })
}

/// Builds the crowd from `source` and runs frames on `workers` for `budget`.
pub(super) fn run(
    source: Source<'_>,
    profile_set: Option<&str>,
    n: usize,
    lod: bool,
    workers: &mut Workers,
    budget: Duration,
) -> anyhow::Result<Measured> {
    let def = match source {
        Source::Folder(dir) => folder_definition(dir, profile_set)?,
        Source::Baked(file) => baked_definition(file, profile_set)?,
    };
    let joints = def.skeleton().joint_count();
    super::check_crowd_budget(n, joints, bytes_per_character(joints, def.clips().clips().len()))?;
    let workload = CrowdWorkload::new();
    let ground = Arc::new(FlatGround { height: 0.0, normal: Vec3::Y });
    let before = crate::alloc_meter::live_bytes();
    let mut characters = Vec::with_capacity(n);
    for k in 0..n {
        let mut c = Character::spawn(&def, workload.class(&def, k), workload.start_tags(k))?;
        c.set_ground(Some(ground.clone()));
        workload.prepare(k, &mut c);
        if lod {
            c.set_significance(disc_significance(k));
        }
        characters.push(c);
    }
    let mut crowd = Crowd::new(characters);
    if lod {
        crowd.stagger_lod();
    }
    let (mut evaluated, mut updated) = (0u64, 0u64);
    let mut events = Count(0);
    let dt = 1.0 / 60.0;
    let (frames, elapsed) = workers.time_frames(budget, |team, frame| {
        // The warm-up frame (`None`) keeps the spawned inputs.
        if let Some(frame) = frame {
            workload.drive(&mut crowd, frame as usize);
        }
        match team {
            Some(team) => crowd.update_on(team, dt)?,
            None => crowd.update_parallel(dt)?,
        }
        crowd.deliver_events(&mut events);
        if lod && frame.is_some() {
            evaluated += crowd.lod_counts().0 as u64;
            updated += crowd.len() as u64;
        }
        Ok(())
    })?;
    let bytes_per_character = super::held_per_character(before, n);
    drop(crowd);
    let evaluated_share = lod.then(|| evaluated as f64 / updated.max(1) as f64);
    Ok(Measured { joints, frames, elapsed, bytes_per_character, evaluated_share })
}

/// Character `k`'s significance in the `--lod` spread: `1 − r`, `r` its
/// distance from the camera as a share of the disc's radius, the crowd even
/// over the disc's area (see the module docs).
fn disc_significance(k: usize) -> f32 {
    const GOLDEN: f64 = 0.618_033_988_749_894_9;
    let area = (k as f64 * GOLDEN).fract();
    (1.0 - area.sqrt()) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lod_spread_is_even_over_the_disc() {
        let settings = zoa_anim_runtime::character::LodSettings::default();
        let mut at = [0usize; 9];
        for k in 0..10_000 {
            let s = disc_significance(k);
            assert!((0.0..=1.0).contains(&s));
            at[usize::from(settings.rate_for(s))] += 1;
        }
        // Shares of the disc: r < 0.5, 0.5..0.75, 0.75..0.9, beyond.
        let share = |n: usize| n as f64 / 10_000.0;
        assert!((share(at[1]) - 0.25).abs() < 0.01, "{at:?}");
        assert!((share(at[2]) - 0.3125).abs() < 0.01, "{at:?}");
        assert!((share(at[4]) - 0.2475).abs() < 0.01, "{at:?}");
        assert!((share(at[8]) - 0.19).abs() < 0.01, "{at:?}");
    }
}
