#[derive(Default)]
pub(crate) struct RatingsMem;
