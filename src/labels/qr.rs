//! QR codes as the labels draw them: the symbol's dark modules as horizontal
//! runs, inside a quiet zone of four modules that the code's square includes
//! (as the service's drawing did), so a reader finds it next to a label's border.

use qrcode::{Color, EcLevel, QrCode};

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
        let code = QrCode::with_error_correction_level(text, EcLevel::M).ok()?;
        let width = code.width();
        let colors = code.to_colors();
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
