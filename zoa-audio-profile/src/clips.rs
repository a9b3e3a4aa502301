//! Decoded sound data. Clips are decoded once (WAV and Ogg Vorbis through
//! rodio's decoders) into interleaved `f32` buffers at their own sample rate;
//! the player resamples while mixing, so decoding never happens on the mix path.

use std::io::Cursor;
use std::path::Path;

use rodio::Source;

use crate::AudioError;
use crate::resolver::SoundTable;

/// Most samples (all channels) one decoded clip may hold: 16 Mi samples,
/// 64 MiB of `f32` (about 2.9 minutes of 48 kHz stereo). A compressed file
/// that decodes to more is refused while decoding, before the rest is produced.
pub const MAX_CLIP_SAMPLES: usize = 16 << 20;

/// Most samples a [`ClipBank`] may hold in total: 48 Mi samples, 192 MiB of `f32`.
pub const MAX_BANK_SAMPLES: usize = 48 << 20;

/// Largest sound file [`ClipData::load`] reads, bytes (64 MiB).
pub const MAX_SOUND_FILE_BYTES: u64 = 64 << 20;

/// Checks the header fields the third-party decoders trust: a WAV `fmt `
/// chunk or a Vorbis identification header with 0 channels or a sample rate
/// of 0 makes them panic, so those are refused here first.
fn check_header(bytes: &[u8]) -> Result<(), String> {
    let u16_at = |b: &[u8], i: usize| b.get(i..i + 2).map(|s| u16::from_le_bytes([s[0], s[1]]));
    let u32_at = |b: &[u8], i: usize| b.get(i..i + 4).map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]));
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WAVE") {
        let mut pos = 12usize;
        while let Some(len) = u32_at(bytes, pos + 4) {
            let id = &bytes[pos..pos + 4];
            if id == b"fmt " {
                let (channels, rate) = (u16_at(bytes, pos + 10), u32_at(bytes, pos + 12));
                return match (channels, rate) {
                    (Some(0), _) => Err("WAV header says 0 channels".into()),
                    (_, Some(0)) => Err("WAV header says a sample rate of 0".into()),
                    (Some(_), Some(_)) => Ok(()),
                    _ => Err("WAV `fmt ` chunk is truncated".into()),
                };
            }
            // Chunks are padded to an even length.
            pos = pos.saturating_add(8).saturating_add(len as usize).saturating_add(len as usize & 1);
        }
        return Err("WAV file has no `fmt ` chunk".into());
    }
    if bytes.starts_with(b"OggS") {
        // The first page carries the Vorbis identification packet:
        // 0x01 "vorbis", version u32, channels u8, sample rate u32.
        if let Some(at) = bytes.windows(7).take(512).position(|w| w == b"\x01vorbis") {
            let channels = bytes.get(at + 11).copied();
            let rate = u32_at(bytes, at + 12);
            return match (channels, rate) {
                (Some(0), _) => Err("Vorbis header says 0 channels".into()),
                (_, Some(0)) => Err("Vorbis header says a sample rate of 0".into()),
                (Some(_), Some(_)) => Ok(()),
                _ => Err("Vorbis identification header is truncated".into()),
            };
        }
    }
    Ok(())
}

/// One decoded clip: mono or stereo interleaved samples in `[-1, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipData {
    channels: u16,
    sample_rate: u32,
    samples: Vec<f32>,
}

impl ClipData {
    /// A clip from interleaved samples.
    ///
    /// # Errors
    /// [`AudioError::Decode`] when `channels` is not 1 or 2, the rate is 0,
    /// the sample count is not a whole number of frames, the clip is empty,
    /// or a sample is not finite.
    pub fn new(channels: u16, sample_rate: u32, samples: Vec<f32>) -> Result<Self, AudioError> {
        let fail = |reason: &str| Err(AudioError::Decode { path: "<memory>".into(), reason: reason.into() });
        if !(1..=2).contains(&channels) {
            return fail("only mono and stereo clips are supported");
        }
        if sample_rate == 0 {
            return fail("sample rate must be > 0");
        }
        if samples.is_empty() || !samples.len().is_multiple_of(channels as usize) {
            return fail("sample count must be a non-zero whole number of frames");
        }
        if samples.iter().any(|s| !s.is_finite()) {
            return fail("samples must be finite");
        }
        Ok(ClipData { channels, sample_rate, samples })
    }

    /// Decodes a WAV or Ogg Vorbis file held in memory; `name` is used in errors.
    ///
    /// # Errors
    /// [`AudioError::Decode`] for unknown formats, corrupt data, more than two
    /// channels or an empty stream.
    ///
    /// Header fields the decoders would trust blindly (a sample rate or a
    /// channel count of 0) are checked first, and a clip that decodes to more
    /// than [`MAX_CLIP_SAMPLES`] is refused while decoding. A panic inside the
    /// third-party decoder on data these checks did not foresee is caught and
    /// reported as a decode error.
    pub fn decode(bytes: Vec<u8>, name: &str) -> Result<Self, AudioError> {
        let fail = |reason: String| AudioError::Decode { path: name.to_owned(), reason };
        check_header(&bytes).map_err(fail)?;
        let decoded = std::panic::catch_unwind(move || -> Result<(u16, u32, Vec<f32>), String> {
            let decoder = rodio::Decoder::new(Cursor::new(bytes)).map_err(|e| e.to_string())?;
            let channels = decoder.channels().get();
            let sample_rate = decoder.sample_rate().get();
            if channels > 2 {
                return Err(format!("{channels} channels; only mono and stereo are supported"));
            }
            // `rodio::Sample` is f64 under rodio's `64bit` feature.
            #[allow(clippy::unnecessary_cast)]
            let samples: Vec<f32> = decoder.take(MAX_CLIP_SAMPLES + 1).map(|s| s as f32).collect();
            if samples.len() > MAX_CLIP_SAMPLES {
                return Err(format!("decodes to more than {MAX_CLIP_SAMPLES} samples (the per-clip budget)"));
            }
            Ok((channels, sample_rate, samples))
        });
        let (channels, sample_rate, mut samples) = match decoded {
            Ok(result) => result.map_err(fail)?,
            Err(_) => return Err(fail("the decoder failed on malformed data".into())),
        };
        samples.truncate(samples.len() - samples.len() % channels as usize);
        ClipData::new(channels, sample_rate, samples).map_err(|e| match e {
            AudioError::Decode { reason, .. } => fail(reason),
            other => other,
        })
    }

    /// Reads and decodes a file: a regular file (a FIFO or device is refused
    /// without blocking) of at most [`MAX_SOUND_FILE_BYTES`]. The tools read
    /// sound files through the assets crate's guarded reader and call
    /// [`ClipData::decode`]; this is the same rule for library users (this
    /// crate may not depend on the loaders).
    ///
    /// # Errors
    /// [`AudioError::Io`] when the file cannot be read, else as [`ClipData::decode`].
    pub fn load(path: &Path) -> Result<Self, AudioError> {
        let io = |source| AudioError::Io { path: path.display().to_string(), source };
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(io(std::io::Error::other("not a regular file")));
        }
        if meta.len() > MAX_SOUND_FILE_BYTES {
            return Err(io(std::io::Error::other(format!("larger than {MAX_SOUND_FILE_BYTES} bytes"))));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::fs::File::open(path).map_err(io)?, MAX_SOUND_FILE_BYTES),
            &mut bytes,
        )
        .map_err(io)?;
        Self::decode(bytes, &path.display().to_string())
    }

    /// 1 or 2.
    #[must_use]
    pub fn channels(&self) -> u16 {
        self.channels
    }

    /// Frames per second of the data.
    #[must_use]
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// Interleaved samples.
    #[must_use]
    pub fn samples(&self) -> &[f32] {
        &self.samples
    }

    /// Number of frames.
    #[must_use]
    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels as usize
    }

    /// Length in seconds.
    #[must_use]
    pub fn duration(&self) -> f64 {
        self.frames() as f64 / self.sample_rate as f64
    }
}

/// Named decoded clips; the names are the variant `clip` strings of the profile.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClipBank {
    names: Vec<String>,
    clips: Vec<ClipData>,
}

impl ClipBank {
    /// An empty bank.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces the clip called `name`; returns its index.
    pub fn insert(&mut self, name: impl Into<String>, clip: ClipData) -> usize {
        let name = name.into();
        if let Some(i) = self.index_of(&name) {
            self.clips[i] = clip;
            i
        } else {
            self.names.push(name);
            self.clips.push(clip);
            self.clips.len() - 1
        }
    }

    /// Clip name → index, for set-up lookups (the first of equal names wins).
    pub(crate) fn name_index(&self) -> std::collections::HashMap<&str, usize> {
        let mut index = std::collections::HashMap::with_capacity(self.names.len());
        for (i, n) in self.names.iter().enumerate() {
            index.entry(n.as_str()).or_insert(i);
        }
        index
    }

    /// Index of the clip called `name`.
    #[must_use]
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Clip by index.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<&ClipData> {
        self.clips.get(index)
    }

    /// Number of clips.
    #[must_use]
    pub fn len(&self) -> usize {
        self.clips.len()
    }

    /// Whether the bank holds no clip.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.clips.is_empty()
    }

    /// Decodes every clip `table` names, relative to `base_dir`. Each distinct
    /// file is decoded once.
    ///
    /// # Errors
    /// The first file that cannot be read or decoded, or a bank over [`MAX_BANK_SAMPLES`].
    pub fn load_for_table(table: &SoundTable, base_dir: &Path) -> Result<Self, AudioError> {
        Self::load_for_table_with(table, |clip| ClipData::load(&base_dir.join(clip)))
    }

    /// [`ClipBank::load_for_table`] with the caller's loader (`clip` is the
    /// variant's clip string); each distinct clip is loaded once, and the
    /// bank's total is checked against [`MAX_BANK_SAMPLES`] after each clip.
    ///
    /// # Errors
    /// The loader's first error, or [`AudioError::Decode`] past the bank budget.
    pub fn load_for_table_with(
        table: &SoundTable,
        mut load: impl FnMut(&str) -> Result<ClipData, AudioError>,
    ) -> Result<Self, AudioError> {
        let mut bank = ClipBank::new();
        let mut seen = std::collections::HashSet::new();
        let mut total = 0usize;
        for row in table.rows() {
            for v in &row.row.variants {
                if seen.insert(v.clip.as_str()) {
                    let clip = load(&v.clip)?;
                    total = total.saturating_add(clip.samples.len());
                    if total > MAX_BANK_SAMPLES {
                        return Err(AudioError::Decode {
                            path: v.clip.clone(),
                            reason: format!(
                                "the clip bank would hold more than {MAX_BANK_SAMPLES} samples (the bank budget)"
                            ),
                        });
                    }
                    bank.names.push(v.clip.clone());
                    bank.clips.push(clip);
                }
            }
        }
        Ok(bank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wav_with_sample_rate_zero_is_a_decode_error_not_a_panic() {
        let mut wav = crate::wav::wav_bytes(1, 8000, &[0.0; 16]);
        wav[24..28].copy_from_slice(&0u32.to_le_bytes());
        let err = ClipData::decode(wav, "rate0.wav").unwrap_err().to_string();
        assert!(err.contains("sample rate of 0"), "{err}");
        let mut wav = crate::wav::wav_bytes(1, 8000, &[0.0; 16]);
        wav[22..24].copy_from_slice(&0u16.to_le_bytes());
        let err = ClipData::decode(wav, "mono0.wav").unwrap_err().to_string();
        assert!(err.contains("0 channels"), "{err}");
    }

    #[test]
    fn truncated_and_chunkless_wavs_are_errors() {
        let wav = crate::wav::wav_bytes(1, 8000, &[0.0; 16]);
        for cut in [12, 20, 30, 40] {
            assert!(ClipData::decode(wav[..cut].to_vec(), "cut.wav").is_err(), "cut at {cut}");
        }
    }
}
