//! JSON rendering: items are written once into each list's segments, at load
//! (or, made of fragments, a segment at a time once the view is served).
//!
//! A list's buffer holds its items separated by commas (`{..},{..},{..}`), and each
//! item's byte range is recorded, so any run of consecutive items is one slice of the
//! buffer and an embedded record is a copy of bytes already rendered. A list is
//! rendered in segments of consecutive items, each core writing blocks of them one
//! after another into its memory file (or onto the heap, for a short list); a run
//! that crosses from one segment to the next is a few slices (a [`Run`]), still
//! without a copy. A reload keeps the served view's segment where it renders the
//! same bytes ([`Previous`]). A list no other list embeds, whose items embed
//! records (the specimens'), holds only its items' own bytes and where the
//! embedded records' items go in them ([`super::fragments`]); a run of it is
//! those pieces copied together. Such a list is served before it is rendered:
//! each segment is rendered by its first read or by the view's preparation,
//! whichever comes first, once ([`Coded`]).
//!
//! `list` is a rendered list and the runs cut from it; `write` how an item is
//! written (every field, or a projection's); `lists` every list rendered, in
//! segments, a block at a time on each core; `coded` a list made of
//! fragments, its segments rendered on use; `previous` the served view a
//! reload renders beside, and which of its segments stand unchanged.

mod coded;
mod list;
mod lists;
mod previous;
mod write;

pub use coded::Coded;
pub use list::{Items, List, Run};
pub(in crate::view) use lists::embedded;
pub use lists::{render_all, render_all_without_fragments, Rendered};
pub use previous::Previous;
pub use write::{write_item, write_scalar, write_spliced, Child, Embeds, Projection, MEDIA_BASE};
