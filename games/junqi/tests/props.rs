//! Property tests: random playouts never panic, always end, and only ever lose pieces.
// Helpers outside #[test] fns unwrap too: a failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

use ludus_junqi::{Action, Colour, Junqi, JunqiOptions, Rank};
use ludus_rules::{Game, RandomSource, SplitMix64, Viewer};
use proptest::prelude::*;

/// J17 bounds a game: at most 50 flips and 50 combats, each followed by at most 59 quiet
/// actions before the draw, so no game lasts longer than this.
const MAX_PLY: u32 = 101 * 60;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_playouts_end_and_pieces_only_decrease(seed in any::<u64>(), timeouts in 0u32..4) {
        let mut rng = SplitMix64(seed);
        let mut g = Junqi::setup(JunqiOptions::default(), 2, &mut rng).unwrap();
        let (mut pieces, mut hidden) = (g.piece_count(), g.face_down_count());
        while let Some(seat) = g.to_move() {
            prop_assert!(g.ply() < MAX_PLY, "the game must end");
            let actions = g.legal_actions(seat);
            prop_assert!(!actions.is_empty(), "J16: a player to move has an action");
            let other = 1 - seat;
            prop_assert!(g.legal_actions(other).is_empty());
            // Sometimes let the clock run out (J19) instead.
            g = if rng.below(16) < timeouts {
                let before = g.ply();
                let t = g.timeout(seat, &mut rng);
                prop_assert_eq!(t.ply(), before + 1);
                t
            } else {
                let a = actions[rng.below(actions.len() as u32) as usize];
                prop_assert_eq!(g.parse_action(&a.to_string()).unwrap(), a);
                if let Action::Move { from, to } = a {
                    prop_assert!(g.destinations(seat, from).contains(&to));
                }
                match g.apply(seat, &a, &mut rng) {
                    Ok(g) => g,
                    Err((_, e)) => return Err(TestCaseError::fail(format!("{a} refused: {e}"))),
                }
            };
            prop_assert!(g.piece_count() <= pieces, "pieces only decrease");
            prop_assert!(g.face_down_count() <= hidden, "nothing turns face down again");
            pieces = g.piece_count();
            hidden = g.face_down_count();
            // J21: statistics add up with the board, for every colour and rank.
            let v = g.view(Viewer::Spectator);
            for c in Colour::ALL {
                for r in Rank::ALL {
                    let up = v.points.iter().filter(|p| {
                        matches!(p, ludus_junqi::PointView::FaceUp(x) if x.colour == c && x.rank == r)
                    }).count() as u8;
                    let st = v.statistics;
                    prop_assert_eq!(up + st.removed[c.index()][r.index()] + st.face_down[c.index()][r.index()], r.count());
                }
            }
            let hidden_stats: usize = v.statistics.face_down.iter().flatten().map(|&n| n as usize).sum();
            prop_assert_eq!(hidden_stats, hidden);
        }
        let o = g.outcome().unwrap();
        prop_assert!(["J15", "J16", "J17"].contains(&o.rule.as_str()), "{}", o.rule);
        let json = serde_json::to_string(&g).unwrap();
        prop_assert_eq!(serde_json::from_str::<Junqi>(&json).unwrap(), g);
    }

    #[test]
    fn parse_action_never_panics(text in ".{0,12}") {
        let g = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(1)).unwrap();
        if let Ok(a) = g.parse_action(&text) {
            let seat = g.to_move().unwrap();
            let _ = g.apply(seat, &a, &mut SplitMix64(0));
        }
    }

    #[test]
    fn any_point_pair_is_handled(from in 0usize..60, to in 0usize..60, seed in any::<u64>()) {
        // Play a little so colours settle, then try an arbitrary move: accepted exactly when
        // it is listed as legal.
        let mut rng = SplitMix64(seed);
        let mut g = Junqi::setup(JunqiOptions::default(), 2, &mut rng).unwrap();
        for _ in 0..20 {
            if let Some(seat) = g.to_move() { g = g.timeout(seat, &mut rng); }
        }
        if let Some(seat) = g.to_move() {
            let a = Action::Move {
                from: ludus_junqi::Point::from_index(from).unwrap(),
                to: ludus_junqi::Point::from_index(to).unwrap(),
            };
            let legal = g.legal_actions(seat).contains(&a);
            prop_assert_eq!(g.apply(seat, &a, &mut rng).is_ok(), legal);
        }
    }
}
