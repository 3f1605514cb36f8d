//! `ludus watch`: follow a live game as a spectator.

use anyhow::Context as _;
use ludus_proto::pb;

use super::WatchArgs;
use super::i18n::{tr, trf};
use super::saved_session::{self, SessionFile};
use super::session::{self, Events, Next, Session};
use super::table::Table;
use super::{clear_screen, flush};

/// How many live games the listing asks for.
const LIST_LIMIT: u32 = 20;

/// Signs in, picks the game (the newest live one unless named), and follows it to the end.
pub async fn run(args: WatchArgs) -> anyhow::Result<()> {
    let file = SessionFile::default_location()?;
    let Session { mut client, .. } =
        saved_session::sign_in(&file, args.server.address(), Some(&args.name), args.guest).await?;
    let game_id = match args.game_id {
        Some(game_id) => game_id,
        None => {
            let games = client
                .list_live_games(pb::ListLiveGamesRequest { limit: LIST_LIMIT })
                .await
                .map_err(|status| {
                    anyhow::anyhow!(trf(
                        "watch.listFailed",
                        &[("reason", &session::describe(&status))]
                    ))
                })?
                .into_inner()
                .games;
            if games.is_empty() {
                println!("{}", tr("watch.none"));
                return Ok(());
            }
            print!("{}", listing(&games));
            // The listing is newest first.
            let newest = games
                .into_iter()
                .next()
                .map(|g| g.game_id)
                .context(tr("watch.noneContext"))?;
            println!("{}", trf("watch.newest", &[("game", &newest)]));
            newest
        }
    };

    let snapshot = session::get_game(&mut client, &game_id).await?;
    // Events up to the snapshot's seq are replayed into the table without a redraw each, so
    // `--from 0` on a long game does not scroll a board per old move.
    let caught_up_at = snapshot.seq;
    let mut table = Table::from_snapshot(snapshot);
    table.me = None;
    if args.from >= caught_up_at || table.finished {
        redraw(&table);
        if table.finished {
            return Ok(());
        }
    }
    // The table starts from the snapshot, but the events from `--from` on still count: reset
    // its seq so they apply (each carries the whole view, so the last one wins).
    table.seq = args.from.min(caught_up_at);
    let mut events = Events::new(client, game_id, args.from);
    loop {
        match events.next().await? {
            Next::Event(event) => {
                table.apply(&event);
                if event.seq >= caught_up_at {
                    redraw(&table);
                }
            }
            Next::Notice(notice) => println!("{notice}"),
            Next::End => {
                if !table.finished {
                    // Only reached if the server ended the stream oddly: show what is known.
                    redraw(&table);
                }
                return Ok(());
            }
        }
    }
}

fn redraw(table: &Table) {
    clear_screen();
    print!("{}", table.screen(session::now_ms()));
    flush();
}

/// The live games, one a line: id, players, seq.
fn listing(games: &[pb::LiveGame]) -> String {
    let mut out = format!("{}\n", tr("watch.listHeader"));
    for game in games {
        let players: Vec<&str> = game.seats.iter().map(|s| s.display_name.as_str()).collect();
        out.push_str(&trf(
            "watch.listLine",
            &[
                ("game", &game.game_id),
                ("name", &game_name(game.settings.as_ref())),
                ("players", &players.join(tr("render.versus"))),
                ("seq", &game.seq),
            ],
        ));
    }
    out
}

/// A short name for a game's settings, e.g. `caro 15x15`.
pub(crate) fn game_name(settings: Option<&pb::GameSettings>) -> String {
    use pb::game_settings::Options;
    match settings.and_then(|s| s.options.as_ref()) {
        Some(Options::Caro(caro)) => {
            let side = if caro.board_size == 0 {
                15
            } else {
                caro.board_size
            };
            trf("name.caroSize", &[("side", &side)])
        }
        Some(Options::Quoridor(quoridor)) => {
            let side = if quoridor.size == 0 { 9 } else { quoridor.size };
            trf("name.quoridorSize", &[("side", &side)])
        }
        Some(Options::Backgammon(backgammon)) => match &backgammon.match_game {
            Some(game) => trf("name.backgammonMatch", &[("length", &game.length)]),
            None => tr("name.backgammonMoney").to_owned(),
        },
        Some(Options::Mancala(mancala)) => {
            if mancala.rule_set == pb::MancalaRuleSet::Congklak as i32 {
                tr("name.mancalaCongklak").to_owned()
            } else {
                tr("name.mancalaKalah").to_owned()
            }
        }
        Some(Options::Junqi(_)) => tr("name.junqi").to_owned(),
        None => "?".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_names_game_players_and_seq() {
        let games = vec![pb::LiveGame {
            game_id: "g7".into(),
            settings: Some(pb::GameSettings {
                options: Some(pb::game_settings::Options::Caro(pb::CaroOptions::default())),
                turn_time_ms: 60_000,
            }),
            seats: vec![
                pb::SeatInfo {
                    seat: 0,
                    player_id: "a".into(),
                    display_name: "alice".into(),
                    computer_level: String::new(),
                },
                pb::SeatInfo {
                    seat: 1,
                    player_id: "b".into(),
                    display_name: "bob".into(),
                    computer_level: String::new(),
                },
            ],
            seq: 12,
        }];
        assert_eq!(
            listing(&games),
            "live games (newest first):\n  g7  caro 15x15  alice vs bob  seq 12\n"
        );
        let mancala = pb::GameSettings {
            options: Some(pb::game_settings::Options::Mancala(pb::MancalaOptions {
                rule_set: pb::MancalaRuleSet::Congklak as i32,
                first_player: 0,
            })),
            turn_time_ms: 0,
        };
        assert_eq!(game_name(Some(&mancala)), "mancala congklak");
        let quoridor = pb::GameSettings {
            options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
                size: 11,
                ..Default::default()
            })),
            turn_time_ms: 0,
        };
        assert_eq!(game_name(Some(&quoridor)), "quoridor 11x11");
    }
}
