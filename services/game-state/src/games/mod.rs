//! The proto mapping of each hosted game (see [`crate::engine::Hosting`]).

pub mod caro;
pub mod quoridor;
