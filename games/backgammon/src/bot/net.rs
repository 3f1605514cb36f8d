//! A small trained evaluation of contact positions: one hidden layer of sigmoid units on a
//! standard board encoding, five sigmoid outputs (the chances of B16's results for the side
//! that has just moved, the opponent on roll), fitted to gnubg's 0-ply chances on positions of
//! gnubg self-play by `games/backgammon/judge/train.py` (2,000 games, seed 11, the judge's
//! corpus being seed 28; 64 hidden units; its training curve is `judge/train_curve.txt`).
//! The weights are `contact_net.bin`, written by that script and read once per process.
//!
//! Why: the hand-made contact terms ([`super::eval`]) miss gnubg's winning chance by about 0.06
//! on average even after fitting their weights, and the cube decisions (B14, B15), which turn
//! that chance into take and cash points, inherited the error; the network misses by 0.024 on
//! held-out games (each side's gammon chance by 0.015, against 0.048). Normal's and Hard's cube
//! decisions and Hard's plays read it for every contact position they look at ([`super`]):
//! it costs about what the hand-made terms cost, and gnubg grades both better with it
//! (issue 28's figures in BENCHMARKS.md).
//!
//! Encoding (the training script's `encode`, the same order): for each side, the side that
//! has just moved first, and each of its points 1-24 in its own numbering, four inputs: at
//! least 1, 2 and 3 checkers there, and the checkers beyond 3 halved; then its bar halved, its
//! borne-off share (of 15) and its pip count in hundreds (the bar counts 25).
//!
//! The first layer is applied input by input, skipping the zeros (most of the 198 inputs of a
//! position are 0), so an evaluation costs a few thousand multiply-adds.

use std::sync::OnceLock;

use super::eval::Probs;

/// Inputs per side: four per point, then bar, borne-off and pips.
const SIDE_INPUTS: usize = 24 * 4 + 3;
/// Inputs of the network.
pub const INPUTS: usize = 2 * SIDE_INPUTS;
/// The five outputs: win, win gammon, win backgammon, lose gammon, lose backgammon.
const OUTPUTS: usize = 5;

/// The weights as `train.py --write` wrote them (see [`Net::parse`]).
static WEIGHTS: &[u8] = include_bytes!("contact_net.bin");

/// One side's checkers in its own numbering: index 1-24 the points, 25 the bar, 0 unused.
pub type Side = [u8; 26];

/// The network's weights.
#[derive(Debug)]
pub struct Net {
    hidden: usize,
    /// The first layer, input by input: `w1[i * hidden + j]`.
    w1: Vec<f32>,
    b1: Vec<f32>,
    /// The second layer, output by output: `w2[k * hidden + j]`.
    w2: Vec<f32>,
    b2: [f32; OUTPUTS],
}

impl Net {
    /// Reads `LNN1`, inputs, hidden and outputs (little-endian u32), then the f32 weights:
    /// the first layer input by input, its biases, the second layer output by output, its
    /// biases. `None` when the bytes are not such a file for [`INPUTS`] and five outputs.
    pub fn parse(bytes: &[u8]) -> Option<Net> {
        let rest = bytes.strip_prefix(b"LNN1")?;
        let word = |i: usize| -> Option<u32> {
            let b = rest.get(4 * i..4 * i + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let (inputs, hidden, outputs) = (
            usize::try_from(word(0)?).ok()?,
            usize::try_from(word(1)?).ok()?,
            usize::try_from(word(2)?).ok()?,
        );
        if inputs != INPUTS || outputs != OUTPUTS || hidden == 0 {
            return None;
        }
        let floats: Vec<f32> = rest
            .get(12..)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let n1 = inputs * hidden;
        let n2 = outputs * hidden;
        if floats.len() != n1 + hidden + n2 + outputs {
            return None;
        }
        let mut b2 = [0.0; OUTPUTS];
        b2.copy_from_slice(&floats[n1 + hidden + n2..]);
        Some(Net {
            hidden,
            w1: floats[..n1].to_vec(),
            b1: floats[n1..n1 + hidden].to_vec(),
            w2: floats[n1 + hidden..n1 + hidden + n2].to_vec(),
            b2,
        })
    }

    /// The chances of `m`, who has just moved, against `o`, on roll.
    pub fn evaluate(&self, m: &Side, o: &Side) -> Probs {
        // Plain loops over slices: the tests run unoptimised, where iterator adapters cost
        // a call each, and the bots evaluate thousands of positions per decision.
        let hidden = self.hidden;
        let mut h = self.b1.clone();
        let mut inputs = [0.0f32; SIDE_INPUTS];
        for (base, side) in [(0, m), (SIDE_INPUTS, o)] {
            side_inputs(side, &mut inputs);
            for (i, &x) in inputs.iter().enumerate() {
                if x == 0.0 {
                    continue;
                }
                let start = (base + i) * hidden;
                let row = &self.w1[start..start + hidden];
                for (a, w) in h.iter_mut().zip(row) {
                    *a += x * w;
                }
            }
        }
        for a in &mut h {
            *a = sigmoid(*a);
        }
        let mut out = [0.0f64; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            let row = &self.w2[k * hidden..(k + 1) * hidden];
            let mut z = self.b2[k];
            for (w, a) in row.iter().zip(&h) {
                z += w * a;
            }
            *o = f64::from(sigmoid(z));
        }
        Probs {
            win: out[0],
            win_gammon: out[1],
            win_backgammon: out[2],
            lose_gammon: out[3],
            lose_backgammon: out[4],
        }
    }
}

/// One side's inputs, into `out` (zeros where they are 0).
fn side_inputs(s: &Side, out: &mut [f32; SIDE_INPUTS]) {
    let mut on_board = 0u32;
    let mut pips = 0u32;
    for (p, &n) in s.iter().enumerate().take(25).skip(1) {
        let base = 4 * (p - 1);
        out[base] = f32::from(u8::from(n >= 1));
        out[base + 1] = f32::from(u8::from(n >= 2));
        out[base + 2] = f32::from(u8::from(n >= 3));
        out[base + 3] = f32::from(n.saturating_sub(3)) / 2.0;
        on_board += u32::from(n);
        pips += p as u32 * u32::from(n);
    }
    on_board += u32::from(s[25]);
    pips += 25 * u32::from(s[25]);
    out[96] = f32::from(s[25]) / 2.0;
    out[97] = (15.0 - on_board as f32) / 15.0;
    out[98] = pips as f32 / 100.0;
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z.clamp(-30.0, 30.0)).exp())
}

/// The committed network, read on first use. `None` only if the committed file were broken,
/// which the tests rule out; the callers then keep the hand-made evaluation.
pub fn net() -> Option<&'static Net> {
    static NET: OnceLock<Option<Net>> = OnceLock::new();
    NET.get_or_init(|| Net::parse(WEIGHTS)).as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_weights_parse() {
        let net = net().expect("contact_net.bin is a network for this encoding");
        assert!(net.hidden > 0);
        assert!(Net::parse(b"LNN1").is_none());
        assert!(Net::parse(&WEIGHTS[..WEIGHTS.len() - 4]).is_none());
    }

    #[test]
    fn the_encoding_has_the_trained_layout() {
        let mut s: Side = [0; 26];
        s[6] = 5;
        s[25] = 1;
        let mut got = [0.0f32; SIDE_INPUTS];
        side_inputs(&s, &mut got);
        let nonzero: Vec<(usize, f32)> = got
            .iter()
            .enumerate()
            .filter(|&(_, &x)| x != 0.0)
            .map(|(i, &x)| (i, x))
            .collect();
        // The 6-point's four inputs (1, 1, 1, (5 - 3) / 2), the bar halved, 9 of 15 borne
        // off, 55 pips.
        assert_eq!(
            nonzero,
            vec![
                (20, 1.0),
                (21, 1.0),
                (22, 1.0),
                (23, 1.0),
                (96, 0.5),
                (97, 0.6),
                (98, 0.55)
            ]
        );
    }
}
