//! Which specimen records an archive holds: all of them, or the answer to a
//! question, which the archive then names.

/// Which specimen records an archive holds.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// Every one, ascending by id.
    Everything,
    /// Those a question of the specimen list selects, in its order: the
    /// question as its query string (which `eml.xml` names, so a citation can
    /// say exactly what was used) and the records' positions.
    Question {
        query: &'a str,
        positions: &'a [usize],
    },
}
