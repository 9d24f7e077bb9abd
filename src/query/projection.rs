//! The `fields` parameter, in Wagtail's syntax: which keys an item keeps, parsed
//! and resolved into the view's [`Projection`].
//!
//! `fields=_,usi,taxon(_,name,authority)`: a list starts from all fields; `_` first
//! clears them, `*` first selects all, `name` adds, `-name` removes, and
//! `name(...)` applies the same rules inside an embedded object. Keys keep the
//! order of the item whatever the order of the parameter.

use crate::model::{Model, Shape};
use crate::view::render::{Child, Projection};

use super::error::ApiError;

/// One parsed element of a `fields` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `_`: no fields.
    Clear,
    /// `*`: all fields.
    All,
    /// `name` or `name(children)`.
    Add(String, Option<Vec<Spec>>),
    /// `-name`.
    Remove(String),
}

/// Parses a `fields` value.
pub fn parse(input: &str) -> Result<Vec<Spec>, ApiError> {
    let mut p = Parser {
        s: input.as_bytes(),
        i: 0,
        depth: 0,
    };
    let specs = p.list()?;
    if p.i < p.s.len() {
        return Err(p.unexpected());
    }
    Ok(specs)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

/// Deeper than any embedding the models have; a bound keeps the parser's recursion safe.
const MAX_DEPTH: usize = 16;

impl Parser<'_> {
    fn unexpected(&self) -> ApiError {
        match self.s.get(self.i) {
            Some(_) => {
                let c = String::from_utf8_lossy(&self.s[self.i..])
                    .chars()
                    .next()
                    .unwrap_or('?');
                ApiError::bad_request(format!(
                    "fields error: unexpected char '{c}' at position {}",
                    self.i
                ))
            }
            None => ApiError::bad_request(format!(
                "fields error: unexpected end of input at position {}",
                self.i
            )),
        }
    }

    fn list(&mut self) -> Result<Vec<Spec>, ApiError> {
        let mut specs = vec![self.item()?];
        while self.s.get(self.i) == Some(&b',') {
            self.i += 1;
            specs.push(self.item()?);
        }
        Ok(specs)
    }

    fn item(&mut self) -> Result<Spec, ApiError> {
        let negated = self.s.get(self.i) == Some(&b'-');
        if negated {
            self.i += 1;
        }
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'*')
        {
            self.i += 1;
        }
        if start == self.i {
            return Err(self.unexpected());
        }
        let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        let children = if self.s.get(self.i) == Some(&b'(') {
            if negated {
                return Err(self.unexpected());
            }
            self.i += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(ApiError::bad_request(format!(
                    "fields error: nested more than {MAX_DEPTH} levels deep at position {}",
                    self.i - 1
                )));
            }
            let c = self.list()?;
            if self.s.get(self.i) != Some(&b')') {
                return Err(self.unexpected());
            }
            self.i += 1;
            self.depth -= 1;
            Some(c)
        } else {
            None
        };
        Ok(match (negated, name.as_str(), children) {
            (false, "_", None) => Spec::Clear,
            (false, "*", None) => Spec::All,
            (true, _, _) => Spec::Remove(name),
            (false, _, children) => Spec::Add(name, children),
        })
    }
}

/// Resolves parsed specs against a model's table for an item of `shape`.
pub fn resolve(model: Model, shape: Shape, specs: &[Spec]) -> Result<Projection, ApiError> {
    let mut unknown = Vec::new();
    let projection = resolve_in(&[model], shape, specs, &mut unknown)?;
    if !unknown.is_empty() {
        unknown.sort();
        unknown.dedup();
        return Err(ApiError::bad_request(format!(
            "unknown fields: {}",
            unknown.join(", ")
        )));
    }
    Ok(projection
        .into_iter()
        .next()
        .map(|(_, p)| p)
        .expect("one model"))
}

/// Resolves specs against each of `models` (several for a taxon: a name is known
/// when any of them has it).
fn resolve_in(
    models: &[Model],
    shape: Shape,
    specs: &[Spec],
    unknown: &mut Vec<String>,
) -> Result<Child, ApiError> {
    let known = |name: &str| models.iter().any(|m| m.field_index(name).is_some());
    // The fields chosen, by name, with their children's specs.
    let mut chosen: Vec<(String, Option<Vec<Spec>>)> = match specs.first() {
        Some(Spec::Clear) => Vec::new(),
        _ => all_names(models),
    };
    for (i, spec) in specs.iter().enumerate() {
        match spec {
            Spec::Clear | Spec::All if i == 0 => {}
            Spec::Clear => unknown.push("_".into()),
            Spec::All => unknown.push("*".into()),
            Spec::Add(name, children) => {
                if !known(name) {
                    unknown.push(name.clone());
                    continue;
                }
                chosen.retain(|(n, _)| n != name);
                chosen.push((name.clone(), children.clone()));
            }
            Spec::Remove(name) => {
                if !known(name) {
                    unknown.push(name.clone());
                    continue;
                }
                chosen.retain(|(n, _)| n != name);
            }
        }
    }
    let mut out = Child::default();
    for &model in models {
        let mut fields = Vec::new();
        for (index, field) in model.fields().iter().enumerate() {
            let Some((_, children)) = chosen.iter().find(|(n, _)| n == field.name) else {
                continue;
            };
            let child = match children {
                None => None,
                Some(children) => {
                    let Some((ms, child_shape)) = shape.embedded(field.ty) else {
                        return Err(ApiError::bad_request(format!(
                            "'{}' does not support nested fields",
                            field.name
                        )));
                    };
                    Some(resolve_in(&ms, child_shape, children, unknown)?)
                }
            };
            fields.push((index, child));
        }
        out.insert(model, Projection { fields });
    }
    Ok(out)
}

fn all_names(models: &[Model]) -> Vec<(String, Option<Vec<Spec>>)> {
    let mut names: Vec<(String, Option<Vec<Spec>>)> = Vec::new();
    for m in models {
        for f in m.fields() {
            if !names.iter().any(|(n, _)| n == f.name) {
                names.push((f.name.to_string(), None));
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(name: &str) -> Spec {
        Spec::Add(name.into(), None)
    }

    #[test]
    fn parses_wagtail_syntax() {
        assert_eq!(parse("name").unwrap(), vec![add("name")]);
        assert_eq!(
            parse("_,usi,-notes").unwrap(),
            vec![Spec::Clear, add("usi"), Spec::Remove("notes".into())]
        );
        assert_eq!(
            parse("*,taxon(_,name,authority)").unwrap(),
            vec![
                Spec::All,
                Spec::Add(
                    "taxon".into(),
                    Some(vec![Spec::Clear, add("name"), add("authority")])
                )
            ]
        );
        assert_eq!(
            parse("a(b(c))").unwrap(),
            vec![Spec::Add(
                "a".into(),
                Some(vec![Spec::Add("b".into(), Some(vec![add("c")]))])
            )]
        );
    }

    #[test]
    fn syntax_errors_name_the_position() {
        let e = |s: &str| parse(s).unwrap_err().message;
        assert_eq!(e(""), "fields error: unexpected end of input at position 0");
        assert_eq!(
            e("a,"),
            "fields error: unexpected end of input at position 2"
        );
        assert_eq!(e("a b"), "fields error: unexpected char ' ' at position 1");
        assert_eq!(
            e("a(b"),
            "fields error: unexpected end of input at position 3"
        );
        assert_eq!(e("a)"), "fields error: unexpected char ')' at position 1");
        assert_eq!(
            e("-a(b)"),
            "fields error: unexpected char '(' at position 2"
        );
        assert_eq!(e("a,,b"), "fields error: unexpected char ',' at position 2");
        assert_eq!(e("é"), "fields error: unexpected char 'é' at position 0");
        let deep = "a(".repeat(100_000);
        assert_eq!(
            e(&deep),
            "fields error: nested more than 16 levels deep at position 33"
        );
    }

    fn names(model: Model, plan: &Projection) -> Vec<&'static str> {
        plan.fields
            .iter()
            .map(|(i, _)| model.fields()[*i].name)
            .collect()
    }

    #[test]
    fn resolves_in_table_order() {
        let m = Model::Person;
        let plan = resolve(m, Shape::Plain, &parse("_,last_name,id").unwrap()).unwrap();
        assert_eq!(names(m, &plan), vec!["id", "last_name"]);
        let plan = resolve(
            m,
            Shape::Plain,
            &parse("-date_created,-date_modified").unwrap(),
        )
        .unwrap();
        assert_eq!(names(m, &plan).len(), 7);
        let plan = resolve(m, Shape::Plain, &parse("*").unwrap()).unwrap();
        assert!(plan.is_everything(m));
        let plan = resolve(m, Shape::Plain, &parse("_,suffix,-suffix").unwrap()).unwrap();
        assert!(plan.fields.is_empty());
    }

    #[test]
    fn nested_fields_only_where_an_object_is_served() {
        let e = |m, shape, s: &str| resolve(m, shape, &parse(s).unwrap()).unwrap_err().message;
        assert_eq!(
            e(Model::Family, Shape::Plain, "order(name)"),
            "'order' does not support nested fields"
        );
        assert_eq!(
            e(Model::Person, Shape::Plain, "last_name(x)"),
            "'last_name' does not support nested fields"
        );
        assert!(resolve(Model::Family, Shape::Nested, &parse("order(name)").unwrap()).is_ok());
        assert_eq!(
            e(Model::Order, Shape::Plain, "zeta,alpha,-beta"),
            "unknown fields: alpha, beta, zeta"
        );
        assert_eq!(e(Model::Order, Shape::Plain, "name,_"), "unknown fields: _");
        let plan = resolve(
            Model::SpecimenRecord,
            Shape::Plain,
            &parse("_,taxon(_,binomial)").unwrap(),
        )
        .unwrap();
        let child = plan.fields[0].1.as_ref().unwrap();
        assert_eq!(child[&Model::Species].fields.len(), 1);
        assert_eq!(child[&Model::Genus].fields.len(), 0);
        assert_eq!(
            e(
                Model::SpecimenRecord,
                Shape::Plain,
                "taxon(nope),collector(_,x)"
            ),
            "unknown fields: nope, x"
        );
    }
}
