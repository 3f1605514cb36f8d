//! The terminal client's account commands end to end, driven through the library functions
//! `ludus register`, `login`, `play`, `history`, `profile` and `logout` call, against the
//! whole system on a real redis-server and a real PostgreSQL, with the session file in a
//! temp dir (never the real home).

use std::time::Duration;

use ludus_accounts::limits::SignInLimitsConfig;
use ludus_proto::pb::{self, gateway_client::GatewayClient};
use ludus_terminal::{
    account,
    saved_session::{self, SessionFile},
};
use ludus_tests::{AccountsDatabase, Ludus, caro_settings};
use tonic::Code;

const PASSWORD: &str = "correct horse battery";
const RULESET: &str = "caro/15/blocked-ends";

/// Waits for the terminal client's own quick-match stream to match.
async fn matched(client: &mut ludus_terminal::Client) -> (String, u32) {
    let updates = client
        .find_match(pb::FindMatchRequest {
            settings: Some(caro_settings()),
            ranking: pb::MatchRanking::Default as i32,
        })
        .await
        .expect("find match")
        .into_inner();
    ludus_tests::matched(updates).await
}

/// Plays `cell` with the terminal client's session at the game's current seq.
async fn play(client: &mut ludus_terminal::Client, game_id: &str, cell: &str) {
    let seq = ludus_terminal::get_game(client, game_id)
        .await
        .expect("get game")
        .seq;
    client
        .submit_action(pb::SubmitActionRequest {
            game_id: game_id.into(),
            expected_seq: seq,
            action_id: format!("terminal-{cell}"),
            action: Some(pb::Action::notation(cell)),
        })
        .await
        .expect("the move is accepted");
}

/// Whether `refresh_token` still opens a session.
async fn refresh_works(ludus: &Ludus, refresh_token: &str) -> Result<(), Code> {
    GatewayClient::new(ludus.channel().await)
        .refresh(pb::RefreshRequest {
            refresh_token: refresh_token.into(),
        })
        .await
        .map(drop)
        .map_err(|status| status.code())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_register_login_rotate_history_profile_logout() {
    // The assertions below read the client's English lines, whatever the machine's locale.
    ludus_terminal::set_lang(ludus_terminal::Lang::En);
    let ludus =
        Ludus::start_with_accounts(AccountsDatabase::postgres(), SignInLimitsConfig::default())
            .await;
    let server = format!("http://{}", ludus.gateway);
    let home = tempfile::tempdir().expect("temp dir");
    let file = SessionFile::in_dir(home.path().join("ludus"));

    // Nobody signed in: play signs in a guest, as before, and needs a name for it.
    let guest = saved_session::sign_in(&file, Some(&server), Some("gus"), false)
        .await
        .expect("a guest");
    assert!(!guest.account);
    assert!(
        saved_session::sign_in(&file, Some(&server), None, false)
            .await
            .is_err(),
        "a guest needs a name"
    );
    assert!(
        account::history_text(&file, Some(&server), None, 20, None)
            .await
            .is_err(),
        "history needs an account"
    );

    // register signs in and saves the session.
    let tess = account::register_with(&file, Some(&server), "Tess_term", PASSWORD, "Tess")
        .await
        .expect("register");
    assert_eq!(tess.username, "tess_term");
    let registered = file.load().expect("readable").expect("register saves it");
    assert_eq!(
        (registered.server.as_str(), registered.player_id.as_str()),
        (server.as_str(), tess.player_id.as_str())
    );

    // A wrong password says why (the server's message) and keeps the saved session.
    let refused = account::login_with(&file, Some(&server), "tess_term", "not the password")
        .await
        .expect_err("a wrong password");
    assert!(
        format!("{refused:#}").starts_with("cannot sign in: "),
        "{refused:#}"
    );
    assert_eq!(file.load().expect("readable"), Some(registered.clone()));

    // login saves a new session and ends the one it replaces.
    account::login_with(&file, None, "TESS_term", PASSWORD)
        .await
        .expect("login");
    let logged_in = file.load().expect("readable").expect("login saves it");
    assert_ne!(logged_in.refresh_token, registered.refresh_token);
    assert_eq!(logged_in.player_id, tess.player_id);
    assert_eq!(
        refresh_works(&ludus, &registered.refresh_token).await,
        Err(Code::Unauthenticated),
        "the replaced session was signed out"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(file.path())
            .expect("file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "only the user reads the token");
    }

    // play's sign-in resumes the account: Refresh rotates the saved token before use.
    let mut me = saved_session::sign_in(&file, None, Some("ignored"), false)
        .await
        .expect("resume the saved session");
    assert!(me.account);
    assert_eq!(
        (me.player_id.as_str(), me.name.as_str()),
        (tess.player_id.as_str(), "Tess")
    );
    let rotated = file.load().expect("readable").expect("still saved");
    assert_ne!(rotated.refresh_token, logged_in.refresh_token, "rotated");
    assert_eq!(rotated.player_id, logged_in.player_id);

    // The account plays a rated quick match with that session, and resigns after a move each.
    let mut otto = ludus.account("Otto").await;
    let ((game_id, seat), (other_game, _)) =
        tokio::join!(matched(&mut me.client), otto.find_match(caro_settings()));
    assert_eq!(game_id, other_game);
    if seat == 0 {
        play(&mut me.client, &game_id, "H8").await;
        otto.play(&game_id, "I8").await.expect("otto moves");
    } else {
        otto.play(&game_id, "H8").await.expect("otto moves");
        play(&mut me.client, &game_id, "I8").await;
    }
    me.client
        .resign(pb::ResignRequest {
            game_id: game_id.clone(),
        })
        .await
        .expect("resign");
    // The archive and then ratings follow the outcome through a durable timer, which re-fires
    // after 10 s when a delivery fails (as it may on a loaded machine): wait for the archive
    // for up to a minute, then for the rating.
    let mut archived = false;
    for _ in 0..240 {
        let page = me
            .client
            .list_player_games(pb::ListPlayerGamesRequest::default())
            .await
            .expect("list")
            .into_inner();
        if !page.games.is_empty() {
            archived = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(archived, "the game reached the archive within a minute");
    otto.rating_after(RULESET, 1).await;

    // history lists it from Tess's side; --game prints its notation export.
    let history = account::history_text(&file, None, None, 20, None)
        .await
        .expect("history");
    let row = history
        .lines()
        .find(|line| line.contains(&game_id))
        .unwrap_or_else(|| panic!("the game is listed:\n{history}"));
    assert!(row.contains(RULESET) && row.contains(&otto.name), "{row}");
    assert!(row.contains("lost (C14)"), "{row}");
    let shown = account::archived_game_text(&file, None, &game_id)
        .await
        .expect("one game");
    assert!(shown.contains("1. H8\n2. I8"), "{shown}");

    // profile: Tess's own, and Otto's by player id.
    let profile = account::profile_text(&file, None, None, &[])
        .await
        .expect("profile");
    assert!(
        profile.starts_with("Tess (tess_term), player "),
        "{profile}"
    );
    assert!(
        profile.contains("games: 1 played, 0 won, 0 drawn"),
        "{profile}"
    );
    let pool = profile
        .lines()
        .find(|line| line.starts_with(RULESET))
        .unwrap_or_else(|| panic!("the pool of the rated game:\n{profile}"));
    let rating: f64 = pool
        .split_whitespace()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("a rating: {pool}"));
    assert!(rating < 1200.0, "the loss cost rating: {pool}");
    let otto_profile = account::profile_text(&file, None, Some(&otto.id), &[])
        .await
        .expect("another player's profile");
    assert!(
        otto_profile.contains("games: 1 played, 1 won, 0 drawn"),
        "{otto_profile}"
    );

    // logout ends the session on the server and removes the file.
    let latest = file.load().expect("readable").expect("still saved");
    assert_eq!(
        saved_session::sign_out(&file)
            .await
            .expect("logout")
            .as_deref(),
        Some("tess_term")
    );
    assert!(!file.path().exists(), "the token is gone from disk");
    assert_eq!(
        refresh_works(&ludus, &latest.refresh_token).await,
        Err(Code::Unauthenticated),
        "signed out on the server too"
    );
    ludus.shutdown().await;
}
