//! The flags: each one's name (GBIF's where GBIF has the flag), what it means and
//! how to fix it, and a set of them in one word.

/// What `issue=` takes besides the flags' names: the records with no flag.
pub const NO_FLAG: &str = "none";

/// What can be wrong with a specimen record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flag {
    ZeroCoordinate,
    CoordinateOutOfRange,
    CoordinateInvalid,
    CountryCoordinateMismatch,
    PresumedSwappedCoordinate,
    PresumedNegatedLatitude,
    PresumedNegatedLongitude,
    StateCoordinateMismatch,
    CountyCoordinateMismatch,
    StateUnmatched,
    CountyUnmatched,
    RecordedDateInvalid,
    RecordedDateUnlikely,
    IdentifiedDateUnlikely,
    ElevationUnlikely,
    ElevationNonNumeric,
    NotIdentified,
}

impl Flag {
    /// Every flag, in the order lists and pages show them.
    pub const ALL: [Flag; 17] = [
        Flag::ZeroCoordinate,
        Flag::CoordinateOutOfRange,
        Flag::CoordinateInvalid,
        Flag::CountryCoordinateMismatch,
        Flag::PresumedSwappedCoordinate,
        Flag::PresumedNegatedLatitude,
        Flag::PresumedNegatedLongitude,
        Flag::StateCoordinateMismatch,
        Flag::CountyCoordinateMismatch,
        Flag::StateUnmatched,
        Flag::CountyUnmatched,
        Flag::RecordedDateInvalid,
        Flag::RecordedDateUnlikely,
        Flag::IdentifiedDateUnlikely,
        Flag::ElevationUnlikely,
        Flag::ElevationNonNumeric,
        Flag::NotIdentified,
    ];

    /// Its name, as `issue=` takes it and GBIF's `issues` say it.
    pub fn name(self) -> &'static str {
        self.about().0
    }

    /// What it means.
    pub fn meaning(self) -> &'static str {
        self.about().1
    }

    /// How a curator fixes it.
    pub fn fix(self) -> &'static str {
        self.about().2
    }

    /// Whether it says the point is outside an area its record names (a map
    /// can join the point to that area).
    pub fn outside(self) -> bool {
        matches!(
            self,
            Flag::CountryCoordinateMismatch
                | Flag::PresumedSwappedCoordinate
                | Flag::PresumedNegatedLatitude
                | Flag::PresumedNegatedLongitude
                | Flag::StateCoordinateMismatch
                | Flag::CountyCoordinateMismatch
        )
    }

    /// Every flag's name, in [`Flag::ALL`]'s order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Flag::ALL.into_iter().map(Flag::name)
    }

    /// Every flag's name, then `none` (the records without one): what `issue=`
    /// takes.
    pub fn choices() -> &'static [&'static str] {
        static CHOICES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
        CHOICES.get_or_init(|| Flag::names().chain([NO_FLAG]).collect())
    }

    /// The flag a name names, in any case.
    pub fn named(name: &str) -> Option<Flag> {
        Flag::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    fn about(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Flag::ZeroCoordinate => (
                "ZERO_COORDINATE",
                "The GPS point is 0, 0: in the Gulf of Guinea, and almost always a point left unset.",
                "Enter the point the label gives, or remove it.",
            ),
            Flag::CoordinateOutOfRange => (
                "COORDINATE_OUT_OF_RANGE",
                "The latitude is beyond ±90 or the longitude beyond ±180 degrees.",
                "Check the point against the label: degrees and minutes typed as decimals do this.",
            ),
            Flag::CoordinateInvalid => (
                "COORDINATE_INVALID",
                "The latitude or longitude is not a decimal number (or only one of them is given).",
                "Write both in decimal degrees, south and west negative (38.8495, -84.8663).",
            ),
            Flag::CountryCoordinateMismatch => (
                "COUNTRY_COORDINATE_MISMATCH",
                "The point is outside the record's country, by more than the tolerance.",
                "Check the point and the country against the label; one of them is wrong.",
            ),
            Flag::PresumedSwappedCoordinate => (
                "PRESUMED_SWAPPED_COORDINATE",
                "The latitude is beyond ±90 and, swapped with the longitude, in range (GBIF's rule); or the point is outside the record's country, and swapping latitude and longitude puts it inside.",
                "Swap the latitude and longitude.",
            ),
            Flag::PresumedNegatedLatitude => (
                "PRESUMED_NEGATED_LATITUDE",
                "The point is outside the record's country, and changing the latitude's sign puts it inside.",
                "Change the latitude's sign (south is negative).",
            ),
            Flag::PresumedNegatedLongitude => (
                "PRESUMED_NEGATED_LONGITUDE",
                "The point is outside the record's country, and changing the longitude's sign puts it inside.",
                "Change the longitude's sign (west is negative).",
            ),
            Flag::StateCoordinateMismatch => (
                "STATE_COORDINATE_MISMATCH",
                "The point is in the record's country but outside its state or province.",
                "Check the point and the state against the label.",
            ),
            Flag::CountyCoordinateMismatch => (
                "COUNTY_COORDINATE_MISMATCH",
                "The point is in the record's country but outside its county (parish, borough, census area).",
                "Check the point and the county against the label; a locality near a county line may belong to the next county.",
            ),
            Flag::StateUnmatched => (
                "STATE_UNMATCHED",
                "The state's name (or abbreviation) matches no state of its country in the boundary data, so nothing could be checked.",
                "Spell the state as its country does, or fix the state's country.",
            ),
            Flag::CountyUnmatched => (
                "COUNTY_UNMATCHED",
                "The county's name matches no county of its state in the boundary data, so nothing could be checked.",
                "Spell the county as the state does (two counties as A/B), or fix the county's state.",
            ),
            Flag::RecordedDateInvalid => (
                "RECORDED_DATE_INVALID",
                "No such day: the day is past the month's end (31 April, 29 February 2023) or not 1 to 31.",
                "Check the day and month against the label.",
            ),
            Flag::RecordedDateUnlikely => (
                "RECORDED_DATE_UNLIKELY",
                "The collecting date is after the snapshot was made, or before 1750.",
                "Check the year against the label.",
            ),
            Flag::IdentifiedDateUnlikely => (
                "IDENTIFIED_DATE_UNLIKELY",
                "The determination year is before the collecting year, or after the snapshot was made.",
                "Check the determination year and the collecting year.",
            ),
            Flag::ElevationUnlikely => (
                "ELEVATION_UNLIKELY",
                "The elevation is above 9,000 m or below -500 m.",
                "Check the elevation and its unit: feet typed as metres do this.",
            ),
            Flag::ElevationNonNumeric => (
                "ELEVATION_NON_NUMERIC",
                "The elevation is not a number of metres or a range of them (252, 3157-3402).",
                "Write the elevation in metres, as a number or a range.",
            ),
            Flag::NotIdentified => (
                "NOT_IDENTIFIED",
                "The record names no taxon at all.",
                "Identify the specimen to the rank you can, even the order.",
            ),
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A set of flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(u32);

impl Flags {
    pub const NONE: Flags = Flags(0);

    pub fn of(flags: impl IntoIterator<Item = Flag>) -> Flags {
        let mut set = Flags::NONE;
        flags.into_iter().for_each(|f| set.add(f));
        set
    }

    pub fn add(&mut self, flag: Flag) {
        self.0 |= flag.bit();
    }

    pub fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    pub fn has(self, flag: Flag) -> bool {
        self.0 & flag.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether it holds any of `other`'s flags.
    pub fn meets(self, other: Flags) -> bool {
        self.0 & other.0 != 0
    }

    /// Its flags, in [`Flag::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Flag> {
        Flag::ALL.into_iter().filter(move |f| self.has(*f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_has_its_own_name_and_bit() {
        for (i, flag) in Flag::ALL.into_iter().enumerate() {
            assert_eq!(flag as usize, i, "ALL is in declaration order");
            assert_eq!(Flag::named(flag.name()), Some(flag));
            assert_eq!(Flag::named(&flag.name().to_lowercase()), Some(flag));
            assert!(!flag.meaning().is_empty() && !flag.fix().is_empty());
        }
        let set = Flags::of([Flag::NotIdentified, Flag::ZeroCoordinate]);
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            [Flag::ZeroCoordinate, Flag::NotIdentified]
        );
        assert!(set.meets(Flags::of([Flag::NotIdentified])));
        assert!(!set.meets(Flags::of([Flag::CountyUnmatched])));
        assert_eq!(Flag::named("NOPE"), None);
    }
}
