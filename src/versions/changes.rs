//! What changed since a version (`/api/v2/changes/?since=`), and whether a
//! record that is not found was deleted (410 Gone).

use crate::encoding::json::{write_int, write_str};
use crate::encoding::time::parse_timestamp;
use crate::model::history::{Changes, History, Version};
use crate::model::Model;
use crate::query::{ApiError, Params};
use crate::view::View;

use super::list::{json_only, list_name, only, published, Page};

/// Which version a `since` names: a number, or an instant (the newest version
/// published at or before it).
#[derive(Clone, Debug, PartialEq)]
pub struct ChangesRequest {
    pub since: Since,
    pub page: Page,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Since {
    Version(u64),
    /// Microseconds since the epoch, as given.
    Instant(i64, String),
}

/// `/api/v2/changes/?since=...`.
pub fn changes_request(params: &Params) -> Result<ChangesRequest, ApiError> {
    only(
        params,
        &["since", "limit", "offset", "format"],
        "the changes' list",
    )?;
    json_only(params)?;
    let raw = params.get("since").ok_or_else(|| {
        ApiError::bad_request(
            "since is required: a version number (since=3) or an instant \
             (since=2026-11-01T00:00:00Z or since=2026-11-01)",
        )
    })?;
    let since =
        match crate::encoding::whole::canonical(raw).ok_or(()) {
            Ok(n) if n >= 1 => Since::Version(n),
            Ok(_) => return Err(ApiError::bad_request(
                "since=0 names no version: versions start at 1 (the whole collection is /dwca.zip)",
            )),
            Err(_) => {
                let instant = match raw.len() {
                    10 => parse_timestamp(&format!("{raw}T00:00:00Z")),
                    _ => parse_timestamp(raw),
                };
                let micros = instant.ok_or_else(|| {
                    ApiError::bad_request(format!(
                        "since must be a version number or an ISO 8601 instant \
                     (2026-11-01T00:00:00Z, 2026-11-01), not {raw:?}"
                    ))
                })?;
                Since::Instant(micros, raw.to_string())
            }
        };
    Ok(ChangesRequest {
        since,
        page: Page::parse(params)?,
    })
}

/// Why the history cannot say what changed since a version it no longer holds.
fn gone(history: &History, asked: &str) -> ApiError {
    let oldest = history.versions.first();
    let when = oldest.map(published).unwrap_or_default();
    ApiError {
        status: 410,
        message: format!(
            "{asked} is older than the history kept: the oldest version kept is {} (published \
             {when}); changes since it are here, and the whole collection is /dwca.zip",
            history.oldest()
        ),
    }
}

/// The changes since the version asked: `{"meta": {"total_count", "since",
/// "version"}, "items": [{"list", "id", "change"}]}`, per list in the API's
/// order, then by change (added, modified, deleted), then id.
pub fn changes_json(view: &View, request: &ChangesRequest) -> Result<Vec<u8>, ApiError> {
    let history = &view.history;
    let since = match &request.since {
        Since::Version(n) if *n > history.current() => {
            return Err(ApiError::bad_request(format!(
                "version {n} is not published yet: the current version is {}",
                history.current()
            )))
        }
        Since::Version(n) => *n,
        // Before version 1 was published, and every version since kept: the
        // whole collection was added since.
        Since::Instant(at, _) if history.at(*at).is_none() && history.oldest() == 1 => 0,
        Since::Instant(at, raw) => history
            .at(*at)
            .ok_or_else(|| gone(history, &format!("since={raw}")))?,
    };
    let specimens_table = view.table(Model::SpecimenRecord);
    let changes = match since {
        0 => everything(view),
        _ => history
            .since(since)
            .ok_or_else(|| gone(history, &format!("version {since}")))?,
    };
    // Each item: its list, id, change and, of a specimen record, where
    // its catalogue number is known, the position of the specimen or its
    // number when deleted.
    let items: Vec<(&str, i64, &str, OccurrenceName)> = changes
        .iter()
        .flat_map(|c: &Changes| {
            let list = list_name(&c.model);
            let specimens = c.model == Model::SpecimenRecord.label();
            let kind = |ids: &'_ [i64], change: &'static str| {
                ids.iter()
                    .enumerate()
                    .map(move |(i, &id)| {
                        let named = match (specimens, change) {
                            (false, _) => OccurrenceName::Not,
                            (true, "deleted") => (c.deleted_catalog_numbers.get(i))
                                .filter(|n| !n.is_empty())
                                .map_or(OccurrenceName::Not, |n| OccurrenceName::Deleted(n)),
                            (true, _) => specimens_table
                                .position(id)
                                .map_or(OccurrenceName::Not, OccurrenceName::Here),
                        };
                        (list, id, change, named)
                    })
                    .collect::<Vec<_>>()
            };
            [
                kind(&c.added, "added"),
                kind(&c.modified, "modified"),
                kind(&c.deleted, "deleted"),
            ]
            .concat()
        })
        .collect();
    let page = request.page;
    let mut out = Vec::with_capacity(128 + 64 * page.limit.min(items.len()));
    out.extend_from_slice(b"{\"meta\":{\"total_count\":");
    write_int(&mut out, items.len() as i64);
    out.extend_from_slice(b",\"since\":");
    write_int(&mut out, since as i64);
    out.extend_from_slice(b",\"version\":");
    write_int(&mut out, history.current() as i64);
    out.extend_from_slice(b"},\"items\":[");
    let ids = view.dataset.occurrence_ids();
    let usi = Model::SpecimenRecord
        .field_index("usi")
        .expect("a specimen record has a USI");
    for (i, (list, id, change, named)) in
        items.iter().skip(page.offset).take(page.limit).enumerate()
    {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"list\":");
        write_str(&mut out, list);
        out.extend_from_slice(b",\"id\":");
        write_int(&mut out, *id);
        out.extend_from_slice(b",\"change\":");
        write_str(&mut out, change);
        let number = match named {
            OccurrenceName::Not => None,
            OccurrenceName::Here(pos) => specimens_table.get(*pos as usize, usi).as_str(),
            OccurrenceName::Deleted(number) => Some(*number),
        };
        if let Some(number) = number {
            out.extend_from_slice(b",\"occurrenceID\":");
            write_str(&mut out, &ids.of(number));
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    Ok(out)
}

/// How a change of a specimen record names it by its occurrenceID.
#[derive(Clone, Copy)]
enum OccurrenceName<'a> {
    /// Not a specimen's, or a deleted one whose catalogue number is not kept.
    Not,
    /// A specimen of the view, at this position.
    Here(u32),
    /// A deleted specimen, by the catalogue number it had.
    Deleted(&'a str),
}

/// Every record of the view, as added: what changed since before version 1.
fn everything(view: &View) -> Vec<Changes> {
    let stored = Model::ALL.into_iter().filter(|m| m.stored());
    stored
        .map(|model| {
            let table = view.table(model);
            let mut added: Vec<i64> = (0..table.len() as u32).map(|p| table.id(p)).collect();
            added.sort_unstable();
            Changes {
                model: model.label().to_string(),
                added,
                ..Changes::default()
            }
        })
        .filter(|c| !c.added.is_empty())
        .collect()
}

/// A record that is not in the view: 410 Gone naming the version that
/// deleted it, while the history holds it; otherwise `None` (a 404).
pub fn deleted(view: &View, model: Model, id: &str) -> Option<ApiError> {
    let id: i64 = id.parse().ok()?;
    let v = view.history.deleted_in(model, id)?;
    Some(ApiError {
        status: 410,
        message: format!(
            "Gone: {} {id} was deleted in version {} (published {}).",
            model.path(),
            v.number,
            published(v)
        ),
    })
}

/// An occurrence (`/gbif/v1/occurrence/{key}`) that is not in the view: 410
/// Gone naming its occurrenceID and the version that deleted it, while the
/// history holds it; otherwise `None` (a 404).
pub fn deleted_occurrence(view: &View, key: &str) -> Option<ApiError> {
    let id: i64 = key.parse().ok()?;
    let v = view.history.deleted_in(Model::SpecimenRecord, id)?;
    Some(specimen_gone(view, &format!("the occurrence {id}"), id, v))
}

/// A short code (its digits as `matches` tells) that only a deleted specimen
/// had: 410 Gone naming it, while the history holds it; otherwise `None`.
pub fn deleted_short_code(
    view: &View,
    code: &str,
    matches: impl Fn(&str) -> bool,
) -> Option<ApiError> {
    let (id, v) = view.history.deleted_specimen(matches)?;
    Some(specimen_gone(
        view,
        &format!("the specimen of short code {code}"),
        id,
        v,
    ))
}

/// 410 Gone: the specimen record `id`, asked as `asked`, was deleted in `v`.
fn specimen_gone(view: &View, asked: &str, id: i64, v: &Version) -> ApiError {
    let label = Model::SpecimenRecord.label();
    let number = (v.changes.iter().find(|c| c.model == label))
        .and_then(|c| {
            let at = c.deleted.binary_search(&id).ok()?;
            c.deleted_catalog_numbers.get(at)
        })
        .filter(|n| !n.is_empty());
    let named = match number {
        Some(number) => format!(
            " (occurrenceID {})",
            view.dataset.occurrence_ids().of(number)
        ),
        None => String::new(),
    };
    ApiError {
        status: 410,
        message: format!(
            "Gone: {asked}{named} was deleted in version {} (published {}); /api/v2/changes/ \
             lists what changed since a version.",
            v.number,
            published(v)
        ),
    }
}
