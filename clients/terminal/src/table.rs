//! What the client knows of one game, kept up to date from the snapshot and the events.

use ludus_proto::pb;

use super::render::{self, Frame};

/// Notes kept under the board; older ones scroll away.
const NOTES_KEPT: usize = 6;

/// One game as this client last saw it.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// The game.
    pub game_id: String,
    /// The players.
    pub seats: Vec<pb::SeatInfo>,
    /// The seq of the last event applied.
    pub seq: u64,
    /// Finished or not.
    pub finished: bool,
    /// Whose turn and the clock.
    pub turn: Option<pb::TurnInfo>,
    /// The position.
    pub view: Option<pb::GameView>,
    /// How it ended.
    pub outcome: Option<pb::Outcome>,
    /// The viewer's seat, when seated.
    pub me: Option<u32>,
    /// A pending draw offer, by this seat.
    pub draw_offered_by: Option<u32>,
    /// The absent seat whose C13 friend-room choice is pending, and whether waiting is
    /// still on offer.
    pub absence_choice: Option<(u32, bool)>,
    /// Recent notes (draw offers, timeouts, errors), oldest first.
    pub notes: Vec<String>,
}

impl Table {
    /// The table from a GetGame snapshot.
    pub fn from_snapshot(snapshot: pb::GameSnapshot) -> Self {
        Self {
            game_id: snapshot.game_id,
            seats: snapshot.seats,
            seq: snapshot.seq,
            finished: snapshot.status == pb::GameStatus::Finished as i32,
            turn: snapshot.turn,
            view: snapshot.view,
            outcome: snapshot.outcome,
            me: snapshot.your_seat,
            draw_offered_by: snapshot.draw_offered_by,
            absence_choice: snapshot
                .disconnected
                .iter()
                .find(|away| away.choose_by_unix_ms > 0)
                .map(|away| (away.seat, !away.waited)),
            notes: Vec::new(),
        }
    }

    /// Replaces what a newer snapshot knows better (after an ABORTED action), keeping the
    /// notes.
    pub fn refresh(&mut self, snapshot: pb::GameSnapshot) {
        if snapshot.seq < self.seq {
            return;
        }
        let notes = std::mem::take(&mut self.notes);
        let me = self.me;
        *self = Self::from_snapshot(snapshot);
        self.notes = notes;
        self.me = self.me.or(me);
    }

    /// Applies one event; events already applied (seq not newer) are ignored. Returns whether
    /// anything changed.
    pub fn apply(&mut self, event: &pb::GameEvent) -> bool {
        use pb::game_event::Kind;
        if event.seq <= self.seq {
            return false;
        }
        self.seq = event.seq;
        if event.view.is_some() {
            self.view.clone_from(&event.view);
        }
        self.turn.clone_from(&event.turn);
        if event.status == pb::GameStatus::Finished as i32 || event.outcome.is_some() {
            self.finished = true;
            self.outcome.clone_from(&event.outcome);
        }
        match &event.kind {
            Some(Kind::Started(started)) => {
                if !started.seats.is_empty() {
                    self.seats.clone_from(&started.seats);
                }
            }
            Some(Kind::DrawOffered(offer)) => self.draw_offered_by = Some(offer.seat),
            // Any move withdraws an offer (C8), and an answer settles it.
            Some(
                Kind::ActionApplied(_)
                | Kind::DrawDeclined(_)
                | Kind::DrawAgreed(_)
                | Kind::TakenBack(_),
            ) => {
                self.draw_offered_by = None;
            }
            Some(Kind::AbsenceChoiceOffered(offer)) => {
                self.absence_choice = Some((offer.seat, offer.wait_allowed));
            }
            // Answered, or the absent player came back: no choice is pending (C13).
            Some(
                Kind::AbsenceChoiceMade(_) | Kind::PlayerReconnected(_) | Kind::AbsenceExpired(_),
            ) => self.absence_choice = None,
            Some(Kind::TurnTimedOut(_) | Kind::Resigned(_) | Kind::PlayerDisconnected(_))
            | None => {}
        }
        if let Some(line) = render::event_line(event, self.view.as_ref(), &self.seats) {
            self.note(line);
        }
        true
    }

    /// Adds a note under the board.
    pub fn note(&mut self, line: String) {
        self.notes.push(line);
        if self.notes.len() > NOTES_KEPT {
            let excess = self.notes.len() - NOTES_KEPT;
            self.notes.drain(..excess);
        }
    }

    /// It is the viewer's turn in a game still going on.
    pub fn my_turn(&self) -> bool {
        !self.finished && self.me.is_some() && self.turn.as_ref().and_then(|t| t.to_move) == self.me
    }

    /// The whole screen: board, turn, clock and notes.
    pub fn screen(&self, now_ms: i64) -> String {
        let mut out = render::render_frame(&Frame {
            game_id: &self.game_id,
            seats: &self.seats,
            view: self.view.as_ref(),
            turn: self.turn.as_ref(),
            finished: self.finished,
            me: self.me,
            draw_offered_by: self.draw_offered_by,
            notes: &self.notes,
            now_ms,
        });
        if self.finished {
            out.push_str(&self.outcome_line());
        }
        out
    }

    /// How the game ended.
    pub fn outcome_line(&self) -> String {
        render::render_outcome(self.outcome.as_ref(), self.view.as_ref(), &self.seats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, kind: pb::game_event::Kind) -> pb::GameEvent {
        pb::GameEvent {
            game_id: "g".into(),
            seq,
            kind: Some(kind),
            turn: Some(pb::TurnInfo {
                to_move: Some(u32::try_from(seq % 2).unwrap_or(0)),
                deadline_unix_ms: 0,
                turn_seq: seq,
            }),
            status: pb::GameStatus::Active as i32,
            ..Default::default()
        }
    }

    #[test]
    fn events_apply_once_and_track_draw_offers() {
        let mut table = Table {
            me: Some(0),
            ..Default::default()
        };
        let offer = event(
            1,
            pb::game_event::Kind::DrawOffered(pb::DrawOffered { seat: 1 }),
        );
        assert!(table.apply(&offer));
        assert!(!table.apply(&offer), "a repeated event is ignored");
        assert_eq!(table.draw_offered_by, Some(1));
        let declined = event(
            2,
            pb::game_event::Kind::DrawDeclined(pb::DrawDeclined { seat: 0 }),
        );
        assert!(table.apply(&declined));
        assert_eq!(table.draw_offered_by, None);
        assert!(table.my_turn());
        assert_eq!(table.notes.len(), 2);
        let mut end = event(
            3,
            pb::game_event::Kind::Resigned(pb::PlayerResigned { seat: 0 }),
        );
        end.status = pb::GameStatus::Finished as i32;
        end.turn = Some(pb::TurnInfo::default());
        end.outcome = Some(pb::Outcome {
            kind: pb::ResultKind::Win as i32,
            winners: vec![1],
            rule: "C14".into(),
            reason: "X resigned".into(),
            ..Default::default()
        });
        assert!(table.apply(&end));
        assert!(table.finished && !table.my_turn());
        assert!(
            table
                .screen(0)
                .ends_with("game over: O (seat 1) wins — C14: X resigned\n")
        );
    }

    #[test]
    fn a_c13_choice_is_pending_until_answered_or_the_absent_player_is_back() {
        let mut table = Table {
            me: Some(0),
            ..Default::default()
        };
        let offer = |seq| {
            event(
                seq,
                pb::game_event::Kind::AbsenceChoiceOffered(pb::AbsenceChoiceOffered {
                    seat: 1,
                    chooser: 0,
                    wait_allowed: true,
                    choose_by_unix_ms: 1,
                }),
            )
        };
        table.apply(&offer(1));
        assert_eq!(table.absence_choice, Some((1, true)));
        assert!(table.notes[0].contains("wait (one more minute), win or draw"));
        table.apply(&event(
            2,
            pb::game_event::Kind::PlayerReconnected(pb::PlayerReconnected { seat: 1 }),
        ));
        assert_eq!(table.absence_choice, None, "coming back cancels the choice");
        table.apply(&offer(3));
        table.apply(&event(
            4,
            pb::game_event::Kind::AbsenceChoiceMade(pb::AbsenceChoiceMade {
                seat: 1,
                chooser: 0,
                choice: pb::AbsenceChoice::Wait as i32,
                return_by_unix_ms: 2,
                effect: String::new(),
            }),
        ));
        assert_eq!(table.absence_choice, None);
        assert!(
            table.notes[3].contains("waits one more minute"),
            "{:?}",
            table.notes
        );
    }
}
