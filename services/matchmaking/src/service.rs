//! The Matchmaking gRPC service: enqueue, watch and cancel tickets.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use ludus_proto::pb::{self, matchmaking_server::Matchmaking, ratings_client::RatingsClient};
use ludus_server::Traced;
use ludus_store::{EnqueueOutcome, QueueStore, Ticket, TicketStatus};
use tokio::sync::{Notify, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};
use ulid::Ulid;

use crate::error::ServiceError;
use crate::matcher::Matcher;
use crate::model::{
    QuickMatch, TicketPayload, queue_of, ticket_id, ticket_update, validate_display_name,
    validate_id,
};
use crate::notices::{Registration, TicketNotices, WATCH_FALLBACK_POLL};

/// Updates buffered per watch; the watch waits when the client reads slowly.
const WATCH_BUFFER: usize = 4;

type TicketStream = Pin<Box<dyn Stream<Item = Result<pb::TicketUpdate, Status>> + Send>>;

/// How long an enqueue waits for the player's rating before queuing the ticket unrated.
pub const RATING_LOOKUP_TIMEOUT: Duration = Duration::from_secs(1);

/// The matchmaking service.
#[derive(Clone, Debug)]
pub struct MatchmakingService {
    queues: QueueStore,
    /// Where a player's rating comes from when they queue (for rating windows); `None`
    /// pairs every ticket with anyone.
    ratings: Option<RatingsClient<Traced>>,
    /// Finishes setting up a matched game whose matcher could not (see `Matcher::ensure_game`).
    matcher: Matcher,
    wake: Arc<Notify>,
    /// Wakes this replica's watches when their tickets settle.
    notices: TicketNotices,
    stop: CancellationToken,
}

impl MatchmakingService {
    /// A service over `queues`; each enqueue notifies `wake` (the matcher); watches wait on
    /// `notices` (run its router with the store's settled subscription); open watches end
    /// when `stop` is cancelled.
    pub fn new(
        queues: QueueStore,
        matcher: Matcher,
        wake: Arc<Notify>,
        notices: TicketNotices,
        stop: CancellationToken,
    ) -> Self {
        MatchmakingService {
            queues,
            ratings: None,
            matcher,
            wake,
            notices,
            stop,
        }
    }

    /// Reads players' ratings from `ratings` when they queue, so the matcher pairs close
    /// ratings first (see [`crate::pairing`]).
    pub fn with_ratings(mut self, ratings: RatingsClient<Traced>) -> Self {
        self.ratings = Some(ratings);
        self
    }

    /// The player's rating in the pool, rounded. A ratings outage must not stop quick match,
    /// nor a slow ratings service hold it up: past [`RATING_LOOKUP_TIMEOUT`] the ticket is
    /// unrated and pairs with anyone.
    async fn rating(&self, pool: &str, player_id: &str) -> Option<i32> {
        let mut ratings = self.ratings.clone()?;
        let request = pb::RatingsGetRatingRequest {
            ruleset: pool.to_owned(),
            player_id: player_id.to_owned(),
        };
        // Bounded here, on the client: a hung server would not honour a grpc-timeout.
        match tokio::time::timeout(RATING_LOOKUP_TIMEOUT, ratings.get_rating(request)).await {
            // Elo lives far inside i32; the cast saturates anyway.
            #[allow(clippy::cast_possible_truncation)]
            Ok(Ok(rating)) => Some(rating.into_inner().rating.round() as i32),
            Ok(Err(status)) => {
                tracing::warn!(pool, code = ?status.code(), message = status.message(), "no rating for a ticket; it pairs with anyone");
                None
            }
            Err(_) => {
                tracing::warn!(
                    pool,
                    "ratings answered too slowly; the ticket pairs with anyone"
                );
                None
            }
        }
    }

    /// The ticket an enqueue of `request` writes (validated; the rating looked up), not
    /// stored yet: its id is known before the write, so a watch can register for its notices
    /// first.
    async fn ticket_of(&self, request: &pb::EnqueueRequest) -> Result<Ticket, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        validate_display_name("display_name", &request.display_name)?;
        let quick = QuickMatch::from_settings(request.settings.as_ref())?;
        // M12: a casual ticket (the gateway's call, from the caller's token) waits in the
        // casual twin of the queue and carries no rating: guests have none to pair by.
        let (quick, rating) = if request.casual {
            (quick.casual(), None)
        } else {
            let rating = self.rating(&quick.rating_pool, &request.player_id).await;
            (quick, rating)
        };
        // A retried request names the ticket its first attempt may have queued.
        let ulid = if request.request_id.is_empty() {
            Ulid::generate()
        } else {
            request
                .request_id
                .parse::<Ulid>()
                .map_err(|_| ServiceError::InvalidArgument("request_id: not a ULID".to_owned()))?
        };
        let payload = TicketPayload::new(&request.display_name, &quick, rating)
            .confirmed_by_caller(request.confirm_presence)
            .to_bytes()?;
        Ok(Ticket {
            ticket_id: ticket_id(&quick.queue, ulid)?,
            queue: quick.queue,
            player_id: request.player_id.clone(),
            payload,
            created_ms: self.matcher.now_ms(),
            status: TicketStatus::Queued,
        })
    }

    /// Writes `ticket` (from [`Self::ticket_of`]) with its lease running to `lease_until_ms`.
    /// `Ok(true)`: queued by this call; `Ok(false)`: the first attempt of the same request
    /// queued it and its answer was lost, so the caller gets its ticket back (whatever became
    /// of it since), not a refusal; ALREADY_EXISTS when the player holds another live ticket.
    async fn store(&self, ticket: &Ticket, lease_until_ms: u64) -> Result<bool, ServiceError> {
        // Its lease runs from now, written with the ticket: the caller's watch renews it, or
        // it lapses.
        match self.queues.enqueue_leased(ticket, lease_until_ms).await? {
            EnqueueOutcome::Queued => {
                tracing::info!(ticket_id = %ticket.ticket_id, queue = %ticket.queue, "ticket queued");
                self.wake.notify_one();
                Ok(true)
            }
            EnqueueOutcome::AlreadyQueued { ticket_id }
                if ticket_id == ticket.ticket_id && self.retried_own(ticket).await? =>
            {
                tracing::info!(ticket_id = %ticket.ticket_id, "enqueue retried: ticket kept");
                self.matcher.keep_alive(ticket).await;
                Ok(false)
            }
            EnqueueOutcome::AlreadyQueued { ticket_id } => {
                Err(ServiceError::AlreadyExists(format!(
                    "player_id: {} already holds ticket {ticket_id}",
                    ticket.player_id
                )))
            }
        }
    }

    async fn enqueue(
        &self,
        request: pb::EnqueueRequest,
    ) -> Result<pb::EnqueueResponse, ServiceError> {
        let ticket = self.ticket_of(&request).await?;
        self.store(&ticket, self.matcher.lease_until_ms()).await?;
        Ok(pb::EnqueueResponse {
            ticket_id: ticket.ticket_id,
            queue: ticket.queue,
        })
    }

    /// Starts the watch of `ticket` (read by the caller, or just queued), registered for its
    /// notices as `registration` (before the ticket was read or written): the current state
    /// goes out at once (a match only once its game is ready; until then the watch keeps
    /// trying), then every change.
    async fn start_watch(
        &self,
        ticket: Ticket,
        lease_end: Option<u64>,
        registration: Registration,
    ) -> Result<TicketStream, Status> {
        let (tx, rx) = mpsc::channel(WATCH_BUFFER);
        registration.sends_to(&tx);
        let announced = game_ready(&self.matcher, &ticket, &registration).await;
        if announced {
            tx.send(Ok(ticket_update(&ticket, self.matcher.now_ms())))
                .await
                .map_err(|_| Status::internal("internal error"))?;
        }
        tokio::spawn(watch(
            self.queues.clone(),
            self.matcher.clone(),
            ticket,
            lease_end,
            announced,
            registration,
            tx,
            self.stop.clone(),
        ));
        Ok(Box::pin(ReceiverStream::new(rx)))
    }

    /// Whether the stored ticket with `ticket`'s id is the same player's (a retried request's
    /// own ticket, not another's that happens to carry the id).
    async fn retried_own(&self, ticket: &Ticket) -> Result<bool, ServiceError> {
        let stored = self.queues.ticket(&ticket.queue, &ticket.ticket_id).await?;
        Ok(stored.is_some_and(|stored| stored.player_id == ticket.player_id))
    }

    /// The ticket, if it is `player_id`'s.
    async fn owned_ticket(&self, ticket_id: &str, player_id: &str) -> Result<Ticket, ServiceError> {
        Ok(self.owned_ticket_and_lease(ticket_id, player_id).await?.0)
    }

    /// The ticket, if it is `player_id`'s, and where its lease ends.
    async fn owned_ticket_and_lease(
        &self,
        ticket_id: &str,
        player_id: &str,
    ) -> Result<(Ticket, Option<u64>), ServiceError> {
        validate_id("player_id", player_id)?;
        let queue = queue_of(ticket_id)?;
        let (ticket, lease) = self
            .queues
            .ticket_and_lease(&queue, ticket_id)
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("ticket_id: no ticket {ticket_id}")))?;
        if ticket.player_id != player_id {
            return Err(ServiceError::PermissionDenied(format!(
                "ticket_id: ticket {ticket_id} is not player {player_id}'s"
            )));
        }
        Ok((ticket, lease))
    }

    async fn cancel(
        &self,
        request: pb::CancelTicketRequest,
    ) -> Result<pb::TicketUpdate, ServiceError> {
        let ticket = self
            .owned_ticket(&request.ticket_id, &request.player_id)
            .await?;
        let after = self
            .queues
            .cancel(&ticket.ticket_id, &ticket.queue, &request.player_id)
            .await?
            // Gone between the two reads: only expiry of a finished ticket does that.
            .ok_or_else(|| {
                ServiceError::NotFound(format!("ticket_id: no ticket {}", request.ticket_id))
            })?;
        if after.status == TicketStatus::Cancelled {
            tracing::info!(ticket_id = %after.ticket_id, "ticket cancelled");
            // Watches on other replicas learn it now rather than at their next poll.
            if let Err(error) = self
                .queues
                .publish_settled(std::slice::from_ref(&after.ticket_id))
                .await
            {
                tracing::warn!(%error, "cancel notice not sent; watches see it when they poll");
            }
        }
        Ok(ticket_update(&after, self.matcher.now_ms()))
    }
}

/// Whether a ticket's owner has something new to hear in `after`: its announced state, game
/// or seat changed (a proposal is not news: its owner hears QUEUED until MATCHED).
fn news(before: &Ticket, after: &Ticket) -> bool {
    let (was, is) = (ticket_update(before, 0), ticket_update(after, 0));
    (was.state, was.game_id, was.seat) != (is.state, is.game_id, is.seat)
}

/// Matched or cancelled: nothing more will happen to the ticket.
fn settled(status: &TicketStatus) -> bool {
    !status.is_live()
}

/// How long a watch that finds its ticket matched, but the game not there yet, waits for the
/// matcher's notice before creating the game itself: the matcher creates a round's games right
/// after claiming them, so the game is usually a few milliseconds away. Creating it here too is
/// harmless (CreateGame is idempotent) but doubles the work of every such match.
const MATCHER_CREATE_GRACE: Duration = Duration::from_secs(2);

/// Whether the ticket's game is ready to be announced: a matched ticket is announced only once
/// its game exists, so a player never gets a game id that GetGame would not find. A notice
/// from the matcher that created it (`registration`) saves asking game-state; a game missing
/// after [`MATCHER_CREATE_GRACE`] without a notice is created here (its matcher died, or
/// game-state stayed down through its retries).
async fn game_ready(matcher: &Matcher, ticket: &Ticket, registration: &Registration) -> bool {
    let TicketStatus::Matched { game_id, table, .. } = &ticket.status else {
        return true;
    };
    if registration.game_created() {
        return true;
    }
    match matcher.game_exists(game_id).await {
        Ok(true) => return true,
        Ok(false) => {}
        Err(error) => {
            tracing::warn!(%error, game_id, "matched game not ready yet");
            return false;
        }
    }
    let _ = tokio::time::timeout(MATCHER_CREATE_GRACE, registration.notified()).await;
    if registration.game_created() {
        return true;
    }
    match matcher.ensure_game(&ticket.queue, game_id, table).await {
        Ok(()) => true,
        Err(error) => {
            tracing::warn!(%error, game_id, "matched game not ready yet");
            false
        }
    }
}

/// Confirms the seat of `ticket` if it is proposed and waits for its confirmation, while the
/// watch's stream `tx` is open: the caller that asked for confirmation (`confirm_presence`)
/// holds that stream for exactly as long as its player waits, so an open stream is the
/// player's presence (ARCHITECTURE.md, Matchmaking). A failure is logged: an unconfirmed
/// proposal goes back to the queue when its window ends.
async fn confirm_present(
    matcher: &Matcher,
    ticket: &Ticket,
    tx: &mpsc::Sender<Result<pb::TicketUpdate, Status>>,
) {
    if !matches!(
        ticket.status,
        TicketStatus::Proposed {
            confirmed: false,
            ..
        }
    ) || tx.is_closed()
    {
        return;
    }
    if let Err(error) = matcher.confirm(ticket).await {
        tracing::warn!(%error, ticket_id = %ticket.ticket_id, "could not confirm a proposed seat");
    }
}

/// Follows one ticket: re-reads it when a notice wakes it (or every [`WATCH_FALLBACK_POLL`])
/// and sends each change until it settles, the client leaves or the server stops.
/// `announced` is the state the client already has; `lease_end` where the ticket's lease
/// ended when it was read.
#[allow(clippy::too_many_arguments)]
async fn watch(
    queues: QueueStore,
    matcher: Matcher,
    mut ticket: Ticket,
    lease_end: Option<u64>,
    mut announced: bool,
    registration: Registration,
    tx: mpsc::Sender<Result<pb::TicketUpdate, Status>>,
    stop: CancellationToken,
) {
    // While this watch lives the ticket's lease is renewed: somebody waits on it (ARCHITECTURE.md, "Disconnection (presence)").
    // A lease written moments ago (by the enqueue right before this watch) lasts until the
    // first renewal below: renewing it now too was one more script per ticket.
    let mut renewed = tokio::time::Instant::now();
    if ticket.status.is_live() && !matcher.lease_is_fresh(lease_end) {
        matcher.keep_alive(&ticket).await;
    }
    confirm_present(&matcher, &ticket, &tx).await;
    while !(announced && settled(&ticket.status)) {
        if ticket.status.is_live() && renewed.elapsed() >= matcher.ticket_renewal() {
            renewed = tokio::time::Instant::now();
            matcher.keep_alive(&ticket).await;
        }
        // Woken for each renewal too: renewing only when a notice or the 1 s poll woke the
        // watch let a 1 s lease (the shortest allowed) lapse under an open watch.
        let renew_at = renewed + matcher.ticket_renewal();
        tokio::select! {
            () = tx.closed() => return,
            () = stop.cancelled() => {
                let _ = tx
                    .send(Err(Status::unavailable("the server is shutting down: watch the ticket again")))
                    .await;
                return;
            }
            () = registration.notified() => {}
            () = tokio::time::sleep_until(renew_at), if ticket.status.is_live() => continue,
            () = tokio::time::sleep(WATCH_FALLBACK_POLL) => {}
        }
        // Told its proposal: this open watch is the player's presence, confirmed at once
        // without a read (the store checks the proposal; a stale one changes nothing). The
        // owner hears MATCHED once the completed table's game exists (its notice wakes this).
        if let Some(proposal) = registration.take_proposal() {
            confirm_present(&matcher, &proposal.of(&ticket), &tx).await;
            continue;
        }
        // Seated by this replica's matcher, its game created: what the read would say.
        if let Some(table) = registration.take_match() {
            let next = Ticket {
                status: TicketStatus::Matched {
                    game_id: table.game_id,
                    seat: table.seat,
                    table: table.table,
                },
                ..ticket.clone()
            };
            // Matched is final: the watch is done once it is said.
            let _ = tx.send(Ok(ticket_update(&next, matcher.now_ms()))).await;
            return;
        }
        let next = match queues.ticket(&ticket.queue, &ticket.ticket_id).await {
            Ok(Some(next)) => next,
            Ok(None) => {
                let _ = tx
                    .send(Err(Status::not_found(format!(
                        "ticket_id: ticket {} expired",
                        ticket.ticket_id
                    ))))
                    .await;
                return;
            }
            Err(error) => {
                let _ = tx.send(Err(ServiceError::from(error).into())).await;
                return;
            }
        };
        // A proposal the notice did not name (missed, or before this watch began).
        confirm_present(&matcher, &next, &tx).await;
        if news(&ticket, &next) || !announced {
            if !game_ready(&matcher, &next, &registration).await {
                ticket = next;
                announced = false;
                continue;
            }
            if tx
                .send(Ok(ticket_update(&next, matcher.now_ms())))
                .await
                .is_err()
            {
                return;
            }
            announced = true;
        }
        ticket = next;
    }
}

#[tonic::async_trait]
impl Matchmaking for MatchmakingService {
    #[tracing::instrument(skip_all, fields(player_id = %request.get_ref().player_id))]
    async fn enqueue(
        &self,
        request: Request<pb::EnqueueRequest>,
    ) -> Result<Response<pb::EnqueueResponse>, Status> {
        Ok(Response::new(self.enqueue(request.into_inner()).await?))
    }

    type WatchTicketStream = TicketStream;

    #[tracing::instrument(skip_all, fields(ticket_id = %request.get_ref().ticket_id))]
    async fn watch_ticket(
        &self,
        request: Request<pb::WatchTicketRequest>,
    ) -> Result<Response<TicketStream>, Status> {
        let request = request.into_inner();
        // Registered before the read: a notice published after it wakes the watch.
        let registration = self.notices.register(&request.ticket_id);
        let (ticket, lease_end) = self
            .owned_ticket_and_lease(&request.ticket_id, &request.player_id)
            .await?;
        Ok(Response::new(
            self.start_watch(ticket, lease_end, registration).await?,
        ))
    }

    type QueueAndWatchStream = TicketStream;

    #[tracing::instrument(skip_all, fields(player_id = %request.get_ref().player_id))]
    async fn queue_and_watch(
        &self,
        request: Request<pb::EnqueueRequest>,
    ) -> Result<Response<TicketStream>, Status> {
        let ticket = self.ticket_of(request.get_ref()).await?;
        // Registered before the write: a proposal made right after it wakes the watch.
        let registration = self.notices.register(&ticket.ticket_id);
        let lease_until_ms = self.matcher.lease_until_ms();
        let stream = if self.store(&ticket, lease_until_ms).await? {
            // Queued by this call: its state and lease are known without reading them back.
            self.start_watch(ticket, Some(lease_until_ms), registration)
                .await?
        } else {
            // A retry: the ticket as it stands now, as WatchTicket starts.
            let (ticket, lease_end) = self
                .owned_ticket_and_lease(&ticket.ticket_id, &ticket.player_id)
                .await?;
            self.start_watch(ticket, lease_end, registration).await?
        };
        Ok(Response::new(stream))
    }

    #[tracing::instrument(skip_all, fields(ticket_id = %request.get_ref().ticket_id))]
    async fn cancel_ticket(
        &self,
        request: Request<pb::CancelTicketRequest>,
    ) -> Result<Response<pb::TicketUpdate>, Status> {
        Ok(Response::new(self.cancel(request.into_inner()).await?))
    }
}
