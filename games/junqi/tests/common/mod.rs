//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used)]

use ludus_junqi::{Colour, Junqi, JunqiSetup, Piece, Point, Rank};
use ludus_rules::ScriptedRandom;
use ludus_rules::{RandomSource, SplitMix64};

pub fn p(s: &str) -> Point {
    s.parse().unwrap()
}

pub fn rng() -> ScriptedRandom {
    ScriptedRandom::new(vec![0])
}

/// A game from a diagram, seat 0 plays red and moves first.
pub fn red_to_move(diagram: &str) -> Junqi {
    let setup = JunqiSetup::from_diagram(diagram)
        .unwrap()
        .settled(Colour::Red);
    Junqi::from_setup(&setup).unwrap()
}

/// Names of the destinations, sorted.
pub fn dests(g: &Junqi, seat: usize, from: &str) -> Vec<String> {
    let mut v: Vec<String> = g
        .destinations(seat, p(from))
        .iter()
        .map(|q| q.to_string())
        .collect();
    v.sort();
    v
}

pub fn names(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Plays `text` for `seat`, which must be legal.
pub fn play(g: Junqi, seat: usize, text: &str) -> Junqi {
    use ludus_rules::Game;
    let a = g.parse_action(text).unwrap();
    match g.apply(seat, &a, &mut rng()) {
        Ok(g) => g,
        Err((_, e)) => panic!("{text}: {e}"),
    }
}

/// Tries `text` for `seat`, which must be refused; returns the message.
pub fn refuse(g: &Junqi, seat: usize, text: &str) -> String {
    use ludus_rules::Game;
    let a = g.parse_action(text).unwrap();
    match g.clone().apply(seat, &a, &mut rng()) {
        Ok(_) => panic!("{text} was accepted"),
        Err((back, e)) => {
            assert_eq!(&back, g);
            e.to_string()
        }
    }
}

/// A full 50-piece position: c6 holds a red brigade, c7 a blue company and a6 a red
/// platoon, all face down; the other 47 pieces are shuffled onto the other posts with
/// `seed`, so two seeds give two hidden layouts that agree on everything public.
pub fn layout(seed: u64) -> Junqi {
    let known = [
        ("c6", Piece::new(Colour::Red, Rank::Brigade)),
        ("c7", Piece::new(Colour::Blue, Rank::Company)),
        ("a6", Piece::new(Colour::Red, Rank::Platoon)),
    ];
    let mut rest: Vec<Piece> = Colour::ALL
        .into_iter()
        .flat_map(|c| {
            Rank::ALL
                .into_iter()
                .flat_map(move |r| vec![Piece::new(c, r); r.count() as usize])
        })
        .collect();
    for (_, k) in known {
        let i = rest.iter().position(|&x| x == k).unwrap();
        rest.remove(i);
    }
    let mut rng = SplitMix64(seed);
    for i in (1..rest.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        rest.swap(i, j);
    }
    let mut s = JunqiSetup::new();
    for (q, k) in known {
        s = s.with(p(q), k.colour, k.rank, false);
    }
    let posts = Point::all().filter(|q| !q.is_camp() && !known.iter().any(|(k, _)| p(k) == *q));
    for (q, k) in posts.zip(rest) {
        s = s.with(q, k.colour, k.rank, false);
    }
    Junqi::from_setup(&s).unwrap()
}

/// The public history of the J22 proofs: two flips settle nothing, a third settles seat 0 as red,
/// then a move each.
pub fn history(g: Junqi) -> Junqi {
    let g = play(g, 0, "c6"); // red brigade
    let g = play(g, 1, "c7"); // blue company
    let g = play(g, 0, "a6"); // red platoon: seat 0 takes red
    let g = play(g, 1, "c7-b8"); // blue company steps diagonally into the camp b8
    play(g, 0, "c6-c7")
}
