//! Decoded sound data. Clips are decoded once (WAV and Ogg Vorbis through
//! rodio's decoders) into interleaved `f32` buffers at their own sample rate;
//! the player resamples while mixing, so decoding never happens on the mix path.

use std::io::Cursor;
use std::path::Path;

use rodio::Source;

use crate::AudioError;
use crate::resolver::SoundTable;

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
    pub fn decode(bytes: Vec<u8>, name: &str) -> Result<Self, AudioError> {
        let fail = |reason: String| AudioError::Decode { path: name.to_owned(), reason };
        let decoder = rodio::Decoder::new(Cursor::new(bytes)).map_err(|e| fail(e.to_string()))?;
        let channels = decoder.channels().get();
        let sample_rate = decoder.sample_rate().get();
        if channels > 2 {
            return Err(fail(format!("{channels} channels; only mono and stereo are supported")));
        }
        // `rodio::Sample` is f64 under rodio's `64bit` feature.
        #[allow(clippy::unnecessary_cast)]
        let mut samples: Vec<f32> = decoder.map(|s| s as f32).collect();
        samples.truncate(samples.len() - samples.len() % channels as usize);
        ClipData::new(channels, sample_rate, samples).map_err(|e| match e {
            AudioError::Decode { reason, .. } => fail(reason),
            other => other,
        })
    }

    /// Reads and decodes a file.
    ///
    /// # Errors
    /// [`AudioError::Io`] when the file cannot be read, else as [`ClipData::decode`].
    pub fn load(path: &Path) -> Result<Self, AudioError> {
        let bytes =
            std::fs::read(path).map_err(|source| AudioError::Io { path: path.display().to_string(), source })?;
        Self::decode(bytes, &path.display().to_string())
    }

    /// 1 or 2.
    pub fn channels(&self) -> u16 {
        self.channels
    }

    /// Frames per second of the data.
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// Interleaved samples.
    pub fn samples(&self) -> &[f32] {
        &self.samples
    }

    /// Number of frames.
    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels as usize
    }

    /// Length in seconds.
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

    /// Index of the clip called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Clip by index.
    pub fn get(&self, index: usize) -> Option<&ClipData> {
        self.clips.get(index)
    }

    /// Number of clips.
    pub fn len(&self) -> usize {
        self.clips.len()
    }

    /// Whether the bank holds no clip.
    pub fn is_empty(&self) -> bool {
        self.clips.is_empty()
    }

    /// Decodes every clip `table` names, relative to `base_dir`. Each distinct
    /// file is decoded once.
    ///
    /// # Errors
    /// The first file that cannot be read or decoded.
    pub fn load_for_table(table: &SoundTable, base_dir: &Path) -> Result<Self, AudioError> {
        let mut bank = ClipBank::new();
        for row in table.rows() {
            for v in &row.row.variants {
                if bank.index_of(&v.clip).is_none() {
                    let clip = ClipData::load(&base_dir.join(&v.clip))?;
                    bank.insert(v.clip.clone(), clip);
                }
            }
        }
        Ok(bank)
    }
}
