//! Caro rules tests; every test names the rule ids it checks (shared/rules/caro.md).

use ludus_caro::{Caro, CaroAction, CaroError, CaroOptions, Cell, Stone};
use ludus_rules::{Game, GameResult, RuleViolation, ScriptedRandom, SplitMix64, Viewer};
use proptest::prelude::*;

const FREE: CaroOptions = CaroOptions {
    size: 15,
    blocked_ends: false,
    exactly_five: false,
};
const BLOCKED: CaroOptions = CaroOptions {
    size: 15,
    blocked_ends: true,
    exactly_five: false,
};
const EXACT: CaroOptions = CaroOptions {
    size: 15,
    blocked_ends: false,
    exactly_five: true,
};
const BOTH: CaroOptions = CaroOptions {
    size: 15,
    blocked_ends: true,
    exactly_five: true,
};
/// The four combinations of C6, in the order of the table's columns.
const COMBINATIONS: [CaroOptions; 4] = [FREE, BLOCKED, EXACT, BOTH];

/// O's filler moves: scattered on row 15 with gaps, so they never make a line.
const FILLERS: [&str; 8] = ["A15", "C15", "E15", "G15", "I15", "K15", "M15", "O15"];

fn new_game(options: CaroOptions) -> Caro {
    Caro::setup(options, 2, &mut ScriptedRandom::new([])).expect("valid options")
}

fn play(game: Caro, seat: usize, cell: &str) -> Result<Caro, (Caro, CaroError)> {
    let action = game
        .parse_action(cell)
        .expect("test cells are valid C1 notation");
    game.apply(seat, &action, &mut ScriptedRandom::new([]))
}

/// Plays X's stones in order, O answering with `o` then with filler cells; returns the game
/// after X's last stone (runs longer than five are built so that the last stone joins them).
fn position(options: CaroOptions, x: &[&str], o: &[&str]) -> Caro {
    let mut game = new_game(options);
    let mut o_moves: Vec<&str> = o.to_vec();
    o_moves.extend(FILLERS.iter().take(x.len().saturating_sub(o.len() + 1)));
    assert!(o_moves.len() + 1 >= x.len(), "not enough O moves");
    let mut o_iter = o_moves.into_iter();
    for (i, cell) in x.iter().enumerate() {
        game = play(game, 0, cell)
            .map_err(|(_, e)| e)
            .expect("x move is legal");
        if i + 1 < x.len() {
            assert!(game.outcome().is_none(), "x won early at {cell}");
            let o_cell = o_iter.next().expect("an o move");
            game = play(game, 1, o_cell)
                .map_err(|(_, e)| e)
                .expect("o move is legal");
        }
    }
    game
}

fn x_won(game: &Caro) -> bool {
    matches!(game.outcome(), Some(o) if o.result == GameResult::Win { winners: vec![0] })
}

/// Checks one row of the C6 table: the expected result under each combination.
fn check_row(x: &[&str], o: &[&str], expected: [bool; 4], what: &str) {
    for (options, want) in COMBINATIONS.iter().zip(expected) {
        let game = position(*options, x, o);
        assert_eq!(x_won(&game), want, "C6 {what} under {options:?}");
        if want {
            assert_eq!(game.outcome().map(|o| o.rule.as_str()), Some("C7"));
        }
    }
}

#[test]
fn c6_five_both_ends_open_wins_under_every_combination() {
    check_row(
        &["D8", "E8", "F8", "G8", "H8"],
        &[],
        [true; 4],
        "five, both open",
    );
}

#[test]
fn c6_five_one_end_blocked_wins_under_every_combination() {
    check_row(
        &["D8", "E8", "F8", "G8", "H8"],
        &["C8"],
        [true; 4],
        "five, one blocked",
    );
}

#[test]
fn c6_five_both_ends_blocked_wins_only_without_the_blocked_ends_rule() {
    check_row(
        &["D8", "E8", "F8", "G8", "H8"],
        &["C8", "I8"],
        [true, false, true, false],
        "five, both blocked",
    );
}

#[test]
fn c6_six_open_wins_only_without_the_exactly_five_rule() {
    check_row(
        &["C8", "D8", "E8", "G8", "H8", "F8"],
        &[],
        [true, true, false, false],
        "six, open",
    );
    check_row(
        &["C8", "D8", "E8", "G8", "H8", "F8"],
        &["B8"],
        [true, true, false, false],
        "six, one blocked",
    );
}

#[test]
fn c6_six_both_ends_blocked_wins_only_under_free_rules() {
    check_row(
        &["C8", "D8", "E8", "G8", "H8", "F8"],
        &["B8", "I8"],
        [true, false, false, false],
        "six, both blocked",
    );
}

#[test]
fn c6_seven_or_more_counts_as_six() {
    check_row(
        &["B8", "C8", "D8", "F8", "G8", "H8", "E8"],
        &[],
        [true, true, false, false],
        "seven, open",
    );
    check_row(
        &["B8", "C8", "D8", "F8", "G8", "H8", "E8"],
        &["A8", "I8"],
        [true, false, false, false],
        "seven, both blocked",
    );
}

#[test]
fn c4_the_board_edge_blocks_an_end() {
    // A row against the left edge: the edge is one blocked end.
    check_row(
        &["A8", "B8", "C8", "D8", "E8"],
        &[],
        [true; 4],
        "five at the edge, other end open",
    );
    check_row(
        &["A8", "B8", "C8", "D8", "E8"],
        &["F8"],
        [true, false, true, false],
        "five between the edge and an o stone",
    );
    // A column against the top edge (row 1 is the top, C1).
    check_row(
        &["H1", "H2", "H3", "H4", "H5"],
        &["H6"],
        [true, false, true, false],
        "five down from the top edge, blocked below",
    );
    // A diagonal from the top-left corner.
    check_row(
        &["A1", "B2", "C3", "D4", "E5"],
        &["F6"],
        [true, false, true, false],
        "diagonal five from the corner, blocked",
    );
    // The anti-diagonal into the bottom-right corner of 15x15.
    check_row(
        &["K11", "L12", "M13", "N14", "O15"],
        &[],
        [true, true, true, true],
        "diagonal five into the corner, other end open",
    );
}

#[test]
fn c4_c7_the_line_through_the_placed_stone_counts_when_it_fills_a_gap() {
    // X fills the gap last: the maximal run through G8 is the five D8-H8.
    let game = position(BLOCKED, &["D8", "E8", "F8", "H8", "G8"], &[]);
    assert!(x_won(&game));
    let view = game.view(Viewer::Spectator);
    let names: Vec<String> = view.winning_line.iter().map(Cell::to_string).collect();
    assert_eq!(names, ["D8", "E8", "F8", "G8", "H8"]);
}

#[test]
fn c4_anti_diagonal_and_vertical_lines_win() {
    assert!(x_won(&position(
        BLOCKED,
        &["H4", "G5", "F6", "E7", "D8"],
        &[]
    )));
    assert!(x_won(&position(
        BLOCKED,
        &["H4", "H5", "H6", "H7", "H8"],
        &[]
    )));
}

#[test]
fn c4_a_gap_breaks_a_run() {
    // D8 E8 F8 _ H8 I8: no five.
    let game = position(FREE, &["D8", "E8", "F8", "H8", "I8"], &[]);
    assert!(game.outcome().is_none());
}

#[test]
fn c7_a_run_that_did_not_win_never_wins_later() {
    // Both ends blocked under the blocked-ends rule: no win, and moves elsewhere change nothing.
    let mut game = position(BLOCKED, &["D8", "E8", "F8", "G8", "H8"], &["C8", "I8"]);
    assert!(game.outcome().is_none());
    for (x, o) in [("B2", "N2"), ("D2", "L2"), ("F3", "J3")] {
        game = play(game, 1, o).map_err(|(_, e)| e).unwrap();
        game = play(game, 0, x).map_err(|(_, e)| e).unwrap();
        assert!(game.outcome().is_none(), "the blocked five must never win");
    }
}

#[test]
fn c6_exactly_five_forbids_making_six_by_joining_two_runs() {
    // X D8 E8 F8 and H8 I8; G8 makes six: no win under exactly-five, win otherwise.
    check_row(
        &["D8", "E8", "F8", "H8", "I8", "G8"],
        &[],
        [true, true, false, false],
        "six made by joining",
    );
}

#[test]
fn c6_on_19x19_too() {
    let nineteen = CaroOptions {
        size: 19,
        ..BLOCKED
    };
    assert!(x_won(&position(
        nineteen,
        &["O10", "P10", "Q10", "R10", "S10"],
        &[]
    )));
    let game = position(nineteen, &["O10", "P10", "Q10", "R10", "S10"], &["N10"]);
    assert!(!x_won(&game), "blocked by O at N10 and by the right edge");
}

#[test]
fn c1_notation_reads_and_writes_cells() {
    let game = new_game(BLOCKED);
    let h8 = game.parse_action("H8").unwrap();
    assert_eq!(h8.cell, Cell::new(7, 7));
    assert_eq!(h8.to_string(), "H8");
    assert_eq!(game.parse_action("a1").unwrap().cell, Cell::new(0, 0));
    assert_eq!(game.parse_action(" o15 ").unwrap().cell, Cell::new(14, 14));
    // I is a column letter (C1): I1 is column 8.
    assert_eq!(game.parse_action("I1").unwrap().cell, Cell::new(8, 0));
    for bad in [
        "", "H", "8", "P1", "H0", "H16", "HH", "H8x", "H-1", "H008", "é8", "H８",
    ] {
        let err = game.parse_action(bad).unwrap_err();
        assert_eq!(err.rule(), "C1", "{bad:?}");
        assert!(err.to_string().starts_with("C1: "), "{err}");
    }
    let nineteen = new_game(CaroOptions {
        size: 19,
        ..BLOCKED
    });
    assert_eq!(
        nineteen.parse_action("S19").unwrap().cell,
        Cell::new(18, 18)
    );
    assert_eq!(Cell::new(9, 9).to_string(), "J10", "the center of 19x19");
}

#[test]
fn c1_only_15_and_19_are_boards() {
    for size in [0, 9, 14, 16, 20, 255] {
        let err = Caro::setup(
            CaroOptions { size, ..BLOCKED },
            2,
            &mut ScriptedRandom::new([]),
        )
        .unwrap_err();
        assert_eq!(err.rule, "C1");
    }
    let err = Caro::setup(BLOCKED, 3, &mut ScriptedRandom::new([])).unwrap_err();
    assert_eq!(err.rule, "C2");
}

#[test]
fn c2_c3_x_moves_first_and_turns_alternate() {
    let game = new_game(BLOCKED);
    assert_eq!(game.to_move(), Some(0));
    let (game, err) = play(game, 1, "H8").unwrap_err();
    assert_eq!(err.rule(), "C3");
    assert_eq!(err.to_string(), "C3: it is not O's turn");
    assert!(game.moves().is_empty(), "a refused action changes nothing");
    let game = play(game, 0, "H8").unwrap();
    assert_eq!(game.to_move(), Some(1));
    assert!(game.legal_actions(0).is_empty());
    assert_eq!(game.legal_actions(1).len(), 224);
}

#[test]
fn c3_an_occupied_cell_is_refused_and_nothing_changes() {
    let game = play(new_game(BLOCKED), 0, "H8").unwrap();
    let (game, err) = play(game, 1, "H8").unwrap_err();
    assert_eq!(
        err,
        CaroError::Occupied {
            cell: Cell::new(7, 7)
        }
    );
    assert_eq!(err.to_string(), "C3: H8 is already taken");
    assert_eq!(game.moves().len(), 1);
    assert_eq!(game.to_move(), Some(1));
}

#[test]
fn c3_off_board_cells_in_structured_actions_are_refused() {
    let game = new_game(BLOCKED);
    let action = CaroAction {
        cell: Cell::new(15, 3),
    };
    let (_, err) = game
        .apply(0, &action, &mut ScriptedRandom::new([]))
        .unwrap_err();
    assert_eq!(err.rule(), "C1");
}

#[test]
fn c7_no_move_after_the_game_is_won() {
    let game = position(BLOCKED, &["D8", "E8", "F8", "G8", "H8"], &[]);
    assert_eq!(game.to_move(), None);
    let (_, err) = play(game, 1, "A1").unwrap_err();
    assert_eq!(err, CaroError::GameOver);
}

/// A full 15x15 board with no run longer than two: X where ((col + 2 row) / 2) is even.
fn full_board_cells(size: u8) -> (Vec<Cell>, Vec<Cell>) {
    let mut x = Vec::new();
    let mut o = Vec::new();
    for row in 0..size {
        for col in 0..size {
            let cell = Cell::new(col, row);
            if ((u32::from(col) + 2 * u32::from(row)) / 2) % 2 == 0 {
                x.push(cell);
            } else {
                o.push(cell);
            }
        }
    }
    (x, o)
}

#[test]
fn c8_a_full_board_without_a_winning_line_is_a_draw() {
    for options in COMBINATIONS {
        let (x, o) = full_board_cells(options.size);
        assert_eq!(x.len(), o.len() + 1);
        let mut game = new_game(options);
        let mut rng = ScriptedRandom::new([]);
        for (i, x_cell) in x.iter().enumerate() {
            game = game
                .apply(0, &CaroAction { cell: *x_cell }, &mut rng)
                .map_err(|(_, e)| e)
                .unwrap();
            if let Some(cell) = o.get(i) {
                game = game
                    .apply(1, &CaroAction { cell: *cell }, &mut rng)
                    .map_err(|(_, e)| e)
                    .unwrap();
            }
        }
        let outcome = game.outcome().expect("the full board ends the game");
        assert_eq!(outcome.result, GameResult::Draw);
        assert_eq!(outcome.rule, "C8");
        assert_eq!(outcome.ranks, [0, 0]);
    }
}

#[test]
fn c8_a_draw_by_agreement_ends_the_game() {
    let game = play(new_game(BLOCKED), 0, "H8").unwrap();
    let game = game.agree_draw().map_err(|(_, e)| e).unwrap();
    assert_eq!(game.outcome().unwrap().result, GameResult::Draw);
    assert_eq!(game.outcome().unwrap().rule, "C8");
    assert!(
        game.agree_draw().is_err(),
        "a finished game cannot be drawn again"
    );
}

#[test]
fn c12_running_out_of_time_loses_once_both_have_moved() {
    let game = play(play(new_game(BLOCKED), 0, "H8").unwrap(), 1, "H9").unwrap();
    let game = game.timeout(0, &mut ScriptedRandom::new([]));
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.result, GameResult::Win { winners: vec![1] });
    assert_eq!(outcome.rule, "C12");
    assert_eq!(outcome.ranks, [1, 0]);
}

#[test]
fn c15_a_timeout_before_each_player_moved_once_cancels() {
    // X never moved.
    let game = new_game(BLOCKED).timeout(0, &mut ScriptedRandom::new([]));
    assert_eq!(game.outcome().unwrap().result, GameResult::Cancelled);
    assert_eq!(game.outcome().unwrap().rule, "C15");
    assert!(game.outcome().unwrap().ranks.is_empty());
    // X moved, O did not.
    let game = play(new_game(BLOCKED), 0, "H8")
        .unwrap()
        .timeout(1, &mut ScriptedRandom::new([]));
    assert_eq!(game.outcome().unwrap().result, GameResult::Cancelled);
}

#[test]
fn c13_not_coming_back_loses_once_both_have_moved_and_either_side_may_be_away() {
    let game = play(play(new_game(BLOCKED), 0, "H8").unwrap(), 1, "H9").unwrap();
    assert_eq!(game.absence_rule(), Some("C13"));
    // O is away although it is X's turn: the disconnection rule does not wait for the turn.
    let over = game.clone().abandon(1);
    let outcome = over.outcome().unwrap();
    assert_eq!(outcome.result, GameResult::Win { winners: vec![0] });
    assert_eq!(outcome.rule, "C13");
    assert_eq!(outcome.ranks, [0, 1]);
    // A finished game stays as it ended.
    let again = over.clone().abandon(0);
    assert_eq!(again.outcome(), over.outcome());
}

#[test]
fn c13_in_a_friend_room_the_player_who_stayed_may_call_it_a_draw_but_c15_cancels_first() {
    let game = play(play(new_game(BLOCKED), 0, "H8").unwrap(), 1, "H9").unwrap();
    let drawn = game.clone().abandon_as_draw(0);
    let outcome = drawn.outcome().unwrap();
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(outcome.rule, "C13");
    assert!(
        outcome.reason.contains("called it a draw"),
        "{}",
        outcome.reason
    );
    assert_eq!(outcome.ranks, [0, 0]);
    // A finished game stays as it ended.
    assert_eq!(drawn.clone().abandon_as_draw(1).outcome(), drawn.outcome());
    // C15: before each player has moved once, the game is cancelled instead.
    let early = play(new_game(BLOCKED), 0, "H8").unwrap().abandon_as_draw(1);
    assert_eq!(early.outcome().unwrap().result, GameResult::Cancelled);
    assert_eq!(early.outcome().unwrap().rule, "C15");
}

#[test]
fn c15_not_coming_back_before_each_player_moved_once_cancels() {
    let game = play(new_game(BLOCKED), 0, "H8").unwrap().abandon(0);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.result, GameResult::Cancelled);
    assert_eq!(outcome.rule, "C15");
}

#[test]
fn c14_resigning_loses() {
    let game = new_game(BLOCKED).resign(0);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.result, GameResult::Win { winners: vec![1] });
    assert_eq!(outcome.rule, "C14");
    // Resigning a finished game changes nothing.
    let again = game.clone().resign(1);
    assert_eq!(again.outcome(), game.outcome());
}

#[test]
fn c16_rulesets_name_the_options() {
    assert_eq!(FREE.ruleset(), "caro/15/free");
    assert_eq!(BLOCKED.ruleset(), "caro/15/blocked-ends");
    assert_eq!(EXACT.ruleset(), "caro/15/exactly-five");
    assert_eq!(
        CaroOptions { size: 19, ..BOTH }.ruleset(),
        "caro/19/blocked-ends/exactly-five"
    );
}

#[test]
fn stored_games_round_trip_and_corrupt_ones_are_refused() {
    let game = position(BLOCKED, &["D8", "E8", "F8", "G8", "H8"], &["C8"]);
    let json = serde_json::to_string(&game).unwrap();
    let back: Caro = serde_json::from_str(&json).unwrap();
    assert_eq!(back.moves(), game.moves());
    assert_eq!(back.outcome(), game.outcome());
    assert_eq!(back.view(Viewer::Spectator), game.view(Viewer::Spectator));
    // Two stones on one cell cannot be stored.
    let corrupt = r#"{"options":{"size":15,"blocked_ends":true,"exactly_five":false},"moves":[{"col":1,"row":1},{"col":1,"row":1}],"outcome":null}"#;
    assert!(serde_json::from_str::<Caro>(corrupt).is_err());
}

#[test]
fn views_show_the_board_row_major_from_the_top() {
    let game = play(new_game(BLOCKED), 0, "B1").unwrap();
    let view = game.view(Viewer::Seat(1));
    assert_eq!(view.cells.len(), 225);
    assert_eq!(view.cells[1], Some(Stone::X), "B1 is row 0, column 1");
    assert_eq!(view.to_move, Some(Stone::O));
    assert_eq!(view, game.view(Viewer::Spectator), "caro hides nothing");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random playouts under every rule combination and both sizes never panic, never put
    /// two stones on a cell, alternate X and O, and end with a win whose line is five or
    /// more long, or with a full board.
    #[test]
    fn random_playouts_end_cleanly(seed in any::<u64>(), combo in 0usize..4, big in any::<bool>()) {
        let options = CaroOptions { size: if big { 19 } else { 15 }, ..COMBINATIONS[combo] };
        let mut game = new_game(options);
        let mut rng = SplitMix64(seed);
        while let Some(seat) = game.to_move() {
            let legal = game.legal_actions(seat);
            prop_assert!(!legal.is_empty());
            let pick = legal[rng.below_usize(legal.len())];
            // A wrong-seat attempt is refused and changes nothing.
            let (same, err) = game.clone().apply(1 - seat, &pick, &mut rng).unwrap_err();
            prop_assert_eq!(err.rule(), "C3");
            prop_assert_eq!(same.moves().len(), game.moves().len());
            game = game.apply(seat, &pick, &mut rng).map_err(|(_, e)| e).unwrap();
        }
        let outcome = game.outcome().unwrap();
        match &outcome.result {
            GameResult::Win { winners } => {
                let line = game.view(Viewer::Spectator).winning_line;
                prop_assert!(line.len() >= 5);
                if options.exactly_five { prop_assert_eq!(line.len(), 5); }
                let last = *game.moves().last().unwrap();
                prop_assert!(line.contains(&last), "C7: the line goes through the last stone");
                prop_assert_eq!(winners.clone(), vec![(game.moves().len() + 1) % 2]);
            }
            GameResult::Draw => prop_assert_eq!(game.moves().len(), usize::from(options.size).pow(2)),
            GameResult::Cancelled => prop_assert!(false, "playouts never cancel"),
        }
    }

    /// Any text at all is either a valid cell or a C1 error: parsing never panics.
    #[test]
    fn parsing_any_text_never_panics(text in ".{0,12}") {
        let game = new_game(BLOCKED);
        if let Err(err) = game.parse_action(&text) {
            prop_assert_eq!(err.rule(), "C1");
        }
    }
}

trait BelowUsize {
    fn below_usize(&mut self, n: usize) -> usize;
}

impl BelowUsize for SplitMix64 {
    fn below_usize(&mut self, n: usize) -> usize {
        use ludus_rules::RandomSource;
        self.below(u32::try_from(n).expect("few legal actions")) as usize
    }
}
