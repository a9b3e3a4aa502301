//! One character driven by meaning: load a definition folder, walk → run →
//! sprint, fire and reload with a rifle, read the skinning matrices, print
//! the events. `cargo run -p zoa-animation --example character [DEFS_DIR]`.
use zoa_animation::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");
    let dir = std::env::args().nth(1).unwrap_or_else(|| fixture.to_owned());
    let soldier = zoa_animation::load(dir)?; // every problem of the folder, located
    let mut hero = Character::new(&soldier)?; // every buffer sized here: frames allocate nothing

    // (second, tags, speed in m/s): gameplay says what the entity does, never a clip name.
    let script = [(0, "locomotion=walk", 1.5), (1, "locomotion=run", 4.0), (2, "locomotion=sprint", 6.5)];
    for frame in 0..300 {
        let second = frame / 60;
        if frame % 60 == 0
            && let Some(&(_, tags, speed)) = script.iter().find(|s| s.0 == second)
        {
            hero.set_tags(tags.parse()?);
            hero.set_speed(speed);
        }
        if frame == 180 {
            hero.equip(PlayerProfileType::Rifle);
            hero.fire(DefaultBindings::FIRE);
        }
        if frame == 210 {
            hero.fire(DefaultBindings::RELOAD);
            println!("{}", hero.explain()); // what it shows, and why
        }
        hero.update(1.0 / 60.0)?;
        let _skin = hero.skinning_matrices(); // to the renderer
        for event in hero.events() {
            println!("{event}"); // `2.350 s notify Footstep`
        }
        hero.clear_events();
    }
    Ok(())
}
