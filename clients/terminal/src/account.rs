//! The account commands: `ludus register`, `login`, `logout`, `history` and `profile`.
//!
//! Each command is an entry point that reads the password (when it needs one) and prints,
//! over a function that takes its inputs and returns text, so tests drive the same code with
//! a session file in a temp dir. Tokens stay in `saved_session`.

use std::io::{BufRead as _, IsTerminal as _};

use anyhow::Context as _;
use ludus_proto::pb::{self, gateway_client::GatewayClient};

use super::ServerFlag;
use super::i18n::{tr, trf};
use super::saved_session::{self, SessionFile};
use super::session::{self, Session, describe};

/// Rating pools one profile asks for (the gateway's limit).
const MAX_PROFILE_POOLS: usize = 32;
/// How many recent games are looked at to find the pools a profile shows.
const POOL_SCAN: u32 = 100;
/// The guest name used to read another player's public data without an account.
const VISITOR: &str = "visitor";

/// `ludus register`: create an account and stay signed in.
#[derive(clap::Args, Debug)]
pub struct RegisterArgs {
    #[command(flatten)]
    pub server: ServerFlag,
    /// The username: 3 to 24 of a-z, 0-9 and _.
    pub username: String,
    /// The name shown to others (default: the username).
    #[arg(long)]
    pub display_name: Option<String>,
}

/// `ludus login`: sign in and save the session for later commands.
#[derive(clap::Args, Debug)]
pub struct LoginArgs {
    #[command(flatten)]
    pub server: ServerFlag,
    /// The username.
    pub username: String,
}

/// `ludus history`: your finished games, newest first, or one of them in full.
#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub server: ServerFlag,
    /// Another player's games (a player id) instead of your own.
    #[arg(long)]
    pub player: Option<String>,
    /// Games per page (at most 100).
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// The page after the previous one (the token it printed).
    #[arg(long)]
    pub page: Option<String>,
    /// Print this game's move list (its standard text export) instead of the list.
    #[arg(long)]
    pub game: Option<String>,
}

/// `ludus profile`: a player's name, ratings and results.
#[derive(clap::Args, Debug)]
pub struct ProfileArgs {
    #[command(flatten)]
    pub server: ServerFlag,
    /// The player id (default: you).
    pub player: Option<String>,
    /// Also show the rating in this pool (e.g. caro/15/blocked-ends); repeatable. Without it,
    /// the pools of the player's recent rated games.
    #[arg(long)]
    pub ruleset: Vec<String>,
}

/// Reads a password: without echo from a terminal, else one line of standard input (so
/// scripts can pipe it in).
fn read_password(prompt: &str) -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        return rpassword::prompt_password(prompt).context(tr("account.cannotReadPassword"));
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context(tr("account.cannotReadPasswordStdin"))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// `ludus register`.
pub async fn register(args: RegisterArgs) -> anyhow::Result<()> {
    let password = read_password(tr("account.passwordPrompt"))?;
    // A typo in a password nobody saw would lock the account out at once.
    if std::io::stdin().is_terminal() && read_password(tr("account.passwordAgain"))? != password {
        anyhow::bail!(tr("account.passwordsDiffer"));
    }
    let file = SessionFile::default_location()?;
    let display_name = args.display_name.as_deref().unwrap_or(&args.username);
    let account = register_with(
        &file,
        args.server.address(),
        &args.username,
        &password,
        display_name,
    )
    .await?;
    println!(
        "{}",
        trf(
            "account.registered",
            &[
                ("username", &account.username),
                ("name", &account.display_name),
                ("id", &account.player_id)
            ]
        )
    );
    Ok(())
}

/// Registers an account on `server` and saves its session in `file`.
pub async fn register_with(
    file: &SessionFile,
    server: Option<&str>,
    username: &str,
    password: &str,
    display_name: &str,
) -> anyhow::Result<pb::Account> {
    let request = pb::RegisterRequest {
        username: username.to_owned(),
        password: password.to_owned(),
        display_name: display_name.to_owned(),
    };
    open_session(file, server, tr("account.register"), async |mut gateway| {
        gateway.register(request).await
    })
    .await
}

/// `ludus login`.
pub async fn login(args: LoginArgs) -> anyhow::Result<()> {
    let password = read_password(&trf("account.passwordFor", &[("username", &args.username)]))?;
    let file = SessionFile::default_location()?;
    let account = login_with(&file, args.server.address(), &args.username, &password).await?;
    println!(
        "{}",
        trf(
            "account.signedIn",
            &[
                ("username", &account.username),
                ("name", &account.display_name),
                ("path", &file.path().display())
            ]
        )
    );
    Ok(())
}

/// Signs in on `server` and saves the session in `file`.
pub async fn login_with(
    file: &SessionFile,
    server: Option<&str>,
    username: &str,
    password: &str,
) -> anyhow::Result<pb::Account> {
    let request = pb::SignInRequest {
        username: username.to_owned(),
        password: password.to_owned(),
    };
    open_session(file, server, tr("account.signIn"), async |mut gateway| {
        gateway.sign_in(request).await
    })
    .await
}

/// Opens a session on `server` (default: the saved session's, else the local server) with
/// `open` (`what` names it in the error), then saves it in `file` in place of the one saved
/// before: registering and signing in differ only in their call.
async fn open_session(
    file: &SessionFile,
    server: Option<&str>,
    what: &str,
    open: impl AsyncFnOnce(
        GatewayClient<tonic::transport::Channel>,
    ) -> Result<tonic::Response<pb::AccountSession>, tonic::Status>,
) -> anyhow::Result<pb::Account> {
    // A damaged file must not stop anyone from signing in again: it is replaced.
    let (server, _) = saved_session::choose_server(server, file.load().ok().flatten());
    let opened = open(GatewayClient::new(session::connect(&server).await?))
        .await
        .map_err(|status| {
            anyhow::anyhow!(trf(
                "account.cannot",
                &[("what", &what), ("reason", &describe(&status))]
            ))
        })?
        .into_inner();
    replace_saved(file, &server, &opened).await
}

/// Saves a newly opened session, ending the one saved before (if any) so no live refresh
/// token is left behind unreferenced.
async fn replace_saved(
    file: &SessionFile,
    server: &str,
    opened: &pb::AccountSession,
) -> anyhow::Result<pb::Account> {
    if let Ok(Some(_)) = file.load() {
        // The new session is open either way; the old one expires on its own if this fails.
        if let Err(error) = saved_session::sign_out(file).await {
            tracing::debug!("ending the previous session: {error:#}");
        }
    }
    saved_session::save_new(file, server, opened)
}

/// `ludus logout`.
pub async fn logout() -> anyhow::Result<()> {
    let file = SessionFile::default_location()?;
    match saved_session::sign_out(&file).await? {
        Some(username) => println!("{}", trf("account.signedOut", &[("username", &username)])),
        None => println!("{}", tr("account.notSignedIn")),
    }
    Ok(())
}

/// The saved account on `server`; without one, a guest when only public data is wanted
/// (`public`), else an error saying to sign in.
async fn signed_in(
    file: &SessionFile,
    server: Option<&str>,
    public: bool,
) -> anyhow::Result<Session> {
    let (server, saved) = saved_session::choose_server(server, file.load()?);
    match saved {
        Some(saved) => saved_session::resume(file, &saved).await,
        None if public => session::sign_in(&server, VISITOR).await,
        None => anyhow::bail!(trf("account.notSignedInOn", &[("server", &server)])),
    }
}

/// `ludus history`.
pub async fn history(args: HistoryArgs) -> anyhow::Result<()> {
    let file = SessionFile::default_location()?;
    let text = match &args.game {
        Some(game_id) => archived_game_text(&file, args.server.address(), game_id).await?,
        None => {
            history_text(
                &file,
                args.server.address(),
                args.player.as_deref(),
                args.limit,
                args.page.as_deref(),
            )
            .await?
        }
    };
    print!("{text}");
    Ok(())
}

/// One page of a player's finished games (the signed-in player's without `player`) as a
/// table, newest first, with how to get the next page.
pub async fn history_text(
    file: &SessionFile,
    server: Option<&str>,
    player: Option<&str>,
    limit: u32,
    page: Option<&str>,
) -> anyhow::Result<String> {
    let (_, player_id, page) = player_games(file, server, player, limit, page).await?;
    Ok(history_table(&page, &player_id))
}

/// One page of `player`'s finished games (the signed-in player's without `player`), newest
/// first: what `history` lists and where `profile` finds the pools a player plays in. With
/// the client, for a further call, and whose games they are.
async fn player_games(
    file: &SessionFile,
    server: Option<&str>,
    player: Option<&str>,
    limit: u32,
    page: Option<&str>,
) -> anyhow::Result<(session::Client, String, pb::ListPlayerGamesResponse)> {
    let Session {
        mut client,
        player_id: me,
        ..
    } = signed_in(file, server, player.is_some()).await?;
    let player_id = player.map_or(me, str::to_owned);
    let page = client
        .list_player_games(pb::ListPlayerGamesRequest {
            player_id: player_id.clone(),
            limit,
            page_token: page.unwrap_or_default().to_owned(),
        })
        .await
        .map_err(|status| {
            anyhow::anyhow!(trf(
                "account.cannotListGames",
                &[("reason", &describe(&status))]
            ))
        })?
        .into_inner();
    Ok((client, player_id, page))
}

/// The games of a page as a table from `player_id`'s side.
fn history_table(page: &pb::ListPlayerGamesResponse, player_id: &str) -> String {
    if page.games.is_empty() {
        return tr("history.none").to_owned();
    }
    let mut rows = vec![[
        tr("history.ended").to_owned(),
        tr("history.game").to_owned(),
        tr("history.against").to_owned(),
        tr("history.result").to_owned(),
        tr("history.id").to_owned(),
    ]];
    rows.extend(page.games.iter().map(|game| {
        let pool = if game.casual {
            trf("history.casualPool", &[("pool", &game.ruleset)])
        } else {
            game.ruleset.clone()
        };
        [
            utc_minute(game.ended_at_unix_ms),
            pool,
            opponents(&game.seats, player_id),
            result_for(game, player_id),
            game.game_id.clone(),
        ]
    }));
    let mut text = aligned(&rows);
    if !page.next_page_token.is_empty() {
        text.push_str(&trf("history.older", &[("token", &page.next_page_token)]));
    }
    text
}

/// The other players' names, or `-` in a game played alone.
fn opponents(seats: &[pb::SeatInfo], player_id: &str) -> String {
    let names: Vec<&str> = seats
        .iter()
        .filter(|seat| seat.player_id != player_id)
        .map(|seat| seat.display_name.as_str())
        .collect();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(", ")
    }
}

/// How the game ended for `player_id`: won, lost, drawn or cancelled, with the rule that
/// ended it (e.g. "lost (C14)").
fn result_for(game: &pb::ArchivedGame, player_id: &str) -> String {
    let Some(outcome) = &game.outcome else {
        return "?".to_owned();
    };
    let seat = game
        .seats
        .iter()
        .find(|seat| seat.player_id == player_id)
        .map(|seat| seat.seat);
    let word = match pb::ResultKind::try_from(outcome.kind) {
        Ok(pb::ResultKind::Draw) => tr("history.drawn"),
        Ok(pb::ResultKind::Cancelled) => tr("history.cancelled"),
        Ok(pb::ResultKind::Win) => match seat {
            Some(seat) if outcome.winners.contains(&seat) => tr("history.won"),
            Some(_) => tr("history.lost"),
            None => tr("history.finished"),
        },
        Ok(pb::ResultKind::Unspecified) | Err(_) => "?",
    };
    if outcome.rule.is_empty() {
        word.to_owned()
    } else {
        format!("{word} ({})", outcome.rule)
    }
}

/// Rows as left-aligned columns two spaces apart.
fn aligned<const N: usize>(rows: &[[String; N]]) -> String {
    let mut widths = [0; N];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:width$}"))
            .collect();
        text.push_str(line.join("  ").trim_end());
        text.push('\n');
    }
    text
}

/// One archived game: who played, how it ended, and its standard text export.
pub async fn archived_game_text(
    file: &SessionFile,
    server: Option<&str>,
    game_id: &str,
) -> anyhow::Result<String> {
    let Session { mut client, .. } = signed_in(file, server, true).await?;
    let game = client
        .get_archived_game(pb::GetArchivedGameRequest {
            game_id: game_id.to_owned(),
        })
        .await
        .map_err(|status| {
            anyhow::anyhow!(trf(
                "account.cannotReadGame",
                &[("game", &game_id), ("reason", &describe(&status))]
            ))
        })?
        .into_inner();
    let players: Vec<String> = game
        .seats
        .iter()
        .map(|seat| {
            trf(
                "history.playerSeat",
                &[("name", &seat.display_name), ("seat", &seat.seat)],
            )
        })
        .collect();
    let pool = if game.casual {
        trf("history.casualPool", &[("pool", &game.ruleset)])
    } else {
        game.ruleset.clone()
    };
    let mut text = trf(
        "history.gameHeader",
        &[
            ("game", &game.game_id),
            ("pool", &pool),
            ("players", &players.join(tr("render.versus"))),
            ("started", &utc_minute(game.started_at_unix_ms)),
            ("ended", &utc_minute(game.ended_at_unix_ms)),
        ],
    );
    if let Some(outcome) = &game.outcome {
        text.push_str(&trf("history.reason", &[("reason", &outcome.reason)]));
    }
    text.push('\n');
    text.push_str(&game.export_text);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// `ludus profile`.
pub async fn profile(args: ProfileArgs) -> anyhow::Result<()> {
    let file = SessionFile::default_location()?;
    let text = profile_text(
        &file,
        args.server.address(),
        args.player.as_deref(),
        &args.ruleset,
    )
    .await?;
    print!("{text}");
    Ok(())
}

/// A player's profile (the signed-in player's without `player`): name, member since, results
/// counted in the archive, and the rating in each pool asked for plus the pools of their
/// recent rated games.
pub async fn profile_text(
    file: &SessionFile,
    server: Option<&str>,
    player: Option<&str>,
    rulesets: &[String],
) -> anyhow::Result<String> {
    let (mut client, player_id, recent) =
        player_games(file, server, player, POOL_SCAN, None).await?;
    let profile = client
        .get_profile(pb::GetProfileRequest {
            player_id,
            rulesets: rating_pools(rulesets, &recent.games),
        })
        .await
        .map_err(|status| {
            anyhow::anyhow!(trf(
                "account.cannotReadProfile",
                &[("reason", &describe(&status))]
            ))
        })?
        .into_inner();
    Ok(profile_lines(&profile))
}

/// The pools asked for, then those of recent rated games, each once, at most the gateway's
/// limit.
fn rating_pools(asked: &[String], recent: &[pb::ArchivedGame]) -> Vec<String> {
    let mut pools: Vec<String> = Vec::new();
    let rated = recent.iter().filter(|g| !g.casual).map(|g| &g.ruleset);
    for pool in asked.iter().chain(rated) {
        if !pool.is_empty() && !pools.contains(pool) && pools.len() < MAX_PROFILE_POOLS {
            pools.push(pool.clone());
        }
    }
    pools
}

/// The profile as text.
fn profile_lines(profile: &pb::Profile) -> String {
    let mut text = trf(
        "profile.header",
        &[
            ("name", &profile.display_name),
            ("username", &profile.username),
            ("id", &profile.player_id),
            ("since", &utc_date(profile.created_at_unix_ms)),
            ("played", &profile.games_played),
            ("won", &profile.games_won),
            ("drawn", &profile.games_drawn),
        ],
    );
    if profile.ratings.is_empty() {
        text.push_str(tr("profile.noRatings"));
        return text;
    }
    let mut rows = vec![[
        tr("profile.pool").to_owned(),
        tr("profile.rating").to_owned(),
        tr("profile.games").to_owned(),
        tr("profile.rank").to_owned(),
    ]];
    rows.extend(profile.ratings.iter().map(|rating| {
        [
            rating.ruleset.clone(),
            format!("{:.0}", rating.rating),
            rating.games.to_string(),
            if rating.rank == 0 {
                "-".to_owned()
            } else {
                rating.rank.to_string()
            },
        ]
    }));
    text.push_str(&aligned(&rows));
    text
}

/// `YYYY-MM-DD HH:MM` (UTC) of Unix milliseconds.
fn utc_minute(unix_ms: i64) -> String {
    let minutes = unix_ms.div_euclid(60_000);
    let minute_of_day = minutes.rem_euclid(24 * 60);
    format!(
        "{} {:02}:{:02}",
        utc_date(unix_ms),
        minute_of_day / 60,
        minute_of_day % 60
    )
}

/// `YYYY-MM-DD` (UTC) of Unix milliseconds: the proleptic Gregorian calendar from days since
/// 1970 (H. Hinnant's `civil_from_days`), to need no date crate for one column.
fn utc_date(unix_ms: i64) -> String {
    let days = unix_ms.div_euclid(86_400_000) + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00");
        // 2000-02-29 23:59 UTC, a leap day.
        assert_eq!(utc_minute(951_868_740_000), "2000-02-29 23:59");
        // 2026-12-01 03:54 UTC.
        assert_eq!(utc_minute(1_796_097_240_000), "2026-12-01 03:54");
        assert_eq!(utc_date(-86_400_000), "1969-12-31");
    }

    fn seat(seat: u32, id: &str, name: &str) -> pb::SeatInfo {
        pb::SeatInfo {
            seat,
            player_id: id.into(),
            display_name: name.into(),
            computer_level: String::new(),
        }
    }

    fn finished(id: &str, kind: pb::ResultKind, winners: Vec<u32>, rule: &str) -> pb::ArchivedGame {
        pb::ArchivedGame {
            game_id: id.into(),
            ruleset: "caro/15/blocked-ends".into(),
            seats: vec![seat(0, "p-ann", "Ann"), seat(1, "p-bob", "Bob")],
            outcome: Some(pb::Outcome {
                kind: kind as i32,
                winners,
                rule: rule.into(),
                ..Default::default()
            }),
            ended_at_unix_ms: 1_796_097_240_000,
            ..Default::default()
        }
    }

    #[test]
    fn the_history_table_reads_from_the_players_side() {
        let mut casual = finished("g2", pb::ResultKind::Draw, vec![], "C8");
        casual.casual = true;
        let page = pb::ListPlayerGamesResponse {
            games: vec![
                finished("g3", pb::ResultKind::Win, vec![1], "C14"),
                casual,
                finished("g1", pb::ResultKind::Win, vec![0], "C7"),
            ],
            next_page_token: "next".into(),
        };
        let table = history_table(&page, "p-ann");
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines,
            [
                "ended (UTC)       game                           against  result      id",
                "2026-12-01 03:54  caro/15/blocked-ends           Bob      lost (C14)  g3",
                "2026-12-01 03:54  caro/15/blocked-ends (casual)  Bob      drawn (C8)  g2",
                "2026-12-01 03:54  caro/15/blocked-ends           Bob      won (C7)    g1",
                "older games: ludus history --page next",
            ]
        );
        assert!(history_table(&page, "p-bob").contains("Ann      won (C14)"));
        assert_eq!(
            history_table(&pb::ListPlayerGamesResponse::default(), "p-ann"),
            "no finished games\n"
        );
    }

    #[test]
    fn a_profile_shows_rated_pools_once() {
        let mut casual = finished("g2", pb::ResultKind::Draw, vec![], "C8");
        casual.casual = true;
        casual.ruleset = "mancala/kalah".into();
        let recent = [
            finished("g3", pb::ResultKind::Win, vec![1], "C14"),
            casual,
            finished("g1", pb::ResultKind::Win, vec![0], "C7"),
        ];
        assert_eq!(
            rating_pools(&["quoridor/9".into()], &recent),
            ["quoridor/9", "caro/15/blocked-ends"]
        );
        let profile = pb::Profile {
            player_id: "p-ann".into(),
            username: "ann".into(),
            display_name: "Ann".into(),
            created_at_unix_ms: 1_796_097_240_000,
            ratings: vec![pb::Rating {
                ruleset: "caro/15/blocked-ends".into(),
                rating: 1215.6,
                games: 3,
                rank: 0,
                ..Default::default()
            }],
            games_played: 4,
            games_won: 2,
            games_drawn: 1,
            ..Default::default()
        };
        assert_eq!(
            profile_lines(&profile),
            "Ann (ann), player p-ann\nmember since 2026-12-01\n\
             games: 4 played, 2 won, 1 drawn\n\
             rating pool           rating  rated games  rank\n\
             caro/15/blocked-ends  1216    3            -\n"
        );
    }

    #[test]
    fn history_and_profile_read_in_vietnamese() {
        let mut casual = finished("g2", pb::ResultKind::Draw, vec![], "C8");
        casual.casual = true;
        let page = pb::ListPlayerGamesResponse {
            games: vec![finished("g3", pb::ResultKind::Win, vec![1], "C14"), casual],
            next_page_token: "next".into(),
        };
        let table = crate::i18n::in_vietnamese(|| history_table(&page, "p-ann"));
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines,
            [
                "kết thúc (UTC)    trò chơi                                đối thủ  kết quả     mã ván",
                "2026-12-01 03:54  caro/15/blocked-ends                    Bob      thua (C14)  g3",
                "2026-12-01 03:54  caro/15/blocked-ends (không tính điểm)  Bob      hòa (C8)    g2",
                "ván cũ hơn: ludus history --page next",
            ]
        );
        let profile = pb::Profile {
            player_id: "p-ann".into(),
            username: "ann".into(),
            display_name: "Ann".into(),
            created_at_unix_ms: 1_796_097_240_000,
            games_played: 4,
            games_won: 2,
            games_drawn: 1,
            ..Default::default()
        };
        assert_eq!(
            crate::i18n::in_vietnamese(|| profile_lines(&profile)),
            "Ann (ann), mã người chơi p-ann\nthành viên từ 2026-12-01\n\
             số ván: đã chơi 4, thắng 2, hòa 1\nchưa có ván tính điểm nào\n"
        );
    }
}
