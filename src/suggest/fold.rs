//! How a name and what is typed are compared: both folded to the same plain
//! form (`encoding::fold`: lowercase, accents dropped, punctuation a space
//! between words), the keys a name is found by, and how many typos a length
//! forgives.

pub use crate::encoding::fold::fold;

/// How many typos (an inserted, deleted, changed or swapped character) a word
/// of `chars` characters forgives: none below 4, one from 4 to 7, two from 8.
pub fn forgiven(chars: usize) -> u8 {
    match chars {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// The keys a folded name is found by: its words in every order (up to four
/// words; a longer name in each rotation), so that typing any of its words
/// first, or all of them in any order, is typing the start of a key.
pub fn keys(folded: &str) -> Vec<String> {
    let words: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
    let mut keys = Vec::new();
    if words.len() <= 4 {
        permute(&mut words.clone(), 0, &mut keys);
    } else {
        for r in 0..words.len() {
            let mut rotated = words[r..].to_vec();
            rotated.extend_from_slice(&words[..r]);
            keys.push(rotated.join(" "));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn permute(words: &mut [&str], from: usize, out: &mut Vec<String>) {
    if from + 1 >= words.len() {
        if !words.is_empty() {
            out.push(words.join(" "));
        }
        return;
    }
    for i in from..words.len() {
        words.swap(from, i);
        permute(words, from + 1, out);
        words.swap(from, i);
    }
}

/// The ends of a folded text at each word (`cat 000123`, `000123`).
pub fn word_ends(folded: &str) -> impl Iterator<Item = &str> {
    std::iter::once(folded).chain(folded.match_indices(' ').map(|(i, _)| &folded[i + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_forgiven_grow_with_length() {
        assert_eq!(
            [3, 4, 7, 8, 20].map(forgiven),
            [0, 1, 1, 2, 2],
            "none below 4, one to 7, two from 8"
        );
    }

    #[test]
    fn a_name_is_found_by_its_words_in_any_order() {
        assert_eq!(keys("a b"), ["a b", "b a"]);
        assert_eq!(keys("a b c").len(), 6);
        assert_eq!(keys("a a"), ["a a"]);
        assert_eq!(
            keys("a b c d e"),
            [
                "a b c d e",
                "b c d e a",
                "c d e a b",
                "d e a b c",
                "e a b c d"
            ]
        );
        assert!(keys("").is_empty());
    }

    #[test]
    fn a_text_is_found_from_any_of_its_words() {
        assert_eq!(
            word_ends("ummz ins 000123").collect::<Vec<_>>(),
            ["ummz ins 000123", "ins 000123", "000123"]
        );
    }
}
