//! The store conformance suite: every behaviour the service relies on, run against SQLite
//! and PostgreSQL alike (`tests/conformance.rs`). Each check uses its own usernames and
//! player ids, so one database serves the whole suite.

use crate::model::{Account, RefreshToken, Username};
use crate::store::{AccountStore, NewSession, Rotation, StoreError};

const HOUR_MS: i64 = 3_600_000;

fn account(player_id: &str, username: &str) -> Account {
    Account {
        player_id: player_id.into(),
        username: Username::parse(username).expect("valid username"),
        display_name: format!("{username} display"),
        created_at_ms: 1_000,
    }
}

fn session(now_ms: i64, ttl_ms: i64) -> (RefreshToken, NewSession) {
    let token = RefreshToken::generate();
    let session = NewSession {
        family_id: ulid::Ulid::generate().to_string(),
        token: token.digest(),
        now_ms,
        expires_at_ms: now_ms + ttl_ms,
    };
    (token, session)
}

/// Creates the account `player_id`/`username` (password hash "h") signed in at 1_000 for an
/// hour, as most checks start; the session's refresh token.
async fn registered(store: &AccountStore, player_id: &str, username: &str) -> RefreshToken {
    let (token, first) = session(1_000, HOUR_MS);
    store
        .create_account(&account(player_id, username), "h", &first)
        .await
        .expect("create");
    token
}

/// Presents `from` at `now_ms` for `to`, valid for an hour: how every check rotates.
async fn rotate(
    store: &AccountStore,
    from: &RefreshToken,
    to: &RefreshToken,
    now_ms: i64,
) -> Rotation {
    store
        .rotate(&from.digest(), &to.digest(), now_ms, now_ms + HOUR_MS)
        .await
        .expect("rotate")
}

/// Runs every check against `store` (a freshly migrated, empty database).
pub async fn run_all(store: &AccountStore) {
    store.ping().await.expect("ping");
    accounts_are_found_by_username_and_player_id(store).await;
    a_taken_username_is_refused_whatever_its_case(store).await;
    a_player_id_gets_one_account(store).await;
    a_refresh_token_rotates_once(store).await;
    reuse_revokes_the_family_and_only_it(store).await;
    unknown_and_expired_tokens_change_nothing(store).await;
    sign_out_revokes_the_family(store).await;
    display_names_change(store).await;
    concurrent_presentations_rotate_exactly_once(store).await;
    the_archive_stores_a_game_once_and_pages_newest_first(store).await;
    a_batch_of_game_ends_is_archived_in_one_go_each_game_once(store).await;
}

fn archived(game_id: &str, ended_at_ms: i64) -> ludus_proto::pb::ArchivedGame {
    ludus_proto::pb::ArchivedGame {
        game_id: game_id.into(),
        ruleset: "caro/15/blocked-ends".into(),
        started_at_unix_ms: ended_at_ms - 10,
        ended_at_unix_ms: ended_at_ms,
        moves: vec!["H8".into()],
        ..Default::default()
    }
}

async fn the_archive_stores_a_game_once_and_pages_newest_first(store: &AccountStore) {
    use crate::archive::{PageCursor, SeatResult, decode_record};
    let seats = |result_0, result_1| {
        vec![
            (0, "p-conf-ann".to_owned(), result_0),
            (1, "p-conf-bob".to_owned(), result_1),
        ]
    };
    // Three games; the two with the same end time are ordered by id.
    for (id, ended, results) in [
        ("conf-g1", 1_000, seats(SeatResult::Won, SeatResult::Lost)),
        (
            "conf-g2",
            2_000,
            seats(SeatResult::Drawn, SeatResult::Drawn),
        ),
        ("conf-g3", 2_000, seats(SeatResult::Lost, SeatResult::Won)),
    ] {
        assert!(
            store
                .record_game(&archived(id, ended), &results)
                .await
                .expect("record")
        );
    }
    // At least once, stored once: a repeat changes nothing.
    let mut changed = archived("conf-g1", 1_000);
    changed.moves.push("H9".into());
    assert!(
        !store
            .record_game(&changed, &seats(SeatResult::Lost, SeatResult::Won))
            .await
            .expect("repeat")
    );
    let stored = store
        .archived_game("conf-g1")
        .await
        .expect("read")
        .expect("archived");
    assert_eq!(
        decode_record(&stored).expect("decodes"),
        archived("conf-g1", 1_000)
    );
    assert_eq!(store.archived_game("conf-none").await.expect("read"), None);

    let first = store
        .player_games("p-conf-ann", None, 2)
        .await
        .expect("page 1");
    let ids: Vec<&str> = first.iter().map(|(c, _)| c.game_id.as_str()).collect();
    assert_eq!(ids, ["conf-g3", "conf-g2"], "newest first, then by id");
    let after: &PageCursor = &first[1].0;
    let second = store
        .player_games("p-conf-ann", Some(after), 2)
        .await
        .expect("page 2");
    let ids: Vec<&str> = second.iter().map(|(c, _)| c.game_id.as_str()).collect();
    assert_eq!(ids, ["conf-g1"]);
    assert_eq!(
        store.game_counts("p-conf-ann").await.expect("counts"),
        (3, 1, 1)
    );
    assert_eq!(
        store.game_counts("p-conf-bob").await.expect("counts"),
        (3, 1, 1)
    );
    assert_eq!(
        store.game_counts("p-conf-nobody").await.expect("counts"),
        (0, 0, 0)
    );
}

/// ARCHITECTURE.md, "The archive": game ends are written in batches, one transaction each;
/// a redelivered batch (its outcome timers fired again) stores nothing twice, and a batch
/// mixing archived and new games stores the new ones.
async fn a_batch_of_game_ends_is_archived_in_one_go_each_game_once(store: &AccountStore) {
    use crate::archive::SeatResult;
    let won = [
        (0, "p-batch-cy".to_owned(), SeatResult::Won),
        (1, "p-batch-di".to_owned(), SeatResult::Lost),
    ];
    let drawn = [
        (0, "p-batch-cy".to_owned(), SeatResult::Drawn),
        (1, "p-batch-di".to_owned(), SeatResult::Drawn),
    ];
    let (g1, g2, g3) = (
        archived("batch-g1", 5_000),
        archived("batch-g2", 5_001),
        archived("batch-g3", 5_002),
    );
    let encoded = |game: &ludus_proto::pb::ArchivedGame| {
        (
            crate::archive::head_of(game),
            prost::Message::encode_to_vec(game),
        )
    };
    let ((h1, r1), (h2, r2), (h3, r3)) = (encoded(&g1), encoded(&g2), encoded(&g3));
    let first = [(&h1, &r1[..], &won[..]), (&h2, &r2[..], &drawn[..])];
    assert_eq!(
        store.record_games(&first).await.expect("batch"),
        [true, true]
    );
    assert_eq!(
        store.record_games(&first).await.expect("redelivered"),
        [false, false],
        "at least once, stored once"
    );
    let mixed = [(&h2, &r2[..], &drawn[..]), (&h3, &r3[..], &won[..])];
    assert_eq!(
        store.record_games(&mixed).await.expect("mixed"),
        [false, true]
    );
    assert_eq!(store.record_games(&[]).await.expect("empty"), [false; 0]);
    // A game named twice in one batch (its timer fired again while the batch formed): stored
    // by its first entry, its seats once.
    let g4 = archived("batch-g4", 5_003);
    let (h4, r4) = encoded(&g4);
    let twice = [(&h4, &r4[..], &won[..]), (&h4, &r4[..], &won[..])];
    assert_eq!(
        store.record_games(&twice).await.expect("twice"),
        [true, false]
    );
    assert_eq!(
        store.game_counts("p-batch-cy").await.expect("counts"),
        (4, 3, 1),
        "one row per seat of each game, none twice"
    );
    let page = store
        .player_games("p-batch-di", None, 10)
        .await
        .expect("history");
    let ids: Vec<&str> = page.iter().map(|(c, _)| c.game_id.as_str()).collect();
    assert_eq!(ids, ["batch-g4", "batch-g3", "batch-g2", "batch-g1"]);

    // More games than one INSERT carries (`ARCHIVE_ROWS_PER_STATEMENT`), some archived
    // before: every new one stored with its seats, each answer in its game's place.
    let count = crate::store::ARCHIVE_ROWS_PER_STATEMENT + 7;
    let games: Vec<_> = (0..count)
        .map(|i| encoded(&archived(&format!("bulk-g{i}"), 6_000 + i as i64)))
        .collect();
    let seats = [
        (0, "p-bulk-ed".to_owned(), SeatResult::Won),
        (1, "p-bulk-fi".to_owned(), SeatResult::Lost),
    ];
    let early: Vec<_> = games[..3]
        .iter()
        .map(|(h, r)| (h, &r[..], &seats[..]))
        .collect();
    store.record_games(&early).await.expect("early");
    let all: Vec<_> = games.iter().map(|(h, r)| (h, &r[..], &seats[..])).collect();
    let stored = store.record_games(&all).await.expect("bulk");
    let expected: Vec<bool> = (0..count).map(|i| i >= 3).collect();
    assert_eq!(stored, expected);
    assert_eq!(
        store.game_counts("p-bulk-ed").await.expect("counts"),
        (count as u32, count as u32, 0)
    );
    let newest = store
        .player_games("p-bulk-fi", None, 1)
        .await
        .expect("history");
    assert_eq!(newest[0].0.game_id, format!("bulk-g{}", count - 1));
}

async fn accounts_are_found_by_username_and_player_id(store: &AccountStore) {
    let ann = account("a-conf-ann", "conf_ann");
    let (_, first) = session(1_000, HOUR_MS);
    store
        .create_account(&ann, "$argon2id$hash-of-ann", &first)
        .await
        .expect("create");
    let found = store
        .credentials(&Username::parse("CONF_Ann").expect("valid"))
        .await
        .expect("read")
        .expect("registered");
    assert_eq!(found.account, ann);
    assert_eq!(found.password_hash, "$argon2id$hash-of-ann");
    assert_eq!(store.account("a-conf-ann").await.expect("read"), Some(ann));
    assert_eq!(store.account("a-nobody").await.expect("read"), None);
    assert!(
        store
            .credentials(&Username::parse("conf_nobody").expect("valid"))
            .await
            .expect("read")
            .is_none()
    );
}

async fn a_taken_username_is_refused_whatever_its_case(store: &AccountStore) {
    registered(store, "a-conf-bob", "conf_bob").await;
    let (_, second) = session(1_000, HOUR_MS);
    let clash = store
        .create_account(&account("a-conf-bob2", "CONF_BOB"), "h2", &second)
        .await;
    assert!(matches!(clash, Err(StoreError::UsernameTaken)), "{clash:?}");
    assert_eq!(
        store.account("a-conf-bob2").await.expect("read"),
        None,
        "nothing stored"
    );
}

async fn a_player_id_gets_one_account(store: &AccountStore) {
    registered(store, "g-conf-guest", "conf_guest").await;
    let (_, second) = session(1_000, HOUR_MS);
    let clash = store
        .create_account(&account("g-conf-guest", "conf_guest_two"), "h", &second)
        .await;
    assert!(
        matches!(clash, Err(StoreError::PlayerTaken(_))),
        "{clash:?}"
    );
    assert!(
        store
            .credentials(&Username::parse("conf_guest_two").expect("valid"))
            .await
            .expect("read")
            .is_none(),
        "nothing stored"
    );
}

async fn a_refresh_token_rotates_once(store: &AccountStore) {
    let first_token = registered(store, "a-conf-rot", "conf_rot").await;
    let second = RefreshToken::generate();
    let rotation = rotate(store, &first_token, &second, 2_000).await;
    assert_eq!(
        rotation,
        Rotation::Rotated {
            player_id: "a-conf-rot".into()
        }
    );
    let third = RefreshToken::generate();
    let rotation = rotate(store, &second, &third, 3_000).await;
    assert_eq!(
        rotation,
        Rotation::Rotated {
            player_id: "a-conf-rot".into()
        }
    );
}

async fn reuse_revokes_the_family_and_only_it(store: &AccountStore) {
    let stolen = registered(store, "a-conf-reuse", "conf_reuse").await;
    let (other_device, other) = session(1_000, HOUR_MS);
    store
        .open_session("a-conf-reuse", &other)
        .await
        .expect("second sign-in");

    let next = RefreshToken::generate();
    rotate(store, &stolen, &next, 2_000).await;
    let replay = rotate(store, &stolen, &RefreshToken::generate(), 3_000).await;
    assert_eq!(replay, Rotation::Reused);
    let after = rotate(store, &next, &RefreshToken::generate(), 4_000).await;
    assert_eq!(
        after,
        Rotation::Revoked,
        "the family's newest token died with it"
    );
    let elsewhere = rotate(store, &other_device, &RefreshToken::generate(), 4_000).await;
    assert!(
        matches!(elsewhere, Rotation::Rotated { .. }),
        "another sign-in's family is untouched: {elsewhere:?}"
    );
}

async fn unknown_and_expired_tokens_change_nothing(store: &AccountStore) {
    let unknown = store
        .rotate(
            &RefreshToken::generate().digest(),
            &RefreshToken::generate().digest(),
            1_000,
            HOUR_MS,
        )
        .await
        .expect("rotate");
    assert_eq!(unknown, Rotation::Unknown);

    let (short, first) = session(1_000, 10);
    store
        .create_account(&account("a-conf-exp", "conf_exp"), "h", &first)
        .await
        .expect("create");
    let next = RefreshToken::generate();
    let expired = rotate(store, &short, &next, 2_000).await;
    assert_eq!(expired, Rotation::Expired);
    let next_is_unknown = rotate(store, &next, &RefreshToken::generate(), 2_000).await;
    assert_eq!(
        next_is_unknown,
        Rotation::Unknown,
        "an expired token issued nothing"
    );
}

async fn sign_out_revokes_the_family(store: &AccountStore) {
    let token = registered(store, "a-conf-out", "conf_out").await;
    assert_eq!(
        store
            .revoke_family_of(&token.digest(), 2_000)
            .await
            .expect("revoke"),
        Some("a-conf-out".into())
    );
    assert_eq!(
        store
            .revoke_family_of(&token.digest(), 3_000)
            .await
            .expect("revoke again"),
        Some("a-conf-out".into()),
        "signing out twice is harmless"
    );
    let rotation = rotate(store, &token, &RefreshToken::generate(), 3_000).await;
    assert_eq!(rotation, Rotation::Revoked);
    assert_eq!(
        store
            .revoke_family_of(&RefreshToken::generate().digest(), 3_000)
            .await
            .expect("revoke"),
        None
    );
}

async fn display_names_change(store: &AccountStore) {
    registered(store, "a-conf-name", "conf_name").await;
    let updated = store
        .set_display_name("a-conf-name", "Renamed ✓")
        .await
        .expect("update")
        .expect("exists");
    assert_eq!(updated.display_name, "Renamed ✓");
    assert_eq!(
        store
            .account("a-conf-name")
            .await
            .expect("read")
            .map(|a| a.display_name),
        Some("Renamed ✓".into())
    );
    assert_eq!(
        store
            .set_display_name("a-nobody", "x")
            .await
            .expect("update"),
        None
    );
}

async fn concurrent_presentations_rotate_exactly_once(store: &AccountStore) {
    let token = registered(store, "a-conf-race", "conf_race").await;
    let presentations = (0..4).map(|i| {
        let store = store.clone();
        let digest = token.digest();
        tokio::spawn(async move {
            store
                .rotate(
                    &digest,
                    &RefreshToken::generate().digest(),
                    2_000 + i,
                    2_000 + HOUR_MS,
                )
                .await
        })
    });
    let mut rotated = 0;
    for presentation in presentations.collect::<Vec<_>>() {
        match presentation.await.expect("task").expect("rotate") {
            Rotation::Rotated { .. } => rotated += 1,
            Rotation::Reused | Rotation::Revoked => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(rotated, 1, "exactly one presentation spends the token");
}
