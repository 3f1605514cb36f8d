//! The hot path of every move and every bot: the full legal-action list (wall legality is
//! Q15 for every pawn), one wall's check, and a whole random playout.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ludus_quoridor::{Quoridor, QuoridorAction, QuoridorOptions};
use ludus_rules::{Game, RandomSource, SplitMix64};

/// A mid-game position: from the start, random turns that place a wall half the time,
/// until `walls` walls stand (seeded, so always the same position).
fn midgame(size: u8, seats: usize, walls: usize, seed: u64) -> Quoridor {
    let options = QuoridorOptions {
        size,
        walls: ludus_quoridor::Walls::Fixed(20),
        first_seat: Some(0),
        ..QuoridorOptions::default()
    };
    let mut rng = SplitMix64(seed);
    let mut g = Quoridor::setup(options, seats, &mut rng).expect("setup");
    let mut placed = 0;
    while placed < walls {
        let seat = g.to_move().expect("not over");
        let acts = g.legal_actions(seat);
        let (w, m): (Vec<QuoridorAction>, Vec<QuoridorAction>) = acts
            .into_iter()
            .partition(|a| matches!(a, QuoridorAction::Wall(_)));
        let a = if rng.below(2) == 0 && !w.is_empty() {
            placed += 1;
            w[rng.below(w.len() as u32) as usize]
        } else {
            m[rng.below(m.len() as u32) as usize]
        };
        g = g.apply(seat, &a, &mut rng).expect("legal");
        if g.outcome().is_some() {
            panic!("the seed ends the game; pick another");
        }
    }
    g
}

fn bench(c: &mut Criterion) {
    let small = midgame(9, 2, 10, 3);
    let big = midgame(13, 8, 24, 5);
    for (name, g) in [
        ("9x9 2 pawns 10 walls", &small),
        ("13x13 8 pawns 24 walls", &big),
    ] {
        let seat = g.to_move().expect("turn");
        eprintln!("{name}: {} legal actions", g.legal_actions(seat).len());
    }

    let mut group = c.benchmark_group("legal_actions");
    for (name, g) in [("9x9_2p_midgame", &small), ("13x13_8p_midgame", &big)] {
        let seat = g.to_move().expect("turn");
        group.bench_function(name, |b| b.iter(|| black_box(g).legal_actions(seat)));
    }
    group.finish();

    let mut group = c.benchmark_group("apply_wall");
    for (name, g) in [("9x9_2p_midgame", &small), ("13x13_8p_midgame", &big)] {
        let seat = g.to_move().expect("turn");
        let wall = g
            .legal_actions(seat)
            .into_iter()
            .filter(|a| matches!(a, QuoridorAction::Wall(_)))
            .nth(40)
            .expect("a wall");
        group.bench_function(name, |b| {
            b.iter(|| {
                black_box(g.clone())
                    .apply(seat, &wall, &mut SplitMix64(0))
                    .expect("legal")
            })
        });
    }
    group.finish();

    c.bench_function("random_playout_9x9_2p", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            let mut rng = SplitMix64(seed);
            let mut g = Quoridor::setup(QuoridorOptions::default(), 2, &mut rng).expect("setup");
            while let Some(seat) = g.to_move() {
                let acts = g.legal_actions(seat);
                let a = acts[rng.below(acts.len() as u32) as usize];
                g = g.apply(seat, &a, &mut rng).expect("legal");
            }
            g.ply()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
