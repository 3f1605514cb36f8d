//! Movement, J9-J10: road steps, straight railway slides, Engineers' paths, blocking,
//! corners, camps, mountains and the immovable Mines and Flag.
// Helpers outside #[test] fns unwrap too: a failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod common;

use common::{dests, names, p, play, red_to_move, refuse};
use ludus_junqi::{Action, Colour, Junqi, JunqiSetup, Rank};
use ludus_rules::Game;

/// Red brigade on b11 (row 11 is railway, b11 is no corner), a blue platoon on e12 so blue
/// can still move, and whatever `extra` adds.
fn lone(rank: Rank, at: &str, extra: &[(&str, Colour, Rank, bool)]) -> Junqi {
    let mut s = JunqiSetup::new()
        .settled(Colour::Red)
        .with(p(at), Colour::Red, rank, true)
        .with(p("c12"), Colour::Blue, Rank::Platoon, true);
    for &(q, c, r, up) in extra {
        s = s.with(p(q), c, r, up);
    }
    Junqi::from_setup(&s).unwrap()
}

#[test]
fn j9_road_only_post_steps_one_point() {
    // a12 (back row): road to a11 and b12 only.
    let g = lone(Rank::Commander, "a12", &[]);
    assert_eq!(dests(&g, 0, "a12"), names(&["a11", "b12"]));
    // c8 (inside the half, no station, not a camp): its diagonal neighbours b9, d9, b7, d7
    // are not camps either, so only the four orthogonal steps (two of them into camps).
    let g = lone(Rank::Commander, "c8", &[]);
    assert_eq!(dests(&g, 0, "c8"), names(&["b8", "c7", "c9", "d8"]));
}

#[test]
fn j4_camps_link_diagonally() {
    // c9 is the middle camp: 4 orthogonal + 4 diagonal neighbours, all camps or posts.
    let g = lone(Rank::Commander, "c9", &[]);
    assert_eq!(
        dests(&g, 0, "c9"),
        names(&["b10", "b8", "b9", "c10", "c8", "d10", "d8", "d9"])
    );
}

#[test]
fn j4_mountains_block_the_front() {
    // b7 is on row 7 (railway); it cannot step over the mountain to b6.
    let g = lone(Rank::Commander, "b7", &[]);
    let d = dests(&g, 0, "b7");
    assert!(!d.contains(&"b6".to_string()));
    // Slides along row 7 both ways and the road step down into the camp b8.
    assert_eq!(d, names(&["a7", "b8", "c7", "d7", "e7"]));
}

#[test]
fn j9_straight_slides_stop_at_the_first_occupied_station() {
    // Red division on a6; a blue platoon on a3 and a red company on c6.
    let g = lone(
        Rank::Division,
        "a6",
        &[
            ("a3", Colour::Blue, Rank::Platoon, true),
            ("c6", Colour::Red, Rank::Company, true),
        ],
    );
    let d = dests(&g, 0, "a6");
    // Up column a to a11 (the corner; it cannot turn to b11), down to a4 then the attack on
    // a3, right along row 6 to b6 only (c6 is its own piece), and the diagonal road link
    // into the camp b5.
    assert_eq!(
        d,
        names(&["a10", "a11", "a3", "a4", "a5", "a7", "a8", "a9", "b5", "b6"])
    );
    // Blocked: a2 is behind the platoon.
    assert!(refuse(&g, 0, "a6-a2").starts_with("J9: a6-a2 is neither"));
    // Turning is not straight: a6-b11 would need the a11 corner.
    assert!(refuse(&g, 0, "a6-b11").starts_with("J9"));
    // Sliding past a face-down piece is blocked too, and stopping on it is J11.
    let g = lone(
        Rank::Division,
        "a6",
        &[("a8", Colour::Blue, Rank::Platoon, false)],
    );
    assert!(refuse(&g, 0, "a6-a9").starts_with("J9"));
    assert!(refuse(&g, 0, "a6-a8").starts_with("J11"));
}

#[test]
fn j9_the_corner_curves_are_turns_for_non_engineers() {
    let g = lone(Rank::Brigade, "b11", &[]);
    // Row 11 left to a11, right to e11, never turning down columns a or e; b11 has no rail
    // link down, so b10 is a plain road step into the camp.
    assert_eq!(
        dests(&g, 0, "b11"),
        names(&["a11", "b10", "b12", "c11", "d11", "e11"])
    );
}

#[test]
fn j9_engineers_follow_any_clear_railway_path_around_corners() {
    let g = lone(Rank::Engineer, "b11", &[]);
    let d = dests(&g, 0, "b11");
    // Every one of the 32 stations except its own, plus the road steps b12 and b10.
    assert_eq!(d.len(), 31 + 2);
    for q in ["a2", "e2", "e11", "c6", "c7", "a6", "e7", "b2", "d6"] {
        assert!(d.contains(&q.to_string()), "{q}");
    }
}

#[test]
fn j9_engineer_paths_are_blocked_by_pieces_but_may_end_on_an_attack() {
    // Red engineer on a11. Blue platoons on b11 and a10 shut it in except through them.
    let g = lone(
        Rank::Engineer,
        "a11",
        &[
            ("b11", Colour::Blue, Rank::Platoon, true),
            ("a10", Colour::Blue, Rank::Platoon, true),
        ],
    );
    // Attacks: engineer < platoon, so J12 refuses both; the road steps a12 and (diagonally,
    // into the camp) b10 are left.
    assert_eq!(dests(&g, 0, "a11"), names(&["a12", "b10"]));
    assert_eq!(
        refuse(&g, 0, "a11-b11"),
        "J12: a engineer may not attack a higher platoon commander"
    );
    // With engineers instead (equal ranks), both attacks are allowed, and nothing beyond.
    let g = lone(
        Rank::Engineer,
        "a11",
        &[
            ("b11", Colour::Blue, Rank::Engineer, true),
            ("a10", Colour::Blue, Rank::Engineer, true),
        ],
    );
    assert_eq!(dests(&g, 0, "a11"), names(&["a10", "a12", "b10", "b11"]));
    // Open the row: the engineer goes along row 11, down column e, along row 2, and up
    // column a as far as the blocker on a10 (attack), never past it.
    let g = lone(
        Rank::Engineer,
        "a11",
        &[("a10", Colour::Blue, Rank::Engineer, true)],
    );
    let d = dests(&g, 0, "a11");
    for q in ["e11", "e2", "a2", "a9", "a10", "c6"] {
        assert!(d.contains(&q.to_string()), "{q}");
    }
    // a9 is reached the long way round (row 11, column e, row 6, up column a).
    assert_eq!(
        d.len(),
        31 + 2,
        "all stations but a11, plus the road steps a12 and b10"
    );
    // Cut column e and the front lines: now only row 11 and the blocker are left.
    let g = lone(
        Rank::Engineer,
        "a11",
        &[
            ("a10", Colour::Blue, Rank::Engineer, true),
            ("e10", Colour::Red, Rank::Platoon, true),
        ],
    );
    assert_eq!(
        dests(&g, 0, "a11"),
        names(&["a10", "a12", "b10", "b11", "c11", "d11", "e11"])
    );
}

#[test]
fn j10_mines_and_the_flag_never_move() {
    for rank in [Rank::Mine, Rank::Flag] {
        let g = lone(rank, "c11", &[("a1", Colour::Red, Rank::Platoon, true)]);
        assert!(dests(&g, 0, "c11").is_empty());
        let msg = refuse(&g, 0, "c11-c10");
        assert_eq!(msg, format!("J10: the {rank} on c11 never moves"));
    }
    // Bombs do move.
    let g = lone(Rank::Bomb, "c11", &[]);
    assert!(!dests(&g, 0, "c11").is_empty());
}

#[test]
fn j10_headquarters_have_no_special_rule() {
    // A piece enters and leaves b12.
    let g = lone(
        Rank::Commander,
        "b11",
        &[("a1", Colour::Red, Rank::Platoon, true)],
    );
    let g = play(g, 0, "b11-b12");
    let g = play(g, 1, "c12-d12");
    let g = play(g, 0, "b12-a12");
    assert_eq!(g.quiet_actions(), 3);
}

#[test]
fn j7_moving_needs_your_own_face_up_piece() {
    let g = lone(
        Rank::Commander,
        "c6",
        &[
            ("a6", Colour::Red, Rank::Platoon, false),
            ("e6", Colour::Blue, Rank::Platoon, true),
        ],
    );
    assert_eq!(
        refuse(&g, 0, "a6-a7"),
        "J7: the piece on a6 is face down; flip it instead"
    );
    assert_eq!(refuse(&g, 0, "e6-e7"), "J7: the piece on e6 is not yours");
    assert_eq!(refuse(&g, 0, "b6-b5"), "J7: there is no piece on b6");
    assert_eq!(
        refuse(&g, 0, "c6"),
        "J7: the piece on c6 is already face up"
    );
    assert_eq!(refuse(&g, 0, "b6"), "J7: there is no piece to flip on b6");
    assert_eq!(refuse(&g, 1, "e6-e7"), "J7: it is not your turn");
    assert!(refuse(&g, 0, "c6-c6").starts_with("J9"));
}

#[test]
fn legal_action_counts_from_a_known_position() {
    // Perft-like: red commander on c6 and engineer on a11, a face-down piece on e12, blue
    // platoon on c12.
    let g = red_to_move(
        "..  ..  Bp  ..  bm
         Re  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  Rc  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..",
    );
    // Commander on c6: row 6 both ways, the crossing to c7 (one segment: c8 is road only), the
    // road step c5 and the diagonals into the camps b5 and d5.
    assert_eq!(
        dests(&g, 0, "c6"),
        names(&["a6", "b6", "b5", "c5", "c7", "d5", "d6", "e6"])
    );
    // Engineer on a11: every other station but the commander's c6 (30), plus the road steps
    // a12 and b10.
    assert_eq!(dests(&g, 0, "a11").len(), 32);
    let flips = 1;
    let all = g.legal_actions(0);
    assert_eq!(all.len(), flips + 8 + 32);
    assert_eq!(all[0], Action::Flip(p("e12")));
    assert!(g.legal_actions(1).is_empty(), "not blue's turn");
}
