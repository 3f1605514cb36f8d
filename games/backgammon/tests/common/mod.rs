//! Helpers shared by the integration tests.

use ludus_backgammon::board::Board;

/// Builds a board from (point, count) lists in each side's own numbering; 25 = bar.
pub fn board(white: &[(u8, u8)], black: &[(u8, u8)]) -> Board {
    let mut c = [[0u8; 25]; 2];
    for (side, list) in [white, black].into_iter().enumerate() {
        for &(p, n) in list {
            c[side][usize::from(p) - 1] += n;
        }
    }
    Board::new(c).expect("valid test board")
}
