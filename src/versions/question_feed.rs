//! A list question's feed (`format=atom` on any list): the question's records
//! added, modified and deleted by the versions the history holds, as an Atom
//! feed (RFC 4287), newest version first. An entry is one record's change in
//! one version, linking the record and that version's changes.
//!
//! Which changes are the question's: the history keeps, of each version, the
//! ids it changed and their digests, not the records as they were. A record
//! is judged by its record in the served snapshot (the newest version): an
//! added or modified record still there is the question's when it matches the
//! question now, so a record moved out of the question's filters is no longer
//! in its feed, and one moved in is with its earlier changes. A record no
//! longer in the snapshot (deleted, or changed and deleted since) cannot be
//! judged: its changes are in the feed of the whole list (a question of no
//! filter and no search) only, which the feed's subtitle says.

use crate::encoding::xml::escaped as xml;
use crate::model::endpoint::{API_PREFIX, CHANGES_PATH};
use crate::model::history::Version;
use crate::model::Model;
use crate::query::plan::Matching;
use crate::query::Plan;
use crate::view::View;

use super::list::published;

/// One change of one record: its id, where the served view holds it, what
/// changed and in which version.
struct Entry<'h> {
    id: i64,
    pos: Option<u32>,
    change: &'static str,
    version: &'h Version,
    /// A deleted specimen's catalogue number, where the history kept it.
    number: Option<&'h str>,
}

/// The changes of the question `plan` asks, newest version first (in a
/// version: added, modified, deleted, each by id), after `plan`'s offset,
/// at most its limit; and whether the question is the whole list.
fn entries<'h>(view: &'h View, plan: &Plan) -> (Vec<Entry<'h>>, bool) {
    let model = plan.endpoint().model;
    let table = view.table(model);
    let matching = plan.matching(view);
    let whole = matches!(matching, Matching::Every(_));
    let mut chosen = vec![whole; table.len()];
    if !whole {
        matching.for_each(|pos| chosen[pos] = true);
    }
    let label = model.label();
    let mut out = Vec::new();
    let wanted = plan.offset().saturating_add(plan.limit());
    'versions: for version in view.history.versions.iter().rev() {
        let Some(c) = version.changes.iter().find(|c| c.model == label) else {
            continue;
        };
        let numbers = &c.deleted_catalog_numbers;
        let kinds = [
            ("added", &c.added),
            ("modified", &c.modified),
            ("deleted", &c.deleted),
        ];
        for (change, ids) in kinds {
            for (i, &id) in ids.iter().enumerate() {
                let pos = match change {
                    "deleted" => None,
                    _ => table.position(id),
                };
                let in_question = match pos {
                    Some(pos) => chosen[pos as usize],
                    None => whole,
                };
                if !in_question {
                    continue;
                }
                let number = match change {
                    "deleted" => numbers.get(i).map(String::as_str).filter(|n| !n.is_empty()),
                    _ => None,
                };
                out.push(Entry {
                    id,
                    pos,
                    change,
                    version,
                    number,
                });
                if out.len() >= wanted {
                    break 'versions;
                }
            }
        }
    }
    out.drain(..plan.offset().min(out.len()));
    (out, whole)
}

/// The most characters of the question a feed's title says.
const TITLE_QUESTION: usize = 120;

/// The feed of `plan`'s question, asked as `query` (its parameters but
/// `format`, as a query string) at `origin` (`http://host`, empty for paths).
pub fn atom(view: &View, plan: &Plan, origin: &str, query: &str) -> String {
    let origin = &xml(origin);
    let endpoint = plan.endpoint();
    let model = endpoint.model;
    let list = format!("{API_PREFIX}{}/", endpoint.segment());
    let asked = match query {
        "" => list.clone(),
        q => format!("{list}?{q}"),
    };
    let feed = match query {
        "" => format!("{list}?format=atom"),
        q => format!("{list}?{q}&format=atom"),
    };
    let (entries, whole) = entries(view, plan);
    let history = &view.history;
    let updated = history.versions.last().map(published).unwrap_or_default();
    let title = format!("{}: {} changed", view.dataset.title(), endpoint.segment());
    let title = match query {
        "" => title,
        q => {
            let question = crate::encoding::percent::percent_decode(q, true);
            let mut said: String = question.chars().take(TITLE_QUESTION).collect();
            if said.len() < question.len() {
                said.push('…');
            }
            format!("{title}, of {said}")
        }
    };
    let subtitle = match whole {
        true => "Each record added, modified or deleted by a version, newest first.",
        false => {
            "Each record of the question added or modified by a version, newest first, \
             as the record now is matches the question; records deleted since are in \
             the feed of the whole list."
        }
    };
    let author = match view.dataset.publisher.trim() {
        "" => "catalogue",
        publisher => publisher,
    };
    let mut s = String::with_capacity(1024 + 640 * entries.len());
    s.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    s.push_str(&format!("  <title>{}</title>\n", xml(&title)));
    s.push_str(&format!("  <subtitle>{subtitle}</subtitle>\n"));
    s.push_str(&format!("  <id>{origin}{}</id>\n", xml(&feed)));
    s.push_str(&format!("  <updated>{updated}</updated>\n"));
    s.push_str(&format!(
        "  <link rel=\"self\" type=\"application/atom+xml\" href=\"{origin}{}\"/>\n",
        xml(&feed)
    ));
    s.push_str(&format!(
        "  <link rel=\"alternate\" type=\"application/json\" href=\"{origin}{}\"/>\n",
        xml(&asked)
    ));
    s.push_str(&format!(
        "  <author><name>{}</name></author>\n",
        xml(author)
    ));
    let usi = match model {
        Model::SpecimenRecord => model.field_index("usi"),
        _ => None,
    };
    for e in &entries {
        let record = format!("{API_PREFIX}{}/{}/", model.path(), e.id);
        let named = match (usi, e.pos) {
            (Some(usi), Some(pos)) => view.table(model).get(pos as usize, usi).as_str(),
            _ => e.number,
        };
        let name = match named {
            Some(number) => format!("{number} ({} {})", model.path(), e.id),
            None => format!("{} {}", model.path(), e.id),
        };
        let number = e.version.number;
        let at = published(e.version);
        s.push_str("  <entry>\n");
        s.push_str(&format!(
            "    <title>{} {} in version {number}</title>\n",
            xml(&name),
            e.change
        ));
        s.push_str(&format!(
            "    <id>{origin}{record}#version-{number}-{}</id>\n",
            e.change
        ));
        s.push_str(&format!("    <updated>{at}</updated>\n"));
        s.push_str(&format!(
            "    <category term=\"{}\" label=\"{}\"/>\n",
            e.change, e.change
        ));
        s.push_str(&format!(
            "    <link rel=\"alternate\" type=\"application/json\" href=\"{origin}{record}\"/>\n"
        ));
        // The version's changes: since the version before it (every
        // version a feed entry names is the second or later).
        s.push_str(&format!(
            "    <link rel=\"related\" type=\"application/json\" title=\"Version {number}\" \
             href=\"{origin}{CHANGES_PATH}?since={}\"/>\n",
            number.saturating_sub(1).max(1)
        ));
        s.push_str(&format!(
            "    <summary>{} {} in version {number}, published {at}.</summary>\n",
            xml(&name),
            e.change
        ));
        s.push_str("  </entry>\n");
    }
    s.push_str("</feed>\n");
    s
}
