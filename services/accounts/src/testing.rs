//! Test support: a throwaway PostgreSQL server (`initdb` + `pg_ctl start` in a temp
//! directory, on a free loopback port, trust authentication), the way the store tests start
//! their own `redis-server`. As root, PostgreSQL refuses to run, so the binaries run as the
//! `postgres` user through `runuser`.
//!
//! ```no_run
//! # async fn demo() {
//! let server = ludus_accounts::testing::PostgresServer::start().expect("postgres");
//! let store = ludus_accounts::AccountStore::connect(&server.url()).await.expect("connect");
//! # }
//! ```

use std::{
    net::{Ipv4Addr, TcpListener},
    path::{Path, PathBuf},
    process::{Command, Output},
};

use tempfile::TempDir;

/// Why [`PostgresServer::start`] failed.
#[derive(Debug, thiserror::Error)]
pub enum PostgresServerError {
    /// PostgreSQL is not installed. Tests that need it fail, never skip.
    #[error(
        "PostgreSQL server binaries not found (looked in $LUDUS_PG_BIN and /usr/lib/postgresql/*/bin): install them (apt-get install postgresql); these tests fail rather than skip"
    )]
    NotInstalled,
    #[error("postgres did not start: {0}")]
    Start(String),
}

/// A PostgreSQL server in a temp directory, stopped (and its files removed) on drop.
#[derive(Debug)]
pub struct PostgresServer {
    bin: PathBuf,
    dir: TempDir,
    port: u16,
    running: bool,
}

/// The directory holding `initdb` and `pg_ctl`: `$LUDUS_PG_BIN`, else the newest
/// `/usr/lib/postgresql/<version>/bin` (Debian's layout).
fn find_bin() -> Result<PathBuf, PostgresServerError> {
    if let Some(dir) = std::env::var_os("LUDUS_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| PostgresServerError::NotInstalled)?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("pg_ctl").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .ok_or(PostgresServerError::NotInstalled)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// Runs `program args` as the `postgres` user when root, else as ourselves.
fn run_as_postgres(program: &Path, args: &[&str]) -> Result<Output, PostgresServerError> {
    let mut command = if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    command
        .args(args)
        .output()
        .map_err(|e| PostgresServerError::Start(format!("{}: {e}", program.display())))
}

fn check(output: Output, what: &str) -> Result<(), PostgresServerError> {
    if output.status.success() {
        Ok(())
    } else {
        Err(PostgresServerError::Start(format!(
            "{what}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )))
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

impl PostgresServer {
    /// Initialises a cluster in a temp directory and starts it on a free port, waiting until
    /// it accepts connections. Blocks for as long as that takes (about a second).
    pub fn start() -> Result<Self, PostgresServerError> {
        let bin = find_bin()?;
        let dir = tempfile::Builder::new()
            .prefix("ludus-pg-")
            .tempdir()
            .map_err(|e| PostgresServerError::Start(e.to_string()))?;
        if is_root() {
            check(
                Command::new("chown")
                    .args(["-R", "postgres:postgres"])
                    .arg(dir.path())
                    .output()
                    .map_err(|e| PostgresServerError::Start(e.to_string()))?,
                "chown",
            )?;
        }
        let data = dir.path().join("data");
        let data = data.to_string_lossy().into_owned();
        check(
            run_as_postgres(
                &bin.join("initdb"),
                &[
                    "-D",
                    &data,
                    "-U",
                    "postgres",
                    "-A",
                    "trust",
                    "--no-sync",
                    "-E",
                    "UTF8",
                ],
            )?,
            "initdb",
        )?;
        let port = free_port().map_err(|e| PostgresServerError::Start(e.to_string()))?;
        let mut server = PostgresServer {
            bin,
            dir,
            port,
            running: false,
        };
        server.start_again()?;
        Ok(server)
    }

    /// Starts the server again (after [`stop`](Self::stop)) on the same port and data.
    pub fn start_again(&mut self) -> Result<(), PostgresServerError> {
        let data = self.dir.path().join("data");
        let log = self.dir.path().join("postgres.log");
        let socket_dir = self.dir.path().to_string_lossy().into_owned();
        let options = format!(
            "-p {} -k {socket_dir} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port
        );
        check(
            run_as_postgres(
                &self.bin.join("pg_ctl"),
                &[
                    "-D",
                    &data.to_string_lossy(),
                    "-l",
                    &log.to_string_lossy(),
                    "-o",
                    &options,
                    "-w",
                    "-t",
                    "30",
                    "start",
                ],
            )?,
            "pg_ctl start",
        )?;
        self.running = true;
        Ok(())
    }

    /// Stops the server (fast shutdown: clients are disconnected, committed data stays); the
    /// database is down until [`start_again`](Self::start_again).
    pub fn stop(&mut self) -> Result<(), PostgresServerError> {
        let data = self.dir.path().join("data");
        check(
            run_as_postgres(
                &self.bin.join("pg_ctl"),
                &["-D", &data.to_string_lossy(), "-m", "fast", "-w", "stop"],
            )?,
            "pg_ctl stop",
        )?;
        self.running = false;
        Ok(())
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A URL for the `postgres` database as the `postgres` superuser.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        if self.running {
            let _ = self.stop();
        }
    }
}

/// A fresh SQLite database file in its own temp directory (removed on drop).
#[derive(Debug)]
pub struct SqliteFile {
    dir: TempDir,
}

impl SqliteFile {
    pub fn new() -> std::io::Result<Self> {
        Ok(SqliteFile {
            dir: tempfile::Builder::new().prefix("ludus-sqlite-").tempdir()?,
        })
    }

    /// Its `sqlite://` URL.
    pub fn url(&self) -> String {
        format!("sqlite://{}", self.dir.path().join("accounts.db").display())
    }
}
