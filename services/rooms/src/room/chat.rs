//! Chat: lines of at most [`CHAT_MAX_CHARS`] characters, [`CHAT_BURST`] per player per
//! [`CHAT_WINDOW_MS`], the last [`CHAT_KEPT`] kept for those who join.

use ludus_proto::ids::{
    MAX_COMBINING_MARKS, MarkProblem, check_combining_marks, is_refused_in_name,
};
use serde::{Deserialize, Serialize};

use super::{Change, Changes, PlayerId, Room};
use crate::error::{RoomError, reason};

/// Chat lines kept and sent on join.
pub const CHAT_KEPT: usize = 100;

/// Longest chat line, in characters.
pub const CHAT_MAX_CHARS: usize = 200;

/// A player may send this many lines per [`CHAT_WINDOW_MS`].
pub const CHAT_BURST: usize = 5;

/// The chat rate window.
pub const CHAT_WINDOW_MS: u64 = 10_000;

/// A chat line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    pub player_id: PlayerId,
    pub name: String,
    pub text: String,
    pub at_ms: u64,
}

impl Room {
    /// A chat line (ARCHITECTURE.md, "Rooms"): at most 200 characters, no control characters,
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
        // The names' rule (ARCHITECTURE.md, "Security"): a stack of marks draws over the
        // lines above and below in every member's chat.
        if let Err(problem) = check_combining_marks(text) {
            let why = match problem {
                MarkProblem::Stacked => {
                    format!("at most {MAX_COMBINING_MARKS} combining marks on one character")
                }
                MarkProblem::Lone => "a combining mark must follow the character it marks".into(),
            };
            return Err(RoomError::invalid(
                "text",
                reason::CHAT_INVALID,
                format!("text: {why}"),
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
