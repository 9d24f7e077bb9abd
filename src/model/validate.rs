//! Checks a whole collection: what stops a build (errors) and what the existing
//! service tolerated (warnings). Every problem reads `model pk=N field: what is wrong`.

use std::fmt;

use ahash::AHashMap;

use super::derived;
use super::records::{Collection, Edited};
use super::schema::Model;
use super::schema::RENDITIONS;
use super::vocabulary::{METHODS, MONTHS, PREPARATIONS, SEXES, STAGES};

/// One problem, located as precisely as the input allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// `model pk=N field`, or a file and object number when there is no pk.
    pub place: String,
    pub message: String,
    /// The record the problem is about, where one is: what holding back
    /// keeps as it was.
    pub record: Option<(Model, i64)>,
    /// The other record involved: the missing target of a reference, the
    /// first holder of a duplicate identifier, the record featuring an
    /// image already.
    pub other: Option<(Model, i64)>,
}

impl Problem {
    /// A problem of no one record (a file, an object without a pk).
    pub fn new(place: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            place: place.into(),
            message: message.into(),
            record: None,
            other: None,
        }
    }

    pub fn at(model: Model, pk: i64, field: &str, message: impl Into<String>) -> Problem {
        Problem {
            place: format!("{} pk={pk} {field}", model.label()),
            message: message.into(),
            record: Some((model, pk)),
            other: None,
        }
    }

    /// The same problem naming the other record involved.
    pub fn with_other(self, model: Model, id: i64) -> Problem {
        Problem {
            other: Some((model, id)),
            ..self
        }
    }

    /// The field the problem is in: the place after its record's
    /// `model pk=N `, where it has a record; else the whole place.
    pub fn field(&self) -> &str {
        let Some((model, id)) = self.record else {
            return &self.place;
        };
        let prefix = format!("{} pk={id} ", model.label());
        self.place.strip_prefix(&prefix).unwrap_or(&self.place)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

/// What a check found.
#[derive(Debug, Default)]
pub struct Report {
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

/// Positions by id, for each model; also finds duplicate ids.
struct Ids {
    maps: Vec<std::cell::OnceCell<AHashMap<i64, usize>>>,
}

impl Ids {
    /// Every stored model's, each duplicate id an error.
    fn new(c: &Collection, report: &mut Report) -> Ids {
        let maps = vec![std::cell::OnceCell::new(); Model::ALL.len()];
        for model in Model::ALL.into_iter().filter(|m| m.stored()) {
            let ids = c.ids(model);
            let mut map = AHashMap::with_capacity(ids.len());
            for (pos, id) in ids.into_iter().enumerate() {
                if map.insert(id, pos).is_some() {
                    report.errors.push(Problem::at(
                        model,
                        id,
                        "pk",
                        "duplicate pk: another record of this model has it",
                    ));
                }
            }
            let _ = maps[model.index()].set(map);
        }
        Ids { maps }
    }

    /// Each model's made when first asked, of a collection whose ids are
    /// known to be unique.
    fn unique() -> Ids {
        Ids {
            maps: vec![std::cell::OnceCell::new(); Model::ALL.len()],
        }
    }

    fn get(&self, c: &Collection, model: Model, id: i64) -> Option<usize> {
        let map = self.maps[model.index()].get_or_init(|| {
            let ids = c.ids(model);
            ids.into_iter()
                .enumerate()
                .map(|(pos, id)| (id, pos))
                .collect()
        });
        map.get(&id).copied()
    }
}

struct Checker<'c> {
    ids: Ids,
    report: Report,
    c: &'c Collection,
}

impl Checker<'_> {
    fn reference(&mut self, model: Model, pk: i64, field: &str, target: Model, id: Option<i64>) {
        if let Some(id) = id {
            if self.ids.get(self.c, target, id).is_none() {
                self.report.errors.push(
                    Problem::at(
                        model,
                        pk,
                        field,
                        format!("refers to {} pk={id}, which does not exist", target.label()),
                    )
                    .with_other(target, id),
                );
            }
        }
    }

    fn warn(&mut self, model: Model, pk: i64, field: &str, message: String) {
        self.report
            .warnings
            .push(Problem::at(model, pk, field, message));
    }

    fn parent_of(&self, model: Model, id: i64) -> Option<i64> {
        let pos = self.ids.get(self.c, model, id)?;
        let c = self.c;
        match model {
            Model::Family => c.families[pos].parent,
            Model::Subfamily => c.subfamilies[pos].parent,
            Model::Tribe => c.tribes[pos].parent,
            Model::Genus => c.genera[pos].parent,
            Model::Species => Some(c.species[pos].parent),
            Model::Subspecies => Some(c.subspecies[pos].parent),
            Model::State => Some(c.states[pos].country),
            Model::County => Some(c.counties[pos].state),
            _ => None,
        }
    }

    /// Warns when a specimen's `child` is set, its `parent` is set, and they disagree.
    fn consistent(
        &mut self,
        pk: i64,
        child: (Model, &str, Option<i64>),
        parent: (&str, Option<i64>),
    ) {
        let (Some(c), Some(p)) = (child.2, parent.1) else {
            return;
        };
        match self.parent_of(child.0, c) {
            Some(actual) if actual != p => self.warn(
                Model::SpecimenRecord,
                pk,
                child.1,
                format!(
                    "{} pk={c} belongs to {} pk={actual}, not to the specimen's {} pk={p}",
                    child.0.label(),
                    parent.0,
                    parent.0
                ),
            ),
            _ => {}
        }
    }
}

fn choice(value: &str, allowed: &[&str]) -> Option<String> {
    (!allowed.contains(&value)).then(|| {
        format!(
            "{value:?} is not one of the choices ({})",
            allowed.join(", ")
        )
    })
}

/// Checks references, duplicates and the rules of each model.
pub fn check(c: &Collection) -> Report {
    let mut report = Report::default();
    let ids = Ids::new(c, &mut report);
    let mut k = Checker { ids, report, c };
    let ranks = [
        (Model::Family, &c.families, "order", Model::Order),
        (Model::Subfamily, &c.subfamilies, "family", Model::Family),
        (Model::Tribe, &c.tribes, "subfamily", Model::Subfamily),
        (Model::Genus, &c.genera, "tribe", Model::Tribe),
    ];
    for (model, records, field, target) in ranks {
        for r in records {
            if r.parent.is_none() {
                k.report
                    .errors
                    .push(Problem::at(model, r.id, field, "is required"));
            }
            k.reference(model, r.id, field, target, r.parent);
        }
    }
    featured(&mut k, c);
    for r in &c.species {
        k.reference(Model::Species, r.id, "genus", Model::Genus, Some(r.parent));
    }
    for r in &c.subspecies {
        k.reference(
            Model::Subspecies,
            r.id,
            "species",
            Model::Species,
            Some(r.parent),
        );
    }
    for r in &c.states {
        k.reference(
            Model::State,
            r.id,
            "country",
            Model::Country,
            Some(r.country),
        );
    }
    for r in &c.counties {
        k.reference(Model::County, r.id, "state", Model::State, Some(r.state));
    }
    for r in &c.localities {
        let set = [r.country.is_some(), r.state.is_some(), r.county.is_some()]
            .iter()
            .filter(|x| **x)
            .count();
        if set != 1 {
            k.report.errors.push(Problem::at(
                Model::Locality,
                r.id,
                "country/state/county",
                format!(
                    "a locality needs exactly one of country, state, county; this one has {set}"
                ),
            ));
        }
        k.reference(Model::Locality, r.id, "country", Model::Country, r.country);
        k.reference(Model::Locality, r.id, "state", Model::State, r.state);
        k.reference(Model::Locality, r.id, "county", Model::County, r.county);
    }
    for r in &c.gps {
        k.reference(
            Model::Gps,
            r.id,
            "locality",
            Model::Locality,
            Some(r.locality),
        );
    }
    for r in &c.collecting_trips {
        for &s in &r.states {
            k.reference(Model::CollectingTrip, r.id, "states", Model::State, Some(s));
        }
    }
    for r in &c.specimen_records {
        specimen(&mut k, r);
    }
    unique_usi(&mut k, c);
    images_and_pages(&mut k, c);
    k.report
}

/// The errors of `c` where it was made from a collection whose errors were
/// all of the records `edited` names, by replacing those records, each id
/// still its own: the problems the whole [`check`] finds of those records
/// and of the rules that read across them (a usi shared), in its order.
/// `None` where this cannot tell (an edited record of another model than
/// specimens, whose rules read across tables, or one not there). Warnings
/// are not looked for.
pub fn edit_problems(c: &Collection, edited: &Edited) -> Option<Vec<Problem>> {
    if edited.iter().any(|(m, _)| *m != Model::SpecimenRecord) {
        return None;
    }
    let mut ids: Vec<i64> = edited.iter().flat_map(|(_, ids)| ids).copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut k = Checker {
        ids: Ids::unique(),
        report: Report::default(),
        c,
    };
    // In the whole check's order: each specimen's own rules in id order,
    // then the usis shared, as [`unique_usi`] finds them.
    let mut usis: AHashMap<&str, Option<i64>> = AHashMap::new();
    for id in ids {
        let at = c
            .specimen_records
            .binary_search_by_key(&id, |r| r.id)
            .ok()?;
        let r = &c.specimen_records[at];
        specimen(&mut k, r);
        usis.insert(&r.usi, None);
    }
    for r in &c.specimen_records {
        let Some(first) = usis.get_mut(r.usi.as_str()) else {
            continue;
        };
        match *first {
            None => *first = Some(r.id),
            Some(first) => k.report.errors.push(usi_taken(r, first)),
        }
    }
    Some(k.report.errors)
}

/// The image an order, family or species features exists, and each image is
/// featured by one record of each of those tables at most (the service's
/// database holds the link as a unique column).
fn featured(k: &mut Checker, c: &Collection) {
    let ranks = [(Model::Order, &c.orders), (Model::Family, &c.families)];
    let species = c.species.iter().map(|r| (r.id, r.featured_image));
    let tables = ranks
        .into_iter()
        .map(|(m, v)| {
            (
                m,
                v.iter()
                    .map(|r| (r.id, r.featured_image))
                    .collect::<Vec<_>>(),
            )
        })
        .chain(std::iter::once((Model::Species, species.collect())));
    for (model, links) in tables {
        let mut by_image: AHashMap<i64, i64> = AHashMap::new();
        for (id, image) in links {
            k.reference(model, id, "featured_image", Model::Image, image);
            let Some(image) = image else { continue };
            if let Some(other) = by_image.insert(image, id) {
                k.report.errors.push(
                    Problem::at(
                        model,
                        id,
                        "featured_image",
                        format!(
                            "images.customimage pk={image} is featured by {} pk={other} already",
                            model.label()
                        ),
                    )
                    .with_other(model, other),
                );
            }
        }
    }
}

/// Two specimens with one `usi` are an error naming both (the service's
/// database holds it unique since 0.16; labels and QR codes depend on it).
fn unique_usi(k: &mut Checker, c: &Collection) {
    let mut seen: AHashMap<&str, i64> = AHashMap::with_capacity(c.specimen_records.len());
    for r in &c.specimen_records {
        if let Some(first) = seen.insert(&r.usi, r.id) {
            seen.insert(&r.usi, first);
            k.report.errors.push(usi_taken(r, first));
        }
    }
}

/// Specimen `r`'s usi is specimen `first`'s too.
fn usi_taken(r: &crate::model::records::SpecimenRecord, first: i64) -> Problem {
    Problem::at(
        Model::SpecimenRecord,
        r.id,
        "usi",
        format!(
            "{:?} is the usi of specimens.specimenrecord pk={first} too",
            r.usi
        ),
    )
    .with_other(Model::SpecimenRecord, first)
}

/// The kinds an image can be.
pub const IMAGE_TYPES: &[&str] = &["specimen", "insect", "plant", "habitat"];

/// Images and species pages: an image is of a known kind and every reference
/// resolves, a species page extends a page. An image without one of the six
/// renditions is a warning: its items show null there.
fn images_and_pages(k: &mut Checker, c: &Collection) {
    use Model::*;
    for r in &c.images {
        if !IMAGE_TYPES.contains(&r.image_type.as_str()) {
            k.report.errors.push(Problem::at(
                Image,
                r.id,
                "image_type",
                format!(
                    "{:?} is not one of the kinds ({})",
                    r.image_type,
                    IMAGE_TYPES.join(", ")
                ),
            ));
        }
        for (field, target, id) in [
            ("country", Country, r.country),
            ("state", State, r.state),
            ("county", County, r.county),
            ("locality", Locality, r.locality),
            ("gps", Gps, r.gps),
            ("collecting_trip", CollectingTrip, r.collecting_trip),
            ("specimen_record", SpecimenRecord, r.specimen_record),
            ("species", Species, r.species),
            ("species_page", SpeciesPage, r.species_page),
        ] {
            k.reference(Image, r.id, field, target, id);
        }
        for (field, pages) in [
            ("plant_species_page", &r.plant_species_page),
            ("habitat_species_page", &r.habitat_species_page),
        ] {
            for &page in pages {
                k.reference(Image, r.id, field, SpeciesPage, Some(page));
            }
        }
    }
    for r in &c.renditions {
        k.reference(Rendition, r.id, "image", Image, Some(r.image));
    }
    for r in &c.species_pages {
        if k.ids.get(c, Page, r.id).is_none() {
            k.report.errors.push(
                Problem::at(
                    SpeciesPage,
                    r.id,
                    "pk",
                    format!("extends {} pk={}, which does not exist", Page.label(), r.id),
                )
                .with_other(Page, r.id),
            );
        }
        k.reference(SpeciesPage, r.id, "species", Species, r.species);
    }
    let mut made: AHashMap<i64, Vec<&str>> = AHashMap::new();
    for r in &c.renditions {
        made.entry(r.image).or_default().push(&r.filter_spec);
    }
    for id in c.ids(Image) {
        let specs = made.get(&id).map(Vec::as_slice).unwrap_or_default();
        for (key, spec) in RENDITIONS {
            if !specs.contains(&spec) {
                k.warn(
                    Image,
                    id,
                    key,
                    format!("the image has no {spec} rendition: its {key} is null"),
                );
            }
        }
    }
}

fn specimen(k: &mut Checker, r: &crate::model::records::SpecimenRecord) {
    use Model::*;
    let pk = r.id;
    let refs = [
        ("order", Order, r.order),
        ("family", Family, r.family),
        ("subfamily", Subfamily, r.subfamily),
        ("tribe", Tribe, r.tribe),
        ("genus", Genus, r.genus),
        ("species", Species, r.species),
        ("subspecies", Subspecies, r.subspecies),
        ("determiner", Person, r.determiner),
        ("preparer", Person, r.preparer),
        ("collecting_trip", CollectingTrip, r.collecting_trip),
        ("country", Country, r.country),
        ("state", State, r.state),
        ("county", County, r.county),
        ("locality", Locality, r.locality),
        ("gps", Gps, r.gps),
    ];
    for (field, target, id) in refs {
        k.reference(SpecimenRecord, pk, field, target, id);
    }
    for &p in &r.collector {
        k.reference(SpecimenRecord, pk, "collector", Person, Some(p));
    }
    if let Err(e) = derived::parse_temperature(&r.temperature) {
        k.report
            .errors
            .push(Problem::at(SpecimenRecord, pk, "temperature", e));
    }
    // What the existing service let through: warnings.
    if !usi_is_well_formed(&r.usi) {
        k.warn(
            SpecimenRecord,
            pk,
            "usi",
            format!("{:?} is not of the form <prefix>-<six digits>", r.usi),
        );
    }
    k.consistent(pk, (Family, "family", r.family), ("order", r.order));
    k.consistent(
        pk,
        (Subfamily, "subfamily", r.subfamily),
        ("family", r.family),
    );
    k.consistent(pk, (Tribe, "tribe", r.tribe), ("subfamily", r.subfamily));
    k.consistent(pk, (Genus, "genus", r.genus), ("tribe", r.tribe));
    k.consistent(pk, (Species, "species", r.species), ("genus", r.genus));
    k.consistent(
        pk,
        (Subspecies, "subspecies", r.subspecies),
        ("species", r.species),
    );
    k.consistent(pk, (State, "state", r.state), ("country", r.country));
    k.consistent(pk, (County, "county", r.county), ("state", r.state));
    if r.day.is_some_and(|d| d != 0) && r.month.is_empty() {
        k.warn(
            SpecimenRecord,
            pk,
            "day",
            "a day without a month: dates print the year only".into(),
        );
    }
    if r.day.is_some_and(|d| d > 31) {
        k.warn(
            SpecimenRecord,
            pk,
            "day",
            format!("{} is not a day of a month", r.day.unwrap_or(0)),
        );
    }
    let months: Vec<&str> = std::iter::once("").chain(MONTHS).collect();
    let choices = [
        ("sex", r.sex.as_str(), SEXES),
        ("stage", &r.stage, STAGES),
        ("preparation", &r.preparation, PREPARATIONS),
        ("month", &r.month, &months),
        ("method", &r.method, METHODS),
    ];
    for (field, value, allowed) in choices {
        if let Some(m) = choice(value, allowed) {
            k.warn(SpecimenRecord, pk, field, m);
        }
    }
}

/// `<prefix>-<six digits>`, the form of a unique specimen identifier.
pub fn usi_is_well_formed(usi: &str) -> bool {
    match usi.rsplit_once('-') {
        Some((prefix, digits)) => {
            !prefix.is_empty() && digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_name_their_records() {
        use crate::model::records::{Country, State};
        let mut c = Collection::default();
        c.countries.push(Country::numbered(1, "A"));
        let state = |id, country| State {
            id,
            date_created: 0,
            date_modified: 0,
            name: format!("S{id}"),
            abbr: String::new(),
            country,
        };
        c.states.push(state(2, 1));
        c.states.push(state(3, 9));
        let errors = check(&c).errors;
        assert_eq!(errors.len(), 1);
        let p = &errors[0];
        assert_eq!(
            p.to_string(),
            "geography.state pk=3 country: refers to geography.country pk=9, which does not exist"
        );
        assert_eq!(p.record, Some((Model::State, 3)));
        assert_eq!(p.other, Some((Model::Country, 9)));
        assert_eq!(p.field(), "country");
        assert_eq!(Problem::new("a.json", "x").field(), "a.json");
    }

    #[test]
    fn usi_form() {
        assert!(usi_is_well_formed("MEM-000001"));
        assert!(usi_is_well_formed("A-B-123456"));
        assert!(!usi_is_well_formed("MEM-00001"));
        assert!(!usi_is_well_formed("MEM000001"));
        assert!(!usi_is_well_formed("-000001"));
        assert!(!usi_is_well_formed("MEM-00000a"));
    }
}
