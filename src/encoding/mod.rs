//! How values are spelled in bytes: JSON literals, CSV cells, XML text, percent-encoding,
//! instants and dates, hex, whole numbers as paths name them, text folded for comparing, the control characters none carries. The bottom layer: it knows nothing of the collection.

pub mod controls;
pub mod csv;
pub mod fold;
pub mod hex;
pub mod json;
pub mod percent;
pub mod photo_metadata;
pub mod time;
pub mod whole;
pub mod xml;
