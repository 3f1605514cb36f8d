//! Test support: a throwaway `redis-server` child process on a free port, and a throwaway
//! three-master Redis Cluster ([`RedisCluster`]).
//!
//! ```no_run
//! # async fn demo() {
//! let server = ludus_store::testing::RedisServer::start().expect("redis-server");
//! let backend = server.backend("suite-a:").await.expect("connect");
//! let cluster = ludus_store::testing::RedisCluster::start().expect("redis cluster");
//! let backend = cluster.backend("suite-a:").await.expect("connect");
//! # }
//! ```

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::backend::{Backend, StoreError};

/// How long a started server has to answer PING (or a cluster to settle): generous, since a
/// loaded machine starts processes slowly, and a start that works returns at once.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// Attempts with a fresh port, in case another process grabbed the chosen one.
const START_ATTEMPTS: usize = 3;

/// Why [`RedisServer::start`] failed.
#[derive(Debug, thiserror::Error)]
pub enum RedisServerError {
    /// `redis-server` is not installed. Tests that need Redis must fail, never skip.
    #[error(
        "redis-server is not on PATH: install it (apt-get install redis-server); redis tests fail rather than skip"
    )]
    NotInstalled,
    /// It was found but did not start or answer.
    #[error("redis-server did not start: {0}")]
    Start(String),
}

/// A `redis-server` child process (no persistence, loopback only) killed on drop.
#[derive(Debug)]
pub struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// Starts `redis-server` on a free port and waits until it answers PING. Blocks for as
    /// long as the start takes (milliseconds), so it may be called from async tests.
    pub fn start() -> Result<Self, RedisServerError> {
        let mut last = String::new();
        for _ in 0..START_ATTEMPTS {
            let port = free_port().map_err(|e| RedisServerError::Start(e.to_string()))?;
            match Self::start_on(port) {
                Ok(server) => return Ok(server),
                Err(RedisServerError::Start(e)) => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(RedisServerError::Start(last))
    }

    /// Starts `redis-server` on `port` (for restarting a server on the port clients know).
    pub fn start_on(port: u16) -> Result<Self, RedisServerError> {
        Self::spawn(port, &[])
    }

    /// Starts `redis-server` on `port` with `extra` arguments after the common ones (no
    /// persistence, loopback only) and waits until it answers PING.
    fn spawn(port: u16, extra: &[String]) -> Result<Self, RedisServerError> {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--appendonly", "no"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => RedisServerError::NotInstalled,
                _ => RedisServerError::Start(e.to_string()),
            })?;
        // Dropping `server` on any error below kills the child.
        let mut server = RedisServer { child, port };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if ping(port) {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(RedisServerError::Start(format!(
                    "exited with {status} (port {port} taken?)"
                )));
            }
            if Instant::now() > deadline {
                return Err(RedisServerError::Start(format!(
                    "no answer to PING on port {port}"
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// A backend on this server whose keys all start with `prefix`, so test suites sharing
    /// the server do not see each other's data.
    pub async fn backend(&self, prefix: &str) -> Result<Backend, StoreError> {
        Backend::redis_with_prefix(&self.url(), prefix).await
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How many masters a [`RedisCluster`] has: the fewest `redis-cli --cluster create` accepts.
pub const CLUSTER_MASTERS: usize = 3;

/// A local Redis Cluster of [`CLUSTER_MASTERS`] masters (no replicas), each a `redis-server
/// --cluster-enabled yes` child on free ports with its cluster config in a temp directory,
/// joined by `redis-cli --cluster create`. Killed (and its directory removed) on drop.
#[derive(Debug)]
pub struct RedisCluster {
    /// Dropped before `dir` is removed.
    nodes: Vec<RedisServer>,
    dir: PathBuf,
}

impl RedisCluster {
    /// Starts the masters, joins them into one cluster with every slot assigned, and waits
    /// until every node reports `cluster_state:ok`. Blocks for as long as that takes (a
    /// second or two).
    pub fn start() -> Result<Self, RedisServerError> {
        let mut last = String::new();
        for _ in 0..START_ATTEMPTS {
            match Self::start_once() {
                Ok(cluster) => return Ok(cluster),
                Err(RedisServerError::Start(e)) => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(RedisServerError::Start(last))
    }

    /// One try at [`RedisCluster::start`] on ports picked now.
    fn start_once() -> Result<Self, RedisServerError> {
        let start = |e: std::io::Error| RedisServerError::Start(e.to_string());
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ludus-redis-cluster-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(start)?;
        // Every node's cluster bus gets a port of its own: the default (port + 10000) may be
        // taken or past 65535.
        let mut ports = BTreeSet::new();
        while ports.len() < 2 * CLUSTER_MASTERS {
            ports.insert(free_port().map_err(start)?);
        }
        let ports: Vec<u16> = ports.into_iter().collect();
        let mut cluster = RedisCluster {
            nodes: Vec::new(),
            dir,
        };
        for pair in ports.chunks(2) {
            let [port, bus] = pair else { continue };
            let node = RedisServer::spawn(*port, &cluster_args(&cluster.dir, *port, *bus))?;
            cluster.nodes.push(node);
        }
        let mut create = Command::new("redis-cli");
        create.arg("--cluster").arg("create");
        for node in &cluster.nodes {
            create.arg(format!("127.0.0.1:{}", node.port()));
        }
        let output = create
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => RedisServerError::NotInstalled,
                _ => RedisServerError::Start(e.to_string()),
            })?;
        if !output.status.success() {
            return Err(RedisServerError::Start(format!(
                "redis-cli --cluster create failed: {}",
                String::from_utf8_lossy(&output.stdout)
            )));
        }
        let deadline = Instant::now() + START_TIMEOUT;
        for node in &cluster.nodes {
            loop {
                let info = Command::new("redis-cli")
                    .args(["-p", &node.port().to_string(), "cluster", "info"])
                    .stdin(Stdio::null())
                    .output()
                    .map_err(start)?;
                let info = String::from_utf8_lossy(&info.stdout);
                if info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:3") {
                    break;
                }
                if Instant::now() > deadline {
                    return Err(RedisServerError::Start(format!(
                        "node {} is not ok: {info}",
                        node.port()
                    )));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Ok(cluster)
    }

    /// `redis+cluster://127.0.0.1:<port>,...`: every master.
    pub fn url(&self) -> String {
        let nodes: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port()))
            .collect();
        format!("{}{}", crate::backend::CLUSTER_SCHEME, nodes.join(","))
    }

    /// `redis://127.0.0.1:<port>/` of each master, to look at one node alone.
    pub fn node_urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }

    /// A backend on this cluster whose keys all start with `prefix`.
    pub async fn backend(&self, prefix: &str) -> Result<Backend, StoreError> {
        Backend::redis_with_prefix(&self.url(), prefix).await
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        self.nodes.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The arguments that make a node of a cluster: its config file in `dir` (written by the node
/// itself), its bus port, and a short node timeout so a test cluster settles fast.
fn cluster_args(dir: &Path, port: u16, bus: u16) -> Vec<String> {
    vec![
        "--cluster-enabled".into(),
        "yes".into(),
        "--cluster-config-file".into(),
        dir.join(format!("nodes-{port}.conf")).display().to_string(),
        "--cluster-port".into(),
        bus.to_string(),
        "--cluster-node-timeout".into(),
        "5000".into(),
        "--dir".into(),
        dir.display().to_string(),
    ]
}

/// The most a test's patience is stretched on a loaded machine ([`patience`]).
const MAX_PATIENCE_FACTOR: f64 = 8.0;

/// `base`, the time a test gives something that should happen promptly on an idle machine,
/// stretched by how busy this machine is now: the one-minute load average per core, when above
/// one (two CPU hogs beside a 2-core run make it about 2), times `LUDUS_TEST_PATIENCE` when
/// set (a factor, e.g. `3`), at most [`MAX_PATIENCE_FACTOR`] in all. Tests assert correctness,
/// never speed: a bound is only there to turn a hang into a failure, and a busy machine must
/// not turn a slow success into one.
pub fn patience(base: Duration) -> Duration {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    let busy = (load / cores as f64).max(1.0);
    let asked = std::env::var("LUDUS_TEST_PATIENCE")
        .ok()
        .and_then(|factor| factor.parse::<f64>().ok())
        .filter(|factor| factor.is_finite() && *factor >= 1.0)
        .unwrap_or(1.0);
    base.mul_f64((busy * asked).min(MAX_PATIENCE_FACTOR))
}

/// The lowest port [`free_port`] picks: above the well-known and common service ports.
const LOWEST_TEST_PORT: u16 = 10_000;

/// A port for a test server to listen on: free now, and below the kernel's ephemeral range
/// (`net.ipv4.ip_local_port_range`). A port the kernel hands out for `:0` is in that range, so
/// on a busy machine any outgoing connection of another test (a client dialing a server) could
/// take it between this pick and the server's bind: a cluster node then exited with "port
/// taken". Below the range only another server's pick can collide, so callers still retry a
/// start that finds the port taken.
pub fn free_port() -> std::io::Result<u16> {
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32_768);
    if let Some(span) = ephemeral_low
        .checked_sub(LOWEST_TEST_PORT)
        .filter(|s| *s > 1_000)
    {
        // Spread over the span by a per-process, per-call hash: processes starting together
        // do not walk the same sequence.
        static PICKS: AtomicUsize = AtomicUsize::new(0);
        for _ in 0..100 {
            let mut hasher = std::hash::BuildHasher::build_hasher(
                &std::collections::hash_map::RandomState::new(),
            );
            std::hash::Hasher::write_usize(&mut hasher, PICKS.fetch_add(1, Ordering::Relaxed));
            let offset = std::hash::Hasher::finish(&hasher) % u64::from(span);
            let port = LOWEST_TEST_PORT + u16::try_from(offset).unwrap_or(0);
            if TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok() {
                return Ok(port);
            }
        }
    }
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

fn ping(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect((Ipv4Addr::LOCALHOST, port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
    let mut buf = [0u8; 7];
    s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}
