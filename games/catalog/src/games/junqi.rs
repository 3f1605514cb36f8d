//! Flip Junqi in the contract: `JunqiOptions`, `JunqiAction`, `JunqiView`
//! (proto/ludus/v1/junqi.proto).
//!
//! Hidden information (J22): the view comes from `Junqi::view`, which is built from public
//! facts only, and nothing here reads the hidden layout. Autoplay (J19) is the one hook Junqi
//! adds to [`Hosting`]: while the seat to move is on autoplay the service plays for it at once.

use ludus_junqi::{Action, Colour, CombatResult, Event, LastAction, Piece, PointView, Rank};
pub use ludus_junqi::{Junqi, JunqiOptions, JunqiView};
use ludus_proto::pb;
use ludus_rules::{GameResult, Outcome, RandomSource};

use crate::policy::{ClockChoices, FriendClock, TablePolicy};
use crate::{CatalogError, GameKind, Hosting, seat_u32};

/// The rating pool and quick-match queue of Flip Junqi (it has no options yet).
pub const RULESET: &str = "junqi/flip";

/// Junqi's tables: two players; J19's 30 s per action everywhere; no take-backs (one would
/// un-flip a piece both players have seen).
pub const TABLE: TablePolicy = TablePolicy {
    kind: GameKind::Junqi,
    min_seats: 2,
    max_seats: 2,
    seats_rule: "J19",
    default_turn_ms: 30_000,
    max_turn_ms: None,
    clock_rule: "J19",
    quick_match_clock: None,
    computer_clock: None,
    friend_clock: FriendClock {
        rule: "J19",
        choices: ClockChoices::OneOf(&[30_000]),
        zero_means: 30_000,
        described: "30 000 ms per action",
    },
    take_backs: 0,
    room_first_mover: false,
    auto_start: false,
    scores_points: false,
    rated: true,
};

fn colour_to_pb(colour: Option<Colour>) -> i32 {
    match colour {
        None => pb::JunqiColour::Unspecified as i32,
        Some(Colour::Red) => pb::JunqiColour::Red as i32,
        Some(Colour::Blue) => pb::JunqiColour::Blue as i32,
    }
}

fn rank_to_pb(rank: Rank) -> pb::JunqiRank {
    match rank {
        Rank::Commander => pb::JunqiRank::Commander,
        Rank::CorpsCommander => pb::JunqiRank::CorpsCommander,
        Rank::Division => pb::JunqiRank::Division,
        Rank::Brigade => pb::JunqiRank::Brigade,
        Rank::Regiment => pb::JunqiRank::Regiment,
        Rank::Battalion => pb::JunqiRank::Battalion,
        Rank::Company => pb::JunqiRank::Company,
        Rank::Platoon => pb::JunqiRank::Platoon,
        Rank::Engineer => pb::JunqiRank::Engineer,
        Rank::Mine => pb::JunqiRank::Mine,
        Rank::Bomb => pb::JunqiRank::Bomb,
        Rank::Flag => pb::JunqiRank::Flag,
    }
}

fn piece_to_pb(piece: Piece) -> pb::JunqiPiece {
    pb::JunqiPiece {
        colour: colour_to_pb(Some(piece.colour)),
        rank: rank_to_pb(piece.rank) as i32,
    }
}

fn point_to_pb(point: PointView) -> pb::JunqiPoint {
    match point {
        PointView::Empty => pb::JunqiPoint {
            state: pb::JunqiPointState::Empty as i32,
            piece: None,
        },
        PointView::FaceDown => pb::JunqiPoint {
            state: pb::JunqiPointState::FaceDown as i32,
            piece: None,
        },
        PointView::FaceUp(piece) => pb::JunqiPoint {
            state: pb::JunqiPointState::FaceUp as i32,
            piece: Some(piece_to_pb(piece)),
        },
    }
}

fn junqi_action_to_pb(action: Action) -> pb::JunqiAction {
    let kind = match action {
        Action::Flip(point) => pb::junqi_action::Kind::Flip(pb::JunqiFlip {
            point: point.to_string(),
        }),
        Action::Move { from, to } => pb::junqi_action::Kind::Move(pb::JunqiMove {
            from: from.to_string(),
            to: to.to_string(),
        }),
    };
    pb::JunqiAction { kind: Some(kind) }
}

fn last_action_to_pb(last: LastAction) -> pb::JunqiLastAction {
    let (piece, defender, combat) = match last.event {
        Event::Flipped(piece) | Event::Moved(piece) => {
            (piece, None, pb::JunqiCombatResult::Unspecified)
        }
        Event::Combat {
            attacker,
            defender,
            result,
        } => (
            attacker,
            Some(piece_to_pb(defender)),
            match result {
                CombatResult::AttackerWins => pb::JunqiCombatResult::AttackerWins,
                CombatResult::BothRemoved => pb::JunqiCombatResult::BothRemoved,
            },
        ),
    };
    pb::JunqiLastAction {
        seat: seat_u32(last.seat),
        action: Some(junqi_action_to_pb(last.action)),
        notation: last.action.to_string(),
        automatic: last.automatic,
        piece: Some(piece_to_pb(piece)),
        defender,
        combat: combat as i32,
    }
}

fn outcome_to_pb(outcome: &Outcome) -> pb::JunqiOutcome {
    let (result, winner) = match &outcome.result {
        GameResult::Win { winners } => (
            pb::JunqiResult::Win,
            winners.first().copied().map_or(0, seat_u32),
        ),
        GameResult::Draw | GameResult::Cancelled => (pb::JunqiResult::Draw, 0),
    };
    pb::JunqiOutcome {
        result: result as i32,
        winner,
        rule: outcome.rule.clone(),
        reason: outcome.reason.clone(),
    }
}

fn rank_counts(counts: &[u8; 12]) -> Vec<pb::JunqiRankCount> {
    Rank::ALL
        .iter()
        .map(|rank| pb::JunqiRankCount {
            rank: rank_to_pb(*rank) as i32,
            count: u32::from(counts[rank.index()]),
        })
        .collect()
}

/// Reads a point in J2 notation from a request field.
fn point_from_pb(field: &str, text: &str) -> Result<ludus_junqi::Point, CatalogError> {
    text.parse().map_err(|_| {
        // At most 16 characters of what was sent go back, like the rules' notation errors.
        let shown: String = text.chars().take(16).collect();
        CatalogError::InvalidArgument(format!(
            "{field}: J2: {shown:?} is not a point like c6 (columns a-e, rows 1-12)"
        ))
    })
}

impl Hosting for Junqi {
    const KIND: GameKind = GameKind::Junqi;
    /// LJ1 (ours, ARCHITECTURE.md "Flip Junqi"): the rule file is silent on draws by
    /// agreement; Ludus lets the players agree one, as in Caro and Mancala.
    const DRAW_RULE: &'static str = "LJ1";

    /// Junqi has no options (J17's limit is fixed); any clock is accepted here, quick matches
    /// get J19's 30 s from matchmaking.
    fn options_from_pb(settings: &pb::GameSettings) -> Result<JunqiOptions, CatalogError> {
        match &settings.options {
            Some(pb::game_settings::Options::Junqi(pb::JunqiOptions {})) => {
                Ok(JunqiOptions::default())
            }
            _ => Err(CatalogError::options_not_for(Self::KIND)),
        }
    }

    fn action_from_pb(&self, action: &pb::Action) -> Result<Action, CatalogError> {
        let Some(pb::action::Action::Junqi(junqi)) = &action.action else {
            return Err(CatalogError::action_not_for(Self::KIND));
        };
        match &junqi.kind {
            Some(pb::junqi_action::Kind::Flip(flip)) => Ok(Action::Flip(point_from_pb(
                "action.junqi.flip.point",
                &flip.point,
            )?)),
            Some(pb::junqi_action::Kind::Move(step)) => Ok(Action::Move {
                from: point_from_pb("action.junqi.move.from", &step.from)?,
                to: point_from_pb("action.junqi.move.to", &step.to)?,
            }),
            None => Err(CatalogError::InvalidArgument(
                "action.junqi: set flip or move (J7)".into(),
            )),
        }
    }

    fn action_to_pb(action: &Action) -> pb::Action {
        pb::Action {
            action: Some(pb::action::Action::Junqi(junqi_action_to_pb(*action))),
        }
    }

    fn view_to_pb(view: JunqiView) -> pb::GameView {
        let statistics = Colour::ALL
            .iter()
            .map(|colour| pb::JunqiColourStats {
                colour: colour_to_pb(Some(*colour)),
                removed: rank_counts(&view.statistics.removed[colour.index()]),
                face_down: rank_counts(&view.statistics.face_down[colour.index()]),
            })
            .collect();
        pb::GameView {
            view: Some(pb::game_view::View::Junqi(pb::JunqiView {
                viewer_seat: view.viewer.map(seat_u32),
                points: view.points.iter().map(|p| point_to_pb(*p)).collect(),
                viewer_colour: colour_to_pb(view.viewer_colour),
                opponent_colour: colour_to_pb(view.opponent_colour),
                seat_colours: view.seat_colours.iter().map(|c| colour_to_pb(*c)).collect(),
                last_flip_colours: view.last_flips.iter().map(|c| colour_to_pb(*c)).collect(),
                statistics,
                autoplay: view.autoplay.to_vec(),
                to_move: view.to_move.map(seat_u32),
                quiet_actions: u32::from(view.quiet_actions),
                draw_limit: u32::from(view.draw_limit),
                last_action: view.last_action.map(last_action_to_pb),
                outcome: view.outcome.as_ref().map(outcome_to_pb),
                ply: view.ply,
            })),
        }
    }

    fn ruleset(&self) -> String {
        RULESET.to_owned()
    }

    /// J19: the seat to move is on autoplay.
    fn autoplay_due(&self) -> bool {
        use ludus_rules::Game;
        self.to_move().is_some_and(|seat| self.autoplay(seat))
    }

    /// J19: one action chosen by the autoplay player (autoplay stays on).
    fn play_autoplay(self, rng: &mut dyn RandomSource) -> (Self, Option<Action>) {
        use ludus_rules::Game;
        let before = self.ply();
        let after = self.autoplay_turn(rng);
        let played = (after.ply() > before)
            .then(|| after.view(ludus_rules::Viewer::Spectator).last_action)
            .flatten()
            .map(|last| last.action);
        (after, played)
    }
}

#[cfg(test)]
mod tests {
    use ludus_rules::{Game, SplitMix64, Viewer};

    use super::*;

    fn settings() -> pb::GameSettings {
        pb::GameSettings {
            options: Some(pb::game_settings::Options::Junqi(pb::JunqiOptions {})),
            turn_time_ms: 30_000,
        }
    }

    #[test]
    fn a_new_game_shows_fifty_face_down_points_and_nothing_else() {
        let options = Junqi::options_from_pb(&settings()).expect("options");
        let game = Junqi::setup(options, 2, &mut SplitMix64(3)).expect("setup");
        let pb::GameView {
            view: Some(pb::game_view::View::Junqi(view)),
        } = Junqi::view_to_pb(game.view(Viewer::Seat(0)))
        else {
            panic!("a junqi view");
        };
        assert_eq!(view.points.len(), 60);
        let face_down = view
            .points
            .iter()
            .filter(|p| p.state == pb::JunqiPointState::FaceDown as i32)
            .count();
        assert_eq!(face_down, 50, "J6");
        assert!(view.points.iter().all(|p| p.piece.is_none()), "J22");
        assert_eq!(view.viewer_seat, Some(0));
        assert_eq!(view.draw_limit, 60);
        assert_eq!(view.statistics.len(), 2);
        assert_eq!(view.statistics[0].face_down.len(), 12);
    }

    #[test]
    fn actions_round_trip_through_the_contract() {
        let game = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(3)).expect("setup");
        for text in ["c6", "a1-e12"] {
            let action = game.parse_action(text).expect("notation");
            let pb = Junqi::action_to_pb(&action);
            assert_eq!(game.action_from_pb(&pb).expect("back"), action);
        }
        let bad = pb::Action {
            action: Some(pb::action::Action::Junqi(pb::JunqiAction {
                kind: Some(pb::junqi_action::Kind::Flip(pb::JunqiFlip {
                    point: "f13".into(),
                })),
            })),
        };
        assert!(matches!(
            game.action_from_pb(&bad),
            Err(CatalogError::InvalidArgument(m)) if m.starts_with("action.junqi.flip.point: J2")
        ));
    }

    #[test]
    fn autoplay_is_due_only_for_a_seat_that_timed_out() {
        let game = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(5)).expect("setup");
        assert!(!game.autoplay_due());
        let seat = game.to_move().expect("to move");
        let game = game.timeout(seat, &mut SplitMix64(1));
        assert!(game.autoplay(seat));
        assert!(!game.autoplay_due(), "the other seat moves next");
        let (game, played) = game.play_autoplay(&mut SplitMix64(1));
        assert!(played.is_none(), "the other seat is not on autoplay");
        let other = 1 - seat;
        let game = game
            .clone()
            .apply(other, &game.legal_actions(other)[0], &mut SplitMix64(1))
            .expect("a legal flip");
        assert!(game.autoplay_due());
        let (game, played) = game.play_autoplay(&mut SplitMix64(1));
        assert!(played.is_some());
        assert!(
            game.autoplay(seat),
            "autoplay stays on until the player acts"
        );
    }
}
