//! The arena: plays one computer level against another over many games and reports the
//! result with a 95 % confidence interval and the time each side thought per move.
//!
//! Seats rotate so that each side moves first equally often: in game `i` side A sits in seat
//! `i % seats` and side B takes every other seat (a free-for-all of one A against several Bs
//! when `seats > 2`). Every action a bot returns is checked by the rules; an illegal one
//! loses that game for its side and is counted, so a bug cannot pass as strength.
//!
//! With `opening_turns`, each game starts from a random opening: that many turns of uniformly
//! random legal actions, the same opening (and the same dice) for each group of `seats`
//! consecutive games, so every side plays every opening from every seat. This is how levels
//! are compared in a game whose start decides it (Congklak: the first turn's relay sowing
//! and extra turns win the game, K2-K3): from the start every pairing scores 50 %, from
//! random openings played from both sides the score measures the play. And since most random
//! Congklak openings are already won by the side to move (its first turn chains relays into
//! more than half the seeds), `balanced` keeps only openings a judge (a deep search) values
//! near even, drawing more random openings until one is: the usual way engines are compared
//! when the start decides the game.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ludus_rules::{Bot, Budget, Game, GameResult, Level, RandomSource, SplitMix64};

/// What to play.
#[derive(Clone, Debug)]
pub struct MatchSpec<G: Game> {
    pub options: G::Options,
    pub seats: usize,
    pub a: Level,
    pub b: Level,
    pub games: u32,
    pub seed: u64,
    /// Each move's wall-clock allowance, on top of the level's work budget.
    pub move_time: Option<Duration>,
    /// A game still running after this many actions is stopped and counted as unfinished.
    pub max_plies: u32,
    /// Turns of random legal actions before the levels play (0: from the start). A turn ends
    /// when the seat to move changes (an extra turn, K3 or B-style, stays in the turn).
    pub opening_turns: u32,
    /// With openings: keep only those its judge values near even for the seat to move (a
    /// deep search's final margin, say), drawing the next random opening otherwise. In a game whose first turns can decide it (Congklak, K2-K3) a random opening
    /// is usually already won by the side to move whoever plays it, and such a pair of games
    /// measures the opening, not the levels.
    pub balanced: Option<Balance<G>>,
}

/// Which openings count as undecided: `judge` values a position for the seat to move, and an
/// opening is kept when that value is within `within` of 0.
#[derive(Debug)]
pub struct Balance<G> {
    pub judge: fn(&G) -> Option<i32>,
    pub within: i32,
    /// Random openings tried per opening kept before giving up on that deal (its games are
    /// then unfinished).
    pub tries: u32,
}

// By hand: a derive would ask `G: Clone` of a struct that holds only a function of `&G`.
impl<G> Clone for Balance<G> {
    fn clone(&self) -> Self {
        Balance {
            judge: self.judge,
            within: self.within,
            tries: self.tries,
        }
    }
}

/// How one side did and how long it thought.
#[derive(Clone, Debug, Default)]
pub struct Side {
    pub think: Vec<Duration>,
    pub illegal: u32,
}

impl Side {
    /// The median, 90th percentile and longest think time.
    pub fn think_summary(&self) -> (Duration, Duration, Duration) {
        let mut t = self.think.clone();
        t.sort();
        let at = |q: f64| {
            t.get(((t.len().saturating_sub(1)) as f64 * q).round() as usize)
                .copied()
                .unwrap_or_default()
        };
        (at(0.5), at(0.9), t.last().copied().unwrap_or_default())
    }
}

/// The result of a match, from side A's point of view.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Games the rules cancelled (no result) or that hit `max_plies`.
    pub unfinished: u32,
    /// A's score per finished game: 1 win, ½ draw, 0 loss.
    pub scores: Vec<f64>,
    /// Every game's score in the order played (`None`: unfinished), so the games of one
    /// opening can be read together.
    pub games: Vec<Option<f64>>,
    /// Games per opening (`seats` when openings are played, else 0).
    pub per_opening: usize,
    /// With balanced openings: the openings kept, and the random openings judged to find
    /// them (how many a judge turns away says how often the start is already decided).
    pub balanced: Option<(u32, u32)>,
    pub a: Side,
    pub b: Side,
}

impl Tally {
    /// A's mean score and the half-width of its 95 % confidence interval (normal
    /// approximation over the per-game scores).
    pub fn score(&self) -> (f64, f64) {
        let n = self.scores.len() as f64;
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let mean = self.scores.iter().sum::<f64>() / n;
        if n < 2.0 {
            return (mean, 1.0);
        }
        let var = self.scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, 1.96 * (var / n).sqrt())
    }
}

/// How side A did over the games of each opening (two-seat games): openings it won from both
/// seats, openings split one-one (the opening decided the game, whoever played it), openings
/// B won from both seats, and the rest (a draw or an unfinished game among them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Openings {
    pub a_both: u32,
    pub split: u32,
    pub b_both: u32,
    pub other: u32,
}

impl Tally {
    /// The games read by opening; `None` without openings or with other than two seats.
    pub fn openings(&self) -> Option<Openings> {
        if self.per_opening != 2 {
            return None;
        }
        let mut o = Openings::default();
        for pair in self.games.chunks(2) {
            match pair {
                [Some(x), Some(y)] if *x == 1.0 && *y == 1.0 => o.a_both += 1,
                [Some(x), Some(y)] if *x == 0.0 && *y == 0.0 => o.b_both += 1,
                [Some(x), Some(y)] if *x + *y == 1.0 && (*x == 1.0 || *y == 1.0) => o.split += 1,
                _ => o.other += 1,
            }
        }
        Some(o)
    }
}

/// Plays the match. Deterministic for a given spec when `move_time` is `None`.
pub fn play_match<G: Bot>(spec: &MatchSpec<G>) -> Tally {
    let mut tally = Tally {
        per_opening: if spec.opening_turns > 0 {
            spec.seats
        } else {
            0
        },
        ..Tally::default()
    };
    // With balanced openings: per deal, the try whose opening was kept (judged once for the
    // deal's games, replayed from its seed for the others).
    let mut kept: HashMap<u32, Option<u32>> = HashMap::new();
    let mut judged = 0;
    for i in 0..spec.games {
        let a_seat = i as usize % spec.seats.max(1);
        // With openings, the games of one group share the opening and the dice: the same
        // positions, each side in every seat.
        let deal = if spec.opening_turns > 0 {
            i / u32::try_from(spec.seats.max(1)).unwrap_or(1)
        } else {
            i
        };
        let mut dice = SplitMix64(spec.seed ^ (u64::from(deal) << 32) ^ 0xD1CE);
        let mut minds = SplitMix64(spec.seed ^ (u64::from(i) << 32) ^ 0xB07);
        let Ok(game) = G::setup(spec.options.clone(), spec.seats, &mut dice) else {
            tally.games.push(None);
            tally.unfinished += 1;
            continue;
        };
        let Some(mut game) = opening(spec, game, deal, &mut dice, &mut kept, &mut judged) else {
            tally.games.push(None);
            tally.unfinished += 1;
            continue;
        };
        let mut forfeit: Option<bool> = None; // Some(true): A broke a rule.
        while game.outcome().is_none() && game.ply() < spec.max_plies {
            let Some(seat) = game.to_move() else { break };
            let is_a = seat == a_seat;
            let level = if is_a { spec.a } else { spec.b };
            let started = Instant::now();
            let deadline = spec.move_time.map(|t| started + t);
            let stop = move || deadline.is_some_and(|d| Instant::now() >= d);
            let budget = Budget {
                work: G::default_work(level),
                out_of_time: &stop,
            };
            let choice = game.choose(seat, level, &budget, &mut minds);
            let side = if is_a { &mut tally.a } else { &mut tally.b };
            side.think.push(started.elapsed());
            let Some(action) = choice else {
                side.illegal += 1;
                forfeit = Some(is_a);
                break;
            };
            match game.apply(seat, &action, &mut dice) {
                Ok(next) => game = next,
                Err((unchanged, _)) => {
                    game = unchanged;
                    side.illegal += 1;
                    forfeit = Some(is_a);
                    break;
                }
            }
        }
        let score = match (forfeit, game.outcome().map(|o| &o.result)) {
            (Some(a_broke), _) => Some(if a_broke { 0.0 } else { 1.0 }),
            (None, Some(GameResult::Win { winners })) => {
                Some(if winners.contains(&a_seat) { 1.0 } else { 0.0 })
            }
            (None, Some(GameResult::Draw)) => Some(0.5),
            (None, Some(GameResult::Cancelled)) | (None, None) => None,
        };
        match score {
            Some(s) => {
                tally.games.push(Some(s));
                if s > 0.75 {
                    tally.wins += 1;
                } else if s < 0.25 {
                    tally.losses += 1;
                } else {
                    tally.draws += 1;
                }
                tally.scores.push(s);
            }
            None => {
                tally.games.push(None);
                tally.unfinished += 1;
            }
        }
    }
    if spec.balanced.is_some() && spec.opening_turns > 0 {
        let found = kept.values().filter(|t| t.is_some()).count();
        tally.balanced = Some((u32::try_from(found).unwrap_or(u32::MAX), judged));
    }
    tally
}

/// The opening of deal `deal`: its random opening, or with [`MatchSpec::balanced`] the first
/// of its tries the judge keeps (`None` when none is). The dice go on from the opening
/// played, so every game of the deal sees the same rolls.
fn opening<G: Game>(
    spec: &MatchSpec<G>,
    start: G,
    deal: u32,
    dice: &mut SplitMix64,
    kept: &mut HashMap<u32, Option<u32>>,
    judged: &mut u32,
) -> Option<G> {
    // Try 0 is the opening a match without balance plays.
    let opener =
        |t: u32| SplitMix64(spec.seed ^ (u64::from(deal) << 32) ^ 0x0BE7 ^ (u64::from(t) << 16));
    let Some(balance) = spec.balanced.as_ref().filter(|_| spec.opening_turns > 0) else {
        return Some(random_opening(
            start,
            spec.opening_turns,
            &mut opener(0),
            dice,
        ));
    };
    let dice_before = dice.clone();
    let chosen = *kept.entry(deal).or_insert_with(|| {
        (0..balance.tries).find(|&t| {
            *judged += 1;
            let mut d = dice_before.clone();
            let g = random_opening(start.clone(), spec.opening_turns, &mut opener(t), &mut d);
            g.outcome().is_none() && (balance.judge)(&g).is_some_and(|v| v.abs() <= balance.within)
        })
    });
    let t = chosen?;
    Some(random_opening(
        start,
        spec.opening_turns,
        &mut opener(t),
        dice,
    ))
}

/// Plays `turns` turns of uniformly random legal actions from `game` (a turn ends when the
/// seat to move changes). Stops early at the game's end.
pub fn random_opening<G: Game>(
    mut game: G,
    turns: u32,
    choices: &mut SplitMix64,
    dice: &mut SplitMix64,
) -> G {
    let mut played = 0;
    while played < turns && game.outcome().is_none() {
        let Some(seat) = game.to_move() else { break };
        let actions = game.legal_actions(seat);
        let Ok(count) = u32::try_from(actions.len()) else {
            break;
        };
        if count == 0 {
            break;
        }
        let pick = &actions[choices.below(count) as usize];
        game = match game.apply(seat, pick, dice) {
            Ok(next) => next,
            // A legal action the rules refuse: the opening stops where it is.
            Err((unchanged, _)) => return unchanged,
        };
        if game.to_move() != Some(seat) {
            played += 1;
        }
    }
    game
}

/// The report the `arena` binary prints: one line of result, one per side of think times.
pub fn report(game: &str, a: Level, b: Level, tally: &Tally) -> String {
    let (mean, half) = tally.score();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let side = |name: &str, level: Level, s: &Side| {
        let (p50, p90, max) = s.think_summary();
        format!(
            "  {name} {level:<6} think per move: median {:.1} ms, p90 {:.1} ms, max {:.1} ms over {} moves; illegal {}\n",
            ms(p50),
            ms(p90),
            ms(max),
            s.think.len(),
            s.illegal
        )
    };
    let mut openings = tally.openings().map_or(String::new(), |o| {
        format!(
            "  openings, each played from both seats: {a} won both {}, split one-one {}, {b} won both {}, other {}\n",
            o.a_both, o.split, o.b_both, o.other
        )
    });
    if let Some((kept, judged)) = tally.balanced {
        openings.push_str(&format!(
            "  balanced openings: {kept} kept of {judged} random openings judged\n"
        ));
    }
    format!(
        "{game}: {a} vs {b}: {w} won, {d} drawn, {l} lost, {u} unfinished; {a} scores {:.1} % ± {:.1} % (95 %)\n{openings}{}{}",
        mean * 100.0,
        half * 100.0,
        side("A", a, &tally.a),
        side("B", b, &tally.b),
        w = tally.wins,
        d = tally.draws,
        l = tally.losses,
        u = tally.unfinished,
    )
}

#[cfg(test)]
mod tests {
    //! The arena on a game small enough to know the answer: Nim with one heap, take 1-3,
    //! whoever takes the last stone wins. Hard plays perfectly (leave a multiple of 4), Easy
    //! takes one stone, and a broken level returns an illegal take.
    use super::*;
    use ludus_rules::{Outcome, RuleViolation, Seat, SetupError, Think, Viewer};
    use serde::{Deserialize, Serialize};

    #[derive(Clone, Debug, Serialize, Deserialize)]
    struct Nim {
        heap: u32,
        turn: Seat,
        plies: u32,
        outcome: Option<Outcome>,
    }

    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct NimOptions {
        heap: u32,
    }

    #[derive(Debug)]
    struct TooMany;
    impl std::fmt::Display for TooMany {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("N1: take one to three stones")
        }
    }
    impl std::error::Error for TooMany {}
    impl RuleViolation for TooMany {
        fn rule(&self) -> &'static str {
            "N1"
        }
    }

    impl Game for Nim {
        type Options = NimOptions;
        type Action = u32;
        type View = u32;
        type Error = TooMany;
        fn setup(o: NimOptions, _: usize, _: &mut dyn RandomSource) -> Result<Self, SetupError> {
            Ok(Nim {
                heap: o.heap,
                turn: 0,
                plies: 0,
                outcome: None,
            })
        }
        fn parse_action(&self, text: &str) -> Result<u32, TooMany> {
            text.parse().map_err(|_| TooMany)
        }
        fn seats(&self) -> usize {
            2
        }
        fn to_move(&self) -> Option<Seat> {
            self.outcome.is_none().then_some(self.turn)
        }
        fn legal_actions(&self, _: Seat) -> Vec<u32> {
            (1..=3.min(self.heap)).collect()
        }
        fn apply(
            mut self,
            seat: Seat,
            take: &u32,
            _: &mut dyn RandomSource,
        ) -> Result<Self, (Self, TooMany)> {
            if !(1..=3.min(self.heap)).contains(take) {
                return Err((self, TooMany));
            }
            self.heap -= take;
            self.plies += 1;
            if self.heap == 0 {
                self.outcome = Some(Outcome::win(2, &[seat], "N2", "took the last stone"));
            }
            self.turn = 1 - seat;
            Ok(self)
        }
        fn timeout(self, _: Seat, _: &mut dyn RandomSource) -> Self {
            self
        }
        fn resign(self, _: Seat) -> Self {
            self
        }
        fn agree_draw(self) -> Result<Self, (Self, TooMany)> {
            Err((self, TooMany))
        }
        fn outcome(&self) -> Option<&Outcome> {
            self.outcome.as_ref()
        }
        fn view(&self, _: Viewer) -> u32 {
            self.heap
        }
        fn ply(&self) -> u32 {
            self.plies
        }
    }

    impl Bot for Nim {
        fn decide(&self, _: Seat, think: Think<'_>) -> Option<u32> {
            Some(match think.level {
                Level::Easy => 1,
                Level::Normal => 4, // never legal: the arena must catch it
                Level::Hard => match self.heap % 4 {
                    0 => 1,
                    r => r,
                },
            })
        }
        fn default_work(_: Level) -> u64 {
            1
        }
    }

    fn spec(a: Level, b: Level, heap: u32) -> MatchSpec<Nim> {
        MatchSpec {
            options: NimOptions { heap },
            seats: 2,
            a,
            b,
            games: 10,
            seed: 7,
            move_time: None,
            max_plies: 100,
            opening_turns: 0,
            balanced: None,
        }
    }

    #[test]
    fn an_opening_is_played_once_per_pair_and_each_side_plays_it_from_both_seats() {
        // Hard against Hard from random openings of Nim: perfect play on both sides, so each
        // game's result is the position's (seat 0 to move wins unless the heap is a multiple
        // of 4). Both games of a pair start from the same heap with the sides swapped, so side
        // A wins exactly one of them, whatever the opening.
        let mut s = spec(Level::Hard, Level::Hard, 21);
        s.games = 20;
        s.opening_turns = 2;
        let tally = play_match(&s);
        assert_eq!(tally.scores.len(), 20);
        for (pair, scores) in tally.scores.chunks(2).enumerate() {
            assert_eq!(scores.iter().sum::<f64>(), 1.0, "pair {pair}: {scores:?}");
        }
        assert_eq!(tally.score().0, 0.5);
        assert_eq!(
            tally.openings(),
            Some(Openings {
                a_both: 0,
                split: 10,
                b_both: 0,
                other: 0
            })
        );
        assert!(report("nim", Level::Hard, Level::Hard, &tally).contains("split one-one 10"));
        // The opening itself: two turns of one random take each (1-3 stones).
        let setup = |d: &mut SplitMix64| Nim::setup(NimOptions { heap: 21 }, 2, d).expect("setup");
        let mut dice = SplitMix64(1);
        let opened = random_opening(setup(&mut dice), 2, &mut SplitMix64(3), &mut dice);
        assert_eq!(opened.plies, 2);
        assert!((15..=19).contains(&opened.heap), "{opened:?}");
    }

    /// How many positions [`sixteen_is_even`] judged.
    static JUDGED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

    /// A judge that calls only a heap of 16 even (it is lost for the side to move, but the
    /// point here is which openings are kept).
    fn sixteen_is_even(nim: &Nim) -> Option<i32> {
        JUDGED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(if nim.heap == 16 { 0 } else { 5 })
    }

    #[test]
    fn balanced_openings_keep_only_what_the_judge_calls_even_judged_once_per_pair() {
        // Two random turns from 21 leave 15-19 stones. Keeping only 16: perfect play from 16
        // is eight takes (1, 3, 1, 3, … by the seat to move, then its opponent), where 15,
        // 17, 18 and 19 take 7, 9, 9 and 9, so the count of moves shows every game began at
        // 16. The judge runs for each try of a deal, never again for the deal's second game.
        let mut s = spec(Level::Hard, Level::Hard, 21);
        s.games = 12;
        s.opening_turns = 2;
        s.balanced = Some(Balance {
            judge: sixteen_is_even,
            within: 0,
            tries: 200,
        });
        let tally = play_match(&s);
        assert_eq!(tally.unfinished, 0);
        assert_eq!(tally.a.think.len() + tally.b.think.len(), 12 * 8);
        // From 16 the seat to move (seat 0) loses: A wins exactly the game it plays second.
        assert_eq!(tally.openings().map(|o| o.split), Some(6));
        let judged = JUDGED.load(std::sync::atomic::Ordering::Relaxed);
        // Each of 6 deals needs at least one try; 16 comes about one try in five.
        assert!((6..=200).contains(&judged), "{judged}");
        assert_eq!(tally.balanced, Some((6, judged)));
        assert!(
            report("nim", Level::Hard, Level::Hard, &tally)
                .contains(&format!("6 kept of {judged} random openings judged"))
        );

        // A deal none of whose tries is kept: its games are unfinished, not played from an
        // opening the judge refused.
        s.balanced = Some(Balance {
            judge: |_| None,
            within: 0,
            tries: 3,
        });
        let tally = play_match(&s);
        assert_eq!(tally.unfinished, 12);
        assert!(tally.a.think.is_empty() && tally.b.think.is_empty());
    }

    #[test]
    fn perfect_play_wins_every_won_position_whichever_seat_it_has() {
        // Heap 10: the first mover wins with perfect play; Easy never finds it, so Hard wins
        // as first mover and, Easy being no help, as second mover too.
        let tally = play_match(&spec(Level::Hard, Level::Easy, 10));
        assert_eq!((tally.wins, tally.losses, tally.draws), (10, 0, 0));
        assert_eq!(tally.score(), (1.0, 0.0));
        assert!(tally.a.think.len() >= 10);
    }

    #[test]
    fn an_illegal_action_loses_the_game_and_is_counted() {
        let tally = play_match(&spec(Level::Normal, Level::Easy, 10));
        assert_eq!(tally.losses, 10);
        assert_eq!(tally.a.illegal, 10);
        assert_eq!(tally.b.illegal, 0);
        assert!(report("nim", Level::Normal, Level::Easy, &tally).contains("illegal 10"));
    }

    #[test]
    fn a_game_past_max_plies_is_unfinished_not_a_result() {
        let mut s = spec(Level::Easy, Level::Easy, 1_000);
        s.max_plies = 5;
        let tally = play_match(&s);
        assert_eq!(tally.unfinished, 10);
        assert!(tally.scores.is_empty());
    }
}
