//! How a value appears on a page: scalars as text, related records as links to
//! their own pages, fields labelled in words. Cells and a record's fields are
//! written from the view's rows ([`RowValue`], [`row_fields`]). Every string
//! goes through maud's escaping (rich text through `prose`'s sanitizer); only
//! media fields become links to something other than a record, and only when
//! they are http(s) or same-origin URLs.

use std::borrow::Cow;

use maud::{html, Markup, Render};

use crate::encoding::time::write_timestamp;
use crate::model::endpoint::API_PREFIX;
use crate::model::{Model, Type};
use crate::view::name::name_of;
use crate::view::{Value, View};

/// A text field of a record, when it holds text.
pub fn text<'v>(view: &'v View, model: Model, pos: u32, name: &str) -> Option<&'v str> {
    view.value(model, pos, name)
        .as_str()
        .filter(|s| !s.trim().is_empty())
}

/// The record a field of the record at `pos` relates to.
pub fn related(view: &View, model: Model, pos: u32, name: &str) -> Option<(Model, u32)> {
    match view.value(model, pos, name) {
        Value::Ref(m, p) => Some((m, p)),
        _ => None,
    }
}

/// A record's page.
pub fn url(view: &View, model: Model, pos: u32) -> String {
    format!(
        "{API_PREFIX}{}/{}/",
        model.path(),
        view.table(model).id(pos)
    )
}

/// What names the record at `pos` of `model`: its first naming field that holds
/// text, else its id.
pub fn row_label(view: &View, model: Model, pos: u32) -> Cow<'_, str> {
    name_of(view, model, pos).map_or_else(|| Cow::Owned(unnamed(view, model, pos)), Cow::Borrowed)
}

/// What names a record without a name: what it holds (a locality's town, a GPS
/// point's coordinates), else its kind and id.
fn unnamed(view: &View, model: Model, pos: u32) -> String {
    let text = |name: &str| text(view, model, pos, name);
    match (model, text("town"), text("latitude"), text("longitude")) {
        (Model::Locality, Some(town), _, _) => match text("range") {
            Some(range) => format!("{range} of {town}"),
            None => format!("Near {town}"),
        },
        (Model::Gps, _, Some(lat), Some(lng)) => format!("{lat}, {lng}"),
        _ => format!("{} {}", model.class_name(), view.table(model).id(pos)),
    }
}

/// Appends an integer's decimal digits (without `fmt`'s machinery: a table writes
/// hundreds).
fn push_int(out: &mut String, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// Writes a link to the record at `pos` of `model` (its label where it has no page).
fn write_row_link(out: &mut String, view: &View, model: Model, pos: u32) {
    let label = row_label(view, model, pos);
    if model.listed() {
        out.push_str("<a href=\"");
        out.push_str(API_PREFIX);
        out.push_str(model.path());
        out.push('/');
        push_int(out, view.table(model).id(pos));
        out.push_str("/\">");
        label.as_ref().render_to(out);
        out.push_str("</a>");
    } else {
        label.as_ref().render_to(out);
    }
}

/// A value of a row in a table cell: what the item's JSON says, one line where
/// it can be; related records as links; stored media paths as links under
/// `media_base`. Written straight into the page (a table has hundreds).
pub struct RowValue<'v> {
    pub view: &'v View,
    pub ty: Type,
    pub value: Value<'v>,
    pub media_base: &'v str,
}

impl Render for RowValue<'_> {
    fn render_to(&self, out: &mut String) {
        match self.value {
            Value::Null => out.push_str("<span class=\"null\">—</span>"),
            Value::Int(n) => push_int(out, n),
            Value::Bool(true) => out.push_str("yes"),
            Value::Bool(false) => out.push_str("no"),
            Value::Str(path) if self.ty == Type::MediaFile => {
                let url = format!("{}{path}", self.media_base);
                if safe_url(&url) {
                    out.push_str("<a href=\"");
                    url.render_to(out);
                    out.push_str("\">");
                    path.rsplit('/').next().unwrap_or(path).render_to(out);
                    out.push_str("</a>");
                } else {
                    path.render_to(out);
                }
            }
            Value::Str(s) => s.render_to(out),
            Value::Time(t) => {
                let mut bytes = Vec::with_capacity(27);
                write_timestamp(&mut bytes, t);
                // Digits, dashes, colons, a dot, `T` and `Z`: nothing to escape.
                out.push_str(&String::from_utf8_lossy(&bytes));
            }
            Value::Ref(m, p) => write_row_link(out, self.view, m, p),
            Value::Refs(_, []) => out.push_str("<span class=\"null\">none</span>"),
            Value::Refs(m, ps) => {
                out.push_str("<ul class=\"many\">");
                for &p in ps.iter() {
                    out.push_str("<li>");
                    write_row_link(out, self.view, m, p);
                    out.push_str("</li>");
                }
                out.push_str("</ul>");
            }
        }
    }
}

/// A URL a media field may link to: absolute http(s), or on this host.
fn safe_url(s: &str) -> bool {
    let lower = s.trim_start().to_ascii_lowercase();
    lower.starts_with("https://")
        || lower.starts_with("http://")
        || (lower.starts_with('/') && !lower.starts_with("//"))
}

/// A field's name as a label: words, not the key (`temp_C` is "Temperature (°C)").
pub fn words(name: &str) -> Cow<'static, str> {
    let known = match name {
        "id" => "Id",
        "usi" => "Catalogue number (USI)",
        "gps" => "GPS",
        "temp_F" => "Temperature (°F)",
        "temp_C" => "Temperature (°C)",
        "mona" => "MONA number",
        "p3" => "P3 number",
        "ps" => "PS number",
        "abbr" => "Abbreviation",
        "full_date" => "Date",
        "num_date" => "Date (numeric)",
        "collected_date" => "Date (as on labels)",
        "collector" => "Collectors (records)",
        "collectors" => "Collectors",
        "elevation_meters" => "Elevation (m)",
        "file_hash" => "File hash (SHA-1)",
        "x_large" => "Rendition, extra large",
        "x_small" => "Rendition, extra small",
        _ => "",
    };
    if !known.is_empty() {
        return Cow::Borrowed(known);
    }
    let mut out = name.replace('_', " ");
    if let Some(first) = out.get(..1) {
        let upper = first.to_ascii_uppercase();
        out.replace_range(..1, &upper);
    }
    Cow::Owned(out)
}

/// The text fields that hold rich text (Wagtail's editor writes them).
const RICH: &[&str] = &[
    "habitat",
    "notes",
    "taxonomy",
    "description",
    "distribution",
    "seasonality",
    "food",
    "life_cycle",
];

/// Every field of the record at `pos`, labelled in words, from the view's row:
/// related records as links, rich text sanitized, media paths under `media_base`.
pub fn row_fields(view: &View, model: Model, pos: usize, media_base: &str) -> Markup {
    let table = view.table(model);
    html! {
        dl.fields {
            @for (f, field) in model.fields().iter().enumerate() {
                @let value = table.get(pos, f);
                dt { (words(field.name)) }
                dd {
                    @match value {
                        Value::Str(s) if RICH.contains(&field.name) && !s.is_empty() => (super::prose::prose(s)),
                        Value::Str("") => span.null { "—" },
                        _ => (RowValue { view, ty: field.ty, value, media_base }),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_written_whole() {
        for n in [0, 7, -7, 1234567890, i64::MIN, i64::MAX] {
            let mut out = String::new();
            push_int(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn media_links_are_web_urls_only() {
        assert!(safe_url("http://host/media/a.jpg"));
        assert!(safe_url("/media/a.jpg"));
        assert!(!safe_url("//evil/a.jpg"));
        assert!(!safe_url(" JavaScript:alert(1)"));
        assert!(!safe_url("data:text/html,x"));
    }
}
