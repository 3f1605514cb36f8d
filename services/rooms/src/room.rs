//! [`Room`]: the room state machine, pure (no I/O, no clock: callers pass `now_ms` and a
//! [`RandomSource`]). Every operation checks, then mutates and returns the [`Change`]s it
//! made, or refuses with a [`RoomError`] and changes nothing. The service stores the room
//! after each operation in one compare-and-set commit with one event carrying the changes.
//!
//! Phases: `Lobby` (seats fill, players get ready) → `Playing` (the room's games run) →
//! back to `Lobby`, or a `Countdown` (Q29 auto-start, `Paused` by the host) that starts the
//! next game when it fires. A knockout tournament (Q24) keeps its [`Bracket`] across rounds.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use ludus_proto::ids::is_refused_in_name;
use ludus_proto::pb;
use ludus_quoridor::{Bracket, MatchResult};
use ludus_rules::{GameResult, Outcome, RandomSource};
use serde::{Deserialize, Serialize};

use crate::code::RoomCode;
use crate::error::{RoomError, reason};
use crate::settings::{AUTO_START_MS, FirstMover, RoomMode, RoomSettings};

/// A player's stable id (from the gateway's token).
pub type PlayerId = String;

/// C16: a friend room has up to 50 spectators.
pub const MAX_SPECTATORS: usize = 50;
/// Chat lines kept and sent on join.
pub const CHAT_KEPT: usize = 100;
/// Longest chat line, in characters.
pub const CHAT_MAX_CHARS: usize = 200;
/// A player may send this many lines per [`CHAT_WINDOW_MS`].
pub const CHAT_BURST: usize = 5;
/// The chat rate window.
pub const CHAT_WINDOW_MS: u64 = 10_000;

/// A Quoridor team (Q23).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Team {
    Red,
    Yellow,
}

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
    /// A computer player's level (canonical name; issue 15): the host seated it, it is always
    /// ready, and the bots service plays its seat in the room's games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<String>,
}

/// Rock, paper or scissors (C10).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Hand {
    Rock,
    Paper,
    Scissors,
}

impl Hand {
    fn draw(rng: &mut dyn RandomSource) -> Hand {
        match rng.below(3) % 3 {
            0 => Hand::Rock,
            1 => Hand::Paper,
            _ => Hand::Scissors,
        }
    }

    fn beats(self, other: Hand) -> bool {
        matches!(
            (self, other),
            (Hand::Rock, Hand::Scissors)
                | (Hand::Paper, Hand::Rock)
                | (Hand::Scissors, Hand::Paper)
        )
    }
}

/// C10's draw: each throw of both players, the last one decisive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RockPaperScissors {
    pub players: [PlayerId; 2],
    /// Every throw, `[players[0]'s, players[1]'s]`; all but the last were equal.
    pub throws: Vec<[Hand; 2]>,
    pub winner: PlayerId,
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

/// One player's line on a game's scoreboard.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Score {
    pub name: String,
    pub played: u32,
    pub won: u32,
    pub drawn: u32,
    /// Quoridor's points (Q30-Q36); other games count wins and draws only.
    pub points: i64,
}

/// A chat line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    pub player_id: PlayerId,
    pub name: String,
    pub text: String,
    pub at_ms: u64,
}

/// The last game of a Caro pairing, for C11.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct LastGame {
    /// The two players, sorted.
    pair: [PlayerId; 2],
    first: PlayerId,
    loser: Option<PlayerId>,
}

/// A knockout tournament under way (Q24).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tournament {
    /// Entrants; the bracket numbers them by their index here.
    pub entrants: Vec<PlayerId>,
    pub bracket: Bracket,
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

    /// The host seats a computer player at `level` (issue 15), ready at once, on the team
    /// with fewer players in team mode. It leaves when the host removes it (`kick`).
    pub fn add_computer(
        &mut self,
        host: &str,
        level: ludus_rules::Level,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        self.require_host(host, "add a computer player")?;
        let team = (self.settings.mode() == RoomMode::Teams).then(|| {
            let on = |team| {
                self.seated()
                    .iter()
                    .filter(|m| m.seat.as_ref().and_then(|s| s.team) == Some(team))
                    .count()
            };
            if on(Team::Yellow) < on(Team::Red) {
                Team::Yellow
            } else {
                Team::Red
            }
        });
        self.check_free_seat(team)?;
        let number = (1..)
            .find(|n| {
                let id = format!(
                    "{}{}-{n}",
                    ludus_catalog::bots::BOT_ID_PREFIX,
                    self.code.as_str()
                );
                self.member(&id).is_none()
            })
            .unwrap_or(1);
        let player_id = format!(
            "{}{}-{number}",
            ludus_catalog::bots::BOT_ID_PREFIX,
            self.code.as_str()
        );
        let title = ludus_catalog::bots::level_title(self.settings.kind(), level);
        self.members.push(Member {
            player_id: player_id.clone(),
            name: format!("Computer {number} ({title})"),
            account: false,
            seat: None,
            chat_times: Vec::new(),
            computer: Some(level.name().to_owned()),
        });
        let mut changes = vec![Change::Joined {
            player_id: player_id.clone(),
            seated: true,
        }];
        changes.extend(self.take_seat(&player_id, team, rng)?);
        changes.extend(self.set_ready(&player_id, true)?);
        Ok(changes)
    }

    /// The countdown to arm, if one runs: (its id, due time).
    pub fn countdown(&self) -> Option<(u64, u64)> {
        match self.phase {
            Phase::Countdown { id, due_ms } => Some((id, due_ms)),
            _ => None,
        }
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

    /// Joins as a player (taking a seat, with `team` in team mode) or as a spectator. Joining
    /// again changes nothing, except that a spectator asking to play takes a seat.
    pub fn join(
        &mut self,
        caller: &Caller,
        as_player: bool,
        team: Option<Team>,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        if self.kicked.contains(&caller.player_id) {
            return Err(RoomError::denied(
                reason::KICKED,
                "the host removed you from this room",
            ));
        }
        if let Some(member) = self.member(&caller.player_id) {
            if as_player && member.seat.is_none() {
                return self.take_seat(&caller.player_id, team, rng);
            }
            return Ok(Vec::new());
        }
        if as_player {
            self.check_free_seat(team)?;
        } else if self.spectators().count() >= MAX_SPECTATORS {
            return Err(RoomError::exhausted(
                reason::SPECTATORS_FULL,
                format!("C16: a room has up to {MAX_SPECTATORS} spectators, and this one is full"),
            ));
        }
        self.members.push(Member {
            player_id: caller.player_id.clone(),
            name: caller.name.clone(),
            account: caller.account,
            seat: None,
            chat_times: Vec::new(),
            computer: None,
        });
        let mut changes = vec![Change::Joined {
            player_id: caller.player_id.clone(),
            seated: as_player,
        }];
        if as_player {
            changes.extend(self.take_seat(&caller.player_id, team, rng)?);
        }
        Ok(changes)
    }

    fn check_free_seat(&self, team: Option<Team>) -> Result<(), RoomError> {
        let players = self.settings.players();
        let seated = self.seated();
        if seated.len() >= players {
            return Err(RoomError::exhausted(
                reason::ROOM_FULL,
                format!("the room is full ({players} players): join as a spectator to watch"),
            ));
        }
        if self.settings.mode() == RoomMode::Teams {
            let Some(team) = team else {
                return Err(RoomError::invalid(
                    "team",
                    "Q23",
                    "team: Q23: choose red or yellow",
                ));
            };
            let on_team = seated
                .iter()
                .filter(|m| m.seat.as_ref().and_then(|s| s.team) == Some(team))
                .count();
            if on_team >= players / 2 {
                return Err(RoomError::exhausted(
                    reason::ROOM_FULL,
                    format!("Q23: team {team:?} is full ({} players)", players / 2),
                ));
            }
        }
        Ok(())
    }

    /// Sits the member down. One seat per player: a second one is ALREADY_EXISTS.
    pub fn take_seat(
        &mut self,
        player: &str,
        team: Option<Team>,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        let member = self.require_member(player)?;
        if member.seat.is_some() {
            return Err(RoomError::Exists {
                reason: reason::ALREADY_SEATED,
                message: "you already hold a seat in this room: one seat per player".into(),
            });
        }
        self.check_free_seat(team)?;
        let team = if self.settings.mode() == RoomMode::Teams {
            team
        } else {
            None
        };
        self.counter += 1;
        let order = self.counter;
        if let Some(m) = self.member_mut(player) {
            m.seat = Some(Seat {
                team,
                ready: false,
                order,
            });
        }
        let mut changes = vec![Change::Seated {
            player_id: player.to_owned(),
            team,
        }];
        changes.extend(self.draw_rock_paper_scissors(rng));
        Ok(changes)
    }

    /// C10: when the guest sits down at a Caro table whose first game is drawn by
    /// rock-paper-scissors, the server throws for both players until one wins.
    fn draw_rock_paper_scissors(&mut self, rng: &mut dyn RandomSource) -> Option<Change> {
        if self.settings.kind() != ludus_catalog::GameKind::Caro
            || self.settings.first_mover != FirstMover::RockPaperScissors
        {
            return None;
        }
        let seated = self.seated();
        let [a, b] = seated.as_slice() else {
            return None;
        };
        let players = [a.player_id.clone(), b.player_id.clone()];
        if self.pairing_has_played(&players) {
            return None;
        }
        let mut throws = Vec::new();
        let winner = loop {
            let throw = [Hand::draw(rng), Hand::draw(rng)];
            throws.push(throw);
            if throw[0].beats(throw[1]) {
                break players[0].clone();
            }
            if throw[1].beats(throw[0]) {
                break players[1].clone();
            }
            // Equal throws are drawn again (C10, decided).
        };
        let draw = RockPaperScissors {
            players,
            throws,
            winner,
        };
        self.rock_paper_scissors = Some(draw.clone());
        Some(Change::RockPaperScissors(draw))
    }

    fn pairing_has_played(&self, players: &[PlayerId; 2]) -> bool {
        self.last_game
            .as_ref()
            .is_some_and(|last| last.pair == sorted_pair(players))
    }

    /// Gives the seat up (the member stays as a spectator). Refused while the member plays.
    pub fn leave_seat(&mut self, player: &str) -> Changes {
        let member = self.require_member(player)?;
        if member.seat.is_none() {
            return Err(RoomError::precondition(
                reason::NOT_SEATED,
                "you hold no seat in this room",
            ));
        }
        if self.is_playing(player) {
            return Err(RoomError::precondition(
                reason::WRONG_STATE,
                "you are playing a game of this room: finish or resign it first",
            ));
        }
        if let Some(m) = self.member_mut(player) {
            m.seat = None;
        }
        self.rock_paper_scissors = None;
        let mut changes = vec![Change::Unseated {
            player_id: player.to_owned(),
        }];
        changes.extend(self.cancel_countdown_if_incomplete());
        Ok(changes)
    }

    /// Ready or not for the next game.
    pub fn set_ready(&mut self, player: &str, ready: bool) -> Changes {
        self.require_member(player)?;
        let Some(seat) = self.member_mut(player).and_then(|m| m.seat.as_mut()) else {
            return Err(RoomError::precondition(
                reason::NOT_SEATED,
                "only seated players get ready: take a seat first",
            ));
        };
        if seat.ready == ready {
            return Ok(Vec::new());
        }
        seat.ready = ready;
        Ok(vec![Change::Ready {
            player_id: player.to_owned(),
            ready,
        }])
    }

    /// Leaves the room. The host role moves on (to the earliest-joined member with an
    /// account, else the earliest-joined member). The service resigns the player's games in
    /// play (C14: leaving the table loses).
    pub fn leave(&mut self, player: &str) -> Changes {
        self.require_member(player)?;
        self.members.retain(|m| m.player_id != player);
        let mut changes = vec![Change::Left {
            player_id: player.to_owned(),
        }];
        changes.extend(self.after_departure(player));
        Ok(changes)
    }

    /// `player`'s presence lapsed: no room stream and no request for the service's grace.
    /// They leave as if they had left (the host role moves on, an empty room expires),
    /// unless they play at a live table: their game's own presence rules apply there (C13),
    /// and the room asks again later. Not a member: nothing.
    pub fn presence_lapsed(&mut self, player: &str) -> Changes {
        if self.member(player).is_none() || self.is_playing(player) {
            return Ok(Vec::new());
        }
        self.leave(player)
    }

    /// The host removes a member, who may not come back.
    pub fn kick(&mut self, host: &str, player: &str) -> Changes {
        self.require_host(host, "remove players")?;
        if host == player {
            return Err(RoomError::precondition(
                reason::WRONG_STATE,
                "the host cannot remove themselves: leave the room instead",
            ));
        }
        self.require_member(player)
            .map_err(|_| RoomError::NotFound(format!("{player} is not in this room")))?;
        self.members.retain(|m| m.player_id != player);
        self.kicked.insert(player.to_owned());
        let mut changes = vec![Change::Kicked {
            player_id: player.to_owned(),
        }];
        changes.extend(self.after_departure(player));
        Ok(changes)
    }

    fn after_departure(&mut self, player: &str) -> Vec<Change> {
        let mut changes = Vec::new();
        if self
            .rock_paper_scissors
            .as_ref()
            .is_some_and(|d| d.players.iter().any(|p| p == player))
        {
            self.rock_paper_scissors = None;
        }
        if self.host == player
            && let Some(next) = self
                .members
                .iter()
                .find(|m| m.account)
                .or_else(|| self.members.iter().find(|m| m.computer.is_none()))
        {
            self.host = next.player_id.clone();
            changes.push(Change::HostChanged {
                player_id: self.host.clone(),
            });
        }
        changes.extend(self.cancel_countdown_if_incomplete());
        changes
    }

    /// The host hands the role to another member.
    pub fn hand_over(&mut self, host: &str, to: &str) -> Changes {
        self.require_host(host, "hand the room over")?;
        if host == to {
            return Ok(Vec::new());
        }
        self.member(to)
            .ok_or_else(|| RoomError::NotFound(format!("{to} is not in this room")))?;
        self.host = to.to_owned();
        Ok(vec![Change::HostChanged {
            player_id: to.to_owned(),
        }])
    }

    /// The host changes the settings between games. Ready flags reset (players agreed to the
    /// old settings); a running countdown stops.
    pub fn update_settings(&mut self, host: &str, settings: RoomSettings) -> Changes {
        self.require_host(host, "change the settings")?;
        if self.phase == Phase::Playing {
            return Err(RoomError::precondition(
                reason::WRONG_STATE,
                "settings change between games: wait for the game to end",
            ));
        }
        if self.tournament.is_some() {
            return Err(RoomError::precondition(
                "Q24",
                "Q24: a tournament is under way: its settings hold until the champion is known",
            ));
        }
        let seated = self.seated().len();
        if seated > settings.players() {
            return Err(RoomError::precondition(
                reason::ROOM_FULL,
                format!(
                    "{seated} players are seated and the new table has {} seats: players must leave their seats first",
                    settings.players()
                ),
            ));
        }
        let team_mode = settings.mode() == RoomMode::Teams;
        let game_changed = settings.kind() != self.settings.kind();
        self.settings = settings;
        for seat in self.members.iter_mut().filter_map(|m| m.seat.as_mut()) {
            seat.ready = false;
            if !team_mode {
                seat.team = None;
            }
        }
        if game_changed {
            // C11 counts games of one pairing in one game.
            self.last_game = None;
            self.rock_paper_scissors = None;
        }
        let mut changes = vec![Change::SettingsChanged];
        if matches!(self.phase, Phase::Countdown { .. } | Phase::Paused { .. }) {
            self.phase = Phase::Lobby;
            changes.push(Change::CountdownCancelled {
                why: "the host changed the settings".into(),
            });
        }
        Ok(changes)
    }

    /// The host starts the next game (or the tournament's next round).
    pub fn start(&mut self, host: &str, rng: &mut dyn RandomSource) -> Changes {
        self.require_host(host, "start a game")?;
        match self.phase {
            Phase::Playing => {
                return Err(RoomError::precondition(
                    reason::WRONG_STATE,
                    "a game of this room is being played",
                ));
            }
            Phase::Lobby | Phase::Countdown { .. } | Phase::Paused { .. } => {}
        }
        self.check_ready(Some(host))?;
        self.start_now(rng)
    }

    /// A countdown fired. A stale id (paused, restarted or already started) changes nothing.
    pub fn countdown_fired(&mut self, id: u64, rng: &mut dyn RandomSource) -> Changes {
        match self.phase {
            Phase::Countdown { id: live, .. } if live == id => {}
            _ => return Ok(Vec::new()),
        }
        // Q29 starts the next game whoever is ready: readiness is for the host's start.
        if let Err(refusal) = self.check_table() {
            self.phase = Phase::Lobby;
            return Ok(vec![Change::CountdownCancelled {
                why: refusal.to_string(),
            }]);
        }
        self.start_now(rng)
    }

    /// The host pauses the countdown (Q29).
    pub fn pause(&mut self, host: &str, now_ms: u64) -> Changes {
        self.require_host(host, "pause the countdown")?;
        let Phase::Countdown { id, due_ms } = self.phase else {
            return Err(RoomError::precondition(
                "Q29",
                "Q29: no countdown is running",
            ));
        };
        let remaining_ms = due_ms.saturating_sub(now_ms);
        self.phase = Phase::Paused { id, remaining_ms };
        Ok(vec![Change::CountdownPaused { remaining_ms }])
    }

    /// The host resumes a paused countdown (Q29) with the time it had left.
    pub fn resume(&mut self, host: &str, now_ms: u64) -> Changes {
        self.require_host(host, "resume the countdown")?;
        let Phase::Paused { remaining_ms, .. } = self.phase else {
            return Err(RoomError::precondition(
                "Q29",
                "Q29: the countdown is not paused",
            ));
        };
        Ok(vec![self.arm_countdown(now_ms, remaining_ms)])
    }

    fn arm_countdown(&mut self, now_ms: u64, in_ms: u64) -> Change {
        self.counter += 1;
        let due_ms = now_ms.saturating_add(in_ms);
        self.phase = Phase::Countdown {
            id: self.counter,
            due_ms,
        };
        Change::CountdownStarted { due_ms }
    }

    fn cancel_countdown_if_incomplete(&mut self) -> Option<Change> {
        if !matches!(self.phase, Phase::Countdown { .. } | Phase::Paused { .. }) {
            return None;
        }
        let why = self.check_table().err()?;
        self.phase = Phase::Lobby;
        Some(Change::CountdownCancelled {
            why: why.to_string(),
        })
    }

    /// The table is complete: every seat taken, teams balanced (Q23).
    fn check_table(&self) -> Result<(), RoomError> {
        let players = self.settings.players();
        let seated = self.seated();
        if let Some(t) = &self.tournament {
            // Between rounds only the bracket's survivors matter; they must still be here.
            if let Some(gone) = t.next_players().find(|p| self.member(p).is_none()) {
                return Err(RoomError::precondition(
                    "Q24",
                    format!("Q24: {gone} left the room; the tournament cannot go on"),
                ));
            }
            return Ok(());
        }
        let rule = match self.settings.mode() {
            RoomMode::Teams => "Q23",
            RoomMode::Tournament => "Q24",
            RoomMode::Table if self.settings.kind() == ludus_catalog::GameKind::Quoridor => "Q4",
            RoomMode::Table => self.settings.kind().table_policy().clock_rule,
        };
        if seated.len() < players {
            return Err(RoomError::precondition(
                reason::TOO_FEW_PLAYERS,
                format!(
                    "{rule}: this table seats {players} players and {} are seated",
                    seated.len()
                ),
            ));
        }
        if self.settings.mode() == RoomMode::Teams {
            let red = seated
                .iter()
                .filter(|m| m.seat.as_ref().and_then(|s| s.team) == Some(Team::Red))
                .count();
            let yellow = seated.len() - red;
            if red != yellow {
                return Err(RoomError::precondition(
                    "Q23",
                    format!("Q23: teams must be even: red has {red} players, yellow {yellow}"),
                ));
            }
        }
        Ok(())
    }

    fn check_ready(&self, host: Option<&str>) -> Result<(), RoomError> {
        self.check_table()?;
        let players: Vec<&Member> = match &self.tournament {
            Some(t) => t.next_players().filter_map(|p| self.member(p)).collect(),
            None => self.seated(),
        };
        if let Some(waiting) = players.iter().find(|m| {
            Some(m.player_id.as_str()) != host && !m.seat.as_ref().is_some_and(|s| s.ready)
        }) {
            return Err(RoomError::precondition(
                reason::NOT_READY,
                format!("{} is not ready", waiting.name),
            ));
        }
        Ok(())
    }

    fn start_now(&mut self, rng: &mut dyn RandomSource) -> Changes {
        let mut changes = Vec::new();
        if self.settings.mode() == RoomMode::Tournament && self.tournament.is_none() {
            let entrants: Vec<PlayerId> =
                self.seated().iter().map(|m| m.player_id.clone()).collect();
            let bracket = Bracket::new(entrants.len(), rng)
                .map_err(|e| RoomError::precondition("Q24", format!("Q24: {e}")))?;
            let tournament = Tournament { entrants, bracket };
            changes.push(tournament.round_change());
            self.tournament = Some(tournament);
        }
        self.tables = match &self.tournament {
            Some(t) => t
                .bracket
                .matches()
                .iter()
                .enumerate()
                .filter(|(_, m)| m.decision.is_none())
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
                .into_iter()
                .filter_map(|i| self.match_table(i))
                .collect(),
            None => vec![self.table_game()],
        };
        self.phase = Phase::Playing;
        changes.push(Change::GamesStarted {
            game_ids: self.tables.iter().map(|t| t.game_id.clone()).collect(),
        });
        Ok(changes)
    }

    fn next_game_id(&mut self) -> String {
        self.games_started += 1;
        format!(
            "{}-{}-{}",
            self.code.as_str(),
            self.created_ms,
            self.games_started
        )
    }

    fn casual(&self, players: &[PlayerId]) -> bool {
        !(self.settings.rated
            && players
                .iter()
                .all(|p| self.member(p).is_some_and(|m| m.account)))
    }

    /// The table game: every seated player, in seat order; in Caro the first mover (seat 0,
    /// X) by C10 for a new pairing and C11 after that; in team mode the teams in seat order
    /// (Q23: members take the team's turns in the order they sat down).
    fn table_game(&mut self) -> Table {
        let seated = self.seated();
        let mut players: Vec<PlayerId> = seated.iter().map(|m| m.player_id.clone()).collect();
        let teams: Vec<Team> = seated
            .iter()
            .map(|m| m.seat.as_ref().and_then(|s| s.team).unwrap_or(Team::Red))
            .collect();
        let mut settings = self.settings.game.clone();
        if self.settings.kind() == ludus_catalog::GameKind::Caro
            && let Some(first) = self.caro_first_mover(&players)
            && players.first() != Some(&first)
        {
            players.swap(0, 1);
        }
        if let Some(pb::game_settings::Options::Quoridor(q)) = &mut settings.options
            && self.settings.mode() == RoomMode::Teams
        {
            q.teams = teams
                .iter()
                .map(|t| match t {
                    Team::Red => pb::QuoridorTeam::Red as i32,
                    Team::Yellow => pb::QuoridorTeam::Yellow as i32,
                })
                .collect();
        }
        let casual = self.casual(&players);
        Table {
            game_id: self.next_game_id(),
            players,
            settings,
            casual,
            bracket_match: None,
            result: None,
        }
    }

    /// C10/C11: who moves first in the next Caro game of these two players.
    fn caro_first_mover(&self, players: &[PlayerId]) -> Option<PlayerId> {
        let pair: [PlayerId; 2] = players.to_vec().try_into().ok()?;
        if let Some(last) = &self.last_game
            && last.pair == sorted_pair(&pair)
        {
            // C11: the loser moves first; after a draw the first mover switches.
            return Some(match &last.loser {
                Some(loser) => loser.clone(),
                None => pair.iter().find(|p| **p != last.first)?.clone(),
            });
        }
        // C10: the host's choice for a new pairing.
        match self.settings.first_mover {
            FirstMover::Host if pair.contains(&self.host) => Some(self.host.clone()),
            FirstMover::Guest if pair.contains(&self.host) => {
                pair.iter().find(|p| **p != self.host).cloned()
            }
            _ => self
                .rock_paper_scissors
                .as_ref()
                .filter(|d| sorted_pair(&d.players) == sorted_pair(&pair))
                .map(|d| d.winner.clone()),
        }
    }

    /// The game of the tournament's match `index`; `None` outside a tournament.
    fn match_table(&mut self, index: usize) -> Option<Table> {
        let t = self.tournament.as_ref()?;
        let m = *t.bracket.matches().get(index)?;
        let players: Vec<PlayerId> = m.players.iter().map(|&p| t.entrants[p].clone()).collect();
        let mut settings = self.settings.game.clone();
        if let Some(pb::game_settings::Options::Quoridor(q)) = &mut settings.options {
            q.mode = pb::QuoridorMode::TournamentMatch as i32;
            q.players = 2;
            // Q24: the bracket says who moves first (the other player in a replay).
            q.first_seat = Some(m.first_seat as u32);
        }
        let casual = self.casual(&players);
        Some(Table {
            game_id: self.next_game_id(),
            players,
            settings,
            casual,
            bracket_match: Some(index),
            result: None,
        })
    }

    /// A game of the room ended. Idempotent: a game already recorded, or not the room's,
    /// changes nothing. Updates the scoreboard (Q30-Q36), C11's memory, the bracket (Q24,
    /// Q35), then starts a replay, the auto-start countdown (Q29) or goes back to the lobby.
    pub fn game_finished(
        &mut self,
        game_id: &str,
        outcome: &Outcome,
        now_ms: u64,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        let Some(index) = self
            .tables
            .iter()
            .position(|t| t.game_id == game_id && t.result.is_none())
        else {
            return Ok(Vec::new());
        };
        let players = self.tables[index].players.clone();
        let result = match &outcome.result {
            GameResult::Win { winners } => TableResult::Won {
                winners: winners
                    .iter()
                    .filter_map(|&s| players.get(s).cloned())
                    .collect(),
            },
            GameResult::Draw => TableResult::Drawn,
            GameResult::Cancelled => TableResult::Cancelled,
        };
        self.tables[index].result = Some(result.clone());
        let mut changes = vec![Change::GameFinished {
            game_id: game_id.to_owned(),
            result: result.clone(),
        }];
        let in_tournament = self.tables[index].bracket_match.is_some();
        if result != TableResult::Cancelled {
            self.score_game(&players, &result, outcome, !in_tournament);
        }
        if self.settings.kind() == ludus_catalog::GameKind::Caro && players.len() == 2 {
            let pair: [PlayerId; 2] = [players[0].clone(), players[1].clone()];
            let loser = match &result {
                TableResult::Won { winners } => {
                    players.iter().find(|p| !winners.contains(p)).cloned()
                }
                _ => None,
            };
            match result {
                // A cancelled game (C15) does not count as the pairing's game.
                TableResult::Cancelled => {}
                _ => {
                    self.last_game = Some(LastGame {
                        pair: sorted_pair(&pair),
                        first: players[0].clone(),
                        loser,
                    });
                }
            }
        }
        if let Some(bracket_match) = self.tables[index].bracket_match {
            changes.extend(self.report_match(bracket_match, &result, now_ms, rng)?);
            return Ok(changes);
        }
        if self.live_tables().next().is_none() {
            changes.extend(self.between_games(now_ms));
        }
        Ok(changes)
    }

    fn between_games(&mut self, now_ms: u64) -> Vec<Change> {
        self.phase = Phase::Lobby;
        if self.settings.kind() == ludus_catalog::GameKind::Quoridor && self.settings.auto_start {
            return vec![self.arm_countdown(now_ms, AUTO_START_MS)];
        }
        Vec::new()
    }

    fn score_game(
        &mut self,
        players: &[PlayerId],
        result: &TableResult,
        outcome: &Outcome,
        with_points: bool,
    ) {
        let quoridor = self.settings.kind() == ludus_catalog::GameKind::Quoridor;
        let names: Vec<String> = players
            .iter()
            .map(|p| self.member(p).map_or_else(|| p.clone(), |m| m.name.clone()))
            .collect();
        let board = self
            .scoreboard
            .entry(self.settings.kind().name().to_owned())
            .or_default();
        for (seat, player) in players.iter().enumerate() {
            let line = board.entry(player.clone()).or_default();
            line.name = names[seat].clone();
            line.played += 1;
            match result {
                TableResult::Won { winners } if winners.contains(player) => line.won += 1,
                TableResult::Drawn => line.drawn += 1,
                _ => {}
            }
            // Q30-Q34 points come with the outcome (team members each get the team's, Q33);
            // a draw gives none (Q36). Tournament points are the bracket's (Q35).
            if quoridor && with_points {
                line.points += outcome.points.get(seat).copied().unwrap_or(0);
            }
        }
    }

    fn report_match(
        &mut self,
        index: usize,
        result: &TableResult,
        now_ms: u64,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        let Some(t) = &mut self.tournament else {
            return Ok(Vec::new());
        };
        let entrant = |p: &PlayerId| t.entrants.iter().position(|e| e == p);
        let reported = match result {
            TableResult::Won { winners } => match winners.first().and_then(entrant) {
                Some(w) => MatchResult::Won(w),
                None => MatchResult::Drawn,
            },
            // A drawn or cancelled game is replayed with the other player first (Q24).
            _ => MatchResult::Drawn,
        };
        let before = t.bracket.points().to_vec();
        let round = t.bracket.round();
        t.bracket
            .report(index, reported, rng)
            .map_err(|e| RoomError::precondition("Q24", format!("Q24: {e}")))?;
        let points: Vec<(PlayerId, i64)> = t
            .bracket
            .points()
            .iter()
            .zip(&before)
            .enumerate()
            .filter(|(_, (now, was))| now != was)
            .map(|(i, (now, was))| (t.entrants[i].clone(), now - was))
            .collect();
        let champion = t.bracket.champion().map(|c| t.entrants[c].clone());
        let next_round = t.bracket.round() != round;
        let replay = !next_round
            && champion.is_none()
            && t.bracket
                .matches()
                .get(index)
                .is_some_and(|m| m.decision.is_none());
        let round_change = t.round_change();
        // Q35: 3 per match won, 10 more for the champion, on this game's scoreboard.
        let board = self
            .scoreboard
            .entry(self.settings.kind().name().to_owned())
            .or_default();
        for (player, delta) in points {
            board.entry(player).or_default().points += delta;
        }
        let mut changes = Vec::new();
        if replay && let Some(table) = self.match_table(index) {
            changes.push(Change::GamesStarted {
                game_ids: vec![table.game_id.clone()],
            });
            self.tables.push(table);
            return Ok(changes);
        }
        if let Some(champion) = champion {
            self.tournament = None;
            self.phase = Phase::Lobby;
            changes.push(Change::Champion {
                player_id: champion,
            });
            return Ok(changes);
        }
        if next_round {
            changes.push(round_change);
            changes.extend(self.between_games(now_ms));
        }
        Ok(changes)
    }

    /// A chat line (issue 14 item 6): at most 200 characters, no control characters,
    /// [`CHAT_BURST`] lines per [`CHAT_WINDOW_MS`] per player; spectators may chat unless the
    /// host turned it off. The room keeps the last [`CHAT_KEPT`].
    pub fn chat(&mut self, player: &str, text: &str, now_ms: u64) -> Changes {
        let member = self.require_member(player)?;
        if member.seat.is_none() && !self.settings.spectator_chat && self.host != player {
            return Err(RoomError::denied(
                reason::CHAT_OFF,
                "the host turned spectator chat off",
            ));
        }
        let text = text.trim();
        if text.is_empty() {
            return Err(RoomError::invalid(
                "text",
                reason::CHAT_INVALID,
                "text: say something",
            ));
        }
        let chars = text.chars().count();
        if chars > CHAT_MAX_CHARS {
            return Err(RoomError::invalid(
                "text",
                reason::CHAT_INVALID,
                format!(
                    "text: a chat line has at most {CHAT_MAX_CHARS} characters, this one {chars}"
                ),
            ));
        }
        if let Some(bad) = text.chars().find(|&c| c != ' ' && is_refused_in_name(c)) {
            return Err(RoomError::invalid(
                "text",
                reason::CHAT_INVALID,
                format!(
                    "text: control and invisible characters are refused (U+{:04X})",
                    bad as u32
                ),
            ));
        }
        let recent = member
            .chat_times
            .iter()
            .filter(|&&t| t + CHAT_WINDOW_MS > now_ms)
            .count();
        if recent >= CHAT_BURST {
            return Err(RoomError::exhausted(
                reason::CHAT_FLOOD,
                format!(
                    "at most {CHAT_BURST} chat lines per {} s: wait a moment",
                    CHAT_WINDOW_MS / 1000
                ),
            ));
        }
        let name = member.name.clone();
        if let Some(m) = self.member_mut(player) {
            m.chat_times.retain(|&t| t + CHAT_WINDOW_MS > now_ms);
            m.chat_times.push(now_ms);
        }
        let line = ChatLine {
            player_id: player.to_owned(),
            name,
            text: text.to_owned(),
            at_ms: now_ms,
        };
        self.chat.push_back(line.clone());
        while self.chat.len() > CHAT_KEPT {
            self.chat.pop_front();
        }
        Ok(vec![Change::Chat(line)])
    }
}

impl Tournament {
    /// Players of the current round's undecided matches.
    fn next_players(&self) -> impl Iterator<Item = &PlayerId> {
        self.bracket
            .matches()
            .iter()
            .filter(|m| m.decision.is_none())
            .flat_map(|m| m.players.iter().map(|&p| &self.entrants[p]))
    }

    fn round_change(&self) -> Change {
        Change::TournamentRound {
            round: self.bracket.round(),
            bye: self.bracket.bye().map(|b| self.entrants[b].clone()),
        }
    }
}

fn sorted_pair(pair: &[PlayerId; 2]) -> [PlayerId; 2] {
    let mut pair = pair.clone();
    pair.sort();
    pair
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
