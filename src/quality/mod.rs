//! Data quality: what looks wrong in each specimen record, as GBIF would flag it
//! on publication (a point outside its country, a sign lost, a day that never
//! was), found once per view and asked like any filter (`issue=`).
//!
//! `flag` names the flags; `names` compares place names as curators write them;
//! `boundaries` holds the areas points are tested against; `checks` are the
//! rules on a record's values; `found` runs them over a view.

pub mod boundaries;
pub mod checks;
pub mod flag;
pub mod found;
pub mod names;

pub use flag::{Flag, Flags};
pub use found::{Asked, Mismatch, Quality, NO_FLAG};
