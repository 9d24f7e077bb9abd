//! `/versions.atom`: the versions as an Atom feed (RFC 4287) a feed reader or a
//! harvester follows, newest first: one entry per version with its time, its
//! counts, what changed in numbers, and links to its archive and `eml.xml`
//! (each kept version's, and the current one's: `list::files`).

use crate::encoding::xml::escaped as xml;
use crate::model::history::Version;
use crate::view::View;

use crate::model::endpoint::{FEED_PATH, VERSIONS_PATH};

use super::list::{files, list_name, published};

/// How many versions the feed holds, newest first (the JSON list pages
/// through all).
pub const ENTRIES: usize = 100;

/// What a version changed, in words: `specimen-records: 1 added, 2 modified`.
pub(super) fn summary(v: &Version) -> String {
    if v.changes.is_empty() {
        return match v.number {
            1 => "The first version.".to_string(),
            _ => "No record changed (the dataset's description or Wagtail's pages may have)."
                .to_string(),
        };
    }
    v.changes
        .iter()
        .map(|c| {
            format!(
                "{}: {} added, {} modified, {} deleted",
                list_name(&c.model),
                c.added.len(),
                c.modified.len(),
                c.deleted.len()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The feed; links start with `origin` (`http://host`, empty for paths);
/// `kept`, the versions whose files are kept (ascending).
pub fn atom(view: &View, origin: &str, kept: &[u64]) -> String {
    // The origin may be the request's Host (`evil&x` is a host): escaped.
    let origin = &xml(origin);
    let history = &view.history;
    let current = history.current();
    let title = view.dataset.title().to_string();
    let updated = history.versions.last().map(published).unwrap_or_default();
    let mut s = String::with_capacity(1024 + 1024 * history.versions.len().min(ENTRIES));
    s.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    s.push_str(&format!("  <title>{}: versions</title>\n", xml(&title)));
    s.push_str(&format!("  <id>{origin}{FEED_PATH}</id>\n"));
    s.push_str(&format!("  <updated>{updated}</updated>\n"));
    s.push_str(&format!(
        "  <link rel=\"self\" type=\"application/atom+xml\" href=\"{origin}{FEED_PATH}\"/>\n"
    ));
    s.push_str(&format!(
        "  <link rel=\"alternate\" type=\"text/html\" href=\"{origin}{VERSIONS_PATH}\"/>\n"
    ));
    let author = match view.dataset.publisher.trim() {
        "" => "catalogue",
        publisher => publisher,
    };
    s.push_str(&format!(
        "  <author><name>{}</name></author>\n",
        xml(author)
    ));
    for v in history.versions.iter().rev().take(ENTRIES) {
        let counts: Vec<String> = v
            .counts
            .iter()
            .map(|(label, n)| format!("{n} {}", list_name(label)))
            .collect();
        s.push_str("  <entry>\n");
        s.push_str(&format!("    <title>Version {}</title>\n", v.number));
        s.push_str(&format!(
            "    <id>{origin}{VERSIONS_PATH}#{}-{}</id>\n",
            v.number,
            &crate::encoding::hex::hex(&v.checksum)[..16]
        ));
        s.push_str(&format!("    <updated>{}</updated>\n", published(v)));
        s.push_str(&format!("    <published>{}</published>\n", published(v)));
        s.push_str(&format!(
            "    <summary>{}</summary>\n",
            xml(&format!("{} Counts: {}.", summary(v), counts.join(", ")))
        ));
        if let Some(f) = files(v, current, kept) {
            s.push_str(&format!(
                "    <link rel=\"enclosure\" type=\"application/zip\" href=\"{origin}{}\"/>\n",
                f.archive
            ));
            s.push_str(&format!(
                "    <link rel=\"describedby\" type=\"application/xml\" href=\"{origin}{}\"/>\n",
                f.eml
            ));
        }
        s.push_str(&format!(
            "    <link rel=\"alternate\" type=\"application/json\" href=\"{origin}/api/v2/changes/?since={}\"/>\n",
            v.number.saturating_sub(1).max(1)
        ));
        s.push_str("  </entry>\n");
    }
    s.push_str("</feed>\n");
    s
}
