//! One interface over every game: a service handles `dyn LiveGame` and never names a game.
//!
//! A game joins by implementing [`Hosting`] (its proto mapping, in `games/<game>.rs`) and one
//! line in [`setup`] and [`load`]. [`Hosted`] turns any `Game + Hosting` into a `LiveGame`.

use ludus_proto::pb;
use ludus_rules::{Game, Outcome, RandomSource, RuleViolation, Seat, Viewer};

use crate::error::CatalogError;
use crate::games::caro::Caro;
use crate::games::junqi::Junqi;
use crate::games::mancala::Mancala;
use crate::games::quoridor::Quoridor;
use crate::kind::GameKind;
use ludus_backgammon::BackgammonSession;

/// What an accepted action looked like, for the event.
#[derive(Clone, Debug)]
pub struct AppliedAction {
    pub action: pb::Action,
    pub notation: String,
}

/// A rules refusal: the rule id and a message that starts with it.
#[derive(Clone, Debug)]
pub struct RuleError {
    pub rule: &'static str,
    pub message: String,
}

impl<E: RuleViolation> From<&E> for RuleError {
    fn from(error: &E) -> Self {
        RuleError {
            rule: error.rule(),
            message: error.to_string(),
        }
    }
}

/// A game being hosted, whatever it is.
pub trait LiveGame: Send + Sync + std::fmt::Debug {
    fn kind(&self) -> GameKind;
    fn seats(&self) -> usize;
    fn to_move(&self) -> Option<Seat>;
    /// Applies a client's action (structured or in notation).
    fn apply(
        &mut self,
        seat: Seat,
        action: &pb::Action,
        rng: &mut dyn RandomSource,
    ) -> Result<AppliedAction, CatalogError>;
    /// The game's clock policy for `seat`; returns what it did, in words with the rule id.
    fn timeout(&mut self, seat: Seat, rng: &mut dyn RandomSource) -> String;
    fn resign(&mut self, seat: Seat);
    /// The game's disconnection rule, if it has one (Caro C13).
    fn absence_rule(&self) -> Option<&'static str>;
    /// `seat` did not come back in time: the game's disconnection rule; returns what it did,
    /// in words with the rule id.
    fn abandon(&mut self, seat: Seat) -> String;
    /// `seat` did not come back and the player who stayed called it a draw (C13 in a friend
    /// room); returns what it did, in words with the rule id.
    fn abandon_as_draw(&mut self, seat: Seat) -> String;
    /// The rule that governs draws by agreement in this game: refusals about draw offers
    /// (one already pending, none to answer) name it.
    fn draw_rule(&self) -> &'static str;
    /// Whether the game allows a draw by agreement now (checked before an offer is made).
    fn can_agree_draw(&self) -> Result<(), RuleError>;
    fn agree_draw(&mut self) -> Result<(), RuleError>;
    fn outcome(&self) -> Option<Outcome>;
    fn view(&self, viewer: Viewer) -> pb::GameView;
    fn legal_actions(&self, seat: Seat) -> Vec<pb::LegalAction>;
    /// The rule set of the game's options: its rating pool (see [`crate::rating_pool`]).
    fn ruleset(&self) -> String;
    /// The game's state as JSON (what [`load`] reads back), written straight from its rules
    /// crate's types.
    fn save(&self) -> Result<Box<serde_json::value::RawValue>, CatalogError>;
    /// Whether the server plays for the seat to move as soon as its turn starts (Junqi J19
    /// autoplay). The service then arms a short timer instead of the turn clock.
    fn autoplay_due(&self) -> bool {
        false
    }
    /// Plays one action for the seat to move under autoplay; `None` when nothing was played.
    fn play_autoplay(&mut self, _rng: &mut dyn RandomSource) -> Option<AppliedAction> {
        None
    }
    /// What a computer player in `seat` may know, serialized for [`crate::bots::choose`]:
    /// the position, or the seat's view where the game hides something (Junqi, J22).
    fn seat_position(&self, seat: Seat) -> Result<serde_json::Value, CatalogError>;
}

/// How a game maps to the contract: proto in, proto out.
pub trait Hosting: Game {
    const KIND: GameKind;
    /// The rule on draws by agreement: the rule file's where it has one (Caro C8, Mancala M9,
    /// Quoridor Q18, Backgammon B13), else a rule of ours documented in ARCHITECTURE.md.
    const DRAW_RULE: &'static str;
    fn options_from_pb(settings: &pb::GameSettings) -> Result<Self::Options, CatalogError>;
    fn action_from_pb(&self, action: &pb::Action) -> Result<Self::Action, CatalogError>;
    fn action_to_pb(action: &Self::Action) -> pb::Action;
    fn view_to_pb(view: Self::View) -> pb::GameView;
    /// What `seat` may do now, each action structured and in its notation.
    fn legal_actions_to_pb(&self, seat: Seat) -> Vec<pb::LegalAction> {
        self.legal_actions(seat)
            .iter()
            .map(|action| pb::LegalAction {
                action: Some(Self::action_to_pb(action)),
                notation: action.to_string(),
            })
            .collect()
    }
    fn ruleset(&self) -> String;
    /// Refuses settings that do not fit `seats` players (beyond what `setup` checks).
    fn check_seats(_settings: &pb::GameSettings, _seats: usize) -> Result<(), CatalogError> {
        Ok(())
    }
    /// What the clock policy just did (`before` is the game as the clock ran out), in words
    /// with the rule id, when the game can say better than "the turn passed" (e.g. Quoridor Q19
    /// pass vs Q21 step aside, Backgammon B20's roll and play).
    fn timeout_effect(&self, _before: &Self) -> Option<String> {
        None
    }
    /// Whether the server plays for the seat to move as soon as its turn starts (Junqi J19).
    /// Games without autoplay keep the default.
    fn autoplay_due(&self) -> bool {
        false
    }
    /// One action for the seat to move under autoplay, and the game after it.
    fn play_autoplay(self, _rng: &mut dyn RandomSource) -> (Self, Option<Self::Action>) {
        (self, None)
    }
}

/// Any `Game + Hosting` as a [`LiveGame`]. The `Option` lets `apply(self)`-style rules run
/// behind `&mut self`; it is `None` only inside a call.
#[derive(Debug)]
pub struct Hosted<G>(Option<G>);

impl<G: Hosting> Hosted<G> {
    pub fn new(game: G) -> Self {
        Hosted(Some(game))
    }

    fn game(&self) -> &G {
        // Invariant: every method that takes the game puts one back before returning.
        self.0.as_ref().expect("hosted game present between calls")
    }

    fn replace(&mut self, change: impl FnOnce(G) -> G) {
        if let Some(game) = self.0.take() {
            self.0 = Some(change(game));
        }
    }

    /// What a disconnection rule did, in words with the rule id.
    fn effect_of_abandon(&self) -> String {
        match self.game().outcome() {
            Some(outcome) => format!("{}: {}", outcome.rule, outcome.reason),
            None => "the game goes on".to_owned(),
        }
    }
}

impl<G: Hosting + crate::bots::SeatPosition> LiveGame for Hosted<G> {
    fn kind(&self) -> GameKind {
        G::KIND
    }

    fn seats(&self) -> usize {
        self.game().seats()
    }

    fn to_move(&self) -> Option<Seat> {
        self.game().to_move()
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &pb::Action,
        rng: &mut dyn RandomSource,
    ) -> Result<AppliedAction, CatalogError> {
        let parsed = match &action.action {
            Some(pb::action::Action::Notation(text)) => self
                .game()
                .parse_action(text)
                .map_err(|e| CatalogError::Rule(RuleError::from(&e)))?,
            Some(_) => self.game().action_from_pb(action)?,
            None => {
                return Err(CatalogError::InvalidArgument(
                    "action: set one arm (the game's action or its notation)".into(),
                ));
            }
        };
        let Some(game) = self.0.take() else {
            return Err(CatalogError::Internal("hosted game missing".into()));
        };
        match game.apply(seat, &parsed, rng) {
            Ok(next) => {
                self.0 = Some(next);
                Ok(AppliedAction {
                    action: G::action_to_pb(&parsed),
                    notation: parsed.to_string(),
                })
            }
            Err((unchanged, error)) => {
                self.0 = Some(unchanged);
                Err(CatalogError::Rule(RuleError::from(&error)))
            }
        }
    }

    fn timeout(&mut self, seat: Seat, rng: &mut dyn RandomSource) -> String {
        let before = self.game().clone();
        self.replace(|game| game.timeout(seat, rng));
        if let (None, Some(effect)) = (self.game().outcome(), self.game().timeout_effect(&before)) {
            return effect;
        }
        match self.game().outcome() {
            Some(outcome) => format!("{}: {}", outcome.rule, outcome.reason),
            None if self.game().ply() > before.ply() => "the server played for the seat".to_owned(),
            None => "the turn passed".to_owned(),
        }
    }

    fn resign(&mut self, seat: Seat) {
        self.replace(|game| game.resign(seat));
    }

    fn absence_rule(&self) -> Option<&'static str> {
        self.game().absence_rule()
    }

    fn abandon(&mut self, seat: Seat) -> String {
        self.replace(|game| game.abandon(seat));
        self.effect_of_abandon()
    }

    fn abandon_as_draw(&mut self, seat: Seat) -> String {
        self.replace(|game| game.abandon_as_draw(seat));
        self.effect_of_abandon()
    }

    fn draw_rule(&self) -> &'static str {
        G::DRAW_RULE
    }

    fn can_agree_draw(&self) -> Result<(), RuleError> {
        self.game()
            .clone()
            .agree_draw()
            .map(drop)
            .map_err(|(_, error)| RuleError::from(&error))
    }

    fn agree_draw(&mut self) -> Result<(), RuleError> {
        let Some(game) = self.0.take() else {
            return Err(RuleError {
                rule: "",
                message: "hosted game missing".into(),
            });
        };
        match game.agree_draw() {
            Ok(next) => {
                self.0 = Some(next);
                Ok(())
            }
            Err((unchanged, error)) => {
                self.0 = Some(unchanged);
                Err(RuleError::from(&error))
            }
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.game().outcome().cloned()
    }

    fn view(&self, viewer: Viewer) -> pb::GameView {
        G::view_to_pb(self.game().view(viewer))
    }

    fn legal_actions(&self, seat: Seat) -> Vec<pb::LegalAction> {
        self.game().legal_actions_to_pb(seat)
    }

    fn ruleset(&self) -> String {
        Hosting::ruleset(self.game())
    }

    fn save(&self) -> Result<Box<serde_json::value::RawValue>, CatalogError> {
        serde_json::value::to_raw_value(self.game())
            .map_err(|e| CatalogError::Internal(format!("could not save the game: {e}")))
    }

    fn autoplay_due(&self) -> bool {
        self.game().autoplay_due()
    }

    fn seat_position(&self, seat: Seat) -> Result<serde_json::Value, CatalogError> {
        serde_json::to_value(self.game().seat_position(seat))
            .map_err(|e| CatalogError::Internal(format!("could not write a seat position: {e}")))
    }

    fn play_autoplay(&mut self, rng: &mut dyn RandomSource) -> Option<AppliedAction> {
        let game = self.0.take()?;
        let (game, played) = game.play_autoplay(rng);
        self.0 = Some(game);
        played.map(|action| AppliedAction {
            action: G::action_to_pb(&action),
            notation: action.to_string(),
        })
    }
}

/// A new game of the kind the settings name.
pub fn setup(
    settings: &pb::GameSettings,
    seats: usize,
    rng: &mut dyn RandomSource,
) -> Result<Box<dyn LiveGame>, CatalogError> {
    match GameKind::of(settings)? {
        GameKind::Caro => setup_hosted::<Caro>(settings, seats, rng),
        GameKind::Quoridor => setup_hosted::<Quoridor>(settings, seats, rng),
        GameKind::Backgammon => setup_hosted::<BackgammonSession>(settings, seats, rng),
        GameKind::Junqi => setup_hosted::<Junqi>(settings, seats, rng),
        GameKind::Mancala => setup_hosted::<Mancala>(settings, seats, rng),
    }
}

fn setup_hosted<G: Hosting + crate::bots::SeatPosition>(
    settings: &pb::GameSettings,
    seats: usize,
    rng: &mut dyn RandomSource,
) -> Result<Box<dyn LiveGame>, CatalogError> {
    let options = G::options_from_pb(settings)?;
    G::check_seats(settings, seats)?;
    let game = G::setup(options, seats, rng)
        .map_err(|e| CatalogError::InvalidArgument(format!("settings: {e}")))?;
    Ok(Box::new(Hosted::new(game)))
}

/// A stored game of `kind`.
pub fn load(
    kind: GameKind,
    state: &serde_json::value::RawValue,
) -> Result<Box<dyn LiveGame>, CatalogError> {
    fn hosted<G: Hosting + crate::bots::SeatPosition>(
        state: &serde_json::value::RawValue,
    ) -> Result<Box<dyn LiveGame>, CatalogError> {
        let game: G = serde_json::from_str(state.get())
            .map_err(|e| CatalogError::Internal(format!("stored game is unreadable: {e}")))?;
        Ok(Box::new(Hosted::new(game)))
    }
    match kind {
        GameKind::Caro => hosted::<Caro>(state),
        GameKind::Quoridor => hosted::<Quoridor>(state),
        GameKind::Backgammon => hosted::<BackgammonSession>(state),
        GameKind::Junqi => hosted::<Junqi>(state),
        GameKind::Mancala => hosted::<Mancala>(state),
    }
}
