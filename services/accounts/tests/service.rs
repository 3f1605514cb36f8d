//! The accounts service on a real gRPC server on loopback, over SQLite (and PostgreSQL for
//! the outage test).

use std::time::Duration;

use ludus_accounts::{
    AccountStore, Config,
    limits::SignInLimitsConfig,
    testing::{PostgresServer, SqliteFile},
};
use ludus_clock::{Clock, ManualClock};
use ludus_proto::pb::{self, accounts_client::AccountsClient};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::{Code, transport::Channel};

struct Server {
    client: AccountsClient<Channel>,
    stop: CancellationToken,
    _sqlite: Option<SqliteFile>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

const LONG: Duration = Duration::from_secs(3600);

/// The per-username backstop and the per-address limit as given; the per-(username, address)
/// limit out of the way (its own tests are in `limits.rs`).
fn limits(username_burst: u32, address_burst: u32) -> SignInLimitsConfig {
    SignInLimitsConfig {
        guess_burst: 1_000,
        guess_period: LONG,
        username_burst,
        username_period: LONG,
        address_burst,
        address_period: LONG,
    }
}

async fn serve(url: &str, limits: SignInLimitsConfig, sqlite: Option<SqliteFile>) -> Server {
    serve_on(url, limits, sqlite, Clock::system()).await
}

async fn serve_on(
    url: &str,
    limits: SignInLimitsConfig,
    sqlite: Option<SqliteFile>,
    clock: Clock,
) -> Server {
    let store = AccountStore::connect(url).await.expect("open the database");
    let mut config = Config::new(store);
    config.sign_in_limits = limits;
    config.clock = clock;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let stop = CancellationToken::new();
    tokio::spawn(ludus_accounts::run(
        config,
        listener,
        stop.clone().cancelled_owned(),
    ));
    let client = AccountsClient::connect(format!("http://{address}"))
        .await
        .expect("connect");
    Server {
        client,
        stop,
        _sqlite: sqlite,
    }
}

async fn sqlite_server(limits: SignInLimitsConfig) -> Server {
    let file = SqliteFile::new().expect("temp dir");
    serve(&file.url(), limits, Some(file)).await
}

fn register(username: &str, password: &str) -> pb::CreateAccountRequest {
    pb::CreateAccountRequest {
        username: username.into(),
        password: password.into(),
        display_name: format!("{username} shown"),
        guest_player_id: String::new(),
        client_address: String::new(),
    }
}

fn sign_in(username: &str, password: &str, address: &str) -> pb::AccountsSignInRequest {
    pb::AccountsSignInRequest {
        username: username.into(),
        password: password.into(),
        client_address: address.into(),
    }
}

fn refresh(token: &str) -> pb::AccountsRefreshRequest {
    pb::AccountsRefreshRequest {
        refresh_token: token.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_sign_in_rotate_and_sign_out() {
    let mut server = sqlite_server(SignInLimitsConfig::default()).await;
    let client = &mut server.client;
    let created = client
        .create_account(register("Ann_1", "correct horse"))
        .await
        .expect("register")
        .into_inner();
    let account = created.account.expect("account");
    assert_eq!(account.username, "ann_1", "usernames fold to lower case");
    assert!(account.player_id.starts_with("a-"), "{}", account.player_id);
    assert_eq!(created.refresh_token.len(), 64);

    let signed_in = client
        .sign_in(sign_in("ANN_1", "correct horse", "10.0.0.1"))
        .await
        .expect("sign in")
        .into_inner();
    assert_eq!(
        signed_in.account.expect("account").player_id,
        account.player_id
    );
    assert_ne!(
        signed_in.refresh_token, created.refresh_token,
        "a new session"
    );

    let rotated = client
        .refresh(refresh(&signed_in.refresh_token))
        .await
        .expect("refresh")
        .into_inner();
    assert_ne!(rotated.refresh_token, signed_in.refresh_token);
    client
        .sign_out(pb::AccountsSignOutRequest {
            refresh_token: rotated.refresh_token.clone(),
        })
        .await
        .expect("sign out");
    let after = client
        .refresh(refresh(&rotated.refresh_token))
        .await
        .unwrap_err();
    assert_eq!(after.code(), Code::Unauthenticated);
    assert!(
        after.message().contains("signed out"),
        "{}",
        after.message()
    );
    // The first session (from registration) is another family: still alive.
    client
        .refresh(refresh(&created.refresh_token))
        .await
        .expect("the registration's session is untouched");
}

/// Session terms and lockouts run on the clock accounts is given, not on the Unix clock it
/// would otherwise read: moving a test clock ends them (ARCHITECTURE.md, Time).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_clock_drives_session_expiry_and_lockouts() {
    let manual = ManualClock::starting_now();
    let file = SqliteFile::new().expect("temp dir");
    let mut server = serve_on(&file.url(), limits(1, 100), Some(file), manual.clock()).await;
    let client = &mut server.client;
    let created = client
        .create_account(register("ann", "correct horse"))
        .await
        .expect("register")
        .into_inner();
    assert_eq!(
        created.refresh_expires_at_unix_ms,
        i64::try_from(manual.clock().now_ms()).unwrap()
            + i64::try_from(ludus_accounts::service::DEFAULT_REFRESH_TTL.as_millis()).unwrap(),
        "the term starts on the given clock"
    );
    let rotated = client
        .refresh(refresh(&created.refresh_token))
        .await
        .expect("within its term")
        .into_inner();
    manual.advance(ludus_accounts::service::DEFAULT_REFRESH_TTL);
    let expired = client
        .refresh(refresh(&rotated.refresh_token))
        .await
        .unwrap_err();
    assert_eq!(expired.code(), Code::Unauthenticated, "{expired:?}");

    // Two wrong passwords past a burst of one lock the username for an hour of that clock.
    for _ in 0..2 {
        let _ = client
            .sign_in(sign_in("ann", "guess guess", "10.0.0.1"))
            .await;
    }
    let locked = client
        .sign_in(sign_in("ann", "correct horse", "10.0.0.1"))
        .await
        .unwrap_err();
    assert_eq!(locked.code(), Code::ResourceExhausted);
    manual.advance(LONG);
    client
        .sign_in(sign_in("ann", "correct horse", "10.0.0.1"))
        .await
        .expect("the lockout ended with the clock");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_refresh_token_revokes_its_family() {
    let mut server = sqlite_server(SignInLimitsConfig::default()).await;
    let client = &mut server.client;
    let first = client
        .create_account(register("reuse_me", "correct horse"))
        .await
        .expect("register")
        .into_inner();
    let second = client
        .refresh(refresh(&first.refresh_token))
        .await
        .expect("refresh")
        .into_inner();
    let replay = client
        .refresh(refresh(&first.refresh_token))
        .await
        .unwrap_err();
    assert_eq!(replay.code(), Code::Unauthenticated);
    assert!(
        replay.message().contains("already used"),
        "{}",
        replay.message()
    );
    let thief_lost = client
        .refresh(refresh(&second.refresh_token))
        .await
        .unwrap_err();
    assert_eq!(
        thief_lost.code(),
        Code::Unauthenticated,
        "the whole family is revoked"
    );
    for garbage in ["", "not-a-token", &"0".repeat(64)] {
        let refused = client.refresh(refresh(garbage)).await.unwrap_err();
        assert_eq!(refused.code(), Code::Unauthenticated, "{garbage:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_registrations_get_precise_statuses_and_change_nothing() {
    let mut server = sqlite_server(SignInLimitsConfig::default()).await;
    let client = &mut server.client;
    client
        .create_account(register("taken", "correct horse"))
        .await
        .expect("register");
    let cases = [
        (
            register("ab", "correct horse"),
            Code::InvalidArgument,
            "username",
        ),
        (
            register("has-dash", "correct horse"),
            Code::InvalidArgument,
            "username",
        ),
        (
            register(&"a".repeat(25), "correct horse"),
            Code::InvalidArgument,
            "username",
        ),
        (
            register("shorty", "1234567"),
            Code::InvalidArgument,
            "at least 8",
        ),
        (
            register("longy", &"p".repeat(129)),
            Code::InvalidArgument,
            "at most 128",
        ),
        (
            register("TAKEN", "another password"),
            Code::AlreadyExists,
            "taken",
        ),
        (
            pb::CreateAccountRequest {
                display_name: String::new(),
                ..register("nameless", "correct horse")
            },
            Code::InvalidArgument,
            "display_name",
        ),
    ];
    for (request, code, words) in cases {
        let username = request.username.clone();
        let refused = client.create_account(request).await.unwrap_err();
        assert_eq!(refused.code(), code, "{username}: {}", refused.message());
        assert!(
            refused.message().contains(words),
            "{username}: {}",
            refused.message()
        );
    }
    // Nothing changed: the taken name still signs in with its own password only.
    client
        .sign_in(sign_in("taken", "correct horse", ""))
        .await
        .expect("original password");
    let refused = client
        .sign_in(sign_in("taken", "another password", ""))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    let refused = client
        .sign_in(sign_in("shorty", "12345678", ""))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated, "never registered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_users_and_wrong_passwords_look_alike() {
    let mut server = sqlite_server(SignInLimitsConfig::default()).await;
    let client = &mut server.client;
    client
        .create_account(register("known", "correct horse"))
        .await
        .expect("register");
    let wrong = client
        .sign_in(sign_in("known", "wrong password", "10.0.0.1"))
        .await
        .unwrap_err();
    let unknown = client
        .sign_in(sign_in("unknown", "wrong password", "10.0.0.2"))
        .await
        .unwrap_err();
    assert_eq!(wrong.code(), Code::Unauthenticated);
    assert_eq!(wrong.code(), unknown.code());
    assert_eq!(wrong.message(), unknown.message());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_sign_ins_lock_the_username_and_the_address_not_everybody() {
    let mut server = sqlite_server(limits(3, 6)).await;
    let client = &mut server.client;
    for name in ["victim", "bystander"] {
        client
            .create_account(register(name, "correct horse"))
            .await
            .expect("register");
    }
    // Three wrong guesses from three addresses use up the victim's username burst.
    for i in 0..3 {
        let refused = client
            .sign_in(sign_in("victim", "guess guess", &format!("10.1.0.{i}")))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::Unauthenticated);
    }
    client
        .sign_in(sign_in("victim", "guess again", "10.1.0.9"))
        .await
        .unwrap_err();
    let locked = client
        .sign_in(sign_in("victim", "correct horse", "10.1.0.10"))
        .await
        .unwrap_err();
    assert_eq!(locked.code(), Code::ResourceExhausted);
    assert!(
        locked.message().contains("per-username"),
        "{}",
        locked.message()
    );
    client
        .sign_in(sign_in("bystander", "correct horse", "10.1.0.10"))
        .await
        .expect("other usernames are not locked");

    // One address spraying many usernames is stopped; everybody else goes on.
    for i in 0..7 {
        let _ = client
            .sign_in(sign_in(&format!("spray_{i}"), "guess guess", "10.66.0.1"))
            .await;
    }
    let stopped = client
        .sign_in(sign_in("bystander", "correct horse", "10.66.0.1"))
        .await
        .unwrap_err();
    assert_eq!(stopped.code(), Code::ResourceExhausted);
    assert!(
        stopped.message().contains("per-address"),
        "{}",
        stopped.message()
    );
    client
        .sign_in(sign_in("bystander", "correct horse", "10.2.0.1"))
        .await
        .expect("another address signs in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_upgrade_keeps_the_player_id_once() {
    let mut server = sqlite_server(SignInLimitsConfig::default()).await;
    let client = &mut server.client;
    let upgraded = client
        .create_account(pb::CreateAccountRequest {
            guest_player_id: "g-01GUEST".into(),
            ..register("former_guest", "correct horse")
        })
        .await
        .expect("upgrade")
        .into_inner();
    assert_eq!(upgraded.account.expect("account").player_id, "g-01GUEST");
    let twice = client
        .create_account(pb::CreateAccountRequest {
            guest_player_id: "g-01GUEST".into(),
            ..register("second_name", "correct horse")
        })
        .await
        .unwrap_err();
    assert_eq!(twice.code(), Code::AlreadyExists);
    let account = client
        .get_account(pb::GetAccountRequest {
            player_id: "g-01GUEST".into(),
        })
        .await
        .expect("read")
        .into_inner();
    assert_eq!(account.username, "former_guest");
    let missing = client
        .get_account(pb::GetAccountRequest {
            player_id: "g-NOBODY".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);
    let renamed = client
        .update_account(pb::UpdateAccountRequest {
            player_id: "g-01GUEST".into(),
            display_name: "New Name".into(),
        })
        .await
        .expect("rename")
        .into_inner();
    assert_eq!(renamed.display_name, "New Name");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_database_down_sign_in_is_unavailable_and_recovers() {
    let mut postgres = PostgresServer::start().expect("postgres");
    let mut server = serve(&postgres.url(), SignInLimitsConfig::default(), None).await;
    server
        .client
        .create_account(register("outage", "correct horse"))
        .await
        .expect("register");
    postgres.stop().expect("stop postgres");
    let down = server
        .client
        .sign_in(sign_in("outage", "correct horse", "10.0.0.1"))
        .await
        .unwrap_err();
    assert_eq!(down.code(), Code::Unavailable, "{}", down.message());
    postgres.start_again().expect("start postgres");
    let mut recovered = None;
    for _ in 0..50 {
        match server
            .client
            .sign_in(sign_in("outage", "correct horse", "10.0.0.1"))
            .await
        {
            Ok(grant) => {
                recovered = Some(grant);
                break;
            }
            Err(status) => {
                assert_eq!(status.code(), Code::Unavailable, "{}", status.message());
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    assert!(
        recovered.is_some(),
        "sign-in works again once the database is back"
    );
}
