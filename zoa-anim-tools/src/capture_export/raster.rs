//! A palette canvas with the few primitives the charts need: rectangles,
//! thick lines, dots and text in a built-in 3×5 bitmap font (drawn
//! upper-case, scaled by an integer factor).

use super::png;

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

/// 3×5 glyphs: five rows of three bits (bit 2 = left column).
const GLYPHS: &[(char, [u8; 5])] = &[
    ('A', [0b010, 0b101, 0b111, 0b101, 0b101]),
    ('B', [0b110, 0b101, 0b110, 0b101, 0b110]),
    ('C', [0b011, 0b100, 0b100, 0b100, 0b011]),
    ('D', [0b110, 0b101, 0b101, 0b101, 0b110]),
    ('E', [0b111, 0b100, 0b110, 0b100, 0b111]),
    ('F', [0b111, 0b100, 0b110, 0b100, 0b100]),
    ('G', [0b011, 0b100, 0b101, 0b101, 0b011]),
    ('H', [0b101, 0b101, 0b111, 0b101, 0b101]),
    ('I', [0b111, 0b010, 0b010, 0b010, 0b111]),
    ('J', [0b001, 0b001, 0b001, 0b101, 0b010]),
    ('K', [0b101, 0b101, 0b110, 0b101, 0b101]),
    ('L', [0b100, 0b100, 0b100, 0b100, 0b111]),
    ('M', [0b101, 0b111, 0b111, 0b101, 0b101]),
    ('N', [0b110, 0b101, 0b101, 0b101, 0b101]),
    ('O', [0b010, 0b101, 0b101, 0b101, 0b010]),
    ('P', [0b110, 0b101, 0b110, 0b100, 0b100]),
    ('Q', [0b010, 0b101, 0b101, 0b110, 0b011]),
    ('R', [0b110, 0b101, 0b110, 0b101, 0b101]),
    ('S', [0b011, 0b100, 0b010, 0b001, 0b110]),
    ('T', [0b111, 0b010, 0b010, 0b010, 0b010]),
    ('U', [0b101, 0b101, 0b101, 0b101, 0b111]),
    ('V', [0b101, 0b101, 0b101, 0b101, 0b010]),
    ('W', [0b101, 0b101, 0b111, 0b111, 0b101]),
    ('X', [0b101, 0b101, 0b010, 0b101, 0b101]),
    ('Y', [0b101, 0b101, 0b010, 0b010, 0b010]),
    ('Z', [0b111, 0b001, 0b010, 0b100, 0b111]),
    ('0', [0b111, 0b101, 0b101, 0b101, 0b111]),
    ('1', [0b010, 0b110, 0b010, 0b010, 0b111]),
    ('2', [0b110, 0b001, 0b010, 0b100, 0b111]),
    ('3', [0b110, 0b001, 0b010, 0b001, 0b110]),
    ('4', [0b101, 0b101, 0b111, 0b001, 0b001]),
    ('5', [0b111, 0b100, 0b110, 0b001, 0b110]),
    ('6', [0b011, 0b100, 0b111, 0b101, 0b111]),
    ('7', [0b111, 0b001, 0b010, 0b010, 0b010]),
    ('8', [0b111, 0b101, 0b111, 0b101, 0b111]),
    ('9', [0b111, 0b101, 0b111, 0b001, 0b110]),
    ('.', [0b000, 0b000, 0b000, 0b000, 0b010]),
    (',', [0b000, 0b000, 0b000, 0b010, 0b100]),
    (':', [0b000, 0b010, 0b000, 0b010, 0b000]),
    (';', [0b000, 0b010, 0b000, 0b010, 0b100]),
    ('-', [0b000, 0b000, 0b111, 0b000, 0b000]),
    ('_', [0b000, 0b000, 0b000, 0b000, 0b111]),
    ('=', [0b000, 0b111, 0b000, 0b111, 0b000]),
    ('+', [0b000, 0b010, 0b111, 0b010, 0b000]),
    ('/', [0b001, 0b001, 0b010, 0b100, 0b100]),
    ('(', [0b010, 0b100, 0b100, 0b100, 0b010]),
    (')', [0b010, 0b001, 0b001, 0b001, 0b010]),
    ('[', [0b110, 0b100, 0b100, 0b100, 0b110]),
    (']', [0b011, 0b001, 0b001, 0b001, 0b011]),
    ('<', [0b001, 0b010, 0b100, 0b010, 0b001]),
    ('>', [0b100, 0b010, 0b001, 0b010, 0b100]),
    ('%', [0b101, 0b001, 0b010, 0b100, 0b101]),
    ('\'', [0b010, 0b010, 0b000, 0b000, 0b000]),
    ('"', [0b101, 0b101, 0b000, 0b000, 0b000]),
    ('#', [0b101, 0b111, 0b101, 0b111, 0b101]),
    ('!', [0b010, 0b010, 0b010, 0b000, 0b010]),
    ('?', [0b110, 0b001, 0b010, 0b000, 0b010]),
    ('|', [0b010, 0b010, 0b010, 0b010, 0b010]),
    ('*', [0b000, 0b101, 0b010, 0b101, 0b000]),
    ('&', [0b010, 0b101, 0b010, 0b101, 0b011]),
    ('@', [0b010, 0b101, 0b111, 0b100, 0b011]),
];

fn glyph(c: char) -> [u8; 5] {
    if c == ' ' {
        return [0; 5];
    }
    let up = c.to_ascii_uppercase();
    GLYPHS.iter().find(|(g, _)| *g == up).map_or([0b111, 0b101, 0b101, 0b101, 0b111], |(_, rows)| *rows)
}

/// Width in pixels of `text` at `scale`.
pub(crate) fn text_width(text: &str, scale: i32) -> i32 {
    let n = text.chars().count() as i32;
    if n == 0 { 0 } else { n * 4 * scale - scale }
}

/// A `width × height` image of palette indices.
#[derive(Debug, Clone)]
pub(crate) struct Canvas {
    pub width: i32,
    pub height: i32,
    pixels: Vec<u8>,
}

impl Canvas {
    pub(crate) fn new(width: i32, height: i32, background: u8) -> Canvas {
        let (w, h) = (width.max(1), height.max(1));
        Canvas { width: w, height: h, pixels: vec![background; (w * h) as usize] }
    }

    pub(crate) fn set(&mut self, x: i32, y: i32, c: u8) {
        if x >= 0 && y >= 0 && x < self.width && y < self.height {
            self.pixels[(y * self.width + x) as usize] = c;
        }
    }

    pub(crate) fn rect(&mut self, x: i32, y: i32, w: i32, h: i32, c: u8) {
        for yy in y.max(0)..(y + h).min(self.height) {
            for xx in x.max(0)..(x + w).min(self.width) {
                self.pixels[(yy * self.width + xx) as usize] = c;
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

    /// Draws `text` with its top-left corner at `(x, y)`.
    pub(crate) fn text(&mut self, x: i32, y: i32, text: &str, scale: i32, c: u8) {
        for (i, ch) in text.chars().enumerate() {
            let rows = glyph(ch);
            let gx = x + i as i32 * 4 * scale;
            for (ry, bits) in rows.iter().enumerate() {
                for rx in 0..3 {
                    if bits & (0b100 >> rx) != 0 {
                        self.rect(gx + rx * scale, y + ry as i32 * scale, scale, scale, c);
                    }
                }
            }
        }
    }

    pub(crate) fn to_png(&self) -> Vec<u8> {
        png::encode_indexed(self.width as u32, self.height as u32, &self.pixels, &PALETTE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glyph_is_distinct() {
        for (i, (a, ga)) in GLYPHS.iter().enumerate() {
            for (b, gb) in &GLYPHS[i + 1..] {
                assert_ne!(ga, gb, "`{a}` and `{b}` look the same");
            }
        }
    }

    #[test]
    fn text_and_lines_stay_inside_the_canvas() {
        let mut c = Canvas::new(20, 10, 0);
        c.text(-5, -2, "HELLO WORLD", 2, INK);
        c.line(-10, -10, 30, 30, 3, INK);
        assert_eq!(c.pixels.len(), 200);
        assert!(c.pixels.contains(&INK));
    }
}
