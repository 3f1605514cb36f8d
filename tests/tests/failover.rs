//! A Redis Cluster master failover under a load of games (RELIABILITY.md, "Redis Cluster
//! master failover"; deploy/README.md, Failover): three masters with one replica each, the
//! whole system on it (the real gateway and game-state on loopback gRPC), Caro games played
//! move after move through the gateway, and the master holding the most games killed with
//! SIGKILL halfway. Its replica takes over by the cluster's own failover (a 2 s node timeout),
//! the killed node comes back as a replica of it, and the games go on.
//!
//! What the clients see is checked on every answer: OK, UNAVAILABLE (retried with the same
//! action id and seq) or ABORTED (the game is not at the seq the client holds: it reads the
//! game again), nothing else. Afterwards every acknowledged move is looked up in its game's
//! log (the event at its seq, the action id's mark): one that is not there was lost.
//!
//! Loss happens when the master acknowledged writes its replica never received. On loopback
//! the replica is microseconds behind, so the test makes the lag real and long: just before the
//! kill the replica is stopped (SIGSTOP) and the master drops its replication link, so for a
//! moment (until two moves landed in it, at most 3 s) the master acknowledges moves only it
//! holds, as a master whose replica link is slow or cut does. Without a replica wait those moves are lost (the test requires at least
//! one, to show the count is real); with `WAIT 1` none of them is acknowledged, and no
//! acknowledged move is lost.
//!
//! Each run also prints what a move costs with and without the wait: an unpaced burst of moves
//! before the failover (moves/s, p50 and p99 latency; a debug build, figures in
//! BENCHMARKS.md).

use std::{
    collections::HashSet,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use ludus_proto::pb;
use ludus_store::{Backend, GameStore, ReplicaWait, testing::RedisCluster};
use ludus_tests::{
    Ludus, PATIENCE, Player, caro_settings,
    load::{moves_in, o_cells, x_cells},
};
use prost::Message;
use tonic::Code;

/// How long a master must be unreachable before its replica takes over: short so the test
/// fails over within seconds, long enough that a busy machine does not fail nodes over by
/// itself.
const NODE_TIMEOUT: Duration = Duration::from_secs(2);
/// Games played through the failover (about a third of them on the killed master).
const GAMES: usize = 12;
/// Games of the unpaced burst that measures a move's cost.
const BURST_GAMES: usize = 8;
/// Moves per game of the burst.
const BURST_MOVES: usize = 30;
/// The most moves a game of this load plays: X's and O's cells (`load`) hold 32 each and
/// nothing in them makes five in a row, so no game ends by itself.
const MAX_MOVES: usize = 60;
/// The pause between two moves of a game during the failover load.
const PACE: Duration = Duration::from_millis(100);
/// The pause before a client retries an UNAVAILABLE answer.
const RETRY_PAUSE: Duration = Duration::from_millis(50);
/// The longest the replica is kept behind its master before the kill (it ends sooner, once
/// two moves were acknowledged, or refused for want of a replica, in that time): generous for
/// a busy machine, where a paced move can take a second. A replica stopped past the node
/// timeout is flagged failed meanwhile, which the cluster clears once it answers again.
const LAG_WINDOW: Duration = Duration::from_secs(3);
/// The wait the second test turns on: one replica, half a second (game-state's default).
const WAIT: ReplicaWait = ReplicaWait {
    replicas: 1,
    timeout: Duration::from_millis(500),
};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn master_failover_without_a_replica_wait_loses_the_moves_its_replica_never_had() {
    let report = failover(None).await;
    assert!(
        report.acked_in_lag > 0,
        "no move was acknowledged while the replica lagged: the scenario proved nothing ({report:?})"
    );
    // Every move the master acknowledged after its replica link was cut is lost: that is the
    // window deploy/README.md describes for asynchronous replication.
    assert!(
        report.lost >= report.acked_in_lag,
        "moves acknowledged by the master alone survived its loss: {report:?}"
    );
    assert!(
        report.lost <= report.acked_on_victim,
        "a move was lost on a master that did not fail: {report:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn master_failover_with_a_replica_wait_loses_no_acknowledged_move() {
    let report = failover(Some(WAIT)).await;
    assert!(
        report.unconfirmed > 0,
        "no move was refused for want of a replica while the replica lagged: the wait was never \
         tested ({report:?})"
    );
    assert_eq!(report.lost, 0, "acknowledged moves lost: {report:?}");
    assert_eq!(
        report.acked_in_lag, 0,
        "a move was acknowledged while no replica could have it: {report:?}"
    );
}

/// What one failover run found.
#[derive(Debug, Default)]
struct Report {
    /// Moves acknowledged in all, and on the killed master's games.
    acked: usize,
    acked_on_victim: usize,
    /// Moves sent after the replica link was cut, to the killed master's games, and
    /// acknowledged before the kill.
    acked_in_lag: usize,
    /// Acknowledged moves missing from their game's log afterwards.
    lost: usize,
    /// UNAVAILABLE answers (each retried), those to the other masters' games, and those
    /// refusing a move no replica confirmed.
    unavailable: usize,
    unavailable_elsewhere: usize,
    unconfirmed: usize,
    /// ABORTED answers (the client read the game again).
    aborted: usize,
}

/// One acknowledged move.
#[derive(Debug, Clone)]
struct Ack {
    game: usize,
    seq: u64,
    /// The id game-state records the action under (`player:action`).
    action_key: String,
    notation: String,
    sent: Instant,
    answered: Instant,
}

/// What every client saw, shared by the games' tasks.
#[derive(Debug, Default)]
struct Tally {
    acks: Vec<Ack>,
    /// When, and in which game.
    unavailable: Vec<(Instant, usize)>,
    unconfirmed: Vec<Instant>,
    aborted: usize,
    /// Answers the API contract does not allow here (UNKNOWN, INTERNAL, ...).
    violations: Vec<String>,
}

type Shared = Arc<Mutex<Tally>>;

fn tally(shared: &Shared) -> std::sync::MutexGuard<'_, Tally> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One game of the load: its id and its two players (X in seat 0, O in seat 1).
struct Game {
    id: String,
    x: Player,
    o: Player,
}

/// Starts the cluster and the system (waiting for replicas when `wait` says so), measures the
/// burst, then runs the failover scenario and counts what was lost.
async fn failover(wait: Option<ReplicaWait>) -> Report {
    let label = if wait.is_some() { "WAIT 1" } else { "no wait" };
    let mut cluster = RedisCluster::start_with_replicas(NODE_TIMEOUT).expect("redis cluster");
    let mut backend = Backend::redis(&cluster.url()).await.expect("connect");
    if let Some(wait) = wait {
        backend = backend.waiting_for_replicas(wait).await.expect("wait pool");
    }
    let ludus = Ludus::start_on_backend(backend).await;

    // The cost of a move, measured before anything fails.
    let burst_games = games(&ludus, "burst", BURST_GAMES).await;
    let shared = Shared::default();
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let tasks: Vec<_> = burst_games
        .into_iter()
        .enumerate()
        .map(|(i, game)| {
            tokio::spawn(play(
                i,
                game,
                Duration::ZERO,
                BURST_MOVES,
                shared.clone(),
                stop.clone(),
            ))
        })
        .collect();
    for task in tasks {
        task.await.expect("burst game");
    }
    let elapsed = started.elapsed();
    {
        let tally = tally(&shared);
        assert!(tally.violations.is_empty(), "{:?}", tally.violations);
        let mut latencies: Vec<Duration> = tally.acks.iter().map(|a| a.answered - a.sent).collect();
        latencies.sort();
        let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
        println!(
            "move cost ({label}): {} moves in {BURST_GAMES} games, closed loop, {:.0} moves/s, \
             latency p50 {:.1} ms, p99 {:.1} ms",
            latencies.len(),
            latencies.len() as f64 / elapsed.as_secs_f64(),
            at(0.5).as_secs_f64() * 1e3,
            at(0.99).as_secs_f64() * 1e3,
        );
    }

    // The failover load.
    let games = games(&ludus, "load", GAMES).await;
    let ids: Vec<String> = games.iter().map(|g| g.id.clone()).collect();
    let masters: Vec<usize> = cluster
        .nodes_seen_by(0)
        .expect("cluster nodes")
        .into_iter()
        .filter(|n| n.master && n.slot_ranges > 0)
        .map(|n| n.index)
        .collect();
    let owner = |id: &str| {
        let key = format!("ludus:game:{{{id}}}:state");
        masters
            .iter()
            .copied()
            .find(|&m| cluster.cli(m, &["exists", &key]).expect("exists").trim() == "1")
            .expect("a master holds every game")
    };
    let owners: Vec<usize> = ids.iter().map(|id| owner(id)).collect();
    let victim = masters
        .iter()
        .copied()
        .max_by_key(|&m| owners.iter().filter(|&&o| o == m).count())
        .expect("masters");
    let on_victim: Vec<bool> = owners.iter().map(|&o| o == victim).collect();
    let replica = cluster
        .nodes_seen_by(victim)
        .expect("cluster nodes")
        .into_iter()
        .find(|n| n.replica_of == Some(victim))
        .expect("the victim has a replica")
        .index;

    let shared = Shared::default();
    let tasks: Vec<_> = games
        .into_iter()
        .enumerate()
        .map(|(i, game)| tokio::spawn(play(i, game, PACE, MAX_MOVES, shared.clone(), stop.clone())))
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;

    // The replica falls behind: stopped, and its link cut by the master, which goes on
    // acknowledging (or, with the wait, refusing) moves only it holds.
    cluster.pause(replica, true).expect("SIGSTOP the replica");
    let cut = cluster.cli(victim, &["client", "kill", "type", "replica"]);
    let cut_at = Instant::now();
    assert!(cut.is_ok(), "cut the replication link: {cut:?}");
    let lag_events = |t: &Tally| {
        if wait.is_some() {
            t.unconfirmed.iter().filter(|&&at| at > cut_at).count()
        } else {
            t.acks
                .iter()
                .filter(|a| on_victim[a.game] && a.sent > cut_at)
                .count()
        }
    };
    while cut_at.elapsed() < LAG_WINDOW && lag_events(&tally(&shared)) < 2 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    cluster.kill(victim);
    let killed_at = Instant::now();
    cluster.pause(replica, false).expect("SIGCONT the replica");

    // The replica takes over: the cluster's own failover.
    let live_master = masters
        .iter()
        .copied()
        .find(|&m| m != victim)
        .expect("another master");
    let promoted = eventually(|| {
        let nodes = cluster.nodes_seen_by(live_master).unwrap_or_default();
        let took_over = nodes
            .iter()
            .any(|n| n.index == replica && n.master && !n.failed && n.slot_ranges > 0);
        took_over
            && cluster
                .cli(replica, &["cluster", "info"])
                .is_ok_and(|info| info.contains("cluster_state:ok"))
    })
    .await;
    assert!(promoted, "the replica is promoted");
    let promoted_after = killed_at.elapsed();

    // The killed node comes back (as Kubernetes restarts a pod) and rejoins as a replica.
    cluster.restart(victim).expect("restart the killed node");
    let rejoined = eventually(|| {
        let replication = cluster
            .cli(victim, &["info", "replication"])
            .unwrap_or_default();
        replication.contains("role:slave") && replication.contains("master_link_status:up")
    })
    .await;
    assert!(rejoined, "the killed node rejoins as a replica");
    let synced_after = killed_at.elapsed();

    // Every game goes on: three more moves each (or its last ones) after the node is back.
    let resumed_at = Instant::now();
    let went_on = eventually(|| {
        let t = tally(&shared);
        (0..GAMES).all(|g| {
            let acks: Vec<&Ack> = t.acks.iter().filter(|a| a.game == g).collect();
            let after = acks.iter().filter(|a| a.answered > resumed_at).count();
            after >= 3
                || acks
                    .iter()
                    .any(|a| usize::try_from(a.seq).unwrap_or(0) > MAX_MOVES)
        })
    })
    .await;
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await.expect("game task");
    }
    let tally = std::mem::take(&mut *tally(&shared));
    assert!(
        tally.violations.is_empty(),
        "answers outside OK / UNAVAILABLE / ABORTED: {:?}",
        tally.violations
    );
    assert!(went_on, "every game goes on after the failover");

    // Every game's log is whole: seqs 1, 2, ... with no gap, every event after the first a
    // move, no cell played twice (a move applied twice would be).
    let store = GameStore::new(Backend::redis(&cluster.url()).await.expect("connect"));
    for id in &ids {
        let log = store
            .events_after(id, 0, 1_000)
            .await
            .expect("read the log");
        let seqs: Vec<u64> = log.iter().map(|e| e.seq).collect();
        let expected: Vec<u64> = (1..=log.len() as u64).collect();
        assert_eq!(seqs, expected, "game {id}'s log has gaps");
        let events: Vec<pb::GameEvent> = log
            .iter()
            .map(|e| pb::GameEvent::decode(e.payload.as_slice()).expect("an event"))
            .collect();
        let moves = moves_in(&events);
        assert_eq!(
            moves.len(),
            log.len() - 1,
            "game {id}: events that are not moves"
        );
        let cells: HashSet<&str> = moves.iter().map(|m| m.cell.as_str()).collect();
        assert_eq!(cells.len(), moves.len(), "game {id}: a cell played twice");
    }

    // Every acknowledged move, looked up in its game's log.
    let mut lost = Vec::new();
    for ack in &tally.acks {
        let id = &ids[ack.game];
        let marked = store
            .action_seq(id, &ack.action_key)
            .await
            .expect("read the action's mark");
        let event = store.event(id, ack.seq).await.expect("read the event");
        let notation = event
            .and_then(|e| pb::GameEvent::decode(e.payload.as_slice()).ok())
            .and_then(|e| match e.kind {
                Some(pb::game_event::Kind::ActionApplied(applied)) => Some(applied.notation),
                _ => None,
            });
        if marked != Some(ack.seq) || notation.as_deref() != Some(ack.notation.as_str()) {
            lost.push(ack.clone());
        }
    }
    let report = Report {
        acked: tally.acks.len(),
        acked_on_victim: tally.acks.iter().filter(|a| on_victim[a.game]).count(),
        acked_in_lag: tally
            .acks
            .iter()
            .filter(|a| on_victim[a.game] && a.sent > cut_at && a.answered < killed_at)
            .count(),
        lost: lost.len(),
        unavailable: tally.unavailable.len(),
        unavailable_elsewhere: tally
            .unavailable
            .iter()
            .filter(|(_, game)| !on_victim[*game])
            .count(),
        unconfirmed: tally.unconfirmed.len(),
        aborted: tally.aborted,
    };
    // When the other masters' games were refused, from the kill on.
    let elsewhere: Vec<u128> = tally
        .unavailable
        .iter()
        .filter(|(at, game)| !on_victim[*game] && *at > killed_at)
        .map(|(at, _)| (*at - killed_at).as_millis())
        .collect();
    println!(
        "failover ({label}): the other masters' games refused from {:?} to {:?} ms after the kill",
        elsewhere.iter().min(),
        elsewhere.iter().max()
    );
    println!(
        "failover ({label}): {GAMES} games, {} on the killed master; {} moves acknowledged \
         ({} on its games, {} of them sent while the replica lagged, before the kill); \
         UNAVAILABLE {} (retried; {} in the other masters' games, {} refusing an unconfirmed \
         move), ABORTED {}; replica \
         promoted {} ms after the SIGKILL (node timeout {} ms), killed node back in sync as a \
         replica after {} ms; acknowledged moves lost: {}",
        on_victim.iter().filter(|&&v| v).count(),
        report.acked,
        report.acked_on_victim,
        report.acked_in_lag,
        report.unavailable,
        report.unavailable_elsewhere,
        report.unconfirmed,
        report.aborted,
        promoted_after.as_millis(),
        NODE_TIMEOUT.as_millis(),
        synced_after.as_millis(),
        report.lost,
    );
    for ack in lost.iter().take(5) {
        println!(
            "  lost: game {} seq {} {} (acknowledged {} ms before the kill)",
            ack.game,
            ack.seq,
            ack.notation,
            killed_at
                .saturating_duration_since(ack.answered)
                .as_millis()
        );
    }
    report
}

/// Whether `ready` says so within three times [`PATIENCE`], looking every 50 ms.
async fn eventually(mut ready: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + 3 * PATIENCE;
    while !ready() {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

/// `n` Caro games, each between two guests signed in through the gateway.
async fn games(ludus: &Ludus, prefix: &str, n: usize) -> Vec<Game> {
    let mut games = Vec::with_capacity(n);
    for i in 0..n {
        let x = ludus.player(&format!("{prefix}-x{i}")).await;
        let o = ludus.player(&format!("{prefix}-o{i}")).await;
        let snapshot = ludus.create_game("", caro_settings(), &[&x, &o]).await;
        games.push(Game {
            id: snapshot.game_id,
            x,
            o,
        });
    }
    games
}

/// Plays `game` through the gateway until `stop` or `max_moves`: X's and O's cells in turn,
/// a pause of `pace` between moves. UNAVAILABLE is retried with the same action id and seq;
/// ABORTED reads the game again (a lost move makes the game's seq go back) and plays on from
/// there; anything else is a violation and ends the game's task.
async fn play(
    index: usize,
    mut game: Game,
    pace: Duration,
    max_moves: usize,
    shared: Shared,
    stop: Arc<AtomicBool>,
) {
    let (x_cells, o_cells) = (x_cells(), o_cells());
    // Every event of these games is a move, so the seq says whose turn it is and which cell
    // comes next: event 1 starts the game, X plays the odd moves.
    let mut seq: u64 = 1;
    'moves: while !stop.load(Ordering::Relaxed) {
        let played = usize::try_from(seq - 1).unwrap_or(usize::MAX);
        if played >= max_moves {
            return;
        }
        let (player, cell) = if played % 2 == 0 {
            (&mut game.x, &x_cells[played / 2])
        } else {
            (&mut game.o, &o_cells[played / 2])
        };
        let action_id = player.next_action_id();
        let action_key = format!("{}:{action_id}", player.id);
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let sent = Instant::now();
            let answer = player.submit(&game.id, seq, &action_id, cell).await;
            let answered = Instant::now();
            match answer {
                Ok(response) => {
                    let Some(event) = response.event else {
                        tally(&shared)
                            .violations
                            .push(format!("game {index}: an answer without its event"));
                        return;
                    };
                    seq = event.seq;
                    tally(&shared).acks.push(Ack {
                        game: index,
                        seq,
                        action_key,
                        notation: cell.clone(),
                        sent,
                        answered,
                    });
                    break;
                }
                Err(status) if status.code() == Code::Unavailable => {
                    {
                        let mut t = tally(&shared);
                        t.unavailable.push((answered, index));
                        if status.message().contains("not acknowledged") {
                            t.unconfirmed.push(answered);
                        }
                    }
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Err(status) if status.code() == Code::Aborted => {
                    tally(&shared).aborted += 1;
                    match read_seq(index, player, &game.id, &shared, &stop).await {
                        Some(current) => seq = current,
                        None => return,
                    }
                    continue 'moves;
                }
                Err(status) => {
                    tally(&shared).violations.push(format!(
                        "game {index} SubmitAction: {:?} {}",
                        status.code(),
                        status.message()
                    ));
                    return;
                }
            }
        }
        tokio::time::sleep(pace).await;
    }
}

/// The game's seq as `player` reads it through the gateway, retrying UNAVAILABLE; `None` on
/// any other refusal (recorded as a violation) or when the load stops.
async fn read_seq(
    index: usize,
    player: &mut Player,
    game_id: &str,
    shared: &Shared,
    stop: &AtomicBool,
) -> Option<u64> {
    while !stop.load(Ordering::Relaxed) {
        let answer = player
            .client
            .get_game(pb::GetGameRequest {
                game_id: game_id.to_owned(),
            })
            .await;
        match answer {
            Ok(response) => return response.into_inner().game.map(|g| g.seq),
            Err(status) if status.code() == Code::Unavailable => {
                tally(shared).unavailable.push((Instant::now(), index));
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            Err(status) => {
                tally(shared).violations.push(format!(
                    "GetGame: {:?} {}",
                    status.code(),
                    status.message()
                ));
                return None;
            }
        }
    }
    None
}
