//! The board both rule sets share and the sowing engine (M1, M2, M4–M6, K1–K3).
//!
//! Kalah sows counterclockwise with the store on the mover's right; Congklak sows clockwise
//! with the store on the mover's left (K1). With pits numbered from the far end toward one's
//! own store (M1) the two are the same cycle: own pits `1..=n`, own store, the opponent's pits
//! `1..=n`, (the opponent's store skipped), own pit 1 again; and own pit `i` faces the
//! opponent's pit `n + 1 - i`. So one engine serves both, and Congklak only switches on relay
//! sowing (K2).

use ludus_rules::Seat;
use serde::{Deserialize, Serialize};

/// The most pits a side can have (Congklak, K1).
pub const MAX_PITS: usize = 7;

/// Which rules a game is played by.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum RuleSet {
    /// Kalah: 6 pits of 4 seeds, no relay (M1–M13). The default.
    #[default]
    Kalah,
    /// Congklak: 7 pits of 7 seeds, relay sowing (K1–K5).
    Congklak,
}

impl RuleSet {
    /// Pits per side: 6 (M1) or 7 (K1).
    pub const fn pits(self) -> u8 {
        match self {
            RuleSet::Kalah => 6,
            RuleSet::Congklak => 7,
        }
    }

    /// Seeds in each pit at the start: 4 (M2) or 7 (K1).
    pub const fn seeds_per_pit(self) -> u8 {
        match self {
            RuleSet::Kalah => 4,
            RuleSet::Congklak => 7,
        }
    }

    /// All seeds on the board: 48 or 98. Sowing never creates or destroys one.
    pub const fn total_seeds(self) -> u32 {
        self.pits() as u32 * self.seeds_per_pit() as u32 * 2
    }

    /// Whether a last seed in an occupied pit picks that pit up and sows on (K2).
    pub const fn relay(self) -> bool {
        matches!(self, RuleSet::Congklak)
    }

    /// The rule id of the pit numbering, used by notation errors: `M1` or `K1`.
    pub const fn numbering_rule(self) -> &'static str {
        match self {
            RuleSet::Kalah => "M1",
            RuleSet::Congklak => "K1",
        }
    }
}

/// A place a seed can be dropped in: a pit of a seat (numbered `1..=n` from that seat's far
/// end toward its store, M1) or a seat's store.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum Spot {
    /// Pit `pit` (1-based) of `seat`'s row.
    Pit { seat: Seat, pit: u8 },
    /// The store of `seat`.
    Store { seat: Seat },
}

/// The seeds on the board: each seat's pits and store. Pits beyond the rule set's count
/// are always empty.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct Board {
    pits: [[u8; MAX_PITS]; 2],
    stores: [u8; 2],
}

impl Board {
    /// The starting board of a rule set (M2, K1).
    pub fn start(rules: RuleSet) -> Board {
        let mut pits = [[0; MAX_PITS]; 2];
        for row in &mut pits {
            for pit in row.iter_mut().take(usize::from(rules.pits())) {
                *pit = rules.seeds_per_pit();
            }
        }
        Board {
            pits,
            stores: [0, 0],
        }
    }

    /// A board from raw counts; `pits[seat][k]` is pit `k + 1` of `seat`. Checked by the
    /// callers that accept outside input ([`crate::Mancala::from_position`]).
    pub(crate) fn from_parts(pits: [[u8; MAX_PITS]; 2], stores: [u8; 2]) -> Board {
        Board { pits, stores }
    }

    /// Seeds in pit `pit` (1-based) of `seat`; 0 for a pit that does not exist.
    pub fn pit(&self, seat: Seat, pit: u8) -> u8 {
        self.pits
            .get(seat)
            .and_then(|row| row.get(usize::from(pit).wrapping_sub(1)))
            .copied()
            .unwrap_or(0)
    }

    /// Seeds in `seat`'s store; 0 for a seat that does not exist.
    pub fn store(&self, seat: Seat) -> u8 {
        self.stores.get(seat).copied().unwrap_or(0)
    }

    /// Both stores, by seat.
    pub fn stores(&self) -> [u8; 2] {
        self.stores
    }

    /// The first `n` pits of `seat`'s row (pit 1 first).
    pub fn row(&self, seat: Seat, n: u8) -> &[u8] {
        let n = usize::from(n).min(MAX_PITS);
        self.pits.get(seat).map_or(&[][..], |row| &row[..n])
    }

    /// Seeds left in `seat`'s pits.
    pub fn row_total(&self, seat: Seat) -> u32 {
        self.pits
            .get(seat)
            .map_or(0, |row| row.iter().map(|&s| u32::from(s)).sum())
    }

    /// Seeds in the stores and pits together.
    pub fn total(&self) -> u32 {
        self.row_total(0)
            + self.row_total(1)
            + u32::from(self.stores[0])
            + u32::from(self.stores[1])
    }

    /// All raw pit counts, by seat (`pits[seat][k]` is pit `k + 1`).
    pub(crate) fn raw_pits(&self) -> &[[u8; MAX_PITS]; 2] {
        &self.pits
    }

    /// M7/K4: each seat moves the seeds left in its own pits into its own store. Returns how
    /// many seeds each seat swept.
    pub(crate) fn sweep(&mut self) -> [u8; 2] {
        let mut swept = [0u8; 2];
        for (seat, row) in self.pits.iter_mut().enumerate() {
            for pit in row.iter_mut() {
                swept[seat] = swept[seat].saturating_add(*pit);
                *pit = 0;
            }
            self.stores[seat] = self.stores[seat].saturating_add(swept[seat]);
        }
        swept
    }

    fn slot(&mut self, spot: Spot) -> &mut u8 {
        match spot {
            Spot::Pit { seat, pit } => &mut self.pits[seat & 1][usize::from(pit - 1)],
            Spot::Store { seat } => &mut self.stores[seat & 1],
        }
    }
}

/// How a sow ended: where its last seed came to rest and what that did.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum LastSeed {
    /// In the mover's store: the mover sows again (M5, K3) unless the game ends.
    Store,
    /// In the mover's own empty pit `pit` while the opposite pit held `opposite` seeds: the
    /// last seed and those seeds went to the mover's store (M6, K3).
    Capture { pit: u8, opposite: u8 },
    /// In the mover's own empty pit with nothing opposite: the seed stays (M6, K3).
    OwnEmptyPit { pit: u8 },
    /// In the opponent's empty pit (M6, K3), or in an occupied pit in Kalah (M6).
    Stopped { spot: Spot },
}

/// One lap of a sow: the seeds taken from `from` and where each one went, in order. A Kalah
/// sow has one lap; a Congklak sow has one more lap per relay (K2).
#[derive(Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct SowLap {
    /// The pit the seeds were taken from.
    pub from: Spot,
    /// Where each seed was dropped, in order; its length is the number of seeds taken.
    pub drops: Vec<Spot>,
}

/// The next place a seed goes from `spot` when `mover` sows (M4, K1): along the row toward
/// the store, into the mover's own store, never into the opponent's.
fn next_spot(spot: Spot, mover: Seat, n: u8) -> Spot {
    match spot {
        Spot::Pit { seat, pit } if pit < n => Spot::Pit { seat, pit: pit + 1 },
        Spot::Pit { seat, .. } if seat == mover => Spot::Store { seat: mover },
        // The end of the opponent's row: their store is skipped (M4, K1).
        Spot::Pit { .. } => Spot::Pit {
            seat: mover,
            pit: 1,
        },
        Spot::Store { .. } => Spot::Pit {
            seat: 1 - mover,
            pit: 1,
        },
    }
}

/// Sows pit `pit` of `mover` on `board` under `rules`, with the laps it made (for the view's
/// animation). The caller has checked that `mover` is 0 or 1 and the pit exists and holds
/// seeds.
pub(crate) fn sow(
    board: &mut Board,
    rules: RuleSet,
    mover: Seat,
    pit: u8,
) -> (Vec<SowLap>, LastSeed) {
    let mut laps = Vec::new();
    let last = sow_recording(board, rules, mover, pit, Some(&mut laps));
    (laps, last)
}

/// [`sow`] without allocating when `laps` is `None`: the computer players search millions of
/// sows with this same engine, so their rules cannot drift from the game's.
///
/// Every relay sow ends: each lap drops at least one seed, the drops walk one cycle that
/// holds the mover's store, and each pass of the store adds a seed to it, which can happen
/// only as many times as there are seeds.
pub(crate) fn sow_recording(
    board: &mut Board,
    rules: RuleSet,
    mover: Seat,
    pit: u8,
    mut laps: Option<&mut Vec<SowLap>>,
) -> LastSeed {
    let n = rules.pits();
    let mut from = Spot::Pit { seat: mover, pit };
    loop {
        // M4: take every seed, so with 2n + 1 or more the emptied pit receives one again.
        let seeds = std::mem::take(board.slot(from));
        let mut drops = laps
            .as_ref()
            .map(|_| Vec::with_capacity(usize::from(seeds)));
        let mut at = from;
        for _ in 0..seeds {
            at = next_spot(at, mover, n);
            let slot = board.slot(at);
            *slot = slot.saturating_add(1);
            if let Some(d) = drops.as_mut() {
                d.push(at);
            }
        }
        if let (Some(laps), Some(drops)) = (laps.as_deref_mut(), drops) {
            laps.push(SowLap { from, drops });
        }
        let (seat, last_pit) = match at {
            // Only the mover's store is ever sown into.
            Spot::Store { .. } => return LastSeed::Store,
            Spot::Pit { seat, pit } => (seat, pit),
        };
        if board.pit(seat, last_pit) > 1 {
            if rules.relay() {
                // K2: an occupied pit is picked up and sown on from there.
                from = at;
                continue;
            }
            return LastSeed::Stopped { spot: at };
        }
        if seat != mover {
            return LastSeed::Stopped { spot: at };
        }
        let facing = n + 1 - last_pit;
        let opposite = board.pit(1 - mover, facing);
        if opposite == 0 {
            return LastSeed::OwnEmptyPit { pit: last_pit };
        }
        // M6, K3: the last seed and the seeds opposite go to the mover's store.
        *board.slot(at) = 0;
        *board.slot(Spot::Pit {
            seat: 1 - mover,
            pit: facing,
        }) = 0;
        let store = board.slot(Spot::Store { seat: mover });
        *store = store.saturating_add(opposite.saturating_add(1));
        return LastSeed::Capture {
            pit: last_pit,
            opposite,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m1_k1_the_cycle_skips_the_opponents_store() {
        assert_eq!(
            next_spot(Spot::Pit { seat: 0, pit: 6 }, 0, 6),
            Spot::Store { seat: 0 }
        );
        assert_eq!(
            next_spot(Spot::Store { seat: 0 }, 0, 6),
            Spot::Pit { seat: 1, pit: 1 }
        );
        assert_eq!(
            next_spot(Spot::Pit { seat: 1, pit: 6 }, 0, 6),
            Spot::Pit { seat: 0, pit: 1 }
        );
        assert_eq!(
            next_spot(Spot::Pit { seat: 1, pit: 7 }, 0, 7),
            Spot::Pit { seat: 0, pit: 1 }
        );
    }

    #[test]
    fn m2_k1_start_boards() {
        assert_eq!(Board::start(RuleSet::Kalah).total(), 48);
        assert_eq!(Board::start(RuleSet::Congklak).total(), 98);
        assert_eq!(Board::start(RuleSet::Kalah).pit(0, 7), 0);
    }
}
