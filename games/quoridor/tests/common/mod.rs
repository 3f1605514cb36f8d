//! Helpers shared by the property tests (`playouts`, `bots`).

use ludus_quoridor::{GoalKind, Mode, QuoridorOptions, Team, Walls};

/// Options from proptest's numbers: a board `size`, `seats` (2 in a tournament match),
/// `mode` 0-2 (free-for-all, teams, tournament match), the center goal or not, `walls` 0-2
/// (Auto, 1, 20), and a `seed` that splits team seats at random.
pub fn options(
    size: u8,
    seats: usize,
    mode: usize,
    center: bool,
    walls: usize,
    seed: u64,
) -> (QuoridorOptions, usize) {
    let mode = [Mode::FreeForAll, Mode::Teams, Mode::TournamentMatch][mode];
    let seats = if mode == Mode::TournamentMatch {
        2
    } else {
        seats
    };
    let teams = if mode == Mode::Teams {
        // A random split that leaves both teams a member.
        (0..seats)
            .map(|s| {
                if s == 0 || (s > 1 && (seed >> s) & 1 == 0) {
                    Team::Red
                } else {
                    Team::Yellow
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let walls = [Walls::Auto, Walls::Fixed(1), Walls::Fixed(20)][walls];
    let goal = if center {
        GoalKind::Center
    } else {
        GoalKind::Opposite
    };
    (
        QuoridorOptions {
            mode,
            goal,
            size,
            walls,
            teams,
            first_seat: None,
        },
        seats,
    )
}
