//! The versions' list (`/api/v2/versions/`), newest first, and what its
//! neighbours share: a page of a list, list names, publication times.

use crate::encoding::json::{write_int, write_str};
use crate::encoding::time::write_timestamp;
use crate::model::endpoint::{ARCHIVE_PATH, EML_PATH, KEPT_ARCHIVE_PATH, KEPT_EML_PATH};
use crate::model::history::Version;
use crate::model::Model;
use crate::query::{ApiError, Params};
use crate::view::View;

const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 10_000;

/// A model's list name (`specimen-records`), or its label for a model without one.
pub fn list_name(label: &str) -> &str {
    Model::from_label(label).map_or(label, |m| m.path())
}

/// A page of a list: `limit` (1 to `MAX_LIMIT`) and `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub limit: usize,
    pub offset: usize,
}

/// Refuses parameters not in `known`, naming those that are.
pub(super) fn only(params: &Params, known: &[&str], what: &str) -> Result<(), ApiError> {
    match params.0.iter().find(|(k, _)| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some((k, _)) => Err(ApiError::bad_request(format!(
            "unknown parameter {k:?}: {what} takes {}",
            known.join(", ")
        ))),
    }
}

/// Refuses a `format` other than `json` (a page is asked for by `Accept` or
/// `format=html`, which never gets here).
pub(super) fn json_only(params: &Params) -> Result<(), ApiError> {
    match params.get("format") {
        None | Some("json") => Ok(()),
        Some(f) => Err(ApiError::bad_request(format!(
            "format must be json, not {f:?}"
        ))),
    }
}

impl Page {
    pub(super) fn parse(params: &Params) -> Result<Page, ApiError> {
        let number =
            |name: &str, default: usize, range: std::ops::RangeInclusive<usize>| match params
                .get(name)
            {
                None => Ok(default),
                Some(raw) => raw
                    .parse::<usize>()
                    .ok()
                    .filter(|n| range.contains(n))
                    .ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "{name} must be a whole number from {} to {}, not {raw:?}",
                            range.start(),
                            range.end()
                        ))
                    }),
            };
        Ok(Page {
            limit: number("limit", DEFAULT_LIMIT, 1..=MAX_LIMIT)?,
            offset: number("offset", 0, 0..=i64::MAX as usize)?,
        })
    }
}

/// `/api/v2/versions/`: newest first, paged.
pub fn versions_request(params: &Params) -> Result<Page, ApiError> {
    only(params, &["limit", "offset", "format"], "the versions' list")?;
    json_only(params)?;
    Page::parse(params)
}

/// One version as JSON: number, checksum, time, counts, what changed in
/// numbers, per list, and where its archive and `eml.xml` are served.
fn write_version(out: &mut Vec<u8>, v: &Version, files: Option<Files>) {
    out.extend_from_slice(b"{\"version\":");
    write_int(out, v.number as i64);
    out.extend_from_slice(b",\"checksum\":");
    write_str(out, &crate::encoding::hex::hex(&v.checksum));
    out.extend_from_slice(b",\"published\":\"");
    write_timestamp(out, v.published_at);
    out.extend_from_slice(b"\",\"counts\":{");
    for (i, (label, n)) in v.counts.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, list_name(label));
        out.push(b':');
        write_int(out, *n as i64);
    }
    out.extend_from_slice(b"},\"changes\":{");
    for (i, c) in v.changes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, list_name(&c.model));
        out.extend_from_slice(b":{\"added\":");
        write_int(out, c.added.len() as i64);
        out.extend_from_slice(b",\"modified\":");
        write_int(out, c.modified.len() as i64);
        out.extend_from_slice(b",\"deleted\":");
        write_int(out, c.deleted.len() as i64);
        out.push(b'}');
    }
    out.extend_from_slice(b"},\"archive\":");
    match files {
        Some(f) => {
            write_str(out, &f.archive);
            out.extend_from_slice(b",\"eml\":");
            write_str(out, &f.eml);
        }
        None => out.extend_from_slice(b"null,\"eml\":null"),
    }
    out.push(b'}');
}

/// Where a version's archive and `eml.xml` are served (paths).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Files {
    pub archive: String,
    pub eml: String,
}

/// Where version `v`'s files are served: its kept files
/// (`/versions/N/dwca.zip`) where `kept` (ascending) holds it; the current
/// version's `/dwca.zip` and `/eml.xml` where its own are not kept (yet);
/// none for an older version not kept.
pub fn files(v: &Version, current: u64, kept: &[u64]) -> Option<Files> {
    let path = |template: &str| template.replace("{version}", &v.number.to_string());
    if kept.binary_search(&v.number).is_ok() {
        return Some(Files {
            archive: path(KEPT_ARCHIVE_PATH),
            eml: path(KEPT_EML_PATH),
        });
    }
    (v.number == current).then(|| Files {
        archive: ARCHIVE_PATH.to_string(),
        eml: EML_PATH.to_string(),
    })
}

/// The versions' list: `{"meta": {"total_count"}, "items": [...]}`, newest
/// first; `kept`, the versions whose files are kept (ascending).
pub fn versions_json(view: &View, page: Page, kept: &[u64]) -> Vec<u8> {
    let history = &view.history;
    let current = history.current();
    let mut out = Vec::with_capacity(256 + 512 * page.limit.min(history.versions.len()));
    out.extend_from_slice(b"{\"meta\":{\"total_count\":");
    write_int(&mut out, history.versions.len() as i64);
    out.extend_from_slice(b"},\"items\":[");
    let newest_first = history
        .versions
        .iter()
        .rev()
        .skip(page.offset)
        .take(page.limit);
    for (i, v) in newest_first.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_version(&mut out, v, files(v, current, kept));
    }
    out.extend_from_slice(b"]}");
    out
}

/// When a version was published, ISO 8601.
pub fn published(v: &Version) -> String {
    let mut out = Vec::with_capacity(32);
    write_timestamp(&mut out, v.published_at);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_links_its_kept_files_else_the_current_ones_else_none() {
        let v = |number| Version {
            number,
            ..Version::default()
        };
        let kept = [2, 3];
        let at = |archive: &str, eml: &str| {
            Some(Files {
                archive: archive.into(),
                eml: eml.into(),
            })
        };
        assert_eq!(
            files(&v(3), 3, &kept),
            at("/versions/3/dwca.zip", "/versions/3/eml.xml")
        );
        assert_eq!(
            files(&v(2), 3, &kept),
            at("/versions/2/dwca.zip", "/versions/2/eml.xml")
        );
        assert_eq!(files(&v(1), 3, &kept), None);
        // The current version's own not kept (yet): what the server makes.
        assert_eq!(files(&v(4), 4, &kept), at("/dwca.zip", "/eml.xml"));
    }
}
