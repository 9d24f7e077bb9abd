//! How every route treats the records a sensitive place's rule covers
//! (`model::generalised`): a route of [`super::ROUTES`] is named here by its
//! first path ([`name`]), or the table's test fails. A new route must say which of
//! [`Treats`] holds, and `tests/sensitive.rs` searches the routes that show
//! places for a covered specimen's precise values.

/// How a route keeps a covered record's precise place from the public.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Treats {
    /// It shows no place of a record (health, metrics, the documents of the
    /// API, assets, Wagtail's pages).
    NoPlace,
    /// It shows records, or what they count, as the snapshot holds them:
    /// the snapshot holds only the generalised records, so it follows.
    Snapshot,
    /// It serves files beside the snapshot made from it (kept versions'
    /// archives): made again, or refused, where a rule came later.
    KeptFiles,
    /// It serves media files: a covered record's photographs without their
    /// EXIF and XMP.
    MediaStripped,
    /// It serves photographs cut and encoded again from their pixels (IIIF's
    /// images: no EXIF or XMP is carried), and documents whose places are
    /// the snapshot's (a manifest's `navPlace`).
    Reencoded,
}

/// A route's name here: its first path, `{list}` and `{id}` for its
/// variable segments.
pub fn name(route: &crate::serve::route::Route) -> String {
    use crate::serve::routing::Seg;
    let Some(path) = route.routing.paths.first() else {
        return String::new();
    };
    let segs: Vec<&str> = (path.segs.iter())
        .map(|s| match s {
            Seg::Lit(l) => l,
            Seg::List => "{list}",
            Seg::Id => "{id}",
        })
        .collect();
    format!("/{}", segs.join("/"))
}

/// Every route's name ([`name`]), and how it treats sensitive records.
pub const SURFACES: &[(&str, Treats)] = &[
    ("/healthz", Treats::NoPlace),
    ("/readyz", Treats::NoPlace),
    ("/metrics", Treats::NoPlace),
    // The current version's archive and eml.xml: made from the snapshot
    // (or kept when it was written, from it).
    ("/dwca.zip", Treats::Snapshot),
    ("/eml.xml", Treats::NoPlace),
    ("/api/v2/openapi.json", Treats::NoPlace),
    ("/api/v2/docs", Treats::NoPlace),
    // The pages for people: a record's page, lists, maps, the front page.
    ("/", Treats::Snapshot),
    ("/api/v2", Treats::NoPlace),
    ("/static", Treats::NoPlace),
    ("/media", Treats::MediaStripped),
    ("/api/v2/images", Treats::Snapshot),
    ("/api/v2/images/{id}", Treats::Snapshot),
    ("/api/v2/pages", Treats::NoPlace),
    ("/api/v2/pages/find", Treats::NoPlace),
    ("/api/v2/pages/{id}", Treats::NoPlace),
    ("/api/v2/documents", Treats::NoPlace),
    ("/api/v2/documents/{id}", Treats::NoPlace),
    ("/api/v2/specimen-records/labels", Treats::Snapshot),
    ("/s/{id}", Treats::Snapshot),
    ("/api/v2/specimen-records/checklist", Treats::Snapshot),
    ("/api/v2/versions", Treats::NoPlace),
    ("/api/v2/changes", Treats::Snapshot),
    ("/api/v2/citation", Treats::NoPlace),
    ("/versions.atom", Treats::NoPlace),
    ("/versions.rss", Treats::NoPlace),
    ("/versions/{id}/dwca.zip", Treats::KeptFiles),
    ("/versions/{id}/eml.xml", Treats::KeptFiles),
    ("/api/v2/quality", Treats::Snapshot),
    ("/api/v2/publishing", Treats::Snapshot),
    ("/api/v2/suggest", Treats::Snapshot),
    ("/gbif/v1/species/suggest", Treats::NoPlace),
    ("/gbif/v1/occurrence/search/{id}", Treats::Snapshot),
    ("/gbif/v1/occurrence/search", Treats::Snapshot),
    ("/gbif/v1/occurrence/count", Treats::Snapshot),
    ("/gbif/v1/occurrence/{id}", Treats::Snapshot),
    ("/iiif", Treats::Reencoded),
    // The lists; the specimens' photographs as a zip (`format=zip`) go
    // without a covered record's embedded location, as `/media` serves them.
    ("/api/v2/{list}", Treats::Snapshot),
    ("/api/v2/{list}/{id}", Treats::Snapshot),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_says_how_it_treats_sensitive_records() {
        let missing: Vec<String> = (super::super::ROUTES.iter())
            .map(name)
            .filter(|m| !SURFACES.iter().any(|(s, _)| s == m))
            .collect();
        assert!(
            missing.is_empty(),
            "routes not in routes::sensitive::SURFACES: {missing:?}"
        );
        for (name, _) in SURFACES {
            assert!(
                super::super::ROUTES.iter().any(|r| super::name(r) == *name),
                "{name} is in SURFACES but names no route"
            );
        }
    }
}
