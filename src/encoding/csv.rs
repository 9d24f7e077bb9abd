//! CSV as RFC 4180 spells it: cells separated by commas, records ended by CRLF,
//! and a cell quoted (its quotes doubled) only when it holds a comma, a quote
//! or a line break, so that spreadsheets, Python's `csv` and pandas read back
//! exactly the text written; but for text a spreadsheet would run as a
//! formula, which is written as text (below).

/// Whether a cell would be read by a spreadsheet as a formula (or as the
/// start of one): it begins with `=`, `+`, `-`, `@`, a tab or a carriage
/// return (OWASP's CSV injection list), and is not a plain number (`-12.5`,
/// `+3`, `-1e5`: a number is no formula, and stays one).
fn formula(text: &str) -> bool {
    text.starts_with(['=', '+', '-', '@', '\t', '\r']) && !number(text)
}

/// Whether `text` is a decimal number: a sign, digits with at most one point,
/// and an exponent.
fn number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let (mut digits, mut point) = (0, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => digits += 1,
            b'.' if !point => point = true,
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        i += usize::from(matches!(b.get(i), Some(b'+' | b'-')));
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == b.len()
}

/// Appends one cell, after a comma unless it is the record's first, without
/// its control characters ([`super::controls`]). Text a spreadsheet would
/// run as a formula (`=HYPERLINK(...)`, `@SUM(...)`, `-2+3`) is written as
/// text, as OWASP advises: quoted, after a single quote (`"'=HYPERLINK(...)"`).
pub fn write_cell(out: &mut Vec<u8>, first: bool, text: &str) {
    if !first {
        out.push(b',');
    }
    let text = &*super::controls::without(text);
    let formula = formula(text);
    if !formula
        && !text
            .bytes()
            .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    out.push(b'"');
    if formula {
        out.push(b'\'');
    }
    for b in text.bytes() {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// Ends a record.
pub fn end_record(out: &mut Vec<u8>) {
    out.extend_from_slice(b"\r\n");
}

/// A record's cells, written as they come.
pub struct Record<'a> {
    out: &'a mut Vec<u8>,
    cells: usize,
}

impl<'a> Record<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Record<'a> {
        Record { out, cells: 0 }
    }

    pub fn cell(&mut self, text: &str) {
        write_cell(self.out, self.cells == 0, text);
        self.cells += 1;
    }

    /// Ends the record (CRLF).
    pub fn end(self) {
        end_record(self.out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cells_that_need_quotes_have_them() {
        let mut out = Vec::new();
        let mut r = Record::new(&mut out);
        for cell in ["plain", "a,b", "say \"hi\"", "two\nlines", "", "é"] {
            r.cell(cell);
        }
        r.end();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",,é\r\n"
        );
    }

    #[test]
    fn formulas_are_written_as_text_and_numbers_stay_numbers() {
        let cells = |cells: &[&str]| {
            let mut out = Vec::new();
            let mut r = Record::new(&mut out);
            for cell in cells {
                r.cell(cell);
            }
            r.end();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            cells(&[
                "=1+2",
                "+1",
                "-2+3+cmd|' /C calc'!A0",
                "@SUM(A1)",
                "\t=x",
                "\r=x"
            ]),
            "\"'=1+2\",+1,\"'-2+3+cmd|' /C calc'!A0\",\"'@SUM(A1)\",\"'\t=x\",\"'\r=x\"\r\n"
        );
        assert_eq!(
            cells(&["=HYPERLINK(\"http://x\",\"a\")", "-", "a=b"]),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"a\"\")\",\"'-\",a=b\r\n"
        );
        for n in ["-12.5", "+3", "-1e5", "-0.25E-3", "12", "-.5"] {
            assert_eq!(cells(&[n]), format!("{n}\r\n"), "{n}");
        }
        for not in ["-", "-e5", "-1e", "-1.2.3", "--1", "-1 "] {
            assert!(!number(not), "{not}");
        }
    }
}
