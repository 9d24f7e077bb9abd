//! Database URLs in the form the Django world writes them (dj-database-url):
//! `postgres://user:password@host:port/name` or `sqlite:///path`.

use std::path::PathBuf;
use std::time::Duration;

use crate::encoding::percent::percent_decode;

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

/// A URL that does not name a database catalogue can read; the message says why
/// and never holds the password.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UrlError(String);

impl Source {
    /// Reads `postgres://user:pass@host:port/name` (also `postgresql://`, `pgsql://`),
    /// `sqlite:///relative/path` or `sqlite:////absolute/path`.
    pub fn parse(url: &str) -> Result<Source, UrlError> {
        let bad = Bad(url);
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad.at("no scheme"))?;
        match scheme {
            "sqlite" => parse_sqlite(rest, &bad),
            "postgres" | "postgresql" | "pgsql" | "postgis" => parse_postgres(rest, &bad),
            other => Err(bad.at(&format!("the unsupported scheme {other:?}"))),
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

/// Makes the errors of one URL, which name it without its password.
struct Bad<'u>(&'u str);

impl Bad<'_> {
    fn at(&self, why: &str) -> UrlError {
        UrlError(format!(
            "{why} in the database URL {:?}; expected postgres://user:password@host:port/name \
             or sqlite:///path/to/db.sqlite3",
            redact(self.0)
        ))
    }

    /// Decodes one part of the URL as `urllib.parse.unquote` does (a `+` is itself
    /// in a URL's user, password, host and path).
    fn decode(&self, part: &str) -> String {
        percent_decode(part, false).into_owned()
    }
}

/// `sqlite:///a/b` is the relative path `a/b`; `sqlite:////a/b` is `/a/b`.
fn parse_sqlite(rest: &str, bad: &Bad) -> Result<Source, UrlError> {
    let path = rest.strip_prefix('/').unwrap_or(rest);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    if path.is_empty() || path == ":memory:" {
        return Err(bad.at("no file path"));
    }
    Ok(Source::Sqlite(PathBuf::from(bad.decode(path))))
}

fn parse_postgres(rest: &str, bad: &Bad) -> Result<Source, UrlError> {
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
            config.user(&bad.decode(user));
        }
        if !password.is_empty() {
            config.password(bad.decode(password));
        }
    }
    let (host, port) = host_and_port(hostport, bad)?;
    // No host: the local server's socket, as libpq does.
    config.host(if host.is_empty() {
        "/var/run/postgresql"
    } else {
        &host
    });
    if let Some(port) = port {
        config.port(port);
    }
    let name = bad.decode(name);
    if name.is_empty() {
        return Err(bad.at("no database name"));
    }
    config.dbname(&name);
    for option in query.split('&').filter(|o| !o.is_empty()) {
        match option.split_once('=').unwrap_or((option, "")) {
            ("sslmode", "disable" | "allow" | "prefer") => {}
            ("sslmode", mode) => {
                return Err(UrlError(format!(
                    "sslmode={mode} asks for TLS, which catalogue does not speak; \
                     reach the database over a trusted network or a socket"
                )))
            }
            ("connect_timeout", secs) => {
                let secs = secs
                    .parse()
                    .map_err(|_| bad.at("a connect_timeout that is not a number"))?;
                config.connect_timeout(Duration::from_secs(secs));
            }
            _ => {}
        }
    }
    Ok(Source::Postgres {
        config: Box::new(config),
        shown: redact(bad.0),
    })
}

/// `host`, `host:port`, `[::1]` or `[::1]:port`.
fn host_and_port(hostport: &str, bad: &Bad) -> Result<(String, Option<u16>), UrlError> {
    let (host, port) = match hostport.strip_prefix('[') {
        Some(v6) => {
            let (h, after) = v6.split_once(']').ok_or_else(|| bad.at("an unclosed ["))?;
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
                .map_err(|_| bad.at("a port that is not a number"))
        })
        .transpose()?;
    Ok((bad.decode(host), port))
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
        // A `%` not followed by two hex digits is itself, as `unquote` reads it.
        let Source::Postgres { config, .. } = Source::parse("postgres://u@h/m%zz").unwrap() else {
            panic!()
        };
        assert_eq!(config.get_dbname(), Some("m%zz"));
        let e = Source::parse("postgres://u:secret@h:x/m")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("secret"), "{e}");
    }
}
