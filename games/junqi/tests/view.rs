//! Views and statistics, J21-J22: nothing about a face-down piece reaches any viewer.
// Helpers outside #[test] fns unwrap too: a failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod common;

use common::{history, layout, p, play};
use ludus_junqi::{Colour, Junqi, JunqiOptions, JunqiSetup, Piece, PointView, Rank};
use ludus_rules::{Game, SplitMix64, Viewer};

#[test]
fn j22_same_public_history_gives_byte_identical_views() {
    let a = history(layout(1));
    let b = history(layout(2));
    assert_ne!(a, b, "the hidden layouts differ");
    assert_eq!(a.colour_of(0), Some(Colour::Red));
    for viewer in [Viewer::Spectator, Viewer::Seat(0), Viewer::Seat(1)] {
        let (va, vb) = (a.view(viewer), b.view(viewer));
        assert_eq!(va, vb);
        assert_eq!(
            serde_json::to_string(&va).unwrap(),
            serde_json::to_string(&vb).unwrap()
        );
    }
    // Debug (which could end up in a log line) shows no difference either.
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    // Errors about the hidden points say the same thing.
    let refuse = |g: &Junqi| {
        let act = g.parse_action("e6-e5").unwrap();
        g.clone()
            .apply(1, &act, &mut SplitMix64(0))
            .unwrap_err()
            .1
            .to_string()
    };
    assert_eq!(refuse(&a), refuse(&b));
}

#[test]
fn j22_players_and_spectators_see_the_same_points_and_statistics() {
    let g = history(layout(1));
    let s = g.view(Viewer::Spectator);
    let v0 = g.view(Viewer::Seat(0));
    let v1 = g.view(Viewer::Seat(1));
    for v in [&v0, &v1] {
        assert_eq!(v.points, s.points);
        assert_eq!(v.statistics, s.statistics);
        assert_eq!(v.seat_colours, s.seat_colours);
    }
    assert_eq!(
        (s.viewer, s.viewer_colour, s.opponent_colour),
        (None, None, None)
    );
    assert_eq!(
        (v0.viewer_colour, v0.opponent_colour),
        (Some(Colour::Red), Some(Colour::Blue))
    );
    assert_eq!(
        (v1.viewer_colour, v1.opponent_colour),
        (Some(Colour::Blue), Some(Colour::Red))
    );
    assert_eq!(s.points.len(), 60);
    assert_eq!(s.points[p("e6").index()], PointView::FaceDown);
    assert_eq!(
        s.points[p("c7").index()],
        PointView::FaceUp(Piece::new(Colour::Red, Rank::Brigade))
    );
    assert_eq!(s.points[p("c6").index()], PointView::Empty);
    // Nothing in the JSON of the view names a rank that is not face up.
    let json = serde_json::to_string(&s).unwrap();
    for hidden in ["Flag", "Mine", "Bomb", "Commander"] {
        assert!(
            !json.contains(&format!("\"rank\":\"{hidden}\"")),
            "{hidden}"
        );
    }
    // J21 for a fresh game: everything not face up is face down, nothing removed.
    assert_eq!(s.statistics.removed, [[0; 12]; 2]);
    assert_eq!(s.statistics.face_down[0][Rank::Brigade.index()], 1);
    assert_eq!(s.statistics.face_down[0][Rank::Platoon.index()], 2);
    assert_eq!(s.statistics.face_down[1][Rank::Company.index()], 2);
}

#[test]
fn j21_statistics_come_from_the_totals() {
    let g = Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(3)).unwrap();
    let v = g.view(Viewer::Spectator);
    for c in Colour::ALL {
        for r in Rank::ALL {
            assert_eq!(v.statistics.face_down[c.index()][r.index()], r.count());
            assert_eq!(v.statistics.removed[c.index()][r.index()], 0);
        }
    }
    // A combat: red commander on c6 takes a blue brigade on c7.
    let setup = JunqiSetup::new()
        .settled(Colour::Red)
        .with(p("c6"), Colour::Red, Rank::Commander, true)
        .with(p("c7"), Colour::Blue, Rank::Brigade, true)
        .with(p("e12"), Colour::Blue, Rank::Brigade, false)
        .with(p("a1"), Colour::Red, Rank::Bomb, false);
    let g = play(Junqi::from_setup(&setup).unwrap(), 0, "c6-c7");
    let st = g.view(Viewer::Seat(1)).statistics;
    let (red, blue) = (Colour::Red.index(), Colour::Blue.index());
    // Blue: both brigades accounted for: one removed now, one face down (unknown where).
    assert_eq!(st.removed[blue][Rank::Brigade.index()], 1);
    assert_eq!(st.face_down[blue][Rank::Brigade.index()], 1);
    // Red's face-down bomb: 1 of 2 face down (the other counts as removed in this setup).
    assert_eq!(st.face_down[red][Rank::Bomb.index()], 1);
    assert_eq!(
        st.face_down[red][Rank::Commander.index()],
        0,
        "the commander is face up"
    );
    let total: u32 = st.face_down.iter().flatten().map(|&n| u32::from(n)).sum();
    assert_eq!(total as usize, g.face_down_count());
    let ev = g.view(Viewer::Spectator).last_action.unwrap();
    assert_eq!(ev.to_string_action(), "c6-c7");
}

trait ActionText {
    fn to_string_action(&self) -> String;
}

impl ActionText for ludus_junqi::LastAction {
    fn to_string_action(&self) -> String {
        self.action.to_string()
    }
}
