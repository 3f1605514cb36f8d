//! Q29: the next game starts by itself a countdown after one ends, where the game allows it
//! and the host chose it; the host pauses and resumes it, and it ends without a game when
//! the table is no longer complete.

use ludus_rules::RandomSource;

use super::{Change, Changes, Phase, Room};
use crate::error::RoomError;
use crate::settings::AUTO_START_MS;

impl Room {
    /// The countdown to arm, if one runs: (its id, due time).
    pub fn countdown(&self) -> Option<(u64, u64)> {
        match self.phase {
            Phase::Countdown { id, due_ms } => Some((id, due_ms)),
            _ => None,
        }
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

    pub(super) fn arm_countdown(&mut self, now_ms: u64, in_ms: u64) -> Change {
        self.counter += 1;
        let due_ms = now_ms.saturating_add(in_ms);
        self.phase = Phase::Countdown {
            id: self.counter,
            due_ms,
        };
        Change::CountdownStarted { due_ms }
    }

    pub(super) fn cancel_countdown_if_incomplete(&mut self) -> Option<Change> {
        if !matches!(self.phase, Phase::Countdown { .. } | Phase::Paused { .. }) {
            return None;
        }
        let why = self.check_table().err()?;
        self.phase = Phase::Lobby;
        Some(Change::CountdownCancelled {
            why: why.to_string(),
        })
    }

    pub(super) fn between_games(&mut self, now_ms: u64) -> Vec<Change> {
        self.phase = Phase::Lobby;
        if self.settings.policy().auto_start && self.settings.auto_start {
            return vec![self.arm_countdown(now_ms, AUTO_START_MS)];
        }
        Vec::new()
    }
}
