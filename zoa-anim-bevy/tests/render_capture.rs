//! The `bevy_character` example rendered: checks two window captures made by
//! `--script sprint --screenshot-at 0.5,1.5 --out DIR --exit` (CI runs it
//! under `xvfb-run` on a software Vulkan driver, see
//! `scripts/check-render.sh`, then this test with `ZOA_RENDER_CAPTURES=DIR`).
//! Both PNGs exist, the character covers a plausible share of the pixels
//! (not only the clear colour), and the two frames differ inside the
//! character's bounds (it moved). Without `ZOA_RENDER_CAPTURES` there is
//! nothing to check (this test needs a display), so it says so and passes.
#![cfg(feature = "render")]

use std::path::{Path, PathBuf};

use bevy::asset::RenderAssetUsages;
use bevy::image::{CompressedImageFormats, Image, ImageSampler, ImageType};

/// A channel differing by more than this (of 255) is a different colour.
const THRESHOLD: u8 = 24;

struct Frame {
    width: usize,
    height: usize,
    /// RGBA8, row by row.
    rgba: Vec<u8>,
}

impl Frame {
    fn load(path: &Path) -> Frame {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let image = Image::from_buffer(
            &bytes,
            ImageType::Extension("png"),
            CompressedImageFormats::NONE,
            true,
            ImageSampler::Default,
            RenderAssetUsages::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (width, height) = (image.width() as usize, image.height() as usize);
        let rgba = image.data.unwrap_or_default();
        assert_eq!(rgba.len(), width * height * 4, "{}: RGBA8 pixels", path.display());
        Frame { width, height, rgba }
    }
    fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * 4;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }
}

fn differs(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).any(|(&a, b)| a.abs_diff(b) > THRESHOLD)
}

#[test]
fn the_rendered_character_is_visible_and_moves() {
    let Some(dir) = std::env::var_os("ZOA_RENDER_CAPTURES").map(PathBuf::from) else {
        eprintln!("note: ZOA_RENDER_CAPTURES not set (no captures to check; see scripts/check-render.sh)");
        return;
    };
    let frames: Vec<Frame> =
        ["sprint-0.50s.png", "sprint-1.50s.png"].iter().map(|name| Frame::load(&dir.join(name))).collect();
    let (a, b) = (&frames[0], &frames[1]);
    assert_eq!((a.width, a.height), (b.width, b.height), "same window size");
    assert!(a.width >= 64 && a.height >= 64, "a real window: {}x{}", a.width, a.height);

    // The background is the corner colour (the clear colour after tonemapping);
    // the character is whatever differs from it.
    let background = a.pixel(0, 0);
    assert!(!differs(background, b.pixel(0, 0)), "the same background in both frames");
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for (name, f) in [("0.5 s", a), ("1.5 s", b)] {
        let mut covered = 0;
        for y in 0..f.height {
            for x in 0..f.width {
                if differs(f.pixel(x, y), background) {
                    covered += 1;
                    (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
                }
            }
        }
        let share = covered as f64 / (f.width * f.height) as f64;
        eprintln!("{name}: the character covers {:.1}% of the pixels", share * 100.0);
        assert!((0.01..=0.6).contains(&share), "{name}: the character covers {:.2}% of the pixels", share * 100.0);
    }
    // Inside the character's bounds (both frames), the pose changed.
    let mut changed = 0;
    for y in y0..=y1 {
        for x in x0..=x1 {
            changed += usize::from(differs(a.pixel(x, y), b.pixel(x, y)));
        }
    }
    let area = (x1 - x0 + 1) * (y1 - y0 + 1);
    let share = changed as f64 / area as f64;
    eprintln!("bounds {x0},{y0}..{x1},{y1}: {:.1}% of the pixels changed between the frames", share * 100.0);
    assert!(share >= 0.02, "only {:.2}% of the character's bounds changed between 0.5 s and 1.5 s", share * 100.0);
}
