//! The knockout tournament (Q24, Q35) as pure logic, driven by match results.
//!
//! Players are numbered `0..players`. Each round pairs the remaining players in order
//! (after taking out the bye); every match is a classic game ([`Mode::TournamentMatch`])
//! whose seat 0 is `players[0]` and seat 1 is `players[1]`. Who moves first in a match is
//! drawn at random; a drawn match is replayed with the other player first, and a drawn
//! replay is settled by a coin toss **[decided: the toss gives no points; Q35 says draws
//! give none]**. With an odd number of players, a random player who has not had a bye yet
//! (any player once all have had one) sits the round out and goes through.

use std::fmt;

use ludus_rules::{GameResult, Outcome, RandomSource, RuleViolation};
use serde::{Deserialize, Serialize};

use crate::game::{POINTS_CHAMPION, POINTS_MATCH_WON};
use crate::options::{GoalKind, Mode, QuoridorOptions, Walls};

/// A tournament player, `0..players`.
pub type PlayerId = usize;

/// How a match was decided.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum MatchDecision {
    /// This player won a game (3 points, Q35).
    Won(PlayerId),
    /// Both games were drawn; this player won the coin toss (no points).
    CoinToss(PlayerId),
}

impl MatchDecision {
    /// The player who goes through.
    pub fn winner(self) -> PlayerId {
        match self {
            MatchDecision::Won(p) | MatchDecision::CoinToss(p) => p,
        }
    }
}

/// One match of the current round.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct BracketMatch {
    /// The two players; `players[i]` plays seat `i`.
    pub players: [PlayerId; 2],
    /// The seat (0 or 1) that moves first in the game to play now.
    pub first_seat: usize,
    /// True once the first game was drawn and this is the replay.
    pub replay: bool,
    /// The decision, once there is one.
    pub decision: Option<MatchDecision>,
}

impl BracketMatch {
    /// Options for the game to play now: a classic match with the bracket's first mover.
    pub fn options(&self, size: u8, goal: GoalKind, walls: Walls) -> QuoridorOptions {
        QuoridorOptions {
            mode: Mode::TournamentMatch,
            goal,
            size,
            walls,
            teams: Vec::new(),
            first_seat: Some(self.first_seat),
        }
    }
}

/// What a finished game means for its match.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum MatchResult {
    /// This player won the game.
    Won(PlayerId),
    /// The game was drawn (or did not count).
    Drawn,
}

impl MatchResult {
    /// Reads a game's outcome for a match (seat `i` is `m.players[i]`).
    pub fn from_outcome(m: &BracketMatch, outcome: &Outcome) -> MatchResult {
        match &outcome.result {
            GameResult::Win { winners } => match winners.first() {
                Some(&seat) if seat < 2 => MatchResult::Won(m.players[seat]),
                _ => MatchResult::Drawn,
            },
            GameResult::Draw | GameResult::Cancelled => MatchResult::Drawn,
        }
    }
}

/// Why a bracket refused a report.
#[derive(Clone, Eq, PartialEq, Debug)]
pub enum BracketError {
    /// A tournament needs at least two players.
    TooFewPlayers(usize),
    /// There is no such match in the current round.
    NoSuchMatch(usize),
    /// The match is already decided.
    AlreadyDecided(usize),
    /// The winner does not play in the match.
    NotInMatch { player: PlayerId, index: usize },
    /// The tournament has a champion.
    Finished,
}

impl fmt::Display for BracketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BracketError::TooFewPlayers(n) => {
                write!(f, "Q24: a tournament needs 2 players or more, not {n}")
            }
            BracketError::NoSuchMatch(i) => write!(f, "Q24: there is no match {i} in this round"),
            BracketError::AlreadyDecided(i) => write!(f, "Q24: match {i} is already decided"),
            BracketError::NotInMatch { player, index } => {
                write!(f, "Q24: player {player} does not play in match {index}")
            }
            BracketError::Finished => write!(f, "Q24: the tournament is over"),
        }
    }
}

impl std::error::Error for BracketError {}

impl RuleViolation for BracketError {
    fn rule(&self) -> &'static str {
        "Q24"
    }
}

/// A knockout tournament (Q24) with its Q35 points.
///
/// ```
/// use ludus_quoridor::{Bracket, MatchResult};
/// use ludus_rules::ScriptedRandom;
/// let mut rng = ScriptedRandom::new([0]);
/// let mut b = Bracket::new(2, &mut rng).unwrap();
/// let winner = b.matches()[0].players[1];
/// b.report(0, MatchResult::Won(winner), &mut rng).unwrap();
/// assert_eq!(b.champion(), Some(winner));
/// assert_eq!(b.points()[winner], 13); // 3 for the match, 10 as champion
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bracket {
    round: u32,
    had_bye: Vec<bool>,
    points: Vec<i64>,
    matches: Vec<BracketMatch>,
    bye: Option<PlayerId>,
    champion: Option<PlayerId>,
}

impl Bracket {
    /// A tournament of `players` players, round 1 paired.
    pub fn new(players: usize, rng: &mut dyn RandomSource) -> Result<Bracket, BracketError> {
        if players < 2 {
            return Err(BracketError::TooFewPlayers(players));
        }
        let mut b = Bracket {
            round: 0,
            had_bye: vec![false; players],
            points: vec![0; players],
            matches: Vec::new(),
            bye: None,
            champion: None,
        };
        b.start_round((0..players).collect(), rng);
        Ok(b)
    }

    /// The current round, from 1.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The matches of the current round.
    pub fn matches(&self) -> &[BracketMatch] {
        &self.matches
    }

    /// Who sits this round out, if anyone.
    pub fn bye(&self) -> Option<PlayerId> {
        self.bye
    }

    /// The champion, once there is one.
    pub fn champion(&self) -> Option<PlayerId> {
        self.champion
    }

    /// Q35 points of every player so far.
    pub fn points(&self) -> &[i64] {
        &self.points
    }

    fn start_round(&mut self, mut alive: Vec<PlayerId>, rng: &mut dyn RandomSource) {
        self.round += 1;
        self.bye = None;
        if alive.len() % 2 == 1 {
            let fresh: Vec<usize> = (0..alive.len())
                .filter(|&i| !self.had_bye[alive[i]])
                .collect();
            let pick = if fresh.is_empty() {
                rng.below(alive.len() as u32) as usize % alive.len()
            } else {
                fresh[rng.below(fresh.len() as u32) as usize % fresh.len()]
            };
            let p = alive.remove(pick);
            self.had_bye[p] = true;
            self.bye = Some(p);
        }
        self.matches = alive
            .chunks_exact(2)
            .map(|pair| BracketMatch {
                players: [pair[0], pair[1]],
                first_seat: rng.below(2) as usize % 2, // Q8
                replay: false,
                decision: None,
            })
            .collect();
    }

    /// Reports the game just played in match `index` of the current round. A win decides
    /// the match; a draw sets up the replay with the other player first, or after a drawn
    /// replay tosses a coin. Once every match is decided the next round is paired, or the
    /// champion crowned.
    pub fn report(
        &mut self,
        index: usize,
        result: MatchResult,
        rng: &mut dyn RandomSource,
    ) -> Result<(), BracketError> {
        if self.champion.is_some() {
            return Err(BracketError::Finished);
        }
        let m = self
            .matches
            .get_mut(index)
            .ok_or(BracketError::NoSuchMatch(index))?;
        if m.decision.is_some() {
            return Err(BracketError::AlreadyDecided(index));
        }
        match result {
            MatchResult::Won(p) => {
                if !m.players.contains(&p) {
                    return Err(BracketError::NotInMatch { player: p, index });
                }
                m.decision = Some(MatchDecision::Won(p));
                self.points[p] += POINTS_MATCH_WON;
            }
            MatchResult::Drawn if !m.replay => {
                m.replay = true;
                m.first_seat = 1 - m.first_seat;
            }
            MatchResult::Drawn => {
                let p = m.players[rng.below(2) as usize % 2];
                m.decision = Some(MatchDecision::CoinToss(p));
            }
        }
        if self.matches.iter().all(|m| m.decision.is_some()) {
            let mut next: Vec<PlayerId> = self
                .matches
                .iter()
                .filter_map(|m| m.decision.map(MatchDecision::winner))
                .collect();
            next.extend(self.bye);
            if let [champion] = next[..] {
                self.champion = Some(champion);
                self.points[champion] += POINTS_CHAMPION;
                self.bye = None;
            } else {
                self.start_round(next, rng);
            }
        }
        Ok(())
    }
}
