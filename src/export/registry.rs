//! GBIF's registry API (v1), as `catalogue gbif register` and the crawl asked
//! after each published version speak it: the dataset created (`POST
//! /dataset`, 201 and the new key as a JSON string) or updated (`PUT
//! /dataset/{key}`, 204), its endpoints listed (`GET /dataset/{key}/endpoint`),
//! added (`POST .../endpoint`, the new endpoint's key) and removed (`DELETE
//! .../endpoint/{n}`, 204), and a crawl asked (`POST /dataset/{key}/crawl`,
//! 204). Every request but the list is made with HTTP Basic authentication;
//! the password is never logged nor said in an error.

use std::time::Duration;

use serde_json::{json, Value};

use crate::model::dataset::Dataset;
use crate::model::registration::Registration;

/// A GBIF.org account, from `CATALOGUE_GBIF_USER` and `CATALOGUE_GBIF_PASSWORD`.
#[derive(Clone)]
pub struct Credentials {
    user: String,
    password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credentials({}, password not shown)", self.user)
    }
}

/// The environment variables the account is read from.
pub const USER_VAR: &str = "CATALOGUE_GBIF_USER";
pub const PASSWORD_VAR: &str = "CATALOGUE_GBIF_PASSWORD";

impl Credentials {
    pub fn new(user: &str, password: &str) -> Credentials {
        Credentials {
            user: user.to_string(),
            password: password.to_string(),
        }
    }

    /// The account the environment names; an error saying which variable is
    /// missing.
    pub fn from_env() -> Result<Credentials, RegistryError> {
        let read = |name: &'static str| match std::env::var(name) {
            Ok(v) if !v.is_empty() => Ok(v),
            _ => Err(RegistryError::Credentials(name)),
        };
        Ok(Credentials {
            user: read(USER_VAR)?,
            password: read(PASSWORD_VAR)?,
        })
    }

    fn header(&self) -> String {
        use base64::Engine as _;
        let pair = format!("{}:{}", self.user, self.password);
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }
}

/// Why a request to the registry did not do what it asked.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error(
        "{0} is not set: the GBIF.org account (CATALOGUE_GBIF_USER, CATALOGUE_GBIF_PASSWORD) \
         with editor rights on the publishing organisation"
    )]
    Credentials(&'static str),
    #[error("{what}: GBIF's registry answered {status}{}", said(body))]
    Refused {
        what: String,
        status: u16,
        body: String,
    },
    #[error("{what}: cannot reach GBIF's registry at {api}: {cause}")]
    Unreachable {
        what: String,
        api: String,
        cause: String,
    },
    #[error("{what}: GBIF's registry answered what it does not: {body}")]
    Unexpected { what: String, body: String },
}

impl RegistryError {
    /// Whether asking again later may succeed: the registry unreachable, or
    /// an answer of its own trouble (5xx, 429), never a refusal of the request.
    pub fn transient(&self) -> bool {
        match self {
            RegistryError::Unreachable { .. } => true,
            RegistryError::Refused { status, .. } => *status >= 500 || *status == 429,
            _ => false,
        }
    }
}

/// What an error body says, cut to a line (`: ...`), or nothing.
fn said(body: &str) -> String {
    let line: String = body
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect();
    match line.trim() {
        "" => String::new(),
        line => format!(": {line}"),
    }
}

/// A dataset's endpoint as the registry lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub key: i64,
    pub kind: String,
    pub url: String,
}

/// The endpoint types catalogue registers: the archive and its metadata.
pub const DWC_ARCHIVE: &str = "DWC_ARCHIVE";
pub const EML: &str = "EML";

/// The registry at one API address, with an account.
pub struct Registry {
    api: String,
    credentials: Credentials,
    agent: ureq::Agent,
}

impl Registry {
    /// The registry at `api` (`https://api.gbif.org/v1/`; a missing final `/`
    /// is added), each request given 30 seconds.
    pub fn new(api: &str, credentials: Credentials) -> Registry {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .user_agent(concat!("catalogue/", env!("CARGO_PKG_VERSION")))
            .build();
        let api = match api.ends_with('/') {
            true => api.to_string(),
            false => format!("{api}/"),
        };
        Registry {
            api,
            credentials,
            agent: config.into(),
        }
    }

    /// Sends one request; the answer's status and body.
    fn ask(
        &self,
        what: &str,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, String), RegistryError> {
        let url = format!("{}{path}", self.api);
        let auth = self.credentials.header();
        let sent = match (method, body) {
            ("GET", _) => self
                .agent
                .get(&url)
                .header("Accept", "application/json")
                .call(),
            ("DELETE", _) => self
                .agent
                .delete(&url)
                .header("Authorization", &auth)
                .call(),
            (method, body) => {
                let request = match method {
                    "PUT" => self.agent.put(&url),
                    _ => self.agent.post(&url),
                };
                let request = request
                    .header("Authorization", &auth)
                    .header("Accept", "application/json");
                match body {
                    Some(body) => request
                        .header("Content-Type", "application/json")
                        .send(body.to_string()),
                    None => request.send_empty(),
                }
            }
        };
        let unreachable = |cause: String| RegistryError::Unreachable {
            what: what.to_string(),
            api: self.api.clone(),
            cause,
        };
        let mut answer = sent.map_err(|e| unreachable(e.to_string()))?;
        let status = answer.status().as_u16();
        let text = answer
            .body_mut()
            .with_config()
            .limit(1 << 20)
            .read_to_string()
            .map_err(|e| unreachable(e.to_string()))?;
        match status {
            200..=299 => Ok((status, text)),
            _ => Err(RegistryError::Refused {
                what: what.to_string(),
                status,
                body: text,
            }),
        }
    }

    /// Creates the dataset; its new key.
    pub fn create_dataset(&self, dataset: &Value) -> Result<String, RegistryError> {
        let what = "creating the dataset (POST dataset)";
        let (_, body) = self.ask(what, "POST", "dataset", Some(dataset))?;
        key_of(what, &body)
    }

    /// Replaces the registered dataset's description (`dataset` holds its `key`).
    pub fn update_dataset(&self, key: &str, dataset: &Value) -> Result<(), RegistryError> {
        let what = format!("updating the dataset (PUT dataset/{key})");
        self.ask(&what, "PUT", &format!("dataset/{key}"), Some(dataset))
            .map(|_| ())
    }

    /// The dataset's endpoints.
    pub fn endpoints(&self, key: &str) -> Result<Vec<Endpoint>, RegistryError> {
        let what = format!("listing the dataset's endpoints (GET dataset/{key}/endpoint)");
        let (_, body) = self.ask(&what, "GET", &format!("dataset/{key}/endpoint"), None)?;
        let unexpected = || RegistryError::Unexpected {
            what: what.clone(),
            body: said(&body),
        };
        let listed: Vec<Value> = serde_json::from_str(&body).map_err(|_| unexpected())?;
        listed
            .iter()
            .map(|e| {
                Some(Endpoint {
                    key: e.get("key")?.as_i64()?,
                    kind: e.get("type")?.as_str()?.to_string(),
                    url: e.get("url")?.as_str()?.to_string(),
                })
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(unexpected)
    }

    /// Adds an endpoint of `kind` at `url`; its key.
    pub fn add_endpoint(&self, key: &str, kind: &str, url: &str) -> Result<i64, RegistryError> {
        let what = format!("adding the {kind} endpoint (POST dataset/{key}/endpoint)");
        let body = json!({"type": kind, "url": url});
        let (_, answer) = self.ask(
            &what,
            "POST",
            &format!("dataset/{key}/endpoint"),
            Some(&body),
        )?;
        answer
            .trim()
            .parse()
            .map_err(|_| RegistryError::Unexpected {
                what,
                body: said(&answer),
            })
    }

    /// Removes the endpoint `endpoint` of the dataset.
    pub fn delete_endpoint(&self, key: &str, endpoint: i64) -> Result<(), RegistryError> {
        let what =
            format!("removing endpoint {endpoint} (DELETE dataset/{key}/endpoint/{endpoint})");
        self.ask(
            &what,
            "DELETE",
            &format!("dataset/{key}/endpoint/{endpoint}"),
            None,
        )
        .map(|_| ())
    }

    /// Asks GBIF to crawl the dataset now.
    pub fn crawl(&self, key: &str) -> Result<(), RegistryError> {
        let what = format!("asking for a crawl (POST dataset/{key}/crawl)");
        self.ask(&what, "POST", &format!("dataset/{key}/crawl"), None)
            .map(|_| ())
    }

    /// Makes the dataset's endpoints `wanted` (type, URL): removes those of
    /// those types at another URL, adds those missing. What it did, in words.
    pub fn set_endpoints(
        &self,
        key: &str,
        wanted: &[(&str, String)],
    ) -> Result<Vec<String>, RegistryError> {
        let mut done = Vec::new();
        let listed = self.endpoints(key)?;
        for e in &listed {
            let ours = wanted.iter().any(|(kind, _)| *kind == e.kind);
            if ours
                && !wanted
                    .iter()
                    .any(|(kind, url)| *kind == e.kind && *url == e.url)
            {
                self.delete_endpoint(key, e.key)?;
                done.push(format!("removed the {} endpoint {}", e.kind, e.url));
            }
        }
        for (kind, url) in wanted {
            if !listed.iter().any(|e| e.kind == *kind && e.url == *url) {
                self.add_endpoint(key, kind, url)?;
                done.push(format!("added the {kind} endpoint {url}"));
            }
        }
        Ok(done)
    }
}

/// The UUID a creation answered (a JSON string, or the bare key).
fn key_of(what: &str, body: &str) -> Result<String, RegistryError> {
    let text = body.trim();
    let key = serde_json::from_str::<String>(text).unwrap_or_else(|_| text.to_string());
    match crate::model::registration::is_uuid(&key) {
        true => Ok(key),
        false => Err(RegistryError::Unexpected {
            what: what.to_string(),
            body: said(body),
        }),
    }
}

/// The language as GBIF's registry writes it: ISO 639-2 (`eng`), from the
/// dataset's ISO 639-1 where that is one of the common ones.
fn language(code: &str) -> String {
    let code = code.trim().to_ascii_lowercase();
    let three = [
        ("en", "eng"),
        ("fr", "fra"),
        ("es", "spa"),
        ("de", "deu"),
        ("pt", "por"),
        ("nl", "nld"),
        ("it", "ita"),
        ("da", "dan"),
        ("sv", "swe"),
        ("no", "nor"),
        ("fi", "fin"),
        ("pl", "pol"),
        ("cs", "ces"),
        ("ru", "rus"),
        ("zh", "zho"),
        ("ja", "jpn"),
        ("ko", "kor"),
        ("ca", "cat"),
        ("et", "est"),
    ];
    three
        .iter()
        .find(|(two, _)| *two == code)
        .map_or(code.clone(), |(_, three)| three.to_string())
}

/// The dataset as the registry takes it: its keys, type `OCCURRENCE`, title,
/// description, licence (the URL GBIF's registry knows), language, DOI
/// where the file gives one, and its `key` when it is registered already.
pub fn dataset_body(dataset: &Dataset, registration: &Registration, key: Option<&str>) -> Value {
    let mut body = json!({
        "publishingOrganizationKey": registration.publishing_organization,
        "installationKey": registration.installation,
        "type": "OCCURRENCE",
        "title": dataset.title(),
        "language": language(dataset.language()),
    });
    let fields = body.as_object_mut().expect("an object");
    if !dataset.description.trim().is_empty() {
        fields.insert("description".into(), dataset.description.trim().into());
    }
    if let Some(licence) = dataset.licence() {
        fields.insert("license".into(), licence.legal_code().into());
    }
    if let Some(doi) = dataset.doi() {
        fields.insert("doi".into(), doi.bare().into());
    }
    if !dataset.homepage.trim().is_empty() {
        fields.insert("homepage".into(), dataset.homepage.trim().into());
    }
    if let Some(key) = key {
        fields.insert("key".into(), key.into());
    }
    body
}

/// How many times a crawl is asked before it is given up, and the wait
/// before the second try (doubled before each next).
pub const CRAWL_TRIES: u32 = 3;
pub const CRAWL_BACKOFF: Duration = Duration::from_secs(2);

/// What asking for a crawl came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crawl {
    /// The registered dataset's key.
    pub dataset: String,
    /// The version it was asked for.
    pub version: u64,
    /// How many requests were sent.
    pub tries: u32,
    /// Why the last failed, where none succeeded.
    pub failed: Option<String>,
}

/// Asks GBIF to crawl `key`'s dataset after version `version` was
/// published: up to [`CRAWL_TRIES`] times, waiting `backoff`, then twice as
/// long, between tries; only a transient failure is tried again. Each failed
/// try is logged.
pub fn ask_crawl(registry: &Registry, key: &str, version: u64, backoff: Duration) -> Crawl {
    let mut wait = backoff;
    let mut tries = 0;
    loop {
        tries += 1;
        match registry.crawl(key) {
            Ok(()) => {
                tracing::info!(
                    dataset = key,
                    version,
                    tries,
                    "GBIF was asked to crawl the dataset"
                );
                return Crawl {
                    dataset: key.to_string(),
                    version,
                    tries,
                    failed: None,
                };
            }
            Err(e) => {
                let last = tries >= CRAWL_TRIES || !e.transient();
                tracing::warn!(
                    dataset = key,
                    version,
                    tries,
                    "{e}{}",
                    match last {
                        true => "; not asked again (GBIF recrawls on its own schedule)",
                        false => "; asking again",
                    }
                );
                if last {
                    return Crawl {
                        dataset: key.to_string(),
                        version,
                        tries,
                        failed: Some(e.to_string()),
                    };
                }
                std::thread::sleep(wait);
                wait *= 2;
            }
        }
    }
}
