//! Hand-worked positions for each rule; test names cite the rule ids.

use ludus_backgammon::board::Board;
use ludus_backgammon::play::legal_plays;
use ludus_backgammon::{
    Action, Backgammon, BackgammonOptions, Match, MatchGame, Phase, Play, ResignLevel, ViewPhase,
};
use ludus_rules::{Game, GameResult, RuleViolation, ScriptedRandom, Viewer};

mod common;

use common::board;

fn game_at(b: Board, turn: usize, dice: Option<[u8; 2]>) -> Backgammon {
    Backgammon::from_position(BackgammonOptions::default(), b, turn, dice).expect("position")
}

fn plays(g: &Backgammon) -> Vec<String> {
    let mut v: Vec<String> = g.legal_plays().iter().map(ToString::to_string).collect();
    v.sort();
    v
}

fn play(g: Backgammon, seat: usize, text: &str) -> Result<Backgammon, String> {
    let a = g.parse_action(text).map_err(|e| e.to_string())?;
    g.apply(seat, &a, &mut ScriptedRandom::new([0]))
        .map_err(|(_, e)| e.to_string())
}

fn rule_of(g: Backgammon, seat: usize, text: &str) -> &'static str {
    let a = g.parse_action(text).expect("notation");
    match g.apply(seat, &a, &mut ScriptedRandom::new([0])) {
        Ok(_) => "ok",
        Err((_, e)) => e.rule(),
    }
}

fn start(values: &[u32]) -> Backgammon {
    Backgammon::setup(
        BackgammonOptions::default(),
        2,
        &mut ScriptedRandom::new(values.to_vec()),
    )
    .expect("setup")
}

/// Perft-like counts: distinct legal plays (by resulting position) of every roll from the
/// starting position, white to play. Computed by this library and cross-checked against a
/// brute-force generator in `tests/properties.rs`; 6-5, 6-6 and 5-5 were counted by hand:
/// 6-5 has 24/13, 24/18 13/8, 24/18 8/3, 13/8 13/7, 13/7 8/3, 13/2 and 8/3 8/2 (24/19 and
/// 6/1 land on made points; 13/8 8/2 is the same position as 13/2). With 6-6, 18/12 and
/// 7/1 are blocked, so only the counts moved 24/18 (0-2), 13/7 and 8/2 (0-3) differ: 11.
/// With 5-5 only 13/8 and 8/3 move: 4.
#[test]
fn b5_b8_distinct_opening_plays_per_roll() {
    let counts: Vec<((u8, u8), usize)> = (1..=6u8)
        .flat_map(|a| (1..=a).map(move |b| (a, b)))
        .map(|(a, b)| ((a, b), legal_plays(&Board::START, 0, [a, b]).plays.len()))
        .collect();
    let get = |a: u8, b: u8| counts.iter().find(|c| c.0 == (a, b)).unwrap().1;
    insta_counts(&counts);
    assert_eq!(get(6, 6), 11, "6-6");
    assert_eq!(get(6, 5), 7, "6-5");
    assert_eq!(get(5, 5), 4, "5-5");
}

/// The full table, so a change in generation shows up as one failing line.
fn insta_counts(counts: &[((u8, u8), usize)]) {
    let expected: &[((u8, u8), usize)] = &[
        ((1, 1), 42),
        ((2, 1), 15),
        ((2, 2), 75),
        ((3, 1), 16),
        ((3, 2), 17),
        ((3, 3), 73),
        ((4, 1), 14),
        ((4, 2), 18),
        ((4, 3), 17),
        ((4, 4), 52),
        ((5, 1), 8),
        ((5, 2), 8),
        ((5, 3), 9),
        ((5, 4), 9),
        ((5, 5), 4),
        ((6, 1), 10),
        ((6, 2), 14),
        ((6, 3), 14),
        ((6, 4), 14),
        ((6, 5), 7),
        ((6, 6), 11),
    ];
    for (roll, n) in counts {
        let want = expected.iter().find(|e| e.0 == *roll).map(|e| e.1);
        assert_eq!(Some(*n), want, "roll {roll:?}");
    }
}

#[test]
fn b4_opening_roll_decides_who_starts_and_is_played() {
    // below(6) = 2 → white 3; 0 → black 1: white starts with 3-1.
    let g = start(&[2, 0]);
    assert_eq!(g.turn(), 0);
    assert_eq!(g.dice(), Some([3, 1]));
    // Black 6, white 2: black starts with 6-2.
    let g = start(&[1, 5]);
    assert_eq!(g.turn(), 1);
    assert_eq!(g.dice(), Some([6, 2]));
    // Equal rolls are rolled again (no automatic doubles: the cube stays at 1).
    let g = start(&[3, 3, 4, 4, 0, 5]);
    assert_eq!(g.turn(), 1);
    assert_eq!(g.dice(), Some([6, 1]));
    assert_eq!(g.cube_value(), 1);
    assert_eq!(g.ply(), 0);
}

#[test]
fn b4_a_source_that_only_rolls_doubles_does_not_hang() {
    let r = Backgammon::setup(
        BackgammonOptions::default(),
        2,
        &mut ScriptedRandom::new([2]),
    );
    assert_eq!(r.unwrap_err().rule, "B4");
}

#[test]
fn b2_setup_needs_two_players_and_valid_options() {
    let mut rng = ScriptedRandom::new([2, 0]);
    assert_eq!(
        Backgammon::setup(BackgammonOptions::default(), 3, &mut rng)
            .unwrap_err()
            .rule,
        "B2"
    );
    assert_eq!(
        ludus_backgammon::options::validate_turn_seconds(45)
            .unwrap_err()
            .rule,
        "B20"
    );
    assert!(ludus_backgammon::options::validate_turn_seconds(90).is_ok());
    let bad = BackgammonOptions {
        beavers: true,
        match_game: Some(MatchGame {
            length: 5,
            score: [0, 0],
            crawford: false,
        }),
        ..BackgammonOptions::default()
    };
    assert_eq!(Backgammon::setup(bad, 2, &mut rng).unwrap_err().rule, "B22");
}

#[test]
fn b17_automatic_doubles_up_to_the_limit() {
    let auto = |limit| BackgammonOptions {
        automatic_doubles: true,
        automatic_double_limit: limit,
        ..BackgammonOptions::default()
    };
    let roll = [0, 0, 1, 1, 2, 2, 5, 0];
    let g = Backgammon::setup(auto(1), 2, &mut ScriptedRandom::new(roll)).unwrap();
    assert_eq!(g.cube_value(), 2);
    assert_eq!(g.cube_owner(), None);
    let g = Backgammon::setup(auto(2), 2, &mut ScriptedRandom::new(roll)).unwrap();
    assert_eq!(g.cube_value(), 4);
    let g = Backgammon::setup(auto(5), 2, &mut ScriptedRandom::new(roll)).unwrap();
    assert_eq!(g.cube_value(), 8);
    assert_eq!(g.automatic_doubles(), 3);
    assert_eq!(g.dice(), Some([6, 1]));
}

#[test]
fn b5_landing_on_a_made_point_is_refused() {
    let g = start(&[4, 1]); // white 5-2
    assert_eq!(g.dice(), Some([5, 2]));
    assert_eq!(rule_of(g.clone(), 0, "24/19 13/11"), "B5");
    assert_eq!(rule_of(g, 0, "13/8 13/11"), "ok");
}

#[test]
fn b1_moves_go_down_from_own_checkers() {
    let g = start(&[4, 1]);
    assert_eq!(rule_of(g.clone(), 0, "11/13 13/8"), "B1");
    assert_eq!(rule_of(g.clone(), 0, "20/15 13/11"), "B1");
    assert_eq!(rule_of(g, 1, "13/8 13/11"), "B4"); // not black's turn
}

#[test]
fn b6_one_checker_may_take_both_dice_through_an_open_point() {
    let g = start(&[5, 4]); // white 6-5
    assert!(plays(&g).contains(&"24/13".to_owned()));
    let next = play(g.clone(), 0, "24/13").unwrap();
    assert_eq!(next.board().count(0, 13), 6);
    assert_eq!(next.board().count(0, 24), 1);
    // The same run written through the intermediate point.
    assert!(play(g.clone(), 0, "24/18/13").is_ok());
    // A number not on the dice.
    assert_eq!(rule_of(g, 0, "24/20 13/8"), "B6");
    // Both intermediate points (7 and 8) blocked: 13/2 cannot be played with 6-5.
    let b = board(&[(13, 1), (1, 14)], &[(18, 2), (17, 2), (2, 11)]);
    let g = game_at(b, 0, Some([6, 5]));
    assert_eq!(rule_of(g.clone(), 0, "13/2"), "B6");
    assert!(plays(&g).iter().all(|p| p != "13/2"));
}

#[test]
fn b7_doubles_play_four_times() {
    let g = start(&[0, 1]); // black 2-1 starts
    let g = play(g, 1, "13/11 6/5").unwrap();
    let g = g
        .apply(0, &Action::Roll, &mut ScriptedRandom::new([2, 2]))
        .unwrap();
    assert_eq!(g.dice(), Some([3, 3]));
    assert_eq!(rule_of(g.clone(), 0, "8/5(2) 6/3(2)"), "ok");
    assert_eq!(rule_of(g.clone(), 0, "8/5(2) 6/3(2) 13/10"), "B7");
    // Three moves where four are possible.
    assert_eq!(rule_of(g, 0, "8/5(2) 6/3"), "B8");
}

#[test]
fn b8_must_play_the_larger_die_when_only_one_can_be_played() {
    // White: 1 on 24, 14 on the ace point; black holds white's 13 (its 12). 6 then 5 (or 5
    // then 6) would need 13: only one die can be played, so it must be the 6.
    let b = board(&[(24, 1), (1, 14)], &[(12, 2), (2, 13)]);
    let g = game_at(b, 0, Some([6, 5]));
    assert_eq!(plays(&g), vec!["24/18".to_owned()]);
    assert_eq!(rule_of(g.clone(), 0, "24/19"), "B8");
    assert_eq!(rule_of(g.clone(), 0, ""), "B8");
    assert_eq!(rule_of(g, 0, "24/18"), "ok");
}

#[test]
fn b8_both_dice_must_be_used_when_possible() {
    let g = start(&[2, 0]); // white 3-1
    assert_eq!(rule_of(g.clone(), 0, "8/5"), "B8");
    assert_eq!(rule_of(g, 0, "8/5 6/5"), "ok");
}

#[test]
fn b8_no_legal_move_loses_the_turn_with_the_empty_play() {
    // White on the bar against a closed board.
    let b = board(
        &[(25, 1), (6, 14)],
        &[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (13, 3)],
    );
    let g = game_at(b, 0, Some([4, 2]));
    assert_eq!(g.legal_plays(), vec![Play::default()]);
    assert_eq!(rule_of(g.clone(), 0, "bar/21"), "B5");
    let g = play(g, 0, "no play").unwrap();
    assert_eq!(g.turn(), 1);
    assert_eq!(g.phase(), Phase::Roll);
}

#[test]
fn b10_enter_from_the_bar_first_and_lose_the_rest_when_blocked() {
    // Two white checkers on the bar; black holds its 6 point (white's 19): a 6 cannot enter,
    // a 5 can. One enters with the 5, the 6 is lost.
    let b = board(&[(25, 2), (6, 13)], &[(6, 2), (13, 13)]);
    let g = game_at(b, 0, Some([6, 5]));
    assert_eq!(plays(&g), vec!["bar/20".to_owned()]);
    assert_eq!(rule_of(g.clone(), 0, "6/1"), "B10");
    assert_eq!(rule_of(g.clone(), 0, "bar/20 6/0"), "B10");
    assert_eq!(rule_of(g, 0, "bar/20"), "ok");
    // One checker on the bar: once in, the other die is played by any checker.
    let b = board(&[(25, 1), (6, 14)], &[(13, 15)]);
    let g = game_at(b, 0, Some([6, 5]));
    let p = plays(&g);
    assert!(p.contains(&"bar/19 6/1".to_owned()), "{p:?}");
    assert!(p.contains(&"bar/14".to_owned()), "{p:?}");
    assert_eq!(rule_of(g, 0, "bar/19"), "B10");
}

#[test]
fn b11_bear_off_exact_or_from_the_highest_point() {
    // White: one checker each on 5 and 3 (13 off). 6-1: the 6 bears off the 5 (nothing
    // higher); the 1 moves 3/2, or the 5 goes 5/4 and then off with the 6.
    let b = board(&[(5, 1), (3, 1)], &[(13, 15)]);
    let g = game_at(b, 0, Some([6, 1]));
    assert_eq!(
        plays(&g),
        vec!["5/4 4/off".to_owned(), "5/off 3/2".to_owned()]
    );
    assert_eq!(rule_of(g.clone(), 0, "3/off 5/4"), "B11");
    assert_eq!(rule_of(g, 0, "5/off 3/2"), "ok");
    // Not all home: no bearing off.
    let b = board(&[(8, 1), (3, 14)], &[(13, 15)]);
    let g = game_at(b, 0, Some([3, 2]));
    assert_eq!(rule_of(g.clone(), 0, "3/off 3/1"), "B11");
    // Listed in any order, the moves are played from the highest point down.
    assert_eq!(rule_of(g.clone(), 0, "3/off 8/6"), "ok");
    assert_eq!(rule_of(g, 0, "8/6 3/off"), "ok");
}

#[test]
fn b11_bearing_off_is_never_forced_while_another_move_exists() {
    let b = board(&[(6, 2), (2, 1)], &[(13, 15)]);
    let g = game_at(b, 0, Some([4, 1]));
    // 6, 6 and 2 with 4-1: the 4 cannot bear off the 2 while the 6s stand higher, and
    // nothing forces 2/1 1/off: the plays are 6/1 and 6/5 6/2.
    assert_eq!(plays(&g), vec!["6/1".to_owned(), "6/5 6/2".to_owned()]);
    assert_eq!(rule_of(g, 0, "2/off 6/5"), "B11");
}

#[test]
fn b12_a_checker_hit_during_bear_off_must_come_home_first() {
    // White bearing off (10 off) is hit: one white checker on the bar.
    let b = board(&[(25, 1), (2, 2), (1, 2)], &[(13, 15)]);
    let g = game_at(b, 0, Some([6, 5]));
    for p in g.legal_plays() {
        assert!(p.moves().iter().all(|m| m.to != 0), "{p}");
    }
    assert_eq!(rule_of(g.clone(), 0, "bar/19 2/off"), "B11");
    assert_eq!(rule_of(g, 0, "bar/14"), "ok");
}

#[test]
fn b9_hitting_sends_the_blot_to_the_bar() {
    let b = board(&[(13, 15)], &[(15, 1), (6, 14)]); // black blot on white's 10
    let g = game_at(b, 0, Some([3, 1]));
    assert!(
        plays(&g).contains(&"13/10* 10/9".to_owned()) || plays(&g).contains(&"13/9".to_owned())
    );
    let g = play(g, 0, "13/10*/9").unwrap();
    assert_eq!(g.board().bar(1), 1);
    let g = game_at(board(&[(13, 15)], &[(15, 1), (6, 14)]), 0, Some([3, 1]));
    let p = plays(&g);
    assert!(p.contains(&"13/10* 10/9".to_owned()), "{p:?}");
    assert!(p.contains(&"13/12 13/10*".to_owned()), "{p:?}");
    // 13/9 through 12 does not hit, through 10 does: both are plays, as distinct positions.
    assert!(p.contains(&"13/9".to_owned()), "{p:?}");
    let no_hit = play(g, 0, "13/9").unwrap();
    assert_eq!(no_hit.board().bar(1), 0);
}

#[test]
fn b13_b16_single_gammon_and_backgammon() {
    let opts = BackgammonOptions::default();
    // Black has borne one off: single.
    let b = board(&[(1, 1)], &[(6, 14)]);
    let g = Backgammon::from_position(opts.clone(), b, 0, Some([2, 1])).unwrap();
    let g = play(g, 0, "1/off").unwrap();
    let o = g.outcome().unwrap();
    assert_eq!(o.rule, "B16");
    assert_eq!(o.result, GameResult::Win { winners: vec![0] });
    assert_eq!(o.points, vec![1, 0]);
    // None off, all out of white's home: gammon.
    let b = board(&[(1, 1)], &[(7, 15)]);
    let g = Backgammon::from_position(opts.clone(), b, 0, Some([2, 1])).unwrap();
    assert_eq!(
        play(g, 0, "1/off").unwrap().outcome().unwrap().points,
        vec![2, 0]
    );
    // None off and one in white's home board (black's 19-24): backgammon.
    let b = board(&[(1, 1)], &[(7, 14), (20, 1)]);
    let g = Backgammon::from_position(opts.clone(), b, 0, Some([2, 1])).unwrap();
    let g = play(g, 0, "1/off").unwrap();
    assert_eq!(g.outcome().unwrap().points, vec![3, 0]);
    assert!(g.outcome().unwrap().reason.contains("backgammon"));
    assert_eq!(g.to_move(), None);
    // B19 Jacoby: the cube never turned, the gammon counts single.
    let jacoby = BackgammonOptions {
        jacoby: true,
        ..BackgammonOptions::default()
    };
    let b = board(&[(1, 1)], &[(7, 14), (20, 1)]);
    let g = Backgammon::from_position(jacoby, b, 0, Some([2, 1])).unwrap();
    assert_eq!(
        play(g, 0, "1/off").unwrap().outcome().unwrap().points,
        vec![1, 0]
    );
}

#[test]
fn b19_jacoby_counts_gammons_once_the_cube_is_turned() {
    let jacoby = BackgammonOptions {
        jacoby: true,
        ..BackgammonOptions::default()
    };
    let b = board(&[(1, 1)], &[(7, 15)]);
    let g = Backgammon::from_position(jacoby, b, 0, None).unwrap();
    let mut rng = ScriptedRandom::new([1, 0]);
    let g = g.apply(0, &Action::Double, &mut rng).unwrap();
    let g = g.apply(1, &Action::Take, &mut rng).unwrap();
    let g = g.apply(0, &Action::Roll, &mut rng).unwrap();
    let g = play(g, 0, "1/off").unwrap();
    assert_eq!(g.outcome().unwrap().points, vec![4, 0]); // gammon at 2
}

#[test]
fn b14_b15_double_take_and_ownership() {
    let g = start(&[2, 0]);
    let g = play(g, 0, "8/5 6/5").unwrap();
    let mut rng = ScriptedRandom::new([0, 1]);
    // Black doubles before rolling; white takes and owns the cube at 2.
    let g = g.apply(1, &Action::Double, &mut rng).unwrap();
    assert_eq!(g.to_move(), Some(0));
    let v = g.view(Viewer::Spectator);
    assert_eq!(v.phase, ViewPhase::DoubleOffered);
    assert_eq!(v.double_offer.unwrap().value, 2);
    assert_eq!(rule_of(g.clone(), 0, "roll"), "B15");
    let g = g.apply(0, &Action::Take, &mut rng).unwrap();
    assert_eq!((g.cube_value(), g.cube_owner()), (2, Some(0)));
    assert_eq!(g.to_move(), Some(1));
    // Black no longer owns the cube: no redouble.
    assert_eq!(rule_of(g.clone(), 1, "double"), "B14");
    let g = g.apply(1, &Action::Roll, &mut rng).unwrap();
    // Doubling after the roll is refused.
    assert_eq!(rule_of(g.clone(), 1, "double"), "B14");
    assert_eq!(rule_of(g, 1, "take"), "B15");
}

#[test]
fn b15_dropping_loses_the_stake_before_the_double() {
    let g = start(&[2, 0]);
    let g = play(g, 0, "8/5 6/5").unwrap();
    let mut rng = ScriptedRandom::new([0]);
    let g = g.apply(1, &Action::Double, &mut rng).unwrap();
    let g = g.apply(0, &Action::Take, &mut rng).unwrap();
    let g = g.apply(1, &Action::Roll, &mut rng).unwrap();
    let p = g.legal_plays()[0].clone();
    let g = g.apply(1, &Action::Play(p), &mut rng).unwrap();
    // White owns the cube at 2 and redoubles to 4; black drops and loses 2.
    let g = g.apply(0, &Action::Double, &mut rng).unwrap();
    let g = g.apply(1, &Action::Drop, &mut rng).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!(o.rule, "B15");
    assert_eq!(o.points, vec![2, 0]);
    assert!(
        o.reason.starts_with("black refused the double"),
        "{}",
        o.reason
    );
}

#[test]
fn b18_beaver_redoubles_and_keeps_the_cube() {
    let beavers = BackgammonOptions {
        beavers: true,
        ..BackgammonOptions::default()
    };
    let g = Backgammon::from_position(beavers.clone(), Board::START, 0, None).unwrap();
    let mut rng = ScriptedRandom::new([0]);
    let g = g.apply(0, &Action::Double, &mut rng).unwrap();
    assert!(g.legal_actions(1).contains(&Action::Beaver));
    let g = g.apply(1, &Action::Beaver, &mut rng).unwrap();
    assert_eq!(g.to_move(), Some(0));
    assert!(!g.legal_actions(0).contains(&Action::Beaver));
    assert_eq!(rule_of(g.clone(), 0, "beaver"), "B18");
    let taken = g.clone().apply(0, &Action::Take, &mut rng).unwrap();
    assert_eq!((taken.cube_value(), taken.cube_owner()), (4, Some(1)));
    assert_eq!(taken.to_move(), Some(0)); // the doubler rolls
    let dropped = g.apply(0, &Action::Drop, &mut rng).unwrap();
    assert_eq!(dropped.outcome().unwrap().points, vec![0, 2]);
    // Without the option there is no beaver.
    let g = Backgammon::from_position(BackgammonOptions::default(), Board::START, 0, None).unwrap();
    let g = g.apply(0, &Action::Double, &mut rng).unwrap();
    assert_eq!(rule_of(g, 1, "beaver"), "B18");
}

#[test]
fn b21_resignation_offers_and_leaving() {
    let g = start(&[2, 0]);
    let mut rng = ScriptedRandom::new([0]);
    let g = g
        .apply(0, &Action::Resign(ResignLevel::Gammon), &mut rng)
        .unwrap();
    assert_eq!(g.to_move(), Some(1));
    assert_eq!(g.view(Viewer::Seat(1)).resignation_offer.unwrap().points, 2);
    assert_eq!(rule_of(g.clone(), 1, "roll"), "B21");
    // Rejected: play resumes with the same dice.
    let resumed = g
        .clone()
        .apply(1, &Action::RejectResignation, &mut rng)
        .unwrap();
    assert_eq!(resumed.dice(), Some([3, 1]));
    assert_eq!(resumed.to_move(), Some(0));
    let accepted = g.apply(1, &Action::AcceptResignation, &mut rng).unwrap();
    let o = accepted.outcome().unwrap();
    assert_eq!((o.rule.as_str(), o.points.clone()), ("B21", vec![0, 2]));
    // Leaving at the start: black's 24-point checkers stand in white's home board, so B16
    // makes it a backgammon.
    let left = start(&[2, 0]).resign(1);
    let o = left.outcome().unwrap();
    assert_eq!((o.rule.as_str(), o.points.clone()), ("B21", vec![3, 0]));
    // Leaving with a checker borne off is a single game.
    let b = board(&[(1, 14)], &[(6, 14)]);
    let g = game_at(b, 0, None).resign(0);
    assert_eq!(g.outcome().unwrap().points, vec![0, 1]);
}

#[test]
fn b20_timeouts_roll_play_take_and_forfeit_on_the_third() {
    let g = start(&[2, 0]);
    let mut rng = ScriptedRandom::new([3, 4, 0, 1, 2, 5]);
    // White's clock runs out with 3-1 to play: the bot plays it.
    let g = g.timeout(0, &mut rng);
    assert_eq!(g.to_move(), Some(1));
    assert_eq!(g.timeouts(), [1, 0]);
    assert_eq!(g.board().pips(0), 163);
    // Black times out before rolling: rolled and played.
    let g = g.timeout(1, &mut rng);
    assert_eq!(g.to_move(), Some(0));
    assert!(g.board().pips(1) < 167);
    // A seat not to move is ignored.
    let g = g.timeout(1, &mut rng);
    assert_eq!(g.timeouts(), [1, 1]);
    // White doubles; black times out: that is a take.
    let g = g.apply(0, &Action::Double, &mut rng).unwrap();
    assert_eq!(g.timeouts(), [0, 1]);
    let g = g.timeout(1, &mut rng);
    assert_eq!((g.cube_value(), g.cube_owner()), (2, Some(1)));
    let g = g.timeout(0, &mut rng).timeout(1, &mut rng);
    assert_eq!(g.timeouts(), [1, 3]);
    let o = g.outcome().unwrap();
    assert_eq!((o.rule.as_str(), o.points.clone()), ("B20", vec![2, 0]));
}

#[test]
fn b13_no_draws() {
    let (g, e) = start(&[2, 0]).agree_draw().unwrap_err();
    assert_eq!(e.rule(), "B13");
    assert!(g.outcome().is_none());
}

#[test]
fn b22_no_cube_in_the_crawford_game_and_match_scoring() {
    let m = Match::new(5).unwrap().record_points(1, 4);
    assert!(m.is_crawford());
    let g = Backgammon::from_position(m.next_game_options(), Board::START, 0, None).unwrap();
    assert!(!g.can_double());
    assert_eq!(rule_of(g.clone(), 0, "double"), "B22");
    let v = g.view(Viewer::Seat(0));
    assert!(v.crawford && !v.legal_actions.contains(&Action::Double));
    assert_eq!((v.match_length, v.score), (5, [0, 4]));
    let g = g.resign(0);
    let m = m.record(g.outcome().unwrap());
    assert_eq!(m.score(), [0, 7]);
    assert_eq!(m.winner(), Some(1));
    // Post-Crawford the cube is back.
    let m = Match::new(5)
        .unwrap()
        .record_points(1, 4)
        .record_points(0, 1);
    let g = Backgammon::from_position(m.next_game_options(), Board::START, 0, None).unwrap();
    assert!(g.can_double());
}

#[test]
fn b3_no_future_dice_in_the_state() {
    let g = start(&[2, 0]);
    let g = play(g, 0, "8/5 6/5").unwrap();
    let json = serde_json::to_string(&g).unwrap();
    assert!(json.contains("\"Roll\""), "{json}");
    let back: Backgammon = serde_json::from_str(&json).unwrap();
    // The same stored state rolls whatever the server's source gives.
    let a = back
        .clone()
        .apply(1, &Action::Roll, &mut ScriptedRandom::new([0, 1]))
        .unwrap();
    let b = back
        .apply(1, &Action::Roll, &mut ScriptedRandom::new([4, 5]))
        .unwrap();
    assert_eq!(a.dice(), Some([1, 2]));
    assert_eq!(b.dice(), Some([5, 6]));
}

#[test]
fn view_shows_public_state_and_the_viewers_plays() {
    let g = start(&[2, 0]);
    let v = g.view(Viewer::Seat(0));
    assert_eq!(v.dice, Some([3, 1]));
    assert_eq!(v.legal_actions.len(), 16 + 3);
    assert_eq!(v.position_id, "4HPwATDgc/ABMA");
    assert_eq!(v.pips, [167, 167]);
    assert_eq!(v.points[23], 2);
    assert!(!v.mirrored);
    let v = g.view(Viewer::Seat(1));
    assert!(v.legal_actions.is_empty());
    assert!(v.mirrored);
    let v = g.view(Viewer::Spectator);
    assert!(v.legal_actions.is_empty());
    assert_eq!(v.cube_value, 1);
    assert_eq!(v.cube_owner, None);
    assert_eq!(g.view(Viewer::Seat(0)).legal_plays.len(), 16);
    assert!(v.last_play.is_none());
    let g = play(g, 0, "8/5 6/5").unwrap();
    let v = g.view(Viewer::Seat(1));
    let last = v.last_play.unwrap();
    assert_eq!((last.seat, last.dice, last.automatic), (0, [3, 1], false));
    assert_eq!(last.play.to_string(), "8/5 6/5");
    assert_eq!(v.dice, None);
    assert_eq!(v.phase, ViewPhase::Roll);
    assert!(v.can_double);
    assert_eq!(v.legal_actions[0], Action::Roll);
    assert!(v.legal_plays.is_empty());
}

#[test]
fn match_id_of_a_game() {
    let g = start(&[2, 0]);
    let k = g.match_key();
    assert_eq!(k.dice, [3, 1]);
    assert_eq!(k.on_roll, 0);
    assert_eq!(k.cube_owner, None);
    assert_eq!(
        ludus_backgammon::gnubg::MatchKey::decode(&g.match_id()).unwrap(),
        k
    );
}

#[test]
fn display_and_parse_round_trip() {
    let g = play(start(&[2, 0]), 0, "8/5 6/5").unwrap();
    let g = g
        .apply(1, &Action::Roll, &mut ScriptedRandom::new([0, 0]))
        .unwrap();
    assert_eq!(g.dice(), Some([1, 1]));
    for a in g.legal_actions(g.to_move().unwrap()) {
        let text = a.to_string();
        let back = g.parse_action(&text).unwrap();
        assert_eq!(back.to_string(), text);
    }
    assert_eq!(
        g.parse_action("resign backgammon").unwrap().to_string(),
        "resign backgammon"
    );
    assert_eq!(g.parse_action("n1 nonsense").unwrap_err().rule(), "N1");
}
