//! The choices the existing service's forms offer for a specimen's fields. Values
//! outside them are warned about at build time, and filters accept only these.

pub const SEXES: &[&str] = &["male", "female", "unknown"];
pub const STAGES: &[&str] = &["egg", "larva", "nymph", "pupa", "adult"];
pub const PREPARATIONS: &[&str] = &[
    "spread",
    "pinned",
    "minuten",
    "pointed",
    "envelope",
    "container",
    "alcohol",
];
pub const METHODS: &[&str] = &[
    "Net",
    "Reared",
    "Trap",
    "UV trap",
    "Light",
    "LED light",
    "LED light sheet",
    "MV light",
    "MV light sheet",
    "UV light",
    "UV light sheet",
    "UV/MV light sheet",
    "UV/MV/LED light sheet",
    "Bait",
    "By hand",
    "Sweep",
    "",
];

/// The months, as a specimen stores them.
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
