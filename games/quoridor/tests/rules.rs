//! Hand-worked positions for rules Q1-Q36; each test names the rules it checks.

use ludus_quoridor::{
    Bracket, Cell, Colour, Edge, GoalKind, LastAction, MatchDecision, MatchResult, Mode, PawnGoal,
    Quoridor, QuoridorAction, QuoridorError, QuoridorOptions, Team, Wall, Walls,
};
use ludus_rules::{Game, GameResult, RuleViolation, ScriptedRandom, Viewer};

fn rng() -> ScriptedRandom {
    ScriptedRandom::new([0])
}

fn new(options: QuoridorOptions, seats: usize, first: usize) -> Quoridor {
    let options = QuoridorOptions {
        first_seat: Some(first),
        ..options
    };
    Quoridor::setup(options, seats, &mut rng()).expect("setup")
}

fn classic(first: usize) -> Quoridor {
    new(QuoridorOptions::default(), 2, first)
}

fn cells(list: &[&str]) -> Vec<Cell> {
    list.iter().map(|s| s.parse().expect("cell")).collect()
}

fn walls(list: &[&str]) -> Vec<Wall> {
    list.iter().map(|s| s.parse().expect("wall")).collect()
}

fn arranged(g: Quoridor, pawns: &[&str], ws: &[&str]) -> Quoridor {
    g.arrange(&cells(pawns), &walls(ws)).expect("arrange")
}

#[track_caller]
fn play(g: Quoridor, seat: usize, text: &str) -> Quoridor {
    let a = g.parse_action(text).expect("notation");
    match g.apply(seat, &a, &mut rng()) {
        Ok(g) => g,
        Err((_, e)) => panic!("{text}: {e}"),
    }
}

#[track_caller]
fn refused(g: Quoridor, seat: usize, text: &str) -> QuoridorError {
    let a: QuoridorAction = text.parse().expect("notation");
    let before = serde_json::to_string(&g).expect("json");
    match g.apply(seat, &a, &mut rng()) {
        Ok(_) => panic!("{text} was accepted"),
        Err((g, e)) => {
            // The game comes back unchanged.
            assert_eq!(serde_json::to_string(&g).expect("json"), before);
            e
        }
    }
}

/// Pawn destinations among the legal actions, sorted.
fn moves(g: &Quoridor, seat: usize) -> Vec<String> {
    let mut v: Vec<String> = g
        .legal_actions(seat)
        .iter()
        .filter(|a| matches!(a, QuoridorAction::Move(_)))
        .map(ToString::to_string)
        .collect();
    v.sort();
    v
}

fn cell_of(g: &Quoridor, side: usize) -> String {
    g.cell(side).expect("side").to_string()
}

#[test]
fn q2_q5_q19_initial_action_counts() {
    // Three steps, 2·(N-1)² wall slots and pass.
    for (n, count) in [(9, 3 + 128 + 1), (11, 3 + 200 + 1), (13, 3 + 288 + 1)] {
        let g = new(
            QuoridorOptions {
                size: n,
                ..QuoridorOptions::default()
            },
            2,
            0,
        );
        assert_eq!(g.legal_actions(0).len(), count, "{n}x{n}");
        assert!(g.legal_actions(1).is_empty(), "not yellow's turn");
    }
}

#[test]
fn q4_q5_q27_classic_places_colours_and_walls() {
    let v = classic(0).view(Viewer::Spectator);
    assert_eq!(v.pawns.len(), 2);
    assert_eq!(v.pawns[0].colour, Colour::Red);
    assert_eq!(v.pawns[0].cell.to_string(), "e1");
    assert_eq!(v.pawns[0].goal, PawnGoal::Edge(Edge::Top));
    assert_eq!(v.pawns[1].colour, Colour::Yellow);
    assert_eq!(v.pawns[1].cell.to_string(), "e9");
    assert_eq!(v.pawns[1].goal, PawnGoal::Edge(Edge::Bottom));
    assert_eq!(v.pawns[0].walls_left, 10);
    assert_eq!(v.pawns[0].distance, Some(8));
    let g = new(
        QuoridorOptions {
            size: 11,
            ..QuoridorOptions::default()
        },
        2,
        0,
    );
    assert_eq!([cell_of(&g, 0), cell_of(&g, 1)], ["f1", "f11"]);
    assert_eq!(g.walls_left(0), Some(12));
}

#[test]
fn q6_q7_q27_free_for_all_places_and_walls() {
    let g = new(QuoridorOptions::default(), 4, 0);
    let got: Vec<String> = (0..4).map(|s| cell_of(&g, s)).collect();
    assert_eq!(
        got,
        ["e1", "a5", "e9", "i5"],
        "Q6: bottom, left, top, right"
    );
    assert_eq!(g.walls_left(3), Some(5));
    let v = g.view(Viewer::Seat(1));
    assert_eq!(v.pawns[1].goal, PawnGoal::Edge(Edge::Right));
    assert_eq!(v.pawns[2].goal, PawnGoal::Edge(Edge::Bottom));
    assert_eq!(v.you, Some(1));

    // Q7, k = 2 on 9×9: seats 1-4 at -k of bottom, left, top, right; 5-8 at +k.
    let g = new(QuoridorOptions::default(), 8, 0);
    let got: Vec<String> = (0..8).map(|s| cell_of(&g, s)).collect();
    assert_eq!(got, ["c1", "a7", "c9", "i7", "g1", "a3", "g9", "i3"]);
    assert_eq!(g.walls_left(7), Some(3));
    assert_eq!(g.view(Viewer::Spectator).pawns[7].colour, Colour::Pink);

    let g = new(
        QuoridorOptions {
            size: 13,
            ..QuoridorOptions::default()
        },
        3,
        0,
    );
    assert_eq!(g.walls_left(0), Some(11));
    let g = new(
        QuoridorOptions {
            walls: Walls::Fixed(20),
            ..QuoridorOptions::default()
        },
        6,
        0,
    );
    assert_eq!(g.walls_left(5), Some(20));
}

#[test]
fn q8_first_mover_is_random_unless_set() {
    let g = Quoridor::setup(QuoridorOptions::default(), 3, &mut ScriptedRandom::new([2]))
        .expect("setup");
    assert_eq!(g.to_move(), Some(2));
    let g = Quoridor::setup(QuoridorOptions::default(), 2, &mut ScriptedRandom::new([1]))
        .expect("setup");
    assert_eq!(g.to_move(), Some(1));
    assert_eq!(classic(1).to_move(), Some(1));
    // Turns follow seat order and wrap.
    let mut g = new(QuoridorOptions::default(), 3, 1);
    let mut order = Vec::new();
    for _ in 0..4 {
        let s = g.to_move().expect("turn");
        order.push(s);
        g = play(g, s, "pass");
    }
    assert_eq!(order, [1, 2, 0, 1]);
}

#[test]
fn q4_q23_q24_q26_q27_setup_errors() {
    let err = |o: QuoridorOptions, seats: usize| {
        Quoridor::setup(o, seats, &mut rng())
            .expect_err("refused")
            .rule
    };
    let d = QuoridorOptions::default;
    assert_eq!(err(QuoridorOptions { size: 10, ..d() }, 2), "Q26");
    assert_eq!(err(d(), 1), "Q4");
    assert_eq!(err(d(), 9), "Q4");
    assert_eq!(
        err(
            QuoridorOptions {
                walls: Walls::Fixed(4),
                ..d()
            },
            2
        ),
        "Q27"
    );
    assert_eq!(
        err(
            QuoridorOptions {
                mode: Mode::TournamentMatch,
                ..d()
            },
            3
        ),
        "Q24"
    );
    let teams = |t: Vec<Team>| QuoridorOptions {
        mode: Mode::Teams,
        teams: t,
        ..d()
    };
    assert_eq!(err(teams(vec![Team::Red, Team::Yellow]), 3), "Q23");
    assert_eq!(err(teams(vec![Team::Red, Team::Red, Team::Red]), 3), "Q23");
    assert_eq!(
        err(
            QuoridorOptions {
                first_seat: Some(5),
                ..d()
            },
            2
        ),
        "Q8"
    );
}

#[test]
fn q12_steps_stop_at_walls_and_edges() {
    let g = arranged(classic(0), &["e1", "e9"], &["e1h"]);
    assert_eq!(moves(&g, 0), ["d1", "f1"]);
    let e = refused(g.clone(), 0, "e2");
    assert_eq!(e.to_string(), "Q12: red cannot move to e2");
    assert_eq!(e.rule(), "Q12");
    let e = refused(g, 0, "e3");
    assert_eq!(e.to_string(), "Q13: red cannot move to e3");
}

#[test]
fn q13_straight_jump() {
    let g = arranged(classic(0), &["e4", "e5"], &[]);
    assert_eq!(moves(&g, 0), ["d4", "e3", "e6", "f4"]);
    let g = play(g, 0, "e6");
    assert_eq!(cell_of(&g, 0), "e6");
}

#[test]
fn q13_diagonal_when_a_wall_is_behind() {
    let g = arranged(classic(0), &["e4", "e5"], &["e5h"]);
    assert_eq!(moves(&g, 0), ["d4", "d5", "e3", "f4", "f5"]);
    // A wall between the faced pawn and a diagonal cell removes that cell.
    let g = arranged(classic(0), &["e4", "e5"], &["e5h", "d5v"]);
    assert_eq!(moves(&g, 0), ["d4", "e3", "f4", "f5"]);
    assert_eq!(refused(g, 0, "d5").rule(), "Q13");
}

#[test]
fn q13_diagonal_at_the_edge_and_win_on_it() {
    let g = arranged(classic(0), &["e8", "e9"], &[]);
    assert_eq!(moves(&g, 0), ["d8", "d9", "e7", "f8", "f9"]);
    let g = play(g, 0, "d9");
    let o = g.outcome().expect("over");
    assert_eq!(o.rule, "Q17");
    assert_eq!(o.reason, "red reached the top edge at d9");
}

#[test]
fn q13_third_pawn_behind_gives_diagonals_and_no_double_jump() {
    let g = arranged(
        new(QuoridorOptions::default(), 3, 0),
        &["e4", "e5", "e6"],
        &[],
    );
    assert_eq!(moves(&g, 0), ["d4", "d5", "e3", "f4", "f5"]);
    assert_eq!(refused(g.clone(), 0, "e7").rule(), "Q13");
    // A diagonal cell held by a pawn is no destination.
    let g = arranged(
        new(QuoridorOptions::default(), 3, 0),
        &["e4", "e5", "d5"],
        &["e5h"],
    );
    assert_eq!(moves(&g, 0), ["d4", "e3", "f4", "f5"]);
}

#[test]
fn q3_walls_may_not_overlap_or_cross() {
    let g = play(classic(0), 0, "e3h");
    for (text, msg) in [
        ("e3h", "Q3: wall e3h overlaps wall e3h"),
        ("d3h", "Q3: wall d3h overlaps wall e3h"),
        ("f3h", "Q3: wall f3h overlaps wall e3h"),
        ("e3v", "Q3: wall e3v crosses wall e3h"),
    ] {
        assert_eq!(refused(g.clone(), 1, text).to_string(), msg);
    }
    let legal = g.legal_actions(1);
    for t in ["e3h", "d3h", "f3h", "e3v"] {
        assert!(!legal.contains(&t.parse().expect("wall")), "{t}");
    }
    // Touching end to end and parallel neighbours are fine.
    let g = play(g, 1, "g3h");
    let g = play(g, 0, "e4v");
    let g = play(g, 1, "e2v");
    assert_eq!(g.view(Viewer::Spectator).walls.len(), 4);
}

#[test]
fn q14_q16_no_walls_left() {
    let g = new(
        QuoridorOptions {
            walls: Walls::Fixed(1),
            ..QuoridorOptions::default()
        },
        2,
        0,
    );
    let g = play(g, 0, "a3h");
    let g = play(g, 1, "e8");
    assert!(
        g.legal_actions(0)
            .iter()
            .all(|a| !matches!(a, QuoridorAction::Wall(_)))
    );
    assert_eq!(
        refused(g, 0, "c3h").to_string(),
        "Q16: red has no walls left"
    );
}

#[test]
fn q15_never_shut_anyone_in() {
    // a1h closes a1 and b1 from above; b1v would close them from the right.
    let g = arranged(classic(0), &["a1", "e9"], &["a1h"]);
    assert!(!g.legal_actions(0).contains(&"b1v".parse().expect("wall")));
    assert_eq!(
        refused(g.clone(), 0, "b1v").to_string(),
        "Q15: wall b1v would shut in red"
    );
    // The same box without the pawn inside is fine.
    let g = arranged(classic(0), &["c1", "e9"], &["a1h"]);
    assert!(g.legal_actions(0).contains(&"b1v".parse().expect("wall")));
    let g = play(g, 0, "b1v");
    assert_eq!(g.view(Viewer::Spectator).walls.len(), 2);
    // Shutting in the opponent is refused too.
    let g = arranged(classic(1), &["e1", "h9"], &["h8h"]);
    assert_eq!(
        refused(g, 1, "g8v").to_string(),
        "Q15: wall g8v would shut in yellow"
    );
}

#[test]
fn q9_q15_center_goal() {
    let options = QuoridorOptions {
        goal: GoalKind::Center,
        ..QuoridorOptions::default()
    };
    let g = new(options.clone(), 2, 0);
    assert_eq!([cell_of(&g, 0), cell_of(&g, 1)], ["a1", "i9"]);
    assert_eq!(g.distance(0), Some(8));
    // No wall may cut anyone off from the center: box e5 f5 with a fourth wall.
    let g = arranged(
        new(options.clone(), 2, 0),
        &["a1", "i9"],
        &["e5h", "e4h", "d4v"],
    );
    assert_eq!(
        refused(g, 0, "f4v").to_string(),
        "Q15: wall f4v would shut in red"
    );
    // Stepping onto the center wins at once.
    let g = arranged(new(options, 2, 0), &["e4", "i9"], &[]);
    let g = play(g, 0, "e5");
    let o = g.outcome().expect("over");
    assert_eq!(o.reason, "red reached the center at e5");
    assert_eq!(o.points, [16, 0]); // Q31: twice yellow's 8 steps
}

#[test]
fn q10_center_places_for_many_pawns() {
    let o = QuoridorOptions {
        goal: GoalKind::Center,
        ..QuoridorOptions::default()
    };
    let g = new(o.clone(), 4, 0);
    let got: Vec<String> = (0..4).map(|s| cell_of(&g, s)).collect();
    assert_eq!(
        got,
        ["a1", "a9", "i9", "i1"],
        "Q10: clockwise from bottom-left"
    );
    let g = new(o, 6, 0);
    assert!((0..6).all(|s| g.distance(s) == Some(6)));
    assert_eq!(g.view(Viewer::Spectator).pawns[3].goal, PawnGoal::Center);
}

#[test]
fn q17_q30_q31_win_and_points() {
    let g = arranged(classic(0), &["e8", "e6"], &[]);
    let g = play(g, 0, "e9");
    let o = g.outcome().expect("over");
    assert_eq!(o.result, GameResult::Win { winners: vec![0] });
    assert_eq!(o.rule, "Q17");
    assert_eq!(o.points, [10, 0]); // yellow is 5 steps from rank 1
    assert_eq!(o.ranks, [0, 1]);
    assert_eq!(g.to_move(), None);
    assert_eq!(
        refused(g.clone(), 1, "e5").to_string(),
        "Q17: the game is over"
    );
    assert!(g.legal_actions(1).is_empty());
}

#[test]
fn q31_q32_four_pawn_scoring_with_ranks() {
    // Red at e8 steps to e9; yellow (Q6: from the left) is 1 step from file i, blue (from
    // the top) 4 from rank 1, green (from the right) 7 from file a.
    let g = arranged(
        new(QuoridorOptions::default(), 4, 0),
        &["e8", "h4", "c5", "h5"],
        &[],
    );
    assert_eq!(
        [1, 2, 3].map(|s| g.distance(s)),
        [Some(1), Some(4), Some(7)]
    );
    let g = play(g, 0, "e9");
    let o = g.outcome().expect("over");
    // Distances 0, 1, 4, 7 → 14, 8, 2, 0.
    assert_eq!(o.points, [14, 8, 2, 0]);
    assert_eq!(o.ranks, [0, 1, 2, 3]);
}

#[test]
fn q18_move_limit_draws_and_timeouts_count() {
    let mut g = classic(0);
    for ply in 0..120 {
        assert!(g.outcome().is_none(), "ply {ply}");
        let s = g.to_move().expect("turn");
        g = if ply % 3 == 0 {
            g.timeout(s, &mut rng())
        } else {
            play(g, s, "pass")
        };
    }
    let o = g.outcome().expect("drawn");
    assert_eq!(o.result, GameResult::Draw);
    assert_eq!(o.rule, "Q18");
    assert_eq!(
        o.reason,
        "no pawn reached its goal within 60 moves per pawn"
    );
    assert_eq!(o.points, [0, 0]); // Q36
    assert_eq!(g.ply(), 120);
    let v = g.view(Viewer::Spectator);
    assert_eq!(v.move_limit, 60);
    assert_eq!(v.pawns[1].moves, 60);
}

/// Red on e1 boxed in by d1v and e1v can only leave through e2 and e3; yellow on e3
/// blocks it.
fn blocking_position() -> Quoridor {
    arranged(classic(1), &["e1", "e3"], &["d1v", "e1v"])
}

#[test]
fn q20_a_blocking_pawn_may_not_pass() {
    let g = blocking_position();
    assert!(!g.legal_actions(1).contains(&QuoridorAction::Pass));
    assert_eq!(
        refused(g.clone(), 1, "pass").to_string(),
        "Q20: yellow blocks red and may not pass"
    );
    // Red blocks nobody and may pass.
    let g = play(g, 1, "a8h");
    assert!(g.legal_actions(0).contains(&QuoridorAction::Pass));
}

#[test]
fn q21_timeout_steps_aside_toward_unblocking() {
    let g = blocking_position();
    // Unblocking moves d3, f3 (2 steps from rank 1) and e4 (3): d3, left before right.
    let g = g.timeout(1, &mut rng());
    assert_eq!(cell_of(&g, 1), "d3");
    assert_eq!(g.ply(), 1);
    let last = g.view(Viewer::Spectator).last_action.expect("last");
    assert_eq!(
        last,
        LastAction {
            seat: 1,
            side: 1,
            action: "d3".parse().expect("cell"),
            from: Some("e3".parse().expect("cell")),
            automatic: true,
        }
    );
    // Q19: red blocks nobody, so its timeout passes.
    let g = g.timeout(0, &mut rng());
    assert_eq!(cell_of(&g, 0), "e1");
    let last = g.view(Viewer::Spectator).last_action.expect("last");
    assert_eq!((last.action, last.automatic), (QuoridorAction::Pass, true));
    // A timeout of a seat not on turn changes nothing.
    let ply = g.ply();
    assert_eq!(g.timeout(0, &mut rng()).ply(), ply);
}

#[test]
fn q21_no_unblocking_move_takes_the_shortest_path() {
    // Yellow on e2 inside the corridor: e3 is its only move and it still blocks.
    let g = arranged(classic(1), &["e1", "e2"], &["d1v", "e1v"]);
    assert_eq!(moves(&g, 1), ["e3"]);
    let g = g.timeout(1, &mut rng());
    assert_eq!(cell_of(&g, 1), "e3");
}

#[test]
fn q23_team_turns_rotate_in_join_order() {
    let opts = |teams: Vec<Team>| QuoridorOptions {
        mode: Mode::Teams,
        teams,
        ..QuoridorOptions::default()
    };
    use Team::{Red as R, Yellow as Y};
    let mut g = new(opts(vec![R, Y, R, Y]), 4, 0);
    assert_eq!(g.sides(), 2);
    assert_eq!(g.walls_left(0), Some(10)); // Q27: Auto per team
    let mut order = Vec::new();
    for _ in 0..5 {
        let s = g.to_move().expect("turn");
        order.push(s);
        g = play(g, s, "pass");
    }
    assert_eq!(order, [0, 1, 2, 3, 0]);
    // Three seats, two on red; yellow's seat 2 starts.
    let mut g = new(opts(vec![R, R, Y]), 3, 2);
    let mut order = Vec::new();
    for _ in 0..6 {
        let s = g.to_move().expect("turn");
        order.push(s);
        g = play(g, s, "pass");
    }
    assert_eq!(order, [2, 0, 2, 1, 2, 0]);
    let v = g.view(Viewer::Seat(1));
    assert_eq!(v.you, Some(0));
    assert_eq!(v.pawns[0].seats, [0, 1]);
    // Shared walls: a wall by seat 0 leaves 9 for seat 1 too.
    let g = play(g, 2, "a3h");
    let g = play(g, 1, "c3h");
    assert_eq!(g.walls_left(0), Some(9));
}

#[test]
fn q23_team_places_and_center_corners() {
    let g = new(
        QuoridorOptions {
            mode: Mode::Teams,
            goal: GoalKind::Center,
            ..QuoridorOptions::default()
        },
        4,
        0,
    );
    assert_eq!([cell_of(&g, 0), cell_of(&g, 1)], ["a1", "i9"]);
    let g = new(
        QuoridorOptions {
            mode: Mode::Teams,
            ..QuoridorOptions::default()
        },
        5,
        0,
    );
    assert_eq!([cell_of(&g, 0), cell_of(&g, 1)], ["e1", "e9"]);
}

#[test]
fn q33_team_members_share_the_team_points() {
    let g = new(
        QuoridorOptions {
            mode: Mode::Teams,
            ..QuoridorOptions::default()
        },
        4,
        0,
    );
    let g = arranged(g, &["e8", "e3"], &[]);
    let g = play(g, 0, "e9");
    let o = g.outcome().expect("over");
    assert_eq!(
        o.result,
        GameResult::Win {
            winners: vec![0, 2]
        }
    );
    assert_eq!(o.points, [4, 0, 4, 0]);
    assert_eq!(o.ranks, [0, 1, 0, 1]);
}

#[test]
fn q34_win_because_everyone_else_left() {
    // Two moves made: 10 points.
    let g = play(play(classic(0), 0, "e2"), 1, "e8");
    let g = g.resign(1);
    let o = g.outcome().expect("over");
    assert_eq!(o.rule, "Q34");
    assert_eq!(o.result, GameResult::Win { winners: vec![0] });
    assert_eq!(o.points, [10, 0]);
    assert_eq!(o.ranks, [0, 1]);
    // Fewer than two moves: no points.
    let g = play(classic(0), 0, "e2").resign(0);
    let o = g.outcome().expect("over");
    assert_eq!(o.result, GameResult::Win { winners: vec![1] });
    assert_eq!(o.points, [0, 0]);
    // Resigning after the end changes nothing.
    assert_eq!(g.clone().resign(1).outcome(), g.outcome());
}

#[test]
fn q34_free_for_all_leavers_leave_the_board() {
    let g = new(QuoridorOptions::default(), 3, 0);
    let g = g.resign(1); // not on turn
    assert_eq!(g.to_move(), Some(0));
    let g = play(g, 0, "e2");
    assert_eq!(g.to_move(), Some(2)); // seat 1 is skipped
    let v = g.view(Viewer::Seat(1));
    assert!(!v.pawns[1].in_game);
    assert_eq!(v.pawns[1].distance, None);
    assert_eq!(v.you, None);
    // The leaver's cell is free: nothing stands on a5 any more.
    let g = play(g, 2, "pass");
    let g = g.resign(0); // on turn: the turn passes on and blue is left alone
    let o = g.outcome().expect("over");
    assert_eq!(o.result, GameResult::Win { winners: vec![2] });
    assert_eq!(o.points, [0, 0, 10]);
    assert_eq!(o.ranks, [1, 1, 0]);
}

#[test]
fn q34_free_for_all_goal_win_after_a_leaver() {
    let g = arranged(
        new(QuoridorOptions::default(), 3, 0),
        &["e8", "h5", "e5"],
        &[],
    );
    let g = g.resign(2);
    let g = play(g, 0, "e9");
    let o = g.outcome().expect("over");
    // Blue left: no points, ranked last; yellow (from the left) is 1 step from file i.
    assert_eq!(o.points, [2, 0, 0]);
    assert_eq!(o.ranks, [0, 1, 2]);
}

#[test]
fn q34_team_member_leaves_team_plays_on() {
    let g = new(
        QuoridorOptions {
            mode: Mode::Teams,
            ..QuoridorOptions::default()
        },
        4,
        0,
    );
    let g = g.resign(0); // red's member on turn leaves; red's other member plays
    assert_eq!(g.to_move(), Some(2));
    let g = play(g, 2, "e2");
    let g = play(g, 1, "e8");
    assert_eq!(g.to_move(), Some(2));
    let g = g.resign(2);
    let o = g.outcome().expect("over");
    assert_eq!(
        o.result,
        GameResult::Win {
            winners: vec![1, 3]
        }
    );
    assert_eq!(o.points, [0, 10, 0, 10]);
}

#[test]
fn q35_tournament_match_win_is_three_points() {
    let g = new(
        QuoridorOptions {
            mode: Mode::TournamentMatch,
            ..QuoridorOptions::default()
        },
        2,
        0,
    );
    let g = arranged(g, &["e8", "e5"], &[]);
    let g = play(g, 0, "e9");
    assert_eq!(g.outcome().expect("over").points, [3, 0]);
}

#[test]
fn q18_no_draw_by_agreement() {
    let (_, e) = classic(0).agree_draw().expect_err("refused");
    assert_eq!(e.rule(), "Q18");
}

#[test]
fn q1_q2_q8_notation_and_turn_errors() {
    let g = classic(0);
    assert_eq!(
        g.parse_action("k1").expect_err("off").to_string(),
        "Q1: k1 is not on the 9x9 board"
    );
    let e = g.parse_action("i9h").expect_err("off");
    assert_eq!(
        (e.rule(), e.to_string().as_str()),
        ("Q2", "Q2: i9h is not on the 9x9 board")
    );
    assert_eq!(
        g.parse_action("hello").expect_err("bad").to_string(),
        "Q1: \"hello\" is not a cell (e2), a wall (e3h, e3v) or pass"
    );
    assert_eq!(g.parse_action("H8V").expect("ok").to_string(), "h8v");
    let big = new(
        QuoridorOptions {
            size: 13,
            ..QuoridorOptions::default()
        },
        2,
        0,
    );
    assert_eq!(big.parse_action("m13").expect("ok").to_string(), "m13");
    assert_eq!(big.parse_action("l12h").expect("ok").to_string(), "l12h");
    assert!(big.parse_action("m12h").is_err());
    assert_eq!(
        refused(g.clone(), 1, "e8").to_string(),
        "Q8: it is not seat 1's turn"
    );
    assert_eq!(refused(g.clone(), 7, "e8").rule(), "Q8");
    assert_eq!(refused(g, 0, "z9").rule(), "Q1");
}

#[test]
fn q37_view_shows_the_last_action_and_walls() {
    let g = play(classic(0), 0, "e3h");
    let v = g.view(Viewer::Seat(1));
    assert_eq!(v.walls.len(), 1);
    assert_eq!(v.walls[0].wall.to_string(), "e3h");
    assert_eq!(v.walls[0].side, Some(0));
    assert_eq!(v.pawns[0].walls_left, 9);
    assert_eq!(v.pawns[0].distance, Some(9)); // one step sideways around e3h
    assert_eq!(v.to_move, Some(1));
    assert_eq!(v.side_to_move, Some(1));
    assert_eq!(v.you, Some(1));
    assert_eq!(v.ply, 1);
    let last = v.last_action.expect("last");
    assert_eq!(
        (
            last.seat,
            last.action.to_string(),
            last.from,
            last.automatic
        ),
        (0, "e3h".into(), None, false)
    );
    let g = play(g, 1, "e8");
    let last = g.view(Viewer::Spectator).last_action.expect("last");
    assert_eq!(last.from.map(|c| c.to_string()), Some("e9".into()));
    assert_eq!(g.view(Viewer::Spectator).pawns[1].moves, 1);
}

#[test]
fn state_round_trips_through_json() {
    let g = play(play(play(classic(0), 0, "e2"), 1, "d7h"), 0, "c4v");
    let json = serde_json::to_string(&g).expect("json");
    let back: Quoridor = serde_json::from_str(&json).expect("back");
    assert_eq!(back.view(Viewer::Spectator), g.view(Viewer::Spectator));
    assert_eq!(back.legal_actions(1), g.legal_actions(1));
    // A stored state with a wall off the board is refused, not a panic.
    let broken = json.replace("\"c4v\"", "\"z4v\"");
    assert!(serde_json::from_str::<Quoridor>(&broken).is_err());
    let broken = json.replace("\"size\":9", "\"size\":200");
    assert!(serde_json::from_str::<Quoridor>(&broken).is_err());
}

/// Plays a tournament match to the wanted result and returns what the bracket needs.
fn play_match(m: &ludus_quoridor::BracketMatch, winner_seat: Option<usize>) -> MatchResult {
    let mut g = Quoridor::setup(m.options(9, GoalKind::Opposite, Walls::Auto), 2, &mut rng())
        .expect("setup");
    assert_eq!(
        g.to_move(),
        Some(m.first_seat),
        "the bracket says who starts"
    );
    match winner_seat {
        None => {
            while let Some(s) = g.to_move() {
                g = play(g, s, "pass");
            }
        }
        Some(w) => {
            for _ in 0..2 {
                let s = g.to_move().expect("turn");
                g = play(g, s, "pass");
            }
            g = g.resign(1 - w);
            assert_eq!(g.outcome().expect("over").points[w], 3);
        }
    }
    MatchResult::from_outcome(m, g.outcome().expect("over"))
}

#[test]
fn q24_q35_five_player_knockout_with_bye_and_replay() {
    // Draws: bye among 5 → 2; firsts 0, 1; round 2 bye → fresh[0]; first 1; coin 0; first 1.
    let mut r = ScriptedRandom::new([2, 0, 1, 0, 1, 0, 1]);
    let mut b = Bracket::new(5, &mut r).expect("bracket");
    assert_eq!(b.round(), 1);
    assert_eq!(b.bye(), Some(2));
    let m = b.matches().to_vec();
    assert_eq!(
        m.iter().map(|m| m.players).collect::<Vec<_>>(),
        [[0, 1], [3, 4]]
    );
    assert_eq!((m[0].first_seat, m[1].first_seat), (0, 1));

    let res = play_match(&m[0], Some(0));
    b.report(0, res, &mut r).expect("report");
    // Match 1 is drawn (Q18) and replayed with the other player first.
    let res = play_match(&m[1], None);
    assert_eq!(res, MatchResult::Drawn);
    b.report(1, res, &mut r).expect("report");
    let replay = b.matches()[1];
    assert!(replay.replay);
    assert_eq!(replay.first_seat, 0);
    assert_eq!(b.round(), 1);
    let res = play_match(&replay, Some(1));
    assert_eq!(res, MatchResult::Won(4));
    b.report(1, res, &mut r).expect("report");

    // Round 2: 0, 4 and 2 remain; 2 had the bye, so it goes to 0 or 4.
    assert_eq!(b.round(), 2);
    assert_eq!(b.bye(), Some(0));
    let m = b.matches()[0];
    assert_eq!(m.players, [4, 2]);
    // Drawn twice: a coin toss sends 4 through, with no points.
    b.report(0, play_match(&m, None), &mut r).expect("report");
    let replay = b.matches()[0];
    assert_eq!(replay.first_seat, 1 - m.first_seat);
    b.report(0, play_match(&replay, None), &mut r)
        .expect("report");
    assert_eq!(b.round(), 3);

    // Final: 4 against 0.
    let m = b.matches()[0];
    assert_eq!(m.players, [4, 0]);
    assert_eq!(b.bye(), None);
    let seat_of_0 = 1;
    b.report(0, play_match(&m, Some(seat_of_0)), &mut r)
        .expect("report");
    assert_eq!(b.champion(), Some(0));
    // 0: two matches won and the title; 4: one match won; the coin toss gave nothing.
    assert_eq!(b.points(), [16, 0, 0, 0, 3]);
    assert!(b.report(0, MatchResult::Drawn, &mut r).is_err());
}

#[test]
fn q24_bracket_refuses_bad_reports() {
    let mut r = ScriptedRandom::new([0]);
    assert!(Bracket::new(1, &mut r).is_err());
    let mut b = Bracket::new(4, &mut r).expect("bracket");
    assert_eq!(b.bye(), None);
    assert!(b.report(5, MatchResult::Drawn, &mut r).is_err());
    assert!(b.report(0, MatchResult::Won(3), &mut r).is_err());
    b.report(0, MatchResult::Won(1), &mut r).expect("ok");
    assert!(b.report(0, MatchResult::Won(1), &mut r).is_err());
    assert_eq!(b.matches()[0].decision, Some(MatchDecision::Won(1)));
}

/// Clockwise turns of the board made by walking from pawn to pawn in `order` and back to
/// the first, seen from above with rank 1 at the bottom; `None` if two pawns sit in the
/// same direction from the center.
fn clockwise_turns(order: &[Cell], size: u8) -> Option<f64> {
    use std::f64::consts::TAU;
    let mid = f64::from(size - 1) / 2.0;
    let angle = |c: &Cell| (f64::from(c.rank) - mid).atan2(f64::from(c.file) - mid);
    let mut total = 0.0;
    for (i, a) in order.iter().enumerate() {
        let b = &order[(i + 1) % order.len()];
        let step = (angle(a) - angle(b)).rem_euclid(TAU);
        if step < 1e-9 {
            return None;
        }
        total += step;
    }
    Some(total / TAU)
}

/// The goal a pawn starting on `cell` races to (Q5-Q7: the opposite edge; Q9: the center).
fn goal_from(cell: Cell, size: u8, goal: GoalKind) -> PawnGoal {
    match goal {
        GoalKind::Center => PawnGoal::Center,
        GoalKind::Opposite if cell.rank == 0 => PawnGoal::Edge(Edge::Top),
        GoalKind::Opposite if cell.rank == size - 1 => PawnGoal::Edge(Edge::Bottom),
        GoalKind::Opposite if cell.file == 0 => PawnGoal::Edge(Edge::Right),
        GoalKind::Opposite => PawnGoal::Edge(Edge::Left),
    }
}

/// The cells of the pawns in the order they get their turns over two rounds, starting from
/// seat 0 (everybody passes).
fn turn_cells(mut g: Quoridor, pawns: usize) -> (Vec<usize>, Vec<Cell>) {
    let (mut seats, mut at) = (Vec::new(), Vec::new());
    for _ in 0..2 * pawns {
        let s = g.to_move().expect("turn");
        seats.push(s);
        at.push(g.cell(g.side_of(s).expect("side")).expect("cell"));
        g = play(g, s, "pass");
    }
    (seats, at)
}

#[test]
fn q6_q7_q8_q10_start_places_and_clockwise_turns() {
    use GoalKind::{Center, Opposite};
    // (size, goal, start cells in seat order). Q6: middles of bottom, left, top, right;
    // Q7: -k then +k places of bottom, left, top, right (k = 2 on 9×9, 3 on 13×13);
    // Q10: corners clockwise from bottom-left, and the Q7 places for 5 to 8 pawns.
    let table: [(u8, GoalKind, &[&str]); 16] = [
        (9, Opposite, &["e1", "a5", "e9"]),
        (9, Opposite, &["e1", "a5", "e9", "i5"]),
        (9, Opposite, &["c1", "a7", "c9", "i7", "g1"]),
        (
            9,
            Opposite,
            &["c1", "a7", "c9", "i7", "g1", "a3", "g9", "i3"],
        ),
        (13, Opposite, &["g1", "a7", "g13"]),
        (13, Opposite, &["g1", "a7", "g13", "m7"]),
        (13, Opposite, &["d1", "a10", "d13", "m10", "j1"]),
        (
            13,
            Opposite,
            &["d1", "a10", "d13", "m10", "j1", "a4", "j13", "m4"],
        ),
        (9, Center, &["a1", "a9", "i9"]),
        (9, Center, &["a1", "a9", "i9", "i1"]),
        (9, Center, &["c1", "a7", "c9", "i7", "g1"]),
        (9, Center, &["c1", "a7", "c9", "i7", "g1", "a3", "g9", "i3"]),
        (13, Center, &["a1", "a13", "m13"]),
        (13, Center, &["a1", "a13", "m13", "m1"]),
        (13, Center, &["d1", "a10", "d13", "m10", "j1"]),
        (
            13,
            Center,
            &["d1", "a10", "d13", "m10", "j1", "a4", "j13", "m4"],
        ),
    ];
    for (size, goal, places) in table {
        let pawns = places.len();
        let what = format!("{pawns} pawns on {size}x{size}, {goal:?} goal");
        let options = QuoridorOptions {
            size,
            goal,
            ..QuoridorOptions::default()
        };
        let g = new(options, pawns, 0);
        let v = g.view(Viewer::Spectator);
        let want = cells(places);
        let got: Vec<Cell> = v.pawns.iter().map(|p| p.cell).collect();
        assert_eq!(got, want, "{what}");
        for p in &v.pawns {
            assert_eq!(p.goal, goal_from(p.cell, size, goal), "{what}: {}", p.cell);
        }
        // Q10: every pawn equally far from the center.
        if goal == Center {
            let d = g.distance(0);
            assert!((0..pawns).all(|s| g.distance(s) == d), "{what}");
        }
        // Q8: turns follow seat order, wrapping; so they visit the places in seat order…
        let (seats, at) = turn_cells(g, pawns);
        let expected: Vec<usize> = (0..2 * pawns).map(|i| i % pawns).collect();
        assert_eq!(seats, expected, "{what}");
        assert_eq!(at[..pawns], want[..], "{what}");
        // …which goes clockwise: once around the board with up to five pawns (the fifth
        // sits between the first and the second), twice with six to eight (the -k places,
        // then the +k places). The first version's order went around twice with four.
        let turns = clockwise_turns(&want, size).expect("distinct directions");
        let rounds = if pawns <= 5 { 1.0 } else { 2.0 };
        assert!((turns - rounds).abs() < 1e-9, "{what}: {turns} turns");
    }
}

#[test]
fn q5_q10_q23_q24_two_sides_keep_their_places() {
    use Team::{Red as R, Yellow as Y};
    for (size, goal, places) in [
        (9, GoalKind::Opposite, ["e1", "e9"]),
        (13, GoalKind::Opposite, ["g1", "g13"]),
        (9, GoalKind::Center, ["a1", "i9"]),
        (13, GoalKind::Center, ["a1", "m13"]),
    ] {
        let options = QuoridorOptions {
            size,
            goal,
            ..QuoridorOptions::default()
        };
        // Q5 / Q10: two players.
        let g = new(options.clone(), 2, 0);
        assert_eq!([cell_of(&g, 0), cell_of(&g, 1)], places);
        // Q24: a tournament match is a classic two-player game.
        let g = new(
            QuoridorOptions {
                mode: Mode::TournamentMatch,
                ..options.clone()
            },
            2,
            0,
        );
        assert_eq!([cell_of(&g, 0), cell_of(&g, 1)], places);
        // Q23: partners share their team's pawn, red at the bottom (or bottom-left corner)
        // and yellow opposite, however many players; members take turns in join order.
        for (teams, red, yellow) in [
            (vec![R, Y, R, Y], vec![0, 2], vec![1, 3]),
            (vec![R, R, Y, Y, Y], vec![0, 1], vec![2, 3, 4]),
        ] {
            let seats = teams.len();
            let g = new(
                QuoridorOptions {
                    mode: Mode::Teams,
                    teams,
                    ..options.clone()
                },
                seats,
                0,
            );
            assert_eq!(g.sides(), 2);
            assert_eq!([cell_of(&g, 0), cell_of(&g, 1)], places);
            let v = g.view(Viewer::Spectator);
            assert_eq!(v.pawns[0].seats, red);
            assert_eq!(v.pawns[1].seats, yellow);
            let (order, at) = turn_cells(g, seats);
            assert_eq!(order[..4], [red[0], yellow[0], red[1], yellow[1]]);
            assert_eq!(at[..2], cells(&places)[..]);
        }
    }
}

/// Stored states written before Q6, Q7 and Q10 were revised (2026-12-01), when three or
/// more pawns sat bottom, top, left, right (corners bottom-left, top-right, top-left,
/// bottom-right with the center goal). Captured from that code's `serde_json` output.
const LEGACY_THREE_CLASSIC: &str = r#"{"options":{"mode":"FreeForAll","goal":"Opposite","size":9,"walls":"Auto","teams":[],"first_seat":2},"seat_side":[0,1,2],"departed":[false,false,false],"sides":[{"cell":"e2","goal":{"Edge":"Top"},"walls_left":7,"moves":1,"members":[0],"next":0,"in_game":true},{"cell":"e9","goal":{"Edge":"Bottom"},"walls_left":7,"moves":0,"members":[1],"next":0,"in_game":true},{"cell":"b5","goal":{"Edge":"Right"},"walls_left":7,"moves":1,"members":[2],"next":0,"in_game":true}],"walls":[],"turn":1,"ply":2,"last":{"seat":0,"side":0,"action":"e2","from":"e1","automatic":false},"outcome":null}"#;
const LEGACY_FOUR_CENTER_13: &str = r#"{"options":{"mode":"FreeForAll","goal":"Center","size":13,"walls":"Auto","teams":[],"first_seat":1},"seat_side":[0,1,2,3],"departed":[false,false,false,false],"sides":[{"cell":"a1","goal":"Center","walls_left":8,"moves":0,"members":[0],"next":0,"in_game":true},{"cell":"m13","goal":"Center","walls_left":8,"moves":0,"members":[1],"next":0,"in_game":true},{"cell":"a13","goal":"Center","walls_left":8,"moves":0,"members":[2],"next":0,"in_game":true},{"cell":"m1","goal":"Center","walls_left":8,"moves":0,"members":[3],"next":0,"in_game":true}],"walls":[],"turn":1,"ply":0,"last":null,"outcome":null}"#;

#[test]
fn q6_q10_a_game_stored_before_the_revision_keeps_its_layout() {
    // Three pawns, blue moved a5-b5 and red e1-e2: yellow (top) is next, then blue (left).
    let g: Quoridor = serde_json::from_str(LEGACY_THREE_CLASSIC).expect("legacy state loads");
    assert_eq!(
        serde_json::to_string(&g).expect("json"),
        LEGACY_THREE_CLASSIC
    );
    let v = g.view(Viewer::Spectator);
    let goals: Vec<PawnGoal> = v.pawns.iter().map(|p| p.goal).collect();
    assert_eq!(
        goals,
        [Edge::Top, Edge::Bottom, Edge::Right].map(PawnGoal::Edge)
    );
    assert_eq!(g.to_move(), Some(1));
    assert_eq!(moves(&g, 1), ["d9", "e8", "f9"]);
    let g = play(g, 1, "e8");
    let (seats, at) = turn_cells(g, 3);
    assert_eq!(seats, [2, 0, 1, 2, 0, 1]);
    assert_eq!(at[..3], cells(&["b5", "e2", "e8"])[..]);

    // Four pawns with the center goal on 13×13, yellow to move first: the old corners,
    // in the old (not clockwise) turn order.
    let g: Quoridor = serde_json::from_str(LEGACY_FOUR_CENTER_13).expect("legacy state loads");
    assert_eq!(
        serde_json::to_string(&g).expect("json"),
        LEGACY_FOUR_CENTER_13
    );
    let (seats, at) = turn_cells(g, 4);
    assert_eq!(seats[..4], [1, 2, 3, 0]);
    let old = cells(&["m13", "a13", "m1", "a1"]);
    assert_eq!(at[..4], old[..]);
    let turns = clockwise_turns(&old, 13).expect("distinct directions");
    assert!((turns - 2.0).abs() < 1e-9, "{turns} turns");
}
