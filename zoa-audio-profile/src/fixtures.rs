//! Generated test sounds for `fixtures/sounds/`: short tones, noise bursts
//! and a seamless stereo loop, synthesised from fixed seeds so the files are
//! byte-for-byte reproducible (`zoa-anim sound gen-fixtures` writes them; a
//! test checks the committed files equal a fresh generation).
//!
//! They are 24 kHz 16-bit so the player's resampling path (clip rate ≠ output
//! rate) is exercised by every render.

use std::f64::consts::TAU;

use crate::wav::wav_bytes;

/// Sample rate of every fixture, Hz.
pub const FIXTURE_RATE: u32 = 24_000;

/// Deterministic white noise in `[-1, 1)` (SplitMix64).
#[derive(Debug, Clone)]
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

fn frames(seconds: f64) -> usize {
    (seconds * FIXTURE_RATE as f64).round() as usize
}

fn t(i: usize) -> f64 {
    i as f64 / FIXTURE_RATE as f64
}

/// A 5 ms linear attack so no fixture starts with a click.
fn attack(i: usize) -> f64 {
    (t(i) / 0.005).min(1.0)
}

/// Low-passed noise burst with exponential decay (grass, gunshot body).
fn noise_burst(seconds: f64, seed: u64, decay: f64, smooth: f64, gain: f64) -> Vec<f32> {
    let mut n = Noise(seed);
    let mut lp = 0.0;
    (0..frames(seconds))
        .map(|i| {
            lp += (n.next() - lp) * smooth;
            (lp * gain * attack(i) * (-t(i) / decay).exp()) as f32
        })
        .collect()
}

/// Decaying sum of sines `(frequency Hz, amplitude)`.
fn partials(seconds: f64, parts: &[(f64, f64)], decay: f64) -> Vec<f32> {
    (0..frames(seconds))
        .map(|i| {
            let s: f64 = parts.iter().map(|(f, a)| a * (TAU * f * t(i)).sin()).sum();
            (s * attack(i) * (-t(i) / decay).exp()) as f32
        })
        .collect()
}

fn mix(a: &[f32], b: &[f32]) -> Vec<f32> {
    (0..a.len().max(b.len())).map(|i| a.get(i).copied().unwrap_or(0.0) + b.get(i).copied().unwrap_or(0.0)).collect()
}

/// One fixture: file name, channel count and interleaved samples.
#[derive(Debug, Clone, PartialEq)]
pub struct FixtureSound {
    /// File name inside `fixtures/sounds/`.
    pub name: &'static str,
    /// 1 or 2.
    pub channels: u16,
    /// Interleaved samples at [`FIXTURE_RATE`].
    pub samples: Vec<f32>,
}

impl FixtureSound {
    /// The WAV file bytes.
    #[must_use]
    pub fn wav(&self) -> Vec<u8> {
        wav_bytes(self.channels, FIXTURE_RATE, &self.samples)
    }
}

/// Every fixture sound, in file-name order. The names are the ones the
/// definition fixtures (`fixtures/defs/humanoid/sounds/*.toml`) refer to.
#[must_use]
pub fn fixture_sounds() -> Vec<FixtureSound> {
    let mono = |name, samples| FixtureSound { name, channels: 1, samples };
    // A 2 s stereo breathing loop: every partial has a whole number of cycles
    // in 2 s (the 0.5 Hz swell too), so the loop point is seamless; left and
    // right differ so the stereo path shows.
    let loop_len = frames(2.0);
    let mut breath = Vec::with_capacity(loop_len * 2);
    for i in 0..loop_len {
        let x = t(i);
        let swell = 0.6 + 0.4 * (TAU * 0.5 * x).sin();
        let l = swell * (0.25 * (TAU * 110.0 * x).sin() + 0.12 * (TAU * 165.5 * x).sin());
        let r = swell * (0.25 * (TAU * 110.0 * x).sin() + 0.12 * (TAU * 220.5 * x).sin());
        breath.push(l as f32);
        breath.push(r as f32);
    }
    // Reload: two clicks 0.25 s apart.
    let mut reload = noise_burst(0.45, 31, 0.01, 0.8, 1.2);
    let second = noise_burst(0.2, 32, 0.012, 0.7, 1.2);
    let offset = frames(0.25);
    for (i, s) in second.iter().enumerate() {
        reload[offset + i] += s;
    }
    let mut sounds = vec![
        FixtureSound { name: "breath_loop.wav", channels: 2, samples: breath },
        mono("dryclick_1.wav", noise_burst(0.03, 5, 0.004, 0.9, 1.0)),
        mono(
            "footstep_concrete_1.wav",
            mix(&partials(0.12, &[(90.0, 0.6), (180.0, 0.2)], 0.03), &noise_burst(0.12, 3, 0.015, 0.6, 0.6)),
        ),
        mono("footstep_grass_1.wav", noise_burst(0.14, 11, 0.04, 0.35, 1.6)),
        mono("footstep_grass_2.wav", noise_burst(0.16, 12, 0.045, 0.3, 1.6)),
        mono("footstep_metal_1.wav", partials(0.2, &[(1210.0, 0.35), (2755.0, 0.25), (4120.0, 0.15)], 0.06)),
        mono("hurt_1.wav", partials(0.4, &[(330.0, 0.45), (660.0, 0.15), (990.0, 0.08)], 0.2)),
        mono("reload_1.wav", reload),
        mono("rifle_fire_1.wav", mix(&noise_burst(0.3, 21, 0.06, 0.5, 0.7), &partials(0.3, &[(62.0, 0.3)], 0.08))),
        mono("rifle_fire_2.wav", mix(&noise_burst(0.3, 22, 0.07, 0.45, 0.7), &partials(0.3, &[(58.0, 0.3)], 0.09))),
    ];
    for s in &mut sounds {
        for x in &mut s.samples {
            *x = x.clamp(-0.95, 0.95);
        }
    }
    sounds.sort_by_key(|s| s.name);
    sounds
}

/// Writes every fixture into `dir` (created if missing); returns the paths.
///
/// # Errors
/// Any IO failure.
pub fn write_fixtures(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut paths = Vec::new();
    for s in fixture_sounds() {
        let path = dir.join(s.name);
        std::fs::write(&path, s.wav())?;
        paths.push(path);
    }
    Ok(paths)
}
