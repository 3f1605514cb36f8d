//! The board graph, J2-J5: counts and every special link.
// Helpers outside #[test] fns unwrap too: a failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

use ludus_junqi::Point;
use ludus_junqi::board::{railway_segments, road_links};

fn p(s: &str) -> Point {
    s.parse().unwrap()
}

fn rc(r: u8, c: u8) -> Point {
    Point::new(r, c).unwrap()
}

#[test]
fn j2_sixty_points_and_notation() {
    assert_eq!(Point::all().count(), 60);
    // J2: rows counted from the bottom, so row index 11 is rank 1 and row 0 is rank 12.
    assert_eq!(rc(11, 0).to_string(), "a1");
    assert_eq!(rc(0, 4).to_string(), "e12");
    assert_eq!(rc(6, 2).to_string(), "c6");
    for q in Point::all() {
        assert_eq!(p(&q.to_string()), q);
    }
    for bad in [
        "", "f1", "a0", "a13", "c06", "c", "6", "cc6", "a1x", "é1", "a-1",
    ] {
        assert!(bad.parse::<Point>().is_err(), "{bad}");
    }
    assert_eq!(p("C6"), p("c6"));
}

#[test]
fn j3_ten_camps_four_headquarters_fifty_posts() {
    let camps: Vec<String> = Point::all()
        .filter(|q| q.is_camp())
        .map(|q| q.to_string())
        .collect();
    assert_eq!(
        camps,
        ["b10", "d10", "c9", "b8", "d8", "b5", "d5", "c4", "b3", "d3"]
    );
    let hqs: Vec<String> = Point::all()
        .filter(|q| q.is_headquarters())
        .map(|q| q.to_string())
        .collect();
    assert_eq!(hqs, ["b12", "d12", "b1", "d1"]);
    assert_eq!(Point::all().filter(|q| !q.is_camp()).count(), 50);
}

#[test]
fn j4_road_links_101_orthogonal_32_diagonal() {
    let links = road_links();
    let diagonal = |(a, b): &(Point, Point)| a.row() != b.row() && a.col() != b.col();
    assert_eq!(links.iter().filter(|l| !diagonal(l)).count(), 101);
    assert_eq!(links.iter().filter(|l| diagonal(l)).count(), 32);
    // J4: the mountains cut b7-b6 and d7-d6; the other front links exist.
    let has = |a: &str, b: &str| p(a).road_neighbours().any(|q| q == p(b));
    assert!(!has("b7", "b6") && !has("b6", "b7"));
    assert!(!has("d7", "d6") && !has("d6", "d7"));
    assert!(has("a7", "a6") && has("c7", "c6") && has("e7", "e6"));
    // Every diagonal link touches a camp; each camp has exactly four.
    assert!(
        links
            .iter()
            .filter(|l| diagonal(l))
            .all(|(a, b)| a.is_camp() || b.is_camp())
    );
    for camp in Point::all().filter(|q| q.is_camp()) {
        let diag = camp
            .road_neighbours()
            .filter(|q| q.row() != camp.row() && q.col() != camp.col());
        assert_eq!(diag.count(), 4, "{camp}");
    }
    // Camp-to-camp diagonals are single links: b10-c9 exists once.
    assert!(has("b10", "c9") && has("c9", "b10"));
    // Non-camp posts have no diagonals: a11-b12 is not a link.
    assert!(!has("a11", "b12"));
}

#[test]
fn j5_railways_32_stations_35_segments() {
    let stations: Vec<Point> = Point::all().filter(|q| q.is_station()).collect();
    assert_eq!(stations.len(), 32);
    let segs = railway_segments();
    assert_eq!(segs.len(), 35);
    // Every segment joins two stations that are also road neighbours.
    for (a, b) in &segs {
        assert!(a.is_station() && b.is_station());
        assert!(a.road_neighbours().any(|q| q == *b));
    }
    let has = |a: &str, b: &str| p(a).rail_neighbours().any(|q| q == p(b));
    // The crossing at c7-c6 and the side lines across the front.
    assert!(has("c7", "c6") && has("a7", "a6") && has("e7", "e6"));
    // Not across the mountains, not inside a half off the lines, not on the back rows.
    assert!(!has("b7", "b6") && !has("d7", "d6"));
    assert!(!has("c7", "c8") && !has("c6", "c5"));
    assert!(!has("a11", "a12") && !has("a2", "a1"));
    assert!(!has("b11", "b10"));
    // Corners: a11 links along row 11 and down column a.
    assert!(has("a11", "b11") && has("a11", "a10"));
    // Back rows hold no stations, nor do the inner points.
    for q in ["a12", "c12", "e1", "c9", "c8", "b9"] {
        assert!(!p(q).is_station(), "{q}");
    }
}
