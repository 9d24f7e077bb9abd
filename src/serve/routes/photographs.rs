//! A specimen question's photographs (`format=zip` on the specimen list): the
//! original file of every photograph of every specimen the question selects,
//! in the question's order, then `index.csv` naming each file's image id,
//! USI, title, licence and creator, and saying of a file the media folder
//! lacks why it is not in the zip (the rest of the zip is still whole).
//!
//! The question is answered on the documents' lane, as a download's; the zip
//! is then an `Answer::pieces` stream, written with data descriptors (no
//! seeking back), a piece of at most a file's [`PIECE_BYTES`] read at a time
//! as the client takes the last: a connection holds one piece and one open
//! file whatever the zip's size, and is admitted to the streams' share by
//! the photographs it holds, as a download is by its rows. The files are
//! stored, not compressed again (photographs are compressed already).

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use zip::write::{SimpleFileOptions, StreamWriter};
use zip::{CompressionMethod, ZipWriter};

use crate::encoding::csv::Record;
use crate::model::Model;
use crate::query::{Params, Plan};
use crate::serve::answer::{Answer, Kind, Pieces};
use crate::serve::media_files::{self, open_named};
use crate::serve::route::{Ctx, Job};
use crate::view::generalised::Located;
use crate::view::View;

use super::downloads::file_name;

/// What a piece aims to hold, as a download's pieces.
const PIECE_BYTES: usize = 64 * 1024;

/// The index's columns.
pub const INDEX_COLUMNS: [&str; 8] = [
    "file",
    "image",
    "usi",
    "title",
    "licence",
    "licence_url",
    "creator",
    "missing",
];

/// The index's name inside the zip.
pub const INDEX: &str = "index.csv";

/// The bytes the zip writer has written and the stream has not yet taken.
#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<u8>>>);

impl Written {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Write for Written {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What every row of the index says alike: the dataset's licence and its
/// rights holder (the records name no photographer).
struct Rights {
    licence: String,
    licence_url: String,
    creator: String,
}

/// A photograph's file being copied into the zip.
struct Copying {
    file: File,
    len: u64,
    at: u64,
    /// Its index row but the last cell (whether it is missing).
    row: Vec<String>,
}

/// The zip being written.
struct Photographs {
    /// Each photograph's position in the images' table and its specimen's.
    photos: Vec<(u32, u32)>,
    next: usize,
    copying: Option<Copying>,
    zip: Option<ZipWriter<StreamWriter<Written>>>,
    written: Written,
    options: SimpleFileOptions,
    index: Vec<u8>,
    media_dir: Option<PathBuf>,
    max_bytes: u64,
    rights: Rights,
}

/// A zip entry's name made of `text`: letters, digits, `.`, `_` and `-`
/// kept, anything else (`/`, spaces) a `-`.
fn plain(text: &str) -> String {
    text.chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                true => c,
                false => '-',
            },
        )
        .collect()
}

/// A photograph's name in the zip: its specimen's USI and its image id, with
/// its file's extension (`CAT-000012-345.jpg`).
fn entry_name(usi: &str, image: i64, file: &str) -> String {
    let base = file.rsplit('/').next().unwrap_or(file);
    let extension = base
        .rsplit_once('.')
        .map(|(_, e)| format!(".{}", plain(e)))
        .unwrap_or_default();
    match usi {
        "" => format!("{image}{extension}"),
        usi => format!("{}-{image}{extension}", plain(usi)),
    }
}

impl Photographs {
    /// Writes one row of the index: `row` and why the file is missing (empty
    /// when it is in the zip).
    fn index_row(&mut self, row: &[String], missing: &str) {
        let mut record = Record::new(&mut self.index);
        for cell in row {
            record.cell(cell);
        }
        record.cell(missing);
        record.end();
    }

    /// The next photograph: its file opened and its entry begun, or its row
    /// written as missing.
    fn begin(&mut self, view: &View, image: u32, specimen: u32) -> std::io::Result<()> {
        let text = |model: Model, pos: u32, name: &str| {
            view.value(model, pos, name)
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        let file = text(Model::Image, image, "file");
        let usi = text(Model::SpecimenRecord, specimen, "usi");
        let id = view.table(Model::Image).id(image);
        let name = entry_name(&usi, id, &file);
        let row = vec![
            name.clone(),
            id.to_string(),
            usi,
            text(Model::Image, image, "title"),
            self.rights.licence.clone(),
            self.rights.licence_url.clone(),
            self.rights.creator.clone(),
        ];
        let opened = match (&self.media_dir, file.is_empty()) {
            (None, _) => Err("the server has no media folder (--media-dir)"),
            (_, true) => Err("the record names no file"),
            (Some(dir), false) => open_named(dir, &file, self.max_bytes),
        };
        let (file_handle, len) = match opened {
            Ok(opened) => opened,
            Err(why) => {
                self.index_row(&row, why);
                return Ok(());
            }
        };
        let options = self
            .options
            .compression_method(CompressionMethod::Stored)
            .large_file(len >= u32::MAX as u64);
        // A photograph of a record a sensitive place's rule covers goes
        // without its embedded location, as `/media/` serves it, or not at all.
        if view.derived::<Located>().holds(&file) {
            let Some(body) = media_files::stripped(&file_handle, len) else {
                let why = "its embedded location cannot be removed (a sensitive place)";
                self.index_row(&row, why);
                return Ok(());
            };
            if let Some(zip) = self.zip.as_mut() {
                zip.start_file(name, options)?;
                zip.write_all(&body)?;
            }
            self.index_row(&row, "");
            return Ok(());
        }
        let file = file_handle;
        if let Some(zip) = self.zip.as_mut() {
            zip.start_file(name, options)?;
        }
        self.copying = Some(Copying {
            file,
            len,
            at: 0,
            row,
        });
        Ok(())
    }

    /// Copies a piece of the file being copied; ends it at its end, or
    /// where it cannot be read (said in the index).
    fn copy(&mut self) -> std::io::Result<()> {
        let Some(copying) = self.copying.as_mut() else {
            return Ok(());
        };
        let want = (copying.len - copying.at).min(PIECE_BYTES as u64) as usize;
        let mut buf = vec![0; want];
        let read = match want {
            0 => Ok(0),
            _ => copying.file.read_at(&mut buf, copying.at),
        };
        let ended = match read {
            Ok(n) if n > 0 => {
                if let Some(zip) = self.zip.as_mut() {
                    zip.write_all(&buf[..n])?;
                }
                copying.at += n as u64;
                (copying.at >= copying.len).then_some("")
            }
            // Shorter than when it was opened: its entry holds what was read.
            Ok(_) if copying.at < copying.len => Some("cut short: the file shrank as it was read"),
            Ok(_) => Some(""),
            Err(_) => Some("cut short: the file could not be read whole"),
        };
        if let Some(missing) = ended {
            let copied = self.copying.take().expect("a file being copied");
            self.index_row(&copied.row, missing);
        }
        Ok(())
    }

    /// The index and the zip's end.
    fn finish(&mut self) -> std::io::Result<()> {
        let Some(mut zip) = self.zip.take() else {
            return Ok(());
        };
        let options = self
            .options
            .compression_method(CompressionMethod::Deflated)
            .large_file(self.index.len() >= u32::MAX as usize);
        zip.start_file(INDEX, options)?;
        zip.write_all(&std::mem::take(&mut self.index))?;
        zip.finish()?;
        Ok(())
    }

    /// Writes until a piece is full or the zip ends.
    fn fill(&mut self, view: &View) -> std::io::Result<()> {
        while self.written.len() < PIECE_BYTES && self.zip.is_some() {
            if self.copying.is_some() {
                self.copy()?;
            } else if let Some(&(image, specimen)) = self.photos.get(self.next) {
                self.next += 1;
                self.begin(view, image, specimen)?;
            } else {
                self.finish()?;
            }
        }
        Ok(())
    }
}

impl Pieces for Photographs {
    fn next(&mut self, view: &View) -> Option<Vec<u8>> {
        if let Err(e) = self.fill(view) {
            // The zip writer writes to memory; only a file it cannot take
            // (past its format's limits) stops it: the zip ends cut.
            tracing::error!(error = %e, "a question's photographs' zip was cut");
            self.zip = None;
            self.copying = None;
            return None;
        }
        Some(self.written.take()).filter(|piece| !piece.is_empty())
    }
}

/// The zip's entries' time: the snapshot's, so the same question of the same
/// snapshot and files gives the same bytes.
fn options(view: &View) -> SimpleFileOptions {
    let options = SimpleFileOptions::default();
    let Some(t) = chrono::DateTime::from_timestamp_micros(view.header.created_at) else {
        return options;
    };
    use chrono::{Datelike, Timelike};
    let dt = zip::DateTime::from_date_and_time(
        t.year().clamp(1980, 2107) as u16,
        t.month() as u8,
        t.day() as u8,
        t.hour() as u8,
        t.minute() as u8,
        t.second() as u8,
    );
    match dt {
        Ok(dt) => options.last_modified_time(dt),
        Err(_) => options,
    }
}

/// Answers the specimen list's `format=zip`: the selected specimens'
/// photographs chosen on the documents' lane, then zipped a piece at a time
/// as the client takes them.
pub fn answer<'a>(ctx: Ctx<'a>, plan: Plan) -> Job<'a> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let name = file_name(
        &served.view,
        "specimen-photographs",
        asked.params.as_ref().unwrap_or(&Params::default()),
        "zip",
    );
    let cacheable = plan.cacheable();
    let head = Answer::unmade(Kind::Zip)
        .named(name.clone())
        .cacheable(cacheable);
    let made = served.clone();
    let (media_dir, max_bytes) = (
        state.settings.media_dir.clone(),
        state.settings.media_max_bytes,
    );
    let job = move || {
        let view = &made.view;
        let selected = plan.select_page(view);
        let photos: Vec<(u32, u32)> = (selected.positions().iter())
            .flat_map(|&pos| {
                let of = (Model::SpecimenRecord, pos as u32);
                let images = view.images_naming("specimen_record", of);
                images.iter().map(move |&image| (image, pos as u32))
            })
            .collect();
        let dataset = &view.dataset;
        let licence = dataset.licence();
        let rights = Rights {
            licence: licence.map(|l| l.spdx().to_string()).unwrap_or_default(),
            licence_url: licence.map(|l| format!("{}/", l.url())).unwrap_or_default(),
            creator: dataset.rights_holder().to_string(),
        };
        let written = Written::default();
        let mut index = Vec::with_capacity(64 + 128 * photos.len());
        let mut header = Record::new(&mut index);
        INDEX_COLUMNS.iter().for_each(|c| header.cell(c));
        header.end();
        Photographs {
            photos,
            next: 0,
            copying: None,
            zip: Some(ZipWriter::new_stream(written.clone())),
            written,
            options: options(view),
            index,
            media_dir,
            max_bytes,
            rights,
        }
    };
    Job::pooled(head, async move {
        let Some(zip) = state.work.document(job).await else {
            return Answer::busy();
        };
        let ticket = match state.streams.admit(asked.peer, zip.photos.len()) {
            Ok(ticket) => ticket,
            Err(full) => return Answer::streams_full(&full),
        };
        let kind = Kind::Zip;
        Answer::pieces(
            kind,
            Vec::new(),
            zip,
            served.clone(),
            state.work.clone(),
            ticket,
        )
        .named(name)
        .cacheable(cacheable)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_keep_only_plain_characters() {
        assert_eq!(
            entry_name("CAT-000012", 345, "original_images/a b.JPG"),
            "CAT-000012-345.JPG"
        );
        assert_eq!(entry_name("A/B 7", 3, "x/y.png"), "A-B-7-3.png");
        assert_eq!(entry_name("", 3, "noextension"), "3");
        assert_eq!(entry_name("../..", 3, "a.j/pg"), "..-..-3");
    }
}
