//! Every game through the one interface the service uses (`ludus_catalog::LiveGame`), as a client
//! drives it: the legal actions game-state lists are accepted when sent back, as notation or
//! structured, for whole random games; and arbitrary text from any seat never panics, is
//! refused with INVALID_ARGUMENT or FAILED_PRECONDITION naming what is wrong, and changes
//! nothing.

use ludus_catalog::{self as engine, LiveGame};
use ludus_proto::pb;
use ludus_rules::{RandomSource, SplitMix64, Viewer};
use proptest::prelude::*;
use tonic::Code;

/// One settings per game and variant, with its seat count.
fn games() -> Vec<(&'static str, pb::GameSettings, usize)> {
    use pb::game_settings::Options;
    let settings = |options| pb::GameSettings {
        options: Some(options),
        turn_time_ms: 0,
    };
    vec![
        (
            "caro",
            settings(Options::Caro(pb::CaroOptions::default())),
            2,
        ),
        (
            "quoridor 2",
            settings(Options::Quoridor(pb::QuoridorOptions::default())),
            2,
        ),
        (
            "quoridor 4 on 11",
            settings(Options::Quoridor(pb::QuoridorOptions {
                size: 11,
                players: 4,
                ..Default::default()
            })),
            4,
        ),
        (
            "backgammon",
            settings(Options::Backgammon(pb::BackgammonOptions {
                beavers: true,
                jacoby: true,
                ..Default::default()
            })),
            2,
        ),
        (
            "kalah",
            settings(Options::Mancala(pb::MancalaOptions {
                rule_set: pb::MancalaRuleSet::Kalah as i32,
                ..Default::default()
            })),
            2,
        ),
        (
            "congklak",
            settings(Options::Mancala(pb::MancalaOptions {
                rule_set: pb::MancalaRuleSet::Congklak as i32,
                ..Default::default()
            })),
            2,
        ),
        ("junqi", settings(Options::Junqi(pb::JunqiOptions {})), 2),
    ]
}

/// Plays up to `plies` random listed actions; returns the game and the actions played.
fn playout(
    settings: &pb::GameSettings,
    seats: usize,
    seed: u64,
    plies: usize,
) -> (Box<dyn LiveGame>, usize) {
    let mut rng = SplitMix64(seed);
    let mut game = engine::setup(settings, seats, &mut rng).expect("setup");
    let mut played = 0;
    for ply in 0..plies {
        let Some(seat) = game.to_move() else { break };
        let legal = game.legal_actions(seat);
        assert!(
            !legal.is_empty(),
            "seat {seat} to move with no legal action"
        );
        let pick = &legal[rng.below(u32::try_from(legal.len()).unwrap_or(u32::MAX)) as usize];
        // Alternate the two ways a client may send it back.
        let action = if ply % 2 == 0 {
            pb::Action::notation(pick.notation.as_str())
        } else {
            pick.action.clone().expect("a structured action")
        };
        if let Err(error) = game.apply(seat, &action, &mut rng) {
            panic!("listed action {:?} refused: {error}", pick.notation);
        }
        played += 1;
    }
    (game, played)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn every_listed_action_is_accepted_as_notation_and_structured(seed in any::<u64>()) {
        for (name, settings, seats) in games() {
            let (game, played) = playout(&settings, seats, seed, 250);
            // The playout stops early only because the game is over (a random backgammon
            // game may end at once with a dropped double).
            prop_assert!(
                played >= 1 && (played == 250 || game.outcome().is_some()),
                "{}: {} actions, outcome {:?}", name, played, game.outcome()
            );
        }
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_from_any_seat_is_refused_precisely_and_changes_nothing(
        seed in any::<u64>(),
        plies in 0usize..40,
        text in "\\PC{0,24}",
        seat in 0usize..5,
    ) {
        for (name, settings, seats) in games() {
            let (mut game, _) = playout(&settings, seats, seed, plies);
            let before = (game.view(Viewer::Spectator), game.to_move(), game.outcome());
            let mut rng = SplitMix64(seed ^ 1);
            if let Err(error) = game.apply(seat, &pb::Action::notation(text.as_str()), &mut rng) {
                let status = tonic::Status::from(error);
                prop_assert!(
                    matches!(status.code(), Code::InvalidArgument | Code::FailedPrecondition),
                    "{name}: {text:?} from seat {seat}: {status:?}"
                );
                prop_assert!(!status.message().is_empty());
                // A rules refusal names its rule first ("C3: H8 is already taken").
                if status.code() == Code::FailedPrecondition {
                    let rule = status.message().split(':').next().unwrap_or_default();
                    prop_assert!(
                        rule.len() <= 3
                            && rule.starts_with(|c: char| c.is_ascii_uppercase())
                            && rule[1..].chars().all(|c| c.is_ascii_digit())
                            && rule.len() >= 2,
                        "{name}: {text:?} from seat {seat}: {:?} names no rule", status.message()
                    );
                }
                let after = (game.view(Viewer::Spectator), game.to_move(), game.outcome());
                prop_assert_eq!(before, after, "{}: a refused action changed the game", name);
            }
        }
    }
}
