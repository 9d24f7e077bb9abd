//! Wagtail's image items (`/api/v2/images/`), written from the image table:
//! the listing's default items are rendered once when the view is built; other
//! field selections are written per request from the same writer.

use crate::encoding::json::{write_int, write_str};
use crate::model::image_api::{ImageField, ImageFields, IMAGE_TYPE};
use crate::model::Model;

use super::render::{List, MEDIA_BASE};
use super::table::Table;
use super::value::Value;

/// What Wagtail's image items show beyond the image table: each image's tags
/// (by position) and the site their `detail_url`s start with.
#[derive(Debug, Default)]
pub struct ImageApi {
    tags: Vec<Box<[Box<str>]>>,
    /// Per image, what `search` looks in: its title and tag names, lowercased
    /// once here rather than on every search.
    searched: Vec<Box<[Box<str>]>>,
    /// The Wagtail site's root URL, which `detail_url`s start with.
    site: String,
    /// Every image with the listing's default fields, in id order.
    listing: List,
}

impl ImageApi {
    /// Renders the listing of the images in `table` (the image model's), whose
    /// tags are `tags` by position.
    pub fn new(table: &Table, tags: Vec<Box<[Box<str>]>>, site: String) -> ImageApi {
        let title = Model::Image.field_index("title").expect("an image title");
        let searched = (0..table.len())
            .map(|pos| {
                let title = table.get(pos, title).as_str().unwrap_or_default();
                let tags = tags.get(pos).map_or(&[][..], |t| &t[..]);
                std::iter::once(title)
                    .chain(tags.iter().map(|t| &**t))
                    .map(|s| s.to_lowercase().into_boxed_str())
                    .collect()
            })
            .collect();
        let mut api = ImageApi {
            tags,
            searched,
            site,
            listing: List::default(),
        };
        let mut out = Vec::new();
        let mut ends = Vec::with_capacity(table.len());
        for pos in 0..table.len() {
            if pos > 0 {
                out.push(b',');
            }
            api.write(&mut out, table, pos, ImageFields::LISTING);
            ends.push(out.len() as u64);
        }
        api.listing = List::new(out, ends);
        api
    }

    /// Every image with the listing's default fields.
    pub fn listing(&self) -> &List {
        &self.listing
    }

    /// The lowercased title and tag names of the image at `pos`.
    pub fn searched(&self, pos: usize) -> &[Box<str>] {
        self.searched.get(pos).map_or(&[], |t| t)
    }

    /// The tags of the image at `pos`.
    pub fn tags(&self, pos: usize) -> &[Box<str>] {
        self.tags.get(pos).map_or(&[], |t| t)
    }

    /// Appends the image at `pos` with `fields`, as Wagtail's serializer writes
    /// it: `id`, then `meta` (when a meta field is shown), then the other body
    /// fields. `download_url` is its file under the media base, which the
    /// server fills in (`--media-url`, or `/media/` as Wagtail writes it).
    pub fn write(&self, out: &mut Vec<u8>, table: &Table, pos: usize, fields: ImageFields) {
        let column = |name| Model::Image.field_index(name).expect("an image column");
        let id = table.id(pos as u32);
        out.push(b'{');
        let mut first = true;
        let mut key = |out: &mut Vec<u8>, name: &str| {
            if !first {
                out.push(b',');
            }
            first = false;
            write_str(out, name);
            out.push(b':');
        };
        if fields.contains(ImageField::Id) {
            key(out, "id");
            write_int(out, id);
        }
        if fields.iter().any(ImageField::is_meta) {
            key(out, "meta");
            out.push(b'{');
            for (i, field) in fields.iter().filter(|f| f.is_meta()).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, field.name());
                out.push(b':');
                match field {
                    ImageField::Type => write_str(out, IMAGE_TYPE),
                    ImageField::DetailUrl => {
                        write_str(out, &format!("{}/api/v2/images/{id}/", self.site));
                    }
                    ImageField::Tags => {
                        out.push(b'[');
                        for (t, tag) in self.tags(pos).iter().enumerate() {
                            if t > 0 {
                                out.push(b',');
                            }
                            write_str(out, tag);
                        }
                        out.push(b']');
                    }
                    _ => {
                        let file = table.get(pos, column("file"));
                        let start = out.len();
                        write_str(out, file.as_str().unwrap_or_default());
                        out.insert(start + 1, MEDIA_BASE);
                    }
                }
            }
            out.push(b'}');
        }
        for field in fields
            .iter()
            .filter(|f| !f.is_meta() && *f != ImageField::Id)
        {
            key(out, field.name());
            match table.get(pos, column(field.name())) {
                Value::Int(n) => write_int(out, n),
                Value::Str(s) => write_str(out, s),
                _ => out.extend_from_slice(b"null"),
            }
        }
        out.push(b'}');
    }
}
