//! Position IDs and Match IDs against rows GNU Backgammon's own engine wrote
//! (`fixtures/gnubg_ids.txt`, made by `fixtures/gen_gnubg_ids.py`; its header documents the
//! format). Every row is checked both ways:
//! - encode: the state built with this crate (position, cube, then the row's actions applied
//!   through the game) prints exactly gnubg's two ids;
//! - decode: gnubg's Match ID reads back to the same fields, and the id pair imports
//!   ([`Backgammon::from_gnubg_ids`]) to the same game, or for a finished game is refused
//!   with B13.

use std::collections::HashMap;

use ludus_backgammon::board::Board;
use ludus_backgammon::gnubg::{MatchKey, id_phase};
use ludus_backgammon::{Backgammon, BackgammonOptions, MatchGame, Phase};
use ludus_rules::{Game, ScriptedRandom};

const FIXTURE: &str = include_str!("fixtures/gnubg_ids.txt");

struct Row<'a> {
    line: usize,
    position_id: &'a str,
    match_id: &'a str,
    fields: HashMap<&'a str, &'a str>,
    text: &'a str,
}

fn rows() -> Vec<Row<'static>> {
    FIXTURE
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let mut cols = l.split('\t');
            let position_id = cols.next().expect("position id column");
            let match_id = cols.next().expect("match id column");
            let text = cols.next().expect("state column");
            let fields = text
                .split(' ')
                .map(|kv| kv.split_once('=').expect("key=value"))
                .collect();
            Row {
                line: i + 1,
                position_id,
                match_id,
                fields,
                text,
            }
        })
        .collect()
}

fn board(text: &str) -> Board {
    let mut counts = [[0u8; 25]; 2];
    for (side, list) in text.split('/').enumerate() {
        if list == "-" {
            continue;
        }
        for item in list.split(',') {
            let (point, n) = item.split_once(':').expect("point:count");
            let point: usize = point.parse().expect("point");
            counts[side][point - 1] = n.parse().expect("count");
        }
    }
    Board::new(counts).expect("fixture board")
}

fn options(row: &Row) -> BackgammonOptions {
    let f = &row.fields;
    let yes = |k: &str| f.get(k) == Some(&"yes");
    let play = f["play"];
    if let Some(length) = play.strip_prefix("match") {
        let (a, b) = f["score"].split_once('-').expect("score A-B");
        BackgammonOptions {
            match_game: Some(MatchGame {
                length: length.parse().expect("length"),
                score: [a.parse().expect("score"), b.parse().expect("score")],
                crawford: yes("crawford"),
            }),
            ..BackgammonOptions::default()
        }
    } else {
        let auto: u8 = f.get("auto").map_or(0, |n| n.parse().expect("auto"));
        BackgammonOptions {
            jacoby: yes("jacoby"),
            beavers: yes("beavers"),
            automatic_doubles: auto > 0,
            automatic_double_limit: auto.max(1),
            match_game: None,
        }
    }
}

/// The row's state, built through the crate: the position, the cube, then its actions.
fn build(row: &Row) -> Backgammon {
    let f = &row.fields;
    let dice = f.get("dice").map(|d| {
        let b = d.as_bytes();
        [b[0] - b'0', b[1] - b'0']
    });
    let on_roll = f["roll"].parse().expect("roll");
    let cube: u64 = f["cube"].parse().expect("cube");
    let owner = match f["owner"] {
        "-" => None,
        s => Some(s.parse().expect("owner")),
    };
    let mut game = Backgammon::from_position(options(row), board(f["board"]), on_roll, dice)
        .and_then(|g| g.with_cube(cube.trailing_zeros() as u8, owner))
        .unwrap_or_else(|e| panic!("line {}: setup refused: {e:?}", row.line));
    let mut rng = ScriptedRandom::new(Vec::new());
    for text in f.get("then").map_or(Vec::new(), |t| t.split(';').collect()) {
        let text = text.replace('_', " ");
        let seat = game.to_move().expect("someone to act");
        let action = game
            .parse_action(&text)
            .unwrap_or_else(|e| panic!("line {}: {text}: {e}", row.line));
        game = game
            .apply(seat, &action, &mut rng)
            .unwrap_or_else(|(_, e)| panic!("line {}: {text} refused: {e}", row.line));
    }
    game
}

fn check(row: &Row) -> Result<(), String> {
    let game = build(row);
    // Encode.
    let (pid, mid) = (game.position_id(), game.match_id());
    if (pid.as_str(), mid.as_str()) != (row.position_id, row.match_id) {
        return Err(format!(
            "encode gives {pid} {mid}, gnubg {} {}",
            row.position_id, row.match_id
        ));
    }
    // Decode: the Match ID's fields, and the id pair as a game.
    let key = MatchKey::decode(row.match_id).map_err(|e| format!("decode: {e}"))?;
    if key != game.match_key() {
        return Err(format!(
            "decode gives {key:?}, the game {:?}",
            game.match_key()
        ));
    }
    let imported = Backgammon::from_gnubg_ids(row.position_id, row.match_id, options(row));
    if game.outcome().is_some() {
        return match imported {
            Err(e) if e.rule == "B13" => Ok(()),
            other => Err(format!(
                "a finished game's ids import as {:?}",
                other.map(|g| g.phase())
            )),
        };
    }
    let imported = imported.map_err(|e| format!("import refused: {e}"))?;
    let same = imported.board() == game.board()
        && imported.turn() == game.turn()
        && imported.phase() == id_phase(game.phase())
        && imported.cube_value() == game.cube_value()
        && imported.cube_owner() == game.cube_owner()
        && imported.options() == game.options()
        && imported.automatic_doubles() == game.automatic_doubles()
        && imported.to_move() == game.to_move()
        && imported.position_id() == row.position_id
        && imported.match_id() == row.match_id;
    if !same {
        return Err(format!(
            "import gives phase {:?} cube {} {:?} turn {}, the game phase {:?} cube {} {:?} turn {}",
            imported.phase(),
            imported.cube_value(),
            imported.cube_owner(),
            imported.turn(),
            game.phase(),
            game.cube_value(),
            game.cube_owner(),
            game.turn()
        ));
    }
    Ok(())
}

#[test]
fn every_fixture_row_equals_gnubg_both_ways() {
    let rows = rows();
    assert!(rows.len() >= 300, "the fixture has {} rows", rows.len());
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            check(r)
                .err()
                .map(|e| format!("line {}: {e}\n    {}", r.line, r.text))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} rows differ from gnubg:\n{}",
        failures.len(),
        rows.len(),
        failures
            .iter()
            .take(15)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The fixture covers every case the gnubg comparison covers; a regenerated file must keep covering it.
#[test]
fn fixture_covers_every_state_kind() {
    let rows = rows();
    let covers = |tag: &str| {
        rows.iter()
            .filter(|r| {
                r.fields
                    .get("covers")
                    .is_some_and(|c| c.split(',').any(|t| t == tag))
            })
            .count()
    };
    for tag in [
        "money",
        "match1",
        "match3",
        "match5",
        "match7",
        "match11",
        "match15",
        "match21",
        "crawford",
        "post-crawford",
        "double-offered",
        "beaver-pending",
        "cube-owned",
        "low-die-first",
        "resign-1",
        "resign-2",
        "resign-3",
        "resign-1-after-roll",
        "dropped",
        "beaver-dropped",
        "resign-2-accepted",
        "borne-off-gammon",
        "borne-off-backgammon",
    ] {
        assert!(covers(tag) > 0, "no fixture row covers {tag}");
    }
    for seat in ["0", "1"] {
        assert!(rows.iter().any(|r| r.fields["roll"] == seat));
    }
}

/// The fields of a live money game at the start with seat 0 on roll before rolling; each
/// refusal case below changes what makes it unreachable.
fn live_key() -> MatchKey {
    MatchKey {
        cube_log: 0,
        cube_owner: None,
        on_roll: 0,
        crawford: false,
        state: ludus_backgammon::gnubg::GnubgGameState::Playing,
        turn: 0,
        doubled: false,
        resign: 0,
        dice: [0, 0],
        match_length: 0,
        score: [0, 0],
        jacoby: false,
    }
}

fn import_error(position_id: &str, key: MatchKey, options: BackgammonOptions) -> (String, String) {
    match Backgammon::from_gnubg_ids(position_id, &key.encode(), options) {
        Ok(g) => panic!("{key:?} imported as {:?}", g.phase()),
        Err(e) => (e.rule.to_string(), e.message),
    }
}

#[test]
fn import_refuses_ids_no_legal_game_reaches() {
    use ludus_backgammon::gnubg::GnubgGameState;
    const START: &str = "4HPwATDgc/ABMA";
    let money = BackgammonOptions::default;
    let in_match = |length: u16, score: [u16; 2], crawford: bool| MatchKey {
        match_length: length,
        score,
        crawford,
        ..live_key()
    };
    // (case, position id, key, options, rule, words the message must contain)
    let cases: Vec<(&str, &str, MatchKey, BackgammonOptions, &str, &str)> = vec![
        (
            "no game",
            START,
            MatchKey {
                state: GnubgGameState::NoGame,
                ..live_key()
            },
            money(),
            "B4",
            "no game in progress",
        ),
        (
            "finished",
            START,
            MatchKey {
                state: GnubgGameState::Dropped,
                ..live_key()
            },
            money(),
            "B13",
            "finished game",
        ),
        // Seat 1 (not on roll, listed first) has borne off all 15: the game is over.
        (
            "borne off",
            "AAAAAAD4/wAAAA",
            live_key(),
            money(),
            "B13",
            "borne off all 15",
        ),
        (
            "money score",
            START,
            MatchKey {
                score: [3, 1],
                ..live_key()
            },
            money(),
            "B22",
            "no score",
        ),
        (
            "money crawford",
            START,
            MatchKey {
                crawford: true,
                ..live_key()
            },
            money(),
            "B22",
            "no crawford game",
        ),
        (
            "length",
            START,
            in_match(9, [0, 0], false),
            money(),
            "B22",
            "not 9",
        ),
        (
            "won",
            START,
            in_match(5, [5, 2], false),
            money(),
            "B22",
            "already won",
        ),
        (
            "crawford too early",
            START,
            in_match(5, [2, 1], true),
            money(),
            "B22",
            "exactly one player",
        ),
        (
            "crawford both away",
            START,
            in_match(5, [4, 4], true),
            money(),
            "B22",
            "exactly one player",
        ),
        (
            "crawford cube",
            START,
            MatchKey {
                cube_log: 1,
                cube_owner: Some(1),
                ..in_match(5, [4, 1], true)
            },
            money(),
            "B22",
            "crawford game",
        ),
        (
            "double and resign",
            START,
            MatchKey {
                doubled: true,
                resign: 1,
                turn: 1,
                ..live_key()
            },
            money(),
            "B21",
            "at once",
        ),
        (
            "beaver not played",
            START,
            MatchKey {
                doubled: true,
                cube_log: 1,
                cube_owner: Some(1),
                ..live_key()
            },
            money(),
            "B18",
            "beavers are not played",
        ),
        (
            "beaver cube",
            START,
            MatchKey {
                doubled: true,
                cube_log: 1,
                cube_owner: Some(0),
                ..live_key()
            },
            BackgammonOptions {
                beavers: true,
                ..money()
            },
            "B18",
            "owned by the beaverer",
        ),
        (
            "owned 1-cube",
            START,
            MatchKey {
                cube_owner: Some(1),
                ..live_key()
            },
            money(),
            "B15",
            "at least 2",
        ),
        (
            "centred 4-cube",
            START,
            MatchKey {
                cube_log: 2,
                ..live_key()
            },
            money(),
            "B17",
            "automatic doubles",
        ),
        (
            "centred 4-cube over the limit",
            START,
            MatchKey {
                cube_log: 2,
                ..live_key()
            },
            BackgammonOptions {
                automatic_doubles: true,
                ..money()
            },
            "B17",
            "automatic doubles",
        ),
        (
            "double after rolling",
            START,
            MatchKey {
                doubled: true,
                turn: 1,
                dice: [3, 1],
                ..live_key()
            },
            money(),
            "B14",
            "before rolling",
        ),
        (
            "double without the cube",
            START,
            MatchKey {
                doubled: true,
                turn: 1,
                cube_log: 1,
                cube_owner: Some(1),
                ..live_key()
            },
            money(),
            "B14",
            "only the cube owner",
        ),
        (
            "resign answered by the resigner",
            START,
            MatchKey {
                resign: 2,
                ..live_key()
            },
            money(),
            "B21",
            "answers",
        ),
        (
            "turn with nothing on offer",
            START,
            MatchKey {
                turn: 1,
                dice: [6, 5],
                ..live_key()
            },
            money(),
            "B4",
            "nothing is on offer",
        ),
    ];
    for (case, pid, key, options, rule, words) in cases {
        let (got_rule, message) = import_error(pid, key, options);
        assert_eq!(got_rule, rule, "{case}: {message}");
        assert!(
            message.contains(words),
            "{case}: {message:?} lacks {words:?}"
        );
    }
    // Malformed ids.
    let bad = |pid: &str, mid: &str| Backgammon::from_gnubg_ids(pid, mid, money()).unwrap_err();
    assert_eq!(bad(START, "cAmrAAAAAAA").rule, "N2");
    assert_eq!(bad(START, "cAmr!AAAAAAE").rule, "N2");
    assert_eq!(bad("4HPwATDgc/AB", "cAmrAAAAAAAE").rule, "N2");
    // 16 checkers for one side.
    assert_eq!(bad("4HPwATDgc/ADMA", "cAmrAAAAAAAE").rule, "N2");
}

/// What is legal imports: a beaver pending from a centred cube and from the doubler's cube,
/// automatic doubles within the limit, post-Crawford doubling, an old match id without bit
/// 66 (the Jacoby rule never applies in matches: B22).
#[test]
fn import_accepts_every_reachable_offer() {
    let beavers = BackgammonOptions {
        beavers: true,
        ..BackgammonOptions::default()
    };
    let beaver = MatchKey {
        doubled: true,
        cube_log: 1,
        cube_owner: Some(1),
        ..live_key()
    };
    let g =
        Backgammon::from_gnubg_ids("4HPwATDgc/ABMA", &beaver.encode(), beavers.clone()).unwrap();
    assert_eq!(
        g.phase(),
        Phase::Doubled {
            decider: 0,
            beavered: true
        }
    );
    assert_eq!((g.cube_value(), g.cube_owner()), (1, None));
    let redouble_beaver = MatchKey {
        cube_log: 3,
        ..beaver
    };
    let g =
        Backgammon::from_gnubg_ids("4HPwATDgc/ABMA", &redouble_beaver.encode(), beavers).unwrap();
    assert_eq!((g.cube_value(), g.cube_owner()), (4, Some(0)));
    assert_eq!(g.match_key(), redouble_beaver);
    let auto = BackgammonOptions {
        automatic_doubles: true,
        automatic_double_limit: 2,
        ..BackgammonOptions::default()
    };
    let centred = MatchKey {
        cube_log: 2,
        ..live_key()
    };
    let g = Backgammon::from_gnubg_ids("4HPwATDgc/ABMA", &centred.encode(), auto).unwrap();
    assert_eq!((g.cube_value(), g.automatic_doubles()), (4, 2));
    let post_crawford = MatchKey {
        doubled: true,
        turn: 1,
        match_length: 5,
        score: [2, 4],
        ..live_key()
    };
    let g = Backgammon::from_gnubg_ids(
        "4HPwATDgc/ABMA",
        &post_crawford.encode(),
        BackgammonOptions::default(),
    )
    .unwrap();
    assert_eq!(
        g.phase(),
        Phase::Doubled {
            decider: 1,
            beavered: false
        }
    );
    // The manual's example predates bit 66: still a 9-point match, refused only for its
    // length; the same at 5 points imports and re-encodes with the bit set.
    let old = MatchKey {
        match_length: 5,
        score: [2, 4],
        jacoby: true,
        ..MatchKey::decode("QYkqASAAIAAA").unwrap()
    };
    let g = Backgammon::from_gnubg_ids(
        "4HPwATDgc/ABMA",
        &old.encode(),
        BackgammonOptions::default(),
    )
    .unwrap();
    assert_eq!(
        g.match_key(),
        MatchKey {
            jacoby: false,
            ..old
        }
    );
}

/// The three differences the gnubg comparison found, with the ids gnubg 1.1.0a16 gave for them.
#[test]
fn the_three_gnubg_differences() {
    let mut rng = ScriptedRandom::new(Vec::new());
    let match5 = BackgammonOptions {
        match_game: Some(MatchGame {
            length: 5,
            score: [0, 0],
            crawford: false,
        }),
        ..BackgammonOptions::default()
    };
    // Bit 66: no Jacoby in a match; white has rolled 6-2 (or 2-6) at 0-0 of a 5-point match.
    for dice in [[6, 2], [2, 6]] {
        let g = Backgammon::from_position(match5.clone(), Board::START, 0, Some(dice)).unwrap();
        assert_eq!(g.match_id(), "MAGrAAAAAAAE");
    }
    // Dice order: rolled 2 then 6 in money play, without and with Jacoby (B19).
    let g = Backgammon::from_position(BackgammonOptions::default(), Board::START, 0, Some([2, 6]))
        .unwrap();
    assert_eq!(g.match_id(), "MAELAAAAAAAE");
    let jacoby = BackgammonOptions {
        jacoby: true,
        ..BackgammonOptions::default()
    };
    let g = Backgammon::from_position(jacoby, Board::START, 0, Some([2, 6])).unwrap();
    assert_eq!(g.match_id(), "MAELAAAAAAAA");
    // A beaver awaiting its answer (B18): white doubles at the start, black beavers.
    let beavers = BackgammonOptions {
        beavers: true,
        ..BackgammonOptions::default()
    };
    let g = Backgammon::from_position(beavers, Board::START, 0, None).unwrap();
    let g = g
        .apply(0, &ludus_backgammon::Action::Double, &mut rng)
        .unwrap();
    assert_eq!(g.match_id(), "MBkAAAAAAAAE");
    let g = g
        .apply(1, &ludus_backgammon::Action::Beaver, &mut rng)
        .unwrap();
    assert_eq!(g.match_id(), "EREAAAAAAAAE");
    // The game itself still holds the cube at 1 until the doubler answers (B18).
    assert_eq!((g.cube_value(), g.cube_owner()), (1, None));
    let g = g
        .apply(0, &ludus_backgammon::Action::Take, &mut rng)
        .unwrap();
    assert_eq!(g.match_id(), "EgEAAAAAAAAE");
}
