//! `/versions.rss`: the versions as RSS 2.0 in the form GBIF's IPT writes its
//! feed, so that tools written for IPT feeds read this one: one item per
//! version, newest first, titled `<title> - Version N` (the IPT says the
//! version in the title; its namespace has no element of its own for it),
//! with what changed as its description, and the IPT's `ipt:eml` and
//! `ipt:dwca` (namespace `http://ipt.gbif.org/`) naming the version's
//! `eml.xml` and archive where they are served, and `pubDate` (RFC 822).

use crate::encoding::xml::escaped as xml;
use crate::model::endpoint::{RSS_PATH, VERSIONS_PATH};
use crate::model::history::Version;
use crate::view::View;

use super::feed::{summary, ENTRIES};
use super::list::files;

/// The IPT's namespace for its elements.
pub const IPT_NAMESPACE: &str = "http://ipt.gbif.org/";

/// When a version was published, as RSS dates are written (RFC 822:
/// `Sun, 29 Nov 2026 04:51:59 +0000`).
fn rfc822(v: &Version) -> String {
    chrono::DateTime::from_timestamp_micros(v.published_at)
        .map(|t| t.to_rfc2822())
        .unwrap_or_default()
}

/// The feed; links start with `origin` (`http://host`, empty for paths);
/// `kept`, the versions whose files are kept (ascending).
pub fn rss(view: &View, origin: &str, kept: &[u64]) -> String {
    // The origin may be the request's Host (`evil&x` is a host): escaped.
    let origin = &xml(origin);
    let history = &view.history;
    let current = history.current();
    let title = view.dataset.title().to_string();
    let mut s = String::with_capacity(1024 + 768 * history.versions.len().min(ENTRIES));
    s.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    s.push_str(&format!(
        "<rss version=\"2.0\" xmlns:ipt=\"{IPT_NAMESPACE}\" xmlns:atom=\"http://www.w3.org/2005/Atom\">\n"
    ));
    s.push_str("  <channel>\n");
    s.push_str(&format!("    <title>{}</title>\n", xml(&title)));
    s.push_str(&format!("    <link>{origin}{VERSIONS_PATH}</link>\n"));
    s.push_str(&format!(
        "    <atom:link href=\"{origin}{RSS_PATH}\" rel=\"self\" type=\"application/rss+xml\"/>\n"
    ));
    s.push_str(&format!(
        "    <description>{}</description>\n",
        xml(&format!("The published versions of {title}"))
    ));
    if let Some(last) = history.versions.last() {
        s.push_str(&format!(
            "    <lastBuildDate>{}</lastBuildDate>\n",
            rfc822(last)
        ));
    }
    s.push_str("    <generator>catalogue</generator>\n");
    s.push_str("    <docs>https://www.rssboard.org/rss-specification</docs>\n");
    for v in history.versions.iter().rev().take(ENTRIES) {
        s.push_str("    <item>\n");
        s.push_str(&format!(
            "      <title>{} - Version {}</title>\n",
            xml(&title),
            v.number
        ));
        s.push_str(&format!("      <link>{origin}{VERSIONS_PATH}</link>\n"));
        s.push_str(&format!(
            "      <description>{}</description>\n",
            xml(&summary(v))
        ));
        if let Some(f) = files(v, current, kept) {
            s.push_str(&format!("      <ipt:eml>{origin}{}</ipt:eml>\n", f.eml));
            s.push_str(&format!(
                "      <ipt:dwca>{origin}{}</ipt:dwca>\n",
                f.archive
            ));
        }
        s.push_str(&format!("      <pubDate>{}</pubDate>\n", rfc822(v)));
        s.push_str(&format!(
            "      <guid isPermaLink=\"false\">{origin}{VERSIONS_PATH}#{}-{}</guid>\n",
            v.number,
            &crate::encoding::hex::hex(&v.checksum)[..16]
        ));
        s.push_str("    </item>\n");
    }
    s.push_str("  </channel>\n</rss>\n");
    s
}
