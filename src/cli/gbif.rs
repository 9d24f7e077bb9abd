//! `catalogue gbif register`: the dataset registered with GBIF (or updated),
//! its endpoints the archive and the metadata at the public URL, through
//! GBIF's registry (`export::registry`), with the keys of the dataset file's
//! `gbif` table. The crawl asked after each version is `export::publication::crawl`.

use std::process::ExitCode;

use anyhow::Context as _;

use crate::export::registry::{self, Credentials, Registry};
use crate::model::dataset::Dataset;
use crate::model::registration::Registration;
use crate::snapshot;

use super::args::RegisterArgs;

/// Registers the dataset (or updates it, where `gbif.dataset` is set) and
/// makes its endpoints the archive and the metadata at the public URL.
pub(super) fn register(args: &RegisterArgs) -> anyhow::Result<ExitCode> {
    let file = args.dataset_config.as_path();
    let dataset = Dataset::from_file(file)?;
    let registration = Registration::from_file(file)?.unwrap_or_default();
    let lacking = registration.lacking();
    if !lacking.is_empty() {
        anyhow::bail!(
            "{}: the `gbif` table lacks {}: the publishing organisation's key (its page on \
             GBIF.org, https://www.gbif.org/publisher/<key>) and the installation's \
             (GBIF's helpdesk gives it), as [gbif] publishing_organization = \"...\" and \
             installation = \"...\" (docs/gbif-registration.md)",
            file.display(),
            lacking.join(" and ")
        );
    }
    if dataset.licence().is_none() {
        anyhow::bail!(
            "{}: no licence: GBIF registers a dataset under CC0-1.0, CC-BY-4.0 or \
             CC-BY-NC-4.0 only; write one as `license`",
            file.display()
        );
    }
    // The snapshot must be one: what is registered is what is served.
    snapshot::peek(&args.snapshot).with_context(|| {
        format!(
            "cannot read the snapshot {} (--snapshot, CATALOGUE_SNAPSHOT)",
            args.snapshot.display()
        )
    })?;
    let credentials = Credentials::from_env()?;
    let api = registration.api();
    let gbif = Registry::new(&api, credentials);
    let site = args.public_url.as_str().trim_end_matches('/').to_string();
    let endpoints = [
        (registry::DWC_ARCHIVE, format!("{site}/dwca.zip")),
        (registry::EML, format!("{site}/eml.xml")),
    ];
    let key = match registration.dataset.as_str() {
        "" => {
            let body = registry::dataset_body(&dataset, &registration, None);
            let key = gbif.create_dataset(&body)?;
            say!("registered the dataset with {api}: its key is {key}")?;
            key
        }
        key => {
            let body = registry::dataset_body(&dataset, &registration, Some(key));
            gbif.update_dataset(key, &body)?;
            say!("updated the dataset {key} in {api}")?;
            key.to_string()
        }
    };
    for done in gbif.set_endpoints(&key, &endpoints)? {
        say!("{done}")?;
    }
    if registration.dataset.is_empty() {
        say!(
            "write its key in {}'s `gbif` table (dataset = \"{key}\"): `build --previous` \
             and `sync` then ask GBIF to crawl each version they publish, and `gbif register` \
             updates the dataset rather than registering another",
            file.display()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
