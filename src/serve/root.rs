//! The API's map for a client that starts at the top: the root document naming
//! every list, and the 404 that names the lists nearest to a name that is none.

use std::sync::OnceLock;

use bytes::Bytes;
use serde_json::{json, Map, Value};

use crate::html::DOCS_PATH;
use crate::model::endpoint::{API_PREFIX, ARCHIVE_PATH, IMAGES_PATH, OPENAPI_PATH};
use crate::model::Endpoint;
use crate::query::nearest::edit_distance;
use crate::wagtail::{DOCUMENTS_PATH, PAGES_PATH};

/// The service's own 404 text, kept where there is nothing better to say.
pub const NOT_FOUND: &str = "Not found.";

/// How many list names a 404 suggests at most.
const SUGGESTED: usize = 3;

/// `GET /api/v2/` for JSON: each list's URL by name, then the OpenAPI document, the
/// docs viewer and the Darwin Core Archive. The same for every snapshot.
pub fn document() -> Bytes {
    static DOCUMENT: OnceLock<Bytes> = OnceLock::new();
    DOCUMENT
        .get_or_init(|| {
            let mut lists: Map<String, Value> = Endpoint::all()
                .iter()
                .map(|e| (e.segment(), json!(list_url(*e))))
                .collect();
            // Wagtail's own image list, beside the service's lists.
            lists.insert("images".into(), json!(IMAGES_PATH));
            // And its pages and documents.
            lists.insert("pages".into(), json!(PAGES_PATH));
            lists.insert("documents".into(), json!(DOCUMENTS_PATH));
            let doc = json!({
                "lists": lists,
                "openapi": OPENAPI_PATH,
                "docs": DOCS_PATH,
                "archive": ARCHIVE_PATH,
                // IIIF's top Collection: the photographed specimens' manifests by taxon.
                "iiif": crate::iiif::presentation::COLLECTIONS,
                // IIIF's Change Discovery: the manifests' activities.
                "iiif_activity": crate::iiif::activity::ACTIVITY,
            });
            Bytes::from(serde_json::to_vec(&doc).expect("a JSON value prints"))
        })
        .clone()
}

fn list_url(e: Endpoint) -> String {
    format!("{API_PREFIX}{}/", e.segment())
}

/// The message of a 404 at `path`: for a list name that is none
/// (`/api/v2/specimens/`), the nearest list names; else the service's own text.
pub fn not_found(path: &str) -> String {
    let Some(name) = path
        .strip_prefix(API_PREFIX)
        .and_then(|rest| rest.split('/').next())
        .filter(|name| !name.is_empty() && Endpoint::from_segment(name).is_none())
    else {
        return NOT_FOUND.to_string();
    };
    let urls: Vec<String> = nearest(name).into_iter().map(list_url).collect();
    let Some((last, first)) = urls.split_last() else {
        return NOT_FOUND.to_string();
    };
    let options = match first.is_empty() {
        true => last.clone(),
        false => format!("{} or {last}", first.join(", ")),
    };
    format!("{NOT_FOUND} There is no list {name:?}; did you mean {options}? {API_PREFIX} lists them all.")
}

/// The lists whose names are near `name`: a plural or singular of it, or a
/// few typing slips away; the nested ones for a nested name when there are any.
fn nearest(name: &str) -> Vec<Endpoint> {
    let name = name.to_lowercase();
    let nested = name.starts_with("nested-");
    let bare = name.strip_prefix("nested-").unwrap_or(&name);
    let stem = bare.strip_suffix('s').unwrap_or(bare);
    let slips = (bare.chars().count() / 2).max(2);
    let mut near: Vec<(usize, Endpoint)> = Endpoint::all()
        .iter()
        .filter_map(|&e| {
            let path = e.model.path();
            let distance = match stem.len() >= 4 && path.starts_with(stem) {
                true => 0,
                false => edit_distance(bare, path),
            };
            (distance <= slips).then_some((distance, e))
        })
        .collect();
    if near.iter().any(|(_, e)| e.nested == nested) {
        near.retain(|(_, e)| e.nested == nested);
    }
    near.sort_by_key(|&(distance, e)| (distance, e.model.path().len()));
    near.into_iter().take(SUGGESTED).map(|(_, e)| e).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(name: &str) -> Vec<String> {
        nearest(name).into_iter().map(Endpoint::segment).collect()
    }

    #[test]
    fn near_names_are_plurals_stems_and_slips() {
        assert_eq!(
            names("specimens"),
            ["specimen-records", "specimen-record-images", "species"]
        );
        assert_eq!(names("order"), ["orders"]);
        assert_eq!(names("family"), ["families"]);
        assert_eq!(names("nested-famlies"), ["nested-families"]);
        assert_eq!(names("nested-people"), ["people"]);
        assert_eq!(names("bogus"), Vec::<String>::new());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn a_404_keeps_the_services_text_unless_it_has_a_name_to_give() {
        assert_eq!(not_found("/api/v2/bogus/"), NOT_FOUND);
        assert_eq!(not_found("/api/v2/orders/1/x/"), NOT_FOUND);
        assert_eq!(not_found("/api/v1/orders/"), NOT_FOUND);
        assert_eq!(not_found("/nowhere"), NOT_FOUND);
        assert_eq!(
            not_found("/api/v2/order/"),
            "Not found. There is no list \"order\"; did you mean /api/v2/orders/? /api/v2/ lists them all."
        );
    }
}
