//! The connection to the Gateway: guest sign-in, the bearer token on every later call (an
//! account's comes from `saved_session`), and the event streams of a game and of a room,
//! resumed after a dropped connection.

use std::{
    sync::{Arc, RwLock},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use anyhow::Context as _;
use ludus_proto::pb::{self, gateway_client::GatewayClient};
use tokio::task::JoinHandle;

use crate::i18n::{tr, trf};
use tonic::{
    Code, Request, Status,
    metadata::{AsciiMetadataValue, MetadataValue},
    service::{Interceptor, interceptor::InterceptedService},
    transport::{Channel, Endpoint},
};

/// How long to wait for the server to accept the connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How many times a dropped event stream is reopened before giving up.
const RESUME_ATTEMPTS: u32 = 5;
/// The first pause before reopening; it doubles on every attempt.
const RESUME_BACKOFF: Duration = Duration::from_millis(500);

/// The access token's header value, shared with whatever renews it (an account's access
/// token lives 15 minutes; a guest's token does not change).
pub type TokenCell = RwLock<AsciiMetadataValue>;

/// Adds `authorization: Bearer <token>` to every call, with the token as it is now.
#[derive(Clone, Debug)]
pub struct Bearer(Arc<TokenCell>);

impl Interceptor for Bearer {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        // A writer that panicked left a whole header value behind: still usable.
        let header = self.0.read().map_or_else(
            |poisoned| poisoned.into_inner().clone(),
            |header| header.clone(),
        );
        request.metadata_mut().insert("authorization", header);
        Ok(request)
    }
}

/// A Gateway client whose calls carry the session token.
pub type Client = GatewayClient<InterceptedService<Channel, Bearer>>;

/// A signed-in player: a guest, or an account resumed from the saved session.
#[derive(Debug, Clone)]
pub struct Session {
    /// The authenticated client.
    pub client: Client,
    /// The player id the token stands for.
    pub player_id: String,
    /// The display name the token carries.
    pub name: String,
    /// A registered account (rated quick matches) rather than a guest.
    pub account: bool,
}

/// Connects to the Gateway at `server`.
pub async fn connect(server: &str) -> anyhow::Result<Channel> {
    Endpoint::from_shared(server.to_owned())
        .with_context(|| trf("connect.badAddress", &[("server", &format!("{server:?}"))]))?
        .connect_timeout(CONNECT_TIMEOUT)
        .tcp_nodelay(true)
        .connect()
        .await
        .with_context(|| trf("connect.unreachable", &[("server", &server)]))
}

/// The header value for a bearer `token`.
fn bearer_header(token: &str) -> anyhow::Result<AsciiMetadataValue> {
    MetadataValue::try_from(format!("Bearer {token}")).context(tr("connect.badToken"))
}

/// A shareable cell holding the header for `token`.
pub fn token_cell(token: &str) -> anyhow::Result<Arc<TokenCell>> {
    Ok(Arc::new(RwLock::new(bearer_header(token)?)))
}

/// Replaces the token every client built on `cell` sends from now on.
pub fn set_token(cell: &TokenCell, token: &str) -> anyhow::Result<()> {
    let header = bearer_header(token)?;
    match cell.write() {
        Ok(mut current) => *current = header,
        Err(poisoned) => *poisoned.into_inner() = header,
    }
    Ok(())
}

/// A client on `channel` whose calls send the token in `cell`.
pub fn client(channel: Channel, cell: Arc<TokenCell>) -> Client {
    GatewayClient::with_interceptor(channel, Bearer(cell))
}

/// Connects to `server` and signs in as a guest called `name`.
pub async fn sign_in(server: &str, name: &str) -> anyhow::Result<Session> {
    let channel = connect(server).await?;
    let signed_in = GatewayClient::new(channel.clone())
        .sign_in_guest(pb::SignInGuestRequest {
            display_name: name.to_owned(),
        })
        .await
        .map_err(|status| {
            anyhow::anyhow!(trf(
                "connect.signInFailed",
                &[("reason", &describe(&status))]
            ))
        })?
        .into_inner();
    Ok(Session {
        client: client(channel, token_cell(&signed_in.token)?),
        player_id: signed_in.player_id,
        name: name.trim().to_owned(),
        account: false,
    })
}

/// A status as one line for the player: the server's message (which names the rule, e.g.
/// "C3: H8 is already taken"), or the code when the message is empty.
pub fn describe(status: &Status) -> String {
    if status.message().is_empty() {
        format!("{:?}", status.code()).to_lowercase()
    } else {
        status.message().to_owned()
    }
}

/// The game as the server shows it to this player, or an error naming the game.
pub async fn get_game(client: &mut Client, game_id: &str) -> anyhow::Result<pb::GameSnapshot> {
    client
        .get_game(pb::GetGameRequest {
            game_id: game_id.to_owned(),
        })
        .await
        .map_err(|status| {
            anyhow::anyhow!(trf(
                "account.cannotReadGame",
                &[("game", &game_id), ("reason", &describe(&status))]
            ))
        })?
        .into_inner()
        .game
        .context(tr("play.noGame"))
}

/// Now, Unix milliseconds (0 if the clock is before 1970).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// One kind of resumable event stream: a game's (`Subscribe`) or a room's (`SubscribeRoom`).
/// Both send the events with seq greater than `after_seq`, and every event carries its seq;
/// remembering the last one is all a resume needs.
pub trait Feed: Send + Sync + 'static {
    /// The event.
    type Item: Send + 'static;
    /// What is followed, for messages: `game 01HZ…`, `room K7M 4QP`.
    fn name(&self) -> String;
    /// The event's seq.
    fn seq(item: &Self::Item) -> u64;
    /// The stream ends after this event (a game's final one; a room's never ends).
    fn is_final(item: &Self::Item) -> bool;
    /// Opens the stream of events after `after_seq`.
    fn open(
        &self,
        client: &mut Client,
        after_seq: u64,
    ) -> impl Future<Output = Result<tonic::Streaming<Self::Item>, Status>> + Send;
}

/// A game's events.
#[derive(Debug)]
pub struct GameFeed(String);

impl Feed for GameFeed {
    type Item = pb::GameEvent;

    fn name(&self) -> String {
        trf("feed.game", &[("game", &self.0)])
    }

    fn seq(item: &pb::GameEvent) -> u64 {
        item.seq
    }

    fn is_final(item: &pb::GameEvent) -> bool {
        is_final(item)
    }

    async fn open(
        &self,
        client: &mut Client,
        after_seq: u64,
    ) -> Result<tonic::Streaming<pb::GameEvent>, Status> {
        let request = pb::SubscribeRequest {
            game_id: self.0.clone(),
            after_seq,
        };
        client
            .subscribe(request)
            .await
            .map(tonic::Response::into_inner)
    }
}

/// A room's events (the code as typed is fine: the server reads it in any case).
#[derive(Debug)]
pub struct RoomFeed(pub String);

impl Feed for RoomFeed {
    type Item = pb::RoomEvent;

    fn name(&self) -> String {
        trf("feed.room", &[("code", &self.0)])
    }

    fn seq(item: &pb::RoomEvent) -> u64 {
        item.seq
    }

    fn is_final(_: &pb::RoomEvent) -> bool {
        false
    }

    async fn open(
        &self,
        client: &mut Client,
        after_seq: u64,
    ) -> Result<tonic::Streaming<pb::RoomEvent>, Status> {
        let request = pb::SubscribeRoomRequest {
            code: self.0.clone(),
            after_seq,
        };
        client
            .subscribe_room(request)
            .await
            .map(tonic::Response::into_inner)
    }
}

/// A feed's events in order, reopening the stream after a drop: no gap, no duplicate.
#[derive(Debug)]
pub struct Resumable<F: Feed> {
    client: Client,
    feed: Arc<F>,
    last_seq: u64,
    stream: Option<tonic::Streaming<F::Item>>,
    /// The stream being opened, on a task of its own. Callers wait on [`Resumable::next`] in a
    /// `select!` beside the keyboard: had the open run inside `next`, a line typed while it
    /// was under way would cancel the `Subscribe` halfway, and the server would see a seated
    /// player's stream open and close at once: "disconnected", then "is back", in the game's
    /// log for the opponent to read (C13), and the prompt drawn twice after the resume.
    opening: Option<JoinHandle<anyhow::Result<tonic::Streaming<F::Item>>>>,
    finished: bool,
    /// Drops since the last event: a stream that keeps dropping is given up on.
    drops: u32,
}

impl<F: Feed> Drop for Resumable<F> {
    fn drop(&mut self) {
        if let Some(opening) = &self.opening {
            opening.abort();
        }
    }
}

/// A game's events.
pub type Events = Resumable<GameFeed>;

/// What the event stream gave.
#[derive(Debug)]
pub enum Next<T = pb::GameEvent> {
    /// The next event.
    Event(Box<T>),
    /// A note for the player (a reconnect in progress).
    Notice(String),
    /// The stream ended after the game's final event.
    End,
}

impl Events {
    /// Events of `game_id` after `after_seq`; the stream opens on the first `next`.
    pub fn new(client: Client, game_id: String, after_seq: u64) -> Self {
        Resumable::of(client, GameFeed(game_id), after_seq)
    }
}

impl<F: Feed> Resumable<F> {
    /// Events of `feed` after `after_seq`; the stream opens on the first `next`.
    pub fn of(client: Client, feed: F, after_seq: u64) -> Self {
        Self {
            client,
            feed: Arc::new(feed),
            last_seq: after_seq,
            stream: None,
            opening: None,
            finished: false,
            drops: 0,
        }
    }

    /// Opens (or reopens) the stream from the last seq seen, on a task of its own (see
    /// `opening`); a `next` cancelled meanwhile finds the same task still under way.
    async fn open(&mut self) -> anyhow::Result<()> {
        let opening = self.opening.get_or_insert_with(|| {
            tokio::spawn(Self::opened(
                self.client.clone(),
                self.feed.clone(),
                self.last_seq,
            ))
        });
        let opened = opening.await;
        self.opening = None;
        let stream = opened.context(tr("feed.openFailed"))??;
        self.stream = Some(stream);
        Ok(())
    }

    /// The stream of `feed` after `after_seq`, retrying a few times with backoff while the
    /// server is unavailable. Events the caller has seen since (from a call's response) come
    /// again on it and are skipped by `next`.
    async fn opened(
        mut client: Client,
        feed: Arc<F>,
        after_seq: u64,
    ) -> anyhow::Result<tonic::Streaming<F::Item>> {
        let mut pause = RESUME_BACKOFF;
        let mut attempt = 0;
        loop {
            match feed.open(&mut client, after_seq).await {
                Ok(stream) => return Ok(stream),
                Err(status) if retryable(&status) && attempt < RESUME_ATTEMPTS => {
                    attempt += 1;
                    tokio::time::sleep(pause).await;
                    pause = pause.saturating_mul(2);
                }
                Err(status) => {
                    anyhow::bail!(trf(
                        "feed.cannotFollow",
                        &[("feed", &feed.name()), ("reason", &describe(&status))]
                    ))
                }
            }
        }
    }

    /// The next event, or `End` once the game is over. Cancel-safe: the state kept across
    /// awaits is the stream, and the task opening it, which a cancelled call leaves running.
    pub async fn next(&mut self) -> anyhow::Result<Next<F::Item>> {
        loop {
            if self.finished {
                return Ok(Next::End);
            }
            let Some(stream) = self.stream.as_mut() else {
                self.open().await?;
                continue;
            };
            match stream.message().await {
                Ok(Some(event)) => {
                    let seq = F::seq(&event);
                    // A duplicate after a resume would show an old state again: skip it.
                    if seq <= self.last_seq {
                        continue;
                    }
                    self.last_seq = seq;
                    self.drops = 0;
                    if F::is_final(&event) {
                        self.finished = true;
                    }
                    return Ok(Next::Event(Box::new(event)));
                }
                // The server ends a game's stream after the final event; an end before it is
                // a dropped connection, resumed like UNAVAILABLE.
                Ok(None) => {}
                Err(status) if retryable(&status) => {}
                Err(status) => {
                    anyhow::bail!(trf(
                        "feed.failed",
                        &[("feed", &self.feed.name()), ("reason", &describe(&status))]
                    ))
                }
            }
            self.stream = None;
            self.drops += 1;
            if self.drops > RESUME_ATTEMPTS {
                anyhow::bail!(trf("feed.lost", &[("feed", &self.feed.name())]));
            }
            return Ok(Next::Notice(trf(
                "feed.resuming",
                &[("seq", &self.last_seq)],
            )));
        }
    }

    /// Notes that events up to `seq` are known (from a call's response), so the stream skips
    /// them.
    pub fn seen(&mut self, seq: u64) {
        self.last_seq = self.last_seq.max(seq);
    }

    /// Marks the game as over (seen in a call's response before the stream delivered it).
    pub fn finish(&mut self) {
        self.finished = true;
    }
}

/// Worth reopening: the server or the connection is down for now.
fn retryable(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::DeadlineExceeded
    )
}

/// The event finished the game.
pub fn is_final(event: &pb::GameEvent) -> bool {
    event.status == pb::GameStatus::Finished as i32 || event.outcome.is_some()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

    use tokio::sync::Notify;

    use super::*;

    /// How a [`GatedFeed`]'s opens went.
    #[derive(Debug, Default)]
    struct Gate {
        /// Lets the held open finish.
        release: Notify,
        /// Opens begun (one `Subscribe` each).
        begun: AtomicU32,
        /// Opens dropped before they finished (a `Subscribe` cut halfway).
        abandoned: AtomicU32,
    }

    /// A game feed whose open waits at the gate, then is refused.
    #[derive(Debug)]
    struct GatedFeed(Arc<Gate>);

    /// Counts an open dropped while still armed.
    struct Unfinished<'a>(&'a AtomicU32, bool);

    impl Drop for Unfinished<'_> {
        fn drop(&mut self) {
            if self.1 {
                self.0.fetch_add(1, SeqCst);
            }
        }
    }

    impl Feed for GatedFeed {
        type Item = pb::GameEvent;

        fn name(&self) -> String {
            "game gated".to_owned()
        }

        fn seq(item: &pb::GameEvent) -> u64 {
            item.seq
        }

        fn is_final(_: &pb::GameEvent) -> bool {
            false
        }

        async fn open(
            &self,
            _: &mut Client,
            _: u64,
        ) -> Result<tonic::Streaming<pb::GameEvent>, Status> {
            self.0.begun.fetch_add(1, SeqCst);
            let mut unfinished = Unfinished(&self.0.abandoned, true);
            self.0.release.notified().await;
            unfinished.1 = false;
            Err(Status::not_found("no such game"))
        }
    }

    /// The game loop waits on `next` in a `select!` beside the keyboard, so a typed line
    /// cancels it. While the stream is opening that must not cut the `Subscribe`: the server
    /// would log the seated player as gone and back (C13) for the opponent to read.
    #[tokio::test]
    async fn a_next_cancelled_while_the_stream_opens_leaves_the_open_running() -> anyhow::Result<()>
    {
        let gate = Arc::new(Gate::default());
        let channel = Endpoint::from_static("http://127.0.0.1:9").connect_lazy();
        let token = Arc::new(RwLock::new(bearer_header("token")?));
        let mut events = Resumable::of(client(channel, token), GatedFeed(gate.clone()), 0);
        for _ in 0..3 {
            let waited = tokio::time::timeout(Duration::from_millis(20), events.next()).await;
            assert!(waited.is_err(), "the open is held at the gate");
        }
        gate.release.notify_one();
        let refused = events.next().await.expect_err("the feed refuses");
        assert!(
            format!("{refused:#}").contains("no such game"),
            "{refused:#}"
        );
        assert_eq!(gate.begun.load(SeqCst), 1, "one Subscribe for four calls");
        assert_eq!(gate.abandoned.load(SeqCst), 0, "no Subscribe cut halfway");
        Ok(())
    }
}
