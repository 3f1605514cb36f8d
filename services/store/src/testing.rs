//! Test support: a throwaway `redis-server` child process on a free port.
//!
//! ```no_run
//! # async fn demo() {
//! let server = ludus_store::testing::RedisServer::start().expect("redis-server");
//! let backend = server.backend("suite-a:").await.expect("connect");
//! # }
//! ```

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::backend::{Backend, StoreError};

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
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--appendonly", "no"])
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
