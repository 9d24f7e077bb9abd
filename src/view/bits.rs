//! Sets of row positions as bits, read back ascending: what a union of row lists,
//! a GBIF search's candidates and a list's items with media URLs are kept as.

/// Positions below a bound, one bit each.
#[derive(Clone, Debug)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// No position of `n`.
    pub fn none(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    /// `positions`, each below `n`.
    pub fn of(n: usize, positions: impl IntoIterator<Item = u32>) -> Bits {
        let mut b = Bits::none(n);
        positions.into_iter().for_each(|p| b.set(p as usize));
        b
    }

    /// The bytes it holds, for reports.
    pub fn heap_bytes(&self) -> usize {
        self.0.capacity() * 8
    }

    pub fn set(&mut self, pos: usize) {
        self.0[pos / 64] |= 1 << (pos % 64);
    }

    pub fn contains(&self, pos: usize) -> bool {
        self.0[pos / 64] & (1 << (pos % 64)) != 0
    }

    /// Whether any of `from..to` is set.
    pub fn any_in(&self, from: usize, to: usize) -> bool {
        (from..to).any(|i| self.contains(i))
    }

    /// Adds the positions `other` holds.
    pub fn or(&mut self, other: &Bits) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a |= b);
    }

    /// How many positions are set.
    pub fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Keeps only the positions `other` holds too.
    pub fn and(&mut self, other: &Bits) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a &= b);
    }

    /// The positions set, ascending.
    pub fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &word)| {
            let mut w = word;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let bit = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + bit
                })
            })
        })
    }

    /// Calls `f` with each position set, ascending (a loop, for the hot paths).
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for (w, &word) in self.0.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                f(w * 64 + word.trailing_zeros() as usize);
                word &= word - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_read_back_ascending_and_once() {
        let mut b = Bits::of(200, [130, 0, 63, 64, 130, 199]);
        assert_eq!(b.positions().collect::<Vec<_>>(), [0, 63, 64, 130, 199]);
        let mut seen = Vec::new();
        b.for_each(|p| seen.push(p));
        assert_eq!(seen, [0, 63, 64, 130, 199]);
        assert!(b.any_in(60, 64) && b.any_in(199, 200) && !b.any_in(1, 63) && !b.any_in(65, 130));
        assert!(b.contains(63) && b.contains(0) && !b.contains(1) && !b.contains(198));
        b.and(&Bits::of(200, [63, 130, 150]));
        assert_eq!(b.positions().collect::<Vec<_>>(), [63, 130]);
        assert_eq!(b.count(), 2);
        b.or(&Bits::of(200, [0, 63, 199]));
        assert_eq!(b.positions().collect::<Vec<_>>(), [0, 63, 130, 199]);
        assert_eq!(b.count(), 4);
        assert_eq!(Bits::none(0).positions().count(), 0);
    }
}
