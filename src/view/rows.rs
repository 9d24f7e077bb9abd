//! Row building: a snapshot's raw records become rows of [`Value`]s, one per field
//! of the model's table, in table order, with references turned into positions
//! and the derived fields computed.

use crate::model::records::{self, Collection};
use crate::model::{derived, Model};

use super::table::Table;
use super::value::{Row, Value};

/// Resolves references to positions while rows are built. A snapshot that passed
/// validation has every target, so a miss is a bug, and panics.
struct Builder {
    tables: Vec<Option<Table>>,
}

impl Builder {
    fn table(&self, model: Model) -> &Table {
        self.tables[model.index()]
            .as_ref()
            .expect("models are built after the models they refer to")
    }

    fn pos(&self, model: Model, id: i64) -> u32 {
        self.table(model)
            .position(id)
            .expect("validation checked every reference")
    }

    fn reference(&self, model: Model, id: i64) -> Value {
        Value::Ref(model, self.pos(model, id))
    }

    fn opt_ref(&self, model: Model, id: Option<i64>) -> Value {
        id.map_or(Value::Null, |id| self.reference(model, id))
    }

    fn str_field(&self, model: Model, pos: u32, field: &str) -> &str {
        let f = model.field_index(field).expect("field exists");
        self.table(model).rows[pos as usize][f]
            .as_str()
            .unwrap_or("")
    }

    fn put(&mut self, model: Model, rows: Vec<Row>) {
        self.tables[model.index()] = Some(Table::new(model, rows));
    }

    /// The finished tables, in `Model::ALL` order, each indexed.
    fn finish(self) -> Vec<Table> {
        self.tables
            .into_iter()
            .map(|t| {
                let mut table = t.expect("every model is built");
                debug_assert_eq!(table.conforms(), Ok(()));
                table.index();
                table
            })
            .collect()
    }
}

fn rank_rows(b: &Builder, records: Vec<records::Rank>, model: Model) -> Vec<Row> {
    let parent = model.parent().map(|(_, m)| m);
    records
        .into_iter()
        .map(|r| {
            let mut v = vec![
                Value::Int(r.id),
                Value::own(r.name),
                Value::opt_own(r.common_name),
                Value::own(r.authority),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
            ];
            if let (Some(model), Some(id)) = (parent, r.parent) {
                v.push(b.reference(model, id));
            }
            v.into_boxed_slice()
        })
        .collect()
}

fn species_rows(b: &Builder, records: Vec<records::Species>, model: Model) -> Vec<Row> {
    let (_, parent) = model.parent().expect("a species rank has a parent");
    records
        .into_iter()
        .map(|r| {
            let p = b.pos(parent, r.parent);
            // binomial = genus name + name; trinomial = species binomial + name.
            let stem = match parent {
                Model::Genus => b.str_field(parent, p, "name"),
                _ => b.str_field(parent, p, "binomial"),
            };
            let full = Value::Str(format!("{stem} {}", r.name).into());
            vec![
                Value::Int(r.id),
                Value::own(r.name),
                full,
                Value::opt_own(r.common_name),
                Value::own(r.authority),
                Value::opt_own(r.mona),
                Value::opt_own(r.p3),
                Value::opt_own(r.ps),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
                Value::Ref(parent, p),
            ]
            .into_boxed_slice()
        })
        .collect()
}

/// Builds every model's table from the records, in `Model::ALL` order (a model
/// after every model it refers to), turning references into positions and
/// computing the derived fields; then indexes each table.
pub fn tables(c: Collection) -> Vec<Table> {
    let Collection {
        orders,
        families,
        subfamilies,
        tribes,
        genera,
        species,
        subspecies,
        countries,
        states,
        counties,
        localities,
        gps,
        collecting_trips,
        people,
        specimen_records,
    } = c;
    let mut b = Builder {
        tables: (0..Model::ALL.len()).map(|_| None).collect(),
    };
    b.put(Model::Order, rank_rows(&b, orders, Model::Order));
    b.put(Model::Family, rank_rows(&b, families, Model::Family));
    b.put(
        Model::Subfamily,
        rank_rows(&b, subfamilies, Model::Subfamily),
    );
    b.put(Model::Tribe, rank_rows(&b, tribes, Model::Tribe));
    b.put(Model::Genus, rank_rows(&b, genera, Model::Genus));
    b.put(Model::Species, species_rows(&b, species, Model::Species));
    b.put(
        Model::Subspecies,
        species_rows(&b, subspecies, Model::Subspecies),
    );
    b.put(
        Model::Country,
        countries.into_iter().map(country_row).collect(),
    );
    b.put(Model::State, rows(&b, states, state_row));
    b.put(Model::County, rows(&b, counties, county_row));
    b.put(Model::Locality, rows(&b, localities, locality_row));
    b.put(Model::Gps, rows(&b, gps, gps_row));
    b.put(Model::Person, people.into_iter().map(person_row).collect());
    b.put(Model::CollectingTrip, rows(&b, collecting_trips, trip_row));
    b.put(
        Model::SpecimenRecord,
        rows(&b, specimen_records, specimen_row),
    );
    b.finish()
}

fn rows<R>(b: &Builder, records: Vec<R>, row: fn(&Builder, R) -> Row) -> Vec<Row> {
    records.into_iter().map(|r| row(b, r)).collect()
}

fn country_row(r: records::Country) -> Row {
    vec![
        Value::Int(r.id),
        Value::own(r.name),
        Value::own(r.abbr),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
    ]
    .into_boxed_slice()
}

fn state_row(b: &Builder, r: records::State) -> Row {
    vec![
        Value::Int(r.id),
        Value::own(r.name),
        Value::own(r.abbr),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
        b.reference(Model::Country, r.country),
    ]
    .into_boxed_slice()
}

fn county_row(b: &Builder, r: records::County) -> Row {
    let state = b.pos(Model::State, r.state);
    let abbr = derived::county_abbr(b.str_field(Model::State, state, "name"), &r.name);
    let full_name = Value::Str(derived::county_full_name(&r.name, abbr).into());
    vec![
        Value::Int(r.id),
        Value::own(r.name),
        Value::str(abbr),
        full_name,
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
        Value::Ref(Model::State, state),
    ]
    .into_boxed_slice()
}

fn locality_row(b: &Builder, r: records::Locality) -> Row {
    vec![
        Value::Int(r.id),
        Value::opt_own(r.name),
        Value::opt_own(r.range),
        Value::opt_own(r.town),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
        b.opt_ref(Model::Country, r.country),
        b.opt_ref(Model::State, r.state),
        b.opt_ref(Model::County, r.county),
    ]
    .into_boxed_slice()
}

fn gps_row(b: &Builder, r: records::Gps) -> Row {
    let meters = Value::Str(format!("{}m", r.elevation).into());
    vec![
        Value::Int(r.id),
        Value::opt_own(r.latitude),
        Value::opt_own(r.longitude),
        Value::own(r.elevation),
        meters,
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
        b.reference(Model::Locality, r.locality),
    ]
    .into_boxed_slice()
}

fn person_row(r: records::Person) -> Row {
    let (mi, sx) = (r.middle_initial.as_deref(), r.suffix.as_deref());
    let collector_name = derived::collector_name(&r.first_name, &r.last_name, sx);
    let full_name = derived::person_full_name(&r.first_name, mi, &r.last_name, sx);
    vec![
        Value::Int(r.id),
        Value::own(r.first_name),
        Value::opt_own(r.middle_initial),
        Value::own(r.last_name),
        Value::opt_own(r.suffix),
        Value::Str(collector_name.into()),
        Value::Str(full_name.into()),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
    ]
    .into_boxed_slice()
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
    vec![
        Value::Int(r.id),
        Value::own(r.name),
        Value::Str(slug.into()),
        Value::Refs(Model::State, states.into()),
        Value::own(r.start_date),
        Value::own(r.end_date),
        Value::opt_own(r.notes),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
    ]
    .into_boxed_slice()
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
    .unwrap_or(Value::Null);
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
    vec![
        Value::Int(r.id),
        Value::own(r.usi),
        b.opt_ref(Order, r.order),
        b.opt_ref(Family, r.family),
        b.opt_ref(Subfamily, r.subfamily),
        b.opt_ref(Tribe, r.tribe),
        b.opt_ref(Genus, r.genus),
        b.opt_ref(Species, r.species),
        b.opt_ref(Subspecies, r.subspecies),
        taxon,
        b.opt_ref(Person, r.determiner),
        Value::opt_int(r.determined_year),
        Value::own(r.sex),
        Value::own(r.stage),
        b.opt_ref(Person, r.preparer),
        Value::own(r.preparation),
        Value::opt_own(r.preparation_date),
        Value::opt_bool(r.labels_printed),
        Value::opt_bool(r.labeled),
        Value::opt_bool(r.photographed),
        Value::Bool(r.species.is_some()),
        b.opt_ref(CollectingTrip, r.collecting_trip),
        b.opt_ref(Country, r.country),
        b.opt_ref(State, r.state),
        b.opt_ref(County, r.county),
        b.opt_ref(Locality, r.locality),
        b.opt_ref(Gps, r.gps),
        Value::opt_int(r.day),
        Value::own(r.month),
        Value::opt_int(r.year),
        Value::Str(dates.collected.into()),
        Value::Str(dates.full.into()),
        Value::Str(dates.numeric.into()),
        Value::Refs(Person, collectors.into()),
        Value::Str(names.join(", ").into()),
        Value::own(r.method),
        Value::own(r.weather),
        Value::own(r.temperature),
        Value::Str(derived::temp_f(t).into()),
        Value::Str(derived::temp_c(t).into()),
        Value::own(r.time_of_day),
        Value::own(r.habitat),
        Value::own(r.notes),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
    ]
    .into_boxed_slice()
}
