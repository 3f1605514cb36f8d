//! Offline play: the games' own rules crates compiled to WebAssembly, so a game needs no
//! server at all. The web client loads this module (built with `wasm-bindgen --target web`)
//! and draws the same boards it draws for online games.
//!
//! All five games, two ways: two people on one device, or one person against the game
//! crate's own computer player (`ludus_rules::Bot`, Easy/Normal/Hard), which the page runs in
//! a Web Worker through [`think`] so the page never freezes while it searches. Taking moves
//! back is offered only where a seed allows it: against the computer in Caro at Easy and
//! Medium (C17) and in Mancala (M11); never between people (C15 says so for Caro; no other
//! seed grants it, and in Backgammon and Flip Junqi it would replay dice or hide a piece
//! already seen).
//!
//! Randomness (who sows first, M3; the dice, B4; the deal, J3) comes from the browser's
//! CSPRNG: the page passes fresh values from `crypto.getRandomValues` with every call.
//!
//! The position reaches the page as the server's own answer: a `ludus.v1.GameSnapshot`,
//! prost-encoded, whose view, legal actions and outcome are mapped by `ludus-catalog`'s
//! [`Hosting`] impls (the very code game-state runs), so the page decodes one format online
//! and offline. What only a device has (who sits at it, the moves so far, taking back) comes
//! beside it as JSON ([`LocalGame::state`]).

use ludus_backgammon::{BackgammonOptions, BackgammonSession};
use ludus_caro::{Caro, CaroOptions};
use ludus_catalog::bots::{choose as bot_choose, default_work};
use ludus_catalog::{GameKind, SeatPosition, outcome_to_pb, seat_u32};
use ludus_junqi::{Junqi, JunqiOptions};
use ludus_mancala::{EndgameDb, FirstPlayer, Mancala, MancalaOptions, RuleSet};
use ludus_proto::pb;
use ludus_quoridor::{Quoridor, QuoridorOptions};
use ludus_rules::{Budget, Game, Level, RandomSource, Seat, SetupError, SplitMix64, Think, Viewer};
use prost::Message;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

/// The seed count of the Kalah endgame database Mancala Hard uses in a browser. The server's
/// 16 seeds (30.4 million positions) took 43.8 s to build in WebAssembly on V8 here, before
/// the first Hard move; 12 seeds (2.7 million positions, 2.6 MiB) took 2.3 s (1.3-3.2 s in a
/// Chromium tab), and Hard's exact solve and search still end on it (ARCHITECTURE.md, "The
/// browser path", has the figures).
pub const BROWSER_DB_SEEDS: u32 = 12;

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

/// What the page needs of each game beyond the rules and their mapping to the contract
/// ([`Hosting`], whose `KIND` is the page's name for the game).
/// [`SeatPosition`]: the computer decides from what its seat may know, as the server's bots
/// do (J22: a Junqi seat's view, never the face-down layout).
trait Offline: SeatPosition {
    /// A new two-seat game with the options the page's quick matches use.
    fn start(rng: &mut dyn RandomSource) -> Result<Self, SetupError>;

    /// Whether the human may take moves back against the computer at `level`.
    fn take_back_allowed(_level: Level) -> bool {
        false
    }
}

/// An [`Offline`] impl: the options the page's quick matches use, then the game's own
/// take-back rule where it has one.
macro_rules! offline {
    ($game:ident, $options:expr $(, $($rule:tt)*)?) => {
        impl Offline for $game {
            fn start(rng: &mut dyn RandomSource) -> Result<Self, SetupError> {
                $game::setup($options, 2, rng)
            }

            $($($rule)*)?
        }
    };
}

offline!(
    Caro,
    CaroOptions::default(),
    /// C17: against Easy and Medium, not Hard.
    fn take_back_allowed(level: Level) -> bool {
        level != Level::Hard
    }
);

offline!(
    Mancala,
    MancalaOptions {
        rule_set: RuleSet::Kalah,
        first: FirstPlayer::Random,
    },
    /// M11: at every level.
    fn take_back_allowed(_level: Level) -> bool {
        true
    }
);

offline!(Quoridor, QuoridorOptions::default());
// A money game: what game-state hosts for a quick match (a session of one game, B22).
offline!(BackgammonSession, BackgammonOptions::default());
offline!(Junqi, JunqiOptions {});

/// Who sits at the device.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Mode {
    /// Two people take turns; the board turns to the seat to move.
    TwoPlayers,
    /// One person in `human`'s seat; the computer plays the other at `level`.
    Computer { human: Seat, level: Level },
}

/// One game and every position it went through (for taking moves back).
#[derive(Debug)]
struct History<G: Offline> {
    positions: Vec<G>,
    notations: Vec<String>,
    mode: Mode,
}

impl<G: Offline> History<G> {
    fn new(game: G, mode: Mode) -> Self {
        History {
            positions: vec![game],
            notations: Vec::new(),
            mode,
        }
    }

    fn start(mode: Mode, rng: &mut dyn RandomSource) -> Result<Self, String> {
        G::start(rng)
            .map(|game| History::new(game, mode))
            .map_err(|e| format!("{}: {}", e.rule, e.message))
    }

    fn current(&self) -> &G {
        // `positions` is never empty: `take_back` keeps the first.
        &self.positions[self.positions.len() - 1]
    }

    /// The computer's seat, when it is the computer's turn.
    fn computer_to_move(&self) -> Option<Seat> {
        match (self.mode, self.current().to_move()) {
            (Mode::Computer { human, .. }, Some(seat)) if seat != human => Some(seat),
            _ => None,
        }
    }

    /// Plays `notation` for the seat to move: a person's action (`by_computer` false) or the
    /// computer's answer from [`think`]. The refusal starts with the rule id.
    fn play(
        &mut self,
        notation: &str,
        by_computer: bool,
        rng: &mut dyn RandomSource,
    ) -> Result<(), String> {
        let game = self.current().clone();
        let Some(seat) = game.to_move() else {
            return Err("the game is over: start a new one".to_owned());
        };
        if by_computer != self.computer_to_move().is_some() {
            return Err(if by_computer {
                "it is not the computer's turn".to_owned()
            } else {
                "wait: it is the computer's turn".to_owned()
            });
        }
        let action = game.parse_action(notation).map_err(|e| e.to_string())?;
        let text = action.to_string();
        let next = game
            .apply(seat, &action, rng)
            .map_err(|(_, e)| e.to_string())?;
        self.positions.push(next);
        self.notations.push(text);
        Ok(())
    }

    /// Whether the player may take a move back now.
    fn can_take_back(&self) -> bool {
        match self.mode {
            Mode::TwoPlayers => false,
            Mode::Computer { human, level } => {
                G::take_back_allowed(level) && self.movers().contains(&Some(human))
            }
        }
    }

    /// Back to just before the human's last action, the computer's replies with it (C17,
    /// M11: a Mancala extra turn, M5, is several sows of one seat; only the last goes).
    fn take_back(&mut self) -> Result<(), String> {
        let Mode::Computer { human, level } = self.mode else {
            return Err("C15: no taking back a move in games between people".to_owned());
        };
        if !G::take_back_allowed(level) {
            return Err(format!(
                "C17: no taking back against {} (only against Easy and Medium)",
                level_name::<G>(level)
            ));
        }
        let Some(last) = self.movers().iter().rposition(|m| *m == Some(human)) else {
            return Err("no move of yours to take back".to_owned());
        };
        self.positions.truncate(last + 1);
        self.notations.truncate(last);
        Ok(())
    }

    /// Who moved each action, in order (a Mancala extra turn keeps the seat).
    fn movers(&self) -> Vec<Option<Seat>> {
        self.positions[..self.positions.len() - 1]
            .iter()
            .map(Game::to_move)
            .collect()
    }

    /// The seat the page plays for, whose side of the board it shows: the person's against
    /// the computer, the seat to move between people (none, a spectator's view, once the game
    /// is over).
    fn your_seat(&self) -> Option<Seat> {
        match self.mode {
            Mode::Computer { human, .. } => Some(human),
            Mode::TwoPlayers => self.current().to_move(),
        }
    }

    /// The game now as game-state answers `GetGame` for the seat the page plays: the view,
    /// mapped by the catalog, the person's legal actions (none while the computer thinks)
    /// and the outcome. The page names the seats (`display_name`); there are no settings,
    /// clocks or draw offers on a device.
    fn snapshot(&self) -> pb::GameSnapshot {
        let game = self.current();
        let to_move = game.to_move();
        let legal_actions = match to_move {
            Some(seat) if self.computer_to_move().is_none() => game.legal_actions_to_pb(seat),
            _ => Vec::new(),
        };
        let status = if to_move.is_some() {
            pb::GameStatus::Active
        } else {
            pb::GameStatus::Finished
        };
        pb::GameSnapshot {
            game_id: "local".to_owned(),
            seats: (0..game.seats())
                .map(|seat| pb::SeatInfo {
                    seat: seat_u32(seat),
                    player_id: format!("local-{seat}"),
                    ..Default::default()
                })
                .collect(),
            seq: self.notations.len() as u64,
            status: status as i32,
            turn: Some(pb::TurnInfo {
                to_move: to_move.map(seat_u32),
                ..Default::default()
            }),
            view: Some(G::view_to_pb(
                game.view(self.your_seat().map_or(Viewer::Spectator, Viewer::Seat)),
            )),
            your_seat: self.your_seat().map(seat_u32),
            legal_actions,
            outcome: game.outcome().map(outcome_to_pb),
            ..Default::default()
        }
    }

    /// What only the device knows, as JSON (see [`LocalGame::state`]).
    fn state(&self) -> Value {
        let moves: Vec<Value> = self
            .movers()
            .into_iter()
            .zip(&self.notations)
            .map(|(seat, notation)| json!({ "seat": seat, "notation": notation }))
            .collect();
        let (mode, human, level) = match self.mode {
            Mode::TwoPlayers => ("two", Value::Null, Value::Null),
            Mode::Computer { human, level } => ("computer", json!(human), json!(level.name())),
        };
        json!({
            "kind": G::KIND.name(),
            "mode": mode,
            "human": human,
            "level": level,
            "computerToMove": self.computer_to_move().is_some(),
            "takeBackOffered": matches!(self.mode, Mode::Computer { level, .. } if G::take_back_allowed(level)),
            "canTakeBack": self.can_take_back(),
            "moves": moves,
        })
    }

    /// What the computer's worker ([`think`]) decides from, as JSON `{seat, position}`: the
    /// seat to move and its seat position ([`SeatPosition`], what game-state sends the bots
    /// service), so the worker never holds what that seat cannot see (J22: Junqi's face-down
    /// pieces). `seat` is null once the game is over.
    fn position(&self) -> String {
        let game = self.current();
        let seat = game.to_move();
        let position = seat.map(|seat| game.seat_position(seat));
        serde_json::to_string(&json!({ "seat": seat, "position": position })).unwrap_or_default()
    }
}

/// The level as the game's seed names it (Caro's Medium, Junqi's Beginner and Expert).
fn level_name<G: Offline>(level: Level) -> &'static str {
    match (G::KIND, level) {
        (GameKind::Caro, Level::Normal) => "Medium",
        (GameKind::Junqi, Level::Easy) => "Beginner",
        (GameKind::Junqi, Level::Hard) => "Expert",
        (_, Level::Easy) => "Easy",
        (_, Level::Normal) => "Normal",
        (_, Level::Hard) => "Hard",
    }
}

#[derive(Debug)]
enum Local {
    Caro(History<Caro>),
    Mancala(History<Mancala>),
    Quoridor(History<Quoridor>),
    Backgammon(History<BackgammonSession>),
    Junqi(History<Junqi>),
}

/// Runs `$body` with `$h` bound to the game's history, whichever game it is.
macro_rules! each {
    ($local:expr, $h:ident => $body:expr) => {
        match $local {
            Local::Caro($h) => $body,
            Local::Mancala($h) => $body,
            Local::Quoridor($h) => $body,
            Local::Backgammon($h) => $body,
            Local::Junqi($h) => $body,
        }
    };
}

impl Local {
    fn start(kind: &str, mode: Mode, rng: &mut dyn RandomSource) -> Result<Local, String> {
        Ok(match kind {
            "caro" => Local::Caro(History::start(mode, rng)?),
            "mancala" => Local::Mancala(History::start(mode, rng)?),
            "quoridor" => Local::Quoridor(History::start(mode, rng)?),
            "backgammon" => Local::Backgammon(History::start(mode, rng)?),
            "junqi" => Local::Junqi(History::start(mode, rng)?),
            other => return Err(unknown_kind(other)),
        })
    }
}

fn unknown_kind(kind: &str) -> String {
    format!("{kind:?} is not a game here: caro, mancala, quoridor, backgammon or junqi")
}

fn parse_level(level: &str) -> Result<Level, String> {
    Level::parse(level)
        .ok_or_else(|| format!("{level:?} is not a level: easy, normal (medium) or hard"))
}

fn js_error(message: String) -> JsError {
    JsError::new(&message)
}

/// A game played on this device.
#[wasm_bindgen]
#[derive(Debug)]
pub struct LocalGame {
    game: Local,
}

#[wasm_bindgen]
impl LocalGame {
    /// A new game of `kind` for two people on this device; `random` holds fresh values from
    /// the browser's CSPRNG.
    #[wasm_bindgen(constructor)]
    pub fn new(kind: &str, random: Vec<u32>) -> Result<LocalGame, JsError> {
        let game = Local::start(kind, Mode::TwoPlayers, &mut BrowserRandom::new(random))
            .map_err(js_error)?;
        Ok(LocalGame { game })
    }

    /// A new game of `kind` against the computer at `level` ("easy", "normal"/"medium",
    /// "hard"), the person in seat `human` (0 or 1).
    #[wasm_bindgen(js_name = againstComputer)]
    pub fn against_computer(
        kind: &str,
        level: &str,
        human: u32,
        random: Vec<u32>,
    ) -> Result<LocalGame, JsError> {
        let level = parse_level(level).map_err(js_error)?;
        if human > 1 {
            return Err(JsError::new("the person sits in seat 0 or 1"));
        }
        let mode = Mode::Computer {
            human: human as Seat,
            level,
        };
        let game = Local::start(kind, mode, &mut BrowserRandom::new(random)).map_err(js_error)?;
        Ok(LocalGame { game })
    }

    /// Plays a person's action in the game's notation ("H8", a pit "3", "e2", "e3h",
    /// "24/18 13/11", "roll", "c6", "c6-c7") for the seat to move. A refusal is the rules' own
    /// message, rule id first ("C3: H8 is already taken").
    pub fn play(&mut self, notation: &str, random: Vec<u32>) -> Result<(), JsError> {
        let mut rng = BrowserRandom::new(random);
        each!(&mut self.game, h => h.play(notation, false, &mut rng)).map_err(js_error)
    }

    /// Plays the computer's choice (what [`think`] answered for [`LocalGame::position`]).
    #[wasm_bindgen(js_name = playComputer)]
    pub fn play_computer(&mut self, notation: &str, random: Vec<u32>) -> Result<(), JsError> {
        let mut rng = BrowserRandom::new(random);
        each!(&mut self.game, h => h.play(notation, true, &mut rng)).map_err(js_error)
    }

    /// Takes the person's last action back, with the computer's replies (C17, M11).
    #[wasm_bindgen(js_name = takeBack)]
    pub fn take_back(&mut self) -> Result<(), JsError> {
        each!(&mut self.game, h => h.take_back()).map_err(js_error)
    }

    /// The game now as a prost-encoded `ludus.v1.GameSnapshot`, what `GetGame` answers online
    /// (the page decodes it with the generated `GameSnapshotSchema`): the view for the seat
    /// the page plays, its legal actions, whose turn, the outcome.
    pub fn snapshot(&self) -> Vec<u8> {
        each!(&self.game, h => h.snapshot()).encode_to_vec()
    }

    /// What only this device knows, as JSON: `{kind, mode, human, level, computerToMove,
    /// takeBackOffered, canTakeBack, moves: [{seat, notation}]}`.
    pub fn state(&self) -> String {
        each!(&self.game, h => h.state()).to_string()
    }

    /// The position as the rules crate stores it, for [`think`] in the computer's worker.
    pub fn position(&self) -> String {
        each!(&self.game, h => h.position())
    }
}

/// The page's clock, in milliseconds: `Date.now()` in the browser (the rules crates have
/// none, `Budget`), the system clock in native tests.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Date)]
    fn now() -> f64;
}

#[cfg(not(target_arch = "wasm32"))]
fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The computer's choice at `level` for the worker's request ([`History::position`]), through
/// the catalog's [`bot_choose`], the server's bots' own path, with `work` as the budget and
/// the page's clock as the deadline.
fn choose(
    kind: GameKind,
    request: &str,
    level: Level,
    random: Vec<u32>,
    work: u64,
    deadline_ms: f64,
) -> Result<String, String> {
    let request: Value = serde_json::from_str(request).map_err(|e| format!("bad position: {e}"))?;
    let seat = match &request["seat"] {
        Value::Null => return Err("the game is over: nothing to think about".to_owned()),
        seat => serde_json::from_value::<Seat>(seat.clone())
            .map_err(|e| format!("bad position: seat: {e}"))?,
    };
    let out_of_time = move || now() >= deadline_ms;
    let budget = Budget {
        work,
        out_of_time: &out_of_time,
    };
    let think = Think {
        level,
        budget: &budget,
        rng: &mut BrowserRandom::new(random),
    };
    bot_choose(kind, &request["position"], seat, think)
        .map_err(|e| e.to_string())?
        .map(|choice| choice.notation)
        .ok_or_else(|| "the computer found no action".to_owned())
}

/// The computer's action for the seat to move in `position` (from [`LocalGame::position`]),
/// in the game's notation. It thinks with its level's work budget and stops early once the
/// page's clock (`Date.now()`) reaches `deadline_ms`, still answering with a legal action.
/// Runs in a Web Worker, so the page stays responsive while it searches.
#[wasm_bindgen]
pub fn think(
    kind: &str,
    position: &str,
    level: &str,
    random: Vec<u32>,
    deadline_ms: f64,
) -> Result<String, JsError> {
    let level = parse_level(level).map_err(js_error)?;
    let kind = GameKind::from_name(kind).ok_or_else(|| js_error(unknown_kind(kind)))?;
    let work = default_work(kind, level);
    choose(kind, position, level, random, work, deadline_ms).map_err(js_error)
}

/// Makes the computer ready for `kind` at `level` before its first move: Mancala Hard builds
/// its Kalah endgame database ([`BROWSER_DB_SEEDS`] seeds) once per worker. Answers JSON
/// `{seeds, positions, bytes}` for the database, `{}` when nothing was needed.
#[wasm_bindgen]
pub fn prepare(kind: &str, level: &str) -> Result<String, JsError> {
    let level = parse_level(level).map_err(js_error)?;
    if kind == "mancala" && level == Level::Hard {
        let db = EndgameDb::global_with(BROWSER_DB_SEEDS);
        return Ok(
            json!({ "seeds": db.max_seeds(), "positions": db.len(), "bytes": db.len() })
                .to_string(),
        );
    }
    Ok("{}".to_owned())
}

/// The Junqi crate's layouts for its J22 proofs, shared rather than copied (as the catalog's
/// bots test uses them).
#[cfg(test)]
#[path = "../../../games/junqi/tests/common/mod.rs"]
mod junqi_layouts;

#[cfg(test)]
mod tests {
    use ludus_catalog::{Hosted, LiveGame};

    use super::*;

    const KINDS: [&str; 5] = ["caro", "mancala", "quoridor", "backgammon", "junqi"];

    fn rng() -> BrowserRandom {
        BrowserRandom::new(vec![7, 1_234_567, 99, 4_000_000_000, 31, 5, 17, 2_024])
    }

    fn state(game: &Local) -> Value {
        each!(game, h => h.state())
    }

    /// The snapshot as the page gets it: through its encoding.
    fn snapshot(game: &Local) -> pb::GameSnapshot {
        let bytes = each!(game, h => h.snapshot()).encode_to_vec();
        pb::GameSnapshot::decode(bytes.as_slice()).expect("a GameSnapshot")
    }

    fn to_move(game: &Local) -> Option<u32> {
        snapshot(game).turn.and_then(|t| t.to_move)
    }

    fn view(game: &Local) -> pb::game_view::View {
        snapshot(game).view.and_then(|v| v.view).expect("a view")
    }

    fn caro_view(game: &Local) -> pb::CaroView {
        match view(game) {
            pb::game_view::View::Caro(view) => view,
            other => panic!("not a caro view: {other:?}"),
        }
    }

    /// The game a view and an action are of, as the page names it.
    fn view_kind(view: &pb::game_view::View) -> GameKind {
        use pb::game_view::View;
        match view {
            View::Caro(_) => GameKind::Caro,
            View::Quoridor(_) => GameKind::Quoridor,
            View::Backgammon(_) => GameKind::Backgammon,
            View::Mancala(_) => GameKind::Mancala,
            View::Junqi(_) => GameKind::Junqi,
        }
    }

    fn action_kind(action: &pb::Action) -> Option<GameKind> {
        use pb::action::Action;
        match action.action.as_ref()? {
            Action::Caro(_) => Some(GameKind::Caro),
            Action::Quoridor(_) => Some(GameKind::Quoridor),
            Action::Backgammon(_) => Some(GameKind::Backgammon),
            Action::Mancala(_) => Some(GameKind::Mancala),
            Action::Junqi(_) => Some(GameKind::Junqi),
            Action::Notation(_) => None,
        }
    }

    /// What game-state's hosted game (the catalog's `LiveGame`) shows the same seat.
    fn hosted(game: &Local) -> (pb::GameView, Vec<pb::LegalAction>) {
        each!(game, h => {
            let live = Hosted::new(h.current().clone());
            let legal = match (h.current().to_move(), h.computer_to_move()) {
                (Some(seat), None) => live.legal_actions(seat),
                _ => Vec::new(),
            };
            (live.view(h.your_seat().map_or(Viewer::Spectator, Viewer::Seat)), legal)
        })
    }

    fn play(game: &mut Local, notation: &str) -> Result<(), String> {
        each!(game, h => h.play(notation, false, &mut rng()))
    }

    fn take_back(game: &mut Local) -> Result<(), String> {
        each!(game, h => h.take_back())
    }

    /// The computer's move, through the JSON position the worker gets, as the page plays it.
    fn computer(game: &mut Local) -> String {
        let (kind, position) = each!(&*game, h => (state(&*game)["kind"].clone(), h.position()));
        let level = state(game)["level"].as_str().unwrap_or("easy").to_owned();
        let kind = kind.as_str().unwrap_or_default().to_owned();
        let level = Level::parse(&level).expect("level");
        let kind = GameKind::from_name(&kind).expect("a game");
        let work = default_work(kind, level);
        let notation = choose(kind, &position, level, vec![3; 8], work, f64::MAX)
            .expect("the computer chooses");
        each!(game, h => h.play(&notation, true, &mut rng())).expect("its choice is legal");
        notation
    }

    fn mancala_seat0(mode: Mode) -> Local {
        let options = MancalaOptions {
            rule_set: RuleSet::Kalah,
            first: FirstPlayer::Seat0,
        };
        let game = Mancala::setup(options, 2, &mut rng()).expect("setup");
        Local::Mancala(History::new(game, mode))
    }

    #[test]
    fn caro_between_people_refuses_with_its_rule_and_never_takes_back() {
        let mut game = Local::start("caro", Mode::TwoPlayers, &mut rng()).expect("caro");
        play(&mut game, "H8").expect("X plays");
        let refused = play(&mut game, "H8").expect_err("occupied");
        assert!(refused.starts_with("C3: "), "{refused}");
        let s = state(&game);
        assert_eq!(s["moves"], json!([{ "seat": 0, "notation": "H8" }]));
        assert_eq!(s["canTakeBack"], json!(false));
        let refused = take_back(&mut game).expect_err("C15");
        assert!(refused.starts_with("C15: "), "{refused}");
        // Row-major from the top: H8 is column 7, row 7 (C1).
        assert_eq!(caro_view(&game).cells[7 * 15 + 7], pb::CaroStone::X as i32);
        assert_eq!(snapshot(&game).legal_actions.len(), 15 * 15 - 1);
    }

    #[test]
    fn caro_five_in_a_row_wins_offline_too() {
        let mut game = Local::start("caro", Mode::TwoPlayers, &mut rng()).expect("caro");
        for (x, o) in [("D8", "A1"), ("E8", "C1"), ("F8", "E1"), ("G8", "G1")] {
            play(&mut game, x).expect("x");
            play(&mut game, o).expect("o");
        }
        play(&mut game, "H8").expect("the winning move");
        let end = snapshot(&game);
        let outcome = end.outcome.clone().expect("an outcome");
        assert_eq!(outcome.rule, "C7");
        assert_eq!(outcome.kind, pb::ResultKind::Win as i32);
        assert_eq!(outcome.winners, [0]);
        assert_eq!(end.status, pb::GameStatus::Finished as i32);
        assert_eq!(to_move(&game), None);
        assert!(end.legal_actions.is_empty());
        assert_eq!(caro_view(&game).winning_line.len(), 5);
        assert!(play(&mut game, "J9").is_err(), "nothing after the end");
    }

    #[test]
    fn caro_against_medium_takes_back_the_move_and_the_reply_but_not_against_hard() {
        let mode = Mode::Computer {
            human: 0,
            level: Level::Normal,
        };
        let mut game = Local::start("caro", mode, &mut rng()).expect("caro");
        assert_eq!(
            state(&game)["canTakeBack"],
            json!(false),
            "nothing played yet"
        );
        play(&mut game, "H8").expect("the person plays X");
        assert_eq!(state(&game)["computerToMove"], json!(true));
        assert_eq!(
            snapshot(&game).legal_actions,
            [],
            "no choices while the computer thinks"
        );
        assert!(
            play(&mut game, "A1")
                .expect_err("not your turn")
                .contains("computer")
        );
        let reply = computer(&mut game);
        assert_eq!(state(&game)["moves"][1]["notation"], json!(reply));
        play(&mut game, "A1").expect("X again");
        computer(&mut game);
        take_back(&mut game).expect("C17: Medium allows it");
        let s = state(&game);
        assert_eq!(
            s["moves"].as_array().map(Vec::len),
            Some(2),
            "A1 and its reply undone"
        );
        assert_eq!(to_move(&game), Some(0));
        assert_eq!(
            caro_view(&game).cells[0],
            pb::CaroStone::Empty as i32,
            "A1 is empty again"
        );

        let hard = Mode::Computer {
            human: 0,
            level: Level::Hard,
        };
        let mut game = Local::start("caro", hard, &mut rng()).expect("caro");
        play(&mut game, "H8").expect("X");
        assert_eq!(state(&game)["canTakeBack"], json!(false));
        let refused = take_back(&mut game).expect_err("C17: not against Hard");
        assert!(refused.starts_with("C17: "), "{refused}");
    }

    #[test]
    fn mancala_take_back_undoes_the_last_sow_and_the_computers_replies() {
        let mode = Mode::Computer {
            human: 0,
            level: Level::Easy,
        };
        let mut game = mancala_seat0(mode);
        // Pit 3 holds 4 seeds: the last lands in seat 0's store, an extra turn (M5).
        play(&mut game, "3").expect("sow");
        assert_eq!(to_move(&game), Some(0), "M5: the same seat sows again");
        play(&mut game, "1").expect("the extra turn");
        while state(&game)["computerToMove"] == json!(true) {
            computer(&mut game);
        }
        let before = state(&game)["moves"].as_array().map_or(0, Vec::len);
        assert!(before >= 3, "the computer answered");
        take_back(&mut game).expect("M11");
        let s = state(&game);
        // Only the last sow goes (pit 1), with every reply after it; pit 3's sow stays.
        assert_eq!(s["moves"], json!([{ "seat": 0, "notation": "3" }]));
        assert_eq!(to_move(&game), Some(0));
        let pb::game_view::View::Mancala(mancala) = view(&game) else {
            panic!("a mancala view");
        };
        assert_eq!(mancala.sides[0].store, 1);
        assert!(play(&mut game, "9").expect_err("no pit 9").starts_with('M'));
    }

    /// Every game, both ways: the page's legal actions play by their notation, and the
    /// computer answers with legal actions through the JSON position its worker gets. Each
    /// snapshot shows what game-state's hosted game shows the same seat, message for message.
    #[test]
    fn every_game_is_played_offline_by_people_and_by_the_computer() {
        for kind in KINDS {
            let mut game = Local::start(kind, Mode::TwoPlayers, &mut rng()).expect(kind);
            for _ in 0..6 {
                let s = snapshot(&game);
                assert_eq!(view_kind(&view(&game)).name(), kind);
                assert_eq!(
                    (s.view.clone().expect("view"), s.legal_actions.clone()),
                    hosted(&game)
                );
                assert_eq!(
                    s.seq,
                    state(&game)["moves"]
                        .as_array()
                        .map_or(0, |m| m.len() as u64)
                );
                let Some(first) = s.legal_actions.first() else {
                    break;
                };
                let action = first.action.as_ref().expect("structured");
                assert_eq!(
                    action_kind(action).map(GameKind::name),
                    Some(kind),
                    "{first:?}"
                );
                let notation = first.notation.clone();
                play(&mut game, &notation).unwrap_or_else(|e| panic!("{kind} {notation}: {e}"));
            }
            assert!(!state(&game)["moves"].as_array().expect("moves").is_empty());

            let mode = Mode::Computer {
                human: 1,
                level: Level::Easy,
            };
            let mut game = Local::start(kind, mode, &mut rng()).expect(kind);
            for _ in 0..6 {
                assert_eq!(
                    snapshot(&game).your_seat,
                    Some(1),
                    "{kind}: the person's seat"
                );
                let legal = snapshot(&game).legal_actions;
                if state(&game)["computerToMove"] == json!(true) {
                    computer(&mut game);
                } else if let Some(first) = legal.first() {
                    play(&mut game, &first.notation).unwrap_or_else(|e| panic!("{kind}: {e}"));
                } else {
                    break;
                }
            }
            let s = state(&game);
            let seats: Vec<Value> = s["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .map(|m| m["seat"].clone())
                .collect();
            assert!(
                seats.contains(&json!(0)),
                "{kind}: the computer (seat 0) moved"
            );
        }
    }

    #[test]
    fn an_expired_deadline_still_gets_a_legal_action() {
        for kind in KINDS {
            let game = Local::start(kind, Mode::TwoPlayers, &mut rng()).expect(kind);
            let position = each!(&game, h => h.position());
            let answer = think_native(kind, &position, "hard", 0.0).expect(kind);
            let mut game = game;
            each!(&mut game, h => h.mode = Mode::Computer { human: 1, level: Level::Hard });
            if state(&game)["computerToMove"] == json!(true) {
                each!(&mut game, h => h.play(&answer, true, &mut rng()))
                    .unwrap_or_else(|e| panic!("{kind} {answer}: {e}"));
            }
        }
    }

    fn think_native(
        kind: &str,
        position: &str,
        level: &str,
        deadline: f64,
    ) -> Result<String, String> {
        let level = parse_level(level)?;
        let kind = GameKind::from_name(kind).ok_or_else(|| unknown_kind(kind))?;
        choose(
            kind,
            position,
            level,
            vec![1; 4],
            default_work(kind, level),
            deadline,
        )
    }

    /// J22: the computer decides from its seat's view, like the server's bots. Over many
    /// reshuffles of the face-down pieces behind one public history, its worker gets the
    /// same bytes and every level the same choice (the worker used to get the whole game,
    /// face-down layout included).
    #[test]
    fn j22_the_offline_computer_sees_the_same_over_reshuffled_face_down_pieces() {
        use super::junqi_layouts::{history, layout};
        let game = |seed: u64| {
            let mode = Mode::Computer {
                human: 0,
                level: Level::Hard,
            };
            History::new(history(layout(seed)), mode)
        };
        let reshuffles: Vec<History<Junqi>> = (1..=12).map(game).collect();
        assert_ne!(
            reshuffles[0].current(),
            reshuffles[1].current(),
            "the face-down layouts differ"
        );
        let computer = reshuffles[0]
            .computer_to_move()
            .expect("the computer's turn");
        let request = reshuffles[0].position();
        let seen: Value = serde_json::from_str(&request).expect("JSON");
        assert_eq!(seen["seat"], json!(computer));
        assert_eq!(
            seen["position"]["viewer"],
            json!(computer),
            "its seat's view"
        );
        for other in &reshuffles[1..] {
            assert_eq!(
                other.position(),
                request,
                "the worker's request leaks the layout"
            );
        }
        for level in Level::ALL {
            // Expert's full budget is too slow for a debug build; a small one runs the same
            // code.
            let work = match level {
                Level::Hard => 1_500,
                other => default_work(GameKind::Junqi, other),
            };
            let choices: Vec<String> = reshuffles
                .iter()
                .map(|h| {
                    choose(
                        GameKind::Junqi,
                        &h.position(),
                        level,
                        vec![3; 8],
                        work,
                        f64::MAX,
                    )
                    .expect("a choice")
                })
                .collect();
            assert!(
                choices.iter().all(|c| *c == choices[0]),
                "{level:?}: the choice depends on the hidden layout: {choices:?}"
            );
        }
    }

    #[test]
    fn junqi_face_down_points_name_no_piece() {
        let mut game = Local::start("junqi", Mode::TwoPlayers, &mut rng()).expect("junqi");
        play(&mut game, "c7").expect("J7: a flip");
        let pb::game_view::View::Junqi(junqi) = view(&game) else {
            panic!("a junqi view");
        };
        let points = junqi.points;
        assert_eq!(points.len(), 60);
        let state_of = |p: &&pb::JunqiPoint, state: pb::JunqiPointState| p.state == state as i32;
        let face_up: Vec<&pb::JunqiPoint> = points
            .iter()
            .filter(|p| state_of(p, pb::JunqiPointState::FaceUp))
            .collect();
        assert_eq!(face_up.len(), 1, "one piece flipped");
        assert!(face_up[0].piece.is_some_and(|p| p.rank != 0));
        for point in points
            .iter()
            .filter(|p| state_of(p, pb::JunqiPointState::FaceDown))
        {
            assert!(point.piece.is_none(), "J22: {point:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Whatever the browser's random values and whichever legal actions are picked, every
        /// action the page is offered plays by its notation, and the page is offered actions
        /// exactly while the game goes on.
        #[test]
        fn every_offered_action_plays_by_its_notation(
            kind in 0usize..5,
            random in proptest::collection::vec(proptest::prelude::any::<u32>(), 16),
            picks in proptest::collection::vec(proptest::prelude::any::<u16>(), 40),
        ) {
            let kind = KINDS[kind];
            let mut game = Local::start(kind, Mode::TwoPlayers, &mut BrowserRandom::new(random.clone()))
                .expect(kind);
            for pick in picks {
                let legal = snapshot(&game).legal_actions;
                proptest::prop_assert_eq!(legal.is_empty(), to_move(&game).is_none(), "{}", kind);
                let Some(chosen) = legal.get(usize::from(pick) % legal.len().max(1)) else {
                    break;
                };
                let notation = chosen.notation.clone();
                let played = each!(&mut game, h => h.play(&notation, false, &mut BrowserRandom::new(random.clone())));
                proptest::prop_assert!(played.is_ok(), "{} {}: {:?}", kind, notation, played);
            }
        }
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
