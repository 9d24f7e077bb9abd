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

use std::path::PathBuf;
use std::time::Duration;

use ahash::AHashMap;
use serde_json::{Map, Value};

use crate::build::{self, Checked};
use crate::fixture::Import;
use crate::schema::Model;

/// How a column's text becomes a fixture value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An integer, a primary key or a foreign key (`x_id` is the field `x`).
    Int,
    /// `true`/`false` (PostgreSQL) or `1`/`0` (SQLite).
    Bool,
    /// Text, and timestamps and dates as the engine writes them.
    Text,
}

use Kind::{Bool, Int, Text};

/// The columns every model table has first.
const STAMPS: [(&str, Kind); 3] = [("id", Int), ("date_created", Text), ("date_modified", Text)];

/// The columns of a model's table after `id`, `date_created` and `date_modified`.
fn columns(model: Model) -> &'static [(&'static str, Kind)] {
    const RANK: [(&str, Kind); 3] = [("name", Text), ("common_name", Text), ("authority", Text)];
    match model {
        Model::Order => &RANK,
        Model::Family => &[RANK[0], RANK[1], RANK[2], ("order_id", Int)],
        Model::Subfamily => &[RANK[0], RANK[1], RANK[2], ("family_id", Int)],
        Model::Tribe => &[RANK[0], RANK[1], RANK[2], ("subfamily_id", Int)],
        Model::Genus => &[RANK[0], RANK[1], RANK[2], ("tribe_id", Int)],
        Model::Species => &[
            RANK[0],
            RANK[1],
            RANK[2],
            ("genus_id", Int),
            ("mona", Text),
            ("p3", Text),
            ("ps", Text),
        ],
        Model::Subspecies => &[
            RANK[0],
            RANK[1],
            RANK[2],
            ("species_id", Int),
            ("mona", Text),
            ("p3", Text),
            ("ps", Text),
        ],
        Model::Country => &[("name", Text), ("abbr", Text)],
        Model::State => &[("name", Text), ("abbr", Text), ("country_id", Int)],
        Model::County => &[("name", Text), ("state_id", Int)],
        Model::Locality => &[
            ("name", Text),
            ("range", Text),
            ("town", Text),
            ("country_id", Int),
            ("state_id", Int),
            ("county_id", Int),
        ],
        Model::Gps => &[
            ("latitude", Text),
            ("longitude", Text),
            ("elevation", Text),
            ("locality_id", Int),
        ],
        Model::CollectingTrip => &[
            ("name", Text),
            ("start_date", Text),
            ("end_date", Text),
            ("notes", Text),
        ],
        Model::Person => &[
            ("first_name", Text),
            ("middle_initial", Text),
            ("last_name", Text),
            ("suffix", Text),
        ],
        Model::SpecimenRecord => &[
            ("usi", Text),
            ("determined_year", Int),
            ("sex", Text),
            ("stage", Text),
            ("preparation", Text),
            ("preparation_date", Text),
            ("labels_printed", Bool),
            ("labeled", Bool),
            ("photographed", Bool),
            ("day", Int),
            ("month", Text),
            ("year", Int),
            ("method", Text),
            ("weather", Text),
            ("temperature", Text),
            ("time_of_day", Text),
            ("habitat", Text),
            ("notes", Text),
            ("collecting_trip_id", Int),
            ("country_id", Int),
            ("county_id", Int),
            ("determiner_id", Int),
            ("family_id", Int),
            ("genus_id", Int),
            ("gps_id", Int),
            ("locality_id", Int),
            ("order_id", Int),
            ("preparer_id", Int),
            ("species_id", Int),
            ("state_id", Int),
            ("subfamily_id", Int),
            ("subspecies_id", Int),
            ("tribe_id", Int),
        ],
    }
}

/// A many-to-many link table: which field of which model it fills.
struct Link {
    table: &'static str,
    model: Model,
    field: &'static str,
    owner: &'static str,
    target: &'static str,
}

const LINKS: [Link; 2] = [
    Link {
        table: "geography_collectingtrip_states",
        model: Model::CollectingTrip,
        field: "states",
        owner: "collectingtrip_id",
        target: "state_id",
    },
    Link {
        table: "specimens_specimenrecord_collector",
        model: Model::SpecimenRecord,
        field: "collector",
        owner: "specimenrecord_id",
        target: "person_id",
    },
];

/// The table Django's migrations create for a model: `taxonomy_order`, ...
pub fn table_name(model: Model) -> String {
    model.label().replace('.', "_")
}

/// Every column of a model's table, in the order we select them.
fn all_columns(model: Model) -> impl Iterator<Item = (&'static str, Kind)> {
    STAMPS.into_iter().chain(columns(model).iter().copied())
}

/// What a database URL names.
#[derive(Clone, Debug)]
pub enum Source {
    Postgres {
        config: Box<postgres::Config>,
        /// The URL without its password, for messages.
        shown: String,
    },
    Sqlite(PathBuf),
}

/// Why a database could not be read. Problems with the records themselves are not
/// errors here: they are reported as the fixture import reports them.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("{0}")]
    Url(String),
    #[error("cannot open the SQLite database {path}: {source}")]
    Open {
        path: String,
        source: rusqlite::Error,
    },
    #[error("cannot connect to {at}: {source}")]
    Connect { at: String, source: postgres::Error },
    #[error("cannot read {table} from {at}: {message}")]
    Read {
        at: String,
        table: String,
        message: String,
    },
}

impl Source {
    /// Reads `postgres://user:pass@host:port/name` (also `postgresql://`, `pgsql://`),
    /// `sqlite:///relative/path` or `sqlite:////absolute/path`.
    pub fn parse(url: &str) -> Result<Source, DbError> {
        let bad = |why: &str| {
            DbError::Url(format!(
                "{why} in the database URL {:?}; expected postgres://user:password@host:port/name \
                 or sqlite:///path/to/db.sqlite3",
                redact(url)
            ))
        };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("no scheme"))?;
        // A `+` is itself in a URL's user, password, host and path.
        let percent_decode = |part: &str| {
            crate::query::percent_decode(part, false).map_err(|e| bad(&format!("a part that {e}")))
        };
        match scheme {
            "sqlite" => {
                // `sqlite:///a/b` is the relative path `a/b`; `sqlite:////a/b` is `/a/b`.
                let path = rest.strip_prefix('/').unwrap_or(rest);
                let path = path.split(['?', '#']).next().unwrap_or_default();
                if path.is_empty() || path == ":memory:" {
                    return Err(bad("no file path"));
                }
                Ok(Source::Sqlite(PathBuf::from(percent_decode(path)?)))
            }
            "postgres" | "postgresql" | "pgsql" | "postgis" => {
                let rest = rest.split('#').next().unwrap_or_default();
                let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
                let (authority, name) = rest.split_once('/').unwrap_or((rest, ""));
                let (credentials, hostport) = match authority.rsplit_once('@') {
                    Some((c, h)) => (Some(c), h),
                    None => (None, authority),
                };
                let mut config = postgres::Config::new();
                config.connect_timeout(Duration::from_secs(10));
                config.application_name("catalogue");
                if let Some(c) = credentials {
                    let (user, password) = c.split_once(':').unwrap_or((c, ""));
                    if !user.is_empty() {
                        config.user(&percent_decode(user)?);
                    }
                    if !password.is_empty() {
                        config.password(percent_decode(password)?);
                    }
                }
                // `host`, `host:port`, `[::1]` or `[::1]:port`.
                let (host, port) = match hostport.strip_prefix('[') {
                    Some(v6) => {
                        let (h, after) = v6.split_once(']').ok_or_else(|| bad("an unclosed ["))?;
                        (h, after.strip_prefix(':'))
                    }
                    None => match hostport.rsplit_once(':') {
                        Some((h, p)) => (h, Some(p)),
                        None => (hostport, None),
                    },
                };
                let port = port
                    .map(|p| {
                        p.parse::<u16>()
                            .map_err(|_| bad("a port that is not a number"))
                    })
                    .transpose()?;
                let host = percent_decode(host)?;
                // No host: the local server's socket, as libpq does.
                config.host(if host.is_empty() {
                    "/var/run/postgresql"
                } else {
                    &host
                });
                if let Some(port) = port {
                    config.port(port);
                }
                let name = percent_decode(name)?;
                if name.is_empty() {
                    return Err(bad("no database name"));
                }
                config.dbname(&name);
                for option in query.split('&').filter(|o| !o.is_empty()) {
                    match option.split_once('=').unwrap_or((option, "")) {
                        ("sslmode", "disable" | "allow" | "prefer") => {}
                        ("sslmode", mode) => {
                            return Err(DbError::Url(format!(
                                "sslmode={mode} asks for TLS, which catalogue does not speak; \
                                 reach the database over a trusted network or a socket"
                            )))
                        }
                        ("connect_timeout", secs) => {
                            let secs = secs
                                .parse()
                                .map_err(|_| bad("a connect_timeout that is not a number"))?;
                            config.connect_timeout(Duration::from_secs(secs));
                        }
                        _ => {}
                    }
                }
                Ok(Source::Postgres {
                    config: Box::new(config),
                    shown: redact(url),
                })
            }
            other => Err(bad(&format!("the unsupported scheme {other:?}"))),
        }
    }

    /// The source as messages show it (never with its password).
    pub fn describe(&self) -> String {
        match self {
            Source::Postgres { shown, .. } => shown.clone(),
            Source::Sqlite(path) => format!("SQLite database {}", path.display()),
        }
    }
}

/// A URL with its password replaced by `***`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find('/').unwrap_or(rest.len());
    match rest[..end].rsplit_once('@') {
        Some((credentials, _)) if credentials.contains(':') => {
            let user = credentials.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{}", &rest[credentials.len() + 1..])
        }
        _ => url.to_string(),
    }
}

/// Reads and checks the whole collection, as `build::from_fixtures` does for files.
pub fn read(source: &Source) -> Result<Checked, DbError> {
    let mut import = Import::default();
    match source {
        Source::Postgres { config, shown } => read_postgres(config, shown, &mut import)?,
        Source::Sqlite(path) => read_sqlite(path, &mut import)?,
    }
    Ok(build::finish(
        import.collection,
        import.errors,
        import.skipped,
    ))
}

/// Something that runs a query and hands over its rows one by one, as text.
trait Rows {
    fn each(
        &mut self,
        table: &str,
        sql: &str,
        row: &mut dyn FnMut(&mut dyn Iterator<Item = Option<String>>),
    ) -> Result<(), String>;

    /// `"column"` as text in this engine's SQL.
    fn as_text(&self, column: &str) -> String;
}

/// Reads the link tables, then every model table, in `Model::ALL` order.
fn read_all(rows: &mut dyn Rows, at: &str, import: &mut Import) -> Result<(), DbError> {
    let failed = |table: &str| {
        let (at, table) = (at.to_string(), table.to_string());
        move |message: String| DbError::Read { at, table, message }
    };
    let mut links: Vec<AHashMap<i64, Vec<i64>>> = Vec::new();
    for link in &LINKS {
        let mut map: AHashMap<i64, Vec<i64>> = AHashMap::new();
        let sql = format!(
            "SELECT {}, {} FROM \"{}\"",
            rows.as_text(link.owner),
            rows.as_text(link.target),
            link.table
        );
        let mut bad = None;
        rows.each(link.table, &sql, &mut |values| {
            let ids: Vec<Option<i64>> = values.map(|v| v.and_then(|s| s.parse().ok())).collect();
            match ids[..] {
                [Some(owner), Some(target)] => map.entry(owner).or_default().push(target),
                _ => bad = Some(format!("a row of {} without two ids", link.table)),
            }
        })
        .map_err(failed(link.table))?;
        if let Some(message) = bad {
            return Err(failed(link.table)(message));
        }
        links.push(map);
    }
    for model in Model::ALL {
        let table = table_name(model);
        let selected: Vec<String> = all_columns(model).map(|(c, _)| rows.as_text(c)).collect();
        let sql = format!(
            "SELECT {} FROM \"{table}\" ORDER BY \"id\"",
            selected.join(", ")
        );
        let kinds: Vec<(&str, Kind)> = all_columns(model).collect();
        let link = LINKS.iter().position(|l| l.model == model);
        rows.each(&table, &sql, &mut |values| {
            let mut fields = Map::new();
            let mut pk = None;
            for ((column, kind), value) in kinds.iter().zip(values) {
                if *column == "id" {
                    pk = value.as_deref().and_then(|s| s.parse::<i64>().ok());
                    continue;
                }
                let field = column.strip_suffix("_id").unwrap_or(column);
                fields.insert(field.to_string(), typed(*kind, value));
            }
            let Some(pk) = pk else { return };
            if let Some(i) = link {
                let ids = links[i].remove(&pk).unwrap_or_default();
                fields.insert(LINKS[i].field.to_string(), Value::from(ids));
            }
            import.push(model, pk, fields);
        })
        .map_err(failed(&table))?;
    }
    // Link rows whose owner is not there: the database lost a constraint.
    for (link, left) in LINKS.iter().zip(links) {
        let mut owners: Vec<i64> = left.into_keys().collect();
        owners.sort_unstable();
        for owner in owners {
            import.errors.push(crate::validate::Problem {
                place: format!("{} {}={owner}", link.table, link.owner),
                message: format!("links a {} that does not exist", link.model.label()),
            });
        }
    }
    Ok(())
}

/// A column's text as the value `dumpdata` would have written.
fn typed(kind: Kind, value: Option<String>) -> Value {
    let Some(s) = value else { return Value::Null };
    match kind {
        // Text that is not what the column should hold stays text: the import's
        // checks then say which field of which record is wrong.
        Int => s
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or(Value::String(s)),
        Bool => match s.as_str() {
            "true" | "t" | "1" => Value::Bool(true),
            "false" | "f" | "0" => Value::Bool(false),
            _ => Value::String(s),
        },
        Text => Value::String(s),
    }
}

fn read_sqlite(path: &std::path::Path, import: &mut Import) -> Result<(), DbError> {
    use rusqlite::{Connection, OpenFlags};
    let open = |source| DbError::Open {
        path: path.display().to_string(),
        source,
    };
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
            _table: &str,
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

        fn as_text(&self, column: &str) -> String {
            format!("CAST(\"{column}\" AS TEXT)")
        }
    }
    let at = format!("SQLite database {}", path.display());
    // One read transaction: every table as of the same moment.
    conn.execute_batch("BEGIN").map_err(open)?;
    read_all(&mut Sqlite(&conn), &at, import)?;
    conn.execute_batch("COMMIT").map_err(open)?;
    Ok(())
}

fn read_postgres(
    config: &postgres::Config,
    shown: &str,
    import: &mut Import,
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
            _table: &str,
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

        fn as_text(&self, column: &str) -> String {
            format!("\"{column}\"::text")
        }
    }
    read_all(&mut Pg(&mut tx), shown, import)?;
    tx.commit().map_err(|e| read_failed("(commit)", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_django_urls() {
        match Source::parse("sqlite:///data/db.sqlite3").unwrap() {
            Source::Sqlite(p) => assert_eq!(p, PathBuf::from("data/db.sqlite3")),
            other => panic!("{other:?}"),
        }
        match Source::parse("sqlite:////srv/db.sqlite3").unwrap() {
            Source::Sqlite(p) => assert_eq!(p, PathBuf::from("/srv/db.sqlite3")),
            other => panic!("{other:?}"),
        }
        for url in [
            "postgres://cat:p%40ss@db.example:5433/museum",
            "postgresql://cat:p%40ss@db.example:5433/museum?sslmode=prefer",
        ] {
            let Source::Postgres { config, shown } = Source::parse(url).unwrap() else {
                panic!("{url}")
            };
            assert_eq!(config.get_user(), Some("cat"));
            assert_eq!(config.get_password(), Some(&b"p@ss"[..]));
            assert_eq!(config.get_dbname(), Some("museum"));
            assert_eq!(config.get_ports(), &[5433]);
            assert!(shown.starts_with(&url[..url.find("://").unwrap()]));
            assert!(shown.contains("cat:***@db.example:5433/museum"), "{shown}");
        }
        let Source::Postgres { config, .. } = Source::parse("postgres://localhost/m").unwrap()
        else {
            panic!()
        };
        assert_eq!(config.get_ports(), &[] as &[u16]);
        for bad in [
            "museum",
            "mysql://u@h/m",
            "postgres://u@h:port/m",
            "postgres://u@h/",
            "sqlite://",
            "postgres://u@h/m?sslmode=require",
        ] {
            let e = Source::parse(bad).unwrap_err().to_string();
            assert!(!e.is_empty(), "{bad}");
        }
        // `+` stays a plus in a URL (it is a space only in form encoding).
        let Source::Postgres { config, .. } = Source::parse("postgres://u:a+b%2Fc@h/m").unwrap()
        else {
            panic!()
        };
        assert_eq!(config.get_password(), Some(&b"a+b/c"[..]));
        let e = Source::parse("postgres://u@h/m%zz")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("a part that has invalid percent-encoding: \"%zz\""),
            "{e}"
        );
        let e = Source::parse("postgres://u:secret@h:x/m")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("secret"), "{e}");
    }

    #[test]
    fn values_are_typed_as_dumpdata_types_them() {
        assert_eq!(typed(Int, Some("42".into())), Value::from(42));
        assert_eq!(typed(Int, Some("4.5".into())), Value::from("4.5"));
        assert_eq!(typed(Bool, Some("t".into())), Value::Bool(true));
        assert_eq!(typed(Bool, Some("0".into())), Value::Bool(false));
        assert_eq!(typed(Bool, Some("maybe".into())), Value::from("maybe"));
        assert_eq!(typed(Text, None), Value::Null);
        assert_eq!(
            table_name(Model::SpecimenRecord),
            "specimens_specimenrecord"
        );
    }
}
