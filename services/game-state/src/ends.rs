//! Game ends in batches: the archive records and rating reports of the games that end
//! together are written by one task, one `Accounts.RecordGames` (one SQL transaction) and one
//! `Ratings.ReportResults` per batch, instead of one call and one transaction per game.
//!
//! Durability stays where it was (ARCHITECTURE.md, "The archive"): the outcome timer, armed in
//! the finishing move's own commit, is the durable queue. `ReportOutcome` hands its game to
//! the batch and answers only once the batch is written, so the timer is acknowledged only
//! then; a process that dies with games in its batch has acknowledged none of them, their
//! timers fire again and the archive and ratings, idempotent per game id, store each once.
//! This queue in memory only groups the work.
//!
//! The batch forms by itself (group commit): the first game end is written at once, the
//! ends that arrive while a batch is being written make up the next one, up to
//! [`MAX_BATCH`]. A quiet system pays no wait; a burst of ends pays one archive transaction
//! and one ratings call per batch.

use std::sync::{Arc, OnceLock};

use ludus_proto::pb;
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument as _;

use crate::archive::Archiver;
use crate::error::ServiceError;
use crate::ratings::OutcomeReporter;

/// How many outcome reports of a replica read their game and build its record at once. A
/// burst of game ends (the timers fire 64 at a time) otherwise puts dozens of log reads on
/// the Redis connection and dozens of records on the workers at the very moment the moves
/// that ended those games, and the others, need them; one at a time, a record takes well
/// under a millisecond, so a replica still prepares over a thousand a second, and the
/// batch, which forms while the previous one is written, is unchanged. Measured (`loadgen
/// ends`, four interleaved pairs): the moves' p99 from the burst on 7.7-9.3 ms -> 4.8-7.4
/// ms, the finishing moves' p99 13-24 ms -> 9-11 ms, the ends' work still done within the
/// run (BENCHMARKS.md, "Game ends in bulk").
pub const PREPARED_AT_ONCE: usize = 1;

/// The most game ends one batch writes.
pub const MAX_BATCH: usize = 256;

/// The most archive record bytes in one batch: well under the 4 MiB a server decodes, and
/// small enough that the request's buffer (encoded in one poll, grown page by page) does not
/// hold a worker that serves moves: batches of 3 MiB put the finishing moves' p99 at 16-27
/// ms, of 512 KiB (about 60 Caro games) at 13-21 ms (BENCHMARKS.md, "Game ends in bulk").
const MAX_BATCH_BYTES: usize = 512 * 1024;

/// Game ends waiting for the batch task; a full queue makes `ReportOutcome` wait.
const QUEUE: usize = 4 * MAX_BATCH;

/// What a finished game still owes the archive and ratings.
#[derive(Debug, Default)]
pub struct GameEnd {
    /// Its archive record, encoded (`crate::archive::encoded_record`; `None` when there is
    /// no archive).
    pub archived: Option<Vec<u8>>,
    /// Its rating report (`None` for a casual game, M12).
    pub rating: Option<pb::ReportResultRequest>,
}

/// A queued game end.
#[derive(Debug)]
struct Job {
    end: GameEnd,
    /// Where its answer goes: whether ratings recorded it just now.
    reply: oneshot::Sender<Result<bool, ServiceError>>,
    /// The `traceparent` of the call that queued it (its timer firing's trace), which the
    /// batch's span links to; empty when untraced.
    traced_by: String,
}

/// Writes game ends in batches (see the module). Cheap to clone; the task starts with the
/// first game end, inside the service's runtime.
#[derive(Clone, Debug)]
pub struct GameEnds {
    queue: Arc<OnceLock<mpsc::Sender<Job>>>,
}

impl Default for GameEnds {
    fn default() -> Self {
        GameEnds {
            queue: Arc::new(OnceLock::new()),
        }
    }
}

impl GameEnds {
    /// Writes `end` with the batch it joins: its archive record first, then (once archived)
    /// its rating. Returns whether ratings recorded it just now; an error when either failed
    /// (the caller's outcome timer then fires again).
    pub async fn write(
        &self,
        end: GameEnd,
        archiver: Option<&Archiver>,
        reporter: &OutcomeReporter,
    ) -> Result<bool, ServiceError> {
        let queue = self.queue.get_or_init(|| {
            let (sender, receiver) = mpsc::channel(QUEUE);
            tokio::spawn(run(receiver, archiver.cloned(), reporter.clone()));
            sender
        });
        let (reply, answer) = oneshot::channel();
        let gone = || ServiceError::Unavailable("the game-end batch task stopped".into());
        let job = Job {
            end,
            reply,
            traced_by: ludus_server::propagation::current_traceparent(),
        };
        queue.send(job).await.map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }
}

/// The batch task: takes what is queued (up to [`MAX_BATCH`]) and writes it, until every
/// sender is gone.
async fn run(
    mut queue: mpsc::Receiver<Job>,
    archiver: Option<Archiver>,
    reporter: OutcomeReporter,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while queue.recv_many(&mut batch, MAX_BATCH).await > 0 {
        for jobs in by_size(std::mem::take(&mut batch)) {
            // A batch is a trace of its own: it serves many games' `ReportOutcome`s at once.
            // It links to each of their traces, so a timer's firing leads to the archive and
            // ratings calls that wrote its game (as a move leads to its fan-out).
            let span = tracing::info_span!(parent: None, "game_ends", games = jobs.len());
            if !span.is_disabled() {
                for job in &jobs {
                    ludus_server::propagation::link_to(&span, &job.traced_by);
                }
            }
            write_batch(jobs, archiver.as_ref(), &reporter)
                .instrument(span)
                .await;
        }
    }
}

/// Splits what was queued into batches whose archive records fit one request: servers
/// decode at most `MAX_DECODING_MESSAGE_SIZE` (4 MiB), and a long game's record (every event
/// with its view) can be hundreds of kilobytes. A record larger than the bound goes alone,
/// as it went in `RecordGame` before.
fn by_size(jobs: Vec<Job>) -> Vec<Vec<Job>> {
    let mut batches: Vec<Vec<Job>> = Vec::new();
    let mut bytes = 0;
    for job in jobs {
        let size = job.end.archived.as_ref().map_or(0, Vec::len);
        match batches.last_mut() {
            Some(last) if bytes + size <= MAX_BATCH_BYTES => last.push(job),
            _ => {
                bytes = 0;
                batches.push(vec![job]);
            }
        }
        bytes += size;
    }
    batches
}

/// One batch: one archive call for the games with a record, then one ratings call for the
/// archived games with a report (a game the archive did not take is not rated yet: its timer
/// brings it back). Every job gets its own answer.
async fn write_batch(jobs: Vec<Job>, archiver: Option<&Archiver>, reporter: &OutcomeReporter) {
    let mut pending: Vec<(Option<pb::ReportResultRequest>, oneshot::Sender<_>)> =
        Vec::with_capacity(jobs.len());
    let mut records = Vec::new();
    let mut archived_jobs = Vec::new();
    for Job { end, reply, .. } in jobs {
        match (end.archived, archiver) {
            (Some(record), Some(_)) => {
                records.push(record);
                archived_jobs.push((end.rating, reply));
            }
            _ => pending.push((end.rating, reply)),
        }
    }
    if let Some(archiver) = archiver.filter(|_| !records.is_empty()) {
        match archiver.record_all(records).await {
            Ok(answers) => {
                for ((rating, reply), answer) in archived_jobs.into_iter().zip(answers) {
                    match answer {
                        Ok(()) => pending.push((rating, reply)),
                        Err(refusal) => {
                            let _ = reply.send(Err(refusal.into()));
                        }
                    }
                }
            }
            Err(failure) => {
                for (_, reply) in archived_jobs {
                    let _ = reply.send(Err(failure.clone().into()));
                }
            }
        }
    }
    let (rated, unrated): (Vec<_>, Vec<_>) = pending
        .into_iter()
        .partition(|(rating, _)| rating.is_some());
    for (_, reply) in unrated {
        let _ = reply.send(Ok(false));
    }
    if rated.is_empty() {
        return;
    }
    let (reports, replies): (Vec<_>, Vec<_>) = rated
        .into_iter()
        .filter_map(|(rating, reply)| rating.map(|rating| (rating, reply)))
        .unzip();
    match reporter.report_all(reports).await {
        Ok(answers) => {
            for (reply, answer) in replies.into_iter().zip(answers) {
                let _ = reply.send(answer.map_err(ServiceError::from));
            }
        }
        Err(failure) => {
            for reply in replies {
                let _ = reply.send(Err(failure.clone().into()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end_of(record_bytes: usize) -> Job {
        let archived = vec![b'x'; record_bytes];
        let (reply, _) = oneshot::channel();
        Job {
            end: GameEnd {
                archived: Some(archived),
                rating: None,
            },
            reply,
            traced_by: String::new(),
        }
    }

    fn sizes(batches: &[Vec<Job>]) -> Vec<usize> {
        batches.iter().map(Vec::len).collect()
    }

    #[test]
    fn batches_stay_under_their_byte_bound_and_a_huge_record_goes_alone() {
        let small = (0..300).map(|_| end_of(1_000)).collect();
        assert_eq!(sizes(&by_size(small)), [300], "small records: one batch");

        // A little over a third of the bound each: three do not fit one batch.
        let third = MAX_BATCH_BYTES / 3;
        let mixed = vec![
            end_of(third + 1),
            end_of(third + 1),
            end_of(third + 1),
            end_of(5 * MAX_BATCH_BYTES),
            end_of(10),
        ];
        assert_eq!(
            sizes(&by_size(mixed)),
            [2, 1, 1, 1],
            "≤ MAX_BATCH_BYTES of records a batch; the huge record alone, the next after it"
        );
        let without_archive = (0..10)
            .map(|_| {
                let (reply, _) = oneshot::channel();
                Job {
                    end: GameEnd::default(),
                    reply,
                    traced_by: String::new(),
                }
            })
            .collect();
        assert_eq!(sizes(&by_size(without_archive)), [10]);
    }
}
