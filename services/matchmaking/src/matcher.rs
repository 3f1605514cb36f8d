//! The matcher: one loop per replica that pairs queued tickets and creates their games.
//!
//! Replicas race freely: each reads the oldest tickets of a queue and claims a pair with the
//! store's atomic `take`; a replica that loses a race re-reads the queue. Seats are drawn
//! before the claim, because `take` records each ticket's seat as its position in the claim.

use std::sync::Arc;
use std::time::Duration;

use ludus_catalog::QuickMatchClocks;
use ludus_proto::pb::{self, game_state_client::GameStateClient};
use ludus_store::{QueueStore, Ticket, TicketStatus};
use ludus_telemetry::Traced;
use rand::RngExt;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use ulid::Ulid;

use crate::error::ServiceError;
use crate::model::{TicketPayload, is_casual_queue, table_seats};
use crate::pairing::{self, RatingWindow, Seeker};
use crate::service::now_ms;

/// Tickets read from a queue per round: enough for many pairs, bounded per round trip.
pub const MATCH_BATCH: usize = 64;

/// Rounds per queue per pass: a round ends early when a race is lost; this bounds how long
/// one busy queue can hold the matcher before the others get their turn.
const MAX_ROUNDS_PER_QUEUE: usize = 8;

/// Attempts at CreateGame for a matched pair (it is idempotent by game id).
const CREATE_GAME_ATTEMPTS: u32 = 5;

/// Wait before the first CreateGame retry; doubles each time.
const CREATE_GAME_BACKOFF: Duration = Duration::from_millis(50);

/// One replica's matcher.
#[derive(Clone, Debug)]
pub struct Matcher {
    queues: QueueStore,
    game_state: GameStateClient<Traced>,
    /// The server's clock for each game's quick matches.
    clocks: QuickMatchClocks,
    interval: Duration,
    wake: Arc<Notify>,
    rating_window: RatingWindow,
}

impl Matcher {
    /// A matcher over `queues` that creates games on `game_state`; `wake` cuts the wait
    /// short (the service notifies it on every enqueue).
    pub fn new(
        queues: QueueStore,
        game_state: GameStateClient<Traced>,
        clocks: QuickMatchClocks,
        interval: Duration,
        wake: Arc<Notify>,
    ) -> Self {
        Matcher {
            queues,
            game_state,
            clocks,
            interval,
            wake,
            rating_window: RatingWindow::DEFAULT,
        }
    }

    /// How far apart in rating paired players may be, by how long they waited.
    pub fn rating_window(mut self, window: RatingWindow) -> Self {
        self.rating_window = window;
        self
    }

    /// Matches until `stop` is cancelled.
    pub async fn run(self, stop: CancellationToken) {
        tracing::info!("matcher started");
        loop {
            tokio::select! {
                () = stop.cancelled() => break,
                () = self.wake.notified() => {}
                () = tokio::time::sleep(self.interval) => {}
            }
            if let Err(error) = self.pass(&stop).await {
                tracing::warn!(%error, "matching pass failed");
            }
        }
        tracing::info!("matcher stopped");
    }

    /// One look at every queue.
    pub async fn pass(&self, stop: &CancellationToken) -> Result<(), ServiceError> {
        for queue in self.queues.queues().await? {
            if stop.is_cancelled() {
                break;
            }
            if let Err(error) = self.match_queue(&queue).await {
                tracing::warn!(%error, queue, "matching a queue failed");
            }
        }
        Ok(())
    }

    async fn match_queue(&self, queue: &str) -> Result<(), ServiceError> {
        for _ in 0..MAX_ROUNDS_PER_QUEUE {
            let tickets = self.queues.queued(queue, MATCH_BATCH).await?;
            // Every ticket of a queue has the same settings, so the first says the table size;
            // a table of more than two seats starts only when full.
            let Some(first) = tickets.first() else {
                break;
            };
            let seats = table_seats(&TicketPayload::from_bytes(&first.payload)?.settings()?);
            let seekers = tickets
                .iter()
                .map(|ticket| {
                    Ok(Seeker {
                        rating: TicketPayload::from_bytes(&ticket.payload)?.rating,
                        created_ms: ticket.created_ms,
                    })
                })
                .collect::<Result<Vec<_>, ServiceError>>()?;
            let mut lost_race = false;
            for table in pairing::tables(&seekers, seats, now_ms(), &self.rating_window) {
                let table: Vec<Ticket> = table.iter().map(|&i| tickets[i].clone()).collect();
                if !self.match_table(queue, &table).await? {
                    lost_race = true;
                    break;
                }
            }
            // A short read means the queue is drained down to at most one ticket.
            if !lost_race && tickets.len() < MATCH_BATCH {
                break;
            }
        }
        Ok(())
    }

    /// Claims `table`'s tickets for a new game; false if another replica (or a cancel) got
    /// one of them first.
    async fn match_table(&self, queue: &str, table: &[Ticket]) -> Result<bool, ServiceError> {
        let mut seated: Vec<&Ticket> = table.iter().collect();
        shuffle(&mut seated);
        let ids: Vec<String> = seated.iter().map(|t| t.ticket_id.clone()).collect();
        let game_id = Ulid::generate().to_string();
        if !self.queues.take(queue, &ids, &game_id).await? {
            return Ok(false);
        }
        tracing::info!(queue, game_id, "tickets matched");
        // The tickets are matched now whatever happens next: a failure here is logged, not
        // retried by another pass.
        if let Err(error) = self.create_game(&game_id, &seated).await {
            tracing::error!(%error, game_id, "matched game could not be created");
        }
        Ok(true)
    }

    /// Makes sure the game of a matched table exists: if the matcher that took the tickets
    /// never created it (it crashed, or game-state stayed down through its retries), create it
    /// now from the tickets of the table, exactly as that matcher would have. CreateGame is
    /// idempotent by game id, so racing a matcher that is still at it is harmless.
    pub async fn ensure_game(
        &self,
        queue: &str,
        game_id: &str,
        table: &[String],
    ) -> Result<(), ServiceError> {
        let existing = self
            .game_state
            .clone()
            .get_snapshot(pb::GetSnapshotRequest {
                game_id: game_id.to_owned(),
                viewer_player_id: String::new(),
            })
            .await;
        match existing {
            Ok(_) => return Ok(()),
            Err(status) if status.code() == tonic::Code::NotFound => {}
            Err(status) => {
                return Err(ServiceError::Unavailable(format!(
                    "game-state get snapshot: {}",
                    status.message()
                )));
            }
        }
        let mut tickets = Vec::with_capacity(table.len());
        for id in table {
            let ticket = self.queues.ticket(queue, id).await?.ok_or_else(|| {
                ServiceError::Internal(format!("ticket {id} of game {game_id} is gone"))
            })?;
            if !matches!(&ticket.status, TicketStatus::Matched { game_id: g, .. } if g == game_id) {
                return Err(ServiceError::Internal(format!(
                    "ticket {id} is not seated in game {game_id}"
                )));
            }
            tickets.push(ticket);
        }
        tracing::warn!(
            game_id,
            "creating a matched game its matcher did not create"
        );
        let seated: Vec<&Ticket> = tickets.iter().collect();
        self.create_game(game_id, &seated).await
    }

    async fn create_game(&self, game_id: &str, seated: &[&Ticket]) -> Result<(), ServiceError> {
        let mut players = Vec::with_capacity(seated.len());
        let mut settings = None;
        for ticket in seated {
            let payload = TicketPayload::from_bytes(&ticket.payload)?;
            if settings.is_none() {
                settings = Some(payload.settings()?);
            }
            players.push(pb::PlayerRef {
                player_id: ticket.player_id.clone(),
                display_name: payload.display_name,
            });
        }
        let mut settings =
            settings.ok_or_else(|| ServiceError::Internal("a table without tickets".into()))?;
        settings.turn_time_ms = self.clocks.clock_for(&settings);
        let request = pb::CreateGameRequest {
            game_id: game_id.to_owned(),
            settings: Some(settings),
            players,
            // Every ticket of a table waited in the same queue.
            casual: seated.iter().any(|ticket| is_casual_queue(&ticket.queue)),
        };
        let mut backoff = CREATE_GAME_BACKOFF;
        let mut attempt = 1;
        loop {
            match self.game_state.clone().create_game(request.clone()).await {
                Ok(_) => return Ok(()),
                Err(status) if attempt < CREATE_GAME_ATTEMPTS => {
                    tracing::warn!(game_id, attempt, error = %status.message(), "create game failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff *= 2;
                    attempt += 1;
                }
                Err(status) => {
                    return Err(ServiceError::Unavailable(format!(
                        "game-state create game: {}",
                        status.message()
                    )));
                }
            }
        }
    }
}

/// Draws the seat order with the thread's CSPRNG (C9: X and O at random; seat 0 is X).
fn shuffle<T>(items: &mut [T]) {
    let mut rng = rand::rng();
    for i in (1..items.len()).rev() {
        let j = rng.random_range(0..=i);
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_uses_both_orders() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let mut pair = ['a', 'b'];
            shuffle(&mut pair);
            seen.insert(pair);
        }
        assert_eq!(seen.len(), 2);
    }
}
