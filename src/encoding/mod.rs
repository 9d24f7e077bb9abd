//! How values are spelled in bytes: JSON literals, CSV cells, percent-encoding, instants and
//! dates, hex. The bottom layer: it knows nothing of the collection.

pub mod csv;
pub mod hex;
pub mod json;
pub mod percent;
pub mod time;
