//! Presence as a lease (ARCHITECTURE.md, "Disconnection (presence)"): every seated stream this gateway counted with game-state is
//! also recorded under this gateway's lease in the store ([`StreamLeases`]), which it renews
//! every third of the lease. A gateway that dies stops renewing; once its lease has run out,
//! any other gateway takes its streams (once: the take is atomic) and closes each of them with
//! game-state, so the dead gateway's players are declared disconnected (and C13's grace
//! starts) within [`PresenceLeases::bound`] of its death, instead of counted connected forever.
//!
//! A gateway sweeps others only after it has renewed its own lease twice in a row: after a
//! Redis outage every live gateway renews within one period, so none takes a live one's
//! streams. If its own lease was taken anyway (an outage longer than the lease), the renewal
//! says so and it counts its streams again: those players see a disconnection and a return.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use ludus_proto::pb;
use ludus_store::{Backend, Clock, StreamLeases};
use tokio_util::sync::CancellationToken;

/// How long a gateway's stream lease lasts unless renewed (`--presence-lease-seconds`).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(15);

/// How many lapsed gateways one sweep takes over.
const SWEEP_LIMIT: usize = 16;

/// This gateway's lease over the seated streams it holds.
#[derive(Debug)]
pub struct PresenceLeases {
    /// This process's holder id (a fresh ULID per start: a restarted gateway's old streams
    /// are a dead holder's).
    holder: String,
    lease: Duration,
    store: StreamLeases,
    game_state: crate::game_state::GameStateLink,
    /// (game, player) -> streams this process holds and counted, to count them again if its
    /// lease was taken.
    local: Mutex<HashMap<(String, String), u64>>,
    /// Leases start and lapse on it (Unix ms, so gateways agree).
    clock: Clock,
}

impl PresenceLeases {
    /// Leases of `lease` in `backend`, timed by `clock`, closing a dead gateway's streams
    /// through `game_state`.
    pub fn new(
        backend: Backend,
        lease: Duration,
        clock: Clock,
        game_state: crate::game_state::GameStateLink,
    ) -> Self {
        PresenceLeases {
            holder: ulid::Ulid::generate().to_string(),
            lease: lease.max(Duration::from_secs(1)),
            store: StreamLeases::new(backend),
            game_state,
            local: Mutex::default(),
            clock,
        }
    }

    /// How often the lease is renewed and lapsed ones are looked for.
    fn period(&self) -> Duration {
        self.lease / 3
    }

    /// The longest a dead gateway's players stay counted as connected: its lease, plus one
    /// period for a sweep to notice (plus the calls to game-state).
    pub fn bound(&self) -> Duration {
        self.lease + self.period()
    }

    /// A seated stream game-state counted: recorded under this gateway's lease.
    pub async fn held(&self, game_id: &str, player_id: &str) {
        *self
            .local()
            .entry((game_id.to_owned(), player_id.to_owned()))
            .or_default() += 1;
        if let Err(error) = self.store.hold(&self.holder, game_id, player_id).await {
            tracing::warn!(%error, game_id, "could not record a seated stream's lease");
        }
    }

    /// That stream closed (before game-state is told, so a crash in between leaves the
    /// player counted as connected, never disconnected twice).
    pub async fn released(&self, game_id: &str, player_id: &str) {
        {
            let mut local = self.local();
            let key = (game_id.to_owned(), player_id.to_owned());
            if let Some(n) = local.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    local.remove(&key);
                }
            }
        }
        if let Err(error) = self.store.release(&self.holder, game_id, player_id).await {
            tracing::warn!(%error, game_id, "could not release a seated stream's lease");
        }
    }

    fn local(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), u64>> {
        self.local
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Renews the lease and takes over lapsed ones until `stop`.
    pub async fn run(&self, stop: CancellationToken) {
        let mut every = tokio::time::interval(self.period());
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut renewed_before = false;
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = every.tick() => {}
            }
            let now = self.clock.now_ms();
            let until = now.saturating_add(u64::try_from(self.lease.as_millis()).unwrap_or(0));
            match self.store.renew(&self.holder, until).await {
                Ok(taken) => {
                    // New at the first renewal (nothing held yet), or taken by another
                    // gateway while this one could not renew (an outage longer than the
                    // lease): its players were declared disconnected; they are not.
                    if taken {
                        self.count_again().await;
                    }
                    if renewed_before {
                        self.sweep(now).await;
                    }
                    renewed_before = true;
                }
                Err(error) => {
                    tracing::warn!(%error, "could not renew the stream lease");
                    renewed_before = false;
                }
            }
        }
    }

    /// Closes, with game-state, every stream of every gateway whose lease lapsed by `now`.
    async fn sweep(&self, now: u64) {
        let lapsed = match self.store.lapsed(now, SWEEP_LIMIT).await {
            Ok(lapsed) => lapsed,
            Err(error) => {
                tracing::warn!(%error, "could not read lapsed stream leases");
                return;
            }
        };
        for holder in lapsed.into_iter().filter(|h| *h != self.holder) {
            let streams = match self.store.take_lapsed(&holder, now).await {
                Ok(Some(streams)) => streams,
                Ok(None) => continue,
                Err(error) => {
                    tracing::warn!(%error, "could not take a lapsed stream lease");
                    continue;
                }
            };
            tracing::info!(
                %holder,
                streams = streams.len(),
                "a gateway's stream lease lapsed: closing its seated streams"
            );
            for stream in streams {
                for _ in 0..stream.streams {
                    self.tell(&stream.game_id, &stream.player_id, false).await;
                }
            }
        }
    }

    /// Counts this gateway's streams again, with game-state and under the renewed lease.
    async fn count_again(&self) {
        let held: Vec<((String, String), u64)> =
            self.local().iter().map(|(k, n)| (k.clone(), *n)).collect();
        if !held.is_empty() {
            tracing::warn!("this gateway's stream lease was taken: counting its streams again");
        }
        for ((game_id, player_id), n) in held {
            for _ in 0..n {
                self.tell(&game_id, &player_id, true).await;
                if let Err(error) = self.store.hold(&self.holder, &game_id, &player_id).await {
                    tracing::warn!(%error, game_id, "could not record a seated stream's lease");
                }
            }
        }
    }

    /// UpdatePresence; a failure is logged (the turn clock still runs).
    async fn tell(&self, game_id: &str, player_id: &str, connected: bool) {
        let request = pb::UpdatePresenceRequest {
            game_id: game_id.to_owned(),
            player_id: player_id.to_owned(),
            connected,
        };
        if let Err(status) = self.game_state.clone().update_presence(request).await {
            tracing::warn!(
                game_id,
                connected,
                code = ?status.code(),
                message = status.message(),
                "could not update a leased stream's presence"
            );
        }
    }
}
