//! The `Bots` gRPC service: one computer turn per call, read, thought and submitted.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ludus_catalog::{BotChoice, GameKind, bots};
use ludus_proto::pb::{self, bots_server::Bots, game_state_client::GameStateClient};
use ludus_rules::{Budget, Level, RandomSource};
use ludus_server::Traced;
use rand::RngExt;
use tokio::sync::Semaphore;
use tonic::{Code, Request, Response, Status};

use crate::{Config, ThinkHook};

/// The refusals' `ErrorInfo` domain.
const DOMAIN: &str = "ludus.bots";

/// How often one call re-reads the turn after its submission lost a race with another change
/// to the game (a presence event, a draw offer) that left the turn the bot's.
const SUBMIT_ATTEMPTS: usize = 3;

/// The bots service.
#[derive(Clone)]
pub struct BotsService {
    game_state: GameStateClient<Traced>,
    think: Duration,
    thinking: Arc<Semaphore>,
    before_think: Option<ThinkHook>,
}

impl std::fmt::Debug for BotsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotsService")
            .field("think", &self.think)
            .finish_non_exhaustive()
    }
}

/// The bots' randomness: the thread-local CSPRNG (ties, Easy's lapses, Junqi's guesses).
struct Csprng(rand::rngs::ThreadRng);

impl RandomSource for Csprng {
    fn below(&mut self, bound: u32) -> u32 {
        self.0.random_range(0..bound.max(1))
    }
}

/// What one think needs, moved onto the blocking thread.
struct Think {
    kind: GameKind,
    position: serde_json::Value,
    seat: usize,
    level: Level,
    deadline: Instant,
    before: Option<ThinkHook>,
}

impl Think {
    /// The level's choice within its work budget, or the best found by the deadline.
    fn run(self) -> Result<Option<BotChoice>, ludus_catalog::CatalogError> {
        if let Some(hook) = &self.before {
            hook();
        }
        let deadline = self.deadline;
        let out_of_time = move || Instant::now() >= deadline;
        let budget = Budget {
            work: bots::default_work(self.kind, self.level),
            out_of_time: &out_of_time,
        };
        let think = ludus_rules::Think {
            level: self.level,
            budget: &budget,
            rng: &mut Csprng(rand::rng()),
        };
        bots::choose(self.kind, &self.position, self.seat, think)
    }
}

fn internal(what: impl std::fmt::Display) -> Status {
    tracing::error!(%what, "bot turn failed");
    ludus_proto::error_details::internal_error(DOMAIN)
}

impl BotsService {
    pub fn new(game_state: GameStateClient<Traced>, config: &Config) -> Self {
        BotsService {
            game_state,
            think: config.think,
            thinking: Arc::new(Semaphore::new(config.max_thinking.max(1))),
            before_think: config.before_think.clone(),
        }
    }

    /// Plays turn `turn_seq` of `game_id` if it is still a computer seat's.
    pub async fn take_turn(
        &self,
        request: pb::TakeBotTurnRequest,
    ) -> Result<pb::TakeBotTurnResponse, Status> {
        ludus_proto::ids::validate_id("game_id", &request.game_id)?;
        let not_played = pb::TakeBotTurnResponse::default();
        for _ in 0..SUBMIT_ATTEMPTS {
            let mut game_state = self.game_state.clone();
            let turn = game_state
                .get_bot_turn(pb::GetBotTurnRequest {
                    game_id: request.game_id.clone(),
                    turn_seq: request.turn_seq,
                })
                .await?
                .into_inner();
            if !turn.ready {
                return Ok(not_played);
            }
            let Some(choice) = self.think(&turn).await? else {
                return Ok(not_played);
            };
            let submitted = game_state
                .apply_action(pb::ApplyActionRequest {
                    game_id: request.game_id.clone(),
                    player_id: turn.player_id.clone(),
                    expected_seq: turn.seq,
                    // One id per turn: a retried or repeated submission of this turn is a
                    // duplicate, never a second action.
                    action_id: format!("bot-{}", turn.turn_seq),
                    action: Some(choice.action),
                })
                .await;
            match submitted {
                Ok(response) => {
                    let response = response.into_inner();
                    tracing::info!(game_id = %request.game_id, level = %turn.level, notation = %choice.notation, duplicate = response.duplicate, "bot played");
                    return Ok(pb::TakeBotTurnResponse {
                        played: !response.duplicate,
                        notation: choice.notation,
                    });
                }
                // The game moved on since the read: re-read; a turn that is over answers
                // "not ready" above.
                Err(status) if status.code() == Code::Aborted => continue,
                Err(status) => return Err(status),
            }
        }
        Err(Status::aborted(format!(
            "game {} changed {SUBMIT_ATTEMPTS} times while the bot thought; the timer retries",
            request.game_id
        )))
    }

    /// Thinks about `turn` on the blocking pool, at most `max_thinking` at once.
    async fn think(&self, turn: &pb::BotTurn) -> Result<Option<BotChoice>, Status> {
        let kind = GameKind::from_name(&turn.kind)
            .ok_or_else(|| internal(format!("unknown game kind {:?}", turn.kind)))?;
        let level = Level::parse(&turn.level)
            .ok_or_else(|| internal(format!("unknown level {:?}", turn.level)))?;
        let position: serde_json::Value =
            serde_json::from_str(&turn.position_json).map_err(internal)?;
        let seat = usize::try_from(turn.seat).map_err(internal)?;
        let _slot = self
            .thinking
            .clone()
            .acquire_owned()
            .await
            .map_err(internal)?;
        let think = Think {
            kind,
            position,
            seat,
            level,
            // The deadline starts with the slot: waiting for one is not thinking.
            deadline: Instant::now() + self.think,
            before: self.before_think.clone(),
        };
        tokio::task::spawn_blocking(move || think.run())
            .await
            .map_err(internal)?
            .map_err(internal)
    }
}

#[tonic::async_trait]
impl Bots for BotsService {
    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id, turn_seq = request.get_ref().turn_seq))]
    async fn take_turn(
        &self,
        request: Request<pb::TakeBotTurnRequest>,
    ) -> Result<Response<pb::TakeBotTurnResponse>, Status> {
        BotsService::take_turn(self, request.into_inner())
            .await
            .map(Response::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A think past its deadline at once still plays a legal action (the budget's
    /// out_of_time is what stops it), at every level of every game.
    #[test]
    fn a_bot_out_of_time_still_plays_a_legal_action() {
        for kind in GameKind::ALL {
            let settings = bots::default_settings(kind);
            let game = ludus_catalog::setup(&settings, 2, &mut Csprng(rand::rng()))
                .unwrap_or_else(|e| panic!("{kind}: {e}"));
            let Some(seat) = game.to_move() else { continue };
            for level in Level::ALL {
                let think = Think {
                    kind,
                    position: game.seat_position(seat).unwrap_or_default(),
                    seat,
                    level,
                    deadline: Instant::now(),
                    before: None,
                };
                let choice = think
                    .run()
                    .unwrap_or_else(|e| panic!("{kind} {level:?}: {e}"))
                    .unwrap_or_else(|| panic!("{kind} {level:?}: no choice"));
                let legal = game.legal_actions(seat);
                assert!(
                    legal.iter().any(|a| a.notation == choice.notation),
                    "{kind} {level:?}: {} is legal",
                    choice.notation
                );
            }
        }
    }
}
