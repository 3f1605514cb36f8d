//! The floor: the cheapest chain of the same shape as a move. A client calls a bare tonic
//! server ("front", the gateway's place), which calls a second bare tonic server ("back",
//! game-state's place), which runs one `EVALSHA` of a script shaped like game-state's commit
//! (compare-and-set on seq, idempotency by action id, state write, event append, PUBLISH) and
//! answers with a reply as large as a real move's. No auth, rules, timers, tracing or
//! metrics: what is left is gRPC, the kernel and Redis. Each server is this binary in its
//! own process (`loadgen floor-serve`), so its CPU is counted like the services'.

use std::{net::SocketAddr, time::Duration};

use ludus_proto::pb::{
    self,
    ratings_client::RatingsClient,
    ratings_server::{Ratings, RatingsServer},
};
use redis::aio::ConnectionManager;
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
    #[arg(long, conflicts_with = "redis")]
    pub next: Option<String>,
    /// The Redis to commit to (back role).
    #[arg(long)]
    pub redis: Option<String>,
    /// Bytes of the reply (a real move's reply size).
    #[arg(long, default_value_t = 700)]
    pub reply_bytes: usize,
    /// Leave Nagle's algorithm on accepted sockets (what every Ludus server did before the
    /// fix): shows the delayed-ACK stall on the floor itself.
    #[arg(long)]
    pub nagle: bool,
}

/// Bytes of the stored state and of the event the commit writes (a Caro game's size).
const STATE_BYTES: usize = 900;
const EVENT_BYTES: usize = 500;

enum Role {
    Front(RatingsClient<Channel>),
    Back {
        redis: ConnectionManager,
        script: redis::Script,
        state: String,
        event: String,
        reply: String,
    },
}

struct Floor(Role);

#[tonic::async_trait]
impl Ratings for Floor {
    /// One move: `game_id` is the game, `ruleset` the action id, `players[0].points` the
    /// expected seq.
    async fn report_result(
        &self,
        request: Request<pb::ReportResultRequest>,
    ) -> Result<Response<pb::ReportResultResponse>, Status> {
        match &self.0 {
            Role::Front(next) => next.clone().report_result(request.into_inner()).await,
            Role::Back {
                redis,
                script,
                state,
                event,
                reply,
            } => {
                let request = request.into_inner();
                let seq = request.players.first().map_or(0, |p| p.points);
                let tag = &request.game_id;
                let (outcome, new_seq): (i64, i64) = script
                    .key(format!("floor:{{{tag}}}:state"))
                    .key(format!("floor:{{{tag}}}:events"))
                    .key(format!("floor:{{{tag}}}:actions"))
                    .arg(seq)
                    .arg(&request.ruleset)
                    .arg(state)
                    .arg(event)
                    .arg(format!("floor:{{{tag}}}:live"))
                    .invoke_async(&mut redis.clone())
                    .await
                    .map_err(|e| Status::unavailable(format!("redis: {e}")))?;
                if outcome == 1 {
                    return Err(Status::aborted(format!("stale: seq is {new_seq}")));
                }
                Ok(Response::new(pb::ReportResultResponse {
                    newly_recorded: outcome == 3,
                    changes: vec![pb::RatingChange {
                        player_id: reply.clone(),
                        before: new_seq as f64,
                        after: 0.0,
                    }],
                }))
            }
        }
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

/// Runs one floor server until killed.
pub async fn serve(args: FloorServeArgs) -> anyhow::Result<()> {
    let role = match (&args.next, &args.redis) {
        (Some(next), _) => Role::Front(RatingsClient::new(
            tonic::transport::Endpoint::from_shared(next.clone())?
                .tcp_nodelay(true)
                .connect_lazy(),
        )),
        (None, Some(url)) => {
            let client = redis::Client::open(url.as_str())?;
            Role::Back {
                redis: ConnectionManager::new(client).await?,
                script: redis::Script::new(COMMIT),
                state: "s".repeat(STATE_BYTES),
                event: "e".repeat(EVENT_BYTES),
                // The padding is the reply's bulk; the other fields add a few bytes.
                reply: "r".repeat(args.reply_bytes.saturating_sub(16)),
            }
        }
        (None, None) => anyhow::bail!("floor-serve needs --next or --redis"),
    };
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let router = tonic::transport::Server::builder().add_service(RatingsServer::new(Floor(role)));
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

/// A running floor chain: front and back servers and their Redis.
pub struct FloorChain {
    pub front: String,
    pub measured: Vec<(String, u32)>,
    _children: crate::system::Children,
    _redis: crate::system::Redis,
}

impl FloorChain {
    pub fn start(reply_bytes: usize, nagle: bool) -> anyhow::Result<FloorChain> {
        let redis = crate::system::Redis::start()?;
        let exe = std::env::current_exe()?;
        let bin_dir = crate::system::default_bin_dir()?;
        let name = exe
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| anyhow::anyhow!("this binary has no name"))?
            .to_owned();
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
            _redis: redis,
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
