//! IIIF's Change Discovery API 1.0: the manifests' Create, Update and Delete
//! activities, made from the versions' changes, in an `OrderedCollection` of
//! pages, oldest first. A specimen added or changed is its manifest's Create
//! or Update, where it has photographs now; a photograph added, changed or
//! removed updates its specimen's; a deleted specimen is its manifest's
//! Delete (whether it had photographs is not kept: every deleted specimen's
//! is, which a reader that never had it ignores). Last, what the served view says is made to hold: a photographed
//! specimen whose last activity is none or a Delete gets a Create, and a
//! manifest whose last activity is not a Delete but that is not served gets
//! one, so an aggregator that reads from the last page back rebuilds exactly
//! the manifests served.

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Value};

use crate::encoding::time::write_timestamp;
use crate::model::Model;
use crate::view::{Value as Cell, View};

use super::presentation::{Photographed, MANIFESTS};

/// Where the activity stream is.
pub const ACTIVITY: &str = "/iiif/activity/";

/// The Change Discovery API's context.
pub const CONTEXT: &str = "http://iiif.io/api/discovery/1/context.json";

/// Activities a page holds.
pub const PAGE: usize = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Create,
    Update,
    Delete,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Create => "Create",
            Kind::Update => "Update",
            Kind::Delete => "Delete",
        }
    }
}

/// One activity: what happened to a specimen's manifest, and when
/// (microseconds since the epoch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activity {
    pub kind: Kind,
    pub specimen: i64,
    pub at: i64,
}

/// Every activity, oldest first.
pub fn activities(view: &View) -> Vec<Activity> {
    let photographed = view.derived::<Photographed>();
    let specimens = view.table(Model::SpecimenRecord);
    let served: HashSet<i64> = photographed.positions().map(|p| specimens.id(p)).collect();
    // Each current image's specimen, by the image's id.
    let images = view.table(Model::Image);
    let of_image: BTreeMap<i64, i64> = match Model::Image.field_index("specimen_record") {
        Some(f) => (0..images.len())
            .filter_map(|pos| match images.get(pos, f) {
                Cell::Ref(Model::SpecimenRecord, p) => {
                    Some((images.id(pos as u32), specimens.id(p)))
                }
                _ => None,
            })
            .collect(),
        None => BTreeMap::new(),
    };
    let mut out = Vec::new();
    let mut last: BTreeMap<i64, Kind> = BTreeMap::new();
    let mut latest = 0;
    for version in &view.history.versions {
        let at = version.published_at;
        latest = latest.max(at);
        for changes in &version.changes {
            if changes.model == Model::SpecimenRecord.label() {
                for &id in changes.added.iter().filter(|id| served.contains(id)) {
                    push(&mut out, &mut last, Kind::Create, id, at);
                }
                for &id in changes.modified.iter().filter(|id| served.contains(id)) {
                    push(&mut out, &mut last, Kind::Update, id, at);
                }
                // Whether a deleted specimen had photographs is not kept:
                // each is a Delete, which a reader without its manifest ignores.
                for &id in &changes.deleted {
                    push(&mut out, &mut last, Kind::Delete, id, at);
                }
            } else if changes.model == Model::Image.label() {
                let touched: HashSet<i64> = (changes.added.iter().chain(&changes.modified))
                    .filter_map(|image| of_image.get(image).copied())
                    .filter(|id| served.contains(id))
                    .collect();
                let mut touched: Vec<i64> = touched.into_iter().collect();
                touched.sort_unstable();
                for id in touched {
                    push(&mut out, &mut last, Kind::Update, id, at);
                }
            }
        }
    }
    // What the served view says, over what the changes could tell.
    let mut made: Vec<i64> = served
        .iter()
        .copied()
        .filter(|id| matches!(last.get(id), None | Some(Kind::Delete)))
        .collect();
    made.sort_unstable();
    for id in made {
        push(&mut out, &mut last, Kind::Create, id, latest);
    }
    let gone: Vec<i64> = last
        .iter()
        .filter(|(id, kind)| **kind != Kind::Delete && !served.contains(id))
        .map(|(id, _)| *id)
        .collect();
    for id in gone {
        push(&mut out, &mut last, Kind::Delete, id, latest);
    }
    out
}

/// Adds an activity, and notes it as the manifest's last: an update of a
/// manifest not made (or deleted) makes it.
fn push(
    out: &mut Vec<Activity>,
    last: &mut BTreeMap<i64, Kind>,
    kind: Kind,
    specimen: i64,
    at: i64,
) {
    let kind = match (kind, last.get(&specimen)) {
        (Kind::Update, None | Some(Kind::Delete)) => Kind::Create,
        (kind, _) => kind,
    };
    last.insert(specimen, kind);
    out.push(Activity { kind, specimen, at });
}

fn time(micros: i64) -> String {
    let mut out = Vec::new();
    write_timestamp(&mut out, micros);
    String::from_utf8(out).unwrap_or_default()
}

fn page_ref(base: &str, n: usize) -> Value {
    json!({ "id": format!("{base}{ACTIVITY}page/{n}"), "type": "OrderedCollectionPage" })
}

/// The `OrderedCollection` of `count` activities.
pub fn collection(base: &str, count: usize) -> Value {
    let pages = count.div_ceil(PAGE).max(1);
    json!({
        "@context": CONTEXT,
        "id": format!("{base}{ACTIVITY}"),
        "type": "OrderedCollection",
        "totalItems": count,
        "first": page_ref(base, 0),
        "last": page_ref(base, pages - 1),
    })
}

/// Page `n` of `all`; `None` past the last.
pub fn page(base: &str, all: &[Activity], n: usize) -> Option<Value> {
    let pages = all.len().div_ceil(PAGE).max(1);
    if n >= pages {
        return None;
    }
    let items: Vec<Value> = all
        .iter()
        .skip(n * PAGE)
        .take(PAGE)
        .map(|a| {
            json!({
                "type": a.kind.name(),
                "object": { "id": format!("{base}{MANIFESTS}{}", a.specimen), "type": "Manifest" },
                "endTime": time(a.at),
            })
        })
        .collect();
    let mut doc = json!({
        "@context": CONTEXT,
        "id": format!("{base}{ACTIVITY}page/{n}"),
        "type": "OrderedCollectionPage",
        "startIndex": n * PAGE,
        "partOf": { "id": format!("{base}{ACTIVITY}"), "type": "OrderedCollection" },
        "orderedItems": items,
    });
    if n > 0 {
        doc["prev"] = page_ref(base, n - 1);
    }
    if n + 1 < pages {
        doc["next"] = page_ref(base, n + 1);
    }
    Some(doc)
}
