//! The page tree as Wagtail's `pages` endpoint sees it, derived once per view
//! from the pages' records (title, slug, publication) and the snapshot's
//! Wagtail part (place in the tree, type, locale, sites).

use ahash::AHashMap;

use crate::encoding::percent::uri_encode;
use crate::model::wagtail::Site;
use crate::model::Model;
use crate::view::{Derive, Value, View};

use super::search::words;

/// One page, with everything its items say.
#[derive(Debug)]
pub struct Node {
    pub id: i64,
    /// The tree path (four characters a level).
    pub path: String,
    pub title: String,
    pub slug: String,
    pub live: bool,
    pub first_published_at: Option<i64>,
    /// The page's model as the API names it: `pages.SpeciesPage`.
    pub type_name: String,
    /// The model's Django label: `pages.speciespage`.
    pub type_label: String,
    pub locale: i64,
    pub translation_key: String,
    pub alias_of: Option<i64>,
    pub seo_title: String,
    pub show_in_menus: bool,
    pub search_description: String,
    /// The page's address on its site (the deepest site whose root holds
    /// it), as Wagtail writes it: non-ASCII percent-encoded. `None` for a page
    /// under no site's root.
    pub html_url: Option<String>,
    /// The position of its parent, when the parent is a page.
    pub parent: Option<usize>,
    /// The title's words, folded (see `search`).
    pub words: Vec<String>,
}

/// Every page in tree order, and the sites they are served under.
pub struct Tree {
    pub pages: Vec<Node>,
    by_id: AHashMap<i64, usize>,
    /// Each site, and the position of its root page (if it is a page here).
    pub sites: Vec<(Site, Option<usize>)>,
    /// The locales: id and language code.
    pub locales: Vec<(i64, String)>,
    /// The root URL item URLs are built on: the default site's, as Wagtail
    /// builds them for a request no site's hostname matches.
    pub base_url: String,
    /// Whether each page is served by the default site (the site a request
    /// that names none is served from), made once here, not per request.
    pub served_by_default: Vec<bool>,
    /// The page types the pages have, by label, sorted.
    pub type_labels: Vec<String>,
}

impl Derive for Tree {
    fn derive(view: &View) -> Tree {
        let wagtail = &view.wagtail;
        let table = view.table(Model::Page);
        let field = |name| Model::Page.field_index(name).expect("a page field");
        let (title, slug, live, published) = (
            field("title"),
            field("slug"),
            field("live"),
            field("first_published_at"),
        );
        let labels: AHashMap<i64, &str> = wagtail
            .page_types
            .iter()
            .map(|(id, label)| (*id, label.as_str()))
            .collect();
        let mut pages: Vec<Node> = wagtail
            .pages
            .iter()
            .filter_map(|p| {
                let pos = table.position(p.id)? as usize;
                let text = |f| table.get(pos, f).as_str().unwrap_or_default().to_string();
                let title = text(title);
                let label = labels
                    .get(&p.content_type)
                    .copied()
                    .unwrap_or("wagtailcore.page");
                Some(Node {
                    id: p.id,
                    path: p.path.clone(),
                    words: words(&title),
                    title,
                    slug: text(slug),
                    live: table.get(pos, live) == Value::Bool(true),
                    first_published_at: match table.get(pos, published) {
                        Value::Time(t) => Some(t),
                        _ => None,
                    },
                    type_name: type_name(label),
                    type_label: label.to_string(),
                    locale: p.locale,
                    translation_key: p.translation_key.clone(),
                    alias_of: p.alias_of,
                    seo_title: p.seo_title.clone(),
                    show_in_menus: p.show_in_menus,
                    search_description: p.search_description.clone(),
                    html_url: None,
                    parent: None,
                })
            })
            .collect();
        pages.sort_by(|a, b| a.path.cmp(&b.path));
        let by_path: AHashMap<&str, usize> = pages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.path.as_str(), i))
            .collect();
        let parents: Vec<Option<usize>> = pages
            .iter()
            .map(|p| {
                let up = p.path.len().checked_sub(4)?;
                by_path.get(p.path.get(..up)?).copied()
            })
            .collect();
        let by_id: AHashMap<i64, usize> =
            pages.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
        let url_paths: AHashMap<i64, &str> = wagtail
            .pages
            .iter()
            .map(|p| (p.id, p.url_path.as_str()))
            .collect();
        let sites: Vec<(Site, Option<usize>)> = wagtail
            .sites
            .iter()
            .map(|s| (s.clone(), by_id.get(&s.root_page).copied()))
            .collect();
        let html_urls: Vec<Option<String>> = pages
            .iter()
            .map(|page| {
                let (site, root) = sites
                    .iter()
                    .filter_map(|(site, root)| Some((site, &pages[(*root)?])))
                    .filter(|(_, root)| page.path.starts_with(&root.path))
                    .max_by_key(|(_, root)| root.path.len())?;
                let (own, base) = (url_paths.get(&page.id)?, url_paths.get(&root.id)?);
                let mut url = site.root_url();
                url.push('/');
                uri_encode(&mut url, own.strip_prefix(base).unwrap_or_default());
                Some(url)
            })
            .collect();
        for ((page, parent), url) in pages.iter_mut().zip(parents).zip(html_urls) {
            page.parent = parent;
            page.html_url = url;
        }
        let base_url = wagtail
            .default_site()
            .map_or_else(|| "http://localhost".to_string(), Site::root_url);
        let mut tree = Tree {
            pages,
            by_id,
            sites,
            locales: wagtail.locales.clone(),
            base_url,
            served_by_default: Vec::new(),
            type_labels: Vec::new(),
        };
        tree.type_labels = tree.pages.iter().map(|p| p.type_label.clone()).collect();
        tree.type_labels.sort_unstable();
        tree.type_labels.dedup();
        tree.served_by_default = tree.served(tree.default_root());
        tree
    }
}

impl Tree {
    /// The position of the page `id`.
    pub fn position(&self, id: i64) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// The pages a site serves: its root page and every page beneath it, live.
    /// None for a site whose root is no page here.
    pub fn served(&self, root: Option<usize>) -> Vec<bool> {
        let mut served = vec![false; self.pages.len()];
        if let Some(root) = root {
            let prefix = &self.pages[root].path;
            // Tree order: the root's descendants follow it.
            for (i, page) in self.pages.iter().enumerate().skip(root) {
                if !page.path.starts_with(prefix.as_str()) {
                    break;
                }
                served[i] = page.live;
            }
        }
        served
    }

    /// The site a request is served from when it names none: the default.
    pub fn default_site(&self) -> Option<usize> {
        match self.sites.as_slice() {
            [_] => Some(0),
            sites => sites.iter().position(|(s, _)| s.is_default),
        }
    }

    /// The position of the default site's root page.
    pub fn default_root(&self) -> Option<usize> {
        self.default_site().and_then(|s| self.sites[s].1)
    }
}

/// The name the API gives a page model (`app_label.ClassName`) from its Django
/// label, which holds the class name lowercased: the service's own models and
/// Wagtail's by name; another model's class name is guessed, `Page` capitalised
/// where the name ends in it (`blog.blogpage` is `blog.BlogPage`).
pub fn type_name(label: &str) -> String {
    let (app, model) = label.split_once('.').unwrap_or(("", label));
    let known = [Model::Page, Model::SpeciesPage]
        .into_iter()
        .find(|m| m.label() == label)
        .map(|m| m.class_name().to_string());
    let class = known.unwrap_or_else(|| match model {
        "homepage" => "HomePage".into(),
        _ => {
            let mut class = String::with_capacity(model.len());
            let stem = model.strip_suffix("page").filter(|s| !s.is_empty());
            let mut chars = stem.unwrap_or(model).chars();
            class.extend(chars.next().map(|c| c.to_ascii_uppercase()));
            class.extend(chars);
            if stem.is_some() {
                class.push_str("Page");
            }
            class
        }
    });
    format!("{app}.{class}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_named_as_the_api_names_them() {
        assert_eq!(type_name("pages.speciespage"), "pages.SpeciesPage");
        assert_eq!(type_name("wagtailcore.page"), "wagtailcore.Page");
        assert_eq!(type_name("home.homepage"), "home.HomePage");
        assert_eq!(type_name("blog.blogpage"), "blog.BlogPage");
        assert_eq!(type_name("blog.article"), "blog.Article");
    }
}
