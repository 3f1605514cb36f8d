//! The table policy of friend rooms: how a room seats a game (one table, teams, a knockout),
//! the settings a room may choose, and the games it creates. The rooms service applies these
//! to any game; the game-specific parts live in each game's file under [`crate::games`].

use ludus_proto::pb;
use serde::{Deserialize, Serialize};

use crate::error::CatalogError;
use crate::games::quoridor;
use crate::kind::GameKind;
use crate::policy::{rating_pool, table_seats};

/// Q24's knockout bracket, which a room runs for a game whose options ask for a tournament
/// ([`TableMode::Tournament`]): entrants, rounds of two-player matches, byes and points.
pub use ludus_quoridor::{Bracket, MatchResult};

/// How a room seats its players for a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TableMode {
    /// Every seated player at one table (Caro, Backgammon, Mancala, Junqi, Quoridor Q22).
    Table,
    /// Quoridor Q23: red against yellow, members choose their team.
    Teams,
    /// Quoridor Q24: a knockout of two-player matches run by the room ([`Bracket`]).
    Tournament,
}

/// A team in [`TableMode::Teams`] (Q23).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Team {
    Red,
    Yellow,
}

/// How a room seats games of these settings.
pub fn table_mode(settings: &pb::GameSettings) -> TableMode {
    match &settings.options {
        Some(pb::game_settings::Options::Quoridor(options)) => quoridor::table_mode(options),
        _ => TableMode::Table,
    }
}

/// Checks and normalises a friend room's game settings: the options must be valid for one of
/// the room's games (each error names the field and the rule), the seats are the room's to
/// fill, and the clock must be one the game's rule offers a friend room
/// ([`crate::FriendClock`]), 0 resolved to what the game will be created with.
pub fn room_game(settings: pb::GameSettings) -> Result<pb::GameSettings, CatalogError> {
    let kind = GameKind::of(&settings)?;
    // A tournament room's seat count is its entrants; each of its matches seats two (Q24).
    let one_game = match table_mode(&settings) {
        TableMode::Tournament => tournament_game(&settings, None),
        TableMode::Table | TableMode::Teams => settings.clone(),
    };
    rating_pool(&one_game, table_seats(&one_game))?;
    let mut settings = settings;
    if let Some(pb::game_settings::Options::Quoridor(options)) = &mut settings.options {
        quoridor::room_options(options)?;
    }
    settings.turn_time_ms = kind
        .table_policy()
        .friend_clock
        .resolve(settings.turn_time_ms)?;
    Ok(settings)
}

/// The settings of a team game whose seats (in seat order) play for `teams` (Q23).
pub fn team_game(settings: &pb::GameSettings, teams: &[Team]) -> pb::GameSettings {
    let mut settings = settings.clone();
    if let Some(pb::game_settings::Options::Quoridor(options)) = &mut settings.options {
        quoridor::with_teams(options, teams);
    }
    settings
}

/// The settings of one tournament match (Q24): two seats, `first_seat` moving first (the
/// bracket's draw; the other player in a replay), or the host's choice when `None`.
pub fn tournament_game(settings: &pb::GameSettings, first_seat: Option<usize>) -> pb::GameSettings {
    let mut settings = settings.clone();
    if let Some(pb::game_settings::Options::Quoridor(options)) = &mut settings.options {
        let first_seat = first_seat.or(options.first_seat.map(|seat| seat as usize));
        quoridor::tournament_match(options, first_seat);
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::super::tests::settings;
    use super::*;

    fn quoridor(mode: pb::QuoridorMode, players: u32) -> pb::game_settings::Options {
        pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
            mode: mode as i32,
            players,
            teams: vec![pb::QuoridorTeam::Red as i32],
            first_seat: Some(1),
            ..Default::default()
        })
    }

    fn refused_citing(result: Result<pb::GameSettings, CatalogError>, rule: &str) {
        match result {
            Err(CatalogError::InvalidArgument(message)) => {
                assert!(message.contains(&format!(": {rule}: ")), "{message}")
            }
            other => panic!("{rule}: {other:?}"),
        }
    }

    #[test]
    fn friend_clocks_follow_each_games_rule() {
        use pb::game_settings::Options;
        let caro = || Options::Caro(pb::CaroOptions::default());
        let mancala = || Options::Mancala(pb::MancalaOptions::default());
        let junqi = || Options::Junqi(pb::JunqiOptions {});
        let backgammon = || Options::Backgammon(pb::BackgammonOptions::default());
        let free = || quoridor(pb::QuoridorMode::FreeForAll, 4);
        // (options, asked, played): 0 is untimed where the rule offers it, else its clock.
        for (options, asked, played) in [
            (caro(), 0, 0),
            (caro(), 120_000, 120_000),
            (free(), 0, 30_000),
            (free(), 15_000, 15_000),
            (backgammon(), 0, 0),
            (backgammon(), 90_000, 90_000),
            (mancala(), 0, 30_000),
            (junqi(), 30_000, 30_000),
        ] {
            let game = room_game(settings(options, asked)).expect("offered");
            assert_eq!(game.turn_time_ms, played, "{game:?}");
        }
        for (options, asked, rule) in [
            (caro(), 45_000, "C12"),
            (free(), 10_000, "Q28"),
            (free(), 95_000, "Q28"),
            (backgammon(), 45_000, "B20"),
            (mancala(), 60_000, "M10"),
            (junqi(), 60_000, "J19"),
        ] {
            refused_citing(room_game(settings(options, asked)), rule);
        }
    }

    #[test]
    fn a_room_fills_seats_and_teams_itself() {
        let game = room_game(settings(quoridor(pb::QuoridorMode::Teams, 4), 0)).expect("Q23");
        let Some(pb::game_settings::Options::Quoridor(options)) = &game.options else {
            panic!("quoridor");
        };
        assert!(options.teams.is_empty() && options.first_seat.is_none());
        assert_eq!(table_mode(&game), TableMode::Teams);
        refused_citing(
            room_game(settings(quoridor(pb::QuoridorMode::Teams, 3), 0)),
            "Q23",
        );
        let teams = team_game(&game, &[Team::Red, Team::Yellow, Team::Yellow, Team::Red]);
        let Some(pb::game_settings::Options::Quoridor(options)) = &teams.options else {
            panic!("quoridor");
        };
        let (red, yellow) = (
            pb::QuoridorTeam::Red as i32,
            pb::QuoridorTeam::Yellow as i32,
        );
        assert_eq!(
            options.teams,
            [red, yellow, yellow, red],
            "Q23: in seat order"
        );
    }

    #[test]
    fn a_tournament_counts_entrants_and_each_match_seats_two() {
        let room = room_game(settings(quoridor(pb::QuoridorMode::TournamentMatch, 5), 0))
            .expect("Q24: five entrants");
        assert_eq!(table_mode(&room), TableMode::Tournament);
        assert_eq!(table_seats(&room), 5);
        let game = tournament_game(&room, Some(1));
        assert_eq!(table_seats(&game), 2);
        let Some(pb::game_settings::Options::Quoridor(options)) = &game.options else {
            panic!("quoridor");
        };
        assert_eq!(
            options.first_seat,
            Some(1),
            "Q24: the bracket's first mover"
        );
        let caro = settings(pb::game_settings::Options::Caro(Default::default()), 0);
        assert_eq!(table_mode(&caro), TableMode::Table);
        assert_eq!(
            tournament_game(&caro, Some(1)),
            caro,
            "no tournament in Caro"
        );
    }
}
