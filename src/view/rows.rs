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
            .map(|t| {
                let mut table = t.expect("every model is built");
                table.index();
                table
            })
            .collect()
    }
}

fn rank_rows(b: &Builder, records: Vec<records::Rank>, model: Model) -> Table {
    let parent = model.parent().map(|(_, m)| m);
    let featured = model.field_index("featured_image").is_some();
    let rows = records.into_iter().map(|r| {
        let mut v = vec![
            OwnedValue::Int(r.id),
            OwnedValue::own(r.name),
            OwnedValue::opt_own(r.common_name),
            OwnedValue::own(r.authority),
            OwnedValue::Time(r.date_created),
            OwnedValue::Time(r.date_modified),
        ];
        if let (Some(model), Some(id)) = (parent, r.parent) {
            v.push(b.reference(model, id));
        }
        if featured {
            v.push(b.opt_ref(Model::Image, r.featured_image));
        }
        v
    });
    Table::new(model, rows)
}

fn species_rows(b: &Builder, records: Vec<records::Species>, model: Model) -> Table {
    let (_, parent) = model.parent().expect("a species rank has a parent");
    let featured = model.field_index("featured_image").is_some();
    let rows = records.into_iter().map(|r| {
        let p = b.pos(parent, r.parent);
        // binomial = genus name + name; trinomial = species binomial + name.
        let stem = match parent {
            Model::Genus => b.str_field(parent, p, "name"),
            _ => b.str_field(parent, p, "binomial"),
        };
        let full = OwnedValue::Str(format!("{stem} {}", r.name).into());
        let mut v = vec![
            OwnedValue::Int(r.id),
            OwnedValue::own(r.name),
            full,
            OwnedValue::opt_own(r.common_name),
            OwnedValue::own(r.authority),
            OwnedValue::opt_own(r.mona),
            OwnedValue::opt_own(r.p3),
            OwnedValue::opt_own(r.ps),
            OwnedValue::Time(r.date_created),
            OwnedValue::Time(r.date_modified),
            OwnedValue::Ref(parent, p),
        ];
        if featured {
            v.push(b.opt_ref(Model::Image, r.featured_image));
        }
        v
    });
    Table::new(model, rows)
}

/// Builds every model's table from the records, in `Model::ALL` order (a model
/// after every model it refers to), turning references into positions and
/// computing the derived fields; then indexes each table.
pub fn tables(c: Collection) -> Vec<Table> {
    let mut ids = vec![Vec::new(); Model::ALL.len()];
    for model in Model::ALL {
        ids[model.index()] = c.ids(model);
    }
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
        images,
        pages,
        renditions,
        species_pages,
        site: _,
    } = c;
    let mut b = Builder {
        tables: (0..Model::ALL.len()).map(|_| None).collect(),
        ids,
        renditions: AHashMap::new(),
        subspecies: AHashMap::new(),
        featured_by_family: AHashSet::new(),
        featured_by_species: AHashSet::new(),
    };
    b.put(
        Model::Rendition,
        rows(&b, Model::Rendition, renditions, rendition_row),
    );
    b.index_renditions();
    b.put(Model::Image, rows(&b, Model::Image, images, image_row));
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
    b.index_featured();
    b.put(
        Model::Country,
        Table::new(Model::Country, countries.into_iter().map(country_row)),
    );
    b.put(Model::State, rows(&b, Model::State, states, state_row));
    b.put(Model::County, rows(&b, Model::County, counties, county_row));
    b.put(
        Model::Locality,
        rows(&b, Model::Locality, localities, locality_row),
    );
    b.put(Model::Gps, rows(&b, Model::Gps, gps, gps_row));
    b.put(
        Model::Person,
        Table::new(Model::Person, people.into_iter().map(person_row)),
    );
    b.put(
        Model::CollectingTrip,
        rows(&b, Model::CollectingTrip, collecting_trips, trip_row),
    );
    b.put(
        Model::SpecimenRecord,
        rows(&b, Model::SpecimenRecord, specimen_records, specimen_row),
    );
    b.put(
        Model::Page,
        Table::new(Model::Page, pages.into_iter().map(page_row)),
    );
    b.index_subspecies();
    b.put(
        Model::SpeciesPage,
        rows(&b, Model::SpeciesPage, species_pages, species_page_row),
    );
    for model in [
        Model::SpecimenRecordImage,
        Model::InsectImage,
        Model::PlantImage,
        Model::HabitatImage,
    ] {
        let images = b.table(Model::Image);
        let kind = Model::Image.field_index("image_type").expect("a kind");
        let of_kind: Vec<u32> = (0..images.len())
            .filter(|&pos| images.get(pos, kind).as_str() == model.image_type())
            .map(|pos| pos as u32)
            .collect();
        let rows = of_kind
            .into_iter()
            .map(|pos| typed_image_row(&b, model, pos));
        let table = Table::new(model, rows);
        b.put(model, table);
    }
    b.finish()
}

fn rows<R: Send>(b: &Builder, model: Model, records: Vec<R>, row: fn(&Builder, R) -> Row) -> Table {
    Table::new(model, records.into_iter().map(|r| row(b, r)))
}

fn country_row(r: records::Country) -> Row {
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::own(r.name),
        OwnedValue::own(r.abbr),
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
    ]
}

fn state_row(b: &Builder, r: records::State) -> Row {
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::own(r.name),
        OwnedValue::own(r.abbr),
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
        b.reference(Model::Country, r.country),
    ]
}

fn county_row(b: &Builder, r: records::County) -> Row {
    let state = b.pos(Model::State, r.state);
    let abbr = derived::county_abbr(b.str_field(Model::State, state, "name"), &r.name);
    let full_name = OwnedValue::Str(derived::county_full_name(&r.name, abbr).into());
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::own(r.name),
        OwnedValue::str(abbr),
        full_name,
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
        OwnedValue::Ref(Model::State, state),
    ]
}

fn locality_row(b: &Builder, r: records::Locality) -> Row {
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::opt_own(r.name),
        OwnedValue::opt_own(r.range),
        OwnedValue::opt_own(r.town),
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
        b.opt_ref(Model::Country, r.country),
        b.opt_ref(Model::State, r.state),
        b.opt_ref(Model::County, r.county),
    ]
}

fn gps_row(b: &Builder, r: records::Gps) -> Row {
    let meters = OwnedValue::Str(format!("{}m", r.elevation).into());
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::opt_own(r.latitude),
        OwnedValue::opt_own(r.longitude),
        OwnedValue::own(r.elevation),
        meters,
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
        b.reference(Model::Locality, r.locality),
    ]
}

fn person_row(r: records::Person) -> Row {
    let (mi, sx) = (r.middle_initial.as_deref(), r.suffix.as_deref());
    let collector_name = derived::collector_name(&r.first_name, mi, &r.last_name, sx);
    let full_name = derived::person_full_name(&r.first_name, mi, &r.last_name, sx);
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::own(r.first_name),
        OwnedValue::opt_own(r.middle_initial),
        OwnedValue::own(r.last_name),
        OwnedValue::opt_own(r.suffix),
        OwnedValue::Str(collector_name.into()),
        OwnedValue::Str(full_name.into()),
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
    ]
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
        OwnedValue::Int(r.id),
        OwnedValue::own(r.name),
        OwnedValue::Str(slug.into()),
        OwnedValue::Refs(Model::State, states.into()),
        OwnedValue::own(r.start_date),
        OwnedValue::own(r.end_date),
        OwnedValue::opt_own(r.notes),
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
    ]
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
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::own(r.usi),
        b.opt_ref(Order, r.order),
        b.opt_ref(Family, r.family),
        b.opt_ref(Subfamily, r.subfamily),
        b.opt_ref(Tribe, r.tribe),
        b.opt_ref(Genus, r.genus),
        b.opt_ref(Species, r.species),
        b.opt_ref(Subspecies, r.subspecies),
        taxon,
        b.opt_ref(Person, r.determiner),
        OwnedValue::opt_int(r.determined_year),
        OwnedValue::own(r.sex),
        OwnedValue::own(r.stage),
        b.opt_ref(Person, r.preparer),
        OwnedValue::own(r.preparation),
        OwnedValue::opt_own(r.preparation_date),
        OwnedValue::opt_bool(r.labels_printed),
        OwnedValue::opt_bool(r.labeled),
        OwnedValue::opt_bool(r.photographed),
        OwnedValue::Bool(r.species.is_some()),
        b.opt_ref(CollectingTrip, r.collecting_trip),
        b.opt_ref(Country, r.country),
        b.opt_ref(State, r.state),
        b.opt_ref(County, r.county),
        b.opt_ref(Locality, r.locality),
        b.opt_ref(Gps, r.gps),
        OwnedValue::opt_int(r.day),
        OwnedValue::own(r.month),
        OwnedValue::opt_int(r.year),
        OwnedValue::Str(dates.collected.into()),
        OwnedValue::Str(dates.full.into()),
        OwnedValue::Str(dates.numeric.into()),
        OwnedValue::Refs(Person, collectors.into()),
        OwnedValue::Str(names.join(", ").into()),
        OwnedValue::own(r.method),
        OwnedValue::own(r.weather),
        OwnedValue::own(r.temperature),
        OwnedValue::Str(derived::temp_f(t).into()),
        OwnedValue::Str(derived::temp_c(t).into()),
        OwnedValue::own(r.time_of_day),
        OwnedValue::own(r.habitat),
        OwnedValue::own(r.notes),
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
    ]
}

/// An image as a `featured_image` shows it: its renditions, then its row.
fn image_row(b: &Builder, r: records::Image) -> Row {
    let renditions = b.renditions.get(&r.id).copied().unwrap_or_default();
    let mut v = vec![OwnedValue::Int(r.id)];
    v.extend(
        renditions.map(|r| r.map_or(OwnedValue::Null, |p| OwnedValue::Ref(Model::Rendition, p))),
    );
    v.extend([
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
        OwnedValue::own(r.title),
        OwnedValue::own(r.file),
        OwnedValue::own(r.description),
        OwnedValue::Int(r.width),
        OwnedValue::Int(r.height),
        OwnedValue::Time(r.created_at),
        OwnedValue::opt_int(r.focal_point_x),
        OwnedValue::opt_int(r.focal_point_y),
        OwnedValue::opt_int(r.focal_point_width),
        OwnedValue::opt_int(r.focal_point_height),
        OwnedValue::opt_int(r.file_size),
        OwnedValue::own(r.file_hash),
        OwnedValue::own(r.alt_text),
        OwnedValue::own(r.date),
        OwnedValue::own(r.notes),
        OwnedValue::own(r.image_type),
        OwnedValue::own(r.position),
        OwnedValue::own(r.sex),
        OwnedValue::own(r.stage),
        OwnedValue::own(r.status),
        OwnedValue::own(r.scientific_name),
        OwnedValue::own(r.common_name),
        OwnedValue::Int(r.collection),
        OwnedValue::opt_int(r.uploaded_by_user),
        b.opt_ref(Model::Country, r.country),
        b.opt_ref(Model::State, r.state),
        b.opt_ref(Model::County, r.county),
        b.opt_ref(Model::Locality, r.locality),
        b.opt_ref(Model::Gps, r.gps),
        b.opt_ref(Model::CollectingTrip, r.collecting_trip),
        b.opt_ref(Model::SpecimenRecord, r.specimen_record),
        b.opt_ref(Model::Species, r.species),
        b.opt_ref(Model::SpeciesPage, r.species_page),
        page_refs(b, &r.plant_species_page),
        page_refs(b, &r.habitat_species_page),
    ]);
    v
}

fn page_row(r: records::Page) -> Row {
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::own(r.title),
        OwnedValue::own(r.slug),
        OwnedValue::Bool(r.live),
        r.first_published_at
            .map_or(OwnedValue::Null, OwnedValue::Time),
        r.last_published_at
            .map_or(OwnedValue::Null, OwnedValue::Time),
    ]
}

fn rendition_row(b: &Builder, r: records::Rendition) -> Row {
    vec![
        OwnedValue::Int(r.id),
        OwnedValue::Time(r.date_created),
        OwnedValue::Time(r.date_modified),
        OwnedValue::own(r.filter_spec),
        OwnedValue::own(r.file),
        OwnedValue::Int(r.width),
        OwnedValue::Int(r.height),
        OwnedValue::own(r.focal_point_key),
        b.reference(Model::Image, r.image),
    ]
}

/// A species page: the page's title, slug and publication, the species' ranks
/// (each in its plain shape) and its subspecies by name, and the page's text.
fn species_page_row(b: &Builder, r: records::SpeciesPage) -> Row {
    let page = b.row(Model::Page, r.id, 0);
    let page_field = |name| page[Model::Page.field_index(name).expect("a page field")].clone();
    let mut v = vec![
        OwnedValue::Int(r.id),
        page_field("title"),
        page_field("slug"),
    ];
    match r.species.map(|id| b.pos(Model::Species, id)) {
        Some(species) => {
            v.extend(b.lineage(species).map(|(m, p)| OwnedValue::Ref(m, p)));
            let subspecies = b.subspecies.get(&species).cloned().unwrap_or_default();
            v.push(OwnedValue::Refs(Model::Subspecies, subspecies.into()));
        }
        None => {
            v.extend(std::iter::repeat_n(OwnedValue::Null, 6));
            v.push(OwnedValue::Refs(Model::Subspecies, Box::new([])));
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
        .map(OwnedValue::own),
    );
    v.push(page_field("first_published_at"));
    v.push(page_field("last_published_at"));
    v
}

/// An item of a typed image list (the service's before 0.16), from an image of
/// its kind: id, the renditions, `lead`, the image's own fields, `kind`, where
/// it is kept, then `tail`, as the typed field tables order them.
fn typed_image_row(b: &Builder, model: Model, pos: u32) -> Row {
    let id = b.table(Model::Image).id(pos);
    let image = b.row(Model::Image, id, 0);
    let field = |name| image[Model::Image.field_index(name).expect("an image field")].clone();
    let places = || {
        [
            "country",
            "state",
            "county",
            "locality",
            "gps",
            "collecting_trip",
        ]
        .map(field)
    };
    let (lead, kind, tail): (Vec<OwnedValue>, Vec<OwnedValue>, Vec<OwnedValue>) = match model {
        Model::SpecimenRecordImage => (
            vec![],
            vec![field("position")],
            vec![field("specimen_record")],
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
            let lead = vec![OwnedValue::Bool(linked), family, binomial];
            let kind = vec![
                OwnedValue::Bool(b.featured_by_family.contains(&id)),
                OwnedValue::Bool(b.featured_by_species.contains(&id)),
                field("sex"),
                field("stage"),
                field("status"),
            ];
            let mut tail = places().to_vec();
            tail.extend([field("species"), field("species_page")]);
            (lead, kind, tail)
        }
        Model::PlantImage => {
            let mut tail = places().to_vec();
            tail.push(field("plant_species_page"));
            (
                vec![],
                vec![field("scientific_name"), field("common_name")],
                tail,
            )
        }
        _ => {
            let mut tail = places().to_vec();
            tail.push(field("habitat_species_page"));
            (vec![], vec![], tail)
        }
    };
    let mut v = vec![OwnedValue::Int(id)];
    v.extend(image[1..7].iter().cloned());
    v.extend(lead);
    v.extend(IMAGE_FIELDS.map(field));
    v.extend(kind);
    v.push(field("collection"));
    v.push(field("uploaded_by_user"));
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
