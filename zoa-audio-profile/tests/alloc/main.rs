//! Allocation-freedom and bounded memory, proven with a counting global
//! allocator (per thread, so parallel tests do not disturb each other), and
//! the load test: 10 000 triggers per second for 10 simulated seconds.

use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{AudioVariant, CapPolicy, SoundEventEntry, SoundEventId, SoundProfile, SoundThrottle, StateTagSet};
use zoa_audio_profile::{
    ClipBank, ClipData, Player, PlayerConfig, ResolveOptions, SoundTable, TriggerOutcome, VariantHistory,
    pick_variant_index,
};
use zoa_test_support::alloc::{self, CountingAllocator};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations() -> usize {
    alloc::on_this_thread()
}

fn id(s: &str) -> SoundEventId {
    SoundEventId::new(s).unwrap()
}

fn entry(event: &str, filter: &str, surface: Option<&str>, clips: &[&str]) -> SoundEventEntry {
    let mut e = SoundEventEntry::new(id(event), clips[0]);
    e.variants = clips.iter().map(|c| AudioVariant { clip: (*c).into(), weight: 1.0 }).collect();
    e.tag_filter = filter.parse().unwrap();
    e.surface = surface.map(str::to_owned);
    e
}

fn game_table() -> SoundTable {
    let mut step = entry("footstep", "", None, &["step_a", "step_b", "step_c"]);
    step.polyphony_cap = 4;
    step.avoid_repeat = 2;
    step.spatial = true;
    let mut grass = entry("footstep", "", Some("grass"), &["step_a", "step_b"]);
    grass.polyphony_cap = 4;
    grass.cap_policy = CapPolicy::StealQuietest;
    grass.spatial = true;
    let mut fire = entry("weapon.fire", "combat=armed_rifle", None, &["shot_a", "shot_b"]);
    fire.polyphony_cap = 6;
    fire.cap_policy = CapPolicy::StealQuietest;
    fire.cooldown = 0.05;
    fire.spatial = true;
    fire.priority = 10;
    fire.volume_jitter = 0.2;
    fire.pitch_jitter_semitones = 1.0;
    let mut hurt = entry("vocal.hurt", "", None, &["hurt"]);
    hurt.cooldown = 0.5;
    hurt.cooldown_global = true;
    hurt.polyphony_cap = 2;
    hurt.cap_policy = CapPolicy::Reject;
    let mut breath = entry("vocal.breath", "mood=exhausted", None, &["loop"]);
    breath.looping = true;
    breath.fade_time = 0.05;
    breath.polyphony_cap = 3;
    breath.cap_policy = CapPolicy::Reject;
    let mut dry = entry("weapon", "", None, &["shot_a"]);
    dry.polyphony_cap = 4;
    // Everything under weapon.fire shares 6 voices, 100 starts a second and 2 ms between starts.
    let throttle = SoundThrottle {
        max_voices: 6,
        max_starts_per_second: 100,
        cooldown: 0.002,
        ..SoundThrottle::new(id("weapon.fire"))
    };
    let profile = SoundProfile {
        id: "load".into(),
        entries: vec![step, grass, fire, hurt, breath, dry],
        throttles: vec![throttle],
        ..Default::default()
    };
    SoundTable::from_profile(&profile).unwrap()
}

fn bank() -> ClipBank {
    let mut b = ClipBank::new();
    let tone = |hz: f32, seconds: f32, rate: u32| {
        let n = (seconds * rate as f32) as usize;
        ClipData::new(
            1,
            rate,
            (0..n).map(|i| (i as f32 * hz / rate as f32 * std::f32::consts::TAU).sin() * 0.2).collect(),
        )
        .unwrap()
    };
    b.insert("step_a", tone(200.0, 0.12, 24_000));
    b.insert("step_b", tone(230.0, 0.14, 24_000));
    b.insert("step_c", tone(260.0, 0.10, 48_000));
    b.insert("shot_a", tone(80.0, 0.30, 24_000));
    b.insert("shot_b", tone(90.0, 0.35, 24_000));
    b.insert("hurt", tone(330.0, 0.40, 24_000));
    b.insert("loop", tone(110.0, 1.00, 24_000));
    b
}

#[test]
fn resolve_and_pick_do_not_allocate() {
    let table = game_table();
    let events: Vec<SoundEventId> =
        ["footstep", "footstep.left", "weapon.fire", "weapon.fire.dryclick", "vocal.hurt", "land"].map(id).to_vec();
    let states: Vec<StateTagSet> =
        ["", "combat=armed_rifle", "mood=exhausted locomotion=run"].iter().map(|s| s.parse().unwrap()).collect();
    let variants = table.entry(0).variants.clone();
    let mut history = VariantHistory::new();
    let before = allocations();
    let mut hits = 0usize;
    for k in 0..20_000 {
        let e = events[k % events.len()];
        let s = states[k % states.len()];
        let surface = if k % 2 == 0 { Some("grass") } else { None };
        for hierarchical in [true, false] {
            if table.resolve(e, s, surface, ResolveOptions { hierarchical }).is_some() {
                hits += 1;
            }
        }
        hits += pick_variant_index(&variants, (k % 100) as f32 / 100.0).unwrap();
        hits += history.pick(&variants, (k % 37) as f32 / 37.0, 2).unwrap();
    }
    assert_eq!(allocations() - before, 0, "resolve / pick allocated");
    assert!(hits > 0);
}

/// 10 000 triggers per second for 10 simulated seconds across 8 emitters:
/// caps, cooldowns and the prefix throttle hold at every step, the counters add up, and nothing
/// is allocated after construction (memory is bounded by construction).
#[test]
fn load_ten_thousand_triggers_per_second() {
    const RATE: u32 = 48_000;
    const SECONDS: usize = 10;
    const STEPS_PER_SECOND: usize = 1000; // 1 ms steps
    const TRIGGERS_PER_STEP: usize = 10; // → 10 000 triggers per second
    let config = PlayerConfig { max_voices: 32, max_emitters: 8, sample_rate: RATE, ..PlayerConfig::default() };
    let mut player = Player::new(game_table(), bank(), config).unwrap();
    let emitters: Vec<_> =
        (0..8).map(|i| player.add_emitter(Vec3::new(i as f32 * 3.0 - 12.0, 0.0, -5.0)).unwrap()).collect();
    let events = [id("footstep"), id("weapon.fire"), id("vocal.hurt"), id("vocal.breath"), id("weapon.fire.dryclick")];
    let states: [StateTagSet; 3] =
        ["combat=armed_rifle", "mood=exhausted", "locomotion=run"].map(|s| s.parse().unwrap());
    let caps: Vec<usize> = (0..player.table().len()).map(|e| player.table().entry(e).polyphony_cap as usize).collect();
    let mut out = vec![0.0f32; (RATE as usize / STEPS_PER_SECOND) * 2];
    let mut started_per_entry = [0u64; 6];
    let mut peak = 0.0f32;

    let before = allocations();
    for step in 0..SECONDS * STEPS_PER_SECOND {
        for k in 0..TRIGGERS_PER_STEP {
            let n = step * TRIGGERS_PER_STEP + k;
            let em = emitters[n % emitters.len()];
            let surface = if n.is_multiple_of(3) { Some("grass") } else { None };
            let o = player.trigger(Some(em), events[n % events.len()], states[(n / 5) % 3], surface);
            if let TriggerOutcome::Started { entry, .. } = o {
                started_per_entry[entry] += 1;
            }
        }
        if step % 50 == 0 {
            let em = emitters[step % emitters.len()];
            player.stop_event(Some(em), id("vocal.breath"));
            player.set_emitter_position(em, Vec3::new((step % 17) as f32, 0.0, -3.0)).unwrap();
        }
        player.render(&mut out);
        for (e, &cap) in caps.iter().enumerate() {
            if cap > 0 {
                assert!(player.live_voices_of(e) <= cap, "entry {e} over its cap at step {step}");
            }
        }
        assert!(player.active_voices() <= 32);
        peak = out.iter().fold(peak, |m, s| m.max(s.abs()));
    }
    let allocated = allocations() - before;
    assert_eq!(allocated, 0, "the player allocated during the load test");

    let s = player.stats();
    assert_eq!(s.triggers, (SECONDS * STEPS_PER_SECOND * TRIGGERS_PER_STEP) as u64);
    assert_eq!(s.started + s.dropped_cooldown + s.throttled + s.rejected + s.no_match, s.triggers);
    let t = player.throttle_stats()[0];
    assert!(t.dropped() > 0 && t.dropped() == s.throttled, "{t:?}");
    assert!(t.started <= 100 * SECONDS as u64, "at most 100 weapon.fire.* starts a second: {}", t.started);
    assert!(t.peak_voices <= 6);
    assert!(s.peak_voices <= 32);
    assert!(s.dropped_cooldown > 0 && s.stolen > 0 && s.rejected > 0, "{s:?}");
    // Global 0.5 s cooldown on vocal.hurt: at most one start per 0.5 s.
    assert!(started_per_entry[3] <= (SECONDS as u64) * 2 + 1, "hurt started {}", started_per_entry[3]);
    // Per-emitter 50 ms cooldown on weapon.fire: at most 8 emitters × 20 per second.
    assert!(started_per_entry[2] <= 8 * (SECONDS as u64 * 20 + 1), "fire started {}", started_per_entry[2]);
    assert!(started_per_entry[2] > 0);
    assert!(peak.is_finite() && peak > 0.0);
}
