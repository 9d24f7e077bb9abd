//! What a label says: the kinds of label, the lines each holds (one table,
//! [`Kind::lines`]), and how each line is written from a specimen's record.

use crate::model::Model;
use crate::view::place::Place;
use crate::view::{Value, View};

use super::font::Style;

pub use super::request::Kind;

/// A line a label can hold, named as the CSV's columns and the overflow report
/// name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    Usi,
    /// Country, state and county: `USA: Michigan: Washtenaw Co.`
    Region,
    /// The locality: its name, then its range and town.
    Locality,
    /// Latitude, longitude and elevation.
    Point,
    /// `collected_date` and the method.
    Date,
    /// `leg.` and the collectors.
    Collectors,
    Family,
    /// The taxon's name (a genus, species or subspecies in italics) and authority.
    Taxon,
    /// `det.`, the determiner and the year.
    Determiner,
}

impl Line {
    pub fn name(self) -> &'static str {
        match self {
            Line::Usi => "usi",
            Line::Region => "region",
            Line::Locality => "locality",
            Line::Point => "point",
            Line::Date => "date",
            Line::Collectors => "collectors",
            Line::Family => "family",
            Line::Taxon => "taxon",
            Line::Determiner => "determiner",
        }
    }
}

/// The lines a label of `kind` holds, top to bottom: what each kind says, in one place.
pub fn lines(kind: Kind) -> &'static [Line] {
    match kind {
        Kind::Qr => &[Line::Usi],
        Kind::Data => &[
            Line::Region,
            Line::Locality,
            Line::Point,
            Line::Date,
            Line::Collectors,
        ],
        Kind::Determination => &[Line::Family, Line::Taxon, Line::Determiner],
    }
}

/// A run of a line in one style.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub text: String,
    pub style: Style,
}

/// A line as written: its spans, in order (none when the record says nothing).
pub type Text = Vec<Span>;

/// The plain text of a line.
pub fn plain(text: &[Span]) -> String {
    text.iter().map(|s| s.text.as_str()).collect()
}

fn regular(text: String) -> Text {
    match text.is_empty() {
        true => Vec::new(),
        false => vec![Span {
            text,
            style: Style::Regular,
        }],
    }
}

/// One specimen's label: who it is and its lines, in its kind's order.
#[derive(Clone, Debug)]
pub struct Label {
    pub id: i64,
    pub usi: String,
    pub kind: Kind,
    /// One per line of the kind ([`Kind::lines`]), empty where the record says nothing.
    pub lines: Vec<Text>,
}

/// Reads labels from a view.
pub struct Reader<'v> {
    view: &'v View,
}

/// The text of `value`, or "".
fn text(value: Value<'_>) -> &str {
    value.as_str().unwrap_or("").trim()
}

/// Non-empty parts joined by `sep`.
fn joined<'a>(parts: impl IntoIterator<Item = &'a str>, sep: &str) -> String {
    let parts: Vec<&str> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    parts.join(sep)
}

impl<'v> Reader<'v> {
    pub fn new(view: &'v View) -> Reader<'v> {
        Reader { view }
    }

    /// The value of `name` in the row at `pos` of `model`'s table.
    fn get(&self, model: Model, pos: u32, name: &str) -> Value<'v> {
        let field = model.field_index(name).expect("a field labels read");
        self.view.table(model).get(pos as usize, field)
    }

    fn specimen(&self, pos: usize, name: &str) -> Value<'v> {
        self.get(Model::SpecimenRecord, pos as u32, name)
    }

    /// The label of kind `kind` of the specimen at `pos`.
    pub fn label(&self, kind: Kind, pos: usize) -> Label {
        Label {
            id: self.view.table(Model::SpecimenRecord).id(pos as u32),
            usi: text(self.specimen(pos, "usi")).to_string(),
            kind,
            lines: lines(kind).iter().map(|&l| self.line(l, pos)).collect(),
        }
    }

    /// One line of the specimen at `pos`.
    pub fn line(&self, line: Line, pos: usize) -> Text {
        let s = |name| self.specimen(pos, name);
        match line {
            Line::Usi => regular(text(s("usi")).to_string()),
            Line::Region => {
                let place = Place::of_specimen(self.view, pos);
                let country = place.country.map_or("", |c| {
                    let abbr = text(self.get(Model::Country, c, "abbr"));
                    match abbr.is_empty() {
                        true => text(self.get(Model::Country, c, "name")),
                        false => abbr,
                    }
                });
                let state = place
                    .state
                    .map_or("", |p| text(self.get(Model::State, p, "name")));
                let county = place
                    .county
                    .map_or("", |p| text(self.get(Model::County, p, "full_name")));
                regular(joined([country, state, county], ": "))
            }
            Line::Locality => {
                let Some(p) = Place::of_specimen(self.view, pos).locality else {
                    return Vec::new();
                };
                let get = |name| text(self.get(Model::Locality, p, name));
                let whereabouts = joined([get("range"), get("town")], " ");
                regular(joined([get("name"), whereabouts.as_str()], ", "))
            }
            Line::Point => {
                let Value::Ref(_, p) = s("gps") else {
                    return Vec::new();
                };
                let get = |name| text(self.get(Model::Gps, p, name));
                let elevation = match get("elevation") {
                    "" => String::new(),
                    e => format!("{e} m"),
                };
                regular(joined(
                    [get("latitude"), get("longitude"), elevation.as_str()],
                    ", ",
                ))
            }
            Line::Date => regular(joined([text(s("collected_date")), text(s("method"))], ", ")),
            Line::Collectors => match text(s("collectors")) {
                "" => Vec::new(),
                names => regular(format!("leg. {names}")),
            },
            Line::Family => match s("family") {
                Value::Ref(_, p) => regular(text(self.get(Model::Family, p, "name")).to_string()),
                _ => Vec::new(),
            },
            Line::Taxon => self.taxon(pos),
            Line::Determiner => {
                let name = match s("determiner") {
                    Value::Ref(_, p) => text(self.get(Model::Person, p, "collector_name")),
                    _ => "",
                };
                let year = s("determined_year")
                    .as_int()
                    .map(|y| y.to_string())
                    .unwrap_or_default();
                match joined([name, year.as_str()], " ") {
                    t if t.is_empty() => Vec::new(),
                    t => regular(format!("det. {t}")),
                }
            }
        }
    }

    /// The most specific taxon's name, in italics from the genus down, and its
    /// authority.
    fn taxon(&self, pos: usize) -> Text {
        let Value::Ref(model, p) = self.specimen(pos, "taxon") else {
            return Vec::new();
        };
        let (name, italic) = match model {
            Model::Species => (text(self.get(model, p, "binomial")), true),
            Model::Subspecies => (text(self.get(model, p, "trinomial")), true),
            Model::Genus => (text(self.get(model, p, "name")), true),
            _ => (text(self.get(model, p, "name")), false),
        };
        let authority = text(self.get(model, p, "authority"));
        let mut spans = Vec::new();
        if !name.is_empty() {
            let style = match italic {
                true => Style::Italic,
                false => Style::Regular,
            };
            spans.push(Span {
                text: name.to_string(),
                style,
            });
        }
        if !authority.is_empty() {
            let sep = if spans.is_empty() { "" } else { " " };
            spans.push(Span {
                text: format!("{sep}{authority}"),
                style: Style::Regular,
            });
        }
        spans
    }
}
