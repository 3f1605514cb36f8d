//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used)]

use ludus_junqi::{Colour, Junqi, JunqiSetup, Point};
use ludus_rules::ScriptedRandom;

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
