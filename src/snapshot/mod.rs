//! The snapshot file: a fixed header (format version, creation time, payload length,
//! checksum) and the collection's raw records, encoded by the [`codec`].

mod codec;
mod file;

pub use file::*;
