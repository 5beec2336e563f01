//! Connection negotiation, in one place: which transport a URL speaks
//! ([`detect`]), which era a server speaks ([`era`]), the one cache of both
//! verdicts and its expiry rule ([`cache`]), and the entry points that do
//! the trying (`connect.rs`: [`connect_url`] and, natively, `connect_stdio`).

pub(crate) mod cache;
mod connect;
pub(crate) mod detect;
pub(crate) mod era;

pub use cache::VERDICT_MAX_AGE;
#[cfg(not(target_arch = "wasm32"))]
pub use connect::connect_stdio;
pub use connect::{ConnectOptions, connect_url, connect_url_with_http};
pub use detect::{TransportChoice, forget as forget_transport, remembered_transport};
pub use era::{EraVerdict, forget_era, remembered_era};
