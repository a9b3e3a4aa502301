//! A crowd: one shared definition, many characters with varied meaning,
//! updated in parallel on a `Team` of worker threads (bit for bit the same
//! result as a serial update), events delivered afterwards. Level of detail:
//! characters far from the camera are evaluated every 2nd, 4th or 8th frame
//! (their pose still moves every frame, and no footstep is lost).
//! `cargo run --release -p zoa-animation --example crowd [CHARACTERS] [DEFS_DIR]`.
use std::time::Instant;

use zoa_animation::prelude::*;

/// Counts footsteps per character (a game would play sounds here).
struct Footsteps(Vec<u32>);

impl CharacterEventReceiver for Footsteps {
    fn on_character_event(&mut self, index: usize, _: &Character, event: &Event) {
        if matches!(event.kind, EventKind::Notify { .. }) && event.name == "Footstep" {
            self.0[index] += 1;
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(500), |a| a.parse())?;
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");
    let soldier = zoa_animation::load(args.next().unwrap_or_else(|| fixture.to_owned()))?;

    let gaits =
        [("locomotion=idle", 0.0), ("locomotion=walk", 1.5), ("locomotion=run", 4.0), ("locomotion=sprint", 6.5)];
    let mut crowd = Crowd::new(Vec::with_capacity(n));
    for k in 0..n {
        let class = (k % 4 == 3).then_some(PlayerProfileType::Rifle);
        let (tags, speed) = gaits[k % gaits.len()];
        let mut c = Character::spawn(&soldier, class, tags.parse()?)?;
        c.set_speed(speed);
        crowd.push(c);
    }
    crowd.stagger_lod(); // characters at the same update rate take turns
    let mut team = Team::new(std::thread::available_parallelism().map_or(1, |p| p.get()))?;
    let mut footsteps = Footsteps(vec![0; n]);

    let start = Instant::now();
    for frame in 0..300usize {
        if frame % 60 == 0 {
            // Every second a quarter of the crowd changes gait, each to its own.
            for (k, c) in crowd.members_mut().iter_mut().enumerate().filter(|(k, _)| (k + frame / 60) % 4 == 0) {
                let (tags, speed) = gaits[(k / 4 + frame / 60) % gaits.len()];
                c.set_tags(tags.parse()?);
                c.set_speed(speed);
            }
        }
        for (k, c) in crowd.iter_mut() {
            // A game would use the distance to the camera and whether it is on screen.
            let distance = (k % 50) as f32; // metres
            c.set_significance(1.0 - distance / 50.0);
        }
        crowd.update_on(&mut team, 1.0 / 60.0)?; // or `update_parallel` (rayon), or `update` (serial)
        crowd.deliver_events(&mut footsteps);
    }
    let ns = start.elapsed().as_nanos() as f64 / (300.0 * n as f64);
    println!(
        "{n} characters × 300 frames: {ns:.0} ns per character-frame; {} footsteps",
        footsteps.0.iter().sum::<u32>()
    );
    Ok(())
}
