//! The multi-process harness (ARCHITECTURE.md, "Faults: the multi-process harness"): the real per-service binaries as separate processes
//! on loopback, against a real `redis-server` with AOF, each replicated service behind a TCP
//! balancer the way a Kubernetes Service (kube-proxy, L4) stands in front of its pods. A test
//! SIGKILLs and restarts one process at a time and checks what the design promises.
//!
//! # Finding the binaries
//! `cargo test -p ludus-tests` does not build other packages' binaries, and a test must not
//! run cargo itself (it would wait forever on the build-directory lock the test run holds).
//! So the binaries are looked up next to the test executable (`<target>/<profile>/`, which
//! follows `CARGO_TARGET_DIR`), or in `LUDUS_BIN_DIR`; `scripts/test.sh` builds them first
//! with `cargo build --workspace --bins`. A missing one fails the test with that command.
//!
//! # What stands where
//! - Every process listens on its own free loopback port, kept across restarts (a restarted
//!   replica comes back where its balancer looks for it).
//! - Callers of a service (`--game-state-url` and the like) name its [`Balancer`], which
//!   hands each new connection to the next replica that accepts it (round robin, skipping
//!   dead ones), and cuts a replica's connections when it is killed, as the kernel does for a
//!   dead pod's peers. Internal servers rotate their connections (max connection age), so
//!   load spreads over restarted replicas too.
//! - Clients of the public API talk to a chosen gateway directly ([`Cluster::gateway`]), as
//!   an app behind a load balancer ends up on one of them.
//! - Redis runs with `appendonly yes` in the cluster's temp directory: a restart on the same
//!   port ([`Cluster::restart_redis`]) reloads what the AOF holds.
//! - Secrets (`LUDUS_TOKEN_SECRET`, `LUDUS_INTERNAL_SECRET`) and the accounts database (a
//!   SQLite file) are passed through the environment, as the deploy does.

use std::{
    collections::BTreeMap,
    fmt,
    fs::File,
    io::{Read as _, Write as _},
    net::{Ipv4Addr, SocketAddr, TcpStream as StdStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

/// How long a process has to answer its health check after it starts.
const START_PATIENCE: Duration = Duration::from_secs(30);

/// The secret the cluster's gateways sign session tokens with.
const TOKEN_SECRET: &str = "multi-process harness token secret, 32+ bytes";
/// The secret every process signs its internal calls with (distinct from the token secret).
const INTERNAL_SECRET: &str = "multi-process harness internal secret, 32+ bytes";

/// One kind of Ludus process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Gateway,
    GameState,
    Matchmaking,
    Timers,
    Ratings,
    Accounts,
    Rooms,
}

impl Role {
    /// Every role, in the order the cluster starts them (callees before their callers).
    pub const ALL: [Role; 7] = [
        Role::Accounts,
        Role::Ratings,
        Role::GameState,
        Role::Rooms,
        Role::Timers,
        Role::Matchmaking,
        Role::Gateway,
    ];

    /// The binary's file name.
    pub fn binary(self) -> &'static str {
        match self {
            Role::Gateway => "ludus-gateway",
            Role::GameState => "ludus-game-state",
            Role::Matchmaking => "ludus-matchmaking",
            Role::Timers => "ludus-timers",
            Role::Ratings => "ludus-ratings",
            Role::Accounts => "ludus-accounts",
            Role::Rooms => "ludus-rooms",
        }
    }

    /// The gRPC service its health check reports on.
    fn health_name(self) -> &'static str {
        match self {
            Role::Gateway => "ludus.v1.Gateway",
            Role::GameState => "ludus.v1.GameState",
            Role::Matchmaking => "ludus.v1.Matchmaking",
            Role::Timers => "ludus.v1.Timers",
            Role::Ratings => "ludus.v1.Ratings",
            Role::Accounts => "ludus.v1.Accounts",
            Role::Rooms => "ludus.v1.Rooms",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.binary())
    }
}

/// How many replicas of each role, and extra flags per role.
#[derive(Clone, Debug)]
pub struct ClusterSpec {
    pub replicas: BTreeMap<Role, usize>,
    /// Flags appended to every replica of a role (e.g. a short timer visibility).
    pub flags: BTreeMap<Role, Vec<String>>,
    /// Redis `appendfsync`: `always` or `everysec`.
    pub appendfsync: &'static str,
}

impl Default for ClusterSpec {
    /// The soak's shape: 2 gateways, 2 game-state, 3 matchmaking, 2 timers, one of each other,
    /// Redis fsyncing every write.
    fn default() -> Self {
        let replicas = Role::ALL
            .iter()
            .map(|&role| {
                let n = match role {
                    Role::Gateway | Role::GameState | Role::Timers => 2,
                    Role::Matchmaking => 3,
                    _ => 1,
                };
                (role, n)
            })
            .collect();
        ClusterSpec {
            replicas,
            flags: BTreeMap::new(),
            appendfsync: "always",
        }
    }
}

impl ClusterSpec {
    /// Sets the replica count of `role`.
    pub fn replicas(mut self, role: Role, n: usize) -> Self {
        self.replicas.insert(role, n);
        self
    }

    /// Adds `flags` to every replica of `role`.
    pub fn flags(mut self, role: Role, flags: &[&str]) -> Self {
        self.flags
            .entry(role)
            .or_default()
            .extend(flags.iter().map(|&f| f.to_owned()));
        self
    }
}

/// A running multi-process Ludus.
pub struct Cluster {
    dir: tempfile::TempDir,
    bins: PathBuf,
    redis: AofRedis,
    replicas: BTreeMap<Role, Vec<Replica>>,
    balancers: BTreeMap<Role, Balancer>,
    /// Between game-state and Redis: the fault proxy of [`Cluster::fault_redis`].
    redis_proxy: Balancer,
    spec: ClusterSpec,
}

impl fmt::Debug for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cluster")
            .field("dir", &self.dir.path())
            .field("redis", &self.redis.port)
            .finish_non_exhaustive()
    }
}

/// One process of the cluster.
struct Replica {
    role: Role,
    index: usize,
    port: u16,
    args: Vec<String>,
    log: PathBuf,
    child: Option<Child>,
}

impl Cluster {
    /// Starts Redis, then every process of `spec` (callees first), and waits until each
    /// answers its health check SERVING.
    ///
    /// # Panics
    /// When a binary is missing (with the command that builds them), or a process does not
    /// become healthy in time (with the end of its log).
    pub async fn start(spec: ClusterSpec) -> Cluster {
        let bins = binaries_dir();
        for role in Role::ALL {
            let path = bins.join(role.binary());
            assert!(
                path.is_file(),
                "{} is missing: the multi-process tests run the real binaries; build them \
                 first with `cargo build --workspace --bins` (scripts/test.sh does), or point \
                 LUDUS_BIN_DIR at a directory holding them",
                path.display()
            );
        }
        let dir = tempfile::tempdir().expect("a temp dir for the cluster");
        let redis = AofRedis::start(dir.path(), spec.appendfsync);
        let mut balancers = BTreeMap::new();
        for role in Role::ALL {
            balancers.insert(role, Balancer::start().await);
        }
        let redis_proxy = Balancer::start().await;
        redis_proxy.add(redis.port);
        let mut cluster = Cluster {
            dir,
            bins,
            redis,
            replicas: BTreeMap::new(),
            balancers,
            redis_proxy,
            spec,
        };
        for role in Role::ALL {
            let n = cluster.spec.replicas.get(&role).copied().unwrap_or(0);
            for index in 0..n {
                let port = crate::free_port();
                let args = cluster.args(role, port);
                let log = cluster.dir.path().join(format!("{role}-{index}.log"));
                cluster.balancer(role).add(port);
                cluster.replicas.entry(role).or_default().push(Replica {
                    role,
                    index,
                    port,
                    args,
                    log,
                    child: None,
                });
                cluster.spawn(role, index);
            }
            for index in 0..n {
                cluster.wait_healthy(role, index).await;
            }
        }
        cluster
    }

    /// The command line of a `role` process listening on `port`.
    fn args(&self, role: Role, port: u16) -> Vec<String> {
        let url = |role: Role| format!("http://{}", self.balancers[&role].addr);
        let mut args = vec!["--listen".to_owned(), format!("127.0.0.1:{port}")];
        let mut flag = |name: &str, value: String| {
            args.push(format!("--{name}"));
            args.push(value);
        };
        match role {
            Role::Accounts => flag(
                "database-url",
                format!("sqlite://{}", self.dir.path().join("accounts.db").display()),
            ),
            Role::Ratings => {}
            Role::GameState => {
                flag("ratings-url", url(Role::Ratings));
                flag("accounts-url", url(Role::Accounts));
                flag("rooms-url", url(Role::Rooms));
            }
            Role::Rooms => flag("game-state-url", url(Role::GameState)),
            Role::Timers => {
                flag("game-state-url", url(Role::GameState));
                flag("rooms-url", url(Role::Rooms));
            }
            Role::Matchmaking => {
                flag("game-state-url", url(Role::GameState));
                flag("ratings-url", url(Role::Ratings));
            }
            Role::Gateway => {
                flag("game-state-url", url(Role::GameState));
                flag("matchmaking-url", url(Role::Matchmaking));
                flag("ratings-url", url(Role::Ratings));
                flag("accounts-url", url(Role::Accounts));
                flag("rooms-url", url(Role::Rooms));
            }
        }
        if role == Role::GameState {
            flag("redis-url", format!("redis://{}/", self.redis_proxy.addr));
        } else if role != Role::Accounts {
            flag("redis-url", self.redis.url());
        }
        args.extend(self.spec.flags.get(&role).into_iter().flatten().cloned());
        args
    }

    fn balancer(&self, role: Role) -> &Balancer {
        &self.balancers[&role]
    }

    fn replica(&mut self, role: Role, index: usize) -> &mut Replica {
        self.replicas
            .get_mut(&role)
            .and_then(|replicas| replicas.get_mut(index))
            .unwrap_or_else(|| panic!("the cluster has no {role} #{index}"))
    }

    fn spawn(&mut self, role: Role, index: usize) {
        let bin = self.bins.join(role.binary());
        let replica = self.replica(role, index);
        assert!(replica.child.is_none(), "{role} #{index} is running");
        let log = File::options()
            .create(true)
            .append(true)
            .open(&replica.log)
            .expect("open the process log");
        let child = Command::new(&bin)
            .args(&replica.args)
            .env("LUDUS_TOKEN_SECRET", TOKEN_SECRET)
            .env("LUDUS_INTERNAL_SECRET", INTERNAL_SECRET)
            .env("RUST_LOG", "info")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", bin.display()));
        replica.child = Some(child);
    }

    /// Waits until `role` #`index` answers its health check SERVING.
    async fn wait_healthy(&mut self, role: Role, index: usize) {
        let deadline = Instant::now() + START_PATIENCE;
        loop {
            let replica = self.replica(role, index);
            let addr = replica.addr();
            if let Some(child) = replica.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!(
                    "{role} #{index} exited with {status} while starting:\n{}",
                    replica.log_tail()
                );
            }
            if serving(addr, role.health_name()).await {
                return;
            }
            if Instant::now() > deadline {
                panic!(
                    "{role} #{index} is not SERVING after {START_PATIENCE:?}:\n{}",
                    self.replica(role, index).log_tail()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGKILLs `role` #`index` and cuts the connections its balancer holds to it.
    pub fn kill(&mut self, role: Role, index: usize) {
        let replica = self.replica(role, index);
        let port = replica.port;
        let mut child = replica
            .child
            .take()
            .unwrap_or_else(|| panic!("{role} #{index} is not running"));
        // `Child::kill` is SIGKILL on Unix: no shutdown hook runs.
        child.kill().expect("SIGKILL");
        child.wait().expect("reap the killed process");
        self.balancer(role).cut(port);
    }

    /// Strikes every connection open now from `role`'s callers to its replicas with `fault`
    /// (the balancer is the fault proxy); returns how many connections it reached.
    pub fn fault(&self, role: Role, fault: Fault) -> usize {
        self.balancer(role).fault(fault)
    }

    /// Strikes every connection open now from game-state to Redis with `fault` (game-state's
    /// Redis connections go through a proxy of their own); returns how many it reached.
    pub fn fault_redis(&self, fault: Fault) -> usize {
        self.redis_proxy.fault(fault)
    }

    /// Starts `role` #`index` again on its port and waits until it is healthy.
    pub async fn restart(&mut self, role: Role, index: usize) {
        self.spawn(role, index);
        self.wait_healthy(role, index).await;
    }

    /// The running replica of `role` with the most connections from its callers (the one
    /// whose death costs the load most).
    pub fn busiest(&self, role: Role) -> usize {
        let replicas = &self.replicas[&role];
        let balancer = &self.balancers[&role];
        (0..replicas.len())
            .filter(|&i| replicas[i].child.is_some())
            .max_by_key(|&i| balancer.open_to(replicas[i].port))
            .unwrap_or_else(|| panic!("no {role} is running"))
    }

    /// The address of gateway #`index` (clients pick one, as a load balancer would).
    pub fn gateway(&self, index: usize) -> SocketAddr {
        self.replicas[&Role::Gateway][index].addr()
    }

    /// The addresses of `role`'s replicas, by index.
    pub fn replicas_of(&self, role: Role) -> impl Iterator<Item = SocketAddr> + '_ {
        self.replicas[&role].iter().map(Replica::addr)
    }

    /// The address callers of `role` use (its balancer).
    pub fn service(&self, role: Role) -> SocketAddr {
        self.balancers[&role].addr
    }

    /// The address of `role` #`index` itself.
    pub fn replica_addr(&self, role: Role, index: usize) -> SocketAddr {
        self.replicas[&role][index].addr()
    }

    /// The Redis every process shares (for reading what the store holds).
    pub fn redis_url(&self) -> String {
        self.redis.url()
    }

    /// SIGKILLs redis-server (what `appendfsync` wrote survives), for [`Cluster::restart_redis`].
    pub fn kill_redis(&mut self) {
        self.redis.kill();
    }

    /// Starts redis-server again on its port and directory: it reloads its AOF.
    pub fn restart_redis(&mut self) {
        self.redis.spawn();
    }

    /// Every process of the cluster by name (`ludus-gateway#0`, …, `redis-server`) with its
    /// pid, or `None` while it is down (for sampling memory from `/proc`).
    pub fn pids(&self) -> Vec<(String, Option<u32>)> {
        let mut pids: Vec<(String, Option<u32>)> = self
            .replicas
            .values()
            .flatten()
            .map(|replica| {
                let name = format!("{}#{}", replica.role, replica.index);
                (name, replica.child.as_ref().map(Child::id))
            })
            .collect();
        pids.push((
            "redis-server".to_owned(),
            self.redis.child.as_ref().map(Child::id),
        ));
        pids
    }

    /// The end of every process's log (for a failing test's message).
    pub fn logs(&self) -> String {
        self.replicas
            .values()
            .flatten()
            .map(|replica| {
                format!(
                    "== {} #{}\n{}",
                    replica.role,
                    replica.index,
                    replica.log_tail()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The processes that died without the test killing them, with their logs' ends.
    pub fn dead_processes(&mut self) -> Vec<String> {
        let mut dead = Vec::new();
        for replica in self.replicas.values_mut().flatten() {
            if let Some(child) = replica.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                dead.push(format!(
                    "{} #{} exited with {status}:\n{}",
                    replica.role,
                    replica.index,
                    replica.log_tail()
                ));
            }
        }
        dead
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for replica in self.replicas.values_mut().flatten() {
            if let Some(mut child) = replica.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        for balancer in self.balancers.values() {
            balancer.stop.cancel();
        }
        self.redis_proxy.stop.cancel();
        if std::env::var_os("LUDUS_KEEP_CLUSTER_LOGS").is_some() {
            let kept = self.dir.path().to_owned();
            eprintln!("cluster logs kept in {}", kept.display());
            std::mem::forget(std::mem::replace(
                &mut self.dir,
                tempfile::tempdir().expect("temp dir"),
            ));
        }
    }
}

impl Replica {
    fn addr(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }

    /// The last lines of the process's log.
    fn log_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut file) = File::open(&self.log) {
            let _ = file.read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

/// Where the per-service binaries are: `LUDUS_BIN_DIR`, else the directory of the profile
/// this test was built in (`<target>/debug/deps/<test>` -> `<target>/debug`).
fn binaries_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LUDUS_BIN_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().expect("the test's own path");
    let mut dir = exe.parent().expect("the test's directory").to_owned();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir
}

/// Whether the server at `addr` reports `service` SERVING.
pub async fn serving(addr: SocketAddr, service: &str) -> bool {
    let Ok(channel) = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .expect("uri")
        .connect_timeout(Duration::from_secs(1))
        .timeout(Duration::from_secs(2))
        .connect()
        .await
    else {
        return false;
    };
    HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.to_owned(),
        })
        .await
        .is_ok_and(|r| r.into_inner().status == ServingStatus::Serving as i32)
}

/// A redis-server with an append-only file in the cluster's directory.
struct AofRedis {
    dir: PathBuf,
    port: u16,
    appendfsync: &'static str,
    child: Option<Child>,
}

impl AofRedis {
    fn start(dir: &Path, appendfsync: &'static str) -> AofRedis {
        let dir = dir.join("redis");
        std::fs::create_dir_all(&dir).expect("redis dir");
        let mut redis = AofRedis {
            dir,
            port: crate::free_port(),
            appendfsync,
            child: None,
        };
        redis.spawn();
        redis
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn spawn(&mut self) {
        assert!(self.child.is_none(), "redis-server is running");
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.dir.join("redis.log"))
            .expect("redis log");
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--dir", &self.dir.display().to_string()])
            .args(["--save", ""])
            .args(["--appendonly", "yes"])
            .args(["--appendfsync", self.appendfsync])
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("start redis-server (install it: apt-get install redis-server): {e}")
            });
        self.child = Some(child);
        let deadline = Instant::now() + START_PATIENCE;
        while !redis_ping(self.port) {
            assert!(
                Instant::now() < deadline,
                "redis-server does not answer PING"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn kill(&mut self) {
        let mut child = self.child.take().expect("redis-server is running");
        child.kill().expect("SIGKILL redis-server");
        child.wait().expect("reap redis-server");
    }
}

impl Drop for AofRedis {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// PONG from a loaded server (a server still loading its AOF answers `-LOADING`).
fn redis_ping(port: u16) -> bool {
    let Ok(mut s) = StdStream::connect((Ipv4Addr::LOCALHOST, port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
    let mut buf = [0u8; 7];
    s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

/// An L4 balancer in front of a role's replicas, as kube-proxy is in front of a Service's
/// pods: each new connection goes to the next replica that accepts it. It is also the fault
/// proxy of the fault scenarios ([`Cluster::fault`]): it can reset, stall or half-close the
/// connections it carries, as a broken network or a starved node does.
struct Balancer {
    addr: SocketAddr,
    backends: Arc<Mutex<Vec<Backend>>>,
    stop: CancellationToken,
    /// Faults for every connection open now.
    faults: tokio::sync::broadcast::Sender<Fault>,
}

/// What the network does to the connections a [`Balancer`] carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Both sides get a TCP RST: every call in flight on the connection breaks.
    Reset,
    /// Nothing flows either way for this long (a partition, a starved node), then the bytes
    /// held back go on.
    Stall(Duration),
    /// The caller gets a FIN (its reads end) while what it sends still goes through; the rest
    /// of the connection closes a second later.
    HalfClose,
}

/// A replica behind a [`Balancer`].
#[derive(Clone)]
struct Backend {
    port: u16,
    /// Cancelled when the replica is killed: its connections are cut.
    cut: CancellationToken,
    /// Connections open to it now.
    open: Arc<AtomicUsize>,
}

impl Balancer {
    async fn start() -> Balancer {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, crate::free_port()))
            .await
            .expect("bind a balancer");
        let addr = listener.local_addr().expect("balancer address");
        let backends: Arc<Mutex<Vec<Backend>>> = Arc::default();
        let stop = CancellationToken::new();
        let (faults, _) = tokio::sync::broadcast::channel(16);
        let (accepting, stopped, faulting) = (backends.clone(), stop.clone(), faults.clone());
        tokio::spawn(async move {
            let mut next = 0usize;
            loop {
                let inbound = tokio::select! {
                    () = stopped.cancelled() => return,
                    accepted = listener.accept() => match accepted {
                        Ok((inbound, _)) => inbound,
                        Err(_) => continue,
                    },
                };
                let candidates = accepting.lock().expect("backends").clone();
                next = next.wrapping_add(1);
                let stopped = stopped.clone();
                let faults = faulting.subscribe();
                tokio::spawn(async move {
                    let _ = inbound.set_nodelay(true);
                    for i in 0..candidates.len() {
                        let backend = &candidates[(next + i) % candidates.len()];
                        let Ok(Ok(outbound)) = tokio::time::timeout(
                            Duration::from_secs(1),
                            TcpStream::connect((Ipv4Addr::LOCALHOST, backend.port)),
                        )
                        .await
                        else {
                            continue;
                        };
                        let _ = outbound.set_nodelay(true);
                        backend.open.fetch_add(1, Ordering::Relaxed);
                        tokio::select! {
                            () = backend.cut.cancelled() => {}
                            () = stopped.cancelled() => {}
                            () = carry(inbound, outbound, faults) => {}
                        }
                        backend.open.fetch_sub(1, Ordering::Relaxed);
                        return;
                    }
                    // No replica accepts: the caller sees its connection refused-like close.
                });
            }
        });
        Balancer {
            addr,
            backends,
            stop,
            faults,
        }
    }

    fn add(&self, port: u16) {
        self.backends.lock().expect("backends").push(Backend {
            port,
            cut: CancellationToken::new(),
            open: Arc::default(),
        });
    }

    /// Drops every connection to `port` (its process died) and arms a fresh token for the
    /// connections a restarted process will take.
    fn cut(&self, port: u16) {
        let mut backends = self.backends.lock().expect("backends");
        for backend in backends.iter_mut().filter(|b| b.port == port) {
            backend.cut.cancel();
            backend.cut = CancellationToken::new();
        }
    }

    /// The connections open to `port` now.
    fn open_to(&self, port: u16) -> usize {
        let backends = self.backends.lock().expect("backends");
        backends
            .iter()
            .filter(|b| b.port == port)
            .map(|b| b.open.load(Ordering::Relaxed))
            .sum()
    }

    /// Strikes every connection open now with `fault`; returns how many it reached.
    fn fault(&self, fault: Fault) -> usize {
        self.faults.send(fault).unwrap_or(0)
    }
}

/// Carries bytes both ways between `inbound` and `outbound` until either side closes, doing
/// what `faults` says on the way.
async fn carry(
    inbound: TcpStream,
    outbound: TcpStream,
    mut faults: tokio::sync::broadcast::Receiver<Fault>,
) {
    // Second handles on both sockets (dup'd descriptors) to reset or half-close them while
    // the copies hold the streams.
    let handles = |stream: TcpStream| -> std::io::Result<(TcpStream, StdStream)> {
        let std = stream.into_std()?;
        let control = std.try_clone()?;
        Ok((TcpStream::from_std(std)?, control))
    };
    let (Ok((inbound, inbound_control)), Ok((outbound, outbound_control))) =
        (handles(inbound), handles(outbound))
    else {
        return;
    };
    let (mut inbound_read, mut inbound_write) = inbound.into_split();
    let (mut outbound_read, mut outbound_write) = outbound.into_split();
    let up = async {
        let _ = tokio::io::copy(&mut inbound_read, &mut outbound_write).await;
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut outbound_write).await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut outbound_read, &mut inbound_write).await;
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut inbound_write).await;
    };
    let both = async { tokio::join!(up, down) };
    tokio::pin!(both);
    loop {
        tokio::select! {
            _ = &mut both => return,
            fault = faults.recv() => match fault {
                // Not polling the copies holds every byte back.
                Ok(Fault::Stall(period)) => tokio::time::sleep(period).await,
                Ok(Fault::Reset) => {
                    for control in [&inbound_control, &outbound_control] {
                        let _ = socket2::SockRef::from(control).set_linger(Some(Duration::ZERO));
                        let _ = control.shutdown(std::net::Shutdown::Both);
                    }
                    return;
                }
                Ok(Fault::HalfClose) => {
                    let _ = inbound_control.shutdown(std::net::Shutdown::Write);
                    let _ = tokio::time::timeout(Duration::from_secs(1), &mut both).await;
                    return;
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                    both.await;
                    return;
                }
            },
        }
    }
}
