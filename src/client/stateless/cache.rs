//! The result cache of revision 2026-07-28 (`ttlMs`, `cacheScope`).
//!
//! A complete result of a cacheable method with `ttlMs > 0` is kept until
//! it goes stale, and the same request (same method, same params apart from
//! `_meta`, same revision) is answered from it meanwhile: the server said
//! the answer would not change. A matching change notification drops it at
//! once (R4.29), and so does any error on that method (an invalid cursor
//! means every page is suspect, R4.34). The cache belongs to one client, so
//! `private` entries never cross authorization contexts (R4.32).

use serde_json::Value;

use crate::protocol::stateless::CacheHint;
use crate::protocol::stateless::listen::covers;
use crate::protocol::{JsonText, Notification, methods};

/// Methods whose complete results may be cached.
pub(crate) fn cacheable(method: &str) -> bool {
    matches!(
        method,
        methods::TOOLS_LIST
            | methods::PROMPTS_LIST
            | methods::RESOURCES_LIST
            | methods::RESOURCES_TEMPLATES_LIST
            | methods::RESOURCES_READ
    )
}

struct Entry {
    method: String,
    uri: Option<String>,
    result: Value,
    /// Milliseconds since the epoch.
    stale_at: f64,
}

/// The most results kept at once. Entries leave when stale only if looked
/// up again, so without a bound a client reading many resources, each with
/// a long `ttlMs`, would hold every answer for the life of the session.
const MAX_ENTRIES: usize = 64;

/// A list, not a map: at most [`MAX_ENTRIES`] entries, where a `HashMap` of
/// its own cost some 2 KB of wasm.
#[derive(Default)]
pub(crate) struct ResultCache {
    entries: Vec<(String, Entry)>,
    /// Counts invalidations, so an answer to a request sent before one is
    /// known to be stale.
    epoch: u64,
}

/// What identifies a request's answer: revision, method, and params
/// without `_meta` (client info, progress tokens and the like do not
/// change a result).
pub(crate) fn key(version: &str, method: &str, params: &serde_json::Map<String, Value>) -> String {
    let mut params = params.clone();
    params.remove("_meta");
    format!("{version} {method} {}", JsonText(&Value::Object(params)))
}

impl ResultCache {
    /// A fresh result for `key`, if any.
    pub(crate) fn get(&mut self, key: &str, now: f64) -> Option<Value> {
        let at = self.entries.iter().position(|(kept, _)| kept == key)?;
        if now < self.entries[at].1.stale_at {
            return Some(self.entries[at].1.result.clone());
        }
        self.entries.swap_remove(at);
        None
    }

    /// Keeps a complete result as long as its hints allow.
    pub(crate) fn put(&mut self, key: String, method: &str, uri: Option<String>, result: &Value, now: f64) {
        let Some(hint) = CacheHint::of(result) else { return };
        if hint.ttl.is_zero() {
            return;
        }
        let stale_at = now + hint.ttl.as_secs_f64() * 1000.0;
        let entry = Entry { method: method.to_owned(), uri, result: result.clone(), stale_at };
        self.entries.retain(|(kept, old)| *kept != key && now < old.stale_at);
        if self.entries.len() >= MAX_ENTRIES {
            // Full of fresh answers: the one that goes stale first leaves.
            let mut soonest = 0;
            for at in 1..self.entries.len() {
                if self.entries[at].1.stale_at < self.entries[soonest].1.stale_at {
                    soonest = at;
                }
            }
            self.entries.swap_remove(soonest);
        }
        self.entries.push((key, entry));
    }

    /// Forgets every result of `method`.
    pub(crate) fn forget_method(&mut self, method: &str) {
        self.entries.retain(|(_, entry)| entry.method != method);
    }

    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many invalidations there have been.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Drops what a change notification makes stale.
    pub(crate) fn invalidate(&mut self, notification: &Notification) {
        if matches!(
            notification.method.as_str(),
            methods::TOOLS_LIST_CHANGED
                | methods::PROMPTS_LIST_CHANGED
                | methods::RESOURCES_LIST_CHANGED
                | methods::RESOURCES_UPDATED
        ) {
            self.epoch += 1;
        }
        match notification.method.as_str() {
            methods::TOOLS_LIST_CHANGED => self.forget_method(methods::TOOLS_LIST),
            methods::PROMPTS_LIST_CHANGED => self.forget_method(methods::PROMPTS_LIST),
            methods::RESOURCES_LIST_CHANGED => {
                self.forget_method(methods::RESOURCES_LIST);
                self.forget_method(methods::RESOURCES_TEMPLATES_LIST);
            }
            methods::RESOURCES_UPDATED => {
                let Some(updated) = notification.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str)
                else {
                    return;
                };
                // A resource under a cached one changes it too (a directory's
                // listing), and so does a change of what contains it.
                self.entries.retain(|(_, entry)| {
                    entry.uri.as_deref().is_none_or(|uri| !covers(uri, updated) && !covers(updated, uri))
                });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn fresh_results_are_served_until_stale_or_invalidated() {
        let mut cache = ResultCache::default();
        let key = key("2026-07-28", methods::TOOLS_LIST, &params(json!({"_meta": {"x": 1}})));
        assert_eq!(key, self::key("2026-07-28", methods::TOOLS_LIST, &params(json!({}))), "_meta is not in the key");
        cache.put(key.clone(), methods::TOOLS_LIST, None, &json!({"tools": [], "ttlMs": 1000}), 0.0);
        assert!(cache.get(&key, 999.0).is_some());
        assert!(cache.get(&key, 1000.0).is_none(), "stale at ttl");
        cache.put(key.clone(), methods::TOOLS_LIST, None, &json!({"tools": [], "ttlMs": 1000}), 0.0);
        cache.invalidate(&Notification { method: methods::PROMPTS_LIST_CHANGED.into(), params: None });
        assert!(cache.get(&key, 1.0).is_some(), "another list's change");
        cache.invalidate(&Notification { method: methods::TOOLS_LIST_CHANGED.into(), params: None });
        assert!(cache.get(&key, 1.0).is_none());
        for hints in [json!({"tools": []}), json!({"tools": [], "ttlMs": 0}), json!({"tools": [], "ttlMs": -5})] {
            cache.put(key.clone(), methods::TOOLS_LIST, None, &hints, 0.0);
            assert!(cache.get(&key, 0.0).is_none(), "{hints}");
        }
    }

    #[test]
    fn the_cache_holds_at_most_its_bound_and_drops_stale_entries_as_it_grows() {
        let mut cache = ResultCache::default();
        let read = |i: usize| key("v", methods::RESOURCES_READ, &params(json!({"uri": format!("file:///{i}")})));
        // Short-lived answers: gone once stale, even if never asked for again.
        for i in 0..10 {
            cache.put(read(i), methods::RESOURCES_READ, None, &json!({"ttlMs": 10}), 0.0);
        }
        cache.put(read(100), methods::RESOURCES_READ, None, &json!({"ttlMs": 10}), 20.0);
        assert_eq!(cache.entries.len(), 1, "the stale ones left when a new one came");
        // Long-lived answers beyond the bound: the one that goes stale first leaves.
        for i in 0..(MAX_ENTRIES * 3) {
            let ttl = 100_000 + i;
            cache.put(read(i), methods::RESOURCES_READ, None, &json!({ "ttlMs": ttl }), 30.0);
        }
        assert_eq!(cache.entries.len(), MAX_ENTRIES);
        assert!(cache.get(&read(MAX_ENTRIES * 3 - 1), 31.0).is_some(), "the longest-lived is kept");
        assert!(cache.get(&read(0), 31.0).is_none(), "the shortest-lived left");
        // Putting a key again replaces it rather than adding another.
        cache.put(read(0), methods::RESOURCES_READ, None, &json!({"ttlMs": 500_000}), 31.0);
        cache.put(read(0), methods::RESOURCES_READ, None, &json!({"ttlMs": 500_000, "v": 2}), 32.0);
        assert_eq!(cache.entries.iter().filter(|(key, _)| *key == read(0)).count(), 1);
        assert_eq!(cache.get(&read(0), 33.0).and_then(|v| v.get("v").cloned()), Some(json!(2)));
    }

    #[test]
    fn a_resource_update_drops_that_resource_and_those_around_it() {
        let mut cache = ResultCache::default();
        let read = |uri: &str| key("v", methods::RESOURCES_READ, &params(json!({"uri": uri})));
        for uri in ["file:///d", "file:///d/a", "file:///e"] {
            cache.put(read(uri), methods::RESOURCES_READ, Some(uri.into()), &json!({"ttlMs": 9000}), 0.0);
        }
        let updated =
            |uri: &str| Notification { method: methods::RESOURCES_UPDATED.into(), params: Some(json!({ "uri": uri })) };
        cache.invalidate(&updated("file:///d/a"));
        assert!(cache.get(&read("file:///d/a"), 1.0).is_none());
        assert!(cache.get(&read("file:///d"), 1.0).is_none(), "a child's update changes the parent");
        assert!(cache.get(&read("file:///e"), 1.0).is_some());
        cache.put(read("file:///e/x"), methods::RESOURCES_READ, Some("file:///e/x".into()), &json!({"ttlMs": 9}), 0.0);
        cache.invalidate(&updated("file:///e"));
        assert!(cache.get(&read("file:///e/x"), 1.0).is_none(), "the parent's update changes the child");
    }
}
