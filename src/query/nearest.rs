//! Names a request got wrong, and the known names nearest them: what a refusal
//! suggests instead (`famly`: did you mean `family`?).

use super::error::ApiError;

/// Levenshtein distance, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let replaced = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = replaced.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The known name nearest `name`, ignoring case, if it is at most a third of
/// `name`'s length away (at least one slip): the first of the nearest, in
/// `known`'s order. A name of four letters or more that begins the other
/// (`paper` and `paper_size`) counts as one slip.
pub fn nearest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let slips = (lower.chars().count() / 3).max(1);
    let distance = |k: &str| {
        let k = k.to_lowercase();
        let (short, long) = match k.len() < lower.len() {
            true => (k.as_str(), lower.as_str()),
            false => (lower.as_str(), k.as_str()),
        };
        match short.len() >= 4 && long.starts_with(short) {
            true => 1,
            false => edit_distance(&lower, &k),
        }
    };
    known
        .into_iter()
        .map(|k| (distance(k), k))
        .filter(|&(d, _)| d <= slips)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// The 400 for parameters `what` does not take, each with the known name
/// nearest it: `a download does not take famly (did you mean family?)`.
pub fn unknown_parameters(what: &str, names: &[String], known: &[&str]) -> ApiError {
    let named: Vec<String> = names
        .iter()
        .map(|n| match nearest(n, known.iter().copied()) {
            Some(k) => format!("{n} (did you mean {k}?)"),
            None => n.clone(),
        })
        .collect();
    ApiError::bad_request(format!(
        "{what} does not take {}; /api/v2/openapi.json lists what it takes",
        named.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_characters() {
        assert_eq!(edit_distance("famly", "family"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("côté", "cote"), 2);
    }

    #[test]
    fn the_nearest_is_a_few_slips_away() {
        let known = ["family", "genus", "sex", "year"];
        assert_eq!(nearest("famly", known), Some("family"));
        assert_eq!(nearest("Genu", known), Some("genus"));
        assert_eq!(nearest("sx", known), Some("sex"));
        assert_eq!(nearest("colour", known), None);
        assert_eq!(
            nearest("paper_size", ["facet_size", "paper"]),
            Some("paper")
        );
        let e = unknown_parameters("a download", &["famly".into(), "colour".into()], &known);
        assert_eq!(
            e.message,
            "a download does not take famly (did you mean family?), colour; /api/v2/openapi.json lists what it takes"
        );
    }
}
