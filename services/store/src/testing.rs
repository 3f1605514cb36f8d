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

/// How long a started server has to answer PING.
const START_TIMEOUT: Duration = Duration::from_secs(10);
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

    /// Starts `redis-server` on `port` (for restarting a server on the port clients know).
    pub fn start_on(port: u16) -> Result<Self, RedisServerError> {
        Self::spawn(port, &[])
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

    /// The port clients use: the TLS one for a TLS server.
    fn client_port(&self) -> u16 {
        self.tls.as_ref().map_or(self.port, |tls| tls.port)
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
        Self::start_with(None)
    }

    /// [`RedisCluster::start`] with every node serving clients and the cluster bus over TLS
    /// (`tls-cluster yes`: the nodes announce their TLS ports), with certificates `ca`
    /// issues; [`RedisCluster::url`] is then `rediss+cluster://`.
    pub fn start_tls(ca: &TestCa) -> Result<Self, RedisServerError> {
        Self::start_with(Some(ca))
    }

    fn start_with(tls: Option<&TestCa>) -> Result<Self, RedisServerError> {
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
        let ports_per_node = if tls.is_some() { 3 } else { 2 };
        let mut ports = BTreeSet::new();
        while ports.len() < ports_per_node * CLUSTER_MASTERS {
            ports.insert(free_port().map_err(start)?);
        }
        let files = match tls {
            Some(ca) => Some(ca.server_files_in(&dir).map_err(start)?),
            None => None,
        };
        let ports: Vec<u16> = ports.into_iter().collect();
        let mut cluster = RedisCluster {
            nodes: Vec::new(),
            dir,
        };
        for chunk in ports.chunks(ports_per_node) {
            let (port, bus) = (chunk[0], chunk[1]);
            let mut args = cluster_args(&cluster.dir, port, bus);
            if let (Some(files), Some(ca), Some(&tls_port)) = (&files, tls, chunk.get(2)) {
                args.extend(tls_args(files, tls_port));
                args.extend(["--tls-cluster".into(), "yes".into()]);
                let mut node = RedisServer::spawn(port, &args)?;
                node.tls = Some(TlsPort {
                    port: tls_port,
                    ca: ca.pem().to_owned(),
                    _files: None,
                });
                cluster.nodes.push(node);
            } else {
                cluster.nodes.push(RedisServer::spawn(port, &args)?);
            }
        }
        let mut create = Command::new("redis-cli");
        if let Some(files) = &files {
            create.arg("--tls").arg("--cacert").arg(&files.ca);
        }
        create.arg("--cluster").arg("create");
        for node in &cluster.nodes {
            create.arg(format!("127.0.0.1:{}", node.client_port()));
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

    /// `redis+cluster://127.0.0.1:<port>,...`: every master (`rediss+cluster://` and their
    /// TLS ports for a TLS cluster).
    pub fn url(&self) -> String {
        let nodes: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.client_port()))
            .collect();
        let scheme = match self.ca_pem() {
            Some(_) => crate::backend::CLUSTER_TLS_SCHEME,
            None => crate::backend::CLUSTER_SCHEME,
        };
        format!("{scheme}{}", nodes.join(","))
    }

    /// The CA a TLS cluster's certificates chain to.
    fn ca_pem(&self) -> Option<&str> {
        self.nodes
            .first()
            .and_then(|n| n.tls.as_ref())
            .map(|tls| tls.ca.as_str())
    }

    /// `redis://127.0.0.1:<port>/` of each master, to look at one node alone.
    pub fn node_urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }

    /// A backend on this cluster whose keys all start with `prefix` (trusting the test CA for
    /// a TLS cluster).
    pub async fn backend(&self, prefix: &str) -> Result<Backend, StoreError> {
        let options = RedisOptions {
            prefix: prefix.to_owned(),
            ca_pem: self.ca_pem().map(|ca| ca.as_bytes().to_vec()),
        };
        Backend::redis_with(&self.url(), options).await
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

fn free_port() -> std::io::Result<u16> {
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
