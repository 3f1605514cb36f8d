//! Accounts end to end, through the gateway, on a real redis-server and a real PostgreSQL:
//! register, sign in, refresh rotation and reuse detection, sign-out, guest upgrade, failed
//! sign-in limits, forged and expired tokens.

use std::{
    net::{IpAddr, Ipv4Addr},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use ludus_accounts::{limits::SignInLimitsConfig, testing::PostgresServer};
use ludus_proto::error_details::{DOMAIN_ACCOUNTS, StatusExt};
use ludus_proto::pb::{self, game_state_client::GameStateClient, gateway_client::GatewayClient};
use ludus_tests::{
    AccountsDatabase, Ludus, Player, account_player, anonymous_from, caro_settings,
    connect_internal, refused_with,
};
use tonic::{Code, Response, Status, metadata::MetadataValue, transport::Channel};

const ME: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
/// The secret `Ludus::start*` signs tokens with.
const TEST_SECRET: &[u8] = b"end-to-end tests secret, 32+ bytes long";

/// The `ErrorInfo` (AIP-193) of a refusal: its reason and metadata, as a client reads them.
fn reason(status: &Status) -> (String, String) {
    let info = status
        .get_error_details()
        .error_info()
        .cloned()
        .expect("every refusal carries an ErrorInfo");
    (info.reason, info.domain)
}

/// Asserts that `status`'s message mentions `text`, printing the message otherwise.
fn assert_mentions(status: &Status, text: &str) {
    assert!(status.message().contains(text), "{}", status.message());
}

fn register(username: &str, password: &str, name: &str) -> pb::RegisterRequest {
    pb::RegisterRequest {
        username: username.into(),
        password: password.into(),
        display_name: name.into(),
    }
}

fn sign_in(username: &str, password: &str) -> pb::SignInRequest {
    pb::SignInRequest {
        username: username.into(),
        password: password.into(),
    }
}

fn refresh(token: &str) -> pb::RefreshRequest {
    pb::RefreshRequest {
        refresh_token: token.into(),
    }
}

/// A guest's request to become the account `username` (password "correct horse battery"),
/// keeping their display name.
fn upgrade(username: &str) -> pb::UpgradeGuestRequest {
    pb::UpgradeGuestRequest {
        username: username.into(),
        password: "correct horse battery".into(),
        display_name: String::new(),
    }
}

fn rename(display_name: &str) -> pb::UpdateProfileRequest {
    pb::UpdateProfileRequest {
        display_name: display_name.into(),
        rulesets: vec![],
    }
}

/// The message of a gateway call's answer, or its refusal.
async fn answer<T>(call: impl Future<Output = Result<Response<T>, Status>>) -> Result<T, Status> {
    call.await.map(Response::into_inner)
}

/// The PostgreSQL server behind the accounts database of `ludus` (started on PostgreSQL).
fn postgres(ludus: &mut Ludus) -> &mut PostgresServer {
    ludus
        .accounts_db()
        .postgres_server()
        .expect("accounts run on PostgreSQL")
}

async fn anonymous(ludus: &Ludus) -> GatewayClient<Channel> {
    anonymous_from(ludus.gateway, ME).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_sign_in_rotate_detect_reuse_and_sign_out_on_postgres() {
    let ludus =
        Ludus::start_with_accounts(AccountsDatabase::postgres(), SignInLimitsConfig::default())
            .await;
    let mut gateway = anonymous(&ludus).await;
    let registered = answer(gateway.register(register("Ann_e2e", "correct horse battery", "Ann")))
        .await
        .expect("register");
    let account = registered.account.clone().expect("account");
    assert_eq!(account.username, "ann_e2e");
    let lifetime_ms = registered.access_expires_at_unix_ms
        - i64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap();
    assert!(
        lifetime_ms <= 15 * 60 * 1000,
        "access tokens live 15 minutes: {lifetime_ms}"
    );

    let session = answer(gateway.sign_in(sign_in("ANN_E2E", "correct horse battery")))
        .await
        .expect("sign in");
    let mut ann = account_player(ludus.gateway, &session).await;
    assert_eq!(ann.id, account.player_id);
    let profile = ann
        .own_profile(&["caro/15/blocked-ends"])
        .await
        .expect("own profile");
    assert_eq!(profile.display_name, "Ann");
    assert_eq!(profile.ratings.len(), 1);
    assert_eq!(profile.ratings[0].rating, 1200.0);

    // Rotation: every refresh spends the token and hands out a new one.
    let rotated = answer(gateway.refresh(refresh(&session.refresh_token)))
        .await
        .expect("refresh");
    assert_ne!(rotated.refresh_token, session.refresh_token);
    let mut renewed = account_player(ludus.gateway, &rotated).await;
    renewed
        .client
        .list_my_games(pb::ListMyGamesRequest { limit: 5 })
        .await
        .expect("the renewed access token works");

    // Reuse: presenting the spent token revokes the whole family, newest token included.
    let replay = answer(gateway.refresh(refresh(&session.refresh_token)))
        .await
        .unwrap_err();
    assert_eq!(replay.code(), Code::Unauthenticated);
    assert_eq!(
        reason(&replay),
        ("REFRESH_REUSED".to_owned(), DOMAIN_ACCOUNTS.to_owned())
    );
    assert_mentions(&replay, "already used");
    let newest = answer(gateway.refresh(refresh(&rotated.refresh_token)))
        .await
        .unwrap_err();
    assert_eq!(newest.code(), Code::Unauthenticated);

    // Sign-out ends a session; another sign-in is unaffected.
    let laptop = answer(gateway.sign_in(sign_in("ann_e2e", "correct horse battery")))
        .await
        .expect("sign in");
    let phone = answer(gateway.sign_in(sign_in("ann_e2e", "correct horse battery")))
        .await
        .expect("sign in");
    gateway
        .sign_out(pb::SignOutRequest {
            refresh_token: laptop.refresh_token.clone(),
        })
        .await
        .expect("sign out");
    let after = answer(gateway.refresh(refresh(&laptop.refresh_token)))
        .await
        .unwrap_err();
    assert_eq!(after.code(), Code::Unauthenticated);
    answer(gateway.refresh(refresh(&phone.refresh_token)))
        .await
        .expect("the other device stays signed in");

    // Bad input: precise statuses.
    let duplicate = answer(gateway.register(register("ANN_E2E", "another password", "Imposter")))
        .await
        .unwrap_err();
    assert_eq!(duplicate.code(), Code::AlreadyExists);
    refused_with(
        answer(gateway.register(register("bob_e2e", "short", "Bob"))).await,
        Code::InvalidArgument,
        "password",
    );
    refused_with(
        answer(gateway.register(register("bob e2e", "long enough", "Bob"))).await,
        Code::InvalidArgument,
        "username",
    );
    let wrong = answer(gateway.sign_in(sign_in("ann_e2e", "not the password")))
        .await
        .unwrap_err();
    let unknown = answer(gateway.sign_in(sign_in("nobody_e2e", "not the password")))
        .await
        .unwrap_err();
    assert_eq!(
        (wrong.code(), wrong.message()),
        (unknown.code(), unknown.message())
    );
    ludus.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_upgrade_keeps_the_player_id_games_and_rating() {
    let ludus = Ludus::start().await;
    let [mut guest, opponent] = ludus.players(["Guest Gil", "Opal"]).await;
    let ruleset = "caro/15/blocked-ends";
    ludus.seed_rating(ruleset, &guest, 1337.0, 3).await;
    let game = ludus
        .create_game("", caro_settings(), &[&guest, &opponent])
        .await;

    let upgraded = answer(guest.client.upgrade_guest(upgrade("gil")))
        .await
        .expect("upgrade");
    let account = upgraded.account.clone().expect("account");
    assert_eq!(
        account.player_id, guest.id,
        "the account's player id is the guest's"
    );
    assert_eq!(
        account.display_name, "Guest Gil",
        "the guest's name is kept"
    );

    let mut gil = account_player(ludus.gateway, &upgraded).await;
    let snapshot = gil.game(&game.game_id).await;
    assert!(
        snapshot.seats.iter().any(|seat| seat.player_id == gil.id),
        "the live game is still theirs"
    );
    let rating = gil.rating(ruleset).await;
    assert_eq!(
        (rating.rating, rating.games),
        (1337.0, 3),
        "the rating is still theirs"
    );
    let profile = gil.own_profile(&[ruleset]).await.expect("profile");
    assert_eq!(profile.rated_games, 3);
    assert_eq!(profile.username, "gil");

    // The account can sign in with its password and comes back as the same player.
    let mut gateway = anonymous(&ludus).await;
    let again = answer(gateway.sign_in(sign_in("gil", "correct horse battery")))
        .await
        .expect("sign in");
    assert_eq!(again.account.expect("account").player_id, guest.id);

    // An account cannot upgrade again; a guest has no profile to update.
    let twice = answer(gil.client.upgrade_guest(upgrade("gil_two")))
        .await
        .unwrap_err();
    assert_eq!(twice.code(), Code::FailedPrecondition);
    let mut other = ludus.player("Other").await;
    let no_profile = answer(other.client.update_profile(rename("X")))
        .await
        .unwrap_err();
    assert_eq!(no_profile.code(), Code::FailedPrecondition);
    let not_found = other.own_profile(&[]).await.unwrap_err();
    assert_eq!(not_found.code(), Code::NotFound, "guests have no profile");
    let renamed = answer(gil.client.update_profile(rename("Gil the Great")))
        .await
        .expect("rename");
    assert_eq!(renamed.display_name, "Gil the Great");
    ludus.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_sign_in_limits_stop_one_attacker_and_not_others() {
    let limits = SignInLimitsConfig {
        guess_burst: 3,
        guess_period: Duration::from_secs(3600),
        address_burst: 5,
        address_period: Duration::from_secs(3600),
        // The one guesser below takes 4 of these, the four machines the rest and one more.
        username_burst: 6,
        username_period: Duration::from_secs(3600),
    };
    let ludus = Ludus::start_with_accounts(AccountsDatabase::sqlite(), limits).await;
    let mut me = anonymous(&ludus).await;
    for name in ["victim", "bystander"] {
        answer(me.register(register(name, "correct horse battery", name)))
            .await
            .expect("register");
    }
    // One attacker machine sprays guesses over many usernames: its address is stopped.
    let attacker_ip = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 66));
    let mut attacker = anonymous_from(ludus.gateway, attacker_ip).await;
    for i in 0..5 {
        let refused = answer(attacker.sign_in(sign_in(&format!("target_{i}"), "guess guess")))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::Unauthenticated);
        assert_eq!(reason(&refused).0, "WRONG_CREDENTIALS");
    }
    let _ = attacker.sign_in(sign_in("target_5", "guess guess")).await;
    let stopped = answer(attacker.sign_in(sign_in("victim", "correct horse battery")))
        .await
        .unwrap_err();
    assert_eq!(stopped.code(), Code::ResourceExhausted);
    assert_eq!(reason(&stopped).0, "SIGN_IN_LOCKED");
    assert_mentions(&stopped, "per-address");
    answer(me.sign_in(sign_in("victim", "correct horse battery")))
        .await
        .expect("the victim, elsewhere, still signs in");

    // One machine guessing one known username's password locks itself out of it, not the
    // owner from another address (ARCHITECTURE.md, "Accounts").
    let guesser_at = IpAddr::V4(Ipv4Addr::new(127, 0, 2, 1));
    let mut guesser = anonymous_from(ludus.gateway, guesser_at).await;
    for _ in 0..4 {
        let _ = guesser.sign_in(sign_in("bystander", "guess guess")).await;
    }
    let locked = answer(guesser.sign_in(sign_in("bystander", "correct horse battery")))
        .await
        .unwrap_err();
    assert_eq!(locked.code(), Code::ResourceExhausted);
    assert_mentions(&locked, "per-username-and-address");
    let mut owner_away =
        anonymous_from(ludus.gateway, IpAddr::V4(Ipv4Addr::new(127, 0, 3, 1))).await;
    answer(owner_away.sign_in(sign_in("bystander", "correct horse battery")))
        .await
        .expect("the owner, at another address, signs in");

    // Many machines guessing one password trip the backstop: that username slows down for
    // new addresses, but not for one it signed in from, and nobody else slows down.
    for host in 10..14 {
        let mut guesser =
            anonymous_from(ludus.gateway, IpAddr::V4(Ipv4Addr::new(127, 0, 1, host))).await;
        let _ = guesser.sign_in(sign_in("bystander", "guess guess")).await;
    }
    let mut new_address =
        anonymous_from(ludus.gateway, IpAddr::V4(Ipv4Addr::new(127, 0, 4, 1))).await;
    let slowed = answer(new_address.sign_in(sign_in("bystander", "correct horse battery")))
        .await
        .unwrap_err();
    assert_eq!(slowed.code(), Code::ResourceExhausted);
    assert_mentions(&slowed, "per-username");
    answer(owner_away.sign_in(sign_in("bystander", "correct horse battery")))
        .await
        .expect("the owner's known address gets past the backstop");
    answer(me.sign_in(sign_in("victim", "correct horse battery")))
        .await
        .expect("other usernames are not slowed");
    ludus.shutdown().await;
}

#[derive(serde::Serialize)]
struct ForgedClaims {
    sub: String,
    name: String,
    exp: u64,
    iat: u64,
    kind: &'static str,
}

async fn call_with(ludus: &Ludus, token: &str) -> Status {
    let mut request = tonic::Request::new(pb::ListMyGamesRequest { limit: 1 });
    let bearer: MetadataValue<_> = format!("Bearer {token}").parse().expect("ascii");
    request.metadata_mut().insert("authorization", bearer);
    anonymous(ludus)
        .await
        .list_my_games(request)
        .await
        .expect_err("refused")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_and_expired_access_tokens_are_refused() {
    let ludus = Ludus::start_in_memory().await;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let sign = |secret: &[u8], exp: u64| {
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &ForgedClaims {
                sub: "a-victim".into(),
                name: "Victim".into(),
                exp,
                iat: now,
                kind: "account",
            },
            &jsonwebtoken::EncodingKey::from_secret(secret).expect("key"),
        )
        .expect("sign")
    };
    let forged = call_with(
        &ludus,
        &sign(b"not the server's secret, but 32+ bytes", now + 900),
    )
    .await;
    assert_eq!(forged.code(), Code::Unauthenticated);
    let expired = call_with(&ludus, &sign(TEST_SECRET, now - 3600)).await;
    assert_eq!(expired.code(), Code::Unauthenticated);
    assert_mentions(&expired, "expired");
    let garbage = answer(anonymous(&ludus).await.refresh(refresh(&"f".repeat(64))))
        .await
        .unwrap_err();
    assert_eq!(garbage.code(), Code::Unauthenticated);
    ludus.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_accounts_database_down_sign_in_is_unavailable_and_games_go_on() {
    let mut ludus =
        Ludus::start_with_accounts(AccountsDatabase::postgres(), SignInLimitsConfig::default())
            .await;
    let mut gateway = anonymous(&ludus).await;
    let registered = answer(gateway.register(register("dana", "correct horse battery", "Dana")))
        .await
        .expect("register");
    let mut dana = account_player(ludus.gateway, &registered).await;
    let mut guest = ludus.player("Gus").await;
    let game = ludus
        .create_game("", caro_settings(), &[&dana, &guest])
        .await;

    postgres(&mut ludus).stop().expect("stop postgres");
    let down = answer(gateway.sign_in(sign_in("dana", "correct horse battery")))
        .await
        .unwrap_err();
    assert_eq!(down.code(), Code::Unavailable, "{}", down.message());
    // Live games need Redis only: both players, account and guest, keep playing (C3 turns).
    dana.play(&game.game_id, "H8")
        .await
        .expect("the account plays on");
    guest
        .play(&game.game_id, "H9")
        .await
        .expect("the guest plays on");
    ludus.shutdown().await;
}

/// X plays D8..H8 (five in a row, C1), O answers on row 1.
async fn caro_x_wins(game: &str, x: &mut Player, o: &mut Player) {
    let o_moves = ["A1", "C1", "E1", "G1"];
    for (i, cell) in ["D8", "E8", "F8", "G8"].iter().enumerate() {
        x.play(game, cell).await.expect("x moves");
        o.play(game, o_moves[i]).await.expect("o moves");
    }
    x.play(game, "H8").await.expect("the winning move");
}

/// Quick-matches two players and returns (game, X, O).
async fn quick_match(mut a: Player, mut b: Player) -> (String, Player, Player) {
    let ((game_a, seat_a), (game_b, _)) =
        tokio::join!(a.find_match(caro_settings()), b.find_match(caro_settings()));
    assert_eq!(game_a, game_b);
    if seat_a == 0 {
        (game_a, a, b)
    } else {
        (game_a, b, a)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m12_rated_queues_are_for_accounts_and_guests_play_casual_unrated() {
    const RULESET: &str = "caro/15/blocked-ends";
    let ludus = Ludus::start().await;

    // A guest asking for a rated queue is refused, naming M12; nothing is queued.
    let mut guest = ludus.player("gus").await;
    let refused = guest
        .queue(caro_settings(), pb::MatchRanking::Rated)
        .await
        .expect_err("M12");
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(refused.message().contains("M12"), "{}", refused.message());
    assert_eq!(
        reason(&refused).0,
        "M12",
        "the rule id is the ErrorInfo reason"
    );

    // Guests play the casual twin of the queue (their default) by the same rules, unrated.
    let other_guest = ludus.player("gil").await;
    let (casual_game, mut gx, mut go) = quick_match(guest, other_guest).await;
    caro_x_wins(&casual_game, &mut gx, &mut go).await;

    // Two accounts play the rated queue (their default); their game reaches ratings after
    // the casual one finished, through the same outcome timers.
    let (rated_game, mut ax, mut ao) =
        quick_match(ludus.account("amy").await, ludus.account("abe").await).await;
    assert_ne!(rated_game, casual_game);
    caro_x_wins(&rated_game, &mut ax, &mut ao).await;
    let rating = ax.rating_after(RULESET, 1).await;
    assert!(rating.rating > 1200.0, "{}", rating.rating);

    // The casual game changed nobody's rating, and the leaderboard holds the accounts only.
    for guest in [&mut gx, &mut go] {
        let rating = guest.rating(RULESET).await;
        assert_eq!(
            (rating.rating, rating.games),
            (1200.0, 0),
            "casual is unrated"
        );
    }
    let board = ax.leaderboard(RULESET).await;
    let mut on_board: Vec<&str> = board.entries.iter().map(|e| e.player_id.as_str()).collect();
    on_board.sort_unstable();
    let mut accounts = vec![ax.id.as_str(), ao.id.as_str()];
    accounts.sort_unstable();
    assert_eq!(on_board, accounts, "M12: only accounts are ranked");

    // The rated game is on the winner's profile.
    let profile = ax.own_profile(&[RULESET]).await.expect("profile");
    assert_eq!(profile.rated_games, 1);
    assert!(profile.ratings[0].rating > 1200.0);
    ludus.shutdown().await;
}

/// Polls `check` until it returns `Some`, for at most a minute (the outcome timer re-fires
/// every visibility timeout, 10 s, while the database is down).
async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    // Three times the test's patience (a minute on an idle machine).
    let patience = 3 * ludus_tests::patience();
    let deadline = tokio::time::Instant::now() + patience;
    while tokio::time::Instant::now() < deadline {
        if let Some(found) = check().await {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("{what}: not within {patience:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_ending_while_the_database_is_down_is_archived_once_it_is_back_and_outlives_its_redis_keys()
 {
    // Finished games stay in Redis one second once archived.
    let mut ludus =
        Ludus::start_with_retention(AccountsDatabase::postgres(), Duration::from_secs(1)).await;
    let mut dana = ludus.account("Dana").await;
    let mut gus = ludus.player("Gus").await;
    let game = ludus
        .create_game("", caro_settings(), &[&dana, &gus])
        .await
        .game_id;

    postgres(&mut ludus).stop().expect("stop postgres");
    caro_x_wins(&game, &mut dana, &mut gus).await;
    // Not archived yet, so the live game is still readable (its keys wait for the archive).
    let snapshot = gus.game(&game).await;
    assert!(snapshot.outcome.is_some());
    // Its whole log as game-state serves it: the archive copies the stored events into the
    // record without decoding them (ludus_proto::archive_record), and must read back the same.
    let log = GameStateClient::new(connect_internal(ludus.game_state).await)
        .read_events(pb::ReadEventsRequest {
            game_id: game.clone(),
            after_seq: 0,
            limit: 0,
        })
        .await
        .expect("read the log")
        .into_inner()
        .events;

    postgres(&mut ludus)
        .start_again()
        .expect("start postgres again");
    // The outcome timer fires again and the archive takes the game.
    let archived = eventually("archived", || {
        let mut client = dana.client.clone();
        let game_id = game.clone();
        async move {
            client
                .get_archived_game(pb::GetArchivedGameRequest { game_id })
                .await
                .ok()
                .map(tonic::Response::into_inner)
        }
    })
    .await;
    // Then its Redis keys expire; the archive still has it.
    eventually("the live keys expired", || {
        let mut client = gus.client.clone();
        let game_id = game.clone();
        async move {
            match client.get_game(pb::GetGameRequest { game_id }).await {
                Err(status) if status.code() == Code::NotFound => Some(()),
                _ => None,
            }
        }
    })
    .await;
    let again = dana
        .client
        .get_archived_game(pb::GetArchivedGameRequest {
            game_id: game.clone(),
        })
        .await
        .expect("archived after the keys expired")
        .into_inner();
    assert_eq!(again, archived, "archived once, read back unchanged");
    assert_eq!(
        again.moves,
        ["D8", "A1", "E8", "C1", "F8", "E1", "G8", "G1", "H8"],
        "the move list in Caro notation"
    );
    let outcome = again.outcome.clone().expect("outcome");
    assert_eq!(outcome.winners, [0], "C1: X made five");
    assert_eq!(again.seats[0].player_id, dana.id);
    assert!(
        again.events.len() >= 10,
        "the event log: start and nine moves"
    );
    assert_eq!(
        again.events, log,
        "every event whole (views included), in order"
    );
    assert!(again.final_snapshot.is_some());
    assert!(
        again.export_text.contains("\n1. D8\n2. A1\n"),
        "{}",
        again.export_text
    );
    assert!(again.ended_at_unix_ms >= again.started_at_unix_ms);

    // Both players' histories list it; the profile counts come from the archive.
    for player in [&mut dana, &mut gus] {
        let page = player
            .client
            .list_player_games(pb::ListPlayerGamesRequest {
                player_id: String::new(),
                limit: 10,
                page_token: String::new(),
            })
            .await
            .expect("history")
            .into_inner();
        let ids: Vec<&str> = page.games.iter().map(|g| g.game_id.as_str()).collect();
        assert_eq!(ids, [game.as_str()]);
        assert!(
            page.games[0].moves.is_empty(),
            "the list leaves the moves out"
        );
        assert!(page.next_page_token.is_empty());
    }
    let profile = dana.own_profile(&[]).await.expect("profile");
    assert_eq!(
        (profile.games_played, profile.games_won, profile.games_drawn),
        (1, 1, 0)
    );
    ludus.shutdown().await;
}
