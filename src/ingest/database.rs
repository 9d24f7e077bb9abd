//! Reading the collection straight from the existing service's database:
//! PostgreSQL, or SQLite in small setups, named by a URL in the form the Django
//! world uses (dj-database-url).
//!
//! Tables and columns are read by name (the two engines order columns differently)
//! in one consistent read (a REPEATABLE READ transaction on PostgreSQL, one read
//! transaction on SQLite), streaming rows. Every value is read as text and typed
//! the way `dumpdata` types it, then goes through the fixture import's own checks,
//! so a database and its fixtures give the same records, the same problems and the
//! same snapshot checksum.

use std::time::Duration;

use ahash::AHashMap;
use serde_json::{Map, Value};

use super::database_url::{Source, UrlError};
use super::fixture::Import;
use super::{check, legacy, Checked};
use crate::model::records::{stored_fields, Kind};
use crate::model::validate::Problem;
use crate::model::Model;

/// How a column's text becomes a fixture value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Column {
    /// An integer, a primary key or a foreign key (`x_id` is the field `x`).
    Int,
    /// `true`/`false` (PostgreSQL) or `1`/`0` (SQLite).
    Bool,
    /// Text, and timestamps and dates as the engine writes them.
    Text,
}

/// The table Django's migrations create for a model: `taxonomy_order`, ...
pub fn table_name(model: Model) -> String {
    model.label().replace('.', "_")
}

/// Django's name for a model in a column: `specimenrecord` in `specimenrecord_id`.
fn model_name(label: &str) -> &str {
    &label[label.find('.').map_or(0, |dot| dot + 1)..]
}

/// The columns of a table, with the field each fills, in the order the records
/// read them: the primary key as `id`, then a column per stored field (`x_id`
/// for a reference); many-to-many links and tags come from tables of their own.
fn columns(pk: &str, fields: &[(&'static str, Kind)]) -> Vec<(String, &'static str, Column)> {
    let mut out = vec![(pk.to_string(), "id", Column::Int)];
    for &(field, kind) in fields {
        let column = match kind {
            Kind::Refs(_) | Kind::Tags => continue,
            Kind::Ref(_)
            | Kind::OptRef(_)
            | Kind::AddedRef(_)
            | Kind::ForeignId
            | Kind::OptForeignId => (format!("{field}_id"), Column::Int),
            Kind::Count | Kind::OptCount => (field.to_string(), Column::Int),
            Kind::Bool | Kind::OptBool => (field.to_string(), Column::Bool),
            Kind::Text
            | Kind::OptText
            | Kind::Time
            | Kind::OptTime
            | Kind::Date
            | Kind::OptDate => (field.to_string(), Column::Text),
        };
        out.push((column.0, field, column.1));
    }
    out
}

/// The primary key column: `id`, or, for a model that extends another (Django's
/// multi-table inheritance), the pointer to its parent's row.
fn pk_column(model: Model) -> &'static str {
    match model {
        Model::SpeciesPage => "page_ptr_id",
        _ => "id",
    }
}

/// A many-to-many link table (`<table>_<field>`, with `<model>_id` and
/// `<target>_id`): which field of its model it fills.
#[derive(Clone)]
pub(super) struct Link {
    pub label: &'static str,
    pub table: String,
    pub field: &'static str,
    pub owner: String,
    pub target: String,
}

/// One table the collection is read from: a model's, a typed image table of the
/// service before 0.16 ([`legacy`]), or one images need (tags, content types,
/// the sites), or Wagtail's (locales, documents). Its rows become fixture objects of `label`.
pub(super) struct Table {
    pub label: &'static str,
    pub name: String,
    pub pk: &'static str,
    fields: Vec<(&'static str, Kind)>,
    /// Whether a collection may lack it: the image and page apps, and the tables
    /// only images need; their lists are then empty.
    optional: bool,
}

impl Table {
    fn of_model(model: Model) -> Table {
        let label = model.label();
        Table {
            label,
            name: table_name(model),
            pk: pk_column(model),
            fields: stored_fields(model),
            optional: ["images.", "pages.", "wagtailcore."]
                .iter()
                .any(|app| label.starts_with(app)),
        }
    }

    fn links(&self) -> Vec<Link> {
        self.fields
            .iter()
            .filter_map(|&(field, kind)| match kind {
                Kind::Refs(target) => Some(Link {
                    label: self.label,
                    table: format!("{}_{field}", self.name),
                    field,
                    owner: format!("{}_id", model_name(self.label)),
                    target: format!("{}_id", model_name(target.label())),
                }),
                _ => None,
            })
            .collect()
    }
}

/// Every table the collection may be read from, in reading order: the stored
/// models in `Model::ALL` order, the typed image tables, then tags, content
/// types, sites, locales and documents.
fn tables() -> Vec<Table> {
    let mut out: Vec<Table> = Model::ALL
        .into_iter()
        .filter(|m| m.stored())
        .map(Table::of_model)
        .collect();
    for part in &legacy::PARTS {
        out.push(Table {
            label: part.label,
            name: part.label.replace('.', "_"),
            pk: part.pk_column,
            fields: part.fields.to_vec(),
            optional: true,
        });
    }
    let extra = |label, name: &str, fields: &[(&'static str, Kind)]| Table {
        label,
        name: name.to_string(),
        pk: "id",
        fields: fields.to_vec(),
        optional: true,
    };
    out.push(extra("taggit.tag", "taggit_tag", &[("name", Kind::Text)]));
    out.push(extra(
        "taggit.taggeditem",
        "taggit_taggeditem",
        &[
            ("tag", Kind::ForeignId),
            ("content_type", Kind::ForeignId),
            ("object_id", Kind::Count),
        ],
    ));
    out.push(extra(
        "contenttypes.contenttype",
        "django_content_type",
        &[("app_label", Kind::Text), ("model", Kind::Text)],
    ));
    out.push(extra(
        "wagtailcore.site",
        "wagtailcore_site",
        &[
            ("hostname", Kind::Text),
            ("port", Kind::Count),
            ("root_page", Kind::ForeignId),
            ("is_default_site", Kind::Bool),
        ],
    ));
    out.push(extra(
        "wagtailcore.locale",
        "wagtailcore_locale",
        &[("language_code", Kind::Text)],
    ));
    out.push(extra(
        "wagtaildocs.document",
        "wagtaildocs_document",
        &[
            ("title", Kind::Text),
            ("file", Kind::Text),
            ("created_at", Kind::Time),
            ("file_size", Kind::OptCount),
            ("file_hash", Kind::Text),
            ("collection", Kind::ForeignId),
        ],
    ));
    out
}

/// Why a database could not be read. Problems with the records themselves are not
/// errors here: they are reported as the fixture import reports them.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error(transparent)]
    Url(#[from] UrlError),
    // `cause`, not `source`: said once, not again by the error's chain.
    #[error("cannot open the SQLite database {path}: {cause}")]
    Open { path: String, cause: String },
    #[error("there is no SQLite database at {path}{hint}")]
    Missing { path: String, hint: String },
    #[error("cannot connect to {at}: {source}")]
    Connect { at: String, source: postgres::Error },
    #[error("cannot read {table} from {at}: {message}")]
    Read {
        at: String,
        table: String,
        message: String,
    },
    #[error("{at}: {table} has no image_type column (the service's 0.16 on), and none of the typed image tables of before (images_baseliveimage, images_specimenrecordimage, images_insectimage, images_plantimage, images_habitatimage) is beside it: images in a shape this catalogue does not know")]
    UnknownImages { at: String, table: String },
}

impl DbError {
    /// A failed query of `table`, for `map_err`.
    pub(super) fn reading(at: &str, table: &str) -> impl FnOnce(String) -> DbError {
        let (at, table) = (at.to_string(), table.to_string());
        move |message| DbError::Read { at, table, message }
    }
}

/// Reads and checks the whole collection, as [`super::from_fixtures`] does for files.
pub fn read(source: &Source) -> Result<Checked, DbError> {
    read_marked(source).map(|(checked, _)| checked)
}

/// Reads and checks the whole collection, with the change marker of the same
/// moment: what a read of the rows that changed since starts from
/// ([`super::changed`]).
pub fn read_marked(source: &Source) -> Result<(Checked, Marker), DbError> {
    let mut import = Import::default();
    let mut marker = Marker::default();
    in_one_read(source, &mut |rows, at| {
        let present = present_tables(rows, at)?;
        marker = marker_of(rows, at, &present)?;
        read_all(rows, at, present, &mut import)
    })?;
    let imported = import.finish();
    let checked = check(imported.collection, imported.errors, imported.skipped);
    Ok((checked, marker))
}

/// What moves when the collection is edited, read for the cost of a few aggregate
/// queries: per table the collection is read from, its row count, its largest key
/// and, where it has one, its newest `date_modified`. Django stamps `date_modified`
/// on every save and gives every insert a new key, so an edit made through the
/// service moves the marker; an edit that bypasses both (a raw `UPDATE` leaving the
/// stamp) does not, which is why `sync` also reads everything now and then.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marker(Vec<(String, Vec<Option<String>>)>);

/// One table's part of a [`Marker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Mark<'m> {
    pub count: Option<i64>,
    pub max_key: Option<i64>,
    /// The newest `date_modified`, as the engine writes it; `None` for a table
    /// without the column, or without rows.
    pub newest: Option<&'m str>,
}

impl Marker {
    /// A table's part, when the marker has it.
    pub(super) fn get(&self, table: &str) -> Option<Mark<'_>> {
        let (_, values) = self.0.iter().find(|(t, _)| t == table)?;
        let number = |i: usize| values.get(i)?.as_deref()?.parse().ok();
        Some(Mark {
            count: number(0),
            max_key: number(1),
            newest: values.get(2).and_then(|v| v.as_deref()),
        })
    }

    /// Whether both have the same tables.
    pub(super) fn same_tables(&self, old: &Marker) -> bool {
        self.0.len() == old.0.len() && self.0.iter().zip(&old.0).all(|(a, b)| a.0 == b.0)
    }

    /// Whether a table's part differs between the two (or either lacks it).
    pub(super) fn moved(&self, old: &Marker, table: &str) -> bool {
        let part = |m: &Marker| m.0.iter().find(|(t, _)| t == table).map(|(_, v)| v.clone());
        part(self).is_none() || part(self) != part(old)
    }
}

/// What moves at every commit to the database, for less than the marker costs:
/// the SQLite file's and its write-ahead log's size, modification time and
/// inode (a `stat` each), or PostgreSQL's transaction snapshot (one query:
/// the next transaction id and those in progress, which a write anywhere in
/// the cluster moves when it starts and when it ends). When it has not moved,
/// neither has the marker; when it has, the marker says whether the collection did.
/// Not the write-ahead log's position: reading rows an update left behind
/// prunes their pages, which writes to the log, so every edit's own read
/// moved it once more, and the next tick read the marker for nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commits(Vec<String>);

/// Reads where the commits are, or `None` when it cannot be told (the marker
/// is read then).
pub fn commits(source: &Source) -> Option<Commits> {
    match source {
        Source::Sqlite(path) => {
            use std::os::unix::fs::MetadataExt;
            let mut wal = path.clone().into_os_string();
            wal.push("-wal");
            let stat = |p: &std::path::Path| match std::fs::metadata(p) {
                Ok(m) => format!("{} {} {}.{}", m.ino(), m.size(), m.mtime(), m.mtime_nsec()),
                Err(_) => "none".into(),
            };
            // A database that is not there: the marker says so.
            std::fs::metadata(path).ok()?;
            Some(Commits(vec![stat(path), stat(std::path::Path::new(&wal))]))
        }
        Source::Postgres { config, .. } => {
            let mut client = config.connect(postgres::NoTls).ok()?;
            let row = client
                .query_one("SELECT txid_current_snapshot()::text", &[])
                .ok()?;
            Some(Commits(vec![row.get(0)]))
        }
    }
}

/// Calls `committed` when a SQLite database's file, write-ahead log or
/// journal is written (a commit writes one of them; a reader writes none),
/// for as long as the watcher returned is kept; `None` for PostgreSQL, whose
/// commits are only seen by asking ([`commits`]), or where the folder cannot
/// be watched (the ticks find the commits then).
pub fn watch_commits(
    source: &Source,
    committed: impl Fn() + Send + 'static,
) -> Option<notify::RecommendedWatcher> {
    use notify::event::{EventKind, ModifyKind};
    use notify::Watcher as _;
    let Source::Sqlite(path) = source else {
        return None;
    };
    let name = path.file_name()?.to_os_string();
    let written = move |file: &std::path::Path| {
        let Some(file) = file.file_name() else {
            return false;
        };
        ["", "-wal", "-journal"].iter().any(|suffix| {
            let mut watched = name.clone();
            watched.push(suffix);
            watched == file
        })
    };
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            let data = matches!(
                event.kind,
                EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any)
            );
            if data && event.paths.iter().any(|p| written(p)) {
                committed();
            }
        }
    })
    .ok()?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    watcher
        .watch(dir, notify::RecursiveMode::NonRecursive)
        .map_err(|e| tracing::debug!(error = %e, "the database's folder is not watched"))
        .ok()?;
    Some(watcher)
}

/// Runs `f` on the source inside one read transaction.
pub(super) fn in_one_read(
    source: &Source,
    f: &mut dyn FnMut(&mut dyn Rows, &str) -> Result<(), DbError>,
) -> Result<(), DbError> {
    match source {
        Source::Postgres { config, shown } => read_postgres(config, shown, f),
        Source::Sqlite(path) => read_sqlite(path, f),
    }
}

/// Something that runs a query and hands over its rows one by one, as text.
pub(super) trait Rows {
    fn each(
        &mut self,
        sql: &str,
        row: &mut dyn FnMut(&mut dyn Iterator<Item = Option<String>>),
    ) -> Result<(), String>;

    /// An SQL expression's value as text in this engine's SQL.
    fn text(&self, expr: &str) -> String;

    /// `"column"` as text.
    fn as_text(&self, column: &str) -> String {
        self.text(&format!("\"{column}\""))
    }

    /// The query that lists every table's columns, a row each: table, column.
    fn schema_sql(&self) -> &'static str;
}

/// Every table of the database with its columns, read in one query (a query
/// per table costs seconds on PostgreSQL's catalog, on every `sync` tick).
fn schema(rows: &mut dyn Rows, at: &str) -> Result<AHashMap<String, Vec<String>>, DbError> {
    let mut tables: AHashMap<String, Vec<String>> = AHashMap::new();
    rows.each(rows.schema_sql(), &mut |row| {
        if let (Some(Some(table)), Some(Some(column))) = (row.next(), row.next()) {
            tables.entry(table).or_default().push(column);
        }
    })
    .map_err(DbError::reading(at, "(the list of tables)"))?;
    Ok(tables)
}

/// A link table's target ids by owner id.
pub(super) type Owners = AHashMap<i64, Vec<i64>>;

/// A table that is there, with the columns it has of those its records read and
/// its link tables that are there.
pub(super) struct Present {
    pub table: Table,
    pub columns: Vec<(String, &'static str, Column)>,
    pub links: Vec<Link>,
}

/// The tables that are there, in reading order: every required one (a missing
/// one fails when it is read, naming it), and the optional ones the database has,
/// each with the columns it has (a column the service added later, such as
/// `featured_image_id`, may be missing; any other missing column is reported by
/// the import, record by record) and the link tables it has (0.16's image links
/// are missing from an older database). Refuses images in a shape it does not know.
pub(super) fn present_tables(rows: &mut dyn Rows, at: &str) -> Result<Vec<Present>, DbError> {
    let schema = schema(rows, at)?;
    let mut present = Vec::new();
    for table in tables() {
        let has = schema.get(&table.name);
        if table.optional && has.is_none() {
            continue;
        }
        let columns = columns(table.pk, &table.fields)
            .into_iter()
            .filter(|(c, _, _)| has.is_none_or(|has| has.contains(c)))
            .collect();
        let links = table
            .links()
            .into_iter()
            .filter(|link| schema.contains_key(&link.table))
            .collect();
        present.push(Present {
            table,
            columns,
            links,
        });
    }
    let image = present
        .iter()
        .find(|p| p.table.label == Model::Image.label());
    let typed = present
        .iter()
        .any(|p| legacy::part(p.table.label).is_some());
    if let Some(image) = image {
        if !typed && !image.columns.iter().any(|(c, _, _)| c == "image_type") {
            return Err(DbError::UnknownImages {
                at: at.to_string(),
                table: image.table.name.clone(),
            });
        }
    }
    Ok(present)
}

/// The marker of the tables that are there.
pub(super) fn marker_of(
    rows: &mut dyn Rows,
    at: &str,
    present: &[Present],
) -> Result<Marker, DbError> {
    let mut tables = Vec::new();
    for present in present {
        for link in &present.links {
            tables.push((link.table.clone(), "id", false));
        }
        tables.push((
            present.table.name.clone(),
            present.table.pk,
            present.stamped(),
        ));
    }
    let mut marker = Vec::new();
    for (table, key, stamped) in tables {
        let mut aggregates = vec![rows.text("COUNT(*)"), rows.text(&format!("MAX(\"{key}\")"))];
        if stamped {
            aggregates.push(rows.text("MAX(\"date_modified\")"));
        }
        let sql = format!("SELECT {} FROM \"{table}\"", aggregates.join(", "));
        let mut values = Vec::new();
        rows.each(&sql, &mut |row| values.extend(row))
            .map_err(DbError::reading(at, &table))?;
        marker.push((table, values));
    }
    Ok(Marker(marker))
}

impl Present {
    /// Whether the table has Django's `date_modified`.
    pub fn stamped(&self) -> bool {
        self.columns.iter().any(|(c, _, _)| c == "date_modified")
    }

    /// The query of the table's rows (those `filter`, an SQL condition, keeps),
    /// in key order.
    pub fn select(&self, rows: &dyn Rows, filter: Option<&str>) -> String {
        let selected: Vec<String> = self
            .columns
            .iter()
            .map(|(c, _, _)| rows.as_text(c))
            .collect();
        let filter = filter.map(|f| format!(" WHERE {f}")).unwrap_or_default();
        format!(
            "SELECT {} FROM \"{}\"{filter} ORDER BY \"{}\"",
            selected.join(", "),
            self.table.name,
            self.table.pk
        )
    }

    /// A row's key and its fields as a fixture object's, values typed as
    /// `dumpdata` types them, with its links: each field's targets, taken
    /// from the owners read.
    pub fn fields<'o>(
        &self,
        values: &mut dyn Iterator<Item = Option<String>>,
        links: impl Iterator<Item = (&'static str, &'o mut Owners)>,
    ) -> (Option<i64>, Map<String, Value>) {
        let mut fields = Map::new();
        let mut pk = None;
        for ((_, field, column), value) in self.columns.iter().zip(values) {
            if *field == "id" {
                pk = value.as_deref().and_then(|s| s.parse::<i64>().ok());
                continue;
            }
            fields.insert(field.to_string(), typed(*column, value));
        }
        if let Some(pk) = pk {
            for (field, owners) in links {
                let targets = owners.remove(&pk).unwrap_or_default();
                fields.insert(field.to_string(), Value::from(targets));
            }
        }
        (pk, fields)
    }
}

impl Link {
    /// The query of the link's rows (for the owners `owners`, an SQL
    /// condition on the owner column, keeps): owner, target.
    pub fn select(&self, rows: &dyn Rows, owners: Option<&str>) -> String {
        let filter = owners
            .map(|f| format!(" WHERE \"{}\" {f}", self.owner))
            .unwrap_or_default();
        format!(
            "SELECT {}, {} FROM \"{}\"{filter}",
            rows.as_text(&self.owner),
            rows.as_text(&self.target),
            self.table
        )
    }

    /// What the link rows whose owner is not there (the owners left in
    /// `left`) say, owner by owner: the database lost a constraint.
    pub fn orphans(&self, left: Owners) -> impl Iterator<Item = Problem> + '_ {
        let mut owners: Vec<i64> = left.into_keys().collect();
        owners.sort_unstable();
        owners.into_iter().map(|owner| {
            Problem::new(
                format!("{} {}={owner}", self.table, self.owner),
                format!("links a {} that does not exist", self.label),
            )
        })
    }

    /// Reads the link's rows (see [`Link::select`]) as targets by owner.
    pub fn read(
        &self,
        rows: &mut dyn Rows,
        at: &str,
        owners: Option<&str>,
    ) -> Result<Owners, DbError> {
        let failed = |message: String| DbError::reading(at, &self.table)(message);
        let mut map: Owners = AHashMap::new();
        let mut bad = None;
        let sql = self.select(rows, owners);
        rows.each(&sql, &mut |values| {
            let ids: Vec<Option<i64>> = values.map(|v| v.and_then(|s| s.parse().ok())).collect();
            match ids[..] {
                [Some(owner), Some(target)] => map.entry(owner).or_default().push(target),
                _ => bad = Some(format!("a row of {} without two ids", self.table)),
            }
        })
        .map_err(failed)?;
        match bad {
            Some(message) => Err(failed(message)),
            None => Ok(map),
        }
    }
}

/// Reads every table that is there, each with its link tables, as fixture
/// objects into the import.
fn read_all(
    rows: &mut dyn Rows,
    at: &str,
    present: Vec<Present>,
    import: &mut Import,
) -> Result<(), DbError> {
    let mut unlinked: Vec<(Link, Owners)> = Vec::new();
    for mut present in present {
        let mut links = Vec::new();
        for link in std::mem::take(&mut present.links) {
            let owners = link.read(rows, at, None)?;
            links.push((link, owners));
        }
        let sql = present.select(rows, None);
        rows.each(&sql, &mut |values| {
            let owners = links.iter_mut().map(|(l, o)| (l.field, o));
            if let (Some(pk), fields) = present.fields(values, owners) {
                import.push(present.table.label, pk, fields);
            }
        })
        .map_err(DbError::reading(at, &present.table.name))?;
        unlinked.extend(links);
    }
    for (link, left) in unlinked {
        link.orphans(left).for_each(|p| import.push_problem(p));
    }
    Ok(())
}

/// A column's text as the value `dumpdata` would have written.
fn typed(kind: Column, value: Option<String>) -> Value {
    let Some(s) = value else { return Value::Null };
    match kind {
        // Text that is not what the column should hold stays text: the import's
        // checks then say which field of which record is wrong.
        Column::Int => s
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or(Value::String(s)),
        Column::Bool => match s.as_str() {
            "true" | "t" | "1" => Value::Bool(true),
            "false" | "f" | "0" => Value::Bool(false),
            _ => Value::String(s),
        },
        Column::Text => Value::String(s),
    }
}

/// What a relative SQLite path means, for a message that it is missing: the
/// URL's three slashes make a path from the working directory.
fn relative_hint(path: &std::path::Path) -> String {
    if path.is_absolute() {
        return String::new();
    }
    let here = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "the working directory".into());
    let p = path.display();
    format!(
        " (sqlite:///{p}, with three slashes, is a path from the working directory, {here}); \
         for /{p} write sqlite:////{p}, with four"
    )
}

fn read_sqlite(
    path: &std::path::Path,
    f: &mut dyn FnMut(&mut dyn Rows, &str) -> Result<(), DbError>,
) -> Result<(), DbError> {
    use rusqlite::{Connection, OpenFlags};
    let shown = path.display().to_string();
    let open = |e: rusqlite::Error| DbError::Open {
        path: shown.clone(),
        cause: match e {
            // The file is there (checked below): it is the reading that fails.
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::CannotOpen => {
                "it is there but cannot be opened: check that this user may read it and \
                 its folder"
                    .into()
            }
            rusqlite::Error::SqliteFailure(f, Some(message)) => format!("{message} ({f})"),
            other => other.to_string(),
        },
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(DbError::Missing {
                hint: relative_hint(path),
                path: shown,
            })
        }
        Err(e) => {
            return Err(DbError::Open {
                path: shown,
                cause: e.to_string(),
            })
        }
        Ok(m) if !m.is_file() => {
            return Err(DbError::Open {
                path: shown,
                cause: "it is not a file".into(),
            })
        }
        Ok(_) => {}
    }
    // Read-only, and never create a file that is not there.
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(open)?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(open)?;
    struct Sqlite<'c>(&'c Connection);
    impl Rows for Sqlite<'_> {
        fn each(
            &mut self,
            sql: &str,
            row: &mut dyn FnMut(&mut dyn Iterator<Item = Option<String>>),
        ) -> Result<(), String> {
            let mut stmt = self.0.prepare(sql).map_err(|e| e.to_string())?;
            let n = stmt.column_count();
            let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
            while let Some(r) = rows.next().map_err(|e| e.to_string())? {
                let mut values = (0..n).map(|i| r.get::<_, Option<String>>(i).ok().flatten());
                row(&mut values);
            }
            Ok(())
        }

        fn text(&self, expr: &str) -> String {
            format!("CAST({expr} AS TEXT)")
        }

        fn schema_sql(&self) -> &'static str {
            "SELECT m.name, p.name FROM sqlite_master AS m \
             JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table'"
        }
    }
    let at = format!("SQLite database {}", path.display());
    // One read transaction: every table as of the same moment.
    conn.execute_batch("BEGIN").map_err(open)?;
    f(&mut Sqlite(&conn), &at)?;
    conn.execute_batch("COMMIT").map_err(open)?;
    Ok(())
}

fn read_postgres(
    config: &postgres::Config,
    shown: &str,
    f: &mut dyn FnMut(&mut dyn Rows, &str) -> Result<(), DbError>,
) -> Result<(), DbError> {
    use postgres::fallible_iterator::FallibleIterator;
    let mut client = config
        .connect(postgres::NoTls)
        .map_err(|source| DbError::Connect {
            at: shown.to_string(),
            source,
        })?;
    let read_failed = |table: &str, e: postgres::Error| DbError::Read {
        at: shown.to_string(),
        table: table.to_string(),
        message: e.to_string(),
    };
    // Timestamps in UTC and dates as YYYY-MM-DD, whatever the server's defaults.
    client
        .batch_execute("SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, YMD'")
        .map_err(|e| read_failed("(session settings)", e))?;
    let mut tx = client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(|e| read_failed("(transaction)", e))?;
    struct Pg<'t, 'c>(&'t mut postgres::Transaction<'c>);
    impl Rows for Pg<'_, '_> {
        fn each(
            &mut self,
            sql: &str,
            row: &mut dyn FnMut(&mut dyn Iterator<Item = Option<String>>),
        ) -> Result<(), String> {
            let mut rows = self
                .0
                .query_raw(
                    sql,
                    std::iter::empty::<&(dyn postgres::types::ToSql + Sync)>(),
                )
                .map_err(|e| e.to_string())?;
            while let Some(r) = rows.next().map_err(|e| e.to_string())? {
                let mut values = (0..r.len()).map(|i| r.get::<_, Option<String>>(i));
                row(&mut values);
            }
            Ok(())
        }

        fn text(&self, expr: &str) -> String {
            format!("({expr})::text")
        }

        fn schema_sql(&self) -> &'static str {
            "SELECT table_name::text, column_name::text FROM information_schema.columns \
             WHERE table_schema = current_schema()"
        }
    }
    f(&mut Pg(&mut tx), shown)?;
    tx.commit().map_err(|e| read_failed("(commit)", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_typed_as_dumpdata_types_them() {
        assert_eq!(typed(Column::Int, Some("42".into())), Value::from(42));
        assert_eq!(typed(Column::Int, Some("4.5".into())), Value::from("4.5"));
        assert_eq!(typed(Column::Bool, Some("t".into())), Value::Bool(true));
        assert_eq!(typed(Column::Bool, Some("0".into())), Value::Bool(false));
        assert_eq!(
            typed(Column::Bool, Some("maybe".into())),
            Value::from("maybe")
        );
        assert_eq!(typed(Column::Text, None), Value::Null);
        assert_eq!(
            table_name(Model::SpecimenRecord),
            "specimens_specimenrecord"
        );
    }

    /// Django's naming: a reference is `<name>_id`, a many-to-many field is a
    /// table of its own. Every table's columns are checked against the DDL by
    /// `tests/database.rs`, which reads databases made from it.
    #[test]
    fn columns_are_djangos() {
        let names = |m: Model| {
            let mut c: Vec<String> = columns(pk_column(m), &stored_fields(m))
                .into_iter()
                .map(|(c, _, _)| c)
                .collect();
            c.sort();
            c.join(" ")
        };
        assert_eq!(
            names(Model::Gps),
            "date_created date_modified elevation id latitude locality_id longitude"
        );
        let link = |m: Model| Table::of_model(m).links().into_iter().next();
        let trip = link(Model::CollectingTrip).unwrap();
        assert_eq!(
            (
                trip.table.as_str(),
                trip.owner.as_str(),
                trip.target.as_str()
            ),
            (
                "geography_collectingtrip_states",
                "collectingtrip_id",
                "state_id"
            )
        );
        let collector = link(Model::SpecimenRecord).unwrap();
        assert_eq!(
            (
                collector.table.as_str(),
                collector.owner.as_str(),
                collector.target.as_str()
            ),
            (
                "specimens_specimenrecord_collector",
                "specimenrecord_id",
                "person_id"
            )
        );
        assert!(link(Model::Person).is_none());
        let image: Vec<String> = Table::of_model(Model::Image)
            .links()
            .into_iter()
            .map(|l| format!("{} {} {}", l.table, l.owner, l.target))
            .collect();
        assert_eq!(
            image,
            [
                "images_customimage_plant_species_page customimage_id speciespage_id",
                "images_customimage_habitat_species_page customimage_id speciespage_id"
            ]
        );
    }
}
