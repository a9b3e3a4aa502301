//! Resolve cost over tables of growing size, with and without hierarchical
//! fallback, plus one trigger-and-render step of the player.

use zoa_anim_core::{AudioVariant, SoundEventEntry, SoundEventId, SoundProfile, StateTagSet};
use zoa_audio_profile::{ClipBank, ClipData, Player, PlayerConfig, ResolveOptions, SoundTable};

fn main() {
    divan::main();
}

const EVENTS: [&str; 8] =
    ["footstep", "land", "vocal.hurt", "vocal.effort", "weapon.fire", "weapon.reload", "weapon.equip", "foley.cloth"];
const FLAGS: [&str; 8] = [
    "locomotion=run",
    "mood=alert",
    "combat=armed_rifle",
    "posture=standing",
    "combat=aiming",
    "mood=wounded",
    "posture=crouching",
    "locomotion=walk",
];
const SURFACES: [Option<&str>; 3] = [None, Some("grass"), Some("metal")];

/// `n` entries with distinct (event, filter, surface) keys: the event cycles
/// fastest, then the surface, then the filter bits.
fn table(n: usize) -> SoundTable {
    let entries = (0..n)
        .map(|i| {
            let k = i / EVENTS.len();
            let bits = k / SURFACES.len();
            let mut e = SoundEventEntry::new(SoundEventId::new(EVENTS[i % EVENTS.len()]).unwrap(), "a.wav");
            e.tag_filter = (0..FLAGS.len())
                .filter(|b| bits & (1 << b) != 0)
                .fold(StateTagSet::EMPTY, |acc, b| acc.union_with(&FLAGS[b].parse().unwrap()));
            e.surface = SURFACES[k % SURFACES.len()].map(str::to_owned);
            e.weight = (i % 3) as f32;
            e.variants.push(AudioVariant { clip: "a.wav".into(), weight: 2.0 });
            e
        })
        .collect();
    SoundTable::from_profile(&SoundProfile { id: "bench".into(), entries, ..Default::default() }).unwrap()
}

#[divan::bench(args = [8, 64, 512])]
fn resolve_exact(bencher: divan::Bencher<'_, '_>, n: usize) {
    let t = table(n);
    let state: StateTagSet = "locomotion=run posture=standing mood=alert".parse().unwrap();
    let ev = SoundEventId::from_static("footstep");
    bencher.bench(|| t.resolve(divan::black_box(ev), state, Some("grass"), ResolveOptions { hierarchical: false }));
}

#[divan::bench(args = [8, 64, 512])]
fn resolve_hierarchical(bencher: divan::Bencher<'_, '_>, n: usize) {
    let t = table(n);
    let state: StateTagSet = "combat=armed_rifle mood=alert".parse().unwrap();
    let ev = SoundEventId::from_static("weapon.fire.dryclick");
    bencher.bench(|| t.resolve(divan::black_box(ev), state, Some("metal"), ResolveOptions::default()));
}

/// One trigger plus 64 frames of mixing with 32 voices of the pool busy.
#[divan::bench]
fn trigger_and_render_block(bencher: divan::Bencher<'_, '_>) {
    let mut bank = ClipBank::new();
    let tone: Vec<f32> = (0..24_000).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    bank.insert("a.wav", ClipData::new(1, 24_000, tone).unwrap());
    let mut player = Player::new(table(64), bank, PlayerConfig { max_voices: 32, ..PlayerConfig::default() }).unwrap();
    let ev = SoundEventId::from_static("footstep");
    let mut out = [0.0f32; 128];
    bencher.bench_local(|| {
        player.trigger(None, ev, StateTagSet::EMPTY, None);
        player.render(&mut out);
        divan::black_box(out[0])
    });
}

/// One simulated second at 10 000 triggers per second (1 ms steps of 48
/// frames, 10 triggers each, 8 emitters, 64-voice pool): the real-time factor
/// is one second divided by this time.
#[divan::bench(sample_count = 10)]
fn one_second_at_10k_triggers_per_second(bencher: divan::Bencher<'_, '_>) {
    let mut bank = ClipBank::new();
    let tone: Vec<f32> = (0..7_200).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    bank.insert("a.wav", ClipData::new(1, 24_000, tone).unwrap());
    let mut t = table(64);
    let mut entries: Vec<SoundEventEntry> = t.rows().iter().map(|r| r.row.clone()).collect();
    for (i, e) in entries.iter_mut().enumerate() {
        e.spatial = true;
        e.polyphony_cap = 4;
        e.cooldown = if i % 2 == 0 { 0.02 } else { 0.0 };
    }
    t = SoundTable::from_profile(&SoundProfile { id: "load".into(), entries, ..Default::default() }).unwrap();
    let mut player = Player::new(t, bank, PlayerConfig::default()).unwrap();
    let emitters: Vec<_> = (0..8)
        .map(|i| player.add_emitter(zoa_anim_core::glam::Vec3::new(i as f32 - 4.0, 0.0, -3.0)).unwrap())
        .collect();
    let events: Vec<SoundEventId> = EVENTS.iter().map(|e| SoundEventId::new(e).unwrap()).collect();
    let state: StateTagSet = "locomotion=run mood=alert combat=armed_rifle".parse().unwrap();
    let mut out = [0.0f32; 96];
    bencher.bench_local(|| {
        for step in 0..1000 {
            for k in 0..10 {
                let n = step * 10 + k;
                player.trigger(Some(emitters[n % 8]), events[n % events.len()], state, SURFACES[n % 3]);
            }
            player.render(&mut out);
        }
        divan::black_box(out[0])
    });
}
