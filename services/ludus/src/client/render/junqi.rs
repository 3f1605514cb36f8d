//! The Flip Junqi board: not drawn yet; actions show as notes under the frame.

use ludus_proto::pb;

/// The colour a seat plays once settled (J8).
pub fn seat_colour(_view: &pb::JunqiView, _seat: u32) -> Option<&'static str> {
    None
}

/// A placeholder until the board is drawn.
pub fn render(_view: &pb::JunqiView, _seats: &[pb::SeatInfo]) -> String {
    "(this client does not draw junqi boards yet: actions show as notes)\n".to_owned()
}
