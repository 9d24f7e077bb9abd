//! Building from the existing service's database and keeping a snapshot in step
//! with it, on real engines: SQLite (bundled driver, always) and PostgreSQL (a
//! throwaway cluster from the system's binaries; where the build found none,
//! its tests are reported ignored, saying how to install them: `build.rs`).
//!
//! Tables come from our own DDL (`tests/database/*.sql`, the engines' column orders
//! differ) and the rows from the bundled sample fixture.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{catalogue, TempDir};
use serde_json::Value;

/// A database the tests can change, take away and bring back.
pub(crate) trait Db {
    fn url(&self) -> String;
    fn exec(&self, sql: &str);
    /// A timestamp literal as the engine's Django backend stores it.
    fn stamp(&self, iso: &str) -> String;
    fn go_away(&mut self);
    fn come_back(&mut self);
}

pub(crate) struct Sqlite {
    path: PathBuf,
}

/// Which version of the service's tables a database has.
#[derive(Clone, Copy)]
enum Version {
    /// Today's (0.16 on): one image table, featured images, tags and the site;
    /// the bundled sample's rows.
    Today,
    /// Before 0.16: the typed image tables; the sample's rows in that shape.
    Typed,
}

impl Version {
    fn ddl(self, engine: &str) -> PathBuf {
        match self {
            Version::Today => ddl(&format!("{engine}.sql")),
            Version::Typed => ddl(&format!("{engine}-0.10.sql")),
        }
    }

    fn fixture(self) -> PathBuf {
        match self {
            Version::Today => common::sample_fixture(),
            Version::Typed => common::typed_fixture(),
        }
    }
}

impl Sqlite {
    pub(crate) fn create(dir: &TempDir) -> Sqlite {
        Sqlite::of(dir, Version::Today)
    }

    fn of(dir: &TempDir, version: Version) -> Sqlite {
        Sqlite::with(dir, version, &version.fixture())
    }

    /// A database of `version`'s tables with `fixture`'s rows.
    fn with(dir: &TempDir, version: Version, fixture: &Path) -> Sqlite {
        let db = Sqlite {
            path: dir.path("museum.sqlite3"),
        };
        db.exec(&std::fs::read_to_string(version.ddl("sqlite")).unwrap());
        db.exec(&rows_sql(&db, fixture));
        db
    }
}

impl Db for Sqlite {
    fn url(&self) -> String {
        // An absolute path: four slashes.
        format!("sqlite:///{}", self.path.display())
    }

    fn exec(&self, sql: &str) {
        let conn = rusqlite::Connection::open(&self.path).unwrap();
        conn.execute_batch(sql)
            .unwrap_or_else(|e| panic!("{e}: {sql}"));
    }

    fn stamp(&self, iso: &str) -> String {
        // Django keeps naive UTC text in SQLite: `2024-05-01 12:00:00.250000`.
        format!("'{}'", iso.replace('T', " ").trim_end_matches('Z'))
    }

    fn go_away(&mut self) {
        std::fs::rename(&self.path, self.path.with_extension("away")).unwrap();
    }

    fn come_back(&mut self) {
        std::fs::rename(self.path.with_extension("away"), &self.path).unwrap();
    }
}

/// A PostgreSQL cluster of its own in a temporary directory, on a free port.
struct Postgres {
    dir: TempDir,
    bin: PathBuf,
    port: u16,
    /// Run the server binaries as `postgres` (they refuse to run as root).
    as_postgres: bool,
}

impl Postgres {
    /// Starts a cluster, or says why it cannot (no binaries, root without a
    /// `postgres` user).
    fn start() -> Result<Postgres, String> {
        let bin = pg_bindir().ok_or("no PostgreSQL server binaries (initdb, pg_ctl) were found")?;
        let root = output("id", &["-u"]).trim() == "0";
        if root
            && !Command::new("id")
                .args(["-u", "postgres"])
                .output()
                .is_ok_and(|o| o.status.success())
        {
            return Err(
                "running as root and there is no postgres user to run the server as".into(),
            );
        }
        let dir = TempDir::new("pg");
        if root {
            run("chown", &["postgres", dir.0.to_str().unwrap()]);
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let pg = Postgres {
            dir,
            bin,
            port,
            as_postgres: root,
        };
        let data = pg.dir.path("data");
        pg.server(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        pg.ctl("start");
        let mut client = pg.client("postgres");
        client.batch_execute("CREATE DATABASE museum").unwrap();
        Ok(pg)
    }

    fn server(&self, program: &str, args: &[&str]) {
        let program = self.bin.join(program);
        let program = program.to_str().unwrap();
        if self.as_postgres {
            let mut all = vec!["-u", "postgres", "--", program];
            all.extend_from_slice(args);
            run("runuser", &all);
        } else {
            run(program, args);
        }
    }

    fn ctl(&self, action: &str) {
        let data = self.dir.path("data");
        let log = self.dir.path("log");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.0.display()
        );
        let mut args = vec![
            "-D",
            data.to_str().unwrap(),
            "-l",
            log.to_str().unwrap(),
            "-w",
        ];
        match action {
            "start" => args.extend(["-o", &options, "start"]),
            _ => args.extend(["-m", "fast", "stop"]),
        }
        self.server("pg_ctl", &args);
    }

    fn client(&self, db: &str) -> postgres::Client {
        postgres::Config::new()
            .host("127.0.0.1")
            .port(self.port)
            .user("postgres")
            .dbname(db)
            .connect(postgres::NoTls)
            .unwrap()
    }

    fn create(dir_tag: &str) -> Postgres {
        Postgres::of(dir_tag, Version::Today)
    }

    /// A server with `version`'s tables and the fixture's rows. Only the tests
    /// that run where the build found PostgreSQL ask for one (`cfg(postgres)`),
    /// so not starting is a failure, not a skip.
    fn of(dir_tag: &str, version: Version) -> Postgres {
        Postgres::with(dir_tag, version, &version.fixture())
    }

    /// A server with `version`'s tables and `fixture`'s rows.
    fn with(dir_tag: &str, version: Version, fixture: &Path) -> Postgres {
        match Postgres::start() {
            Ok(pg) => {
                pg.exec(&std::fs::read_to_string(version.ddl("postgres")).unwrap());
                pg.exec(&rows_sql(&pg, fixture));
                pg
            }
            Err(why) => panic!("{dir_tag}: {why}"),
        }
    }
}

impl Db for Postgres {
    fn url(&self) -> String {
        format!("postgres://postgres:unused@127.0.0.1:{}/museum", self.port)
    }

    fn exec(&self, sql: &str) {
        self.client("museum")
            .batch_execute(sql)
            .unwrap_or_else(|e| panic!("{e}: {sql}"));
    }

    fn stamp(&self, iso: &str) -> String {
        format!("'{iso}'")
    }

    fn go_away(&mut self) {
        self.ctl("stop");
    }

    fn come_back(&mut self) {
        self.ctl("start");
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.dir.path("data");
        let program = self.bin.join("pg_ctl");
        let args = ["-D", data.to_str().unwrap(), "-m", "immediate", "stop"];
        let _ = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--", program.to_str().unwrap()])
                .args(args)
                .output()
        } else {
            Command::new(program).args(args).output()
        };
    }
}

/// Where the PostgreSQL server binaries are, as the package's build found them
/// (`build.rs`: `$PG_BINDIR`, else the newest `/usr/lib/postgresql/*/bin`).
fn pg_bindir() -> Option<PathBuf> {
    option_env!("CATALOGUE_PG_BINDIR").map(PathBuf::from)
}

fn run(program: &str, args: &[&str]) {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn output(program: &str, args: &[&str]) -> String {
    String::from_utf8(Command::new(program).args(args).output().unwrap().stdout).unwrap()
}

fn ddl(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/database")
        .join(name)
}

/// Fields of the fixture that are foreign keys (`x` is the column `x_id`).
const FOREIGN: &[&str] = &[
    "order",
    "family",
    "subfamily",
    "tribe",
    "genus",
    "species",
    "subspecies",
    "country",
    "state",
    "county",
    "locality",
    "gps",
    "collecting_trip",
    "determiner",
    "preparer",
    "image",
    "species_page",
    "collection",
    "uploaded_by_user",
    "specimen_record",
    "featured_image",
    "tag",
    "content_type",
    "root_page",
    "locale",
    "alias_of",
];

/// The primary key column of a table: Django's multi-table inheritance names the
/// pointer to the parent's row.
fn pk_column(table: &str) -> &'static str {
    match table {
        "images_baseliveimage" | "images_specimenrecordimage" => "customimage_ptr_id",
        "images_insectimage" | "images_plantimage" | "images_habitatimage" => {
            "baseliveimage_ptr_id"
        }
        "pages_speciespage" => "page_ptr_id",
        _ => "id",
    }
}

/// The instants of the sample, stored as the engine stores timestamps.
fn is_instant(field: &str) -> bool {
    (field.starts_with("date_") && field != "date")
        || matches!(
            field,
            "created_at" | "first_published_at" | "last_published_at"
        )
}

/// INSERTs of every record of a fixture, links included.
fn rows_sql(db: &dyn Db, fixture: &Path) -> String {
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let mut sql = String::new();
    let mut links = String::new();
    for object in fixture.as_array().unwrap() {
        let table = match object["model"].as_str().unwrap() {
            "contenttypes.contenttype" => "django_content_type".to_string(),
            label => label.replace('.', "_"),
        };
        if table == "home_homepage" {
            continue;
        }
        let pk = object["pk"].as_i64().unwrap();
        let (mut columns, mut values) = (vec![pk_column(&table).to_string()], vec![pk.to_string()]);
        for (field, value) in object["fields"].as_object().unwrap() {
            if let Value::Array(ids) = value {
                let owner = format!("{}_id", table.split_once('_').unwrap().1);
                let target = match field.as_str() {
                    "states" => "state_id",
                    "collector" => "person_id",
                    _ => "speciespage_id",
                };
                let link = format!("{table}_{field}");
                for id in ids {
                    links.push_str(&format!(
                        "INSERT INTO {link} ({owner}, {target}) VALUES ({pk}, {id});\n"
                    ));
                }
                continue;
            }
            // A specimen's `usi` is its own text; an image's is its specimen.
            let foreign = FOREIGN.contains(&field.as_str())
                || (table == "images_specimenrecordimage" && field == "usi");
            let column = if foreign {
                format!("{field}_id")
            } else {
                field.clone()
            };
            columns.push(format!("\"{column}\""));
            values.push(match value {
                Value::Null => "NULL".into(),
                Value::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
                Value::Number(n) => n.to_string(),
                Value::String(s) if is_instant(field) => db.stamp(s),
                Value::String(s) => format!("'{}'", s.replace('\'', "''")),
                other => panic!("{other}"),
            });
        }
        // A generated page lacks the columns of Wagtail's tree that catalogue
        // does not read but the table needs.
        if table == "wagtailcore_page" && !columns.iter().any(|c| c == "\"depth\"") {
            let title = object["fields"]["title"].as_str().unwrap_or_default();
            columns.extend(["depth", "has_unpublished_changes", "draft_title"].map(String::from));
            values.extend([
                "2".into(),
                "FALSE".into(),
                format!("'{}'", title.replace('\'', "''")),
            ]);
        }
        sql.push_str(&format!(
            "INSERT INTO {table} ({}) VALUES ({});\n",
            columns.join(", "),
            values.join(", ")
        ));
    }
    sql + &links
}

/// The checksum `catalogue build` prints.
fn built_checksum(args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .last()
        .and_then(|l| l.rsplit_once("checksum: "))
        .map(|(_, c)| c.to_string())
        .unwrap_or_else(|| panic!("no checksum in {stdout}"))
}

/// The checksum of a fixture's snapshot.
fn fixture_checksum(dir: &TempDir, fixture: &Path) -> String {
    let out = dir.path("fixture.bin");
    built_checksum(
        &[
            "build",
            fixture.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        &[],
    )
}

/// Builds from the database, with the URL given as a flag and through DATABASE_URL,
/// and checks `inspect` prints the same checksum as the fixture of its version.
fn same_snapshot_as_fixtures(db: &dyn Db, dir: &TempDir, version: Version) {
    let expected = fixture_checksum(dir, &version.fixture());
    let out = dir.path("db.bin");
    let out = out.to_str().unwrap();
    let url = db.url();
    assert_eq!(
        built_checksum(&["build", "--from-db", &url, "-o", out], &[]),
        expected
    );
    assert_eq!(
        built_checksum(
            &["build", "--from-db", "-o", out],
            &[("DATABASE_URL", url.as_str())]
        ),
        expected
    );
    let inspect = catalogue(&["inspect", out]);
    assert!(String::from_utf8_lossy(&inspect.stdout).contains(&format!("checksum: {expected}\n")));
}

/// Why a PostgreSQL test is not run where the build found no server.
macro_rules! needs_postgres {
    ($($test:item)*) => {$(
        #[cfg_attr(
            not(postgres),
            ignore = "no PostgreSQL server binaries were found when the tests were built: \
                      apt-get install postgresql (or set PG_BINDIR), then cargo test again"
        )]
        $test
    )*};
}

#[test]
fn sqlite_and_fixtures_give_one_checksum() {
    let dir = TempDir::new("db-same");
    let sqlite = Sqlite::create(&dir);
    same_snapshot_as_fixtures(&sqlite, &dir, Version::Today);
}

needs_postgres! {
    #[test]
    fn postgres_and_fixtures_give_one_checksum() {
        let dir = TempDir::new("db-same-pg");
        let pg = Postgres::create("postgres_and_fixtures_give_one_checksum");
        same_snapshot_as_fixtures(&pg, &dir, Version::Today);
    }

    /// The service's tables before 0.16, on PostgreSQL.
    #[test]
    fn a_postgres_database_of_the_typed_image_tables_gives_its_fixtures_snapshot() {
        let dir = TempDir::new("db-typed-pg");
        let pg = Postgres::of(
            "a_postgres_database_of_the_typed_image_tables_gives_its_fixtures_snapshot",
            Version::Typed,
        );
        same_snapshot_as_fixtures(&pg, &dir, Version::Typed);
    }
}

/// A database of the service before 0.16 (typed image tables, featured flags)
/// gives the snapshot its fixtures give (on PostgreSQL too, below).
#[test]
fn a_database_of_the_typed_image_tables_gives_its_fixtures_snapshot() {
    let dir = TempDir::new("db-typed");
    let sqlite = Sqlite::of(&dir, Version::Typed);
    same_snapshot_as_fixtures(&sqlite, &dir, Version::Typed);
}

/// What `build --from-db` says of a SQLite URL it cannot read: once, and how
/// to fix it.
#[test]
fn a_sqlite_file_missing_or_not_a_file_is_said_once_with_the_slashes_explained() {
    let dir = TempDir::new("db-missing");
    let out = dir.path("x.bin");
    let said = |url: &str| {
        let built = catalogue(&["build", "--from-db", url, "-o", out.to_str().unwrap()]);
        assert!(!built.status.success() && !out.exists());
        String::from_utf8_lossy(&built.stderr)
            .trim_end()
            .to_string()
    };
    let here = std::env::current_dir().unwrap();
    assert_eq!(
        said("sqlite:///data/x.sqlite3"),
        format!(
            "error: there is no SQLite database at data/x.sqlite3 (sqlite:///data/x.sqlite3, \
             with three slashes, is a path from the working directory, {}); for \
             /data/x.sqlite3 write sqlite:////data/x.sqlite3, with four",
            here.display()
        )
    );
    let absent = dir.path("absent.sqlite3");
    assert_eq!(
        said(&format!("sqlite:///{}", absent.display())),
        format!("error: there is no SQLite database at {}", absent.display())
    );
    assert_eq!(
        said(&format!("sqlite:///{}", dir.0.display())),
        format!(
            "error: cannot open the SQLite database {}: it is not a file",
            dir.0.display()
        )
    );
}

/// Image tables in neither shape (Wagtail's own image table alone, without
/// `image_type` or the typed tables) are refused, naming the table, rather
/// than published as empty image lists.
#[test]
fn image_tables_of_an_unknown_shape_are_refused_by_name() {
    let dir = TempDir::new("db-unknown-images");
    let sqlite = Sqlite::of(&dir, Version::Typed);
    sqlite.exec(
        "DROP TABLE images_baseliveimage; DROP TABLE images_specimenrecordimage; \
         DROP TABLE images_insectimage; DROP TABLE images_plantimage; \
         DROP TABLE images_habitatimage;",
    );
    let out = dir.path("unknown.bin");
    let built = catalogue(&[
        "build",
        "--from-db",
        &sqlite.url(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!built.status.success());
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(
        stderr.contains("images_customimage has no image_type column"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn database_problems_are_reported_as_fixture_problems() {
    let dir = TempDir::new("db-problems");
    let sqlite = Sqlite::create(&dir);
    // With foreign keys off (a hand edit, an old import), SQLite takes a specimen
    // on a missing GPS record and a boolean that is not one.
    sqlite.exec(
        "PRAGMA foreign_keys = OFF; \
         UPDATE specimens_specimenrecord SET gps_id = 999, labeled = 'maybe' WHERE id = 2;",
    );
    let mut fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(common::sample_fixture()).unwrap()).unwrap();
    for o in fixture.as_array_mut().unwrap() {
        if o["model"] == "specimens.specimenrecord" && o["pk"] == 2 {
            o["fields"]["gps"] = 999.into();
            o["fields"]["labeled"] = "maybe".into();
        }
    }
    let broken = dir.path("broken.json");
    std::fs::write(&broken, fixture.to_string()).unwrap();
    let out = dir.path("out.bin");
    let errors = |args: &[&str]| {
        let run = catalogue(args);
        assert_eq!(run.status.code(), Some(1), "{run:?}");
        assert!(!out.exists());
        String::from_utf8_lossy(&run.stderr)
            .lines()
            .filter(|l| l.starts_with("error: "))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    // Refused (--refuse-invalid), each problem said the same way.
    let from_db = errors(&[
        "build",
        "--refuse-invalid",
        "--from-db",
        &sqlite.url(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let from_fixture = errors(&[
        "build",
        "--refuse-invalid",
        broken.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(from_db, from_fixture);
    assert_eq!(from_db.len(), 2, "{from_db:?}");
    assert!(
        from_db.iter().any(|e| e.contains("pk=2 gps")),
        "{from_db:?}"
    );
    // Held back (the default), the same way from both.
    let held = |args: &[&str]| {
        let run = catalogue(args);
        assert_eq!(run.status.code(), Some(0), "{run:?}");
        std::fs::remove_file(&out).unwrap();
        String::from_utf8_lossy(&run.stdout)
            .lines()
            .filter(|l| l.starts_with("held back: "))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let out_path = out.to_str().unwrap();
    let from_db = held(&["build", "--from-db", &sqlite.url(), "-o", out_path]);
    let from_fixture = held(&["build", broken.to_str().unwrap(), "-o", out_path]);
    assert_eq!(from_db, from_fixture);
    assert_eq!(
        from_db,
        [
            "held back: specimens.specimenrecord pk=2 labeled: expected true, false or null, \
          found \"maybe\" (not served: it was never published)"
        ]
    );

    // A URL that names nothing is refused before anything is read.
    let missing = catalogue(&[
        "build",
        "--from-db",
        "sqlite:////nonexistent/db.sqlite3",
        "-o",
        "x.bin",
    ]);
    assert!(String::from_utf8_lossy(&missing.stderr)
        .contains("there is no SQLite database at /nonexistent/db.sqlite3\n"));
    let no_url = Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args(["build", "--from-db", "-o", "x.bin"])
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&no_url.stderr)
        .contains("--from-db has no URL and DATABASE_URL is not set"));
}

// `sync` keeping a snapshot in step with the database: `database/sync.rs`.
mod sync;

pub(crate) use sync::{checksum_at, next_checksum, specimens};
