//! Presence: seated players' event streams opening and closing, disconnections, returns,
//! and each game's disconnection rule when the grace runs out (Caro C13).

use ludus_catalog::seat_u32;
use ludus_proto::pb;

use super::GameStateService;
use crate::error::ServiceError;
use crate::model::{Away, Loaded, validate_id};

/// The key of a disconnected seat's grace timer: one per disconnection.
fn absence_timer_key(game_id: &str, seat: usize, token: &str) -> String {
    format!("absence/{game_id}/{seat}/{token}")
}

impl GameStateService {
    /// A seated player's event stream opened or closed (see the RPC's docs).
    pub async fn update_presence(
        &self,
        request: pb::UpdatePresenceRequest,
    ) -> Result<pb::UpdatePresenceResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        let loaded = self.load(&request.game_id).await?;
        let Some(seat) = loaded.seat_of(&request.player_id) else {
            return Ok(pb::UpdatePresenceResponse::default());
        };
        if loaded.game.outcome().is_some() {
            return Ok(pb::UpdatePresenceResponse {
                seat: Some(seat_u32(seat)),
                ..Default::default()
            });
        }
        let streams = self
            .store
            .presence(
                &request.game_id,
                seat_u32(seat),
                if request.connected { 1 } else { -1 },
            )
            .await?;
        let away = loaded.record.away.iter().any(|away| away.seat == seat);
        let event = if request.connected && away {
            self.come_back(&request.game_id, seat).await?
        } else if !request.connected && streams == 0 && !away {
            self.leave(&loaded, seat).await?
        } else {
            None
        };
        Ok(pb::UpdatePresenceResponse {
            seat: Some(seat_u32(seat)),
            streams,
            event,
        })
    }

    /// Commits `seat`'s disconnection; in a game with a disconnection rule, first arms the
    /// timer that applies it when the grace runs out.
    async fn leave(
        &self,
        loaded: &Loaded,
        seat: usize,
    ) -> Result<Option<pb::GameEvent>, ServiceError> {
        let game_id = loaded.game_id.clone();
        let token = ulid::Ulid::generate().to_string();
        let return_by = if loaded.game.absence_rule().is_some() {
            self.now_ms()
                .saturating_add(i64::try_from(self.absence_grace_ms).unwrap_or(i64::MAX))
        } else {
            0
        };
        if return_by > 0 {
            self.arm_timer(
                &absence_timer_key(&game_id, seat, &token),
                pb::timer_action::Action::ExpireAbsence(pb::ExpireAbsenceRequest {
                    game_id: game_id.clone(),
                    seat: seat_u32(seat),
                    token: token.clone(),
                }),
                return_by,
            )
            .await?;
        }
        let event = self
            .server_change(&game_id, |loaded| {
                if loaded.game.outcome().is_some()
                    || loaded.record.away.iter().any(|away| away.seat == seat)
                {
                    return Ok(None);
                }
                loaded.record.away.push(Away {
                    seat,
                    return_by_ms: return_by,
                    token: token.clone(),
                });
                Ok(Some(pb::game_event::Kind::PlayerDisconnected(
                    pb::PlayerDisconnected {
                        seat: seat_u32(seat),
                        return_by_unix_ms: return_by,
                    },
                )))
            })
            .await?;
        // A stream that opened while this was being committed found nobody away: it is
        // the one that brings the player back.
        if event.is_some() && self.store.presence(&game_id, seat_u32(seat), 0).await? > 0 {
            self.come_back(&game_id, seat).await?;
        }
        Ok(event)
    }

    /// Commits `seat`'s return, if they are away, and cancels their grace timer.
    async fn come_back(
        &self,
        game_id: &str,
        seat: usize,
    ) -> Result<Option<pb::GameEvent>, ServiceError> {
        let mut token = None;
        let event = self
            .server_change(game_id, |loaded| {
                let Some(i) = loaded.record.away.iter().position(|away| away.seat == seat) else {
                    return Ok(None);
                };
                if loaded.game.outcome().is_some() {
                    return Ok(None);
                }
                token = Some(loaded.record.away.remove(i).token);
                Ok(Some(pb::game_event::Kind::PlayerReconnected(
                    pb::PlayerReconnected {
                        seat: seat_u32(seat),
                    },
                )))
            })
            .await?;
        if let (Some(_), Some(token)) = (&event, token) {
            // A timer left behind would find the token gone and change nothing; cancelling it
            // only saves that firing.
            self.cancel_timer_later(absence_timer_key(game_id, seat, &token));
        }
        Ok(event)
    }

    /// A disconnected seat's grace ran out: the game's disconnection rule applies, unless
    /// the player is back (a stream open, or they acted) or the timer is stale.
    pub async fn expire_absence(
        &self,
        request: pb::ExpireAbsenceRequest,
    ) -> Result<pb::ExpireTurnResponse, ServiceError> {
        let seat = usize::try_from(request.seat).unwrap_or(usize::MAX);
        let is_this_absence = |loaded: &Loaded| {
            loaded.game.outcome().is_none()
                && loaded
                    .record
                    .away
                    .iter()
                    .any(|away| away.seat == seat && away.token == request.token)
        };
        let loaded = self.load(&request.game_id).await?;
        if !is_this_absence(&loaded) {
            return Ok(pb::ExpireTurnResponse::default());
        }
        let event = if self
            .store
            .presence(&request.game_id, request.seat, 0)
            .await?
            > 0
        {
            self.come_back(&request.game_id, seat).await?
        } else {
            self.server_change(&request.game_id, |loaded| {
                if !is_this_absence(loaded) {
                    return Ok(None);
                }
                loaded.record.away.retain(|away| away.seat != seat);
                let effect = loaded.game.abandon(seat);
                tracing::info!(game_id = %loaded.game_id, seat, %effect, "absence expired");
                Ok(Some(pb::game_event::Kind::AbsenceExpired(
                    pb::AbsenceExpired {
                        seat: request.seat,
                        effect,
                    },
                )))
            })
            .await?
        };
        Ok(pb::ExpireTurnResponse {
            applied: event.is_some(),
            event,
        })
    }
}
