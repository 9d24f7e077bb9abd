//! What Wagtail's own `pages` and `documents` endpoints serve beyond the pages'
//! records: each page's place in the page tree and its Wagtail fields, the page
//! types and locales those name, the sites, and the documents.
//!
//! A snapshot stores it in a section of its own (format 6 on), so the records of
//! older snapshots still decode; a view of one of those lists no pages.

use serde::{Deserialize, Serialize};

/// Wagtail's part of a collection.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wagtail {
    /// Every site, by hostname and port.
    pub sites: Vec<Site>,
    /// Every page's place and Wagtail fields, in ascending ids (one per
    /// `wagtailcore.page` record).
    pub pages: Vec<Placement>,
    /// The page types the pages name: a content type's id and its Django
    /// label (`pages.speciespage`), ascending ids.
    pub page_types: Vec<(i64, String)>,
    /// Every locale: its id and language code (`en`), ascending ids.
    pub locales: Vec<(i64, String)>,
    /// Every document, in ascending ids.
    pub documents: Vec<Document>,
}

/// A Wagtail site: pages are served under its root page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    pub hostname: String,
    pub port: i64,
    pub root_page: i64,
    pub is_default: bool,
}

impl Site {
    /// The site's root URL as Wagtail writes it: `http://host`, `https://host`
    /// on port 443, `http://host:port` on other ports.
    pub fn root_url(&self) -> String {
        let host = &self.hostname;
        match self.port {
            80 => format!("http://{host}"),
            443 => format!("https://{host}"),
            port => format!("http://{host}:{port}"),
        }
    }
}

/// A page's place in the tree and the Wagtail fields its API serves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    pub id: i64,
    /// The tree path (treebeard's: four characters a level, `00010001`).
    pub path: String,
    /// The slugs from the tree's root: `/home/danaus-plexippus/`.
    pub url_path: String,
    /// The content type of the page's most specific model.
    pub content_type: i64,
    pub locale: i64,
    pub alias_of: Option<i64>,
    pub seo_title: String,
    pub show_in_menus: bool,
    pub search_description: String,
    /// The key shared by the translations of one page, as 32 lowercase hex
    /// digits (a dump writes it with dashes, SQLite without).
    pub translation_key: String,
}

/// A document (`wagtaildocs.document`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    pub id: i64,
    pub title: String,
    /// Its path under the media root: `documents/report.pdf`.
    pub file: String,
    pub created_at: i64,
    pub file_size: Option<i64>,
    pub file_hash: String,
    /// A Wagtail collection's id (not published).
    pub collection: i64,
    /// The names of its tags, in byte order, each once.
    pub tags: Vec<String>,
}

impl Wagtail {
    /// Puts every list in ascending ids, and tags in byte order.
    pub fn canonicalise(&mut self) {
        self.sites
            .sort_by(|a, b| (&a.hostname, a.port).cmp(&(&b.hostname, b.port)));
        self.pages.sort_by_key(|p| p.id);
        self.page_types.sort();
        self.locales.sort();
        self.documents.sort_by_key(|d| d.id);
        for d in &mut self.documents {
            d.tags.sort_unstable();
            d.tags.dedup();
        }
    }

    /// The site Wagtail's first migration creates, for a source without
    /// sites (a dump that left `wagtailcore.site` out): `localhost` on port 80,
    /// its root the first page beneath the tree's root, as that migration's
    /// home page is. None without such a page.
    pub fn initial_site(&self) -> Option<Site> {
        let home = (self.pages.iter())
            .filter(|p| p.path.len() == 8)
            .min_by(|a, b| a.path.cmp(&b.path))?;
        Some(Site {
            hostname: "localhost".into(),
            port: 80,
            root_page: home.id,
            is_default: true,
        })
    }

    /// The site Wagtail serves a request from when no site matches its host:
    /// the default one, or the only one.
    pub fn default_site(&self) -> Option<&Site> {
        match self.sites.as_slice() {
            [only] => Some(only),
            sites => sites.iter().find(|s| s.is_default),
        }
    }
}

/// A UUID as 32 lowercase hex digits, however it was written.
pub fn uuid_hex(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_urls_and_keys_are_written_as_wagtail_writes_them() {
        let site = |port| Site {
            hostname: "h".into(),
            port,
            root_page: 3,
            is_default: true,
        };
        assert_eq!(site(80).root_url(), "http://h");
        assert_eq!(site(443).root_url(), "https://h");
        assert_eq!(site(8000).root_url(), "http://h:8000");
        assert_eq!(
            uuid_hex("D8727AF6-35ad-41c9-8065-add20c861737"),
            "d8727af635ad41c98065add20c861737"
        );
    }
}
