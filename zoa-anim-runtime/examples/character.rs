//! One character, frame by frame, through the public character API only:
//! load a definition folder, compile the definition once, spawn a character,
//! then each frame set meaning (tags, bindings, speed), update, read the
//! skinning matrices and deliver the events.
//!
//! `cargo run --example character [DEFS_DIR]` (default: the fixture humanoid).

use std::path::PathBuf;

use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::load_folder;
use zoa_anim_core::DefaultBindings;
use zoa_anim_runtime::character::{CharacterEvent, CharacterEventKind, CharacterEventReceiver};
use zoa_anim_runtime::{Character, CharacterDefinition, CharacterSettings};

/// Prints every event with its time and name (a game would start sounds, VFX, gameplay).
struct Print;

impl CharacterEventReceiver for Print {
    fn on_character_event(&mut self, _index: usize, c: &Character, e: &CharacterEvent) {
        let kind = format!("{:?}", e.kind);
        let kind = kind.split([' ', '{']).next().unwrap_or_default();
        let name = c.event_name(e).unwrap_or("");
        match e.kind {
            // A binding's action: which binding, and start / complete / cancel.
            CharacterEventKind::Binding { binding, .. } => {
                println!("  {:6.3} s  {kind:<18} {} {name}", e.time, binding.as_str())
            }
            _ => println!("  {:6.3} s  {kind:<18} {name}", e.time),
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/defs/humanoid");
    let dir = std::env::args().nth(1).map_or_else(|| PathBuf::from(fixture), PathBuf::from);

    // Set-up, once per kind of character (shareable: an `Arc`).
    let set = load_folder(&dir);
    let bundle = load_character(&set, &dir, CharacterChoice::default()).map_err(|p| format!("{p:?}"))?;
    let def = CharacterDefinition::new(&bundle, CharacterSettings::default())?;

    // Spawn: every buffer is sized here; frames allocate nothing.
    let mut hero = Character::new(&def)?;

    // Gameplay script: (time, tags, entity speed in m/s).
    let script = [
        (0.0, "locomotion=idle posture=standing", 0.0),
        (1.0, "locomotion=walk posture=standing", 1.5),
        (2.0, "locomotion=sprint posture=standing", 6.5),
        (3.0, "locomotion=idle reaction=hit", 0.0),
    ];
    let dt = 1.0 / 60.0;
    for frame in 0..=270 {
        let t = frame as f32 * dt;
        // Gameplay side: meaning, never clip or parameter names.
        if let Some((_, tags, speed)) = script.iter().find(|(at, ..)| (t - at).abs() < dt / 2.0) {
            hero.set_tags(tags.parse()?);
            hero.set_entity_speed(*speed);
            hero.set_float(DefaultBindings::SPEED, *speed);
            if tags.contains("reaction=hit") {
                hero.fire(DefaultBindings::HIT); // releases the event-triggered reaction
            }
        }
        // Engine side: advance and evaluate, deliver the events, hand the matrices to the renderer.
        hero.update(dt)?;
        hero.deliver_events(0, &mut Print);
        let skin = hero.skinning_matrices();
        if frame % 30 == 0 {
            let clip = hero.selector().and_then(|s| s.current_clip()).map(|id| def.clips().get(id).name.as_str());
            let hips = hero.model_matrices()[def.root_joint()].w_axis;
            println!(
                "{t:5.2} s  selector {:<10} graph {:<10} root y {:.3} m  ({} skinning matrices)",
                clip.unwrap_or("-"),
                hero.graph_instance().current_state_name(0).unwrap_or("-"),
                hips.y,
                skin.len()
            );
        }
    }
    Ok(())
}
