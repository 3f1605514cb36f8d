//! A 256-bit set: cells of boards up to 13×13, wall centers and groove intersections.
//!
//! Everything geometric is indexed `row * STRIDE + col` with a stride of 16, so a step
//! up or down is a shift by 16 and a step left or right a shift by 1. The three columns
//! past the right edge (13..16 on the largest board) are never set, which is what keeps a
//! step off the right edge from wrapping into the next row.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// Distance between vertically adjacent indices.
pub(crate) const STRIDE: usize = 16;

/// Index of `(row, col)` in a [`Bits`].
#[inline]
pub(crate) const fn idx(row: usize, col: usize) -> usize {
    row * STRIDE + col
}

/// A set of up to 256 indices.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default)]
pub(crate) struct Bits(pub(crate) [u64; 4]);

impl Bits {
    pub(crate) const EMPTY: Bits = Bits([0; 4]);

    /// The set holding just `i`.
    #[inline]
    pub(crate) const fn single(i: usize) -> Bits {
        let mut w = [0; 4];
        w[i >> 6] = 1 << (i & 63);
        Bits(w)
    }

    /// The rectangle of rows `0..rows` and columns `0..cols`.
    pub(crate) fn rect(rows: usize, cols: usize) -> Bits {
        let mut b = Bits::EMPTY;
        for r in 0..rows {
            for c in 0..cols {
                b.set(idx(r, c));
            }
        }
        b
    }

    #[inline]
    pub(crate) fn get(self, i: usize) -> bool {
        (self.0[i >> 6] >> (i & 63)) & 1 == 1
    }

    #[inline]
    pub(crate) fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }

    #[inline]
    pub(crate) fn clear(&mut self, i: usize) {
        self.0[i >> 6] &= !(1 << (i & 63));
    }

    #[inline]
    pub(crate) fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    #[inline]
    pub(crate) fn intersects(self, other: Bits) -> bool {
        !(self & other).is_empty()
    }

    /// Every index moved up by `k` (0 < k < 64); bits past 255 fall off.
    #[inline]
    pub(crate) fn shl(self, k: u32) -> Bits {
        let w = self.0;
        let j = 64 - k;
        Bits([
            w[0] << k,
            (w[1] << k) | (w[0] >> j),
            (w[2] << k) | (w[1] >> j),
            (w[3] << k) | (w[2] >> j),
        ])
    }

    /// Every index moved down by `k` (0 < k < 64); bits below 0 fall off.
    #[inline]
    pub(crate) fn shr(self, k: u32) -> Bits {
        let w = self.0;
        let j = 64 - k;
        Bits([
            (w[0] >> k) | (w[1] << j),
            (w[1] >> k) | (w[2] << j),
            (w[2] >> k) | (w[3] << j),
            w[3] >> k,
        ])
    }

    /// The indices in increasing order.
    pub(crate) fn iter(self) -> BitsIter {
        BitsIter {
            bits: self.0,
            word: 0,
        }
    }
}

/// Iterator over the indices of a [`Bits`].
#[derive(Debug)]
pub(crate) struct BitsIter {
    bits: [u64; 4],
    word: usize,
}

impl Iterator for BitsIter {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word < 4 {
            let w = self.bits[self.word];
            if w != 0 {
                self.bits[self.word] = w & (w - 1);
                return Some(self.word * 64 + w.trailing_zeros() as usize);
            }
            self.word += 1;
        }
        None
    }
}

impl BitAnd for Bits {
    type Output = Bits;
    #[inline]
    fn bitand(self, o: Bits) -> Bits {
        Bits([
            self.0[0] & o.0[0],
            self.0[1] & o.0[1],
            self.0[2] & o.0[2],
            self.0[3] & o.0[3],
        ])
    }
}

impl BitOr for Bits {
    type Output = Bits;
    #[inline]
    fn bitor(self, o: Bits) -> Bits {
        Bits([
            self.0[0] | o.0[0],
            self.0[1] | o.0[1],
            self.0[2] | o.0[2],
            self.0[3] | o.0[3],
        ])
    }
}

impl Not for Bits {
    type Output = Bits;
    #[inline]
    fn not(self) -> Bits {
        Bits([!self.0[0], !self.0[1], !self.0[2], !self.0[3]])
    }
}

impl BitAndAssign for Bits {
    #[inline]
    fn bitand_assign(&mut self, o: Bits) {
        *self = *self & o;
    }
}

impl BitOrAssign for Bits {
    #[inline]
    fn bitor_assign(&mut self, o: Bits) {
        *self = *self | o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_carry_across_words() {
        let b = Bits::single(63);
        assert_eq!(b.shl(1), Bits::single(64));
        assert_eq!(b.shl(16), Bits::single(79));
        assert_eq!(Bits::single(64).shr(1), Bits::single(63));
        assert_eq!(Bits::single(200).shr(16), Bits::single(184));
        assert!(Bits::single(255).shl(1).is_empty());
        assert!(Bits::single(0).shr(1).is_empty());
    }

    #[test]
    fn iter_lists_indices_in_order() {
        let mut b = Bits::EMPTY;
        for i in [3, 64, 130, 255] {
            b.set(i);
        }
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![3, 64, 130, 255]);
        b.clear(64);
        assert!(!b.get(64));
        assert_eq!(
            Bits::rect(2, 2).iter().collect::<Vec<_>>(),
            vec![0, 1, 16, 17]
        );
    }
}
