//! `zoa-anim bench --defs DIR`: the full character pipeline (driver,
//! selector, graph, slot, pose, IK, local-to-model, skinning, events) on a
//! crowd built from a definition folder through the public character API.
//!
//! Character `k` spawns in a class of the player set (every third one in
//! the second class, when there is one) with one of five states (idle, walk,
//! sprint, hit reaction, crouched run) and a matching entity speed, on flat
//! ground with a look target. Each frame, before the crowd updates, a fixed
//! schedule (period 97 frames, offset per character) fires `hit`, `reload`
//! and `jump`, plays the `hit_react` slot, changes tags and speed, toggles
//! `is_grounded` and `is_aiming`, and moves the look target; after the
//! update the events are delivered. Gameplay calls, update and delivery are
//! all timed, as a game pays for all three.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::load_folder;
use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{DefaultBindings, DefaultSlots, StateTagSet};
use zoa_anim_ik::FlatGround;
use zoa_anim_runtime::character::{CharacterEvent, CharacterEventReceiver};
use zoa_anim_runtime::{Character, CharacterCrowd, CharacterDefinition, CharacterSettings};

use crate::output::fail;

const TAGS: [&str; 5] = [
    "locomotion=idle posture=standing",
    "locomotion=walk mood=calm",
    "locomotion=sprint",
    "locomotion=idle reaction=hit",
    "locomotion=run posture=crouching",
];
const SPEEDS: [f32; 5] = [0.0, 1.5, 6.5, 0.0, 4.0];

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
}

/// Counts delivered events (a game would dispatch them).
struct Count(u64);

impl CharacterEventReceiver for Count {
    fn on_character_event(&mut self, _character: usize, _source: &Character, _event: &CharacterEvent) {
        self.0 += 1;
    }
}

/// Builds the crowd from `dir` and runs frames on `pool` for `budget`.
pub(super) fn run(
    dir: &Path,
    profile_set: Option<&str>,
    n: usize,
    pool: &rayon::ThreadPool,
    budget: Duration,
) -> anyhow::Result<Measured> {
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
    let def = match CharacterDefinition::new(&bundle, CharacterSettings::default()) {
        Ok(d) => d,
        Err(e) => return Err(fail(1, "invalid-input", format!("the runtime rejects the definitions: {e}")).into()),
    };
    let joints = def.skeleton().joint_count();
    super::check_crowd_budget(n, joints, bytes_per_character(joints, def.clips().clips().len()))?;
    let classes: Vec<_> = def.player_set().map(|s| s.profiles.iter().map(|e| e.class).collect()).unwrap_or_default();
    let parsed: Vec<StateTagSet> = TAGS.iter().map(|t| t.parse().expect("valid tags")).collect();
    let ground = Arc::new(FlatGround { height: 0.0, normal: Vec3::Y });
    let mut characters = Vec::with_capacity(n);
    for k in 0..n {
        let class = classes.get(usize::from(k % 3 == 1)).or(classes.first()).copied();
        let mut c = Character::spawn(&def, class, parsed[k % TAGS.len()])?;
        c.set_ground(Some(ground.clone()));
        c.set_look_target(Some(Vec3::new(k as f32 * 0.3 - 1.0, 1.6, 2.0)));
        set_speed(&mut c, SPEEDS[k % SPEEDS.len()]);
        characters.push(c);
    }
    let mut crowd = CharacterCrowd::new(characters);
    let mut events = Count(0);
    let dt = 1.0 / 60.0;
    let (frames, elapsed) = pool.install(|| -> anyhow::Result<(u64, Duration)> {
        // Warm-up: caches, cursors, worker start-up.
        crowd.update_parallel(dt)?;
        crowd.deliver_events(&mut events);
        let start = Instant::now();
        let mut frames = 0u64;
        loop {
            drive(&mut crowd, frames as usize, &parsed);
            crowd.update_parallel(dt)?;
            crowd.deliver_events(&mut events);
            frames += 1;
            if start.elapsed() >= budget {
                return Ok((frames, start.elapsed()));
            }
        }
    })?;
    Ok(Measured { joints, frames, elapsed })
}

/// Forward speed: the entity speed and the bindings either class moves on
/// (unarmed `speed`, rifle `move_y`; the one a class lacks is a no-op).
fn set_speed(c: &mut Character, speed: f32) {
    c.set_entity_speed(speed);
    c.set_float(DefaultBindings::SPEED, speed);
    c.set_float(DefaultBindings::MOVE_Y, speed);
}

/// Gameplay input for frame `f` (the same for every run).
fn drive(crowd: &mut CharacterCrowd, f: usize, parsed: &[StateTagSet]) {
    for (k, c) in crowd.characters_mut().iter_mut().enumerate() {
        match (f + k) % 97 {
            10 => c.fire(DefaultBindings::HIT),
            20 => c.fire(DefaultBindings::RELOAD),
            30 => {
                c.play_slot(DefaultSlots::HIT_REACT);
            }
            40 => c.set_tags(parsed[(f / 97 + k) % parsed.len()]),
            50 => {
                set_speed(c, SPEEDS[(f / 97 + k) % SPEEDS.len()]);
            }
            60 => c.fire(DefaultBindings::JUMP),
            61 => c.set_bool(DefaultBindings::IS_GROUNDED, false),
            75 => c.set_bool(DefaultBindings::IS_GROUNDED, true),
            80 => c.set_bool(DefaultBindings::IS_AIMING, k % 2 == 0),
            _ => {}
        }
        c.set_look_target(Some(Vec3::new((f as f32 * 0.05 + k as f32).sin(), 1.6, 2.0)));
    }
}
