//! Match play (B22): one hosted value that is a money game or a **whole match** to N points.
//!
//! [`BackgammonSession`] holds the match score ([`Match`]) and the game being played. When a
//! game of a match ends, the same action records its points and sets up the next game at once
//! (its opening roll, B4, comes from the same random source), with the Crawford rule from
//! [`Match::next_game_options`]; the session finishes (one [`Outcome`]) only when a player
//! reaches the match length. Leaving (resigning the session) loses the match, not just the game
//! being played (B21). In money play the session is the game itself.

use ludus_rules::{Game, Outcome, RandomSource, Seat, SetupError, Viewer};
use serde::{Deserialize, Serialize};

use crate::{Action, Backgammon, BackgammonError, BackgammonOptions, BackgammonView, Match};

/// The name of a seat's side, as messages say it (seat 0 plays white).
pub fn side_name(seat: Seat) -> &'static str {
    if seat == 0 { "white" } else { "black" }
}

/// A money game, or a whole match to N points (see the module docs).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BackgammonSession {
    /// The game being played (the last one, once a match is over).
    game: Backgammon,
    /// The match score; `None` in money play.
    #[serde(rename = "match")]
    score: Option<Match>,
    /// The match result, once a player reaches the match length or leaves.
    match_outcome: Option<Outcome>,
    /// How the previous game of the match ended.
    previous_game: Option<Outcome>,
    /// Actions applied in the match's finished games.
    plies_before: u32,
}

impl BackgammonSession {
    /// The game being played.
    pub fn game(&self) -> &Backgammon {
        &self.game
    }

    /// The match score; `None` in money play.
    pub fn match_score(&self) -> Option<&Match> {
        self.score.as_ref()
    }

    /// How the previous game of the match ended.
    pub fn previous_game(&self) -> Option<&Outcome> {
        self.previous_game.as_ref()
    }

    /// Actions applied in the match's finished games: it changes exactly when a game of the
    /// match ends and the next one starts.
    pub fn plies_before_game(&self) -> u32 {
        self.plies_before
    }

    /// A money game from a chosen position (tests, analysis).
    pub fn money(game: Backgammon) -> Self {
        BackgammonSession {
            game,
            score: None,
            match_outcome: None,
            previous_game: None,
            plies_before: 0,
        }
    }

    /// In a match, after a change: when the game just ended, record it and either finish
    /// the match or set up the next game (B22).
    fn after_change(&mut self, rng: &mut dyn RandomSource) {
        let Some(score) = self.score else { return };
        if self.match_outcome.is_some() {
            return;
        }
        let Some(result) = self.game.outcome().cloned() else {
            return;
        };
        let score = score.record(&result);
        self.score = Some(score);
        self.previous_game = Some(result.clone());
        if let Some(winner) = score.winner() {
            self.match_outcome = Some(match_result(winner, score, &result.reason));
            return;
        }
        match Backgammon::setup(score.next_game_options(), 2, rng) {
            Ok(next) => {
                self.plies_before += self.game.ply();
                self.game = next;
            }
            // Only a random source that rolls nothing but equal dice gets here.
            Err(e) => {
                self.match_outcome = Some(Outcome::cancelled(e.rule, e.to_string()));
            }
        }
    }
}

fn match_result(winner: Seat, score: Match, last: &str) -> Outcome {
    let [white, black] = score.score();
    Outcome::win(
        2,
        &[winner],
        "B22",
        format!(
            "{last}; {} wins the match to {} ({white}-{black})",
            side_name(winner),
            score.length()
        ),
    )
    .with_points(vec![i64::from(white), i64::from(black)])
}

impl Game for BackgammonSession {
    type Options = BackgammonOptions;
    type Action = Action;
    type View = BackgammonView;
    type Error = BackgammonError;

    /// A money game, or the first game of a match when `options.match_game` is set (its
    /// `length`; a hosted match starts at 0-0).
    fn setup(
        options: BackgammonOptions,
        seats: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, SetupError> {
        let score = match options.match_game {
            Some(m) => Some(Match::new(m.length)?),
            None => None,
        };
        let options = score.map_or(options, |m| m.next_game_options());
        Ok(BackgammonSession {
            game: Backgammon::setup(options, seats, rng)?,
            score,
            match_outcome: None,
            previous_game: None,
            plies_before: 0,
        })
    }

    fn parse_action(&self, text: &str) -> Result<Action, BackgammonError> {
        self.game.parse_action(text)
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<Seat> {
        if self.match_outcome.is_some() {
            return None;
        }
        self.game.to_move()
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if self.match_outcome.is_some() {
            return Vec::new();
        }
        self.game.legal_actions(seat)
    }

    fn apply(
        mut self,
        seat: Seat,
        action: &Action,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, (Self, BackgammonError)> {
        if self.match_outcome.is_some() {
            return Err((self, BackgammonError::new("B22", "the match is over")));
        }
        match self.game.apply(seat, action, rng) {
            Ok(game) => {
                self.game = game;
                self.after_change(rng);
                Ok(self)
            }
            Err((game, error)) => {
                self.game = game;
                Err((self, error))
            }
        }
    }

    /// B20, per game; the third timeout in a row forfeits the game, not the match.
    fn timeout(mut self, seat: Seat, rng: &mut dyn RandomSource) -> Self {
        if self.match_outcome.is_some() {
            return self;
        }
        self.game = self.game.timeout(seat, rng);
        self.after_change(rng);
        self
    }

    /// B21 (leaving): in money play the game is lost as the position stands; in a match,
    /// the match is lost.
    fn resign(mut self, seat: Seat) -> Self {
        if self.match_outcome.is_some() || self.game.outcome().is_some() || seat > 1 {
            return self;
        }
        self.game = self.game.resign(seat);
        if let Some(score) = self.score {
            let result = self.game.outcome().cloned();
            let score = result.as_ref().map_or(score, |r| score.record(r));
            self.score = Some(score);
            self.previous_game = result;
            let left = format!("{} left the match", side_name(seat));
            let mut outcome = match_result(seat ^ 1, score, &left);
            outcome.rule = "B21".to_owned();
            self.match_outcome = Some(outcome);
        }
        self
    }

    fn agree_draw(self) -> Result<Self, (Self, BackgammonError)> {
        let BackgammonSession {
            game,
            score,
            match_outcome,
            previous_game,
            plies_before,
        } = self;
        match game.agree_draw() {
            Ok(game) => Ok(BackgammonSession {
                game,
                score,
                match_outcome,
                previous_game,
                plies_before,
            }),
            Err((game, error)) => Err((
                BackgammonSession {
                    game,
                    score,
                    match_outcome,
                    previous_game,
                    plies_before,
                },
                error,
            )),
        }
    }

    fn outcome(&self) -> Option<&Outcome> {
        match self.score {
            Some(_) => self.match_outcome.as_ref(),
            None => self.game.outcome(),
        }
    }

    fn view(&self, viewer: Viewer) -> BackgammonView {
        let mut view = self.game.view(viewer);
        if self.match_outcome.is_some() {
            view.to_move = None;
            view.legal_actions.clear();
            view.legal_plays.clear();
        }
        view
    }

    fn ply(&self) -> u32 {
        self.plies_before + self.game.ply()
    }
}

#[cfg(test)]
mod tests {
    use ludus_rules::ScriptedRandom;

    use super::*;
    use crate::{MatchGame, ResignLevel};

    fn match_to(length: u32) -> BackgammonOptions {
        BackgammonOptions {
            match_game: Some(MatchGame {
                length,
                score: [0, 0],
                crawford: false,
            }),
            ..BackgammonOptions::default()
        }
    }

    #[test]
    fn b22_a_match_goes_on_after_a_game_and_ends_at_the_length() {
        // Opening 3-1: white on roll.
        let mut rng = ScriptedRandom::new([2, 0, 2, 0, 2, 0]);
        let s = BackgammonSession::setup(match_to(3), 2, &mut rng).expect("setup");
        let s = s
            .apply(0, &Action::Resign(ResignLevel::Gammon), &mut rng)
            .expect("offer");
        let s = s
            .apply(1, &Action::AcceptResignation, &mut rng)
            .expect("accept");
        assert!(s.outcome().is_none(), "2-0 in a 3-point match goes on");
        assert_eq!(s.match_score().map(Match::score), Some([0, 2]));
        assert!(s.game().is_crawford(), "B22: black is at 2 of 3");
        assert_eq!(s.ply(), 2);
        let s = s
            .apply(0, &Action::Resign(ResignLevel::Single), &mut rng)
            .expect("offer");
        let s = s
            .apply(1, &Action::AcceptResignation, &mut rng)
            .expect("accept");
        let outcome = s.outcome().expect("the match is over");
        assert_eq!(outcome.rule, "B22");
        assert_eq!(outcome.points, [0, 3]);
        assert_eq!(s.to_move(), None);
    }

    #[test]
    fn leaving_a_match_loses_it() {
        let mut rng = ScriptedRandom::new([2, 0]);
        let s = BackgammonSession::setup(match_to(5), 2, &mut rng).expect("setup");
        let s = s.resign(0);
        let outcome = s.outcome().expect("over");
        assert_eq!(outcome.rule, "B21");
        assert_eq!(outcome.ranks, [1, 0]);
    }
}
