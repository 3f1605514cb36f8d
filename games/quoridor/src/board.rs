//! Board geometry on bitboards: which moves walls allow, wall slots and their conflicts
//! (Q2-Q3), and paths to a goal by flood fill (Q15, Q20, Q30).
//!
//! Cells and wall centers share the `row * 16 + col` indexing of [`Bits`]; so do the
//! groove intersections ("lattice points", `(0..=N)²`, point `(i, j)` being the top-left
//! corner of cell `(i, j)`), which a wall must touch twice to be able to close a region.

use crate::bits::{Bits, STRIDE, idx};
use crate::notation::Orientation;

/// Directions, as indices into [`Board::open`].
pub(crate) const UP: usize = 0;
pub(crate) const DOWN: usize = 1;
pub(crate) const LEFT: usize = 2;
pub(crate) const RIGHT: usize = 3;

/// The two directions at right angles to `d`.
#[inline]
pub(crate) fn perpendicular(d: usize) -> [usize; 2] {
    if d <= DOWN { [LEFT, RIGHT] } else { [UP, DOWN] }
}

/// The cell next to `i` in direction `d`. Only call it when `open[d]` holds `i`, which
/// guarantees the neighbour is on the board.
#[inline]
pub(crate) fn step(i: usize, d: usize) -> usize {
    match d {
        UP => i - STRIDE,
        DOWN => i + STRIDE,
        LEFT => i - 1,
        _ => i + 1,
    }
}

/// Walls on an N×N board, kept as the moves they still allow.
#[derive(Clone, Debug, Eq, PartialEq)]
pub(crate) struct Board {
    pub(crate) n: u8,
    /// For each direction, the cells from which a step that way stays on the board and
    /// crosses no wall.
    pub(crate) open: [Bits; 4],
    /// Centers of placed horizontal walls.
    pub(crate) h: Bits,
    /// Centers of placed vertical walls.
    pub(crate) v: Bits,
    /// Lattice points on the border or on a placed wall.
    touched: Bits,
    /// Every wall center `(0..N-1)²`.
    slots: Bits,
}

/// A shortest path of one pawn, as the wall slots that would cut it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct PathInfo {
    /// Cells on the path, start and end included.
    pub(crate) cells: Bits,
    /// Horizontal wall centers that cut one of its steps.
    pub(crate) cut_h: Bits,
    /// Vertical wall centers that cut one of its steps.
    pub(crate) cut_v: Bits,
}

impl Board {
    /// An empty N×N board.
    pub(crate) fn new(n: u8) -> Board {
        let n_ = usize::from(n);
        let cells = Bits::rect(n_, n_);
        let row0 = Bits::rect(1, n_);
        let col0 = Bits::rect(n_, 1);
        let last_row = cells & !Bits::rect(n_ - 1, n_);
        let last_col = cells & !Bits::rect(n_, n_ - 1);
        let mut touched = Bits::EMPTY;
        for i in 0..=n_ {
            for j in 0..=n_ {
                if i == 0 || j == 0 || i == n_ || j == n_ {
                    touched.set(idx(i, j));
                }
            }
        }
        Board {
            n,
            open: [
                cells & !row0,
                cells & !last_row,
                cells & !col0,
                cells & !last_col,
            ],
            h: Bits::EMPTY,
            v: Bits::EMPTY,
            touched,
            slots: Bits::rect(n_ - 1, n_ - 1),
        }
    }

    /// The move masks with one more wall (which must be a slot).
    #[inline]
    pub(crate) fn open_with(&self, o: Orientation, r: usize, c: usize) -> [Bits; 4] {
        let mut open = self.open;
        match o {
            Orientation::Horizontal => {
                open[DOWN].clear(idx(r, c));
                open[DOWN].clear(idx(r, c + 1));
                open[UP].clear(idx(r + 1, c));
                open[UP].clear(idx(r + 1, c + 1));
            }
            Orientation::Vertical => {
                open[RIGHT].clear(idx(r, c));
                open[RIGHT].clear(idx(r + 1, c));
                open[LEFT].clear(idx(r, c + 1));
                open[LEFT].clear(idx(r + 1, c + 1));
            }
        }
        open
    }

    /// Places a wall (which must be a free slot, Q3 checked by the caller).
    pub(crate) fn place(&mut self, o: Orientation, r: usize, c: usize) {
        self.open = self.open_with(o, r, c);
        match o {
            Orientation::Horizontal => {
                self.h.set(idx(r, c));
                for j in 0..3 {
                    self.touched.set(idx(r + 1, c + j));
                }
            }
            Orientation::Vertical => {
                self.v.set(idx(r, c));
                for i in 0..3 {
                    self.touched.set(idx(r + i, c + 1));
                }
            }
        }
    }

    /// Q3: the placed wall that a wall at `(r, c)` would overlap or cross, if any.
    pub(crate) fn conflict(
        &self,
        o: Orientation,
        r: usize,
        c: usize,
    ) -> Option<(Orientation, usize, usize)> {
        use Orientation::{Horizontal as H, Vertical as V};
        let (same, other) = match o {
            H => (self.h, self.v),
            V => (self.v, self.h),
        };
        if same.get(idx(r, c)) {
            return Some((o, r, c));
        }
        if other.get(idx(r, c)) {
            return Some((if o == H { V } else { H }, r, c));
        }
        // Overlap: the same orientation one step along the wall's length.
        let along: [(isize, isize); 2] = if o == H {
            [(0, -1), (0, 1)]
        } else {
            [(-1, 0), (1, 0)]
        };
        for (dr, dc) in along {
            let (rr, cc) = (r as isize + dr, c as isize + dc);
            if rr >= 0 && cc >= 0 && same.get(idx(rr as usize, cc as usize)) {
                return Some((o, rr as usize, cc as usize));
            }
        }
        None
    }

    /// Q3: the slots still free of overlap and crossing, horizontal and vertical.
    pub(crate) fn free_slots(&self) -> (Bits, Bits) {
        let h = self.slots & !self.h & !self.h.shl(1) & !self.h.shr(1) & !self.v;
        let v = self.slots
            & !self.v
            & !self.v.shl(STRIDE as u32)
            & !self.v.shr(STRIDE as u32)
            & !self.h;
        (h, v)
    }

    /// The slots whose wall would touch the border or placed walls at two or more points.
    /// Any other wall adds no closed curve to the wall drawing, so it cannot cut a region
    /// of cells off (Q15) and needs no flood fill.
    pub(crate) fn may_enclose(&self) -> (Bits, Bits) {
        let t = self.touched;
        let maj = |a: Bits, b: Bits, c: Bits| (a & b) | (a & c) | (b & c);
        // Horizontal center (r, c) has points (r+1, c..=c+2); vertical (r..=r+2, c+1).
        let h = maj(t.shr(16), t.shr(17), t.shr(18));
        let v = maj(t.shr(1), t.shr(17), t.shr(33));
        (h & self.slots, v & self.slots)
    }

    /// One BFS layer: every cell of `reach` plus its open neighbours.
    #[inline]
    fn expand(open: &[Bits; 4], reach: Bits) -> Bits {
        reach
            | (reach & open[UP]).shr(STRIDE as u32)
            | (reach & open[DOWN]).shl(STRIDE as u32)
            | (reach & open[LEFT]).shr(1)
            | (reach & open[RIGHT]).shl(1)
    }

    /// Fewest steps from `from` to any cell of `goal` under `open`, never entering
    /// `closed`; other pawns are ignored (Q15, Q30). `None` when there is no path.
    pub(crate) fn distance(open: &[Bits; 4], from: usize, goal: Bits, closed: Bits) -> Option<u32> {
        let mut reach = Bits::single(from);
        let mut d = 0;
        let keep = !closed;
        loop {
            if reach.intersects(goal) {
                return Some(d);
            }
            let next = Board::expand(open, reach) & keep;
            if next == reach {
                return None;
            }
            reach = next;
            d += 1;
        }
    }

    /// A shortest path from `from` to `goal` (ignoring pawns), as the cells it visits and
    /// the wall slots that cut it. `None` when there is none.
    pub(crate) fn path(&self, from: usize, goal: Bits) -> Option<PathInfo> {
        // Cumulative reach by distance; 13×13 has 169 cells, so 170 layers always suffice.
        let mut layers = [Bits::EMPTY; 170];
        layers[0] = Bits::single(from);
        let mut d = 0;
        while !layers[d].intersects(goal) {
            let next = Board::expand(&self.open, layers[d]);
            if next == layers[d] || d + 1 >= layers.len() {
                return None;
            }
            d += 1;
            layers[d] = next;
        }
        let mut cur = (layers[d] & goal).iter().next()?;
        let mut info = PathInfo {
            cells: Bits::single(cur),
            cut_h: Bits::EMPTY,
            cut_v: Bits::EMPTY,
        };
        let open = &self.open;
        while d > 0 {
            let prev = layers[d - 1];
            let (r, c) = (cur / STRIDE, cur % STRIDE);
            // The neighbour we came from, and the direction of the step out of it.
            let from = if prev.get(cur + STRIDE) && open[UP].get(cur + STRIDE) {
                // Stepped up from row r+1: horizontal walls between rows r and r+1.
                Self::cut_h(&mut info, r, c);
                cur + STRIDE
            } else if cur >= STRIDE && prev.get(cur - STRIDE) && open[DOWN].get(cur - STRIDE) {
                Self::cut_h(&mut info, r - 1, c);
                cur - STRIDE
            } else if prev.get(cur + 1) && open[LEFT].get(cur + 1) {
                Self::cut_v(&mut info, r, c);
                cur + 1
            } else if cur >= 1 && prev.get(cur - 1) && open[RIGHT].get(cur - 1) {
                Self::cut_v(&mut info, r, c - 1);
                cur - 1
            } else {
                return None;
            };
            cur = from;
            info.cells.set(cur);
            d -= 1;
        }
        info.cut_h &= self.slots;
        info.cut_v &= self.slots;
        Some(info)
    }

    /// The horizontal walls between rows `top` and `top + 1` over column `c`.
    fn cut_h(info: &mut PathInfo, top: usize, c: usize) {
        info.cut_h.set(idx(top, c));
        if c > 0 {
            info.cut_h.set(idx(top, c - 1));
        }
    }

    /// The vertical walls between columns `left` and `left + 1` beside row `r`.
    fn cut_v(info: &mut PathInfo, r: usize, left: usize) {
        info.cut_v.set(idx(r, left));
        if r > 0 {
            info.cut_v.set(idx(r - 1, left));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize, r: usize) -> Bits {
        let mut b = Bits::EMPTY;
        for c in 0..n {
            b.set(idx(r, c));
        }
        b
    }

    #[test]
    fn q2_open_masks_keep_pawns_on_the_board() {
        for n in [9u8, 11, 13] {
            let b = Board::new(n);
            let n = usize::from(n);
            assert!(!b.open[UP].get(idx(0, 3)));
            assert!(b.open[UP].get(idx(1, 3)));
            assert!(!b.open[DOWN].get(idx(n - 1, 3)));
            assert!(b.open[DOWN].get(idx(n - 2, 3)));
            assert!(!b.open[LEFT].get(idx(3, 0)));
            assert!(!b.open[RIGHT].get(idx(3, n - 1)));
            assert!(b.open[RIGHT].get(idx(3, n - 2)));
            assert_eq!(
                Board::distance(&b.open, idx(n - 1, n / 2), row(n, 0), Bits::EMPTY),
                Some(n as u32 - 1)
            );
        }
    }

    #[test]
    fn q2_there_are_2_n_minus_1_squared_slots() {
        for n in [9u8, 11, 13] {
            let (h, v) = Board::new(n).free_slots();
            let m = (usize::from(n) - 1).pow(2);
            assert_eq!(h.iter().count(), m);
            assert_eq!(v.iter().count(), m);
        }
    }

    #[test]
    fn q3_overlap_and_crossing() {
        let mut b = Board::new(9);
        b.place(Orientation::Horizontal, 4, 4);
        let (h, v) = b.free_slots();
        // Same slot, both halves along the length, and the crossing vertical are gone.
        for c in [3, 4, 5] {
            assert!(!h.get(idx(4, c)));
        }
        assert!(h.get(idx(4, 2)) && h.get(idx(4, 6)) && h.get(idx(3, 4)));
        assert!(!v.get(idx(4, 4)));
        assert!(v.get(idx(3, 4)) && v.get(idx(5, 4)) && v.get(idx(4, 3)));
        assert_eq!(
            b.conflict(Orientation::Horizontal, 4, 5),
            Some((Orientation::Horizontal, 4, 4))
        );
        assert_eq!(
            b.conflict(Orientation::Vertical, 4, 4),
            Some((Orientation::Horizontal, 4, 4))
        );
        assert_eq!(b.conflict(Orientation::Vertical, 3, 4), None);
    }

    #[test]
    fn q15_walls_lengthen_and_can_close_paths() {
        let mut b = Board::new(9);
        // A horizontal wall right in front of e1 (row 8, col 4): between rows 7 and 8.
        b.place(Orientation::Horizontal, 7, 4);
        let goal = row(9, 0);
        assert_eq!(
            Board::distance(&b.open, idx(8, 4), goal, Bits::EMPTY),
            Some(9)
        );
        let p = b.path(idx(8, 4), goal).unwrap();
        assert_eq!(p.cells.iter().count(), 10);
        // Close row 8 off completely with four more horizontals over columns 0..=8 … a
        // row of nine cells needs walls at c = 0, 2, 6 and a last one that would overlap, so
        // shut the corner instead: a box around (8, 8).
        let mut c = Board::new(9);
        c.place(Orientation::Horizontal, 7, 7);
        let open = c.open_with(Orientation::Vertical, 7, 6);
        assert_eq!(Board::distance(&open, idx(8, 8), goal, Bits::EMPTY), None);
        assert_eq!(
            Board::distance(&open, idx(8, 6), goal, Bits::EMPTY),
            Some(8)
        );
    }

    #[test]
    fn lone_walls_cannot_enclose() {
        let b = Board::new(9);
        let (h, v) = b.may_enclose();
        // On an empty board only walls touching the border twice… none touch it twice, and
        // those touching it once cannot enclose anything either.
        assert!(h.is_empty() && v.is_empty());
        let mut c = Board::new(9);
        c.place(Orientation::Horizontal, 7, 7);
        let (_, v) = c.may_enclose();
        assert!(v.get(idx(7, 6)));
    }
}
