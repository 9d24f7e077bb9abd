//! What a publication held back: each invalid record kept as it was last
//! published (or left out, or a deletion not yet published), and why.

use super::schema::Model;

/// How a held-back record stands in what is published.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeptAs {
    /// As it was last published: the edit waits.
    Published,
    /// Left out: it was never published.
    LeftOut,
    /// Still published, though deleted in the source: records there name it.
    DeletionHeld,
}

impl KeptAs {
    pub const ALL: [KeptAs; 3] = [KeptAs::Published, KeptAs::LeftOut, KeptAs::DeletionHeld];

    /// Its name in the API and in a snapshot.
    pub fn name(self) -> &'static str {
        match self {
            KeptAs::Published => "published",
            KeptAs::LeftOut => "left-out",
            KeptAs::DeletionHeld => "deletion-held",
        }
    }

    pub fn from_name(name: &str) -> Option<KeptAs> {
        KeptAs::ALL.into_iter().find(|k| k.name() == name)
    }

    /// What a reader is shown instead of the source's record.
    pub fn meaning(self) -> &'static str {
        match self {
            KeptAs::Published => "served as it was last published",
            KeptAs::LeftOut => "not served: it was never published",
            KeptAs::DeletionHeld => "still served, though deleted: records name it",
        }
    }
}

/// One record held back.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Held {
    pub model: Model,
    pub id: i64,
    /// The field the problem is in (`pk` for a deletion held).
    pub field: String,
    /// What is wrong, with the offending value.
    pub problem: String,
    pub kept: KeptAs,
}

impl Held {
    /// `model pk=N field: problem (kept)`, as the log says it.
    pub fn describe(&self) -> String {
        format!(
            "{} pk={} {}: {} ({})",
            self.model.label(),
            self.id,
            self.field,
            self.problem,
            self.kept.meaning()
        )
    }
}
