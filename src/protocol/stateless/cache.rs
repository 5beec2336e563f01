//! The caching hints of a cacheable result (`ttlMs`, `cacheScope`).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// Who may keep a cached result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client may share it.
    Public,
    /// Only for the same authorization context.
    Private,
}

crate::protocol::objects::read_by_name!(CacheScope {
    Public = "public",
    Private = "private",
});

/// The caching hints of a cacheable result (`ttlMs`, `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result stays fresh; absent or negative means 0.
    pub ttl: Duration,
    /// Who may keep it; absent means `private`, the safe reading.
    pub scope: CacheScope,
}

impl CacheHint {
    /// The hints of a result (`None` when it carries neither field).
    pub fn of(result: &Value) -> Option<CacheHint> {
        let ttl = result.get("ttlMs");
        let scope = result.get("cacheScope");
        if ttl.is_none() && scope.is_none() {
            return None;
        }
        let millis = ttl.and_then(Value::as_f64).filter(|ms| ms.is_finite() && *ms > 0.0).unwrap_or(0.0);
        let scope = scope.and_then(Value::as_str).and_then(CacheScope::from_name).unwrap_or(CacheScope::Private);
        Some(CacheHint { ttl: Duration::from_millis(millis.min(u64::MAX as f64) as u64), scope })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn cache_hints_are_read_leniently() {
        assert_eq!(CacheHint::of(&json!({})), None);
        let hint = CacheHint::of(&json!({"ttlMs": 1500, "cacheScope": "public"})).unwrap();
        assert_eq!((hint.ttl, hint.scope), (Duration::from_millis(1500), CacheScope::Public));
        let negative = CacheHint::of(&json!({"ttlMs": -5})).unwrap();
        assert_eq!((negative.ttl, negative.scope), (Duration::ZERO, CacheScope::Private));
    }
}
