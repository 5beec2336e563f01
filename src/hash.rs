//! The engine's own hash maps and sets. Maps are on foldhash (randomly
//! seeded, as serde_json's `Map` is): std's default hasher, SipHash, would
//! be one more hasher in the wasm module beside the one every JSON object
//! already uses; the public types that hold maps (`Snapshot`, `Verdicts`)
//! keep std's. Sets of strings are kept in serde_json's `Map` itself,
//! whose code is in the module for every JSON object, where a `HashSet` of
//! its own was one more table's code (-0.6 KB gzip of the lite wasm).

use serde_json::{Map, Value};

/// A `HashMap` on foldhash; made with `HashMap::default()`.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A set of strings (cursors seen, event ids delivered, input requests
/// answered), hashed as a JSON object's member names are.
#[derive(Default)]
pub(crate) struct Names(Map<String, Value>);

impl Names {
    /// Adds `name`; false if it was there already.
    pub(crate) fn insert(&mut self, name: String) -> bool {
        self.0.insert(name, Value::Null).is_none()
    }

    /// Whether `name` is there.
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))] // the tasks' answered inputs
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Takes `name` out; false if it was not there.
    pub(crate) fn remove(&mut self, name: &str) -> bool {
        self.0.remove(name).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::Names;

    #[test]
    fn names_are_a_set() {
        let mut names = Names::default();
        assert!(names.insert("a".into()));
        assert!(!names.insert("a".into()));
        assert!(names.insert("b".into()));
        assert!(names.contains("a") && names.contains("b") && !names.contains("c"));
        assert!(names.remove("a"));
        assert!(!names.remove("a"));
        assert!(!names.contains("a") && names.contains("b"));
    }
}
