//! Who moves first where the game lets a room choose (the table policy's
//! `room_first_mover`): C10 for a new pairing (the host, the guest, or rock-paper-scissors
//! drawn when the guest sits down), C11 after that (the loser first; after a draw the first
//! mover switches).

use ludus_rules::RandomSource;
use serde::{Deserialize, Serialize};

use super::{Change, PlayerId, Room, TableResult};
use crate::settings::FirstMover;

/// Rock, paper or scissors (C10).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Hand {
    Rock,
    Paper,
    Scissors,
}

impl Hand {
    fn draw(rng: &mut dyn RandomSource) -> Hand {
        match rng.below(3) % 3 {
            0 => Hand::Rock,
            1 => Hand::Paper,
            _ => Hand::Scissors,
        }
    }

    fn beats(self, other: Hand) -> bool {
        matches!(
            (self, other),
            (Hand::Rock, Hand::Scissors)
                | (Hand::Paper, Hand::Rock)
                | (Hand::Scissors, Hand::Paper)
        )
    }
}

/// C10's draw: each throw of both players, the last one decisive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RockPaperScissors {
    pub players: [PlayerId; 2],
    /// Every throw, `[players[0]'s, players[1]'s]`; all but the last were equal.
    pub throws: Vec<[Hand; 2]>,
    pub winner: PlayerId,
}

/// The last game of a pairing, for C11.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct LastGame {
    /// The two players, sorted.
    pair: [PlayerId; 2],
    first: PlayerId,
    loser: Option<PlayerId>,
}

impl Room {
    /// C10: when the guest sits down at a table whose first game is drawn by
    /// rock-paper-scissors (where the game lets a room choose its first mover), the server
    /// throws for both players until one wins.
    pub(super) fn draw_rock_paper_scissors(
        &mut self,
        rng: &mut dyn RandomSource,
    ) -> Option<Change> {
        if !self.settings.policy().room_first_mover
            || self.settings.first_mover != FirstMover::RockPaperScissors
        {
            return None;
        }
        let seated = self.seated();
        let [a, b] = seated.as_slice() else {
            return None;
        };
        let players = [a.player_id.clone(), b.player_id.clone()];
        if self.pairing_has_played(&players) {
            return None;
        }
        let mut throws = Vec::new();
        let winner = loop {
            let throw = [Hand::draw(rng), Hand::draw(rng)];
            throws.push(throw);
            if throw[0].beats(throw[1]) {
                break players[0].clone();
            }
            if throw[1].beats(throw[0]) {
                break players[1].clone();
            }
            // Equal throws are drawn again (C10, decided).
        };
        let draw = RockPaperScissors {
            players,
            throws,
            winner,
        };
        self.rock_paper_scissors = Some(draw.clone());
        Some(Change::RockPaperScissors(draw))
    }

    pub(super) fn pairing_has_played(&self, players: &[PlayerId; 2]) -> bool {
        self.last_game
            .as_ref()
            .is_some_and(|last| last.pair == sorted_pair(players))
    }

    /// C10/C11: who moves first in the next game of these two players.
    pub(super) fn first_mover(&self, players: &[PlayerId]) -> Option<PlayerId> {
        let pair: [PlayerId; 2] = players.to_vec().try_into().ok()?;
        if let Some(last) = &self.last_game
            && last.pair == sorted_pair(&pair)
        {
            // C11: the loser moves first; after a draw the first mover switches.
            return Some(match &last.loser {
                Some(loser) => loser.clone(),
                None => pair.iter().find(|p| **p != last.first)?.clone(),
            });
        }
        // C10: the host's choice for a new pairing.
        match self.settings.first_mover {
            FirstMover::Host if pair.contains(&self.host) => Some(self.host.clone()),
            FirstMover::Guest if pair.contains(&self.host) => {
                pair.iter().find(|p| **p != self.host).cloned()
            }
            _ => self
                .rock_paper_scissors
                .as_ref()
                .filter(|d| sorted_pair(&d.players) == sorted_pair(&pair))
                .map(|d| d.winner.clone()),
        }
    }

    /// C11's memory: who moved first in the pairing's last game and who lost it.
    pub(super) fn remember_pairing(&mut self, players: &[PlayerId], result: &TableResult) {
        if !self.settings.policy().room_first_mover || players.len() != 2 {
            return;
        }
        let pair: [PlayerId; 2] = [players[0].clone(), players[1].clone()];
        let loser = match result {
            TableResult::Won { winners } => players.iter().find(|p| !winners.contains(p)).cloned(),
            _ => None,
        };
        match result {
            // A cancelled game (C15) does not count as the pairing's game.
            TableResult::Cancelled => {}
            _ => {
                self.last_game = Some(LastGame {
                    pair: sorted_pair(&pair),
                    first: players[0].clone(),
                    loser,
                });
            }
        }
    }
}

fn sorted_pair(pair: &[PlayerId; 2]) -> [PlayerId; 2] {
    let mut pair = pair.clone();
    pair.sort();
    pair
}
