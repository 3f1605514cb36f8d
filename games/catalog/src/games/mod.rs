//! The proto mapping of each hosted game (see [`crate::Hosting`]).

pub mod backgammon;
pub mod caro;
pub mod junqi;
pub mod mancala;
pub mod quoridor;
