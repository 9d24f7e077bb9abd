//! What the archive says of the dataset (`--dataset FILE`), and why an archive
//! could not be made.

use std::path::Path;

use serde::Deserialize;

/// What `eml.xml` says of the dataset, and the codes every row carries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Dataset {
    pub title: String,
    pub description: String,
    pub publisher: String,
    /// A licence name or URL (GBIF takes CC0 1.0, CC BY 4.0 and CC BY-NC 4.0).
    pub license: String,
    pub institution_code: String,
    pub collection_code: String,
}

/// Why the dataset description or the archive could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DwcaError {
    // `cause`, not `source`: said once, in the message, not again by error chains.
    #[error("cannot read the dataset file {path}: {cause}")]
    ReadConfig { path: String, cause: std::io::Error },
    #[error("the dataset file {path} is not valid: {cause} (expected a JSON object with title, description, publisher, license, institution_code, collection_code)")]
    Config {
        path: String,
        cause: serde_json::Error,
    },
    #[error("cannot write the archive: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("cannot write the archive: {0}")]
    Io(#[from] std::io::Error),
}

impl Dataset {
    /// Reads a dataset file: a JSON object with any of the fields.
    pub fn from_file(path: &Path) -> Result<Dataset, DwcaError> {
        let text = std::fs::read_to_string(path).map_err(|cause| DwcaError::ReadConfig {
            path: path.display().to_string(),
            cause,
        })?;
        serde_json::from_str(&text).map_err(|cause| DwcaError::Config {
            path: path.display().to_string(),
            cause,
        })
    }

    /// The title, or a plain one when none was given.
    pub(super) fn title(&self) -> &str {
        if self.title.is_empty() {
            "Specimen records"
        } else {
            &self.title
        }
    }
}
