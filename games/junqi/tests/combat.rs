//! Combat, J11-J15: a table test over every rank pair, played on hand-built positions.
// Helpers outside #[test] fns unwrap too: a failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod common;

use common::{p, play, rng};
use ludus_junqi::{Colour, Junqi, JunqiSetup, Piece, PointView, Rank};
use ludus_rules::{Game, RuleViolation, Viewer};

/// Attacker rows, defender columns, both in order C K D G R T Y P E M B F.
/// `W` the attacker takes the point, `T` both removed, `x` J12 lower rank, `m` J14 mine,
/// `f` J15 protected flag, `-` J10 immovable. Written out by hand from the rules.
const CLOSED: [&str; 12] = [
    "TWWWWWWWWmTf", // commander
    "xTWWWWWWWmTf", // corps commander
    "xxTWWWWWWmTf", // division
    "xxxTWWWWWmTf", // brigade
    "xxxxTWWWWmTf", // regiment
    "xxxxxTWWWmTf", // battalion
    "xxxxxxTWWmTf", // company
    "xxxxxxxTWmTf", // platoon
    "xxxxxxxxTWTf", // engineer
    "------------", // mine
    "TTTTTTTTTTTf", // bomb
    "------------", // flag
];

/// Same with the defender's Flag open (J15): any movable piece takes it, a Bomb with it.
fn open_flag(row: &str, attacker: Rank) -> char {
    match (row.as_bytes()[11], attacker) {
        (b'-', _) => '-',
        (_, Rank::Bomb) => 'T',
        _ => 'W',
    }
}

/// Red `attacker` on c6 attacks blue `defender` on c7 (a road step). Both sides keep a
/// platoon far away so the game goes on; `hidden` adds a face-down piece (closing J15).
fn duel(attacker: Rank, defender: Rank, hidden: bool) -> char {
    let mut setup = JunqiSetup::new()
        .settled(Colour::Red)
        .with(p("c6"), Colour::Red, attacker, true)
        .with(p("c7"), Colour::Blue, defender, true)
        .with(p("a1"), Colour::Red, Rank::Platoon, true)
        .with(p("e12"), Colour::Blue, Rank::Platoon, true);
    if hidden {
        setup = setup.with(p("a12"), Colour::Red, Rank::Company, false);
    }
    let game = Junqi::from_setup(&setup).unwrap();
    assert!(game.outcome().is_none());
    let mv = game.parse_action("c6-c7").unwrap();
    match game.clone().apply(0, &mv, &mut rng()) {
        Err((back, e)) => {
            assert_eq!(back, game, "a refused action leaves the game unchanged");
            match e.rule() {
                "J12" => 'x',
                "J14" => 'm',
                "J15" => 'f',
                "J10" => '-',
                other => panic!("unexpected rule {other}: {e}"),
            }
        }
        Ok(after) => {
            let v = after.view(Viewer::Spectator);
            let at = |s: &str| v.points[p(s).index()];
            assert_eq!(at("c6"), PointView::Empty);
            assert_eq!(
                after.removed(Colour::Blue, defender),
                game.removed(Colour::Blue, defender) + 1
            );
            assert_eq!(after.quiet_actions(), 0, "J17: combat resets the counter");
            match at("c7") {
                PointView::FaceUp(piece) => {
                    assert_eq!(piece, Piece::new(Colour::Red, attacker));
                    'W'
                }
                PointView::Empty => {
                    assert_eq!(
                        after.removed(Colour::Red, attacker),
                        game.removed(Colour::Red, attacker) + 1
                    );
                    'T'
                }
                PointView::FaceDown => panic!("a face-down piece appeared"),
            }
        }
    }
}

#[test]
fn j12_to_j15_every_rank_pair_with_the_flag_protected() {
    for (a, row) in Rank::ALL.into_iter().zip(CLOSED) {
        for (d, want) in Rank::ALL.into_iter().zip(row.chars()) {
            // With the flag attacked, keep J15 closed by a face-down piece.
            assert_eq!(duel(a, d, true), want, "{a} attacks {d}");
        }
    }
}

#[test]
fn j15_every_rank_against_an_open_flag() {
    // No blue mine on the board (all three removed) and nothing face down: the flag is open.
    for (a, row) in Rank::ALL.into_iter().zip(CLOSED) {
        let got = duel(a, Rank::Flag, false);
        assert_eq!(got, open_flag(row, a), "{a} attacks the open flag");
    }
}

#[test]
fn j15_capturing_the_flag_wins_at_once() {
    let setup = JunqiSetup::new()
        .settled(Colour::Red)
        .with(p("c6"), Colour::Red, Rank::Engineer, true)
        .with(p("c7"), Colour::Blue, Rank::Flag, true)
        .with(p("e12"), Colour::Blue, Rank::Commander, true)
        .with(p("a1"), Colour::Red, Rank::Platoon, true);
    let game = Junqi::from_setup(&setup).unwrap();
    let game = play(game, 0, "c6-c7");
    let o = game.outcome().unwrap();
    assert_eq!(o.rule, "J15");
    assert_eq!(o.ranks, vec![0, 1]);
    assert_eq!(o.reason, "red captured the blue flag on c7");
    assert_eq!(game.to_move(), None);
}

#[test]
fn j15_flag_closed_by_a_mine_left_or_a_face_down_piece() {
    let base = || {
        JunqiSetup::new()
            .settled(Colour::Red)
            .with(p("c6"), Colour::Red, Rank::Commander, true)
            .with(p("c7"), Colour::Blue, Rank::Flag, true)
            .with(p("e12"), Colour::Blue, Rank::Platoon, true)
    };
    // A blue mine still on the board, even face up: closed.
    let g = Junqi::from_setup(&base().with(p("a12"), Colour::Blue, Rank::Mine, true)).unwrap();
    assert!(!g.flag_open(Colour::Blue));
    let e = g
        .clone()
        .apply(0, &g.parse_action("c6-c7").unwrap(), &mut rng())
        .unwrap_err()
        .1;
    assert_eq!(
        e.to_string(),
        "J15: the blue flag cannot be attacked while blue mines or face-down pieces remain"
    );
    // All blue mines gone but a face-down piece of either colour left: closed.
    let g = Junqi::from_setup(&base().with(p("a12"), Colour::Red, Rank::Mine, false)).unwrap();
    assert!(!g.flag_open(Colour::Blue));
    assert!(g.destinations(0, p("c6")).iter().all(|&q| q != p("c7")));
    // Neither: open, and it shows as a destination.
    let g = Junqi::from_setup(&base()).unwrap();
    assert!(g.flag_open(Colour::Blue));
    assert!(g.destinations(0, p("c6")).contains(&p("c7")));
}

#[test]
fn j11_face_down_pieces_cannot_be_attacked_and_the_error_reveals_nothing() {
    let mut messages = Vec::new();
    for (colour, rank) in [
        (Colour::Blue, Rank::Flag),
        (Colour::Red, Rank::Bomb),
        (Colour::Blue, Rank::Engineer),
    ] {
        let setup = JunqiSetup::new()
            .settled(Colour::Red)
            .with(p("c6"), Colour::Red, Rank::Commander, true)
            .with(p("c7"), colour, rank, false)
            .with(p("e12"), Colour::Blue, Rank::Platoon, true);
        let g = Junqi::from_setup(&setup).unwrap();
        let (_, e) = g
            .clone()
            .apply(0, &g.parse_action("c6-c7").unwrap(), &mut rng())
            .unwrap_err();
        assert_eq!(e.rule(), "J11");
        assert!(!g.destinations(0, p("c6")).contains(&p("c7")));
        messages.push(e.to_string());
    }
    assert_eq!(
        messages[0],
        "J11: the piece on c7 is face down and cannot be attacked"
    );
    assert!(
        messages.iter().all(|m| *m == messages[0]),
        "same text whatever is hidden"
    );
}

#[test]
fn j11_a_camp_protects_its_occupant() {
    // Blue brigade in the camp b10; red commander beside it on a10, and on c11 diagonally.
    let setup = JunqiSetup::new()
        .settled(Colour::Red)
        .with(p("b10"), Colour::Blue, Rank::Brigade, true)
        .with(p("a10"), Colour::Red, Rank::Commander, true)
        .with(p("a1"), Colour::Red, Rank::Engineer, true);
    let g = Junqi::from_setup(&setup).unwrap();
    let (_, e) = g
        .clone()
        .apply(0, &g.parse_action("a10-b10").unwrap(), &mut rng())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "J11: b10 is a camp; its occupant cannot be attacked"
    );
    assert!(!g.destinations(0, p("a10")).contains(&p("b10")));
    // Once it leaves the camp it can be taken: blue to move, steps b10-b11 (diagonal camp
    // link b10-a11 also exists).
    let g = Junqi::from_setup(&setup.clone().to_move(1)).unwrap();
    let g = play(g, 1, "b10-b11");
    // a10 slides up column a to a11, then is a road step from b11: a10-b11 is a diagonal? No:
    // a10 is no camp, so it must go a10-a11 first; a11-b11 is the attack.
    assert!(!g.destinations(0, p("a10")).contains(&p("b11")));
    let g = play(g, 0, "a10-a11");
    let g = play(g, 1, "b11-c11");
    // Row 11 is railway: the commander slides from a11 through b11 onto c11 and takes it.
    let g = play(g, 0, "a11-c11");
    assert_eq!(g.removed(Colour::Blue, Rank::Brigade), 2);
    // Blue has no movable piece left: red wins by J16.
    assert_eq!(g.outcome().unwrap().rule, "J16");
    assert_eq!(g.outcome().unwrap().ranks, vec![0, 1]);
}

#[test]
fn j11_own_pieces_cannot_be_attacked() {
    let setup = JunqiSetup::new()
        .settled(Colour::Blue)
        .with(p("c6"), Colour::Blue, Rank::Commander, true)
        .with(p("c7"), Colour::Blue, Rank::Platoon, true)
        .with(p("e12"), Colour::Red, Rank::Platoon, true);
    let g = Junqi::from_setup(&setup).unwrap();
    let (_, e) = g
        .clone()
        .apply(0, &g.parse_action("c6-c7").unwrap(), &mut rng())
        .unwrap_err();
    assert_eq!(e.to_string(), "J11: c7 holds your own piece");
}
