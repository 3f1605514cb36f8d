//! The RPCs about one turn: its timer ran out (`ExpireTurn`: each game's clock policy, or the
//! autoplay of Junqi J19), a computer seat's turn (`GetBotTurn`: what the bots service may
//! read), and the human's take-back in a game against the computer (`TakeBack`: C17, M11).

use ludus_catalog::seat_u32;
use ludus_proto::pb;

use super::base::GameStateService;
use super::random::{csprng, random_for};
use crate::error::ServiceError;
use crate::model::validate_id;

impl GameStateService {
    pub async fn expire_turn(
        &self,
        request: pb::ExpireTurnRequest,
    ) -> Result<pb::ExpireTurnResponse, ServiceError> {
        let event = self
            .server_change(&request.game_id, |loaded| {
                if loaded.record.turn_seq != request.turn_seq || loaded.game.outcome().is_some() {
                    return Ok(None);
                }
                let Some(seat) = loaded.game.to_move() else {
                    return Ok(None);
                };
                // J19: the seat is on autoplay: this was the short timer, not its clock.
                if loaded.game.autoplay_due()
                    && let Some(applied) = loaded.game.play_autoplay(&mut csprng())
                {
                    return Ok(Some(pb::game_event::Kind::ActionApplied(
                        pb::ActionApplied {
                            seat: seat_u32(seat),
                            action: Some(applied.action),
                            notation: applied.notation,
                            automatic: true,
                        },
                    )));
                }
                let effect = loaded.game.timeout(seat, &mut random_for(&request.game_id));
                tracing::info!(game_id = %loaded.game_id, seat, %effect, "turn timed out");
                Ok(Some(pb::game_event::Kind::TurnTimedOut(pb::TurnTimedOut {
                    seat: seat_u32(seat),
                    effect,
                })))
            })
            .await?;
        Ok(pb::ExpireTurnResponse {
            applied: event.is_some(),
            event,
        })
    }

    pub async fn get_bot_turn(
        &self,
        request: pb::GetBotTurnRequest,
    ) -> Result<pb::BotTurn, ServiceError> {
        let loaded = self.load(&request.game_id).await?;
        let not_ready = pb::BotTurn {
            ready: false,
            seq: loaded.seq,
            turn_seq: loaded.record.turn_seq,
            kind: loaded.record.kind.name().to_owned(),
            ..pb::BotTurn::default()
        };
        if loaded.record.turn_seq != request.turn_seq || loaded.game.outcome().is_some() {
            return Ok(not_ready);
        }
        let Some(seat) = loaded.game.to_move() else {
            return Ok(not_ready);
        };
        let Some(level) = loaded.computer_level(seat) else {
            return Ok(not_ready);
        };
        // What the seat may know, and nothing else (J22): the catalog decides what that is.
        let position = loaded.game.seat_position(seat)?;
        Ok(pb::BotTurn {
            ready: true,
            seat: seat_u32(seat),
            player_id: loaded.started.seats[seat].player_id.clone(),
            level: level.name().to_owned(),
            position_json: position.to_string(),
            ..not_ready
        })
    }

    /// C17, M11: undoes the caller's last action and the computer's replies since, as a new
    /// `TakenBack` event whose view is the restored position.
    pub async fn take_back(
        &self,
        request: pb::PlayerRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        let player_id = request.player_id.clone();
        self.seated_change(&request.game_id, &player_id, |loaded, seat| {
            let levels = loaded.computer_levels();
            if levels.is_empty() {
                return Err(ServiceError::FailedPrecondition(
                    "C17: moves can be taken back only in a game against the computer (C17, M11)"
                        .into(),
                ));
            }
            if loaded.computer_level(seat).is_some() {
                return Err(ServiceError::FailedPrecondition(
                    "C17: only the human player takes moves back".into(),
                ));
            }
            let rule = ludus_catalog::bots::take_back_rule(loaded.record.kind, &levels)?;
            if loaded.game.to_move() != Some(seat) {
                return Err(ServiceError::FailedPrecondition(format!(
                    "{rule}: take back on your turn, once the computer has replied"
                )));
            }
            let Some(point) = loaded.record.undo.pop() else {
                return Err(ServiceError::FailedPrecondition(format!(
                    "{rule}: there is no move of yours to take back"
                )));
            };
            loaded.game = ludus_catalog::load(loaded.record.kind, &point.game)?;
            Ok(pb::game_event::Kind::TakenBack(pb::TakenBack {
                seat: seat_u32(seat),
                actions: point.replies.saturating_add(1),
                restored_seq: point.seq,
            }))
        })
        .await
    }
}
