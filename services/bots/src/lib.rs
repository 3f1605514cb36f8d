//! bots: plays the computer seats (ARCHITECTURE.md, "Computer players").
//!
//! game-state arms a durable timer (`bot/<game>/<turn_seq>`, due at once) before every commit
//! that starts a computer seat's turn; the timers worker calls [`Bots.TakeTurn`] for it at
//! least once, on any replica, and again after its visibility timeout if a replica died
//! mid-think. A turn is played in four steps, each safe to repeat:
//! 1. read the turn (`GameState.GetBotTurn`): the seat, its level and its *seat position*,
//!    what that seat may know and nothing more (the catalog decides: Junqi's seat view, the
//!    perfect-information games' position); a stale turn answers "not ready" and ends here;
//! 2. think off the async runtime (`spawn_blocking`, at most [`Config::max_thinking`] at
//!    once) with the level's work budget and a deadline ([`Config::think`]) through
//!    `Budget::out_of_time`: a bot out of time still plays a legal action;
//! 3. submit through `GameState.ApplyAction` as the computer player, with the action id
//!    `bot-<turn_seq>` and the seq it read: a duplicate or a stale seq means the turn was
//!    played already (or the game moved on), which is success.
//!
//! The service keeps no state: any replica can take any turn.
//!
//! # Layout
//! - [`service`]: the `Bots` gRPC service.
#![forbid(unsafe_code)]

pub mod service;

use std::{future::Future, sync::Arc, time::Duration};

use ludus_proto::pb::{bots_server::BotsServer, game_state_client::GameStateClient};
use tokio::net::TcpListener;

pub use service::BotsService;

/// The longest a bot thinks about one turn unless configured: Hard's work budgets take about
/// a second on one core (BENCHMARKS.md), so this only cuts a think on a loaded machine.
pub const DEFAULT_THINK: Duration = Duration::from_secs(3);

/// Called on the thinking thread before each search (see [`Config::before_think`]).
pub type ThinkHook = Arc<dyn Fn() + Send + Sync>;

/// What bots needs to run.
#[derive(Clone)]
pub struct Config {
    /// game-state, where turns are read and actions submitted, e.g. `http://game-state:50051`.
    pub game_state_url: String,
    /// The deadline of one think (see [`DEFAULT_THINK`]).
    pub think: Duration,
    /// Most thinks running at once; more wait for a slot (the blocking pool is not a queue
    /// to fill). Default: the machine's cores.
    pub max_thinking: usize,
    /// Run on the thinking thread before each search. Tests use it to hold a replica
    /// mid-think and stop it there; `None` in production.
    pub before_think: Option<ThinkHook>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("game_state_url", &self.game_state_url)
            .field("think", &self.think)
            .field("max_thinking", &self.max_thinking)
            .field("before_think", &self.before_think.is_some())
            .finish()
    }
}

impl Config {
    pub fn new(game_state_url: impl Into<String>) -> Self {
        Config {
            game_state_url: game_state_url.into(),
            think: DEFAULT_THINK,
            max_thinking: std::thread::available_parallelism().map_or(2, usize::from),
            before_think: None,
        }
    }
}

/// Serves bots on `listener` until `shutdown` completes.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let service = BotsService::new(
        GameStateClient::new(ludus_server::traced_channel(&config.game_state_url)?),
        &config,
    );
    let server = BotsServer::new(service)
        .max_decoding_message_size(ludus_server::server::MAX_DECODING_MESSAGE_SIZE);
    ludus_server::serve(server, listener, shutdown).await
}
