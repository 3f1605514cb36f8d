//! The games' options described once, for clients (`Gateway.ListGameOptions`,
//! proto/ludus/v1/game_options.proto): each option's field, values, default and rule ids, the
//! clocks, seats and computer levels of every game.
//!
//! Each game's own options come from its file under [`crate::games`] (`described_options`),
//! written with the constants its `options_from_pb` validates with; the clocks, seats, the
//! room's first mover (C10) and auto-start (Q29) and the levels come from its
//! [`TablePolicy`] and [`crate::bots`]. So the description cannot offer what the server
//! refuses: the tests below build settings from every value of every option and send them
//! through the validation each mode applies (quick match, friend room, game against the
//! computer, then game-state's setup).

use ludus_proto::pb::{self, GameOptionKind, PlayMode};
use ludus_rules::Level;

use crate::bots::{computer_may_move_first, level_title};
use crate::kind::GameKind;
use crate::policy::{ClockChoices, TablePolicy};

/// Every mode: quick match, friend room, against the computer.
pub(crate) const EVERYWHERE: &[PlayMode] =
    &[PlayMode::QuickMatch, PlayMode::Room, PlayMode::Computer];

/// The id every clock option has (one per mode).
pub const CLOCK: &str = "clock";

/// Every game's options, in the contract's order of games.
pub fn catalog() -> pb::GameOptionsCatalog {
    pb::GameOptionsCatalog {
        games: GameKind::ALL.into_iter().map(describe).collect(),
    }
}

/// One game's description.
pub fn describe(kind: GameKind) -> pb::GameDescription {
    let policy = kind.table_policy();
    let mut options = match kind {
        GameKind::Caro => crate::games::caro::described_options(),
        GameKind::Quoridor => crate::games::quoridor::described_options(),
        GameKind::Backgammon => crate::games::backgammon::described_options(),
        GameKind::Mancala => crate::games::mancala::described_options(),
        GameKind::Junqi => Vec::new(),
    };
    options.extend(room_options(&policy));
    options.extend(clock_options(&policy));
    pb::GameDescription {
        game: kind.name().to_owned(),
        label_key: format!("game.{kind}"),
        min_players: policy.min_seats as u32,
        max_players: policy.max_seats as u32,
        players_rule: policy.seats_rule.to_owned(),
        modes: modes(EVERYWHERE),
        options,
        clocks: Some(pb::GameClocks {
            rule: policy.clock_rule.to_owned(),
            quick_match_default_ms: policy.default_turn_ms,
            max_turn_ms: policy.max_turn_ms.unwrap_or(0),
            players_choose: policy.quick_match_clock.is_some(),
            room_zero_means_ms: policy.friend_clock.zero_means,
            computer_untimed: policy.computer_clock.is_none(),
        }),
        computer_levels: Level::ALL
            .into_iter()
            .map(|level| pb::ComputerLevel {
                level: level.name().to_owned(),
                label_key: format!("cpu.{}", level_title(kind, level).to_lowercase()),
            })
            .collect(),
        computer_may_move_first: computer_may_move_first(kind),
    }
}

/// What a friend room chooses beside the game's options: the first mover (C10) where the
/// policy lets the room choose it, auto-start (Q29) where the room has it.
fn room_options(policy: &TablePolicy) -> Vec<pb::GameOption> {
    let mut options = Vec::new();
    if policy.room_first_mover {
        options.push(choice(
            "first_mover",
            "room.first_mover",
            &["C10"],
            "room.firstMover",
            &[PlayMode::Room],
            pb::CaroFirstMover::RockPaperScissors as i64,
            vec![
                labelled(pb::CaroFirstMover::RockPaperScissors as i64, "room.rps"),
                labelled(pb::CaroFirstMover::Host as i64, "room.hostFirst"),
                labelled(pb::CaroFirstMover::Guest as i64, "room.guestFirst"),
            ],
        ));
    }
    if policy.auto_start {
        // RoomSettings.auto_start unset means on.
        options.push(flag(
            "auto_start",
            "room.auto_start",
            &["Q29"],
            "room.autoStart",
            &[PlayMode::Room],
            true,
        ));
    }
    options
}

/// The clock each mode lets the players choose: a quick match's where the rule lets players
/// choose (0 there is the server's clock), a friend room's, the computer's where that game
/// is timed (0 there is untimed).
fn clock_options(policy: &TablePolicy) -> Vec<pb::GameOption> {
    let rule = policy.clock_rule;
    let mut options = Vec::new();
    if let Some(clocks) = policy.quick_match_clock {
        options.push(clock(
            rule,
            PlayMode::QuickMatch,
            clocks,
            Some("opt.default"),
            0,
        ));
    }
    let friend = policy.friend_clock;
    let untimed = (friend.zero_means == 0).then_some("opt.untimed");
    options.push(clock(
        rule,
        PlayMode::Room,
        friend.choices,
        untimed,
        friend.zero_means as i64,
    ));
    if let Some(clocks) = policy.computer_clock {
        options.push(clock(
            rule,
            PlayMode::Computer,
            clocks,
            Some("opt.untimed"),
            0,
        ));
    }
    options
}

/// A clock option (`turn_time_ms`) for `mode`: its choices, or a range in whole seconds;
/// `zero` names what 0 means where it is accepted.
fn clock(
    rule: &str,
    mode: PlayMode,
    clocks: ClockChoices,
    zero: Option<&str>,
    default: i64,
) -> pb::GameOption {
    let option = match clocks {
        ClockChoices::OneOf(values) => choice(
            CLOCK,
            "turn_time_ms",
            &[rule],
            "opt.clock",
            &[mode],
            default,
            zero.map(|key| labelled(0, key))
                .into_iter()
                .chain(plain(values.iter().map(|&ms| ms as i64)))
                .collect(),
        ),
        ClockChoices::Between(least, most) => pb::GameOption {
            zero_label_key: zero.unwrap_or_default().to_owned(),
            ..number(
                CLOCK,
                "turn_time_ms",
                &[rule],
                "opt.clock",
                &[mode],
                default,
                (least as i64, most as i64, 1000),
            )
        },
    };
    pb::GameOption {
        unit: "ms".to_owned(),
        ..option
    }
}

fn modes(modes: &[PlayMode]) -> Vec<i32> {
    modes.iter().map(|&mode| mode as i32).collect()
}

fn rules(rules: &[&str]) -> Vec<String> {
    rules.iter().map(|&rule| rule.to_owned()).collect()
}

/// What every option has: its id, field, kind, rules, label, modes and default.
fn option(
    (id, field, kind): (&str, &str, GameOptionKind),
    rule_ids: &[&str],
    label_key: &str,
    offered: &[PlayMode],
    default: i64,
) -> pb::GameOption {
    pb::GameOption {
        id: id.to_owned(),
        field: field.to_owned(),
        kind: kind as i32,
        rules: rules(rule_ids),
        label_key: label_key.to_owned(),
        modes: modes(offered),
        default_value: default,
        ..Default::default()
    }
}

/// A CHOICE option.
pub(crate) fn choice(
    id: &str,
    field: &str,
    rule_ids: &[&str],
    label_key: &str,
    offered: &[PlayMode],
    default: i64,
    choices: Vec<pb::GameOptionChoice>,
) -> pb::GameOption {
    pb::GameOption {
        choices,
        ..option(
            (id, field, GameOptionKind::Choice),
            rule_ids,
            label_key,
            offered,
            default,
        )
    }
}

/// A NUMBER option: `(least, most, step)`.
pub(crate) fn number(
    id: &str,
    field: &str,
    rule_ids: &[&str],
    label_key: &str,
    offered: &[PlayMode],
    default: i64,
    (min, max, step): (i64, i64, i64),
) -> pb::GameOption {
    pb::GameOption {
        min,
        max,
        step,
        ..option(
            (id, field, GameOptionKind::Number),
            rule_ids,
            label_key,
            offered,
            default,
        )
    }
}

/// A FLAG option.
pub(crate) fn flag(
    id: &str,
    field: &str,
    rule_ids: &[&str],
    label_key: &str,
    offered: &[PlayMode],
    default: bool,
) -> pb::GameOption {
    option(
        (id, field, GameOptionKind::Flag),
        rule_ids,
        label_key,
        offered,
        i64::from(default),
    )
}

/// Choices shown as their numbers.
pub(crate) fn plain(values: impl IntoIterator<Item = i64>) -> Vec<pb::GameOptionChoice> {
    values
        .into_iter()
        .map(|value| pb::GameOptionChoice {
            value,
            label_key: String::new(),
        })
        .collect()
}

/// A choice with a name.
pub(crate) fn labelled(value: i64, label_key: &str) -> pb::GameOptionChoice {
    pb::GameOptionChoice {
        value,
        label_key: label_key.to_owned(),
    }
}

/// "Only while option `id` has one of `values`."
pub(crate) fn only_when(id: &str, values: &[i64]) -> pb::GameOptionCondition {
    pb::GameOptionCondition {
        option_id: id.to_owned(),
        values: values.to_vec(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ludus_rules::SplitMix64;

    use super::*;
    use crate::bots::{computer_game, default_settings};
    use crate::policy::{QuickMatch, TableMode, room_game, table_mode, table_seats};
    use crate::{CatalogError, setup};

    /// `settings` with `field` set to `value`: the test's own map of every field path the
    /// description names, so an option whose field the catalog does not read fails here.
    /// `room.*` fields are the room service's (RoomSettings), not the game's: left alone.
    fn write(settings: &mut pb::GameSettings, field: &str, value: i64) {
        use pb::game_settings::Options;
        let number = u32::try_from(value).unwrap_or(u32::MAX);
        let enumerated = i32::try_from(value).unwrap_or(i32::MAX);
        match (&mut settings.options, field) {
            (_, "turn_time_ms") => settings.turn_time_ms = value as u64,
            (_, field) if field.starts_with("room.") => {}
            (Some(Options::Caro(o)), "caro.board_size") => o.board_size = number,
            (Some(Options::Caro(o)), "caro.blocked_ends_off") => o.blocked_ends_off = value != 0,
            (Some(Options::Caro(o)), "caro.exactly_five") => o.exactly_five = value != 0,
            (Some(Options::Mancala(o)), "mancala.rule_set") => o.rule_set = enumerated,
            (Some(Options::Mancala(o)), "mancala.first_player") => o.first_player = enumerated,
            (Some(Options::Quoridor(o)), "quoridor.mode") => o.mode = enumerated,
            (Some(Options::Quoridor(o)), "quoridor.players") => o.players = number,
            (Some(Options::Quoridor(o)), "quoridor.goal") => o.goal = enumerated,
            (Some(Options::Quoridor(o)), "quoridor.size") => o.size = number,
            (Some(Options::Quoridor(o)), "quoridor.walls") => o.walls = number,
            (Some(Options::Backgammon(o)), "backgammon.match_game.length") => {
                o.match_game = (value != 0).then(|| pb::BackgammonMatchGame {
                    length: number,
                    ..Default::default()
                })
            }
            (Some(Options::Backgammon(o)), "backgammon.automatic_doubles") => {
                o.automatic_doubles = value != 0
            }
            (Some(Options::Backgammon(o)), "backgammon.automatic_double_limit") => {
                o.automatic_double_limit = number
            }
            (Some(Options::Backgammon(o)), "backgammon.beavers") => o.beavers = value != 0,
            (Some(Options::Backgammon(o)), "backgammon.jacoby") => o.jacoby = value != 0,
            (_, field) => panic!("the description names {field}, which this test cannot set"),
        }
    }

    /// What the field holds for the option's `value` (a negated flag holds the opposite).
    fn held(option: &pb::GameOption, value: i64) -> i64 {
        if option.field_negated {
            1 - value
        } else {
            value
        }
    }

    fn offered_in(option: &pb::GameOption, mode: PlayMode) -> bool {
        option.modes.contains(&(mode as i32))
    }

    /// Every value the option offers.
    fn values(option: &pb::GameOption) -> Vec<i64> {
        match option.kind() {
            GameOptionKind::Choice => option.choices.iter().map(|c| c.value).collect(),
            GameOptionKind::Flag => vec![0, 1],
            GameOptionKind::Number => {
                let zero = (!option.zero_label_key.is_empty()).then_some(0);
                let step = usize::try_from(option.step).unwrap();
                zero.into_iter()
                    .chain((option.min..=option.max).step_by(step))
                    .collect()
            }
            GameOptionKind::Unspecified => panic!("{}: no kind", option.id),
        }
    }

    /// A value past the option's values, which the server must refuse.
    fn beyond(option: &pb::GameOption) -> Option<i64> {
        match option.kind() {
            GameOptionKind::Choice => values(option).into_iter().max().map(|most| most + 1),
            GameOptionKind::Number => Some(option.max + option.step),
            GameOptionKind::Flag | GameOptionKind::Unspecified => None,
        }
    }

    /// The game's settings in `mode` with every option at its default, then `chosen`
    /// (`(option, value)`), after the values that make `chosen` apply (its `only_when`).
    fn settings_with(
        game: &pb::GameDescription,
        mode: PlayMode,
        chosen: Option<(&pb::GameOption, i64)>,
    ) -> pb::GameSettings {
        let kind = GameKind::from_name(&game.game).unwrap();
        let mut settings = default_settings(kind);
        let mut values: Vec<(&str, i64)> = game
            .options
            .iter()
            .filter(|o| offered_in(o, mode))
            .map(|o| (o.id.as_str(), o.default_value))
            .collect();
        if let Some((option, value)) = chosen {
            for condition in &option.only_when {
                values.push((&condition.option_id, condition.values[0]));
            }
            values.push((&option.id, value));
        }
        for (id, value) in values {
            let option = game
                .options
                .iter()
                .find(|o| o.id == id && offered_in(o, mode))
                .unwrap_or_else(|| panic!("{}: {id} is not offered in {mode:?}", game.game));
            write(&mut settings, &option.field, held(option, value));
        }
        settings
    }

    /// Sends the settings through the validation of `mode`, then game-state's setup.
    fn accepted(settings: &pb::GameSettings, mode: PlayMode) -> Result<(), CatalogError> {
        let mut rng = SplitMix64(1);
        let (game, seats) = match mode {
            PlayMode::QuickMatch => {
                let queued = QuickMatch::from_settings(Some(settings))?;
                let seats = table_seats(&queued.settings);
                (queued.settings, seats)
            }
            PlayMode::Room => {
                let game = room_game(settings.clone())?;
                if table_mode(&game) != TableMode::Table {
                    // Teams and tournaments are seated by the room (its own tests).
                    return Ok(());
                }
                let seats = table_seats(&game);
                (game, seats)
            }
            PlayMode::Computer => {
                let human = pb::PlayerRef {
                    player_id: "g-1".into(),
                    ..Default::default()
                };
                let (game, players) = computer_game(settings, "normal", false, human, "t")?;
                (game, players.len())
            }
            PlayMode::Unspecified => panic!("no mode"),
        };
        setup(&game, seats, &mut rng).map(drop)
    }

    const MODES: [PlayMode; 3] = [PlayMode::QuickMatch, PlayMode::Room, PlayMode::Computer];

    #[test]
    fn every_value_of_every_option_is_accepted_where_it_is_offered() {
        let mut tried = 0;
        for game in catalog().games {
            for mode in MODES {
                assert!(game.modes.contains(&(mode as i32)), "{}", game.game);
                let defaults = settings_with(&game, mode, None);
                accepted(&defaults, mode)
                    .unwrap_or_else(|e| panic!("{} {mode:?} defaults: {e}", game.game));
                for option in game.options.iter().filter(|o| offered_in(o, mode)) {
                    for value in values(option) {
                        let settings = settings_with(&game, mode, Some((option, value)));
                        accepted(&settings, mode).unwrap_or_else(|e| {
                            panic!("{} {mode:?} {}={value}: {e}", game.game, option.id)
                        });
                        tried += 1;
                    }
                }
            }
        }
        assert!(tried > 200, "{tried} values tried");
    }

    #[test]
    fn a_value_past_an_option_is_refused_naming_its_rule() {
        for game in catalog().games {
            for mode in MODES {
                for option in game.options.iter().filter(|o| offered_in(o, mode)) {
                    // The room's own fields are checked by the rooms service.
                    let Some(value) = beyond(option).filter(|_| !option.field.starts_with("room."))
                    else {
                        continue;
                    };
                    let settings = settings_with(&game, mode, Some((option, value)));
                    let refusal = accepted(&settings, mode).expect_err(&format!(
                        "{} {mode:?} {}={value} is refused",
                        game.game, option.id
                    ));
                    let message = refusal.to_string();
                    assert!(
                        matches!(refusal, CatalogError::InvalidArgument(_))
                            && option
                                .rules
                                .iter()
                                .any(|rule| message.contains(&format!(": {rule}: "))),
                        "{} {mode:?} {}={value}: {message} names none of {:?}",
                        game.game,
                        option.id,
                        option.rules
                    );
                }
            }
        }
    }

    #[test]
    fn the_description_is_well_formed() {
        for game in catalog().games {
            let name = &game.game;
            for option in &game.options {
                let id = &option.id;
                assert!(!option.rules.is_empty(), "{name} {id}: a rule id");
                assert!(option.label_key.contains('.'), "{name} {id}: a label key");
                assert!(
                    values(option).contains(&option.default_value),
                    "{name} {id}: the default is one of its values"
                );
                // One id per mode: the forms and tests find an option by id.
                for mode in MODES.into_iter().filter(|m| offered_in(option, *m)) {
                    let same = game
                        .options
                        .iter()
                        .filter(|o| &o.id == id && offered_in(o, mode))
                        .count();
                    assert_eq!(same, 1, "{name} {id} {mode:?}");
                }
                for condition in &option.only_when {
                    assert!(
                        game.options.iter().any(|o| o.id == condition.option_id),
                        "{name} {id}: depends on an option that exists"
                    );
                }
            }
        }
        let caro = describe(GameKind::Caro);
        let clocks = caro.clocks.unwrap();
        assert_eq!(
            (clocks.rule.as_str(), clocks.quick_match_default_ms),
            ("C12", 60_000)
        );
        assert!(clocks.computer_untimed && !clocks.players_choose, "C17");
        let quoridor = describe(GameKind::Quoridor);
        assert_eq!((quoridor.min_players, quoridor.max_players), (2, 8), "Q4");
        assert_eq!(quoridor.clocks.unwrap().max_turn_ms, 90_000, "Q28");
        assert!(!quoridor.computer_may_move_first);
        let levels: Vec<_> = caro
            .computer_levels
            .iter()
            .map(|l| (l.level.as_str(), l.label_key.as_str()))
            .collect();
        assert_eq!(
            levels,
            [
                ("easy", "cpu.easy"),
                ("normal", "cpu.medium"),
                ("hard", "cpu.hard")
            ],
            "C17's names"
        );
    }

    /// Every label key the description uses has a translation in the web client's
    /// dictionaries (English and Vietnamese), so no form shows a bare key.
    #[test]
    fn every_label_key_is_translated_by_the_web_client() {
        let web =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../clients/web/src/i18n");
        let mut keys = Vec::new();
        for game in catalog().games {
            keys.push(game.label_key.clone());
            keys.extend(game.computer_levels.iter().map(|l| l.label_key.clone()));
            for option in &game.options {
                keys.push(option.label_key.clone());
                keys.push(option.zero_label_key.clone());
                keys.extend(option.choices.iter().map(|c| c.label_key.clone()));
            }
        }
        keys.retain(|key| !key.is_empty());
        for language in ["en", "vi"] {
            let dictionary = [format!("{language}.ts"), format!("features.{language}.ts")]
                .map(|file| std::fs::read_to_string(web.join(file)).unwrap())
                .concat();
            for key in &keys {
                assert!(
                    dictionary.contains(&format!("\"{key}\":")),
                    "{language}.ts has no \"{key}\""
                );
            }
        }
    }
}
