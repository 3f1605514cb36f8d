//! Legal-action generation (J7-J15) on an opening and a midgame position, and one random
//! playout to the end.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ludus_junqi::{Junqi, JunqiOptions};
use ludus_rules::{Game, SplitMix64, random_actions};

/// A random playout from `seed`, stopped after `plies` actions (or at the end).
fn playout(seed: u64, plies: u32) -> Junqi {
    let mut rng = SplitMix64(seed);
    let g = Junqi::setup(JunqiOptions::default(), 2, &mut rng).expect("two seats");
    random_actions(g, plies, &mut rng).expect("legal")
}

/// A midgame: colours settled, most pieces flipped, moves with railway paths available.
fn midgame() -> Junqi {
    (0..1000)
        .map(|seed| playout(seed, 60))
        .find(|g| {
            g.to_move().is_some()
                && g.colour_of(0).is_some()
                && g.face_down_count() <= 20
                && g.legal_actions(g.to_move().unwrap_or(0)).len() > g.face_down_count() + 10
        })
        .expect("some seed reaches a midgame")
}

fn bench(c: &mut Criterion) {
    let opening = playout(1, 0);
    let seat = opening.to_move().unwrap_or(0);
    c.bench_function("legal_actions/opening", |b| {
        b.iter(|| black_box(&opening).legal_actions(seat))
    });
    let mid = midgame();
    let seat = mid.to_move().unwrap_or(0);
    println!(
        "midgame: {} face down, {} legal actions",
        mid.face_down_count(),
        mid.legal_actions(seat).len()
    );
    c.bench_function("legal_actions/midgame", |b| {
        b.iter(|| black_box(&mid).legal_actions(seat))
    });
    c.bench_function("choose_auto_action/midgame", |b| {
        let mut rng = SplitMix64(7);
        b.iter(|| black_box(&mid).choose_auto_action(&mut rng))
    });
    c.bench_function("playout/full_game", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            playout(seed, u32::MAX)
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
