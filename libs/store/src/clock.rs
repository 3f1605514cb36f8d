//! The clock the services read for the `now_ms` they pass to the stores. It lives in its own
//! library (`ludus-clock`) so services without a session store (accounts) and the server kit
//! read the same one; the store names it too, since every store call takes its time.

pub use ludus_clock::{Clock, ManualClock};
