//! Place names as curators write them, compared with the boundary data's: folded
//! (case, accents and punctuation ignored), abbreviations spelled out (`N.` is
//! North, `St.` Saint, `Mt.` Mount), the kind of area dropped (`County`,
//! `Parish`, `Borough`, `Census Area`), and spaces ignored (`DeKalb` is `De Kalb`).

use crate::encoding::fold::fold;

/// Words written for longer ones.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("n", "north"),
    ("s", "south"),
    ("e", "east"),
    ("w", "west"),
    ("st", "saint"),
    ("ste", "sainte"),
    ("mt", "mount"),
    ("ft", "fort"),
    ("pt", "point"),
];

/// What a name may say of the kind of area it is, after the name itself
/// (longest first, as words).
const KINDS: &[&[&str]] = &[
    &["city", "and", "borough"],
    &["census", "area"],
    &["municipality"],
    &["county"],
    &["parish"],
    &["borough"],
    &["co"],
];

/// The key a place name is compared by.
pub fn key(name: &str) -> String {
    let folded = fold(name);
    let mut words: Vec<&str> = folded
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| {
            ABBREVIATIONS
                .iter()
                .find(|(short, _)| *short == w)
                .map_or(w, |(_, long)| long)
        })
        .collect();
    // The kind is dropped only after a name: `County Line` stays a name.
    while let Some(kind) = KINDS
        .iter()
        .find(|k| words.len() > k.len() && words.ends_with(k))
    {
        words.truncate(words.len() - kind.len());
    }
    words.concat()
}

/// The keys of a county as a record writes it: `A/B` is either county.
pub fn county_keys(name: &str) -> Vec<String> {
    name.split('/').map(key).filter(|k| !k.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_as_curators_write_them() {
        for (written, drawn) in [
            ("Fairbanks N. Star", "Fairbanks North Star"),
            ("Fairbanks North Star Borough", "Fairbanks North Star"),
            ("Yukon-Koyukuk Census Area", "Yukon-Koyukuk"),
            ("St. Louis Co.", "St. Louis"),
            ("Saint Louis County", "St. Louis"),
            ("Ste. Genevieve", "Ste. Genevieve"),
            ("Orleans Parish", "Orleans"),
            ("DeKalb", "De Kalb"),
            ("Juneau City and Borough", "Juneau"),
            ("Doña Ana", "Dona Ana"),
            ("QUÉBEC", "Québec"),
        ] {
            assert_eq!(key(written), key(drawn), "{written:?} is {drawn:?}");
        }
        assert_ne!(key("Clear Creek"), key("Clearwater"));
        assert_eq!(key("County"), "county", "a kind alone is a name");
        assert_eq!(key("Census Area"), "censusarea");
        assert_eq!(
            county_keys("Pima/Santa Cruz"),
            [key("Pima"), key("Santa Cruz")]
        );
        assert_eq!(county_keys(" / "), Vec::<String>::new());
    }
}
