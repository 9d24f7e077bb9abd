//! Data quality: what looks wrong in each specimen record, as GBIF would flag it
//! on publication (a point outside its country, a sign lost, a day that never
//! was), found once per view and asked like any filter (`issue=`).
//!
//! `flag` names the flags; `names` compares place names as curators write them;
//! `boundaries` holds the areas points are tested against; `checks` are the
//! rules on a record's values; `found` runs them over a view; `report` counts
//! them for the curator.

pub mod boundaries;
pub mod checks;
pub mod flag;
pub mod found;
pub mod names;
pub mod report;

pub use flag::{Flag, Flags, NO_FLAG};
pub use found::{Asked, Mismatch, Quality};
