//! The API's paths: the 30 list endpoints (every listed model's plain list, and a nested
//! list for each model with a parent) and the fixed paths beside them.

use super::schema::{Model, Type};

/// Where the API's lists live.
pub const API_PREFIX: &str = "/api/v2/";
/// The OpenAPI document of the API.
pub const OPENAPI_PATH: &str = "/api/v2/openapi.json";
/// Wagtail's own image list (`/<id>/` beside it for one image).
pub const IMAGES_PATH: &str = "/api/v2/images/";
/// The Darwin Core Archive of the served collection.
pub const ARCHIVE_PATH: &str = "/dwca.zip";
/// The whole dataset's metadata, the whole archive's `eml.xml`.
pub const EML_PATH: &str = "/eml.xml";
/// The published versions.
pub const VERSIONS_PATH: &str = "/api/v2/versions/";
/// What changed since a version.
pub const CHANGES_PATH: &str = "/api/v2/changes/";
/// The versions as an Atom feed.
pub const FEED_PATH: &str = "/versions.atom";
/// The versions as RSS 2.0 in the IPT's form (its `ipt:` elements).
pub const RSS_PATH: &str = "/versions.rss";
/// A kept version's archive, `{version}` standing for its number.
pub const KEPT_ARCHIVE_PATH: &str = "/versions/{version}/dwca.zip";
/// A kept version's `eml.xml`, `{version}` standing for its number.
pub const KEPT_EML_PATH: &str = "/versions/{version}/eml.xml";
/// How to cite a version.
pub const CITATION_PATH: &str = "/api/v2/citation/";

/// The path of the specimen label sheets.
pub const LABELS_PATH: &str = "/api/v2/specimen-records/labels/";
/// The species checklists of a specimen question.
pub const CHECKLIST_PATH: &str = "/api/v2/specimen-records/checklist/";
/// Suggestions as one types.
pub const SUGGEST_PATH: &str = "/api/v2/suggest/";

/// The data-quality flags' counts, as JSON (`/api/v2/quality/`) and as the
/// curator's page (`/quality/`).
pub const QUALITY_PATH: &str = "/api/v2/quality/";
pub const QUALITY_PAGE_PATH: &str = "/quality/";
/// What the snapshot published and what it held back, as JSON
/// (`/api/v2/publishing/`) and as a page (`/publishing/`).
pub const PUBLISHING_PATH: &str = "/api/v2/publishing/";
pub const PUBLISHING_PAGE_PATH: &str = "/publishing/";
/// A specimen's short link, `{digits}` standing for its USI's digits: what a QR
/// label says by default, sent on to the specimen's record.
pub const SHORT_PATH: &str = "/s/{digits}";

/// Which list an item is served in: plain lists give a parent as its id, nested
/// lists embed it whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Plain,
    Nested,
}

impl Shape {
    /// The records a field of type `ty` embeds in an item of this shape: the models
    /// they can be (a taxon is any rank) and the shape they are embedded in. `None`
    /// for a field that embeds nothing: a scalar, or a parent served as its id.
    pub fn embedded(self, ty: Type) -> Option<(Vec<Model>, Shape)> {
        match (ty, self) {
            (Type::Parent(m), Shape::Nested) => {
                let shape = if m.has_nested() {
                    Shape::Nested
                } else {
                    Shape::Plain
                };
                Some((vec![m], shape))
            }
            (Type::Embed(m) | Type::EmbedMany(m), _) => Some((vec![m], Shape::Plain)),
            (Type::Taxon, _) => Some((Model::RANKS.to_vec(), Shape::Plain)),
            _ => None,
        }
    }
}

/// One of the 30 list endpoints: a model, plain or nested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub model: Model,
    pub nested: bool,
}

impl Endpoint {
    /// All 30 endpoints: the plain list of every listed model and the nested list
    /// of those with a parent. Built once; `index` is a position in it.
    pub fn all() -> &'static [Endpoint] {
        static ALL: std::sync::OnceLock<Vec<Endpoint>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| {
            let mut out = Vec::with_capacity(30);
            for model in Model::ALL.into_iter().filter(|m| m.listed()) {
                out.push(Endpoint {
                    model,
                    nested: false,
                });
                if model.has_nested() {
                    out.push(Endpoint {
                        model,
                        nested: true,
                    });
                }
            }
            out
        })
    }

    /// The position of this endpoint in `all()`, for per-endpoint arrays.
    pub fn index(self) -> usize {
        Endpoint::all()
            .iter()
            .position(|e| *e == self)
            .expect("every endpoint is in all()")
    }

    /// The endpoint a path segment names (`orders`, `nested-families`, ...).
    pub fn from_segment(segment: &str) -> Option<Endpoint> {
        let (nested, name) = match segment.strip_prefix("nested-") {
            Some(rest) => (true, rest),
            None => (false, segment),
        };
        let model = Model::ALL
            .into_iter()
            .find(|m| m.listed() && m.path() == name)?;
        (!nested || model.has_nested()).then_some(Endpoint { model, nested })
    }

    /// The path segment of this endpoint.
    pub fn segment(self) -> String {
        if self.nested {
            format!("nested-{}", self.model.path())
        } else {
            self.model.path().to_string()
        }
    }
}

impl Endpoint {
    /// The shape of this endpoint's items.
    pub fn shape(self) -> Shape {
        if self.nested {
            Shape::Nested
        } else {
            Shape::Plain
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_30_endpoints_and_each_segment_round_trips() {
        let all = Endpoint::all();
        assert_eq!(all.len(), 30);
        for (i, &e) in all.iter().enumerate() {
            assert_eq!(Endpoint::from_segment(&e.segment()), Some(e));
            assert_eq!(e.index(), i);
        }
        assert_eq!(Endpoint::from_segment("nested-people"), None);
        assert_eq!(Endpoint::from_segment("nested-countries"), None);
        assert_eq!(Endpoint::from_segment("bogus"), None);
        assert_eq!(Endpoint::from_segment("renditions"), None);
        assert_eq!(Endpoint::from_segment("nested-insect-images"), None);
    }
}
