#[derive(Default)]
pub(crate) struct QueuesMem;
