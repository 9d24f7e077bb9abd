//! A sheet as PDF, written a page at a time: the header first, each page (its
//! dictionary and its compressed drawing) as soon as it is placed, and at the end
//! the fonts (subsets of the glyphs the pages used, with their Unicode, so the
//! text can be selected and searched), the page tree and the cross-reference
//! table. Nothing but the glyphs used and the pages' offsets is kept between
//! pages.

use std::io::Write as _;

use flate2::write::ZlibEncoder;
use flate2::Compression;
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Chunk, Filter, Name, Rect, Ref, Str};
use subsetter::GlyphRemapper;

use super::font::{Face, Style};
use super::layout::Mark;
use super::qr::{Symbol, QUIET};

const CATALOG: Ref = Ref::new(1);
const PAGE_TREE: Ref = Ref::new(2);
/// Each style's five objects: the font, its CID font, descriptor, file and
/// Unicode map.
const FONT_OBJECTS: i32 = 5;
const FIRST_FONT: i32 = 3;
const FIRST_PAGE: i32 = FIRST_FONT + FONT_OBJECTS * 2;

/// The name a page's resources give a style.
fn font_name(style: Style) -> Name<'static> {
    match style {
        Style::Regular => Name(b"R"),
        Style::Italic => Name(b"I"),
    }
}

fn font_ref(style: Style, n: i32) -> Ref {
    let base = match style {
        Style::Regular => FIRST_FONT,
        Style::Italic => FIRST_FONT + FONT_OBJECTS,
    };
    Ref::new(base + n)
}

/// The glyphs one style has written so far, renumbered from 0 for the subset.
struct Used {
    remapper: GlyphRemapper,
    /// By new glyph number: the character it writes and its advance in ems.
    glyphs: Vec<(char, f32)>,
}

impl Used {
    fn new() -> Used {
        Used {
            remapper: GlyphRemapper::new(),
            glyphs: vec![('\0', 0.0)],
        }
    }

    /// The text's glyphs as the font's two-byte codes.
    fn encode(&mut self, face: &Face, text: &str, out: &mut Vec<u8>) {
        for c in text.chars() {
            let (gid, advance) = face.glyph(c);
            let new = self.remapper.remap(gid);
            if usize::from(new) == self.glyphs.len() {
                self.glyphs.push((c, advance));
            }
            out.extend_from_slice(&new.to_be_bytes());
        }
    }

    fn any(&self) -> bool {
        self.glyphs.len() > 1
    }
}

/// A PDF being written.
pub struct PdfWriter {
    page: [f32; 2],
    /// Bytes written so far, and where each object starts (by number).
    written: usize,
    offsets: Vec<Option<usize>>,
    pages: Vec<Ref>,
    used: [Used; 2],
}

impl PdfWriter {
    /// A writer for pages of `page` points, and the file's first bytes.
    pub fn new(page: [f32; 2]) -> (PdfWriter, Vec<u8>) {
        let head = b"%PDF-1.7\n%\x80\x80\x80\x80\n".to_vec();
        let writer = PdfWriter {
            page,
            written: head.len(),
            offsets: vec![None; FIRST_PAGE as usize],
            pages: Vec::new(),
            used: [Used::new(), Used::new()],
        };
        (writer, head)
    }

    /// Appends one object's chunk to `out`, noting where it starts.
    fn object(&mut self, out: &mut Vec<u8>, id: Ref, chunk: &Chunk) {
        let at = id.get() as usize;
        if self.offsets.len() <= at {
            self.offsets.resize(at + 1, None);
        }
        self.offsets[at] = Some(self.written + out.len());
        out.extend_from_slice(chunk.as_bytes());
    }

    /// One page drawn from `marks`: its bytes.
    pub fn page<'m>(&mut self, marks: impl IntoIterator<Item = &'m Mark>) -> Vec<u8> {
        let mut d = Drawing(Vec::with_capacity(64 * 1024));
        let mut fonts = [false; 2];
        let mut codes = Vec::new();
        for mark in marks {
            match mark {
                Mark::Border { x, y, w, h, line } => {
                    d.nums(&[*line]);
                    d.op("w");
                    d.nums(&[*x, *y, *w, *h]);
                    d.op("re S");
                }
                Mark::Clip { x, y, w, h } => {
                    d.op("q");
                    d.nums(&[*x, *y, *w, *h]);
                    d.op("re W n");
                }
                Mark::Unclip => d.op("Q"),
                Mark::Code { x, y, size, symbol } => {
                    // The modules as a one-bit image mask, one sample a module,
                    // its square inside the quiet zone.
                    let m = size / symbol.span() as f32;
                    let (quiet, side) = (QUIET as f32 * m, symbol.width as f32 * m);
                    d.op("q");
                    d.nums(&[side, 0.0, 0.0, side, x + quiet, y + quiet]);
                    d.op("cm");
                    d.image_mask(symbol);
                    d.op("Q");
                }
                Mark::Text {
                    x,
                    y,
                    size,
                    end,
                    spans,
                } => {
                    let start = Mark::text_start(*x, *size, *end, spans);
                    d.op("BT");
                    d.nums(&[start, *y]);
                    d.op("Td");
                    for span in spans {
                        let i = span.style as usize;
                        fonts[i] = true;
                        d.0.extend_from_slice(if i == 0 { b"/R " } else { b"/I " });
                        d.nums(&[*size]);
                        d.op("Tf");
                        codes.clear();
                        self.used[i].encode(span.style.face(), &span.text, &mut codes);
                        d.hex(&codes);
                        d.op("Tj");
                    }
                    d.op("ET");
                }
            }
        }
        let drawing = deflate(&d.0);
        let n = self.pages.len() as i32;
        let (page_id, content_id) = (
            Ref::new(FIRST_PAGE + 2 * n),
            Ref::new(FIRST_PAGE + 2 * n + 1),
        );
        self.pages.push(page_id);
        let mut out = Vec::with_capacity(drawing.len() + 512);
        let mut chunk = Chunk::new();
        {
            let mut page = chunk.page(page_id);
            page.parent(PAGE_TREE)
                .media_box(Rect::new(0.0, 0.0, self.page[0], self.page[1]))
                .contents(content_id);
            let mut resources = page.resources();
            let mut names = resources.fonts();
            for style in Style::ALL {
                if fonts[style as usize] {
                    names.pair(font_name(style), font_ref(style, 0));
                }
            }
        }
        self.object(&mut out, page_id, &chunk);
        let mut chunk = Chunk::new();
        chunk
            .stream(content_id, &drawing)
            .filter(Filter::FlateDecode);
        self.object(&mut out, content_id, &chunk);
        self.written += out.len();
        out
    }

    /// The fonts, the page tree, the catalog and the cross-reference table: the
    /// file's last bytes. A sheet without labels has one empty page.
    pub fn finish(mut self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.pages.is_empty() {
            out = self.page(std::iter::empty());
        }
        let written = self.written;
        let mut tail = Vec::new();
        for style in Style::ALL {
            if self.used[style as usize].any() {
                for (id, chunk) in font_objects(style, &self.used[style as usize]) {
                    self.object(&mut tail, id, &chunk);
                }
            }
        }
        let mut chunk = Chunk::new();
        chunk
            .pages(PAGE_TREE)
            .kids(self.pages.iter().copied())
            .count(self.pages.len() as i32);
        self.object(&mut tail, PAGE_TREE, &chunk);
        let mut chunk = Chunk::new();
        chunk
            .indirect(CATALOG)
            .dict()
            .pair(Name(b"Type"), Name(b"Catalog"))
            .pair(Name(b"Pages"), PAGE_TREE);
        self.object(&mut tail, CATALOG, &chunk);
        let xref = written + tail.len();
        let size = self.offsets.len();
        let _ = write!(tail, "xref\n0 {size}\n");
        for offset in &self.offsets {
            match offset {
                Some(at) => {
                    let _ = writeln!(tail, "{at:010} 00000 n ");
                }
                None => tail.extend_from_slice(b"0000000000 65535 f \n"),
            }
        }
        let _ = write!(
            tail,
            "trailer\n<< /Size {size} /Root {} 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            CATALOG.get()
        );
        out.extend_from_slice(&tail);
        out
    }
}

/// A page's content stream, written by hand: a few operators, numbers to a
/// thousandth of a point, text as hexadecimal glyph codes, codes as inline image
/// masks (a few hundred bytes each, where a rectangle a run of modules took
/// kilobytes to write and to compress).
struct Drawing(Vec<u8>);

impl Drawing {
    fn op(&mut self, op: &str) {
        self.0.extend_from_slice(op.as_bytes());
        self.0.push(b'\n');
    }

    fn nums(&mut self, values: &[f32]) {
        for v in values {
            let rounded = (v * 1000.0).round() / 1000.0;
            let _ = write!(self.0, "{} ", rounded + 0.0);
        }
    }

    /// A string of glyph codes, `<...>`.
    fn hex(&mut self, bytes: &[u8]) {
        self.0.push(b'<');
        self.hex_digits(bytes);
        self.0.extend_from_slice(b"> ");
    }

    /// Bytes as hexadecimal digits, ended by `>` as ASCIIHexDecode reads them.
    fn hex_digits(&mut self, bytes: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        for b in bytes {
            self.0
                .extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        }
    }

    /// `BI ... ID ... EI`: the symbol's modules, a bit each, dark ones painted
    /// in the fill colour; the data in hexadecimal, so no byte of it can be
    /// mistaken for the image's end.
    fn image_mask(&mut self, symbol: &Symbol) {
        let width = symbol.width;
        let row_bytes = width.div_ceil(8);
        let mut bits = vec![0u8; row_bytes * width];
        for &(row, col, len) in &symbol.runs {
            for x in usize::from(col)..usize::from(col) + usize::from(len) {
                bits[usize::from(row) * row_bytes + x / 8] |= 0x80 >> (x % 8);
            }
        }
        let _ = writeln!(
            self.0,
            "BI /W {width} /H {width} /IM true /BPC 1 /D [1 0] /F /AHx ID"
        );
        self.hex_digits(&bits);
        self.0.extend_from_slice(b">\nEI\n");
    }
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::with_capacity(bytes.len() / 3), Compression::fast());
    let _ = z.write_all(bytes);
    z.finish().unwrap_or_default()
}

/// A style's five objects: a Type 0 font over a CID font of the glyphs used, its
/// descriptor, the subset's file and the map from glyphs to Unicode.
fn font_objects(style: Style, used: &Used) -> Vec<(Ref, Chunk)> {
    let face = style.face();
    let [font, cid, descriptor, file, unicode] = [0, 1, 2, 3, 4].map(|n| font_ref(style, n));
    // A subset's name starts with six capitals of its own.
    let name = format!("CATLBL+{}", face.name);
    let name = Name(name.as_bytes());
    let system = SystemInfo {
        registry: Str(b"Adobe"),
        ordering: Str(b"Identity"),
        supplement: 0,
    };
    let mut objects = Vec::new();
    let mut chunk = Chunk::new();
    chunk
        .type0_font(font)
        .base_font(name)
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(cid)
        .to_unicode(unicode);
    objects.push((font, chunk));

    let mut chunk = Chunk::new();
    {
        let mut c = chunk.cid_font(cid);
        c.subtype(CidFontType::Type2)
            .base_font(name)
            .system_info(system)
            .font_descriptor(descriptor)
            .default_width(0.0)
            .cid_to_gid_map_predefined(Name(b"Identity"));
        c.widths()
            .consecutive(0, used.glyphs.iter().map(|&(_, w)| w * 1000.0));
    }
    objects.push((cid, chunk));

    let mut chunk = Chunk::new();
    let mut flags = FontFlags::NON_SYMBOLIC;
    if style == Style::Italic {
        flags |= FontFlags::ITALIC;
    }
    let [x0, y0, x1, y1] = face.bbox;
    chunk
        .font_descriptor(descriptor)
        .name(name)
        .flags(flags)
        .bbox(Rect::new(x0, y0, x1, y1))
        .italic_angle(face.italic_angle)
        .ascent(face.ascent * 1000.0)
        .descent(face.descent * 1000.0)
        .cap_height(face.cap_height * 1000.0)
        .stem_v(80.0)
        .font_file2(file);
    objects.push((descriptor, chunk));

    let subset =
        subsetter::subset(face.data, 0, &used.remapper).expect("the built-in font subsets");
    let mut chunk = Chunk::new();
    chunk
        .stream(file, &deflate(&subset))
        .filter(Filter::FlateDecode)
        .pair(Name(b"Length1"), subset.len() as i32);
    objects.push((file, chunk));

    let mut map = UnicodeCmap::new(
        Name(b"Custom"),
        SystemInfo {
            registry: Str(b"Adobe"),
            ordering: Str(b"UCS"),
            supplement: 0,
        },
    );
    for (gid, &(c, _)) in used.glyphs.iter().enumerate().skip(1) {
        map.pair(gid as u16, c);
    }
    let map = map.finish().into_vec();
    let mut chunk = Chunk::new();
    chunk.cmap(unicode, &map);
    objects.push((unicode, chunk));
    objects
}
