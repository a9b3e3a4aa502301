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
/// sampling cursors per clip, poses, matrices, IK state, event queue):
/// measured on the fixture humanoid (55 joints, 14 clips) at about 60 KiB.
fn bytes_per_character(joints: usize, clips: usize) -> u64 {
    8192 + joints as u64 * (384 + 48 * clips as u64)
}

/// What one run measured.
pub(super) struct Measured {
    pub joints: usize,
    pub frames: u64,
    pub elapsed: Duration,
    /// Heap bytes the crowd holds per character after its frames (see
    /// [`super::held_per_character`]).
    pub bytes_per_character: Option<u64>,
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
        characters.push(c);
    }
    let mut crowd = Crowd::new(characters);
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
        Ok(())
    })?;
    let bytes_per_character = super::held_per_character(before, n);
    drop(crowd);
    Ok(Measured { joints, frames, elapsed, bytes_per_character })
}
