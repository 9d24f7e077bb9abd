//! Where the dataset is registered with GBIF: the dataset file's `gbif`
//! table (`api`, `publishing_organization`, `installation`, and `dataset`
//! once registered). Read apart from the description (`Dataset` never holds
//! it), so no snapshot stores it and no answer of the server says it.

use std::path::Path;

use serde::Deserialize;

use super::dataset::DatasetError;

/// GBIF's production registry API.
pub const PRODUCTION_API: &str = "https://api.gbif.org/v1/";

/// The dataset file's `gbif` table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Registration {
    /// The registry API's address ([`PRODUCTION_API`] when empty; GBIF's test
    /// registry is `https://api.gbif-uat.org/v1/`).
    pub api: String,
    /// The publishing organisation's key (a UUID).
    pub publishing_organization: String,
    /// The installation's key (a UUID): the registry's record of the server.
    pub installation: String,
    /// The registered dataset's key (a UUID), once `gbif register` made it.
    pub dataset: String,
}

/// The dataset file with only its `gbif` table read.
#[derive(Deserialize)]
struct Only {
    #[serde(default)]
    gbif: Option<Registration>,
}

/// Whether `s` is a UUID (`8-4-4-4-12` hexadecimal digits).
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

impl Registration {
    /// The `gbif` table of the dataset file at `path` (TOML when its name
    /// ends `.toml`, JSON otherwise), checked; `None` where it has none.
    pub fn from_file(path: &Path) -> Result<Option<Registration>, DatasetError> {
        let shown = path.display().to_string();
        let text = super::dataset::read_bounded(path).map_err(|cause| DatasetError::Read {
            path: shown.clone(),
            cause,
        })?;
        let toml = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
        let parsed: Result<Only, String> = match toml {
            true => toml::from_str(&text).map_err(|e| e.message().to_string()),
            false => serde_json::from_str(&text).map_err(|e| e.to_string()),
        };
        let only = parsed.map_err(|cause| DatasetError::Syntax {
            path: shown.clone(),
            format: if toml { "TOML" } else { "JSON" },
            cause: cause.lines().next().unwrap_or_default().to_string(),
        })?;
        let Some(registration) = only.gbif else {
            return Ok(None);
        };
        registration.check(&shown)?;
        Ok(Some(registration))
    }

    /// Checks each key given is what it must be.
    pub fn check(&self, file: &str) -> Result<(), DatasetError> {
        let wrong = |key: &str, problem: &str| {
            Err(DatasetError::Value {
                place: format!("{file}: gbif.{key}"),
                problem: problem.to_string(),
            })
        };
        for (key, value) in [
            ("publishing_organization", &self.publishing_organization),
            ("installation", &self.installation),
            ("dataset", &self.dataset),
        ] {
            if !value.is_empty() && !is_uuid(value) {
                return wrong(key, "is not a UUID (8-4-4-4-12 hexadecimal digits) as GBIF's registry gives its keys");
            }
        }
        let api = self.api.trim();
        let web = api.starts_with("https://") || api.starts_with("http://");
        if !api.is_empty() && (!web || api.chars().any(|c| c.is_whitespace() || c.is_control())) {
            return wrong(
                "api",
                "is not an http(s) URL such as https://api.gbif.org/v1/",
            );
        }
        Ok(())
    }

    /// The registry API's address, with its final `/`.
    pub fn api(&self) -> String {
        match self.api.trim() {
            "" => PRODUCTION_API.to_string(),
            api if api.ends_with('/') => api.to_string(),
            api => format!("{api}/"),
        }
    }

    /// What registering needs and the table lacks, by key.
    pub fn lacking(&self) -> Vec<&'static str> {
        [
            ("publishing_organization", &self.publishing_organization),
            ("installation", &self.installation),
        ]
        .into_iter()
        .filter(|(_, v)| v.is_empty())
        .map(|(k, _)| k)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gbif_table_is_read_alone_and_checked() {
        let dir = std::env::temp_dir().join(format!("registration-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("d.toml");
        std::fs::write(&file, "title = \"T\"\n").unwrap();
        assert_eq!(Registration::from_file(&file).unwrap(), None);
        std::fs::write(
            &file,
            "title = \"T\"\n[gbif]\napi = \"http://127.0.0.1:9/v1\"\n\
             publishing_organization = \"0f6d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c\"\n",
        )
        .unwrap();
        let r = Registration::from_file(&file).unwrap().unwrap();
        assert_eq!(r.api(), "http://127.0.0.1:9/v1/");
        assert_eq!(r.lacking(), ["installation"]);
        std::fs::write(&file, "[gbif]\ninstallation = \"nope\"\n").unwrap();
        let e = Registration::from_file(&file).unwrap_err().to_string();
        assert!(e.contains("gbif.installation: is not a UUID"), "{e}");
        std::fs::write(&file, "[gbif]\npassword = \"x\"\n").unwrap();
        assert!(Registration::from_file(&file).is_err());
        let json = dir.join("d.json");
        std::fs::write(&json, "{\"title\": \"T\"}").unwrap();
        assert_eq!(Registration::from_file(&json).unwrap(), None);
        assert_eq!(Registration::default().api(), PRODUCTION_API);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
