//! End to end: every game played by real clients through the gateway, every service real (gRPC
//! on loopback), session state in a real redis-server started by the harness. One test binary
//! for all five games: each linked test binary costs a full link of the whole system, in time
//! and in disk.

mod abuse;
mod accounts;
mod backgammon;
mod bots;
mod campaign;
mod caro;
mod contract;
mod grpc_web;
mod junqi;
mod leaving;
mod mancala;
mod public_surface;
mod quoridor;
mod rooms;
mod store_outage;
mod terminal;
mod terminal_rooms;
mod tls;
