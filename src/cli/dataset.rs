//! `catalogue dataset init`: a dataset file to fill in, begun from the
//! collection itself.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;

use crate::export::dwca::coverage::Coverage;
use crate::model::dataset::Dataset;
use crate::model::Model;
use crate::snapshot;
use crate::view::View;

/// Writes a template for `--dataset-config` from the snapshot: the codes its
/// USIs begin with, a description and keywords from the orders it holds, a
/// fresh random UUID as the dataset's `id`, the occurrenceIDs' rule, the
/// snapshot's own description where it has one. The description says no count
/// and no date, which would go stale as records change (eml.xml's coverage and
/// `additionalInfo` say them at each export); the coverage is printed instead.
/// The keys left empty are what the publisher must write, as `build` then warns.
pub(super) fn init(snapshot_path: &Path, output: &Path) -> anyhow::Result<ExitCode> {
    let view = View::load(snapshot_path)?;
    let coverage = Coverage::of(&view, None);
    let mut d: Dataset = (*view.dataset).clone();
    let code = usi_prefix(&view);
    if d.institution_code.is_empty() {
        d.institution_code = code.clone();
    }
    if d.collection_code.is_empty() && !code.is_empty() {
        d.collection_code = "Insects".to_string();
    }
    let specimens = view.table(Model::SpecimenRecord).len();
    if d.description.is_empty() {
        d.description = describe(&coverage);
    }
    if d.keywords.is_empty() {
        d.keywords = ["insects", "specimens"]
            .iter()
            .map(|k| k.to_string())
            .chain(coverage.orders.iter().cloned())
            .collect();
    }
    if d.language.is_empty() {
        d.language = "en".to_string();
    }
    if d.update_frequency.is_empty() {
        d.update_frequency = "asNeeded".to_string();
    }
    // The rule the records' occurrenceIDs are made by, said rather than implied.
    if d.occurrence_id.is_empty() {
        d.occurrence_id = crate::model::occurrence_id::URN.to_string();
    }
    // The dataset's own identifier, once: a fresh random UUID.
    if d.id.is_empty() {
        d.id = crate::model::dataset::random_uuid()
            .context("cannot read the system's random source for the dataset's id")?;
    }
    let toml = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let text = match toml {
        true => toml::to_string(&d).context("cannot write the template as TOML")?,
        false => serde_json::to_string_pretty(&d).context("cannot write the template")? + "\n",
    };
    snapshot::write_atomically(output, text.as_bytes())
        .with_context(|| format!("cannot write {}", output.display()))?;
    say!("wrote {}", output.display())?;
    say!("coverage of the {specimens} specimen records:")?;
    match coverage.bounds {
        Some([w, e, n, s]) => say!("  box: west {w}, east {e}, north {n}, south {s}"),
        None => say!("  box: no record has a point"),
    }?;
    match coverage.dates {
        Some((first, last)) => say!("  collected: {first} to {last}"),
        None => say!("  collected: no record has a year"),
    }?;
    say!("  orders: {}", coverage.orders.join(", "))?;
    say!("  families: {}", coverage.families.join(", "))?;
    let missing: Vec<&str> = d.missing().iter().map(|(key, _)| *key).collect();
    if !missing.is_empty() {
        say!("to fill in: {}", missing.join(", "))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The letters most USIs begin with (`UMMZ` of `UMMZ-000001`): a guess at the
/// institution's code.
fn usi_prefix(view: &View) -> String {
    let usi = Model::SpecimenRecord.field_index("usi").expect("usi");
    let specimens = view.table(Model::SpecimenRecord);
    let mut counts: ahash::AHashMap<&str, usize> = ahash::AHashMap::new();
    for pos in 0..specimens.len() {
        let Some(text) = specimens.get(pos, usi).as_str() else {
            continue;
        };
        let prefix = text
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("");
        if !prefix.is_empty() {
            *counts.entry(prefix).or_default() += 1;
        }
    }
    let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    counts
        .first()
        .map_or_else(String::new, |(p, _)| p.to_string())
}

/// A first description, from the orders the records hold: no count, no date.
fn describe(c: &Coverage) -> String {
    match c.orders.is_empty() {
        true => "Insect specimen records.".to_string(),
        false => format!(
            "Insect specimen records of the orders {}.",
            c.orders.join(", ")
        ),
    }
}
