//! The labels' typeface: Liberation Sans, built into the binary (SIL OFL 1.1,
//! `fonts/OFL.txt`). Its widths are Helvetica's, so the service's 3 pt Helvetica
//! sheet keeps its text where it was; its glyphs write Latin, Greek and Cyrillic
//! names (`Côté`, `Québec`). Each style's glyphs and widths are read once.

use std::sync::OnceLock;

use ahash::AHashMap;
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};

/// Regular for most lines; italic for a binomial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    Regular,
    Italic,
}

impl Style {
    pub const ALL: [Style; 2] = [Style::Regular, Style::Italic];

    pub fn face(self) -> &'static Face {
        static FACES: [OnceLock<Face>; 2] = [OnceLock::new(), OnceLock::new()];
        let (slot, data, name) = match self {
            Style::Regular => (
                &FACES[0],
                &include_bytes!("fonts/LiberationSans-Regular.ttf")[..],
                "LiberationSans",
            ),
            Style::Italic => (
                &FACES[1],
                &include_bytes!("fonts/LiberationSans-Italic.ttf")[..],
                "LiberationSans-Italic",
            ),
        };
        slot.get_or_init(|| Face::read(data, name))
    }
}

/// One style of the typeface: its file, and what laying text out needs of it.
pub struct Face {
    pub data: &'static [u8],
    /// The PostScript name the PDF gives it.
    pub name: &'static str,
    /// Each character's glyph and advance, in ems.
    glyphs: AHashMap<char, (u16, f32)>,
    /// Ascent, descent (negative), cap height and italic angle, in ems or degrees.
    pub ascent: f32,
    pub descent: f32,
    pub cap_height: f32,
    pub italic_angle: f32,
    /// The glyphs' bounding box, in thousandths of an em.
    pub bbox: [f32; 4],
}

impl Face {
    fn read(data: &'static [u8], name: &'static str) -> Face {
        let font = FontRef::new(data).expect("the built-in font is a font");
        let metrics = font.metrics(Size::unscaled(), LocationRef::default());
        let em = f32::from(metrics.units_per_em);
        let advances = font.glyph_metrics(Size::unscaled(), LocationRef::default());
        let glyphs = font
            .charmap()
            .mappings()
            .filter_map(|(code, gid)| {
                let c = char::from_u32(code)?;
                let gid = u16::try_from(gid.to_u32()).ok()?;
                Some((
                    c,
                    (gid, advances.advance_width(gid.into()).unwrap_or(0.0) / em),
                ))
            })
            .collect();
        let bbox = metrics.bounds.map_or([0.0, -250.0, 1000.0, 1000.0], |b| {
            [b.x_min, b.y_min, b.x_max, b.y_max].map(|v| v / em * 1000.0)
        });
        Face {
            data,
            name,
            glyphs,
            ascent: metrics.ascent / em,
            descent: metrics.descent / em,
            cap_height: metrics.cap_height.unwrap_or(metrics.ascent) / em,
            italic_angle: metrics.italic_angle,
            bbox,
        }
    }

    /// The glyph of `c` (0, the font's "missing" glyph, when it has none) and its
    /// advance in ems.
    pub fn glyph(&self, c: char) -> (u16, f32) {
        self.glyphs.get(&c).copied().unwrap_or((0, 0.5))
    }

    /// Whether every character of `text` has a glyph.
    pub fn writes(&self, text: &str) -> bool {
        text.chars().all(|c| self.glyphs.contains_key(&c))
    }

    /// How wide `text` is at `size` points.
    pub fn width(&self, text: &str, size: f32) -> f32 {
        self.measure(text).0 * size
    }

    /// How wide `text` is in ems, and whether every character has a glyph.
    pub fn measure(&self, text: &str) -> (f32, bool) {
        text.chars()
            .fold((0.0, true), |(em, all), c| match self.glyphs.get(&c) {
                Some(&(_, advance)) => (em + advance, all),
                None => (em + 0.5, false),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_helveticas_and_accents_are_written() {
        let face = Style::Regular.face();
        // Helvetica's AFM: "0" is 556 units, "M" 833, "-" 333.
        assert!((face.width("0", 1000.0) - 556.0).abs() < 0.6);
        assert!((face.width("M-", 1000.0) - 1166.0).abs() < 1.2);
        assert!(face.writes("Côté, Québec, Jacques-Cartier, Ñuñoa, Łódź"));
        assert!(Style::Italic.face().writes("Côté"));
        assert!(!face.writes("蝶"));
    }
}
