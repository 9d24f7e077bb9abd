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

/// How a folded text sounds, for names misspelt as they are heard: a key in
/// which letters that sound alike in the Latin of scientific names (and the
/// words around them) are one letter. On the folded text: `ph` is `f`, `ch`
/// `k`, `th` `t`, `rh` `r`; `ae` and `oe` are `e`; `c`, `k` and `q` are `k`,
/// `y` and `j` are `i`, `z` is `s`, `w` is `v`; any other `h` is silent;
/// then a letter written twice is once (`Nephia`, `Nephya` and `nefia` are
/// all `nefia`; `Hyalophora` is `ialofora`). Spaces and digits are kept.
pub fn sounds(folded: &str) -> String {
    let b = folded.as_bytes();
    let mut out = String::with_capacity(folded.len());
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        let (sound, used) = match (b[i], next) {
            (b'p', Some(b'h')) => (Some('f'), 2),
            (b'c', Some(b'h')) => (Some('k'), 2),
            (b't', Some(b'h')) => (Some('t'), 2),
            (b'r', Some(b'h')) => (Some('r'), 2),
            (b'a' | b'o', Some(b'e')) => (Some('e'), 2),
            (b'c' | b'k' | b'q', _) => (Some('k'), 1),
            (b'y' | b'j', _) => (Some('i'), 1),
            (b'z', _) => (Some('s'), 1),
            (b'w', _) => (Some('v'), 1),
            (b'h', _) => (None, 1),
            (c, _) if c.is_ascii() => (Some(c as char), 1),
            // Not ASCII (a letter fold leaves as it is): kept whole.
            _ => {
                let c = folded[i..].chars().next().expect("a char");
                (Some(c), c.len_utf8())
            }
        };
        if let Some(c) = sound {
            if !(out.ends_with(c) && c != ' ' && !c.is_ascii_digit()) {
                out.push(c);
            }
        }
        i += used;
    }
    out
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
    fn names_heard_alike_sound_alike() {
        for heard in ["nephia", "nefia", "nephya", "neffia"] {
            assert_eq!(sounds(heard), "nefia", "{heard}");
        }
        assert_eq!(sounds("hyalophora cecropia"), "ialofora kekropia");
        assert_eq!(sounds("cicindela"), sounds("kicindela"));
        assert_eq!(sounds("aeshnidae"), "esnide");
        assert_eq!(sounds("danaus plexippus"), "danaus plexipus");
        assert_eq!(sounds("ummz 000123"), "ums 000123");
        assert_ne!(sounds("nephea"), sounds("nephia"));
    }

    #[test]
    fn a_text_is_found_from_any_of_its_words() {
        assert_eq!(
            word_ends("ummz ins 000123").collect::<Vec<_>>(),
            ["ummz ins 000123", "ins 000123", "000123"]
        );
    }
}
