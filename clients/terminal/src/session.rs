//! The connection to the Gateway: guest sign-in, the bearer token on every later call (an
//! account's comes from `saved_session`), and a game's event stream that resumes after a
//! dropped connection.

use std::{
    sync::{Arc, RwLock},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use anyhow::Context as _;
use ludus_proto::pb::{self, gateway_client::GatewayClient};
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
        .with_context(|| format!("bad server address {server:?}"))?
        .connect_timeout(CONNECT_TIMEOUT)
        .tcp_nodelay(true)
        .connect()
        .await
        .with_context(|| format!("cannot reach the server at {server}"))
}

/// The header value for a bearer `token`.
fn bearer_header(token: &str) -> anyhow::Result<AsciiMetadataValue> {
    MetadataValue::try_from(format!("Bearer {token}"))
        .context("the server sent a token that cannot go in a header")
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
        .map_err(|status| anyhow::anyhow!("sign-in failed: {}", describe(&status)))?
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
        .map_err(|status| anyhow::anyhow!("cannot read game {game_id}: {}", describe(&status)))?
        .into_inner()
        .game
        .context("the server sent no game")
}

/// Now, Unix milliseconds (0 if the clock is before 1970).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A game's events in order, reopening the stream after a drop.
///
/// Subscribe sends events with seq greater than `after_seq`, and every event carries its seq;
/// remembering the last one is all a resume needs.
#[derive(Debug)]
pub struct Events {
    client: Client,
    game_id: String,
    last_seq: u64,
    stream: Option<tonic::Streaming<pb::GameEvent>>,
    finished: bool,
    /// Drops since the last event: a stream that keeps dropping is given up on.
    drops: u32,
}

/// What the event stream gave.
#[derive(Debug)]
pub enum Next {
    /// The next event.
    Event(Box<pb::GameEvent>),
    /// A note for the player (a reconnect in progress).
    Notice(String),
    /// The stream ended after the game's final event.
    End,
}

impl Events {
    /// Events of `game_id` after `after_seq`; the stream opens on the first `next`.
    pub fn new(client: Client, game_id: String, after_seq: u64) -> Self {
        Self {
            client,
            game_id,
            last_seq: after_seq,
            stream: None,
            finished: false,
            drops: 0,
        }
    }

    /// Opens (or reopens) the stream from the last seq seen, retrying a few times with backoff
    /// while the server is unavailable.
    async fn open(&mut self) -> anyhow::Result<()> {
        let mut pause = RESUME_BACKOFF;
        let mut attempt = 0;
        loop {
            let request = pb::SubscribeRequest {
                game_id: self.game_id.clone(),
                after_seq: self.last_seq,
            };
            match self.client.subscribe(request).await {
                Ok(response) => {
                    self.stream = Some(response.into_inner());
                    return Ok(());
                }
                Err(status) if retryable(&status) && attempt < RESUME_ATTEMPTS => {
                    attempt += 1;
                    tokio::time::sleep(pause).await;
                    pause = pause.saturating_mul(2);
                }
                Err(status) => {
                    anyhow::bail!("cannot follow game {}: {}", self.game_id, describe(&status))
                }
            }
        }
    }

    /// The next event, or `End` once the game is over. Cancel-safe between events: the only
    /// state kept across awaits is the stream itself.
    pub async fn next(&mut self) -> anyhow::Result<Next> {
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
                    // A duplicate after a resume would redraw an old position: skip it.
                    if event.seq <= self.last_seq {
                        continue;
                    }
                    self.last_seq = event.seq;
                    self.drops = 0;
                    if is_final(&event) {
                        self.finished = true;
                    }
                    return Ok(Next::Event(Box::new(event)));
                }
                // The server ends the stream after the final event; an end before it is a
                // dropped connection, resumed like UNAVAILABLE.
                Ok(None) => {}
                Err(status) if retryable(&status) => {}
                Err(status) => {
                    anyhow::bail!("the game's event stream failed: {}", describe(&status))
                }
            }
            self.stream = None;
            self.drops += 1;
            if self.drops > RESUME_ATTEMPTS {
                anyhow::bail!("lost the connection to the game's event stream");
            }
            return Ok(Next::Notice(format!(
                "connection lost, resuming after event #{}",
                self.last_seq
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
