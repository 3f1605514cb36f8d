//! Table policy: who sits at a game's table, how fast it is played, where it is rated, and
//! how quick match queues it. Matchmaking queues with [`QuickMatch`]; rooms and bots read a
//! game's [`TablePolicy`] to offer seats and clocks, and friend rooms seat games through
//! [`room_game`], [`table_mode`], [`team_game`] and [`tournament_game`].

use ludus_proto::pb;

use crate::error::CatalogError;
use crate::games::{backgammon, caro, junqi, mancala, quoridor};
use crate::kind::GameKind;

mod rooms;
pub use rooms::{
    Bracket, MatchResult, TableMode, Team, room_game, table_mode, team_game, tournament_game,
};

/// What a game's tables look like, and every table rule a service applies to it: the
/// services read these fields and never match on a [`GameKind`]. Each game's policy is the
/// `TABLE` constant of its file under [`crate::games`]. Clocks are milliseconds per turn; 0
/// means untimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TablePolicy {
    pub kind: GameKind,
    /// Fewest players at a table.
    pub min_seats: usize,
    /// Most players at a table (Quoridor: 8, Q4).
    pub max_seats: usize,
    /// The rule a room cites when its table is short of players (Q4 where the table size is
    /// chosen, else the game's clock rule).
    pub seats_rule: &'static str,
    /// The server's quick-match clock when the players did not choose one (matchmaking's
    /// `--turn-ms <game>=<ms>` overrides it, see [`QuickMatchClocks`]).
    pub default_turn_ms: u64,
    /// The longest clock game-state accepts for the game, if its rules cap it.
    pub max_turn_ms: Option<u64>,
    /// The rule the clock comes from.
    pub clock_rule: &'static str,
    /// The clocks quick-match players may queue for (Q28, B20) instead of the server's (then
    /// the queue names it, `/t<s>`); `None` where they play the server's.
    pub quick_match_clock: Option<ClockChoices>,
    /// The clocks a human may choose against the computer; `None` where that game is untimed
    /// whatever the settings say (C17, M11, J19).
    pub computer_clock: Option<ClockChoices>,
    /// The clocks a friend room may choose.
    pub friend_clock: FriendClock,
    /// Undo points a human keeps against the computer where [`crate::bots::take_back_rule`]
    /// allows take-backs (C17: ten Caro moves; M11: the last sow); 0 where it allows none.
    pub take_backs: usize,
    /// C10/C11: a two-player room chooses who moves first in a new pairing (the host, the
    /// guest or rock-paper-scissors), and after that the loser of the pairing's last game
    /// moves first (the first mover switches after a draw).
    pub room_first_mover: bool,
    /// Q29: a room may start its next game by itself, a countdown after one ends.
    pub auto_start: bool,
    /// Q30-Q36: finished games score points on a room's scoreboard (beside wins and draws).
    pub scores_points: bool,
    /// Whether finished games are reported to ratings, each in its rule set's pool
    /// ([`rating_pool`]).
    pub rated: bool,
}

/// The turn clocks a friend room may choose for a game, and what it gets when it chooses
/// none (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FriendClock {
    /// The rule the refusal cites (C12, Q28, B20, M10, J19).
    pub rule: &'static str,
    /// The clocks offered besides 0.
    pub choices: ClockChoices,
    /// What a room asking for 0 gets: 0 (untimed) where the rule offers it, else the rule's
    /// clock.
    pub zero_means: u64,
    /// The choices in words, for the refusal.
    pub described: &'static str,
}

/// A rule's clock choices, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockChoices {
    /// Exactly these.
    OneOf(&'static [u64]),
    /// Anything from the first to the second, both included.
    Between(u64, u64),
}

impl ClockChoices {
    /// Whether `turn_ms` is one of these clocks.
    pub fn offers(&self, turn_ms: u64) -> bool {
        match *self {
            ClockChoices::OneOf(choices) => choices.contains(&turn_ms),
            ClockChoices::Between(least, most) => (least..=most).contains(&turn_ms),
        }
    }
}

impl FriendClock {
    /// The clock a friend room asking for `turn_ms` plays with, or INVALID_ARGUMENT naming
    /// the rule and its choices.
    pub fn resolve(&self, turn_ms: u64) -> Result<u64, CatalogError> {
        if turn_ms == 0 {
            return Ok(self.zero_means);
        }
        if self.choices.offers(turn_ms) {
            return Ok(turn_ms);
        }
        Err(CatalogError::InvalidArgument(format!(
            "settings.turn_time_ms: {}: a friend room's clock is {}, not {turn_ms} ms",
            self.rule, self.described
        )))
    }
}

impl GameKind {
    /// The game's table policy.
    pub const fn table_policy(self) -> TablePolicy {
        match self {
            GameKind::Caro => caro::TABLE,
            GameKind::Quoridor => quoridor::TABLE,
            GameKind::Backgammon => backgammon::TABLE,
            GameKind::Junqi => junqi::TABLE,
            GameKind::Mancala => mancala::TABLE,
        }
    }
}

/// The table policy of the game the settings choose.
pub fn table_policy(settings: &pb::GameSettings) -> Result<TablePolicy, CatalogError> {
    GameKind::of(settings).map(GameKind::table_policy)
}

/// The rating pool (rule set) of games played with `settings` at a table of `seats`, e.g.
/// `caro/15/blocked-ends`, `quoridor/9/classic/ffa4`, `backgammon/money`.
pub fn rating_pool(settings: &pb::GameSettings, seats: usize) -> Result<String, CatalogError> {
    use pb::game_settings::Options;
    match settings.options.as_ref() {
        Some(Options::Caro(caro)) => Ok(crate::games::caro::options_from_pb(caro)?.ruleset()),
        Some(Options::Quoridor(options)) => Ok(quoridor::ruleset(
            &quoridor::options_from_pb(options)?,
            seats,
        )),
        Some(Options::Backgammon(options)) => {
            Ok(backgammon::ruleset(&backgammon::options_from_pb(options)?).to_owned())
        }
        Some(Options::Mancala(options)) => Ok(mancala::ruleset(
            mancala::options_from_pb(options)?.rule_set,
        )),
        Some(Options::Junqi(_)) => Ok(junqi::RULESET.to_owned()),
        None => Err(CatalogError::InvalidArgument(
            "settings.options: choose a game".into(),
        )),
    }
}

/// The server's quick-match clock of each game: the table policies' defaults, or what the
/// operator configured. Its text form is the matchmaking flag's: `caro=60000,quoridor=30000`
/// (any game left out keeps its default; an empty text keeps every default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuickMatchClocks {
    turn_ms: [u64; GameKind::ALL.len()],
}

impl Default for QuickMatchClocks {
    fn default() -> Self {
        QuickMatchClocks {
            turn_ms: GameKind::ALL.map(|kind| kind.table_policy().default_turn_ms),
        }
    }
}

impl QuickMatchClocks {
    fn index(kind: GameKind) -> usize {
        GameKind::ALL
            .iter()
            .position(|k| *k == kind)
            .unwrap_or_default()
    }

    /// The server's clock for quick matches of `kind`.
    pub fn turn_ms(&self, kind: GameKind) -> u64 {
        self.turn_ms[Self::index(kind)]
    }

    /// The same clocks with `kind`'s set to `turn_ms`.
    pub fn with(mut self, kind: GameKind, turn_ms: u64) -> Self {
        self.turn_ms[Self::index(kind)] = turn_ms;
        self
    }

    /// The clock of a quick match queued with these (normalised, see [`QuickMatch`])
    /// settings: the clock its players queued for where their game lets them choose one
    /// ([`TablePolicy::quick_match_clock`]), else the server's.
    pub fn clock_for(&self, settings: &pb::GameSettings) -> u64 {
        match GameKind::of(settings) {
            Ok(kind)
                if kind.table_policy().quick_match_clock.is_some()
                    && settings.turn_time_ms != 0 =>
            {
                settings.turn_time_ms
            }
            Ok(kind) => self.turn_ms(kind),
            Err(_) => 0,
        }
    }
}

/// Reads `game=ms` pairs separated by commas (`caro=60000,quoridor=30000`). An unknown game,
/// a game named twice, a number that is not whole milliseconds or a clock past the game's
/// cap (Q28, M10) is refused with a message naming it.
impl std::str::FromStr for QuickMatchClocks {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let mut clocks = QuickMatchClocks::default();
        let mut named = Vec::new();
        for pair in text
            .split(',')
            .map(str::trim)
            .filter(|pair| !pair.is_empty())
        {
            let (game, ms) = pair
                .split_once('=')
                .ok_or_else(|| format!("`{pair}`: write <game>=<milliseconds>, e.g. caro=60000"))?;
            let (game, ms) = (game.trim(), ms.trim());
            let kind = GameKind::from_name(game).ok_or_else(|| {
                let games: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "`{pair}`: no game is called `{game}` (the games: {})",
                    games.join(", ")
                )
            })?;
            if named.contains(&kind) {
                return Err(format!("`{pair}`: {game}'s clock is given twice"));
            }
            named.push(kind);
            let turn_ms: u64 = ms
                .parse()
                .map_err(|_| format!("`{pair}`: `{ms}` is not a whole number of milliseconds"))?;
            let policy = kind.table_policy();
            if let Some(most) = policy.max_turn_ms
                && turn_ms > most
            {
                return Err(format!(
                    "`{pair}`: {}: a {game} turn is at most {most} ms",
                    policy.clock_rule
                ));
            }
            clocks = clocks.with(kind, turn_ms);
        }
        Ok(clocks)
    }
}

/// The flag's form of every clock: `caro=60000,quoridor=30000,…` in the contract's order.
impl std::fmt::Display for QuickMatchClocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, kind) in GameKind::ALL.iter().enumerate() {
            let comma = if i == 0 { "" } else { "," };
            write!(f, "{comma}{kind}={}", self.turn_ms(*kind))?;
        }
        Ok(())
    }
}

/// What a ticket is queued for: its queue (the rule set) and the settings the game will be
/// created with, normalised so that every ticket of a queue carries the same options.
#[derive(Clone, Debug, PartialEq)]
pub struct QuickMatch {
    /// The queue, e.g. `caro/15/blocked-ends`.
    pub queue: String,
    /// The rating pool of the games it makes (the game's rule set, e.g.
    /// `backgammon/money` for every money queue): the ratings that pair players.
    pub rating_pool: String,
    /// The game's options; `turn_time_ms` 0 lets the matcher set the server's quick-match
    /// clock (Quoridor players may ask for one of Q28's, which then names the queue).
    pub settings: pb::GameSettings,
}

/// The suffix of a casual queue: `caro/15/blocked-ends/casual` seats the same rule set as
/// `caro/15/blocked-ends`, unrated. M12: ranked games need a registered account, so guests
/// queue here (and accounts may choose to).
pub const CASUAL_QUEUE_SUFFIX: &str = "/casual";

/// Whether `queue` is a casual (unrated) queue.
pub fn is_casual_queue(queue: &str) -> bool {
    queue.ends_with(CASUAL_QUEUE_SUFFIX)
}

impl QuickMatch {
    /// The casual twin of this queue: same rule set, settings and rating pool (players are
    /// still paired by nothing but arrival: casual tickets carry no rating), but its games
    /// are never rated.
    pub fn casual(mut self) -> Self {
        self.queue.push_str(CASUAL_QUEUE_SUFFIX);
        self
    }

    /// Whether games made by this queue are rated.
    pub fn is_rated(&self) -> bool {
        !is_casual_queue(&self.queue)
    }

    /// The queue for `settings`. Caro queues by board size and the two optional rules (C16);
    /// Junqi has one queue with the server's J19 clock; other games have no quick match yet.
    pub fn from_settings(settings: Option<&pb::GameSettings>) -> Result<Self, CatalogError> {
        let settings =
            settings.ok_or_else(|| CatalogError::InvalidArgument("settings: required".into()))?;
        let options = settings.options.as_ref().ok_or_else(|| {
            CatalogError::InvalidArgument("settings.options: choose a game".into())
        })?;
        match options {
            pb::game_settings::Options::Caro(caro) => {
                let options = crate::games::caro::options_from_pb(caro)?;
                let normalised = pb::CaroOptions {
                    board_size: u32::from(options.size),
                    blocked_ends_off: !options.blocked_ends,
                    exactly_five: options.exactly_five,
                };
                Ok(QuickMatch {
                    queue: options.ruleset(),
                    rating_pool: options.ruleset(),
                    settings: pb::GameSettings {
                        options: Some(pb::game_settings::Options::Caro(normalised)),
                        turn_time_ms: 0,
                    },
                })
            }
            pb::game_settings::Options::Quoridor(quoridor) => {
                quoridor_quick_match(quoridor, settings.turn_time_ms)
            }
            // Junqi has no options; the clock is the server's (J19: 30 s).
            pb::game_settings::Options::Junqi(_) => Ok(QuickMatch {
                queue: junqi::RULESET.to_owned(),
                rating_pool: junqi::RULESET.to_owned(),
                settings: pb::GameSettings {
                    options: Some(pb::game_settings::Options::Junqi(pb::JunqiOptions {})),
                    turn_time_ms: 0,
                },
            }),
            pb::game_settings::Options::Backgammon(backgammon) => {
                backgammon_quick_match(backgammon, settings.turn_time_ms)
            }
            pb::game_settings::Options::Mancala(mancala) => {
                mancala_quick_match(mancala, settings.turn_time_ms)
            }
        }
    }
}

/// Backgammon quick match: money games queued by the optional rules that are on
/// (`backgammon/money/a2-b-j`), or matches by their length (`backgammon/match/5`, B22), plus
/// `/t<s>` when the player asked for one of B20's clocks (30, 60, 90 or 120 s) instead of the
/// server's default (0).
fn backgammon_quick_match(
    options: &pb::BackgammonOptions,
    turn_time_ms: u64,
) -> Result<QuickMatch, CatalogError> {
    let parsed = backgammon::options_from_pb(options)?;
    let seconds = u32::try_from(turn_time_ms / 1000).unwrap_or(u32::MAX);
    if !turn_time_ms.is_multiple_of(1000) {
        return Err(CatalogError::InvalidArgument(format!(
            "settings.turn_time_ms: B20: 30, 60, 90 or 120 s (or 0 for the default), \
             not {turn_time_ms} ms"
        )));
    }
    backgammon::validate_turn_seconds(seconds)
        .map_err(|e| CatalogError::InvalidArgument(format!("settings.turn_time_ms: {e}")))?;
    // B22: a match queues by its length (`backgammon/match/5`) and starts at 0-0; the
    // optional rules are off in matches, which `options_from_pb` has checked.
    let mut queue = match &parsed.match_game {
        Some(game) => format!("{}/{}", backgammon::MATCH_RULESET, game.length),
        None => backgammon::money_queue(&parsed),
    };
    if seconds != 0 {
        queue.push_str(&format!("/t{seconds}"));
    }
    Ok(QuickMatch {
        queue,
        rating_pool: backgammon::ruleset(&parsed).to_owned(),
        settings: pb::GameSettings {
            options: Some(pb::game_settings::Options::Backgammon(
                backgammon::options_to_pb(&parsed),
            )),
            turn_time_ms: u64::from(seconds) * 1000,
        },
    })
}

/// Mancala quick match: one queue per rule set (`mancala/kalah`, `mancala/congklak`, M12),
/// who sows first drawn at random (M3), and the server's M10 clock (30 s per sow).
fn mancala_quick_match(
    options: &pb::MancalaOptions,
    turn_time_ms: u64,
) -> Result<QuickMatch, CatalogError> {
    let parsed = mancala::options_from_pb(options)?;
    if turn_time_ms != 0 && turn_time_ms != mancala::MAX_TURN_MS {
        return Err(CatalogError::InvalidArgument(format!(
            "settings.turn_time_ms: M10: quick matches play 30 s per sow (or 0), not {turn_time_ms} ms"
        )));
    }
    let normalised = pb::MancalaOptions {
        first_player: pb::MancalaFirstPlayer::Random as i32,
        ..mancala::options_to_pb(&parsed)
    };
    Ok(QuickMatch {
        queue: mancala::ruleset(parsed.rule_set),
        rating_pool: mancala::ruleset(parsed.rule_set),
        settings: pb::GameSettings {
            options: Some(pb::game_settings::Options::Mancala(normalised)),
            turn_time_ms: 0,
        },
    })
}

/// Quoridor quick match: two-player classic games and free-for-all tables of 3-8 seats that
/// start when full. The queue is the rule set (`quoridor/9/classic/ffa4`), plus `/t<s>` when
/// the player asked for a clock (15-90 s, whole seconds) instead of the server's default.
fn quoridor_quick_match(
    options: &pb::QuoridorOptions,
    turn_time_ms: u64,
) -> Result<QuickMatch, CatalogError> {
    let parsed = quoridor::options_from_pb(options)?;
    if parsed.mode != ludus_quoridor::Mode::FreeForAll {
        return Err(CatalogError::InvalidArgument(
            "settings.quoridor.mode: quick match seats free-for-all tables (Q22); \
             teams and tournaments are played in rooms"
                .into(),
        ));
    }
    let offered = quoridor::TABLE
        .quick_match_clock
        .is_some_and(|clocks| clocks.offers(turn_time_ms));
    if turn_time_ms != 0 && !offered {
        return Err(CatalogError::InvalidArgument(format!(
            "settings.turn_time_ms: Q28: 15 to 90 s per turn (or 0 for 30 s), not {turn_time_ms} ms"
        )));
    }
    // Q8: who moves first is drawn at random in a quick match.
    let parsed = ludus_quoridor::QuoridorOptions {
        first_seat: None,
        ..parsed
    };
    let players = (options.players as usize).max(2);
    let rating_pool = quoridor::ruleset(&parsed, players);
    let mut queue = rating_pool.clone();
    let seconds = turn_time_ms / 1000;
    if seconds != 0 {
        queue.push_str(&format!("/t{seconds}"));
    }
    Ok(QuickMatch {
        queue,
        rating_pool,
        settings: pb::GameSettings {
            options: Some(pb::game_settings::Options::Quoridor(
                quoridor::options_to_pb(&parsed, players),
            )),
            turn_time_ms: seconds * 1000,
        },
    })
}

/// Seats at a table of these settings: a Quoridor table's `players` (2-8, Q4); every other
/// game seats two.
pub fn table_seats(settings: &pb::GameSettings) -> usize {
    match &settings.options {
        Some(pb::game_settings::Options::Quoridor(quoridor)) => (quoridor.players as usize).max(2),
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Settings of `options` with a turn clock of `turn_time_ms` (also for the submodules'
    /// tests).
    pub(super) fn settings(
        options: pb::game_settings::Options,
        turn_time_ms: u64,
    ) -> pb::GameSettings {
        pb::GameSettings {
            options: Some(options),
            turn_time_ms,
        }
    }

    #[test]
    fn default_clocks_are_each_games_rule() {
        // C12 1 min, Q28 30 s, B20 60 s, J19 30 s, M10 30 s.
        let defaults: Vec<_> = GameKind::ALL
            .iter()
            .map(|kind| (kind.name(), kind.table_policy().default_turn_ms))
            .collect();
        assert_eq!(
            defaults,
            [
                ("caro", 60_000),
                ("quoridor", 30_000),
                ("backgammon", 60_000),
                ("mancala", 30_000),
                ("junqi", 30_000),
            ]
        );
        let quoridor = GameKind::Quoridor.table_policy();
        assert_eq!((quoridor.min_seats, quoridor.max_seats), (2, 8), "Q4");
        assert_eq!(quoridor.max_turn_ms, Some(90_000), "Q28");
        assert_eq!(
            GameKind::Mancala.table_policy().max_turn_ms,
            Some(30_000),
            "M10"
        );
        assert!(GameKind::ALL.iter().all(|k| k.table_policy().rated));
    }

    #[test]
    fn quick_match_clock_is_the_players_choice_only_where_the_rules_let_them_choose() {
        use pb::game_settings::Options;
        let clocks = QuickMatchClocks::default().with(GameKind::Caro, 5_000);
        let caro = settings(Options::Caro(pb::CaroOptions::default()), 0);
        assert_eq!(clocks.clock_for(&caro), 5_000, "the operator's caro clock");
        let quoridor = settings(Options::Quoridor(pb::QuoridorOptions::default()), 45_000);
        assert_eq!(
            clocks.clock_for(&quoridor),
            45_000,
            "Q28: the players chose 45 s"
        );
        let quoridor = settings(Options::Quoridor(pb::QuoridorOptions::default()), 0);
        assert_eq!(clocks.clock_for(&quoridor), 30_000);
        let backgammon = settings(
            Options::Backgammon(pb::BackgammonOptions::default()),
            90_000,
        );
        assert_eq!(
            clocks.clock_for(&backgammon),
            90_000,
            "B20: the players chose 90 s"
        );
        let junqi = settings(Options::Junqi(pb::JunqiOptions {}), 0);
        assert_eq!(clocks.clock_for(&junqi), 30_000, "J19");
        assert_eq!(clocks.clock_for(&pb::GameSettings::default()), 0);
    }

    #[test]
    fn the_clocks_flag_names_games_and_keeps_the_defaults_of_the_others() {
        let clocks: QuickMatchClocks = "caro=5000, quoridor=45000".parse().expect("valid");
        assert_eq!(clocks.turn_ms(GameKind::Caro), 5_000);
        assert_eq!(clocks.turn_ms(GameKind::Quoridor), 45_000);
        assert_eq!(clocks.turn_ms(GameKind::Junqi), 30_000, "J19: left out");
        assert_eq!(
            "".parse::<QuickMatchClocks>(),
            Ok(QuickMatchClocks::default())
        );
        assert_eq!(
            clocks.to_string().parse::<QuickMatchClocks>(),
            Ok(clocks),
            "its text form reads back"
        );
        for (flag, names) in [
            ("chess=1000", "`chess`"),
            ("caro=1m", "`1m`"),
            ("caro", "<game>=<milliseconds>"),
            ("caro=1000,caro=2000", "twice"),
            ("quoridor=120000", "Q28"),
            ("mancala=60000", "M10"),
        ] {
            let refusal = flag.parse::<QuickMatchClocks>().expect_err(flag);
            assert!(refusal.contains(names), "{flag}: {refusal}");
        }
    }

    #[test]
    fn every_table_rule_a_service_applies_is_in_the_policy() {
        // C17: ten Caro take-backs; M11: the last sow; none elsewhere.
        let take_backs: Vec<_> = GameKind::ALL
            .iter()
            .map(|kind| kind.table_policy().take_backs)
            .collect();
        assert_eq!(take_backs, [10, 0, 0, 1, 0]);
        // C10/C11 first movers, Q29 auto-start and Q30-Q36 points in rooms.
        let caro = GameKind::Caro.table_policy();
        let quoridor = GameKind::Quoridor.table_policy();
        assert!(caro.room_first_mover && !caro.auto_start && !caro.scores_points);
        assert!(!quoridor.room_first_mover && quoridor.auto_start && quoridor.scores_points);
        assert_eq!((caro.seats_rule, quoridor.seats_rule), ("C12", "Q4"));
        for kind in GameKind::ALL {
            let policy = kind.table_policy();
            assert_eq!(policy.kind, kind, "{kind}'s file holds its own policy");
            assert_eq!(policy.friend_clock.rule, policy.clock_rule, "{kind}");
        }
    }

    #[test]
    fn m12_casual_queues_are_the_rated_rule_sets_unrated() {
        let rated = QuickMatch::from_settings(Some(&settings(
            pb::game_settings::Options::Caro(pb::CaroOptions::default()),
            0,
        )))
        .expect("caro");
        assert!(rated.is_rated());
        let casual = rated.clone().casual();
        assert_eq!(casual.queue, format!("{}/casual", rated.queue));
        assert!(!casual.is_rated() && is_casual_queue(&casual.queue));
        assert_eq!(casual.settings, rated.settings, "the same rules");
        assert_eq!(casual.rating_pool, rated.rating_pool);
    }

    #[test]
    fn rating_pools_are_the_rule_sets() {
        use pb::game_settings::Options;
        let defaults = [
            (Options::Caro(Default::default()), 2, "caro/15/blocked-ends"),
            (
                Options::Quoridor(Default::default()),
                4,
                "quoridor/9/classic/ffa4",
            ),
            (
                Options::Backgammon(Default::default()),
                2,
                "backgammon/money",
            ),
            (Options::Mancala(Default::default()), 2, "mancala/kalah"),
            (Options::Junqi(pb::JunqiOptions {}), 2, "junqi/flip"),
        ];
        for (options, seats, pool) in defaults {
            let settings = settings(options, 0);
            assert_eq!(rating_pool(&settings, seats).expect("valid"), pool);
        }
        assert!(matches!(
            rating_pool(&pb::GameSettings::default(), 2),
            Err(CatalogError::InvalidArgument(_))
        ));
    }
}
