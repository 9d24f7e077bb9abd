//! The snapshot file: a fixed header (format version, creation time, payload length,
//! checksum), the collection's raw records and the view's prepared tables, encoded
//! by the [`codec`]; and the history `sync` keeps beside it ([`beside`]).

pub mod atomic;
pub mod beside;
pub mod codec;
mod dataset10;
mod dataset11;
pub mod described;
mod early;
mod file;
mod history10;
mod history11;
pub mod kept;
mod stamp;
pub mod status;
mod temporary;
pub mod verified;

pub use atomic::{write_atomically, write_parts_atomically};
pub use file::*;
pub use stamp::FileStamp;
