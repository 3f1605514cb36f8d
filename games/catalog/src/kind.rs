//! The games this build hosts.

use ludus_proto::pb;
use serde::{Deserialize, Serialize};

use crate::error::CatalogError;

/// The games this build hosts, by their stored name (`caro`, `quoridor`…).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    Caro,
    Quoridor,
    Backgammon,
    Junqi,
    Mancala,
}

impl GameKind {
    /// Every hosted game, in the order the contract lists their options.
    pub const ALL: [GameKind; 5] = [
        GameKind::Caro,
        GameKind::Quoridor,
        GameKind::Backgammon,
        GameKind::Mancala,
        GameKind::Junqi,
    ];

    /// The game named by the settings' options arm.
    pub fn of(settings: &pb::GameSettings) -> Result<GameKind, CatalogError> {
        use pb::game_settings::Options;
        match &settings.options {
            Some(Options::Caro(_)) => Ok(GameKind::Caro),
            Some(Options::Quoridor(_)) => Ok(GameKind::Quoridor),
            Some(Options::Backgammon(_)) => Ok(GameKind::Backgammon),
            Some(Options::Mancala(_)) => Ok(GameKind::Mancala),
            Some(Options::Junqi(_)) => Ok(GameKind::Junqi),
            None => Err(CatalogError::InvalidArgument(
                "settings.options: choose a game".into(),
            )),
        }
    }

    /// The game named `name` (as [`GameKind::name`] writes it).
    pub fn from_name(name: &str) -> Option<GameKind> {
        GameKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The stored and metric name (`caro`, `junqi`…), the first segment of every rule set.
    pub const fn name(self) -> &'static str {
        match self {
            GameKind::Caro => "caro",
            GameKind::Quoridor => "quoridor",
            GameKind::Backgammon => "backgammon",
            GameKind::Junqi => "junqi",
            GameKind::Mancala => "mancala",
        }
    }
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
