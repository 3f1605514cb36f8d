//! Offline play: the games' own rules crates compiled to WebAssembly, so two people can play
//! on one device with no server at all. The web client loads this module (built with
//! `wasm-bindgen --target web`) and draws the same boards it draws for online games.
//!
//! Games: Caro and Mancala (Kalah), whose seeds allow taking moves back (C17, M11; here both
//! players sit at the same device, so either may take the last move back). Randomness (who
//! sows first in Mancala, M3) comes from the browser's CSPRNG: the page passes fresh values
//! from `crypto.getRandomValues` with every call.
//!
//! Views are handed over as JSON shaped like the gRPC contract's `CaroView` / `MancalaView`
//! (camelCase field names, enums as numbers), so the page's boards need no second format.

mod view;

use ludus_caro::{Caro, CaroOptions};
use ludus_mancala::{FirstPlayer, Mancala, MancalaOptions, RuleSet};
use ludus_rules::{Game, GameResult, RandomSource, Seat, SplitMix64, Viewer};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

/// Values from the browser's CSPRNG, used up in order with rejection sampling (no modulo
/// bias). Caro draws nothing and a Mancala setup one value, far fewer than the page passes;
/// should a call ever need more, the rest come from a generator seeded with the values seen.
struct BrowserRandom {
    values: Vec<u32>,
    next: usize,
    overflow: Option<SplitMix64>,
}

impl BrowserRandom {
    fn new(values: Vec<u32>) -> Self {
        BrowserRandom {
            values,
            next: 0,
            overflow: None,
        }
    }
}

impl RandomSource for BrowserRandom {
    fn below(&mut self, bound: u32) -> u32 {
        let bound = bound.max(1);
        // The largest multiple of `bound` that fits: values at or above it are redrawn.
        let zone = u32::MAX - (u32::MAX % bound);
        while let Some(&value) = self.values.get(self.next) {
            self.next += 1;
            if value < zone {
                return value % bound;
            }
        }
        let seed = self
            .values
            .iter()
            .fold(0x9E37_79B9_7F4A_7C15_u64, |acc, v| {
                acc.rotate_left(7) ^ u64::from(*v)
            });
        self.overflow.get_or_insert(SplitMix64(seed)).below(bound)
    }
}

/// One game and every position it went through (for taking moves back).
#[derive(Debug)]
struct History<G: Game> {
    positions: Vec<G>,
    notations: Vec<String>,
}

impl<G: Game> History<G> {
    fn new(game: G) -> Self {
        History {
            positions: vec![game],
            notations: Vec::new(),
        }
    }

    fn current(&self) -> &G {
        // `positions` is never empty: `take_back` keeps the first.
        &self.positions[self.positions.len() - 1]
    }

    /// Plays `notation` for the seat to move; the refusal starts with the rule id.
    fn play(&mut self, notation: &str, rng: &mut dyn RandomSource) -> Result<(), String> {
        let game = self.current().clone();
        let Some(seat) = game.to_move() else {
            return Err("the game is over: start a new one".to_owned());
        };
        let action = game.parse_action(notation).map_err(|e| e.to_string())?;
        let text = action.to_string();
        let next = game
            .apply(seat, &action, rng)
            .map_err(|(_, e)| e.to_string())?;
        self.positions.push(next);
        self.notations.push(text);
        Ok(())
    }

    fn take_back(&mut self) -> Result<(), String> {
        if self.positions.len() <= 1 {
            return Err("no move to take back".to_owned());
        }
        self.positions.pop();
        self.notations.pop();
        Ok(())
    }

    /// Who moved each action, in order (a Mancala extra turn keeps the seat).
    fn movers(&self) -> Vec<Option<Seat>> {
        self.positions[..self.positions.len() - 1]
            .iter()
            .map(Game::to_move)
            .collect()
    }
}

#[derive(Debug)]
enum Local {
    Caro(History<Caro>),
    Mancala(History<Mancala>),
}

/// A game two people play on this device.
#[wasm_bindgen]
#[derive(Debug)]
pub struct LocalGame {
    game: Local,
}

#[wasm_bindgen]
impl LocalGame {
    /// A new game of `kind` ("caro" or "mancala"); `random` holds fresh values from the
    /// browser's CSPRNG.
    #[wasm_bindgen(constructor)]
    pub fn new(kind: &str, random: Vec<u32>) -> Result<LocalGame, JsError> {
        let mut rng = BrowserRandom::new(random);
        let setup_error =
            |e: ludus_rules::SetupError| JsError::new(&format!("{}: {}", e.rule, e.message));
        let game = match kind {
            "caro" => Local::Caro(History::new(
                Caro::setup(CaroOptions::default(), 2, &mut rng).map_err(setup_error)?,
            )),
            "mancala" => Local::Mancala(History::new(
                Mancala::setup(
                    MancalaOptions {
                        rule_set: RuleSet::Kalah,
                        first: FirstPlayer::Random,
                    },
                    2,
                    &mut rng,
                )
                .map_err(setup_error)?,
            )),
            other => {
                return Err(JsError::new(&format!(
                    "{other:?} is not offered offline: caro or mancala"
                )));
            }
        };
        Ok(LocalGame { game })
    }

    /// Plays `notation` ("H8" in Caro, a pit "3" in Mancala) for the seat to move. A refusal
    /// is the rules' own message, rule id first ("C3: H8 is already taken").
    pub fn play(&mut self, notation: &str, random: Vec<u32>) -> Result<(), JsError> {
        let mut rng = BrowserRandom::new(random);
        let result = match &mut self.game {
            Local::Caro(history) => history.play(notation, &mut rng),
            Local::Mancala(history) => history.play(notation, &mut rng),
        };
        result.map_err(|message| JsError::new(&message))
    }

    /// Takes the last action back.
    #[wasm_bindgen(js_name = takeBack)]
    pub fn take_back(&mut self) -> Result<(), JsError> {
        let result = match &mut self.game {
            Local::Caro(history) => history.take_back(),
            Local::Mancala(history) => history.take_back(),
        };
        result.map_err(|message| JsError::new(&message))
    }

    /// The game now, as JSON: `{kind, toMove, moves: [{seat, notation}], outcome, view}`.
    pub fn state(&self) -> String {
        let state = match &self.game {
            Local::Caro(history) => summary(
                "caro",
                history,
                view::caro(&history.current().view(Viewer::Spectator)),
            ),
            Local::Mancala(history) => {
                let game = history.current();
                let seat = game.to_move().unwrap_or(0);
                summary(
                    "mancala",
                    history,
                    view::mancala(&game.view(Viewer::Seat(seat))),
                )
            }
        };
        state.to_string()
    }
}

fn summary<G: Game>(kind: &str, history: &History<G>, view: Value) -> Value {
    let game = history.current();
    let moves: Vec<Value> = history
        .movers()
        .into_iter()
        .zip(&history.notations)
        .map(|(seat, notation)| json!({ "seat": seat, "notation": notation }))
        .collect();
    let outcome = game.outcome().map(|o| {
        let (kind, winners) = match &o.result {
            GameResult::Win { winners } => (1, winners.clone()),
            GameResult::Draw => (2, Vec::new()),
            GameResult::Cancelled => (3, Vec::new()),
        };
        json!({ "kind": kind, "winners": winners, "rule": o.rule, "reason": o.reason })
    });
    json!({
        "kind": kind,
        "toMove": game.to_move(),
        "moves": moves,
        "outcome": outcome,
        "view": view,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(game: &LocalGame) -> Value {
        serde_json::from_str(&game.state()).expect("json")
    }

    fn caro() -> LocalGame {
        LocalGame {
            game: Local::Caro(History::new(
                Caro::setup(CaroOptions::default(), 2, &mut BrowserRandom::new(vec![]))
                    .expect("setup"),
            )),
        }
    }

    fn play(game: &mut LocalGame, notation: &str) -> Result<(), String> {
        match &mut game.game {
            Local::Caro(h) => h.play(notation, &mut BrowserRandom::new(vec![7; 8])),
            Local::Mancala(h) => h.play(notation, &mut BrowserRandom::new(vec![7; 8])),
        }
    }

    #[test]
    fn caro_refusals_name_their_rule_and_take_back_restores_the_position() {
        let mut game = caro();
        play(&mut game, "H8").expect("X plays");
        let refused = play(&mut game, "H8").expect_err("occupied");
        assert!(refused.starts_with("C3: "), "{refused}");
        assert_eq!(state(&game)["moves"].as_array().map(Vec::len), Some(1));
        play(&mut game, "A1").expect("O plays");
        assert_eq!(state(&game)["toMove"], json!(0));
        match &mut game.game {
            Local::Caro(h) => h.take_back().expect("take back"),
            Local::Mancala(_) => unreachable!(),
        }
        let after = state(&game);
        assert_eq!(after["toMove"], json!(1), "O to move again");
        assert_eq!(after["moves"], json!([{ "seat": 0, "notation": "H8" }]));
        // Row-major from the top: H8 is column 7, row 7 (C1).
        assert_eq!(after["view"]["cells"][7 * 15 + 7], json!(1));
        assert_eq!(after["view"]["cells"][0], json!(0));
    }

    #[test]
    fn caro_five_in_a_row_wins_offline_too() {
        let mut game = caro();
        for (x, o) in [("D8", "A1"), ("E8", "C1"), ("F8", "E1"), ("G8", "G1")] {
            play(&mut game, x).expect("x");
            play(&mut game, o).expect("o");
        }
        play(&mut game, "H8").expect("the winning move");
        let end = state(&game);
        assert_eq!(end["outcome"]["rule"], json!("C7"));
        assert_eq!(end["outcome"]["winners"], json!([0]));
        assert_eq!(end["toMove"], Value::Null);
        assert_eq!(end["view"]["winningLine"].as_array().map(Vec::len), Some(5));
        assert!(play(&mut game, "J9").is_err(), "nothing after the end");
    }

    #[test]
    fn mancala_sows_from_the_seat_to_move_and_takes_back() {
        let mut game = LocalGame {
            game: Local::Mancala(History::new(
                Mancala::setup(
                    MancalaOptions {
                        rule_set: RuleSet::Kalah,
                        first: FirstPlayer::Seat0,
                    },
                    2,
                    &mut BrowserRandom::new(vec![]),
                )
                .expect("setup"),
            )),
        };
        // Pit 3 holds 4 seeds: the last lands in seat 0's store, an extra turn (M5).
        play(&mut game, "3").expect("sow");
        let s = state(&game);
        assert_eq!(s["toMove"], json!(0), "M5: the same seat sows again");
        assert_eq!(s["view"]["sides"][0]["store"], json!(1));
        assert_eq!(s["view"]["lastSow"]["lastSeed"]["kind"], json!(1));
        assert!(play(&mut game, "9").expect_err("no pit 9").starts_with('M'));
        match &mut game.game {
            Local::Mancala(h) => h.take_back().expect("take back"),
            Local::Caro(_) => unreachable!(),
        }
        assert_eq!(state(&game)["view"]["sides"][0]["store"], json!(0));
    }

    #[test]
    fn browser_randomness_is_used_without_modulo_bias() {
        // For bound 2 the accepted zone is 0..u32::MAX: u32::MAX itself is redrawn.
        let mut rng = BrowserRandom::new(vec![u32::MAX, 5]);
        assert_eq!(rng.below(2), 1, "u32::MAX rejected for bound 2, then 5 % 2");
        let mut rng = BrowserRandom::new(vec![4]);
        assert_eq!(rng.below(3), 1);
        // Exhausted: still in range.
        assert!(rng.below(6) < 6);
    }
}
