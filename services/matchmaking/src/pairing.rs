//! Who sits with whom: tables of a queue's tickets whose ratings are close enough, where
//! "close enough" widens the longer a ticket has waited (the reference design's rating
//! windows). Pure: the matcher reads tickets and the clock, this decides.
//!
//! Each ticket accepts opponents within its own window, `base + per_second × seconds
//! waited`, and anyone at all once it has waited `open_after`; two tickets sit together only
//! if each accepts the other. Tables are formed oldest ticket first, so the longest wait is
//! served first and a newcomer never jumps ahead of an older ticket that it could sit with.

use std::time::Duration;

/// How rating windows widen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingWindow {
    /// Rating difference accepted at once.
    pub base: f64,
    /// Added per second of waiting.
    pub per_second: f64,
    /// After this long a ticket accepts any rating: a slow queue still plays.
    pub open_after: Duration,
}

impl RatingWindow {
    /// 150 Elo at once, +25 a second, anyone after 20 s: a fair game when the queue is busy,
    /// a game within seconds when it is not.
    pub const DEFAULT: RatingWindow = RatingWindow {
        base: 150.0,
        per_second: 25.0,
        open_after: Duration::from_secs(20),
    };

    /// The rating difference a ticket accepts after waiting `waited`; infinite once open.
    pub fn width(&self, waited: Duration) -> f64 {
        if waited >= self.open_after {
            f64::INFINITY
        } else {
            self.base + self.per_second * waited.as_secs_f64()
        }
    }
}

impl Default for RatingWindow {
    fn default() -> Self {
        RatingWindow::DEFAULT
    }
}

/// What pairing needs to know of a ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeker {
    /// The rating when queued; `None` (ratings were unavailable) accepts and is accepted
    /// by anyone.
    pub rating: Option<i32>,
    /// When it was queued, Unix milliseconds.
    pub created_ms: u64,
}

impl Seeker {
    fn accepts(&self, other: &Seeker, now_ms: u64, window: &RatingWindow) -> bool {
        let (Some(mine), Some(theirs)) = (self.rating, other.rating) else {
            return true;
        };
        let waited = Duration::from_millis(now_ms.saturating_sub(self.created_ms));
        f64::from(mine.abs_diff(theirs)) <= window.width(waited)
    }
}

/// Tables of exactly `seats` tickets (indices into `seekers`, which are oldest first), each
/// ticket in at most one table, every two tickets of a table accepting each other at `now_ms`.
/// Greedy from the oldest ticket: it takes the oldest tickets that fit with everyone already
/// at its table.
pub fn tables(
    seekers: &[Seeker],
    seats: usize,
    now_ms: u64,
    window: &RatingWindow,
) -> Vec<Vec<usize>> {
    let mut seated = vec![false; seekers.len()];
    let mut tables = Vec::new();
    if seats == 0 {
        return tables;
    }
    for first in 0..seekers.len() {
        if seated[first] {
            continue;
        }
        let mut table = vec![first];
        for candidate in first + 1..seekers.len() {
            if table.len() == seats {
                break;
            }
            if seated[candidate] {
                continue;
            }
            let fits = table.iter().all(|&at| {
                seekers[at].accepts(&seekers[candidate], now_ms, window)
                    && seekers[candidate].accepts(&seekers[at], now_ms, window)
            });
            if fits {
                table.push(candidate);
            }
        }
        if table.len() == seats {
            for &at in &table {
                seated[at] = true;
            }
            tables.push(table);
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const W: RatingWindow = RatingWindow::DEFAULT;

    fn seeker(rating: i32, created_ms: u64) -> Seeker {
        Seeker {
            rating: Some(rating),
            created_ms,
        }
    }

    #[test]
    fn the_window_widens_with_waiting_and_opens_at_last() {
        assert_eq!(W.width(Duration::ZERO), 150.0);
        assert_eq!(W.width(Duration::from_secs(4)), 250.0);
        assert_eq!(W.width(Duration::from_secs(20)), f64::INFINITY);
    }

    #[test]
    fn close_ratings_pair_at_once_and_far_ones_wait() {
        let now = 100_000;
        let seekers = [seeker(1200, now), seeker(1600, now), seeker(1290, now)];
        assert_eq!(
            tables(&seekers, 2, now, &W),
            [[0, 2]],
            "1200 sits with 1290, not with the older-queued 1600"
        );
        // 400 apart: each needs (400 - 150) / 25 = 10 s of waiting.
        let far = [seeker(1200, now), seeker(1600, now)];
        assert!(tables(&far, 2, now + 9_999, &W).is_empty());
        assert_eq!(tables(&far, 2, now + 10_000, &W), [[0, 1]]);
    }

    #[test]
    fn both_must_accept_a_newcomer_waits_until_its_own_window_fits() {
        let old = seeker(1200, 0);
        let new = seeker(1500, 15_000);
        // The old ticket accepts 525 after 15 s; the newcomer accepts only 150 at once.
        assert!(tables(&[old, new], 2, 15_000, &W).is_empty());
        // 6 s later the newcomer accepts 300.
        assert_eq!(tables(&[old, new], 2, 21_000, &W), [[0, 1]]);
    }

    #[test]
    fn after_open_after_anyone_sits_and_unrated_tickets_sit_with_anyone() {
        let a = seeker(800, 0);
        let b = seeker(2400, 0);
        assert_eq!(tables(&[a, b], 2, 20_000, &W), [[0, 1]]);
        let unrated = Seeker {
            rating: None,
            created_ms: 0,
        };
        assert_eq!(tables(&[a, unrated], 2, 0, &W), [[0, 1]]);
    }

    #[test]
    fn the_oldest_ticket_is_served_first() {
        let now = 1_000;
        // Three equal ratings: the two oldest sit together.
        let seekers = [seeker(1200, 0), seeker(1210, 1), seeker(1205, 2)];
        assert_eq!(tables(&seekers, 2, now, &W), [[0, 1]]);
    }

    #[test]
    fn bigger_tables_need_everyone_to_accept_everyone() {
        let now = 0;
        let seekers = [
            seeker(1200, 0),
            seeker(1340, 0),
            seeker(1060, 0), // 280 from 1340: not with both
            seeker(1250, 0),
        ];
        assert_eq!(tables(&seekers, 3, now, &W), [[0, 1, 3]]);
    }

    proptest! {
        /// Every table is full, nobody sits twice, and everyone at a table accepts everyone.
        #[test]
        fn tables_are_full_disjoint_and_acceptable(
            raw in proptest::collection::vec((proptest::option::of(600i32..2600), 0u64..30_000), 0..40),
            seats in 2usize..6,
            now in 0u64..40_000,
        ) {
            let mut seekers: Vec<Seeker> = raw
                .into_iter()
                .map(|(rating, created_ms)| Seeker { rating, created_ms })
                .collect();
            seekers.sort_by_key(|s| s.created_ms);
            let found = tables(&seekers, seats, now, &W);
            let mut seen = std::collections::HashSet::new();
            for table in &found {
                prop_assert_eq!(table.len(), seats);
                for &a in table {
                    prop_assert!(seen.insert(a), "ticket {} seated twice", a);
                    for &b in table {
                        prop_assert!(seekers[a].accepts(&seekers[b], now, &W));
                    }
                }
            }
            // With every window open, pairing is plain first-come first-served.
            let late = now + 20_000 + 30_000;
            let all = tables(&seekers, seats, late, &W);
            prop_assert_eq!(all.len(), seekers.len() / seats);
        }
    }
}
