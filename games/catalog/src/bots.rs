//! Computer players in the contract (ARCHITECTURE.md, "Computer players"): what a computer seat may know of a game (its
//! *seat position*), and the action a level chooses from it.
//!
//! The split is the privacy boundary. game-state, which holds the whole game, calls
//! [`LiveGame::seat_position`] and sends only that; the bots service (or rooms, or the web
//! client) calls [`choose`] with it and never sees more. For the perfect-information games
//! (Caro, Quoridor, Backgammon, Mancala) the seat position is the position itself: it holds
//! no future dice (rules crates take randomness as a `RandomSource`, never store it). For
//! Flip Junqi it is the seat's `JunqiView` (J22: face-down pieces are only counts, J21), and
//! the choice is `ludus_junqi::decide`, which works from that view alone.

use ludus_proto::pb;
use ludus_rules::{Bot, Level, Seat, Think, Viewer};
use serde::{Serialize, de::DeserializeOwned};

use crate::games::caro::Caro;
use crate::games::junqi::{Junqi, JunqiView};
use crate::games::mancala::Mancala;
use crate::games::quoridor::Quoridor;
use crate::{CatalogError, GameKind, Hosting, RuleError};
use ludus_backgammon::BackgammonSession;

/// What a computer seat decides from, per game.
pub trait SeatPosition: Hosting {
    /// What `seat` may know: the position, or the seat's view where there is hidden state.
    type Position: Serialize + DeserializeOwned;
    /// The seat's position now.
    fn seat_position(&self, seat: Seat) -> Self::Position;
    /// The action `seat` takes at `level` from `position` alone; `None` when it is not the
    /// seat's turn or the game is over.
    fn choose_from(position: &Self::Position, seat: Seat, think: Think<'_>)
    -> Option<Self::Action>;
    /// The level's work budget ([`Bot::default_work`]).
    fn work(level: Level) -> u64;
}

/// The perfect-information games: the seat position is the game, and the game's own bot
/// chooses from it.
macro_rules! whole_position {
    ($game:ty) => {
        impl SeatPosition for $game {
            type Position = $game;
            fn seat_position(&self, _seat: Seat) -> $game {
                self.clone()
            }
            fn choose_from(
                position: &$game,
                seat: Seat,
                think: Think<'_>,
            ) -> Option<<$game as ludus_rules::Game>::Action> {
                Bot::choose(position, seat, think.level, think.budget, think.rng)
            }
            fn work(level: Level) -> u64 {
                <$game as Bot>::default_work(level)
            }
        }
    };
}

whole_position!(Caro);
whole_position!(Quoridor);
whole_position!(Mancala);
whole_position!(BackgammonSession);

/// J22: the seat's view, never the layout.
impl SeatPosition for Junqi {
    type Position = JunqiView;
    fn seat_position(&self, seat: Seat) -> JunqiView {
        ludus_rules::Game::view(self, Viewer::Seat(seat))
    }
    fn choose_from(
        position: &JunqiView,
        seat: Seat,
        think: Think<'_>,
    ) -> Option<ludus_junqi::Action> {
        if position.viewer != Some(seat) {
            return None;
        }
        ludus_junqi::decide(position, think.level, think.budget, think.rng)
    }
    fn work(level: Level) -> u64 {
        <Junqi as Bot>::default_work(level)
    }
}

/// A computer player's choice, as the contract carries it.
#[derive(Clone, Debug, PartialEq)]
pub struct BotChoice {
    pub action: pb::Action,
    pub notation: String,
}

/// The levels, as a refusal names them.
pub const LEVEL_NAMES: &str =
    "easy, normal or hard (the seeds' medium, beginner and expert work too)";

/// Reads a level by any of the seeds' names; INVALID_ARGUMENT naming the levels otherwise.
pub fn parse_level(field: &str, name: &str) -> Result<Level, CatalogError> {
    Level::parse(name).ok_or_else(|| {
        CatalogError::InvalidArgument(format!(
            "{field}: unknown level {}: expected {LEVEL_NAMES}",
            ludus_rules::excerpt(name)
        ))
    })
}

/// The action a computer at `level` in `seat` takes from its seat position (as
/// [`LiveGame::seat_position`] wrote it). `None` when the position has nothing for the seat
/// to do. INTERNAL when the position is not one of `kind`.
pub fn choose(
    kind: GameKind,
    position: &serde_json::Value,
    seat: Seat,
    think: Think<'_>,
) -> Result<Option<BotChoice>, CatalogError> {
    fn run<G: SeatPosition>(
        position: &serde_json::Value,
        seat: Seat,
        think: Think<'_>,
    ) -> Result<Option<BotChoice>, CatalogError> {
        let position = <G::Position as serde::Deserialize>::deserialize(position)
            .map_err(|e| CatalogError::Internal(format!("unreadable seat position: {e}")))?;
        Ok(
            G::choose_from(&position, seat, think).map(|action| BotChoice {
                action: G::action_to_pb(&action),
                notation: action.to_string(),
            }),
        )
    }
    match kind {
        GameKind::Caro => run::<Caro>(position, seat, think),
        GameKind::Quoridor => run::<Quoridor>(position, seat, think),
        GameKind::Backgammon => run::<BackgammonSession>(position, seat, think),
        GameKind::Junqi => run::<Junqi>(position, seat, think),
        GameKind::Mancala => run::<Mancala>(position, seat, think),
    }
}

/// The level's typical work budget in `kind` (Hard about a second on one core).
pub fn default_work(kind: GameKind, level: Level) -> u64 {
    match kind {
        GameKind::Caro => <Caro as SeatPosition>::work(level),
        GameKind::Quoridor => <Quoridor as SeatPosition>::work(level),
        GameKind::Backgammon => <BackgammonSession as SeatPosition>::work(level),
        GameKind::Junqi => <Junqi as SeatPosition>::work(level),
        GameKind::Mancala => <Mancala as SeatPosition>::work(level),
    }
}

/// Whether the human may take back a move in a `kind` game against computers at `levels`:
/// the rule that allows it, or the refusal (FAILED_PRECONDITION) naming the rule that does
/// not. C17: Caro against Easy and Medium; M11: Mancala, the last sow. The other games'
/// rules grant none (and a Junqi take-back would un-flip a piece both players have seen, a
/// backgammon one would re-roll dice).
pub fn take_back_rule(kind: GameKind, levels: &[Level]) -> Result<&'static str, CatalogError> {
    let refuse =
        |rule: &'static str, message: String| Err(CatalogError::Rule(RuleError { rule, message }));
    match kind {
        GameKind::Caro if levels.contains(&Level::Hard) => refuse(
            "C17",
            "C17: moves may be taken back only against Easy and Medium".into(),
        ),
        GameKind::Caro => Ok("C17"),
        GameKind::Mancala => Ok("M11"),
        other => refuse(
            "C17",
            format!(
                "C17: {other} has no take-backs: only Caro (C17) and Mancala (M11) against the \
                 computer allow them"
            ),
        ),
    }
}

/// The prefix of every computer player's id (no person's id has it: the gateway makes `g-…`
/// and `a-…` ids), so a person can never act for a computer seat.
pub const BOT_ID_PREFIX: &str = "bot-";

/// The seeds' name of `level` in `kind` (C17: Easy/Medium/Hard; J20: Beginner/Normal/Expert;
/// M11 and the others: Easy/Normal/Hard).
pub fn level_title(kind: GameKind, level: Level) -> &'static str {
    match (kind, level) {
        (GameKind::Junqi, Level::Easy) => "Beginner",
        (GameKind::Junqi, Level::Hard) => "Expert",
        (GameKind::Caro, Level::Normal) => "Medium",
        (_, Level::Easy) => "Easy",
        (_, Level::Normal) => "Normal",
        (_, Level::Hard) => "Hard",
    }
}

/// A computer player for a seat: its id (`bot-<tag>-<seat>`, unique per game with a unique
/// `tag`), display name and level, as `CreateGameRequest.players` takes it.
pub fn computer_player(
    kind: GameKind,
    level: Level,
    tag: &str,
    seat: usize,
    numbered: bool,
) -> pb::PlayerRef {
    let title = level_title(kind, level);
    pb::PlayerRef {
        player_id: format!("{BOT_ID_PREFIX}{tag}-{seat}"),
        display_name: if numbered {
            format!("Computer {seat} ({title})")
        } else {
            format!("Computer ({title})")
        },
        computer_level: level.name().to_owned(),
    }
}

/// A game against the computer (Gateway.PlayComputer): the settings to play with and the
/// players in seat order. The human sits in seat 0, or seat 1 when `computer_first` (not in
/// Quoridor, where the human is seat 0 of a free-for-all against `players - 1` computers).
/// The human's clock: none in Caro (C17), Mancala (M11) and Flip Junqi (J19: offline games
/// against the computer are untimed), the settings' in Quoridor and Backgammon. `tag` makes
/// the computers' ids unique (the caller passes a fresh ULID).
pub fn computer_game(
    settings: &pb::GameSettings,
    level: &str,
    computer_first: bool,
    human: pb::PlayerRef,
    tag: &str,
) -> Result<(pb::GameSettings, Vec<pb::PlayerRef>), CatalogError> {
    let kind = GameKind::of(settings)?;
    let level = parse_level("level", level)?;
    let mut settings = settings.clone();
    let seats = crate::table_seats(&settings);
    let policy = kind.table_policy();
    match policy.computer_clock {
        None => settings.turn_time_ms = 0,
        Some(clocks) if settings.turn_time_ms == 0 || clocks.offers(settings.turn_time_ms) => {}
        Some(_) => {
            return Err(CatalogError::InvalidArgument(format!(
                "settings.turn_time_ms: {}: {} ms is not a clock offered against the computer \
                 (untimed, 0, or a friend room's: {})",
                policy.clock_rule, settings.turn_time_ms, policy.friend_clock.described
            )));
        }
    }
    if let Some(pb::game_settings::Options::Quoridor(options)) = &settings.options {
        if !matches!(
            pb::QuoridorMode::try_from(options.mode),
            Ok(pb::QuoridorMode::Unspecified | pb::QuoridorMode::FreeForAll)
        ) {
            return Err(CatalogError::InvalidArgument(
                "settings.quoridor.mode: against the computer Quoridor is a free-for-all (Q22)"
                    .into(),
            ));
        }
        if computer_first && !computer_may_move_first(kind) {
            return Err(CatalogError::InvalidArgument(
                "computer_first: in Quoridor the human is seat 0; set first_seat to choose who \
                 moves first (Q8)"
                    .into(),
            ));
        }
    }
    if !(policy.min_seats..=policy.max_seats).contains(&seats) {
        return Err(CatalogError::InvalidArgument(format!(
            "settings: {}: {kind} seats {} to {} players, not {seats}",
            policy.seats_rule, policy.min_seats, policy.max_seats
        )));
    }
    let numbered = seats > 2;
    let mut players: Vec<pb::PlayerRef> = (1..seats)
        .map(|seat| computer_player(kind, level, tag, seat, numbered))
        .collect();
    if computer_first {
        players[0] = computer_player(kind, level, tag, 0, numbered);
        players.push(human);
    } else {
        players.insert(0, human);
    }
    Ok((settings, players))
}

/// Whether `PlayComputerRequest.computer_first` is taken in `kind`: not in Quoridor, whose
/// human sits on seat 0 of a free-for-all and chooses the first mover with `first_seat` (Q8).
pub fn computer_may_move_first(kind: GameKind) -> bool {
    kind != GameKind::Quoridor
}

/// Default settings of a game, for tests and for a client that names only the game.
pub fn default_settings(kind: GameKind) -> pb::GameSettings {
    use pb::game_settings::Options;
    let options = match kind {
        GameKind::Caro => Options::Caro(pb::CaroOptions::default()),
        GameKind::Quoridor => Options::Quoridor(pb::QuoridorOptions::default()),
        GameKind::Backgammon => Options::Backgammon(pb::BackgammonOptions::default()),
        GameKind::Junqi => Options::Junqi(pb::JunqiOptions::default()),
        GameKind::Mancala => Options::Mancala(pb::MancalaOptions::default()),
    };
    pb::GameSettings {
        options: Some(options),
        turn_time_ms: 0,
    }
}

/// The Junqi crate's layouts for its J22 proofs, shared rather than copied.
#[cfg(test)]
#[path = "../../junqi/tests/common/mod.rs"]
mod junqi_layouts;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::junqi_layouts::{history, layout};
    use super::*;
    use crate::{Hosted, LiveGame};
    use ludus_rules::{Budget, Game, SplitMix64};

    #[test]
    fn unknown_levels_are_refused_naming_the_levels() {
        let error = parse_level("level", "grandmaster").unwrap_err();
        assert!(matches!(error, CatalogError::InvalidArgument(_)));
        assert!(
            error.to_string().contains("easy, normal or hard"),
            "{error}"
        );
        assert_eq!(parse_level("level", "Medium").unwrap(), Level::Normal);
    }

    #[test]
    fn take_backs_follow_c17_and_m11() {
        assert_eq!(
            take_back_rule(GameKind::Caro, &[Level::Normal]).unwrap(),
            "C17"
        );
        assert_eq!(
            take_back_rule(GameKind::Mancala, &[Level::Hard]).unwrap(),
            "M11"
        );
        let hard = take_back_rule(GameKind::Caro, &[Level::Hard]).unwrap_err();
        assert_eq!(hard.rule(), Some("C17"));
        assert!(take_back_rule(GameKind::Junqi, &[Level::Easy]).is_err());
    }

    /// Every game: the choice made from the seat to move's serialized seat position is legal
    /// in the game itself.
    #[test]
    fn every_game_chooses_a_legal_action_from_its_seat_position() {
        for kind in GameKind::ALL {
            let mut rng = SplitMix64(7);
            let mut game = crate::setup(&default_settings(kind), 2, &mut rng).unwrap();
            for _ in 0..6 {
                let Some(seat) = game.to_move() else { break };
                let position = game.seat_position(seat).unwrap();
                let budget = Budget::work(default_work(kind, Level::Easy));
                let think = Think {
                    level: Level::Easy,
                    budget: &budget,
                    rng: &mut rng,
                };
                let choice = choose(kind, &position, seat, think)
                    .unwrap()
                    .unwrap_or_else(|| panic!("{kind}: a choice for the seat to move"));
                game.apply(seat, &choice.action, &mut rng)
                    .unwrap_or_else(|e| panic!("{kind}: {} is legal: {e}", choice.notation));
            }
        }
    }

    /// J22 (the J22 proof's shape): two hidden layouts with one public history give a Junqi
    /// bot the same request (the seat position game-state sends, byte for byte) and so the
    /// same choice, at every level.
    #[test]
    fn j22_a_junqi_bot_sees_the_same_for_two_layouts_with_one_public_history() {
        // The J22 proof's two games (the Junqi crate's test helpers): different hidden layouts,
        // the same public history.
        let (a, b) = (history(layout(1)), history(layout(2)));
        assert_ne!(a, b, "the hidden layouts differ");
        let seat = a.to_move().unwrap();
        let request = |g: &Junqi| {
            serde_json::to_vec(&Hosted::new(g.clone()).seat_position(seat).unwrap()).unwrap()
        };
        assert_eq!(
            request(&a),
            request(&b),
            "the seat positions are the same bytes"
        );
        for level in Level::ALL {
            let budget = Budget::work(match level {
                // Expert's full budget is too slow for a debug build; a small one runs the
                // same code.
                Level::Hard => 1_500,
                other => default_work(GameKind::Junqi, other),
            });
            let decide = |g: &Junqi| {
                let position = Hosted::new(g.clone()).seat_position(seat).unwrap();
                let think = Think {
                    level,
                    budget: &budget,
                    rng: &mut SplitMix64(3),
                };
                choose(GameKind::Junqi, &position, seat, think).unwrap()
            };
            let (ca, cb) = (decide(&a), decide(&b));
            assert!(ca.is_some(), "{level:?}");
            assert_eq!(ca, cb, "{level:?}: a bot's choice leaks the layout");
        }
    }
}
