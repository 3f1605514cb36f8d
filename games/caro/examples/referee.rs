//! The referee's report: over generated positions per rule set, how often each level takes a
//! win in one, plays a saving cell when it must block, and starts a VCF within three own
//! moves, as judged by the independent referee of `tests/referee/mod.rs` (written from the
//! rule text, not from the bots' code).
//!
//! `cargo run --release -p ludus-caro --example referee -- POSITIONS [FIRST_SEED] [SET...]`
//!
//! `SET` is an index into the eight rule sets (15x15 then 19x19; free, exactly-five,
//! blocked-ends, both); all of them when none is given. Each level thinks with its default
//! work (`Caro::default_work`), so the figures are the ones players meet.
#[path = "../tests/referee/mod.rs"]
mod referee;

use std::time::Instant;

use ludus_rules::Level;
use referee::bridge::choice;
use referee::{Class, Rules};

#[derive(Default)]
struct Tally {
    positions: usize,
    win_in_1: usize,
    must_block: usize,
    must_block_two_threats: usize,
    must_block_far_save: usize,
    lost: usize,
    vcf: usize,
    /// Per level (Easy, Medium, Hard): wins taken, saves played, VCF starts played.
    won: [usize; 3],
    saved: [usize; 3],
    saved_two_threats: [usize; 3],
    vcf_found: [usize; 3],
    slowest: [f64; 3],
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let positions: u64 = args
        .first()
        .and_then(|a| a.parse().ok())
        .expect("POSITIONS: how many positions per rule set");
    let first_seed: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
    let all = Rules::all();
    let sets: Vec<Rules> = if args.len() > 2 {
        args[2..]
            .iter()
            .map(|a| all[a.parse::<usize>().expect("a rule set index 0-7")])
            .collect()
    } else {
        all
    };
    println!(
        "| rules | positions | win in 1: E/M/H | must block: E/M/H | of which 2+ threat cells: E/M/H | VCF<=3: E/M/H | slowest E/M/H |"
    );
    println!("|---|---|---|---|---|---|---|");
    for rules in sets {
        let mut tally = Tally::default();
        let mut seed = first_seed;
        while (tally.positions as u64) < positions {
            seed += 1;
            let Some(position) = referee::generate(rules, seed) else {
                continue;
            };
            tally.positions += 1;
            let class = position.classify();
            if class == Class::Quiet {
                continue;
            }
            for (l, level) in Level::ALL.into_iter().enumerate() {
                let started = Instant::now();
                let at = choice(&position, level, seed);
                tally.slowest[l] = tally.slowest[l].max(started.elapsed().as_secs_f64());
                match &class {
                    Class::WinIn1 { cells } => {
                        tally.won[l] += usize::from(cells.contains(&at));
                    }
                    Class::MustBlock { threats, saves } if !saves.is_empty() => {
                        let saved = saves.contains(&at);
                        tally.saved[l] += usize::from(saved);
                        if threats.len() >= 2 {
                            tally.saved_two_threats[l] += usize::from(saved);
                        }
                        if !saved && level != Level::Easy {
                            eprintln!(
                                "{} seed {seed}: {level:?} played {} against threats {:?}, saves {:?}; moves {:?}",
                                rules.name(),
                                position.name(at),
                                position.names(threats),
                                position.names(saves),
                                position
                                    .moves
                                    .iter()
                                    .map(|&(c, r)| position.name(r * rules.size + c))
                                    .collect::<Vec<_>>(),
                            );
                        }
                    }
                    Class::MustBlock { .. } => {}
                    Class::Vcf { moves, own_moves } => {
                        let found = moves.contains(&at);
                        tally.vcf_found[l] += usize::from(found);
                        if !found && level == Level::Hard {
                            eprintln!(
                                "{} seed {seed}: Hard played {} for a VCF in {own_moves} starting on {:?}",
                                rules.name(),
                                position.name(at),
                                position.names(moves),
                            );
                        }
                    }
                    Class::Quiet => {}
                }
            }
            match &class {
                Class::WinIn1 { .. } => tally.win_in_1 += 1,
                Class::MustBlock { saves, .. } if saves.is_empty() => tally.lost += 1,
                Class::MustBlock { threats, saves } => {
                    tally.must_block += 1;
                    if threats.len() >= 2 {
                        tally.must_block_two_threats += 1;
                    }
                    if saves.iter().any(|s| !threats.contains(s)) {
                        tally.must_block_far_save += 1;
                    }
                }
                Class::Vcf { .. } => tally.vcf += 1,
                Class::Quiet => {}
            }
        }
        let per = |counts: [usize; 3], of: usize| {
            format!("{}/{}/{} of {of}", counts[0], counts[1], counts[2])
        };
        println!(
            "| {} | {} | {} | {} (lost: {}, a save off the threat cells: {}) | {} | {} | {:.2}/{:.2}/{:.2} s |",
            rules.name(),
            tally.positions,
            per(tally.won, tally.win_in_1),
            per(tally.saved, tally.must_block),
            tally.lost,
            tally.must_block_far_save,
            per(tally.saved_two_threats, tally.must_block_two_threats),
            per(tally.vcf_found, tally.vcf),
            tally.slowest[0],
            tally.slowest[1],
            tally.slowest[2],
        );
    }
}
