//! The signed-in account kept between runs, and the only code that touches its tokens.
//!
//! `ludus login` (and `register`) save the refresh token, with the server it belongs to and
//! the account's username and player id, in `<config dir>/session`, a file only the user can
//! read (0600). Every later command trades that token for a 15-minute access token with
//! `Refresh`; the refresh token rotates on every use, so the new one is written back before
//! anything else happens: a crash after the call must not leave a spent token in the file,
//! since presenting a spent token again revokes the whole session.
//!
//! The file is the source of truth for "the latest refresh token": whoever refreshes reads it
//! right before, so a second `ludus` running at the same time does not present a token the
//! first one has already spent (the race that remains is two refreshes in the same instant).
//!
//! Tokens are never printed: [`SavedSession`]'s Debug redacts the refresh token, and the
//! access token lives only inside the client's interceptor.

use std::{
    ffi::OsString,
    fs,
    io::{ErrorKind, Write as _},
    path::{Path, PathBuf},
    sync::{Arc, Weak},
    time::Duration,
};

use anyhow::Context as _;
use ludus_proto::pb::{self, gateway_client::GatewayClient};
use tonic::{Code, transport::Channel};

use super::DEFAULT_SERVER;
use super::i18n::{tr, trf};
use super::session::{self, Session, TokenCell};

/// Overrides where the session file is kept (tests, or several accounts side by side).
pub const CONFIG_DIR_ENV: &str = "LUDUS_CONFIG_DIR";
/// The file's name inside the config directory.
const FILE_NAME: &str = "session";
/// Renew the access token this long before it expires, so a call never races its expiry.
const RENEW_AHEAD: Duration = Duration::from_secs(60);
/// After a failed renewal (server down), try again this much later.
const RENEW_RETRY: Duration = Duration::from_secs(15);

/// A signed-in account as saved between runs.
#[derive(Clone, PartialEq, Eq)]
pub struct SavedSession {
    /// The Gateway the session was opened on (a token means nothing to another server).
    pub server: String,
    /// The account's username.
    pub username: String,
    /// The account's player id.
    pub player_id: String,
    /// The latest refresh token: a secret, single use. Never print it.
    pub refresh_token: String,
}

impl std::fmt::Debug for SavedSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SavedSession")
            .field("server", &self.server)
            .field("username", &self.username)
            .field("player_id", &self.player_id)
            .field("refresh_token", &"<redacted>")
            .finish()
    }
}

impl SavedSession {
    /// The file's text: one `key=value` a line.
    fn to_text(&self) -> String {
        format!(
            "# ludus session: a secret, keep this file private (ludus logout removes it)\n\
             server={}\nusername={}\nplayer_id={}\nrefresh_token={}\n",
            self.server, self.username, self.player_id, self.refresh_token
        )
    }

    /// Parses the file's text; the error names what is wrong (never the token).
    fn from_text(text: &str) -> Result<Self, String> {
        let (mut server, mut username, mut player_id, mut refresh_token) = (None, None, None, None);
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(trf("session.notKeyValue", &[("line", &(number + 1))]));
            };
            let slot = match key.trim() {
                "server" => &mut server,
                "username" => &mut username,
                "player_id" => &mut player_id,
                "refresh_token" => &mut refresh_token,
                other => {
                    return Err(trf(
                        "session.unknownKey",
                        &[("key", &format!("{other:?}")), ("line", &(number + 1))],
                    ));
                }
            };
            *slot = Some(value.trim().to_owned());
        }
        let required = |value: Option<String>, key: &str| match value {
            Some(value) if !value.is_empty() => Ok(value),
            _ => Err(trf("session.missingKey", &[("key", &key)])),
        };
        Ok(SavedSession {
            server: required(server, "server")?,
            username: required(username, "username")?,
            player_id: required(player_id, "player_id")?,
            refresh_token: required(refresh_token, "refresh_token")?,
        })
    }
}

/// Where the saved session lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    path: PathBuf,
}

impl SessionFile {
    /// The session file inside `dir`.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        SessionFile {
            path: dir.into().join(FILE_NAME),
        }
    }

    /// The user's session file: in `$LUDUS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/ludus`, else
    /// `~/.config/ludus`.
    pub fn default_location() -> anyhow::Result<Self> {
        config_dir(
            std::env::var_os(CONFIG_DIR_ENV),
            std::env::var_os("XDG_CONFIG_HOME"),
            std::env::var_os("HOME"),
        )
        .map(SessionFile::in_dir)
        .context(tr("session.noHome"))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The saved session; `None` when nobody has signed in. A file that cannot be read or
    /// parsed is an error naming the file, never silently a guest.
    pub fn load(&self) -> anyhow::Result<Option<SavedSession>> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(error)
                    .with_context(|| trf("session.cannotRead", &[("path", &self.path.display())]));
            }
        };
        SavedSession::from_text(&text).map(Some).map_err(|problem| {
            anyhow::anyhow!(trf(
                "session.damaged",
                &[("path", &self.path.display()), ("problem", &problem)]
            ))
        })
    }

    /// Writes the session, readable by the user only. Written to a temporary file that
    /// replaces the old one, so a crash mid-write never leaves half a token behind.
    pub fn save(&self, session: &SavedSession) -> anyhow::Result<()> {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        create_private_dir(dir)
            .with_context(|| trf("session.cannotCreate", &[("path", &dir.display())]))?;
        let temporary = self.path.with_extension("new");
        write_private(&temporary, session.to_text().as_bytes())
            .with_context(|| trf("session.cannotWrite", &[("path", &temporary.display())]))?;
        fs::rename(&temporary, &self.path)
            .with_context(|| trf("session.cannotReplace", &[("path", &self.path.display())]))
    }

    /// Deletes the file; false when there was none.
    pub fn remove(&self) -> anyhow::Result<bool> {
        match fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(false),
            Err(error) => Err(error)
                .with_context(|| trf("session.cannotRemove", &[("path", &self.path.display())])),
        }
    }
}

/// The config directory from the environment's values (passed in, so tests need not change
/// the process environment). XDG says to ignore an empty or relative `XDG_CONFIG_HOME`.
fn config_dir(
    ludus: Option<OsString>,
    xdg: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let non_empty = |value: Option<OsString>| value.filter(|v| !v.is_empty()).map(PathBuf::from);
    non_empty(ludus)
        .or_else(|| {
            non_empty(xdg)
                .filter(|dir| dir.is_absolute())
                .map(|dir| dir.join("ludus"))
        })
        .or_else(|| non_empty(home).map(|home| home.join(".config").join("ludus")))
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    fs::create_dir_all(dir)
}

/// Writes `bytes` to a new file at `path` that only the user can read and write. A leftover
/// from an interrupted write is removed first: its mode is not to be trusted.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match fs::remove_file(path) {
        Err(error) if error.kind() != ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// The server to use and the saved session on it, if any. An explicit `--server` that is not
/// the saved session's server means a guest there (the saved token belongs to another
/// server); no `--server` means the saved session's server, else the default.
pub fn choose_server(
    server: Option<&str>,
    saved: Option<SavedSession>,
) -> (String, Option<SavedSession>) {
    match (server, saved) {
        (Some(server), Some(saved)) if saved.server == server => (server.to_owned(), Some(saved)),
        (Some(server), _) => (server.to_owned(), None),
        (None, Some(saved)) => (saved.server.clone(), Some(saved)),
        (None, None) => (DEFAULT_SERVER.to_owned(), None),
    }
}

/// Saves a session the server has just opened (Register or SignIn) on `server`.
pub fn save_new(
    file: &SessionFile,
    server: &str,
    opened: &pb::AccountSession,
) -> anyhow::Result<pb::Account> {
    let account = opened.account.clone().context(tr("session.noAccount"))?;
    file.save(&SavedSession {
        server: server.to_owned(),
        username: account.username.clone(),
        player_id: account.player_id.clone(),
        refresh_token: opened.refresh_token.clone(),
    })?;
    Ok(account)
}

/// Trades the saved session for fresh tokens (saving the rotated refresh token at once) and
/// returns a client that sends the access token, renewing it in the background before it
/// expires for as long as the client is in use.
pub async fn resume(file: &SessionFile, saved: &SavedSession) -> anyhow::Result<Session> {
    let channel = session::connect(&saved.server).await?;
    let fresh = refresh(file, &channel).await?;
    let account = fresh.account.clone().unwrap_or_default();
    let token = session::token_cell(&fresh.access_token)?;
    tokio::spawn(keep_fresh(
        file.clone(),
        channel.clone(),
        Arc::downgrade(&token),
        fresh.access_expires_at_unix_ms,
    ));
    Ok(Session {
        client: session::client(channel, token),
        player_id: account.player_id,
        name: account.display_name,
        account: true,
    })
}

/// One Refresh with the token in the file right now; the new token is saved before the
/// access token is used. A session the server has ended (signed out elsewhere, expired, or
/// revoked after a reuse) removes the file: it can never work again.
async fn refresh(file: &SessionFile, channel: &Channel) -> anyhow::Result<pb::AccountSession> {
    let saved = file.load()?.context(tr("session.signedOutMeanwhile"))?;
    let fresh = match GatewayClient::new(channel.clone())
        .refresh(pb::RefreshRequest {
            refresh_token: saved.refresh_token.clone(),
        })
        .await
    {
        Ok(response) => response.into_inner(),
        Err(status) if status.code() == Code::Unauthenticated => {
            file.remove()?;
            anyhow::bail!(trf(
                "session.ended",
                &[
                    ("username", &saved.username),
                    ("reason", &session::describe(&status))
                ]
            ));
        }
        Err(status) => anyhow::bail!(trf(
            "session.cannotResume",
            &[
                ("username", &saved.username),
                ("reason", &session::describe(&status))
            ]
        )),
    };
    file.save(&SavedSession {
        refresh_token: fresh.refresh_token.clone(),
        ..saved
    })
    .context(tr("session.notSaved"))?;
    Ok(fresh)
}

/// Renews the access token shortly before it expires while the client is alive (`token` can
/// still be upgraded): a game may well outlast the 15 minutes an access token lives. Stops
/// when every client is gone or the session has ended.
async fn keep_fresh(
    file: SessionFile,
    channel: Channel,
    token: Weak<TokenCell>,
    mut expires_at_unix_ms: i64,
) {
    loop {
        let wait_ms = expires_at_unix_ms
            .saturating_sub(session::now_ms())
            .saturating_sub(i64::try_from(RENEW_AHEAD.as_millis()).unwrap_or(i64::MAX));
        tokio::time::sleep(Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0))).await;
        let Some(cell) = token.upgrade() else {
            return;
        };
        match refresh(&file, &channel).await {
            Ok(fresh) => match session::set_token(&cell, &fresh.access_token) {
                Ok(()) => expires_at_unix_ms = fresh.access_expires_at_unix_ms,
                Err(error) => {
                    tracing::warn!("cannot use the renewed access token: {error:#}");
                    return;
                }
            },
            // Only a session that still exists is worth retrying.
            Err(error) if file.load().ok().flatten().is_some() => {
                tracing::warn!("renewing the access token failed, retrying: {error:#}");
                expires_at_unix_ms = session::now_ms()
                    + i64::try_from((RENEW_AHEAD + RENEW_RETRY).as_millis()).unwrap_or(0);
            }
            Err(error) => {
                tracing::warn!("the session ended: {error:#}");
                return;
            }
        }
    }
}

/// Signs in for `play` or `watch`: the saved account when there is one on this server (and
/// `guest` was not asked for), else a guest called `guest_name`.
pub async fn sign_in(
    file: &SessionFile,
    server: Option<&str>,
    guest_name: Option<&str>,
    guest: bool,
) -> anyhow::Result<Session> {
    let saved = if guest { None } else { file.load()? };
    let (server, saved) = choose_server(server, saved);
    match saved {
        Some(saved) => resume(file, &saved).await,
        None => {
            let name = guest_name.context(tr("session.guestNeedsName"))?;
            session::sign_in(&server, name).await
        }
    }
}

/// Ends the saved session on its server and removes the file. The file goes even when the
/// server cannot be told (it is down, or the session had already ended): a signed-out user
/// expects no token left on disk. Returns the username signed out, `None` when nobody was
/// signed in.
pub async fn sign_out(file: &SessionFile) -> anyhow::Result<Option<String>> {
    let saved = match file.load() {
        Ok(Some(saved)) => saved,
        Ok(None) => return Ok(None),
        // The damaged-file message says to log out: that must work without a readable token.
        Err(error) => {
            file.remove()?;
            anyhow::bail!(trf(
                "session.removedDamaged",
                &[("error", &format!("{error:#}"))]
            ));
        }
    };
    let told = async {
        GatewayClient::new(session::connect(&saved.server).await?)
            .sign_out(pb::SignOutRequest {
                refresh_token: saved.refresh_token.clone(),
            })
            .await
            .map_err(|status| anyhow::anyhow!("{}", session::describe(&status)))
    }
    .await;
    file.remove()?;
    if let Err(error) = told {
        anyhow::bail!(trf(
            "session.removedNotTold",
            &[
                ("username", &saved.username),
                ("error", &format!("{error:#}"))
            ]
        ));
    }
    Ok(Some(saved.username))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann() -> SavedSession {
        SavedSession {
            server: "http://127.0.0.1:50051".into(),
            username: "ann".into(),
            player_id: "a-01ABC".into(),
            refresh_token: "r1.secret-token".into(),
        }
    }

    fn temp_dir() -> tempfile::TempDir {
        tempfile::tempdir().expect("a temp dir")
    }

    #[test]
    fn a_saved_session_reads_back_unchanged() {
        let dir = temp_dir();
        let file = SessionFile::in_dir(dir.path().join("ludus"));
        file.save(&ann()).expect("save");
        assert_eq!(file.load().expect("load"), Some(ann()));
        let rotated = SavedSession {
            refresh_token: "r2.rotated".into(),
            ..ann()
        };
        file.save(&rotated).expect("save over");
        assert_eq!(file.load().expect("load"), Some(rotated));
        assert!(
            !file.path().with_extension("new").exists(),
            "no temporary left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn only_the_user_can_read_the_file() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = temp_dir();
        let file = SessionFile::in_dir(dir.path().join("ludus"));
        // A leftover temporary with loose permissions must not pass them on.
        fs::create_dir_all(dir.path().join("ludus")).expect("dir");
        fs::write(file.path().with_extension("new"), "old").expect("leftover");
        fs::set_permissions(
            file.path().with_extension("new"),
            fs::Permissions::from_mode(0o644),
        )
        .expect("chmod");
        file.save(&ann()).expect("save");
        let mode = |path: &Path| fs::metadata(path).expect("metadata").permissions().mode() & 0o777;
        assert_eq!(mode(file.path()), 0o600);
        let fresh = SessionFile::in_dir(dir.path().join("new-dir"));
        fresh.save(&ann()).expect("save");
        assert_eq!(mode(&dir.path().join("new-dir")), 0o700);
        assert_eq!(mode(fresh.path()), 0o600);
    }

    #[test]
    fn no_file_means_nobody_is_signed_in() {
        let dir = temp_dir();
        let file = SessionFile::in_dir(dir.path());
        assert_eq!(file.load().expect("load"), None);
        assert!(!file.remove().expect("remove"), "nothing to remove");
        file.save(&ann()).expect("save");
        assert!(file.remove().expect("remove"));
        assert_eq!(file.load().expect("load"), None);
    }

    #[test]
    fn a_damaged_file_is_a_clear_error_that_never_shows_the_token() {
        let dir = temp_dir();
        let file = SessionFile::in_dir(dir.path());
        for (text, problem) in [
            (
                "server=http://x\nusername=ann\nplayer_id=p\n",
                "no refresh_token",
            ),
            ("garbage\n", "line 1 is not key=value"),
            (
                "server=http://x\nusername=ann\nplayer_id=p\nrefresh_token=\n",
                "no refresh_token",
            ),
            (
                "server=http://x\ncolour=blue\nrefresh_token=r1.secret-token\n",
                "unknown key \"colour\" on line 2",
            ),
        ] {
            fs::write(file.path(), text).expect("write");
            let error = format!("{:#}", file.load().expect_err(text));
            assert!(error.contains(problem), "{error}");
            assert!(
                error.contains("damaged") && error.contains("ludus login"),
                "{error}"
            );
            assert!(!error.contains("secret"), "{error}");
        }
    }

    #[tokio::test]
    async fn logout_removes_a_damaged_file() {
        let dir = temp_dir();
        let file = SessionFile::in_dir(dir.path());
        fs::write(file.path(), "garbage\n").expect("write");
        let error = format!(
            "{:#}",
            sign_out(&file).await.expect_err("not a clean sign-out")
        );
        assert!(
            error.contains("removed the damaged session file"),
            "{error}"
        );
        assert!(!file.path().exists());
        assert_eq!(
            sign_out(&file).await.ok(),
            Some(None),
            "then nobody is signed in"
        );
    }

    #[test]
    fn debug_output_redacts_the_token() {
        let shown = format!("{:?}", ann());
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("ann"), "{shown}");
    }

    #[test]
    fn the_config_dir_follows_ludus_then_xdg_then_home() {
        let some = |s: &str| Some(OsString::from(s));
        assert_eq!(
            config_dir(some("/tmp/l"), some("/x"), some("/home/a")),
            Some(PathBuf::from("/tmp/l"))
        );
        assert_eq!(
            config_dir(None, some("/x"), some("/home/a")),
            Some(PathBuf::from("/x/ludus"))
        );
        // XDG: an empty or relative XDG_CONFIG_HOME is ignored.
        assert_eq!(
            config_dir(some(""), some("rel"), some("/home/a")),
            Some(PathBuf::from("/home/a/.config/ludus"))
        );
        assert_eq!(config_dir(None, None, None), None);
    }

    #[test]
    fn the_saved_session_is_used_only_on_its_own_server() {
        let (server, saved) = choose_server(None, Some(ann()));
        assert_eq!(
            (server.as_str(), saved),
            ("http://127.0.0.1:50051", Some(ann()))
        );
        let (server, saved) = choose_server(Some("http://other:1"), Some(ann()));
        assert_eq!((server.as_str(), saved), ("http://other:1", None));
        let (server, saved) = choose_server(Some("http://127.0.0.1:50051"), Some(ann()));
        assert_eq!(saved, Some(ann()));
        assert_eq!(server, "http://127.0.0.1:50051");
        assert_eq!(choose_server(None, None).0, DEFAULT_SERVER);
    }
}
