//! CSV as RFC 4180 spells it: cells separated by commas, records ended by CRLF,
//! and a cell quoted (its quotes doubled) only when it holds a comma, a quote
//! or a line break, so that spreadsheets, Python's `csv` and pandas read back
//! exactly the text written.

/// Appends one cell, after a comma unless it is the record's first, without
/// its control characters ([`super::controls`]).
pub fn write_cell(out: &mut Vec<u8>, first: bool, text: &str) {
    if !first {
        out.push(b',');
    }
    let text = &*super::controls::without(text);
    if !text
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    out.push(b'"');
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
}
