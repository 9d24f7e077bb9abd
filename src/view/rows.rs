//! Row building: a snapshot's raw records become rows of [`Value`]s, one per field
//! of the model's table, in table order, with references turned into positions
//! and the derived fields computed.

use ahash::{AHashMap, AHashSet};

use crate::model::records::{self, Collection};
use crate::model::schema::{IMAGE_FIELDS, RENDITIONS};
use crate::model::{derived, Model};

use super::table::Table;
use super::value::{OwnedValue, Row, Value};

/// Resolves references to positions while rows are built. A snapshot that passed
/// validation has every target, so a miss is a bug, and panics.
struct Builder {
    tables: Vec<Option<Table>>,
    /// Each stored model's ids, ascending (a table's rows are in that order): a
    /// reference's position is found here, so a model may refer to one built
    /// after it (an image to the species that features it).
    ids: Vec<Vec<i64>>,
    /// Each image's renditions by image id, in `RENDITIONS` order.
    renditions: AHashMap<i64, [Option<u32>; 6]>,
    /// Each species' subspecies by the species' position, by name then id.
    subspecies: AHashMap<u32, Vec<u32>>,
    /// The images a family features, and those a species features: what the
    /// typed insect list's `featured_family` and `featured_species` say.
    featured_by_family: AHashSet<i64>,
    featured_by_species: AHashSet<i64>,
}

impl Builder {
    fn table(&self, model: Model) -> &Table {
        self.tables[model.index()]
            .as_ref()
            .expect("models are built after the models they refer to")
    }

    fn pos(&self, model: Model, id: i64) -> u32 {
        self.ids[model.index()]
            .binary_search(&id)
            .expect("validation checked every reference") as u32
    }

    fn reference(&self, model: Model, id: i64) -> OwnedValue {
        OwnedValue::Ref(model, self.pos(model, id))
    }

    fn opt_ref(&self, model: Model, id: Option<i64>) -> OwnedValue {
        id.map_or(OwnedValue::Null, |id| self.reference(model, id))
    }

    fn str_field(&self, model: Model, pos: u32, field: &str) -> &str {
        self.field(model, pos, field).as_str().unwrap_or("")
    }

    fn field(&self, model: Model, pos: u32, field: &str) -> Value<'_> {
        let f = model.field_index(field).expect("field exists");
        self.table(model).get(pos as usize, f)
    }

    /// The values of the record with this id, from field `from` on.
    fn row(&self, model: Model, id: i64, from: usize) -> Vec<OwnedValue> {
        let pos = self.pos(model, id) as usize;
        self.table(model)
            .row(pos)
            .skip(from)
            .map(Value::owned)
            .collect()
    }

    /// The ranks above a species, from the order down to the species itself
    /// (`Model::RANKS` reversed, less the subspecies), as positions.
    fn lineage(&self, species: u32) -> [(Model, u32); 6] {
        let mut out = [(Model::Species, species); 6];
        for i in (0..5).rev() {
            let (model, pos) = out[i + 1];
            let (name, _) = model
                .parent()
                .expect("every rank above a species has a parent");
            out[i] = match self.field(model, pos, name) {
                Value::Ref(m, p) => (m, p),
                _ => unreachable!("validation requires every rank's parent"),
            };
        }
        out
    }

    /// Notes each image's renditions, once the rendition table is built: for each
    /// of the six filters, the lowest id made with it.
    fn index_renditions(&mut self) {
        let table = self.table(Model::Rendition);
        let mut by_image: AHashMap<i64, [Option<u32>; 6]> = AHashMap::new();
        let spec_field = Model::Rendition
            .field_index("filter_spec")
            .expect("a rendition has a filter");
        let image_field = Model::Rendition
            .field_index("image")
            .expect("a rendition has an image");
        for pos in 0..table.len() {
            let spec = table.get(pos, spec_field).as_str().unwrap_or_default();
            let Some(slot) = RENDITIONS.iter().position(|(_, s)| *s == spec) else {
                continue;
            };
            let image = match table.get(pos, image_field) {
                Value::Ref(m, p) => self.ids[m.index()][p as usize],
                _ => continue,
            };
            // Rows are in id order: the first one seen is the lowest id.
            by_image.entry(image).or_default()[slot].get_or_insert(pos as u32);
        }
        self.renditions = by_image;
    }

    /// Notes each species' subspecies, by name then id.
    fn index_subspecies(&mut self) {
        let table = self.table(Model::Subspecies);
        let (parent, _) = Model::Subspecies
            .parent()
            .expect("a subspecies has a species");
        let mut of: AHashMap<u32, Vec<u32>> = AHashMap::new();
        for pos in 0..table.len() as u32 {
            if let Value::Ref(_, species) = self.field(Model::Subspecies, pos, parent) {
                of.entry(species).or_default().push(pos);
            }
        }
        for list in of.values_mut() {
            list.sort_by_key(|&p| (self.str_field(Model::Subspecies, p, "name"), p));
        }
        self.subspecies = of;
    }

    /// Notes which images the families and species feature, once their tables
    /// are built.
    fn index_featured(&mut self) {
        let featured = |b: &Builder, model: Model| -> AHashSet<i64> {
            let table = b.table(model);
            let f = model
                .field_index("featured_image")
                .expect("a featured image");
            (0..table.len())
                .filter_map(|pos| match table.get(pos, f) {
                    Value::Ref(m, p) => Some(b.ids[m.index()][p as usize]),
                    _ => None,
                })
                .collect()
        };
        self.featured_by_family = featured(self, Model::Family);
        self.featured_by_species = featured(self, Model::Species);
    }

    fn put(&mut self, model: Model, table: Table) {
        self.tables[model.index()] = Some(table);
    }

    /// The finished tables, in `Model::ALL` order, each indexed.
    fn finish(self) -> Vec<Table> {
        self.tables
            .into_iter()
            .map(|t| t.expect("every model is built"))
            .collect()
    }
}

/// Where each value of a row goes: for each name a row gives a value under, the
/// position of that field in the model's table. The names must be exactly the
/// model's fields, each once. [`row!`] works this out when the program is
/// compiled, so a row that leaves out a field, names one twice or misspells one
/// does not compile; rows whose fields depend on the model are checked by
/// [`named`], once per table.
const fn slots<const N: usize>(model: Model, names: [&str; N]) -> [usize; N] {
    assert!(
        N == model.fields().len(),
        "a row names more or fewer values than its model has fields"
    );
    let mut out = [0; N];
    let mut i = 0;
    while i < N {
        out[i] = match model.field_index(names[i]) {
            Some(slot) => slot,
            None => panic!("a row names a field its model does not have"),
        };
        let mut j = 0;
        while j < i {
            assert!(out[j] != out[i], "a row names a field twice");
            j += 1;
        }
        i += 1;
    }
    out
}

/// A row of a model whose fields do not depend on anything but the model,
/// its values named by field: `row!(Model::Country; "id" => ..., "name" => ...)`.
macro_rules! row {
    ($model:expr; $($name:literal => $value:expr),* $(,)?) => {{
        $(const _: () = assert!(
            $model.field_index($name).is_some(),
            concat!("a row names a field its model does not have: ", $name)
        );)*
        const SLOTS: [usize; [$($name),*].len()] = slots($model, [$($name),*]);
        place(&SLOTS, [$($value),*])
    }};
}

/// A row from values given in `slots`' order, each put at its field's position.
fn place(slots: &[usize], values: impl IntoIterator<Item = OwnedValue>) -> Row {
    let values = values.into_iter();
    if slots.iter().enumerate().all(|(i, &slot)| i == slot) {
        return values.collect();
    }
    let mut row = vec![OwnedValue::Null; slots.len()];
    for (&slot, value) in slots.iter().zip(values) {
        row[slot] = value;
    }
    row
}

/// A row given as (field, value) pairs, for models whose fields depend on the
/// model (the ranks, the typed image lists).
type Named = Vec<(&'static str, OwnedValue)>;

/// Rows of `model` from named values. The first row's names are checked against
/// the field table (every field once, none it lacks), and every later row must
/// name the same fields in the same order.
fn named(
    model: Model,
    rows: impl ExactSizeIterator<Item = Named> + Send,
) -> impl ExactSizeIterator<Item = Row> + Send {
    let mut shape: Option<(Vec<&'static str>, Vec<usize>)> = None;
    rows.map(move |row| {
        let (names, slots) = shape.get_or_insert_with(|| {
            let names: Vec<&'static str> = row.iter().map(|(name, _)| *name).collect();
            let slots = names
                .iter()
                .map(|name| {
                    model
                        .field_index(name)
                        .unwrap_or_else(|| panic!("{model:?} has no field {name}"))
                })
                .collect();
            for field in model.fields() {
                let times = names.iter().filter(|&&n| n == field.name).count();
                assert_eq!(
                    times, 1,
                    "a {model:?} row names {} {times} times",
                    field.name
                );
            }
            (names, slots)
        });
        assert!(
            row.iter().map(|(name, _)| name).eq(names.iter()),
            "every {model:?} row names the same fields"
        );
        place(slots, row.into_iter().map(|(_, value)| value))
    })
}

fn rank_rows(b: &Builder, records: Vec<records::Rank>, model: Model) -> Table {
    let parent = model.parent();
    let featured = model.field_index("featured_image").is_some();
    let rows = records.into_iter().map(|r| {
        let mut v: Named = vec![
            ("id", OwnedValue::Int(r.id)),
            ("name", OwnedValue::own(r.name)),
            ("common_name", OwnedValue::opt_own(r.common_name)),
            ("authority", OwnedValue::own(r.authority)),
            ("date_created", OwnedValue::Time(r.date_created)),
            ("date_modified", OwnedValue::Time(r.date_modified)),
        ];
        if let (Some((name, model)), Some(id)) = (parent, r.parent) {
            v.push((name, b.reference(model, id)));
        }
        if featured {
            v.push(("featured_image", b.opt_ref(Model::Image, r.featured_image)));
        }
        v
    });
    Table::new(model, named(model, rows))
}

fn species_rows(b: &Builder, records: Vec<records::Species>, model: Model) -> Table {
    let (parent_name, parent) = model.parent().expect("a species rank has a parent");
    let featured = model.field_index("featured_image").is_some();
    // binomial = genus name + name; trinomial = species binomial + name.
    let (full_name, stem_name) = match parent {
        Model::Genus => ("binomial", "name"),
        _ => ("trinomial", "binomial"),
    };
    let rows = records.into_iter().map(|r| {
        let p = b.pos(parent, r.parent);
        let stem = b.str_field(parent, p, stem_name);
        let full = OwnedValue::Str(format!("{stem} {}", r.name).into());
        let mut v: Named = vec![
            ("id", OwnedValue::Int(r.id)),
            ("name", OwnedValue::own(r.name)),
            (full_name, full),
            ("common_name", OwnedValue::opt_own(r.common_name)),
            ("authority", OwnedValue::own(r.authority)),
            ("mona", OwnedValue::opt_own(r.mona)),
            ("p3", OwnedValue::opt_own(r.p3)),
            ("ps", OwnedValue::opt_own(r.ps)),
            ("date_created", OwnedValue::Time(r.date_created)),
            ("date_modified", OwnedValue::Time(r.date_modified)),
            (parent_name, OwnedValue::Ref(parent, p)),
        ];
        if featured {
            v.push(("featured_image", b.opt_ref(Model::Image, r.featured_image)));
        }
        v
    });
    Table::new(model, named(model, rows))
}

/// Builds every model's table from the records, in `Model::ALL` order (a model
/// after every model it refers to), turning references into positions and
/// computing the derived fields (indexing them is the view's next step).
pub fn tables(mut c: Collection) -> Vec<Table> {
    let mut ids = vec![Vec::new(); Model::ALL.len()];
    for model in Model::ALL {
        ids[model.index()] = c.ids(model);
    }
    let mut b = Builder {
        tables: (0..Model::ALL.len()).map(|_| None).collect(),
        ids,
        renditions: AHashMap::new(),
        subspecies: AHashMap::new(),
        featured_by_family: AHashSet::new(),
        featured_by_species: AHashSet::new(),
    };
    for model in Model::ALL {
        let table = table(&b, model, &mut c);
        b.put(model, table);
        // What later tables read of this one.
        match model {
            Model::Rendition => b.index_renditions(),
            Model::Subspecies => {
                b.index_featured();
                b.index_subspecies();
            }
            _ => {}
        }
    }
    b.finish()
}

/// `tables`, made from a collection that differs from `c` only in the
/// specimens `modified` (ids, ascending), made `c`'s: those specimens' rows
/// made again (they read the other tables, which are the same), the rest kept;
/// and which of the specimens' columns changed. What it gives equals
/// [`tables`] of `c` (`tests/snapshot.rs` checks it).
pub(super) fn with_specimens_remade(
    tables: Vec<Table>,
    c: &Collection,
    modified: &[i64],
) -> (Vec<Table>, Vec<bool>) {
    let ids = tables
        .iter()
        .map(|t| (0..t.len() as u32).map(|p| t.id(p)).collect())
        .collect();
    let mut b = Builder {
        tables: tables.into_iter().map(Some).collect(),
        ids,
        renditions: AHashMap::new(),
        subspecies: AHashMap::new(),
        featured_by_family: AHashSet::new(),
        featured_by_species: AHashSet::new(),
    };
    let rows: Vec<(u32, Row)> = c
        .specimen_records
        .iter()
        .filter(|r| modified.binary_search(&r.id).is_ok())
        .map(|r| {
            let mut r = r.clone();
            r.collector.sort_unstable();
            (b.pos(Model::SpecimenRecord, r.id), specimen_row(&b, r))
        })
        .collect();
    let specimens = b.tables[Model::SpecimenRecord.index()]
        .as_mut()
        .expect("every model is built");
    let mut changed = vec![false; Model::SpecimenRecord.fields().len()];
    for (pos, row) in &rows {
        specimens.set_row(*pos, row, &mut changed);
    }
    specimens.settle(&changed);
    (b.finish(), changed)
}

/// One model's table, its records taken out of the collection.
fn table(b: &Builder, model: Model, c: &mut Collection) -> Table {
    use std::mem::take;
    use Model::*;
    match model {
        Rendition => rows(b, model, take(&mut c.renditions), rendition_row),
        Image => rows(b, model, take(&mut c.images), image_row),
        Order => rank_rows(b, take(&mut c.orders), model),
        Family => rank_rows(b, take(&mut c.families), model),
        Subfamily => rank_rows(b, take(&mut c.subfamilies), model),
        Tribe => rank_rows(b, take(&mut c.tribes), model),
        Genus => rank_rows(b, take(&mut c.genera), model),
        Species => species_rows(b, take(&mut c.species), model),
        Subspecies => species_rows(b, take(&mut c.subspecies), model),
        Country => Table::new(model, take(&mut c.countries).into_iter().map(country_row)),
        State => rows(b, model, take(&mut c.states), state_row),
        County => rows(b, model, take(&mut c.counties), county_row),
        Locality => rows(b, model, take(&mut c.localities), locality_row),
        Gps => rows(b, model, take(&mut c.gps), gps_row),
        Person => Table::new(model, take(&mut c.people).into_iter().map(person_row)),
        CollectingTrip => rows(b, model, take(&mut c.collecting_trips), trip_row),
        SpecimenRecord => rows(b, model, take(&mut c.specimen_records), specimen_row),
        Page => Table::new(model, take(&mut c.pages).into_iter().map(page_row)),
        SpeciesPage => rows(b, model, take(&mut c.species_pages), species_page_row),
        SpecimenRecordImage | InsectImage | PlantImage | HabitatImage => {
            let images = b.table(Image);
            let kind = Image.field_index("image_type").expect("a kind");
            let of_kind: Vec<u32> = (0..images.len())
                .filter(|&pos| images.get(pos, kind).as_str() == model.image_type())
                .map(|pos| pos as u32)
                .collect();
            let rows = of_kind
                .into_iter()
                .map(|pos| typed_image_row(b, model, pos));
            Table::new(model, named(model, rows))
        }
    }
}

fn rows<R: Send>(b: &Builder, model: Model, records: Vec<R>, row: fn(&Builder, R) -> Row) -> Table {
    Table::new(model, records.into_iter().map(|r| row(b, r)))
}

fn country_row(r: records::Country) -> Row {
    row!(Model::Country;
        "id" => OwnedValue::Int(r.id),
        "name" => OwnedValue::own(r.name),
        "abbr" => OwnedValue::own(r.abbr),
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
    )
}

fn state_row(b: &Builder, r: records::State) -> Row {
    row!(Model::State;
        "id" => OwnedValue::Int(r.id),
        "name" => OwnedValue::own(r.name),
        "abbr" => OwnedValue::own(r.abbr),
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
        "country" => b.reference(Model::Country, r.country),
    )
}

fn county_row(b: &Builder, r: records::County) -> Row {
    let state = b.pos(Model::State, r.state);
    let abbr = derived::county_abbr(b.str_field(Model::State, state, "name"), &r.name);
    let full_name = OwnedValue::Str(derived::county_full_name(&r.name, abbr).into());
    row!(Model::County;
        "id" => OwnedValue::Int(r.id),
        "name" => OwnedValue::own(r.name),
        "abbr" => OwnedValue::str(abbr),
        "full_name" => full_name,
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
        "state" => OwnedValue::Ref(Model::State, state),
    )
}

fn locality_row(b: &Builder, r: records::Locality) -> Row {
    row!(Model::Locality;
        "id" => OwnedValue::Int(r.id),
        "name" => OwnedValue::opt_own(r.name),
        "range" => OwnedValue::opt_own(r.range),
        "town" => OwnedValue::opt_own(r.town),
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
        "country" => b.opt_ref(Model::Country, r.country),
        "state" => b.opt_ref(Model::State, r.state),
        "county" => b.opt_ref(Model::County, r.county),
    )
}

fn gps_row(b: &Builder, r: records::Gps) -> Row {
    let meters = OwnedValue::Str(format!("{}m", r.elevation).into());
    row!(Model::Gps;
        "id" => OwnedValue::Int(r.id),
        "latitude" => OwnedValue::opt_own(r.latitude),
        "longitude" => OwnedValue::opt_own(r.longitude),
        "elevation" => OwnedValue::own(r.elevation),
        "elevation_meters" => meters,
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
        "locality" => b.reference(Model::Locality, r.locality),
    )
}

fn person_row(r: records::Person) -> Row {
    let (mi, sx) = (r.middle_initial.as_deref(), r.suffix.as_deref());
    let collector_name = derived::collector_name(&r.first_name, mi, &r.last_name, sx);
    let full_name = derived::person_full_name(&r.first_name, mi, &r.last_name, sx);
    row!(Model::Person;
        "id" => OwnedValue::Int(r.id),
        "first_name" => OwnedValue::own(r.first_name),
        "middle_initial" => OwnedValue::opt_own(r.middle_initial),
        "last_name" => OwnedValue::own(r.last_name),
        "suffix" => OwnedValue::opt_own(r.suffix),
        "collector_name" => OwnedValue::Str(collector_name.into()),
        "full_name" => OwnedValue::Str(full_name.into()),
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
    )
}

fn trip_row(b: &Builder, r: records::CollectingTrip) -> Row {
    let mut states: Vec<u32> = r.states.iter().map(|&s| b.pos(Model::State, s)).collect();
    states.sort_by(|&x, &y| {
        let name = |p| b.str_field(Model::State, p, "name");
        name(x).cmp(name(y)).then(
            b.table(Model::State)
                .id(x)
                .cmp(&b.table(Model::State).id(y)),
        )
    });
    let slug = derived::slugify(&r.name);
    row!(Model::CollectingTrip;
        "id" => OwnedValue::Int(r.id),
        "name" => OwnedValue::own(r.name),
        "slug" => OwnedValue::Str(slug.into()),
        "states" => OwnedValue::Refs(Model::State, states.into()),
        "start_date" => OwnedValue::own(r.start_date),
        "end_date" => OwnedValue::own(r.end_date),
        "notes" => OwnedValue::opt_own(r.notes),
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
    )
}

fn specimen_row(b: &Builder, r: records::SpecimenRecord) -> Row {
    use Model::*;
    let taxon = [
        (Subspecies, r.subspecies),
        (Species, r.species),
        (Genus, r.genus),
        (Tribe, r.tribe),
        (Subfamily, r.subfamily),
        (Family, r.family),
        (Order, r.order),
    ]
    .into_iter()
    .find_map(|(m, id)| id.map(|id| b.reference(m, id)))
    .unwrap_or(OwnedValue::Null);
    let people = b.table(Person);
    let mut collectors: Vec<u32> = r.collector.iter().map(|&p| b.pos(Person, p)).collect();
    collectors.sort_by(|&x, &y| {
        let key = |p: u32| {
            (
                b.str_field(Person, p, "last_name"),
                b.str_field(Person, p, "first_name"),
                people.id(p),
            )
        };
        key(x).cmp(&key(y))
    });
    let names: Vec<&str> = collectors
        .iter()
        .map(|&p| b.str_field(Person, p, "collector_name"))
        .collect();
    let dates = derived::dates(r.day, &r.month, r.year);
    // Validation rejected a temperature that is not a number.
    let t = derived::parse_temperature(&r.temperature).unwrap_or(None);
    row!(SpecimenRecord;
        "id" => OwnedValue::Int(r.id),
        "usi" => OwnedValue::own(r.usi),
        "order" => b.opt_ref(Order, r.order),
        "family" => b.opt_ref(Family, r.family),
        "subfamily" => b.opt_ref(Subfamily, r.subfamily),
        "tribe" => b.opt_ref(Tribe, r.tribe),
        "genus" => b.opt_ref(Genus, r.genus),
        "species" => b.opt_ref(Species, r.species),
        "subspecies" => b.opt_ref(Subspecies, r.subspecies),
        "taxon" => taxon,
        "determiner" => b.opt_ref(Person, r.determiner),
        "determined_year" => OwnedValue::opt_int(r.determined_year),
        "sex" => OwnedValue::own(r.sex),
        "stage" => OwnedValue::own(r.stage),
        "preparer" => b.opt_ref(Person, r.preparer),
        "preparation" => OwnedValue::own(r.preparation),
        "preparation_date" => OwnedValue::opt_own(r.preparation_date),
        "labels_printed" => OwnedValue::opt_bool(r.labels_printed),
        "labeled" => OwnedValue::opt_bool(r.labeled),
        "photographed" => OwnedValue::opt_bool(r.photographed),
        "identified" => OwnedValue::Bool(r.species.is_some()),
        "collecting_trip" => b.opt_ref(CollectingTrip, r.collecting_trip),
        "country" => b.opt_ref(Country, r.country),
        "state" => b.opt_ref(State, r.state),
        "county" => b.opt_ref(County, r.county),
        "locality" => b.opt_ref(Locality, r.locality),
        "gps" => b.opt_ref(Gps, r.gps),
        "day" => OwnedValue::opt_int(r.day),
        "month" => OwnedValue::own(r.month),
        "year" => OwnedValue::opt_int(r.year),
        "collected_date" => OwnedValue::Str(dates.collected.into()),
        "full_date" => OwnedValue::Str(dates.full.into()),
        "num_date" => OwnedValue::Str(dates.numeric.into()),
        "collector" => OwnedValue::Refs(Person, collectors.into()),
        "collectors" => OwnedValue::Str(names.join(", ").into()),
        "method" => OwnedValue::own(r.method),
        "weather" => OwnedValue::own(r.weather),
        "temperature" => OwnedValue::own(r.temperature),
        "temp_F" => OwnedValue::Str(derived::temp_f(t).into()),
        "temp_C" => OwnedValue::Str(derived::temp_c(t).into()),
        "time_of_day" => OwnedValue::own(r.time_of_day),
        "habitat" => OwnedValue::own(r.habitat),
        "notes" => OwnedValue::own(r.notes),
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
    )
}

/// An image as a `featured_image` shows it: its renditions, then its row.
fn image_row(b: &Builder, r: records::Image) -> Row {
    let [x_large, large, medium, small, x_small, thumbnail] = b
        .renditions
        .get(&r.id)
        .copied()
        .unwrap_or_default()
        .map(|r| r.map_or(OwnedValue::Null, |p| OwnedValue::Ref(Model::Rendition, p)));
    row!(Model::Image;
        "id" => OwnedValue::Int(r.id),
        "x_large" => x_large,
        "large" => large,
        "medium" => medium,
        "small" => small,
        "x_small" => x_small,
        "thumbnail" => thumbnail,
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
        "title" => OwnedValue::own(r.title),
        "file" => OwnedValue::own(r.file),
        "description" => OwnedValue::own(r.description),
        "width" => OwnedValue::Int(r.width),
        "height" => OwnedValue::Int(r.height),
        "created_at" => OwnedValue::Time(r.created_at),
        "focal_point_x" => OwnedValue::opt_int(r.focal_point_x),
        "focal_point_y" => OwnedValue::opt_int(r.focal_point_y),
        "focal_point_width" => OwnedValue::opt_int(r.focal_point_width),
        "focal_point_height" => OwnedValue::opt_int(r.focal_point_height),
        "file_size" => OwnedValue::opt_int(r.file_size),
        "file_hash" => OwnedValue::own(r.file_hash),
        "alt_text" => OwnedValue::own(r.alt_text),
        "date" => OwnedValue::own(r.date),
        "notes" => OwnedValue::own(r.notes),
        "image_type" => OwnedValue::own(r.image_type),
        "position" => OwnedValue::own(r.position),
        "sex" => OwnedValue::own(r.sex),
        "stage" => OwnedValue::own(r.stage),
        "status" => OwnedValue::own(r.status),
        "scientific_name" => OwnedValue::own(r.scientific_name),
        "common_name" => OwnedValue::own(r.common_name),
        "collection" => OwnedValue::Int(r.collection),
        "uploaded_by_user" => OwnedValue::opt_int(r.uploaded_by_user),
        "country" => b.opt_ref(Model::Country, r.country),
        "state" => b.opt_ref(Model::State, r.state),
        "county" => b.opt_ref(Model::County, r.county),
        "locality" => b.opt_ref(Model::Locality, r.locality),
        "gps" => b.opt_ref(Model::Gps, r.gps),
        "collecting_trip" => b.opt_ref(Model::CollectingTrip, r.collecting_trip),
        "specimen_record" => b.opt_ref(Model::SpecimenRecord, r.specimen_record),
        "species" => b.opt_ref(Model::Species, r.species),
        "species_page" => b.opt_ref(Model::SpeciesPage, r.species_page),
        "plant_species_page" => page_refs(b, &r.plant_species_page),
        "habitat_species_page" => page_refs(b, &r.habitat_species_page),
    )
}

fn page_row(r: records::Page) -> Row {
    row!(Model::Page;
        "id" => OwnedValue::Int(r.id),
        "title" => OwnedValue::own(r.title),
        "slug" => OwnedValue::own(r.slug),
        "live" => OwnedValue::Bool(r.live),
        "first_published_at" => r.first_published_at.map_or(OwnedValue::Null, OwnedValue::Time),
        "last_published_at" => r.last_published_at.map_or(OwnedValue::Null, OwnedValue::Time),
    )
}

fn rendition_row(b: &Builder, r: records::Rendition) -> Row {
    row!(Model::Rendition;
        "id" => OwnedValue::Int(r.id),
        "date_created" => OwnedValue::Time(r.date_created),
        "date_modified" => OwnedValue::Time(r.date_modified),
        "filter_spec" => OwnedValue::own(r.filter_spec),
        "file" => OwnedValue::own(r.file),
        "width" => OwnedValue::Int(r.width),
        "height" => OwnedValue::Int(r.height),
        "focal_point_key" => OwnedValue::own(r.focal_point_key),
        "image" => b.reference(Model::Image, r.image),
    )
}

/// A species page: the page's title, slug and publication, the species' ranks
/// (each in its plain shape) and its subspecies by name, and the page's text.
fn species_page_row(b: &Builder, r: records::SpeciesPage) -> Row {
    let page = b.row(Model::Page, r.id, 0);
    let page_field = |name| page[Model::Page.field_index(name).expect("a page field")].clone();
    let (ranks, subspecies) = match r.species.map(|id| b.pos(Model::Species, id)) {
        Some(species) => (
            b.lineage(species).map(|(m, p)| OwnedValue::Ref(m, p)),
            b.subspecies.get(&species).cloned().unwrap_or_default(),
        ),
        None => (std::array::from_fn(|_| OwnedValue::Null), Vec::new()),
    };
    let [order, family, subfamily, tribe, genus, species] = ranks;
    row!(Model::SpeciesPage;
        "id" => OwnedValue::Int(r.id),
        "title" => page_field("title"),
        "slug" => page_field("slug"),
        "order" => order,
        "family" => family,
        "subfamily" => subfamily,
        "tribe" => tribe,
        "genus" => genus,
        "species" => species,
        "subspecies" => OwnedValue::Refs(Model::Subspecies, subspecies.into()),
        "taxonomy" => OwnedValue::own(r.taxonomy),
        "description" => OwnedValue::own(r.description),
        "distribution" => OwnedValue::own(r.distribution),
        "seasonality" => OwnedValue::own(r.seasonality),
        "habitat" => OwnedValue::own(r.habitat),
        "food" => OwnedValue::own(r.food),
        "life_cycle" => OwnedValue::own(r.life_cycle),
        "first_published_at" => page_field("first_published_at"),
        "last_published_at" => page_field("last_published_at"),
    )
}

/// An item of a typed image list (the service's before 0.16), from an image of
/// its kind: id, the renditions, `lead`, the image's own fields, `kind`, where
/// it is kept, then `tail`, as the typed field tables order them.
fn typed_image_row(b: &Builder, model: Model, pos: u32) -> Named {
    let id = b.table(Model::Image).id(pos);
    let image = b.row(Model::Image, id, 0);
    let field = |name| image[Model::Image.field_index(name).expect("an image field")].clone();
    let same = |name| (name, field(name));
    let places = || {
        [
            "country",
            "state",
            "county",
            "locality",
            "gps",
            "collecting_trip",
        ]
        .map(same)
    };
    let (lead, kind, tail): (Named, Named, Named) = match model {
        Model::SpecimenRecordImage => (
            vec![],
            vec![same("position")],
            vec![("usi", field("specimen_record"))],
        ),
        Model::InsectImage => {
            // `identified` when it is linked to a species page, and the species'
            // family and binomial when it names a species (absent otherwise).
            let species = match field("species") {
                OwnedValue::Ref(_, p) => Some(p),
                _ => None,
            };
            let linked = field("species_page") != OwnedValue::Null;
            let (family, binomial) = match species {
                Some(s) => {
                    let (_, family) = b.lineage(s)[1];
                    (
                        OwnedValue::str(b.str_field(Model::Family, family, "name")),
                        OwnedValue::str(b.str_field(Model::Species, s, "binomial")),
                    )
                }
                None => (OwnedValue::Null, OwnedValue::Null),
            };
            let lead = vec![
                ("identified", OwnedValue::Bool(linked)),
                ("family", family),
                ("species_binomial", binomial),
            ];
            let kind = vec![
                (
                    "featured_family",
                    OwnedValue::Bool(b.featured_by_family.contains(&id)),
                ),
                (
                    "featured_species",
                    OwnedValue::Bool(b.featured_by_species.contains(&id)),
                ),
                same("sex"),
                same("stage"),
                same("status"),
            ];
            let mut tail = places().to_vec();
            tail.extend([same("species"), same("species_page")]);
            (lead, kind, tail)
        }
        Model::PlantImage => {
            let mut tail = places().to_vec();
            tail.push(("species_page", field("plant_species_page")));
            (
                vec![],
                vec![same("scientific_name"), same("common_name")],
                tail,
            )
        }
        _ => {
            let mut tail = places().to_vec();
            tail.push(("species_page", field("habitat_species_page")));
            (vec![], vec![], tail)
        }
    };
    let mut v: Named = vec![("id", OwnedValue::Int(id))];
    v.extend(RENDITIONS.map(|(name, _)| same(name)));
    v.extend(lead);
    v.extend(IMAGE_FIELDS.map(same));
    v.extend(kind);
    v.push(same("collection"));
    v.push(same("uploaded_by_user"));
    v.extend(tail);
    v
}

fn page_refs(b: &Builder, ids: &[i64]) -> OwnedValue {
    let positions: Vec<u32> = ids
        .iter()
        .map(|&id| b.pos(Model::SpeciesPage, id))
        .collect();
    OwnedValue::Refs(Model::SpeciesPage, positions.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_named_out_of_order_lands_in_field_order() {
        let slots = slots(
            Model::Country,
            ["name", "id", "date_modified", "abbr", "date_created"],
        );
        let row = place(
            &slots,
            [
                OwnedValue::str("Peru"),
                OwnedValue::Int(7),
                OwnedValue::Time(2),
                OwnedValue::str("PE"),
                OwnedValue::Time(1),
            ],
        );
        let names: Vec<&str> = Model::Country.fields().iter().map(|f| f.name).collect();
        assert_eq!(
            names,
            ["id", "name", "abbr", "date_created", "date_modified"]
        );
        assert_eq!(
            row,
            [
                OwnedValue::Int(7),
                OwnedValue::str("Peru"),
                OwnedValue::str("PE"),
                OwnedValue::Time(1),
                OwnedValue::Time(2),
            ]
        );
    }

    fn country(names: &[&'static str]) -> Named {
        names.iter().map(|&n| (n, OwnedValue::Null)).collect()
    }

    #[test]
    #[should_panic(expected = "a Country row names abbr 0 times")]
    fn a_named_row_that_leaves_out_a_field_is_refused() {
        let rows = vec![country(&["id", "name", "date_created", "date_modified"])];
        let _ = named(Model::Country, rows.into_iter()).collect::<Vec<_>>();
    }

    #[test]
    #[should_panic(expected = "Country has no field abbreviation")]
    fn a_named_row_with_a_field_the_model_lacks_is_refused() {
        let rows = vec![country(&[
            "id",
            "name",
            "abbreviation",
            "date_created",
            "date_modified",
        ])];
        let _ = named(Model::Country, rows.into_iter()).collect::<Vec<_>>();
    }

    #[test]
    #[should_panic(expected = "every Country row names the same fields")]
    fn named_rows_must_agree() {
        let all = ["id", "name", "abbr", "date_created", "date_modified"];
        let swapped = ["id", "abbr", "name", "date_created", "date_modified"];
        let rows = vec![country(&all), country(&swapped)];
        let _ = named(Model::Country, rows.into_iter()).collect::<Vec<_>>();
    }
}
