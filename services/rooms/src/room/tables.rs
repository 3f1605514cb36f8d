//! The room's games: the table must be complete (seats, Q23 teams) and ready before the host
//! starts; a start creates the table game (first movers by C10/C11, teams by Q23) or the
//! tournament round's matches (Q24); a finished game updates the scoreboard, C11's memory
//! and the bracket, then starts the next round, a replay, the Q29 countdown or the lobby.

use ludus_catalog::policy::Bracket;
use ludus_rules::{GameResult, Outcome, RandomSource};

use super::{Change, Changes, Member, Phase, PlayerId, Room, Table, TableResult, Team, Tournament};
use crate::error::{RoomError, reason};
use crate::settings::RoomMode;

impl Room {
    /// The host starts the next game (or the tournament's next round).
    pub fn start(&mut self, host: &str, rng: &mut dyn RandomSource) -> Changes {
        self.require_host(host, "start a game")?;
        match self.phase {
            Phase::Playing => {
                return Err(RoomError::precondition(
                    reason::WRONG_STATE,
                    "a game of this room is being played",
                ));
            }
            Phase::Lobby | Phase::Countdown { .. } | Phase::Paused { .. } => {}
        }
        self.check_ready(Some(host))?;
        self.start_now(rng)
    }

    /// The table is complete: every seat taken, teams balanced (Q23).
    pub(super) fn check_table(&self) -> Result<(), RoomError> {
        let players = self.settings.players();
        let seated = self.seated();
        if let Some(t) = &self.tournament {
            // Between rounds only the bracket's survivors matter; they must still be here.
            if let Some(gone) = t.next_players().find(|p| self.member(p).is_none()) {
                return Err(RoomError::precondition(
                    "Q24",
                    format!("Q24: {gone} left the room; the tournament cannot go on"),
                ));
            }
            return Ok(());
        }
        let rule = match self.settings.mode() {
            RoomMode::Teams => "Q23",
            RoomMode::Tournament => "Q24",
            RoomMode::Table => self.settings.policy().seats_rule,
        };
        if seated.len() < players {
            return Err(RoomError::precondition(
                reason::TOO_FEW_PLAYERS,
                format!(
                    "{rule}: this table seats {players} players and {} are seated",
                    seated.len()
                ),
            ));
        }
        if self.settings.mode() == RoomMode::Teams {
            let red = seated
                .iter()
                .filter(|m| m.seat.as_ref().and_then(|s| s.team) == Some(Team::Red))
                .count();
            let yellow = seated.len() - red;
            if red != yellow {
                return Err(RoomError::precondition(
                    "Q23",
                    format!("Q23: teams must be even: red has {red} players, yellow {yellow}"),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn check_ready(&self, host: Option<&str>) -> Result<(), RoomError> {
        self.check_table()?;
        let players: Vec<&Member> = match &self.tournament {
            Some(t) => t.next_players().filter_map(|p| self.member(p)).collect(),
            None => self.seated(),
        };
        if let Some(waiting) = players.iter().find(|m| {
            Some(m.player_id.as_str()) != host && !m.seat.as_ref().is_some_and(|s| s.ready)
        }) {
            return Err(RoomError::precondition(
                reason::NOT_READY,
                format!("{} is not ready", waiting.name),
            ));
        }
        Ok(())
    }

    pub(super) fn start_now(&mut self, rng: &mut dyn RandomSource) -> Changes {
        let mut changes = Vec::new();
        if self.settings.mode() == RoomMode::Tournament && self.tournament.is_none() {
            let entrants: Vec<PlayerId> =
                self.seated().iter().map(|m| m.player_id.clone()).collect();
            let bracket = Bracket::new(entrants.len(), rng)
                .map_err(|e| RoomError::precondition("Q24", format!("Q24: {e}")))?;
            let tournament = Tournament { entrants, bracket };
            changes.push(tournament.round_change());
            self.tournament = Some(tournament);
        }
        self.tables = match &self.tournament {
            Some(t) => t
                .bracket
                .matches()
                .iter()
                .enumerate()
                .filter(|(_, m)| m.decision.is_none())
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
                .into_iter()
                .filter_map(|i| self.match_table(i))
                .collect(),
            None => vec![self.table_game()],
        };
        self.phase = Phase::Playing;
        changes.push(Change::GamesStarted {
            game_ids: self.tables.iter().map(|t| t.game_id.clone()).collect(),
        });
        Ok(changes)
    }

    pub(super) fn next_game_id(&mut self) -> String {
        self.games_started += 1;
        format!(
            "{}-{}-{}",
            self.code.as_str(),
            self.created_ms,
            self.games_started
        )
    }

    pub(super) fn casual(&self, players: &[PlayerId]) -> bool {
        !(self.settings.rated
            && players
                .iter()
                .all(|p| self.member(p).is_some_and(|m| m.account)))
    }

    /// The table game: every seated player, in seat order; where the room chooses the first
    /// mover (seat 0), C10 for a new pairing and C11 after that; in team mode the teams in
    /// seat order (Q23: members take the team's turns in the order they sat down).
    pub(super) fn table_game(&mut self) -> Table {
        let seated = self.seated();
        let mut players: Vec<PlayerId> = seated.iter().map(|m| m.player_id.clone()).collect();
        let teams: Vec<Team> = seated
            .iter()
            .map(|m| m.seat.as_ref().and_then(|s| s.team).unwrap_or(Team::Red))
            .collect();
        if self.settings.policy().room_first_mover
            && let Some(first) = self.first_mover(&players)
            && players.first() != Some(&first)
        {
            players.swap(0, 1);
        }
        let settings = match self.settings.mode() {
            RoomMode::Teams => ludus_catalog::team_game(&self.settings.game, &teams),
            RoomMode::Table | RoomMode::Tournament => self.settings.game.clone(),
        };
        let casual = self.casual(&players);
        Table {
            game_id: self.next_game_id(),
            players,
            settings,
            casual,
            bracket_match: None,
            result: None,
        }
    }

    /// A game of the room ended. Idempotent: a game already recorded, or not the room's,
    /// changes nothing. Updates the scoreboard (Q30-Q36), C11's memory, the bracket (Q24,
    /// Q35), then starts a replay, the auto-start countdown (Q29) or goes back to the lobby.
    pub fn game_finished(
        &mut self,
        game_id: &str,
        outcome: &Outcome,
        now_ms: u64,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        let Some(index) = self
            .tables
            .iter()
            .position(|t| t.game_id == game_id && t.result.is_none())
        else {
            return Ok(Vec::new());
        };
        let players = self.tables[index].players.clone();
        let result = match &outcome.result {
            GameResult::Win { winners } => TableResult::Won {
                winners: winners
                    .iter()
                    .filter_map(|&s| players.get(s).cloned())
                    .collect(),
            },
            GameResult::Draw => TableResult::Drawn,
            GameResult::Cancelled => TableResult::Cancelled,
        };
        self.tables[index].result = Some(result.clone());
        let mut changes = vec![Change::GameFinished {
            game_id: game_id.to_owned(),
            result: result.clone(),
        }];
        let in_tournament = self.tables[index].bracket_match.is_some();
        if result != TableResult::Cancelled {
            self.score_game(&players, &result, outcome, !in_tournament);
        }
        self.remember_pairing(&players, &result);
        if let Some(bracket_match) = self.tables[index].bracket_match {
            changes.extend(self.report_match(bracket_match, &result, now_ms, rng)?);
            return Ok(changes);
        }
        if self.live_tables().next().is_none() {
            changes.extend(self.between_games(now_ms));
        }
        Ok(changes)
    }
}
