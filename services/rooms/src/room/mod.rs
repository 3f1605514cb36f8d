//! [`Room`]: the room state machine, pure (no I/O, no clock: callers pass `now_ms` and a
//! [`RandomSource`]). Every operation checks, then mutates and returns the [`Change`]s it
//! made, or refuses with a [`RoomError`] and changes nothing. The service stores the room
//! after each operation in one compare-and-set commit with one event carrying the changes.
//!
//! Phases: `Lobby` (seats fill, players get ready) → `Playing` (the room's games run) →
//! back to `Lobby`, or a `Countdown` (Q29 auto-start, `Paused` by the host) that starts the
//! next game when it fires. A knockout tournament (Q24) keeps its [`Bracket`] across rounds.
//!
//! # Layout (one file per reason to change)
//! - [`seating`]: members, seats and teams (Q23), readiness, leaving, and the host's powers
//!   (kick, hand over, settings, computer players).
//! - [`tables`]: starting the room's games and recording how they ended.
//! - [`first_mover`]: who moves first where the room chooses it: C10's choice and
//!   rock-paper-scissors, C11's loser-first.
//! - [`countdown`]: the Q29 auto-start countdown, paused and resumed by the host.
//! - [`tournament`]: the Q24 knockout ([`Bracket`]) and its matches.
//! - [`scores`]: the scoreboard (wins, draws, Q30-Q36 points).
//! - [`chat`]: chat lines and their limits.

mod chat;
mod countdown;
mod first_mover;
mod scores;
mod seating;
mod tables;
mod tournament;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use ludus_proto::pb;
use ludus_rules::RandomSource;
use serde::{Deserialize, Serialize};

use crate::code::RoomCode;
use crate::error::{RoomError, reason};
use crate::settings::{RoomMode, RoomSettings};

pub use chat::{CHAT_BURST, CHAT_KEPT, CHAT_MAX_CHARS, CHAT_WINDOW_MS, ChatLine};
use first_mover::LastGame;
pub use first_mover::{Hand, RockPaperScissors};
#[cfg(doc)]
use ludus_catalog::policy::Bracket;
pub use scores::Score;
pub use tournament::Tournament;

/// A player's stable id (from the gateway's token).
pub type PlayerId = String;

/// C16: a friend room has up to 50 spectators.
pub const MAX_SPECTATORS: usize = 50;

/// A team in team mode (Q23): the catalog's.
pub use ludus_catalog::Team;

/// A seat held by a member.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// Q23: the team chosen, in team mode.
    pub team: Option<Team>,
    pub ready: bool,
    /// When the member sat down, in the room's own order: seats are taken in this order, and
    /// a team's members take its turns in it (Q23).
    pub order: u64,
}

/// Someone in the room: a seated player or a spectator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub player_id: PlayerId,
    pub name: String,
    /// A registered account (not a guest).
    pub account: bool,
    pub seat: Option<Seat>,
    /// Times of the member's recent chat lines (at most [`CHAT_BURST`]).
    chat_times: Vec<u64>,
    /// A computer player's level (canonical name; ARCHITECTURE.md, "Computer players"): the host seated it, it is always
    /// ready, and the bots service plays its seat in the room's games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<String>,
}

/// One game the room runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub game_id: String,
    /// Players in seat order (seat 0 first).
    pub players: Vec<PlayerId>,
    /// The settings the game is created with.
    #[serde(with = "crate::settings::encoded")]
    pub settings: pb::GameSettings,
    /// Created unrated (M12): the room is not rated or a player has no account.
    pub casual: bool,
    /// The tournament match this game plays (Q24).
    pub bracket_match: Option<usize>,
    /// Set once the game finished.
    pub result: Option<TableResult>,
}

/// How a room's game ended, by player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableResult {
    Won { winners: Vec<PlayerId> },
    Drawn,
    Cancelled,
}

/// The room's phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Waiting for the host to start.
    Lobby,
    /// The next game starts at `due_ms` (Q29); `id` tells a stale timer from the live one.
    Countdown { id: u64, due_ms: u64 },
    /// The host paused the countdown with `remaining_ms` left.
    Paused { id: u64, remaining_ms: u64 },
    /// The room's games (`Room::tables`) are being played.
    Playing,
}

/// What an operation changed; the service sends them to subscribers as one event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Change {
    Created,
    Joined {
        player_id: PlayerId,
        seated: bool,
    },
    Left {
        player_id: PlayerId,
    },
    Kicked {
        player_id: PlayerId,
    },
    Seated {
        player_id: PlayerId,
        team: Option<Team>,
    },
    Unseated {
        player_id: PlayerId,
    },
    Ready {
        player_id: PlayerId,
        ready: bool,
    },
    SettingsChanged,
    HostChanged {
        player_id: PlayerId,
    },
    RockPaperScissors(RockPaperScissors),
    GamesStarted {
        game_ids: Vec<String>,
    },
    GameFinished {
        game_id: String,
        result: TableResult,
    },
    CountdownStarted {
        due_ms: u64,
    },
    CountdownPaused {
        remaining_ms: u64,
    },
    /// The countdown ended without a game (the table was no longer complete), or the host
    /// changed the settings.
    CountdownCancelled {
        why: String,
    },
    TournamentRound {
        round: u32,
        bye: Option<PlayerId>,
    },
    Champion {
        player_id: PlayerId,
    },
    Chat(ChatLine),
}

/// A room.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Room {
    pub code: RoomCode,
    /// Unix ms of creation; part of the room's game ids, so a code used again later never
    /// names an old room's games.
    pub created_ms: u64,
    pub host: PlayerId,
    pub settings: RoomSettings,
    /// In join order.
    pub members: Vec<Member>,
    pub phase: Phase,
    /// The games of the current (or last) start.
    pub tables: Vec<Table>,
    /// Per game name (`caro`, `quoridor`…): player -> score. Switching games keeps each.
    pub scoreboard: BTreeMap<String, BTreeMap<PlayerId, Score>>,
    pub chat: VecDeque<ChatLine>,
    pub tournament: Option<Tournament>,
    /// C10's draw for the current pair, made when the guest sat down.
    pub rock_paper_scissors: Option<RockPaperScissors>,
    last_game: Option<LastGame>,
    kicked: BTreeSet<PlayerId>,
    /// Games created so far (numbers the game ids).
    games_started: u64,
    /// Orders seats and countdowns.
    counter: u64,
}

/// Who is asking, as the gateway's token says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub player_id: PlayerId,
    pub name: String,
    pub account: bool,
}

type Changes = Result<Vec<Change>, RoomError>;

impl Room {
    /// A room hosted by `host`, who joins it (seated unless `watch`). Ping44: the host must
    /// be a registered account.
    pub fn create(
        code: RoomCode,
        host: &Caller,
        settings: RoomSettings,
        watch: bool,
        now_ms: u64,
    ) -> Result<(Room, Vec<Change>), RoomError> {
        if !host.account {
            return Err(RoomError::precondition(
                reason::ACCOUNT_REQUIRED,
                "only a registered account can host a room: register, then create it",
            ));
        }
        let mut room = Room {
            code,
            created_ms: now_ms,
            host: host.player_id.clone(),
            settings,
            members: Vec::new(),
            phase: Phase::Lobby,
            tables: Vec::new(),
            scoreboard: BTreeMap::new(),
            chat: VecDeque::new(),
            tournament: None,
            rock_paper_scissors: None,
            last_game: None,
            kicked: BTreeSet::new(),
            games_started: 0,
            counter: 0,
        };
        let mut changes = vec![Change::Created];
        // A fresh room has room for its host, with red in team mode (Q23; they may move);
        // no randomness is needed for one seat.
        let team = (room.settings.mode() == RoomMode::Teams).then_some(Team::Red);
        changes.extend(room.join(host, !watch, team, &mut NoRandom)?);
        Ok((room, changes))
    }

    /// The member, if `player` is in the room.
    pub fn member(&self, player: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.player_id == player)
    }

    fn member_mut(&mut self, player: &str) -> Option<&mut Member> {
        self.members.iter_mut().find(|m| m.player_id == player)
    }

    /// Seated members in seat order.
    pub fn seated(&self) -> Vec<&Member> {
        let mut seated: Vec<&Member> = self.members.iter().filter(|m| m.seat.is_some()).collect();
        seated.sort_by_key(|m| m.seat.as_ref().map_or(0, |s| s.order));
        seated
    }

    /// Members without a seat.
    pub fn spectators(&self) -> impl Iterator<Item = &Member> {
        self.members.iter().filter(|m| m.seat.is_none())
    }

    /// True when no person is in the room (it then expires, see the store): computer
    /// players do not keep a room alive.
    pub fn is_empty(&self) -> bool {
        self.members.iter().all(|m| m.computer.is_some())
    }

    /// Tables whose game is still being played.
    pub fn live_tables(&self) -> impl Iterator<Item = &Table> {
        self.tables.iter().filter(|t| t.result.is_none())
    }

    fn require_member(&self, player: &str) -> Result<&Member, RoomError> {
        self.member(player).ok_or_else(|| {
            RoomError::denied(
                reason::NOT_IN_ROOM,
                "you are not in this room: join it first",
            )
        })
    }

    fn require_host(&self, player: &str, what: &str) -> Result<(), RoomError> {
        self.require_member(player)?;
        if self.host != player {
            return Err(RoomError::denied(
                reason::NOT_HOST,
                format!("only the host can {what}"),
            ));
        }
        Ok(())
    }

    fn is_playing(&self, player: &str) -> bool {
        self.live_tables()
            .any(|t| t.players.iter().any(|p| p == player))
    }
}

/// For the one operation that draws nothing (the host's own seat in a new room).
struct NoRandom;

impl RandomSource for NoRandom {
    fn below(&mut self, _bound: u32) -> u32 {
        0
    }
}

#[cfg(test)]
mod tests;
