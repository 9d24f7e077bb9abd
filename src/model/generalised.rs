//! What a sensitive place's rule puts in place of a precise record: a point on
//! a grid (the centre of its cell) or nothing, and the records that say it.
//! A generalised `gps` or `locality` record is a record of its own, made when
//! the snapshot is written, whose id says what was done: it lies in
//! [`FIRST_ID`].. (below 2^53, so every JSON reader takes it whole), with
//! the treatment in the bits above [`KIND_SHIFT`]. What reads a snapshot
//! tells a generalised record by its id alone ([`Treatment::of_id`]): the
//! snapshot holds no other mark, so a snapshot without rules is the same
//! bytes it always was.

/// The first id of a generalised record: 2^52.
pub const FIRST_ID: i64 = 1 << 52;

/// Where the treatment lies in a generalised record's id; below it, a hash
/// of what the record stands for.
pub const KIND_SHIFT: u32 = 46;

/// The bits of a generalised id below its treatment.
pub const HASH_MASK: u64 = (1 << KIND_SHIFT) - 1;

/// A grid of so many degrees a coordinate is given on (GBIF's best practice:
/// Chapman 2020).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grid {
    /// 1°.
    Degree,
    /// 0.1°.
    Tenth,
    /// 0.01°.
    Hundredth,
    /// 0.001°.
    Thousandth,
}

/// What a rule does to a record's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Treatment {
    /// The centre of the point's cell, without the locality's words.
    Grid(Grid),
    /// No point, no locality's words, no county.
    Withhold,
}

impl Grid {
    pub const ALL: [Grid; 4] = [Grid::Degree, Grid::Tenth, Grid::Hundredth, Grid::Thousandth];

    /// As the dataset file writes it (`"0.1"`).
    pub fn text(self) -> &'static str {
        match self {
            Grid::Degree => "1",
            Grid::Tenth => "0.1",
            Grid::Hundredth => "0.01",
            Grid::Thousandth => "0.001",
        }
    }

    /// The grid `text` names, if any.
    pub fn parse(text: &str) -> Option<Grid> {
        Grid::ALL.into_iter().find(|g| g.text() == text.trim())
    }

    /// The decimals of the grid's step (0 for 1°).
    pub fn decimals(self) -> u32 {
        self as u32
    }

    /// Cells in a degree.
    fn per_degree(self) -> f64 {
        10f64.powi(self.decimals() as i32)
    }

    /// The cell of a coordinate (latitude or longitude): its lower edge in
    /// steps, at most `limit`° (a point on the grid's last edge lies in the
    /// cell below it).
    pub fn cell(self, degrees: f64, limit: f64) -> i64 {
        let per = self.per_degree();
        let top = (limit * per).round() as i64 - 1;
        ((degrees * per + 1e-9).floor() as i64).min(top)
    }

    /// The centre of a cell, written with one decimal more than the step.
    pub fn centre(self, cell: i64) -> String {
        let value = (cell as f64 + 0.5) / self.per_degree();
        format!("{value:.*}", self.decimals() as usize + 1)
    }

    /// Half the diagonal of the cell whose centre lies at `latitude`, in
    /// whole metres rounded up: the least `coordinateUncertaintyInMeters` of
    /// a point given as the centre (the cell is widest at its edge nearest
    /// the equator, and a degree of latitude at most 111,694 m).
    pub fn uncertainty(self, latitude: f64) -> u64 {
        let step = 1.0 / self.per_degree();
        let near = (latitude.abs() - step / 2.0).max(0.0);
        let dx = step * 111_320.0 * near.to_radians().cos();
        let dy = step * 111_694.0;
        ((dx * dx + dy * dy).sqrt() / 2.0).ceil() as u64
    }
}

impl Treatment {
    /// As the dataset file writes it (`"0.1"`, `"withhold"`).
    pub fn text(self) -> &'static str {
        match self {
            Treatment::Grid(g) => g.text(),
            Treatment::Withhold => "withhold",
        }
    }

    /// The treatment `text` names, if any.
    pub fn parse(text: &str) -> Option<Treatment> {
        match text.trim() {
            "withhold" => Some(Treatment::Withhold),
            t => Grid::parse(t).map(Treatment::Grid),
        }
    }

    /// How strict it is: a stricter rule wins where two cover a record.
    pub fn strictness(self) -> u32 {
        match self {
            Treatment::Withhold => 9,
            Treatment::Grid(g) => 4 - g.decimals(),
        }
    }

    fn kind(self) -> u64 {
        match self {
            Treatment::Grid(g) => g.decimals() as u64,
            Treatment::Withhold => 4,
        }
    }

    /// The id of a generalised record of this treatment standing for what
    /// `hash` (of its key) says.
    pub fn id(self, hash: u64) -> i64 {
        FIRST_ID | ((self.kind() << KIND_SHIFT) | (hash & HASH_MASK)) as i64
    }

    /// The treatment a record's id says it was made by: `None` for every
    /// record read from the collection.
    pub fn of_id(id: i64) -> Option<Treatment> {
        if !(FIRST_ID..1 << 53).contains(&id) {
            return None;
        }
        match ((id - FIRST_ID) as u64) >> KIND_SHIFT {
            k @ 0..=3 => Some(Treatment::Grid(Grid::ALL[k as usize])),
            4 => Some(Treatment::Withhold),
            _ => None,
        }
    }

    /// What Darwin Core's `dataGeneralizations` says of a record so treated.
    pub fn generalizations(self) -> String {
        match self {
            Treatment::Grid(g) => format!(
                "Coordinates generalised to the centre of a {}° grid cell (sensitive taxon); \
                 locality withheld",
                g.text()
            ),
            Treatment::Withhold => String::new(),
        }
    }

    /// What Darwin Core's `informationWithheld` says of a record so treated.
    pub fn withheld(self) -> &'static str {
        match self {
            Treatment::Grid(_) => {
                "Locality, elevation and precise coordinates withheld (sensitive taxon)"
            }
            Treatment::Withhold => {
                "Coordinates, locality, elevation and county withheld (sensitive taxon)"
            }
        }
    }

    /// The sentence a specimen's page says of it.
    pub fn sentence(self) -> String {
        match self {
            Treatment::Grid(g) => format!(
                "This species is sensitive: where it was collected is given only as the centre \
                 of a {}° grid cell, and the locality is withheld.",
                g.text()
            ),
            Treatment::Withhold => "This species is sensitive: the coordinates, locality and \
                                    county where it was collected are withheld."
                .to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generalised_id_says_its_treatment_and_no_other_id_does() {
        for t in [
            Treatment::Withhold,
            Treatment::Grid(Grid::Degree),
            Treatment::Grid(Grid::Thousandth),
        ] {
            let id = t.id(u64::MAX);
            assert!(id < 1 << 53);
            assert_eq!(Treatment::of_id(id), Some(t));
            assert_eq!(Treatment::of_id(t.id(0)), Some(t));
        }
        assert_eq!(Treatment::of_id(1), None);
        assert_eq!(Treatment::of_id(FIRST_ID - 1), None);
    }

    #[test]
    fn a_cell_centre_and_its_uncertainty() {
        let g = Grid::Tenth;
        assert_eq!(g.centre(g.cell(12.3456, 90.0)), "12.35");
        assert_eq!(g.centre(g.cell(-12.3456, 90.0)), "-12.35");
        assert_eq!(g.centre(g.cell(0.3, 90.0)), "0.35");
        assert_eq!(g.centre(g.cell(90.0, 90.0)), "89.95");
        assert_eq!(Grid::Degree.centre(Grid::Degree.cell(-0.2, 90.0)), "-0.5");
        // 0.1° at the equator: about 11.1 km a side.
        assert_eq!(g.uncertainty(0.05), 7885);
        assert!(Grid::Thousandth.uncertainty(45.0) < 80);
        assert_eq!(Treatment::parse("withhold"), Some(Treatment::Withhold));
        assert_eq!(Treatment::parse("0.5"), None);
    }
}
