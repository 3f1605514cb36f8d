//! Requests as matchmaking understands them: validation, ticket ids and the ticket payload
//! the matcher reads back. Queue names, rating pools and table sizes are each game's table
//! policy, in `ludus-catalog` ([`QuickMatch`]).

pub use ludus_catalog::{CASUAL_QUEUE_SUFFIX, QuickMatch, is_casual_queue, table_seats};
use ludus_proto::pb;
use ludus_store::{Ticket, TicketStatus};
use prost::Message;
use serde::{Deserialize, Serialize};
use ulid::Ulid;

use crate::error::ServiceError;

/// Ids and display names are checked with the policy every service shares.
pub use ludus_proto::ids::{MAX_ID_LEN, validate_display_name, validate_id};

/// A ticket id names its queue, so that a ticket can be found from its id alone (the store
/// reads tickets by queue and id, and a player's index entry is gone once a ticket is
/// matched): `<queue with '/' as '_'>_<ULID>`, e.g. `caro_15_blocked-ends_01J…`. It stays
/// within what the gateway accepts as an id (64 of `[A-Za-z0-9_-]`). A casual queue's ticket
/// marks its ULID with a `c` (`caro_15_blocked-ends_c01J…`) rather than spelling out
/// `/casual`, so the longest Quoridor queue still fits.
pub fn ticket_id(queue: &str, ulid: Ulid) -> Result<String, ServiceError> {
    if queue.contains('_') {
        return Err(ServiceError::Internal(format!(
            "queue {queue} cannot be named in a ticket id"
        )));
    }
    let (rated_queue, marker) = match queue.strip_suffix(CASUAL_QUEUE_SUFFIX) {
        Some(rated) => (rated, CASUAL_TICKET_MARKER),
        None => (queue, ""),
    };
    let id = format!("{}_{marker}{ulid}", rated_queue.replace('/', "_"));
    if id.len() > MAX_ID_LEN {
        return Err(ServiceError::Internal(format!(
            "queue {queue} is too long for a ticket id"
        )));
    }
    Ok(id)
}

/// The queue named by a ticket id.
pub fn queue_of(ticket_id: &str) -> Result<String, ServiceError> {
    validate_id("ticket_id", ticket_id)?;
    let not_ours = || ServiceError::InvalidArgument("ticket_id: not a matchmaking ticket".into());
    let (queue, ulid) = ticket_id.rsplit_once('_').ok_or_else(not_ours)?;
    let (ulid, suffix) = match ulid.strip_prefix(CASUAL_TICKET_MARKER) {
        Some(ulid) => (ulid, CASUAL_QUEUE_SUFFIX),
        None => (ulid, ""),
    };
    if queue.is_empty() || ulid.parse::<Ulid>().is_err() {
        return Err(not_ours());
    }
    Ok(format!("{}{suffix}", queue.replace('_', "/")))
}

/// Marks the ULID of a casual queue's ticket id (lower case, so no ULID starts with it).
const CASUAL_TICKET_MARKER: &str = "c";

/// What the matcher needs from a ticket besides its player: the player's name and the
/// settings to create the game with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TicketPayload {
    /// The player's display name.
    pub display_name: String,
    /// The encoded `pb::GameSettings` (normalised; see [`QuickMatch`]).
    pub settings: Vec<u8>,
    /// The player's rating in the queue's rating pool when they queued, rounded; `None`
    /// when ratings could not be asked (the ticket then pairs with anyone, see `pairing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<i32>,
    /// The player is seated only through an open watch of the ticket
    /// (`EnqueueRequest.confirm_presence`); otherwise it counts as confirmed from the start.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confirm: bool,
}

impl TicketPayload {
    /// The payload for a player queuing for `quick` with `rating`.
    pub fn new(display_name: &str, quick: &QuickMatch, rating: Option<i32>) -> Self {
        TicketPayload {
            display_name: display_name.to_owned(),
            settings: quick.settings.encode_to_vec(),
            rating,
            confirm: false,
        }
    }

    /// The same payload, its presence confirmed by the caller when proposed (or not).
    pub fn confirmed_by_caller(mut self, confirm: bool) -> Self {
        self.confirm = confirm;
        self
    }

    /// JSON bytes for the store.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ServiceError> {
        serde_json::to_vec(self).map_err(|e| ServiceError::Internal(format!("ticket payload: {e}")))
    }

    /// Reads a stored payload.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ServiceError> {
        serde_json::from_slice(bytes)
            .map_err(|e| ServiceError::Internal(format!("ticket payload: {e}")))
    }

    /// The decoded settings.
    pub fn settings(&self) -> Result<pb::GameSettings, ServiceError> {
        pb::GameSettings::decode(self.settings.as_slice())
            .map_err(|e| ServiceError::Internal(format!("ticket settings: {e}")))
    }
}

/// A ticket as its owner sees it at `now_ms`.
pub fn ticket_update(ticket: &Ticket, now_ms: u64) -> pb::TicketUpdate {
    let (state, game_id, seat) = match &ticket.status {
        // A proposal is not a game yet: its owner still waits.
        TicketStatus::Queued | TicketStatus::Proposed { .. } => {
            (pb::TicketState::Queued, String::new(), 0)
        }
        TicketStatus::Matched { game_id, seat, .. } => {
            (pb::TicketState::Matched, game_id.clone(), *seat)
        }
        TicketStatus::Cancelled => (pb::TicketState::Cancelled, String::new(), 0),
    };
    pb::TicketUpdate {
        ticket_id: ticket.ticket_id.clone(),
        state: state as i32,
        game_id,
        seat,
        waited_ms: now_ms.saturating_sub(ticket.created_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ludus_catalog::CatalogError;

    fn caro(size: u32, blocked_ends_off: bool, exactly_five: bool) -> pb::GameSettings {
        pb::GameSettings {
            options: Some(pb::game_settings::Options::Caro(pb::CaroOptions {
                board_size: size,
                blocked_ends_off,
                exactly_five,
            })),
            turn_time_ms: 5,
        }
    }

    #[test]
    fn caro_queues_by_size_and_rules() {
        let default = QuickMatch::from_settings(Some(&caro(0, false, false))).expect("ok");
        let fifteen = QuickMatch::from_settings(Some(&caro(15, false, false))).expect("ok");
        assert_eq!(default, fifteen);
        assert_eq!(default.queue, "caro/15/blocked-ends");
        assert_eq!(default.settings.turn_time_ms, 0);
        let other = QuickMatch::from_settings(Some(&caro(19, true, true))).expect("ok");
        assert_eq!(other.queue, "caro/19/exactly-five");
        assert!(matches!(
            QuickMatch::from_settings(Some(&caro(17, false, false))),
            Err(CatalogError::InvalidArgument(m)) if m.starts_with("settings.caro.board_size")
        ));
        assert!(matches!(
            QuickMatch::from_settings(None),
            Err(CatalogError::InvalidArgument(_))
        ));
    }

    #[test]
    fn junqi_has_one_queue_and_the_server_clock() {
        let asked = pb::GameSettings {
            options: Some(pb::game_settings::Options::Junqi(pb::JunqiOptions {})),
            turn_time_ms: 5,
        };
        let quick = QuickMatch::from_settings(Some(&asked)).expect("junqi quick match");
        assert_eq!(quick.queue, "junqi/flip");
        assert_eq!(quick.settings.turn_time_ms, 0, "J19: the matcher sets 30 s");
        assert!(ticket_id(&quick.queue, Ulid::generate()).is_ok());
    }

    fn backgammon(options: pb::BackgammonOptions, turn_time_ms: u64) -> pb::GameSettings {
        pb::GameSettings {
            options: Some(pb::game_settings::Options::Backgammon(options)),
            turn_time_ms,
        }
    }

    #[test]
    fn backgammon_queues_money_games_by_optional_rules_and_b20_clock() {
        let plain = QuickMatch::from_settings(Some(&backgammon(Default::default(), 0)))
            .expect("money game");
        assert_eq!(plain.queue, "backgammon/money");
        assert_eq!(plain.settings.turn_time_ms, 0, "B20: the matcher sets 60 s");
        let rules = pb::BackgammonOptions {
            automatic_doubles: true,
            jacoby: true,
            ..Default::default()
        };
        let quick = QuickMatch::from_settings(Some(&backgammon(rules, 90_000))).expect("rules");
        assert_eq!(quick.queue, "backgammon/money/a1-j/t90");
        assert_eq!(quick.settings.turn_time_ms, 90_000);
        assert!(ticket_id(&quick.queue, Ulid::generate()).is_ok());
        let longest = pb::BackgammonOptions {
            automatic_doubles: true,
            automatic_double_limit: 15,
            beavers: true,
            jacoby: true,
            match_game: None,
        };
        let quick = QuickMatch::from_settings(Some(&backgammon(longest, 120_000))).expect("all");
        assert_eq!(quick.queue, "backgammon/money/a15-b-j/t120");
        assert!(ticket_id(&quick.queue, Ulid::generate()).is_ok());
        for (settings, start) in [
            (
                backgammon(Default::default(), 45_000),
                "settings.turn_time_ms: B20",
            ),
            (
                backgammon(
                    pb::BackgammonOptions {
                        match_game: Some(pb::BackgammonMatchGame {
                            length: 4,
                            ..Default::default()
                        }),
                        ..Default::default()
                    },
                    0,
                ),
                "settings.backgammon.match_game.length: B22",
            ),
            (
                backgammon(
                    pb::BackgammonOptions {
                        jacoby: true,
                        match_game: Some(pb::BackgammonMatchGame {
                            length: 5,
                            ..Default::default()
                        }),
                        ..Default::default()
                    },
                    0,
                ),
                "settings.backgammon",
            ),
        ] {
            let Err(CatalogError::InvalidArgument(message)) =
                QuickMatch::from_settings(Some(&settings))
            else {
                panic!("refused");
            };
            assert!(message.starts_with(start), "{message}");
        }
    }

    #[test]
    fn b22_backgammon_matches_queue_by_length_and_rate_in_the_match_pool() {
        let five = pb::BackgammonOptions {
            match_game: Some(pb::BackgammonMatchGame {
                length: 5,
                ..Default::default()
            }),
            ..Default::default()
        };
        let quick = QuickMatch::from_settings(Some(&backgammon(five.clone(), 0))).expect("5");
        assert_eq!(quick.queue, "backgammon/match/5");
        assert_eq!(quick.rating_pool, "backgammon/match");
        let Some(pb::game_settings::Options::Backgammon(options)) = &quick.settings.options else {
            panic!("backgammon settings");
        };
        let game = options.match_game.as_ref().expect("a match");
        assert_eq!(
            (game.length, game.score.as_slice(), game.crawford),
            (5, &[0, 0][..], false)
        );
        let timed = QuickMatch::from_settings(Some(&backgammon(five, 30_000))).expect("timed");
        assert_eq!(timed.queue, "backgammon/match/5/t30");
        assert!(ticket_id(&timed.queue, Ulid::generate()).is_ok());
        let money = QuickMatch::from_settings(Some(&backgammon(Default::default(), 0))).expect("$");
        assert_eq!(money.rating_pool, "backgammon/money");
    }

    #[test]
    fn mancala_queues_by_rule_set_with_a_random_first_player() {
        let asked = |rule_set: pb::MancalaRuleSet, turn_time_ms| pb::GameSettings {
            options: Some(pb::game_settings::Options::Mancala(pb::MancalaOptions {
                rule_set: rule_set as i32,
                first_player: pb::MancalaFirstPlayer::Seat0 as i32,
            })),
            turn_time_ms,
        };
        let kalah = QuickMatch::from_settings(Some(&asked(pb::MancalaRuleSet::Unspecified, 0)))
            .expect("kalah");
        assert_eq!(kalah.queue, "mancala/kalah");
        let Some(pb::game_settings::Options::Mancala(options)) = &kalah.settings.options else {
            panic!("mancala settings");
        };
        assert_eq!(
            options.first_player,
            pb::MancalaFirstPlayer::Random as i32,
            "M3"
        );
        assert_eq!(kalah.settings.turn_time_ms, 0, "M10: the matcher sets 30 s");
        let congklak =
            QuickMatch::from_settings(Some(&asked(pb::MancalaRuleSet::Congklak, 30_000)))
                .expect("congklak");
        assert_eq!(congklak.queue, "mancala/congklak");
        assert!(ticket_id(&congklak.queue, Ulid::generate()).is_ok());
        let Err(CatalogError::InvalidArgument(message)) =
            QuickMatch::from_settings(Some(&asked(pb::MancalaRuleSet::Kalah, 60_000)))
        else {
            panic!("M10 refuses a minute");
        };
        assert!(
            message.starts_with("settings.turn_time_ms: M10"),
            "{message}"
        );
    }

    fn quoridor(players: u32, turn_time_ms: u64) -> pb::GameSettings {
        pb::GameSettings {
            options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
                players,
                first_seat: Some(1),
                ..Default::default()
            })),
            turn_time_ms,
        }
    }

    #[test]
    fn quoridor_queues_by_options_seats_and_chosen_clock() {
        let two = QuickMatch::from_settings(Some(&quoridor(0, 0))).expect("ok");
        assert_eq!(two.queue, "quoridor/9/classic");
        assert_eq!(table_seats(&two.settings), 2);
        assert_eq!(
            two.settings.turn_time_ms, 0,
            "the matcher sets the default clock"
        );
        let Some(pb::game_settings::Options::Quoridor(options)) = &two.settings.options else {
            panic!("quoridor settings");
        };
        assert_eq!(
            options.first_seat, None,
            "Q8: quick matches draw who starts"
        );
        let four = QuickMatch::from_settings(Some(&quoridor(4, 45_000))).expect("ok");
        assert_eq!(four.queue, "quoridor/9/classic/ffa4/t45");
        assert_eq!(table_seats(&four.settings), 4);
        assert_eq!(four.settings.turn_time_ms, 45_000);
        for bad in [quoridor(4, 10_000), quoridor(4, 91_000), quoridor(9, 0)] {
            assert!(matches!(
                QuickMatch::from_settings(Some(&bad)),
                Err(CatalogError::InvalidArgument(_))
            ));
        }
        let teams = pb::GameSettings {
            options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
                mode: pb::QuoridorMode::Teams as i32,
                ..Default::default()
            })),
            turn_time_ms: 0,
        };
        assert!(matches!(
            QuickMatch::from_settings(Some(&teams)),
            Err(CatalogError::InvalidArgument(m)) if m.starts_with("settings.quoridor.mode")
        ));
        let id = ticket_id("quoridor/13/center/ffa8/walls20/t90", Ulid::generate()).expect("fits");
        assert_eq!(
            queue_of(&id).expect("parses"),
            "quoridor/13/center/ffa8/walls20/t90"
        );
    }

    #[test]
    fn ticket_ids_name_their_queue() {
        for queue in [
            "caro/15/free",
            "caro/19/blocked-ends/exactly-five",
            "caro/15/blocked-ends",
            "caro/15/blocked-ends/casual",
            "quoridor/13/center/ffa8/walls20/t90/casual",
        ] {
            let id = ticket_id(queue, Ulid::generate()).expect("fits");
            assert!(validate_id("ticket_id", &id).is_ok(), "{id}");
            assert_eq!(queue_of(&id).expect("parses"), queue);
        }
        assert!(queue_of("nonsense").is_err());
        assert!(queue_of("caro_15_free_NOTAULID").is_err());
        assert!(queue_of("caro/15").is_err());
    }

    #[test]
    fn payload_round_trips() {
        let quick = QuickMatch::from_settings(Some(&caro(19, false, true))).expect("ok");
        let payload = TicketPayload::new("Ann", &quick, Some(1316));
        let back = TicketPayload::from_bytes(&payload.to_bytes().expect("json")).expect("read");
        assert_eq!(back, payload);
        assert_eq!(back.settings().expect("settings"), quick.settings);
    }
}
