//! The fonts of `render`: DejaVu Sans and DejaVu Sans Bold, compiled into the binary
//! from `data/fonts/` (Bitstream Vera licence, `data/fonts/LICENSE-DejaVu.txt`), so a
//! book looks the same on every machine and no system font is looked up at run time.
//!
//! The layout measures text with these metrics and the writers draw these glyphs
//! (PDF embeds them, SVG and PNG draw their outlines): one source of truth for where
//! ink goes.

use ttf_parser::{Face, GlyphId, OutlineBuilder};

/// DejaVu Sans, as shipped by the DejaVu project (fonts-dejavu-core).
pub const REGULAR_TTF: &[u8] = include_bytes!("../../data/fonts/DejaVuSans.ttf");
/// DejaVu Sans Bold.
pub const BOLD_TTF: &[u8] = include_bytes!("../../data/fonts/DejaVuSans-Bold.ttf");

/// Which of the two faces a text is set in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Weight {
    Regular,
    Bold,
}

impl Weight {
    pub const ALL: [Weight; 2] = [Weight::Regular, Weight::Bold];

    /// The font's PostScript name.
    pub fn postscript_name(self) -> &'static str {
        match self {
            Weight::Regular => "DejaVuSans",
            Weight::Bold => "DejaVuSans-Bold",
        }
    }

    /// The font file's bytes.
    pub fn data(self) -> &'static [u8] {
        match self {
            Weight::Regular => REGULAR_TTF,
            Weight::Bold => BOLD_TTF,
        }
    }
}

/// Both faces, parsed once.
pub struct Fonts {
    regular: Face<'static>,
    bold: Face<'static>,
}

impl Fonts {
    pub fn new() -> Fonts {
        let parse = |w: Weight| Face::parse(w.data(), 0).expect("the shipped font parses");
        Fonts {
            regular: parse(Weight::Regular),
            bold: parse(Weight::Bold),
        }
    }

    pub fn face(&self, weight: Weight) -> &Face<'static> {
        match weight {
            Weight::Regular => &self.regular,
            Weight::Bold => &self.bold,
        }
    }

    /// The glyph of `ch` (0, the .notdef box, for a character the font lacks; every
    /// character the layout writes is in DejaVu Sans).
    pub fn glyph(&self, weight: Weight, ch: char) -> u16 {
        self.face(weight).glyph_index(ch).map_or(0, |g| g.0)
    }

    /// Font units per em.
    pub fn units_per_em(&self, weight: Weight) -> f32 {
        f32::from(self.face(weight).units_per_em())
    }

    /// Advance width of glyph `gid`, in font units.
    pub fn advance(&self, weight: Weight, gid: u16) -> f32 {
        f32::from(
            self.face(weight)
                .glyph_hor_advance(GlyphId(gid))
                .unwrap_or(0),
        )
    }

    /// Width of `text` set at `size` points, in points (no kerning: digits and the
    /// short captions of a puzzle book do not need it).
    pub fn width(&self, weight: Weight, text: &str, size: f32) -> f32 {
        let units: f32 = text
            .chars()
            .map(|c| self.advance(weight, self.glyph(weight, c)))
            .sum();
        units * size / self.units_per_em(weight)
    }

    /// Height of capitals and digits above the baseline at `size` points.
    pub fn cap_height(&self, weight: Weight, size: f32) -> f32 {
        let face = self.face(weight);
        let cap = face
            .capital_height()
            .unwrap_or((f32::from(face.ascender()) * 0.7) as i16);
        f32::from(cap) * size / self.units_per_em(weight)
    }

    /// Depth below the baseline reached by descenders at `size` points (positive).
    pub fn descent(&self, weight: Weight, size: f32) -> f32 {
        -f32::from(self.face(weight).descender()) * size / self.units_per_em(weight)
    }

    /// Feeds the outline of glyph `gid` (font units, y up) to `builder`.
    pub fn outline(&self, weight: Weight, gid: u16, builder: &mut dyn OutlineBuilder) {
        self.face(weight).outline_glyph(GlyphId(gid), builder);
    }
}

impl Default for Fonts {
    fn default() -> Self {
        Fonts::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symbol_has_a_glyph_and_digits_share_a_width() {
        let fonts = Fonts::new();
        for w in Weight::ALL {
            for c in "123456789ABCDEFGHIJKLMNOP0#.·–SolutinsPage".chars() {
                assert_ne!(fonts.glyph(w, c), 0, "{c:?} in {w:?}");
            }
            let one = fonts.width(w, "1", 10.0);
            assert!(one > 4.0 && one < 8.0, "{one}");
            assert_eq!(one, fonts.width(w, "8", 10.0), "tabular digits");
            let cap = fonts.cap_height(w, 10.0);
            assert!(cap > 6.0 && cap < 8.0, "{cap}");
        }
    }
}
