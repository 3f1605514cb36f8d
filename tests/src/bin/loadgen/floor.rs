//! The floor: the cheapest chain of the same shape as a move. A client calls a bare tonic
//! server ("front", the gateway's place), which calls a second bare tonic server ("back",
//! game-state's place), which runs one `EVALSHA` of a script shaped like game-state's commit
//! (compare-and-set on seq, idempotency by action id, state write, event append, PUBLISH) and
//! answers with a reply as large as a real move's. No auth, rules, timers, tracing or
//! metrics: what is left is gRPC, the kernel and Redis. Each server is this binary in its
//! own process (`loadgen floor-serve`), so its CPU is counted like the services'.
//!
//! The fan-out is the real path's too: the front server holds one RESP3 pub/sub connection to
//! the back's Redis, SUBSCRIBEs to a game's channel when its first stream opens (as the
//! gateway's feed does), and writes each PUBLISHed event to every server stream open on that
//! game (`Matchmaking.WatchTicket` stands in for `Gateway.Subscribe`: a server stream whose
//! message carries the event's bytes). `loadgen play --floor` opens as many streams per game
//! as the Ludus run does (spectators, plus both players with `--player-streams`).
//!
//! With `--system all-in-one` the floor is one process too (`floor-serve --memory`, the
//! all-in-one's place): a bare tonic server that commits each move in its own memory (the
//! same compare-and-set on seq, idempotency by action id, state write and event append) and
//! writes the event to its own streams, with no Redis and no second hop.

use std::{
    collections::HashMap,
    convert::Infallible,
    net::SocketAddr,
    pin::Pin,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use bytes::Bytes;
use ludus_proto::pb::{
    self,
    matchmaking_server::{Matchmaking, MatchmakingServer},
    ratings_client::RatingsClient,
    ratings_server::{Ratings, RatingsServer},
};
use redis::{
    PushInfo, PushKind, Value,
    aio::{ConnectionManager, ConnectionManagerConfig},
};
use tokio::sync::{broadcast, mpsc};
use tonic::{Request, Response, Status, transport::Channel};

/// game-state's commit script, minus the game-not-found case (a floor game starts at seq 0).
/// KEYS: state, events, actions. ARGV: expected seq, action id, state, event, channel.
const COMMIT: &str = r"
local done = redis.call('HGET', KEYS[3], ARGV[2])
if done then return {2, tonumber(done)} end
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if seq ~= tonumber(ARGV[1]) then return {1, seq} end
local new = seq + 1
redis.call('HSET', KEYS[1], 'seq', new, 'state', ARGV[3])
redis.call('XADD', KEYS[2], new .. '-0', 'e', ARGV[4])
redis.call('HSET', KEYS[3], ARGV[2], new)
redis.call('PUBLISH', ARGV[5], new .. ':' .. ARGV[4])
return {3, new}
";

/// Flags of `loadgen floor-serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct FloorServeArgs {
    #[arg(long)]
    pub listen: SocketAddr,
    /// The back server to forward to (front role).
    #[arg(long)]
    pub next: Option<String>,
    /// The Redis to commit to (back role), or whose PUBLISHed events the front fans out to
    /// its streams (front role).
    #[arg(long)]
    pub redis: Option<String>,
    /// Bytes of the reply (a real move's reply size).
    #[arg(long, default_value_t = 700)]
    pub reply_bytes: usize,
    /// Leave Nagle's algorithm on accepted sockets (what every Ludus server did before the
    /// fix): shows the delayed-ACK stall on the floor itself.
    #[arg(long)]
    pub nagle: bool,
    /// Commit in this process's memory and fan out to its own streams: the floor of the
    /// all-in-one (no `--next`, no `--redis`).
    #[arg(long, conflicts_with_all = ["next", "redis"])]
    pub memory: bool,
}

/// Bytes of the stored state and of the event the commit writes (a Caro game's size).
const STATE_BYTES: usize = 900;
const EVENT_BYTES: usize = 500;

/// Events buffered per game for a slow stream (the gateway's feed keeps a few too).
const FEED_CAPACITY: usize = 64;

/// The front's pub/sub side: one RESP3 connection, one broadcast per subscribed channel. In
/// memory (`redis` none) the commit sends to the broadcasts itself.
struct Feed {
    redis: Option<ConnectionManager>,
    channels: Arc<Mutex<HashMap<String, broadcast::Sender<Bytes>>>>,
}

impl Feed {
    fn in_memory() -> Feed {
        Feed {
            redis: None,
            channels: Arc::default(),
        }
    }

    /// Sends `event` to the streams open on `channel` (the in-memory PUBLISH).
    fn publish(&self, channel: &str, event: Bytes) {
        let channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = channels.get(channel) {
            let _ = sender.send(event);
        }
    }

    async fn connect(url: &str) -> anyhow::Result<Feed> {
        let channels: Arc<Mutex<HashMap<String, broadcast::Sender<Bytes>>>> = Arc::default();
        let routes = channels.clone();
        let on_push = move |push: PushInfo| {
            if push.kind == PushKind::Message
                && let [Value::BulkString(channel), Value::BulkString(message)] =
                    push.data.as_slice()
                && let Ok(channel) = std::str::from_utf8(channel)
                && let Some(sender) = routes
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(channel)
            {
                let _ = sender.send(Bytes::copy_from_slice(message));
            }
            Ok::<(), Infallible>(())
        };
        let info = redis::Client::open(url)?.get_connection_info().clone();
        let settings = info
            .redis_settings()
            .clone()
            .set_protocol(redis::ProtocolVersion::RESP3);
        let client = redis::Client::open(info.set_redis_settings(settings))?;
        let config = ConnectionManagerConfig::new().set_push_sender(on_push);
        Ok(Feed {
            redis: Some(ConnectionManager::new_with_config(client, config).await?),
            channels,
        })
    }

    /// A receiver of `channel`'s events, SUBSCRIBEd before it returns.
    async fn join(&self, channel: &str) -> Result<broadcast::Receiver<Bytes>, Status> {
        let (rx, first) = {
            let mut channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
            match channels.get(channel) {
                Some(sender) => (sender.subscribe(), false),
                None => {
                    let (sender, rx) = broadcast::channel(FEED_CAPACITY);
                    channels.insert(channel.to_owned(), sender);
                    (rx, true)
                }
            }
        };
        if let Some(redis) = self.redis.as_ref().filter(|_| first) {
            redis
                .clone()
                .subscribe(channel)
                .await
                .map_err(|e| Status::unavailable(format!("redis subscribe: {e}")))?;
        }
        Ok(rx)
    }

    /// Forgets `channel` once its last stream is gone (UNSUBSCRIBE, as the gateway's feed).
    async fn leave(&self, channel: &str) {
        let last = {
            let mut channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
            let idle = channels
                .get(channel)
                .is_some_and(|sender| sender.receiver_count() == 0);
            if idle {
                channels.remove(channel);
            }
            idle
        };
        if let Some(redis) = self.redis.as_ref().filter(|_| last) {
            let _ = redis.clone().unsubscribe(channel).await;
        }
    }
}

/// The channel the back's commit PUBLISHes a floor game's events on.
fn live_channel(game: &str) -> String {
    format!("floor:{{{game}}}:live")
}

enum Role {
    Front {
        next: RatingsClient<Channel>,
        feed: Arc<Feed>,
    },
    Back {
        redis: ConnectionManager,
        script: redis::Script,
        payload: Payload,
    },
    /// The all-in-one's floor: commits in memory and fans out to its own streams.
    Alone {
        games: Mutex<HashMap<String, MemoryGame>>,
        feed: Arc<Feed>,
        payload: Payload,
    },
}

/// What a floor commit writes and answers, as large as a real move's.
struct Payload {
    state: String,
    event: String,
    reply: String,
}

impl Payload {
    fn new(reply_bytes: usize) -> Payload {
        Payload {
            state: "s".repeat(STATE_BYTES),
            event: "e".repeat(EVENT_BYTES),
            // The padding is the reply's bulk; the other fields add a few bytes.
            reply: "r".repeat(reply_bytes.saturating_sub(16)),
        }
    }
}

/// A floor game in memory: what the commit script keeps in its three keys.
#[derive(Default)]
struct MemoryGame {
    seq: i64,
    state: String,
    events: Vec<Bytes>,
    actions: HashMap<String, i64>,
}

impl MemoryGame {
    /// The commit script's steps in memory: `(outcome, seq)` as the script answers, and the
    /// event to publish when it committed.
    fn commit(
        &mut self,
        expected: i64,
        action_id: &str,
        state: &str,
        event: &str,
    ) -> (i64, i64, Option<Bytes>) {
        if let Some(&done) = self.actions.get(action_id) {
            return (2, done, None);
        }
        if self.seq != expected {
            return (1, self.seq, None);
        }
        self.seq += 1;
        self.state.clear();
        self.state.push_str(state);
        let published = Bytes::from(format!("{}:{event}", self.seq));
        self.events.push(published.clone());
        self.actions.insert(action_id.to_owned(), self.seq);
        (3, self.seq, Some(published))
    }
}

/// The answer to a floor move: `outcome` and `new_seq` as the commit script returns them.
fn commit_reply(
    outcome: i64,
    new_seq: i64,
    reply: &str,
) -> Result<pb::ReportResultResponse, Status> {
    if outcome == 1 {
        return Err(Status::aborted(format!("stale: seq is {new_seq}")));
    }
    Ok(pb::ReportResultResponse {
        newly_recorded: outcome == 3,
        changes: vec![pb::RatingChange {
            player_id: reply.to_owned(),
            before: new_seq as f64,
            after: 0.0,
        }],
    })
}

#[derive(Clone)]
struct Floor(Arc<Role>);

#[tonic::async_trait]
impl Ratings for Floor {
    /// One move: `game_id` is the game, `ruleset` the action id, `players[0].points` the
    /// expected seq.
    async fn report_result(
        &self,
        request: Request<pb::ReportResultRequest>,
    ) -> Result<Response<pb::ReportResultResponse>, Status> {
        let request = request.into_inner();
        let seq = request.players.first().map_or(0, |p| p.points);
        match &*self.0 {
            Role::Front { next, .. } => next.clone().report_result(request).await,
            Role::Back {
                redis,
                script,
                payload,
            } => {
                let tag = &request.game_id;
                let (outcome, new_seq): (i64, i64) = script
                    .key(format!("floor:{{{tag}}}:state"))
                    .key(format!("floor:{{{tag}}}:events"))
                    .key(format!("floor:{{{tag}}}:actions"))
                    .arg(seq)
                    .arg(&request.ruleset)
                    .arg(&payload.state)
                    .arg(&payload.event)
                    .arg(live_channel(tag))
                    .invoke_async(&mut redis.clone())
                    .await
                    .map_err(|e| Status::unavailable(format!("redis: {e}")))?;
                commit_reply(outcome, new_seq, &payload.reply).map(Response::new)
            }
            Role::Alone {
                games,
                feed,
                payload,
            } => {
                let (outcome, new_seq, published) = games
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(request.game_id.clone())
                    .or_default()
                    .commit(seq, &request.ruleset, &payload.state, &payload.event);
                if let Some(published) = published {
                    feed.publish(&live_channel(&request.game_id), published);
                }
                commit_reply(outcome, new_seq, &payload.reply).map(Response::new)
            }
        }
    }

    async fn report_results(
        &self,
        _request: Request<pb::ReportResultsRequest>,
    ) -> Result<Response<pb::ReportResultsResponse>, Status> {
        Err(Status::unimplemented("the floor plays moves only"))
    }

    async fn get_rating(
        &self,
        _: Request<pb::RatingsGetRatingRequest>,
    ) -> Result<Response<pb::Rating>, Status> {
        Err(Status::unimplemented("the floor only commits moves"))
    }

    async fn get_leaderboard(
        &self,
        _: Request<pb::RatingsGetLeaderboardRequest>,
    ) -> Result<Response<pb::RatingsGetLeaderboardResponse>, Status> {
        Err(Status::unimplemented("the floor only commits moves"))
    }
}

/// One server stream of a floor game's events.
type EventStream = Pin<Box<dyn futures::Stream<Item = Result<pb::TicketUpdate, Status>> + Send>>;

/// Streams a floor game's events: `ticket_id` names the game; each message carries one
/// event's `<seq>:<bytes>` in `game_id`.
#[tonic::async_trait]
impl Matchmaking for Floor {
    type WatchTicketStream = EventStream;

    async fn watch_ticket(
        &self,
        request: Request<pb::WatchTicketRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let (Role::Front { feed, .. } | Role::Alone { feed, .. }) = &*self.0 else {
            return Err(Status::unimplemented(
                "only the front server streams events",
            ));
        };
        let channel = live_channel(&request.into_inner().ticket_id);
        let mut events = feed.join(&channel).await?;
        // One task and one queue per stream, as the gateway's Subscribe has.
        let (tx, rx) = mpsc::channel(FEED_CAPACITY);
        let feed = feed.clone();
        tokio::spawn(async move {
            loop {
                let update = match events.recv().await {
                    Ok(event) => Ok(pb::TicketUpdate {
                        game_id: String::from_utf8_lossy(&event).into_owned(),
                        ..pb::TicketUpdate::default()
                    }),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        Err(Status::data_loss("the stream fell behind"))
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if tx.send(update).await.is_err() {
                    break;
                }
            }
            drop(events);
            feed.leave(&channel).await;
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }

    async fn enqueue(
        &self,
        _: Request<pb::EnqueueRequest>,
    ) -> Result<Response<pb::EnqueueResponse>, Status> {
        Err(Status::unimplemented("the floor only streams events"))
    }

    type QueueAndWatchStream = EventStream;

    async fn queue_and_watch(
        &self,
        _: Request<pb::EnqueueRequest>,
    ) -> Result<Response<EventStream>, Status> {
        Err(Status::unimplemented("the floor only streams events"))
    }

    async fn cancel_ticket(
        &self,
        _: Request<pb::CancelTicketRequest>,
    ) -> Result<Response<pb::TicketUpdate>, Status> {
        Err(Status::unimplemented("the floor only streams events"))
    }
}

/// Runs one floor server until killed.
pub async fn serve(args: FloorServeArgs) -> anyhow::Result<()> {
    let role = match (&args.next, &args.redis) {
        _ if args.memory => Role::Alone {
            games: Mutex::default(),
            feed: Arc::new(Feed::in_memory()),
            payload: Payload::new(args.reply_bytes),
        },
        (Some(next), Some(url)) => Role::Front {
            next: RatingsClient::new(
                tonic::transport::Endpoint::from_shared(next.clone())?
                    .tcp_nodelay(true)
                    .connect_lazy(),
            ),
            feed: Arc::new(Feed::connect(url).await?),
        },
        (Some(_), None) => anyhow::bail!("the front floor server needs --redis for its feed"),
        (None, Some(url)) => {
            let client = redis::Client::open(url.as_str())?;
            Role::Back {
                redis: ConnectionManager::new(client).await?,
                script: redis::Script::new(COMMIT),
                payload: Payload::new(args.reply_bytes),
            }
        }
        (None, None) => anyhow::bail!("floor-serve needs --next, --redis or --memory"),
    };
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let floor = Floor(Arc::new(role));
    let router = tonic::transport::Server::builder()
        .add_service(RatingsServer::new(floor.clone()))
        .add_service(MatchmakingServer::new(floor));
    if args.nagle {
        router
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
            .await?;
    } else {
        router
            .serve_with_incoming(ludus_server::server::accept_with_nodelay(listener))
            .await?;
    }
    Ok(())
}

/// A running floor chain: front and back servers and their Redis, or the one in-memory
/// server of the all-in-one's floor.
pub struct FloorChain {
    pub front: String,
    pub measured: Vec<(String, u32)>,
    _children: crate::system::Children,
    _redis: Option<crate::system::Redis>,
}

impl FloorChain {
    /// The all-in-one's floor: one `floor-serve --memory` process.
    pub fn start_alone(reply_bytes: usize, nagle: bool) -> anyhow::Result<FloorChain> {
        let bin_dir = crate::system::default_bin_dir()?;
        let name = crate::system::this_binary_name()?;
        let port = crate::system::free_port()?;
        let mut args = vec![
            "floor-serve".to_owned(),
            "--listen".into(),
            format!("127.0.0.1:{port}"),
            "--memory".into(),
            "--reply-bytes".into(),
            reply_bytes.to_string(),
        ];
        if nagle {
            args.push("--nagle".into());
        }
        let mut children = crate::system::Children::default();
        children.spawn(&bin_dir, &name, &args)?;
        crate::system::wait_for_port(port)?;
        Ok(FloorChain {
            front: format!("http://127.0.0.1:{port}"),
            measured: children.pids(),
            _children: children,
            _redis: None,
        })
    }

    pub fn start(reply_bytes: usize, nagle: bool) -> anyhow::Result<FloorChain> {
        let redis = crate::system::Redis::start()?;
        let bin_dir = crate::system::default_bin_dir()?;
        let name = crate::system::this_binary_name()?;
        let (front, back) = (crate::system::free_port()?, crate::system::free_port()?);
        let mut children = crate::system::Children::default();
        let mut common = vec!["--reply-bytes".to_owned(), reply_bytes.to_string()];
        if nagle {
            common.push("--nagle".into());
        }
        let mut back_args = vec![
            "floor-serve".to_owned(),
            "--listen".into(),
            format!("127.0.0.1:{back}"),
            "--redis".into(),
            redis.url(),
        ];
        back_args.extend(common.clone());
        children.spawn(&bin_dir, &name, &back_args)?;
        let mut front_args = vec![
            "floor-serve".to_owned(),
            "--listen".into(),
            format!("127.0.0.1:{front}"),
            "--next".into(),
            format!("http://127.0.0.1:{back}"),
            "--redis".into(),
            redis.url(),
        ];
        front_args.extend(common);
        children.spawn(&bin_dir, &name, &front_args)?;
        crate::system::wait_for_port(back)?;
        crate::system::wait_for_port(front)?;
        let mut measured = children.pids();
        measured.push(("redis-server".into(), redis.pid()));
        Ok(FloorChain {
            front: format!("http://127.0.0.1:{front}"),
            measured,
            _children: children,
            _redis: Some(redis),
        })
    }
}

/// One floor move: `expected_seq` on `game`.
pub async fn commit(
    client: &mut RatingsClient<Channel>,
    game: &str,
    action_id: &str,
    expected_seq: u64,
) -> Result<(), Status> {
    client
        .report_result(pb::ReportResultRequest {
            game_id: game.to_owned(),
            ruleset: action_id.to_owned(),
            players: vec![pb::PlayerResult {
                player_id: String::new(),
                display_name: String::new(),
                rank: 0,
                points: i64::try_from(expected_seq).unwrap_or(i64::MAX),
            }],
            cancelled: false,
        })
        .await
        .map(|_| ())
}

/// How long the floor's servers get to start answering.
pub const WARM_UP: Duration = Duration::from_millis(200);

/// Opens one server stream of `game`'s events on the front server.
pub async fn watch(
    channel: Channel,
    game: &str,
) -> Result<tonic::Streaming<pb::TicketUpdate>, Status> {
    ludus_proto::pb::matchmaking_client::MatchmakingClient::new(channel)
        .watch_ticket(pb::WatchTicketRequest {
            ticket_id: game.to_owned(),
            player_id: String::new(),
        })
        .await
        .map(Response::into_inner)
}

/// The seq of a streamed floor event (`<seq>:<bytes>`, as the commit PUBLISHes it).
pub fn event_seq(update: &pb::TicketUpdate) -> Option<u64> {
    let (seq, _) = update.game_id.split_once(':')?;
    seq.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-memory floor answers as the commit script does: a commit, a stale seq, a
    /// repeated action id (its original seq, nothing published).
    #[test]
    fn memory_commit_answers_as_the_script() {
        let mut game = MemoryGame::default();
        let (outcome, seq, published) = game.commit(0, "a1", "s", "e1");
        assert_eq!((outcome, seq), (3, 1));
        assert_eq!(published.as_deref(), Some(&b"1:e1"[..]));
        assert_eq!(game.commit(0, "a2", "s", "e2").0, 1, "stale seq");
        let (outcome, seq, published) = game.commit(1, "a1", "s", "e1");
        assert_eq!((outcome, seq, published), (2, 1, None), "duplicate action");
        assert_eq!(game.commit(1, "a2", "s", "e2").1, 2);
        assert_eq!(game.events.len(), 2);
        assert!(commit_reply(1, 2, "r").is_err());
    }
}
