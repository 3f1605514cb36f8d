//! The board graph of J2-J5: points, camps, headquarters, roads and railways.
//!
//! Adjacency is built at compile time as one bit mask per point (60 points fit in a `u64`),
//! so move generation is a few shifts and masks and needs no global state.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Rows on the board (J2).
pub const ROWS: u8 = 12;
/// Columns on the board (J2).
pub const COLS: u8 = 5;
/// Points on the board (J2).
pub const POINTS: usize = (ROWS as usize) * (COLS as usize);

/// One of the 60 points (J2). Row 0 is the top row (rank 12 in notation), column 0 the left
/// (`a`); `index() = row * 5 + col`.
///
/// ```
/// use ludus_junqi::Point;
/// let p: Point = "c6".parse().unwrap();
/// assert_eq!((p.row(), p.col()), (6, 2));
/// assert_eq!(p.to_string(), "c6");
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Ord, PartialOrd, Debug, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Point(u8);

impl Point {
    /// The point at `row` (0 = top) and `col` (0 = left), if it is on the board.
    pub const fn new(row: u8, col: u8) -> Option<Point> {
        if row < ROWS && col < COLS {
            Some(Point(row * COLS + col))
        } else {
            None
        }
    }

    /// The point with this index (`row * 5 + col`), if it is on the board.
    pub const fn from_index(index: usize) -> Option<Point> {
        if index < POINTS {
            Some(Point(index as u8))
        } else {
            None
        }
    }

    /// `row * 5 + col`, in `0..60`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The row, 0 at the top (J2).
    pub const fn row(self) -> u8 {
        self.0 / COLS
    }

    /// The column, 0 at the left (J2).
    pub const fn col(self) -> u8 {
        self.0 % COLS
    }

    /// Every point, in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8).map(Point)
    }

    /// A camp (J3): its occupant cannot be attacked (J11).
    pub const fn is_camp(self) -> bool {
        is_camp(self.row(), self.col())
    }

    /// A headquarters (J3); it has no special rule (J10).
    pub const fn is_headquarters(self) -> bool {
        is_hq(self.row(), self.col())
    }

    /// A railway station (J5).
    pub const fn is_station(self) -> bool {
        is_station(self.row(), self.col())
    }

    /// Points linked to this one by a road (J4): orthogonal neighbours except across the
    /// mountains, plus the diagonal camp links.
    pub fn road_neighbours(self) -> impl Iterator<Item = Point> {
        points_of(ROAD[self.index()])
    }

    /// Stations linked to this one by a railway segment (J5).
    pub fn rail_neighbours(self) -> impl Iterator<Item = Point> {
        points_of(RAIL[self.index()])
    }

    /// The next point in direction `(dr, dc)`, if on the board.
    pub(crate) fn step(self, dr: i8, dc: i8) -> Option<Point> {
        let r = self.row() as i8 + dr;
        let c = self.col() as i8 + dc;
        if (0..ROWS as i8).contains(&r) && (0..COLS as i8).contains(&c) {
            Point::new(r as u8, c as u8)
        } else {
            None
        }
    }

    pub(crate) const fn bit(self) -> u64 {
        1u64 << self.0
    }
}

/// The points whose bits are set in `mask`, in index order.
pub(crate) fn points_of(mut mask: u64) -> impl Iterator<Item = Point> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            Some(Point(i))
        }
    })
}

impl From<Point> for u8 {
    fn from(p: Point) -> u8 {
        p.0
    }
}

impl TryFrom<u8> for Point {
    type Error = String;
    fn try_from(i: u8) -> Result<Point, String> {
        Point::from_index(i as usize).ok_or_else(|| format!("point index {i} is off the board"))
    }
}

impl fmt::Display for Point {
    /// J2 notation: column `a`-`e`, then the rank 1-12 counted from the bottom.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let col = (b'a' + self.col()) as char;
        write!(f, "{}{}", col, ROWS - self.row())
    }
}

/// A text that is not a point in J2 notation.
#[derive(Clone, Copy, Eq, PartialEq, Debug)]
pub struct BadPoint;

impl FromStr for Point {
    type Err = BadPoint;
    fn from_str(s: &str) -> Result<Point, BadPoint> {
        let bytes = s.as_bytes();
        let (&first, rest) = bytes.split_first().ok_or(BadPoint)?;
        let col = first.to_ascii_lowercase().wrapping_sub(b'a');
        if col >= COLS || rest.is_empty() || rest.len() > 2 || !rest.iter().all(u8::is_ascii_digit)
        {
            return Err(BadPoint);
        }
        // Leading zeros ("c06") are not notation.
        if rest[0] == b'0' {
            return Err(BadPoint);
        }
        let rank = rest.iter().fold(0u8, |n, d| n * 10 + (d - b'0'));
        if !(1..=ROWS).contains(&rank) {
            return Err(BadPoint);
        }
        Point::new(ROWS - rank, col).ok_or(BadPoint)
    }
}

const fn is_camp(r: u8, c: u8) -> bool {
    matches!(
        (r, c),
        (2, 1) | (2, 3) | (3, 2) | (4, 1) | (4, 3) | (7, 1) | (7, 3) | (8, 2) | (9, 1) | (9, 3)
    )
}

const fn is_hq(r: u8, c: u8) -> bool {
    (r == 0 || r == ROWS - 1) && (c == 1 || c == 3)
}

const fn is_station(r: u8, c: u8) -> bool {
    matches!(r, 1 | 5 | 6 | 10) || ((c == 0 || c == 4) && r >= 1 && r <= 10)
}

const fn is_mountain(r1: u8, c1: u8, r2: u8, c2: u8) -> bool {
    // J4: (5,1)-(6,1) and (5,3)-(6,3).
    c1 == c2 && (c1 == 1 || c1 == 3) && ((r1 == 5 && r2 == 6) || (r1 == 6 && r2 == 5))
}

const fn orthogonal(r1: u8, c1: u8, r2: u8, c2: u8) -> bool {
    (r1 == r2 && c1.abs_diff(c2) == 1) || (c1 == c2 && r1.abs_diff(r2) == 1)
}

const fn road_link(r1: u8, c1: u8, r2: u8, c2: u8) -> bool {
    let diagonal = r1.abs_diff(r2) == 1 && c1.abs_diff(c2) == 1;
    (orthogonal(r1, c1, r2, c2) && !is_mountain(r1, c1, r2, c2))
        || (diagonal && (is_camp(r1, c1) || is_camp(r2, c2)))
}

const fn rail_link(r1: u8, c1: u8, r2: u8, c2: u8) -> bool {
    if !orthogonal(r1, c1, r2, c2) || !is_station(r1, c1) || !is_station(r2, c2) {
        return false;
    }
    let along_row = r1 == r2 && matches!(r1, 1 | 5 | 6 | 10);
    let along_col = c1 == c2 && (c1 == 0 || c1 == 4);
    let crossing = c1 == 2 && c2 == 2; // (5,2)-(6,2), the only other pair of stations
    along_row || along_col || crossing
}

const fn build(rail: bool) -> [u64; POINTS] {
    let mut adj = [0u64; POINTS];
    let mut i = 0;
    while i < POINTS {
        let mut j = 0;
        while j < POINTS {
            let (r1, c1) = ((i / 5) as u8, (i % 5) as u8);
            let (r2, c2) = ((j / 5) as u8, (j % 5) as u8);
            let linked = if rail {
                rail_link(r1, c1, r2, c2)
            } else {
                road_link(r1, c1, r2, c2)
            };
            if linked {
                adj[i] |= 1u64 << j;
            }
            j += 1;
        }
        i += 1;
    }
    adj
}

/// Road neighbours of every point (J4), as bit masks.
pub(crate) const ROAD: [u64; POINTS] = build(false);
/// Railway neighbours of every point (J5), as bit masks.
pub(crate) const RAIL: [u64; POINTS] = build(true);

/// Every road link (J4) once, as `(a, b)` with `a < b`.
pub fn road_links() -> Vec<(Point, Point)> {
    links(&ROAD)
}

/// Every railway segment (J5) once, as `(a, b)` with `a < b`.
pub fn railway_segments() -> Vec<(Point, Point)> {
    links(&RAIL)
}

fn links(adj: &[u64; POINTS]) -> Vec<(Point, Point)> {
    Point::all()
        .flat_map(|a| {
            points_of(adj[a.index()])
                .filter(move |&b| a < b)
                .map(move |b| (a, b))
        })
        .collect()
}

/// The four straight directions a railway slide may take (J9).
pub(crate) const DIRECTIONS: [(i8, i8); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
