//! A minimal, byte-deterministic 16-bit PCM WAV writer (RIFF/WAVE, one `fmt `
//! and one `data` chunk, nothing else), used for fixtures and offline renders.
//! Same input, same bytes: no timestamps, no metadata chunks.

use std::io::Write;

/// Converts one sample to 16-bit: clamped to `[-1, 1]`, scaled by 32767 and
/// rounded half away from zero (NaN becomes 0).
#[inline]
#[must_use]
pub fn to_i16(sample: f32) -> i16 {
    if sample.is_nan() {
        return 0;
    }
    (sample.clamp(-1.0, 1.0) * 32767.0).round() as i16
}

/// The WAV file bytes of interleaved `samples`.
///
/// # Panics
/// Debug-asserts `channels` is 1 or 2 and `samples.len()` is a whole number of frames.
#[must_use]
pub fn wav_bytes(channels: u16, sample_rate: u32, samples: &[f32]) -> Vec<u8> {
    debug_assert!((1..=2).contains(&channels));
    debug_assert_eq!(samples.len() % channels as usize, 0);
    let data_len = (samples.len() * 2) as u32;
    let block_align = channels * 2;
    let mut out = Vec::with_capacity(44 + data_len as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVE");
    out.extend_from_slice(b"fmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&channels.to_le_bytes());
    out.extend_from_slice(&sample_rate.to_le_bytes());
    out.extend_from_slice(&(sample_rate * block_align as u32).to_le_bytes());
    out.extend_from_slice(&block_align.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for &s in samples {
        out.extend_from_slice(&to_i16(s).to_le_bytes());
    }
    out
}

/// Writes [`wav_bytes`] to `w`.
///
/// # Errors
/// Whatever the writer reports.
pub fn write_wav(w: &mut impl Write, channels: u16, sample_rate: u32, samples: &[f32]) -> std::io::Result<()> {
    w.write_all(&wav_bytes(channels, sample_rate, samples))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClipData;

    #[test]
    fn round_trips_through_rodio_decoder() {
        let samples: Vec<f32> = (0..200).map(|i| ((i as f32) * 0.05).sin() * 0.5).collect();
        let bytes = wav_bytes(2, 24_000, &samples);
        assert_eq!(bytes.len(), 44 + 400);
        let clip = ClipData::decode(bytes, "mem.wav").unwrap();
        assert_eq!((clip.channels(), clip.sample_rate(), clip.frames()), (2, 24_000, 100));
        for (a, b) in clip.samples().iter().zip(&samples) {
            assert!((a - b).abs() < 1.0 / 16000.0, "{a} vs {b}");
        }
    }

    #[test]
    fn conversion_clamps_and_rounds() {
        assert_eq!(to_i16(2.0), 32767);
        assert_eq!(to_i16(-2.0), -32767);
        assert_eq!(to_i16(f32::NAN), 0);
        assert_eq!(to_i16(0.5), 16384);
    }
}
