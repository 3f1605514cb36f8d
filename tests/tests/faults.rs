//! Kill scenarios (ARCHITECTURE.md, "Faults: the multi-process harness"): the real binaries as separate processes ([`Cluster`]), one of
//! them SIGKILLed mid-load, and the promises of the design checked afterwards: no event lost
//! or duplicated, no acknowledged move lost, no timer lost, no ticket in two games.
//!
//! The binaries must be built first: `cargo build --workspace --bins` (scripts/test.sh does).
//! Rule ids refer to shared/rules/caro.md.

use std::{
    net::SocketAddr,
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use futures::FutureExt as _;
use futures::future::join_all;
use ludus_proto::pb;
use ludus_tests::{
    Player, caro_settings,
    cluster::{Cluster, ClusterSpec, Fault, Role},
    load::{Acked, caro_variants, moves_in, o_cells, retryable, x_cells},
    patience, register, sign_in,
};
use tokio::sync::{Mutex, MutexGuard};
use tokio_stream::StreamExt;
use tonic::Code;

/// Bounds every wait of these tests: a hang fails, it does not stall CI.
const SCENARIO_PATIENCE: Duration = Duration::from_secs(60);

/// [`SCENARIO_PATIENCE`] stretched by how busy the machine is.
fn scenario_patience() -> Duration {
    ludus_store::testing::patience(SCENARIO_PATIENCE)
}

/// One cluster at a time: each is a dozen processes, and the machine has two cores.
async fn one_cluster_at_a_time() -> MutexGuard<'static, ()> {
    static CLUSTER: Mutex<()> = Mutex::const_new(());
    CLUSTER.lock().await
}

/// One game of the load: its id, and X and O (each on their own gateway).
struct Table {
    game_id: String,
    seats: [Player; 2],
    /// The gateway each seat's client is connected to.
    gateways: [SocketAddr; 2],
}

/// Pairs `pairs` guests by quick match, the first of each pair on gateway 0 and the second on
/// gateway 1, one pair at a time so that each game spans both gateways.
async fn tables(cluster: &Cluster, pairs: usize) -> Vec<Table> {
    let mut tables = Vec::new();
    for n in 0..pairs {
        let mut a = sign_in(cluster.gateway(0), &format!("a{n}")).await;
        let mut b = sign_in(cluster.gateway(1), &format!("b{n}")).await;
        let ((game_a, seat_a), (game_b, _)) =
            tokio::join!(a.find_match(caro_settings()), b.find_match(caro_settings()));
        assert_eq!(
            game_a, game_b,
            "a lone pair in the queue is matched together"
        );
        let (g0, g1) = (cluster.gateway(0), cluster.gateway(1));
        let (seats, gateways) = if seat_a == 0 {
            ([a, b], [g0, g1])
        } else {
            ([b, a], [g1, g0])
        };
        tables.push(Table {
            game_id: game_a,
            seats,
            gateways,
        });
    }
    tables
}

/// What a client saw of one game: every seq its streams delivered, in order.
type Seen = Vec<u64>;

/// The gateway after `current` in `gateways`: where a client goes when a call fails (a
/// client behind a load balancer lands on another gateway when its own is gone).
fn next_gateway(gateways: &[SocketAddr], current: SocketAddr) -> SocketAddr {
    let i = gateways.iter().position(|&g| g == current).unwrap_or(0);
    gateways[(i + 1) % gateways.len()]
}

/// Follows `game_id` as `player` (connected to `gateway`) until the game finishes: on any
/// error or end of stream it subscribes again after the last seq it saw, as an app does, on
/// the next of `gateways`. Returns every seq delivered, duplicates included, and how many
/// times it had to subscribe again.
async fn follow(
    mut player: Player,
    mut gateway: SocketAddr,
    gateways: Vec<SocketAddr>,
    game_id: String,
) -> (Seen, usize) {
    let mut seen = Vec::new();
    let mut last = 0;
    let mut resubscribed = 0;
    let deadline = tokio::time::Instant::now() + scenario_patience();
    while tokio::time::Instant::now() < deadline {
        let request = pb::SubscribeRequest {
            game_id: game_id.clone(),
            after_seq: last,
        };
        if let Ok(stream) = player.client.subscribe(request).await {
            let mut stream = stream.into_inner();
            while let Ok(Some(Ok(event))) = tokio::time::timeout_at(deadline, stream.next()).await {
                seen.push(event.seq);
                last = last.max(event.seq);
                if event.status == pb::GameStatus::Finished as i32 {
                    return (seen, resubscribed);
                }
            }
        }
        resubscribed += 1;
        gateway = next_gateway(&gateways, gateway);
        player = player.on_gateway(gateway);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "{game_id}: the game did not finish for {} (saw {seen:?})",
        player.name
    );
}

/// Plays `moves` moves of `table` (X and O alternating), each retried with the same action id
/// until it is acknowledged (on the next of `gateways` after a failure), then X resigns.
/// Returns the acknowledged moves.
async fn play(
    table: &mut Table,
    gateways: &[SocketAddr],
    moves: usize,
    pace: Duration,
    counter: &AtomicUsize,
) -> Vec<Acked> {
    let (x, o) = (x_cells(), o_cells());
    let mut acked = Vec::new();
    let mut seq = current_seq(&mut table.seats[0], &table.game_id).await;
    for i in 0..moves {
        let seat = i % 2;
        let cell = if seat == 0 { &x[i / 2] } else { &o[i / 2] };
        let action_id = table.seats[seat].next_action_id();
        let (player, gateway) = (&mut table.seats[seat], &mut table.gateways[seat]);
        let event = retry(&table.game_id, async || {
            match player.submit(&table.game_id, seq, &action_id, cell).await {
                Ok(response) => Some(response.event.expect("an acknowledged move's event")),
                // The log moved (a presence event): same action id at the new seq. A
                // duplicate is recognised before the seq is checked.
                Err(status) if status.code() == Code::Aborted => {
                    seq = current_seq(player, &table.game_id).await;
                    None
                }
                Err(status) => {
                    assert!(
                        retryable(&status),
                        "{}: move {i} refused for good: {status:?}",
                        table.game_id
                    );
                    *gateway = next_gateway(gateways, *gateway);
                    *player = player.on_gateway(*gateway);
                    None
                }
            }
        })
        .await;
        seq = event.seq;
        counter.fetch_add(1, Ordering::Relaxed);
        acked.push(Acked {
            seq: event.seq,
            seat: u32::try_from(seat).expect("seat"),
            cell: cell.clone(),
        });
        tokio::time::sleep(pace).await;
    }
    let game_id = table.game_id.clone();
    let (player, gateway) = (&mut table.seats[0], &mut table.gateways[0]);
    retry(&game_id, async || match player.resign(&game_id).await {
        Ok(_) => Some(()),
        // A retried resignation whose first try landed: the game is over.
        Err(status) if status.code() == Code::FailedPrecondition => Some(()),
        Err(status) => {
            assert!(retryable(&status), "{game_id}: resign refused: {status:?}");
            *gateway = next_gateway(gateways, *gateway);
            *player = player.on_gateway(*gateway);
            None
        }
    })
    .await;
    acked
}

/// Calls that failed and were tried again (reported by the scenarios: a fault that costs no
/// retry did not hit the load). Scenarios run one at a time.
static RETRIES: AtomicUsize = AtomicUsize::new(0);

/// Calls `attempt` until it returns something, every 50 ms, for at most
/// [`SCENARIO_PATIENCE`].
async fn retry<T>(what: &str, mut attempt: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + scenario_patience();
    loop {
        if let Some(done) = attempt().await {
            return done;
        }
        RETRIES.fetch_add(1, Ordering::Relaxed);
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: still failing after {:?}",
            scenario_patience()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The game's seq as `player` reads it, retried through outages.
async fn current_seq(player: &mut Player, game_id: &str) -> u64 {
    retry(game_id, async || {
        let request = pb::GetGameRequest {
            game_id: game_id.to_owned(),
        };
        player
            .client
            .get_game(request)
            .await
            .ok()
            .and_then(|r| r.into_inner().game)
            .map(|game| game.seq)
    })
    .await
}

/// The whole log of a finished game, read from the start (on gateway 0).
async fn log_of(player: &mut Player, game_id: &str) -> Vec<pb::GameEvent> {
    retry(game_id, async || {
        let request = pb::SubscribeRequest {
            game_id: game_id.to_owned(),
            after_seq: 0,
        };
        let mut stream = player.client.subscribe(request).await.ok()?.into_inner();
        let mut events = Vec::new();
        while let Some(event) = tokio::time::timeout(patience(), stream.next()).await.ok()? {
            let event = event.ok()?;
            let finished = event.status == pb::GameStatus::Finished as i32;
            events.push(event);
            if finished {
                return Some(events);
            }
        }
        None
    })
    .await
}

/// Checks one game: its log is seqs 1..N; every subscriber saw exactly 1..N, in order, once;
/// every acknowledged move is in the log at its seq, and the log holds no other move.
fn check_game(game_id: &str, log: &[pb::GameEvent], seen: &[Seen], acked: &[Acked]) {
    let n = u64::try_from(log.len()).expect("log length");
    let expected: Vec<u64> = (1..=n).collect();
    let seqs: Vec<u64> = log.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, expected, "{game_id}: the log is gapless");
    for (i, seen) in seen.iter().enumerate() {
        assert_eq!(
            seen, &expected,
            "{game_id}: subscriber {i} saw every event once, in order"
        );
    }
    let moves = moves_in(log);
    assert_eq!(
        moves, acked,
        "{game_id}: the log's moves are exactly the acknowledged ones"
    );
}

/// What one game of a load run came to.
struct Played {
    table: Table,
    acked: Vec<Acked>,
    /// What each seat's follower saw, and how often it subscribed again.
    seen: Vec<(Seen, usize)>,
}

/// Plays `tables` concurrently (`moves` each, paced like people), every seat also following
/// its game on a connection of its own (see [`follow`]); clients move to the next of
/// `gateways` when a call fails. `during` runs alongside (to fault the cluster mid-load).
async fn load(
    tables: Vec<Table>,
    gateways: &[SocketAddr],
    moves: usize,
    counter: &AtomicUsize,
    during: impl Future<Output = ()>,
) -> Vec<Played> {
    let mut followers = Vec::new();
    for table in &tables {
        for (player, &gateway) in table.seats.iter().zip(&table.gateways) {
            let follower = player.on_gateway(gateway);
            let game_id = table.game_id.clone();
            let gateways = gateways.to_vec();
            followers.push(tokio::spawn(follow(follower, gateway, gateways, game_id)));
        }
    }
    let players = join_all(tables.into_iter().map(async |mut table| {
        let acked = play(
            &mut table,
            gateways,
            moves,
            Duration::from_millis(60),
            counter,
        )
        .await;
        (table, acked)
    }));
    let (played, ()) = tokio::join!(players, during);
    let mut seen = Vec::new();
    for follower in followers {
        seen.push(follower.await.expect("a follower panicked"));
    }
    let mut seen = seen.into_iter();
    played
        .into_iter()
        .map(|(table, acked)| Played {
            table,
            acked,
            seen: vec![
                seen.next().expect("X's view"),
                seen.next().expect("O's view"),
            ],
        })
        .collect()
}

/// Checks every game of a run (see [`check_game`]), reading the logs on `reader`, and
/// returns (events checked, moves acknowledged, resubscriptions).
async fn check_all(played: &mut [Played], reader: SocketAddr) -> (usize, usize, usize) {
    let (mut events, mut moves, mut resubscribed) = (0, 0, 0);
    for game in played.iter_mut() {
        let mut reader = game.table.seats[0].on_gateway(reader);
        let log = log_of(&mut reader, &game.table.game_id).await;
        let seen: Vec<Seen> = game.seen.iter().map(|(seen, _)| seen.clone()).collect();
        check_game(&game.table.game_id, &log, &seen, &game.acked);
        events += log.len() * (1 + seen.len());
        moves += game.acked.len();
        resubscribed += game.seen.iter().map(|(_, n)| n).sum::<usize>();
    }
    (events, moves, resubscribed)
}

/// Waits until `acked` moves have been acknowledged across the run (polled from `count`).
async fn when_acked(count: &AtomicUsize, acked: usize) {
    let wait = async {
        while count.load(Ordering::Relaxed) < acked {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(scenario_patience(), wait)
        .await
        .expect("the load makes progress");
}

/// What a load run with a fault came to, over every game.
struct Run {
    games: usize,
    moves: usize,
    events: usize,
    retries: usize,
    resubscribed: usize,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} games, {} moves acknowledged, {} events checked, {} calls retried, {} \
             resubscriptions, 0 lost, 0 duplicated",
            self.games, self.moves, self.events, self.retries, self.resubscribed
        )
    }
}

/// Quick-matches `games` pairs across both gateways, plays `moves` moves in each while
/// `fault` runs (given the count of acknowledged moves, to strike at a chosen point), then
/// checks every game ([`check_game`], logs read on gateway `reader`) and that no process the
/// test did not kill died.
async fn faulted_load(
    cluster: &mut Cluster,
    games: usize,
    moves: usize,
    reader: usize,
    fault: impl AsyncFnOnce(&mut Cluster, &AtomicUsize),
) -> Run {
    let gateways = [cluster.gateway(0), cluster.gateway(1)];
    let tables = tables(cluster, games).await;
    let acked = AtomicUsize::new(0);
    let mut played = load(tables, &gateways, moves, &acked, fault(cluster, &acked)).await;
    let (events, acknowledged, resubscribed) = check_all(&mut played, gateways[reader]).await;
    assert_eq!(acknowledged, games * moves, "every move acknowledged");
    assert!(
        cluster.dead_processes().is_empty(),
        "{:?}",
        cluster.dead_processes()
    );
    Run {
        games,
        moves: acknowledged,
        events,
        retries: RETRIES.swap(0, Ordering::Relaxed),
        resubscribed,
    }
}

/// A game-state replica SIGKILLed mid-load through 2 gateways, then restarted, then the other
/// one: clients retry with the same action id; every subscriber of every game sees seqs 1..N
/// with no gap and no duplicate, and every acknowledged move is in the log (once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_state_replica_killed_mid_load_loses_and_duplicates_nothing() {
    const GAMES: usize = 8;
    const MOVES: usize = 40;
    let _alone = one_cluster_at_a_time().await;
    let mut cluster = Cluster::start(ClusterSpec::default()).await;
    let run = faulted_load(&mut cluster, GAMES, MOVES, 0, async |cluster, acked| {
        // The busiest replica first, back when the load has moved on, then the other: every
        // caller's connection is cut once (a cut with no call in flight costs no retry).
        when_acked(acked, GAMES * MOVES / 4).await;
        let first = cluster.busiest(Role::GameState);
        cluster.kill(Role::GameState, first);
        when_acked(acked, GAMES * MOVES / 2).await;
        cluster.restart(Role::GameState, first).await;
        when_acked(acked, GAMES * MOVES * 3 / 4).await;
        cluster.kill(Role::GameState, 1 - first);
        cluster.restart(Role::GameState, 1 - first).await;
    })
    .await;
    eprintln!("game-state kill: {run}");
}

/// The network between the gateways and game-state, and between game-state and Redis, resets,
/// stalls and half-closes connections while games are played (the harness's balancers are
/// the fault proxies): every call a client makes is answered OK or with a code the contract
/// says to retry (UNAVAILABLE from the gateway, never UNKNOWN or INTERNAL: `retryable` in
/// `play`), and every acknowledged move is in its game's log exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_that_resets_stalls_and_half_closes_loses_and_duplicates_nothing() {
    const GAMES: usize = 6;
    const MOVES: usize = 40;
    const STRIKES: usize = 8;
    let _alone = one_cluster_at_a_time().await;
    let mut cluster = Cluster::start(ClusterSpec::default()).await;
    let run = faulted_load(&mut cluster, GAMES, MOVES, 0, async |cluster, acked| {
        let faults = [
            Fault::Reset,
            Fault::Stall(Duration::from_secs(2)),
            Fault::HalfClose,
            Fault::Stall(Duration::from_secs(5)),
        ];
        let mut struck = Vec::new();
        for (n, fault) in faults.iter().cycle().take(STRIKES).enumerate() {
            when_acked(acked, GAMES * MOVES * (n + 1) / (STRIKES + 2)).await;
            // Alternately the gateways' connections to game-state and game-state's to Redis.
            let reached = if n % 2 == 0 {
                cluster.fault(Role::GameState, *fault)
            } else {
                cluster.fault_redis(*fault)
            };
            struck.push((n % 2 == 0, *fault, reached));
        }
        eprintln!("faults struck (to game-state?, fault, connections): {struck:?}");
    })
    .await;
    eprintln!("fault proxy: {run}");
}

/// The first update of a FindMatch stream: the ticket, queued.
async fn queued(updates: &mut tonic::Streaming<pb::FindMatchUpdate>) -> String {
    let update = tokio::time::timeout(patience(), updates.next())
        .await
        .expect("the ticket's first update in time")
        .expect("the stream is open")
        .expect("an update");
    assert_eq!(update.state, pb::TicketState::Queued as i32, "{update:?}");
    update.ticket_id
}

/// Reads a FindMatch stream to its end: the match (ticket, game, seat), or the error that
/// ended it.
async fn outcome(
    mut updates: tonic::Streaming<pb::FindMatchUpdate>,
) -> Result<(String, String, u32), tonic::Status> {
    let read = async {
        while let Some(update) = updates.next().await {
            let update = update?;
            if update.state == pb::TicketState::Matched as i32 {
                return Ok((update.ticket_id, update.game_id, update.seat));
            }
            assert_ne!(
                update.state,
                pb::TicketState::Cancelled as i32,
                "a waiting ticket is not cancelled: {update:?}"
            );
        }
        panic!("the match stream ended without a match or an error");
    };
    tokio::time::timeout(scenario_patience(), read)
        .await
        .expect("matched in time")
}

/// A matchmaking replica SIGKILLed (of 3) while tickets wait: the gateway watches each ticket
/// again on another replica, so its FindMatch client sees no error and keeps its place (the
/// ticket it was given is the one matched); no ticket ends up in two games.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_matchmaking_replica_killed_with_tickets_waiting_costs_nobody_their_place() {
    let _alone = one_cluster_at_a_time().await;
    let mut cluster = Cluster::start(ClusterSpec::default()).await;
    let variants = caro_variants();
    let mut waiting = Vec::new();
    for (i, settings) in variants.iter().enumerate() {
        let mut waiter = sign_in(cluster.gateway(i % 2), &format!("w{i}")).await;
        let mut updates = waiter.ticket_updates(settings.clone()).await;
        let ticket = queued(&mut updates).await;
        waiting.push((waiter, ticket, tokio::spawn(outcome(updates))));
    }
    let victim = cluster.busiest(Role::Matchmaking);
    cluster.kill(Role::Matchmaking, victim);
    // Partners come on the other gateway once the replica is gone.
    let mut partners = Vec::new();
    for (i, settings) in variants.iter().enumerate() {
        let mut partner = sign_in(cluster.gateway((i + 1) % 2), &format!("p{i}")).await;
        let updates = partner.ticket_updates(settings.clone()).await;
        partners.push((partner, tokio::spawn(outcome(updates))));
    }
    let mut games = std::collections::BTreeSet::new();
    for ((waiter, ticket, waited), (partner, joined)) in waiting.into_iter().zip(partners) {
        let waited = waited.await.expect("reader");
        let (matched_ticket, game, seat) = waited.unwrap_or_else(|status| {
            panic!(
                "{}'s FindMatch broke when a matchmaking replica died: {status:?}",
                waiter.name
            )
        });
        assert_eq!(matched_ticket, ticket, "{} kept their ticket", waiter.name);
        let (_, partner_game, partner_seat) = joined
            .await
            .expect("reader")
            .unwrap_or_else(|status| panic!("{}: {status:?}", partner.name));
        assert_eq!(game, partner_game, "{} meets their partner", waiter.name);
        assert_ne!(seat, partner_seat, "one game, two seats");
        assert!(games.insert(game.clone()), "{game} holds one pair only");
    }
    cluster.restart(Role::Matchmaking, victim).await;
    assert!(
        cluster.dead_processes().is_empty(),
        "{:?}",
        cluster.dead_processes()
    );
    eprintln!(
        "matchmaking kill: {} waiting tickets kept their place, {} games, none shared",
        variants.len(),
        games.len()
    );
}

/// The claim visibility the timers scenario gives its timers replicas (seconds).
const TIMER_VISIBILITY_S: u64 = 2;
/// The Caro turn clock the timers scenario's quick matches get (C12 says a minute; milliseconds).
const SHORT_TURN_MS: u64 = 3_000;

/// A timers replica SIGKILLed (of 2) while many turn clocks are armed and coming due: every
/// game's clock still runs out exactly once in effect (one TurnTimedOut, C12; a claim the dead
/// replica held is fired again after the visibility timeout and any repeat is stale), and no
/// later than the visibility timeout after its deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timers_replica_killed_with_clocks_armed_loses_no_timeout_and_repeats_none() {
    const GAMES: usize = 10;
    let _alone = one_cluster_at_a_time().await;
    let visibility = TIMER_VISIBILITY_S.to_string();
    let turn = format!("caro={SHORT_TURN_MS}");
    let spec = ClusterSpec::default()
        .flags(Role::Timers, &["--visibility-seconds", &visibility])
        .flags(Role::Matchmaking, &["--turn-ms", &turn]);
    let mut cluster = Cluster::start(spec).await;
    let gateways = [cluster.gateway(0), cluster.gateway(1)];
    // Matched one pair at a time: the deadlines spread over the time that takes, so some
    // come due before the kill, some while a claim may be in flight, some after.
    let mut games = Vec::new();
    for mut table in tables(&cluster, GAMES).await {
        let snapshot = table.seats[0].game(&table.game_id).await;
        let deadline = snapshot.turn.expect("a turn").deadline_unix_ms;
        assert!(deadline > 0, "quick matches are timed (C12)");
        let follower = table.seats[0].on_gateway(table.gateways[0]);
        let follow = tokio::spawn(follow(
            follower,
            table.gateways[0],
            gateways.to_vec(),
            table.game_id.clone(),
        ));
        games.push((table, deadline, follow));
    }
    let first_due = games.iter().map(|(_, d, _)| *d).min().expect("games");
    let now = unix_ms();
    tokio::time::sleep(Duration::from_millis(
        u64::try_from(first_due - now).unwrap_or(0),
    ))
    .await;
    // Timers replicas have no callers (they poll Redis): either holds claims as often.
    let victim = 0;
    cluster.kill(Role::Timers, victim);
    let mut expired = 0;
    for (mut table, deadline, follow) in games {
        let (seen, _) = follow.await.expect("follower");
        let log = log_of(&mut table.seats[0], &table.game_id).await;
        check_game(&table.game_id, &log, &[seen], &[]);
        let timeouts: Vec<&pb::GameEvent> = log
            .iter()
            .filter(|e| matches!(e.kind, Some(pb::game_event::Kind::TurnTimedOut(_))))
            .collect();
        assert_eq!(
            timeouts.len(),
            1,
            "{}: X's clock ran out once (C12)",
            table.game_id
        );
        let late = timeouts[0].at_unix_ms - deadline;
        // Server timestamps, not the test's clock: the bound the design promises (visibility,
        // plus a second for the survivor's poll and the commit), not a performance figure.
        let bound = i64::try_from(TIMER_VISIBILITY_S * 1000 + 1000).expect("ms");
        assert!(
            (0..=bound).contains(&late),
            "{}: expired {late} ms after its deadline (bound {bound} ms)",
            table.game_id
        );
        expired += 1;
    }
    cluster.restart(Role::Timers, victim).await;
    assert!(
        cluster.dead_processes().is_empty(),
        "{:?}",
        cluster.dead_processes()
    );
    eprintln!("timers kill: {expired} clocks armed, {expired} expired once, none twice");
}

/// Game ends and a crash before their archive write (ARCHITECTURE.md, "The archive"): rated
/// games end while the archive (accounts) is down, so game-state's batches of game ends fail
/// and wait on the outcome timers; then both game-state replicas are SIGKILLed with whatever
/// batch they held, and everything comes back. The durable queue is the outcome timer in
/// Redis, acknowledged only once a batch is written: every game is archived once, listed once
/// in each player's history, and rated once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_ends_whose_archive_write_died_with_game_state_are_archived_and_rated_once() {
    const PAIRS: usize = 4;
    const RULESET: &str = "caro/15/blocked-ends";
    let _alone = one_cluster_at_a_time().await;
    let visibility = TIMER_VISIBILITY_S.to_string();
    let spec = ClusterSpec::default().flags(Role::Timers, &["--visibility-seconds", &visibility]);
    let mut cluster = Cluster::start(spec).await;
    // Rated games between accounts (M12), each pair across both gateways.
    let mut games = Vec::new();
    for n in 0..PAIRS {
        let mut a = register(cluster.gateway(0), &format!("ann{n}")).await;
        let mut b = register(cluster.gateway(1), &format!("bob{n}")).await;
        let ((game_a, seat_a), (game_b, _)) =
            tokio::join!(a.find_match(caro_settings()), b.find_match(caro_settings()));
        assert_eq!(game_a, game_b, "a lone pair is matched together");
        let (x, o) = if seat_a == 0 { (a, b) } else { (b, a) };
        games.push((game_a, x, o));
    }
    cluster.kill(Role::Accounts, 0);
    for (game_id, x, o) in &mut games {
        for (x_cell, o_cell) in [("D8", "A1"), ("E8", "C1"), ("F8", "E1"), ("G8", "G1")] {
            x.play(game_id, x_cell).await.expect("x moves");
            o.play(game_id, o_cell).await.expect("o moves");
        }
        let last = x.play(game_id, "H8").await.expect("the winning move (C1)");
        assert!(last.outcome.is_some(), "{game_id}: five in a row ends it");
    }
    // The outcome timers fire into the dead archive at least once (due at once, polled every
    // 250 ms), then game-state dies holding whatever it had batched.
    tokio::time::sleep(Duration::from_secs(TIMER_VISIBILITY_S + 1)).await;
    cluster.kill(Role::GameState, 0);
    cluster.kill(Role::GameState, 1);
    cluster.restart(Role::Accounts, 0).await;
    cluster.restart(Role::GameState, 0).await;
    cluster.restart(Role::GameState, 1).await;

    for (game_id, x, o) in &mut games {
        let archived = retry("the archive has the game", async || {
            x.client
                .get_archived_game(pb::GetArchivedGameRequest {
                    game_id: game_id.clone(),
                })
                .await
                .ok()
                .map(tonic::Response::into_inner)
        })
        .await;
        assert_eq!(archived.moves.len(), 9, "{game_id}: {:?}", archived.moves);
        assert_eq!(archived.outcome.expect("outcome").winners, [0]);
        for player in [&mut *x, &mut *o] {
            let history = player
                .client
                .list_player_games(pb::ListPlayerGamesRequest {
                    player_id: String::new(),
                    limit: 10,
                    page_token: String::new(),
                })
                .await
                .expect("history")
                .into_inner();
            let ids: Vec<&str> = history.games.iter().map(|g| g.game_id.as_str()).collect();
            assert_eq!(ids, [game_id.as_str()], "archived once");
            let rating = player.rating_after(RULESET, 1).await;
            assert_eq!(rating.games, 1, "rated once");
        }
        assert!(x.rating(RULESET).await.rating > 1200.0, "X won: rated up");
    }
    // Every outcome timer was acknowledged: nothing fires again and changes a rating.
    tokio::time::sleep(Duration::from_secs(TIMER_VISIBILITY_S + 1)).await;
    for (_, x, o) in &mut games {
        assert_eq!(x.rating(RULESET).await.games, 1, "rated once");
        assert_eq!(o.rating(RULESET).await.games, 1, "rated once");
    }
    assert!(
        cluster.dead_processes().is_empty(),
        "{:?}",
        cluster.dead_processes()
    );
    eprintln!(
        "game ends: {PAIRS} games ended into a dead archive and a killed game-state, each archived and rated once"
    );
}

fn unix_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970");
    i64::try_from(since.as_millis()).expect("ms")
}

/// redis-server SIGKILLed mid-load and started again on its AOF (`appendfsync always`): play
/// continues once it is back, and every move acknowledged before the crash is still in the
/// log (always fsyncs each write before the reply; see ARCHITECTURE.md for everysec).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restarted_on_its_aof_mid_load_keeps_every_acknowledged_move() {
    const GAMES: usize = 6;
    const MOVES: usize = 40;
    let _alone = one_cluster_at_a_time().await;
    let mut cluster = Cluster::start(ClusterSpec::default()).await;
    let run = faulted_load(&mut cluster, GAMES, MOVES, 0, async |cluster, acked| {
        when_acked(acked, GAMES * MOVES / 3).await;
        cluster.kill_redis();
        tokio::time::sleep(Duration::from_secs(1)).await;
        cluster.restart_redis();
    })
    .await;
    eprintln!("redis restart: {run}");
}

/// A gateway SIGKILLed mid-load (of 2): its clients' calls and streams break, they go to the
/// other gateway, retry their moves with the same action ids and subscribe again after the
/// last seq they saw; every subscriber still sees 1..N once each, and every acknowledged move
/// is in the log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_killed_mid_load_sends_its_clients_to_the_other_from_their_last_seq() {
    const GAMES: usize = 6;
    const MOVES: usize = 40;
    let _alone = one_cluster_at_a_time().await;
    let mut cluster = Cluster::start(ClusterSpec::default()).await;
    let run = faulted_load(&mut cluster, GAMES, MOVES, 1, async |cluster, acked| {
        when_acked(acked, GAMES * MOVES / 3).await;
        cluster.kill(Role::Gateway, 0);
    })
    .await;
    // One seat of every game followed it on the dead gateway: each subscribed again.
    assert!(
        run.resubscribed >= GAMES,
        "the dead gateway's {GAMES} followers subscribed again ({})",
        run.resubscribed
    );
    cluster.restart(Role::Gateway, 0).await;
    eprintln!("gateway kill: {run}");
}

/// The presence lease the presence scenario gives its gateways (seconds).
const PRESENCE_LEASE_S: u64 = 2;

/// Presence as a lease (ARCHITECTURE.md, "Disconnection (presence)"): a gateway SIGKILLed while a seated player's stream is open
/// on it can no longer close that stream with game-state; its lease lapses and the other
/// gateway closes it, so the player is declared disconnected (C13's grace starts) within the
/// lease and a third, and back when they subscribe on the live gateway. The live gateway's
/// player is not touched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_gateway_s_players_are_declared_disconnected_when_its_lease_lapses() {
    let _alone = one_cluster_at_a_time().await;
    let lease = PRESENCE_LEASE_S.to_string();
    let spec = ClusterSpec::default().flags(Role::Gateway, &["--presence-lease-seconds", &lease]);
    let mut cluster = Cluster::start(spec).await;
    let mut tables = tables(&cluster, 1).await;
    let Table {
        game_id,
        mut seats,
        gateways,
    } = tables.pop().expect("a table");
    // Each seat watches the game on its own gateway; the test kills the gateway of X (seat 0).
    let mut watchers = Vec::new();
    for seat in &mut seats {
        watchers.push(seat.subscribe(&game_id, 0).await);
    }
    let mut o_watch = watchers.pop().expect("O's stream");
    let first = ludus_tests::next_event(&mut o_watch).await;
    assert!(
        matches!(first.kind, Some(pb::game_event::Kind::Started(_))),
        "{first:?}"
    );
    let dead = cluster
        .replicas_of(Role::Gateway)
        .position(|addr| addr == gateways[0])
        .expect("X's gateway");
    let killed_at = unix_ms();
    cluster.kill(Role::Gateway, dead);
    let (disconnected, event) = ludus_tests::next_of(&mut o_watch, |kind| match kind {
        pb::game_event::Kind::PlayerDisconnected(d) => Some(*d),
        _ => None,
    })
    .await;
    assert_eq!(
        disconnected.seat, 0,
        "X, whose gateway died, is disconnected"
    );
    assert!(disconnected.return_by_unix_ms > 0, "C13's grace runs");
    // Server time of the commit against the kill: the documented bound (lease + a third of
    // it for the sweep), plus a second for the calls; a bound, not a performance figure.
    let bound = i64::try_from(PRESENCE_LEASE_S * 1000 * 4 / 3 + 1000).expect("ms");
    let after = event.at_unix_ms - killed_at;
    assert!(
        after <= bound,
        "declared {after} ms after the kill (bound {bound} ms)"
    );
    // X comes back on the live gateway.
    let mut x = seats[0].on_gateway(gateways[1]);
    let _x_watch = x.subscribe(&game_id, event.seq).await;
    let (back, _) = ludus_tests::next_of(&mut o_watch, |kind| match kind {
        pb::game_event::Kind::PlayerReconnected(r) => Some(r.seat),
        pb::game_event::Kind::PlayerDisconnected(d) => panic!("a second disconnection: {d:?}"),
        _ => None,
    })
    .await;
    assert_eq!(back, 0, "X is back");
    let o_seat = x.game(&game_id).await.disconnected;
    assert!(o_seat.is_empty(), "nobody is away: {o_seat:?}");
    cluster.restart(Role::Gateway, dead).await;
    assert!(
        cluster.dead_processes().is_empty(),
        "{:?}",
        cluster.dead_processes()
    );
    eprintln!(
        "presence lease: X declared disconnected {after} ms after its gateway died (bound {bound} ms)"
    );
}

/// The ticket lease the ticket scenario gives its matchmaking replicas (seconds).
const TICKET_LEASE_S: u64 = 2;

/// A crashed player's waiting ticket is not matched (ARCHITECTURE.md, "Matchmaking"): A waits through gateway 0,
/// which is SIGKILLed, so nothing can cancel A's ticket; with no watch left to renew its
/// lease, the matcher drops it, and the next two players are seated together, not with the
/// ghost. Meanwhile D, alive on the other gateway, waits longer than the lease and keeps
/// their ticket: a watched ticket's lease is renewed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_player_s_waiting_ticket_lapses_and_is_not_matched() {
    let _alone = one_cluster_at_a_time().await;
    let lease = TICKET_LEASE_S.to_string();
    let spec = ClusterSpec::default().flags(Role::Matchmaking, &["--ticket-lease-seconds", &lease]);
    let mut cluster = Cluster::start(spec).await;
    let variants = caro_variants();
    let (ghost_queue, live_queue) = (&variants[7], &variants[6]);
    let mut a = sign_in(cluster.gateway(0), "ann").await;
    let mut a_updates = a.ticket_updates(ghost_queue.clone()).await;
    queued(&mut a_updates).await;
    let mut d = sign_in(cluster.gateway(1), "dan").await;
    let mut d_updates = d.ticket_updates(live_queue.clone()).await;
    let d_ticket = queued(&mut d_updates).await;
    let d_waits = tokio::spawn(outcome(d_updates));
    cluster.kill(Role::Gateway, 0);
    drop(a_updates);
    // A's ticket goes once its lease has lapsed (read from the store, not slept for).
    let queues = ludus_store::QueueStore::new(
        ludus_store::Backend::redis(&cluster.redis_url())
            .await
            .expect("the cluster's Redis"),
    );
    let dropped = async {
        while queues
            .live_ticket(&a.id)
            .await
            .expect("read A's ticket")
            .is_some()
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(patience(), dropped)
        .await
        .expect("A's ticket is dropped once nobody renews its lease");
    let (mut b, mut c) = (
        sign_in(cluster.gateway(1), "bob").await,
        sign_in(cluster.gateway(1), "cid").await,
    );
    let b_waits = tokio::spawn(outcome(b.ticket_updates(ghost_queue.clone()).await));
    let c_waits = tokio::spawn(outcome(c.ticket_updates(ghost_queue.clone()).await));
    let (_, b_game, _) = b_waits.await.expect("reader").expect("B is matched");
    let (_, c_game, _) = c_waits.await.expect("reader").expect("C is matched");
    assert_eq!(
        b_game, c_game,
        "B and C sit together, not with A's dead ticket"
    );
    let mut e = sign_in(cluster.gateway(1), "eve").await;
    let e_waits = tokio::spawn(outcome(e.ticket_updates(live_queue.clone()).await));
    let (d_matched, d_game, _) = d_waits.await.expect("reader").expect("D is matched");
    let (_, e_game, _) = e_waits.await.expect("reader").expect("E is matched");
    assert_eq!(
        d_matched, d_ticket,
        "D, watched all along, kept their ticket past the lease"
    );
    assert_eq!(d_game, e_game, "D meets E");
    assert!(
        cluster.dead_processes().is_empty(),
        "{:?}",
        cluster.dead_processes()
    );
    eprintln!(
        "ticket lease: a dead player's ticket dropped, a live one kept past the {TICKET_LEASE_S} s lease"
    );
}

/// Guests in the scale-out scenario.
const SCALE_PLAYERS: usize = 10_000;
/// One guest in this many leaves FindMatch (10 %): half while the call is being opened, half
/// while their ticket waits.
const SCALE_LEAVE_ONE_IN: u32 = 10;
/// HTTP/2 connections per gateway the guests share (a tonic channel multiplexes streams):
/// 10,000 TCP connections from one test would measure the kernel, not Ludus.
const SCALE_CHANNELS_PER_GATEWAY: usize = 4;
/// FindMatch calls being opened at once; each stream then stays open until its match, so
/// thousands of tickets wait at the same time.
const SCALE_OPENING: usize = 200;
/// Sign-ins, GetGame and ListMyGames calls in flight at once (set-up and checks).
const SCALE_CALLS: usize = 200;
/// Bounds the whole queue-and-match phase, and each guest's own wait from their first call
/// (a loaded 2-core machine creates a few dozen games a second in debug builds).
const SCALE_PATIENCE: Duration = Duration::from_secs(300);

/// [`SCALE_PATIENCE`] stretched by how busy the machine is.
fn scale_patience() -> Duration {
    ludus_store::testing::patience(SCALE_PATIENCE)
}
/// How long a guest's departure may take to reach matchmaking: their reset stream read by
/// their gateway, which then drops its watch of their ticket, read in turn by the
/// matchmaking replica holding it (each a process the loaded machine starves: 1.3 s seen at
/// load average 16 on 2 cores). A seat is
/// confirmed, and stamped, by a watch that still sees its stream open, so a seat confirmed
/// within this after its player dropped their stream was confirmed before the departure got
/// there. A leaver is seated only through such a confirmation (ARCHITECTURE.md,
/// Matchmaking); one confirmed later than this, or never, is a player seated after leaving.
const DEPARTURE_NOTICE_MS: i64 = 5_000;

/// The scale-out scenario's queues and their table sizes: the eight Caro queues, two-player
/// and four-player Quoridor (free-for-all starts only when the table is full, Q4).
fn scale_queues() -> Vec<(pb::GameSettings, usize)> {
    let mut queues: Vec<(pb::GameSettings, usize)> =
        caro_variants().into_iter().map(|s| (s, 2)).collect();
    for players in [2, 4] {
        let settings = pb::GameSettings {
            options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
                players,
                ..Default::default()
            })),
            turn_time_ms: 0,
        };
        queues.push((settings, usize::try_from(players).expect("seats")));
    }
    queues
}

type GuestClient = pb::gateway_client::GatewayClient<
    tonic::service::interceptor::InterceptedService<tonic::transport::Channel, ludus_tests::Bearer>,
>;

/// When a guest of the scale-out scenario leaves FindMatch, if ever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leave {
    /// This long (0-3 ms) after calling FindMatch, whatever the call got to: before it
    /// arrives, while Enqueue or WatchTicket is in flight, or once the stream is open.
    Opening(Duration),
    /// This long (0-300 ms) after their ticket was queued, unless matched first.
    Waiting(Duration),
}

/// One guest of the scale-out scenario.
struct Guest {
    id: String,
    /// Index into [`scale_queues`].
    queue: usize,
    client: GuestClient,
    leave: Option<Leave>,
}

/// How one guest's FindMatch ended.
#[derive(Debug)]
enum Told {
    /// The stream announced this game and seat, this long after the guest's first
    /// FindMatch call (its time to match, retries included), for this ticket.
    Matched {
        game_id: String,
        seat: u32,
        waited: Duration,
        ticket_id: String,
    },
    /// The guest dropped their stream at this Unix ms, not told of a match before; their
    /// ticket if the stream named it.
    Left {
        at_ms: i64,
        ticket_id: Option<String>,
    },
    /// An answer the contract does not say to retry (the scenario fails on it).
    Refused(tonic::Status),
}

/// What the guests' tasks report as they go.
struct Progress {
    /// FindMatch calls whose stream opened (retries included).
    opened: AtomicUsize,
    /// Per queue: tickets queued and not yet matched, of guests who stay.
    waiting: Vec<std::sync::atomic::AtomicIsize>,
    /// Answers retried, by status code (the contract says to retry UNAVAILABLE).
    retried: std::sync::Mutex<std::collections::BTreeMap<String, usize>>,
    /// Bounds the FindMatch calls being opened.
    opening: tokio::sync::Semaphore,
}

impl Progress {
    fn retry(&self, status: &tonic::Status) {
        let mut retried = self.retried.lock().expect("retry counts");
        *retried.entry(format!("{:?}", status.code())).or_default() += 1;
    }

    fn waits(&self, queue: usize, by: isize) {
        self.waiting[queue].fetch_add(by, Ordering::Relaxed);
    }
}

/// Signs guests `first..first + n` in through the shared `channels` (alternating gateways),
/// guest `i` bound for queue `queue(i)` and leaving at `leave(i)`.
async fn scale_guests(
    channels: &[tonic::transport::Channel],
    first: usize,
    n: usize,
    queue: impl Fn(usize) -> usize,
    leave: impl Fn(usize) -> Option<Leave>,
) -> Vec<Guest> {
    let limit = tokio::sync::Semaphore::new(SCALE_CALLS);
    join_all((first..first + n).map(async |i| {
        let _permit = limit.acquire().await.expect("semaphore");
        let channel = channels[i % channels.len()].clone();
        let session = pb::gateway_client::GatewayClient::new(channel.clone())
            .sign_in_guest(pb::SignInGuestRequest {
                display_name: format!("g{i}"),
            })
            .await
            .unwrap_or_else(|status| panic!("guest {i} signs in: {status:?}"))
            .into_inner();
        let bearer = format!("Bearer {}", session.token)
            .parse()
            .expect("token is ascii");
        Guest {
            id: session.player_id,
            queue: queue(i),
            client: pb::gateway_client::GatewayClient::with_interceptor(
                channel,
                ludus_tests::Bearer::new(bearer),
            ),
            leave: leave(i),
        }
    }))
    .await
}

/// One guest's quick match, as an app does it: FindMatch, retried on UNAVAILABLE (the code
/// the contract says to retry), read until matched, or left at the guest's moment.
async fn seek(mut guest: Guest, settings: pb::GameSettings, progress: &Progress) -> (Guest, Told) {
    let request = pb::FindMatchRequest {
        settings: Some(settings),
        ranking: pb::MatchRanking::Default as i32,
    };
    let stays = guest.leave.is_none();
    // Set at the first call: waiting for a turn to open the stream is the test's queue.
    let mut patience_ends = None;
    let mut asked_at = None;
    loop {
        if let Some(Leave::Opening(after)) = guest.leave {
            let permit = progress.opening.acquire().await.expect("semaphore");
            // Whatever the call got to, its stream (if any) is dropped here, after taking the
            // updates already received without waiting for more: the ticket id a QUEUED one
            // told is how the check below finds this guest's table if it was seated before it
            // left, whatever became of its table mates (they may have left while opening too).
            let opened =
                tokio::time::timeout(after, guest.client.find_match(request.clone())).await;
            let mut ticket_id = None;
            if let Ok(Ok(updates)) = opened {
                let mut updates = updates.into_inner();
                while let Some(Some(Ok(update))) = updates.next().now_or_never() {
                    if !update.ticket_id.is_empty() {
                        ticket_id = Some(update.ticket_id);
                    }
                }
            }
            drop(permit);
            let at_ms = unix_ms();
            return (guest, Told::Left { at_ms, ticket_id });
        }
        let permit = progress.opening.acquire().await.expect("semaphore");
        let asked = *asked_at.get_or_insert_with(tokio::time::Instant::now);
        let deadline = *patience_ends.get_or_insert(asked + scale_patience());
        let opened = tokio::time::timeout_at(deadline, guest.client.find_match(request.clone()))
            .await
            .unwrap_or_else(|_| Err(tonic::Status::deadline_exceeded("FindMatch did not answer")));
        drop(permit);
        let mut updates = match opened {
            Ok(updates) => updates.into_inner(),
            Err(status) if status.code() == Code::Unavailable => {
                progress.retry(&status);
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(status) => return (guest, Told::Refused(status)),
        };
        progress.opened.fetch_add(1, Ordering::Relaxed);
        let mut queued = false;
        let mut ticket_id = None;
        let mut leave_at = deadline;
        loop {
            let next = match tokio::time::timeout_at(leave_at, updates.next()).await {
                Ok(next) => next,
                Err(_) if leave_at < deadline => {
                    drop(updates);
                    let at_ms = unix_ms();
                    return (guest, Told::Left { at_ms, ticket_id });
                }
                Err(_) => {
                    let status = tonic::Status::deadline_exceeded("not matched in time");
                    return (guest, Told::Refused(status));
                }
            };
            let update = match next {
                Some(Ok(update)) => update,
                Some(Err(status)) if status.code() == Code::Unavailable => {
                    progress.retry(&status);
                    if stays && queued {
                        progress.waits(guest.queue, -1);
                    }
                    break;
                }
                Some(Err(status)) => return (guest, Told::Refused(status)),
                None => {
                    let status = tonic::Status::unknown("FindMatch ended without a match");
                    return (guest, Told::Refused(status));
                }
            };
            if !update.ticket_id.is_empty() {
                ticket_id = Some(update.ticket_id.clone());
            }
            match pb::TicketState::try_from(update.state) {
                Ok(pb::TicketState::Queued) if !queued => {
                    queued = true;
                    if let Some(Leave::Waiting(after)) = guest.leave {
                        leave_at = tokio::time::Instant::now() + after;
                    } else {
                        progress.waits(guest.queue, 1);
                    }
                }
                Ok(pb::TicketState::Matched) => {
                    if stays && queued {
                        progress.waits(guest.queue, -1);
                    }
                    let (game_id, seat) = (update.game_id, update.seat);
                    let waited = asked.elapsed();
                    let ticket_id = update.ticket_id;
                    let told = Told::Matched {
                        game_id,
                        seat,
                        waited,
                        ticket_id,
                    };
                    return (guest, told);
                }
                _ => {
                    let status = tonic::Status::unknown(format!("unexpected update {update:?}"));
                    return (guest, Told::Refused(status));
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Calls `call` until it answers something other than UNAVAILABLE (every 100 ms, within
/// [`SCENARIO_PATIENCE`]); panics on any other refusal.
async fn answered<T>(
    what: &str,
    mut call: impl AsyncFnMut() -> Result<tonic::Response<T>, tonic::Status>,
) -> T {
    let deadline = tokio::time::Instant::now() + scenario_patience();
    loop {
        match call().await {
            Ok(response) => return response.into_inner(),
            Err(status) if status.code() == Code::Unavailable => {
                assert!(tokio::time::Instant::now() < deadline, "{what}: {status:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => panic!("{what}: {status:?}"),
        }
    }
}

/// Queued tickets in the store, over every queue.
async fn tickets_queued(queues: &ludus_store::QueueStore) -> usize {
    let mut queued = 0;
    for queue in queues.queues().await.expect("list the queues") {
        queued += queues
            .queued(&queue, 10_000)
            .await
            .expect("read a queue")
            .len();
    }
    queued
}

/// The `p`th percentile of `sorted` (nearest rank); zero when it is empty.
fn percentile(sorted: &[Duration], p: usize) -> Duration {
    let rank = (sorted.len() * p).div_ceil(100).max(1);
    sorted.get(rank - 1).copied().unwrap_or_default()
}

/// The id of a ticket matched into `game_id`, read from Redis (`ludus:{mm:QUEUE}:ticket:ID`
/// hashes record their game): for a table none of whose guests was told a ticket id.
async fn ticket_of_game(redis_url: &str, game_id: &str) -> String {
    let client = redis::Client::open(redis_url).expect("the cluster's Redis URL");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("connect to the cluster's Redis");
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("ludus:{mm:*}:ticket:*")
        .query_async(&mut conn)
        .await
        .expect("list the tickets");
    for key in keys {
        let game: Option<String> = redis::cmd("HGET")
            .arg(&key)
            .arg("game")
            .query_async(&mut conn)
            .await
            .expect("read a ticket's game");
        if game.as_deref() == Some(game_id)
            && let Some((_, id)) = key.rsplit_once(":ticket:")
        {
            return id.to_owned();
        }
    }
    panic!("{game_id}: no ticket in Redis records it");
}

/// Who sits where across the scale-out scenario's games, as the games say.
struct Seating {
    /// Player id -> the game they sit in.
    seated: std::collections::HashMap<String, String>,
    /// Leavers (player id) -> the Unix ms they left at.
    left_at: std::collections::HashMap<String, i64>,
    /// Each leaver seated: (player id, game id, seat).
    leavers_seated: Vec<(String, String, u32)>,
    /// Per queue: games, and players seated in them.
    per_queue: Vec<(usize, usize)>,
}

impl Seating {
    /// Counts `game` (of `queue`, tables of `size`): full, of distinct players, none of them
    /// seated in another game.
    fn add(&mut self, game: &pb::GameSnapshot, queue: usize, size: usize) {
        let game_id = &game.game_id;
        assert_eq!(game.seats.len(), size, "{game_id} seats its table's size");
        for (at, seat) in game.seats.iter().enumerate() {
            if let Some(other) = self.seated.insert(seat.player_id.clone(), game_id.clone()) {
                panic!("{} sits in {other} and {game_id}", seat.player_id);
            }
            if self.left_at.contains_key(&seat.player_id) {
                let at = u32::try_from(at).expect("seat");
                let seated = (seat.player_id.clone(), game_id.clone(), at);
                self.leavers_seated.push(seated);
            }
        }
        self.per_queue[queue].0 += 1;
        self.per_queue[queue].1 += size;
    }
}

/// The scale-out scenario: 10,000 guests through both gateways (4 shared HTTP/2
/// connections each), FindMatch streams opened 200 at a time and held until matched, so
/// thousands of tickets wait at once in ten queues (eight Caro, two-player and four-player
/// Quoridor) served by 3 matchmaking replicas; one guest in ten leaves, half while the call
/// is being opened (0-3 ms), half while their ticket waits (0-300 ms); the busiest
/// matchmaking replica is SIGKILLed once 40 % of the streams are open, and restarted 1 s
/// later. Tables the leavers leave short are completed by late guests at the end.
///
/// Checked: every guest who stays is told a game and seat (UNAVAILABLE is retried, as the
/// contract says; any other error fails); every game has exactly its table size of distinct
/// players, among them everyone told that game at the seat they were told; nobody sits in two
/// games (every guest's ListMyGames is exactly their game, or nothing), so every stayer is
/// seated exactly once; no leaver is seated after leaving: a leaver sits in a game only if
/// their seat was confirmed while their stream was held open (the confirmation's time, kept
/// on the ticket, is before they left, or within [`DEPARTURE_NOTICE_MS`] after: their
/// departure on its way); games = seated players / table size per queue; no
/// ticket is left queued; every process is alive (the killed one restarted). Printed: each
/// stayer's time to match (first FindMatch call to MATCHED), p50 and p99.
///
/// Flags for this scenario only: the gateways' sign-in limit (100/s, burst 1,000 per peer
/// address) is raised to 20,000, since every guest signs in from the test's one loopback
/// address; the Caro and Quoridor quick-match clocks are 10 min and 90 s, so no clock runs
/// out (and no game ends) before the checks read the games.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_tickets_on_three_matchmaking_replicas_one_killed_seat_everyone_once() {
    let _alone = one_cluster_at_a_time().await;
    let started = std::time::Instant::now();
    let spec = ClusterSpec::default()
        .flags(
            Role::Gateway,
            &["--sign-ins-per-second", "20000", "--sign-in-burst", "20000"],
        )
        .flags(
            Role::Matchmaking,
            &["--turn-ms", "caro=600000,quoridor=90000"],
        );
    // Matchmaking at scale, not durability (the Redis scenario fsyncs every write): the AOF
    // fsyncs once a second, as the deploy recommends.
    let spec = ClusterSpec {
        appendfsync: "everysec",
        ..spec
    };
    let mut cluster = Cluster::start(spec).await;
    let mut channels = Vec::new();
    for _ in 0..SCALE_CHANNELS_PER_GATEWAY {
        for gateway in 0..2 {
            channels.push(ludus_tests::connect(cluster.gateway(gateway)).await);
        }
    }
    let queues = scale_queues();
    let jitter = std::sync::Mutex::new(ludus_rules::SplitMix64(10_000));
    let draw = |bound: u32| {
        use ludus_rules::RandomSource as _;
        jitter.lock().expect("jitter").below(bound)
    };
    let n_queues = u32::try_from(queues.len()).expect("queues");
    let plan: Vec<(usize, Option<Leave>)> = (0..SCALE_PLAYERS)
        .map(|i| {
            let queue = usize::try_from(draw(n_queues)).expect("queue");
            let leave = (draw(SCALE_LEAVE_ONE_IN) == 0).then(|| {
                if i % 2 == 0 {
                    Leave::Opening(Duration::from_micros(u64::from(draw(3_000))))
                } else {
                    Leave::Waiting(Duration::from_millis(u64::from(draw(300))))
                }
            });
            (queue, leave)
        })
        .collect();
    let guests = scale_guests(&channels, 0, SCALE_PLAYERS, |i| plan[i].0, |i| plan[i].1).await;
    let signed_in = started.elapsed();

    let progress = std::sync::Arc::new(Progress {
        opened: AtomicUsize::new(0),
        waiting: queues.iter().map(|_| Default::default()).collect(),
        retried: Default::default(),
        opening: tokio::sync::Semaphore::new(SCALE_OPENING),
    });
    let seeking = std::time::Instant::now();
    let spawn_seek = |guest: Guest| {
        let (settings, progress) = (queues[guest.queue].0.clone(), progress.clone());
        tokio::spawn(async move { seek(guest, settings, &progress).await })
    };
    let leavers = plan.iter().filter(|(_, leave)| leave.is_some()).count();
    let mut tasks: Vec<_> = guests.into_iter().map(spawn_seek).collect();
    // The busiest replica (the one most gateway connections reach) dies mid-run.
    let kill_at = SCALE_PLAYERS * 2 / 5;
    let wait_open = async {
        while progress.opened.load(Ordering::Relaxed) < kill_at {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(scale_patience(), wait_open)
        .await
        .expect("40 % of the FindMatch streams open");
    let victim = cluster.busiest(Role::Matchmaking);
    cluster.kill(Role::Matchmaking, victim);
    let killed_after = seeking.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    cluster.restart(Role::Matchmaking, victim).await;

    // Tables the leavers left short: once every stream is open and the queues are still, a
    // queue whose waiting guests cannot fill a table gets late guests to fill it.
    let store = ludus_store::QueueStore::new(
        ludus_store::Backend::redis(&cluster.redis_url())
            .await
            .expect("the cluster's Redis"),
    );
    let mut late = 0;
    let mut last_waiting = Vec::new();
    let draining = async {
        loop {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if tasks.iter().all(tokio::task::JoinHandle::is_finished) {
                break;
            }
            let waiting: Vec<isize> = progress
                .waiting
                .iter()
                .map(|w| w.load(Ordering::Relaxed))
                .collect();
            let open = tasks.iter().filter(|t| !t.is_finished()).count();
            let all_waiting = usize::try_from(waiting.iter().sum::<isize>()).unwrap_or(0);
            // Still: every open task waits in a queue, and the store holds those tickets
            // only (every leaver's ticket is gone).
            let still = waiting == last_waiting
                && open == all_waiting
                && tickets_queued(&store).await == all_waiting;
            last_waiting = waiting.clone();
            if !still {
                continue;
            }
            for (queue, &w) in waiting.iter().enumerate() {
                let seats = queues[queue].1;
                let w = usize::try_from(w).unwrap_or(0);
                let short = (seats - w % seats) % seats;
                if short == 0 {
                    continue;
                }
                let fillers =
                    scale_guests(&channels, SCALE_PLAYERS + late, short, |_| queue, |_| None).await;
                late += short;
                tasks.extend(fillers.into_iter().map(spawn_seek));
            }
        }
    };
    tokio::time::timeout(scale_patience(), draining)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "guests still waiting after {:?}: {:?} per queue",
                scale_patience(),
                progress.waiting
            )
        });
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.expect("a guest's task panicked"));
    }
    let matched_in = seeking.elapsed();

    // Every guest who stayed was told a game and seat.
    let refused: Vec<String> = outcomes
        .iter()
        .filter_map(|(guest, told)| match told {
            Told::Refused(status) => Some(format!("{}: {status:?}", guest.id)),
            _ => None,
        })
        .collect();
    let mut refused_by_code = std::collections::BTreeMap::<String, usize>::new();
    for (_, told) in &outcomes {
        if let Told::Refused(status) = told {
            *refused_by_code
                .entry(format!("{:?}", status.code()))
                .or_default() += 1;
        }
    }
    assert!(
        refused.is_empty(),
        "{} guests not told a game ({refused_by_code:?}; first 3: {:?})",
        refused.len(),
        &refused[..refused.len().min(3)]
    );
    let checking = std::time::Instant::now();
    // Each game as its players see it, read once.
    let mut told_seats: std::collections::BTreeMap<String, Vec<(usize, u32)>> = Default::default();
    let mut left_at = std::collections::HashMap::new();
    for (i, (guest, told)) in outcomes.iter().enumerate() {
        match told {
            Told::Matched { game_id, seat, .. } => {
                told_seats
                    .entry(game_id.clone())
                    .or_default()
                    .push((i, *seat));
            }
            Told::Left { at_ms, .. } => {
                left_at.insert(guest.id.clone(), *at_ms);
            }
            Told::Refused(_) => unreachable!("checked above"),
        }
    }
    let limit = tokio::sync::Semaphore::new(SCALE_CALLS);
    let snapshots = join_all(told_seats.iter().map(async |(game_id, seats)| {
        let _permit = limit.acquire().await.expect("semaphore");
        let mut client = outcomes[seats[0].0].0.client.clone();
        let request = pb::GetGameRequest {
            game_id: game_id.clone(),
        };
        let game = answered(game_id, async || client.get_game(request.clone()).await).await;
        game.game.expect("a snapshot")
    }))
    .await;
    // Nobody in two games; every game full of distinct players; every told seat is theirs.
    let mut seating = Seating {
        seated: Default::default(),
        left_at,
        leavers_seated: Vec::new(),
        per_queue: vec![(0, 0); queues.len()],
    };
    for ((game_id, told_here), game) in told_seats.iter().zip(&snapshots) {
        let queue = outcomes[told_here[0].0].0.queue;
        for &(i, seat) in told_here {
            let (guest, _) = &outcomes[i];
            assert_eq!(guest.queue, queue, "{game_id}: one queue per table");
            let at = game.seats.get(usize::try_from(seat).expect("seat"));
            assert_eq!(
                at.map(|s| s.player_id.as_str()),
                Some(guest.id.as_str()),
                "{game_id}: {} sits where they were told ({seat})",
                guest.id
            );
        }
        seating.add(game, queue, queues[queue].1);
    }
    // What the store says each guest sits in: exactly the game they were told; a leaver in
    // none, or in one whose table was confirmed as they left (found above, or a game of
    // leavers only, which nobody was told: read here).
    let listed = join_all(outcomes.iter().map(async |(guest, _)| {
        let _permit = limit.acquire().await.expect("semaphore");
        let mut client = guest.client.clone();
        let list = async || {
            let request = pb::ListMyGamesRequest { limit: 10 };
            client.list_my_games(request).await
        };
        answered(&guest.id, list).await.games
    }))
    .await;
    for ((guest, told), games) in outcomes.iter().zip(&listed) {
        let ids: Vec<&str> = games.iter().map(|g| g.game_id.as_str()).collect();
        match told {
            Told::Matched { game_id, .. } => assert_eq!(
                ids,
                [game_id.as_str()],
                "{} sits in the game they were told, and no other",
                guest.id
            ),
            _ => {
                assert!(ids.len() <= 1, "leaver {} sits in {ids:?}", guest.id);
                if let Some(game) = games.first()
                    && !seating.seated.contains_key(&guest.id)
                {
                    assert!(
                        game.seats
                            .iter()
                            .all(|s| seating.left_at.contains_key(&s.player_id)),
                        "{}: a game nobody was told seats only leavers",
                        game.game_id
                    );
                    seating.add(game, guest.queue, queues[guest.queue].1);
                }
                if let Some(game) = games.first() {
                    assert_eq!(
                        seating.seated.get(&guest.id),
                        Some(&game.game_id),
                        "leaver {} sits where their game says",
                        guest.id
                    );
                }
            }
        }
    }
    let Seating {
        leavers_seated,
        per_queue,
        left_at,
        ..
    } = seating;
    let matched_players: usize = per_queue.iter().map(|(_, players)| players).sum();
    for (queue, &(games, players)) in per_queue.iter().enumerate() {
        assert_eq!(
            games * queues[queue].1,
            players,
            "queue {queue}: full tables"
        );
    }
    let stayed = outcomes
        .iter()
        .filter(|(_, t)| matches!(t, Told::Matched { .. }))
        .count();
    assert_eq!(
        matched_players,
        stayed + leavers_seated.len(),
        "seated = told + leavers whose seat was confirmed before they left"
    );
    // Only present players are seated: a leaver sits in a game only if their seat was
    // confirmed while their stream was still held open, i.e. they left after the confirmation
    // (the MATCHED answer on its way). Their ticket is found through the table a
    // known ticket of their game records.
    let mut known_ticket = std::collections::HashMap::new();
    for (guest, told) in &outcomes {
        match told {
            Told::Matched {
                game_id, ticket_id, ..
            } => {
                known_ticket.insert(game_id.clone(), ticket_id.clone());
            }
            Told::Left {
                ticket_id: Some(ticket_id),
                ..
            } => {
                if let Some((_, game_id, _)) = leavers_seated
                    .iter()
                    .find(|(player, _, _)| *player == guest.id)
                {
                    known_ticket.insert(game_id.clone(), ticket_id.clone());
                }
            }
            _ => {}
        }
    }
    let mut confirmed_lags = Vec::new();
    for (player, game_id, seat) in &leavers_seated {
        let known = match known_ticket.get(game_id) {
            Some(known) => known.clone(),
            // Every guest of this table left before its stream named their ticket (a loaded
            // machine can hold the first update back past a seat's confirmation): find one
            // of its tickets in Redis by the game it records.
            None => ticket_of_game(&cluster.redis_url(), game_id).await,
        };
        let known = &known;
        let queue = ludus_matchmaking::model::queue_of(known).expect("a ticket id");
        let table = match store.ticket(&queue, known).await.expect("read a ticket") {
            Some(ludus_store::Ticket {
                status: ludus_store::TicketStatus::Matched { table, .. },
                ..
            }) => table,
            other => panic!("{known} of {game_id} is not matched: {other:?}"),
        };
        let theirs = &table[usize::try_from(*seat).expect("seat")];
        let confirmed = store
            .confirmed_at(&queue, theirs)
            .await
            .expect("read a confirmation")
            .unwrap_or_else(|| panic!("leaver {player} seated in {game_id} unconfirmed"));
        let lag = i64::try_from(confirmed).expect("ms") - left_at[player];
        // The notice crosses processes the machine starves: its bound stretches with the load.
        let notice = ludus_store::testing::patience(Duration::from_millis(
            u64::try_from(DEPARTURE_NOTICE_MS).expect("positive"),
        ));
        assert!(
            u128::try_from(lag).unwrap_or(0) <= notice.as_millis(),
            "leaver {player} seated in {game_id}: confirmed {lag} ms after they left"
        );
        confirmed_lags.push(lag);
    }
    let latest = confirmed_lags.iter().copied().max().unwrap_or(i64::MIN);
    let emptied = async {
        while tickets_queued(&store).await > 0 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(patience(), emptied)
        .await
        .expect("no ticket is left queued");
    assert!(
        cluster.dead_processes().is_empty(),
        "{:?}",
        cluster.dead_processes()
    );
    let games: usize = per_queue.iter().map(|(games, _)| games).sum();
    // Time to match, first FindMatch call to the MATCHED update, of every guest told a game.
    let mut waits: Vec<Duration> = outcomes
        .iter()
        .filter_map(|(_, told)| match told {
            Told::Matched { waited, .. } => Some(*waited),
            _ => None,
        })
        .collect();
    waits.sort_unstable();
    let (p50, p99) = (percentile(&waits, 50), percentile(&waits, 99));
    let in_flight = confirmed_lags.iter().filter(|&&lag| lag > 0).count();
    eprintln!(
        "scale-out: {} guests ({SCALE_PLAYERS} + {late} late), {leavers} leavers \
         (0 seated after leaving; {} seated, confirmed present before their departure \
         arrived, {in_flight} of them with it on its way, latest confirmation {latest} ms \
         after leaving), \
         {stayed} told a game, {games} games, 0 in two games, 0 lost; matchmaking #{victim} \
         killed {killed_after:?} into the run; retried {:?}; sign-in {signed_in:?}, \
         queue+match {matched_in:?}, time to match p50 {p50:?} p99 {p99:?}, checks {:?}, \
         total {:?}",
        outcomes.len(),
        leavers_seated.len(),
        progress.retried.lock().expect("retry counts"),
        checking.elapsed(),
        started.elapsed()
    );
}
