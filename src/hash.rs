//! The engine's own maps and sets, none of them a `HashMap`: each
//! `HashMap` type is its own table code in the wasm module (some 0.5 KB of
//! gzip each), and a second hasher beside the one every JSON object already
//! uses (serde_json's map, on foldhash) another kilobyte. Sets of strings and
//! maps keyed by strings are kept in serde_json's `Map` itself, whose code
//! is in the module anyway; the requests in flight, found by number, in a
//! list kept in order. The public types that hold maps (`Snapshot`,
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
/// A value taken out leaves `T::default()` in its place; the places are
/// packed again once half of them are empty.
pub(crate) struct Keyed<T> {
    places: Map<String, Value>,
    values: Vec<T>,
    vacant: usize,
}

impl<T> Default for Keyed<T> {
    fn default() -> Self {
        Keyed { places: Map::new(), values: Vec::new(), vacant: 0 }
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
            self.vacant += 1;
        }
        if self.vacant * 2 > self.values.len() {
            let mut packed = Vec::with_capacity(self.places.len());
            for place in self.places.values_mut() {
                let value = place.as_u64().and_then(|at| self.values.get_mut(at as usize)).map(std::mem::take);
                *place = Value::from(packed.len());
                packed.push(value.unwrap_or_default());
            }
            self.values = packed;
            self.vacant = 0;
        }
    }

    pub(crate) fn clear(&mut self) {
        self.places.clear();
        self.values.clear();
        self.vacant = 0;
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &T)> {
        self.places.iter().filter_map(|(key, place)| Some((key, self.values.get(place.as_u64()? as usize)?)))
    }
}

/// A map kept as a list in key order, for the engine's map of requests in
/// flight (found by id): each `HashMap` type is its own table code in the
/// wasm module, some 0.5 KB of gzip, where a sorted list is a binary
/// search. Ids are handed out in order, so an entry is nearly always added
/// at the end; one taken out leaves its place empty (no shift of the rest,
/// as answers come oldest first), and the empty places go once they are
/// half the list. So every operation is a binary search, amortized, with
/// 2,000 requests in flight as with two, and a long-lived entry (a
/// subscription) holds no more than itself.
pub(crate) struct ListMap<K, V> {
    entries: Vec<(K, Option<V>)>,
    vacant: usize,
}

impl<K, V> Default for ListMap<K, V> {
    fn default() -> Self {
        ListMap { entries: Vec::new(), vacant: 0 }
    }
}

impl<K: Ord, V> ListMap<K, V> {
    fn find(&self, key: &K) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.cmp(key))
    }

    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.find(key).ok().and_then(|at| self.entries[at].1.as_ref())
    }

    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.find(key).ok().and_then(|at| self.entries[at].1.as_mut())
    }

    /// Adds or replaces the value of `key`.
    pub(crate) fn insert(&mut self, key: K, value: V) {
        match self.find(&key) {
            Ok(at) => {
                if self.entries[at].1.is_none() {
                    self.vacant -= 1;
                }
                self.entries[at].1 = Some(value);
            }
            Err(at) => self.entries.insert(at, (key, Some(value))),
        }
    }

    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let at = self.find(key).ok()?;
        let value = self.entries[at].1.take()?;
        self.vacant += 1;
        if self.vacant * 2 > self.entries.len() {
            self.entries.retain(|(_, value)| value.is_some());
            self.vacant = 0;
        }
        Some(value)
    }

    /// Takes every entry out.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (K, V)> + '_ {
        self.vacant = 0;
        self.entries.drain(..).filter_map(|(key, value)| Some((key, value?)))
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
        // A key taken out and put back again and again takes no more room.
        for round in 0..10_000u32 {
            keyed.remove("tool_1");
            keyed.insert("tool_1".into(), vec![round as u8]);
        }
        assert_eq!(keyed.get("tool_1"), Some(&vec![(9_999 % 256) as u8]));
        assert_eq!(keyed.get("tool_9999"), Some(&vec![1]));
        assert_eq!(keyed.iter().count(), 5_000);
        assert!(keyed.values.len() <= 2 * 5_000 + 1, "{} places for 5,000 keys", keyed.values.len());
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
        map.insert(0, "cero");
        let left: Vec<(u32, &str)> = map.drain().collect();
        assert_eq!(left, [(0, "cero"), (1, "uno"), (3, "tres")]);
        assert_eq!(map.get(&1), None);
    }

    #[test]
    fn a_list_map_keeps_few_empty_places() {
        let mut map = ListMap::<u32, u32>::default();
        // A long-lived entry first (a subscription), then many that come and go.
        map.insert(0, 0);
        for id in 1..10_000 {
            map.insert(id, id);
            if id > 100 {
                assert_eq!(map.remove(&(id - 100)), Some(id - 100));
            }
        }
        assert_eq!(map.get(&0), Some(&0));
        assert_eq!(map.get(&9_999), Some(&9_999));
        assert_eq!(map.get(&50), None);
        assert!(map.entries.len() <= 2 * 101 + 1, "{} places for 101 entries", map.entries.len());
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
