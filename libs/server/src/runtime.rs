//! The tokio runtime every Ludus binary runs on: tokio's multi-threaded scheduler with its
//! LIFO slot turned off.
//!
//! # Why
//! With the LIFO slot, a task woken by the running task runs next on the same worker. For a
//! server that writes to many HTTP/2 streams at once that is the wrong order: when a live
//! event reaches 1,000 subscribers, each stream's task hands its frame to the connection and
//! wakes the connection's task, which then ran at once and wrote that single frame; one
//! `sendto` per subscriber, the kernel half of the gateway's CPU (BENCHMARKS.md, "One write
//! per connection"). Without the slot, woken tasks queue behind the ones already woken, so the
//! connection's task runs after the streams of the same event have queued their frames and
//! writes them together. The same order batches game-state's replies on a busy connection.
//! (The other half of it is [`crate::server`]'s `Conn`, which lets HTTP/2 copy such frames
//! into its write buffer.)
//!
//! `disable_lifo_slot` is behind tokio's `tokio_unstable` cfg, which `.cargo/config.toml`
//! sets for the workspace; a build without it gets tokio's default scheduling, nothing else
//! changes.

/// A multi-threaded runtime with every driver (I/O, time) and the LIFO slot off: use it in
/// `main` instead of `#[tokio::main]`.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    #[cfg(tokio_unstable)]
    builder.disable_lifo_slot();
    builder.build()
}

/// Whether [`runtime`] turns the LIFO slot off in this build (the cfg reached tokio).
pub fn lifo_slot_off() -> bool {
    cfg!(tokio_unstable)
}
