//! The game: turn structure, the cube, resignations, results and the [`Game`] contract.

use ludus_rules::{Game, Outcome, RandomSource, Seat, SetupError, Viewer};
use serde::{Deserialize, Serialize};

use crate::action::{Action, ResignLevel};
use crate::board::{Board, side_name};
use crate::bot;
use crate::error::BackgammonError;
use crate::gnubg::{GnubgGameState, MatchKey, higher_first};
use crate::notation;
use crate::options::{BackgammonOptions, MAX_CUBE_LOG};
use crate::play::{Dice, LegalPlays, Play, check_play, legal_plays, roll};
use crate::view::{BackgammonView, DoubleOffer, LastPlay, ResignationOffer, ViewPhase};

/// Timeouts in a row that forfeit the game (B20).
pub const TIMEOUTS_TO_FORFEIT: u8 = 3;
/// Opening re-rolls after which setup gives up: a real random source never gets there; a
/// scripted one that only rolls doubles would otherwise loop forever.
const MAX_OPENING_ROLLS: u32 = 256;

/// Where the turn stands.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum Phase {
    /// The player on roll may double (B14), roll or offer to resign.
    Roll,
    /// The player on roll has rolled `dice` and must play them.
    Play {
        /// The dice rolled this turn.
        dice: Dice,
    },
    /// A double waits for `decider` (B15). After a beaver (B18) the decider is the original
    /// doubler and the stake on offer is four times the cube.
    Doubled {
        /// Who must take, drop (or beaver).
        decider: Seat,
        /// Whether the double was beavered.
        beavered: bool,
    },
    /// The player on roll offered to resign; the opponent accepts or rejects (B21).
    ResignOffered {
        /// What the offer concedes.
        level: ResignLevel,
        /// The dice, when the offer came after rolling (play resumes with them).
        dice: Option<Dice>,
    },
    /// The game is over.
    Over,
}

/// A backgammon game (B1-B22). Holds no future dice: every roll is made inside
/// [`Game::apply`] of a [`Action::Roll`] from the server's random source (B3).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Backgammon {
    options: BackgammonOptions,
    board: Board,
    /// The player on roll (whose turn it is, even while the opponent answers a double).
    turn: Seat,
    phase: Phase,
    /// log2 of the cube value.
    cube_log: u8,
    /// `None`: the cube is in the middle.
    cube_owner: Option<Seat>,
    /// Whether a double was taken (B19). Automatic doubles (B17) do not turn the cube
    /// **[decided]**: nobody offered or accepted them.
    cube_turned: bool,
    /// Automatic doubles made at the opening roll (B17).
    automatic_doubles: u8,
    /// Timeouts in a row per seat (B20).
    timeouts: [u8; 2],
    ply: u32,
    outcome: Option<Outcome>,
    /// How the game ended, for the Match ID.
    end: Option<GnubgGameState>,
    /// gnubg's Match ID fields once the game is over, fixed when it ends: they depend on the
    /// offer that was open then (see [`crate::gnubg`]). `None` in games stored before it
    /// existed, which fall back to the live fields.
    #[serde(default)]
    end_key: Option<MatchKey>,
    /// The latest play, for the view.
    #[serde(default)]
    last_play: Option<(Seat, Dice, Play, bool)>,
}

impl Backgammon {
    /// A game from any position: `turn` is on roll with `dice` rolled (or about to roll
    /// when `None`), cube in the middle at 1. For analysis, tests and puzzles.
    pub fn from_position(
        options: BackgammonOptions,
        board: Board,
        turn: Seat,
        dice: Option<Dice>,
    ) -> Result<Backgammon, SetupError> {
        options.validate()?;
        if turn > 1 {
            return Err(SetupError::new("B4", "the player on roll is seat 0 or 1"));
        }
        if let Some(d) = dice
            && d.iter().any(|x| !(1..=6).contains(x))
        {
            return Err(SetupError::new("B3", "dice show 1 to 6"));
        }
        if board.winner().is_some() {
            return Err(SetupError::new("B13", "one side has already borne off"));
        }
        let phase = dice.map_or(Phase::Roll, |dice| Phase::Play { dice });
        Ok(Backgammon::fresh(options, board, turn, phase))
    }

    /// `turn` to act in `phase`, cube in the middle at 1, and no history: the one list of what
    /// a game set up from a position starts with (no timeouts, no plies, no outcome).
    fn fresh(options: BackgammonOptions, board: Board, turn: Seat, phase: Phase) -> Backgammon {
        Backgammon {
            options,
            board,
            turn,
            phase,
            cube_log: 0,
            cube_owner: None,
            cube_turned: false,
            automatic_doubles: 0,
            timeouts: [0; 2],
            ply: 0,
            outcome: None,
            end: None,
            end_key: None,
            last_play: None,
        }
    }

    /// The same game with the cube at `2^cube_log` owned by `owner` (`None`: the middle), for
    /// positions set up with [`Backgammon::from_position`]. Refused when no game reaches that
    /// cube: an owned cube is at least 2 (B15), a cube above 1 stays in the middle only by
    /// automatic doubles within their limit (B17), the Crawford game has no cube (B22), and
    /// the cube stops at 2^15 (B14).
    pub fn with_cube(
        mut self,
        cube_log: u8,
        owner: Option<Seat>,
    ) -> Result<Backgammon, SetupError> {
        if cube_log > MAX_CUBE_LOG {
            return Err(SetupError::new(
                "B14",
                format!("the cube stops at {}", 1u64 << MAX_CUBE_LOG),
            ));
        }
        if owner.is_some_and(|o| o > 1) {
            return Err(SetupError::new("B15", "the cube owner is seat 0 or 1"));
        }
        if self.is_crawford() && (cube_log > 0 || owner.is_some()) {
            return Err(SetupError::new(
                "B22",
                "the cube may not be used in the crawford game",
            ));
        }
        if owner.is_some() && cube_log == 0 {
            return Err(SetupError::new(
                "B15",
                "a cube has an owner only after a double was taken, so it is at least 2",
            ));
        }
        let automatic = owner.is_none() && cube_log > 0;
        if automatic
            && !(self.options.automatic_doubles
                && self.options.is_money()
                && cube_log <= self.options.automatic_double_limit)
        {
            return Err(SetupError::new(
                "B17",
                format!(
                    "a cube of {} in the middle comes only from that many automatic doubles",
                    1u64 << cube_log
                ),
            ));
        }
        self.cube_log = cube_log;
        self.cube_owner = owner;
        self.cube_turned = owner.is_some();
        self.automatic_doubles = if automatic { cube_log } else { 0 };
        Ok(self)
    }

    /// A game in progress from a gnubg Position ID and Match ID (analysis, tests, puzzles).
    /// The Match ID decides money or match play, the score, the Crawford game and the Jacoby
    /// rule; `options` supplies what it does not carry (beavers, automatic doubles). A pair
    /// that no legal game reaches is refused with the rule it breaks.
    ///
    /// ```
    /// use ludus_backgammon::{Backgammon, BackgammonOptions, Phase};
    /// // Match to 5 at 0-0, black on roll has rolled 6-2.
    /// let g = Backgammon::from_gnubg_ids("4HPwATDgc/ABMA", "cAmrAAAAAAAE", BackgammonOptions::default())
    ///     .unwrap();
    /// assert_eq!(g.phase(), Phase::Play { dice: [6, 2] });
    /// assert_eq!(g.match_id(), "cAmrAAAAAAAE");
    /// // The same, but white to act though nothing is on offer: no game gets there.
    /// let err = Backgammon::from_gnubg_ids("4HPwATDgc/ABMA", "cAGrAAAAAAAE", BackgammonOptions::default());
    /// assert_eq!(err.unwrap_err().rule, "B4");
    /// ```
    pub fn from_gnubg_ids(
        position_id: &str,
        match_id: &str,
        options: BackgammonOptions,
    ) -> Result<Backgammon, BackgammonError> {
        let g = crate::gnubg::import(position_id, match_id, &options)?;
        Ok(Backgammon {
            cube_log: g.cube_log,
            cube_owner: g.cube_owner,
            cube_turned: g.cube_owner.is_some(),
            automatic_doubles: g.automatic_doubles,
            ..Backgammon::fresh(g.options, g.board, g.on_roll, g.phase)
        })
    }

    /// The options the game was set up with.
    pub fn options(&self) -> &BackgammonOptions {
        &self.options
    }

    /// The checkers.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The player on roll.
    pub fn turn(&self) -> Seat {
        self.turn
    }

    /// Where the turn stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The dice rolled this turn, if any.
    pub fn dice(&self) -> Option<Dice> {
        match self.phase {
            Phase::Play { dice } => Some(dice),
            Phase::ResignOffered { dice, .. } => dice,
            _ => None,
        }
    }

    /// The cube value: a power of two (B14).
    pub fn cube_value(&self) -> u64 {
        1u64 << self.cube_log
    }

    /// The cube owner; `None` when the cube is in the middle.
    pub fn cube_owner(&self) -> Option<Seat> {
        self.cube_owner
    }

    /// Automatic doubles made at the opening (B17).
    pub fn automatic_doubles(&self) -> u8 {
        self.automatic_doubles
    }

    /// Timeouts in a row of each seat (B20).
    pub fn timeouts(&self) -> [u8; 2] {
        self.timeouts
    }

    /// Whether this is the Crawford game of a match (B22).
    pub fn is_crawford(&self) -> bool {
        self.options.match_game.is_some_and(|m| m.crawford)
    }

    /// Every distinct legal play of the current roll (empty before the roll).
    pub fn legal_plays(&self) -> Vec<Play> {
        match self.phase {
            Phase::Play { dice } => legal_plays(&self.board, self.turn, dice)
                .plays
                .into_iter()
                .map(|(p, _)| p)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the player on roll may double now (B14, B22).
    pub fn can_double(&self) -> bool {
        self.phase == Phase::Roll && self.double_refusal(self.turn).is_none()
    }

    fn double_refusal(&self, seat: Seat) -> Option<BackgammonError> {
        if self.is_crawford() {
            return Some(BackgammonError::new(
                "B22",
                "the cube may not be used in the crawford game",
            ));
        }
        if self.cube_owner.is_some_and(|o| o != seat) {
            return Some(BackgammonError::new(
                "B14",
                format!("only the cube owner ({}) may double", side_name(seat ^ 1)),
            ));
        }
        if self.cube_log >= MAX_CUBE_LOG {
            return Some(BackgammonError::new(
                "B14",
                format!("the cube stops at {}", 1u64 << MAX_CUBE_LOG),
            ));
        }
        None
    }

    /// gnubg's Position ID, seen from the player gnubg has on roll (`fMove` of
    /// [`Backgammon::match_key`]: after the last checker is borne off that is the loser).
    pub fn position_id(&self) -> String {
        self.board.position_id(self.match_key().on_roll)
    }

    /// gnubg's Match ID fields for the current state, filled as gnubg fills them (see
    /// [`crate::gnubg`]): the higher die first, bit 66 for "no Jacoby", a pending beaver as
    /// the already turned cube, and for a finished game the score after it.
    pub fn match_key(&self) -> MatchKey {
        if self.phase == Phase::Over
            && let Some(key) = self.end_key
        {
            return key;
        }
        self.live_match_key()
    }

    /// The Match ID fields of the game as it stands, before any end.
    fn live_match_key(&self) -> MatchKey {
        let m = self.options.match_game;
        let mut key = MatchKey {
            cube_log: self.cube_log,
            cube_owner: self.cube_owner,
            on_roll: self.turn,
            crawford: self.is_crawford(),
            state: self.end.unwrap_or(GnubgGameState::Playing),
            turn: self.to_move().unwrap_or(self.turn),
            doubled: false,
            resign: 0,
            dice: [0, 0],
            match_length: m.map_or(0, |m| m.length.min(0x7fff) as u16),
            score: m.map_or([0, 0], |m| {
                [m.score[0].min(0x7fff) as u16, m.score[1].min(0x7fff) as u16]
            }),
            jacoby: self.options.jacoby && self.options.is_money(),
        };
        match self.phase {
            Phase::Play { dice } => key.dice = higher_first(dice),
            Phase::Doubled { decider, beavered } => {
                key.doubled = true;
                if beavered {
                    // gnubg turns the cube when the beaver is made: twice the value, on the
                    // beaverer's side, while the doubler decides.
                    key.cube_log = (self.cube_log + 1).min(MAX_CUBE_LOG);
                    key.cube_owner = Some(decider ^ 1);
                }
            }
            Phase::ResignOffered { level, dice } => {
                key.resign = level.multiplier();
                key.dice = dice.map_or([0, 0], higher_first);
            }
            Phase::Roll | Phase::Over => {}
        }
        key
    }

    /// The Match ID fields gnubg shows once `winner` has won `points` this way, computed
    /// from the state just before the end.
    fn end_match_key(&self, winner: Seat, points: u64, end: GnubgGameState) -> MatchKey {
        let mut key = self.live_match_key();
        key.state = end;
        key.doubled = false;
        match end {
            GnubgGameState::Over => {
                key.on_roll = winner ^ 1;
                key.turn = winner ^ 1;
                key.dice = [0, 0];
                key.resign = 0;
            }
            GnubgGameState::Resigned => {
                // An accepted offer keeps its level; a forfeit on time (B20) or leaving
                // (B21) has no gnubg counterpart and reads as the same resignation accepted
                // by the winner **[decided]**.
                let accepted =
                    matches!(self.phase, Phase::ResignOffered { .. }) && winner != self.turn;
                if !accepted {
                    key.resign = u8::try_from(points >> self.cube_log)
                        .unwrap_or(3)
                        .clamp(1, 3);
                }
                key.turn = winner;
            }
            GnubgGameState::Dropped | GnubgGameState::Playing | GnubgGameState::NoGame => {}
        }
        let gained = u16::try_from(points).unwrap_or(u16::MAX);
        if let Some(score) = key.score.get_mut(winner) {
            *score = score.saturating_add(gained).min(0x7fff);
        }
        if let Some(m) = self.options.match_game {
            // gnubg shows the next game's Crawford flag: set only when this game brought a
            // player to one point from the match for the first time (B22).
            let away = m.length.saturating_sub(1);
            let reached = u32::from(key.score[winner]) == away;
            key.crawford = !m.crawford && !m.score.contains(&away) && reached;
        }
        key
    }

    /// gnubg's Match ID.
    pub fn match_id(&self) -> String {
        self.match_key().encode()
    }

    /// Whether gammons count now (B19: not under Jacoby with an unturned cube).
    fn gammons_count(&self) -> bool {
        !(self.options.jacoby && self.options.is_money() && !self.cube_turned)
    }

    /// What `loser` would lose if the game ended now in the other side's favour (B16), as
    /// a multiplier of the cube: 1, 2 or 3.
    fn result_multiplier(&self, loser: Seat) -> u8 {
        if self.gammons_count() {
            self.board.result_multiplier(loser)
        } else {
            1
        }
    }

    fn finish(
        &mut self,
        winner: Seat,
        points: u64,
        rule: &str,
        reason: String,
        end: GnubgGameState,
    ) {
        self.end_key = Some(self.end_match_key(winner, points, end));
        let mut pts = vec![0i64; 2];
        pts[winner] = i64::try_from(points).unwrap_or(i64::MAX);
        self.outcome = Some(Outcome::win(2, &[winner], rule, reason).with_points(pts));
        self.phase = Phase::Over;
        self.end = Some(end);
    }

    fn kind(mult: u8) -> &'static str {
        match mult {
            1 => "a single game",
            2 => "a gammon",
            _ => "a backgammon",
        }
    }

    fn roll_dice(&mut self, rng: &mut dyn RandomSource) {
        let dice = [die(rng), die(rng)];
        self.phase = Phase::Play { dice };
    }

    /// What `loser` loses if the game ends now, at the current cube (B16, B19): the points,
    /// and how the result reads ("a gammon (4 points)").
    fn stake(&self, loser: Seat) -> (u64, String) {
        let mult = self.result_multiplier(loser);
        let points = self.cube_value() * u64::from(mult);
        let plural = if points == 1 { "" } else { "s" };
        (
            points,
            format!("{} ({points} point{plural})", Self::kind(mult)),
        )
    }

    fn play_checked(&mut self, board: Board) {
        self.board = board;
        let mover = self.turn;
        if self.board.winner() == Some(mover) {
            let (points, stake) = self.stake(mover ^ 1);
            let reason = format!(
                "{} bore off all 15 checkers and wins {stake}",
                side_name(mover)
            );
            self.finish(mover, points, "B16", reason, GnubgGameState::Over);
        } else {
            self.turn ^= 1;
            self.phase = Phase::Roll;
        }
    }

    /// The bot's play (B20) for the current roll.
    fn bot_play(&mut self) {
        if let Phase::Play { dice } = self.phase {
            let legal = legal_plays(&self.board, self.turn, dice);
            let i = bot::timeout_play(self, &legal.plays);
            let (play, board) = legal
                .plays
                .get(i)
                .cloned()
                .unwrap_or((Play::default(), self.board));
            self.last_play = Some((self.turn, dice, play, true));
            self.play_checked(board);
            self.ply += 1;
        }
    }

    fn take(&mut self, beavered: bool, decider: Seat) {
        // B15: the taker owns the cube; B18: after a beaver the beaverer keeps it.
        self.cube_log = (self.cube_log + if beavered { 2 } else { 1 }).min(MAX_CUBE_LOG);
        self.cube_owner = Some(if beavered { decider ^ 1 } else { decider });
        self.cube_turned = true;
        self.phase = Phase::Roll;
    }

    fn apply_inner(
        &mut self,
        seat: Seat,
        action: &Action,
        rng: &mut dyn RandomSource,
    ) -> Result<(), BackgammonError> {
        match (self.phase, action) {
            (Phase::Over, _) => Err(BackgammonError::new("B13", "the game is over")),
            (_, _) if self.to_move() != Some(seat) => Err(BackgammonError::new(
                "B4",
                format!("it is {}'s turn", side_name(seat ^ 1)),
            )),
            (Phase::Roll, Action::Roll) => {
                self.roll_dice(rng);
                Ok(())
            }
            (Phase::Roll, Action::Double) => {
                if let Some(e) = self.double_refusal(seat) {
                    return Err(e);
                }
                self.phase = Phase::Doubled {
                    decider: seat ^ 1,
                    beavered: false,
                };
                Ok(())
            }
            (Phase::Roll, Action::Play(_)) => {
                Err(BackgammonError::new("B4", "roll the dice before playing"))
            }
            (Phase::Play { dice }, Action::Roll) => Err(BackgammonError::new(
                "B4",
                format!("the dice are rolled ({}): play them", roll(dice)),
            )),
            (Phase::Play { .. }, Action::Double) => Err(BackgammonError::new(
                "B14",
                "a double is offered only at the start of the turn, before rolling",
            )),
            (Phase::Play { dice }, Action::Play(play)) => {
                let legal: LegalPlays = legal_plays(&self.board, seat, dice);
                let board = check_play(&self.board, seat, dice, play, &legal)?;
                self.last_play = Some((seat, dice, play.clone(), false));
                self.play_checked(board);
                Ok(())
            }
            (Phase::Roll | Phase::Play { .. }, Action::Resign(level)) => {
                self.phase = Phase::ResignOffered {
                    level: *level,
                    dice: self.dice(),
                };
                Ok(())
            }
            (Phase::Doubled { decider, beavered }, Action::Take) => {
                self.take(beavered, decider);
                Ok(())
            }
            (Phase::Doubled { decider, beavered }, Action::Drop) => {
                let winner = decider ^ 1;
                // B15: the stake before the double; after a beaver that is the beaverer's
                // doubled cube.
                let points = self.cube_value() << u8::from(beavered);
                let reason = format!(
                    "{} refused the double; {} wins {} point{}",
                    side_name(decider),
                    side_name(winner),
                    points,
                    if points == 1 { "" } else { "s" }
                );
                self.finish(winner, points, "B15", reason, GnubgGameState::Dropped);
                Ok(())
            }
            (Phase::Doubled { decider, beavered }, Action::Beaver) => {
                if !self.options.beavers || !self.options.is_money() {
                    return Err(BackgammonError::new("B18", "beavers are not played here"));
                }
                if beavered {
                    return Err(BackgammonError::new("B18", "a beaver cannot be beavered"));
                }
                if self.cube_log + 2 > MAX_CUBE_LOG {
                    return Err(BackgammonError::new(
                        "B14",
                        format!("the cube stops at {}", 1u64 << MAX_CUBE_LOG),
                    ));
                }
                self.phase = Phase::Doubled {
                    decider: decider ^ 1,
                    beavered: true,
                };
                Ok(())
            }
            (Phase::Doubled { .. }, _) => Err(BackgammonError::new(
                "B15",
                "a double is on offer: take or drop it",
            )),
            (_, Action::Take | Action::Drop | Action::Beaver) => {
                Err(BackgammonError::new("B15", "no double is on offer"))
            }
            (Phase::ResignOffered { level, .. }, Action::AcceptResignation) => {
                let winner = seat;
                let mult = if self.gammons_count() {
                    level.multiplier()
                } else {
                    1
                };
                let points = self.cube_value() * u64::from(mult);
                let reason = format!(
                    "{} resigned {} and {} accepted ({} point{})",
                    side_name(seat ^ 1),
                    Self::kind(level.multiplier()),
                    side_name(seat),
                    points,
                    if points == 1 { "" } else { "s" }
                );
                self.finish(winner, points, "B21", reason, GnubgGameState::Resigned);
                Ok(())
            }
            (Phase::ResignOffered { dice, .. }, Action::RejectResignation) => {
                self.phase = dice.map_or(Phase::Roll, |dice| Phase::Play { dice });
                Ok(())
            }
            (Phase::ResignOffered { .. }, _) => Err(BackgammonError::new(
                "B21",
                "a resignation is on offer: accept or reject it",
            )),
            (_, Action::AcceptResignation | Action::RejectResignation) => {
                Err(BackgammonError::new("B21", "no resignation is on offer"))
            }
        }
    }

    /// The legal actions of `seat` now, plays included.
    fn actions_for(&self, seat: Seat) -> Vec<Action> {
        if self.to_move() != Some(seat) {
            return Vec::new();
        }
        let resigns = [
            Action::Resign(ResignLevel::Single),
            Action::Resign(ResignLevel::Gammon),
            Action::Resign(ResignLevel::Backgammon),
        ];
        match self.phase {
            Phase::Roll => {
                let mut v = vec![Action::Roll];
                if self.can_double() {
                    v.push(Action::Double);
                }
                v.extend(resigns);
                v
            }
            Phase::Play { .. } => {
                let mut v: Vec<Action> = self.legal_plays().into_iter().map(Action::Play).collect();
                v.extend(resigns);
                v
            }
            Phase::Doubled { beavered, .. } => {
                let mut v = vec![Action::Take, Action::Drop];
                if self.options.beavers
                    && self.options.is_money()
                    && !beavered
                    && self.cube_log + 2 <= MAX_CUBE_LOG
                {
                    v.push(Action::Beaver);
                }
                v
            }
            Phase::ResignOffered { .. } => {
                vec![Action::AcceptResignation, Action::RejectResignation]
            }
            Phase::Over => Vec::new(),
        }
    }
}

fn die(rng: &mut dyn RandomSource) -> u8 {
    (rng.below(6).min(5) + 1) as u8
}

impl Game for Backgammon {
    type Options = BackgammonOptions;
    type Action = Action;
    type View = BackgammonView;
    type Error = BackgammonError;

    /// B2 setup and the B4 opening roll: each side rolls one die until they differ (with
    /// B17, equal rolls double the cube up to the limit); the higher roller plays both.
    fn setup(
        options: BackgammonOptions,
        seats: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, SetupError> {
        if seats != 2 {
            return Err(SetupError::new(
                "B2",
                format!("backgammon is played by two players, not {seats}"),
            ));
        }
        options.validate()?;
        let mut game = Backgammon::from_position(options, Board::START, 0, None)?;
        for _ in 0..MAX_OPENING_ROLLS {
            let (white, black) = (die(rng), die(rng));
            if white == black {
                if game.options.automatic_doubles
                    && game.options.is_money()
                    && game.automatic_doubles < game.options.automatic_double_limit
                    && game.cube_log < MAX_CUBE_LOG
                {
                    game.automatic_doubles += 1;
                    game.cube_log += 1;
                }
                continue;
            }
            game.turn = if white > black { 0 } else { 1 };
            let dice = if white > black {
                [white, black]
            } else {
                [black, white]
            };
            game.phase = Phase::Play { dice };
            return Ok(game);
        }
        Err(SetupError::new(
            "B4",
            "the random source keeps rolling equal opening dice",
        ))
    }

    fn parse_action(&self, text: &str) -> Result<Action, BackgammonError> {
        notation::parse_action(text, matches!(self.phase, Phase::Doubled { .. }))
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<Seat> {
        match self.phase {
            Phase::Roll | Phase::Play { .. } => Some(self.turn),
            Phase::Doubled { decider, .. } => Some(decider),
            Phase::ResignOffered { .. } => Some(self.turn ^ 1),
            Phase::Over => None,
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        self.actions_for(seat)
    }

    fn apply(
        mut self,
        seat: Seat,
        action: &Action,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, (Self, BackgammonError)> {
        match self.apply_inner(seat, action, rng) {
            Ok(()) => {
                self.ply += 1;
                if let Some(t) = self.timeouts.get_mut(seat) {
                    *t = 0;
                }
                Ok(self)
            }
            Err(e) => Err((self, e)),
        }
    }

    /// B20: rolls if needed and plays the normal bot's move; a pending double is taken; a
    /// pending resignation offer is rejected **[decided]** (no points change hands without
    /// the player's consent). The third timeout in a row forfeits a single game at the
    /// current cube. A seat that is not to move is ignored.
    fn timeout(mut self, seat: Seat, rng: &mut dyn RandomSource) -> Self {
        if self.to_move() != Some(seat) {
            return self;
        }
        self.timeouts[seat] = self.timeouts[seat].saturating_add(1);
        if self.timeouts[seat] >= TIMEOUTS_TO_FORFEIT {
            let points = self.cube_value();
            let reason = format!(
                "{} ran out of time three turns in a row; {} wins {} point{}",
                side_name(seat),
                side_name(seat ^ 1),
                points,
                if points == 1 { "" } else { "s" }
            );
            self.finish(seat ^ 1, points, "B20", reason, GnubgGameState::Resigned);
            self.ply += 1;
            return self;
        }
        match self.phase {
            Phase::Roll => {
                self.roll_dice(rng);
                self.ply += 1;
                self.bot_play();
            }
            Phase::Play { .. } => self.bot_play(),
            Phase::Doubled { decider, beavered } => {
                self.take(beavered, decider);
                self.ply += 1;
            }
            Phase::ResignOffered { dice, .. } => {
                self.phase = dice.map_or(Phase::Roll, |dice| Phase::Play { dice });
                self.ply += 1;
            }
            Phase::Over => {}
        }
        self
    }

    /// B21, last sentence: leaving loses what B16 says of the position now — a backgammon
    /// only if it is one now — at the current cube (B19 applies).
    fn resign(mut self, seat: Seat) -> Self {
        if self.outcome.is_some() || seat > 1 {
            return self;
        }
        let (points, stake) = self.stake(seat);
        let reason = format!("{} left the game and loses {stake}", side_name(seat));
        self.finish(seat ^ 1, points, "B21", reason, GnubgGameState::Resigned);
        self
    }

    /// There are no draws in backgammon: refused with B13 (a game ends only when one side
    /// bears off all 15 checkers, or by a dropped double or a resignation).
    fn agree_draw(self) -> Result<Self, (Self, BackgammonError)> {
        Err((
            self,
            BackgammonError::new(
                "B13",
                "backgammon has no draws: the game ends when a side bears off all 15 checkers",
            ),
        ))
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self, viewer: Viewer) -> BackgammonView {
        let seat = match viewer {
            Viewer::Seat(s) if s < 2 => Some(s),
            _ => None,
        };
        let legal_actions = seat.map_or_else(Vec::new, |s| self.actions_for(s));
        let legal_plays = legal_actions
            .iter()
            .filter_map(|a| match a {
                Action::Play(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        let double_offer = match self.phase {
            Phase::Doubled { decider, beavered } => Some(DoubleOffer {
                by: decider ^ 1,
                value: self.cube_value() << (1 + u8::from(beavered)),
                beaver: beavered,
            }),
            _ => None,
        };
        let resignation_offer = match self.phase {
            Phase::ResignOffered { level, .. } => Some(ResignationOffer {
                by: self.turn,
                level,
                points: self.cube_value()
                    * u64::from(if self.gammons_count() {
                        level.multiplier()
                    } else {
                        1
                    }),
            }),
            _ => None,
        };
        let phase = match self.phase {
            Phase::Roll => ViewPhase::Roll,
            Phase::Play { .. } => ViewPhase::Play,
            Phase::Doubled { .. } => ViewPhase::DoubleOffered,
            Phase::ResignOffered { .. } => ViewPhase::ResignationOffered,
            Phase::Over => ViewPhase::Over,
        };
        let m = self.options.match_game;
        BackgammonView {
            viewer: seat,
            points: self.board.fixed_points(),
            mirrored: seat == Some(1),
            bar: [self.board.bar(0), self.board.bar(1)],
            off: [self.board.off(0), self.board.off(1)],
            pips: [self.board.pips(0), self.board.pips(1)],
            turn: self.turn,
            to_move: self.to_move(),
            phase,
            dice: self.dice(),
            cube_value: self.cube_value(),
            cube_owner: self.cube_owner,
            can_double: self.can_double(),
            double_offer,
            resignation_offer,
            match_length: m.map_or(0, |m| m.length),
            score: m.map_or([0, 0], |m| m.score),
            crawford: self.is_crawford(),
            jacoby: self.options.jacoby && self.options.is_money(),
            beavers: self.options.beavers && self.options.is_money(),
            automatic_doubles: self.automatic_doubles,
            legal_actions,
            legal_plays,
            last_play: self
                .last_play
                .clone()
                .map(|(seat, dice, play, automatic)| LastPlay {
                    seat,
                    dice,
                    play,
                    automatic,
                }),
            outcome: self.outcome.clone(),
            position_id: self.position_id(),
            match_id: self.match_id(),
            timeouts: self.timeouts,
            ply: self.ply,
        }
    }

    fn ply(&self) -> u32 {
        self.ply
    }
}
