//! Presence: seated players' event streams opening and closing, disconnections, returns,
//! and each game's disconnection rule when the grace runs out (Caro C13).

use ludus_catalog::seat_u32;
use ludus_proto::error_details::reason;
use ludus_proto::pb;
use ludus_rules::Seat;

use super::base::GameStateService;
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
            self.grace_from_now()
        } else {
            0
        };
        if return_by > 0 {
            self.arm_absence_timer(&game_id, seat, &token, return_by)
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
                    choose_by_ms: 0,
                    waited: false,
                });
                Ok(Some(pb::game_event::Kind::PlayerDisconnected(
                    pb::PlayerDisconnected {
                        seat: seat_u32(seat),
                        return_by_unix_ms: return_by,
                        ..Default::default()
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
    /// the player is back (a stream open, or they acted) or the timer is stale. In a friend
    /// room (C13) the player who stayed is offered the choice first; the same timer, armed
    /// again for the answer, applies the rule when nobody answered.
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
        } else if offers_choice(&loaded)
            && loaded
                .record
                .away
                .iter()
                .any(|away| away.seat == seat && away.choose_by_ms == 0)
        {
            self.offer_choice(&request, seat).await?
        } else {
            // Quick match, or a friend room's choice nobody answered in time: **[decided]**
            // silence is not a choice to keep waiting, so C13's quick-match rule applies
            // (the absent player loses; C15 cancels before each player has moved once).
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

/// C13: "in a friend room, after the minute the player who stayed chooses". A game started
/// by a room is a friend room's; only a two-seat game has one player who stayed.
fn offers_choice(loaded: &Loaded) -> bool {
    !loaded.started.room_code.is_empty() && loaded.game.seats() == 2
}

/// The seat who chooses for `absent`: the other one of two.
fn chooser_of(absent: Seat) -> Seat {
    (absent + 1) % 2
}

/// The absent seat whose C13 choice `chooser` may answer with `choice`, or why not.
fn pending_choice(
    loaded: &Loaded,
    chooser: Seat,
    choice: pb::AbsenceChoice,
) -> Result<Seat, ServiceError> {
    let pending = |away: &&Away| away.choose_by_ms > 0;
    if let Some(away) = loaded
        .record
        .away
        .iter()
        .filter(pending)
        .find(|away| away.seat != chooser)
    {
        if choice == pb::AbsenceChoice::Wait && away.waited {
            return Err(ServiceError::FailedPrecondition(
                "C13: the one more minute was already waited (once only): take the win or \
                 call it a draw"
                    .to_owned(),
            ));
        }
        return Ok(away.seat);
    }
    if loaded
        .record
        .away
        .iter()
        .filter(pending)
        .any(|away| away.seat == chooser)
    {
        return Err(ServiceError::PermissionDenied(
            reason::NOT_YOUR_CHOICE,
            "C13: the player who stayed chooses, not the one who disconnected".to_owned(),
        ));
    }
    Err(ServiceError::FailedPrecondition(
        "C13: there is no choice to make: nobody's minute to come back has run out, or they \
         came back"
            .to_owned(),
    ))
}

impl GameStateService {
    /// C13 in a friend room: the absent seat's minute ran out; asks the player who stayed,
    /// arming the timer that applies the quick-match rule if nobody answers in a minute.
    async fn offer_choice(
        &self,
        request: &pb::ExpireAbsenceRequest,
        seat: Seat,
    ) -> Result<Option<pb::GameEvent>, ServiceError> {
        let game_id = &request.game_id;
        let token = ulid::Ulid::generate().to_string();
        let choose_by = self.grace_from_now();
        // Armed before the commit, as every grace: a commit that loses leaves a timer whose
        // token nobody holds, which changes nothing when it fires.
        self.arm_absence_timer(game_id, seat, &token, choose_by)
            .await?;
        let event = self
            .server_change(game_id, |loaded| {
                let Some(away) = loaded.record.away.iter_mut().find(|away| {
                    away.seat == seat && away.token == request.token && away.choose_by_ms == 0
                }) else {
                    return Ok(None);
                };
                if loaded.game.outcome().is_some() {
                    return Ok(None);
                }
                away.token.clone_from(&token);
                away.choose_by_ms = choose_by;
                Ok(Some(pb::game_event::Kind::AbsenceChoiceOffered(
                    pb::AbsenceChoiceOffered {
                        seat: seat_u32(seat),
                        chooser: seat_u32(chooser_of(seat)),
                        wait_allowed: !away.waited,
                        choose_by_unix_ms: choose_by,
                    },
                )))
            })
            .await?;
        // A stream that opened while this was being committed found the choice not yet
        // offered: coming back cancels it.
        if event.is_some() && self.store.presence(game_id, seat_u32(seat), 0).await? > 0 {
            self.come_back(game_id, seat).await?;
        }
        Ok(event)
    }

    /// The player who stayed answers a C13 choice (see the RPC's docs).
    pub async fn answer_absence(
        &self,
        request: pb::AnswerAbsenceInternalRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        let choice = pb::AbsenceChoice::try_from(request.choice)
            .ok()
            .filter(|choice| *choice != pb::AbsenceChoice::Unspecified)
            .ok_or_else(|| {
                ServiceError::InvalidArgument(
                    "choice: WAIT, WIN or DRAW (C13: the player who stayed chooses)".to_owned(),
                )
            })?;
        // Refusals come from this first read; the commit below checks again on a fresh one.
        let loaded = self.load(&request.game_id).await?;
        let chooser = loaded.require_seat(&request.player_id)?;
        loaded.require_active()?;
        let absent = pending_choice(&loaded, chooser, choice)?;
        let wait = if choice == pb::AbsenceChoice::Wait {
            let token = ulid::Ulid::generate().to_string();
            let return_by = self.grace_from_now();
            self.arm_absence_timer(&request.game_id, absent, &token, return_by)
                .await?;
            Some((token, return_by))
        } else {
            None
        };
        let mut replaced_token = None;
        let answer = self
            .seated_change(&request.game_id, &request.player_id, |loaded, chooser| {
                let absent = pending_choice(loaded, chooser, choice)?;
                // The chooser acts: they are here, like a player who moves (C13).
                loaded.record.away.retain(|away| away.seat != chooser);
                let Some(away) = loaded.record.away.iter_mut().find(|a| a.seat == absent) else {
                    return Err(ServiceError::Internal(
                        "the absent seat vanished".to_owned(),
                    ));
                };
                replaced_token = Some(away.token.clone());
                let mut made = pb::AbsenceChoiceMade {
                    seat: seat_u32(absent),
                    chooser: seat_u32(chooser),
                    choice: choice as i32,
                    ..Default::default()
                };
                match (&wait, choice) {
                    (Some((token, return_by)), _) => {
                        away.token.clone_from(token);
                        away.return_by_ms = *return_by;
                        away.choose_by_ms = 0;
                        away.waited = true;
                        made.return_by_unix_ms = *return_by;
                    }
                    (None, pb::AbsenceChoice::Draw) => {
                        loaded.record.away.clear();
                        made.effect = loaded.game.abandon_as_draw(absent);
                    }
                    (None, _) => {
                        loaded.record.away.clear();
                        made.effect = loaded.game.abandon(absent);
                    }
                }
                tracing::info!(game_id = %loaded.game_id, absent, ?choice, "C13 choice made");
                Ok(pb::game_event::Kind::AbsenceChoiceMade(made))
            })
            .await?;
        if let Some(token) = replaced_token {
            // The answer's timer would find its token gone; cancelling it saves the firing.
            self.cancel_timer_later(absence_timer_key(&request.game_id, absent, &token));
        }
        Ok(answer)
    }

    /// One grace from now (C13's minute), Unix ms.
    fn grace_from_now(&self) -> i64 {
        self.now_ms()
            .saturating_add(i64::try_from(self.absence_grace_ms).unwrap_or(i64::MAX))
    }

    /// Arms the timer that calls `ExpireAbsence` for `seat`'s absence named by `token`.
    async fn arm_absence_timer(
        &self,
        game_id: &str,
        seat: Seat,
        token: &str,
        due_ms: i64,
    ) -> Result<(), ServiceError> {
        self.arm_timer(
            &absence_timer_key(game_id, seat, token),
            pb::timer_action::Action::ExpireAbsence(pb::ExpireAbsenceRequest {
                game_id: game_id.to_owned(),
                seat: seat_u32(seat),
                token: token.to_owned(),
            }),
            due_ms,
        )
        .await
    }
}
