#![allow(clippy::unwrap_used)]
use ludus_junqi::{Junqi, JunqiOptions};
use ludus_rules::{Bot, Budget, Game, Level, SplitMix64};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let a = Level::parse(&args[1]).unwrap();
    let b = Level::parse(&args[2]).unwrap();
    let n: u64 = args[3].parse().unwrap();
    for i in 0..n {
        let mut dice = SplitMix64(i ^ 0xD1CE);
        let mut minds = SplitMix64(i ^ 0xB07);
        let mut g = Junqi::setup(JunqiOptions::default(), 2, &mut dice).unwrap();
        let a_seat = (i % 2) as usize;
        while let Some(seat) = g.to_move() {
            let lv = if seat == a_seat { a } else { b };
            let act = g
                .choose(seat, lv, &Budget::work(Junqi::default_work(lv)), &mut minds)
                .unwrap();
            g = g.apply(seat, &act, &mut dice).unwrap();
        }
        let o = g.outcome().unwrap();
        println!(
            "game {i} a_seat {a_seat} a={:?} ply {} {:?} {} {}",
            g.colour_of(a_seat),
            g.ply(),
            o.result,
            o.rule,
            o.reason
        );
        if matches!(o.result, ludus_rules::GameResult::Draw) || args.len() > 4 {
            println!("{g:?}");
        }
    }
}
