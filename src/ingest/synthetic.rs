//! A deterministic synthetic collection, as Django fixtures, for tests and benchmarks.
//!
//! The same size and seed always give the same bytes. Records cover the cases real
//! data has: taxa identified to every rank or none, regions at every level, people
//! with and without middle initials and suffixes, partial and missing dates, empty
//! and fractional temperatures, several collectors, nulls wherever a field allows.

use std::io::{self, Write};

use serde_json::{json, Value};

use crate::model::records::{stored_fields, Kind};
use crate::model::vocabulary::{METHODS, MONTHS, PREPARATIONS, SEXES, STAGES};
use crate::model::Model;

/// SplitMix64: small, fast, and good enough to pick sample values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const SYLLABLES: &[&str] = &[
    "ca", "lo", "phi", "ne", "ra", "the", "mo", "ly", "dra", "si", "ta", "cor", "pha", "ni", "bo",
    "tri", "xe", "ul",
];

fn latin(rng: &mut Rng, parts: usize, suffix: &str) -> String {
    let mut s: String = (0..parts).map(|_| *rng.pick(SYLLABLES)).collect();
    s.push_str(suffix);
    s
}

fn capitalised(s: String) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => s,
    }
}

const STATES: &[(&str, &str, usize)] = &[
    ("Alaska", "AK", 1),
    ("Louisiana", "LA", 1),
    ("Michigan", "MI", 1),
    ("Ohio", "OH", 1),
    ("Arizona", "AZ", 1),
    ("Colorado", "CO", 1),
    ("Texas", "TX", 1),
    ("Maine", "ME", 1),
    ("Ontario", "ON", 2),
    ("Québec", "QC", 2),
    ("British Columbia", "BC", 2),
    ("Oaxaca", "OAX", 3),
    ("Chiapas", "CHIS", 3),
];

const FIRST: &[&str] = &[
    "Rosa", "Henry", "Amelia", "Théo", "Grace", "Samuel", "Lena", "Omar", "Ingrid", "Kofi", "Mei",
    "Diego", "Ada", "Tomás",
];
const LAST: &[&str] = &[
    "Alvarez",
    "Brooks",
    "Côté",
    "Nakamura",
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Patel",
    "Quinn",
    "Reyes",
    "Sato",
    "Weber",
];
const SUFFIXES: &[&str] = &["Jr.", "Sr.", "II", "III"];
const WEATHER: &[&str] = &[
    "",
    "",
    "Sunny",
    "Overcast",
    "Light rain",
    "Clear, calm",
    "Windy",
];
const TIMES: &[&str] = &["", "", "Morning", "10:15 AM", "2:40 PM", "11:05 PM", "Dusk"];
const HABITATS: &[&str] = &[
    "",
    "",
    "<p>Nectaring on <i>Asclepias syriaca</i></p>",
    "Oak savanna edge",
    "<p data-block-key=\"k1\">At light, mixed hardwood forest &amp; bog</p>",
    "Roadside meadow",
];

fn stamp(rng: &mut Rng, year: i32) -> String {
    format!(
        "{year}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        1 + rng.below(12),
        1 + rng.below(28),
        rng.below(24),
        rng.below(60),
        rng.below(60),
        rng.below(1000)
    )
}

/// A creation and a modification time; most records were never edited.
fn stamps(rng: &mut Rng) -> (String, String) {
    let c = stamp(rng, 2022);
    let m = if rng.chance(30) {
        stamp(rng, 2024)
    } else {
        c.clone()
    };
    (c, m)
}

/// Writes a fixture array one object at a time, so a large collection never sits in memory.
struct Out<W: Write> {
    w: W,
    first: bool,
    /// Each model's stored fields, as first asked for.
    fields: Vec<(Model, Vec<(&'static str, Kind)>)>,
}

impl<W: Write> Out<W> {
    /// Writes one object. A stored field the generator does not give, and
    /// that has an empty value, is written empty: a field added to a record
    /// needs no generated value unless the benchmarks want one.
    fn object(&mut self, model: &str, pk: usize, mut fields: Value) -> io::Result<()> {
        if let (Some(model), Value::Object(given)) = (Model::from_label(model), &mut fields) {
            let known = match self.fields.iter().position(|(m, _)| *m == model) {
                Some(at) => at,
                None => {
                    self.fields.push((model, stored_fields(model)));
                    self.fields.len() - 1
                }
            };
            for &(name, kind) in &self.fields[known].1 {
                if let (false, Some(empty)) = (given.contains_key(name), empty(kind)) {
                    given.insert(name.to_owned(), empty);
                }
            }
        }
        self.w.write_all(if self.first { b"[\n" } else { b",\n" })?;
        self.first = false;
        serde_json::to_writer(
            &mut self.w,
            &json!({"model": model, "pk": pk, "fields": fields}),
        )?;
        Ok(())
    }
}

/// A field's empty value, where it has one (a required reference, number or
/// date has none: the generator must give it).
fn empty(kind: Kind) -> Option<Value> {
    match kind {
        Kind::Text => Some(json!("")),
        Kind::Refs(_) => Some(json!([])),
        Kind::OptText
        | Kind::OptCount
        | Kind::OptBool
        | Kind::OptTime
        | Kind::OptForeignId
        | Kind::OptDate
        | Kind::OptRef(_) => Some(Value::Null),
        _ => None,
    }
}

/// Writes a collection of `specimens` specimen records (and the taxa, places and
/// people they need) as a Django fixture array.
pub fn write(w: impl Write, specimens: usize, seed: u64) -> io::Result<()> {
    let mut rng = Rng(seed);
    let mut out = Out {
        w,
        first: true,
        fields: Vec::new(),
    };
    let scale = (specimens / 1000).max(1);
    let featured = Featured::new(specimens);
    let taxa = taxonomy(&mut out, &mut rng, scale, &featured)?;
    let (localities, gps_of) = geography(&mut out, &mut rng, scale)?;
    let trips = collecting_trips(&mut out, &mut rng, scale)?;
    let people = people(&mut out, &mut rng, scale)?;
    let places = Places {
        localities: &localities,
        gps_of: &gps_of,
        trips,
    };
    specimen_records(&mut out, &mut rng, specimens, &taxa, &places, people)?;
    media(&mut out, &mut rng, specimens.max(1), taxa.species, &places)?;
    out.w.write_all(b"\n]\n")?;
    out.w.flush()
}

/// What the taxonomy written holds, for the specimens that name it.
struct Taxa {
    /// Every ancestry down to a species: order, family, subfamily, tribe, genus, species.
    chains: Vec<[usize; 6]>,
    /// The subspecies of each species, if it has one (index: the species id).
    subspecies_of: Vec<Option<usize>>,
    /// How many species.
    species: usize,
}

/// The taxonomy: a tree, each rank with a parent; every ancestry is kept so a
/// specimen's ranks agree.
fn taxonomy<W: Write>(
    out: &mut Out<W>,
    rng: &mut Rng,
    scale: usize,
    featured: &Featured,
) -> io::Result<Taxa> {
    let orders = [
        "Lepidoptera",
        "Coleoptera",
        "Odonata",
        "Hymenoptera",
        "Diptera",
    ];
    let mut chains: Vec<[usize; 6]> = Vec::new();
    let (mut fam, mut sub, mut tri, mut gen, mut spe) = (0, 0, 0, 0, 0);
    let mut ssp = 0;
    let mut subspecies_of: Vec<Option<usize>> = vec![None];
    for (o, name) in orders.iter().enumerate() {
        let (c, m) = stamps(rng);
        out.object("taxonomy.order", o + 1, json!({"date_created": c, "date_modified": m, "name": name,
            "common_name": if o == 2 { Value::Null } else { json!(format!("{name} group")) }, "authority": "Linnaeus, 1758",
            "featured_image": featured.of_order(o + 1)}))?;
        for _ in 0..2 + scale.min(4) {
            fam += 1;
            let rank = |rng: &mut Rng,
                        suffix: &str,
                        parent_key: &str,
                        parent: usize,
                        stamps: (String, String)| {
                json!({"date_created": stamps.0, "date_modified": stamps.1, "name": capitalised(latin(rng, 2, suffix)),
                    "common_name": if rng.chance(40) { Value::Null } else { json!(capitalised(latin(rng, 2, " moths"))) },
                    "authority": format!("{}, {}", LAST[rng.below(LAST.len())], 1758 + rng.below(200)), parent_key: parent})
            };
            let s = stamps(rng);
            let mut family = rank(rng, "idae", "order", o + 1, s);
            family["featured_image"] = featured.of_family(fam);
            out.object("taxonomy.family", fam, family)?;
            for _ in 0..2 {
                sub += 1;
                let s = stamps(rng);
                out.object(
                    "taxonomy.subfamily",
                    sub,
                    rank(rng, "inae", "family", fam, s),
                )?;
                for _ in 0..2 {
                    tri += 1;
                    let s = stamps(rng);
                    out.object("taxonomy.tribe", tri, rank(rng, "ini", "subfamily", sub, s))?;
                    for _ in 0..2 {
                        gen += 1;
                        let genus = capitalised(latin(rng, 3, "a"));
                        let (c, m) = stamps(rng);
                        out.object("taxonomy.genus", gen, json!({"date_created": c, "date_modified": m, "name": genus,
                            "common_name": Value::Null, "authority": "Hübner, [1819]", "tribe": tri}))?;
                        for _ in 0..3 {
                            spe += 1;
                            let (c, m) = stamps(rng);
                            let code = |rng: &mut Rng| {
                                if rng.chance(30) {
                                    Value::Null
                                } else {
                                    json!(format!("{}", 1000 + rng.below(9000)))
                                }
                            };
                            out.object("taxonomy.species", spe, json!({"date_created": c, "date_modified": m,
                                "name": latin(rng, 3, "us"), "common_name": if rng.chance(50) { Value::Null } else { json!(format!("{} Moth", capitalised(latin(rng, 2, "")))) },
                                "authority": "(Fabricius, 1775)", "genus": gen, "mona": code(rng), "p3": code(rng), "ps": code(rng),
                                "featured_image": featured.of_species(spe)}))?;
                            let sp = if rng.chance(25) {
                                ssp += 1;
                                let (c, m) = stamps(rng);
                                out.object("taxonomy.subspecies", ssp, json!({"date_created": c, "date_modified": m,
                                    "name": latin(rng, 2, "i"), "common_name": Value::Null, "authority": "Comstock, 1935",
                                    "species": spe, "mona": Value::Null, "p3": Value::Null, "ps": Value::Null}))?;
                                Some(ssp)
                            } else {
                                None
                            };
                            subspecies_of.push(sp);
                            chains.push([o + 1, fam, sub, tri, gen, spe]);
                        }
                    }
                }
            }
        }
    }

    Ok(Taxa {
        chains,
        subspecies_of,
        species: spe,
    })
}

/// (locality, country, state, county) of each locality, and the coordinates'
/// id of each locality that has them.
type Geography = (
    Vec<(usize, usize, usize, Option<usize>)>,
    Vec<Option<usize>>,
);

/// Countries, states, counties (boroughs, census areas, parishes and county lines
/// among them), localities at every level, coordinates.
fn geography<W: Write>(out: &mut Out<W>, rng: &mut Rng, scale: usize) -> io::Result<Geography> {
    for (i, (name, abbr)) in [
        ("United States of America", "USA"),
        ("Canada", "CAN"),
        ("Mexico", "MEX"),
    ]
    .iter()
    .enumerate()
    {
        let (c, m) = stamps(rng);
        out.object(
            "geography.country",
            i + 1,
            json!({"date_created": c, "date_modified": m, "name": name, "abbr": abbr}),
        )?;
    }
    for (i, (name, abbr, country)) in STATES.iter().enumerate() {
        let (c, m) = stamps(rng);
        out.object("geography.state", i + 1, json!({"date_created": c, "date_modified": m, "name": name, "abbr": abbr, "country": country}))?;
    }
    let mut counties: Vec<(usize, usize)> = Vec::new(); // (county, state)
    for s in 1..=STATES.len() {
        for k in 0..3 + scale.min(20) {
            let mut name = capitalised(latin(rng, 3, ""));
            if k == 1 && STATES[s - 1].0 == "Alaska" {
                name.push_str(" Census Area");
            }
            if k == 2 {
                name = format!("{name}/{}", capitalised(latin(rng, 2, "")));
            }
            let id = counties.len() + 1;
            let (c, m) = stamps(rng);
            out.object(
                "geography.county",
                id,
                json!({"date_created": c, "date_modified": m, "name": name, "state": s}),
            )?;
            counties.push((id, s));
        }
    }
    // (locality, country, state, county) of each locality, resolved to its regions.
    let mut localities: Vec<(usize, usize, usize, Option<usize>)> = Vec::new();
    for id in 1..=20 * scale.min(100) {
        let (county, state) = *rng.pick(&counties);
        let country = STATES[state - 1].2;
        let level = rng.below(10);
        let (lc, ls, lk) = match level {
            0 => (json!(country), Value::Null, Value::Null),
            1 | 2 => (Value::Null, json!(state), Value::Null),
            _ => (Value::Null, Value::Null, json!(county)),
        };
        let opt = |rng: &mut Rng, v: Value| if rng.chance(35) { Value::Null } else { v };
        let v = json!(format!("{} Preserve", capitalised(latin(rng, 2, ""))));
        let name = opt(rng, v);
        let v = json!(format!(
            "{} km {}",
            1 + rng.below(30),
            rng.pick(&["N", "NE", "SW", "E"])
        ));
        let range = opt(rng, v);
        let v = json!(capitalised(latin(rng, 3, "ville")));
        let town = opt(rng, v);
        let (c, m) = stamps(rng);
        out.object(
            "geography.locality",
            id,
            json!({"date_created": c, "date_modified": m, "name": name, "range": range,
            "town": town, "country": lc, "state": ls, "county": lk}),
        )?;
        localities.push((id, country, state, (level >= 3).then_some(county)));
    }
    let mut gps_of: Vec<Option<usize>> = vec![None; localities.len() + 1];
    for (id, (loc, ..)) in localities
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(i, l)| (i / 2 + 1, l))
    {
        let coords = !rng.chance(20);
        let lat = coords.then(|| format!("{:.6}", 15.0 + rng.below(50_000_000) as f64 / 1e6));
        let long = coords.then(|| format!("{:.6}", -60.0 - rng.below(90_000_000) as f64 / 1e6));
        let elevation = if rng.chance(15) {
            format!("{}-{}", 100 + rng.below(2000), 2200 + rng.below(1000))
        } else {
            (rng.below(3500)).to_string()
        };
        let (c, m) = stamps(rng);
        out.object(
            "geography.gps",
            id,
            json!({"date_created": c, "date_modified": m, "locality": loc,
            "latitude": lat, "longitude": long, "elevation": elevation}),
        )?;
        gps_of[*loc] = Some(id);
    }
    Ok((localities, gps_of))
}

/// The collecting trips; returns how many.
fn collecting_trips<W: Write>(out: &mut Out<W>, rng: &mut Rng, scale: usize) -> io::Result<usize> {
    let trips = 5 + scale.min(50);
    for id in 1..=trips {
        let states: Vec<usize> = (0..1 + rng.below(3))
            .map(|_| 1 + rng.below(STATES.len()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let year = 1990 + rng.below(34);
        let (c, m) = stamps(rng);
        out.object("geography.collectingtrip", id, json!({"date_created": c, "date_modified": m,
            "name": format!("{} Expedition {year}", capitalised(latin(rng, 2, ""))),
            "start_date": format!("{year}-06-{:02}", 1 + rng.below(10)), "end_date": format!("{year}-07-{:02}", 1 + rng.below(28)),
            "notes": if rng.chance(50) { Value::Null } else { json!("<p>Field notes &amp; photos.</p>") }, "states": states}))?;
    }
    Ok(trips)
}

/// The people (collectors, determiners, preparers); returns how many.
fn people<W: Write>(out: &mut Out<W>, rng: &mut Rng, scale: usize) -> io::Result<usize> {
    let people = 10 + scale.min(500);
    for id in 1..=people {
        let (c, m) = stamps(rng);
        let middle = if rng.chance(40) {
            json!(((b'A' + rng.below(26) as u8) as char).to_string())
        } else {
            Value::Null
        };
        let suffix = if rng.chance(15) {
            json!(rng.pick(SUFFIXES))
        } else {
            Value::Null
        };
        out.object(
            "specimens.person",
            id,
            json!({"date_created": c, "date_modified": m, "first_name": rng.pick(FIRST),
            "middle_initial": middle, "last_name": rng.pick(LAST), "suffix": suffix}),
        )?;
    }

    Ok(people)
}

/// The specimen records, each of a taxon's ancestry, a place and its people.
fn specimen_records<W: Write>(
    out: &mut Out<W>,
    rng: &mut Rng,
    specimens: usize,
    taxa: &Taxa,
    places: &Places,
    people: usize,
) -> io::Result<()> {
    let Taxa {
        chains,
        subspecies_of,
        ..
    } = taxa;
    let (localities, gps_of, trips) = (places.localities, places.gps_of, places.trips);
    for id in 1..=specimens {
        let chain = *rng.pick(chains);
        // How far down the taxon goes: 0 = nothing, 6 = species, 7 = subspecies.
        let depth = match rng.below(20) {
            0 => 0,
            1 => 1,
            2 => 2,
            3 => 4,
            _ => 6,
        };
        let rank = |i: usize| {
            if i < depth {
                json!(chain[i])
            } else {
                Value::Null
            }
        };
        let sub_sp = if depth == 6 {
            subspecies_of[chain[5]].filter(|_| rng.chance(60))
        } else {
            None
        };
        let (loc, country, state, county) = *rng.pick(localities);
        let place = rng.below(10);
        let person = |rng: &mut Rng| 1 + rng.below(people);
        let collectors: Vec<usize> = (0..rng.below(4))
            .map(|_| person(rng))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let has_year = !rng.chance(3);
        let month = if rng.chance(20) {
            ""
        } else {
            MONTHS[rng.below(12)]
        };
        let day = if !month.is_empty() && rng.chance(70) {
            json!(1 + rng.below(28))
        } else {
            Value::Null
        };
        let temperature = match rng.below(5) {
            0 | 1 => String::new(),
            2 => format!("{}.{}", 40 + rng.below(60), rng.below(100)),
            _ => (30 + rng.below(70)).to_string(),
        };
        let tri = |rng: &mut Rng| match rng.below(3) {
            0 => Value::Null,
            1 => json!(true),
            _ => json!(false),
        };
        let (c, m) = stamps(rng);
        out.object("specimens.specimenrecord", id, json!({
            "date_created": c, "date_modified": m, "usi": format!("CAT-{id:06}"),
            "order": rank(0), "family": rank(1), "subfamily": rank(2), "tribe": rank(3), "genus": rank(4), "species": rank(5),
            "subspecies": sub_sp,
            "determiner": if depth >= 6 && rng.chance(70) { json!(person(rng)) } else { Value::Null },
            "determined_year": if rng.chance(40) { json!(2000 + rng.below(25)) } else { Value::Null },
            "sex": rng.pick(SEXES), "stage": rng.pick(STAGES),
            "preparer": if rng.chance(80) { json!(person(rng)) } else { Value::Null },
            "preparation": rng.pick(PREPARATIONS),
            "preparation_date": if rng.chance(20) { json!(format!("20{:02}-{:02}-{:02}", 10 + rng.below(15), 1 + rng.below(12), 1 + rng.below(28))) } else { Value::Null },
            "labels_printed": tri(rng), "labeled": tri(rng), "photographed": tri(rng),
            "collecting_trip": if rng.chance(10) { json!(1 + rng.below(trips)) } else { Value::Null },
            "country": if place > 0 { json!(country) } else { Value::Null },
            "state": if place > 1 { json!(state) } else { Value::Null },
            "county": if place > 3 { county.map_or(Value::Null, |c| json!(c)) } else { Value::Null },
            "locality": if place > 4 { json!(loc) } else { Value::Null },
            "gps": if place > 4 { gps_of[loc].map_or(Value::Null, |g| json!(g)) } else { Value::Null },
            "day": day, "month": month, "year": if has_year { json!(1950 + rng.below(75)) } else { Value::Null },
            "method": rng.pick(METHODS), "weather": rng.pick(WEATHER), "temperature": temperature,
            "time_of_day": rng.pick(TIMES), "habitat": rng.pick(HABITATS),
            "notes": if rng.chance(10) { "Specimen slightly worn.\tSee photo." } else { "" },
            "collector": collectors,
        }))?;
    }
    Ok(())
}

/// Which taxa feature an image (always an insect image: ids 1, 5, 9, ...).
/// One species in 64 does, each its own image; the first family and order
/// only in collections under 10,000 specimens: a featured image adds about
/// 2.5 KB to every specimen of its taxon, which at a million specimens would
/// be gigabytes of rendered lists the benchmarks do not mean to measure.
struct Featured {
    /// How many insect images there are.
    insects: usize,
    small: bool,
}

impl Featured {
    fn new(specimens: usize) -> Featured {
        let images = (specimens / 20).max(8);
        Featured {
            insects: images.div_ceil(4),
            small: specimens < 10_000,
        }
    }

    /// The `k`-th insect image (from 0), when there is one.
    fn insect(&self, k: usize) -> Value {
        match k < self.insects {
            true => json!(1 + 4 * k),
            false => Value::Null,
        }
    }

    fn of_species(&self, species: usize) -> Value {
        match (species - 1) % 64 {
            0 => self.insect((species - 1) / 64),
            _ => Value::Null,
        }
    }

    fn of_family(&self, family: usize) -> Value {
        match self.small && family == 1 {
            true => self.insect(1),
            false => Value::Null,
        }
    }

    fn of_order(&self, order: usize) -> Value {
        match self.small && order == 1 {
            true => self.insect(1),
            false => Value::Null,
        }
    }
}

/// Where generated images can be taken.
struct Places<'a> {
    /// (locality, country, state, county).
    localities: &'a [(usize, usize, usize, Option<usize>)],
    gps_of: &'a [Option<usize>],
    trips: usize,
}

/// The content types of the home page and the species pages.
const HOME_PAGE: usize = 2;
const SPECIES_PAGE: usize = 3;

/// A page's tree path as treebeard writes it: four base-36 digits a level,
/// each the page's position among its siblings from 1.
fn tree_path(positions: &[usize]) -> String {
    const DIGITS: &[u8; 36] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut out = String::with_capacity(positions.len() * 4);
    for &n in positions {
        for place in (0..4).rev() {
            out.push(DIGITS[n / 36usize.pow(place) % 36] as char);
        }
    }
    out
}

/// Species pages (every fourth species, some of them drafts) and images of all
/// four kinds in the one image model (one per twenty specimens, at least
/// eight), each with its six renditions but one in ten, which lacks its
/// thumbnail; tags on every third image, and the Wagtail site.
fn media<W: Write>(
    out: &mut Out<W>,
    rng: &mut Rng,
    specimens: usize,
    species: usize,
    places: &Places,
) -> io::Result<()> {
    out.object(
        "wagtailcore.page",
        1,
        json!({"title": "Home", "slug": "home", "live": true,
        "first_published_at": "2020-01-01T00:00:00Z", "last_published_at": "2020-01-01T00:00:00Z",
        "path": tree_path(&[1, 1]), "url_path": "/home/", "content_type": HOME_PAGE,
        "locale": 1, "alias_of": null, "seo_title": "", "show_in_menus": false,
        "search_description": "", "translation_key": format!("{:032x}", 1)}),
    )?;
    let pages: Vec<usize> = (0..species.div_ceil(4)).map(|i| i + 2).collect();
    for (i, &id) in pages.iter().enumerate() {
        let draft = i % 5 == 4;
        let title = capitalised(latin(rng, 3, ""));
        let (published, _) = stamps(rng);
        let when = if draft { Value::Null } else { json!(published) };
        out.object(
            "wagtailcore.page",
            id,
            json!({"title": title, "slug": title.to_lowercase(),
            "live": !draft, "first_published_at": when, "last_published_at": when,
            "path": tree_path(&[1, 1, i + 1]), "url_path": format!("/home/{}/", title.to_lowercase()),
            "content_type": SPECIES_PAGE, "locale": 1, "alias_of": null, "seo_title": "",
            "show_in_menus": i == 0, "search_description": "",
            "translation_key": format!("{id:032x}")}),
        )?;
        out.object("pages.speciespage", id, json!({"species": 1 + i * 4,
            "taxonomy": format!("<p><i>{title}</i>.</p>"), "description": "<p>Wings &amp; more.</p>",
            "distribution": "", "seasonality": "<p>Summer.</p>", "habitat": rng.pick(HABITATS),
            "food": "", "life_cycle": ""}))?;
    }
    let some_pages = |rng: &mut Rng| -> Vec<usize> {
        (0..rng.below(3))
            .map(|_| *rng.pick(&pages))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    let count = (specimens / 20).max(8);
    let mut images: std::collections::BTreeMap<usize, serde_json::Map<String, Value>> =
        Default::default();
    let mut renditions = Vec::new();
    for id in 1..=count {
        let (c, m) = stamps(rng);
        let (width, height) = (200 + rng.below(2400), 200 + rng.below(1800));
        let stem = format!("{}-{id}", latin(rng, 2, ""));
        let own = json!({"date_created": c, "date_modified": m,
            "collection": 1 + rng.below(3), "title": capitalised(stem.replace('-', " ")),
            "file": format!("original_images/{stem}.jpg"), "description": "", "width": width, "height": height,
            "created_at": c, "uploaded_by_user": if rng.chance(20) { Value::Null } else { json!(1) },
            "focal_point_x": Value::Null, "focal_point_y": Value::Null, "focal_point_width": Value::Null,
            "focal_point_height": Value::Null, "file_size": width * height / 10, "file_hash": format!("{:040x}", id * 7919),
            "alt_text": "", "date": format!("20{:02}-0{}-1{}", 10 + rng.below(15), 1 + rng.below(9), rng.below(10)),
            "notes": if rng.chance(30) { "<p>Taken in the field.</p>" } else { "" }});
        if let Value::Object(own) = own {
            images.insert(id, own);
        }
        let lacking_thumbnail = id % 10 == 0;
        for (spec, size) in [
            ("max-2000x2000", 2000),
            ("max-1500x1500", 1500),
            ("max-1200x1200", 1200),
            ("max-900x900", 900),
            ("max-600x600", 600),
            ("max-300x300", 300),
        ] {
            if lacking_thumbnail && size == 300 {
                continue;
            }
            let scale = (size as f64 / width.max(height) as f64).min(1.0);
            renditions.push(json!({"date_created": c, "date_modified": m,
                "filter_spec": spec, "file": format!("images/{stem}.{spec}.jpg"),
                "width": (width as f64 * scale) as usize, "height": (height as f64 * scale) as usize,
                "focal_point_key": "", "image": id}));
        }
        let kind = ["specimen", "insect", "plant", "habitat"][id % 4];
        let (loc, country, state, county) = *rng.pick(places.localities);
        let place = if kind == "specimen" { 0 } else { rng.below(5) };
        let named = kind == "insect" && rng.chance(70);
        let mut image = json!({
            "image_type": kind,
            "country": if place > 0 { json!(country) } else { Value::Null },
            "state": if place > 1 { json!(state) } else { Value::Null },
            "county": if place > 2 { county.map_or(Value::Null, |c| json!(c)) } else { Value::Null },
            "locality": if place > 3 { json!(loc) } else { Value::Null },
            "gps": if place > 3 { places.gps_of[loc].map_or(Value::Null, |g| json!(g)) } else { Value::Null },
            "collecting_trip": if kind != "specimen" && rng.chance(20) { json!(1 + rng.below(places.trips)) } else { Value::Null },
            "specimen_record": if kind == "specimen" { json!(1 + rng.below(specimens)) } else { Value::Null },
            "position": if kind == "specimen" { json!(rng.pick(&["dorsal", "ventral", "lateral"])) } else { json!("") },
            "species": if named { json!(1 + rng.below(species)) } else { Value::Null },
            "species_page": if named && rng.chance(50) { json!(rng.pick(&pages)) } else { Value::Null },
            "sex": if kind == "insect" { *rng.pick(SEXES) } else { "unknown" },
            "stage": if kind == "insect" { *rng.pick(STAGES) } else { "adult" },
            "status": if kind == "insect" { *rng.pick(&["wild", "reared"]) } else { "wild" },
            "scientific_name": if kind == "plant" { capitalised(latin(rng, 2, "a")) } else { String::new() },
            "common_name": if kind == "plant" { "Milkweed" } else { "" },
            "plant_species_page": if kind == "plant" { some_pages(rng) } else { Vec::new() },
            "habitat_species_page": if kind == "habitat" { some_pages(rng) } else { Vec::new() },
        });
        if let (Some(image), Value::Object(own)) = (images.get_mut(&id), image.take()) {
            image.extend(own);
        }
    }
    // Images first, as `dumpdata` writes them; then their tags and the site.
    for (id, fields) in images {
        out.object("images.customimage", id, Value::Object(fields))?;
    }
    for (rendition, fields) in renditions.into_iter().enumerate() {
        out.object("images.customrendition", rendition + 1, fields)?;
    }
    out.object(
        "contenttypes.contenttype",
        1,
        json!({"app_label": "images", "model": "customimage"}),
    )?;
    let tags = ["Lepidoptera", "field trip", "Québec", "butterfly", "moth"];
    for (i, name) in tags.iter().enumerate() {
        out.object(
            "taggit.tag",
            i + 1,
            json!({"name": name, "slug": name.to_lowercase()}),
        )?;
    }
    let mut item = 0;
    for id in (1..=count).step_by(3) {
        for tag in 0..=(id % tags.len()).min(2) {
            item += 1;
            out.object(
                "taggit.taggeditem",
                item,
                json!({"tag": 1 + (id + tag) % tags.len(), "content_type": 1, "object_id": id}),
            )?;
        }
    }
    for (id, app_label, model) in [
        (HOME_PAGE, "home", "homepage"),
        (SPECIES_PAGE, "pages", "speciespage"),
    ] {
        out.object(
            "contenttypes.contenttype",
            id,
            json!({"app_label": app_label, "model": model}),
        )?;
    }
    out.object("wagtailcore.locale", 1, json!({"language_code": "en"}))?;
    out.object(
        "wagtailcore.site",
        1,
        json!({"hostname": "localhost", "port": 80, "site_name": "Catalogue", "root_page": 1,
        "is_default_site": true}),
    )?;
    Ok(())
}
