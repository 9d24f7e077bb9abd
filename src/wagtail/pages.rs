//! Wagtail's `pages` endpoint: `/api/v2/pages/` (the live pages under the
//! site's root), `/api/v2/pages/<id>/` and `/api/v2/pages/find/`, with the
//! parameters, defaults and errors of Wagtail's `PagesAPIViewSet` as the
//! service configures it (no `api_fields` on its page models, no largest
//! `limit`, search on titles). Where the service fails with a 500 (an unknown
//! `site`, a `search_operator` other than `and` and `or`, an `id` to `find/`
//! that is no number, a `first_published_at` that is no date), the answer is a
//! 400 that says why.

use crate::encoding::json::{write_int, write_str};
use crate::encoding::time::parse_timestamp;
use crate::query::{ApiError, Params};

use super::fields::{self, Field};
use super::listing::{self, check_known, Key, Order, OPERATIONS};
use super::search::Search;
use super::tree::{Node, Tree};

/// The parameters only the pages listing knows.
const PAGE_OPERATIONS: &[&str] = &[
    "type",
    "child_of",
    "ancestor_of",
    "descendant_of",
    "translation_of",
    "locale",
    "site",
];

const fn field(name: &'static str, meta: bool, listed: bool, detailed: bool) -> Field {
    Field {
        name,
        meta,
        listed,
        detailed,
        detail_only: false,
    }
}

/// A page item's fields, in the order Wagtail writes them.
const FIELDS: &[Field] = &[
    field("id", false, true, true),
    field("type", true, true, true),
    field("detail_url", true, true, true),
    field("html_url", true, true, true),
    field("slug", true, true, true),
    field("show_in_menus", true, false, true),
    field("seo_title", true, false, true),
    field("search_description", true, false, true),
    field("first_published_at", true, true, true),
    field("alias_of", true, false, true),
    Field {
        name: "parent",
        meta: true,
        listed: false,
        detailed: true,
        detail_only: true,
    },
    // Served only when asked for: the service does not enable translations.
    field("locale", true, false, false),
    field("title", false, true, true),
];

/// A page's columns that filter (`?slug=...`) and order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Id,
    Title,
    Slug,
    ShowInMenus,
    SeoTitle,
    SearchDescription,
    FirstPublishedAt,
    AliasOf,
    Locale,
}

impl Column {
    const ALL: [Column; 9] = [
        Column::Id,
        Column::Title,
        Column::Slug,
        Column::ShowInMenus,
        Column::SeoTitle,
        Column::SearchDescription,
        Column::FirstPublishedAt,
        Column::AliasOf,
        Column::Locale,
    ];

    fn name(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::Title => "title",
            Column::Slug => "slug",
            Column::ShowInMenus => "show_in_menus",
            Column::SeoTitle => "seo_title",
            Column::SearchDescription => "search_description",
            Column::FirstPublishedAt => "first_published_at",
            Column::AliasOf => "alias_of",
            Column::Locale => "locale",
        }
    }

    fn from_name(name: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether the search index holds it, so a search can filter and order by it.
    fn indexed(self) -> bool {
        matches!(
            self,
            Column::Id
                | Column::Title
                | Column::ShowInMenus
                | Column::FirstPublishedAt
                | Column::Locale
        )
    }

    /// Its value, ordered as SQLite orders it (nulls first, text by bytes).
    fn key(self, node: &Node) -> Sortable<'_> {
        match self {
            Column::Id => Sortable::Int(Some(node.id)),
            Column::Title => Sortable::Text(&node.title),
            Column::Slug => Sortable::Text(&node.slug),
            Column::ShowInMenus => Sortable::Int(Some(node.show_in_menus.into())),
            Column::SeoTitle => Sortable::Text(&node.seo_title),
            Column::SearchDescription => Sortable::Text(&node.search_description),
            Column::FirstPublishedAt => Sortable::Int(node.first_published_at),
            Column::AliasOf => Sortable::Int(node.alias_of),
            Column::Locale => Sortable::Int(Some(node.locale)),
        }
    }
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Sortable<'a> {
    Int(Option<i64>),
    Text(&'a str),
}

/// A column filter's value, read as the column's type.
#[derive(Debug)]
enum Wanted {
    Int(i64),
    Text(String),
    Bool(bool),
    Time(i64),
}

fn filter_error(value: &str, column: Column, why: String) -> ApiError {
    ApiError::bad_request(format!(
        "field filter error. '{value}' is not a valid value for {} ({why})",
        column.name()
    ))
}

/// Reads a column filter's value.
fn wanted(column: Column, value: &str) -> Result<Wanted, ApiError> {
    let int = |why: &dyn Fn() -> String| {
        value
            .trim()
            .parse::<i64>()
            .map(Wanted::Int)
            .map_err(|_| filter_error(value, column, why()))
    };
    match column {
        Column::Id => int(&|| format!("invalid literal for int() with base 10: '{value}'")),
        Column::AliasOf => int(&|| format!("Field 'id' expected a number but got '{value}'.")),
        Column::ShowInMenus => match value {
            "true" | "1" => Ok(Wanted::Bool(true)),
            "false" | "0" => Ok(Wanted::Bool(false)),
            _ => Err(filter_error(
                value,
                column,
                format!("expected 'true' or 'false', got '{value}'"),
            )),
        },
        Column::FirstPublishedAt => parse_timestamp(value.trim())
            .map(Wanted::Time)
            .ok_or_else(|| filter_error(value, column, "expected a date and time".into())),
        _ => Ok(Wanted::Text(value.to_string())),
    }
}

fn holds(node: &Node, column: Column, wanted: &Wanted) -> bool {
    match (column, wanted) {
        (Column::Id, Wanted::Int(n)) => node.id == *n,
        (Column::AliasOf, Wanted::Int(n)) => node.alias_of == Some(*n),
        (Column::ShowInMenus, Wanted::Bool(b)) => node.show_in_menus == *b,
        (Column::FirstPublishedAt, Wanted::Time(t)) => node.first_published_at == Some(*t),
        (Column::Title, Wanted::Text(s)) => node.title == *s,
        (Column::Slug, Wanted::Text(s)) => node.slug == *s,
        (Column::SeoTitle, Wanted::Text(s)) => node.seo_title == *s,
        (Column::SearchDescription, Wanted::Text(s)) => node.search_description == *s,
        _ => false,
    }
}

/// Where a request's item URLs point and which pages it may see.
struct Scope<'a> {
    tree: &'a Tree,
    /// Whether each page (in tree order) is served: the default site's, made
    /// with the tree, or another's (`?site=`), made for the request.
    served: std::borrow::Cow<'a, [bool]>,
}

impl Scope<'_> {
    fn visible(&self, id: i64) -> Option<usize> {
        self.tree.position(id).filter(|&i| self.served[i])
    }
}

/// The scope of the default site (the site a request is served from).
fn default_scope(tree: &Tree) -> Scope<'_> {
    Scope {
        tree,
        served: std::borrow::Cow::Borrowed(&tree.served_by_default),
    }
}

/// `?site=host` or `host:port`: the site whose pages are listed.
fn site_scope<'a>(tree: &'a Tree, value: &str) -> Result<Scope<'a>, ApiError> {
    let (host, port) = match value.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (value, None),
    };
    let matching: Vec<usize> = (tree.sites.iter().enumerate())
        .filter(|(_, (s, _))| s.hostname == host && port.is_none_or(|p| p == s.port.to_string()))
        .map(|(i, _)| i)
        .collect();
    match matching.as_slice() {
        [one] => Ok(Scope {
            tree,
            served: tree.served(tree.sites[*one].1).into(),
        }),
        [] => {
            let known: Vec<String> = (tree.sites.iter())
                .map(|(s, _)| format!("{}:{}", s.hostname, s.port))
                .collect();
            Err(ApiError::bad_request(format!(
                "site {value:?} is not a site of this collection: give a hostname, or \
                 hostname:port, of one of its sites ({})",
                known.join(", ")
            )))
        }
        _ => Err(ApiError::bad_request(
            "Your query returned multiple sites. Try adding a port number to your site filter.",
        )),
    }
}

/// `?type=app.Model[,...]`: the page types listed, or `None` for every page.
fn types(params: &Params, tree: &Tree) -> Result<Option<Vec<String>>, ApiError> {
    let Some(value) = params.get("type") else {
        return Ok(None);
    };
    let mut labels = Vec::new();
    for name in value.split(',') {
        let label = name
            .split_once('.')
            .map(|(app, model)| format!("{app}.{}", model.to_lowercase()));
        match label.as_deref() {
            Some("wagtailcore.page") => return Ok(None),
            Some(label)
                if tree
                    .type_labels
                    .binary_search_by(|l| l.as_str().cmp(label))
                    .is_ok() =>
            {
                labels.push(label.to_string())
            }
            _ => return Err(ApiError::bad_request("type doesn't exist")),
        }
    }
    Ok(Some(labels))
}

/// A page named by a filter: its id (or `root`, where `root` is allowed), which
/// must be a served page.
fn named_page(
    scope: &Scope,
    params: &Params,
    name: &str,
    root: bool,
    missing: &str,
) -> Result<Option<usize>, ApiError> {
    let Some(value) = params.get(name) else {
        return Ok(None);
    };
    let site_root = || {
        let tree = scope.tree;
        tree.default_root()
    };
    let position = match value {
        "root" if root => site_root().filter(|&i| scope.served[i]),
        _ => {
            let id = listing::natural(value).ok_or_else(|| {
                ApiError::bad_request(format!("{name} must be a positive integer"))
            })?;
            i64::try_from(id).ok().and_then(|id| scope.visible(id))
        }
    };
    position
        .map(Some)
        .ok_or_else(|| ApiError::bad_request(missing.to_string()))
}

/// `/api/v2/pages/`: the listing, or the error Wagtail gives first.
pub fn list(params: &Params, tree: &Tree) -> Result<Vec<u8>, ApiError> {
    let types = types(params, tree)?;
    let scope = match params.get("site") {
        Some(site) => site_scope(tree, site)?,
        None => default_scope(tree),
    };
    let filterable: Vec<&str> = Column::ALL.iter().map(|c| c.name()).collect();
    check_known(params, &[OPERATIONS, PAGE_OPERATIONS, &filterable])?;
    listing::check_format(params)?;
    let mut filters = Vec::new();
    for column in Column::ALL.into_iter().filter(|c| *c != Column::Locale) {
        if let Some(value) = params.get(column.name()) {
            filters.push((column, wanted(column, value)?));
        }
    }
    let child_of = named_page(
        &scope,
        params,
        "child_of",
        true,
        "parent page doesn't exist",
    )?;
    let ancestor_of = named_page(
        &scope,
        params,
        "ancestor_of",
        false,
        "descendant page doesn't exist",
    )?;
    if params.get("descendant_of").is_some() && params.get("child_of").is_some() {
        return Err(ApiError::bad_request(
            "filtering by descendant_of with child_of is not supported",
        ));
    }
    let descendant_of = named_page(
        &scope,
        params,
        "descendant_of",
        true,
        "ancestor page doesn't exist",
    )?;
    let order = listing::order(params, Column::from_name)?;
    let translation_of = named_page(
        &scope,
        params,
        "translation_of",
        true,
        "translation_of page doesn't exist",
    )?;
    let locale = match params.get("locale") {
        None => None,
        Some(code) => Some(
            (tree.locales.iter())
                .find(|(_, c)| c == code)
                .map(|(id, _)| *id)
                .ok_or_else(|| ApiError::not_found("No Locale matches the given query."))?,
        ),
    };
    let search = Search::parse(params)?;
    if search.is_some() {
        if let Some((column, _)) = filters.iter().find(|(c, _)| !c.indexed()) {
            return Err(ApiError::bad_request(format!(
                "cannot filter by '{}' while searching (field is not indexed)",
                column.name()
            )));
        }
        let unindexed = match &order {
            Order::Random => Some("?"),
            Order::By(keys) => keys
                .iter()
                .find(|k| !k.field.indexed())
                .map(|k| k.field.name()),
            Order::Default => None,
        };
        if let Some(name) = unindexed {
            return Err(ApiError::bad_request(format!(
                "cannot order by '{name}' while searching (field is not indexed)"
            )));
        }
    }
    let (offset, limit) = listing::paging(params)?;
    let chosen = fields::select(FIELDS, params.get("fields"), false)?;

    let pages = &tree.pages;
    let under = |i: usize, ancestor: usize| {
        i != ancestor && pages[i].path.starts_with(pages[ancestor].path.as_str())
    };
    let mut found: Vec<(usize, usize)> = (0..pages.len())
        .filter(|&i| scope.served[i])
        .filter(|&i| {
            types
                .as_ref()
                .is_none_or(|t| t.contains(&pages[i].type_label))
        })
        .filter(|&i| filters.iter().all(|(c, w)| holds(&pages[i], *c, w)))
        .filter(|&i| child_of.is_none_or(|p| pages[i].parent == Some(p)))
        .filter(|&i| ancestor_of.is_none_or(|d| under(d, i)))
        .filter(|&i| descendant_of.is_none_or(|a| under(i, a)))
        .filter(|&i| {
            translation_of
                .is_none_or(|t| i != t && pages[i].translation_key == pages[t].translation_key)
        })
        .filter(|&i| locale.is_none_or(|l| pages[i].locale == l))
        .filter_map(|i| match &search {
            None => Some((i, 0)),
            Some(s) => s.matched(&pages[i].words).map(|m| (i, m)),
        })
        .collect();
    match (&order, &search) {
        (Order::Default, Some(_)) => found.sort_by(|&(a, ma), &(b, mb)| {
            (mb.cmp(&ma))
                .then(pages[a].words.len().cmp(&pages[b].words.len()))
                .then(pages[b].id.cmp(&pages[a].id))
        }),
        (Order::Default, None) => {}
        (Order::Random, _) => listing::shuffle(&mut found, listing::seed()),
        (Order::By(keys), _) => found.sort_by(|&(a, _), &(b, _)| {
            keys.iter()
                .map(|Key { field, descending }| {
                    let ordering = field.key(&pages[a]).cmp(&field.key(&pages[b]));
                    if *descending {
                        ordering.reverse()
                    } else {
                        ordering
                    }
                })
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        }),
    }
    let page: Vec<usize> = (found.iter().map(|(i, _)| *i))
        .skip(offset)
        .take(limit)
        .collect();
    let base = &tree.base_url;
    Ok(listing::envelope(found.len(), &page, |out, &i| {
        write_page(out, &scope, i, &chosen, base)
    }))
}

/// Whether an answer may be kept: a random order is new each time.
pub fn cacheable(params: &Params) -> bool {
    params.get("order") != Some("random")
}

/// `/api/v2/pages/<id>/`: one served page.
pub fn detail(id: &str, params: &Params, tree: &Tree) -> Result<Vec<u8>, ApiError> {
    let scope = default_scope(tree);
    let position = (id.bytes().all(|b| b.is_ascii_digit()))
        .then(|| id.parse::<i64>().ok())
        .flatten()
        .and_then(|id| scope.visible(id))
        .ok_or_else(|| ApiError::not_found("No Page matches the given query."))?;
    listing::check_format(params)?;
    let chosen = fields::select(FIELDS, params.get("fields"), true)?;
    let mut out = Vec::with_capacity(512);
    write_page(&mut out, &scope, position, &chosen, &tree.base_url);
    Ok(out)
}

/// `/api/v2/pages/find/?html_path=/a/b/` (or `?id=N`): where the page's item
/// is, with the request's other parameters, as Wagtail redirects to it.
pub fn find(params: &Params, tree: &Tree) -> Result<String, ApiError> {
    let scope = default_scope(tree);
    let not_found = || ApiError::not_found("not found");
    let position = match (params.get("html_path"), params.get("id")) {
        (Some(path), _) => route(&scope, path).ok_or_else(not_found)?,
        (None, Some(id)) => {
            let id = listing::natural(id)
                .and_then(|id| i64::try_from(id).ok())
                .ok_or_else(|| ApiError::bad_request("id must be a positive integer"))?;
            scope.visible(id).ok_or_else(not_found)?
        }
        (None, None) => return Err(not_found()),
    };
    let kept = Params(
        (params.0.iter())
            .filter(|(k, _)| k != "id" && k != "html_path")
            .cloned()
            .collect(),
    );
    Ok(format!(
        "{}/api/v2/pages/{}/?{}",
        tree.base_url,
        tree.pages[position].id,
        kept.to_query()
    ))
}

/// The served page at `path` below the site's root, found slug by slug.
fn route(scope: &Scope, path: &str) -> Option<usize> {
    let tree = scope.tree;
    let mut at = tree.default_root()?;
    for slug in path.split('/').filter(|s| !s.is_empty()) {
        // Tree order: a page's descendants follow it, its children among them.
        let below = tree.pages[at].path.as_str();
        at = (at + 1..tree.pages.len())
            .take_while(|&i| tree.pages[i].path.starts_with(below))
            .find(|&i| {
                scope.served[i] && tree.pages[i].parent == Some(at) && tree.pages[i].slug == slug
            })?;
    }
    scope.served[at].then_some(at)
}

/// A page's item with the fields chosen.
fn write_page(out: &mut Vec<u8>, scope: &Scope, position: usize, fields: &[&Field], base: &str) {
    let tree = scope.tree;
    let page = &tree.pages[position];
    out.push(b'{');
    let mut first = true;
    let mut key = |out: &mut Vec<u8>, name: &str| {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        write_str(out, name);
        out.push(b':');
    };
    if fields.iter().any(|f| f.name == "id") {
        key(out, "id");
        write_int(out, page.id);
    }
    let meta: Vec<&&Field> = fields.iter().filter(|f| f.meta).collect();
    if !meta.is_empty() {
        key(out, "meta");
        out.push(b'{');
        for (i, f) in meta.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(out, f.name);
            out.push(b':');
            match f.name {
                "type" => write_str(out, &page.type_name),
                "detail_url" => write_str(out, &detail_url(base, page.id)),
                "html_url" => write_opt_str(out, page.html_url.as_deref()),
                "slug" => write_str(out, &page.slug),
                "show_in_menus" => out.extend_from_slice(if page.show_in_menus {
                    b"true"
                } else {
                    b"false"
                }),
                "seo_title" => write_str(out, &page.seo_title),
                "search_description" => write_str(out, &page.search_description),
                "first_published_at" => match page.first_published_at {
                    Some(t) => {
                        out.push(b'"');
                        listing::write_instant(out, t);
                        out.push(b'"');
                    }
                    None => out.extend_from_slice(b"null"),
                },
                "alias_of" => {
                    let alias = page.alias_of.and_then(|id| scope.visible(id));
                    write_related(out, scope, alias, base);
                }
                "parent" => {
                    let parent = page.parent.filter(|&p| scope.served[p]);
                    write_related(out, scope, parent, base);
                }
                "locale" => {
                    let code = tree.locales.iter().find(|(id, _)| *id == page.locale);
                    write_opt_str(out, code.map(|(_, c)| c.as_str()));
                }
                other => unreachable!("a page field without a writer: {other}"),
            }
        }
        out.push(b'}');
    }
    if fields.iter().any(|f| f.name == "title") {
        key(out, "title");
        write_str(out, &page.title);
    }
    out.push(b'}');
}

/// A related page (`parent`, `alias_of`) as Wagtail nests one, or null.
fn write_related(out: &mut Vec<u8>, scope: &Scope, position: Option<usize>, base: &str) {
    let Some(position) = position else {
        out.extend_from_slice(b"null");
        return;
    };
    let page = &scope.tree.pages[position];
    out.extend_from_slice(b"{\"id\":");
    write_int(out, page.id);
    out.extend_from_slice(b",\"meta\":{\"type\":");
    write_str(out, &page.type_name);
    out.extend_from_slice(b",\"detail_url\":");
    write_str(out, &detail_url(base, page.id));
    out.extend_from_slice(b",\"html_url\":");
    write_opt_str(out, page.html_url.as_deref());
    out.extend_from_slice(b"},\"title\":");
    write_str(out, &page.title);
    out.push(b'}');
}

fn detail_url(base: &str, id: i64) -> String {
    format!("{base}/api/v2/pages/{id}/")
}

fn write_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => write_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}
