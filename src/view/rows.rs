//! Row building: a snapshot's raw records become rows of [`Value`]s, one per field
//! of the model's table, in table order, with references turned into positions
//! and the derived fields computed.

use ahash::AHashMap;

use crate::model::records::{self, Collection};
use crate::model::schema::{IMAGE_FIELDS, RENDITIONS};
use crate::model::{derived, Model};

use super::table::Table;
use super::value::{Row, Value};

/// Resolves references to positions while rows are built. A snapshot that passed
/// validation has every target, so a miss is a bug, and panics.
struct Builder {
    tables: Vec<Option<Table>>,
    /// Each image's renditions by image id, in `RENDITIONS` order.
    renditions: AHashMap<i64, [Option<u32>; 6]>,
    /// Each species' subspecies by the species' position, by name then id.
    subspecies: AHashMap<u32, Vec<u32>>,
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
        self.field(model, pos, field).as_str().unwrap_or("")
    }

    fn field(&self, model: Model, pos: u32, field: &str) -> &Value {
        let f = model.field_index(field).expect("field exists");
        &self.table(model).rows[pos as usize][f]
    }

    /// The row of the record with this id.
    fn row(&self, model: Model, id: i64) -> &Row {
        &self.table(model).rows[self.pos(model, id) as usize]
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
            out[i] = match *self.field(model, pos, name) {
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
        for (pos, row) in table.rows.iter().enumerate() {
            let spec = row[Model::Rendition
                .field_index("filter_spec")
                .expect("a rendition has a filter")]
            .as_str()
            .unwrap_or_default();
            let Some(slot) = RENDITIONS.iter().position(|(_, s)| *s == spec) else {
                continue;
            };
            let image = match row[Model::Rendition
                .field_index("image")
                .expect("a rendition has an image")]
            {
                Value::Ref(m, p) => self.table(m).id(p),
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
        for pos in 0..table.rows.len() as u32 {
            if let Value::Ref(_, species) = *self.field(Model::Subspecies, pos, parent) {
                of.entry(species).or_default().push(pos);
            }
        }
        for list in of.values_mut() {
            list.sort_by_key(|&p| (self.str_field(Model::Subspecies, p, "name"), p));
        }
        self.subspecies = of;
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
        custom_images,
        live_images,
        pages,
        renditions,
        specimen_record_images,
        insect_images,
        plant_images,
        habitat_images,
        species_pages,
    } = c;
    let mut b = Builder {
        tables: (0..Model::ALL.len()).map(|_| None).collect(),
        renditions: AHashMap::new(),
        subspecies: AHashMap::new(),
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
    b.put(
        Model::CustomImage,
        custom_images.into_iter().map(custom_image_row).collect(),
    );
    b.put(Model::LiveImage, rows(&b, live_images, live_image_row));
    b.put(Model::Page, pages.into_iter().map(page_row).collect());
    b.put(Model::Rendition, rows(&b, renditions, rendition_row));
    b.index_renditions();
    b.index_subspecies();
    b.put(
        Model::SpeciesPage,
        rows(&b, species_pages, species_page_row),
    );
    b.put(
        Model::SpecimenRecordImage,
        rows(&b, specimen_record_images, specimen_record_image_row),
    );
    b.put(
        Model::InsectImage,
        rows(&b, insect_images, insect_image_row),
    );
    b.put(Model::PlantImage, rows(&b, plant_images, plant_image_row));
    b.put(
        Model::HabitatImage,
        rows(&b, habitat_images, habitat_image_row),
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

fn custom_image_row(r: records::CustomImage) -> Row {
    vec![
        Value::Int(r.id),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
        Value::own(r.title),
        Value::own(r.file),
        Value::own(r.description),
        Value::Int(r.width),
        Value::Int(r.height),
        Value::Time(r.created_at),
        Value::opt_int(r.focal_point_x),
        Value::opt_int(r.focal_point_y),
        Value::opt_int(r.focal_point_width),
        Value::opt_int(r.focal_point_height),
        Value::opt_int(r.file_size),
        Value::own(r.file_hash),
        Value::own(r.alt_text),
        Value::own(r.date),
        Value::own(r.notes),
        Value::Int(r.collection),
        Value::opt_int(r.uploaded_by_user),
    ]
    .into_boxed_slice()
}

fn live_image_row(b: &Builder, r: records::LiveImage) -> Row {
    vec![
        Value::Int(r.id),
        b.opt_ref(Model::Country, r.country),
        b.opt_ref(Model::State, r.state),
        b.opt_ref(Model::County, r.county),
        b.opt_ref(Model::Locality, r.locality),
        b.opt_ref(Model::Gps, r.gps),
        b.opt_ref(Model::CollectingTrip, r.collecting_trip),
    ]
    .into_boxed_slice()
}

fn page_row(r: records::Page) -> Row {
    vec![
        Value::Int(r.id),
        Value::own(r.title),
        Value::own(r.slug),
        Value::Bool(r.live),
        r.first_published_at.map_or(Value::Null, Value::Time),
        r.last_published_at.map_or(Value::Null, Value::Time),
    ]
    .into_boxed_slice()
}

fn rendition_row(b: &Builder, r: records::Rendition) -> Row {
    vec![
        Value::Int(r.id),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
        Value::own(r.filter_spec),
        Value::own(r.file),
        Value::Int(r.width),
        Value::Int(r.height),
        Value::own(r.focal_point_key),
        b.reference(Model::CustomImage, r.image),
    ]
    .into_boxed_slice()
}

/// A species page: the page's title, slug and publication, the species' ranks
/// (each in its plain shape) and its subspecies by name, and the page's text.
fn species_page_row(b: &Builder, r: records::SpeciesPage) -> Row {
    let page = b.row(Model::Page, r.id);
    let page_field = |name| page[Model::Page.field_index(name).expect("a page field")].clone();
    let mut v = vec![Value::Int(r.id), page_field("title"), page_field("slug")];
    match r.species.map(|id| b.pos(Model::Species, id)) {
        Some(species) => {
            v.extend(b.lineage(species).map(|(m, p)| Value::Ref(m, p)));
            let subspecies = b.subspecies.get(&species).cloned().unwrap_or_default();
            v.push(Value::Refs(Model::Subspecies, subspecies.into()));
        }
        None => {
            v.extend(std::iter::repeat_n(Value::Null, 6));
            v.push(Value::Refs(Model::Subspecies, Box::new([])));
        }
    }
    v.extend(
        [
            r.taxonomy,
            r.description,
            r.distribution,
            r.seasonality,
            r.habitat,
            r.food,
            r.life_cycle,
        ]
        .map(Value::own),
    );
    v.push(page_field("first_published_at"));
    v.push(page_field("last_published_at"));
    v.into_boxed_slice()
}

/// An image item of any kind: id, its renditions, `lead`, the fields of its
/// [`Model::CustomImage`] part, `kind`, where it is kept, then `tail`, as the
/// image field tables order them.
fn image_row(b: &Builder, id: i64, lead: Vec<Value>, kind: Vec<Value>, tail: Vec<Value>) -> Row {
    let image = b.row(Model::CustomImage, id);
    let field = |name| {
        image[Model::CustomImage
            .field_index(name)
            .expect("an image field")]
        .clone()
    };
    let renditions = b.renditions.get(&id).copied().unwrap_or_default();
    let mut v = vec![Value::Int(id)];
    v.extend(renditions.map(|r| r.map_or(Value::Null, |p| Value::Ref(Model::Rendition, p))));
    v.extend(lead);
    v.extend(IMAGE_FIELDS.map(field));
    v.extend(kind);
    v.push(field("collection"));
    v.push(field("uploaded_by_user"));
    v.extend(tail);
    v.into_boxed_slice()
}

/// Where an insect, plant or habitat image was taken: its live part's places.
fn live_fields(b: &Builder, id: i64) -> Vec<Value> {
    b.row(Model::LiveImage, id)[1..].to_vec()
}

fn specimen_record_image_row(b: &Builder, r: records::SpecimenRecordImage) -> Row {
    let usi = b.reference(Model::SpecimenRecord, r.usi);
    image_row(b, r.id, Vec::new(), vec![Value::own(r.position)], vec![usi])
}

/// An insect image; `identified` when it is linked to a species page, and the
/// species' family and binomial when it names a species (absent otherwise).
fn insect_image_row(b: &Builder, r: records::InsectImage) -> Row {
    let species = r.species.map(|id| b.pos(Model::Species, id));
    let (family, binomial) = match species {
        Some(s) => {
            let (_, family) = b.lineage(s)[1];
            (
                Value::str(b.str_field(Model::Family, family, "name")),
                Value::str(b.str_field(Model::Species, s, "binomial")),
            )
        }
        None => (Value::Null, Value::Null),
    };
    let lead = vec![Value::Bool(r.species_page.is_some()), family, binomial];
    let kind = vec![
        Value::Bool(r.featured_family),
        Value::Bool(r.featured_species),
        Value::own(r.sex),
        Value::own(r.stage),
        Value::own(r.status),
    ];
    let mut tail = live_fields(b, r.id);
    tail.push(species.map_or(Value::Null, |p| Value::Ref(Model::Species, p)));
    tail.push(b.opt_ref(Model::SpeciesPage, r.species_page));
    image_row(b, r.id, lead, kind, tail)
}

fn page_refs(b: &Builder, ids: &[i64]) -> Value {
    let positions: Vec<u32> = ids
        .iter()
        .map(|&id| b.pos(Model::SpeciesPage, id))
        .collect();
    Value::Refs(Model::SpeciesPage, positions.into())
}

fn plant_image_row(b: &Builder, r: records::PlantImage) -> Row {
    let kind = vec![Value::own(r.scientific_name), Value::own(r.common_name)];
    let mut tail = live_fields(b, r.id);
    tail.push(page_refs(b, &r.species_page));
    image_row(b, r.id, Vec::new(), kind, tail)
}

fn habitat_image_row(b: &Builder, r: records::HabitatImage) -> Row {
    let mut tail = live_fields(b, r.id);
    tail.push(page_refs(b, &r.species_page));
    image_row(b, r.id, Vec::new(), Vec::new(), tail)
}
