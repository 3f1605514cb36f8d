//! Quoridor in the contract: `QuoridorOptions`, `QuoridorAction`, `QuoridorView`
//! (proto/ludus/v1/quoridor.proto). Rule ids (Q1…) are those of `shared/rules/quoridor.md`.

use ludus_proto::pb;
pub use ludus_quoridor::Quoridor;
use ludus_quoridor::{
    Cell, Colour, Edge, GoalKind, LastAction, Mode, Orientation, PawnGoal, PawnView,
    QuoridorAction, QuoridorOptions, QuoridorView, SIZES, Team, WALL_CHOICES, Wall, Walls,
};
use ludus_rules::Game;

use crate::policy::{ClockChoices, FriendClock, TableMode, TablePolicy, Team as PlayerTeam};
use crate::{CatalogError, GameKind, Hosting, seat_u32};

/// Q28: the longest turn clock a Quoridor game may have. Shorter clocks than Q28's 15 s are
/// let through: the server (tests, internal games) may want them; quick match uses its own.
pub const MAX_TURN_MS: u64 = 90_000;

/// Q28: the turn clocks players choose from, 15 to 90 s, in quick matches, friend rooms and
/// against the computer alike.
pub const CLOCKS: ClockChoices = ClockChoices::Between(15_000, MAX_TURN_MS);

/// Q4: most seats at a table.
pub const MAX_PLAYERS: u32 = 8;

/// Quoridor's tables: 2-8 players (Q4); Q28's clocks (30 s unless the players choose 15 to
/// 90 s); no take-backs; Q29's auto-start and Q30-Q36's points in rooms.
pub const TABLE: TablePolicy = TablePolicy {
    kind: GameKind::Quoridor,
    min_seats: 2,
    max_seats: MAX_PLAYERS as usize,
    seats_rule: "Q4",
    default_turn_ms: 30_000,
    max_turn_ms: Some(MAX_TURN_MS),
    clock_rule: "Q28",
    quick_match_clock: Some(CLOCKS),
    computer_clock: Some(CLOCKS),
    friend_clock: FriendClock {
        rule: "Q28",
        choices: CLOCKS,
        zero_means: 30_000,
        described: "15 000 to 90 000 ms",
    },
    take_backs: 0,
    room_first_mover: false,
    auto_start: true,
    scores_points: true,
    rated: true,
};

fn invalid(message: String) -> CatalogError {
    CatalogError::InvalidArgument(message)
}

fn mode_from_pb(value: i32) -> Result<Mode, CatalogError> {
    match pb::QuoridorMode::try_from(value) {
        Ok(pb::QuoridorMode::Unspecified | pb::QuoridorMode::FreeForAll) => Ok(Mode::FreeForAll),
        Ok(pb::QuoridorMode::Teams) => Ok(Mode::Teams),
        Ok(pb::QuoridorMode::TournamentMatch) => Ok(Mode::TournamentMatch),
        Err(_) => Err(invalid(format!(
            "settings.quoridor.mode: Q22-Q24: {value} is not a mode"
        ))),
    }
}

fn mode_to_pb(mode: Mode) -> pb::QuoridorMode {
    match mode {
        Mode::FreeForAll => pb::QuoridorMode::FreeForAll,
        Mode::Teams => pb::QuoridorMode::Teams,
        Mode::TournamentMatch => pb::QuoridorMode::TournamentMatch,
    }
}

fn goal_from_pb(value: i32) -> Result<GoalKind, CatalogError> {
    match pb::QuoridorGoal::try_from(value) {
        Ok(pb::QuoridorGoal::Unspecified | pb::QuoridorGoal::Opposite) => Ok(GoalKind::Opposite),
        Ok(pb::QuoridorGoal::Center) => Ok(GoalKind::Center),
        Err(_) => Err(invalid(format!(
            "settings.quoridor.goal: Q25: {value} is not a goal"
        ))),
    }
}

fn goal_to_pb(goal: GoalKind) -> pb::QuoridorGoal {
    match goal {
        GoalKind::Opposite => pb::QuoridorGoal::Opposite,
        GoalKind::Center => pb::QuoridorGoal::Center,
    }
}

fn team_from_pb(index: usize, value: i32) -> Result<Team, CatalogError> {
    match pb::QuoridorTeam::try_from(value) {
        Ok(pb::QuoridorTeam::Red) => Ok(Team::Red),
        Ok(pb::QuoridorTeam::Yellow) => Ok(Team::Yellow),
        _ => Err(invalid(format!(
            "settings.quoridor.teams[{index}]: Q23: choose red or yellow"
        ))),
    }
}

fn colour_to_pb(colour: Colour) -> pb::QuoridorColour {
    match colour {
        Colour::Red => pb::QuoridorColour::Red,
        Colour::Yellow => pb::QuoridorColour::Yellow,
        Colour::Blue => pb::QuoridorColour::Blue,
        Colour::Green => pb::QuoridorColour::Green,
        Colour::Purple => pb::QuoridorColour::Purple,
        Colour::Orange => pb::QuoridorColour::Orange,
        Colour::Cyan => pb::QuoridorColour::Cyan,
        Colour::Pink => pb::QuoridorColour::Pink,
    }
}

fn pawn_goal_to_pb(goal: PawnGoal) -> pb::QuoridorPawnGoal {
    match goal {
        PawnGoal::Edge(Edge::Top) => pb::QuoridorPawnGoal::TopEdge,
        PawnGoal::Edge(Edge::Bottom) => pb::QuoridorPawnGoal::BottomEdge,
        PawnGoal::Edge(Edge::Left) => pb::QuoridorPawnGoal::LeftEdge,
        PawnGoal::Edge(Edge::Right) => pb::QuoridorPawnGoal::RightEdge,
        PawnGoal::Center => pb::QuoridorPawnGoal::Center,
    }
}

fn orientation_to_pb(orientation: Orientation) -> pb::QuoridorOrientation {
    match orientation {
        Orientation::Horizontal => pb::QuoridorOrientation::Horizontal,
        Orientation::Vertical => pb::QuoridorOrientation::Vertical,
    }
}

fn cell_to_pb(cell: Cell) -> pb::QuoridorCell {
    pb::QuoridorCell {
        file: u32::from(cell.file),
        rank: u32::from(cell.rank),
    }
}

fn wall_to_pb(wall: Wall) -> pb::QuoridorWall {
    pb::QuoridorWall {
        cell: Some(cell_to_pb(wall.cell)),
        orientation: orientation_to_pb(wall.orientation) as i32,
    }
}

fn quoridor_action_to_pb(action: QuoridorAction) -> pb::QuoridorAction {
    use pb::quoridor_action::Kind;
    pb::QuoridorAction {
        kind: Some(match action {
            QuoridorAction::Move(cell) => Kind::Move(cell_to_pb(cell)),
            QuoridorAction::Wall(wall) => Kind::Wall(wall_to_pb(wall)),
            QuoridorAction::Pass => Kind::Pass(pb::QuoridorPass {}),
        }),
    }
}

fn pawn_to_pb(pawn: PawnView) -> pb::QuoridorPawn {
    pb::QuoridorPawn {
        side: seat_u32(pawn.side),
        colour: colour_to_pb(pawn.colour) as i32,
        cell: Some(cell_to_pb(pawn.cell)),
        goal: pawn_goal_to_pb(pawn.goal) as i32,
        seats: pawn.seats.into_iter().map(seat_u32).collect(),
        walls_left: u32::from(pawn.walls_left),
        moves: pawn.moves,
        distance: pawn.distance,
        in_game: pawn.in_game,
    }
}

fn last_action_to_pb(last: LastAction) -> pb::QuoridorLastAction {
    pb::QuoridorLastAction {
        seat: seat_u32(last.seat),
        side: seat_u32(last.side),
        action: Some(quoridor_action_to_pb(last.action)),
        from: last.from.map(cell_to_pb),
        automatic: last.automatic,
    }
}

/// A coordinate of the board (`limit` = N for cells, N-1 for wall slots), or
/// INVALID_ARGUMENT naming the field and the rule.
fn coordinate(field: &str, value: u32, limit: u8, rule: &str) -> Result<u8, CatalogError> {
    u8::try_from(value)
        .ok()
        .filter(|v| *v < limit)
        .ok_or_else(|| {
            invalid(format!(
                "{field}: {rule}: {value} is off the board (0 to {})",
                limit.saturating_sub(1)
            ))
        })
}

fn cell_from_pb(
    field: &str,
    cell: Option<&pb::QuoridorCell>,
    limit: u8,
    rule: &str,
) -> Result<Cell, CatalogError> {
    let cell = cell.ok_or_else(|| invalid(format!("{field}: name a cell")))?;
    Ok(Cell::new(
        coordinate(&format!("{field}.file"), cell.file, limit, rule)?,
        coordinate(&format!("{field}.rank"), cell.rank, limit, rule)?,
    ))
}

/// Reads Quoridor options (Q22-Q27): 0 or unset fields take their defaults (free-for-all,
/// opposite edge, 9×9, Auto walls). Team choices are kept only in team mode.
pub fn options_from_pb(options: &pb::QuoridorOptions) -> Result<QuoridorOptions, CatalogError> {
    let mode = mode_from_pb(options.mode)?;
    let goal = goal_from_pb(options.goal)?;
    let size = match options.size {
        0 => 9,
        n => u8::try_from(n)
            .ok()
            .filter(|n| SIZES.contains(n))
            .ok_or_else(|| {
                invalid(format!(
                    "settings.quoridor.size: Q26: the board is 9, 11 or 13, not {n}"
                ))
            })?,
    };
    let walls = match options.walls {
        0 => Walls::Auto,
        w => Walls::Fixed(u8::try_from(w).ok().filter(|w| WALL_CHOICES.contains(w)).ok_or_else(
            || {
                invalid(format!(
                    "settings.quoridor.walls: Q27: walls are auto (0) or 1, 3, 5, 7, 10, 15 or 20, not {w}"
                ))
            },
        )?),
    };
    let teams = if mode == Mode::Teams {
        options
            .teams
            .iter()
            .enumerate()
            .map(|(i, t)| team_from_pb(i, *t))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    let first_seat = match options.first_seat {
        None => None,
        Some(f) if f < MAX_PLAYERS => Some(f as usize),
        Some(f) => {
            return Err(invalid(format!(
                "settings.quoridor.first_seat: Q8: there is no seat {f}"
            )));
        }
    };
    if options.players == 1 || options.players > MAX_PLAYERS {
        return Err(invalid(format!(
            "settings.quoridor.players: Q4: 2 to 8 players, not {}",
            options.players
        )));
    }
    if mode == Mode::TournamentMatch && options.players > 2 {
        return Err(invalid(format!(
            "settings.quoridor.players: Q24: a tournament match has 2 players, not {}",
            options.players
        )));
    }
    Ok(QuoridorOptions {
        mode,
        goal,
        size,
        walls,
        teams,
        first_seat,
    })
}

/// The contract's form of `options` for a table of `players` seats (what quick match queues
/// with and what a game reports).
pub fn options_to_pb(options: &QuoridorOptions, players: usize) -> pb::QuoridorOptions {
    pb::QuoridorOptions {
        mode: mode_to_pb(options.mode) as i32,
        goal: goal_to_pb(options.goal) as i32,
        size: u32::from(options.size),
        walls: match options.walls {
            Walls::Auto => 0,
            Walls::Fixed(w) => u32::from(w),
        },
        teams: options
            .teams
            .iter()
            .map(|t| match t {
                Team::Red => pb::QuoridorTeam::Red as i32,
                Team::Yellow => pb::QuoridorTeam::Yellow as i32,
            })
            .collect(),
        first_seat: options.first_seat.map(seat_u32),
        players: seat_u32(players),
    }
}

/// The rating pool and quick-match queue of a game with `options` and `players` seats:
/// `quoridor/<size>/<classic|center>[/ffa<k>|/teams<k>|/match][/walls<w>]`, e.g.
/// `quoridor/9/classic` (two players, Auto walls) or `quoridor/9/classic/ffa4`.
pub fn ruleset(options: &QuoridorOptions, players: usize) -> String {
    let goal = match options.goal {
        GoalKind::Opposite => "classic",
        GoalKind::Center => "center",
    };
    let mut name = format!("quoridor/{}/{goal}", options.size);
    match options.mode {
        Mode::FreeForAll if players <= 2 => {}
        Mode::FreeForAll => name.push_str(&format!("/ffa{players}")),
        Mode::Teams => name.push_str(&format!("/teams{players}")),
        Mode::TournamentMatch => name.push_str("/match"),
    }
    if let Walls::Fixed(w) = options.walls {
        name.push_str(&format!("/walls{w}"));
    }
    name
}

/// Quoridor's options (ListGameOptions): the mode (Q22-Q24) in friend rooms (quick matches
/// and the computer play free-for-all), the table size (Q4), goal (Q25), board (Q26) and
/// walls (Q27) everywhere.
pub(crate) fn described_options() -> Vec<pb::GameOption> {
    use crate::options::{EVERYWHERE, choice, labelled, number, plain};
    use pb::PlayMode;
    let default = options_to_pb(&QuoridorOptions::default(), 2);
    vec![
        choice(
            "mode",
            "quoridor.mode",
            &["Q22-Q24"],
            "opt.quoridor.mode",
            &[PlayMode::Room],
            i64::from(default.mode),
            vec![
                labelled(pb::QuoridorMode::FreeForAll as i64, "opt.quoridor.ffa"),
                labelled(pb::QuoridorMode::Teams as i64, "opt.quoridor.teams"),
                labelled(
                    pb::QuoridorMode::TournamentMatch as i64,
                    "opt.quoridor.tournament",
                ),
            ],
        ),
        number(
            "players",
            "quoridor.players",
            &["Q4"],
            "opt.players",
            EVERYWHERE,
            i64::from(default.players),
            (2, i64::from(MAX_PLAYERS), 1),
        ),
        choice(
            "goal",
            "quoridor.goal",
            &["Q25"],
            "opt.quoridor.goal",
            EVERYWHERE,
            i64::from(default.goal),
            vec![
                labelled(pb::QuoridorGoal::Opposite as i64, "opt.quoridor.opposite"),
                labelled(pb::QuoridorGoal::Center as i64, "opt.quoridor.center"),
            ],
        ),
        choice(
            "size",
            "quoridor.size",
            &["Q26"],
            "opt.board",
            EVERYWHERE,
            i64::from(default.size),
            plain(SIZES.map(i64::from)),
        ),
        choice(
            "walls",
            "quoridor.walls",
            &["Q27"],
            "opt.quoridor.walls",
            EVERYWHERE,
            i64::from(default.walls),
            std::iter::once(labelled(0, "opt.auto"))
                .chain(plain(WALL_CHOICES.map(i64::from)))
                .collect(),
        ),
    ]
}

/// How a friend room seats a game of these options: one table (Q22), red against yellow
/// (Q23) or a knockout of two-player matches (Q24).
pub fn table_mode(options: &pb::QuoridorOptions) -> TableMode {
    match pb::QuoridorMode::try_from(options.mode) {
        Ok(pb::QuoridorMode::Teams) => TableMode::Teams,
        Ok(pb::QuoridorMode::TournamentMatch) => TableMode::Tournament,
        _ => TableMode::Table,
    }
}

/// A friend room's options: 2 players unless the host chose more, an even count in team mode
/// (Q23), and no teams or first seat of the host's: the room fills them.
pub(crate) fn room_options(options: &mut pb::QuoridorOptions) -> Result<(), CatalogError> {
    if options.players == 0 {
        options.players = 2;
    }
    if table_mode(options) == TableMode::Teams && options.players % 2 == 1 {
        return Err(invalid(format!(
            "settings.quoridor.players: Q23: teams need an even number of players, not {}",
            options.players
        )));
    }
    options.teams.clear();
    options.first_seat = None;
    Ok(())
}

/// Q23: the teams of a team game's seats, in seat order.
pub(crate) fn with_teams(options: &mut pb::QuoridorOptions, teams: &[PlayerTeam]) {
    options.teams = teams
        .iter()
        .map(|team| match team {
            PlayerTeam::Red => pb::QuoridorTeam::Red as i32,
            PlayerTeam::Yellow => pb::QuoridorTeam::Yellow as i32,
        })
        .collect();
}

/// Q24: one match of a tournament seats two, `first_seat` moving first (the bracket's draw).
pub(crate) fn tournament_match(options: &mut pb::QuoridorOptions, first_seat: Option<usize>) {
    options.mode = pb::QuoridorMode::TournamentMatch as i32;
    options.players = 2;
    options.first_seat = first_seat.map(seat_u32);
}

fn quoridor_options(settings: &pb::GameSettings) -> Result<&pb::QuoridorOptions, CatalogError> {
    match &settings.options {
        Some(pb::game_settings::Options::Quoridor(options)) => Ok(options),
        _ => Err(CatalogError::options_not_for(GameKind::Quoridor)),
    }
}

impl Hosting for Quoridor {
    const KIND: GameKind = GameKind::Quoridor;
    /// Q18: only the move limit draws; there is no draw by agreement.
    const DRAW_RULE: &'static str = "Q18";

    fn options_from_pb(settings: &pb::GameSettings) -> Result<QuoridorOptions, CatalogError> {
        if settings.turn_time_ms > MAX_TURN_MS {
            return Err(invalid(format!(
                "settings.turn_time_ms: Q28: at most {MAX_TURN_MS} ms per turn, not {}",
                settings.turn_time_ms
            )));
        }
        options_from_pb(quoridor_options(settings)?)
    }

    fn check_seats(settings: &pb::GameSettings, seats: usize) -> Result<(), CatalogError> {
        let players = quoridor_options(settings)?.players;
        if players != 0 && players as usize != seats {
            return Err(invalid(format!(
                "settings.quoridor.players: the table has {players} seats but {seats} players were listed"
            )));
        }
        Ok(())
    }

    fn action_from_pb(&self, action: &pb::Action) -> Result<QuoridorAction, CatalogError> {
        use pb::quoridor_action::Kind;
        let Some(pb::action::Action::Quoridor(quoridor)) = &action.action else {
            return Err(CatalogError::action_not_for(Self::KIND));
        };
        let n = self.options().size;
        match &quoridor.kind {
            Some(Kind::Move(cell)) => Ok(QuoridorAction::Move(cell_from_pb(
                "action.quoridor.move",
                Some(cell),
                n,
                "Q1",
            )?)),
            Some(Kind::Wall(wall)) => {
                let orientation = match pb::QuoridorOrientation::try_from(wall.orientation) {
                    Ok(pb::QuoridorOrientation::Horizontal) => Orientation::Horizontal,
                    Ok(pb::QuoridorOrientation::Vertical) => Orientation::Vertical,
                    _ => {
                        return Err(invalid(
                            "action.quoridor.wall.orientation: Q2: horizontal or vertical".into(),
                        ));
                    }
                };
                let cell = cell_from_pb(
                    "action.quoridor.wall.cell",
                    wall.cell.as_ref(),
                    n.saturating_sub(1),
                    "Q2",
                )?;
                Ok(QuoridorAction::Wall(Wall::new(cell, orientation)))
            }
            Some(Kind::Pass(_)) => Ok(QuoridorAction::Pass),
            None => Err(invalid("action.quoridor: set move, wall or pass".into())),
        }
    }

    fn action_to_pb(action: &QuoridorAction) -> pb::Action {
        pb::Action {
            action: Some(pb::action::Action::Quoridor(quoridor_action_to_pb(*action))),
        }
    }

    fn view_to_pb(view: QuoridorView) -> pb::GameView {
        pb::GameView {
            view: Some(pb::game_view::View::Quoridor(pb::QuoridorView {
                size: u32::from(view.size),
                mode: mode_to_pb(view.mode) as i32,
                goal: goal_to_pb(view.goal) as i32,
                pawns: view.pawns.into_iter().map(pawn_to_pb).collect(),
                walls: view
                    .walls
                    .iter()
                    .map(|placed| pb::QuoridorPlacedWall {
                        wall: Some(wall_to_pb(placed.wall)),
                        side: placed.side.map(seat_u32),
                    })
                    .collect(),
                last_action: view.last_action.map(last_action_to_pb),
                to_move: view.to_move.map(seat_u32),
                side_to_move: view.side_to_move.map(seat_u32),
                you: view.you.map(seat_u32),
                move_limit: view.move_limit,
                ply: view.ply,
            })),
        }
    }

    fn ruleset(&self) -> String {
        ruleset(self.options(), self.seats())
    }

    /// Q19/Q21: what the clock policy did, from the automatic action it recorded.
    fn timeout_effect(&self, _before: &Self) -> Option<String> {
        let last = self.view(ludus_rules::Viewer::Spectator).last_action?;
        if !last.automatic {
            return None;
        }
        let colour = Colour::of_side(last.side);
        Some(match (last.action, last.from) {
            (QuoridorAction::Move(to), Some(from)) => {
                format!("Q21: {colour} blocked a pawn and stepped aside from {from} to {to}")
            }
            _ => format!("Q19: {colour}'s turn passed"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(size: u32, walls: u32, mode: pb::QuoridorMode) -> pb::QuoridorOptions {
        pb::QuoridorOptions {
            mode: mode as i32,
            size,
            walls,
            ..Default::default()
        }
    }

    #[test]
    fn defaults_and_rulesets() {
        let o = options_from_pb(&pb::QuoridorOptions::default()).expect("defaults");
        assert_eq!(o, QuoridorOptions::default());
        assert_eq!(ruleset(&o, 2), "quoridor/9/classic");
        assert_eq!(ruleset(&o, 4), "quoridor/9/classic/ffa4");
        let o = options_from_pb(&pb::QuoridorOptions {
            goal: pb::QuoridorGoal::Center as i32,
            ..options(13, 20, pb::QuoridorMode::Teams)
        })
        .expect("teams");
        assert_eq!(ruleset(&o, 8), "quoridor/13/center/teams8/walls20");
        let o = options_from_pb(&options(11, 0, pb::QuoridorMode::TournamentMatch)).expect("match");
        assert_eq!(ruleset(&o, 2), "quoridor/11/classic/match");
        // Every queue name fits a ticket id (matchmaking) and the rating pool alphabet.
        assert!(
            ruleset(&o, 8)
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'/')
        );
    }

    #[test]
    fn bad_options_name_field_and_rule() {
        for (o, field, rule) in [
            (options(10, 0, pb::QuoridorMode::FreeForAll), "size", "Q26"),
            (options(9, 4, pb::QuoridorMode::FreeForAll), "walls", "Q27"),
            (
                pb::QuoridorOptions {
                    players: 9,
                    ..Default::default()
                },
                "players",
                "Q4",
            ),
            (
                pb::QuoridorOptions {
                    players: 4,
                    ..options(9, 0, pb::QuoridorMode::TournamentMatch)
                },
                "players",
                "Q24",
            ),
            (
                pb::QuoridorOptions {
                    teams: vec![0, 1],
                    ..options(9, 0, pb::QuoridorMode::Teams)
                },
                "teams[0]",
                "Q23",
            ),
            (
                pb::QuoridorOptions {
                    mode: 17,
                    ..Default::default()
                },
                "mode",
                "Q22",
            ),
        ] {
            match options_from_pb(&o) {
                Err(CatalogError::InvalidArgument(m)) => assert!(
                    m.starts_with(&format!("settings.quoridor.{field}: {rule}")),
                    "{m}"
                ),
                other => panic!("{o:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn a_table_size_must_match_the_players_listed() {
        let settings = |players| pb::GameSettings {
            options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
                players,
                ..Default::default()
            })),
            turn_time_ms: 0,
        };
        assert!(<Quoridor as Hosting>::check_seats(&settings(0), 3).is_ok());
        assert!(<Quoridor as Hosting>::check_seats(&settings(4), 4).is_ok());
        assert!(matches!(
            <Quoridor as Hosting>::check_seats(&settings(4), 2),
            Err(CatalogError::InvalidArgument(m)) if m.starts_with("settings.quoridor.players")
        ));
        let slow = pb::GameSettings {
            turn_time_ms: 90_001,
            ..settings(0)
        };
        assert!(matches!(
            <Quoridor as Hosting>::options_from_pb(&slow),
            Err(CatalogError::InvalidArgument(m)) if m.starts_with("settings.turn_time_ms: Q28")
        ));
    }

    #[test]
    fn options_round_trip() {
        let o = options_from_pb(&pb::QuoridorOptions {
            teams: vec![
                pb::QuoridorTeam::Red as i32,
                pb::QuoridorTeam::Yellow as i32,
            ],
            first_seat: Some(1),
            ..options(11, 5, pb::QuoridorMode::Teams)
        })
        .expect("ok");
        assert_eq!(options_from_pb(&options_to_pb(&o, 2)).expect("again"), o);
    }

    #[test]
    fn structured_actions_match_notation() {
        let mut rng = ludus_rules::SplitMix64(1);
        let g = Quoridor::setup(QuoridorOptions::default(), 2, &mut rng).expect("setup");
        for text in ["e2", "e3h", "h8v", "pass"] {
            let a: QuoridorAction = text.parse().expect("notation");
            let pb = <Quoridor as Hosting>::action_to_pb(&a);
            assert_eq!(g.action_from_pb(&pb).expect("back"), a, "{text}");
        }
        let off = pb::Action {
            action: Some(pb::action::Action::Quoridor(pb::QuoridorAction {
                kind: Some(pb::quoridor_action::Kind::Wall(pb::QuoridorWall {
                    cell: Some(pb::QuoridorCell { file: 8, rank: 0 }),
                    orientation: pb::QuoridorOrientation::Horizontal as i32,
                })),
            })),
        };
        assert!(matches!(
            g.action_from_pb(&off),
            Err(CatalogError::InvalidArgument(m)) if m.starts_with("action.quoridor.wall.cell.file: Q2")
        ));
    }

    #[test]
    fn view_carries_pawns_distances_and_the_viewer() {
        let mut rng = ludus_rules::ScriptedRandom::new([0]);
        let g = Quoridor::setup(QuoridorOptions::default(), 4, &mut rng).expect("setup");
        let g = g
            .apply(0, &"e2".parse().expect("e2"), &mut rng)
            .expect("step");
        let Some(pb::game_view::View::Quoridor(v)) =
            <Quoridor as Hosting>::view_to_pb(g.view(ludus_rules::Viewer::Seat(2))).view
        else {
            panic!("a quoridor view");
        };
        assert_eq!(v.pawns.len(), 4);
        assert_eq!(v.pawns[0].distance, Some(7));
        assert_eq!(v.pawns[0].walls_left, 5);
        assert_eq!(v.you, Some(2));
        assert_eq!(v.to_move, Some(1));
        let last = v.last_action.expect("last action");
        assert_eq!(last.from, Some(pb::QuoridorCell { file: 4, rank: 0 }));
        assert!(!last.automatic);
    }
}
