//! The Backgammon board: not drawn yet; actions show as notes under the frame.

use ludus_proto::pb;

/// The colour a seat plays: seat 0 is white, seat 1 black.
pub fn seat_colour(seat: u32) -> &'static str {
    if seat == 0 { "white" } else { "black" }
}

/// A placeholder until the board is drawn.
pub fn render(_view: &pb::BackgammonView, _me: Option<u32>, _seats: &[pb::SeatInfo]) -> String {
    "(this client does not draw backgammon boards yet: actions show as notes)\n".to_owned()
}
