//! QR codes as the labels draw them: the symbol's dark modules as horizontal
//! runs, inside a quiet zone of four modules that the code's square includes
//! (as the service's drawing did), so a reader finds it next to a label's border.
//!
//! The symbol's mask is the one of the eight with the lowest penalty (ISO/IEC
//! 18004's four rules), as every encoder chooses it; the penalties are counted
//! here on a plain grid of booleans, faster than the `qrcode` crate's own
//! choice, which took 70% of a sheet's time (its scores differ from these on
//! about one symbol in six; either choice is a valid symbol).

use qrcode::canvas::{Canvas, MaskPattern};
use qrcode::{bits, ec, Color, EcLevel};

/// The eight masks of a (not micro) QR symbol.
const MASKS: [MaskPattern; 8] = [
    MaskPattern::Checkerboard,
    MaskPattern::HorizontalLines,
    MaskPattern::VerticalLines,
    MaskPattern::DiagonalLines,
    MaskPattern::LargeCheckerboard,
    MaskPattern::Fields,
    MaskPattern::Diamonds,
    MaskPattern::Meadow,
];

/// Modules of white around the symbol, inside the drawn square.
pub const QUIET: usize = 4;

/// An encoded QR symbol.
#[derive(Clone, Debug)]
pub struct Symbol {
    /// Modules on a side, without the quiet zone.
    pub width: usize,
    /// Dark runs: row, first column, length (in modules, quiet zone excluded).
    pub runs: Vec<(u16, u16, u16)>,
}

impl Symbol {
    /// The most bytes a code holds at level M (version 40).
    pub const MAX_BYTES: usize = 2331;

    /// Encodes `text` at error correction level M (15% of the code may be lost).
    /// `None` when it is too long for any QR version (over 2,331 bytes at M).
    pub fn encode(text: &str) -> Option<Symbol> {
        let bits = bits::encode_auto(text.as_bytes(), EcLevel::M).ok()?;
        let version = bits.version();
        let (data, correction) =
            ec::construct_codewords(&bits.into_bytes(), version, EcLevel::M).ok()?;
        let width = version.width() as usize;
        let colors: Vec<Color> = match width <= BITS_UP_TO {
            true => {
                let mut canvas = Canvas::new(version, EcLevel::M);
                canvas.draw_all_functional_patterns();
                canvas.draw_data(&data, &correction);
                MASKS
                    .iter()
                    .map(|&mask| {
                        let mut masked = canvas.clone();
                        masked.apply_mask(mask);
                        let colors = masked.into_colors();
                        (penalty(&colors, width), colors)
                    })
                    .min_by_key(|(p, _)| *p)?
                    .1
            }
            false => qrcode::QrCode::with_error_correction_level(text, EcLevel::M)
                .ok()?
                .to_colors(),
        };
        let mut runs = Vec::new();
        for (row, line) in colors.chunks(width).enumerate() {
            let mut x = 0;
            while x < width {
                if line[x] == Color::Dark {
                    let start = x;
                    while x < width && line[x] == Color::Dark {
                        x += 1;
                    }
                    runs.push((row as u16, start as u16, (x - start) as u16));
                } else {
                    x += 1;
                }
            }
        }
        Some(Symbol { width, runs })
    }

    /// Modules on a side of the drawn square, quiet zone included.
    pub fn span(&self) -> usize {
        self.width + 2 * QUIET
    }
}

/// The widest symbol whose penalty is counted on rows of bits (version 26); a
/// wider one (an address of over 900 bytes) takes the `qrcode` crate's choice.
const BITS_UP_TO: usize = 120;

/// ISO/IEC 18004's penalty of a masked symbol (`colors`, row by row, `n` a side):
/// runs of five or more alike (N1 + the run past five), 2 x 2 blocks alike (3
/// each), finder-like 1:1:3:1:1 patterns with four light modules on a side (40
/// each), and 10 for each 5% the dark share is away from half. Counted on each
/// row and column as bits, with the light quiet zone around them.
fn penalty(colors: &[Color], n: usize) -> u32 {
    let mut rows = vec![0u128; n];
    let mut columns = vec![0u128; n];
    for (y, line) in colors.chunks_exact(n).enumerate() {
        let mut bits = 0u128;
        for (x, &c) in line.iter().enumerate() {
            let dark = u128::from(c == Color::Dark);
            bits |= dark << x;
            columns[x] |= dark << y;
        }
        rows[y] = bits;
    }
    let width = (1u128 << n) - 1;
    let mut score = 0;
    for line in rows.iter().chain(&columns) {
        let (d, l) = (*line, !*line & width);
        // Rule 1: a run of L >= 5 scores L - 2: (L - 4) five-long windows, plus 2.
        for c in [d, l] {
            let five = c & (c >> 1) & (c >> 2) & (c >> 3) & (c >> 4);
            let starts = five & !(five << 1);
            score += five.count_ones() + 2 * starts.count_ones();
        }
        // Rule 3: 1011101 with 0000 before or after, outside the symbol light.
        let y = d << 4;
        let light = !y;
        let finder = y & (light >> 1) & (y >> 2) & (y >> 3) & (y >> 4) & (light >> 5) & (y >> 6);
        let four_light = light & (light >> 1) & (light >> 2) & (light >> 3);
        let before = finder & (four_light << 4);
        let after = finder & (four_light >> 7);
        score += 40 * (before.count_ones() + after.count_ones());
    }
    // Rule 2: each 2 x 2 block of one colour.
    let pairs = (1u128 << (n - 1)) - 1;
    for w in rows.windows(2) {
        let (a, b) = (w[0], w[1]);
        let dark_blocks = a & b & (a >> 1) & (b >> 1) & pairs;
        let (la, lb) = (!a & width, !b & width);
        let light_blocks = la & lb & (la >> 1) & (lb >> 1) & pairs;
        score += 3 * (dark_blocks.count_ones() + light_blocks.count_ones());
    }
    // Rule 4: the dark share.
    let darks: u32 = rows.iter().map(|r| r.count_ones()).sum();
    let percent = darks as usize * 100 / (n * n);
    score + (percent.abs_diff(50) / 5 * 10) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_address_is_a_small_symbol_of_runs() {
        let s = Symbol::encode("www.memcollection.com/s/000001").unwrap();
        assert_eq!(s.width, 29, "30 bytes at level M take version 3");
        assert_eq!(s.span(), 37);
        // The finder pattern's top row: seven dark modules at each end.
        assert!(s.runs.contains(&(0, 0, 7)));
        assert!(s.runs.contains(&(0, 22, 7)));
        assert!(Symbol::encode(&"x".repeat(3000)).is_none());
    }
}
