//! A request in two stages, as ripgrep turns flags into a validated plan: its
//! parameters are parsed once into a [`Plan`] (every error found here, before a
//! record is read), and the plan runs against a view to give a [`Page`].

use std::ops::Range;

use bytes::Bytes;

use crate::encoding::json::write_int;
use crate::model::policy::DarwinCore;
use crate::model::{Endpoint, Filters, Model, Shape, Side};
use crate::view::{render, Projection, Run, View};

use super::cost::Cost;
use super::error::ApiError;
use super::facets::{self, Facets};
use super::filter::{self, Filter};
use super::form;
use super::nearest;
use super::params::Params;
use super::sort::{self, SortKey};
use super::{geojson, projection};

/// The operations every list accepts besides its fields.
pub const OPERATIONS: &[&str] = &[
    "limit",
    "offset",
    "fields",
    "sort",
    "order",
    "search",
    "search_operator",
    "format",
    "columns",
    "bom",
    "unaccented",
    "facet",
    "facet_size",
    "modified_since",
    "_",
];

/// The default page size.
pub const DEFAULT_LIMIT: usize = 20;

/// The entries of a question's feed (`format=atom`) when `limit` does not say.
pub const FEED_ENTRIES: usize = 200;

/// The most entries a question's feed may hold.
pub const MOST_FEED_ENTRIES: usize = 10_000;

/// The most items of a list made of fragments copied into a page where it is
/// asked for; a longer slice is assembled as it is sent ([`Plan::assembled`]):
/// 100 specimens are about 350 KB.
const ASSEMBLED_ABOVE: usize = 100;

/// How large a page may be: what the server was started with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The page size when a request gives no `limit`.
    pub default_limit: usize,
    /// The largest `limit` a request may give, if any.
    pub max_limit: Option<usize>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            default_limit: DEFAULT_LIMIT,
            max_limit: None,
        }
    }
}

/// The representation a request asks for with `format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    /// A FeatureCollection: only where [`geojson::supports`] the endpoint.
    GeoJson,
    /// A download (`format=ndjson`): every item of the answer, one JSON item a
    /// line, the same item as the list's.
    Ndjson,
    /// A download (`format=csv`): every item of the answer as a row, in its columns.
    Csv(Columns),
    /// A download (`format=zip`, specimen records only): the original files of
    /// the photographs of every specimen the question selects, with an index.
    Zip,
    /// An Atom feed (`format=atom`) of the question's records added, changed
    /// or deleted by the versions the history holds: `limit` entries
    /// ([`FEED_ENTRIES`] unless given, at most [`MOST_FEED_ENTRIES`]),
    /// newest first.
    Atom,
}

impl Format {
    /// Whether the answer is a file to take home: every item, not a page.
    pub fn download(self) -> bool {
        matches!(self, Format::Ndjson | Format::Csv(_) | Format::Zip)
    }

    /// The name of the format, as `format` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::GeoJson => "geojson",
            Format::Ndjson => "ndjson",
            Format::Csv(_) => "csv",
            Format::Zip => "zip",
            Format::Atom => "atom",
        }
    }
}

/// Which columns a CSV download has (`columns`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Columns {
    /// The item's fields (`fields` honoured), related records as their id and name.
    Fields,
    /// The Darwin Core terms of the archive's `occurrence.txt` (specimen
    /// records only: `columns=dwc`), as GBIF's `SIMPLE_CSV` has.
    DarwinCore,
}

/// A page of a list: the true total and the items' bytes, comma-separated.
#[derive(Debug)]
pub struct Page {
    pub total: usize,
    pub items: Run,
    /// The page is the whole unfiltered list, so its body is the same for every
    /// request that gets it (and can be compressed once).
    pub whole: bool,
    /// More members of `meta` after `total_count` (`,"facets":{...}`), or empty.
    pub meta: Vec<u8>,
    /// What the items are: JSON items, or GeoJSON features.
    pub format: Format,
    /// The items are in random order (`order=random`): the same request gives
    /// another body, so it must not be cached or validated.
    pub shuffled: bool,
    /// The items may hold media markers (false: a slice of a list whose items in
    /// it hold none, so there is nothing to splice the media base into).
    pub media: bool,
    /// The items are the list's `from..to`, copied together from its
    /// fragments: what a memo may keep in place of their bytes.
    pub remade: Option<std::ops::Range<usize>>,
}

/// A list request, parsed and checked: everything it asks of a view.
#[derive(Clone, Debug)]
pub struct Plan {
    endpoint: Endpoint,
    filter: Filter,
    order: Vec<SortKey>,
    /// `order=random`.
    random: bool,
    /// The fields kept, or `None` for every field whole (the rendered item).
    projection: Option<Projection>,
    format: Format,
    /// `bom=1`: a CSV download begins with a UTF-8 byte-order mark.
    bom: bool,
    limit: usize,
    offset: usize,
    facets: Vec<facets::On>,
    facet_size: usize,
    /// Parameters that are neither operations nor filters (specimen records
    /// only; other lists refuse them): ignored by a page, as the service did,
    /// refused by a download and by what takes a question.
    unknown: Vec<String>,
    /// Those, and what the format has no use for: named in `X-Ignored-Parameters`.
    ignored: Vec<String>,
    /// Specimen filters given more than once, of which the last value counts.
    repeated: Vec<String>,
    /// Where the answer is made, decided once the rest is parsed.
    cost: Cost,
}

/// A page chosen but not written: the positions of its items, to be written in
/// pieces as they are sent, so that an answer of hundreds of megabytes never sits
/// whole in memory.
pub struct Selected {
    plan: Plan,
    /// The true total, and what `meta` says besides it.
    pub total: usize,
    pub meta: Vec<u8>,
    /// The facets' counts (written in `meta` too), where asked.
    pub facets: Option<Facets>,
    page: Vec<usize>,
}

impl Selected {
    /// The positions of the page's records in their model's table, in page order.
    pub fn positions(&self) -> &[usize] {
        &self.page
    }

    /// How many items the page has.
    pub fn items(&self) -> usize {
        self.page.len()
    }

    pub fn format(&self) -> Format {
        self.plan.format
    }

    /// Whether the items are in random order (`order=random`).
    pub fn shuffled(&self) -> bool {
        self.plan.random
    }

    /// At most how many bytes the items take: their rendered sizes (a projection
    /// only leaves keys out) and a feature's wrapper for GeoJSON.
    pub fn size_bound(&self, view: &View) -> usize {
        let list = view.list(self.plan.endpoint);
        let wrapper = match self.plan.format {
            Format::GeoJson => 160,
            _ => 0,
        };
        self.page
            .iter()
            .map(|&p| list.item_len(p) + 1 + wrapper)
            .sum()
    }

    /// Exactly how many bytes the items take, when they are the rendered ones.
    pub fn exact_len(&self, view: &View) -> Option<usize> {
        let plain = self.plan.projection.is_none() && self.plan.format == Format::Json;
        let list = view.list(self.plan.endpoint);
        plain.then(|| {
            let items: usize = self.page.iter().map(|&p| list.item_len(p)).sum();
            items + self.page.len().saturating_sub(1)
        })
    }

    /// How many media URLs' markers the items hold, when they are the rendered
    /// ones and the list counted them (a list made of fragments): with
    /// [`Selected::exact_len`], the length once the media base is put in.
    pub fn markers(&self, view: &View) -> Option<usize> {
        let plain = self.plan.projection.is_none() && self.plan.format == Format::Json;
        let list = view.list(self.plan.endpoint);
        let counted = |&p: &usize| list.markers(p);
        plain.then(|| self.page.iter().map(counted).sum()).flatten()
    }

    /// Items `range` of the page, comma-separated, after a comma when they do not
    /// start it.
    pub fn write(&self, view: &View, range: std::ops::Range<usize>) -> Bytes {
        let after_comma = range.start > 0 && !range.is_empty();
        self.plan.write_items(view, &self.page[range], after_comma)
    }

    /// Items `range` of the page, each followed by a newline (NDJSON).
    pub fn write_lines(&self, view: &View, range: std::ops::Range<usize>) -> Vec<u8> {
        let mut out = Vec::new();
        for &pos in &self.page[range] {
            self.plan.write_item(&mut out, view, pos);
            out.push(b'\n');
        }
        out
    }

    /// The list the page's items are of.
    pub fn endpoint(&self) -> Endpoint {
        self.plan.endpoint
    }

    /// The fields the items keep, in table order; `None` for every field.
    pub fn columns(&self) -> Option<Vec<usize>> {
        self.plan.columns()
    }

    /// The whole page, written.
    pub fn into_page(self, view: &View) -> Page {
        Page {
            total: self.total,
            items: self.write(view, 0..self.page.len()).into(),
            whole: false,
            meta: self.meta,
            format: self.plan.format,
            shuffled: self.plan.random,
            media: true,
            remade: None,
        }
    }
}

/// The positions of a page and what `meta` says besides the total.
struct Selection {
    total: usize,
    page: Vec<usize>,
    meta: Vec<u8>,
    facets: Option<Facets>,
}

/// The records a plan selects, ascending.
pub enum Matching<'v> {
    /// The first this many: every record.
    Every(usize),
    Found(filter::Matches<'v>),
}

impl Matching<'_> {
    /// How many records are selected.
    pub fn len(&self) -> usize {
        match self {
            Matching::Every(n) => *n,
            Matching::Found(m) => m.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` with every selected position, ascending.
    pub fn for_each(&self, f: impl FnMut(usize)) {
        match self {
            Matching::Every(n) => (0..*n).for_each(f),
            Matching::Found(m) => m.for_each(f),
        }
    }
}

/// Every parameter the specimen list knows: its operations and its filters.
pub fn known_specimen_parameters() -> Vec<&'static str> {
    OPERATIONS
        .iter()
        .copied()
        .chain(filter::specimen_filters())
        .collect()
}

impl Plan {
    /// Parses a list request's parameters; every error a request can have is found
    /// here, in the order the parameters are checked.
    pub fn parse(endpoint: Endpoint, params: &Params, limits: &Limits) -> Result<Plan, ApiError> {
        let model = endpoint.model;
        let shape = endpoint.shape();
        let mut unknown = Vec::new();
        let mut repeated = Vec::new();
        let mut filter = match model.policy().filters {
            Filters::Named => {
                for name in params.names() {
                    if !OPERATIONS.contains(&name) && !filter::is_specimen_filter(name) {
                        unknown.push(name.to_string());
                    } else if filter::is_specimen_filter(name)
                        && name != filter::ISSUE
                        && !filter::MANY.contains(&name)
                        && params.0.iter().filter(|(k, _)| k == name).count() > 1
                    {
                        repeated.push(name.to_string());
                    }
                }
                filter::specimen(params)?
            }
            Filters::ByField => {
                check_known(model, params)?;
                filter::fields(model, params)?
            }
            Filters::Ignored => {
                check_known(model, params)?;
                Filter::default()
            }
        };
        if switch(params, "unaccented")? {
            filter.unaccent();
        }
        let any_term = search_any(params)?;
        if let Some(terms) = params.get("search") {
            filter.search(terms, any_term)?;
        }
        // Empty, as a form sends a field left blank: no filter.
        if let Some(at) = params.get("modified_since").and_then(form::trimmed) {
            filter.modified_since(model, at)?;
        }
        let (order, random) = ordering(model, shape, params)?;
        let projection = projection(model, shape, params)?;
        let format = list_format(endpoint, params)?;
        // A file to take home says what it holds only in its headers, which a
        // saved file loses, and a feed is read by a program that shows no
        // headers: a name it does not know is refused, not ignored.
        if (format.download() || format == Format::Atom) && !unknown.is_empty() {
            return Err(nearest::unknown_parameters(
                &format!("a download (format={})", format.name()),
                &unknown,
                &known_specimen_parameters(),
            ));
        }
        let mut ignored = unknown.clone();
        // What a format has no use for is ignored and named, as the specimen
        // list names what is not its filter: `columns` but in a CSV, `fields`
        // beside the Darwin Core columns, facets in a file without `meta`.
        let mut unused = |name: &str| {
            if params.get(name).is_some() && !ignored.iter().any(|n| n == name) {
                ignored.push(name.to_string());
            }
        };
        let bom = byte_order_mark(params)?;
        if !matches!(format, Format::Csv(_)) {
            unused("columns");
            unused("bom");
        }
        let projection = match format {
            Format::Csv(Columns::DarwinCore) => {
                unused("fields");
                None
            }
            _ => projection,
        };
        if format.download() || format == Format::Atom {
            unused("facet");
            unused("facet_size");
        }
        // A feed's entries are changes, newest first, whatever the order or
        // the fields of the list's items.
        if format == Format::Atom {
            ["fields", "sort", "order"]
                .into_iter()
                .for_each(&mut unused);
        }
        // A download is the whole answer unless `limit` says otherwise, whatever
        // a page may hold; a feed holds its entries.
        let (default_limit, max_limit) = match format {
            Format::Atom => (FEED_ENTRIES, None),
            _ if format.download() => (usize::MAX, None),
            _ => (limits.default_limit, limits.max_limit),
        };
        let limit = count(params, "limit", default_limit)?;
        if let Some(max) = max_limit.filter(|&m| limit > m) {
            return Err(ApiError::bad_request(format!(
                "limit cannot be higher than {max}"
            )));
        }
        // A feed holds at most so many entries, whatever `limit` says.
        let limit = match format {
            Format::Atom => limit.min(MOST_FEED_ENTRIES),
            _ => limit,
        };
        let offset = count(params, "offset", 0)?;
        let mut facets = facets::parse(model, params)?;
        if format.download() || format == Format::Atom {
            facets.clear();
        }
        let facet_size = count(params, "facet_size", facets::DEFAULT_SIZE)?;
        if facet_size > facets::MAX_SIZE {
            return Err(ApiError::bad_request(format!(
                "facet_size cannot be higher than {}",
                facets::MAX_SIZE
            )));
        }
        let mut plan = Plan {
            endpoint,
            filter,
            order,
            random,
            projection,
            format,
            bom: bom && matches!(format, Format::Csv(_)),
            limit,
            offset,
            facets,
            facet_size,
            unknown,
            ignored,
            repeated,
            cost: Cost::Work,
        };
        plan.cost = plan.costs();
        Ok(plan)
    }

    /// The plan a page of the list runs: at most `max_rows` rows (with the limit
    /// asked for, when it was more), counting the facets its side shows unless
    /// the request names its own (`params`, as the request gave them).
    pub fn for_page(
        mut self,
        params: &Params,
        max_rows: usize,
    ) -> Result<(Plan, Option<usize>), ApiError> {
        let model = self.endpoint.model;
        if let (
            Side::LabelForm {
                facets: names,
                facet_size,
            },
            None,
        ) = (model.policy().side, params.get("facet"))
        {
            self.facets = facets::fields(model, names)?;
            self.facet_size = facet_size;
        }
        let clamped = (self.limit > max_rows).then(|| std::mem::replace(&mut self.limit, max_rows));
        self.cost = self.costs();
        Ok((self, clamped))
    }

    /// What answering costs, from what the plan asks.
    fn costs(&self) -> Cost {
        Cost::of(
            self.picks_a_run(),
            self.projection.is_none() && self.format == Format::Json,
            !self.facets.is_empty(),
        )
    }

    /// The parameters this plan ignores, in the order given.
    pub fn ignored(&self) -> &[String] {
        &self.ignored
    }

    /// The parameters the specimen list does not know, in the order given.
    pub fn unknown(&self) -> &[String] {
        &self.unknown
    }

    /// The specimen filters given more than once (the last value counts).
    pub fn repeated(&self) -> &[String] {
        &self.repeated
    }

    /// The items of a long slice of a list made of fragments, if that is what
    /// the plan answers: more than a few items, whose pieces are copied
    /// together a piece of the answer at a time as it is sent
    /// (`view::render::List::write_run`, by `serve::answer`), not in one go
    /// where the request is read (a million specimens are 3.4 GB to copy).
    pub fn assembled(&self, view: &View) -> Option<Range<usize>> {
        let list = view.list(self.endpoint);
        let (from, to) = self.cut(list.len());
        let long = self.cost == Cost::Slice && list.has_fragments() && to - from > ASSEMBLED_ABOVE;
        long.then_some(from..to)
    }

    /// Answers the request from a view.
    pub fn run(&self, view: &View) -> Page {
        let list = view.list(self.endpoint);
        if self.cost == Cost::Slice {
            // The fast path: one slice of the rendered list.
            let total = list.len();
            let (from, to) = self.cut(total);
            return Page {
                total,
                items: list.run(from, to),
                whole: from == 0 && to == total,
                meta: Vec::new(),
                format: self.format,
                shuffled: false,
                media: list.has_media_in(from, to),
                remade: (list.has_fragments() && from < to).then_some(from..to),
            };
        }
        let Selection {
            total, page, meta, ..
        } = self.select(view);
        Page {
            total,
            items: self.write_items(view, &page, false).into(),
            whole: false,
            meta,
            format: self.format,
            shuffled: self.random,
            media: true,
            remade: None,
        }
    }

    /// Chooses the page of an answer that costs work (filters, sorts, facets,
    /// ...), without writing its items.
    pub fn select_page(self, view: &View) -> Selected {
        let Selection {
            total,
            page,
            meta,
            facets,
        } = self.select(view);
        Selected {
            plan: self,
            total,
            meta,
            facets,
            page,
        }
    }

    /// Every record the plan's filter and search select, as the filter found
    /// them (what a checklist counts: no page, so no merge or list needed).
    pub fn matching<'v>(&self, view: &'v View) -> Matching<'v> {
        if self.filter.is_empty() {
            return Matching::Every(view.list(self.endpoint).len());
        }
        let (model, shape) = (self.endpoint.model, self.endpoint.shape());
        Matching::Found(filter::matches(view, model, shape, &self.filter))
    }

    /// The list the plan asks.
    pub fn endpoint(&self) -> Endpoint {
        self.endpoint
    }

    /// The position of the page's first item in the answer.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// How many items the page may hold.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The fields the items keep (`fields`), in table order; `None` for every field.
    pub fn columns(&self) -> Option<Vec<usize>> {
        self.projection
            .as_ref()
            .map(|p| p.fields.iter().map(|&(f, _)| f).collect())
    }

    /// What answering costs, and so where it is made.
    pub fn cost(&self) -> Cost {
        self.cost
    }

    /// Whether the same request always gets the same answer (not `order=random`),
    /// so that a tag can name it.
    pub fn cacheable(&self) -> bool {
        !self.random
    }

    /// What the answer's items are: JSON items, or GeoJSON features.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Whether a CSV download begins with a UTF-8 byte-order mark (`bom=1`).
    pub fn bom(&self) -> bool {
        self.bom
    }

    /// Whether the page's records are a run of the list's (no filter, no sort),
    /// which the view can name without looking at a row.
    fn picks_a_run(&self) -> bool {
        self.filter.is_empty() && self.order.is_empty() && !self.random
    }

    /// The page's bounds in a list of `total`.
    fn cut(&self, total: usize) -> (usize, usize) {
        let from = self.offset.min(total);
        (from, from.saturating_add(self.limit).min(total))
    }

    /// The facets' counts over the rows at `positions` (all rows when `None`),
    /// when any were asked for.
    fn facet_counts(&self, view: &View, positions: Option<&[usize]>) -> Option<Facets> {
        let model = self.endpoint.model;
        (!self.facets.is_empty())
            .then(|| Facets::count(view, model, &self.facets, positions, self.facet_size))
    }

    /// Filters, counts facets, drops what GeoJSON cannot show, sorts and pages.
    fn select(&self, view: &View) -> Selection {
        let model = self.endpoint.model;
        let geo = self.format == Format::GeoJson;
        // `meta` after `total_count`: what GeoJSON left out, then the facets.
        let mut meta = Vec::new();
        let without = |meta: &mut Vec<u8>, n: usize| {
            meta.extend_from_slice(b",\"without_coordinates\":");
            write_int(meta, n as i64);
        };
        if self.picks_a_run() {
            // No filter, no sort: the page is a run of every record's positions, or
            // (GeoJSON) of those with a point, which the view knows from load time.
            let facets = self.facet_counts(view, None);
            let everything = view.list(self.endpoint).len();
            let (total, page) = if geo {
                let located = view.points.located(model);
                without(&mut meta, everything - located.len());
                let (from, to) = self.cut(located.len());
                let page = located[from..to].iter().map(|&p| p as usize).collect();
                (located.len(), page)
            } else {
                let (from, to) = self.cut(everything);
                (everything, (from..to).collect())
            };
            if let Some(facets) = &facets {
                facets.write_meta(&mut meta);
            }
            return Selection {
                total,
                page,
                meta,
                facets,
            };
        }
        let matches = (!self.filter.is_empty())
            .then(|| filter::matches(view, model, self.endpoint.shape(), &self.filter));
        if let Some(matches) = matches
            .as_ref()
            .filter(|_| self.order.is_empty() && !self.random && !geo && self.facets.is_empty())
        {
            // Only a page and a count are wanted: neither needs every match listed.
            let page = matches.page(self.offset, self.limit);
            return Selection {
                total: matches.len(),
                page,
                meta,
                facets: None,
            };
        }
        let mut positions = matches.map(filter::Matches::into_positions);
        let facets = self.facet_counts(view, positions.as_deref());
        if geo {
            // Only records with a point are features; the others are counted.
            let (considered, located) = match positions.take() {
                Some(mut matched) => {
                    let considered = matched.len();
                    matched.retain(|&p| view.points.get(model, p).is_some());
                    (considered, matched)
                }
                None => (
                    view.list(self.endpoint).len(),
                    view.points
                        .located(model)
                        .iter()
                        .map(|&p| p as usize)
                        .collect(),
                ),
            };
            without(&mut meta, considered - located.len());
            positions = Some(located);
        }
        let total = positions
            .as_ref()
            .map_or(view.list(self.endpoint).len(), Vec::len);
        let ties = match self.random {
            true => sort::Ties::Random(ahash::RandomState::new()),
            false => sort::Ties::ById,
        };
        let page = sort::page(
            view,
            model,
            &self.order,
            ties,
            positions,
            self.offset,
            self.limit,
        );
        if let Some(facets) = &facets {
            facets.write_meta(&mut meta);
        }
        Selection {
            total,
            page,
            meta,
            facets,
        }
    }

    /// The items at `page`, comma-separated: rendered bytes, or projected anew;
    /// wrapped in features for GeoJSON.
    /// Items `page`, comma-separated, after a comma if `after_comma`.
    fn write_items(&self, view: &View, page: &[usize], after_comma: bool) -> Bytes {
        let model = self.endpoint.model;
        let geo = self.format == Format::GeoJson;
        // Their rendered bytes: written into a buffer of their size at once.
        let rendered = self.projection.is_none() && self.format == Format::Json;
        let list = view.list(self.endpoint);
        let len = (page.iter()).map(|&p| list.item_len(p) + 1).sum::<usize>();
        let mut items = Vec::with_capacity(if rendered { len + 1 } else { 0 });
        if after_comma {
            items.push(b',');
        }
        let mut projected = Vec::new();
        for (k, &pos) in page.iter().enumerate() {
            if k > 0 {
                items.push(b',');
            }
            match view.points.get(model, pos).filter(|_| geo) {
                Some(point) => {
                    projected.clear();
                    self.write_item(&mut projected, view, pos);
                    let id = view.table(model).id(pos as u32);
                    geojson::write_feature(&mut items, id, point, &projected);
                }
                None => self.write_item(&mut items, view, pos),
            }
        }
        Bytes::from(items)
    }

    /// Appends the item at `pos`: its rendered bytes, or projected anew.
    fn write_item(&self, out: &mut Vec<u8>, view: &View, pos: usize) {
        let (model, shape) = (self.endpoint.model, self.endpoint.shape());
        match &self.projection {
            Some(projection) => {
                render::write_item(out, view, model, pos, shape, Some(projection));
            }
            None => view.list(self.endpoint).append_item(pos, out),
        }
    }
}

/// A single-record request, parsed and checked.
#[derive(Clone, Debug)]
pub struct RecordPlan {
    endpoint: Endpoint,
    named: RecordPath,
    projection: Option<Projection>,
}

/// What a record's path names.
#[derive(Clone, Debug)]
enum RecordPath {
    /// An integer in canonical decimal: perhaps a record.
    Id(i64),
    /// A specimen's segment with letters and digits, as USIs are written: no
    /// record, and the 404 says where a USI is asked.
    Usi(Box<str>),
    /// Nothing a record could be named by.
    Nothing,
}

impl RecordPlan {
    pub fn parse(endpoint: Endpoint, id: &str, params: &Params) -> Result<RecordPlan, ApiError> {
        let projection = projection(endpoint.model, endpoint.shape(), params)?;
        check_record_format(params)?;
        // Only the canonical spelling names a record: `01` and `+1` are not 1.
        let canonical = !id.is_empty()
            && id.bytes().all(|b| b.is_ascii_digit())
            && (id == "0" || !id.starts_with('0'));
        let usi_like = endpoint.model == Model::SpecimenRecord
            && id.bytes().any(|b| b.is_ascii_digit())
            && id.bytes().any(|b| b.is_ascii_alphabetic())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        let named = match canonical.then(|| id.parse().ok()).flatten() {
            Some(id) => RecordPath::Id(id),
            None if usi_like => RecordPath::Usi(id.into()),
            None => RecordPath::Nothing,
        };
        Ok(RecordPlan {
            endpoint,
            named,
            projection,
        })
    }

    /// The item as the endpoint's list shows it, or 404.
    pub fn run(&self, view: &View) -> Result<Bytes, ApiError> {
        let model = self.endpoint.model;
        let id = match self.named {
            RecordPath::Id(id) => Some(id),
            RecordPath::Usi(_) | RecordPath::Nothing => None,
        };
        let pos = id
            .and_then(|id| view.table(model).position(id))
            .ok_or_else(|| {
                let mut message = format!("No {} matches the given query.", model.class_name());
                if let RecordPath::Usi(usi) = &self.named {
                    message.push_str(&format!(
                        " A record is named by its id; a specimen is found by its USI at \
                         /api/v2/{}/?usi={usi}",
                        self.endpoint.segment()
                    ));
                }
                ApiError::not_found(message)
            })?;
        Ok(match &self.projection {
            None => view.list(self.endpoint).item_bytes(pos as usize),
            Some(projection) => {
                let mut out = Vec::new();
                let shape = self.endpoint.shape();
                render::write_item(&mut out, view, model, pos as usize, shape, Some(projection));
                Bytes::from(out)
            }
        })
    }
}

/// A non-negative count (`limit`, `offset`, `facet_size`) as Python's `int()`
/// reads it (whitespace and a sign allowed), or `default` when absent.
pub(super) fn count(params: &Params, name: &str, default: usize) -> Result<usize, ApiError> {
    let Some(v) = params.get(name) else {
        return Ok(default);
    };
    match form::python_int(v) {
        // More than fits is still "everything".
        Some(n) if n >= 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        _ => Err(ApiError::bad_request(format!(
            "{name} must be a positive integer"
        ))),
    }
}

/// `search_operator`: `and` (the default: every term must occur) or `or`.
pub(super) fn search_any(params: &Params) -> Result<bool, ApiError> {
    match params.get("search_operator") {
        None | Some("and") => Ok(false),
        Some("or") => Ok(true),
        Some(other) => Err(ApiError::bad_request(format!(
            "search_operator must be and or or, not {other:?}"
        ))),
    }
}

/// The sort keys, and whether ties are broken at random: `sort=f1,-f2`, then
/// Wagtail's `order=f`, `order=-f` (one more key) or `order=random` (random order,
/// or random among what `sort` leaves tied). `order` is a field, not this
/// operation, on models with a field of that name (families, specimen records).
fn ordering(model: Model, shape: Shape, params: &Params) -> Result<(Vec<SortKey>, bool), ApiError> {
    let mut keys = sort::parse(model, shape, params.get("sort").unwrap_or_default())?;
    let order = params
        .get("order")
        .filter(|_| model.field_index("order").is_none());
    match order {
        Some("random") => return Ok((keys, true)),
        Some(order) => sort::push(&mut keys, sort::key(model, shape, order)?),
        None => {}
    }
    Ok((keys, false))
}

/// The `format` of a list request: `json`, `geojson` where records have points,
/// or a download (`ndjson`, `csv`, with the `columns` it takes).
fn list_format(endpoint: Endpoint, params: &Params) -> Result<Format, ApiError> {
    let format = match params.get("format") {
        None | Some("json") => Format::Json,
        Some("geojson") if geojson::supports(endpoint) => Format::GeoJson,
        Some("geojson") => {
            let lists: Vec<String> = Endpoint::all()
                .iter()
                .filter(|&&e| geojson::supports(e))
                .map(|e| e.segment())
                .collect();
            return Err(ApiError::bad_request(format!(
                "format=geojson is only for the lists of records with a place: {}",
                lists.join(", ")
            )));
        }
        Some("ndjson") => Format::Ndjson,
        Some("csv") => Format::Csv(Columns::Fields),
        Some("atom") => Format::Atom,
        Some("zip") if endpoint.model == Model::SpecimenRecord => Format::Zip,
        Some("zip") => {
            return Err(ApiError::bad_request(
                "format=zip (the photographs' files) is only for the specimen records' list",
            ))
        }
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "format must be json, geojson, csv, ndjson, atom or zip, not {other:?}"
            )))
        }
    };
    let occurrences = endpoint.model.policy().darwin_core == DarwinCore::Occurrences;
    let columns = match params.get("columns") {
        None | Some("fields") => Columns::Fields,
        Some("dwc") if occurrences => Columns::DarwinCore,
        Some("dwc") => {
            return Err(ApiError::bad_request(
                "columns=dwc is only for the specimen records' lists",
            ))
        }
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "columns must be fields or dwc, not {other:?}"
            )))
        }
    };
    Ok(match format {
        Format::Csv(_) => Format::Csv(columns),
        other => other,
    })
}

/// `bom`: whether a CSV begins with a UTF-8 byte-order mark, which spreadsheet
/// programs read as "this is UTF-8".
pub fn byte_order_mark(params: &Params) -> Result<bool, ApiError> {
    switch(params, "bom")
}

/// An operation that is on or off: `1` or `true`; `0`, `false`, nothing, or a
/// value a form left empty (or spaces) for off; anything else is refused (as
/// the OpenAPI document's enum says, so ` 1` is not `1`).
fn switch(params: &Params, name: &str) -> Result<bool, ApiError> {
    match params.get(name) {
        None => Ok(false),
        Some(blank) if form::trimmed(blank).is_none() => Ok(false),
        Some("0") | Some("false") => Ok(false),
        Some("1") | Some("true") => Ok(true),
        Some(other) => Err(ApiError::bad_request(format!(
            "{name} must be 1 or 0, not {other:?}"
        ))),
    }
}

/// The byte-order mark a CSV begins with when `bom=1` asks for it.
pub const BYTE_ORDER_MARK: &[u8] = "\u{feff}".as_bytes();

/// The `format` of a record request: only `json`.
pub(super) fn check_record_format(params: &Params) -> Result<(), ApiError> {
    match params.get("format") {
        None | Some("json") => Ok(()),
        Some("geojson") => Err(ApiError::bad_request(
            "format=geojson is for lists, not single records",
        )),
        Some(other) => Err(ApiError::bad_request(format!(
            "format must be json, not {other:?}"
        ))),
    }
}

/// The `fields` projection of a request, or `None` when it keeps every field whole.
fn projection(model: Model, shape: Shape, params: &Params) -> Result<Option<Projection>, ApiError> {
    match params.get("fields").filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => {
            let projection = projection::resolve(model, shape, &projection::parse(v)?)?;
            Ok((!projection.is_everything(model)).then_some(projection))
        }
    }
}

/// Refuses parameters that are neither operations nor fields of the plain shape.
fn check_known(model: Model, params: &Params) -> Result<(), ApiError> {
    let mut unknown: Vec<&str> = params
        .names()
        .into_iter()
        .filter(|n| !OPERATIONS.contains(n) && model.field_index(n).is_none())
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort_unstable();
    Err(ApiError::bad_request(format!(
        "query parameter is not an operation or a recognised field: {}",
        unknown.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_numbers() {
        let p = |q: &str| count(&Params::parse(q).unwrap(), "limit", 20);
        assert_eq!(p(""), Ok(20));
        assert_eq!(p("limit=0"), Ok(0));
        assert_eq!(p("limit=007"), Ok(7));
        assert_eq!(p("limit=99999999999999999999999"), Ok(usize::MAX));
        assert_eq!(p("limit=+2"), Ok(2));
        assert_eq!(p("limit=%202"), Ok(2));
        assert_eq!(p("limit=-0"), Ok(0));
        for bad in [
            "limit=",
            "limit=-1",
            "limit=1.5",
            "limit=abc",
            "limit=+",
            "limit=1e3",
        ] {
            assert_eq!(
                p(bad).unwrap_err().message,
                "limit must be a positive integer",
                "{bad}"
            );
        }
    }

    #[test]
    fn the_cost_is_decided_when_parsed() {
        let plain = |model: Model| {
            Endpoint::all()
                .iter()
                .copied()
                .find(|e| e.model == model && e.shape() == Shape::Plain)
                .unwrap()
        };
        let specimens = plain(Model::SpecimenRecord);
        let cost_of = |endpoint: Endpoint, q: &str| {
            let params = Params::parse(q).unwrap();
            Plan::parse(endpoint, &params, &Limits::default())
                .unwrap()
                .cost()
        };
        let cost = |q: &str| cost_of(specimens, q);
        assert_eq!(cost("limit=5&offset=10"), Cost::Slice);
        assert_eq!(cost_of(plain(Model::Order), "fields=_,id"), Cost::Run);
        assert_eq!(cost("format=geojson"), Cost::Run);
        assert_eq!(cost("facet=usi"), Cost::Work);
        assert_eq!(cost("sort=-year"), Cost::Work);
        assert_eq!(cost("family=idae"), Cost::Work);
        assert_eq!(cost("search=a"), Cost::Work);
        assert_eq!(cost("order=random"), Cost::Work);
        // A page counts its side's facets, and shows at most so many rows.
        let params = Params::parse("limit=900").unwrap();
        let plan = Plan::parse(specimens, &params, &Limits::default()).unwrap();
        let (page, clamped) = plan.for_page(&params, 500).unwrap();
        assert_eq!(
            (page.cost(), page.limit(), clamped),
            (Cost::Work, 500, Some(900))
        );
    }
}
