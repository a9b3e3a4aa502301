//! A crowd through the public character API: one shared definition, many
//! characters with varied meaning, updated in parallel on a `Team` of worker
//! threads (the same result, bit for bit, as a serial update or rayon's
//! `update_parallel`), events delivered after.
//!
//! `cargo run --release --example crowd [CHARACTERS] [DEFS_DIR]` (default 500 on the fixture humanoid).

use std::path::PathBuf;
use std::time::Instant;

use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::load_folder;
use zoa_anim_core::{DefaultBindings, PlayerProfileType, StateTagSet};
use zoa_anim_runtime::character::{CharacterEvent, CharacterEventReceiver};
use zoa_anim_runtime::{Character, CharacterCrowd, CharacterDefinition, CharacterSettings, Team};

/// Counts footstep notifies per character (a game would play sounds here).
struct Footsteps(Vec<u32>);

impl CharacterEventReceiver for Footsteps {
    fn on_character_event(&mut self, index: usize, c: &Character, e: &CharacterEvent) {
        if c.event_name(e).and_then(|n| n.get(..4)).is_some_and(|p| p.eq_ignore_ascii_case("foot")) {
            self.0[index] += 1;
        }
    }
}

/// Forward speed as meaning: the entity speed (gait thresholds) and both
/// bindings a class may move on (unarmed blends on `speed`, the rifle strafes
/// on `move_y`); a binding the class lacks is a no-op.
fn set_speed(c: &mut Character, speed: f32) {
    c.set_entity_speed(speed);
    c.set_float(DefaultBindings::SPEED, speed);
    c.set_float(DefaultBindings::MOVE_Y, speed);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(500), |a| a.parse())?;
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");
    let dir = args.next().map_or_else(|| PathBuf::from(fixture), PathBuf::from);

    let set = load_folder(&dir);
    let bundle = load_character(&set, &dir, CharacterChoice::default()).map_err(|p| format!("{p:?}"))?;
    let def = CharacterDefinition::new(&bundle, CharacterSettings::default())?;

    let states: Vec<(StateTagSet, f32)> =
        [("locomotion=idle", 0.0), ("locomotion=walk", 1.5), ("locomotion=run", 4.0), ("locomotion=sprint", 6.5)]
            .into_iter()
            .map(|(t, s)| Ok((t.parse()?, s)))
            .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    let mut characters = Vec::with_capacity(n);
    for k in 0..n {
        let class = (k % 4 == 3).then_some(PlayerProfileType::Rifle);
        let (tags, speed) = states[k % states.len()];
        let mut c = Character::spawn(&def, class, tags)?;
        set_speed(&mut c, speed);
        characters.push(c);
    }
    let mut crowd = CharacterCrowd::new(characters);
    let mut footsteps = Footsteps(vec![0; n]);

    // One thread per core, the calling thread included; the workers spin
    // briefly between frames, then park.
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get());
    let mut team = Team::new(threads)?;

    let dt = 1.0 / 60.0;
    let start = Instant::now();
    for frame in 0..300usize {
        // Gameplay: every second, a quarter of the crowd changes gait (each to its own).
        if frame % 60 == 0 {
            let second = frame / 60;
            for (k, c) in crowd.characters_mut().iter_mut().enumerate().filter(|(k, _)| (k + second) % 4 == 0) {
                let (tags, speed) = states[(k / 4 + second) % states.len()];
                c.set_tags(tags);
                set_speed(c, speed);
            }
        }
        crowd.update_on(&mut team, dt)?; // or `crowd.update_parallel(dt)` on rayon's current pool
        crowd.deliver_events(&mut footsteps);
    }
    let elapsed = start.elapsed();
    println!(
        "{n} characters x 300 frames in {:.2} s ({:.0} ns per character-frame on {} threads); {} footsteps",
        elapsed.as_secs_f64(),
        elapsed.as_nanos() as f64 / (300.0 * n as f64),
        team.members(),
        footsteps.0.iter().sum::<u32>()
    );
    Ok(())
}
