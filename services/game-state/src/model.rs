//! The stored shape of a live game, and validation of what callers send.

use ludus_catalog::{GameKind, LiveGame, seat_u32};
use ludus_proto::pb;
use ludus_rules::Seat;
use ludus_store::TimerWrites;
use prost::Message;
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// Ids are checked with the policy every service shares.
pub use ludus_proto::ids::validate_id;

/// What changes with every event, stored as JSON next to the immutable meta (the encoded
/// `GameStarted`: settings and seats).
#[derive(Serialize, Deserialize, Debug)]
pub struct LiveRecord {
    pub kind: GameKind,
    /// Bumped whenever a turn clock starts; timers carry it so stale expiries are ignored.
    pub turn_seq: u64,
    /// When the current turn's clock runs out (Unix ms); 0 when untimed or finished.
    pub deadline_ms: i64,
    /// A pending draw offer (C8), withdrawn by any action.
    pub draw_offer: Option<Seat>,
    /// The game's own state, as its rules crate serializes it (kept as that JSON text: no
    /// `Value` tree is built and dropped for each move).
    pub game: Box<serde_json::value::RawValue>,
    /// Seats whose player is disconnected (C13), in the order they left.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub away: Vec<Away>,
    /// Positions before the human's last actions in a game against the computer, newest
    /// last, for take-backs (C17, M11; see `service::computer`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undo: Vec<UndoPoint>,
}

/// The position before one of the human's actions, kept for a take-back.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct UndoPoint {
    /// The game's state before the action, as the rules crate serializes it.
    pub game: Box<serde_json::value::RawValue>,
    /// The seq of the last event before the action (its view is what comes back).
    pub seq: u64,
    /// The computer's actions since.
    pub replies: u32,
}

/// A disconnected seat.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Away {
    pub seat: Seat,
    /// When the game's disconnection rule applies (Unix ms); 0 when the game has none.
    pub return_by_ms: i64,
    /// Names this disconnection's current timer (the grace, then a C13 choice's answer
    /// time), so a stale timer changes nothing.
    pub token: String,
    /// C13 in a friend room: while the player who stayed is asked what to do, when the
    /// answer is due (Unix ms); 0 while no choice is pending.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub choose_by_ms: i64,
    /// The one extra minute of C13 was waited.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waited: bool,
}

fn is_zero(value: &i64) -> bool {
    *value == 0
}

/// A loaded game: immutable meta, the live record, the rules' state, and the log position.
#[derive(Debug)]
pub struct Loaded {
    pub game_id: String,
    pub seq: u64,
    pub started: pb::GameStarted,
    pub record: LiveRecord,
    pub game: Box<dyn LiveGame>,
    /// The timers the change being made needs armed or deleted: written with its commit
    /// (`service::commit`), so a committed turn has its clock in the same step.
    pub timers: TimerWrites,
}

impl Loaded {
    pub fn decode(
        game_id: &str,
        seq: u64,
        meta: &[u8],
        state: &[u8],
    ) -> Result<Self, ServiceError> {
        let started = pb::GameStarted::decode(meta)
            .map_err(|e| ServiceError::Internal(format!("stored meta is unreadable: {e}")))?;
        let record: LiveRecord = serde_json::from_slice(state)
            .map_err(|e| ServiceError::Internal(format!("stored state is unreadable: {e}")))?;
        let game = ludus_catalog::load(record.kind, &record.game)?;
        Ok(Loaded {
            game_id: game_id.to_owned(),
            seq,
            started,
            record,
            game,
            timers: TimerWrites::default(),
        })
    }

    /// The seat of a player, if seated.
    pub fn seat_of(&self, player_id: &str) -> Option<Seat> {
        self.started
            .seats
            .iter()
            .position(|seat| seat.player_id == player_id)
    }

    /// The seat of a player, or PERMISSION_DENIED.
    pub fn require_seat(&self, player_id: &str) -> Result<Seat, ServiceError> {
        self.seat_of(player_id).ok_or_else(|| {
            ServiceError::PermissionDenied(
                ludus_proto::error_details::reason::NOT_YOUR_SEAT,
                format!(
                    "you do not sit in game {}: spectators can only watch",
                    self.game_id
                ),
            )
        })
    }

    pub fn turn_time_ms(&self) -> u64 {
        self.started
            .settings
            .as_ref()
            .map_or(0, |settings| settings.turn_time_ms)
    }

    pub fn require_active(&self) -> Result<(), ServiceError> {
        match self.game.outcome() {
            Some(outcome) => Err(ServiceError::GameOver {
                rule: outcome.rule,
                why: outcome.reason,
            }),
            None => Ok(()),
        }
    }

    pub fn save(&mut self) -> Result<Vec<u8>, ServiceError> {
        self.record.game = self.game.save()?;
        serde_json::to_vec(&self.record)
            .map_err(|e| ServiceError::Internal(format!("could not save the record: {e}")))
    }

    pub fn turn_info(&self) -> pb::TurnInfo {
        pb::TurnInfo {
            to_move: self.game.to_move().map(seat_u32),
            deadline_unix_ms: self.record.deadline_ms,
            turn_seq: self.record.turn_seq,
        }
    }

    /// The player ids in seat order.
    pub fn player_ids(&self) -> Vec<String> {
        self.started
            .seats
            .iter()
            .map(|seat| seat.player_id.clone())
            .collect()
    }

    /// The seats disconnected now, as the contract shows them.
    pub fn disconnected(&self) -> Vec<pb::PlayerDisconnected> {
        self.record
            .away
            .iter()
            .map(|away| pb::PlayerDisconnected {
                seat: seat_u32(away.seat),
                return_by_unix_ms: away.return_by_ms,
                choose_by_unix_ms: away.choose_by_ms,
                waited: away.waited,
            })
            .collect()
    }

    pub fn status(&self) -> pb::GameStatus {
        if self.game.outcome().is_some() {
            pb::GameStatus::Finished
        } else {
            pb::GameStatus::Active
        }
    }
}
