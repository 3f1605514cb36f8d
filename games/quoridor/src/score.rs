//! Scoring (Q30-Q32): points from every pawn's distance to its goal when a pawn wins.

/// Q31-Q32: points for each pawn from its distance to goal (Q30), in the same order.
///
/// Pawns are sorted from nearest to farthest; the pawn at position `i` of `k` gets twice the
/// distance of the pawn at position `k-1-i`. Pawns at equal distance all get the points of
/// the worst position among them (Q32).
///
/// ```
/// assert_eq!(ludus_quoridor::score(&[0, 1, 4, 9]), vec![18, 8, 2, 0]);
/// assert_eq!(ludus_quoridor::score(&[0, 7]), vec![14, 0]);
/// ```
pub fn score(distances: &[u32]) -> Vec<i64> {
    let mut sorted = distances.to_vec();
    sorted.sort_unstable();
    let k = sorted.len();
    distances
        .iter()
        .map(|d| {
            // Positions holding distance `d` are contiguous in `sorted`; the worse one
            // (fewer points, since points fall with position) is the last of them.
            let last = sorted.partition_point(|x| x <= d) - 1;
            2 * i64::from(sorted[k - 1 - last])
        })
        .collect()
}

/// Ranks from distances: 0 for the nearest, and each pawn ranks after every pawn that is
/// strictly nearer (ties share a rank).
pub(crate) fn ranks(distances: &[u32]) -> Vec<u32> {
    distances
        .iter()
        .map(|d| distances.iter().filter(|x| *x < d).count() as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q31_worked_example() {
        assert_eq!(score(&[0, 1, 4, 9]), vec![18, 8, 2, 0]);
        // Order of input does not matter.
        assert_eq!(score(&[9, 4, 0, 1]), vec![0, 2, 18, 8]);
    }

    #[test]
    fn q31_two_pawns_winner_gets_twice_the_loser_distance() {
        assert_eq!(score(&[0, 5]), vec![10, 0]);
        assert_eq!(score(&[3, 0]), vec![0, 6]);
    }

    #[test]
    fn q32_ties_take_the_worse_position() {
        // Positions would give 10 and 0; both tied pawns get 0.
        assert_eq!(score(&[0, 5, 5]), vec![10, 0, 0]);
        // Positions 14, 6, 6, 0: the tie sits symmetric, both get 6.
        assert_eq!(score(&[0, 3, 3, 7]), vec![14, 6, 6, 0]);
        // Positions 4, 4, 4, 0 for three pawns at 2: all get 0.
        assert_eq!(score(&[0, 2, 2, 2]), vec![4, 0, 0, 0]);
        // Positions 12, 2, 2, 0: the two pawns at 1 share positions 1 and 2.
        assert_eq!(score(&[0, 1, 1, 6]), vec![12, 2, 2, 0]);
    }

    #[test]
    fn ranks_tie_equal() {
        assert_eq!(ranks(&[0, 4, 4, 9]), vec![0, 1, 1, 3]);
    }
}
