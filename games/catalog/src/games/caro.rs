//! Caro in the contract: `CaroOptions`, `CaroAction`, `CaroView` (proto/ludus/v1/caro.proto).

pub use ludus_caro::Caro;
use ludus_caro::{CaroAction, CaroOptions, CaroView, Cell, Stone};
use ludus_proto::pb;

use crate::policy::{ClockChoices, FriendClock, TablePolicy};
use crate::{CatalogError, GameKind, Hosting};

/// Caro's tables: two players; C12's clocks (quick matches one minute per move, friend rooms
/// untimed, 30 s, 1 or 2 min); C17's ten take-backs against Easy and Medium; C10/C11's first
/// mover in rooms.
pub const TABLE: TablePolicy = TablePolicy {
    kind: GameKind::Caro,
    min_seats: 2,
    max_seats: 2,
    seats_rule: "C12",
    default_turn_ms: 60_000,
    max_turn_ms: None,
    clock_rule: "C12",
    quick_match_clock: None,
    computer_clock: None,
    friend_clock: FriendClock {
        rule: "C12",
        choices: ClockChoices::OneOf(&[30_000, 60_000, 120_000]),
        zero_means: 0,
        described: "untimed (0), 30 000, 60 000 or 120 000 ms",
    },
    take_backs: 10,
    room_first_mover: true,
    auto_start: false,
    scores_points: false,
    rated: true,
};

/// C1: the board sizes.
pub const BOARD_SIZES: [u8; 2] = [15, 19];

fn stone_to_pb(stone: Option<Stone>) -> i32 {
    match stone {
        None => pb::CaroStone::Empty as i32,
        Some(Stone::X) => pb::CaroStone::X as i32,
        Some(Stone::O) => pb::CaroStone::O as i32,
    }
}

fn cell_to_pb(cell: Cell) -> pb::CaroCell {
    pb::CaroCell {
        column: u32::from(cell.col),
        row: u32::from(cell.row),
        name: cell.to_string(),
    }
}

fn options_to_pb(options: CaroOptions) -> pb::CaroOptions {
    pb::CaroOptions {
        board_size: u32::from(options.size),
        blocked_ends_off: !options.blocked_ends,
        exactly_five: options.exactly_five,
    }
}

/// Reads Caro options; a board size of 0 means the default 15 (C1).
pub fn options_from_pb(options: &pb::CaroOptions) -> Result<CaroOptions, CatalogError> {
    let size = match options.board_size {
        0 => CaroOptions::default().size,
        size => BOARD_SIZES
            .into_iter()
            .find(|&offered| u32::from(offered) == size)
            .ok_or_else(|| {
                CatalogError::InvalidArgument(format!(
                    "settings.caro.board_size: C1: the board is 15 or 19, not {size}"
                ))
            })?,
    };
    Ok(CaroOptions {
        size,
        blocked_ends: !options.blocked_ends_off,
        exactly_five: options.exactly_five,
    })
}

/// Caro's options (ListGameOptions): the board (C1) and C5's two rules, in every mode.
pub(crate) fn described_options() -> Vec<pb::GameOption> {
    use crate::options::{EVERYWHERE, choice, flag, plain};
    let default = CaroOptions::default();
    vec![
        choice(
            "size",
            "caro.board_size",
            &["C1"],
            "opt.board",
            EVERYWHERE,
            i64::from(default.size),
            plain(BOARD_SIZES.map(i64::from)),
        ),
        pb::GameOption {
            field_negated: true,
            ..flag(
                "blocked",
                "caro.blocked_ends_off",
                &["C5"],
                "opt.caro.blocked",
                EVERYWHERE,
                default.blocked_ends,
            )
        },
        flag(
            "exact",
            "caro.exactly_five",
            &["C5"],
            "opt.caro.exact",
            EVERYWHERE,
            default.exactly_five,
        ),
    ]
}

impl Hosting for Caro {
    const KIND: GameKind = GameKind::Caro;
    /// C8: a draw by agreement (one player offers, the other accepts).
    const DRAW_RULE: &'static str = "C8";

    fn options_from_pb(settings: &pb::GameSettings) -> Result<CaroOptions, CatalogError> {
        match &settings.options {
            Some(pb::game_settings::Options::Caro(options)) => options_from_pb(options),
            _ => Err(CatalogError::options_not_for(Self::KIND)),
        }
    }

    fn action_from_pb(&self, action: &pb::Action) -> Result<CaroAction, CatalogError> {
        let Some(pb::action::Action::Caro(caro)) = &action.action else {
            return Err(CatalogError::action_not_for(Self::KIND));
        };
        let Some(cell) = &caro.place else {
            return Err(CatalogError::InvalidArgument(
                "action.caro.place: name a cell".into(),
            ));
        };
        let size = u32::from(self.size());
        if cell.column >= size || cell.row >= size {
            return Err(CatalogError::InvalidArgument(format!(
                "action.caro.place: C1: column {} row {} is off the {size}x{size} board",
                cell.column, cell.row
            )));
        }
        // Both fit in u8: they are below the board size.
        Ok(CaroAction {
            cell: Cell::new(cell.column as u8, cell.row as u8),
        })
    }

    fn action_to_pb(action: &CaroAction) -> pb::Action {
        pb::Action {
            action: Some(pb::action::Action::Caro(pb::CaroAction {
                place: Some(cell_to_pb(action.cell)),
            })),
        }
    }

    fn view_to_pb(view: CaroView) -> pb::GameView {
        pb::GameView {
            view: Some(pb::game_view::View::Caro(pb::CaroView {
                board_size: u32::from(view.options.size),
                cells: view.cells.iter().map(|s| stone_to_pb(*s)).collect(),
                moves: view.moves.iter().map(|c| cell_to_pb(*c)).collect(),
                seat_stones: vec![stone_to_pb(Some(Stone::X)), stone_to_pb(Some(Stone::O))],
                winning_line: view.winning_line.iter().map(|c| cell_to_pb(*c)).collect(),
                options: Some(options_to_pb(view.options)),
            })),
        }
    }

    fn ruleset(&self) -> String {
        self.options().ruleset()
    }
}
