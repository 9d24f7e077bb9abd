//! How a value appears on a page: scalars as text, related records as links to
//! their own pages. A list's cells are written from the view's rows
//! ([`RowValue`]); a record's page shows its item's JSON, embedded records field
//! by field ([`fields`]). Every string goes through maud's escaping; only media
//! fields become links to something other than a record, and only when they are
//! http(s) or same-origin URLs.

use std::borrow::Cow;

use maud::{html, Markup, Render};
use serde_json::{Map, Value as Json};

use crate::encoding::time::write_timestamp;
use crate::model::endpoint::API_PREFIX;
use crate::model::{Model, Shape, Type};
use crate::view::name::{name_of, NAMING};
use crate::view::{Value, View};

/// The page of a record, where its model is listed.
pub fn record_url(model: Model, id: &Json) -> Option<String> {
    let id = id.as_i64()?;
    model
        .listed()
        .then(|| format!("{API_PREFIX}{}/{id}/", model.path()))
}

/// What names a record in a sentence: the first of its naming fields it has, else
/// its id.
pub fn label(object: &Map<String, Json>) -> String {
    for key in NAMING {
        if let Some(Json::String(s)) = object.get(*key) {
            if !s.is_empty() {
                return s.clone();
            }
        }
    }
    match object.get("id") {
        Some(id) => format!("#{id}"),
        None => "(record)".to_string(),
    }
}

/// What names the record at `pos` of `model`: its first naming field that holds
/// text, else its id.
fn row_label(view: &View, model: Model, pos: u32) -> Cow<'_, str> {
    name_of(view, model, pos).map_or_else(
        || Cow::Owned(format!("#{}", view.table(model).id(pos))),
        Cow::Borrowed,
    )
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

/// Which rank an embedded taxon is: the rank whose parent key it holds (an order
/// has none). `None` when a projection left the keys out.
fn taxon_rank(object: &Map<String, Json>) -> Option<Model> {
    let rank = Model::RANKS
        .into_iter()
        .find(|m| m.parent().is_some_and(|(key, _)| object.contains_key(key)));
    match rank {
        Some(m) => Some(m),
        None if object.contains_key("authority") => Some(Model::Order),
        None => None,
    }
}

/// The model of a record a field of type `ty` relates to, given its value.
fn related_model(ty: Type, value: &Json) -> Option<Model> {
    match ty {
        Type::Parent(m)
        | Type::Embed(m)
        | Type::EmbedMany(m)
        | Type::RefId(m)
        | Type::RefIds(m) => Some(m),
        Type::Taxon => value.as_object().and_then(taxon_rank),
        _ => None,
    }
}

/// A URL a media field may link to: absolute http(s), or on this host.
fn safe_url(s: &str) -> bool {
    let lower = s.trim_start().to_ascii_lowercase();
    lower.starts_with("https://")
        || lower.starts_with("http://")
        || (lower.starts_with('/') && !lower.starts_with("//"))
}

/// A scalar, as text.
fn scalar(value: &Json) -> Markup {
    match value {
        Json::Null => html! { span.null { "—" } },
        Json::Bool(true) => html! { "yes" },
        Json::Bool(false) => html! { "no" },
        Json::Number(n) => html! { (n) },
        Json::String(s) => html! { (s) },
        // Not scalars: shown as their JSON, escaped.
        other => html! { code { (other) } },
    }
}

/// A link to a related record (by an embedded object or a bare id), or its label
/// where it has no page.
fn record_link(model: Option<Model>, value: &Json) -> Markup {
    let (id, text) = match value {
        Json::Object(o) => (o.get("id").cloned().unwrap_or(Json::Null), label(o)),
        Json::Number(_) => (value.clone(), format!("#{value}")),
        other => return scalar(other),
    };
    match model.and_then(|m| record_url(m, &id)) {
        Some(url) => html! { a href=(url) { (text) } },
        None => html! { (text) },
    }
}

/// A field's value in a table cell: one line where it can be.
pub fn cell(field: Option<Type>, value: &Json) -> Markup {
    let ty = field.unwrap_or(Type::Str);
    match (ty, value) {
        (_, Json::Null) => scalar(value),
        (Type::MediaFile, Json::String(s)) if safe_url(s) => {
            html! { a href=(s) { (s.rsplit('/').next().unwrap_or(s)) } }
        }
        (_, Json::Array(values)) => html! {
            @if values.is_empty() { span.null { "none" } }
            @else {
                ul.many { @for v in values { li { (cell(Some(ty), v)) } } }
            }
        },
        (_, Json::Object(_)) | (Type::Parent(_) | Type::RefId(_) | Type::RefIds(_), _) => {
            record_link(related_model(ty, value), value)
        }
        _ => scalar(value),
    }
}

/// A field's value on a record's page: embedded records field by field, under a
/// link to their own page.
pub fn full(field: Option<Type>, shape: Shape, value: &Json) -> Markup {
    let ty = field.unwrap_or(Type::Str);
    match value {
        Json::Array(values) if values.iter().any(Json::is_object) => html! {
            @for v in values { (full(Some(ty), shape, v)) }
        },
        Json::Object(object) => {
            let model = related_model(ty, value);
            let inner = model.map(|m| {
                let shape = shape.embedded(ty).map_or(Shape::Plain, |(_, s)| s);
                (m, shape)
            });
            html! {
                p { (record_link(model, value)) }
                (fields(inner, object))
            }
        }
        _ => cell(field, value),
    }
}

/// Every field of an object as a definition list, in the object's order; typed by
/// the model's field table where it is known.
pub fn fields(model: Option<(Model, Shape)>, object: &Map<String, Json>) -> Markup {
    html! {
        dl.fields {
            @for (key, value) in object {
                @let ty = model.and_then(|(m, _)| m.field_index(key).map(|i| m.fields()[i].ty));
                dt { (key) }
                dd { (full(ty, model.map_or(Shape::Plain, |(_, s)| s), value)) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(m: Markup) -> String {
        m.into_string()
    }

    #[test]
    fn related_records_link_to_their_pages() {
        let family = json!({"id": 4, "name": "Nymphalidae", "order": 1});
        assert_eq!(
            text(cell(Some(Type::Embed(Model::Family)), &family)),
            r#"<a href="/api/v2/families/4/">Nymphalidae</a>"#
        );
        assert_eq!(
            text(cell(Some(Type::Parent(Model::Order)), &json!(1))),
            r##"<a href="/api/v2/orders/1/">#1</a>"##
        );
        let taxon =
            json!({"id": 2, "name": "plexippus", "binomial": "Danaus plexippus", "genus": 1});
        assert_eq!(
            text(cell(Some(Type::Taxon), &taxon)),
            r#"<a href="/api/v2/species/2/">Danaus plexippus</a>"#
        );
    }

    #[test]
    fn hostile_values_are_text() {
        let hostile = json!("<script>alert(1)</script><img src=x onerror=alert(2)>\"'");
        let out = text(cell(Some(Type::Str), &hostile));
        assert_eq!(
            out,
            "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;'"
        );
        let js = json!("javascript:alert(1)");
        assert_eq!(
            text(cell(Some(Type::MediaFile), &js)),
            "javascript:alert(1)"
        );
        let named = json!({"id": 1, "name": "\"><script>x</script>"});
        assert_eq!(
            text(cell(Some(Type::Embed(Model::Person)), &named)),
            r#"<a href="/api/v2/people/1/">&quot;&gt;&lt;script&gt;x&lt;/script&gt;</a>"#
        );
    }

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
