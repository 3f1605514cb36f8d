//! How one change is committed: state, event and clock in one compare-and-set, and the two
//! ways a handler makes a change (a seated player's, a server-side one with retries).

use ludus_catalog::outcome_to_pb;
use ludus_proto::codec::EncodedEvent;
use ludus_proto::pb;
use ludus_rules::Viewer;
use ludus_store::{Commit, CommitRefusal, Committed, StoreError};

use super::base::GameStateService;
use super::random;
use crate::error::ServiceError;
use crate::model::{Loaded, validate_id};

/// How many times a server-side change (timeout, resignation) retries a lost compare-and-set
/// before giving up with ABORTED.
const SERVER_RETRIES: usize = 5;

/// Why a commit wrote nothing.
#[derive(Debug)]
pub(super) enum CommitError {
    /// Another change landed first: game `game_id` is at `current`, not at `expected` (the
    /// seq the change was made on).
    StaleSeq {
        game_id: String,
        expected: u64,
        current: u64,
    },
    /// The player's action id was committed before, as event `seq`: a retry.
    DuplicateAction { seq: u64 },
    /// The game is gone, its record could not be saved, or the store failed.
    Failed(ServiceError),
}

impl From<ServiceError> for CommitError {
    fn from(error: ServiceError) -> Self {
        CommitError::Failed(error)
    }
}

impl From<StoreError> for CommitError {
    fn from(error: StoreError) -> Self {
        CommitError::Failed(error.into())
    }
}

/// A commit's refusal as the request's refusal (and so its gRPC status), for a caller that
/// has no answer of its own for it: a stale seq is ABORTED with the game's seq; an action id
/// committed before, where the caller does not answer with its first event, ALREADY_EXISTS.
impl From<CommitError> for ServiceError {
    fn from(error: CommitError) -> Self {
        match error {
            CommitError::StaleSeq {
                game_id,
                expected,
                current,
            } => ServiceError::StaleSeq {
                expected,
                game_id,
                current,
            },
            CommitError::DuplicateAction { seq } => {
                ServiceError::AlreadyExists(format!("this action was committed as event {seq}"))
            }
            CommitError::Failed(error) => error,
        }
    }
}

/// The store's answer to the commit of `loaded` in game-state's terms: the seq written, or
/// why nothing was.
fn landed(outcome: Result<Committed, CommitRefusal>, loaded: &Loaded) -> Result<u64, CommitError> {
    match outcome {
        Ok(Committed { seq }) => Ok(seq),
        Err(CommitRefusal::StaleSeq { current }) => Err(CommitError::StaleSeq {
            game_id: loaded.game_id.clone(),
            expected: loaded.seq,
            current,
        }),
        Err(CommitRefusal::DuplicateAction { seq }) => Err(CommitError::DuplicateAction { seq }),
        Err(CommitRefusal::NotFound) => Err(CommitError::Failed(ServiceError::NotFound(format!(
            "no game {}",
            loaded.game_id
        )))),
    }
}

/// Whether a change of `kind` moves the game on, so the next turn's clock starts: an action,
/// a timeout, a resignation, a take-back, or any change that ends the game. Coming and going,
/// and draw offers that leave the game going, keep the turn and its clock.
fn starts_a_turn(kind: &pb::game_event::Kind, loaded: &Loaded) -> bool {
    matches!(
        kind,
        pb::game_event::Kind::TurnTimedOut(_)
            | pb::game_event::Kind::Resigned(_)
            | pb::game_event::Kind::TakenBack(_)
            | pb::game_event::Kind::ActionApplied(_)
    ) || loaded.game.outcome().is_some()
}

impl GameStateService {
    /// The event for the game's state after a change.
    pub(super) fn event(
        &self,
        loaded: &Loaded,
        seq: u64,
        kind: pb::game_event::Kind,
    ) -> pb::GameEvent {
        pb::GameEvent {
            game_id: loaded.game_id.clone(),
            seq,
            at_unix_ms: self.now_ms(),
            kind: Some(kind),
            view: Some(loaded.game.view(Viewer::Spectator)),
            turn: Some(loaded.turn_info()),
            status: loaded.status() as i32,
            outcome: loaded.game.outcome().as_ref().map(outcome_to_pb),
            // The fan-out's span links to the work that made the event; clients can quote it.
            traceparent: ludus_server::propagation::current_traceparent(),
        }
    }

    /// Commits the change made to `loaded` as event `kind`: state, event and clock in one
    /// atomic compare-and-set on `loaded.seq` and, when given, `expected_version`. A change
    /// that moves the game on starts the next turn's clock here (see `start_turn_clock`); the
    /// timers it plans go with the commit (see [`ludus_store::GameStore::commit_with_timers`]).
    /// Returns the event and its encoding, the log's payload.
    pub(super) async fn commit(
        &self,
        mut loaded: Loaded,
        action_id: Option<&str>,
        kind: pb::game_event::Kind,
        expected_version: Option<&str>,
    ) -> Result<(pb::GameEvent, EncodedEvent), CommitError> {
        if starts_a_turn(&kind, &loaded) {
            self.start_turn_clock(&mut loaded);
        }
        let seq = loaded.seq + 1;
        let event = self.event(&loaded, seq, kind);
        // Encoded once: the log's payload and, in one process, the gateway's answer.
        let encoded = EncodedEvent::encode(&event);
        let state = loaded.save()?;
        let version = random::version_token();
        let outcome = self
            .store
            .commit_with_timers(
                &loaded.game_id,
                Commit {
                    expected_seq: loaded.seq,
                    action_id,
                    state: &state,
                    event: encoded.as_bytes(),
                    version: Some(&version),
                    expected_version,
                },
                &loaded.timers,
            )
            .await?;
        let seq = landed(outcome, &loaded)?;
        crate::metrics::committed(loaded.record.kind, &event);
        if loaded.game.outcome().is_some() {
            // The game leaves the live list and its players' indexes: two independent writes,
            // sent together (one round trip of waiting on the finishing move's path). The
            // archive and ratings are not on it: the outcome timer, armed in the commit
            // itself, brings them (ARCHITECTURE.md, "The archive").
            let now = u64::try_from(self.now_ms()).unwrap_or(0);
            let player_ids = loaded.player_ids();
            let (finished, unseated) = tokio::join!(
                self.store
                    .finish(&loaded.game_id, now, self.retention_at_finish()),
                self.store.seat_players(&loaded.game_id, &player_ids, false),
            );
            finished?;
            unseated?;
        }
        // The next move of this game on this replica starts from here.
        loaded.seq = seq;
        self.live.put(loaded, version);
        Ok((event, encoded))
    }

    /// A change a seated player makes to a live game outside the move order (resigning,
    /// offering or answering a draw): the caller must hold a seat and the game must still be
    /// active; `change` gets the loaded game and the caller's seat.
    pub(super) async fn seated_change<F>(
        &self,
        game_id: &str,
        player_id: &str,
        mut change: F,
    ) -> Result<pb::ApplyActionResponse, ServiceError>
    where
        F: FnMut(&mut Loaded, usize) -> Result<pb::game_event::Kind, ServiceError>,
    {
        validate_id("player_id", player_id)?;
        let event = self
            .server_change(game_id, |loaded| {
                let seat = loaded.require_seat(player_id)?;
                loaded.require_active()?;
                change(loaded, seat).map(Some)
            })
            .await?;
        Ok(pb::ApplyActionResponse {
            event,
            duplicate: false,
        })
    }

    /// Applies a server-side change (not bound to the caller's seq) with retries on a lost
    /// compare-and-set. `change` returns `None` when there is nothing to do.
    pub(super) async fn server_change<F>(
        &self,
        game_id: &str,
        mut change: F,
    ) -> Result<Option<pb::GameEvent>, ServiceError>
    where
        F: FnMut(&mut Loaded) -> Result<Option<pb::game_event::Kind>, ServiceError>,
    {
        for _ in 0..SERVER_RETRIES {
            let mut loaded = self.load(game_id).await?;
            let Some(kind) = change(&mut loaded)? else {
                return Ok(None);
            };
            match &kind {
                pb::game_event::Kind::DrawOffered(offer) => {
                    loaded.record.draw_offer =
                        Some(usize::try_from(offer.seat).unwrap_or(usize::MAX));
                }
                // Coming and going withdraws no draw offer.
                pb::game_event::Kind::PlayerDisconnected(_)
                | pb::game_event::Kind::PlayerReconnected(_)
                | pb::game_event::Kind::AbsenceChoiceOffered(_) => {}
                _ => loaded.record.draw_offer = None,
            }
            match self.commit(loaded, None, kind, None).await {
                Ok((event, _)) => return Ok(Some(event)),
                Err(CommitError::StaleSeq { .. }) => continue,
                Err(error) => return Err(error.into()),
            }
        }
        Err(ServiceError::Aborted(format!(
            "game {game_id} changed too often; try again"
        )))
    }
}
