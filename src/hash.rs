//! The engine's own hash maps and sets, on foldhash (randomly seeded, as
//! serde_json's `Map` is). std's default hasher, SipHash, would be one more
//! hasher in the wasm module beside the one every JSON object already uses;
//! the public types that hold maps (`Snapshot`, `Verdicts`) keep std's.

/// A `HashMap` on foldhash; made with `HashMap::default()`.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A `HashSet` on foldhash; made with `HashSet::default()`.
pub(crate) type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
