//! The one verdict cache of connection negotiation: what a server was
//! found to speak, so the next connection to it skips the probe.
//!
//! Two verdicts are cached, under the same rule: which HTTP transport a URL
//! speaks ([`super::detect::Verdict`]) and which era a server speaks
//! ([`super::era::EraVerdict`]). Each kind has its own store (a URL has one
//! verdict of each kind); both are process-wide.
//!
//! The rule: a verdict for the older protocol of a pair (the handshake
//! era; the legacy HTTP+SSE transport) is trusted for
//! [`VERDICT_MAX_AGE`], because a server upgraded meanwhile would otherwise
//! go on being spoken to the old way for as long as the process lives: it
//! still answers the old way, so nothing would ever contradict the verdict.
//! A verdict for the newer protocol (the stateless era; Streamable HTTP)
//! does not expire: a server that stops speaking it fails the next
//! connection, and a verdict the server contradicts is forgotten and the
//! server probed again (the connecting code forgets it).

use std::sync::Mutex;
use std::time::Duration;

/// How long a verdict for the older protocol of a pair is trusted.
pub const VERDICT_MAX_AGE: Duration = Duration::from_secs(10 * 60);

/// The most verdicts of one kind kept. Verdicts for the newer protocol never
/// expire, so a process that meets server after server (an agent host, a
/// gateway) would otherwise keep one for each for as long as it lives; past
/// this the one reached longest ago is forgotten (its server is probed again
/// if it is met again).
pub(crate) const MAX_VERDICTS: usize = 256;

/// A cached verdict.
pub(crate) trait Verdict: Copy {
    /// Whether it names the older protocol of its pair, and so expires
    /// after [`VERDICT_MAX_AGE`].
    fn expires(&self) -> bool;
}

/// Verdicts by key (a URL, a command line), with when each was reached
/// (milliseconds since the epoch). A list, searched in order: a process
/// talks to a handful of servers, and a `BTreeMap` per verdict kind was
/// about 6 KB of wasm each.
pub(crate) struct VerdictCache<V> {
    entries: Mutex<Vec<(String, V, f64)>>,
}

impl<V: Verdict> VerdictCache<V> {
    pub(crate) const fn new() -> Self {
        VerdictCache { entries: Mutex::new(Vec::new()) }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<(String, V, f64)>> {
        // A list of plain values: a poisoned lock is still usable.
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The verdict remembered for `key`, if any and still trusted.
    pub(crate) fn get(&self, key: &str) -> Option<V> {
        let now = crate::runtime::now_millis();
        let mut entries = self.entries();
        let at = entries.iter().position(|(k, _, _)| k == key)?;
        let (_, verdict, reached) = entries[at];
        if stale(verdict, reached, now) {
            entries.swap_remove(at);
            return None;
        }
        Some(verdict)
    }

    /// Remembers `verdict` for `key`, from now.
    pub(crate) fn put(&self, key: &str, verdict: V) {
        self.put_at(key, verdict, crate::runtime::now_millis());
    }

    /// Remembers `verdict` for `key` as reached at `at`.
    pub(crate) fn put_at(&self, key: &str, verdict: V, at: f64) {
        let mut entries = self.entries();
        if let Some(entry) = entries.iter_mut().find(|(k, _, _)| k == key) {
            (entry.1, entry.2) = (verdict, at);
            return;
        }
        if entries.len() >= MAX_VERDICTS {
            // The oldest (the first of the oldest) leaves; the times are
            // finite, so `<` orders them as `total_cmp` would.
            let mut oldest = 0;
            for at in 1..entries.len() {
                if entries[at].2 < entries[oldest].2 {
                    oldest = at;
                }
            }
            entries.swap_remove(oldest);
        }
        entries.push((key.to_owned(), verdict, at));
    }

    /// Every verdict still trusted, with when it was reached.
    pub(crate) fn trusted(&self) -> Vec<(String, V, f64)> {
        let now = crate::runtime::now_millis();
        let mut entries = self.entries();
        let mut trusted = Vec::new();
        // Stale ones leave as `forget` removes one (the order means nothing);
        // the others are copied out.
        let mut at = 0;
        while let Some((key, verdict, reached)) = entries.get(at) {
            if stale(*verdict, *reached, now) {
                entries.swap_remove(at);
            } else {
                trusted.push((key.clone(), *verdict, *reached));
                at += 1;
            }
        }
        trusted
    }

    /// Forgets the verdict for `key`: the next connection probes again.
    pub(crate) fn forget(&self, key: &str) {
        let mut entries = self.entries();
        // Keys are unique (a verdict is replaced in place), and the order
        // of entries means nothing: `swap_remove`, which `get` uses too.
        if let Some(at) = entries.iter().position(|(k, _, _)| k == key) {
            entries.swap_remove(at);
        }
    }
}

/// Whether a verdict reached at `at` is no longer trusted at `now`.
fn stale<V: Verdict>(verdict: V, at: f64, now: f64) -> bool {
    verdict.expires() && now - at > VERDICT_MAX_AGE.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Test {
        Old,
        New,
    }

    impl Verdict for Test {
        fn expires(&self) -> bool {
            *self == Test::Old
        }
    }

    #[test]
    fn old_verdicts_of_the_older_protocol_expire_and_the_newer_last() {
        let cache = VerdictCache::new();
        let long_ago = crate::runtime::now_millis() - VERDICT_MAX_AGE.as_secs_f64() * 1000.0 - 1000.0;
        cache.put_at("old", Test::Old, long_ago);
        cache.put_at("new", Test::New, long_ago);
        cache.put("fresh", Test::Old);
        assert_eq!(cache.get("old"), None);
        assert_eq!(cache.get("new"), Some(Test::New));
        assert_eq!(cache.get("fresh"), Some(Test::Old));
        cache.forget("new");
        assert_eq!(cache.get("new"), None);
    }

    #[test]
    fn past_the_cap_the_verdict_reached_longest_ago_is_forgotten() {
        let cache = VerdictCache::new();
        let now = crate::runtime::now_millis();
        for i in 0..MAX_VERDICTS + 10 {
            cache.put_at(&format!("server {i}"), Test::New, now + i as f64);
        }
        assert_eq!(cache.trusted().len(), MAX_VERDICTS);
        for i in 0..10 {
            assert_eq!(cache.get(&format!("server {i}")), None, "server {i}");
        }
        for i in 10..MAX_VERDICTS + 10 {
            assert_eq!(cache.get(&format!("server {i}")), Some(Test::New), "server {i}");
        }
        // A verdict reached again is kept in place, not counted twice.
        cache.put_at("server 10", Test::New, now + 1e6);
        assert_eq!(cache.trusted().len(), MAX_VERDICTS);
    }
}
