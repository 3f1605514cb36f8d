//! The matcher: one loop per replica that pairs queued tickets and creates their games.
//!
//! Work is partitioned by queue: a replica matches a queue only while it holds that queue's
//! lease (the store's `lease_queue`), so replicas do not read the same oldest tickets and race
//! for the same tables; other queues go to other replicas. The lease is an economy, not the
//! guarantee: every claim is the store's atomic `take_tables` (each table all-or-nothing), so
//! a ticket is matched at most once even if two replicas ever match one queue.
//!
//! A round reads up to [`MATCH_BATCH`] tickets, claims every table it formed in one script
//! call, then creates the games concurrently in the background (bounded by
//! [`MAX_TABLES_CREATING`]) while the next round goes on; the created tables' tickets are
//! published as one settled notice, which wakes their watches on every replica. Seats are
//! drawn before the claim, because the claim records each ticket's seat as its position.
//!
//! The confirm step: a claimed table is a *proposal* (the store's `propose_tables`) until
//! every seat is confirmed by a watch of its ticket whose stream is still open, the stream
//! the gateway holds for exactly as long as that player's FindMatch stream
//! ([`Matcher::confirm`]); the confirmation that completes it matches the table and creates
//! its game, as a round does for a table claimed outright (tickets queued without
//! `confirm_presence` count as confirmed from the start). A player who left is cancelled by
//! their gateway, which takes the proposal down: the others go back to the front. A
//! proposal still short of confirmations after [`DEFAULT_CONFIRM_WINDOW`] (a gateway died, a
//! confirmation was lost with a replica) is taken down by the queue's next round, every
//! ticket requeued at its place; one nobody waits on is then dropped when its lease lapses.

use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use ludus_catalog::QuickMatchClocks;
use ludus_proto::pb::{self, game_state_client::GameStateClient};
use ludus_server::Traced;
use ludus_store::{
    Clock, Confirmation, QueueStore, SeatConfirmation, TableClaim, TableOutcome, TableProposal,
    Ticket, TicketProposal, TicketStatus,
};
use rand::RngExt;
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;
use ulid::Ulid;

use crate::error::ServiceError;
use crate::model::{TicketPayload, is_casual_queue, table_seats};
use crate::notices::TicketNotices;
use crate::pairing::{self, RatingWindow, Seeker};

/// Tickets read from a queue per round: many tables per claim, bounded per round trip.
pub const MATCH_BATCH: usize = 256;

/// Rounds per queue per pass: this bounds how long one busy queue can hold the matcher
/// before the others get their turn.
const MAX_ROUNDS_PER_QUEUE: usize = 8;

/// How long a queue's matching lease lasts; the holder renews it every pass, so another
/// replica takes over this long after the holder stops.
pub const QUEUE_LEASE: Duration = Duration::from_secs(2);

/// Matched tables whose games are being created at once, per replica: past this a round
/// waits for earlier creations (back-pressure on game-state).
pub const MAX_TABLES_CREATING: usize = 512;

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
    /// This replica's name in queue leases.
    holder: String,
    /// This replica's watches: a seat whose ticket is watched here with its stream open
    /// counts as confirmed when proposed (none until the service shares them).
    watches: Option<TicketNotices>,
    /// Permits for tables whose games are being created.
    creating: Arc<Semaphore>,
    /// Tickets are ordered and aged by it (Unix ms, so replicas agree).
    clock: Clock,
    /// How long a ticket stays matchable after its last renewal by a watch (ARCHITECTURE.md, "Disconnection (presence)").
    ticket_lease: Duration,
    /// How long a proposed table waits for its confirmations.
    confirm_window: Duration,
    /// Ticket leases and confirmation windows run on it: they say whether a process or a
    /// player is still there, so it stays the system's while a test moves the game clock
    /// (advancing that must not make every ticket lapse); a test of lapses passes its own.
    lease_clock: Clock,
}

/// How long a proposed table waits for every seat's confirmation before its tickets go back
/// to the queue (`--confirm-window-ms`). A confirmation takes one round trip from the
/// gateway, milliseconds; the window covers a gateway re-watching a ticket after a
/// matchmaking replica died (it tries again every 100 ms), and bounds what a player whose
/// gateway died costs the others at the table.
pub const DEFAULT_CONFIRM_WINDOW: Duration = Duration::from_secs(3);

/// How long a waiting ticket stays matchable unless a watch renews it (`--ticket-lease-seconds`):
/// longer than the gateway's re-watch patience after a replica's death (5 s), so a dead
/// replica costs nobody their ticket.
pub const DEFAULT_TICKET_LEASE: Duration = Duration::from_secs(10);

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
            holder: Ulid::generate().to_string(),
            watches: None,
            creating: Arc::new(Semaphore::new(MAX_TABLES_CREATING)),
            clock: Clock::system(),
            ticket_lease: DEFAULT_TICKET_LEASE,
            confirm_window: DEFAULT_CONFIRM_WINDOW,
            lease_clock: Clock::system(),
        }
    }

    /// The clock ticket leases and confirmation windows run on.
    pub fn lease_clock(mut self, clock: Clock) -> Self {
        self.lease_clock = clock;
        self
    }

    /// The replica's watches, whose open streams confirm their seats as tables are proposed.
    pub fn watches(mut self, watches: TicketNotices) -> Self {
        self.watches = Some(watches);
        self
    }

    /// How long a proposed table waits for its confirmations.
    pub fn confirm_window(mut self, window: Duration) -> Self {
        self.confirm_window = window.max(Duration::from_millis(1));
        self
    }

    /// Confirms the seat of `proposed` (a ticket as proposed into a table; its player is
    /// there: a watch of it has its stream open). The confirmation that completes the table
    /// creates its game in the background, as a round does. What became of the ticket is
    /// returned as it stands.
    pub async fn confirm(&self, proposed: &Ticket) -> Result<Ticket, ServiceError> {
        let TicketStatus::Proposed {
            game_id,
            seat,
            table,
            ..
        } = &proposed.status
        else {
            return Ok(proposed.clone());
        };
        let confirmation = self
            .queues
            .confirm_read(proposed, game_id, self.lease_clock.now_ms())
            .await?;
        let status = match confirmation {
            Confirmation::Waiting => TicketStatus::Proposed {
                game_id: game_id.clone(),
                seat: *seat,
                table: table.clone(),
                confirmed: true,
            },
            Confirmation::Complete { tickets } => {
                tracing::info!(queue = %proposed.queue, game_id, "proposed table confirmed");
                self.create_games(vec![(game_id.clone(), tickets)]).await;
                TicketStatus::Matched {
                    game_id: game_id.clone(),
                    seat: *seat,
                    table: table.clone(),
                }
            }
            Confirmation::NotProposed(now) => return Ok(now.unwrap_or_else(|| proposed.clone())),
        };
        Ok(Ticket {
            status,
            ..proposed.clone()
        })
    }

    /// How long a ticket stays matchable unless its watch renews it.
    pub fn ticket_lease(mut self, lease: Duration) -> Self {
        self.ticket_lease = lease.max(Duration::from_secs(1));
        self
    }

    /// How often a watch renews its ticket's lease.
    pub fn ticket_renewal(&self) -> Duration {
        self.ticket_lease / 3
    }

    /// Where a lease renewed now ends (Unix ms on the lease clock).
    pub fn lease_until_ms(&self) -> u64 {
        self.lease_clock
            .now_ms()
            .saturating_add(u64::try_from(self.ticket_lease.as_millis()).unwrap_or(u64::MAX))
    }

    /// Whether a lease ending at `end_ms` has at least a lease minus one renewal period left:
    /// a watch that finds it so need not renew it before its first renewal period ends (the
    /// lease written by the enqueue just before the watch).
    pub fn lease_is_fresh(&self, end_ms: Option<u64>) -> bool {
        let renewal = u64::try_from(self.ticket_renewal().as_millis()).unwrap_or(u64::MAX);
        end_ms.is_some_and(|end| end >= self.lease_until_ms().saturating_sub(renewal))
    }

    /// Renews `ticket`'s lease from now; a failure is logged (the next renewal retries; a
    /// lapse costs the player their ticket, which their client sees as a cancel).
    pub async fn keep_alive(&self, ticket: &Ticket) {
        let until = self.lease_until_ms();
        if let Err(error) = self
            .queues
            .keep_alive(&ticket.queue, &ticket.ticket_id, until)
            .await
        {
            tracing::warn!(%error, ticket_id = %ticket.ticket_id, "could not renew a ticket's lease");
        }
    }

    /// Drops (cancels) the tickets of `queue` whose lease ran out: nobody waits on them (their
    /// FindMatch stream and every watch are gone: the player's app or gateway died). Returns
    /// the others, in order.
    async fn drop_lapsed(
        &self,
        queue: &str,
        tickets: Vec<Ticket>,
    ) -> Result<Vec<Ticket>, ServiceError> {
        let ids: Vec<&str> = tickets.iter().map(|t| t.ticket_id.as_str()).collect();
        let ends = self.queues.lease_ends(queue, &ids).await?;
        let now = self.lease_clock.now_ms();
        let mut live = Vec::with_capacity(tickets.len());
        let mut dropped = Vec::new();
        for (ticket, end) in tickets.into_iter().zip(ends) {
            if end.is_some_and(|end| end < now) {
                if self
                    .queues
                    .cancel(&ticket.ticket_id, queue, &ticket.player_id)
                    .await?
                    .is_some_and(|after| after.status == TicketStatus::Cancelled)
                {
                    dropped.push(ticket.ticket_id);
                }
            } else {
                live.push(ticket);
            }
        }
        if !dropped.is_empty() {
            tracing::info!(
                queue,
                tickets = dropped.len(),
                "dropped tickets nobody waits on (lease lapsed)"
            );
            if let Err(error) = self.queues.publish_settled(&dropped).await {
                tracing::warn!(%error, "could not publish dropped tickets");
            }
        }
        Ok(live)
    }

    /// The clock tickets are ordered and aged by (a test's manual one, or the system's).
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Unix milliseconds on this matcher's clock.
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
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
        if !self
            .queues
            .lease_queue(queue, &self.holder, QUEUE_LEASE)
            .await?
        {
            return Ok(());
        }
        // Proposals nobody completed in time go back first, so their tickets sit again now.
        let requeued = self
            .queues
            .expire_proposals(queue, self.lease_clock.now_ms())
            .await?;
        if !requeued.is_empty() {
            tracing::info!(
                queue,
                tickets = requeued.len(),
                "proposals not confirmed in time: tickets back in the queue"
            );
        }
        for _ in 0..MAX_ROUNDS_PER_QUEUE {
            let read = self.queues.queued(queue, MATCH_BATCH).await?;
            let full_batch = read.len() == MATCH_BATCH;
            let tickets = self.drop_lapsed(queue, read).await?;
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
            let tables: Vec<Vec<Ticket>> =
                pairing::tables(&seekers, seats, self.now_ms(), &self.rating_window)
                    .into_iter()
                    .map(|table| {
                        let mut seated: Vec<Ticket> =
                            table.iter().map(|&i| tickets[i].clone()).collect();
                        shuffle(&mut seated);
                        seated
                    })
                    .collect();
            if tables.is_empty() {
                break;
            }
            // A seat waits for its watch's confirmation unless the ticket needs none, or its
            // watch is here with its stream open: the very check that watch would make when
            // told its proposal, made now, which spares a round of confirmations (a notice,
            // a wake-up and a script per seat) for the tickets this replica watches.
            let now_ms = self.lease_clock.now_ms();
            let proposals = tables
                .iter()
                .map(|seated| {
                    let confirmed = seated
                        .iter()
                        .map(|t| {
                            Ok(if !TicketPayload::from_bytes(&t.payload)?.confirm {
                                SeatConfirmation::FromStart
                            } else if self
                                .watches
                                .as_ref()
                                .is_some_and(|w| w.present(&t.ticket_id))
                            {
                                SeatConfirmation::PresentAt(now_ms)
                            } else {
                                SeatConfirmation::Pending
                            })
                        })
                        .collect::<Result<Vec<_>, ServiceError>>()?;
                    let claim = TableClaim {
                        game_id: Ulid::generate().to_string(),
                        ticket_ids: seated.iter().map(|t| t.ticket_id.clone()).collect(),
                    };
                    Ok(TableProposal { claim, confirmed })
                })
                .collect::<Result<Vec<_>, ServiceError>>()?;
            let deadline = self
                .lease_clock
                .now_ms()
                .saturating_add(u64::try_from(self.confirm_window.as_millis()).unwrap_or(u64::MAX));
            let outcomes = self
                .queues
                .propose_tables(queue, &proposals, deadline)
                .await?;
            let lost_race = outcomes.contains(&TableOutcome::Lost);
            let proposed = outcomes
                .iter()
                .filter(|o| **o == TableOutcome::Proposed)
                .count();
            // Tables whose every seat counted as confirmed are games now; proposed ones
            // become games when their last confirmation lands (`confirm`).
            let won: Vec<(String, Vec<Ticket>)> = proposals
                .into_iter()
                .zip(tables)
                .zip(outcomes)
                .filter_map(|((proposal, seated), outcome)| {
                    (outcome == TableOutcome::Matched).then_some((proposal.claim.game_id, seated))
                })
                .collect();
            tracing::info!(queue, tables = won.len(), proposed, "tickets matched");
            self.create_games(won).await;
            // A short read means the queue is drained down to what cannot sit yet; a lost
            // race (a cancel, or a replica past a lapsed lease) means re-reading.
            if !lost_race && !full_batch {
                break;
            }
        }
        Ok(())
    }

    /// Creates the games of claimed tables concurrently in the background, then publishes
    /// their tickets as settled (only tables whose game now exists: a watch announces a match
    /// on that notice without asking game-state). The tickets are matched whatever happens
    /// here: a failure is logged, and the tickets' watches create the game themselves
    /// ([`Matcher::ensure_game`]).
    async fn create_games(&self, won: Vec<(String, Vec<Ticket>)>) {
        if won.is_empty() {
            return;
        }
        let wanted = u32::try_from(won.len().min(MAX_TABLES_CREATING)).unwrap_or(u32::MAX);
        // Closed only if the semaphore is dropped, which this matcher never does.
        let Ok(permits) = self.creating.clone().acquire_many_owned(wanted).await else {
            return;
        };
        let matcher = self.clone();
        tokio::spawn(async move {
            let matcher = &matcher;
            let created = join_all(won.iter().map(|(game_id, seated)| async move {
                let seated: Vec<&Ticket> = seated.iter().collect();
                match matcher.create_game(game_id, &seated).await {
                    Ok(()) => {
                        let ids: Vec<String> = seated.iter().map(|t| t.ticket_id.clone()).collect();
                        if let Some(watches) = &matcher.watches {
                            for (seat, id) in (0u32..).zip(&ids) {
                                let table = TicketProposal {
                                    game_id: game_id.clone(),
                                    seat,
                                    table: ids.clone(),
                                };
                                watches.matched(id, &table);
                            }
                        }
                        ids
                    }
                    Err(error) => {
                        tracing::error!(%error, game_id, "matched game could not be created");
                        Vec::new()
                    }
                }
            }))
            .await;
            let settled: Vec<String> = created.into_iter().flatten().collect();
            if let Err(error) = matcher.queues.publish_settled(&settled).await {
                tracing::warn!(%error, "match notice not sent; watches see it when they poll");
            }
            drop(permits);
        });
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
        if self.game_exists(game_id).await? {
            return Ok(());
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

    /// Whether game-state has the game (a snapshot read).
    pub async fn game_exists(&self, game_id: &str) -> Result<bool, ServiceError> {
        let existing = self
            .game_state
            .clone()
            .get_snapshot(pb::GetSnapshotRequest {
                game_id: game_id.to_owned(),
                viewer_player_id: String::new(),
                omit_position: true,
            })
            .await;
        match existing {
            Ok(_) => Ok(true),
            Err(status) if status.code() == tonic::Code::NotFound => Ok(false),
            Err(status) => Err(ServiceError::Unavailable(format!(
                "game-state get snapshot: {}",
                status.message()
            ))),
        }
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
                computer_level: String::new(),
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
            room_code: String::new(),
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
