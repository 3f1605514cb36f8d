//! Test support: a throwaway `redis-server` child process on a free port, and a throwaway
//! three-master Redis Cluster ([`RedisCluster`]); either may serve TLS with certificates from
//! a throwaway CA ([`TestCa`]).
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

use crate::backend::{Backend, RedisOptions, StoreError};

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
    /// For a server started with TLS ([`RedisServer::start_tls`]); the plain `port` stays
    /// open for the harness's own checks.
    tls: Option<TlsPort>,
}

/// A TLS server's port, the CA its certificate chains to, and its files (when it owns them).
#[derive(Debug)]
struct TlsPort {
    port: u16,
    ca: String,
    _files: Option<TlsFiles>,
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

    /// Starts `redis-server` serving TLS on a free port with a certificate `ca` issues for
    /// 127.0.0.1 (clients need not present one); [`RedisServer::url`] is then `rediss://`
    /// and [`RedisServer::backend`] trusts `ca`.
    pub fn start_tls(ca: &TestCa) -> Result<Self, RedisServerError> {
        let start = |e: std::io::Error| RedisServerError::Start(e.to_string());
        let files = ca.server_files().map_err(start)?;
        let mut last = String::new();
        for _ in 0..START_ATTEMPTS {
            let (port, tls_port) = (free_port().map_err(start)?, free_port().map_err(start)?);
            match Self::spawn(port, &tls_args(&files, tls_port)) {
                Ok(mut server) => {
                    server.tls = Some(TlsPort {
                        port: tls_port,
                        ca: ca.pem().to_owned(),
                        _files: Some(files),
                    });
                    return Ok(server);
                }
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
        let mut server = RedisServer {
            child,
            port,
            tls: None,
        };
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

    /// The server's (plain) port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:<port>/`, or `rediss://127.0.0.1:<TLS port>/` for a TLS server.
    pub fn url(&self) -> String {
        match &self.tls {
            Some(tls) => format!("rediss://127.0.0.1:{}/", tls.port),
            None => format!("redis://127.0.0.1:{}/", self.port),
        }
    }

    /// A backend on this server whose keys all start with `prefix`, so test suites sharing
    /// the server do not see each other's data (over TLS, trusting the test CA, when the
    /// server serves TLS).
    pub async fn backend(&self, prefix: &str) -> Result<Backend, StoreError> {
        let options = RedisOptions {
            prefix: prefix.to_owned(),
            ca_pem: self.tls.as_ref().map(|tls| tls.ca.as_bytes().to_vec()),
        };
        Backend::redis_with(&self.url(), options).await
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

/// A local Redis Cluster of [`CLUSTER_MASTERS`] masters, with no replicas ([`RedisCluster::start`])
/// or one per master ([`RedisCluster::start_with_replicas`]), each node a `redis-server
/// --cluster-enabled yes` child on free ports with its cluster config in a temp directory,
/// joined by `redis-cli --cluster create`. Killed (and its directory removed) on drop.
///
/// A test can SIGKILL a node ([`RedisCluster::kill`]), start it again on its port and config
/// ([`RedisCluster::restart`]: it rejoins, as a replica once its slots have moved), pause one
/// (SIGSTOP, [`RedisCluster::pause`]) and ask who is master now ([`RedisCluster::nodes_seen_by`]).
#[derive(Debug)]
pub struct RedisCluster {
    /// Dropped before `dir` is removed.
    nodes: Vec<ClusterNode>,
    dir: PathBuf,
    node_timeout: Duration,
    /// For a cluster serving TLS ([`RedisCluster::start_tls`]): its files and CA.
    tls: Option<ClusterTls>,
}

/// What a TLS cluster's nodes serve with.
#[derive(Debug)]
struct ClusterTls {
    files: TlsFiles,
    ca: String,
}

/// One node: its ports, kept across restarts, and its process while it runs.
#[derive(Debug)]
struct ClusterNode {
    port: u16,
    bus: u16,
    /// The port it serves TLS on, in a TLS cluster (`port` stays open, plain, for the
    /// harness's own checks).
    tls_port: Option<u16>,
    server: Option<RedisServer>,
}

impl ClusterNode {
    /// The port clients use: the TLS one in a TLS cluster.
    fn client_port(&self) -> u16 {
        self.tls_port.unwrap_or(self.port)
    }
}

/// What `CLUSTER NODES` says of one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeInfo {
    /// The index of the node in this cluster ([`RedisCluster::port`]).
    pub index: usize,
    /// A master (flagged `master`; one that serves slots has `slot_ranges` > 0) rather than
    /// a replica.
    pub master: bool,
    /// Flagged as failed (`fail`) by the node asked.
    pub failed: bool,
    /// For a replica, the index of its master.
    pub replica_of: Option<usize>,
    /// How many slot ranges it serves.
    pub slot_ranges: usize,
}

impl RedisCluster {
    /// Starts the masters (no replicas), joins them into one cluster with every slot
    /// assigned, and waits until every node reports `cluster_state:ok`. Blocks for as long as
    /// that takes (a second or two).
    pub fn start() -> Result<Self, RedisServerError> {
        Self::start_shaped(0, Duration::from_secs(5), None)
    }

    /// [`RedisCluster::start`] with every node serving clients and the cluster bus over TLS
    /// (`tls-cluster yes`: the nodes announce their TLS ports), with certificates `ca`
    /// issues; [`RedisCluster::url`] is then `rediss+cluster://`.
    pub fn start_tls(ca: &TestCa) -> Result<Self, RedisServerError> {
        Self::start_shaped(0, Duration::from_secs(5), Some(ca))
    }

    /// Starts [`CLUSTER_MASTERS`] masters with one replica each (`--cluster-replicas 1`) and
    /// `node_timeout` as every node's `cluster-node-timeout` (how long a master must be
    /// unreachable before its replica takes over), and waits until the cluster is ok and
    /// every replica is in sync with its master.
    pub fn start_with_replicas(node_timeout: Duration) -> Result<Self, RedisServerError> {
        Self::start_shaped(1, node_timeout, None)
    }

    /// Starts a cluster of that shape, again on fresh ports when an attempt fails (a port
    /// chosen free may be taken by another test's server before ours binds it).
    fn start_shaped(
        replicas: usize,
        node_timeout: Duration,
        tls: Option<&TestCa>,
    ) -> Result<Self, RedisServerError> {
        let mut last = String::new();
        for _ in 0..START_ATTEMPTS {
            match Self::try_start_shaped(replicas, node_timeout, tls) {
                Ok(cluster) => return Ok(cluster),
                Err(RedisServerError::Start(e)) => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(RedisServerError::Start(last))
    }

    fn try_start_shaped(
        replicas: usize,
        node_timeout: Duration,
        tls: Option<&TestCa>,
    ) -> Result<Self, RedisServerError> {
        let start = |e: std::io::Error| RedisServerError::Start(e.to_string());
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ludus-redis-cluster-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(start)?;
        let count = CLUSTER_MASTERS * (1 + replicas);
        // Every node's cluster bus gets a port of its own: the default (port + 10000) may be
        // taken or past 65535.
        // A TLS node also has a TLS port.
        let ports_per_node = if tls.is_some() { 3 } else { 2 };
        let mut ports = BTreeSet::new();
        while ports.len() < ports_per_node * count {
            ports.insert(free_port().map_err(start)?);
        }
        let ports: Vec<u16> = ports.into_iter().collect();
        let tls = match tls {
            Some(ca) => Some(ClusterTls {
                files: ca.server_files_in(&dir).map_err(start)?,
                ca: ca.pem().to_owned(),
            }),
            None => None,
        };
        let mut cluster = RedisCluster {
            nodes: Vec::new(),
            dir,
            node_timeout,
            tls,
        };
        for chunk in ports.chunks(ports_per_node) {
            cluster.nodes.push(ClusterNode {
                port: chunk[0],
                bus: chunk[1],
                tls_port: chunk.get(2).copied(),
                server: None,
            });
            cluster.restart(cluster.nodes.len() - 1)?;
        }
        let mut create = Command::new("redis-cli");
        create.arg("--cluster").arg("create");
        if let Some(tls) = &cluster.tls {
            create.arg("--tls").arg("--cacert").arg(&tls.files.ca);
        }
        for node in &cluster.nodes {
            create.arg(format!("127.0.0.1:{}", node.client_port()));
        }
        let output = create
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
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
        // Gossip and the replicas' first sync take a few seconds on a busy machine.
        let deadline = Instant::now() + 3 * START_TIMEOUT;
        let known = format!("cluster_known_nodes:{count}");
        for i in 0..count {
            loop {
                let info = cluster.cli(i, &["cluster", "info"]).map_err(start)?;
                let replication = cluster.cli(i, &["info", "replication"]).map_err(start)?;
                // A replica counts once its first sync is done, and the cluster once this
                // node sees every replica as one (the news spreads by gossip).
                let synced = replication.contains("role:master")
                    || replication.contains("master_link_status:up");
                let replicas_seen = cluster
                    .nodes_seen_by(i)
                    .map_err(start)?
                    .iter()
                    .filter(|n| n.replica_of.is_some())
                    .count();
                if info.contains("cluster_state:ok")
                    && info.contains(&known)
                    && synced
                    && replicas_seen == CLUSTER_MASTERS * replicas
                {
                    break;
                }
                if Instant::now() > deadline {
                    return Err(RedisServerError::Start(format!(
                        "node {} is not ok: {info}{replication}",
                        cluster.nodes[i].port
                    )));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Ok(cluster)
    }

    /// `redis+cluster://127.0.0.1:<port>,...`: every node (any of them lets a client find
    /// the rest, so a client started after a node died still connects); `rediss+cluster://`
    /// and their TLS ports for a TLS cluster.
    pub fn url(&self) -> String {
        let nodes: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.client_port()))
            .collect();
        let scheme = match self.tls {
            Some(_) => crate::backend::CLUSTER_TLS_SCHEME,
            None => crate::backend::CLUSTER_SCHEME,
        };
        format!("{scheme}{}", nodes.join(","))
    }

    /// `redis://127.0.0.1:<port>/` of each node (masters first as started), to look at one
    /// node alone.
    pub fn node_urls(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|n| format!("redis://127.0.0.1:{}/", n.port))
            .collect()
    }

    /// A backend on this cluster whose keys all start with `prefix` (trusting the test CA for
    /// a TLS cluster).
    pub async fn backend(&self, prefix: &str) -> Result<Backend, StoreError> {
        let options = RedisOptions {
            prefix: prefix.to_owned(),
            ca_pem: self.tls.as_ref().map(|tls| tls.ca.as_bytes().to_vec()),
        };
        Backend::redis_with(&self.url(), options).await
    }

    /// The port of node `index`.
    pub fn port(&self, index: usize) -> u16 {
        self.nodes[index].port
    }

    /// The process id of node `index`, while it runs.
    pub fn pid(&self, index: usize) -> Option<u32> {
        self.nodes[index].server.as_ref().map(|s| s.child.id())
    }

    /// `redis-cli -p <port of node index> args...`: its standard output.
    pub fn cli(&self, index: usize, args: &[&str]) -> std::io::Result<String> {
        let output = Command::new("redis-cli")
            .args(["-p", &self.nodes[index].port.to_string()])
            .args(args)
            .stdin(Stdio::null())
            .output()?;
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Kills node `index` with SIGKILL: no goodbye to its peers or clients, as when its
    /// machine dies.
    pub fn kill(&mut self, index: usize) {
        self.nodes[index].server = None;
    }

    /// Starts node `index` (again) on its ports and cluster config, and waits until it
    /// answers PING. A killed master whose slots were taken over comes back as a replica of
    /// the new master.
    pub fn restart(&mut self, index: usize) -> Result<(), RedisServerError> {
        let node = &self.nodes[index];
        let mut args = cluster_args(&self.dir, node.port, node.bus, self.node_timeout);
        if let (Some(tls), Some(tls_port)) = (&self.tls, node.tls_port) {
            args.extend(tls_args(&tls.files, tls_port));
            args.extend(["--tls-cluster".into(), "yes".into()]);
        }
        let mut server = RedisServer::spawn(node.port, &args)?;
        if let (Some(tls), Some(port)) = (&self.tls, node.tls_port) {
            server.tls = Some(TlsPort {
                port,
                ca: tls.ca.clone(),
                _files: None,
            });
        }
        self.nodes[index].server = Some(server);
        Ok(())
    }

    /// Sends SIGSTOP (`pause`: true) or SIGCONT to node `index`: a stopped node reads and
    /// answers nothing (its kernel still queues what peers send it).
    pub fn pause(&self, index: usize, pause: bool) -> std::io::Result<()> {
        let Some(pid) = self.pid(index) else {
            return Err(std::io::Error::other("the node is not running"));
        };
        let status = Command::new("kill")
            .arg(if pause { "-STOP" } else { "-CONT" })
            .arg(pid.to_string())
            .status()?;
        if status.success() {
            Ok(())
        } else {
            Err(std::io::Error::other(format!("kill exited with {status}")))
        }
    }

    /// What node `asked` says of every node (`CLUSTER NODES`), by index.
    pub fn nodes_seen_by(&self, asked: usize) -> std::io::Result<Vec<NodeInfo>> {
        let text = self.cli(asked, &["cluster", "nodes"])?;
        let lines: Vec<Vec<&str>> = text
            .lines()
            .map(|line| line.split_whitespace().collect())
            .filter(|fields: &Vec<&str>| fields.len() >= 8)
            .collect();
        let index_of_port = |addr: &str| {
            let port = addr.split(['@', ',']).next()?.rsplit(':').next()?;
            let port: u16 = port.parse().ok()?;
            self.nodes.iter().position(|n| n.port == port)
        };
        let index_of_id = |id: &str| {
            lines
                .iter()
                .find(|fields| fields[0] == id)
                .and_then(|fields| index_of_port(fields[1]))
        };
        Ok(lines
            .iter()
            .filter_map(|fields| {
                Some(NodeInfo {
                    index: index_of_port(fields[1])?,
                    master: fields[2].contains("master"),
                    failed: fields[2].split(',').any(|flag| flag == "fail"),
                    replica_of: index_of_id(fields[3]),
                    slot_ranges: fields.len() - 8,
                })
            })
            .collect())
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        self.nodes.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The arguments that make a node of a cluster: its config file in `dir` (written by the node
/// itself), its bus port, and its node timeout (short, so a test cluster settles fast).
fn cluster_args(dir: &Path, port: u16, bus: u16, node_timeout: Duration) -> Vec<String> {
    vec![
        "--cluster-enabled".into(),
        "yes".into(),
        "--cluster-config-file".into(),
        dir.join(format!("nodes-{port}.conf")).display().to_string(),
        "--cluster-port".into(),
        bus.to_string(),
        "--cluster-node-timeout".into(),
        node_timeout.as_millis().to_string(),
        // A replica's full sync (at creation, or a killed master back as a replica) starts
        // at once rather than after the default 5 s of waiting for more replicas.
        "--repl-diskless-sync-delay".into(),
        "0".into(),
        "--dir".into(),
        dir.display().to_string(),
    ]
}

/// The arguments that make a server serve TLS on `tls_port` with `files` (clients need not
/// present a certificate).
fn tls_args(files: &TlsFiles, tls_port: u16) -> Vec<String> {
    let path = |p: &Path| p.display().to_string();
    vec![
        "--tls-port".into(),
        tls_port.to_string(),
        "--tls-cert-file".into(),
        path(&files.cert),
        "--tls-key-file".into(),
        path(&files.key),
        "--tls-ca-cert-file".into(),
        path(&files.ca),
        "--tls-auth-clients".into(),
        "no".into(),
    ]
}

/// A throwaway certificate authority for TLS tests: it issues server certificates for
/// `localhost` and 127.0.0.1. Each `TestCa` is a new CA, so a client trusting one refuses
/// another's certificates.
pub struct TestCa {
    issuer: rcgen::Issuer<'static, rcgen::KeyPair>,
    pem: String,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCa").finish_non_exhaustive()
    }
}

/// PEM files of a [`TestCa`] and a server certificate it issued, in a directory of their own.
#[derive(Debug)]
pub struct TlsFiles {
    /// The CA certificate.
    pub ca: PathBuf,
    /// The server's certificate.
    pub cert: PathBuf,
    /// The server's private key.
    pub key: PathBuf,
    /// Removed on drop (when the files were written to a directory of their own).
    dir: Option<PathBuf>,
}

impl Drop for TlsFiles {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl TestCa {
    /// A new CA.
    ///
    /// # Panics
    /// When rcgen cannot make a key or a certificate (it always can).
    pub fn new() -> TestCa {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Ludus test CA");
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::CrlSign,
        ];
        let key = rcgen::KeyPair::generate().expect("CA key");
        let certificate = params.self_signed(&key).expect("CA certificate");
        TestCa {
            pem: certificate.pem(),
            issuer: rcgen::Issuer::new(params, key),
        }
    }

    /// The CA certificate (PEM), what clients trust.
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// A new server certificate for `localhost` and 127.0.0.1 and its key (PEM).
    ///
    /// # Panics
    /// When rcgen cannot make a key or a certificate (it always can).
    pub fn issue(&self) -> (String, String) {
        let mut params =
            rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .expect("server params");
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "localhost");
        params.extended_key_usages = vec![
            rcgen::ExtendedKeyUsagePurpose::ServerAuth,
            rcgen::ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let key = rcgen::KeyPair::generate().expect("server key");
        let certificate = params.signed_by(&key, &self.issuer).expect("sign");
        (certificate.pem(), key.serialize_pem())
    }

    /// The CA and a new server certificate written to a fresh temp directory (removed when
    /// the returned files are dropped).
    pub fn server_files(&self) -> std::io::Result<TlsFiles> {
        static WRITTEN: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ludus-tls-{}-{}",
            std::process::id(),
            WRITTEN.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)?;
        let mut files = self.server_files_in(&dir)?;
        files.dir = Some(dir);
        Ok(files)
    }

    /// The CA and a new server certificate written to `dir` (left there).
    pub fn server_files_in(&self, dir: &Path) -> std::io::Result<TlsFiles> {
        let files = TlsFiles {
            ca: dir.join("ca.pem"),
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
            dir: None,
        };
        std::fs::write(&files.ca, &self.pem)?;
        self.reissue(&files)?;
        Ok(files)
    }

    /// Replaces the certificate and key in `files` with a new pair this CA issues, each file
    /// swapped in whole (written beside, then renamed over), as a Secret volume updates.
    pub fn reissue(&self, files: &TlsFiles) -> std::io::Result<()> {
        let (cert, key) = self.issue();
        for (path, contents) in [(&files.key, key), (&files.cert, cert)] {
            let fresh = path.with_extension("new");
            std::fs::write(&fresh, contents)?;
            std::fs::rename(&fresh, path)?;
        }
        Ok(())
    }
}

impl Default for TestCa {
    fn default() -> Self {
        TestCa::new()
    }
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
