//! The dataset file read: a regular file, bounded, never waited on, in JSON
//! or TOML.

use std::path::Path;

use super::check::DatasetError;
use super::description::Dataset;

/// The most bytes a dataset file may hold: a description, not a collection.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The text of the dataset file at `path`: a regular file (a FIFO, a device
/// or a directory is refused at once, without waiting on it) of at most
/// [`MAX_FILE_BYTES`], in UTF-8.
pub fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let refused = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(refused(
            "it is not a regular file (a FIFO, a device or a directory): give the file itself"
                .into(),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(refused(format!(
            "it holds more than {MAX_FILE_BYTES} bytes, the most a dataset file may"
        )));
    }
    String::from_utf8(bytes).map_err(|_| refused("it is not UTF-8 text".into()))
}

/// The keys of the dataset file the description never holds, each read
/// apart: where the dataset is registered (`model::registration`) and the
/// sensitive places' rules ([`super::sensitive`]).
const APART: [&str; 2] = ["gbif", "sensitive"];

/// A TOML dataset file's keys without its `gbif` table and `sensitive`
/// rules, where it has either.
fn registered_toml(text: &str) -> Option<toml::Table> {
    let mut table: toml::Table = toml::from_str(text).ok()?;
    let removed = APART.iter().filter(|k| table.remove(**k).is_some()).count();
    (removed > 0).then_some(table)
}

/// A JSON dataset file's keys without its `gbif` object and `sensitive`
/// rules, where it has either.
fn registered_json(text: &str) -> Option<serde_json::Value> {
    let mut value: serde_json::Value = serde_json::from_str(text).ok()?;
    let object = value.as_object_mut()?;
    let removed = APART
        .iter()
        .filter(|k| object.remove(**k).is_some())
        .count();
    (removed > 0).then_some(value)
}

/// A parser's message, cut to a line's length (it may quote a value).
fn bounded(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    match line.char_indices().nth(160) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line.to_string(),
    }
}

impl Dataset {
    /// Reads and checks a dataset file: TOML when its name ends `.toml`, JSON
    /// otherwise.
    pub fn from_file(path: &Path) -> Result<Dataset, DatasetError> {
        let shown = path.display().to_string();
        let text = read_bounded(path).map_err(|cause| DatasetError::Read {
            path: shown.clone(),
            cause,
        })?;
        let toml = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
        // Where the file is in it, never what it says: a path given by
        // mistake (a link to another file) must not be quoted in a log.
        // The `gbif` table is where the dataset is registered, read apart
        // (`model::registration`), and so are the `sensitive` rules
        // (`Sensitive::from_file`): the description never holds them.
        let parsed: Result<Dataset, String> = match toml {
            true if registered_toml(&text).is_some() => {
                let table = registered_toml(&text).expect("a table");
                toml::Value::Table(table)
                    .try_into::<Dataset>()
                    .map_err(|e| bounded(e.message()))
            }
            false if registered_json(&text).is_some() => {
                let object = registered_json(&text).expect("an object");
                serde_json::from_value(object).map_err(|e| bounded(&e.to_string()))
            }
            true => toml::from_str(&text).map_err(|e| {
                let at = e.span().map_or(0, |s| s.start).min(text.len());
                let line = text.as_bytes()[..at]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                format!("{} at line {line}", bounded(e.message()))
            }),
            false => serde_json::from_str(&text).map_err(|e| bounded(&e.to_string())),
        };
        let dataset = parsed.map_err(|cause| DatasetError::Syntax {
            path: shown.clone(),
            format: if toml { "TOML" } else { "JSON" },
            cause: cause.trim().to_string(),
        })?;
        dataset.check(&shown)?;
        Ok(dataset)
    }
}
