//! A canvas with the few primitives the charts need: rectangles, thick
//! lines, dots in palette colours, and anti-aliased text in an embedded
//! TrueType font (rasterized by `fontdue`); encoded by the `png` crate.

use std::sync::OnceLock;

/// Palette: background, ink, grid, muted text, then series colours.
pub(crate) const PALETTE: [[u8; 3]; 20] = [
    [255, 255, 255], // 0 background
    [30, 30, 36],    // 1 ink
    [228, 228, 232], // 2 grid
    [120, 120, 130], // 3 muted
    [246, 246, 248], // 4 panel
    [31, 119, 180],  // 5 blue
    [255, 127, 14],  // 6 orange
    [44, 160, 44],   // 7 green
    [214, 39, 40],   // 8 red
    [148, 103, 189], // 9 purple
    [140, 86, 75],   // 10 brown
    [227, 119, 194], // 11 pink
    [127, 127, 127], // 12 grey
    [188, 189, 34],  // 13 olive
    [23, 190, 207],  // 14 cyan
    [0, 80, 160],    // 15 dark blue
    [200, 90, 0],    // 16 dark orange
    [0, 120, 60],    // 17 dark green
    [170, 20, 30],   // 18 dark red
    [90, 60, 140],   // 19 dark purple
];

/// Ink colour index.
pub(crate) const INK: u8 = 1;
/// Grid colour index.
pub(crate) const GRID: u8 = 2;
/// Muted text colour index.
pub(crate) const MUTED: u8 = 3;
/// Panel background colour index.
pub(crate) const PANEL: u8 = 4;

/// The `i`-th series colour (cycles through 15).
pub(crate) fn series_color(i: usize) -> u8 {
    5 + (i % 15) as u8
}

/// The charts' typeface: DejaVu Sans, subset to the characters the charts
/// use (licence in `font/LICENSE`).
static FONT_BYTES: &[u8] = include_bytes!("font/DejaVuSans-subset.ttf");

fn font() -> &'static fontdue::Font {
    static FONT: OnceLock<fontdue::Font> = OnceLock::new();
    FONT.get_or_init(|| {
        fontdue::Font::from_bytes(FONT_BYTES, fontdue::FontSettings::default())
            .expect("the embedded font is a valid TrueType file (tested)")
    })
}

/// Pixel size of the font at a text `scale` (1 = small labels, 2 = titles
/// of sections, 3 = the chart's title).
fn px(scale: i32) -> f32 {
    match scale {
        ..=1 => 11.0,
        2 => 14.0,
        s => 6.0 * s as f32,
    }
}

/// Height of the box a line of text is centred in: `scale` × 5 pixels (the
/// charts' layout units).
fn box_height(scale: i32) -> i32 {
    5 * scale.max(1)
}

/// Width in pixels of `text` at `scale`.
pub(crate) fn text_width(text: &str, scale: i32) -> i32 {
    let size = px(scale);
    text.chars().map(|c| font().metrics(c, size).advance_width).sum::<f32>().ceil() as i32
}

/// A `width × height` RGB image, drawn with palette colours.
#[derive(Debug, Clone)]
pub(crate) struct Canvas {
    pub width: i32,
    pub height: i32,
    pixels: Vec<[u8; 3]>,
}

impl Canvas {
    pub(crate) fn new(width: i32, height: i32, background: u8) -> Canvas {
        let (w, h) = (width.max(1), height.max(1));
        Canvas { width: w, height: h, pixels: vec![PALETTE[usize::from(background)]; (w * h) as usize] }
    }

    pub(crate) fn set(&mut self, x: i32, y: i32, c: u8) {
        if x >= 0 && y >= 0 && x < self.width && y < self.height {
            self.pixels[(y * self.width + x) as usize] = PALETTE[usize::from(c)];
        }
    }

    pub(crate) fn rect(&mut self, x: i32, y: i32, w: i32, h: i32, c: u8) {
        for yy in y.max(0)..(y + h).min(self.height) {
            for xx in x.max(0)..(x + w).min(self.width) {
                self.pixels[(yy * self.width + xx) as usize] = PALETTE[usize::from(c)];
            }
        }
    }

    pub(crate) fn frame(&mut self, x: i32, y: i32, w: i32, h: i32, c: u8) {
        self.rect(x, y, w, 1, c);
        self.rect(x, y + h - 1, w, 1, c);
        self.rect(x, y, 1, h, c);
        self.rect(x + w - 1, y, 1, h, c);
    }

    /// A line `thickness` pixels wide (square brush), Bresenham.
    pub(crate) fn line(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, thickness: i32, c: u8) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        let r0 = (thickness - 1) / 2;
        loop {
            self.rect(x - r0, y - r0, thickness, thickness, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// A vertical dashed line.
    pub(crate) fn dashed_vline(&mut self, x: i32, y0: i32, y1: i32, c: u8) {
        for y in y0..y1 {
            if (y - y0) % 6 < 3 {
                self.set(x, y, c);
            }
        }
    }

    pub(crate) fn dot(&mut self, x: i32, y: i32, r: i32, c: u8) {
        for yy in -r..=r {
            for xx in -r..=r {
                if xx * xx + yy * yy <= r * r {
                    self.set(x + xx, y + yy, c);
                }
            }
        }
    }

    /// Draws `text` starting at `x`, vertically centred in the line box
    /// `y .. y + 5·scale` (anti-aliased over what is below).
    pub(crate) fn text(&mut self, x: i32, y: i32, text: &str, scale: i32, c: u8) {
        let font = font();
        let size = px(scale);
        // Centre the capital height on the line box; descenders hang below.
        let cap = font.metrics('H', size).height as i32;
        let baseline = y + (box_height(scale) + cap) / 2;
        let ink = PALETTE[usize::from(c)];
        let mut pen = x as f32;
        for ch in text.chars() {
            let (m, coverage) = font.rasterize(ch, size);
            let left = pen.round() as i32 + m.xmin;
            let top = baseline - m.ymin - m.height as i32;
            for (row, line) in coverage.chunks(m.width.max(1)).enumerate() {
                for (col, &a) in line.iter().enumerate() {
                    self.blend(left + col as i32, top + row as i32, ink, a);
                }
            }
            pen += m.advance_width;
        }
    }

    /// Mixes `ink` over the pixel at `(x, y)` with coverage `a` (0..=255).
    fn blend(&mut self, x: i32, y: i32, ink: [u8; 3], a: u8) {
        if a == 0 || x < 0 || y < 0 || x >= self.width || y >= self.height {
            return;
        }
        let p = &mut self.pixels[(y * self.width + x) as usize];
        for (dst, src) in p.iter_mut().zip(ink) {
            let mixed = (u32::from(*dst) * u32::from(255 - a) + u32::from(src) * u32::from(a) + 127) / 255;
            *dst = mixed as u8;
        }
    }

    /// The image as a PNG file (8-bit RGB).
    pub(crate) fn to_png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width as u32, self.height as u32);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let data: Vec<u8> = self.pixels.iter().flatten().copied().collect();
        // Writing into memory cannot fail for an image whose size matches its header.
        let mut writer = encoder.write_header().expect("PNG header into memory");
        writer.write_image_data(&data).expect("PNG data into memory");
        writer.finish().expect("PNG end into memory");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_font_has_every_printable_ascii_character() {
        let f = font();
        for c in ' '..='~' {
            assert_ne!(f.lookup_glyph_index(c), 0, "`{c}` is missing from the embedded font");
        }
        assert!(text_width("Hello", 1) > text_width("Hi", 1));
        assert!(text_width("Hello", 2) > text_width("Hello", 1));
    }

    #[test]
    fn text_and_lines_stay_inside_the_canvas() {
        let mut c = Canvas::new(20, 10, 0);
        c.text(-5, -2, "Hello world", 2, INK);
        c.line(-10, -10, 30, 30, 3, INK);
        assert_eq!(c.pixels.len(), 200);
        assert!(c.pixels.contains(&PALETTE[usize::from(INK)]));
    }
}
