//! Setup, turns, colours and the end of the game: J6-J8, J16-J19.
// Helpers outside #[test] fns unwrap too: a failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod common;

use common::{p, play, red_to_move, refuse, rng};
use ludus_junqi::{Action, Colour, Event, Junqi, JunqiOptions, JunqiSetup, Piece, Point, Rank};
use ludus_rules::{Game, GameResult, RuleViolation, ScriptedRandom, SplitMix64, Viewer};

#[test]
fn j6_setup_shuffles_fifty_face_down_pieces_onto_the_posts() {
    let g = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(1)).unwrap();
    let mut counts = [[0u8; 12]; 2];
    for q in Point::all() {
        match g.cell(q) {
            Some(c) => {
                assert!(!q.is_camp(), "J6: camps start empty");
                assert!(!c.face_up, "J6: all face down");
                counts[c.piece.colour.index()][c.piece.rank.index()] += 1;
            }
            None => assert!(q.is_camp(), "J6: every post holds a piece"),
        }
    }
    for c in Colour::ALL {
        for r in Rank::ALL {
            assert_eq!(counts[c.index()][r.index()], r.count(), "J1: {c} {r}");
        }
    }
    assert_eq!(g.piece_count(), 50);
    assert_eq!(g.ply(), 0);
    assert!(g.outcome().is_none());
}

#[test]
fn j6_the_shuffle_is_fisher_yates_drawing_from_the_source() {
    // A source that always answers 0 makes Fisher-Yates rotate the list by one: the second
    // piece of the sorted list (red corps commander) lands on the first post (a12) and the
    // first (red commander) on the last post (e1); blue's flag, last in the list, lands on
    // the post before (d1). The last draw (0) puts seat 0 first.
    let g = Junqi::setup(
        JunqiOptions::default(),
        2,
        &mut ScriptedRandom::new(vec![0]),
    )
    .unwrap();
    let at = |s: &str| g.cell(p(s)).unwrap().piece;
    assert_eq!(at("a12"), Piece::new(Colour::Red, Rank::CorpsCommander));
    assert_eq!(at("e1"), Piece::new(Colour::Red, Rank::Commander));
    assert_eq!(at("d1"), Piece::new(Colour::Blue, Rank::Flag));
    assert_eq!(g.to_move(), Some(0));
    // J6: who moves first is random: both seats happen.
    let firsts: std::collections::HashSet<_> = (0..16)
        .map(|s| {
            Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(s))
                .unwrap()
                .to_move()
        })
        .collect();
    assert_eq!(firsts.len(), 2);
    // Different sources, different layouts.
    let a = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(1)).unwrap();
    let b = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(2)).unwrap();
    assert_ne!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}

#[test]
fn j1_two_players_only() {
    for seats in [0, 1, 3] {
        let e = Junqi::setup(JunqiOptions::default(), seats, &mut rng()).unwrap_err();
        assert_eq!(e.rule, "J1");
    }
}

/// An unsettled position: face-down red pieces on a6, a7, c11 and blue ones on e6, e7, c2.
/// Seat 0 to move.
fn unsettled() -> JunqiSetup {
    JunqiSetup::new()
        .with(p("a6"), Colour::Red, Rank::Brigade, false)
        .with(p("a7"), Colour::Red, Rank::Company, false)
        .with(p("c11"), Colour::Red, Rank::Platoon, false)
        .with(p("e6"), Colour::Blue, Rank::Brigade, false)
        .with(p("e7"), Colour::Blue, Rank::Company, false)
        .with(p("c2"), Colour::Blue, Rank::Platoon, false)
}

#[test]
fn j8_two_consecutive_flips_of_one_colour_settle_colours() {
    let g = Junqi::from_setup(&unsettled()).unwrap();
    let g = play(g, 0, "a6"); // red
    let g = play(g, 1, "e6"); // blue
    assert_eq!(g.colour_of(0), None);
    // J8: before settlement, only flips.
    assert_eq!(
        refuse(&g, 0, "a6-b6"),
        "J8: colours are not settled yet, so you can only flip"
    );
    let g = play(g, 0, "a7"); // red again: seat 0 takes red
    assert_eq!(g.colour_of(0), Some(Colour::Red));
    assert_eq!(g.colour_of(1), Some(Colour::Blue));
    assert_eq!(g.seat_of(Colour::Blue), Some(1));
    // Now seat 1 may move its blue brigade.
    let g = play(g, 1, "e6-d6");
    assert_eq!(g.quiet_actions(), 1);
}

#[test]
fn j8_the_opponent_can_settle_with_the_other_colour() {
    let g = Junqi::from_setup(&unsettled()).unwrap();
    let g = play(g, 0, "a6"); // red
    let g = play(g, 1, "a7"); // red
    let g = play(g, 0, "e6"); // blue: seat 0 flipped red then blue, nothing settled
    assert_eq!(g.colour_of(0), None);
    let g = play(g, 1, "c11"); // red again for seat 1: seat 1 takes red
    assert_eq!(g.colour_of(1), Some(Colour::Red));
    assert_eq!(g.colour_of(0), Some(Colour::Blue));
}

#[test]
fn j8_all_face_up_and_unsettled_the_player_to_move_takes_their_last_flip() {
    // Two pieces left face down; seat 0 last flipped red, seat 1 blue.
    let setup = JunqiSetup::new()
        .with(p("a6"), Colour::Red, Rank::Brigade, true)
        .with(p("e6"), Colour::Blue, Rank::Brigade, true)
        .with(p("a7"), Colour::Blue, Rank::Company, false)
        .with(p("e7"), Colour::Red, Rank::Company, false)
        .last_flips([Some(Colour::Red), Some(Colour::Blue)]);
    let g = Junqi::from_setup(&setup).unwrap();
    let g = play(g, 0, "a7"); // blue: no settlement (last was red)
    let g = play(g, 1, "e7"); // red: no settlement (last was blue); nothing face down now
    assert_eq!(g.face_down_count(), 0);
    // Seat 0 is to move and last flipped blue: seat 0 takes blue.
    assert_eq!(g.colour_of(0), Some(Colour::Blue));
    assert_eq!(g.to_move(), Some(0));
    let g = play(g, 0, "e6-d6");
    assert_eq!(
        g.last_action_event(),
        Some(Event::Moved(Piece::new(Colour::Blue, Rank::Brigade)))
    );
}

trait LastEvent {
    fn last_action_event(&self) -> Option<Event>;
}

impl LastEvent for Junqi {
    fn last_action_event(&self) -> Option<Event> {
        self.view(Viewer::Spectator).last_action.map(|l| l.event)
    }
}

#[test]
fn j8_all_face_up_with_no_flip_history_is_refused() {
    let setup = JunqiSetup::new()
        .with(p("a6"), Colour::Red, Rank::Brigade, true)
        .with(p("e6"), Colour::Blue, Rank::Brigade, true);
    assert_eq!(Junqi::from_setup(&setup).unwrap_err().rule, "J8");
}

#[test]
fn from_setup_checks_its_description() {
    let two_commanders = JunqiSetup::new()
        .with(p("a6"), Colour::Red, Rank::Commander, true)
        .with(p("a7"), Colour::Red, Rank::Commander, true)
        .settled(Colour::Red);
    assert_eq!(Junqi::from_setup(&two_commanders).unwrap_err().rule, "J1");
    let face_down_in_camp = JunqiSetup::new().with(p("b10"), Colour::Red, Rank::Mine, false);
    assert_eq!(
        Junqi::from_setup(&face_down_in_camp).unwrap_err().rule,
        "J6"
    );
    let twice = JunqiSetup::new()
        .with(p("a6"), Colour::Red, Rank::Company, false)
        .with(p("a6"), Colour::Blue, Rank::Company, false);
    assert_eq!(Junqi::from_setup(&twice).unwrap_err().rule, "J2");
    assert_eq!(
        Junqi::from_setup(&unsettled().quiet(60)).unwrap_err().rule,
        "J17"
    );
    assert_eq!(
        Junqi::from_setup(&unsettled().to_move(2)).unwrap_err().rule,
        "J7"
    );
    assert!(JunqiSetup::from_diagram("..").is_err());
}

/// Red commander on c6 and blue commander on c7's far side: both shuffle quietly.
fn quiet_board() -> JunqiSetup {
    JunqiSetup::from_diagram(
        "..  ..  ..  ..  Bc
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         Rc  ..  ..  ..  ..",
    )
    .unwrap()
    .settled(Colour::Red)
}

#[test]
fn j17_sixty_quiet_actions_draw() {
    let mut g = Junqi::from_setup(&quiet_board()).unwrap();
    let red = ["a1-b1", "b1-a1"];
    let blue = ["e12-d12", "d12-e12"];
    for i in 0..60 {
        assert!(g.outcome().is_none(), "not drawn after {i}");
        let seat = i % 2;
        let mv = if seat == 0 {
            red[(i / 2) % 2]
        } else {
            blue[(i / 2) % 2]
        };
        g = play(g, seat, mv);
        assert_eq!(g.quiet_actions() as usize, i + 1);
    }
    let o = g.outcome().unwrap();
    assert_eq!((o.rule.as_str(), &o.result), ("J17", &GameResult::Draw));
    assert_eq!(o.reason, "60 actions in a row without a flip or combat");
    assert_eq!(g.ply(), 60);
}

#[test]
fn j17_a_flip_or_a_combat_resets_the_counter() {
    // A flip.
    let setup = quiet_board()
        .with(p("c6"), Colour::Blue, Rank::Mine, false)
        .quiet(59);
    let g = Junqi::from_setup(&setup).unwrap();
    let g = play(g, 0, "c6");
    assert_eq!(g.quiet_actions(), 0);
    assert!(g.outcome().is_none());
    // A combat: the red commander takes a blue platoon on b1.
    let setup = quiet_board()
        .with(p("b1"), Colour::Blue, Rank::Platoon, true)
        .quiet(59);
    let g = Junqi::from_setup(&setup).unwrap();
    let g = play(g, 0, "a1-b1");
    assert_eq!(g.quiet_actions(), 0);
    assert!(g.outcome().is_none());
    // A quiet move at 59 draws.
    let g = Junqi::from_setup(&quiet_board().quiet(59)).unwrap();
    assert_eq!(play(g, 0, "a1-b1").outcome().unwrap().rule, "J17");
}

#[test]
fn j16_no_movable_piece_left_loses_and_both_none_draws() {
    // Red bomb on c6 meets the last blue movable piece on c7: both removed, only mines and
    // flags remain on both sides: a draw.
    let g = red_to_move(
        "..  Bf  ..  Bm  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  Bg  ..  ..
         ..  ..  Rb  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  Rf  ..  Rm  ..",
    );
    let g = play(g, 0, "c6-c7");
    let o = g.outcome().unwrap();
    assert_eq!((o.rule.as_str(), &o.result), ("J16", &GameResult::Draw));
    assert_eq!(o.reason, "neither side has a movable piece left");
    // A face-down movable piece still counts (J16 [decided]): no end while one is hidden.
    let setup = JunqiSetup::from_diagram(
        "..  Bf  ..  Bm  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  Bg  ..  ..
         ..  ..  Rb  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  Rf  ..  Rm  be",
    )
    .unwrap()
    .settled(Colour::Red);
    let g = play(Junqi::from_setup(&setup).unwrap(), 0, "c6-c7");
    let o = g.outcome().unwrap();
    assert_eq!(
        o.ranks,
        vec![1, 0],
        "blue's hidden engineer is movable; red has none"
    );
    assert_eq!(o.reason, "red has no movable piece left");
}

#[test]
fn j16_no_legal_action_on_your_turn_loses() {
    // Blue's platoon on a12 is shut in by its own mine (a11) and flag (b12).
    let g = red_to_move(
        "Bp  Bf  ..  ..  ..
         Bm  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         Rc  ..  ..  ..  ..",
    );
    assert!(g.outcome().is_none());
    let g = play(g, 0, "a1-b1");
    let o = g.outcome().unwrap();
    assert_eq!(o.rule, "J16");
    assert_eq!(o.ranks, vec![0, 1]);
    assert_eq!(o.reason, "blue has no legal action");
    assert_eq!(refuse(&g, 1, "a12-a11"), "J16: the game is over");
}

#[test]
fn j18_resigning_loses_at_any_time_and_draws_may_be_agreed() {
    let g = Junqi::from_setup(&quiet_board()).unwrap();
    // Blue resigns on red's turn.
    let r = g.clone().resign(1);
    let o = r.outcome().unwrap();
    assert_eq!((o.rule.as_str(), o.ranks.clone()), ("J18", vec![0, 1]));
    assert_eq!(o.reason, "blue resigned");
    assert_eq!(
        r.clone().resign(0).outcome(),
        r.outcome(),
        "nothing changes once over"
    );
    assert_eq!(r.to_move(), None);
    assert!(r.legal_actions(0).is_empty());
    // Before colours are settled the seat is named.
    let u = Junqi::from_setup(&unsettled()).unwrap().resign(0);
    assert_eq!(u.outcome().unwrap().reason, "the player in seat 0 resigned");
    // [decided] draws by agreement are allowed.
    let d = g.agree_draw().unwrap();
    assert_eq!(d.outcome().unwrap().result, GameResult::Draw);
    assert_eq!(
        d.outcome().unwrap().rule,
        "LJ1",
        "ours: the rule file is silent"
    );
    assert_eq!(d.agree_draw().unwrap_err().1.rule(), "J16");
}

#[test]
fn j19_timeout_plays_a_capture_and_turns_autoplay_on() {
    // Red commander on a1 can take the blue platoon on b1 or make several quiet moves.
    let setup = quiet_board().with(p("b1"), Colour::Blue, Rank::Platoon, true);
    let g = Junqi::from_setup(&setup).unwrap();
    for seed in 0..8 {
        let before = g.clone();
        let chosen = g.choose_auto_action(&mut SplitMix64(seed));
        assert_eq!(g, before, "choosing is pure");
        assert_eq!(
            chosen,
            Some(g.parse_action("a1-b1").unwrap()),
            "J19: a capture first"
        );
    }
    // Timing out the wrong seat changes nothing.
    assert_eq!(g.clone().timeout(1, &mut SplitMix64(0)), g);
    let t = g.timeout(0, &mut SplitMix64(0));
    assert!(t.autoplay(0) && !t.autoplay(1));
    assert_eq!(t.ply(), 1);
    let last = t.view(Viewer::Spectator).last_action.unwrap();
    assert!(last.automatic);
    assert_eq!(last.action.to_string(), "a1-b1");
    // Blue moves; then the server plays red's autoplay turn, autoplay stays on.
    let t = play(t, 1, "e12-d12");
    let t = t.autoplay_turn(&mut SplitMix64(3));
    assert_eq!(t.ply(), 3);
    assert!(t.autoplay(0));
    // autoplay_turn does nothing for a seat without autoplay (blue).
    assert_eq!(t.clone().autoplay_turn(&mut SplitMix64(3)), t);
    // Red acting itself ends autoplay.
    let t = play(t, 1, "d12-e12");
    let red_move = t.legal_actions(0)[0];
    let t = t.apply(0, &red_move, &mut rng()).unwrap();
    assert!(!t.autoplay(0));
    // Switching it off explicitly works too.
    assert!(!t.with_autoplay(1, true).with_autoplay(1, false).autoplay(1));
}

#[test]
fn j19_timeout_before_settlement_flips() {
    let g = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(9)).unwrap();
    let seat = g.to_move().unwrap();
    let t = g.timeout(seat, &mut SplitMix64(4));
    assert!(matches!(
        t.view(Viewer::Spectator).last_action.unwrap().action,
        Action::Flip(_)
    ));
    assert_eq!(t.face_down_count(), 49);
    assert!(t.autoplay(seat));
}

#[test]
fn notation_round_trips_and_never_panics() {
    let g = Junqi::from_setup(&quiet_board()).unwrap();
    for a in g.legal_actions(0) {
        assert_eq!(g.parse_action(&a.to_string()).unwrap(), a);
    }
    assert_eq!(g.parse_action(" c6 - c7 ").unwrap().to_string(), "c6-c7");
    for bad in [
        "", "-", "c6-", "-c7", "c6-c7-c8", "z9", "c13", "c6c7", "🎲", "c6--c7",
    ] {
        let e = g.parse_action(bad).unwrap_err();
        assert_eq!(e.rule(), "J2", "{bad}");
    }
    let long = "x".repeat(10_000);
    assert!(g.parse_action(&long).unwrap_err().to_string().len() < 120);
}

#[test]
fn state_round_trips_through_json_and_rejects_corrupt_records() {
    let g = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(5)).unwrap();
    let seat = g.to_move().unwrap();
    let g = g.timeout(seat, &mut SplitMix64(1));
    let json = serde_json::to_string(&g).unwrap();
    assert!(json.len() < 600, "compact: {} bytes", json.len());
    let back: Junqi = serde_json::from_str(&json).unwrap();
    assert_eq!(back, g);
    let bad_seat = json
        .replace("\"to_move\":0", "\"to_move\":7")
        .replace("\"to_move\":1", "\"to_move\":7");
    assert!(serde_json::from_str::<Junqi>(&bad_seat).is_err());
    let bad_board = json.replacen("\"board\":\"", "\"board\":\"..", 1);
    assert!(serde_json::from_str::<Junqi>(&bad_board).is_err());
}
