//! Connection negotiation, in one place: which transport a URL speaks
//! ([`detect`]), which era a server speaks ([`era`]), the one cache of both
//! verdicts and its expiry rule ([`cache`]) and that cache as plain data
//! for runtimes that keep it ([`persist`]), and the entry points that do
//! the trying (`connect.rs`: [`connect_url`] and, natively, `connect_stdio`).

pub(crate) mod cache;
mod connect;
pub(crate) mod detect;
pub(crate) mod era;
pub(crate) mod persist;

pub use cache::VERDICT_MAX_AGE;
#[cfg(not(target_arch = "wasm32"))]
pub use connect::connect_stdio;
#[cfg(all(target_arch = "wasm32", feature = "js", feature = "persist"))]
pub(crate) use connect::restore_url_now;
pub use connect::{ConnectOptions, connect_url, connect_url_with_http, restore_url, restore_url_with_http};
pub use detect::{TransportChoice, forget as forget_transport, remembered_transport};
pub use era::{EraVerdict, forget_era, remembered_era};
pub use persist::{Reached, VERDICTS_VERSION, Verdicts, export as export_verdicts, import as import_verdicts};
