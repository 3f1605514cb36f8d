//! Subscribe: a game's events from a sequence number, the logged ones first, then live ones,
//! with no gap and no duplicate. [`Resume`] is that algorithm over any [`EventLog`]; rooms'
//! `SubscribeRoom` uses it too (`crate::rooms`).
//!
//! Live events come from the store's [`GameFeed`], which holds one Redis subscription per game
//! per gateway process and fans it out to every local stream. The stream subscribes to the
//! live feed *before* reading the log, so an event committed in between is seen at least once;
//! the `last` seq sent drops the duplicate. A gap in the live feed (a lagging stream, a Redis
//! reconnect) is filled from the log.
//!
//! A seated player's stream also tells game-state when it opens and closes: a player with no
//! stream open on any gateway replica is disconnected (Caro C13).

use std::sync::LazyLock;

use ludus_proto::codec::EncodedEvent;
use ludus_proto::pb;
use ludus_store::{FeedError, FeedSubscription, GameFeed, StoreError};
use opentelemetry::metrics::{Meter, UpDownCounter};
use prost::Message;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::{Code, Status};

use crate::refusal::{reason, refuse, resume_after};

/// Events buffered per stream before the stream stops reading the feed (it then catches up
/// from the log).
pub const STREAM_BUFFER: usize = 64;

/// What a stream's task hands to its response body: an event as encoded bytes (a live event is
/// the store's payload; the codec writes it as it is), or a status, boxed because a tokio mpsc
/// channel allocates its slots in blocks of 32 when it is created and an idle stream should
/// not hold room for a status in each.
pub type StreamItem = Result<EncodedEvent, Box<Status>>;

/// The one field of a `GameEvent` a stream reads from a live event: whether the event finished
/// the game. Decoding only it skips the rest of the event (the view, the action) without
/// allocating; the tag is `GameEvent.status`'s (a test checks it).
#[derive(Clone, PartialEq, prost::Message)]
struct EventStatus {
    #[prost(enumeration = "pb::GameStatus", tag = "22")]
    status: i32,
}

/// The one field of a `GameEvent` the fan-out span reads: the trace that produced the event
/// (`GameEvent.traceparent`'s tag; a test checks it).
#[derive(Clone, PartialEq, prost::Message)]
struct EventTrace {
    #[prost(string, tag = "60")]
    traceparent: String,
}

/// `ludus.gateway.streams`, made on first use, after `main` installed the meter provider (see
/// `ludus_telemetry::metrics`).
pub(crate) static STREAMS: LazyLock<UpDownCounter<i64>> =
    LazyLock::new(|| streams_counter(&ludus_telemetry::metrics::meter()));

fn streams_counter(meter: &Meter) -> UpDownCounter<i64> {
    meter
        .i64_up_down_counter("ludus.gateway.streams")
        .with_unit("{stream}")
        .with_description("Subscribe streams open on this gateway")
        .build()
}

/// Counts one open stream in `ludus.gateway.streams` for as long as it lives: dropped when
/// the stream ends, however it ends (also when its task is aborted).
pub(crate) struct OpenStream<'a>(&'a UpDownCounter<i64>);

impl<'a> OpenStream<'a> {
    pub(crate) fn new(counter: &'a UpDownCounter<i64>) -> Self {
        counter.add(1, &[]);
        OpenStream(counter)
    }
}

impl Drop for OpenStream<'_> {
    fn drop(&mut self) {
        self.0.add(-1, &[]);
    }
}

/// The client left: nothing more can be sent to its stream.
#[derive(Debug)]
pub(crate) struct ClientGone;

/// Where [`Resume`] hands each item of its stream: a channel a response body reads (the
/// stream then runs as a task of its own), or the queue of a body that runs the stream
/// inside its own polls ([`crate::inline`]).
pub(crate) trait Outbox: Send {
    /// Hands `item` on, waiting while the client has not taken the ones before it.
    fn send(
        &mut self,
        item: StreamItem,
    ) -> impl std::future::Future<Output = Result<(), ClientGone>> + Send;
    /// Completes when the client is gone (while the stream waits for its next live event).
    fn closed(&self) -> impl std::future::Future<Output = ()> + Send;
}

impl Outbox for mpsc::Sender<StreamItem> {
    async fn send(&mut self, item: StreamItem) -> Result<(), ClientGone> {
        mpsc::Sender::send(self, item).await.map_err(|_| ClientGone)
    }

    async fn closed(&self) {
        mpsc::Sender::closed(self).await;
    }
}

/// Why a stream stopped early.
pub(crate) enum Stop {
    /// The client went away.
    ClientGone,
    /// A status to end the stream with.
    Status(Status),
}

/// One page of a log: events in order as (seq, encoding, whether it ends the stream), and
/// whether more may follow.
pub(crate) struct LogPage {
    pub events: Vec<(u64, EncodedEvent, bool)>,
    pub full: bool,
}

/// What a resumable stream reads: a log of events with seqs (a game's, a room's), its live
/// feed, and how to tell the event that ends the stream.
pub(crate) trait EventLog: Send {
    /// Logged events after `after_seq`, one page.
    fn page(
        &mut self,
        after_seq: u64,
    ) -> impl std::future::Future<Output = Result<LogPage, Status>> + Send;
    /// Subscribes to the live events; active when it returns.
    fn subscribe(
        &self,
    ) -> impl std::future::Future<Output = Result<FeedSubscription, StoreError>> + Send;
    /// The live channel's name with the id left out (the fan-out span's destination).
    const FEED: &'static str;
    /// Whether a live event (its stored bytes) ends the stream.
    fn ends(payload: &[u8]) -> Result<bool, Status>;
    /// The `traceparent` a live event carries (the work that produced it), if any.
    fn traceparent(_payload: &[u8]) -> String {
        String::new()
    }
}

/// The span of one live event's delivery to this gateway's subscribers of its log: from its
/// first receipt until the last local subscriber handed it to its stream (see
/// `ludus_store::Delivery`). A root of its own, linked to the trace that produced the event,
/// so a move's trace leads to the deliveries of its event on every gateway replica.
/// Trace-only: with no exporter it is never created, nor the payload read for it.
fn fan_out_span<L: EventLog>(seq: u64, payload: &[u8], subscribers: usize) -> tracing::Span {
    let span = tracing::info_span!(
        target: ludus_telemetry::TRACE_ONLY_TARGET,
        parent: None,
        "fan-out",
        otel.name = "fan-out",
        otel.kind = "consumer",
        messaging.system = "redis",
        messaging.operation.type = "process",
        messaging.operation.name = "fan-out",
        messaging.destination.template = L::FEED,
        ludus.subscribers = subscribers,
        ludus.seq = seq,
    );
    if !span.is_disabled() {
        ludus_server::propagation::link_to(&span, &L::traceparent(payload));
    }
    span
}

/// A stream from a seq: the logged events, then live ones, with no gap and no duplicate.
/// The stream subscribes to the live feed *before* reading the log, so an event committed in
/// between is seen at least once; `last` (the seq sent last) drops the duplicate, and a gap
/// in the live feed (a lagging stream, a Redis reconnect) is filled from the log.
pub(crate) struct Resume<L, O = mpsc::Sender<StreamItem>> {
    pub last: u64,
    pub tx: O,
    pub log: L,
}

impl<L: EventLog, O: Outbox> Resume<L, O> {
    /// Sends the event `seq`, already encoded, as the next one.
    async fn send_encoded(&mut self, seq: u64, event: EncodedEvent) -> Result<(), Stop> {
        self.last = seq;
        self.tx.send(Ok(event)).await.map_err(|_| Stop::ClientGone)
    }

    /// Sends every logged event after `from` not sent yet; returns true once the log's last
    /// event went.
    async fn catch_up(&mut self, from: u64) -> Result<bool, Stop> {
        let mut from = from;
        loop {
            let page = self.log.page(from).await.map_err(Stop::Status)?;
            for (seq, event, ends) in page.events {
                if seq > self.last {
                    self.send_encoded(seq, event).await?;
                }
                if ends {
                    return Ok(true);
                }
            }
            if !page.full {
                return Ok(false);
            }
            from = self.last;
        }
    }

    /// Streams until the log ends (`Ok`), the client leaves, or `stop` is cancelled.
    pub(crate) async fn stream(&mut self, stop: CancellationToken) -> Result<(), Stop> {
        let mut live = self.log.subscribe().await.map_err(|e| {
            Stop::Status(refuse(
                Code::Unavailable,
                format!("live events unavailable: {e}"),
                reason::UNAVAILABLE,
            ))
        })?;
        // Re-read the event the client already has too: if it ended the log, the stream
        // ends here instead of waiting for events that will never come. Boxed: an idle
        // stream should only hold its wait for the next live event, not room for a call.
        if Box::pin(self.catch_up(self.last.saturating_sub(1))).await? {
            return Ok(());
        }
        loop {
            let received = tokio::select! {
                () = stop.cancelled() => {
                    return Err(Stop::Status(resume_after(
                        format!("the server is shutting down: resume with after_seq = {}", self.last),
                        self.last,
                    )));
                }
                () = self.tx.closed() => return Err(Stop::ClientGone),
                received = live.recv_delivery() => received,
            };
            match received {
                Ok((stored, _)) if stored.seq <= self.last => {}
                // The next event: sent as the store holds it, not decoded and re-encoded for
                // each subscriber; only whether it ends the stream is read. The delivery (and
                // its span) is held until the event is handed to the stream.
                Ok((stored, delivery)) if stored.seq == self.last + 1 => {
                    delivery.span(|| {
                        fan_out_span::<L>(stored.seq, &stored.payload, delivery.subscribers())
                    });
                    let payload = bytes::Bytes::from(stored.payload);
                    let ends = L::ends(payload.as_ref()).map_err(Stop::Status)?;
                    self.send_encoded(stored.seq, EncodedEvent::from_encoded(payload))
                        .await?;
                    if ends {
                        return Ok(());
                    }
                }
                // Ahead of us (a gap) or lagging: the log has everything in order.
                Ok(_) | Err(FeedError::Lagged(_)) => {
                    if Box::pin(self.catch_up(self.last)).await? {
                        return Ok(());
                    }
                }
                Err(FeedError::Closed) => {
                    return Err(Stop::Status(resume_after(
                        format!("live events stopped: resume with after_seq = {}", self.last),
                        self.last,
                    )));
                }
            }
        }
    }

    /// Runs the stream and ends it with its status; true when the log ended.
    pub(crate) async fn run(&mut self, stop: CancellationToken) -> bool {
        let outcome = self.stream(stop).await;
        if let Err(Stop::Status(status)) = &outcome {
            let _ = self.tx.send(Err(Box::new(status.clone()))).await;
        }
        outcome.is_ok()
    }
}

/// A game's log: read through game-state, live from the store's game feed.
struct GameLog {
    game_id: String,
    game_state: crate::game_state::GameStateLink,
    feed: GameFeed,
}

impl EventLog for GameLog {
    async fn page(&mut self, after_seq: u64) -> Result<LogPage, Status> {
        let page = self
            .game_state
            .read_events(pb::ReadEventsRequest {
                game_id: self.game_id.clone(),
                after_seq,
                limit: 0,
            })
            .await?
            .into_inner();
        let full = page.more;
        let events = page
            .events
            .into_iter()
            .map(|event| {
                let finished = event.status == pb::GameStatus::Finished as i32;
                (event.seq, EncodedEvent::encode(&event), finished)
            })
            .collect();
        Ok(LogPage { events, full })
    }

    async fn subscribe(&self) -> Result<FeedSubscription, StoreError> {
        self.feed.subscribe(&self.game_id).await
    }

    const FEED: &'static str = "ludus:game:{ID}:live";

    fn traceparent(payload: &[u8]) -> String {
        EventTrace::decode(payload)
            .map(|event| event.traceparent)
            .unwrap_or_default()
    }

    fn ends(payload: &[u8]) -> Result<bool, Status> {
        let status = EventStatus::decode(payload).map_err(|e| {
            tracing::error!(error = %e, "unreadable live event");
            Status::internal("internal error")
        })?;
        Ok(status.status == pb::GameStatus::Finished as i32)
    }
}

/// A stream of a game's events for a caller with no seat being played in it (a spectator, or a
/// player of a finished game): it runs inside its response body ([`crate::inline`]), one
/// task and one channel fewer per subscriber than a [`Subscription`], because closing it
/// tells nobody anything. `permit` (the caller's stream allowance) is held while it runs.
pub(crate) fn watch<P: Send + 'static>(
    game_id: String,
    last: u64,
    game_state: crate::game_state::GameStateLink,
    feed: GameFeed,
    stop: CancellationToken,
    permit: P,
) -> crate::inline::InlineStream<impl std::future::Future<Output = ()> + Send + 'static> {
    crate::inline::stream(STREAM_BUFFER, move |outbox| async move {
        let _open = OpenStream::new(&STREAMS);
        let _permit = permit;
        let mut resume = Resume {
            last,
            tx: outbox,
            log: GameLog {
                game_id,
                game_state,
                feed,
            },
        };
        resume.run(stop).await;
    })
}

/// A seated player's stream of a game's events: a task of its own, so that however it ends
/// (the client gone included) it tells game-state it closed (the player's presence, C13).
#[derive(Debug)]
pub struct Subscription {
    pub game_id: String,
    pub last: u64,
    pub tx: mpsc::Sender<StreamItem>,
    pub game_state: crate::game_state::GameStateLink,
    /// The caller's player id: they sit in the game and it is being played, so their
    /// presence follows this stream.
    pub seated_player: String,
    /// This gateway's lease over the seated streams it holds: a counted stream is recorded
    /// there, so that it is closed for this gateway if it dies (ARCHITECTURE.md, "Disconnection (presence)").
    pub leases: std::sync::Arc<crate::presence::PresenceLeases>,
}

impl Subscription {
    /// Streams until the game ends, the client leaves, or `stop` is cancelled.
    pub async fn run(mut self, feed: GameFeed, stop: CancellationToken) {
        let _open = OpenStream::new(&STREAMS);
        let seated_player = std::mem::take(&mut self.seated_player);
        // Only a stream game-state counted is uncounted when it closes: uncounting one whose
        // opening was lost would make a player with another stream open look disconnected
        // (and lose by C13). A lost close errs the other way: counted as connected, the
        // player never loses on a false disconnection.
        let mut counted = None;
        // Boxed: a spawned task holds its largest state for its whole life.
        if Box::pin(self.presence(&seated_player, true)).await {
            self.leases.held(&self.game_id, &seated_player).await;
            counted = Some(seated_player);
        }
        let mut resume = Resume {
            last: self.last,
            tx: self.tx.clone(),
            log: GameLog {
                game_id: self.game_id.clone(),
                game_state: self.game_state.clone(),
                feed,
            },
        };
        let finished = resume.run(stop).await;
        if let Some(player_id) = &counted {
            self.leases.released(&self.game_id, player_id).await;
            // Once the game is over nobody needs to know who is still watching it.
            if !finished {
                Box::pin(self.presence(player_id, false)).await;
            }
        }
    }

    /// Tells game-state this stream opened or closed; true when game-state counted it. A
    /// failure only costs the presence signal (the turn clock still runs), so it is logged,
    /// not sent to the client.
    async fn presence(&mut self, player_id: &str, connected: bool) -> bool {
        let request = pb::UpdatePresenceRequest {
            game_id: self.game_id.clone(),
            player_id: player_id.to_owned(),
            connected,
        };
        match self.game_state.update_presence(request).await {
            // game-state counts a seated player's stream of a game still being played.
            Ok(response) => {
                let response = response.into_inner();
                response.seat.is_some() && (!connected || response.streams > 0)
            }
            Err(status) => {
                tracing::warn!(
                    game_id = %self.game_id,
                    connected,
                    code = ?status.code(),
                    message = status.message(),
                    "could not update the player's presence"
                );
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ludus_telemetry::testing::MetricsRecorder;

    #[test]
    fn a_live_event_s_status_reads_from_its_encoding() {
        for status in [pb::GameStatus::Active, pb::GameStatus::Finished] {
            let event = pb::GameEvent {
                game_id: "g1".into(),
                seq: 3,
                kind: Some(pb::game_event::Kind::ActionApplied(pb::ActionApplied {
                    notation: "H8".into(),
                    ..Default::default()
                })),
                view: Some(pb::GameView::default()),
                status: status as i32,
                ..Default::default()
            };
            let read = EventStatus::decode(event.encode_to_vec().as_slice()).expect("decodes");
            assert_eq!(read.status, status as i32);
            let traced = pb::GameEvent {
                traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
                ..event
            };
            assert_eq!(
                GameLog::traceparent(&traced.encode_to_vec()),
                traced.traceparent
            );
        }
    }

    #[test]
    fn open_streams_go_up_and_back_down() {
        let recorder = MetricsRecorder::new();
        let counter = streams_counter(&recorder.meter());
        let first = OpenStream::new(&counter);
        let second = OpenStream::new(&counter);
        let value = |recorder: &MetricsRecorder| {
            let points = recorder.named("ludus.gateway.streams");
            assert_eq!(points.len(), 1, "one series, no attributes: {points:?}");
            assert!(points[0].attributes.is_empty());
            points[0].value
        };
        assert_eq!(value(&recorder), 2.0);
        drop(first);
        assert_eq!(value(&recorder), 1.0);
        drop(second);
        assert_eq!(value(&recorder), 0.0);
    }
}
