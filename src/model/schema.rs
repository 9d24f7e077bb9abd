//! The models and their field tables: the one definition of every item shape.
//!
//! Rendering, filtering, the OpenAPI document and the endpoint table all read these
//! tables, so an item's key exists in exactly one place. The order of a table is the
//! key order of the item.

/// What a field holds, and how it appears in an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Int,
    Bool,
    Str,
    /// An instant, served as `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
    Time,
    /// A calendar date, served as `YYYY-MM-DD`.
    Date,
    /// A parent: its id in plain lists, its nested shape in nested lists.
    Parent(Model),
    /// A related record embedded in its plain shape in every list.
    Embed(Model),
    /// The most specific taxon of a specimen: any rank, embedded in its plain shape.
    Taxon,
    /// Several related records, each embedded in its plain shape.
    EmbedMany(Model),
    /// A related record served as its id, in every shape.
    RefId(Model),
    /// Several related records served as their ids.
    RefIds(Model),
    /// A stored media file path, served as an absolute URL under the media base
    /// (which depends on the request or `--media-url`).
    MediaFile,
}

/// One field of an item.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: Type,
    pub nullable: bool,
    /// The key is left out of the item, rather than null, when there is no value
    /// (as the existing service's insect images leave out `family`).
    pub absent_when_null: bool,
}

const fn f(name: &'static str, ty: Type) -> Field {
    Field {
        name,
        ty,
        nullable: false,
        absent_when_null: false,
    }
}

const fn n(name: &'static str, ty: Type) -> Field {
    Field {
        name,
        ty,
        nullable: true,
        absent_when_null: false,
    }
}

/// A field whose key is absent when it has no value.
const fn absent(name: &'static str, ty: Type) -> Field {
    Field {
        name,
        ty,
        nullable: true,
        absent_when_null: true,
    }
}

use Type::*;

const ORDER: &[Field] = &[
    f("id", Int),
    f("name", Str),
    n("common_name", Str),
    f("authority", Str),
    f("date_created", Time),
    f("date_modified", Time),
    n("featured_image", Embed(Model::Image)),
];

macro_rules! rank_fields {
    ($parent:literal, $model:expr $(, $featured:expr)?) => {
        &[
            f("id", Int),
            f("name", Str),
            n("common_name", Str),
            f("authority", Str),
            f("date_created", Time),
            f("date_modified", Time),
            f($parent, Parent($model)),
            $($featured,)?
        ]
    };
}

const FAMILY: &[Field] = rank_fields!(
    "order",
    Model::Order,
    n("featured_image", Embed(Model::Image))
);
const SUBFAMILY: &[Field] = rank_fields!("family", Model::Family);
const TRIBE: &[Field] = rank_fields!("subfamily", Model::Subfamily);
const GENUS: &[Field] = rank_fields!("tribe", Model::Tribe);

const SPECIES: &[Field] = &[
    f("id", Int),
    f("name", Str),
    f("binomial", Str),
    n("common_name", Str),
    f("authority", Str),
    n("mona", Str),
    n("p3", Str),
    n("ps", Str),
    f("date_created", Time),
    f("date_modified", Time),
    f("genus", Parent(Model::Genus)),
    n("featured_image", Embed(Model::Image)),
];

const SUBSPECIES: &[Field] = &[
    f("id", Int),
    f("name", Str),
    f("trinomial", Str),
    n("common_name", Str),
    f("authority", Str),
    n("mona", Str),
    n("p3", Str),
    n("ps", Str),
    f("date_created", Time),
    f("date_modified", Time),
    f("species", Parent(Model::Species)),
];

const COUNTRY: &[Field] = &[
    f("id", Int),
    f("name", Str),
    f("abbr", Str),
    f("date_created", Time),
    f("date_modified", Time),
];

const STATE: &[Field] = &[
    f("id", Int),
    f("name", Str),
    f("abbr", Str),
    f("date_created", Time),
    f("date_modified", Time),
    f("country", Parent(Model::Country)),
];

const COUNTY: &[Field] = &[
    f("id", Int),
    f("name", Str),
    f("abbr", Str),
    f("full_name", Str),
    f("date_created", Time),
    f("date_modified", Time),
    f("state", Parent(Model::State)),
];

const LOCALITY: &[Field] = &[
    f("id", Int),
    n("name", Str),
    n("range", Str),
    n("town", Str),
    f("date_created", Time),
    f("date_modified", Time),
    n("country", Parent(Model::Country)),
    n("state", Parent(Model::State)),
    n("county", Parent(Model::County)),
];

const GPS: &[Field] = &[
    f("id", Int),
    n("latitude", Str),
    n("longitude", Str),
    f("elevation", Str),
    f("elevation_meters", Str),
    f("date_created", Time),
    f("date_modified", Time),
    f("locality", Parent(Model::Locality)),
];

const COLLECTING_TRIP: &[Field] = &[
    f("id", Int),
    f("name", Str),
    f("slug", Str),
    f("states", EmbedMany(Model::State)),
    f("start_date", Date),
    f("end_date", Date),
    n("notes", Str),
    f("date_created", Time),
    f("date_modified", Time),
];

const PERSON: &[Field] = &[
    f("id", Int),
    f("first_name", Str),
    n("middle_initial", Str),
    f("last_name", Str),
    n("suffix", Str),
    f("collector_name", Str),
    f("full_name", Str),
    f("date_created", Time),
    f("date_modified", Time),
];

const SPECIMEN_RECORD: &[Field] = &[
    f("id", Int),
    f("usi", Str),
    n("order", Embed(Model::Order)),
    n("family", Embed(Model::Family)),
    n("subfamily", Embed(Model::Subfamily)),
    n("tribe", Embed(Model::Tribe)),
    n("genus", Embed(Model::Genus)),
    n("species", Embed(Model::Species)),
    n("subspecies", Embed(Model::Subspecies)),
    n("taxon", Taxon),
    n("determiner", Embed(Model::Person)),
    n("determined_year", Int),
    f("sex", Str),
    f("stage", Str),
    n("preparer", Embed(Model::Person)),
    f("preparation", Str),
    n("preparation_date", Date),
    n("labels_printed", Bool),
    n("labeled", Bool),
    n("photographed", Bool),
    f("identified", Bool),
    n("collecting_trip", Embed(Model::CollectingTrip)),
    n("country", Embed(Model::Country)),
    n("state", Embed(Model::State)),
    n("county", Embed(Model::County)),
    n("locality", Embed(Model::Locality)),
    n("gps", Embed(Model::Gps)),
    n("day", Int),
    f("month", Str),
    n("year", Int),
    f("collected_date", Str),
    f("full_date", Str),
    f("num_date", Str),
    f("collector", EmbedMany(Model::Person)),
    f("collectors", Str),
    f("method", Str),
    f("weather", Str),
    f("temperature", Str),
    f("temp_F", Str),
    f("temp_C", Str),
    f("time_of_day", Str),
    f("habitat", Str),
    f("notes", Str),
    f("date_created", Time),
    f("date_modified", Time),
];

/// The fields every typed image list copies from the image, in the order the
/// items show them (`collection` and `uploaded_by_user` come later).
pub const IMAGE_FIELDS: [&str; 17] = [
    "date_created",
    "date_modified",
    "title",
    "file",
    "description",
    "width",
    "height",
    "created_at",
    "focal_point_x",
    "focal_point_y",
    "focal_point_width",
    "focal_point_height",
    "file_size",
    "file_hash",
    "alt_text",
    "date",
    "notes",
];

const PAGE: &[Field] = &[
    f("id", Int),
    f("title", Str),
    f("slug", Str),
    f("live", Bool),
    n("first_published_at", Time),
    n("last_published_at", Time),
];

const RENDITION: &[Field] = &[
    f("id", Int),
    f("date_created", Time),
    f("date_modified", Time),
    f("filter_spec", Str),
    f("file", MediaFile),
    f("width", Int),
    f("height", Int),
    f("focal_point_key", Str),
    f("image", RefId(Model::Image)),
];

/// The six renditions every image item embeds: its key, and the filter that made
/// the rendition.
pub const RENDITIONS: [(&str, &str); 6] = [
    ("x_large", "max-2000x2000"),
    ("large", "max-1500x1500"),
    ("medium", "max-1200x1200"),
    ("small", "max-900x900"),
    ("x_small", "max-600x600"),
    ("thumbnail", "max-300x300"),
];

/// An image item's fields: id, the renditions, `$lead`, the image's own fields,
/// `$kind`, where it is kept (`collection`, `uploaded_by_user`), where it was
/// taken for a `live` image, then `$tail`: the one image model's, and each
/// typed list's.
macro_rules! image_fields {
    ([$($lead:expr),*], [$($kind:expr),*], [$($tail:expr),*]) => {
        &[
            f("id", Int),
            n("x_large", Embed(Model::Rendition)),
            n("large", Embed(Model::Rendition)),
            n("medium", Embed(Model::Rendition)),
            n("small", Embed(Model::Rendition)),
            n("x_small", Embed(Model::Rendition)),
            n("thumbnail", Embed(Model::Rendition)),
            $($lead,)*
            f("date_created", Time),
            f("date_modified", Time),
            f("title", Str),
            f("file", MediaFile),
            f("description", Str),
            f("width", Int),
            f("height", Int),
            f("created_at", Time),
            n("focal_point_x", Int),
            n("focal_point_y", Int),
            n("focal_point_width", Int),
            n("focal_point_height", Int),
            n("file_size", Int),
            f("file_hash", Str),
            f("alt_text", Str),
            f("date", Date),
            f("notes", Str),
            $($kind,)*
            f("collection", Int),
            n("uploaded_by_user", Int),
            $($tail,)*
        ]
    };
    // An image taken in the field: where, before `$tail`.
    ([$($lead:expr),*], [$($kind:expr),*], live [$($tail:expr),*]) => {
        image_fields!(
            [$($lead),*],
            [$($kind),*],
            [
                n("country", RefId(Model::Country)),
                n("state", RefId(Model::State)),
                n("county", RefId(Model::County)),
                n("locality", RefId(Model::Locality)),
                n("gps", RefId(Model::Gps)),
                n("collecting_trip", RefId(Model::CollectingTrip))
                $(, $tail)*
            ]
        )
    };
}

/// An image in the one model of the service since 0.16, as a `featured_image`
/// shows it: id, the six renditions, then every column of the image's row.
const IMAGE: &[Field] = image_fields!(
    [],
    [
        f("image_type", Str),
        f("position", Str),
        f("sex", Str),
        f("stage", Str),
        f("status", Str),
        f("scientific_name", Str),
        f("common_name", Str)
    ],
    live [
        n("specimen_record", RefId(Model::SpecimenRecord)),
        n("species", RefId(Model::Species)),
        n("species_page", RefId(Model::SpeciesPage)),
        f("plant_species_page", RefIds(Model::SpeciesPage)),
        f("habitat_species_page", RefIds(Model::SpeciesPage))
    ]
);

const SPECIMEN_RECORD_IMAGE: &[Field] = image_fields!(
    [],
    [f("position", Str)],
    [n("usi", RefId(Model::SpecimenRecord))]
);

const INSECT_IMAGE: &[Field] = image_fields!(
    [
        f("identified", Bool),
        absent("family", Str),
        absent("species_binomial", Str)
    ],
    [
        f("featured_family", Bool),
        f("featured_species", Bool),
        f("sex", Str),
        f("stage", Str),
        f("status", Str)
    ],
    live [
        n("species", RefId(Model::Species)),
        n("species_page", RefId(Model::SpeciesPage))
    ]
);

const PLANT_IMAGE: &[Field] = image_fields!(
    [],
    [f("scientific_name", Str), f("common_name", Str)],
    live[f("species_page", RefIds(Model::SpeciesPage))]
);

const HABITAT_IMAGE: &[Field] =
    image_fields!([], [], live[f("species_page", RefIds(Model::SpeciesPage))]);

const SPECIES_PAGE: &[Field] = &[
    f("id", Int),
    f("title", Str),
    f("slug", Str),
    n("order", Embed(Model::Order)),
    n("family", Embed(Model::Family)),
    n("subfamily", Embed(Model::Subfamily)),
    n("tribe", Embed(Model::Tribe)),
    n("genus", Embed(Model::Genus)),
    n("species", Embed(Model::Species)),
    f("subspecies", EmbedMany(Model::Subspecies)),
    f("taxonomy", Str),
    f("description", Str),
    f("distribution", Str),
    f("seasonality", Str),
    f("habitat", Str),
    f("food", Str),
    f("life_cycle", Str),
    n("first_published_at", Time),
    n("last_published_at", Time),
];

/// The one list of models: each model's variant, its Django label (as `dumpdata`
/// writes it), its class name (as the API's "No X matches" message names it), the
/// path segment of its plain list and its field table. The `Model` enum, `ALL`
/// and the lookups below are made from it, so a model is added in one line here
/// (then its records in `records::Collection` and its rows in `view::rows`,
/// which the compiler asks for).
macro_rules! models {
    ($($(#[$doc:meta])* $variant:ident = $label:literal, $class:literal, $path:literal, $fields:ident;)*) => {
        /// One of the models: the collection's 15, and the tables of its images
        /// and pages. Declared in `ALL`'s order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Model {
            $($(#[$doc])* $variant,)*
        }

        impl Model {
            /// Every model, in an order where a model comes after everything it
            /// embeds (an image before the taxa that feature it). A model may
            /// refer by id to one that comes later: ids are known before any
            /// table is built.
            pub const ALL: [Model; [$($label),*].len()] = [$(Model::$variant),*];

            /// The Django label of the model, as `dumpdata` writes it.
            pub fn label(self) -> &'static str {
                match self {
                    $(Model::$variant => $label,)*
                }
            }

            /// The class name of the model, as the API's "No X matches" message
            /// names it.
            pub fn class_name(self) -> &'static str {
                match self {
                    $(Model::$variant => $class,)*
                }
            }

            /// The path segment of the model's plain list.
            pub fn path(self) -> &'static str {
                match self {
                    $(Model::$variant => $path,)*
                }
            }

            /// The field table: the keys of an item, in order.
            pub const fn fields(self) -> &'static [Field] {
                match self {
                    $(Model::$variant => $fields,)*
                }
            }
        }
    };
}

models! {
    /// A resized copy of an image (`images.customrendition`), embedded in images.
    Rendition = "images.customrendition", "CustomRendition", "renditions", RENDITION;
    /// An image (`images.customimage`, one model for every kind since the
    /// service's 0.16): embedded whole as an order's, family's or species'
    /// `featured_image`, and listed by Wagtail's own `/api/v2/images/`.
    Image = "images.customimage", "CustomImage", "images", IMAGE;
    Order = "taxonomy.order", "Order", "orders", ORDER;
    Family = "taxonomy.family", "Family", "families", FAMILY;
    Subfamily = "taxonomy.subfamily", "Subfamily", "subfamilies", SUBFAMILY;
    Tribe = "taxonomy.tribe", "Tribe", "tribes", TRIBE;
    Genus = "taxonomy.genus", "Genus", "genera", GENUS;
    Species = "taxonomy.species", "Species", "species", SPECIES;
    Subspecies = "taxonomy.subspecies", "Subspecies", "subspecies", SUBSPECIES;
    Country = "geography.country", "Country", "countries", COUNTRY;
    State = "geography.state", "State", "states", STATE;
    County = "geography.county", "County", "counties", COUNTY;
    Locality = "geography.locality", "Locality", "localities", LOCALITY;
    Gps = "geography.gps", "GPS", "gps-coordinates", GPS;
    Person = "specimens.person", "Person", "people", PERSON;
    CollectingTrip = "geography.collectingtrip", "CollectingTrip", "collecting-trips", COLLECTING_TRIP;
    SpecimenRecord = "specimens.specimenrecord", "SpecimenRecord", "specimen-records", SPECIMEN_RECORD;
    /// A Wagtail page's title, slug and publication (`wagtailcore.page`).
    Page = "wagtailcore.page", "Page", "pages", PAGE;
    SpeciesPage = "pages.speciespage", "SpeciesPage", "species-pages", SPECIES_PAGE;
    /// The deprecated typed image lists of the service before 0.16: each a view
    /// of the images of one `image_type`, in the shape those lists had.
    SpecimenRecordImage = "images.specimenrecordimage", "SpecimenRecordImage", "specimen-record-images", SPECIMEN_RECORD_IMAGE;
    InsectImage = "images.insectimage", "InsectImage", "insect-images", INSECT_IMAGE;
    PlantImage = "images.plantimage", "PlantImage", "plant-images", PLANT_IMAGE;
    HabitatImage = "images.habitatimage", "HabitatImage", "habitat-images", HABITAT_IMAGE;
}

impl Model {
    /// A taxonomic rank's name (`species`), which is also the specimen field
    /// holding the specimen's taxon at that rank; `None` for other models.
    pub fn rank_name(self) -> Option<&'static str> {
        match self {
            Model::Order => Some("order"),
            Model::Family => Some("family"),
            Model::Subfamily => Some("subfamily"),
            Model::Tribe => Some("tribe"),
            Model::Genus => Some("genus"),
            Model::Species => Some("species"),
            Model::Subspecies => Some("subspecies"),
            _ => None,
        }
    }

    /// A dense index, for per-model arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn from_label(label: &str) -> Option<Model> {
        Model::ALL.into_iter().find(|m| m.label() == label)
    }

    /// The taxonomic ranks from the most specific to the least, as `taxon` picks them.
    pub const RANKS: [Model; 7] = [
        Model::Subspecies,
        Model::Species,
        Model::Genus,
        Model::Tribe,
        Model::Subfamily,
        Model::Family,
        Model::Order,
    ];

    /// Whether the API lists the model as one of its own lists. Pages and
    /// renditions are parts of other items; images are listed by Wagtail's own
    /// endpoint, in its shape (`query::images`).
    pub fn listed(self) -> bool {
        !matches!(self, Model::Image | Model::Page | Model::Rendition)
    }

    /// The `image_type` of the images a typed image list shows.
    pub fn image_type(self) -> Option<&'static str> {
        match self {
            Model::SpecimenRecordImage => Some("specimen"),
            Model::InsectImage => Some("insect"),
            Model::PlantImage => Some("plant"),
            Model::HabitatImage => Some("habitat"),
            _ => None,
        }
    }

    /// Whether the model has a nested list: a model with a parent.
    pub fn has_nested(self) -> bool {
        self.parent().is_some()
    }

    /// The field naming the model's parent, and the parent's model (a locality
    /// has three possible parents; this is the first).
    pub fn parent(self) -> Option<(&'static str, Model)> {
        self.fields().iter().find_map(|f| match f.ty {
            Type::Parent(m) => Some((f.name, m)),
            _ => None,
        })
    }

    /// The position of a field in the table.
    pub const fn field_index(self, name: &str) -> Option<usize> {
        let fields = self.fields();
        let mut i = 0;
        while i < fields.len() {
            if same(fields[i].name, name) {
                return Some(i);
            }
            i += 1;
        }
        None
    }
}

/// String equality a `const fn` can use.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_starts_with_id_and_has_unique_names() {
        for m in Model::ALL {
            let fields = m.fields();
            assert_eq!(fields[0].name, "id");
            let mut names: Vec<_> = fields.iter().map(|f| f.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), fields.len(), "{m:?}");
        }
    }

    #[test]
    fn all_lists_a_model_after_what_it_embeds() {
        for (i, m) in Model::ALL.iter().enumerate() {
            for field in m.fields() {
                let target = match field.ty {
                    Type::Parent(t) | Type::Embed(t) | Type::EmbedMany(t) => t,
                    _ => continue,
                };
                let j = Model::ALL.iter().position(|x| *x == target).unwrap();
                assert!(j < i, "{m:?}.{} embeds {target:?}", field.name);
            }
        }
    }
}
