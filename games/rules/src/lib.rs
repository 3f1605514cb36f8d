//! The contract between a game's rules and the services that host it.
//!
//! Every game of Ludus (Caro, Quoridor, Backgammon, Mancala, Flip Junqi) lives in its own
//! crate and implements [`Game`]. The rules are pure: no I/O, no async, no clock, no global
//! randomness. Randomness comes in through [`RandomSource`], so the server can hand in a
//! CSPRNG and tests can hand in scripted dice.
//!
//! # Layout
//! - [`Game`]: setup, whose turn, legal actions, apply, timeout and resignation policies,
//!   outcome, and the view of one viewer.
//! - [`Outcome`], [`GameResult`]: how a game ended, with per-seat ranks and points.
//! - [`RuleViolation`]: every rules error names the rule id it enforces (`C3`, `Q15`, …).
//! - [`RandomSource`]: the only way randomness enters a game.
//! - [`Bot`], [`Level`], [`Budget`]: computer players, their three levels, and how long they think.
#![forbid(unsafe_code)]

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A seat at the table, 0-based in seat order. In team games every member has its own seat;
/// the game maps seats to sides.
pub type Seat = usize;

/// Who is looking at a game.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum Viewer {
    /// A player in this seat.
    Seat(Seat),
    /// Anybody who is not seated: they see only public information.
    Spectator,
}

/// How a finished game ended.
#[derive(Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum GameResult {
    /// These seats won (several in a team game).
    Win { winners: Vec<Seat> },
    /// Nobody won.
    Draw,
    /// The game did not count: no winner, no rating change (e.g. Caro C15).
    Cancelled,
}

/// The end of a game, as ratings and clients need it.
#[derive(Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct Outcome {
    pub result: GameResult,
    /// Final placing of every seat, 0 = best; equal numbers are ties. Empty when cancelled.
    pub ranks: Vec<u32>,
    /// Game points of every seat (Backgammon stakes, Quoridor score, Mancala seeds…).
    /// Empty when the game has no points of its own.
    pub points: Vec<i64>,
    /// The rule that ended the game, e.g. `"C7"` or `"C12"`.
    pub rule: String,
    /// A lowercase human sentence, e.g. `"five in a row from H4 to H8"`.
    pub reason: String,
}

impl Outcome {
    /// A win for `winners`; every other seat of `seats` ranks second.
    pub fn win(seats: usize, winners: &[Seat], rule: &str, reason: impl Into<String>) -> Self {
        let ranks = (0..seats)
            .map(|s| u32::from(!winners.contains(&s)))
            .collect();
        Outcome {
            result: GameResult::Win {
                winners: winners.to_vec(),
            },
            ranks,
            points: Vec::new(),
            rule: rule.to_owned(),
            reason: reason.into(),
        }
    }

    /// A draw: every seat ranks equal.
    pub fn draw(seats: usize, rule: &str, reason: impl Into<String>) -> Self {
        Outcome {
            result: GameResult::Draw,
            ranks: vec![0; seats],
            points: Vec::new(),
            rule: rule.to_owned(),
            reason: reason.into(),
        }
    }

    /// A cancelled game: nothing counts.
    pub fn cancelled(rule: &str, reason: impl Into<String>) -> Self {
        Outcome {
            result: GameResult::Cancelled,
            ranks: Vec::new(),
            points: Vec::new(),
            rule: rule.to_owned(),
            reason: reason.into(),
        }
    }

    /// The same outcome with game points per seat.
    pub fn with_points(mut self, points: Vec<i64>) -> Self {
        self.points = points;
        self
    }
}

/// A rules error names the rule it enforces. Its `Display` is a lowercase sentence that
/// starts with the rule id, e.g. `"C3: H8 is already taken"`, and never reveals hidden
/// information.
pub trait RuleViolation: std::error::Error + Send + Sync + 'static {
    /// The rule id, e.g. `"C3"`.
    fn rule(&self) -> &'static str;
}

/// The only way randomness enters a game. The server passes a CSPRNG; tests pass scripted
/// values.
pub trait RandomSource {
    /// A uniformly distributed number in `0..bound`. `bound` is at least 1.
    fn below(&mut self, bound: u32) -> u32;
}

/// Plays back a fixed list of values (taken modulo the bound), then repeats it. For tests and
/// for replaying recorded dice; never for live games.
#[derive(Clone, Debug)]
pub struct ScriptedRandom {
    values: Vec<u32>,
    next: usize,
}

impl ScriptedRandom {
    /// A source that returns `values` in order, cycling. An empty list always returns 0.
    pub fn new(values: impl Into<Vec<u32>>) -> Self {
        ScriptedRandom {
            values: values.into(),
            next: 0,
        }
    }
}

impl RandomSource for ScriptedRandom {
    fn below(&mut self, bound: u32) -> u32 {
        let bound = bound.max(1);
        if self.values.is_empty() {
            return 0;
        }
        let v = self.values[self.next % self.values.len()];
        self.next += 1;
        v % bound
    }
}

/// A small, fast, non-cryptographic generator (SplitMix64) for property tests, playouts and
/// bots. Never for anything a player could exploit: the server uses a CSPRNG for dice and
/// shuffles.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl RandomSource for SplitMix64 {
    fn below(&mut self, bound: u32) -> u32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        // Multiply-shift keeps the bias below 2^-32, which is fine for tests and bots.
        ((u64::from(z as u32) * u64::from(bound.max(1))) >> 32) as u32
    }
}

/// An error in the options or seat count a game is set up with.
#[derive(Clone, Eq, PartialEq, Debug)]
pub struct SetupError {
    pub rule: &'static str,
    pub message: String,
}

impl SetupError {
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        SetupError {
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

impl std::error::Error for SetupError {}

impl RuleViolation for SetupError {
    fn rule(&self) -> &'static str {
        self.rule
    }
}

/// The rules of one game. A value of the type is a valid position plus everything the rules
/// need to go on (clocks excepted: the services own time).
///
/// Methods that change the game take `self` and hand back a game; `apply` hands back the
/// unchanged game with the error, so a refused action never loses a position.
pub trait Game:
    Sized + Clone + fmt::Debug + Send + Sync + Serialize + DeserializeOwned + 'static
{
    /// The host's choices (board size, optional rules…), already validated.
    type Options: Clone + fmt::Debug + Default + Send + Sync + Serialize + DeserializeOwned;
    /// One action of one player. `Display` (and [`Game::parse_action`]) use the standard notation
    /// (`H8`, `e3h`, `24/18 13/11`, …), which is what every client-facing text uses.
    type Action: Clone
        + fmt::Debug
        + PartialEq
        + fmt::Display
        + Send
        + Sync
        + Serialize
        + DeserializeOwned;
    /// What one viewer may see. A spectator's view holds only public information.
    type View: Clone + fmt::Debug;
    /// Why an action was refused.
    type Error: RuleViolation;

    /// A new game for `seats` players. Randomness (who moves first, shuffles, the opening
    /// roll) comes from `rng`.
    fn setup(
        options: Self::Options,
        seats: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, SetupError>;

    /// Reads an action in the game's standard notation, as it applies to this game (board
    /// size matters). The error names the notation rule (`C1`, …).
    fn parse_action(&self, text: &str) -> Result<Self::Action, Self::Error>;

    /// How many seats the game was set up with.
    fn seats(&self) -> usize;

    /// The seat that must act now; `None` once the game is over.
    fn to_move(&self) -> Option<Seat>;

    /// Every action `seat` may take now (empty when it is not their turn). Games whose list
    /// would be huge may return a representative subset and say so in their docs.
    fn legal_actions(&self, seat: Seat) -> Vec<Self::Action>;

    /// `seat` takes `action`. On error the game comes back unchanged with the rule broken.
    fn apply(
        self,
        seat: Seat,
        action: &Self::Action,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, (Self, Self::Error)>;

    /// The turn clock of `seat` ran out: the game's clock policy (Caro C12/C15 loses or
    /// cancels, Quoridor Q19/Q21 passes or steps aside, …).
    fn timeout(self, seat: Seat, rng: &mut dyn RandomSource) -> Self;

    /// `seat` resigns or leaves the game.
    fn resign(self, seat: Seat) -> Self;

    /// The rule that ends the game when a disconnected player does not come back in time
    /// (Caro C13), if the game has one; the services then give the player a grace period and
    /// call [`Game::abandon`] when it runs out. Games without one keep the default: their
    /// turn clock alone runs while a player is away (Mancala M10).
    fn absence_rule(&self) -> Option<&'static str> {
        None
    }

    /// `seat` disconnected and did not come back within the grace period of
    /// [`Game::absence_rule`]. The default changes nothing.
    fn abandon(self, _seat: Seat) -> Self {
        self
    }

    /// `seat` disconnected and did not come back, and the player who stayed called it a draw
    /// (Caro C13 in a friend room). The default changes nothing, like [`Game::abandon`].
    fn abandon_as_draw(self, _seat: Seat) -> Self {
        self
    }

    /// Both sides agreed to a draw. Games without draws by agreement refuse with their rule.
    fn agree_draw(self) -> Result<Self, (Self, Self::Error)>;

    /// How the game ended, once it has.
    fn outcome(&self) -> Option<&Outcome>;

    /// What `viewer` may see.
    fn view(&self, viewer: Viewer) -> Self::View;

    /// How many actions have been applied (every accepted action, including automatic ones
    /// played on timeout).
    fn ply(&self) -> u32;
}

/// The most characters of a player's input a refusal quotes back ([`excerpt`]).
pub const MAX_EXCERPT_CHARS: usize = 32;

/// `input` quoted for a refusal's message, cut to [`MAX_EXCERPT_CHARS`] characters (with its
/// length when cut): an answer never carries more than a bounded slice of what a client sent
/// (a 60 KB value echoed whole made reply headers that broke the connection they rode on).
pub fn excerpt(input: &str) -> String {
    let chars = input.chars().count();
    if chars <= MAX_EXCERPT_CHARS {
        return format!("{input:?}");
    }
    let head: String = input.chars().take(MAX_EXCERPT_CHARS).collect();
    format!("{head:?}… ({chars} characters)")
}

/// Plays up to `actions` legal actions chosen uniformly by `rng` (fewer once the game ends):
/// the random positions of tests, benchmarks and examples. Each choice draws one number from
/// `rng`, and the game then applies it with the same `rng`, so a seed always gives the same
/// position. A refusal of one of the game's own legal actions is a bug in the game; it comes
/// back with the position that refused.
pub fn random_actions<G: Game>(
    mut game: G,
    actions: u32,
    rng: &mut dyn RandomSource,
) -> Result<G, (G, G::Error)> {
    for _ in 0..actions {
        let Some(seat) = game.to_move() else { break };
        let legal = game.legal_actions(seat);
        if legal.is_empty() {
            break;
        }
        let index = rng.below(legal.len() as u32) as usize;
        game = game.apply(seat, &legal[index], rng)?;
    }
    Ok(game)
}

/// How strong a computer player is. The seeds name three levels per game (Caro C17
/// Easy/Medium/Hard, Mancala M11 Easy/Normal/Hard, Flip Junqi J20 Beginner/Normal/Expert);
/// they are the same three steps, so one enum serves every game and [`Level::parse`] accepts
/// each seed's names.
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug, Serialize, Deserialize)]
pub enum Level {
    /// Caro/Mancala Easy, Junqi Beginner.
    Easy,
    /// Caro Medium, Mancala/Junqi Normal.
    Normal,
    /// Caro/Mancala Hard, Junqi Expert.
    Hard,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 3] = [Level::Easy, Level::Normal, Level::Hard];

    /// Reads a level by any of the seeds' names, case-insensitively: `easy`/`beginner`,
    /// `normal`/`medium`, `hard`/`expert`. `None` for anything else.
    pub fn parse(name: &str) -> Option<Level> {
        match name.trim().to_ascii_lowercase().as_str() {
            "easy" | "beginner" => Some(Level::Easy),
            "normal" | "medium" => Some(Level::Normal),
            "hard" | "expert" => Some(Level::Hard),
            _ => None,
        }
    }

    /// The canonical lowercase name (`easy`, `normal`, `hard`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Hard => "hard",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How much a computer player may think. `work` bounds the search in the bot's own units
/// (nodes, playouts) so that a choice is reproducible given the random source; `out_of_time`
/// is polled during the search so a service can stop it at its deadline. A bot whose budget
/// runs out still returns a legal action (the best found so far).
///
/// No clock in here: the rules crates build for `wasm32-unknown-unknown`, where
/// `std::time::Instant` does not exist. The caller decides what time means.
#[derive(Copy, Clone)]
pub struct Budget<'a> {
    /// The most work the bot may do, in its own units.
    pub work: u64,
    /// Returns `true` once the caller wants an answer now.
    pub out_of_time: &'a (dyn Fn() -> bool + Sync),
}

fn never_out_of_time() -> bool {
    false
}

fn already_out_of_time() -> bool {
    true
}

impl Budget<'static> {
    /// A budget bounded by work alone: the same inputs always give the same choice.
    pub fn work(work: u64) -> Budget<'static> {
        Budget {
            work,
            out_of_time: &never_out_of_time,
        }
    }

    /// A budget whose time is already up (a turn clock about to fall): the bot must still
    /// answer at once with a legal action, whatever `work` would have allowed.
    pub fn time_up(work: u64) -> Budget<'static> {
        Budget {
            work,
            out_of_time: &already_out_of_time,
        }
    }
}

impl Budget<'_> {
    /// Whether the caller wants an answer now.
    pub fn expired(&self) -> bool {
        (self.out_of_time)()
    }
}

impl fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Budget").field("work", &self.work).finish()
    }
}

/// What a computer player thinks with for one turn: its level, how much work (and time) it
/// may spend, and its randomness. The three always travel together from the caller to the
/// game's bot, so they go as one argument.
pub struct Think<'a> {
    pub level: Level,
    pub budget: &'a Budget<'a>,
    pub rng: &'a mut dyn RandomSource,
}

impl fmt::Debug for Think<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Think")
            .field("level", &self.level)
            .field("budget", self.budget)
            .finish_non_exhaustive()
    }
}

/// A computer player for a game: pure and deterministic given the random source and a
/// work-bounded budget.
///
/// A bot sees only what a player in its seat sees. Games with hidden information (Flip Junqi's
/// face-down pieces) must decide from `self.view(Viewer::Seat(seat))` alone and prove it with a
/// test (two hidden layouts with the same public history give the same choice); future dice
/// are never in a game's state, so a backgammon bot cannot see them either.
pub trait Bot: Game {
    /// The action `seat` takes now at `level`, or `None` when it is not `seat`'s turn (or the
    /// game is over). The action is always legal for `seat` in this position, whatever the
    /// budget.
    ///
    /// The turn check lives here, once, so that every game's [`Bot::decide`] starts from a
    /// position where `seat` is to move.
    fn choose(
        &self,
        seat: Seat,
        level: Level,
        budget: &Budget<'_>,
        rng: &mut dyn RandomSource,
    ) -> Option<Self::Action> {
        if self.to_move() != Some(seat) {
            return None;
        }
        self.decide(seat, Think { level, budget, rng })
    }

    /// The game's own choice for `seat`, which [`Bot::choose`] has checked is to move; `None`
    /// only when the game has nothing for it to do (e.g. an over phase `to_move` still names).
    fn decide(&self, seat: Seat, think: Think<'_>) -> Option<Self::Action>;

    /// The level's typical work budget for this game, as the services and the arena use it
    /// (Hard moves in about a second on one core, Easy and Normal in under 100 ms).
    fn default_work(level: Level) -> u64;
}

#[cfg(test)]
mod bot_tests {
    use super::*;

    #[test]
    fn every_seed_name_of_a_level_parses() {
        for (name, level) in [
            ("Easy", Level::Easy),
            ("beginner", Level::Easy),
            ("Medium", Level::Normal),
            ("normal", Level::Normal),
            ("HARD", Level::Hard),
            (" expert ", Level::Hard),
        ] {
            assert_eq!(Level::parse(name), Some(level), "{name}");
        }
        assert_eq!(Level::parse("grandmaster"), None);
        for level in Level::ALL {
            assert_eq!(Level::parse(level.name()), Some(level));
        }
    }

    #[test]
    fn a_work_budget_never_expires() {
        let budget = Budget::work(10);
        assert!(!budget.expired());
        assert!(Budget::time_up(10).expired());
    }
}

#[cfg(test)]
mod excerpt_tests {
    use super::*;

    #[test]
    fn an_excerpt_quotes_short_input_whole_and_cuts_long_input() {
        assert_eq!(excerpt("hardest"), "\"hardest\"");
        let long = "é".repeat(65_000);
        let shown = excerpt(&long);
        assert!(shown.len() < 100, "{shown}");
        assert!(shown.ends_with("(65000 characters)"), "{shown}");
    }
}
