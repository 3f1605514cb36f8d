//! Perft data test for Flip Junqi, the way chess move generators keep theirs: every line of
//! `tests/data/perft.txt` is a position in the setup diagram notation with the number of
//! legal action sequences of length 1, 2 and 3 from it. Flips are counted from the known
//! layout (the header of the data file says exactly what is counted).
//!
//! Two generators are checked against the file and against each other:
//! - the engine (`Junqi::from_setup`, `Game::legal_actions`, `Game::apply`);
//! - [`reference`], a slow generator written from shared/rules/junqi.md alone: its own board
//!   geometry (camps, headquarters, roads with the mountains and camp diagonals, railways with
//!   the c7-c6 crossing: J2-J5), straight railway slides and Engineer paths found by search
//!   (J9), the combat table (J11-J15), colour settlement (J8) and the end (J15-J17).

use ludus_junqi::{Colour, Junqi, JunqiSetup};
use ludus_perft::{Case, check_engine_and_reference, check_same_actions, print_engine_lines};

const DATA: &str = include_str!("data/perft.txt");

/// A position of the file.
struct Line {
    diagram: String,
    to_move: usize,
    seat0_colour: Option<char>,
    last_flips: [Option<char>; 2],
    quiet: u8,
}

/// `red`, `blue` or anything else (none) as the colour's letter.
fn colour_letter(word: &str) -> Option<char> {
    match word {
        "red" => Some('R'),
        "blue" => Some('B'),
        _ => None,
    }
}

fn cases() -> Vec<Case<Line>> {
    let cases = ludus_perft::read_cases(DATA, 5, |line, f| {
        let flips: Vec<&str> = f[3].split_whitespace().collect();
        assert_eq!(flips.len(), 2, "line {line}: two latest flips");
        Line {
            diagram: f[0].to_owned(),
            to_move: f[1].parse().expect("a seat"),
            seat0_colour: colour_letter(f[2]),
            last_flips: [colour_letter(flips[0]), colour_letter(flips[1])],
            quiet: f[4].parse().expect("a counter"),
        }
    });
    assert!(cases.len() >= 8, "the file holds the positions");
    cases
}

fn engine_colour(letter: Option<char>) -> Option<Colour> {
    letter.map(|c| if c == 'R' { Colour::Red } else { Colour::Blue })
}

fn engine_position(line: &Line) -> Junqi {
    let diagram = line.diagram.replace('/', "\n");
    let mut setup = JunqiSetup::from_diagram(&diagram)
        .expect("a diagram")
        .to_move(line.to_move)
        .quiet(line.quiet)
        .last_flips(line.last_flips.map(engine_colour));
    if let Some(colour) = engine_colour(line.seat0_colour) {
        setup = setup.settled(colour);
    }
    Junqi::from_setup(&setup).expect("a valid position")
}

/// The slow reference generator, from the rule file only. Points are `(row, col)`, row 0 at
/// the top (J2).
mod reference {
    use ludus_perft::Reference;
    use std::collections::VecDeque;

    const ROWS: usize = 12;
    const COLS: usize = 5;

    /// Strength for J12; the special pieces have their own rules.
    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    pub enum Kind {
        Army(u8),
        Engineer,
        Mine,
        Bomb,
        Flag,
    }

    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    pub struct Piece {
        /// 'R' or 'B'.
        pub colour: char,
        pub kind: Kind,
        pub face_up: bool,
    }

    impl Piece {
        fn movable(self) -> bool {
            !matches!(self.kind, Kind::Mine | Kind::Flag) // J10
        }
    }

    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    pub enum Action {
        Flip(usize, usize),
        Move((usize, usize), (usize, usize)),
    }

    #[derive(Clone, Debug)]
    pub struct Position {
        pub cells: [[Option<Piece>; COLS]; ROWS],
        pub to_move: usize,
        /// Seat 0's colour once settled (J8).
        pub seat0: Option<char>,
        pub last_flips: [Option<char>; 2],
        pub quiet: u32,
        pub over: bool,
    }

    /// J3.
    fn is_camp((r, c): (usize, usize)) -> bool {
        matches!(
            (r, c),
            (2, 1) | (2, 3) | (3, 2) | (4, 1) | (4, 3) | (7, 1) | (7, 3) | (8, 2) | (9, 1) | (9, 3)
        )
    }

    /// J5: stations.
    fn is_station((r, c): (usize, usize)) -> bool {
        matches!(r, 1 | 5 | 6 | 10) || ((1..=10).contains(&r) && (c == 0 || c == 4))
    }

    fn offset((r, c): (usize, usize), (dr, dc): (isize, isize)) -> Option<(usize, usize)> {
        let (r2, c2) = (r as isize + dr, c as isize + dc);
        (r2 >= 0 && c2 >= 0 && (r2 as usize) < ROWS && (c2 as usize) < COLS)
            .then_some((r2 as usize, c2 as usize))
    }

    /// J4: road links, orthogonal except across the mountains, and a camp's diagonals.
    fn road_neighbours(p: (usize, usize)) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for d in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            if let Some(q) = offset(p, d) {
                let pair = (p.0.min(q.0), q.0.max(p.0), p.1);
                let mountain = p.1 == q.1 && (pair == (5, 6, 1) || pair == (5, 6, 3));
                if !mountain {
                    out.push(q);
                }
            }
        }
        for d in [(-1, -1), (-1, 1), (1, -1), (1, 1)] {
            if let Some(q) = offset(p, d)
                && (is_camp(p) || is_camp(q))
            {
                out.push(q);
            }
        }
        out
    }

    /// J5: the railway segments: rows 1, 5, 6, 10, files a and e from row 1 to row 10, and
    /// the crossing (5,2)-(6,2).
    fn rail_linked(p: (usize, usize), q: (usize, usize)) -> bool {
        let ((r1, c1), (r2, c2)) = (p.min(q), p.max(q));
        if r1 == r2 {
            c2 == c1 + 1 && matches!(r1, 1 | 5 | 6 | 10)
        } else if c1 == c2 && r2 == r1 + 1 {
            ((c1 == 0 || c1 == 4) && r1 >= 1 && r2 <= 10) || (c1 == 2 && r1 == 5)
        } else {
            false
        }
    }

    fn rail_neighbours(p: (usize, usize)) -> Vec<(usize, usize)> {
        [(-1, 0), (1, 0), (0, -1), (0, 1)]
            .into_iter()
            .filter_map(|d| offset(p, d))
            .filter(|&q| rail_linked(p, q))
            .collect()
    }

    /// Reads the setup diagram: 12 rows from the top separated by `/`, 5 tokens each.
    pub fn cells_of(diagram: &str) -> [[Option<Piece>; COLS]; ROWS] {
        let mut cells = [[None; COLS]; ROWS];
        let rows: Vec<&str> = diagram.split('/').collect();
        assert_eq!(rows.len(), ROWS);
        for (r, row) in rows.iter().enumerate() {
            let tokens: Vec<&str> = row.split_whitespace().collect();
            assert_eq!(tokens.len(), COLS);
            for (c, token) in tokens.iter().enumerate() {
                if *token == ".." {
                    continue;
                }
                let bytes = token.as_bytes();
                let kind = match bytes[1] {
                    b'c' => Kind::Army(9),
                    b'k' => Kind::Army(8),
                    b'd' => Kind::Army(7),
                    b'g' => Kind::Army(6),
                    b'r' => Kind::Army(5),
                    b't' => Kind::Army(4),
                    b'y' => Kind::Army(3),
                    b'p' => Kind::Army(2),
                    b'e' => Kind::Engineer,
                    b'm' => Kind::Mine,
                    b'b' => Kind::Bomb,
                    b'f' => Kind::Flag,
                    other => panic!("rank {other}"),
                };
                cells[r][c] = Some(Piece {
                    colour: char::from(bytes[0].to_ascii_uppercase()),
                    kind,
                    face_up: bytes[0].is_ascii_uppercase(),
                });
            }
        }
        cells
    }

    /// J2 notation: file a-e, rank 1-12 from the bottom.
    fn name((r, c): (usize, usize)) -> String {
        format!("{}{}", char::from(b'a' + c as u8), ROWS - r)
    }

    pub fn action_name(a: Action) -> String {
        match a {
            Action::Flip(r, c) => name((r, c)),
            Action::Move(from, to) => format!("{}-{}", name(from), name(to)),
        }
    }

    impl Position {
        fn at(&self, (r, c): (usize, usize)) -> Option<Piece> {
            self.cells[r][c]
        }

        fn colour_of(&self, seat: usize) -> Option<char> {
            let c = self.seat0?;
            Some(if seat == 0 {
                c
            } else if c == 'R' {
                'B'
            } else {
                'R'
            })
        }

        fn points(&self) -> impl Iterator<Item = (usize, usize)> {
            (0..ROWS).flat_map(|r| (0..COLS).map(move |c| (r, c)))
        }

        /// J15: the flag of `colour` may be attacked once its three mines are gone and
        /// nothing is face down.
        fn flag_open(&self, colour: char) -> bool {
            self.points().all(|p| match self.at(p) {
                Some(x) => x.face_up && !(x.colour == colour && x.kind == Kind::Mine),
                None => true,
            })
        }

        /// J11-J15: whether `attacker` may move onto `target`.
        fn may_attack(&self, attacker: Piece, target: (usize, usize)) -> bool {
            let Some(defender) = self.at(target) else {
                return true; // not an attack
            };
            if !defender.face_up || defender.colour == attacker.colour || is_camp(target) {
                return false;
            }
            match (attacker.kind, defender.kind) {
                (_, Kind::Flag) => self.flag_open(defender.colour),
                (Kind::Bomb, _) | (_, Kind::Bomb) => true,
                (Kind::Engineer, Kind::Mine) => true,
                (_, Kind::Mine) => false,
                (Kind::Army(a), Kind::Army(d)) => a >= d,
                (Kind::Army(_), Kind::Engineer) => true,
                (Kind::Engineer, Kind::Engineer) => true,
                (Kind::Engineer, Kind::Army(_)) => false,
                _ => unreachable!("mines and flags never move"),
            }
        }

        /// J9: road steps, straight railway slides, an Engineer's railway paths.
        fn destinations(&self, from: (usize, usize)) -> Vec<(usize, usize)> {
            let piece = self.at(from).expect("a piece");
            let mut candidates = road_neighbours(from);
            if is_station(from) {
                if piece.kind == Kind::Engineer {
                    let mut seen = [[false; COLS]; ROWS];
                    seen[from.0][from.1] = true;
                    let mut queue = VecDeque::from([from]);
                    while let Some(p) = queue.pop_front() {
                        for q in rail_neighbours(p) {
                            if seen[q.0][q.1] {
                                continue;
                            }
                            seen[q.0][q.1] = true;
                            candidates.push(q);
                            if self.at(q).is_none() {
                                queue.push_back(q);
                            }
                        }
                    }
                } else {
                    for d in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                        let mut p = from;
                        while let Some(q) = offset(p, d).filter(|&q| rail_linked(p, q)) {
                            candidates.push(q);
                            if self.at(q).is_some() {
                                break;
                            }
                            p = q;
                        }
                    }
                }
            }
            let mut out: Vec<(usize, usize)> = Vec::new();
            for q in candidates {
                if q != from && !out.contains(&q) && self.may_attack(piece, q) {
                    out.push(q);
                }
            }
            out
        }

        /// J16: pieces that can move, face-down pieces of the colour included.
        fn has_movable(&self, colour: char) -> bool {
            self.points().any(|p| {
                self.at(p)
                    .is_some_and(|x| x.colour == colour && x.movable())
            })
        }
    }

    impl Reference for Position {
        type Action = Action;

        fn actions(&self) -> Vec<Action> {
            if self.over {
                return Vec::new();
            }
            let mut out: Vec<Action> = self
                .points()
                .filter(|&p| self.at(p).is_some_and(|x| !x.face_up))
                .map(|(r, c)| Action::Flip(r, c))
                .collect();
            if let Some(mine) = self.colour_of(self.to_move) {
                for from in self.points() {
                    if let Some(x) = self.at(from)
                        && x.face_up
                        && x.colour == mine
                        && x.movable()
                    {
                        for to in self.destinations(from) {
                            out.push(Action::Move(from, to));
                        }
                    }
                }
            }
            out
        }

        fn play(&mut self, action: Action) {
            let seat = self.to_move;
            let mut flag_taken = false;
            match action {
                Action::Flip(r, c) => {
                    let piece = self.cells[r][c].as_mut().expect("a piece");
                    piece.face_up = true;
                    let colour = piece.colour;
                    // J8: two consecutive own flips of one colour settle it.
                    if self.seat0.is_none() && self.last_flips[seat] == Some(colour) {
                        let other = if colour == 'R' { 'B' } else { 'R' };
                        self.seat0 = Some(if seat == 0 { colour } else { other });
                    }
                    self.last_flips[seat] = Some(colour);
                    self.quiet = 0;
                }
                Action::Move(from, to) => {
                    let mover = self.at(from).expect("a piece");
                    self.cells[from.0][from.1] = None;
                    match self.at(to) {
                        None => {
                            self.cells[to.0][to.1] = Some(mover);
                            self.quiet += 1;
                        }
                        Some(defender) => {
                            self.quiet = 0;
                            let survivor = match (mover.kind, defender.kind) {
                                (_, Kind::Flag) => {
                                    flag_taken = true;
                                    Some(mover)
                                }
                                (Kind::Bomb, _) | (_, Kind::Bomb) => None, // J13
                                (_, Kind::Mine) => Some(mover),            // J14
                                (Kind::Army(a), Kind::Army(d)) if a == d => None,
                                (Kind::Engineer, Kind::Engineer) => None,
                                _ => Some(mover), // J12: the attack was legal, so stronger
                            };
                            self.cells[to.0][to.1] = survivor;
                        }
                    }
                }
            }
            self.to_move = 1 - seat;
            // J8 [decided]: all face up and unsettled: the seat to move takes the colour of
            // its latest flip.
            if self.seat0.is_none()
                && self.points().all(|p| self.at(p).is_none_or(|x| x.face_up))
                && let Some(colour) = self.last_flips[self.to_move]
            {
                let other = if colour == 'R' { 'B' } else { 'R' };
                self.seat0 = Some(if self.to_move == 0 { colour } else { other });
            }
            if flag_taken || self.quiet >= 60 {
                self.over = true; // J15, J17
                return;
            }
            if let (Some(a), Some(b)) = (self.colour_of(0), self.colour_of(1))
                && (!self.has_movable(a) || !self.has_movable(b))
            {
                self.over = true; // J16
                return;
            }
            if self.actions().is_empty() {
                self.over = true; // J16: no legal action on one's turn
            }
        }
    }
}

fn reference_position(line: &Line) -> reference::Position {
    let mut position = reference::Position {
        cells: reference::cells_of(&line.diagram),
        to_move: line.to_move,
        seat0: line.seat0_colour,
        last_flips: line.last_flips,
        quiet: u32::from(line.quiet),
        over: false,
    };
    // J8 [decided] applies to the starting position as well.
    if position.seat0.is_none()
        && !line
            .diagram
            .split_whitespace()
            .any(|t| t.starts_with(['r', 'b']))
        && let Some(colour) = position.last_flips[position.to_move]
    {
        let other = if colour == 'R' { 'B' } else { 'R' };
        position.seat0 = Some(if position.to_move == 0 { colour } else { other });
    }
    position
}

/// J2-J16: the engine lists exactly the reference's actions, by name, in every position of
/// the file and after every first action from it.
#[test]
fn engine_and_reference_list_the_same_actions() {
    check_same_actions(&cases(), engine_position, reference_position, |_, a| {
        reference::action_name(a)
    });
}

/// J2-J17: engine and reference give the file's counts at depths 1, 2 and 3.
#[test]
fn counts_match_the_data_file() {
    check_engine_and_reference(&cases(), 1..=3, engine_position, reference_position);
}

/// Prints the data lines as the engine computes them (run with `--ignored --nocapture` to
/// regenerate the file after a deliberate rule change; then check the reference agrees).
#[test]
#[ignore]
fn print_engine_counts() {
    print_engine_lines(&cases(), engine_position);
}
