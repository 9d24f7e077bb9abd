//! Presentation API 3.0: a Manifest per photographed specimen (a Canvas per
//! photograph, in the order of their views), labelled and described by the
//! specimen's Darwin Core terms (`view::occurrence`, as the archive publishes
//! them: its point is the published one), and Collections: the top one, then
//! one per taxon from the order down, each holding the taxa beneath it that
//! have photographed specimens and the manifests of the specimens identified
//! to it. Links start at `base` (the server's origin).

use serde_json::{json, Map, Value};

use crate::model::dataset::Dataset;
use crate::model::Model;
use crate::view::occurrence::{Occurrences, Sink, Term};
use crate::view::{Derive, View};

/// The Presentation API 3.0 context, after navPlace's extension.
pub const CONTEXT: [&str; 2] = [
    "http://iiif.io/api/extension/navplace/context.json",
    "http://iiif.io/api/presentation/3/context.json",
];

/// Where the manifests and collections are, beneath the server's origin.
pub const MANIFESTS: &str = "/iiif/manifests/";
pub const COLLECTIONS: &str = "/iiif/collections/";

/// The ranks in `Model::RANKS` order (subspecies up to order), as the
/// collections' paths name them.
pub const RANK_NAMES: [&str; 7] = [
    "subspecies",
    "species",
    "genus",
    "tribe",
    "subfamily",
    "family",
    "order",
];

/// The views of a specimen in the order a canvas sequence shows them; any
/// other after these, by name.
const VIEWS: &[&str] = &[
    "dorsal",
    "ventral",
    "lateral",
    "left",
    "right",
    "frontal",
    "anterior",
    "posterior",
    "head",
    "habitus",
    "genitalia",
    "wing",
    "label",
    "labels",
];

/// The photographed specimens of a view, and each one's taxa: derived once.
pub struct Photographed {
    /// Specimen positions, ascending, each with its taxa's positions
    /// (`Model::RANKS` order, `u32::MAX` where none).
    specimens: Vec<(u32, [u32; 7])>,
}

impl Derive for Photographed {
    fn derive(view: &View) -> Self {
        let images = view.table(Model::Image);
        let mut specimens: Vec<u32> = match Model::Image.field_index("specimen_record") {
            Some(f) => (0..images.len())
                .filter_map(|pos| match images.get(pos, f) {
                    crate::view::Value::Ref(Model::SpecimenRecord, p) => Some(p),
                    _ => None,
                })
                .collect(),
            None => Vec::new(),
        };
        specimens.sort_unstable();
        specimens.dedup();
        let occurrences = Occurrences::new(view, &view.dataset);
        Photographed {
            specimens: specimens
                .into_iter()
                .map(|p| (p, occurrences.ranks(p as usize)))
                .collect(),
        }
    }
}

impl Photographed {
    /// The photographed specimens' positions, ascending.
    pub fn positions(&self) -> impl Iterator<Item = u32> + '_ {
        self.specimens.iter().map(|s| s.0)
    }

    /// Whether the specimen at `pos` has a photograph.
    pub fn has(&self, pos: u32) -> bool {
        self.specimens.binary_search_by_key(&pos, |s| s.0).is_ok()
    }
}

fn lang(text: &str) -> Value {
    json!({ "none": [text] })
}

fn en(text: &str) -> Value {
    json!({ "en": [text] })
}

/// A specimen's terms as text, and its point.
#[derive(Default)]
struct Terms {
    values: Vec<(Term, String)>,
    lat: Option<f64>,
    lon: Option<f64>,
}

impl Sink for Terms {
    fn text(&mut self, term: Term, s: &str) {
        if !s.trim().is_empty() {
            self.values.push((term, s.to_string()));
        }
    }

    fn int(&mut self, term: Term, n: Option<i64>) {
        if let Some(n) = n {
            self.values.push((term, n.to_string()));
        }
    }

    fn float(&mut self, term: Term, n: Option<f64>) {
        match term {
            Term::DecimalLatitude => self.lat = n,
            Term::DecimalLongitude => self.lon = n,
            _ => {}
        }
        if let Some(n) = n {
            self.values.push((term, n.to_string()));
        }
    }
}

impl Terms {
    fn get(&self, term: Term) -> Option<&str> {
        self.values
            .iter()
            .find(|(t, _)| *t == term)
            .map(|(_, v)| v.as_str())
    }
}

/// What a manifest says of the dataset: its licence's URL and who to credit.
fn rights(dataset: &Dataset) -> (Option<String>, String) {
    let rights = dataset.licence().map(|l| format!("{}/", l.url()));
    let credit = [
        &dataset.citation,
        &dataset.institution_name,
        &dataset.publisher,
        &dataset.title,
    ]
    .into_iter()
    .map(|s| s.trim())
    .find(|s| !s.is_empty())
    .unwrap_or("catalogue")
    .to_string();
    (rights, credit)
}

/// A photograph of a specimen: the image's id, its view, title and size.
pub struct Photo {
    pub id: i64,
    pub view: String,
    pub title: String,
    pub width: u32,
    pub height: u32,
}

/// The photographs of the specimen at `pos`, in the order of their views,
/// `size` saying each one's width and height by its id (its file's; `None`:
/// not shown).
pub fn photos(view: &View, pos: u32, size: impl Fn(i64) -> Option<(u32, u32)>) -> Vec<Photo> {
    let images = view.table(Model::Image);
    let at = view.images_naming("specimen_record", (Model::SpecimenRecord, pos));
    let text = |p: u32, name: &str| {
        view.value(Model::Image, p, name)
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let mut photos: Vec<Photo> = at
        .iter()
        .filter_map(|&p| {
            let id = images.id(p);
            let (width, height) = size(id)?;
            Some(Photo {
                id,
                view: text(p, "position"),
                title: text(p, "title"),
                width,
                height,
            })
        })
        .collect();
    let rank = |v: &str| {
        let v = v.trim().to_lowercase();
        VIEWS.iter().position(|w| *w == v).unwrap_or(VIEWS.len())
    };
    photos.sort_by(|a, b| {
        (rank(&a.view), a.view.to_lowercase(), a.id).cmp(&(
            rank(&b.view),
            b.view.to_lowercase(),
            b.id,
        ))
    });
    photos
}

/// The manifest of the specimen with `id`, its photographs `photos`.
pub fn manifest(
    view: &View,
    id: i64,
    photos: &[Photo],
    base: &str,
    limits: super::params::Limits,
) -> Option<Value> {
    let table = view.table(Model::SpecimenRecord);
    let pos = table.position(id)?;
    let mut terms = Terms::default();
    Occurrences::new(view, &view.dataset).terms(pos as usize, &mut terms);
    let manifest_id = format!("{base}{MANIFESTS}{id}");
    let record = format!("{base}/api/v2/specimen-records/{id}/");
    let number = terms.get(Term::CatalogNumber).unwrap_or("");
    let name = terms.get(Term::ScientificName).unwrap_or("");
    let label = match (number.is_empty(), name.is_empty()) {
        (false, false) => format!("{number} {name}"),
        (false, true) => number.to_string(),
        (true, false) => name.to_string(),
        (true, true) => format!("Specimen {id}"),
    };
    let metadata: Vec<Value> = terms
        .values
        .iter()
        .map(|(t, v)| json!({ "label": en(t.name()), "value": lang(v) }))
        .collect();
    let (rights, credit) = rights(&view.dataset);
    let canvases: Vec<Value> = photos
        .iter()
        .enumerate()
        .map(|(n, photo)| canvas(&manifest_id, n + 1, photo, base, limits))
        .collect();
    let mut m = Map::new();
    m.insert("@context".into(), json!(CONTEXT));
    m.insert("id".into(), json!(manifest_id));
    m.insert("type".into(), json!("Manifest"));
    m.insert("label".into(), lang(&label));
    m.insert("metadata".into(), json!(metadata));
    if let Some(rights) = rights {
        m.insert("rights".into(), json!(rights));
    }
    m.insert(
        "requiredStatement".into(),
        json!({ "label": en("Attribution"), "value": lang(&credit) }),
    );
    m.insert(
        "homepage".into(),
        json!([{
            "id": format!("{record}?format=html"),
            "type": "Text",
            "label": lang(&label),
            "format": "text/html",
        }]),
    );
    m.insert(
        "seeAlso".into(),
        json!([{
            "id": record,
            "type": "Dataset",
            "label": en("The specimen's record"),
            "format": "application/json",
        }]),
    );
    if let (Some(lat), Some(lon)) = (terms.lat, terms.lon) {
        m.insert(
            "navPlace".into(),
            json!({
                "id": format!("{manifest_id}/place"),
                "type": "FeatureCollection",
                "features": [{
                    "id": format!("{manifest_id}/place/1"),
                    "type": "Feature",
                    "properties": { "label": lang(&label) },
                    "geometry": { "type": "Point", "coordinates": [lon, lat] },
                }],
            }),
        );
    }
    m.insert("items".into(), json!(canvases));
    Some(Value::Object(m))
}

fn canvas(
    manifest: &str,
    n: usize,
    photo: &Photo,
    base: &str,
    limits: super::params::Limits,
) -> Value {
    let id = format!("{manifest}/canvas/{n}");
    let service = format!("{base}/iiif/{}", photo.id);
    let label = match photo.view.trim().is_empty() {
        true => photo.title.as_str(),
        false => photo.view.as_str(),
    };
    let label = if label.trim().is_empty() {
        "Photograph"
    } else {
        label
    };
    // The whole photograph at the largest size served.
    let (w, h) = super::params::Size {
        kind: super::params::SizeKind::Max,
        upscale: false,
    }
    .resolve(photo.width.max(1), photo.height.max(1), limits)
    .unwrap_or((photo.width, photo.height));
    json!({
        "id": id,
        "type": "Canvas",
        "label": lang(label),
        "width": photo.width,
        "height": photo.height,
        "items": [{
            "id": format!("{id}/page"),
            "type": "AnnotationPage",
            "items": [{
                "id": format!("{id}/page/image"),
                "type": "Annotation",
                "motivation": "painting",
                "body": {
                    "id": format!("{service}/full/{w},{h}/0/default.jpg"),
                    "type": "Image",
                    "format": "image/jpeg",
                    "width": w,
                    "height": h,
                    "service": [{ "id": service, "type": "ImageService3", "profile": "level2" }],
                },
                "target": id,
            }],
        }],
    })
}

/// A taxon: its rank (index into `Model::RANKS`) and position.
pub type Taxon = (usize, u32);

fn taxon_name(view: &View, (rank, pos): Taxon) -> String {
    let model = Model::RANKS[rank];
    ["trinomial", "binomial", "name"]
        .iter()
        .filter_map(|f| view.value(model, pos, f).as_str())
        .find(|s| !s.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

fn collection_ref(view: &View, base: &str, taxon: Taxon) -> Value {
    let id = view.table(Model::RANKS[taxon.0]).id(taxon.1);
    let name = taxon_name(view, taxon);
    let label = match name.is_empty() {
        true => format!("{} {id}", RANK_NAMES[taxon.0]),
        false => name,
    };
    json!({
        "id": format!("{base}{COLLECTIONS}{}/{id}", RANK_NAMES[taxon.0]),
        "type": "Collection",
        "label": lang(&label),
    })
}

fn manifest_ref(view: &View, base: &str, pos: u32) -> Value {
    let table = view.table(Model::SpecimenRecord);
    let id = table.id(pos);
    let usi = view
        .value(Model::SpecimenRecord, pos, "usi")
        .as_str()
        .unwrap_or("")
        .to_string();
    let label = if usi.is_empty() {
        format!("Specimen {id}")
    } else {
        usi
    };
    json!({
        "id": format!("{base}{MANIFESTS}{id}"),
        "type": "Manifest",
        "label": lang(&label),
    })
}

/// The collection of `taxon` (`None`: the top one): the taxa just beneath
/// it that hold photographed specimens, then the manifests of those
/// identified to it (at the top: to no order). `None` when the taxon holds no
/// photographed specimen.
pub fn collection(view: &View, taxon: Option<Taxon>, base: &str) -> Option<Value> {
    let photographed = view.derived::<Photographed>();
    let top = RANK_NAMES.len();
    let (level, pos) = taxon.unwrap_or((top, u32::MAX));
    let mut children: Vec<Taxon> = Vec::new();
    let mut manifests: Vec<u32> = Vec::new();
    let mut any = false;
    for (specimen, ranks) in &photographed.specimens {
        if level < top && ranks[level] != pos {
            continue;
        }
        any = true;
        match (0..level).rev().find(|&r| ranks[r] != u32::MAX) {
            Some(r) => children.push((r, ranks[r])),
            None => manifests.push(*specimen),
        }
    }
    if !any && taxon.is_some() {
        return None;
    }
    children.sort_unstable_by_key(|&(r, p)| (std::cmp::Reverse(r), p));
    children.dedup();
    let mut named: Vec<(String, Taxon)> = children
        .into_iter()
        .map(|t| (taxon_name(view, t), t))
        .collect();
    named.sort();
    let mut items: Vec<Value> = named
        .into_iter()
        .map(|(_, t)| collection_ref(view, base, t))
        .collect();
    items.extend(manifests.into_iter().map(|p| manifest_ref(view, base, p)));
    let (id, label) = match taxon {
        None => (
            format!("{base}{COLLECTIONS}"),
            match view.dataset.title.trim() {
                "" => "Photographed specimens".to_string(),
                title => format!("{title}: photographed specimens"),
            },
        ),
        Some(t) => {
            let r = collection_ref(view, base, t);
            (
                r["id"].as_str().unwrap_or_default().to_string(),
                r["label"]["none"][0]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        }
    };
    let mut c = Map::new();
    c.insert("@context".into(), json!(CONTEXT[1]));
    c.insert("id".into(), json!(id));
    c.insert("type".into(), json!("Collection"));
    c.insert("label".into(), lang(&label));
    if let Some(parent) = taxon.and_then(|(r, p)| {
        let ranks = photographed.specimens.iter().find(|s| s.1[r] == p)?.1;
        Some(
            ((r + 1)..top)
                .find(|&up| ranks[up] != u32::MAX)
                .map(|up| (up, ranks[up])),
        )
    }) {
        let part = match parent {
            Some(t) => collection_ref(view, base, t),
            None => json!({ "id": format!("{base}{COLLECTIONS}"), "type": "Collection" }),
        };
        c.insert("partOf".into(), json!([part]));
    }
    c.insert("items".into(), json!(items));
    Some(Value::Object(c))
}

/// The taxon a collection's path names (`order/3`).
pub fn taxon_of(view: &View, rank: &str, id: i64) -> Option<Taxon> {
    let r = RANK_NAMES.iter().position(|n| *n == rank)?;
    let pos = view.table(Model::RANKS[r]).position(id)?;
    Some((r, pos))
}
