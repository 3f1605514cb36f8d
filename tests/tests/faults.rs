//! Kill scenarios (issue 16): the real binaries as separate processes ([`Cluster`]), one of
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

use futures::future::join_all;
use ludus_proto::pb;
use ludus_tests::{
    PATIENCE, Player, caro_settings,
    cluster::{Cluster, ClusterSpec, Role},
    load::{Acked, caro_variants, moves_in, o_cells, retryable, x_cells},
    sign_in,
};
use tokio::sync::{Mutex, MutexGuard};
use tokio_stream::StreamExt;
use tonic::Code;

/// Bounds every wait of these tests: a hang fails, it does not stall CI.
const SCENARIO_PATIENCE: Duration = Duration::from_secs(60);

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
    let deadline = tokio::time::Instant::now() + SCENARIO_PATIENCE;
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
    let deadline = tokio::time::Instant::now() + SCENARIO_PATIENCE;
    loop {
        if let Some(done) = attempt().await {
            return done;
        }
        RETRIES.fetch_add(1, Ordering::Relaxed);
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: still failing after {SCENARIO_PATIENCE:?}"
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
        while let Some(event) = tokio::time::timeout(PATIENCE, stream.next()).await.ok()? {
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
    tokio::time::timeout(SCENARIO_PATIENCE, wait)
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

/// The first update of a FindMatch stream: the ticket, queued.
async fn queued(updates: &mut tonic::Streaming<pb::FindMatchUpdate>) -> String {
    let update = tokio::time::timeout(PATIENCE, updates.next())
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
    tokio::time::timeout(SCENARIO_PATIENCE, read)
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
    let turn = SHORT_TURN_MS.to_string();
    let spec = ClusterSpec::default()
        .flags(Role::Timers, &["--visibility-seconds", &visibility])
        .flags(Role::Matchmaking, &["--caro-turn-ms", &turn]);
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

/// Presence as a lease (issue 16): a gateway SIGKILLed while a seated player's stream is open
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

/// A crashed player's waiting ticket is not matched (issue 16): A waits through gateway 0,
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
    tokio::time::timeout(PATIENCE, dropped)
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
