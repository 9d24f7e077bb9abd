//! A model's table: its rows, ascending by id, stored by column, with what finds
//! them fast (row groups, lowercased distinct strings, search words, sort orders).

use std::sync::{Arc, OnceLock};

use crate::model::{Field, Model, Type};

use super::column::{Column, Key};
use super::index::{self, Groups, TextColumn, Words};
use super::order::{FieldOrder, Order};
use super::value::{Row, Value};

/// The records of one model, ascending by id, stored by column.
#[derive(Debug)]
pub struct Table {
    pub model: Model,
    /// One per field of the model's table, in field-table order (`[0]`: ids).
    /// Each, and everything built from it alone (its lowercased strings, groups
    /// and order), is shared with the view a reload replaced when the column is
    /// equal there ([`Table::share_unchanged`]): a reload builds and holds only
    /// what changed.
    columns: Box<[Arc<Column>]>,
    /// Per string field, its distinct values lowercased (by code): what
    /// substring filters and `search` look in, each value once however many
    /// rows hold it. Like every index here, built on first use or by the view's
    /// preparation once it is served ([`Table::index`]), not before: a reload
    /// then holds two views' rendered lists beside one view's indexes.
    lower: Box<[OnceLock<Option<Arc<TextColumn>>>]>,
    /// The words of the lowercased strings, built the first time a search needs them.
    words: OnceLock<Arc<Words>>,
    /// Per field, the rows grouped by value where that pays (see [`Groups`]).
    groups: Box<[OnceLock<Option<Arc<Groups>>>]>,
    /// Per field, its sort order, built the first time it is asked for: a view
    /// is served before any is built, and only the fields someone sorts on cost
    /// memory (up to 8 bytes a row each).
    orders: Box<[OnceLock<Arc<FieldOrder>>]>,
    /// `0..len`, the rows of every order already in position order (ids),
    /// made the first time one is read.
    positions: OnceLock<Box<[u32]>>,
}

/// Tables this long are made and stored on two threads (see [`Table::new`]), in
/// chunks of `CHUNK_ROWS`.
const PIPELINED_ROWS: usize = 50_000;
const CHUNK_ROWS: usize = 4096;

/// A field is grouped (and its strings can be looked up) unless more than one
/// row in this many holds a value of its own.
const MAX_DISTINCT_PER: usize = 4;

impl Table {
    /// Stores the rows (ascending by id) in columns. A value the field table does
    /// not admit is a bug in row building, and panics. On a big table the rows
    /// are made on another thread while this one stores them, a chunk at a time:
    /// making a row (derived values, references found) and storing it (strings
    /// interned) cost about the same.
    pub(super) fn new(model: Model, rows: impl ExactSizeIterator<Item = Row> + Send) -> Table {
        let fields = model.fields();
        let len = rows.len();
        let mut columns: Vec<Column> = fields.iter().map(|f| Column::new(f.ty, len)).collect();
        let mut store = |row: Row| {
            assert_eq!(row.len(), fields.len(), "{model:?} row of the wrong length");
            for ((column, field), value) in columns.iter_mut().zip(fields).zip(&row) {
                if let Err(what) = column.push(value, field.nullable) {
                    refused(model, &row, field, what);
                }
            }
        };
        if len < PIPELINED_ROWS {
            rows.for_each(store);
        } else {
            std::thread::scope(|scope| {
                let (send, receive) = std::sync::mpsc::sync_channel::<Vec<Row>>(4);
                scope.spawn(move || {
                    let mut rows = rows.peekable();
                    while rows.peek().is_some() {
                        let chunk: Vec<Row> = rows.by_ref().take(CHUNK_ROWS).collect();
                        if send.send(chunk).is_err() {
                            return;
                        }
                    }
                });
                receive.into_iter().flatten().for_each(&mut store);
            });
        }
        let max_distinct = max_distinct(len);
        for column in &mut columns {
            column.finish(max_distinct);
        }
        Table::from_columns(model, columns)
    }

    /// Sets row `pos` to `row` (its values as [`Table::new`] takes them),
    /// marking in `changed` each column whose value was another; the
    /// columns must be [`Table::settle`]d before they are read. The table must
    /// not have been shared (a table being prepared, not a view's).
    pub(super) fn set_row(&mut self, pos: u32, row: &Row, changed: &mut [bool]) {
        let fields = self.model.fields();
        assert_eq!(
            row.len(),
            fields.len(),
            "{:?} row of the wrong length",
            self.model
        );
        let columns = self.columns.iter_mut().zip(fields).zip(row);
        for (((column, field), value), changed) in columns.zip(changed) {
            let column = Arc::get_mut(column).expect("a table being prepared is not shared");
            match column.set(pos as usize, value, field.nullable) {
                Ok(set) => *changed |= set,
                Err(what) => refused(self.model, row, field, what),
            }
        }
    }

    /// After [`Table::set_row`]: each column it `changed` as building it
    /// from its rows would have left it (the others are as built already).
    pub(super) fn settle(&mut self, changed: &[bool]) {
        let max_distinct = max_distinct(self.len());
        for (column, _) in self.columns.iter_mut().zip(changed).filter(|(_, &c)| c) {
            Arc::get_mut(column)
                .expect("a table being prepared is not shared")
                .settle(max_distinct);
        }
    }

    /// A table of its columns (built, or read from a snapshot and checked by the
    /// caller), not yet indexed.
    pub(super) fn from_columns(model: Model, columns: Vec<Column>) -> Table {
        Table::of_shared(model, columns.into_iter().map(Arc::new).collect())
    }

    /// A table of these columns, nothing built from them yet.
    pub(super) fn of_shared(model: Model, columns: Box<[Arc<Column>]>) -> Table {
        Table {
            model,
            columns,
            lower: model.fields().iter().map(|_| OnceLock::new()).collect(),
            words: OnceLock::new(),
            groups: model.fields().iter().map(|_| OnceLock::new()).collect(),
            orders: model.fields().iter().map(|_| OnceLock::new()).collect(),
            positions: OnceLock::new(),
        }
    }

    /// A table of the same columns, shared, without anything built on them:
    /// what a list rendered later reads.
    pub(super) fn columns_only(&self) -> Table {
        Table::of_shared(self.model, self.columns.clone())
    }

    /// Field `f`'s column, to be shared with a table that holds the same.
    pub(super) fn shared_column(&self, f: usize) -> Arc<Column> {
        Arc::clone(&self.columns[f])
    }

    /// The columns, in field-table order: what a snapshot stores.
    pub(super) fn columns(&self) -> Vec<&Column> {
        self.columns.iter().map(|c| &**c).collect()
    }

    /// Takes the `served` table's column for every field whose column is equal
    /// here, with its lowercased strings, groups and sort order (built from the
    /// column alone) as far as they are built, and its search words when every
    /// string field is kept; the equal column read from the snapshot is dropped
    /// at once. Returns the bytes of the columns kept.
    pub(super) fn share_unchanged(&mut self, served: &Table) -> usize {
        let fields = self.columns.len();
        if served.model != self.model
            || served.columns.len() != fields
            || served.len() != self.len()
        {
            return 0;
        }
        let mut bytes = 0;
        for f in 0..fields {
            let (mine, theirs) = (&self.columns[f], &served.columns[f]);
            if !Arc::ptr_eq(mine, theirs) && mine != theirs {
                continue;
            }
            bytes += served.columns[f].heap_bytes();
            self.columns[f] = Arc::clone(&served.columns[f]);
            self.take_indexes(served, f);
        }
        if self.string_fields().all(|f| self.shares(served, f)) {
            if let Some(words) = served.words.get() {
                let _ = self.words.set(Arc::clone(words));
            }
        }
        bytes
    }

    /// Whether every column is `served`'s own ([`Table::share_unchanged`]
    /// found it equal).
    pub(super) fn unchanged_from(&self, served: &Table) -> bool {
        served.model == self.model && (0..self.columns.len()).all(|f| self.shares(served, f))
    }

    /// The rows whose values differ from `served`'s, ascending, when the two
    /// hold the same records in the same order; `None` otherwise. Only the
    /// columns not shared with it are read.
    pub(super) fn rows_changed_from(&self, served: &Table) -> Option<Vec<u32>> {
        let rows = self.len() as u32;
        let same_records = served.model == self.model
            && served.len() == self.len()
            && (self.shares(served, 0) || (0..rows).all(|p| self.id(p) == served.id(p)));
        if !same_records {
            return None;
        }
        let mut changed = Vec::new();
        for f in (0..self.columns.len()).filter(|&f| !self.shares(served, f)) {
            let (mine, theirs) = (&self.columns[f], &served.columns[f]);
            changed.extend((0..rows).filter(|&p| mine.get(p as usize) != theirs.get(p as usize)));
        }
        changed.sort_unstable();
        changed.dedup();
        Some(changed)
    }

    /// This table's columns, with the indexes of the fields `next` (the table
    /// a reload is building) keeps from it and no others: those cost nothing
    /// more, the rest are freed with the view this table leaves.
    pub(super) fn interim(&self, next: &Table) -> Table {
        let table = Table::of_shared(self.model, self.columns.clone());
        for f in (0..self.columns.len()).filter(|&f| self.shares(next, f)) {
            table.take_indexes(self, f);
        }
        if let (Some(words), Some(shared)) = (self.words.get(), next.words.get()) {
            if Arc::ptr_eq(words, shared) {
                let _ = table.words.set(Arc::clone(words));
            }
        }
        table
    }

    /// Whether `other` holds this table's very column of `field` (a reload kept it).
    fn shares(&self, other: &Table, field: usize) -> bool {
        other
            .columns
            .get(field)
            .is_some_and(|c| Arc::ptr_eq(c, &self.columns[field]))
    }

    /// Takes `from`'s lowercased strings, groups and sort order of `field`, as
    /// far as they are built (`from` holds the same column).
    fn take_indexes(&self, from: &Table, field: usize) {
        if let Some(lower) = from.lower[field].get() {
            let _ = self.lower[field].set(lower.clone());
        }
        if let Some(groups) = from.groups[field].get() {
            let _ = self.groups[field].set(groups.clone());
        }
        if let Some(order) = from.orders[field].get() {
            let _ = self.orders[field].set(Arc::clone(order));
        }
    }

    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.columns[0].len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `pos`'s value of `field`.
    pub fn get(&self, pos: usize, field: usize) -> Value<'_> {
        self.columns[field].get(pos)
    }

    /// Row `pos`'s values, in field-table order.
    pub fn row(&self, pos: usize) -> impl Iterator<Item = Value<'_>> + '_ {
        self.columns.iter().map(move |c| c.get(pos))
    }

    /// The column of `field`.
    pub fn column(&self, field: usize) -> &Column {
        &self.columns[field]
    }

    /// The rows in `field`'s order, built on first use (another caller asking
    /// meanwhile waits for the same build).
    pub fn order(&self, field: usize) -> Order<'_> {
        let (column, groups) = (&self.columns[field], self.groups(field));
        let order = self.orders[field]
            .get_or_init(|| Arc::new(FieldOrder::build(column, self.len(), groups)));
        let positions = match order.is_in_place() {
            true => self
                .positions
                .get_or_init(|| (0..self.len() as u32).collect()),
            false => &[][..],
        };
        order.with(column, groups, positions)
    }

    /// The bytes its columns, lowercased strings and groups hold, for reports:
    /// `(columns, lower, groups)`.
    pub fn heap_bytes(&self) -> (usize, usize, usize) {
        let columns = self.columns.iter().map(|c| c.heap_bytes()).sum();
        let lower = self.lower.iter().filter_map(|l| l.get()?.as_ref());
        let groups = self.groups.iter().filter_map(|g| g.get()?.as_ref());
        let lower = lower.map(|l| l.heap_bytes()).sum();
        let groups = groups.map(|g| g.heap_bytes()).sum();
        (columns, lower, groups)
    }

    /// The bytes its sort orders and search words hold (those built so far), for
    /// reports: `(orders, words)`.
    pub fn prepared_bytes(&self) -> (usize, usize) {
        let orders = self.orders.iter().filter_map(OnceLock::get);
        let positions = self.positions.get().map_or(0, |p| p.len() * 4);
        let words = self.words.get().map_or(0, |w| w.heap_bytes());
        (
            orders.map(|o| o.heap_bytes()).sum::<usize>() + positions,
            words,
        )
    }

    /// The words of the lowercased strings, built on first use.
    pub fn words(&self) -> &Words {
        self.words.get_or_init(|| {
            let fields: Vec<usize> = self.string_fields().collect();
            let lower: Vec<&TextColumn> = fields.iter().filter_map(|&f| self.lower(f)).collect();
            Arc::new(Words::build(self.len(), &lower, |i, pos| {
                self.code(fields[i], pos)
            }))
        })
    }

    /// Builds every field's lowercased strings and groups not built yet, half
    /// the fields on another thread: what the view's preparation does first,
    /// so that questions find them ready.
    pub fn index(&self) {
        let fields: Vec<usize> = (0..self.columns.len()).collect();
        let (first, second) = fields.split_at(fields.len() / 2);
        let build = |fields: &[usize]| {
            for &f in fields {
                self.lower(f);
                self.groups(f);
            }
        };
        std::thread::scope(|scope| {
            scope.spawn(|| build(second));
            build(first);
        });
    }

    /// The lowercased distinct strings of a string field (by code), built on
    /// first use.
    fn lower(&self, field: usize) -> Option<&TextColumn> {
        let built = self.lower[field].get_or_init(|| {
            let distinct = self.columns[field].strings()?.distinct();
            let lower = (0..distinct.len() as u32).map(|code| distinct.get(code));
            Some(Arc::new(TextColumn::build(lower)))
        });
        built.as_deref()
    }

    /// The fields that hold strings.
    fn string_fields(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.columns.len()).filter(|&f| self.columns[f].strings().is_some())
    }

    /// The code of row `pos`'s string in `field`; `None` for a null or a field
    /// that holds no strings.
    fn code(&self, field: usize, pos: usize) -> Option<u32> {
        self.columns[field].strings()?.code(pos)
    }

    /// The rows grouped by `field`'s value, built on first use: every field a
    /// filter can name is grouped, except those that are (nearly) unique per
    /// row: ids, timestamps, free text.
    pub fn groups(&self, field: usize) -> Option<&Groups> {
        let built = self.groups.get(field)?.get_or_init(|| {
            let model = self.model;
            let ty = model.fields()[field].ty;
            let name = model.fields()[field].name;
            if field == 0 || ty == Type::Time || model.policy().ungrouped.contains(&name) {
                return None;
            }
            let grouped = Groups::by_fields(&self.columns, self.len(), &[field], MAX_DISTINCT_PER);
            grouped.into_iter().next().flatten().map(Arc::new)
        });
        built.as_deref()
    }

    /// The rows whose `field` holds `value` (or whose list holds it), ascending;
    /// `None` when the field is not grouped.
    pub fn rows_with(&self, field: usize, value: Value) -> Option<&[u32]> {
        let groups = self.groups(field)?;
        Some(match self.columns[field].key_of(value) {
            Some(key) => groups.get(key),
            None => &[],
        })
    }

    /// Whether one of the row's own strings contains `term` (lowercase).
    pub fn row_contains(&self, pos: usize, term: &str) -> bool {
        self.string_fields()
            .any(|f| self.lowercase(pos, f).is_some_and(|s| s.contains(term)))
    }

    /// The rows one of whose own strings contains `term` (lowercase), ascending:
    /// from the words when the term is one word, else field by field.
    pub fn find_text(&self, term: &str) -> Vec<u32> {
        if let Some(rows) = self.words().find(term, self.len()) {
            return rows.into_owned();
        }
        let found: Vec<Vec<u32>> = self
            .string_fields()
            .filter_map(|f| self.find(f, term))
            .collect();
        index::union(self.len(), found.iter().map(Vec::as_slice)).into_owned()
    }

    /// The id of the row at `pos`.
    pub fn id(&self, pos: u32) -> i64 {
        match self.columns[0].get(pos as usize) {
            Value::Int(id) => id,
            _ => unreachable!("the first field of every table is its id"),
        }
    }

    /// The position of the record with this id: rows ascend by id.
    pub fn position(&self, id: i64) -> Option<u32> {
        let ids = self.columns[0]
            .ints()
            .expect("the first field of every table is its id");
        ids.binary_search(id).map(|p| p as u32)
    }

    /// The lowercased text of a string field, or `None` when the value is not a string.
    pub fn lowercase(&self, pos: usize, field: usize) -> Option<&str> {
        let code = self.code(field, pos)?;
        Some(self.lower(field)?.get(code as usize))
    }

    /// The rows whose string `field` contains `term` (lowercase), ascending; `None`
    /// when the field holds no strings. The distinct values are searched, then
    /// their rows found: from the groups when a few values match, else by a pass
    /// over the codes.
    pub fn find(&self, field: usize, term: &str) -> Option<Vec<u32>> {
        let strings = self.columns[field].strings()?;
        let lower = self.lower(field)?;
        let codes = lower.find(term);
        if codes.is_empty() {
            return Some(Vec::new());
        }
        if let Some(groups) = self.groups(field).filter(|_| codes.len() <= FEW_VALUES) {
            let lists = codes.iter().map(|&c| groups.get(Key::Code(c)));
            return Some(index::union(self.len(), lists).into_owned());
        }
        let mut hit = vec![false; lower.len()];
        for &c in &codes {
            hit[c as usize] = true;
        }
        Some(
            (0..self.len())
                .filter(|&p| strings.code(p).is_some_and(|c| hit[c as usize]))
                .map(|p| p as u32)
                .collect(),
        )
    }
}

/// At most this many matching values are looked up group by group; more are
/// found by one pass over the codes.
const FEW_VALUES: usize = 16;

/// How many distinct values a field of a table this long may hold and still be
/// grouped.
/// A row's value its field's column cannot hold: row building and the field
/// tables disagree, which is a bug.
fn refused(model: Model, row: &Row, field: &Field, what: &str) -> ! {
    let value = &row[model.field_index(field.name).unwrap_or_default()];
    panic!(
        "{} row {:?} field {} ({:?}) holds {what}: {value:?}",
        model.class_name(),
        row[0],
        field.name,
        field.ty
    )
}

fn max_distinct(rows: usize) -> usize {
    if rows < 1024 {
        usize::MAX
    } else {
        rows / MAX_DISTINCT_PER
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::value::OwnedValue;

    /// A table long enough to be made and stored on two threads holds every row,
    /// in order.
    #[test]
    fn long_tables_keep_every_row_in_order() {
        let n = PIPELINED_ROWS + CHUNK_ROWS + 7;
        let row = |i: usize| -> Row {
            vec![
                OwnedValue::Int(i as i64 * 3),
                OwnedValue::Str(format!("country {}", i % 1000).into()),
                OwnedValue::Str(format!("C{i}").into()),
                OwnedValue::Time(i as i64),
                OwnedValue::Time(-(i as i64)),
            ]
        };
        let table = Table::new(Model::Country, (0..n).map(row));
        assert_eq!(table.len(), n);
        for i in [0, 1, CHUNK_ROWS - 1, CHUNK_ROWS, PIPELINED_ROWS, n - 1] {
            let want = row(i);
            let got: Vec<OwnedValue> = table.row(i).map(Value::owned).collect();
            assert_eq!(got, want, "row {i}");
            assert_eq!(table.position(i as i64 * 3), Some(i as u32));
        }
        assert_eq!(table.position(4), None);
    }
}
