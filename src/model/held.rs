//! What a publication held back: each invalid record kept as it was last
//! published (or left out, or a deletion not yet published), and why.

use serde::{Deserialize, Serialize};

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

/// A record held back as a snapshot stores it (its part of its own, format
/// version 10): what [`Held`] says, and the version since which it is held.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Holding {
    /// The model's label (`specimens.specimenrecord`).
    pub model: String,
    pub id: i64,
    pub field: String,
    pub problem: String,
    /// [`KeptAs::name`].
    pub kept: String,
    /// The version of the first snapshot that held it back (of this hold:
    /// a record held, released and held again starts again).
    pub since: u64,
}

impl Holding {
    /// `held` as stored, held since `since`.
    pub fn of(held: &Held, since: u64) -> Holding {
        Holding {
            model: held.model.label().to_string(),
            id: held.id,
            field: held.field.clone(),
            problem: held.problem.clone(),
            kept: held.kept.name().to_string(),
            since,
        }
    }

    /// What is held, where its model is one this build knows.
    pub fn model(&self) -> Option<Model> {
        Model::from_label(&self.model)
    }

    pub fn kept(&self) -> Option<KeptAs> {
        KeptAs::from_name(&self.kept)
    }
}

/// `held` as stored, each held since the version `before` says it was (by
/// model and id), else since `version`.
pub fn holdings(held: &[Held], before: &[Holding], version: u64) -> Vec<Holding> {
    held.iter()
        .map(|h| {
            let since = (before.iter())
                .find(|b| b.model == h.model.label() && b.id == h.id)
                .map_or(version, |b| b.since);
            Holding::of(h, since)
        })
        .collect()
}
