//! A model's fields are written in three places: the records' stored fields
//! (`Collection::read`), the API's field tables and row building. These tests fail
//! when they disagree; the database's columns are derived from the first.

use crate::common;

use catalogue::model::records::{placement_fields, stored_fields, Kind};
use catalogue::model::{Model, Type};
use catalogue::view::{Value, View};
use common::{sample_snapshot, TempDir};

/// Whether a stored field of this kind is served as a field of this type.
fn served_as(kind: Kind, ty: Type, nullable: bool) -> bool {
    let id = |m| matches!(ty, Type::Parent(t) | Type::Embed(t) | Type::RefId(t) if t == m);
    match kind {
        Kind::Text => ty == Type::Str && !nullable || ty == Type::MediaFile,
        Kind::OptText => ty == Type::Str && nullable,
        Kind::Count => ty == Type::Int && !nullable,
        Kind::OptCount | Kind::OptForeignId => ty == Type::Int && nullable,
        Kind::ForeignId => ty == Type::Int && !nullable,
        Kind::Bool => ty == Type::Bool && !nullable,
        Kind::OptBool => ty == Type::Bool && nullable,
        Kind::Time => ty == Type::Time && !nullable,
        Kind::OptTime => ty == Type::Time && nullable,
        Kind::Date => ty == Type::Date && !nullable,
        Kind::OptDate => ty == Type::Date && nullable,
        Kind::Ref(m) => !nullable && id(m),
        Kind::OptRef(m) => nullable && id(m),
        Kind::Refs(m) => !nullable && matches!(ty, Type::EmbedMany(t) | Type::RefIds(t) if t == m),
        Kind::AddedRef(m) => nullable && id(m),
        // Tags are served by Wagtail's image list, not as a field of the table.
        Kind::Tags => unreachable!("tags are skipped"),
    }
}

#[test]
fn every_stored_field_is_served_under_its_name_with_its_type() {
    for model in Model::ALL.into_iter().filter(|m| m.stored()) {
        let stored = stored_fields(model);
        assert!(!stored.is_empty(), "{model:?} stores nothing");
        // A page's place in the tree is served by Wagtail's pages endpoint.
        let wagtail = match model {
            Model::Page => placement_fields(),
            _ => Vec::new(),
        };
        assert!(model != Model::Page || wagtail.len() > 5);
        let served = stored
            .into_iter()
            .filter(|f| f.1 != Kind::Tags && !wagtail.contains(f));
        for (name, kind) in served {
            let index = model
                .field_index(name)
                .unwrap_or_else(|| panic!("{model:?} stores {name}, which its table lacks"));
            let field = model.fields()[index];
            assert!(
                served_as(kind, field.ty, field.nullable),
                "{model:?}.{name} is stored as {kind:?} but served as {:?} (nullable: {})",
                field.ty,
                field.nullable
            );
        }
    }
}

#[test]
fn every_built_row_matches_its_field_table() {
    let dir = TempDir::new("model-rows");
    for snapshot in [sample_snapshot(), common::generated(&dir, 2000)] {
        let view = View::load(&snapshot).unwrap();
        for model in Model::ALL {
            let table = view.table(model);
            assert!(!table.is_empty(), "{model:?} has no rows to check");
            for (f, field) in model.fields().iter().enumerate() {
                for pos in 0..table.len() {
                    let value = table.get(pos, f);
                    assert!(
                        holds(field.ty, field.nullable, value),
                        "{model:?} row {pos} field {} ({:?}) reads {value:?} in {}",
                        field.name,
                        field.ty,
                        snapshot.display()
                    );
                }
            }
        }
    }
}

/// Whether a value read back from a table is one a field of this type holds.
fn holds(ty: Type, nullable: bool, value: Value) -> bool {
    match (ty, value) {
        (_, Value::Null) => nullable,
        (Type::Int, Value::Int(_))
        | (Type::Bool, Value::Bool(_))
        | (Type::Str | Type::Date | Type::MediaFile, Value::Str(_))
        | (Type::Time, Value::Time(_)) => true,
        (Type::Parent(m) | Type::Embed(m) | Type::RefId(m), Value::Ref(r, _)) => m == r,
        (Type::EmbedMany(m) | Type::RefIds(m), Value::Refs(r, _)) => m == r,
        (Type::Taxon, Value::Ref(r, _)) => Model::RANKS.contains(&r),
        _ => false,
    }
}
