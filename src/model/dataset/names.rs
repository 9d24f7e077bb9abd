//! A person's name as citations split it: given names, surname, its
//! particles, initials.

use super::description::Party;

/// The lowercase words that begin a surname (`van der Berg`, `da Silva`).
const PARTICLES: &[&str] = &[
    "van", "der", "den", "de", "von", "da", "du", "la", "le", "di", "del", "dos", "das", "ten",
    "ter", "zu", "zum", "zur", "des", "della", "dello", "op", "het",
];

impl Party {
    /// (given names, surname): `given_name` and `surname` where the file
    /// says them, else from `name`, whose last word is the surname with the
    /// lowercase particles before it (`Jan van der Berg`: `Jan`, `van der
    /// Berg`). An organisation's party has neither.
    pub fn name_parts(&self) -> (&str, &str) {
        let (given, surname) = (self.given_name.trim(), self.surname.trim());
        if !surname.is_empty() {
            return (given, surname);
        }
        let name = self.name.trim();
        let words: Vec<(usize, &str)> = name
            .split(' ')
            .scan(0, |at, w| {
                let start = *at;
                *at += w.len() + 1;
                Some((start, w))
            })
            .filter(|(_, w)| !w.is_empty())
            .collect();
        let Some(last) = words.len().checked_sub(1) else {
            return (given, "");
        };
        let mut first = last;
        // The first word is a given name, whatever it is.
        while first > 1 && PARTICLES.contains(&words[first - 1].1) {
            first -= 1;
        }
        let at = words[first].0;
        let given = match given.is_empty() {
            true => name[..at].trim(),
            false => given,
        };
        (given, name[at..].trim())
    }

    /// The particles of the surname and the rest (`van der`, `Berg`): CSL's
    /// non-dropping particle and family name.
    pub fn surname_particles(&self) -> (&str, &str) {
        let (_, surname) = self.name_parts();
        let mut at = 0;
        for word in surname.split(' ') {
            if !PARTICLES.contains(&word) || at + word.len() >= surname.len() {
                break;
            }
            at += word.len() + 1;
        }
        (surname[..at].trim(), surname[at..].trim())
    }

    /// Whether this is a person (a name, or a surname), not an organisation.
    pub fn is_person(&self) -> bool {
        !self.name.trim().is_empty() || !self.surname.trim().is_empty()
    }

    /// The name as a person is addressed: `name`, else given names and surname.
    pub fn full_name(&self) -> String {
        match self.name.trim() {
            "" => {
                let (given, surname) = self.name_parts();
                [given, surname]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ")
            }
            name => name.to_string(),
        }
    }

    /// A person's initials as GBIF's citations write them (`Rosa M.`: `R M`).
    pub fn initials(&self) -> String {
        let (given, _) = self.name_parts();
        given
            .split([' ', '-', '.'])
            .filter_map(|w| w.chars().next())
            .map(|c| c.to_uppercase().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_parts_keep_particles_in_the_surname() {
        let named = |name: &str| Party {
            name: name.into(),
            ..Party::default()
        };
        for (name, given, surname, particles, family, initials) in [
            (
                "Jan van der Berg",
                "Jan",
                "van der Berg",
                "van der",
                "Berg",
                "J",
            ),
            (
                "Rosa M. Alvarez",
                "Rosa M.",
                "Alvarez",
                "",
                "Alvarez",
                "R M",
            ),
            (
                "Ludwig  von Beethoven",
                "Ludwig",
                "von Beethoven",
                "von",
                "Beethoven",
                "L",
            ),
            (
                "Ana Maria da Silva",
                "Ana Maria",
                "da Silva",
                "da",
                "Silva",
                "A M",
            ),
            (
                "Jean-Luc de la Fontaine",
                "Jean-Luc",
                "de la Fontaine",
                "de la",
                "Fontaine",
                "J L",
            ),
            ("Plato", "", "Plato", "", "Plato", ""),
            // The first word is a given name, a particle's spelling or not.
            ("Van Morrison", "Van", "Morrison", "", "Morrison", "V"),
            ("Del van Dyke", "Del", "van Dyke", "van", "Dyke", "D"),
        ] {
            let p = named(name);
            assert_eq!(p.name_parts(), (given, surname), "{name}");
            assert_eq!(p.surname_particles(), (particles, family), "{name}");
            assert_eq!(p.initials(), initials, "{name}");
        }
        // Said apart, the parts stand as said.
        let p = Party {
            name: "Maria Garcia Lopez".into(),
            given_name: "Maria".into(),
            surname: "Garcia Lopez".into(),
            ..Party::default()
        };
        assert_eq!(p.name_parts(), ("Maria", "Garcia Lopez"));
        let p = Party {
            given_name: "Jan".into(),
            surname: "van der Berg".into(),
            ..Party::default()
        };
        assert_eq!(
            (p.full_name().as_str(), p.is_person()),
            ("Jan van der Berg", true)
        );
    }
}
