//! Elo arithmetic with `skillratings`: no I/O, no clock.
//!
//! Two players get plain Elo from their ranks (equal ranks are a draw). Tables of more than
//! two (Quoridor free-for-all) are rated as every pair playing one game against each other:
//! each pair's outcome comes from their ranks, every pair is computed from the ratings before
//! the game, and each player's deltas are summed. This keeps Elo's meaning (expected score
//! against each opponent), is symmetric (the deltas sum to zero, so the pool's mean is
//! stable), and needs no second rating model; the price is that a table of N players can
//! move a rating by up to K·(N−1), which suits rare, long free-for-all games.

use skillratings::Outcomes;
use skillratings::elo::{EloConfig, EloRating, elo};

/// The rating of a player who has not played a rated game in a pool.
pub const INITIAL_RATING: f64 = 1200.0;

/// The most one pairing can move a rating (the chess default).
pub const K_FACTOR: f64 = 32.0;

/// One seat of a finished game: the rating before it and the final placing (0 = best).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Standing {
    /// Rating before the game.
    pub rating: f64,
    /// Final placing, 0 = best; equal numbers tie.
    pub rank: u32,
}

/// The ratings after the game, in the order given.
pub fn rate(standings: &[Standing]) -> Vec<f64> {
    let config = EloConfig { k: K_FACTOR };
    let mut deltas = vec![0.0; standings.len()];
    for (i, a) in standings.iter().enumerate() {
        for (j, b) in standings.iter().enumerate().skip(i + 1) {
            let outcome = match a.rank.cmp(&b.rank) {
                std::cmp::Ordering::Less => Outcomes::WIN,
                std::cmp::Ordering::Greater => Outcomes::LOSS,
                std::cmp::Ordering::Equal => Outcomes::DRAW,
            };
            let (new_a, new_b) = elo(
                &EloRating { rating: a.rating },
                &EloRating { rating: b.rating },
                &outcome,
                &config,
            );
            deltas[i] += new_a.rating - a.rating;
            deltas[j] += new_b.rating - b.rating;
        }
    }
    standings
        .iter()
        .zip(deltas)
        .map(|(s, d)| s.rating + d)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(rating: f64, rank: u32) -> Standing {
        Standing { rating, rank }
    }

    #[test]
    fn even_win_moves_half_k() {
        assert_eq!(rate(&[s(1200.0, 0), s(1200.0, 1)]), vec![1216.0, 1184.0]);
        assert_eq!(rate(&[s(1200.0, 1), s(1200.0, 0)]), vec![1184.0, 1216.0]);
    }

    #[test]
    fn draw_moves_towards_each_other() {
        let after = rate(&[s(1300.0, 0), s(1100.0, 0)]);
        assert!(after[0] < 1300.0 && after[1] > 1100.0);
        assert!((after[0] + after[1] - 2400.0).abs() < 1e-9);
        assert_eq!(rate(&[s(1200.0, 0), s(1200.0, 0)]), vec![1200.0, 1200.0]);
    }

    #[test]
    fn free_for_all_sums_pairwise_and_is_zero_sum() {
        let after = rate(&[s(1200.0, 0), s(1200.0, 1), s(1200.0, 2)]);
        assert_eq!(after, vec![1232.0, 1200.0, 1168.0]);
        let mixed = rate(&[s(1500.0, 2), s(1200.0, 0), s(1000.0, 1), s(1200.0, 0)]);
        let total: f64 = mixed.iter().sum();
        assert!((total - 4900.0).abs() < 1e-9);
        assert!(mixed[0] < 1500.0 && mixed[1] > 1200.0);
    }
}
