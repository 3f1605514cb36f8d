//! Mancala in the contract: `MancalaOptions`, `MancalaAction`, `MancalaView`
//! (proto/ludus/v1/mancala.proto). Rule ids (M1…, K1…) are those of
//! `shared/rules/mancala.md`. The Kalah analysis behind `AnalyzeMancala` is game-state's
//! (`analysis.rs`): it runs the solver on the service's threads.

pub use ludus_mancala::Mancala;
use ludus_mancala::{
    FirstPlayer, LastSeed, MancalaOptions, MancalaView, RuleSet, Sow, SowRecord, Spot,
};
use ludus_proto::pb;
use ludus_rules::Seat;

use crate::outcome::{outcome_to_pb, seat_u32};
use crate::policy::{ClockChoices, FriendClock, TablePolicy};
use crate::{CatalogError, GameKind, Hosting};

/// M10: 30 s per sow in online and friend games. Longer clocks are refused; shorter ones are
/// let through for the server's own uses (tests); 0 means untimed (M11, against the computer).
pub const MAX_TURN_MS: u64 = 30_000;

/// Mancala's tables: two players; M10's 30 s per sow everywhere; M11's one take-back (the
/// last sow) against the computer.
pub const TABLE: TablePolicy = TablePolicy {
    kind: GameKind::Mancala,
    min_seats: 2,
    max_seats: 2,
    seats_rule: "M10",
    default_turn_ms: MAX_TURN_MS,
    max_turn_ms: Some(MAX_TURN_MS),
    clock_rule: "M10",
    quick_match_clock: None,
    computer_clock: None,
    friend_clock: FriendClock {
        rule: "M10",
        choices: ClockChoices::OneOf(&[MAX_TURN_MS]),
        zero_means: MAX_TURN_MS,
        described: "30 000 ms per sow",
    },
    take_backs: 1,
    room_first_mover: false,
    auto_start: false,
    scores_points: false,
    rated: true,
};

/// The rule set named in the contract (`field` names it in the refusal).
pub fn rule_set_from_pb(value: i32, field: &str) -> Result<RuleSet, CatalogError> {
    match pb::MancalaRuleSet::try_from(value) {
        Ok(pb::MancalaRuleSet::Unspecified | pb::MancalaRuleSet::Kalah) => Ok(RuleSet::Kalah),
        Ok(pb::MancalaRuleSet::Congklak) => Ok(RuleSet::Congklak),
        Err(_) => Err(CatalogError::InvalidArgument(format!(
            "{field}: M1/K1: {value} is not a rule set (kalah or congklak)"
        ))),
    }
}

fn rule_set_to_pb(rule_set: RuleSet) -> pb::MancalaRuleSet {
    match rule_set {
        RuleSet::Kalah => pb::MancalaRuleSet::Kalah,
        RuleSet::Congklak => pb::MancalaRuleSet::Congklak,
    }
}

/// The rating pool and quick-match queue of a rule set (M12, K5).
pub fn ruleset(rule_set: RuleSet) -> String {
    match rule_set {
        RuleSet::Kalah => "mancala/kalah".to_owned(),
        RuleSet::Congklak => "mancala/congklak".to_owned(),
    }
}

/// Reads Mancala options: every combination is valid; unknown enum values are refused.
pub fn options_from_pb(options: &pb::MancalaOptions) -> Result<MancalaOptions, CatalogError> {
    let rule_set = rule_set_from_pb(options.rule_set, "settings.mancala.rule_set")?;
    let first = match pb::MancalaFirstPlayer::try_from(options.first_player) {
        Ok(pb::MancalaFirstPlayer::Unspecified | pb::MancalaFirstPlayer::Random) => {
            FirstPlayer::Random
        }
        Ok(pb::MancalaFirstPlayer::Seat0) => FirstPlayer::Seat0,
        Ok(pb::MancalaFirstPlayer::Seat1) => FirstPlayer::Seat1,
        Err(_) => {
            return Err(CatalogError::InvalidArgument(format!(
                "settings.mancala.first_player: M3: {} is not a choice",
                options.first_player
            )));
        }
    };
    Ok(MancalaOptions { rule_set, first })
}

/// The options as the proto names them (matchmaking normalises queued settings with it).
pub fn options_to_pb(options: &MancalaOptions) -> pb::MancalaOptions {
    pb::MancalaOptions {
        rule_set: rule_set_to_pb(options.rule_set) as i32,
        first_player: match options.first {
            FirstPlayer::Random => pb::MancalaFirstPlayer::Random,
            FirstPlayer::Seat0 => pb::MancalaFirstPlayer::Seat0,
            FirstPlayer::Seat1 => pb::MancalaFirstPlayer::Seat1,
        } as i32,
    }
}

/// Mancala's options (ListGameOptions): the rule set (M1, K1-K5) everywhere; who sows first
/// (M3) in friend rooms (quick matches draw it, and against the computer `computer_first`
/// says it).
pub(crate) fn described_options() -> Vec<pb::GameOption> {
    use crate::options::{EVERYWHERE, choice, labelled};
    use pb::PlayMode;
    let default = MancalaOptions::default();
    let default = options_to_pb(&default);
    vec![
        choice(
            "rules",
            "mancala.rule_set",
            // M1/K1 is what a refusal cites; K1-K5 are Congklak's rules.
            &["M1/K1", "K1-K5"],
            "opt.mancala.rules",
            EVERYWHERE,
            i64::from(default.rule_set),
            vec![
                labelled(rule_set_to_pb(RuleSet::Kalah) as i64, "opt.mancala.kalah"),
                labelled(
                    rule_set_to_pb(RuleSet::Congklak) as i64,
                    "opt.mancala.congklak",
                ),
            ],
        ),
        choice(
            "first",
            "mancala.first_player",
            &["M3"],
            "opt.first",
            &[PlayMode::Room],
            i64::from(default.first_player),
            vec![
                labelled(pb::MancalaFirstPlayer::Random as i64, "opt.random"),
                labelled(pb::MancalaFirstPlayer::Seat0 as i64, "opt.first.seat0"),
                labelled(pb::MancalaFirstPlayer::Seat1 as i64, "opt.first.seat1"),
            ],
        ),
    ]
}

fn spot_to_pb(spot: Spot) -> pb::MancalaSpot {
    match spot {
        Spot::Pit { seat, pit } => pb::MancalaSpot {
            seat: seat_u32(seat),
            pit: u32::from(pit),
        },
        Spot::Store { seat } => pb::MancalaSpot {
            seat: seat_u32(seat),
            pit: 0,
        },
    }
}

fn last_seed_to_pb(last: LastSeed, mover: Seat) -> pb::MancalaLastSeed {
    use pb::MancalaLastSeedKind as Kind;
    let (kind, spot, captured) = match last {
        LastSeed::Store => (Kind::Store, Spot::Store { seat: mover }, 0),
        LastSeed::Capture { pit, opposite } => (
            Kind::Capture,
            Spot::Pit { seat: mover, pit },
            u32::from(opposite),
        ),
        LastSeed::OwnEmptyPit { pit } => (Kind::OwnEmptyPit, Spot::Pit { seat: mover, pit }, 0),
        LastSeed::Stopped { spot } => (Kind::Stopped, spot, 0),
    };
    pb::MancalaLastSeed {
        kind: kind as i32,
        spot: Some(spot_to_pb(spot)),
        captured,
    }
}

fn sow_to_pb(sow: SowRecord) -> pb::MancalaSow {
    pb::MancalaSow {
        seat: seat_u32(sow.seat),
        pit: u32::from(sow.pit),
        last_seed: Some(last_seed_to_pb(sow.last_seed, sow.seat)),
        laps: sow
            .laps
            .into_iter()
            .map(|lap| pb::MancalaSowLap {
                from: Some(spot_to_pb(lap.from)),
                drops: lap.drops.into_iter().map(spot_to_pb).collect(),
            })
            .collect(),
        swept: sow
            .swept
            .map(|s| s.iter().map(|&n| u32::from(n)).collect())
            .unwrap_or_default(),
    }
}

/// The view of a game (everything is public; only `viewer_seat` differs).
pub fn view_to_pb(view: MancalaView) -> pb::MancalaView {
    pb::MancalaView {
        rule_set: rule_set_to_pb(view.rule_set) as i32,
        viewer_seat: view.viewer.map(seat_u32),
        sides: (0..2)
            .map(|seat| pb::MancalaSide {
                pits: view.pits[seat].iter().map(|&n| u32::from(n)).collect(),
                store: u32::from(view.stores[seat]),
            })
            .collect(),
        to_move: view.to_move.map(seat_u32),
        first_seat: seat_u32(view.first),
        extra_turn: view.extra_turn,
        sows: view.sows,
        sow_limit: view.sow_limit,
        legal_pits: view.legal_pits.iter().map(|&p| u32::from(p)).collect(),
        last_sow: view.last_sow.map(sow_to_pb),
        outcome: view.outcome.as_ref().map(|outcome| {
            let common = outcome_to_pb(outcome);
            pb::MancalaOutcome {
                winner: common.winners.first().copied(),
                rule: common.rule,
                reason: common.reason,
                points: common.points,
            }
        }),
    }
}

impl Hosting for Mancala {
    const KIND: GameKind = GameKind::Mancala;
    /// M9: both players may agree to a draw.
    const DRAW_RULE: &'static str = "M9";

    fn options_from_pb(settings: &pb::GameSettings) -> Result<MancalaOptions, CatalogError> {
        let Some(pb::game_settings::Options::Mancala(options)) = &settings.options else {
            return Err(CatalogError::options_not_for(Self::KIND));
        };
        if settings.turn_time_ms > MAX_TURN_MS {
            return Err(CatalogError::InvalidArgument(format!(
                "settings.turn_time_ms: M10: at most 30 s per sow, not {} ms",
                settings.turn_time_ms
            )));
        }
        options_from_pb(options)
    }

    fn action_from_pb(&self, action: &pb::Action) -> Result<Sow, CatalogError> {
        let Some(pb::action::Action::Mancala(sow)) = &action.action else {
            return Err(CatalogError::action_not_for(Self::KIND));
        };
        let pits = self.rule_set().pits();
        // Pit numbers are checked by the rules too (M1/K1, FAILED_PRECONDITION); this only
        // keeps a number that does not fit a pit from being truncated into one.
        match u8::try_from(sow.pit) {
            Ok(pit) => Ok(Sow { pit }),
            Err(_) => Err(CatalogError::InvalidArgument(format!(
                "action.mancala.pit: {}: pits are numbered 1 to {pits}",
                self.rule_set().numbering_rule()
            ))),
        }
    }

    fn action_to_pb(action: &Sow) -> pb::Action {
        pb::Action {
            action: Some(pb::action::Action::Mancala(pb::MancalaAction {
                pit: u32::from(action.pit),
            })),
        }
    }

    fn view_to_pb(view: MancalaView) -> pb::GameView {
        pb::GameView {
            view: Some(pb::game_view::View::Mancala(view_to_pb(view))),
        }
    }

    fn ruleset(&self) -> String {
        ruleset(self.rule_set())
    }

    fn check_seats(_settings: &pb::GameSettings, seats: usize) -> Result<(), CatalogError> {
        if seats != 2 {
            return Err(CatalogError::InvalidArgument(format!(
                "players: M1: mancala is played by two, not {seats}"
            )));
        }
        Ok(())
    }
}
