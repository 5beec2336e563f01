//! The engine's own maps and sets, none of them a `HashMap`: each
//! `HashMap` type is its own table code in the wasm module (some 0.5 KB of
//! gzip each), and a second hasher beside the one every JSON object already
//! uses (serde_json's map, on foldhash) another kilobyte. Sets of strings and
//! maps keyed by strings are kept in serde_json's `Map` itself, whose code
//! is in the module anyway; the requests in flight, few and found by
//! number, in a list. The public types that hold maps (`Snapshot`,
//! `Verdicts`) keep std's `HashMap`.

use serde_json::{Map, Value};

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

/// A map from strings to values of `T` whose keys are hashed as a JSON
/// object's member names are (each key's place in `values` is kept in
/// serde_json's map): a map of many entries, at no table code of its own.
/// A value taken out leaves `T::default()` in its place until the next
/// [`Keyed::clear`].
pub(crate) struct Keyed<T> {
    places: Map<String, Value>,
    values: Vec<T>,
}

impl<T> Default for Keyed<T> {
    fn default() -> Self {
        Keyed { places: Map::new(), values: Vec::new() }
    }
}

impl<T: Default> Keyed<T> {
    fn place(&self, key: &str) -> Option<usize> {
        self.places.get(key).and_then(Value::as_u64).map(|place| place as usize)
    }

    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        self.place(key).and_then(|place| self.values.get(place))
    }

    /// Adds or replaces the value of `key`.
    pub(crate) fn insert(&mut self, key: String, value: T) {
        match self.place(&key).and_then(|place| self.values.get_mut(place)) {
            Some(slot) => *slot = value,
            None => {
                self.places.insert(key, Value::from(self.values.len()));
                self.values.push(value);
            }
        }
    }

    pub(crate) fn remove(&mut self, key: &str) {
        if let Some(slot) = self.places.remove(key).and_then(|place| self.values.get_mut(place.as_u64()? as usize)) {
            *slot = T::default();
        }
    }

    pub(crate) fn clear(&mut self) {
        self.places.clear();
        self.values.clear();
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &T)> {
        self.places.iter().filter_map(|(key, place)| Some((key, self.values.get(place.as_u64()? as usize)?)))
    }
}

/// A map kept as a list of pairs, for the engine's map of requests in
/// flight (a few, found by a number): each
/// `HashMap` type is its own table code in the wasm module, some 0.5 KB of
/// gzip, where a list's search is a loop. Lookups are linear, which for a
/// few hundred entries costs less than hashing the key.
pub(crate) struct ListMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for ListMap<K, V> {
    fn default() -> Self {
        ListMap(Vec::new())
    }
}

impl<K: PartialEq, V> ListMap<K, V> {
    fn position<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<usize>
    where
        K: std::borrow::Borrow<Q>,
    {
        self.0.iter().position(|(k, _)| k.borrow() == key)
    }

    pub(crate) fn get<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: std::borrow::Borrow<Q>,
    {
        self.position(key).map(|at| &self.0[at].1)
    }

    pub(crate) fn get_mut<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: std::borrow::Borrow<Q>,
    {
        self.position(key).map(|at| &mut self.0[at].1)
    }

    /// Adds or replaces the value of `key`.
    pub(crate) fn insert(&mut self, key: K, value: V) {
        match self.position(&key) {
            Some(at) => self.0[at].1 = value,
            None => self.0.push((key, value)),
        }
    }

    pub(crate) fn remove<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
    {
        self.position(key).map(|at| self.0.swap_remove(at).1)
    }

    /// Takes every entry out.
    pub(crate) fn drain(&mut self) -> std::vec::Drain<'_, (K, V)> {
        self.0.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::{Keyed, ListMap, Names};

    #[test]
    fn keyed_values_are_found_replaced_and_taken_out() {
        let mut keyed = Keyed::<Vec<u8>>::default();
        keyed.insert("a".into(), vec![1]);
        keyed.insert("b".into(), vec![2]);
        keyed.insert("a".into(), vec![3]);
        assert_eq!(keyed.get("a"), Some(&vec![3]));
        assert_eq!(keyed.get("b"), Some(&vec![2]));
        keyed.remove("a");
        keyed.remove("c");
        assert_eq!(keyed.get("a"), None);
        keyed.insert("a".into(), vec![4]);
        assert_eq!(keyed.get("a"), Some(&vec![4]));
        let mut all: Vec<(String, Vec<u8>)> = keyed.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        all.sort();
        assert_eq!(all, [("a".to_owned(), vec![4]), ("b".to_owned(), vec![2])]);
        keyed.clear();
        assert_eq!(keyed.get("b"), None);
        assert_eq!(keyed.iter().count(), 0);
    }

    #[test]
    fn keyed_holds_ten_thousand_keys() {
        let mut keyed = Keyed::<Vec<u8>>::default();
        for i in 0..10_000u32 {
            keyed.insert(format!("tool_{i}"), vec![1]);
        }
        for i in (0..10_000u32).step_by(2) {
            keyed.remove(&format!("tool_{i}"));
        }
        assert_eq!(keyed.get("tool_9999"), Some(&vec![1]));
        assert_eq!(keyed.get("tool_9998"), None);
        assert_eq!(keyed.iter().count(), 5_000);
    }

    #[test]
    fn a_list_map_finds_replaces_and_drains() {
        let mut map = ListMap::<u32, &str>::default();
        map.insert(1, "one");
        map.insert(2, "two");
        map.insert(1, "uno");
        assert_eq!(map.get(&1), Some(&"uno"));
        if let Some(value) = map.get_mut(&2) {
            *value = "dos";
        }
        assert_eq!(map.remove(&2), Some("dos"));
        assert_eq!(map.remove(&2), None);
        map.insert(3, "tres");
        let mut left: Vec<(u32, &str)> = map.drain().collect();
        left.sort();
        assert_eq!(left, [(1, "uno"), (3, "tres")]);
        assert_eq!(map.get(&1), None);
    }

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
