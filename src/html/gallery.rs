//! Photographs on a page: each image at the rendition that fits its place
//! (`srcset`, so the browser picks), the original a click away, its alt text
//! from the collection. A missing file leaves its alt text showing, never a hole
//! in the page: the sizes are in the markup, the text in `alt`.

use maud::{html, Markup};

use crate::model::schema::RENDITIONS;
use crate::model::Model;
use crate::view::{Value, View};

use super::prose::prose;
use super::values::text;

/// Where an image's files are: `media_base` and the stored path.
fn url(media_base: &str, path: &str) -> String {
    format!("{media_base}{path}")
}

/// A text field of an image (empty when it has none).
fn image_text<'v>(view: &'v View, pos: u32, name: &str) -> &'v str {
    text(view, Model::Image, pos, name).unwrap_or("")
}

/// The image's renditions, narrowest first: (URL, width, height).
fn renditions(view: &View, pos: u32, media_base: &str) -> Vec<(String, i64, i64)> {
    let images = view.table(Model::Image);
    let renditions = view.table(Model::Rendition);
    let file = Model::Rendition
        .field_index("file")
        .expect("a rendition has a file");
    let mut out: Vec<(String, i64, i64)> = RENDITIONS
        .iter()
        .filter_map(|(key, _)| {
            let f = Model::Image.field_index(key)?;
            let Value::Ref(_, r) = images.get(pos as usize, f) else {
                return None;
            };
            let path = renditions.get(r as usize, file).as_str()?;
            let w = view.value(Model::Rendition, r, "width").as_int()?;
            let h = view.value(Model::Rendition, r, "height").as_int()?;
            Some((url(media_base, path), w, h))
        })
        .collect();
    out.sort_by_key(|&(_, w, _)| w);
    out.dedup_by_key(|r| r.1);
    out
}

/// One photograph as a figure: the rendition nearest `width` CSS pixels wide
/// (others in `srcset`), linked to the original, with its title and notes.
pub fn figure(view: &View, pos: u32, media_base: &str, width: u32) -> Markup {
    let title = image_text(view, pos, "title");
    let alt = match image_text(view, pos, "alt_text") {
        "" => title,
        alt => alt,
    };
    let original = image_text(view, pos, "file");
    let sizes = renditions(view, pos, media_base);
    let fits = sizes
        .iter()
        .find(|(_, w, _)| *w >= width as i64)
        .or(sizes.last());
    let (src, w, h) = match fits {
        Some((src, w, h)) => (src.clone(), *w, *h),
        None => (
            url(media_base, original),
            view.value(Model::Image, pos, "width").as_int().unwrap_or(0),
            view.value(Model::Image, pos, "height")
                .as_int()
                .unwrap_or(0),
        ),
    };
    let srcset: Vec<String> = sizes.iter().map(|(u, w, _)| format!("{u} {w}w")).collect();
    let notes = image_text(view, pos, "notes");
    html! {
        figure.photo {
            a href=(url(media_base, original)) {
                img src=(src) alt=(alt) width=[(w > 0).then_some(w)] height=[(h > 0).then_some(h)]
                    srcset=[(!srcset.is_empty()).then(|| srcset.join(", "))]
                    sizes=(format!("(max-width: 40rem) 100vw, {width}px")) loading="lazy" decoding="async";
            }
            figcaption {
                (title)
                @if !notes.is_empty() { (prose(notes)) }
            }
        }
    }
}

/// Photographs as a gallery, with a heading; nothing when there are none.
pub fn gallery(view: &View, heading: &str, images: &[u32], media_base: &str) -> Markup {
    html! {
        @if !images.is_empty() {
            section.gallery aria-labelledby="photos-heading" {
                h2 id="photos-heading" { (heading) }
                div.photos {
                    @for &pos in images { (figure(view, pos, media_base, 300)) }
                }
            }
        }
    }
}
