//! Handlers a service offers to callers of its own process (`ludus_server::local::offer`):
//! found by the address its URL names, only while offered and while local calls are on, and a
//! stopping server never takes back a newer server's offer on the same port.
//!
//! One test function: whether local calls are on is a switch of the whole process.

use std::net::SocketAddr;
use std::sync::Arc;

use ludus_server::local::{self, Local};

trait Greeter: Send + Sync {
    fn greet(&self) -> String;
}

struct Named(&'static str);

impl Greeter for Named {
    fn greet(&self) -> String {
        format!("hello from {}", self.0)
    }
}

fn offer(address: SocketAddr, name: &'static str) -> local::Offer {
    let handlers: Arc<dyn Greeter> = Arc::new(Named(name));
    local::offer(address, "ludus.v1.Greeter", handlers)
}

#[test]
fn offered_handlers_are_found_by_address_while_offered_and_local_calls_are_on() {
    let address: SocketAddr = "127.0.0.1:47001".parse().expect("address");
    let local: Local<dyn Greeter> = Local::at(&format!("http://{address}"));
    assert!(local.get().is_none(), "nothing offered yet");

    let first = offer(address, "first");
    let found = local.get().expect("offered").handlers;
    assert_eq!(found.greet(), "hello from first");

    // Only plain addresses of this process: TLS, names and other ports go over the wire.
    for url in [
        format!("https://{address}"),
        "http://localhost:47001".to_owned(),
        "http://127.0.0.1:47002".to_owned(),
        "not a url".to_owned(),
    ] {
        let elsewhere: Local<dyn Greeter> = Local::at(&url);
        assert!(elsewhere.get().is_none(), "{url} is not local");
    }
    // Offered as one type, asked for as another: not found (never a wrong cast).
    let other: Local<String> = Local::at(&format!("http://{address}"));
    assert!(other.get().is_none());

    // Local calls turned off for the process: the caller takes the port.
    local::set_enabled(false);
    assert!(local.get().is_none(), "off");
    local::set_enabled(true);
    assert!(local.get().is_some(), "on again");

    // A server restarted on the same port offers anew; the old one's offer, taken back late,
    // leaves the new one in place.
    let second = offer(address, "second");
    drop(first);
    assert_eq!(
        local.get().expect("second").handlers.greet(),
        "hello from second"
    );
    drop(second);
    assert!(local.get().is_none(), "taken back");
    assert_eq!(
        found.greet(),
        "hello from first",
        "a caller's handle stays usable"
    );
}
