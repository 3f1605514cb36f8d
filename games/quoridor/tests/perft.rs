//! Perft data test for Quoridor, the way chess move generators keep theirs: every line of
//! `tests/data/perft.txt` is a position (options, pawns, walls and moves in the standard
//! notation) with the number of legal action sequences of length 1, 2 and 3 from it.
//!
//! Two generators are checked against the file and against each other:
//! - the engine (`Quoridor::arrange`, `Game::legal_actions`, `Game::apply`);
//! - [`reference`], a slow generator written from shared/rules/quoridor.md alone: it tries
//!   every pawn destination (steps Q12, straight and diagonal jumps Q13), every one of the
//!   2·(N-1)² wall slots (Q2, Q3, Q14, Q16) with a from-scratch breadth-first search for
//!   every pawn's path (Q9, Q15), and `pass` unless the pawn blocks someone (Q19, Q20).
//!
//! Multi-player lines use the center goal only: every pawn then has the same goal whatever
//! its seat, so their counts do not depend on which edge each seat starts on (Q6, Q7, Q10).

use ludus_perft::{
    Case, Reference, check_counts, check_engine_and_reference, check_same_actions, perft, play_all,
    print_engine_lines,
};
use ludus_quoridor::{Cell, GoalKind, Mode, Quoridor, QuoridorOptions, Wall, Walls};
use ludus_rules::{Game, ScriptedRandom};

const DATA: &str = include_str!("data/perft.txt");

/// A position of the file: the options, the arrangement and the moves played from it.
struct Line {
    size: u8,
    pawns_count: usize,
    center: bool,
    walls_option: Option<u8>,
    pawns: Vec<String>,
    walls: Vec<String>,
    moves: Vec<String>,
}

fn words(field: &str) -> Vec<String> {
    field.split_whitespace().map(str::to_owned).collect()
}

fn cases() -> Vec<Case<Line>> {
    let cases = ludus_perft::read_cases(DATA, 4, |line, f| {
        let o = words(f[0]);
        assert_eq!(o.len(), 4, "line {line}: size, pawns, goal, walls");
        Line {
            size: o[0].parse().expect("a size"),
            pawns_count: o[1].parse().expect("a pawn count"),
            center: match o[2].as_str() {
                "center" => true,
                "opposite" => false,
                other => panic!("line {line}: no goal {other}"),
            },
            walls_option: (o[3] != "auto").then(|| o[3].parse().expect("a wall count")),
            pawns: words(f[1]),
            walls: words(f[2]),
            moves: words(f[3]),
        }
    });
    assert!(cases.len() >= 10, "the file holds the positions");
    cases
}

fn engine_position(line: &Line) -> Quoridor {
    let options = QuoridorOptions {
        mode: Mode::FreeForAll,
        goal: if line.center {
            GoalKind::Center
        } else {
            GoalKind::Opposite
        },
        size: line.size,
        walls: line.walls_option.map_or(Walls::Auto, Walls::Fixed),
        teams: Vec::new(),
        first_seat: Some(0),
    };
    let game = Quoridor::setup(options, line.pawns_count, &mut ScriptedRandom::new([]))
        .expect("valid options");
    let pawns: Vec<Cell> = line
        .pawns
        .iter()
        .map(|p| p.parse().expect("a cell"))
        .collect();
    let walls: Vec<Wall> = line
        .walls
        .iter()
        .map(|w| w.parse().expect("a wall"))
        .collect();
    let game = game.arrange(&pawns, &walls).expect("a legal arrangement");
    play_all(game, &line.moves)
}

/// The slow reference generator, from the rule file only. Cells are Q1's `(row, col)`.
mod reference {
    use ludus_perft::Reference;
    use std::collections::VecDeque;

    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    pub enum Goal {
        /// Q5: the opposite edge; here, the row to reach.
        Row(usize),
        /// Q9.
        Center,
    }

    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    pub enum Action {
        Move(usize, usize),
        /// Horizontal (`true`) or vertical wall with Q2 center `(r, c)`.
        Wall(bool, usize, usize),
        Pass,
    }

    #[derive(Clone, Debug)]
    pub struct Position {
        pub n: usize,
        pub pawns: Vec<(usize, usize)>,
        pub goals: Vec<Goal>,
        pub walls_left: Vec<u32>,
        /// `horizontal[r][c]`, `vertical[r][c]`: a wall with that center (Q2).
        pub horizontal: Vec<Vec<bool>>,
        pub vertical: Vec<Vec<bool>>,
        pub turn: usize,
        pub over: bool,
    }

    const DIRECTIONS: [(isize, isize); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

    impl Position {
        pub fn new(n: usize, pawns: Vec<(usize, usize)>, goals: Vec<Goal>, walls: u32) -> Self {
            let k = pawns.len();
            Position {
                n,
                pawns,
                goals,
                walls_left: vec![walls; k],
                horizontal: vec![vec![false; n - 1]; n - 1],
                vertical: vec![vec![false; n - 1]; n - 1],
                turn: 0,
                over: false,
            }
        }

        /// Standard notation: `e4` is file e, rank 4 from the bottom.
        pub fn cell(&self, text: &str) -> (usize, usize) {
            let col = usize::from(text.as_bytes()[0] - b'a');
            let rank: usize = text[1..].parse().expect("a rank");
            (self.n - rank, col)
        }

        /// Standard notation: `e3h` names the wall whose 2x2 block has e3 as lower-left cell.
        pub fn wall(&self, text: &str) -> Action {
            let (row, col) = self.cell(&text[..text.len() - 1]);
            Action::Wall(text.ends_with('h'), row - 1, col)
        }

        pub fn name(&self, action: Action) -> String {
            let file = |c: usize| char::from(b'a' + c as u8);
            match action {
                Action::Move(r, c) => format!("{}{}", file(c), self.n - r),
                Action::Wall(h, r, c) => {
                    format!("{}{}{}", file(c), self.n - 1 - r, if h { 'h' } else { 'v' })
                }
                Action::Pass => "pass".to_owned(),
            }
        }

        fn on_board(&self, r: isize, c: isize) -> bool {
            r >= 0 && c >= 0 && (r as usize) < self.n && (c as usize) < self.n
        }

        /// Whether a wall lies between `(r, c)` and its neighbour in direction `(dr, dc)`.
        fn wall_between(&self, (r, c): (usize, usize), (dr, dc): (isize, isize)) -> bool {
            // Whether `grid` has a wall at center (r, c), which may be off the grid.
            let placed = |grid: &Vec<Vec<bool>>, r: isize, c: isize| {
                r >= 0
                    && c >= 0
                    && (r as usize) < self.n - 1
                    && (c as usize) < self.n - 1
                    && grid[r as usize][c as usize]
            };
            let h = |r, c| placed(&self.horizontal, r, c);
            let v = |r, c| placed(&self.vertical, r, c);
            let (r, c) = (r as isize, c as isize);
            match (dr, dc) {
                // A horizontal wall at (r, c) separates rows r, r+1 across columns c, c+1.
                (1, 0) => h(r, c) || h(r, c - 1),
                (-1, 0) => h(r - 1, c) || h(r - 1, c - 1),
                // A vertical wall at (r, c) separates columns c, c+1 across rows r, r+1.
                (0, 1) => v(r, c) || v(r - 1, c),
                (0, -1) => v(r, c - 1) || v(r - 1, c - 1),
                _ => unreachable!(),
            }
        }

        /// The neighbour of `cell` in `d` if it is on the board and no wall is between.
        fn open_step(&self, cell: (usize, usize), d: (isize, isize)) -> Option<(usize, usize)> {
            let (r, c) = (cell.0 as isize + d.0, cell.1 as isize + d.1);
            (self.on_board(r, c) && !self.wall_between(cell, d)).then_some((r as usize, c as usize))
        }

        fn is_goal(&self, pawn: usize, (r, c): (usize, usize)) -> bool {
            match self.goals[pawn] {
                Goal::Row(row) => r == row,
                Goal::Center => (r, c) == ((self.n - 1) / 2, (self.n - 1) / 2),
            }
        }

        /// Q15/Q20: whether `pawn` can reach its goal around walls, ignoring pawns, never
        /// entering `closed`.
        fn has_path(&self, pawn: usize, closed: Option<(usize, usize)>) -> bool {
            let start = self.pawns[pawn];
            let mut seen = vec![vec![false; self.n]; self.n];
            let mut queue = VecDeque::from([start]);
            seen[start.0][start.1] = true;
            while let Some(cell) = queue.pop_front() {
                if self.is_goal(pawn, cell) {
                    return true;
                }
                for d in DIRECTIONS {
                    if let Some(next) = self.open_step(cell, d)
                        && !seen[next.0][next.1]
                        && Some(next) != closed
                    {
                        seen[next.0][next.1] = true;
                        queue.push_back(next);
                    }
                }
            }
            false
        }

        fn occupied(&self, cell: (usize, usize)) -> bool {
            self.pawns.contains(&cell)
        }

        /// Q12-Q13: the cells the pawn to move may reach.
        fn destinations(&self) -> Vec<(usize, usize)> {
            let me = self.pawns[self.turn];
            let mut out = Vec::new();
            for d in DIRECTIONS {
                let Some(faced) = self.open_step(me, d) else {
                    continue;
                };
                if !self.occupied(faced) {
                    out.push(faced);
                    continue;
                }
                match self.open_step(faced, d) {
                    Some(behind) if !self.occupied(behind) => out.push(behind),
                    _ => {
                        for side in [(d.1, d.0), (-d.1, -d.0)] {
                            if let Some(beside) = self.open_step(faced, side)
                                && !self.occupied(beside)
                                && !out.contains(&beside)
                            {
                                out.push(beside);
                            }
                        }
                    }
                }
            }
            out
        }

        /// Q3: overlapping or crossing a placed wall.
        fn conflicts(&self, horizontal: bool, r: usize, c: usize) -> bool {
            let (same, other) = if horizontal {
                (&self.horizontal, &self.vertical)
            } else {
                (&self.vertical, &self.horizontal)
            };
            let along = |k: isize| {
                let (rr, cc) = if horizontal {
                    (r as isize, c as isize + k)
                } else {
                    (r as isize + k, c as isize)
                };
                rr >= 0
                    && cc >= 0
                    && (rr as usize) < self.n - 1
                    && (cc as usize) < self.n - 1
                    && same[rr as usize][cc as usize]
            };
            other[r][c] || along(-1) || along(0) || along(1)
        }

        fn place(&mut self, horizontal: bool, r: usize, c: usize) {
            if horizontal {
                self.horizontal[r][c] = true;
            } else {
                self.vertical[r][c] = true;
            }
        }
    }

    impl Reference for Position {
        type Action = Action;

        fn actions(&self) -> Vec<Action> {
            if self.over {
                return Vec::new();
            }
            let mut out: Vec<Action> = self
                .destinations()
                .into_iter()
                .map(|(r, c)| Action::Move(r, c))
                .collect();
            if self.walls_left[self.turn] > 0 {
                for horizontal in [true, false] {
                    for r in 0..self.n - 1 {
                        for c in 0..self.n - 1 {
                            if self.conflicts(horizontal, r, c) {
                                continue;
                            }
                            let mut after = self.clone();
                            after.place(horizontal, r, c);
                            if (0..self.pawns.len()).all(|p| after.has_path(p, None)) {
                                out.push(Action::Wall(horizontal, r, c));
                            }
                        }
                    }
                }
            }
            // Q20: no pass while this pawn blocks another; a pawn that can do nothing else
            // passes after all (the turn passes, as Q21 does for a pawn with no move).
            let me = self.pawns[self.turn];
            let blocks =
                (0..self.pawns.len()).any(|p| p != self.turn && !self.has_path(p, Some(me)));
            if !blocks || out.is_empty() {
                out.push(Action::Pass);
            }
            out
        }

        fn play(&mut self, action: Action) {
            match action {
                Action::Move(r, c) => {
                    self.pawns[self.turn] = (r, c);
                    if self.is_goal(self.turn, (r, c)) {
                        self.over = true; // Q17
                        return;
                    }
                }
                Action::Wall(h, r, c) => {
                    self.place(h, r, c);
                    self.walls_left[self.turn] -= 1;
                }
                Action::Pass => {}
            }
            self.turn = (self.turn + 1) % self.pawns.len(); // Q8
        }
    }
}

/// Q27's Auto stock, as the rule file's table gives it for the sizes and counts used here.
fn auto_walls(size: u8, pawns: usize) -> u32 {
    match (size, pawns) {
        (9, 2) => 10,
        (11, 2) => 12,
        (13, 2) => 15,
        (9, 3) => 7,
        (9, 4) => 5,
        (9, _) => 3,
        other => panic!("no Auto stock written down for {other:?}"),
    }
}

fn reference_position(line: &Line) -> reference::Position {
    use reference::{Action, Goal, Position};
    let n = usize::from(line.size);
    let goals = if line.center {
        vec![Goal::Center; line.pawns_count]
    } else {
        assert_eq!(
            line.pawns_count, 2,
            "opposite goals are written for two pawns"
        );
        vec![Goal::Row(0), Goal::Row(n - 1)] // Q5: red from the bottom, yellow from the top
    };
    let walls = line
        .walls_option
        .map_or_else(|| auto_walls(line.size, line.pawns_count), u32::from);
    let mut position = Position::new(n, Vec::new(), goals, walls);
    position.pawns = line.pawns.iter().map(|p| position.cell(p)).collect();
    position.walls_left = vec![walls; line.pawns_count];
    for text in &line.walls {
        let Action::Wall(h, r, c) = position.wall(text) else {
            unreachable!()
        };
        if h {
            position.horizontal[r][c] = true;
        } else {
            position.vertical[r][c] = true;
        }
    }
    for text in &line.moves {
        let action = if text == "pass" {
            Action::Pass
        } else if text.ends_with('h') || text.ends_with('v') {
            position.wall(text)
        } else {
            let (r, c) = position.cell(text);
            Action::Move(r, c)
        };
        assert!(position.actions().contains(&action), "{text} is legal");
        position.play(action);
    }
    position
}

/// Q2-Q3, Q12-Q17, Q19-Q20: the engine lists exactly the reference's actions, by name, in
/// every position of the file and after every first action from it.
#[test]
fn engine_and_reference_list_the_same_actions() {
    check_same_actions(
        &cases(),
        engine_position,
        reference_position,
        reference::Position::name,
    );
}

/// Depth 3 lists the actions of some 17,000 positions per line (two million sequences), each
/// wall checked by breadth-first searches; a debug build needs many minutes for that, so it
/// runs in the ignored test below.
const QUICK_DEPTH: u32 = 2;

/// The engine gives the file's counts at depths 1 and 2 (the reference agrees with them
/// through the test above, which compares every node to depth 2 action by action).
#[test]
fn engine_counts_match_the_data_file_to_depth_two() {
    check_counts(&cases(), "engine", 1..=QUICK_DEPTH, engine_position, perft);
}

/// Depth 3 as well, for engine and reference:
/// `cargo test --release -p ludus-quoridor --test perft -- --ignored`.
#[test]
#[ignore = "millions of positions; run in release"]
fn counts_match_the_data_file_to_depth_three() {
    check_engine_and_reference(&cases(), 1..=3, engine_position, reference_position);
}

/// Prints the data lines as the engine computes them (run with `--ignored --nocapture` to
/// regenerate the file after a deliberate rule change; then check the reference agrees).
#[test]
#[ignore]
fn print_engine_counts() {
    print_engine_lines(&cases(), engine_position);
}
