use std::f32::consts::FRAC_1_SQRT_2;

use zoa_anim_core::glam::Vec3;
use zoa_anim_core::{AudioBusId, CapPolicy, Rolloff, SoundEventEntry, StateTagSet};
use zoa_audio_profile::curves::{distance_gain, fade_in_gain, fade_out_gain};
use zoa_audio_profile::{
    AudioError, BusConfig, CapKind, ClipBank, NotifyMap, Player, PlayerConfig, SoundEmitter, TriggerOutcome,
    device::play_on_default_device,
};

use crate::common::{dc, dc_bank, entry, id, table, tags, variants};

const RATE: u32 = 48_000;

fn player(entries: Vec<SoundEventEntry>, config: PlayerConfig) -> Player {
    let mut names: Vec<String> = Vec::new();
    for e in &entries {
        for v in &e.variants {
            names.push(v.clip.clone());
        }
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    Player::new(table(entries), dc_bank(&refs), config).unwrap()
}

fn render(p: &mut Player, seconds: f64) -> Vec<f32> {
    let mut out = vec![0.0; (seconds * RATE as f64).round() as usize * 2];
    p.render(&mut out);
    out
}

fn started(o: TriggerOutcome) -> bool {
    matches!(o, TriggerOutcome::Started { .. })
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn attenuation_follows_the_rolloff_formulas() {
    for rolloff in [Rolloff::Linear, Rolloff::Inverse, Rolloff::Logarithmic] {
        for d in [0.5f32, 1.0, 2.0, 5.0, 9.0, 12.0] {
            let mut e = entry("footstep", "", None, "dc");
            e.spatial = true;
            e.rolloff = rolloff;
            e.max_distance = 10.0;
            let mut p = player(vec![e], PlayerConfig::default());
            // Straight ahead (-Z): centre pan, both channels sqrt(1/2).
            let em = p.add_emitter(Vec3::new(0.0, 0.0, -d)).unwrap();
            assert!(started(p.trigger(Some(em), id("footstep"), StateTagSet::EMPTY, None)));
            let out = render(&mut p, 0.01);
            let expected = 0.5 * distance_gain(rolloff, d, 1.0, 10.0) * FRAC_1_SQRT_2;
            for frame in out.chunks_exact(2) {
                assert!(close(frame[0], expected, 1e-5) && close(frame[1], expected, 1e-5), "{rolloff:?} d={d}");
            }
        }
    }
}

/// Distances far beyond the max distance are silent however large (1e20 m
/// once overflowed to "non-finite" and played at full gain), and NaN or
/// infinite positions are refused where they enter.
#[test]
fn far_emitters_are_silent_and_non_finite_positions_are_refused() {
    let mut e = entry("footstep", "", None, "dc");
    e.spatial = true;
    e.max_distance = 100.0;
    let mut p = player(vec![e], PlayerConfig::default());
    for far in [Vec3::new(0.0, 0.0, -150.0), Vec3::new(1e20, 0.0, 0.0), Vec3::new(-3e38, 3e38, -3e38)] {
        let em = p.add_emitter(far).unwrap();
        assert!(started(p.trigger(Some(em), id("footstep"), StateTagSet::EMPTY, None)));
        let out = render(&mut p, 0.01);
        assert!(out.iter().all(|s| *s == 0.0), "emitter at {far} must be silent");
        assert!(p.voices().all(|v| v.level == 0.0));
        p.stop_all();
        p.remove_emitter(em).unwrap();
        render(&mut p, 0.05);
    }
    for bad in [Vec3::new(f32::NAN, 0.0, 0.0), Vec3::new(0.0, f32::INFINITY, 0.0), Vec3::splat(f32::NEG_INFINITY)] {
        assert!(matches!(p.add_emitter(bad), Err(AudioError::NonFinite { what: "emitter position", .. })), "{bad}");
        let em = p.add_emitter(Vec3::new(0.0, 0.0, -2.0)).unwrap();
        assert!(matches!(p.set_emitter_position(em, bad), Err(AudioError::NonFinite { .. })));
        p.remove_emitter(em).unwrap();
        let listener = zoa_audio_profile::Listener { position: bad, ..Default::default() };
        assert!(matches!(p.set_listener(listener), Err(AudioError::NonFinite { what: "listener", .. })));
        assert_eq!(p.listener(), zoa_audio_profile::Listener::default(), "a refused listener changes nothing");
    }
    let err = p.add_emitter(Vec3::new(f32::NAN, 1.0, 2.0)).unwrap_err().to_string();
    assert!(err.contains("emitter position must be finite") && err.contains("NaN"), "{err}");
}

#[test]
fn panning_uses_the_correct_ear_and_equal_power() {
    let mut e = entry("footstep", "", None, "dc");
    e.spatial = true;
    let mut p = player(vec![e], PlayerConfig::default());
    let right = p.add_emitter(Vec3::new(1.0, 0.0, 0.0)).unwrap();
    p.trigger(Some(right), id("footstep"), StateTagSet::EMPTY, None);
    let out = render(&mut p, 0.005);
    assert!(close(out[0], 0.0, 1e-6) && close(out[1], 0.5, 1e-6), "right emitter → right channel: {:?}", &out[..2]);
    p.stop_all();
    render(&mut p, 0.05);
    let left = p.add_emitter(Vec3::new(-1.0, 0.0, 0.0)).unwrap();
    p.trigger(Some(left), id("footstep"), StateTagSet::EMPTY, None);
    let out = render(&mut p, 0.005);
    assert!(close(out[0], 0.5, 1e-6) && close(out[1], 0.0, 1e-6), "left emitter → left channel");
    // Half right (45°): pan = sin 45°, power sums to 1.
    p.stop_all();
    render(&mut p, 0.05);
    let diag = p.add_emitter(Vec3::new(0.5, 0.0, -0.5)).unwrap();
    p.trigger(Some(diag), id("footstep"), StateTagSet::EMPTY, None);
    let out = render(&mut p, 0.005);
    assert!(out[1] > out[0]);
    assert!(close(out[0] * out[0] + out[1] * out[1], 0.25, 1e-5));
}

#[test]
fn moving_emitters_ramp_gain_without_jumps() {
    let mut e = entry("footstep", "", None, "dc");
    e.spatial = true;
    e.looping = true;
    e.rolloff = Rolloff::Linear;
    e.max_distance = 10.0;
    let mut p = player(vec![e], PlayerConfig::default());
    let em = p.add_emitter(Vec3::new(0.0, 0.0, -1.0)).unwrap();
    p.trigger(Some(em), id("footstep"), StateTagSet::EMPTY, None);
    render(&mut p, 0.01);
    p.set_emitter_position(em, Vec3::new(0.0, 0.0, -5.5)).unwrap();
    let out = render(&mut p, 0.01);
    // The jump from gain 1 to 0.5 is spread over one 64-frame block.
    let steps: f32 = out
        .chunks_exact(2)
        .map(|f| f[0])
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max);
    assert!(steps < 0.5 * FRAC_1_SQRT_2 * 0.5 / 32.0, "largest step {steps}");
    assert!(close(out[out.len() - 2], 0.5 * 0.5 * FRAC_1_SQRT_2, 1e-5));
}

#[test]
fn loops_fade_in_and_out_over_fade_time() {
    let mut e = entry("vocal.breath", "", None, "dc");
    e.looping = true;
    e.fade_time = 0.1;
    let mut p = player(vec![e], PlayerConfig::default());
    let TriggerOutcome::Started { voice, .. } = p.trigger(None, id("vocal.breath"), StateTagSet::EMPTY, None) else {
        panic!("not started")
    };
    let fade = (0.1 * RATE as f64) as usize;
    let out = render(&mut p, 2.5);
    for n in [0, 1, 100, fade / 2, fade - 1, fade, fade + 10] {
        let want = 0.5 * fade_in_gain(n as f32 / RATE as f32, 0.1);
        assert!(close(out[2 * n], want, 1e-4) && close(out[2 * n + 1], want, 1e-4), "fade-in frame {n}");
    }
    // Still looping well past the 1 s clip.
    assert!(close(out[out.len() - 2], 0.5, 1e-6));
    assert!(p.is_playing(voice));
    assert!(p.stop(voice));
    let out = render(&mut p, 0.2);
    for k in [0, 1, fade / 4, fade / 2, fade - 1] {
        let want = 0.5 * fade_out_gain(k as f32 / RATE as f32, 0.1);
        assert!(close(out[2 * k], want, 1e-4), "fade-out frame {k}: {} vs {want}", out[2 * k]);
    }
    assert!(out[2 * fade..].iter().all(|s| *s == 0.0), "silent after the fade");
    assert!(!p.is_playing(voice));
    assert_eq!(p.stats().ended, 1);
}

#[test]
fn one_shots_end_by_themselves() {
    let e = entry("land", "", None, "short");
    let mut bank = ClipBank::new();
    bank.insert("short", dc(0.25, 0.1, RATE));
    let mut p = Player::new(table(vec![e]), bank, PlayerConfig::default()).unwrap();
    p.trigger(None, id("land"), StateTagSet::EMPTY, None);
    let out = render(&mut p, 0.3);
    let n = (0.1 * RATE as f64) as usize;
    assert!(out[..2 * n].iter().all(|s| close(*s, 0.25, 1e-6)));
    assert!(out[2 * n..].iter().all(|s| *s == 0.0));
    assert_eq!(p.active_voices(), 0);
    assert_eq!(p.stats().ended, 1);
}

#[test]
fn resampling_plays_a_24k_clip_at_its_own_speed() {
    let e = entry("land", "", None, "half_rate");
    let mut bank = ClipBank::new();
    bank.insert("half_rate", dc(0.25, 0.1, 24_000));
    let mut p = Player::new(table(vec![e]), bank, PlayerConfig::default()).unwrap();
    p.trigger(None, id("land"), StateTagSet::EMPTY, None);
    let out = render(&mut p, 0.2);
    let nonzero = out.chunks_exact(2).filter(|f| f[0] != 0.0).count();
    assert_eq!(nonzero, 4800, "0.1 s at 48 kHz");
}

#[test]
fn cooldown_is_per_emitter_by_default() {
    let mut e = entry("vocal.hurt", "", None, "dc");
    e.cooldown = 0.5;
    let mut p = player(vec![e], PlayerConfig::default());
    let a = p.add_emitter(Vec3::ZERO).unwrap();
    let b = p.add_emitter(Vec3::ZERO).unwrap();
    let hurt = id("vocal.hurt");
    assert!(started(p.trigger(Some(a), hurt, StateTagSet::EMPTY, None)));
    render(&mut p, 0.2);
    assert_eq!(p.trigger(Some(a), hurt, StateTagSet::EMPTY, None), TriggerOutcome::DroppedCooldown { entry: 0 });
    assert!(started(p.trigger(Some(b), hurt, StateTagSet::EMPTY, None)), "another emitter is not cooled down");
    render(&mut p, 0.3);
    assert!(started(p.trigger(Some(a), hurt, StateTagSet::EMPTY, None)), "window over at exactly 0.5 s");
    assert_eq!(p.stats().dropped_cooldown, 1);
}

#[test]
fn global_cooldown_is_shared_by_all_emitters() {
    let mut e = entry("vocal.hurt", "", None, "dc");
    e.cooldown = 0.5;
    e.cooldown_global = true;
    let mut p = player(vec![e], PlayerConfig::default());
    let a = p.add_emitter(Vec3::ZERO).unwrap();
    let b = p.add_emitter(Vec3::ZERO).unwrap();
    assert!(started(p.trigger(Some(a), id("vocal.hurt"), StateTagSet::EMPTY, None)));
    render(&mut p, 0.2);
    assert!(matches!(
        p.trigger(Some(b), id("vocal.hurt"), StateTagSet::EMPTY, None),
        TriggerOutcome::DroppedCooldown { .. }
    ));
}

#[test]
fn polyphony_cap_reject() {
    let mut e = entry("weapon.fire", "", None, "dc");
    e.polyphony_cap = 2;
    e.cap_policy = CapPolicy::Reject;
    let mut p = player(vec![e], PlayerConfig::default());
    let fire = id("weapon.fire");
    assert!(started(p.trigger(None, fire, StateTagSet::EMPTY, None)));
    assert!(started(p.trigger(None, fire, StateTagSet::EMPTY, None)));
    assert_eq!(
        p.trigger(None, fire, StateTagSet::EMPTY, None),
        TriggerOutcome::Rejected { entry: 0, cap: CapKind::Entry }
    );
    assert_eq!(p.live_voices_of(0), 2);
    assert_eq!(p.stats().rejected, 1);
}

#[test]
fn polyphony_cap_steal_oldest_fades_the_victim() {
    let mut e = entry("weapon.fire", "", None, "dc");
    e.polyphony_cap = 1;
    e.cap_policy = CapPolicy::StealOldest;
    let config = PlayerConfig { steal_fade: 0.01, ..PlayerConfig::default() };
    let mut p = player(vec![e], config);
    let fire = id("weapon.fire");
    let TriggerOutcome::Started { voice: first, .. } = p.trigger(None, fire, StateTagSet::EMPTY, None) else {
        panic!()
    };
    render(&mut p, 0.05);
    let second = p.trigger(None, fire, StateTagSet::EMPTY, None);
    assert!(matches!(second, TriggerOutcome::Started { stolen: 1, .. }), "{second:?}");
    assert_eq!((p.live_voices_of(0), p.active_voices()), (1, 2));
    let out = render(&mut p, 0.05);
    // Sum of the fading victim (0.5 → 0 over 480 frames) and the new voice (0.5).
    let fade = 480;
    for k in [0, 120, 240, 479] {
        let want = 0.5 + 0.5 * fade_out_gain(k as f32, fade as f32);
        assert!(close(out[2 * k], want, 1e-4), "frame {k}: {} vs {want}", out[2 * k]);
    }
    assert!(close(out[2 * fade], 0.5, 1e-6));
    assert!(!p.is_playing(first));
    assert_eq!(p.stats().stolen, 1);
}

#[test]
fn polyphony_cap_steal_quietest_takes_the_far_voice() {
    let mut e = entry("weapon.fire", "", None, "dc");
    e.polyphony_cap = 2;
    e.cap_policy = CapPolicy::StealQuietest;
    e.spatial = true;
    e.rolloff = Rolloff::Linear;
    e.max_distance = 20.0;
    let mut p = player(vec![e], PlayerConfig::default());
    let near = p.add_emitter(Vec3::new(0.0, 0.0, -2.0)).unwrap();
    let far = p.add_emitter(Vec3::new(0.0, 0.0, -15.0)).unwrap();
    let fire = id("weapon.fire");
    p.trigger(Some(far), fire, StateTagSet::EMPTY, None);
    p.trigger(Some(near), fire, StateTagSet::EMPTY, None);
    p.trigger(Some(near), fire, StateTagSet::EMPTY, None);
    let releasing: Vec<_> = p.voices().filter(|v| v.releasing).map(|v| v.emitter).collect();
    assert_eq!(releasing, vec![Some(far)], "the far (quiet) voice is stolen, not the older near one");
}

#[test]
fn buses_scale_mute_and_cap_by_priority() {
    let mut music = entry("music", "", None, "dc");
    music.bus = AudioBusId::from_static("music");
    let mut low = entry("foley.cloth", "", None, "dc");
    low.priority = 0;
    let mut high = entry("vocal.hurt", "", None, "dc");
    high.priority = 10;
    let buses = vec![
        BusConfig { volume: 0.5, ..BusConfig::new(AudioBusId::from_static("music")) },
        BusConfig { cap: 1, ..BusConfig::new(AudioBusId::from_static("sfx")) },
    ];
    let mut p = player(vec![music, low, high], PlayerConfig { buses, ..PlayerConfig::default() });
    p.trigger(None, id("music"), StateTagSet::EMPTY, None);
    let out = render(&mut p, 0.01);
    assert!(close(out[0], 0.25, 1e-6), "bus volume 0.5 × clip 0.5");
    assert!(p.set_bus_muted(AudioBusId::from_static("music"), true));
    let out = render(&mut p, 0.01);
    assert!(out[2 * 64..].iter().all(|s| *s == 0.0), "muted after one ramp block");
    assert!(!p.set_bus_volume(AudioBusId::from_static("nope"), 1.0));

    // sfx cap 1: a low-priority voice is stolen by a high one, never the reverse.
    assert!(started(p.trigger(None, id("foley.cloth"), StateTagSet::EMPTY, None)));
    assert!(matches!(
        p.trigger(None, id("vocal.hurt"), StateTagSet::EMPTY, None),
        TriggerOutcome::Started { stolen: 1, .. }
    ));
    assert_eq!(
        p.trigger(None, id("foley.cloth"), StateTagSet::EMPTY, None),
        TriggerOutcome::Rejected { entry: 1, cap: CapKind::Bus }
    );
}

#[test]
fn full_pool_cuts_releasing_then_lowest_priority_voices() {
    let mut low = entry("foley.cloth", "", None, "dc");
    low.looping = true;
    let mut high = entry("vocal.hurt", "", None, "dc");
    high.priority = 5;
    high.looping = true;
    let mut p = player(vec![low, high], PlayerConfig { max_voices: 2, ..PlayerConfig::default() });
    assert!(started(p.trigger(None, id("vocal.hurt"), StateTagSet::EMPTY, None)));
    assert!(started(p.trigger(None, id("foley.cloth"), StateTagSet::EMPTY, None)));
    // Low priority cannot take a slot from the high one, but takes the other low one.
    assert!(matches!(
        p.trigger(None, id("foley.cloth"), StateTagSet::EMPTY, None),
        TriggerOutcome::Started { stolen: 1, .. }
    ));
    assert_eq!(p.active_voices(), 2);
    let mut q = player(
        vec![
            {
                let mut e = entry("vocal.hurt", "", None, "dc");
                e.priority = 5;
                e
            },
            entry("foley.cloth", "", None, "dc"),
        ],
        PlayerConfig { max_voices: 1, ..PlayerConfig::default() },
    );
    assert!(started(q.trigger(None, id("vocal.hurt"), StateTagSet::EMPTY, None)));
    assert_eq!(
        q.trigger(None, id("foley.cloth"), StateTagSet::EMPTY, None),
        TriggerOutcome::Rejected { entry: 1, cap: CapKind::Pool }
    );
}

#[test]
fn avoid_repeat_in_the_player() {
    let mut e = entry("footstep", "", None, "a");
    e.variants = variants(&["a", "b", "c", "d"]);
    e.avoid_repeat = 3;
    let mut p = player(vec![e], PlayerConfig { max_voices: 4, ..PlayerConfig::default() });
    let mut picks = Vec::new();
    for _ in 0..40 {
        if let TriggerOutcome::Started { variant, .. } = p.trigger(None, id("footstep"), StateTagSet::EMPTY, None) {
            picks.push(variant);
        }
    }
    assert_eq!(picks.len(), 40);
    for w in picks.windows(4) {
        let mut s = w.to_vec();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 4, "any 4 consecutive picks are distinct with avoid_repeat = 3: {w:?}");
    }
}

#[test]
fn configuration_and_clip_errors() {
    let t = table(vec![entry("land", "", None, "x.wav"), entry("jump", "", None, "y.wav")]);
    let err = Player::new(t.clone(), ClipBank::new(), PlayerConfig::default()).unwrap_err();
    assert!(matches!(&err, AudioError::MissingClips { names } if names == &["x.wav", "y.wav"]), "{err}");
    for bad in [
        PlayerConfig { sample_rate: 0, ..PlayerConfig::default() },
        PlayerConfig { max_voices: 0, ..PlayerConfig::default() },
        PlayerConfig { steal_fade: 0.0, ..PlayerConfig::default() },
        PlayerConfig { master_volume: f32::NAN, ..PlayerConfig::default() },
        PlayerConfig { reference_distance: -1.0, ..PlayerConfig::default() },
    ] {
        let err = Player::new(t.clone(), dc_bank(&["x.wav", "y.wav"]), bad).unwrap_err();
        assert!(matches!(err, AudioError::InvalidConfig { .. }), "{err}");
    }
}

#[test]
fn emitter_pool_is_bounded_and_handles_go_stale() {
    let mut p =
        player(vec![entry("land", "", None, "dc")], PlayerConfig { max_emitters: 2, ..PlayerConfig::default() });
    let a = p.add_emitter(Vec3::ZERO).unwrap();
    p.add_emitter(Vec3::ZERO).unwrap();
    assert!(matches!(p.add_emitter(Vec3::ZERO), Err(AudioError::EmitterPoolFull { capacity: 2 })));
    p.remove_emitter(a).unwrap();
    assert_eq!(p.trigger(Some(a), id("land"), StateTagSet::EMPTY, None), TriggerOutcome::UnknownEmitter);
    assert!(matches!(p.set_emitter_position(a, Vec3::ONE), Err(AudioError::UnknownEmitter)));
    let c = p.add_emitter(Vec3::ZERO).unwrap();
    assert_ne!(a, c, "a reused slot gets a new generation");
}

#[test]
fn notifies_and_driver_events_trigger_with_state_and_surface() {
    let entries = vec![
        entry("footstep", "", None, "step"),
        entry("footstep", "", Some("grass"), "grass"),
        entry("footstep", "locomotion=run", Some("grass"), "run_grass"),
        entry("weapon.fire", "", None, "fire"),
    ];
    let mut p = player(entries, PlayerConfig::default());
    let mut map = NotifyMap::with_defaults();
    map.insert("MuzzleFlash", id("weapon.fire"));
    let events: Vec<String> = map.events().map(|e| e.as_str().to_owned()).collect();
    assert_eq!(events, ["footstep", "footstep", "footstep", "footstep", "footstep", "land", "jump", "weapon.fire"]);
    let em = SoundEmitter::new(&mut p, Vec3::ZERO, map).unwrap();
    let o = em.on_notify(&mut p, "Footstep", tags("locomotion=run"), Some("grass")).unwrap();
    assert!(matches!(o, TriggerOutcome::Started { entry: 2, .. }), "{o:?}");
    let o = em.on_notify(&mut p, "footstep_l", tags("locomotion=walk"), Some("grass")).unwrap();
    assert!(matches!(o, TriggerOutcome::Started { entry: 1, .. }), "{o:?}");
    assert!(em.on_notify(&mut p, "ReloadDone", StateTagSet::EMPTY, None).is_none(), "unmapped notify");
    assert!(matches!(
        em.on_notify(&mut p, "muzzleflash", StateTagSet::EMPTY, None),
        Some(TriggerOutcome::Started { entry: 3, .. })
    ));
    let o = em.on_event(&mut p, id("weapon.fire.dryclick"), tags("combat=armed_rifle"), None);
    assert!(matches!(o, TriggerOutcome::Started { entry: 3, .. }), "hierarchical fallback: {o:?}");
    assert_eq!(em.stop(&mut p, id("weapon")), 2);
}

#[test]
fn odd_buffers_render_whole_frames_only() {
    let mut p = player(vec![entry("land", "", None, "dc")], PlayerConfig::default());
    p.trigger(None, id("land"), StateTagSet::EMPTY, None);
    let mut out = vec![1.0f32; 101];
    p.render(&mut out);
    assert_eq!(p.frames_rendered(), 50);
    assert_eq!(out[100], 0.0);
    assert!(out[..100].iter().all(|s| close(*s, 0.5, 1e-6)));
}

#[test]
fn device_playback_without_a_device_is_an_error_not_a_panic() {
    let p = player(vec![entry("land", "", None, "dc")], PlayerConfig::default());
    match play_on_default_device(p) {
        Err(AudioError::NoDevice { reason }) => assert!(!reason.is_empty()),
        Err(other) => panic!("unexpected error {other}"),
        // A machine with a real device may open it; that is fine too.
        Ok(mut playback) => assert!(playback.handle().request_stats().is_ok()),
    }
}

#[test]
fn clip_notifies_crossed_in_a_frame_trigger_footsteps() {
    use zoa_anim_core::clip_asset::{AnimationSelector, ClipAsset, ClipNotify};
    let clip = ClipAsset {
        id: "walk".into(),
        source: "models/humanoid.glb".into(),
        animation: AnimationSelector::Name("walk".into()),
        rate: 1.0,
        loop_hint: true,
        notifies: vec![
            ClipNotify::new("Footstep", 0.35),
            ClipNotify::new("Breathe", 0.5),
            ClipNotify::new("Footstep", 0.82),
        ],
        markers: Vec::new(),
        curves: Vec::new(),
        binding: Default::default(),
    };
    let mut step = entry("footstep", "", Some("grass"), "dc");
    step.cooldown = 0.1;
    let mut p = player(vec![step], PlayerConfig::default());
    let em = SoundEmitter::new(&mut p, Vec3::ZERO, NotifyMap::with_defaults()).unwrap();
    let walk = tags("locomotion=walk");
    assert_eq!(em.on_clip_notifies(&mut p, clip.notifies_between(0.0, 0.4), walk, Some("grass")), (1, 1));
    // The clock has not advanced: both steps fall inside the 0.1 s cooldown of the first.
    assert_eq!(em.on_clip_notifies(&mut p, clip.notifies_between(0.0, 1.0), walk, Some("grass")), (2, 0));
    render(&mut p, 0.2);
    assert_eq!(em.on_clip_notifies(&mut p, clip.notifies_between(0.8, 1.0), walk, Some("grass")), (1, 1));
    assert_eq!(
        em.on_clip_notifies(&mut p, clip.notifies_between(0.8, 1.0), walk, Some("snow")),
        (1, 0),
        "no entry for snow"
    );
}

fn throttled_player(throttle: zoa_anim_core::SoundThrottle) -> Player {
    let fire = entry("weapon.fire", "", None, "fire");
    let reload = entry("weapon.reload", "", None, "reload");
    let profile = zoa_anim_core::SoundProfile {
        id: "guns".into(),
        entries: vec![fire, reload],
        throttles: vec![throttle],
        ..Default::default()
    };
    let table = zoa_audio_profile::SoundTable::from_profile(&profile).unwrap();
    Player::new(table, dc_bank(&["fire", "reload"]), PlayerConfig::default()).unwrap()
}

fn throttled(o: TriggerOutcome) -> Option<zoa_audio_profile::ThrottleLimit> {
    match o {
        TriggerOutcome::Throttled { throttle: 0, limit, .. } => Some(limit),
        _ => None,
    }
}

/// `weapon.fire.*` shares one voice cap across every event below it (the
/// rifle and the pistol fall back to the `weapon.fire` entry); events outside
/// the prefix are not counted.
#[test]
fn prefix_throttles_cap_voices_across_the_events_below_the_prefix() {
    use zoa_audio_profile::ThrottleLimit;
    let t = zoa_anim_core::SoundThrottle { max_voices: 2, ..zoa_anim_core::SoundThrottle::new(id("weapon.fire")) };
    let mut p = throttled_player(t);
    assert!(started(p.trigger(None, id("weapon.fire.rifle"), StateTagSet::EMPTY, None)));
    assert!(started(p.trigger(None, id("weapon.fire.pistol"), StateTagSet::EMPTY, None)));
    let third = p.trigger(None, id("weapon.fire"), StateTagSet::EMPTY, None);
    assert_eq!(throttled(third), Some(ThrottleLimit::Voices), "{third:?}");
    assert!(started(p.trigger(None, id("weapon.reload"), StateTagSet::EMPTY, None)), "outside the prefix");
    assert_eq!(p.active_voices(), 3);
    // The 1 s clips end; the cap frees up.
    render(&mut p, 1.1);
    assert!(started(p.trigger(None, id("weapon.fire.rifle"), StateTagSet::EMPTY, None)));
    let s = p.throttle_stats()[0];
    assert_eq!((s.started, s.dropped_voices, s.peak_voices), (3, 1, 2));
    assert_eq!(p.stats().throttled, 1);
}

/// At most N starts in any one-second window, and a cooldown between starts
/// from any emitter: a 100 Hz full-auto burst for 2 s starts exactly what the
/// limits allow, and memory does not move.
#[test]
fn prefix_throttles_limit_the_start_rate_and_space_starts_by_the_cooldown() {
    use zoa_audio_profile::ThrottleLimit;
    let t = zoa_anim_core::SoundThrottle {
        max_starts_per_second: 5,
        cooldown: 0.1,
        ..zoa_anim_core::SoundThrottle::new(id("weapon.fire"))
    };
    let mut p = throttled_player(t);
    let a = p.add_emitter(Vec3::ZERO).unwrap();
    let b = p.add_emitter(Vec3::X).unwrap();
    let mut starts = Vec::new();
    let mut limits = Vec::new();
    let mut block = vec![0.0f32; 960]; // 10 ms
    for step in 0..200 {
        let em = if step % 2 == 0 { a } else { b };
        let o = p.trigger(Some(em), id("weapon.fire.auto"), StateTagSet::EMPTY, None);
        if started(o) {
            starts.push(step);
        } else {
            limits.push(throttled(o).unwrap());
        }
        p.render(&mut block);
    }
    // Cooldown 0.1 s: one start every 10 steps at most; rate 5/s: the 6th
    // start in a window waits until the first one is a second old.
    assert_eq!(starts, [0, 10, 20, 30, 40, 100, 110, 120, 130, 140]);
    assert!(limits.contains(&ThrottleLimit::Cooldown) && limits.contains(&ThrottleLimit::Rate));
    let s = p.throttle_stats()[0];
    assert_eq!(s.started, 10);
    assert_eq!(s.dropped(), 190);
    assert_eq!(s.dropped_rate + s.dropped_cooldown, 190);
    p.reset_stats();
    assert_eq!(p.throttle_stats()[0].started, 0);
}

#[test]
fn throttle_declarations_are_validated() {
    let mut t = zoa_anim_core::SoundThrottle::new(id("weapon.fire"));
    t.cooldown = -1.0;
    t.max_starts_per_second = 1_000_000;
    let profile = zoa_anim_core::SoundProfile {
        id: "bad".into(),
        entries: vec![entry("weapon.fire", "", None, "fire")],
        throttles: vec![t, zoa_anim_core::SoundThrottle::new(id("weapon.fire"))],
        ..Default::default()
    };
    let err = zoa_audio_profile::SoundTable::from_profile(&profile).unwrap_err().to_string();
    assert!(err.contains("throttles[0] (weapon.fire.*): cooldown must be >= 0"), "{err}");
    assert!(err.contains("max_starts_per_second must be at most 10000"), "{err}");
    let mut ok = profile.clone();
    ok.throttles[0] = zoa_anim_core::SoundThrottle { max_voices: 1, ..zoa_anim_core::SoundThrottle::new(id("weapon")) };
    let table = zoa_audio_profile::SoundTable::from_profile(&ok).unwrap();
    assert_eq!(table.throttles().len(), 2);
    assert!(
        table.warnings().iter().any(|w| w.contains("throttles[1] (weapon.fire.*) limits nothing")),
        "{:?}",
        table.warnings()
    );
}

#[test]
fn a_voice_reports_its_own_gain_volume_times_its_jitter_draw() {
    let mut loud = entry("footstep", "", None, "dc");
    loud.volume = 1.2;
    let mut jittered = entry("vocal", "", None, "dc");
    jittered.volume = 0.8;
    jittered.volume_jitter = 0.25;
    let mut p = player(vec![loud, jittered], PlayerConfig::default());
    assert!(started(p.trigger(None, id("footstep"), StateTagSet::EMPTY, None)));
    let gains: Vec<f32> = p.voices().map(|v| v.gain).collect();
    assert_eq!(gains, [1.2]);
    let mut seen = Vec::new();
    for _ in 0..8 {
        assert!(started(p.trigger(None, id("vocal"), StateTagSet::EMPTY, None)));
        seen.extend(p.voices().filter(|v| v.entry == 1).map(|v| v.gain));
        p.stop_all();
        render(&mut p, 0.05);
    }
    assert!(seen.iter().all(|g| (0.8 * 0.75..=0.8).contains(g)), "jitter only lowers the volume: {seen:?}");
    assert!(seen.windows(2).any(|w| w[0] != w[1]), "the jitter draws differ: {seen:?}");
}
