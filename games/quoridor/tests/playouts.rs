//! Property tests: random playouts on every board size, seat count and mode never panic,
//! keep every pawn's path to its goal (Q15), never spend walls that are not there (Q16),
//! agree with `apply` about which walls are legal, and always end (Q17, Q18, Q34).

mod common;

use common::options;
use ludus_quoridor::{
    Orientation, Quoridor, QuoridorAction, QuoridorOptions, SIZES, Wall, move_limit,
};
use ludus_rules::{Game, RandomSource, SplitMix64, Viewer};
use proptest::prelude::*;

/// Every wall slot and pass: `apply` accepts exactly the ones `legal_actions` lists.
fn walls_agree(g: &Quoridor, seat: usize) {
    let legal = g.legal_actions(seat);
    let pass_ok = g
        .clone()
        .apply(seat, &QuoridorAction::Pass, &mut SplitMix64(0))
        .is_ok();
    assert_eq!(pass_ok, legal.contains(&QuoridorAction::Pass), "pass");
    let n = g.options().size;
    for o in [Orientation::Horizontal, Orientation::Vertical] {
        for r in 0..n - 1 {
            for c in 0..n - 1 {
                let w = Wall::from_center(n, r, c, o).expect("slot");
                let a = QuoridorAction::Wall(w);
                let accepted = g.clone().apply(seat, &a, &mut SplitMix64(0)).is_ok();
                assert_eq!(accepted, legal.contains(&a), "wall {w}");
            }
        }
    }
}

fn greedy_move(g: &Quoridor, seat: usize, moves: &[QuoridorAction]) -> Option<QuoridorAction> {
    let side = g.side_of(seat)?;
    moves.iter().copied().min_by_key(|a| {
        g.clone()
            .apply(seat, a, &mut SplitMix64(0))
            .ok()
            .map_or(u32::MAX, |h| {
                if h.outcome().is_some() {
                    0
                } else {
                    h.distance(side).unwrap_or(u32::MAX)
                }
            })
    })
}

fn playout(options: QuoridorOptions, seats: usize, seed: u64, check_every: u32) {
    let mut rng = SplitMix64(seed);
    let mut g = Quoridor::setup(options, seats, &mut rng).expect("setup");
    let sides = g.sides();
    let stock: u32 = (0..sides)
        .map(|q| u32::from(g.walls_left(q).unwrap_or(0)))
        .sum();
    let bound = move_limit(g.options().size) * sides as u32 + sides as u32;
    for _ in 0..=bound {
        if g.outcome().is_some() {
            break;
        }
        let v = g.view(Viewer::Spectator);
        // Q15: every pawn in the game has a path; Q16: walls are conserved.
        for p in &v.pawns {
            assert_eq!(p.distance.is_some(), p.in_game, "{p:?}");
        }
        let left: u32 = v.pawns.iter().map(|p| u32::from(p.walls_left)).sum();
        assert_eq!(left + v.walls.len() as u32, stock);
        let seat = g.to_move().expect("a turn while not over");
        if check_every > 0 && g.ply().is_multiple_of(check_every) {
            walls_agree(&g, seat);
        }
        match rng.below(100) {
            0..=2 => {
                g = g.timeout(seat, &mut rng);
                continue;
            }
            3 => {
                let who = rng.below(seats as u32) as usize;
                g = g.resign(who);
                continue;
            }
            _ => {}
        }
        let acts = g.legal_actions(seat);
        assert!(!acts.is_empty(), "no action for seat {seat}");
        let moves: Vec<QuoridorAction> = acts
            .iter()
            .copied()
            .filter(|a| matches!(a, QuoridorAction::Move(_)))
            .collect();
        let a = match rng.below(3) {
            0 if !moves.is_empty() => greedy_move(&g, seat, &moves).expect("move"),
            1 if !moves.is_empty() => moves[rng.below(moves.len() as u32) as usize],
            _ => acts[rng.below(acts.len() as u32) as usize],
        };
        // Off-list actions are refused and change nothing.
        let odd = QuoridorAction::Move(ludus_quoridor::Cell::new(
            rng.below(14) as u8,
            rng.below(14) as u8,
        ));
        if !acts.contains(&odd) {
            let before = g.ply();
            g = match g.apply(seat, &odd, &mut rng) {
                Ok(_) => panic!("{odd} accepted but not listed"),
                Err((g, _)) => g,
            };
            assert_eq!(g.ply(), before);
        }
        g = match g.apply(seat, &a, &mut rng) {
            Ok(g) => g,
            Err((_, e)) => panic!("listed action {a} refused: {e}"),
        };
    }
    let o = g.outcome().expect("the game always ends (Q17, Q18, Q34)");
    assert_eq!(o.ranks.len(), seats);
    assert_eq!(o.points.len(), seats);
    let json = serde_json::to_string(&g).expect("json");
    let back: Quoridor = serde_json::from_str(&json).expect("back");
    assert_eq!(back.view(Viewer::Spectator), g.view(Viewer::Spectator));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_playouts_end_and_keep_invariants(
        seed in any::<u64>(),
        size in 0..3usize,
        seats in 2..=8usize,
        mode in 0..3usize,
        center in any::<bool>(),
        walls in 0..3usize,
    ) {
        let (o, seats) = options(SIZES[size], seats, mode, center, walls, seed);
        playout(o, seats, seed, 29);
    }

    #[test]
    fn any_text_is_parsed_or_refused_without_panic(
        text in "\\PC{0,12}",
        near in "[a-oA-O][0-9]{1,3}[hvHV]?",
        seat in 0..3usize,
    ) {
        let g = Quoridor::setup(QuoridorOptions::default(), 2, &mut SplitMix64(1)).expect("setup");
        for t in [text, near] {
            if let Ok(a) = g.parse_action(&t) {
                let _ = g.clone().apply(seat, &a, &mut SplitMix64(0));
            }
        }
    }

    #[test]
    fn legal_walls_agree_with_apply_on_9x9(seed in any::<u64>(), seats in 2..=4usize) {
        let (o, seats) = options(9, seats, 0, seed & 1 == 1, 2, seed);
        playout(o, seats, seed, 7);
    }
}

#[test]
fn every_size_and_seat_count_plays_out() {
    for size in SIZES {
        for seats in 2..=8 {
            let (o, seats) = options(size, seats, 0, seats % 2 == 0, 0, seats as u64);
            playout(o, seats, 1000 + seats as u64, 0);
        }
    }
}
