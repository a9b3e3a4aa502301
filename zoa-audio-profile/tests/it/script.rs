use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{AudioBusId, CapPolicy, Rolloff, SoundEventEntry, StateTagSet};
use zoa_audio_profile::{
    ClipBank, Listener, Player, PlayerConfig, Script, ScriptAction, ScriptEvent, TriggerOutcome, render_script,
};

use crate::common::{entry, id, profile, variants, workspace_root};
use zoa_audio_profile::SoundTable;

/// The fixture profile in code (the CLI test uses the same in TOML).
fn fixture_entries() -> Vec<SoundEventEntry> {
    let spatial = |mut e: SoundEventEntry| {
        e.spatial = true;
        e.rolloff = Rolloff::Inverse;
        e.max_distance = 30.0;
        e
    };
    let mut fire = spatial(entry("weapon.fire", "", None, "rifle_fire_1.wav"));
    fire.variants = variants(&["rifle_fire_1.wav", "rifle_fire_2.wav"]);
    fire.cooldown = 0.5;
    fire.polyphony_cap = 2;
    fire.cap_policy = CapPolicy::StealOldest;
    fire.avoid_repeat = 1;
    let mut hurt = spatial(entry("vocal.hurt", "", None, "hurt_1.wav"));
    hurt.cooldown = 1.0;
    let mut wind = entry("ambience.wind", "", None, "breath_loop.wav");
    wind.looping = true;
    wind.fade_time = 0.2;
    wind.bus = AudioBusId::from_static("ambience");
    vec![
        spatial(entry("footstep", "", Some("grass"), "footstep_grass_1.wav")),
        spatial(entry("footstep", "", Some("metal"), "footstep_metal_1.wav")),
        spatial(entry("footstep", "", None, "footstep_concrete_1.wav")),
        fire,
        spatial(entry("weapon.fire.dryclick", "", None, "dryclick_1.wav")),
        hurt,
        wind,
    ]
}

fn ev(time: f64, event: &str, pos: [f32; 3], surface: Option<&str>) -> ScriptEvent {
    ScriptEvent {
        time,
        event: id(event),
        emitter: "hero".into(),
        position: Some(Vec3::from_array(pos)),
        action: ScriptAction::Trigger { state: StateTagSet::EMPTY, surface: surface.map(str::to_owned) },
    }
}

#[test]
fn scripted_render_is_audible_and_cooled_down_triggers_are_silent() {
    let table = SoundTable::from_profile(&profile("fixture", None, fixture_entries())).unwrap();
    let bank = ClipBank::load_for_table(&table, &workspace_root().join("fixtures/sounds")).unwrap();
    let mut player = Player::new(table, bank, PlayerConfig::default()).unwrap();
    let mut stop = ev(4.0, "ambience.wind", [0.0; 3], None);
    stop.action = ScriptAction::Stop;
    let script = Script {
        events: vec![
            ev(0.0, "footstep", [1.0, 0.0, -1.0], Some("grass")),
            ev(1.0, "weapon.fire", [0.0, 0.0, -2.0], None),
            ev(1.3, "weapon.fire", [0.0, 0.0, -2.0], None),
            ev(2.0, "weapon.fire.dryclick", [0.0, 0.0, -2.0], None),
            ev(2.5, "vocal.hurt", [-3.0, 0.0, 0.0], None),
            ev(3.0, "ambience.wind", [0.0; 3], None),
            stop,
        ],
        listener: Listener::default(),
        length: Some(4.5),
    };
    let r = render_script(&mut player, &script).unwrap();
    assert_eq!(r.frames(), 216_000);
    let at = |s: f64| r.frame_at(s);
    assert!(r.rms(at(0.0), at(0.14)) > 0.01, "footstep audible");
    assert!(r.rms(at(1.0), at(1.3)) > 0.01, "first shot audible");
    assert!(matches!(r.events[2].outcome, Some(TriggerOutcome::DroppedCooldown { entry: 3 })));
    assert_eq!(r.rms(at(1.31), at(1.99)), 0.0, "the cooled-down shot produced silence");
    assert!(r.rms(at(2.0), at(2.03)) > 0.001, "dry click audible");
    // The hurt vocal is on the left.
    let (mut left, mut right) = (0.0f64, 0.0f64);
    for f in at(2.5)..at(2.9) {
        left += (r.samples[2 * f] as f64).powi(2);
        right += (r.samples[2 * f + 1] as f64).powi(2);
    }
    assert!(left > 10.0 * right, "left {left} right {right}");
    assert!(r.rms(at(3.3), at(4.0)) > 0.05, "wind loop audible");
    assert!(r.rms(at(4.0), at(4.1)) < r.rms(at(3.8), at(3.9)), "wind fading out");
    assert_eq!(r.rms(at(4.21), r.frames()), 0.0, "silent after the fade");
    assert_eq!(r.events[6].stopped, 1);
    let s = r.stats;
    assert_eq!((s.started, s.dropped_cooldown, s.rejected, s.no_match), (5, 1, 0, 0));
}

#[test]
fn bad_scripts_are_errors() {
    let table = SoundTable::from_profile(&profile("fixture", None, vec![entry("land", "", None, "x")])).unwrap();
    let mut bank = ClipBank::new();
    bank.insert("x", crate::common::dc(0.5, 0.1, 48_000));
    let mut player = Player::new(table, bank, PlayerConfig::default()).unwrap();
    let mut script = Script { events: vec![ev(-1.0, "land", [0.0; 3], None)], ..Script::default() };
    assert!(render_script(&mut player, &script).is_err());
    script.events[0].time = 0.0;
    script.length = Some(1e9);
    assert!(render_script(&mut player, &script).is_err());
}
