//! Generation of every distinct legal play of a roll (B5-B11): the opening position for each
//! of the 21 rolls, and a worst case — spread checkers with 1-1 / 2-2, where the number of
//! distinct plays is largest.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ludus_backgammon::board::Board;
use ludus_backgammon::play::{check_play, legal_plays};

/// White spread one checker a point over 4-18, black out of the way: no point is blocked,
/// every checker moves, and doubles make the most distinct plays.
fn spread() -> Board {
    let mut c = [[0u8; 25]; 2];
    for p in 4..=18 {
        c[0][p - 1] = 1;
    }
    c[1][0] = 15; // black's ace point = white's 24, behind every white checker
    Board::new(c).expect("valid board")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_plays");
    for a in 1..=6u8 {
        for b in 1..=a {
            group.bench_function(format!("opening/{a}-{b}"), |bench| {
                bench.iter(|| legal_plays(black_box(&Board::START), 0, black_box([a, b])))
            });
        }
    }
    let board = spread();
    for d in [1u8, 2, 3] {
        let n = legal_plays(&board, 0, [d, d]).plays.len();
        group.bench_function(format!("spread/{d}-{d} ({n} plays)"), |bench| {
            bench.iter(|| legal_plays(black_box(&board), 0, black_box([d, d])))
        });
    }
    group.finish();

    let legal = legal_plays(&board, 0, [1, 1]);
    let (play, _) = legal.plays.last().cloned().expect("plays");
    c.bench_function("check_play/spread 1-1", |bench| {
        bench.iter(|| check_play(black_box(&board), 0, [1, 1], black_box(&play), &legal))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
