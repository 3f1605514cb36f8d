//! The conformance suite on the in-memory backend, one test per property.

use ludus_store::Backend;

ludus_store::conformance_tests!(async { Backend::memory() });
