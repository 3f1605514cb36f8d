//! [`RoomSettings`]: what the host chooses, checked against each game's rules through the
//! catalog's table policy (`ludus_catalog::room_game`): options, the clock the game allows in
//! a friend room, how many seats; and the room's own choices (public, rated, the first mover
//! where the game lets a room choose it (C10), auto-start (Q29), spectator chat).

use ludus_catalog::{GameKind, TablePolicy};
use ludus_proto::pb;
use prost::Message;
use serde::{Deserialize, Serialize};

use crate::error::RoomError;

/// Who moves first in a pairing's first game, where the game lets a room choose (C10).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum FirstMover {
    /// The host moves first.
    Host,
    /// The guest (the other player) moves first.
    Guest,
    /// Rock-paper-scissors drawn by the server when the guest sits down (C10).
    #[default]
    RockPaperScissors,
}

/// How a room seats its players for a game: the catalog's table modes.
pub use ludus_catalog::TableMode as RoomMode;

/// The host's choices. The game settings are kept as the contract's message (stored encoded),
/// normalised: the clock resolved to what the game will be created with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomSettings {
    #[serde(with = "encoded")]
    pub game: pb::GameSettings,
    /// Listed in the lobby.
    pub public: bool,
    /// Games are rated when every player has an account (Ping44, M12).
    pub rated: bool,
    /// Who moves first in a pairing's first game, where the game lets a room choose (C10).
    pub first_mover: FirstMover,
    /// The next game starts 30 s after one ends, where the game allows it (Q29).
    pub auto_start: bool,
    /// Spectators may chat (on unless the host turns it off).
    pub spectator_chat: bool,
}

/// A countdown's length (Q29).
pub const AUTO_START_MS: u64 = 30_000;

impl RoomSettings {
    /// Checks and normalises the host's choices: the catalog checks the options (naming the
    /// rule), the clock must be one the game's rule offers in a friend room.
    pub fn new(
        game: pb::GameSettings,
        public: bool,
        rated: bool,
        first_mover: FirstMover,
        auto_start: bool,
        spectator_chat: bool,
    ) -> Result<RoomSettings, RoomError> {
        let game = ludus_catalog::room_game(game)?;
        Ok(RoomSettings {
            game,
            public,
            rated,
            first_mover,
            auto_start,
            spectator_chat,
        })
    }

    /// The game being played in the room.
    pub fn kind(&self) -> GameKind {
        // Checked in `new`: a stored room always names a game, so the fallback is never read.
        GameKind::of(&self.game).unwrap_or(GameKind::ALL[0])
    }

    /// The table rules of the room's game.
    pub fn policy(&self) -> TablePolicy {
        self.kind().table_policy()
    }

    /// Table, teams or tournament.
    pub fn mode(&self) -> RoomMode {
        ludus_catalog::table_mode(&self.game)
    }

    /// Players the room seats: the table's seats, a team game's members, a tournament's
    /// entrants.
    pub fn players(&self) -> usize {
        ludus_catalog::table_seats(&self.game)
    }
}

/// Serde for the contract's settings message: its protobuf bytes as hex, so the room's JSON
/// state holds exactly what the contract says.
pub(crate) mod encoded {
    use super::*;
    use serde::{Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(game: &pb::GameSettings, s: S) -> Result<S::Ok, S::Error> {
        let hex: String = game
            .encode_to_vec()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        s.serialize_str(&hex)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<pb::GameSettings, D::Error> {
        let hex = String::deserialize(d)?;
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| {
                hex.get(i..i + 2)
                    .and_then(|b| u8::from_str_radix(b, 16).ok())
                    .ok_or_else(|| D::Error::custom("settings are not hex"))
            })
            .collect::<Result<Vec<u8>, _>>()?;
        pb::GameSettings::decode(bytes.as_slice()).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caro(turn_ms: u64) -> pb::GameSettings {
        pb::GameSettings {
            options: Some(pb::game_settings::Options::Caro(pb::CaroOptions::default())),
            turn_time_ms: turn_ms,
        }
    }

    fn quoridor(mode: pb::QuoridorMode, players: u32, turn_ms: u64) -> pb::GameSettings {
        pb::GameSettings {
            options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
                mode: mode as i32,
                players,
                ..Default::default()
            })),
            turn_time_ms: turn_ms,
        }
    }

    fn settings(game: pb::GameSettings) -> Result<RoomSettings, RoomError> {
        RoomSettings::new(game, false, false, FirstMover::default(), true, true)
    }

    #[test]
    fn caro_clocks_are_c12_s_choices() {
        for ok in [0, 30_000, 60_000, 120_000] {
            assert_eq!(settings(caro(ok)).expect("C12").game.turn_time_ms, ok);
        }
        let refused = settings(caro(45_000)).expect_err("C12");
        assert!(refused.to_string().contains("C12"), "{refused}");
    }

    #[test]
    fn quoridor_clock_is_q28_with_30_s_by_default() {
        let s = settings(quoridor(pb::QuoridorMode::FreeForAll, 4, 0)).expect("Q28");
        assert_eq!(s.game.turn_time_ms, 30_000);
        assert_eq!(s.players(), 4);
        assert!(settings(quoridor(pb::QuoridorMode::FreeForAll, 2, 10_000)).is_err());
        assert!(settings(quoridor(pb::QuoridorMode::FreeForAll, 2, 95_000)).is_err());
    }

    #[test]
    fn a_tournament_counts_entrants_and_teams_need_an_even_count() {
        // Q24: five entrants, each match seats two.
        let s = settings(quoridor(pb::QuoridorMode::TournamentMatch, 5, 0)).expect("Q24");
        assert_eq!((s.mode(), s.players()), (RoomMode::Tournament, 5));
        let odd = settings(quoridor(pb::QuoridorMode::Teams, 3, 0)).expect_err("Q23");
        assert!(odd.to_string().contains("Q23"), "{odd}");
        assert_eq!(
            settings(quoridor(pb::QuoridorMode::Teams, 4, 0))
                .map(|s| s.mode())
                .ok(),
            Some(RoomMode::Teams)
        );
        let nine = settings(quoridor(pb::QuoridorMode::FreeForAll, 9, 0)).expect_err("Q4");
        assert!(nine.to_string().contains("Q4"), "{nine}");
    }

    #[test]
    fn settings_survive_their_json_form() {
        let s = settings(quoridor(pb::QuoridorMode::Teams, 4, 45_000)).expect("valid");
        let json = serde_json::to_string(&s).expect("serialises");
        let back: RoomSettings = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, s);
    }

    #[test]
    fn mancala_and_junqi_keep_their_fixed_clocks() {
        let mancala = pb::GameSettings {
            options: Some(pb::game_settings::Options::Mancala(
                pb::MancalaOptions::default(),
            )),
            turn_time_ms: 60_000,
        };
        let refused = settings(mancala).expect_err("M10");
        assert!(refused.to_string().contains("M10"), "{refused}");
    }
}
