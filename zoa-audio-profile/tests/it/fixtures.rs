use zoa_audio_profile::ClipData;
use zoa_audio_profile::fixtures::{FIXTURE_RATE, fixture_sounds};

use crate::common::workspace_root;

/// The committed `fixtures/sounds/*.wav` are exactly what the generator makes
/// (regenerate with `zoa-anim sound gen-fixtures --force`).
#[test]
fn committed_fixtures_equal_a_fresh_generation() {
    let dir = workspace_root().join("fixtures/sounds");
    for s in fixture_sounds() {
        let path = dir.join(s.name);
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(committed == s.wav(), "{} differs from a fresh generation", s.name);
    }
}

#[test]
fn generation_is_deterministic_and_decodes() {
    let a = fixture_sounds();
    let b = fixture_sounds();
    assert_eq!(a, b);
    for s in &a {
        let clip = ClipData::decode(s.wav(), s.name).unwrap();
        assert_eq!((clip.channels(), clip.sample_rate()), (s.channels, FIXTURE_RATE), "{}", s.name);
        assert_eq!(clip.frames(), s.samples.len() / s.channels as usize);
        let peak = clip.samples().iter().fold(0.0f32, |m, x| m.max(x.abs()));
        assert!(peak > 0.05 && peak <= 0.95, "{} peak {peak}", s.name);
    }
}

#[test]
fn corrupt_sound_files_are_decode_errors() {
    let err = ClipData::decode(b"RIFF\x00\x00\x00\x00WAVEjunk".to_vec(), "bad.wav").unwrap_err();
    assert!(err.to_string().contains("bad.wav"), "{err}");
    let err = ClipData::load(std::path::Path::new("/nonexistent/x.wav")).unwrap_err();
    assert!(err.to_string().contains("cannot read"), "{err}");
}

/// Ogg Vorbis goes through rodio's (symphonia) decoder too. No project code
/// can encode Vorbis, so this reads an optional sample: `$ZOA_OGG_SAMPLE`, or
/// the freedesktop sound theme's bell (Debian `sound-theme-freedesktop`);
/// it skips with a note when neither exists.
#[test]
fn ogg_vorbis_decodes_when_a_sample_is_available() {
    let path = std::env::var_os("ZOA_OGG_SAMPLE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/usr/share/sounds/freedesktop/stereo/bell.oga".into());
    if !path.is_file() {
        eprintln!("note: no Ogg Vorbis sample at {}; skipping", path.display());
        return;
    }
    let clip = ClipData::load(&path).unwrap();
    assert!((1..=2).contains(&clip.channels()));
    assert!(clip.frames() > 1000 && clip.sample_rate() >= 8000);
    let peak = clip.samples().iter().fold(0.0f32, |m, x| m.max(x.abs()));
    assert!(peak > 0.01 && peak <= 1.0, "peak {peak}");
}
