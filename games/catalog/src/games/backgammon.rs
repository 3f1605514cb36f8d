//! Backgammon in the contract: `BackgammonOptions`, `BackgammonAction`, `BackgammonView`
//! (proto/ludus/v1/backgammon.proto). Rule ids refer to shared/rules/backgammon.md.
//!
//! # Money games and matches
//! One game-state game hosts either one money game or a **whole match** (B22): the hosted
//! value is [`BackgammonSession`] (match play lives in the rules crate); this maps it. So a
//! match is one game id, one event log and one subscription; the view's `score`/`crawford`
//! say where it stands.
//!
//! Money games rate in `backgammon/money` and matches in `backgammon/match`; the optional
//! money rules (B17-B19) and match lengths do not split the rating pools (quick-match queues
//! do split by the optional rules, see [`money_queue`]).
//!
//! Dice come only from the random source game-state passes (its CSPRNG) inside `apply` of a
//! roll and in setup; no state, view or event holds a die before it is rolled.

use ludus_backgammon::options::MAX_CUBE_LOG;
pub use ludus_backgammon::options::{DEFAULT_TURN_SECONDS, validate_turn_seconds};
use ludus_backgammon::play::roll;
use ludus_backgammon::session::side_name;
use ludus_backgammon::{
    Action, BackgammonOptions, BackgammonView, MATCH_LENGTHS, MatchGame, Move, Play, ResignLevel,
    ViewPhase,
};
pub use ludus_backgammon::{BackgammonSession, Match};
use ludus_proto::pb;
use ludus_rules::{Game, Viewer};

use crate::policy::{ClockChoices, FriendClock, TablePolicy};
use crate::{CatalogError, GameKind, Hosting, seat_u32};

/// The rating pool of money games.
pub const MONEY_RULESET: &str = "backgammon/money";
/// The rating pool of matches.
pub const MATCH_RULESET: &str = "backgammon/match";

/// B20: the turn clocks players choose from besides the default, in quick matches, friend
/// rooms and against the computer (the rules crate's `TURN_SECONDS` but untimed, which
/// [`validate_turn_seconds`] also accepts; the catalog's tests hold the two together).
pub const CLOCKS_MS: [u64; 4] = [30_000, 60_000, 90_000, 120_000];

/// Backgammon's tables: two players; B20's clocks (60 s by default; players and friend rooms
/// may choose 30, 60, 90 or 120 s, rooms also untimed); no take-backs (one would re-roll
/// dice).
pub const TABLE: TablePolicy = TablePolicy {
    kind: GameKind::Backgammon,
    min_seats: 2,
    max_seats: 2,
    seats_rule: "B20",
    default_turn_ms: DEFAULT_TURN_SECONDS as u64 * 1000,
    max_turn_ms: None,
    clock_rule: "B20",
    quick_match_clock: Some(ClockChoices::OneOf(&CLOCKS_MS)),
    computer_clock: Some(ClockChoices::OneOf(&CLOCKS_MS)),
    friend_clock: FriendClock {
        rule: "B20",
        choices: ClockChoices::OneOf(&CLOCKS_MS),
        zero_means: 0,
        described: "untimed (0), 30 000, 60 000, 90 000 or 120 000 ms",
    },
    take_backs: 0,
    room_first_mover: false,
    auto_start: false,
    scores_points: false,
    rated: true,
};

fn invalid(message: String) -> CatalogError {
    CatalogError::InvalidArgument(message)
}

/// Reads Backgammon options (B17-B19, B22); errors name the field and the rule.
pub fn options_from_pb(options: &pb::BackgammonOptions) -> Result<BackgammonOptions, CatalogError> {
    let automatic_double_limit = match options.automatic_double_limit {
        0 => ludus_backgammon::options::DEFAULT_AUTOMATIC_DOUBLE_LIMIT,
        n if n <= u32::from(MAX_CUBE_LOG) => n as u8,
        n => {
            return Err(invalid(format!(
                "settings.backgammon.automatic_double_limit: B17: 1 to 15, not {n}"
            )));
        }
    };
    let match_game = match &options.match_game {
        None => None,
        Some(m) => {
            if !MATCH_LENGTHS.contains(&m.length) {
                return Err(invalid(format!(
                    "settings.backgammon.match_game.length: B22: a match is played to 1, 3, 5, \
                     7, 11, 15 or 21 points, not {}",
                    m.length
                )));
            }
            if m.score.iter().any(|&s| s != 0) || m.crawford {
                return Err(invalid(
                    "settings.backgammon.match_game.score: B22: game-state hosts a whole match, \
                     which starts at 0-0 (leave score and crawford unset)"
                        .into(),
                ));
            }
            if options.automatic_doubles || options.beavers || options.jacoby {
                return Err(invalid(
                    "settings.backgammon: B22: automatic doubles, beavers and the jacoby rule \
                     do not apply in matches"
                        .into(),
                ));
            }
            Some(MatchGame {
                length: m.length,
                score: [0, 0],
                crawford: false,
            })
        }
    };
    let parsed = BackgammonOptions {
        automatic_doubles: options.automatic_doubles,
        automatic_double_limit,
        beavers: options.beavers,
        jacoby: options.jacoby,
        match_game,
    };
    parsed
        .validate()
        .map_err(|e| invalid(format!("settings.backgammon: {e}")))?;
    Ok(parsed)
}

/// Backgammon's options (ListGameOptions), in every mode: a money game or a match to N
/// points (B22); in money play only, automatic doubles (B17, with their limit), beavers
/// (B18) and the Jacoby rule (B19).
pub(crate) fn described_options() -> Vec<pb::GameOption> {
    use crate::options::{EVERYWHERE, choice, flag, labelled, number, only_when, plain};
    let default = BackgammonOptions::default();
    let money = || only_when("match", &[0]);
    vec![
        choice(
            "match",
            "backgammon.match_game.length",
            &["B22"],
            "opt.backgammon.match",
            EVERYWHERE,
            0,
            std::iter::once(labelled(0, "opt.backgammon.money"))
                .chain(plain(MATCH_LENGTHS.map(i64::from)))
                .collect(),
        ),
        pb::GameOption {
            only_when: vec![money()],
            ..flag(
                "auto",
                "backgammon.automatic_doubles",
                &["B17"],
                "opt.backgammon.auto",
                EVERYWHERE,
                default.automatic_doubles,
            )
        },
        pb::GameOption {
            only_when: vec![money(), only_when("auto", &[1])],
            ..number(
                "auto_limit",
                "backgammon.automatic_double_limit",
                &["B17"],
                "opt.backgammon.autoLimit",
                EVERYWHERE,
                i64::from(default.automatic_double_limit),
                (1, i64::from(MAX_CUBE_LOG), 1),
            )
        },
        pb::GameOption {
            only_when: vec![money()],
            ..flag(
                "beavers",
                "backgammon.beavers",
                &["B18"],
                "opt.backgammon.beavers",
                EVERYWHERE,
                default.beavers,
            )
        },
        pb::GameOption {
            only_when: vec![money()],
            ..flag(
                "jacoby",
                "backgammon.jacoby",
                &["B19"],
                "opt.backgammon.jacoby",
                EVERYWHERE,
                default.jacoby,
            )
        },
    ]
}

/// The options in the contract, normalised (matchmaking queues them).
pub fn options_to_pb(options: &BackgammonOptions) -> pb::BackgammonOptions {
    pb::BackgammonOptions {
        automatic_doubles: options.automatic_doubles,
        automatic_double_limit: if options.automatic_doubles {
            u32::from(options.automatic_double_limit)
        } else {
            0
        },
        beavers: options.beavers,
        jacoby: options.jacoby,
        match_game: options.match_game.map(|m| pb::BackgammonMatchGame {
            length: m.length,
            score: m.score.to_vec(),
            crawford: m.crawford,
        }),
    }
}

/// The rating pool of the options: money games and matches are rated apart.
pub fn ruleset(options: &BackgammonOptions) -> &'static str {
    if options.is_money() {
        MONEY_RULESET
    } else {
        MATCH_RULESET
    }
}

/// The quick-match queue of money options: the rating pool plus the optional rules that are
/// on, so players are paired only with players who chose the same rules. The rules are one
/// short segment (`a<limit>` automatic doubles, `b` beavers, `j` Jacoby:
/// `backgammon/money/a2-b-j`) because a ticket id holds its queue within 64 characters.
pub fn money_queue(options: &BackgammonOptions) -> String {
    let mut rules = Vec::new();
    if options.automatic_doubles {
        rules.push(format!("a{}", options.automatic_double_limit));
    }
    if options.beavers {
        rules.push("b".to_owned());
    }
    if options.jacoby {
        rules.push("j".to_owned());
    }
    if rules.is_empty() {
        MONEY_RULESET.to_owned()
    } else {
        format!("{MONEY_RULESET}/{}", rules.join("-"))
    }
}

fn resign_level_from_pb(level: i32) -> Option<ResignLevel> {
    match pb::BackgammonResignLevel::try_from(level).ok()? {
        pb::BackgammonResignLevel::Single => Some(ResignLevel::Single),
        pb::BackgammonResignLevel::Gammon => Some(ResignLevel::Gammon),
        pb::BackgammonResignLevel::Backgammon => Some(ResignLevel::Backgammon),
        pb::BackgammonResignLevel::Unspecified => None,
    }
}

fn resign_level_to_pb(level: ResignLevel) -> pb::BackgammonResignLevel {
    match level {
        ResignLevel::Single => pb::BackgammonResignLevel::Single,
        ResignLevel::Gammon => pb::BackgammonResignLevel::Gammon,
        ResignLevel::Backgammon => pb::BackgammonResignLevel::Backgammon,
    }
}

fn play_to_pb(play: &Play) -> pb::BackgammonPlay {
    pb::BackgammonPlay {
        moves: play
            .moves()
            .iter()
            .map(|m| pb::BackgammonMove {
                from: u32::from(m.from),
                to: u32::from(m.to),
                hit: m.hit,
            })
            .collect(),
    }
}

fn play_from_pb(play: &pb::BackgammonPlay) -> Result<Play, CatalogError> {
    if play.moves.len() > 4 {
        return Err(invalid(format!(
            "action.backgammon.play.moves: B7: a turn moves at most 4 checkers, not {}",
            play.moves.len()
        )));
    }
    play.moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if m.from == 0 || m.from > 25 {
                return Err(invalid(format!(
                    "action.backgammon.play.moves[{i}].from: B1: points are 1-24, or 25 for the \
                     bar, not {}",
                    m.from
                )));
            }
            if m.to > 24 {
                return Err(invalid(format!(
                    "action.backgammon.play.moves[{i}].to: B1: points are 1-24, or 0 for off, \
                     not {}",
                    m.to
                )));
            }
            // Both fit in u8: checked above.
            Ok(Move::new(m.from as u8, m.to as u8))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Play)
}

fn simple_to_pb(action: &Action) -> Option<pb::BackgammonSimpleAction> {
    Some(match action {
        Action::Roll => pb::BackgammonSimpleAction::Roll,
        Action::Double => pb::BackgammonSimpleAction::Double,
        Action::Take => pb::BackgammonSimpleAction::Take,
        Action::Drop => pb::BackgammonSimpleAction::Drop,
        Action::Beaver => pb::BackgammonSimpleAction::Beaver,
        Action::AcceptResignation => pb::BackgammonSimpleAction::AcceptResignation,
        Action::RejectResignation => pb::BackgammonSimpleAction::RejectResignation,
        Action::Play(_) | Action::Resign(_) => return None,
    })
}

fn phase_to_pb(phase: ViewPhase) -> pb::BackgammonPhase {
    match phase {
        ViewPhase::Roll => pb::BackgammonPhase::Roll,
        ViewPhase::Play => pb::BackgammonPhase::Play,
        ViewPhase::DoubleOffered => pb::BackgammonPhase::DoubleOffered,
        ViewPhase::ResignationOffered => pb::BackgammonPhase::ResignationOffered,
        ViewPhase::Over => pb::BackgammonPhase::Over,
    }
}

impl Hosting for BackgammonSession {
    const KIND: GameKind = GameKind::Backgammon;
    /// B13: a game ends only when a side bears off; there are no draws.
    const DRAW_RULE: &'static str = "B13";

    fn options_from_pb(settings: &pb::GameSettings) -> Result<BackgammonOptions, CatalogError> {
        match &settings.options {
            Some(pb::game_settings::Options::Backgammon(options)) => options_from_pb(options),
            _ => Err(CatalogError::options_not_for(Self::KIND)),
        }
    }

    fn action_from_pb(&self, action: &pb::Action) -> Result<Action, CatalogError> {
        use pb::backgammon_action::Kind;
        let Some(pb::action::Action::Backgammon(bg)) = &action.action else {
            return Err(CatalogError::action_not_for(Self::KIND));
        };
        match &bg.kind {
            Some(Kind::Simple(simple)) => {
                match pb::BackgammonSimpleAction::try_from(*simple)
                    .unwrap_or(pb::BackgammonSimpleAction::Unspecified)
                {
                    pb::BackgammonSimpleAction::Roll => Ok(Action::Roll),
                    pb::BackgammonSimpleAction::Double => Ok(Action::Double),
                    pb::BackgammonSimpleAction::Take => Ok(Action::Take),
                    pb::BackgammonSimpleAction::Drop => Ok(Action::Drop),
                    pb::BackgammonSimpleAction::Beaver => Ok(Action::Beaver),
                    pb::BackgammonSimpleAction::AcceptResignation => Ok(Action::AcceptResignation),
                    pb::BackgammonSimpleAction::RejectResignation => Ok(Action::RejectResignation),
                    pb::BackgammonSimpleAction::Unspecified => Err(invalid(format!(
                        "action.backgammon.simple: choose an action, not {simple}"
                    ))),
                }
            }
            Some(Kind::Play(play)) => play_from_pb(play).map(Action::Play),
            Some(Kind::Resign(level)) => resign_level_from_pb(*level)
                .map(Action::Resign)
                .ok_or_else(|| {
                    invalid(format!(
                        "action.backgammon.resign: B21: single, gammon or backgammon, not {level}"
                    ))
                }),
            None => Err(invalid(
                "action.backgammon: set one of simple, play or resign".into(),
            )),
        }
    }

    fn action_to_pb(action: &Action) -> pb::Action {
        use pb::backgammon_action::Kind;
        let kind = match action {
            Action::Play(play) => Kind::Play(play_to_pb(play)),
            Action::Resign(level) => Kind::Resign(resign_level_to_pb(*level) as i32),
            other => Kind::Simple(
                simple_to_pb(other).unwrap_or(pb::BackgammonSimpleAction::Unspecified) as i32,
            ),
        };
        pb::Action {
            action: Some(pb::action::Action::Backgammon(pb::BackgammonAction {
                kind: Some(kind),
            })),
        }
    }

    fn view_to_pb(view: BackgammonView) -> pb::GameView {
        let pair = |a: [u8; 2]| vec![u32::from(a[0]), u32::from(a[1])];
        pb::GameView {
            view: Some(pb::game_view::View::Backgammon(pb::BackgammonView {
                points: view.points.iter().map(|&n| i32::from(n)).collect(),
                you: view.viewer.map(seat_u32),
                mirrored: view.mirrored,
                bar: pair(view.bar),
                off: pair(view.off),
                pips: view.pips.to_vec(),
                turn: seat_u32(view.turn),
                to_move: view.to_move.map(seat_u32),
                phase: phase_to_pb(view.phase) as i32,
                dice: view.dice.map_or_else(Vec::new, pair),
                cube_value: view.cube_value,
                cube_owner: view.cube_owner.map(seat_u32),
                can_double: view.can_double,
                double_offer: view.double_offer.map(|d| pb::BackgammonDoubleOffer {
                    by: seat_u32(d.by),
                    value: d.value,
                    beaver: d.beaver,
                }),
                resignation_offer: view
                    .resignation_offer
                    .map(|r| pb::BackgammonResignationOffer {
                        by: seat_u32(r.by),
                        level: resign_level_to_pb(r.level) as i32,
                        points: r.points,
                    }),
                match_length: view.match_length,
                score: view.score.to_vec(),
                crawford: view.crawford,
                jacoby: view.jacoby,
                beavers: view.beavers,
                automatic_doubles: u32::from(view.automatic_doubles),
                legal_plays: view.legal_plays.iter().map(play_to_pb).collect(),
                last_play: view.last_play.map(|last| pb::BackgammonLastPlay {
                    seat: seat_u32(last.seat),
                    dice: pair(last.dice),
                    play: Some(play_to_pb(&last.play)),
                    automatic: last.automatic,
                }),
                position_id: view.position_id,
                match_id: view.match_id,
                timeouts: pair(view.timeouts),
                ply: view.ply,
            })),
        }
    }

    fn ruleset(&self) -> String {
        match self.match_score() {
            Some(_) => MATCH_RULESET.to_owned(),
            None => ruleset(self.game().options()).to_owned(),
        }
    }

    /// B20: what the server did for the seat whose clock ran out: took the double, rejected a
    /// resignation offer, rolled and played; or, in a match, forfeited the game (the match
    /// goes on, so the session has no outcome to tell it).
    fn timeout_effect(&self, before: &Self) -> Option<String> {
        let seat = before.game().to_move()?;
        if self.plies_before_game() != before.plies_before_game() {
            let forfeit = self.previous_game()?;
            return Some(format!(
                "{}: {}; the match goes on",
                forfeit.rule, forfeit.reason
            ));
        }
        let was = before.game().view(Viewer::Spectator);
        let now = self.game().view(Viewer::Spectator);
        let who = side_name(seat);
        match was.phase {
            ViewPhase::DoubleOffered => Some(format!(
                "B20: {who} ran out of time and takes the double; the cube is at {}",
                now.cube_value
            )),
            ViewPhase::ResignationOffered => Some(format!(
                "B20: {who} ran out of time and rejects the resignation offer"
            )),
            ViewPhase::Roll | ViewPhase::Play => {
                let last = now
                    .last_play
                    .filter(|last| last.automatic && last.seat == seat)?;
                let rolled = if was.phase == ViewPhase::Roll {
                    "rolled and "
                } else {
                    ""
                };
                // An empty play reads "no play" (a blocked roll, B10).
                Some(format!(
                    "B20: {who} ran out of time; the server {rolled}played {} {}",
                    roll(last.dice),
                    last.play
                ))
            }
            ViewPhase::Over => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use ludus_backgammon::MatchGame;
    use ludus_rules::ScriptedRandom;

    use super::*;

    #[test]
    fn b22_a_match_rates_in_the_match_pool_and_a_money_game_in_the_money_pool() {
        let mut rng = ScriptedRandom::new([2, 0, 2, 0]);
        let options = BackgammonOptions {
            match_game: Some(MatchGame {
                length: 3,
                score: [0, 0],
                crawford: false,
            }),
            ..BackgammonOptions::default()
        };
        let session = BackgammonSession::setup(options, 2, &mut rng).expect("match");
        assert_eq!(Hosting::ruleset(&session), MATCH_RULESET);
        let money =
            BackgammonSession::setup(BackgammonOptions::default(), 2, &mut rng).expect("money");
        assert_eq!(Hosting::ruleset(&money), MONEY_RULESET);
    }

    #[test]
    fn options_name_the_field_and_rule() {
        let bad = pb::BackgammonOptions {
            match_game: Some(pb::BackgammonMatchGame {
                length: 4,
                score: vec![],
                crawford: false,
            }),
            ..Default::default()
        };
        let Err(CatalogError::InvalidArgument(m)) = options_from_pb(&bad) else {
            panic!("refused");
        };
        assert!(
            m.starts_with("settings.backgammon.match_game.length: B22"),
            "{m}"
        );
        let money = options_from_pb(&pb::BackgammonOptions {
            jacoby: true,
            beavers: true,
            ..Default::default()
        })
        .expect("money");
        assert_eq!(money_queue(&money), "backgammon/money/b-j");
        assert_eq!(ruleset(&money), MONEY_RULESET);
    }
}
