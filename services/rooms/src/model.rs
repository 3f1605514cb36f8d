//! Proto <-> domain: requests are validated on receipt, rooms and their changes become the
//! contract's views. Prost types stop here.

use ludus_proto::ids::validate_id;
use ludus_proto::pb;
use ludus_rules::{GameResult, Outcome};

use crate::RoomCode;
use crate::error::{RoomError, reason};
use crate::room::{Caller, Change, Hand, Phase, RockPaperScissors, Room, TableResult, Team};
use crate::settings::{FirstMover, RoomSettings};

/// The caller the gateway vouches for.
pub fn caller(caller: Option<pb::RoomCaller>) -> Result<Caller, RoomError> {
    let caller = caller.unwrap_or_default();
    validate_id("caller.player_id", &caller.player_id).map_err(|e| {
        RoomError::invalid("caller.player_id", reason::INVALID_FIELD, e.to_string())
    })?;
    Ok(Caller {
        name: if caller.display_name.is_empty() {
            caller.player_id.clone()
        } else {
            caller.display_name
        },
        player_id: caller.player_id,
        account: caller.account,
    })
}

/// A code as people type it.
pub fn code(code: &str) -> Result<RoomCode, RoomError> {
    RoomCode::parse(code)
        .map_err(|e| RoomError::invalid("code", reason::INVALID_FIELD, format!("code: {e}")))
}

/// The host's choices, checked against the game's rules.
pub fn settings(settings: Option<pb::RoomSettings>) -> Result<RoomSettings, RoomError> {
    let settings = settings.ok_or_else(|| {
        RoomError::invalid("settings", reason::INVALID_FIELD, "settings: choose a game")
    })?;
    let game = settings.game.ok_or_else(|| {
        RoomError::invalid(
            "settings.game",
            reason::INVALID_FIELD,
            "settings.game: choose a game",
        )
    })?;
    let first_mover = match pb::CaroFirstMover::try_from(settings.first_mover) {
        Ok(pb::CaroFirstMover::Host) => FirstMover::Host,
        Ok(pb::CaroFirstMover::Guest) => FirstMover::Guest,
        _ => FirstMover::RockPaperScissors,
    };
    RoomSettings::new(
        game,
        settings.public,
        settings.rated,
        first_mover,
        settings.auto_start.unwrap_or(true),
        settings.spectator_chat.unwrap_or(true),
    )
}

fn settings_to_pb(settings: &RoomSettings) -> pb::RoomSettings {
    pb::RoomSettings {
        game: Some(settings.game.clone()),
        public: settings.public,
        rated: settings.rated,
        first_mover: match settings.first_mover {
            FirstMover::Host => pb::CaroFirstMover::Host,
            FirstMover::Guest => pb::CaroFirstMover::Guest,
            FirstMover::RockPaperScissors => pb::CaroFirstMover::RockPaperScissors,
        } as i32,
        auto_start: Some(settings.auto_start),
        spectator_chat: Some(settings.spectator_chat),
    }
}

/// A team from the contract (unset: none).
pub fn team(team: i32) -> Option<Team> {
    match pb::RoomTeam::try_from(team) {
        Ok(pb::RoomTeam::Red) => Some(Team::Red),
        Ok(pb::RoomTeam::Yellow) => Some(Team::Yellow),
        _ => None,
    }
}

fn team_to_pb(team: Option<Team>) -> i32 {
    match team {
        Some(Team::Red) => pb::RoomTeam::Red as i32,
        Some(Team::Yellow) => pb::RoomTeam::Yellow as i32,
        None => pb::RoomTeam::Unspecified as i32,
    }
}

/// A finished game's outcome as the rules state it.
pub fn outcome(outcome: Option<pb::Outcome>) -> Result<Outcome, RoomError> {
    let outcome = outcome
        .ok_or_else(|| RoomError::invalid("outcome", reason::INVALID_FIELD, "outcome: required"))?;
    let result = match pb::ResultKind::try_from(outcome.kind) {
        Ok(pb::ResultKind::Win) => GameResult::Win {
            winners: outcome.winners.iter().map(|&s| s as usize).collect(),
        },
        Ok(pb::ResultKind::Draw) => GameResult::Draw,
        Ok(pb::ResultKind::Cancelled) => GameResult::Cancelled,
        _ => {
            return Err(RoomError::invalid(
                "outcome.kind",
                reason::INVALID_FIELD,
                "outcome.kind: win, draw or cancelled",
            ));
        }
    };
    Ok(Outcome {
        result,
        ranks: outcome.ranks,
        points: outcome.points,
        rule: outcome.rule,
        reason: outcome.reason,
    })
}

fn hand(hand: Hand) -> &'static str {
    match hand {
        Hand::Rock => "rock",
        Hand::Paper => "paper",
        Hand::Scissors => "scissors",
    }
}

fn rock_paper_scissors(draw: &RockPaperScissors) -> pb::RockPaperScissorsDraw {
    pb::RockPaperScissorsDraw {
        player_ids: draw.players.to_vec(),
        throws: draw
            .throws
            .iter()
            .map(|[a, b]| format!("{}/{}", hand(*a), hand(*b)))
            .collect(),
        winner_id: draw.winner.clone(),
    }
}

fn ms(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// The room as everyone sees it (chat apart).
pub fn view(room: &Room) -> pb::RoomView {
    let (phase, due, remaining) = match room.phase {
        Phase::Lobby => (pb::RoomPhase::Lobby, 0, 0),
        Phase::Countdown { due_ms, .. } => (pb::RoomPhase::Countdown, ms(due_ms), 0),
        Phase::Paused { remaining_ms, .. } => (pb::RoomPhase::Paused, 0, ms(remaining_ms)),
        Phase::Playing => (pb::RoomPhase::Playing, 0, 0),
    };
    pb::RoomView {
        code: room.code.as_str().to_owned(),
        display_code: room.code.display(),
        host_player_id: room.host.clone(),
        settings: Some(settings_to_pb(&room.settings)),
        phase: phase as i32,
        countdown_due_unix_ms: due,
        countdown_remaining_ms: remaining,
        members: room
            .members
            .iter()
            .map(|m| pb::RoomMember {
                player_id: m.player_id.clone(),
                display_name: m.name.clone(),
                account: m.account,
                seated: m.seat.is_some(),
                team: team_to_pb(m.seat.as_ref().and_then(|s| s.team)),
                ready: m.seat.as_ref().is_some_and(|s| s.ready),
                host: m.player_id == room.host,
                computer_level: m.computer.clone().unwrap_or_default(),
            })
            .collect(),
        tables: room
            .tables
            .iter()
            .map(|t| pb::RoomTable {
                game_id: t.game_id.clone(),
                player_ids: t.players.clone(),
                casual: t.casual,
                finished: t.result.is_some(),
                winner_ids: match &t.result {
                    Some(TableResult::Won { winners }) => winners.clone(),
                    _ => Vec::new(),
                },
            })
            .collect(),
        scoreboards: room
            .scoreboard
            .iter()
            .map(|(game, lines)| {
                let mut scores: Vec<pb::RoomScore> = lines
                    .iter()
                    .map(|(player, s)| pb::RoomScore {
                        player_id: player.clone(),
                        display_name: s.name.clone(),
                        played: s.played,
                        won: s.won,
                        drawn: s.drawn,
                        points: s.points,
                    })
                    .collect();
                scores.sort_by_key(|s| std::cmp::Reverse((s.points, s.won)));
                pb::RoomScoreboard {
                    game: game.clone(),
                    scores,
                }
            })
            .collect(),
        tournament: room.tournament.as_ref().map(|t| pb::RoomTournament {
            round: t.bracket.round(),
            bye_player_id: t
                .bracket
                .bye()
                .map(|b| t.entrants[b].clone())
                .unwrap_or_default(),
            entrant_ids: t.entrants.clone(),
        }),
        rock_paper_scissors: room.rock_paper_scissors.as_ref().map(rock_paper_scissors),
        seats: room.settings.players() as u32,
    }
}

fn chat_line(line: &crate::room::ChatLine) -> pb::RoomChatLine {
    pb::RoomChatLine {
        player_id: line.player_id.clone(),
        display_name: line.name.clone(),
        text: line.text.clone(),
        at_unix_ms: ms(line.at_ms),
    }
}

/// The room at `seq` with its last chat lines.
pub fn snapshot(seq: u64, room: &Room) -> pb::RoomSnapshot {
    pb::RoomSnapshot {
        seq,
        room: Some(view(room)),
        chat: room.chat.iter().map(chat_line).collect(),
    }
}

/// One change as subscribers get it.
pub fn change(change: &Change) -> pb::RoomChange {
    use pb::room_change::Kind;
    let mut out = pb::RoomChange::default();
    let kind = match change {
        Change::Created => Kind::Created,
        Change::Joined { player_id, seated } => {
            out.player_id = player_id.clone();
            out.seated = *seated;
            Kind::Joined
        }
        Change::Left { player_id } => {
            out.player_id = player_id.clone();
            Kind::Left
        }
        Change::Kicked { player_id } => {
            out.player_id = player_id.clone();
            Kind::Kicked
        }
        Change::Seated { player_id, team } => {
            out.player_id = player_id.clone();
            out.seated = true;
            out.team = team_to_pb(*team);
            Kind::Seated
        }
        Change::Unseated { player_id } => {
            out.player_id = player_id.clone();
            Kind::Unseated
        }
        Change::Ready { player_id, ready } => {
            out.player_id = player_id.clone();
            out.ready = *ready;
            Kind::Ready
        }
        Change::SettingsChanged => Kind::SettingsChanged,
        Change::HostChanged { player_id } => {
            out.player_id = player_id.clone();
            Kind::HostChanged
        }
        Change::RockPaperScissors(draw) => {
            out.rock_paper_scissors = Some(rock_paper_scissors(draw));
            Kind::RockPaperScissors
        }
        Change::GamesStarted { game_ids } => {
            out.game_ids = game_ids.clone();
            Kind::GamesStarted
        }
        Change::GameFinished { game_id, result } => {
            out.game_ids = vec![game_id.clone()];
            if let TableResult::Won { winners } = result {
                out.winner_ids = winners.clone();
            }
            Kind::GameFinished
        }
        Change::CountdownStarted { due_ms } => {
            out.due_unix_ms = ms(*due_ms);
            Kind::CountdownStarted
        }
        Change::CountdownPaused { remaining_ms } => {
            out.remaining_ms = ms(*remaining_ms);
            Kind::CountdownPaused
        }
        Change::CountdownCancelled { why } => {
            out.text = why.clone();
            Kind::CountdownCancelled
        }
        Change::TournamentRound { round, bye } => {
            out.round = *round;
            out.player_id = bye.clone().unwrap_or_default();
            Kind::TournamentRound
        }
        Change::Champion { player_id } => {
            out.player_id = player_id.clone();
            Kind::Champion
        }
        Change::Chat(line) => {
            out.chat = Some(chat_line(line));
            Kind::Chat
        }
    };
    out.kind = kind as i32;
    out
}

/// Whether the lobby lists the room: public and not empty.
pub fn listed(room: &Room) -> bool {
    room.settings.public && !room.is_empty()
}
