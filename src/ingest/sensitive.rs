//! Sensitive places generalised when a snapshot is written (`build`, `build
//! --from-db`, `sync`): the dataset file's `sensitive` rules applied to a
//! checked collection, so the snapshot never holds what they hide.
//!
//! A record a rule covers (a specimen whose taxon, or any taxon above it, the
//! rule names, and where it limits them, in its country or state; an image of
//! such a specimen, or of such a species) is made to refer to generalised
//! records instead of its own ([`crate::model::generalised`]): for a grid, a
//! `gps` record at the centre of the point's cell, without elevation, and a
//! `locality` record with the country, state and county alone; for
//! `withhold`, no `gps`, no county, and a `locality` record with the country
//! and state alone. Every covered record refers to a generalised locality, so
//! what reads the snapshot tells it covered by that id. The precise `gps` and
//! `locality` records only covered records referred to are dropped. Records
//! no rule covers are left as they were, byte for byte.

use std::collections::BTreeMap;

use ahash::{AHashMap as HashMap, AHashSet as HashSet};

use sha2::Digest as _;

use crate::model::dataset::{Rule, Sensitive};
use crate::model::generalised::{Grid, Treatment};
use crate::model::records::{Collection, Country, County, Gps, Locality, State};

/// A rule that cannot be applied to the collection.
#[derive(Debug, thiserror::Error)]
#[error("the dataset file's {rule}: {problem}")]
pub struct RuleError {
    /// The rule, as [`Rule::named`] says it.
    pub rule: String,
    pub problem: String,
}

/// What the rules did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generalised {
    /// The specimens covered.
    pub specimens: usize,
    /// The images covered.
    pub images: usize,
    /// The precise `gps` and `locality` records dropped.
    pub dropped: usize,
}

impl std::fmt::Display for Generalised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sensitive places: {} specimen record(s) and {} image(s) generalised, {} precise \
             place record(s) left out",
            self.specimens, self.images, self.dropped
        )
    }
}

/// The most rules a dataset file gives (a bit each in a taxon's mask).
const MOST_RULES: usize = 64;

/// A taxon: its rank's place in `Model::RANKS` (subspecies 0 .. order 6) and id.
type Taxon = (usize, i64);

/// The collection's taxa: each one's parent, and the taxa a name names.
struct Taxa {
    parent: HashMap<Taxon, i64>,
    named: HashMap<String, Vec<Taxon>>,
    all: Vec<Taxon>,
}

fn folded(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl Taxa {
    fn of(c: &Collection) -> Taxa {
        let mut parent = HashMap::new();
        let mut named: HashMap<String, Vec<Taxon>> = HashMap::new();
        let ranks = [
            (6, &c.orders),
            (5, &c.families),
            (4, &c.subfamilies),
            (3, &c.tribes),
            (2, &c.genera),
        ];
        for (r, records) in ranks {
            for t in records.iter() {
                if let Some(p) = t.parent {
                    parent.insert((r, t.id), p);
                }
                named.entry(folded(&t.name)).or_default().push((r, t.id));
            }
        }
        let genus: HashMap<i64, &str> = c.genera.iter().map(|g| (g.id, &g.name[..])).collect();
        let mut binomials = HashMap::new();
        for s in &c.species {
            parent.insert((1, s.id), s.parent);
            let binomial = format!("{} {}", genus.get(&s.parent).unwrap_or(&""), s.name);
            named.entry(folded(&binomial)).or_default().push((1, s.id));
            binomials.insert(s.id, binomial);
        }
        for s in &c.subspecies {
            parent.insert((0, s.id), s.parent);
            let species = binomials.get(&s.parent).map_or("", String::as_str);
            let trinomial = format!("{species} {}", s.name);
            named.entry(folded(&trinomial)).or_default().push((0, s.id));
        }
        let all = named.values().flatten().copied().collect();
        Taxa { parent, named, all }
    }

    /// Each taxon's rules (a bit each, by their place in `ready`): those
    /// naming it or a taxon above it. A taxon no rule covers is absent.
    fn masks(&self, ready: &[Ready]) -> HashMap<Taxon, u64> {
        let mut masks = HashMap::new();
        for &taxon in &self.all {
            let mask = (ready.iter().enumerate())
                .filter(|(_, r)| self.under(taxon, &r.named))
                .fold(0u64, |m, (i, _)| m | 1 << i);
            if mask != 0 {
                masks.insert(taxon, mask);
            }
        }
        masks
    }

    /// Whether `taxon` or a taxon above it is one of `named`.
    fn under(&self, mut taxon: Taxon, named: &HashSet<Taxon>) -> bool {
        loop {
            if named.contains(&taxon) {
                return true;
            }
            match (taxon.0 < 6).then(|| self.parent.get(&taxon)).flatten() {
                Some(&p) => taxon = (taxon.0 + 1, p),
                None => return false,
            }
        }
    }
}

/// A rule made ready: the taxa it names, its place limits and treatment.
struct Ready<'r> {
    rule: &'r Rule,
    named: HashSet<Taxon>,
}

/// The names of the collection's countries and states, folded, by id, and
/// its localities and points.
struct Regions<'c> {
    country: HashMap<i64, [String; 2]>,
    state: HashMap<i64, ([String; 2], i64)>,
    county_state: HashMap<i64, i64>,
    locality: HashMap<i64, &'c Locality>,
    gps: HashMap<i64, &'c Gps>,
}

impl<'c> Regions<'c> {
    fn of(
        countries: &[Country],
        states: &[State],
        counties: &[County],
        localities: &'c [Locality],
        gps: &'c [Gps],
    ) -> Regions<'c> {
        Regions {
            country: (countries.iter())
                .map(|x| (x.id, [folded(&x.name), folded(&x.abbr)]))
                .collect(),
            state: (states.iter())
                .map(|x| (x.id, ([folded(&x.name), folded(&x.abbr)], x.country)))
                .collect(),
            county_state: counties.iter().map(|x| (x.id, x.state)).collect(),
            locality: localities.iter().map(|l| (l.id, l)).collect(),
            gps: gps.iter().map(|g| (g.id, g)).collect(),
        }
    }
}

/// The place fields a specimen and an image share.
struct Place<'a> {
    country: &'a mut Option<i64>,
    state: &'a mut Option<i64>,
    county: &'a mut Option<i64>,
    locality: &'a mut Option<i64>,
    gps: &'a mut Option<i64>,
}

impl Place<'_> {
    /// The locality the record says, else its point's.
    fn locality<'r>(&self, regions: &Regions<'r>) -> Option<&'r Locality> {
        (self
            .locality
            .and_then(|l| regions.locality.get(&l).copied()))
        .or_else(|| {
            (self.gps.and_then(|g| regions.gps.get(&g)))
                .and_then(|g| regions.locality.get(&g.locality).copied())
        })
    }

    /// The record's state and country, each its own, else the county's,
    /// state's or locality's it lies in.
    fn regions(&self, regions: &Regions) -> (Option<i64>, Option<i64>) {
        let locality = self.locality(regions);
        let state = (*self.state)
            .or_else(|| {
                self.county
                    .and_then(|c| regions.county_state.get(&c).copied())
            })
            .or_else(|| locality.and_then(|l| l.state));
        let country = (*self.country)
            .or_else(|| state.and_then(|s| regions.state.get(&s).map(|s| s.1)))
            .or_else(|| locality.and_then(|l| l.country));
        (state, country)
    }

    /// Whether the record lies where `rule` limits itself to.
    fn within(&self, rule: &Rule, regions: &Regions) -> bool {
        let (state, country) = self.regions(regions);
        let names = |names: Option<&[String; 2]>, wanted: &str| {
            let wanted = folded(wanted);
            names.is_some_and(|n| n.contains(&wanted))
        };
        let country_ok = rule
            .country
            .as_deref()
            .is_none_or(|wanted| names(country.and_then(|c| regions.country.get(&c)), wanted));
        let state_ok = rule.state.as_deref().is_none_or(|wanted| {
            names(
                state.and_then(|s| regions.state.get(&s)).map(|s| &s.0),
                wanted,
            )
        });
        country_ok && state_ok
    }
}

/// The strictest treatment of the rules covering a record of these taxa there.
fn treatment(ready: &[Ready], mask: u64, place: &Place, regions: &Regions) -> Option<Treatment> {
    if mask == 0 {
        return None;
    }
    (ready.iter().enumerate())
        .filter(|(i, _)| mask & 1 << i != 0)
        .map(|(_, r)| r)
        .filter(|r| place.within(r.rule, regions))
        .map(|r| r.rule.treatment)
        .max_by_key(|t| t.strictness())
}

/// A generalised locality: its treatment and the regions it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct LocalityKey {
    kind: u32,
    country: Option<i64>,
    state: Option<i64>,
    county: Option<i64>,
}

/// A generalised point: its grid, cell and locality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct GpsKey {
    grid: Grid,
    cell: (i64, i64),
    locality: LocalityKey,
}

fn kind(t: Treatment) -> u32 {
    match t {
        Treatment::Grid(g) => g.decimals(),
        Treatment::Withhold => 4,
    }
}

fn treatment_of(kind: u32) -> Treatment {
    match kind {
        4 => Treatment::Withhold,
        k => Treatment::Grid(Grid::ALL[k as usize]),
    }
}

fn hash(key: &str) -> u64 {
    let d = sha2::Sha256::digest(key.as_bytes());
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

/// What a covered record refers to instead of its own place.
struct Plan {
    locality: LocalityKey,
    gps: Option<GpsKey>,
    /// The record's own stamps, which the generalised records take.
    stamps: (i64, i64),
}

/// What a covered record is made to refer to, from its own place.
fn plan(t: Treatment, place: &Place, regions: &Regions, stamps: (i64, i64)) -> Plan {
    let (state, country) = place.regions(regions);
    let locality = place.locality(regions);
    let county = (*place.county).or_else(|| locality.and_then(|l| l.county));
    let key = LocalityKey {
        kind: kind(t),
        country,
        state,
        county: matches!(t, Treatment::Grid(_)).then_some(county).flatten(),
    };
    let gps = match t {
        Treatment::Withhold => None,
        Treatment::Grid(grid) => place.gps.and_then(|g| regions.gps.get(&g)).and_then(|g| {
            let number = |s: &Option<String>| s.as_deref()?.trim().parse::<f64>().ok();
            let (lat, lon) = (number(&g.latitude)?, number(&g.longitude)?);
            Some(GpsKey {
                grid,
                cell: (grid.cell(lat, 90.0), grid.cell(lon, 180.0)),
                locality: key,
            })
        }),
    };
    Plan {
        locality: key,
        gps,
        stamps,
    }
}

/// Applies `sensitive`'s rules to a checked collection. A rule naming no
/// taxon of the collection is an error: a misspelt name would publish what
/// it was meant to hide.
pub fn apply(c: &mut Collection, sensitive: &Sensitive) -> Result<Generalised, RuleError> {
    if sensitive.is_empty() {
        return Ok(Generalised::default());
    }
    let taxa = Taxa::of(c);
    let mut ready = Vec::new();
    if let Some(rule) = sensitive.rules.get(MOST_RULES) {
        return Err(RuleError {
            rule: rule.named(MOST_RULES),
            problem: format!("a dataset file gives at most {MOST_RULES} sensitive rules"),
        });
    }
    for (at, rule) in sensitive.rules.iter().enumerate() {
        let Some(named) = taxa.named.get(&folded(&rule.taxon)) else {
            return Err(RuleError {
                rule: rule.named(at),
                problem: "no taxon of the collection has this scientific name (an order, \
                          family, subfamily, tribe or genus by its name, a species by its \
                          binomial, a subspecies by its trinomial)"
                    .into(),
            });
        };
        ready.push(Ready {
            rule,
            named: named.iter().copied().collect(),
        });
    }
    let masks = taxa.masks(&ready);
    let mask_of = |taxa: &[Option<i64>]| {
        (taxa.iter().enumerate())
            .filter_map(|(r, t)| t.and_then(|t| masks.get(&(r, t))))
            .fold(0, |m, t| m | t)
    };
    let regions = Regions::of(&c.countries, &c.states, &c.counties, &c.localities, &c.gps);
    let mut plans: HashMap<(bool, i64), Plan> = HashMap::new();
    let mut covered_specimens: HashMap<i64, Treatment> = HashMap::new();
    for s in &mut c.specimen_records {
        let mask = mask_of(&[
            s.subspecies,
            s.species,
            s.genus,
            s.tribe,
            s.subfamily,
            s.family,
            s.order,
        ]);
        if mask == 0 {
            continue;
        }
        let place = Place {
            country: &mut s.country,
            state: &mut s.state,
            county: &mut s.county,
            locality: &mut s.locality,
            gps: &mut s.gps,
        };
        if let Some(t) = treatment(&ready, mask, &place, &regions) {
            covered_specimens.insert(s.id, t);
            let stamps = (s.date_created, s.date_modified);
            plans.insert((true, s.id), plan(t, &place, &regions, stamps));
        }
    }
    for i in &mut c.images {
        let place = Place {
            country: &mut i.country,
            state: &mut i.state,
            county: &mut i.county,
            locality: &mut i.locality,
            gps: &mut i.gps,
        };
        let of_specimen = i.specimen_record.and_then(|s| covered_specimens.get(&s));
        let own = treatment(&ready, mask_of(&[None, i.species]), &place, &regions);
        let t = [of_specimen.copied(), own]
            .into_iter()
            .flatten()
            .max_by_key(|t| t.strictness());
        if let Some(t) = t {
            let stamps = (i.date_created, i.date_modified);
            plans.insert((false, i.id), plan(t, &place, &regions, stamps));
        }
    }
    // The generalised records, each made once, their ids in the order of
    // their keys (a hash of the key, the next free where two meet).
    let mut localities: BTreeMap<LocalityKey, (i64, i64)> = BTreeMap::new();
    let mut points: BTreeMap<GpsKey, (i64, i64)> = BTreeMap::new();
    let widen = |at: &mut (i64, i64), (created, modified): (i64, i64)| {
        at.0 = at.0.min(created);
        at.1 = at.1.max(modified);
    };
    for plan in plans.values() {
        let first = (i64::MAX, i64::MIN);
        widen(
            localities.entry(plan.locality).or_insert(first),
            plan.stamps,
        );
        if let Some(g) = plan.gps {
            widen(points.entry(g).or_insert(first), plan.stamps);
        }
    }
    let mut taken: HashSet<i64> = c.localities.iter().map(|l| l.id).collect();
    let mut locality_ids = HashMap::new();
    for (key, &(created, modified)) in &localities {
        let t = treatment_of(key.kind);
        let mut h = hash(&format!("locality {key:?}"));
        while !taken.insert(t.id(h)) {
            h = h.wrapping_add(1);
        }
        locality_ids.insert(*key, t.id(h));
        c.localities.push(Locality {
            id: t.id(h),
            date_created: created,
            date_modified: modified,
            name: None,
            range: None,
            town: None,
            country: key.country,
            state: key.state,
            county: key.county,
        });
    }
    let mut taken: HashSet<i64> = c.gps.iter().map(|g| g.id).collect();
    let mut gps_ids = HashMap::new();
    for (key, &(created, modified)) in &points {
        let t = Treatment::Grid(key.grid);
        let mut h = hash(&format!("gps {key:?}"));
        while !taken.insert(t.id(h)) {
            h = h.wrapping_add(1);
        }
        gps_ids.insert(*key, t.id(h));
        c.gps.push(Gps {
            id: t.id(h),
            date_created: created,
            date_modified: modified,
            latitude: Some(key.grid.centre(key.cell.0)),
            longitude: Some(key.grid.centre(key.cell.1)),
            elevation: String::new(),
            locality: locality_ids[&key.locality],
        });
    }
    // The covered records made to refer to them; what they referred to before,
    // dropped where nothing else refers to it.
    let mut touched_gps = HashSet::new();
    let mut touched_localities = HashSet::new();
    let mut rewrite = |plan: &Plan, place: Place| {
        touched_gps.extend(*place.gps);
        touched_localities.extend(*place.locality);
        *place.locality = Some(locality_ids[&plan.locality]);
        *place.gps = plan.gps.map(|g| gps_ids[&g]);
        if matches!(treatment_of(plan.locality.kind), Treatment::Withhold) {
            *place.county = None;
        }
    };
    let mut generalised = Generalised::default();
    for s in &mut c.specimen_records {
        if let Some(plan) = plans.get(&(true, s.id)) {
            generalised.specimens += 1;
            rewrite(
                plan,
                Place {
                    country: &mut s.country,
                    state: &mut s.state,
                    county: &mut s.county,
                    locality: &mut s.locality,
                    gps: &mut s.gps,
                },
            );
        }
    }
    for i in &mut c.images {
        if let Some(plan) = plans.get(&(false, i.id)) {
            generalised.images += 1;
            rewrite(
                plan,
                Place {
                    country: &mut i.country,
                    state: &mut i.state,
                    county: &mut i.county,
                    locality: &mut i.locality,
                    gps: &mut i.gps,
                },
            );
        }
    }
    let used_gps: HashSet<i64> = (c.specimen_records.iter().filter_map(|s| s.gps))
        .chain(c.images.iter().filter_map(|i| i.gps))
        .collect();
    let before = c.gps.len() + c.localities.len();
    c.gps.retain(|g| {
        let dropped = touched_gps.contains(&g.id) && !used_gps.contains(&g.id);
        if dropped {
            touched_localities.insert(g.locality);
        }
        !dropped
    });
    let used_localities: HashSet<i64> = (c.specimen_records.iter().filter_map(|s| s.locality))
        .chain(c.images.iter().filter_map(|i| i.locality))
        .chain(c.gps.iter().map(|g| g.locality))
        .collect();
    c.localities
        .retain(|l| !touched_localities.contains(&l.id) || used_localities.contains(&l.id));
    generalised.dropped = before - c.gps.len() - c.localities.len();
    c.localities.sort_by_key(|l| l.id);
    c.gps.sort_by_key(|g| g.id);
    Ok(generalised)
}
