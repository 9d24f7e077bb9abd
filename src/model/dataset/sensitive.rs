//! The dataset file's `sensitive` rules: which taxa's collecting places are
//! generalised or withheld when a snapshot is written. Read apart from the
//! description (`Dataset` never holds them), so a snapshot stores only what
//! they made of the records, never the rules.
//!
//! ```toml
//! [[sensitive]]
//! taxon = "Nicrophorus americanus"   # a scientific name at any rank
//! coordinates = "0.1"                # "1", "0.1", "0.01", "0.001" or "withhold"
//! country = "United States"          # optional: only records there
//! state = "Ohio"                     # optional
//! ```

use std::path::Path;

use serde::Deserialize;

use super::check::DatasetError;
use super::file::read_bounded;
use crate::model::generalised::Treatment;

/// One rule as the file writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    #[serde(default)]
    taxon: String,
    #[serde(default)]
    coordinates: String,
    #[serde(default)]
    country: String,
    #[serde(default)]
    state: String,
}

/// The dataset file with only its `sensitive` rules read.
#[derive(Deserialize)]
struct Only {
    #[serde(default)]
    sensitive: Vec<Written>,
}

/// A rule: the records of a taxon (and of the taxa below it), where it says,
/// treated so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// A scientific name at any rank (`Nicrophorus americanus`, `Nicrophorus`).
    pub taxon: String,
    pub treatment: Treatment,
    /// Only records in this country (its name or abbreviation), where given.
    pub country: Option<String>,
    /// Only records in this state (its name or abbreviation), where given.
    pub state: Option<String>,
}

impl Rule {
    /// How an error names the rule: its place in the list and its taxon.
    pub fn named(&self, at: usize) -> String {
        format!("sensitive[{at}] ({})", self.taxon)
    }
}

/// The rules of a dataset file, in its order; none where it has none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sensitive {
    pub rules: Vec<Rule>,
}

impl Sensitive {
    /// Whether there is no rule: the snapshot is written as read.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// A fingerprint of the rules (empty where there are none): a kept
    /// version made under other rules is withdrawn when a version made under
    /// these is kept (`export::kept`).
    pub fn fingerprint(&self) -> String {
        if self.rules.is_empty() {
            return String::new();
        }
        let mut lines: Vec<String> = (self.rules.iter())
            .map(|r| {
                format!(
                    "{}\t{}\t{}\t{}",
                    r.taxon.to_lowercase(),
                    r.treatment.text(),
                    r.country.as_deref().unwrap_or_default(),
                    r.state.as_deref().unwrap_or_default()
                )
            })
            .collect();
        lines.sort();
        let digest = <sha2::Sha256 as sha2::Digest>::digest(lines.join("\n").as_bytes());
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The rules of the dataset file at `path` (TOML when its name ends
    /// `.toml`, JSON otherwise), each checked.
    pub fn from_file(path: &Path) -> Result<Sensitive, DatasetError> {
        let shown = path.display().to_string();
        let text = read_bounded(path).map_err(|cause| DatasetError::Read {
            path: shown.clone(),
            cause,
        })?;
        let toml = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
        Sensitive::parse(&text, toml, &shown)
    }

    /// The rules of a dataset file's text, `file` naming it in errors.
    pub fn parse(text: &str, toml: bool, file: &str) -> Result<Sensitive, DatasetError> {
        let parsed: Result<Only, String> = match toml {
            true => toml::from_str(text).map_err(|e| e.message().to_string()),
            false => serde_json::from_str(text).map_err(|e| e.to_string()),
        };
        let only = parsed.map_err(|cause| DatasetError::Syntax {
            path: file.to_string(),
            format: if toml { "TOML" } else { "JSON" },
            cause: format!(
                "sensitive: {}",
                cause.lines().next().unwrap_or_default().trim()
            ),
        })?;
        let mut rules = Vec::new();
        for (at, written) in only.sensitive.into_iter().enumerate() {
            let taxon = written
                .taxon
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let wrong = |problem: String| DatasetError::Value {
                place: format!("{file}: sensitive[{at}] ({taxon})"),
                problem,
            };
            if taxon.is_empty() {
                return Err(wrong(
                    "taxon is missing: a scientific name at any rank (\"Nicrophorus americanus\", \
                     \"Nicrophorus\")"
                        .into(),
                ));
            }
            let treatment = Treatment::parse(&written.coordinates).ok_or_else(|| {
                wrong(format!(
                    "coordinates {:?} is not one of \"1\", \"0.1\", \"0.01\", \"0.001\" (a grid in \
                     degrees) or \"withhold\"",
                    written.coordinates
                ))
            })?;
            let given = |s: String| Some(s.trim().to_string()).filter(|s| !s.is_empty());
            rules.push(Rule {
                taxon,
                treatment,
                country: given(written.country),
                state: given(written.state),
            });
        }
        Ok(Sensitive { rules })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::generalised::Grid;

    #[test]
    fn rules_read_from_toml_and_json_alike() {
        let toml = r#"
title = "T"
[[sensitive]]
taxon = "Nicrophorus  americanus"
coordinates = "0.1"
[[sensitive]]
taxon = "Cicindela"
coordinates = "withhold"
country = "United States"
"#;
        let json = r#"{"title": "T", "sensitive": [
            {"taxon": "Nicrophorus americanus", "coordinates": "0.1"},
            {"taxon": "Cicindela", "coordinates": "withhold", "country": "United States"}]}"#;
        let expected = Sensitive {
            rules: vec![
                Rule {
                    taxon: "Nicrophorus americanus".into(),
                    treatment: Treatment::Grid(Grid::Tenth),
                    country: None,
                    state: None,
                },
                Rule {
                    taxon: "Cicindela".into(),
                    treatment: Treatment::Withhold,
                    country: Some("United States".into()),
                    state: None,
                },
            ],
        };
        assert_eq!(Sensitive::parse(toml, true, "d.toml").unwrap(), expected);
        assert_eq!(Sensitive::parse(json, false, "d.json").unwrap(), expected);
        assert!(Sensitive::parse("title = \"T\"", true, "d.toml")
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_bad_rule_is_named() {
        let bad = r#"{"sensitive": [{"taxon": "A b", "coordinates": "0.1"},
                     {"taxon": "Carabus", "coordinates": "0.5"}]}"#;
        let e = Sensitive::parse(bad, false, "d.json")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "d.json: sensitive[1] (Carabus): coordinates \"0.5\" is not one of \"1\", \"0.1\", \
             \"0.01\", \"0.001\" (a grid in degrees) or \"withhold\""
        );
        let unnamed = "[[sensitive]]\ncoordinates = \"withhold\"\n";
        let e = Sensitive::parse(unnamed, true, "d.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("d.toml: sensitive[0] (): taxon is missing"),
            "{e}"
        );
        let unknown = "[[sensitive]]\ntaxon = \"A\"\ncoordinates = \"1\"\nrank = \"genus\"\n";
        let e = Sensitive::parse(unknown, true, "d.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("sensitive: unknown field `rank`"), "{e}");
    }

    #[test]
    fn the_description_reads_without_the_rules() {
        let dir = std::env::temp_dir().join(format!("sensitive-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.toml");
        std::fs::write(
            &path,
            "title = \"T\"\n[[sensitive]]\ntaxon = \"A\"\ncoordinates = \"1\"\n",
        )
        .unwrap();
        let dataset = super::super::Dataset::from_file(&path).unwrap();
        assert_eq!(dataset.title, "T");
        assert_eq!(Sensitive::from_file(&path).unwrap().rules.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
