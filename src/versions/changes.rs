//! What changed since a version (`/api/v2/changes/?since=`), and whether a
//! record that is not found was deleted (410 Gone).

use crate::encoding::json::{write_int, write_str};
use crate::encoding::time::parse_timestamp;
use crate::model::history::{Changes, History, Version};
use crate::model::Model;
use crate::query::{ApiError, Params};
use crate::view::{Table, View};

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

/// The version a `since` names, checked against the history: a version
/// published, and one whose changes since are kept (0: before version 1,
/// every record added since).
pub fn resolve(history: &History, since: &Since) -> Result<u64, ApiError> {
    let since = match since {
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
    if since > 0 && since + 1 < history.oldest() && since < history.current() {
        return Err(gone(history, &format!("version {since}")));
    }
    Ok(since)
}

/// Merged beyond this many changes of records, the changes since a version
/// are made on the pool, not on the thread that read the request.
const MERGED_ON_THE_POOL: usize = 10_000;

/// Whether the changes since `since` (resolved) are cheap to answer where
/// the request is read: every record (paged before it is read), or a merge
/// of few changes.
pub fn cheap(history: &History, since: u64) -> bool {
    let merged = || -> usize {
        (history.versions.iter())
            .filter(|v| v.number > since)
            .flat_map(|v| &v.changes)
            .map(|c| c.added.len() + c.modified.len() + c.deleted.len())
            .sum()
    };
    since == 0 || merged() < MERGED_ON_THE_POOL
}

/// The changes since the version `since` ([`resolve`]d), a page of them:
/// `{"meta": {"total_count", "since", "version"}, "items": [{"list", "id",
/// "change"}]}`, per list in the API's order, then by change (added,
/// modified, deleted), then id.
pub fn changes_json(view: &View, since: u64, page: Page) -> Result<Vec<u8>, ApiError> {
    let history = &view.history;
    let specimens_table = view.table(Model::SpecimenRecord);
    let merged;
    let runs: Vec<Run> = match since {
        0 => everything(view),
        _ => {
            merged = history
                .since(since)
                .ok_or_else(|| gone(history, &format!("version {since}")))?;
            merged.iter().flat_map(Run::of).collect()
        }
    };
    let total: usize = runs.iter().map(|r| r.ids.len()).sum();
    let mut out = Vec::with_capacity(128 + 64 * page.limit.min(total));
    out.extend_from_slice(b"{\"meta\":{\"total_count\":");
    write_int(&mut out, total as i64);
    out.extend_from_slice(b",\"since\":");
    write_int(&mut out, since as i64);
    out.extend_from_slice(b",\"version\":");
    write_int(&mut out, history.current() as i64);
    out.extend_from_slice(b"},\"items\":[");
    let ids = view.dataset.occurrence_ids();
    let usi = Model::SpecimenRecord
        .field_index("usi")
        .expect("a specimen record has a USI");
    // Only the page's items are looked at: whole runs before it are skipped
    // by their lengths.
    let (mut skip, mut left, mut first) = (page.offset, page.limit, true);
    for run in &runs {
        let len = run.ids.len();
        if skip >= len {
            skip -= len;
            continue;
        }
        for i in skip..len.min(skip.saturating_add(left)) {
            let id = run.ids.get(i);
            if !first {
                out.push(b',');
            }
            first = false;
            left -= 1;
            out.extend_from_slice(b"{\"list\":");
            write_str(&mut out, run.list);
            out.extend_from_slice(b",\"id\":");
            write_int(&mut out, id);
            out.extend_from_slice(b",\"change\":");
            write_str(&mut out, run.change.word());
            // Of a specimen record: its catalogue number, where known (the
            // record's now, or the one it had when deleted).
            let number = match (run.specimens, run.change) {
                (false, _) => None,
                (true, Change::Deleted) => run
                    .deleted_numbers
                    .get(i)
                    .map(String::as_str)
                    .filter(|n| !n.is_empty()),
                (true, _) => specimens_table
                    .position(id)
                    .and_then(|pos| specimens_table.get(pos as usize, usi).as_str()),
            };
            if let Some(number) = number {
                out.extend_from_slice(b",\"occurrenceID\":");
                write_str(&mut out, &ids.of(number));
            }
            out.push(b'}');
        }
        skip = 0;
        if left == 0 {
            break;
        }
    }
    out.extend_from_slice(b"]}");
    Ok(out)
}

/// One kind of change of one list's records, in id order.
struct Run<'a> {
    list: &'a str,
    change: Change,
    ids: Ids<'a>,
    /// Of a specimen record: it is named by its occurrenceID.
    specimens: bool,
    /// Beside deleted ids: the catalogue numbers they had.
    deleted_numbers: &'a [String],
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Change {
    Added,
    Modified,
    Deleted,
}

impl Change {
    fn word(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Modified => "modified",
            Change::Deleted => "deleted",
        }
    }
}

/// A run's ids: listed by the history, or every record of a table (whose
/// ids are in ascending order), read only where the page needs them.
enum Ids<'a> {
    Listed(&'a [i64]),
    Table(&'a Table),
}

impl Ids<'_> {
    fn len(&self) -> usize {
        match self {
            Ids::Listed(ids) => ids.len(),
            Ids::Table(table) => table.len(),
        }
    }

    fn get(&self, i: usize) -> i64 {
        match self {
            Ids::Listed(ids) => ids[i],
            Ids::Table(table) => table.id(i as u32),
        }
    }
}

impl<'a> Run<'a> {
    /// A version's changes as runs: added, modified, deleted.
    fn of(c: &'a Changes) -> [Run<'a>; 3] {
        let run = |change, ids: &'a [i64]| Run {
            list: list_name(&c.model),
            change,
            ids: Ids::Listed(ids),
            specimens: c.model == Model::SpecimenRecord.label(),
            deleted_numbers: &c.deleted_catalog_numbers,
        };
        [
            run(Change::Added, &c.added),
            run(Change::Modified, &c.modified),
            run(Change::Deleted, &c.deleted),
        ]
    }
}

/// Every record of the view, as added: what changed since before version 1.
fn everything(view: &View) -> Vec<Run<'_>> {
    let stored = Model::ALL.into_iter().filter(|m| m.stored());
    stored
        .map(|model| Run {
            list: list_name(model.label()),
            change: Change::Added,
            ids: Ids::Table(view.table(model)),
            specimens: model == Model::SpecimenRecord,
            deleted_numbers: &[],
        })
        .filter(|run| run.ids.len() > 0)
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
