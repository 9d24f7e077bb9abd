//! The service's images before 0.16: typed tables that extend Wagtail's image
//! (`images.baseliveimage`, `images.specimenrecordimage`, `images.insectimage`,
//! `images.plantimage`, `images.habitatimage`) and featured flags on insect
//! images. A source in that shape is converted into the one image model on the
//! way in, as fixture objects, so fixtures and databases of either version go
//! through the same reading and checks, and a curator mid-upgrade can publish
//! from either.

use ahash::AHashMap;
use serde_json::{Map, Value};

use crate::model::records::{Collection, Kind};
use crate::model::validate::Problem;
use crate::model::Model;

/// A typed table of the images before 0.16: its label, the column its primary
/// key is in, and its own fields (what a database table must have).
pub struct Part {
    pub label: &'static str,
    pub pk_column: &'static str,
    pub fields: &'static [(&'static str, Kind)],
}

/// The place of an insect, plant or habitat image.
const LIVE: Part = Part {
    label: "images.baseliveimage",
    pk_column: "customimage_ptr_id",
    fields: &[
        ("country", Kind::OptRef(Model::Country)),
        ("state", Kind::OptRef(Model::State)),
        ("county", Kind::OptRef(Model::County)),
        ("locality", Kind::OptRef(Model::Locality)),
        ("gps", Kind::OptRef(Model::Gps)),
        ("collecting_trip", Kind::OptRef(Model::CollectingTrip)),
    ],
};

/// The typed tables, the place first (the others extend it or the image).
pub const PARTS: [Part; 5] = [
    LIVE,
    Part {
        label: "images.specimenrecordimage",
        pk_column: "customimage_ptr_id",
        fields: &[
            ("usi", Kind::Ref(Model::SpecimenRecord)),
            ("position", Kind::Text),
        ],
    },
    Part {
        label: "images.insectimage",
        pk_column: "baseliveimage_ptr_id",
        fields: &[
            ("species", Kind::OptRef(Model::Species)),
            ("species_page", Kind::OptRef(Model::SpeciesPage)),
            ("featured_family", Kind::Bool),
            ("featured_species", Kind::Bool),
            ("sex", Kind::Text),
            ("stage", Kind::Text),
            ("status", Kind::Text),
        ],
    },
    Part {
        label: "images.plantimage",
        pk_column: "baseliveimage_ptr_id",
        fields: &[
            ("scientific_name", Kind::Text),
            ("common_name", Kind::Text),
            ("species_page", Kind::Refs(Model::SpeciesPage)),
        ],
    },
    Part {
        label: "images.habitatimage",
        pk_column: "baseliveimage_ptr_id",
        fields: &[("species_page", Kind::Refs(Model::SpeciesPage))],
    },
];

/// The part of that label, if it is one.
pub fn part(label: &str) -> Option<&'static Part> {
    PARTS.iter().find(|p| p.label == label)
}

/// The `image_type` of the images a typed table holds.
fn kind_of(label: &str) -> &'static str {
    match label {
        "images.specimenrecordimage" => "specimen",
        "images.insectimage" => "insect",
        "images.plantimage" => "plant",
        _ => "habitat",
    }
}

/// An insect image's featured flags, which 0.16 replaced by the taxa's
/// `featured_image`.
#[derive(Debug, Default)]
pub struct Featured {
    /// (image, species) of insect images featured for their species.
    species: Vec<(i64, i64)>,
    /// (image, species) of insect images featured for their species' family.
    family: Vec<(i64, i64)>,
}

/// The typed parts of a source's images, by label and image id.
#[derive(Debug, Default)]
pub struct Parts(AHashMap<&'static str, AHashMap<i64, Map<String, Value>>>);

impl Parts {
    pub fn add(&mut self, part: &'static Part, pk: i64, fields: Map<String, Value>) {
        self.0.entry(part.label).or_default().insert(pk, fields);
    }

    pub fn is_empty(&self) -> bool {
        self.0.values().all(|m| m.is_empty())
    }

    fn take(&mut self, label: &str, id: i64) -> Option<Map<String, Value>> {
        self.0.get_mut(label).and_then(|m| m.remove(&id))
    }

    /// Turns one image of the old shape into the one model's: `image_type` from
    /// the typed table that holds it (`specimen`, the service's own default, for
    /// an image in none), each kind's columns from its table and, for the other
    /// kinds, the values the service keeps in them.
    pub fn merge(
        &mut self,
        id: i64,
        image: &mut Map<String, Value>,
        featured: &mut Featured,
        errors: &mut Vec<Problem>,
    ) {
        let live = self.take(LIVE.label, id);
        let mut kinds: Vec<(&str, Map<String, Value>)> = PARTS[1..]
            .iter()
            .filter_map(|p| self.take(p.label, id).map(|m| (kind_of(p.label), m)))
            .collect();
        if kinds.len() > 1 {
            let names: Vec<&str> = kinds.iter().map(|(k, _)| *k).collect();
            errors.push(Problem::at(
                Model::Image,
                id,
                "image_type",
                format!(
                    "the image is in more than one typed table: {}",
                    names.join(", ")
                ),
            ));
        }
        let (kind, mut own) = kinds.pop().unwrap_or(("specimen", Map::new()));
        if kind != "specimen" && live.is_none() {
            errors.push(Problem::at(
                Model::Image,
                id,
                "pk",
                format!(
                    "its {kind} image extends images.baseliveimage pk={id}, which does not exist"
                ),
            ));
        }
        let mut take = |key: &str, default: Value| own.remove(key).unwrap_or(default);
        let text = |s: &str| Value::String(s.to_string());
        let mut set = |key: &str, value: Value| {
            image.insert(key.to_string(), value);
        };
        set("image_type", text(kind));
        set("position", take("position", text("")));
        set("specimen_record", take("usi", Value::Null));
        set("sex", take("sex", text("unknown")));
        set("stage", take("stage", text("adult")));
        set("status", take("status", text("wild")));
        set("scientific_name", take("scientific_name", text("")));
        set("common_name", take("common_name", text("")));
        let pages = take("species_page", Value::Null);
        let (page, plant_pages, habitat_pages) = match kind {
            "insect" => (pages, Value::Array(vec![]), Value::Array(vec![])),
            "plant" => (Value::Null, pages, Value::Array(vec![])),
            "habitat" => (Value::Null, Value::Array(vec![]), pages),
            _ => (Value::Null, Value::Array(vec![]), Value::Array(vec![])),
        };
        let species = take("species", Value::Null);
        if let Some(s) = species.as_i64() {
            if take("featured_species", Value::Null) == Value::Bool(true) {
                featured.species.push((id, s));
            }
            if take("featured_family", Value::Null) == Value::Bool(true) {
                featured.family.push((id, s));
            }
        }
        set("species", species);
        set("species_page", page);
        set("plant_species_page", plant_pages);
        set("habitat_species_page", habitat_pages);
        let mut live = live.unwrap_or_default();
        for (field, _) in LIVE.fields {
            set(field, live.remove(*field).unwrap_or(Value::Null));
        }
    }

    /// Typed records whose image is not there: each is an error.
    pub fn orphans(self, errors: &mut Vec<Problem>) {
        let mut left: Vec<(&str, i64)> = self
            .0
            .iter()
            .flat_map(|(label, m)| m.keys().map(move |id| (*label, *id)))
            .collect();
        left.sort_unstable();
        for (label, id) in left {
            errors.push(Problem::new(
                format!("{label} pk={id} pk"),
                format!("extends images.customimage pk={id}, which does not exist"),
            ));
        }
    }
}

impl Featured {
    /// Gives each species, then each family, the lowest-numbered insect image
    /// featured for it, where the source named none: what 0.16's
    /// `featured_image` holds for a collection that used the flags.
    pub fn apply(self, c: &mut Collection) {
        let parent = |v: &[crate::model::records::Rank]| -> AHashMap<i64, i64> {
            v.iter()
                .filter_map(|r| r.parent.map(|p| (r.id, p)))
                .collect()
        };
        let genus_of: AHashMap<i64, i64> = c.species.iter().map(|s| (s.id, s.parent)).collect();
        let (tribe_of, subfamily_of, family_of) =
            (parent(&c.genera), parent(&c.tribes), parent(&c.subfamilies));
        let family = |species: i64| {
            let genus = genus_of.get(&species)?;
            let tribe = tribe_of.get(genus)?;
            let subfamily = subfamily_of.get(tribe)?;
            family_of.get(subfamily).copied()
        };
        let lowest = |pairs: Vec<(i64, i64)>| {
            let mut by: AHashMap<i64, i64> = AHashMap::new();
            for (image, owner) in pairs {
                let slot = by.entry(owner).or_insert(image);
                *slot = (*slot).min(image);
            }
            by
        };
        let families = lowest(
            self.family
                .into_iter()
                .filter_map(|(image, species)| family(species).map(|f| (image, f)))
                .collect(),
        );
        let species = lowest(self.species);
        for s in &mut c.species {
            if s.featured_image.is_none() {
                s.featured_image = species.get(&s.id).copied();
            }
        }
        for f in &mut c.families {
            if f.featured_image.is_none() {
                f.featured_image = families.get(&f.id).copied();
            }
        }
    }
}
