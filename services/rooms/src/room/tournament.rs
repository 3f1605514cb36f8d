//! Q24: a knockout tournament the room runs: the catalog's [`Bracket`] pairs the entrants
//! round by round, each match is a two-player game, a drawn or cancelled one is replayed with
//! the other player first, and Q35's points go on the scoreboard.

use ludus_catalog::policy::{Bracket, MatchResult};
use ludus_rules::RandomSource;
use serde::{Deserialize, Serialize};

use super::{Change, Changes, Phase, PlayerId, Room, Table, TableResult};
use crate::error::RoomError;

/// A knockout tournament under way (Q24).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tournament {
    /// Entrants; the bracket numbers them by their index here.
    pub entrants: Vec<PlayerId>,
    pub bracket: Bracket,
}

impl Room {
    /// The game of the tournament's match `index`; `None` outside a tournament.
    pub(super) fn match_table(&mut self, index: usize) -> Option<Table> {
        let t = self.tournament.as_ref()?;
        let m = *t.bracket.matches().get(index)?;
        let players: Vec<PlayerId> = m.players.iter().map(|&p| t.entrants[p].clone()).collect();
        // Q24: the bracket says who moves first (the other player in a replay).
        let settings = ludus_catalog::tournament_game(&self.settings.game, Some(m.first_seat));
        let casual = self.casual(&players);
        Some(Table {
            game_id: self.next_game_id(),
            players,
            settings,
            casual,
            bracket_match: Some(index),
            result: None,
        })
    }

    pub(super) fn report_match(
        &mut self,
        index: usize,
        result: &TableResult,
        now_ms: u64,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        let Some(t) = &mut self.tournament else {
            return Ok(Vec::new());
        };
        let entrant = |p: &PlayerId| t.entrants.iter().position(|e| e == p);
        let reported = match result {
            TableResult::Won { winners } => match winners.first().and_then(entrant) {
                Some(w) => MatchResult::Won(w),
                None => MatchResult::Drawn,
            },
            // A drawn or cancelled game is replayed with the other player first (Q24).
            _ => MatchResult::Drawn,
        };
        let before = t.bracket.points().to_vec();
        let round = t.bracket.round();
        t.bracket
            .report(index, reported, rng)
            .map_err(|e| RoomError::precondition("Q24", format!("Q24: {e}")))?;
        let points: Vec<(PlayerId, i64)> = t
            .bracket
            .points()
            .iter()
            .zip(&before)
            .enumerate()
            .filter(|(_, (now, was))| now != was)
            .map(|(i, (now, was))| (t.entrants[i].clone(), now - was))
            .collect();
        let champion = t.bracket.champion().map(|c| t.entrants[c].clone());
        let next_round = t.bracket.round() != round;
        let replay = !next_round
            && champion.is_none()
            && t.bracket
                .matches()
                .get(index)
                .is_some_and(|m| m.decision.is_none());
        let round_change = t.round_change();
        // Q35: 3 per match won, 10 more for the champion, on this game's scoreboard.
        let board = self
            .scoreboard
            .entry(self.settings.kind().name().to_owned())
            .or_default();
        for (player, delta) in points {
            board.entry(player).or_default().points += delta;
        }
        let mut changes = Vec::new();
        if replay && let Some(table) = self.match_table(index) {
            changes.push(Change::GamesStarted {
                game_ids: vec![table.game_id.clone()],
            });
            self.tables.push(table);
            return Ok(changes);
        }
        if let Some(champion) = champion {
            self.tournament = None;
            self.phase = Phase::Lobby;
            changes.push(Change::Champion {
                player_id: champion,
            });
            return Ok(changes);
        }
        if next_round {
            changes.push(round_change);
            changes.extend(self.between_games(now_ms));
        }
        Ok(changes)
    }
}

impl Tournament {
    /// Players of the current round's undecided matches.
    pub(super) fn next_players(&self) -> impl Iterator<Item = &PlayerId> {
        self.bracket
            .matches()
            .iter()
            .filter(|m| m.decision.is_none())
            .flat_map(|m| m.players.iter().map(|&p| &self.entrants[p]))
    }

    pub(super) fn round_change(&self) -> Change {
        Change::TournamentRound {
            round: self.bracket.round(),
            bye: self.bracket.bye().map(|b| self.entrants[b].clone()),
        }
    }
}
