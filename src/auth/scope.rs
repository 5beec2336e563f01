//! Which scopes to ask for (MCP 2025-11-25 "Scope Selection Strategy").

/// The scopes of the first authorization: the challenge's `scope` (it is
/// authoritative for the request that failed), else every scope the
/// protected resource metadata lists, else none (no `scope` parameter).
pub fn select(challenge: Option<&[String]>, scopes_supported: Option<&[String]>) -> Option<Vec<String>> {
    let chosen = challenge.filter(|s| !s.is_empty()).or_else(|| scopes_supported.filter(|s| !s.is_empty()))?;
    Some(dedup(&[chosen]))
}

/// Step-up: what was asked for before plus what the server now requires.
pub fn union(held: Option<&[String]>, required: Option<&[String]>) -> Option<Vec<String>> {
    let (held, required) = (held.unwrap_or_default(), required.unwrap_or_default());
    (!held.is_empty() || !required.is_empty()).then(|| dedup(&[held, required]))
}

/// Whether two scope lists without repeats (as [`union`] makes them) hold
/// the same scopes, in any order. Compared without sorting: a sort of
/// `String`s cost 0.3 KB of the wasm's gzip for lists of a few scopes.
pub fn same_set(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && a.iter().all(|s| b.contains(s))
}

/// Whether `have` holds every scope of `need`.
#[cfg(test)]
pub fn contains_all(have: &[String], need: &[String]) -> bool {
    need.iter().all(|n| have.contains(n))
}

/// The `scope` parameter: space-separated.
pub fn join(scopes: &[String]) -> String {
    crate::debug::joined(scopes, " ")
}

/// A `scope` parameter's scopes, split at spaces (RFC 6749 §3.3), empty
/// ones left out: the one reader of a challenge's and of our own.
pub fn words(scope: &str) -> Vec<String> {
    let mut words = Vec::new();
    for word in scope.split(' ') {
        if !word.is_empty() {
            words.push(word.to_owned());
        }
    }
    words
}

/// Splits a `scope` parameter.
#[cfg(test)]
pub fn split(scope: &str) -> Vec<String> {
    let words: Vec<String> = scope.split(' ').map(str::to_owned).collect();
    dedup(&[&words])
}

/// How many scopes one list keeps. Lists come from the server (a
/// challenge's `scope`, up to 256 KB of metadata's `scopes_supported`), and
/// repeats are found by comparing each with those kept: 50,000 scopes would
/// be a billion comparisons, while a request for more than a few dozen
/// scopes is already unusual. A list made mostly of repeats is read no
/// further than four times this.
const MAX_SCOPES: usize = 1_000;

/// The scopes of `lists` in order, each once, empty ones left out: at most
/// [`MAX_SCOPES`] kept, and no more than four times that read in all. Only
/// the ones kept are copied; one function for every caller (a generic one
/// over iterators was a copy per kind of iterator).
fn dedup(lists: &[&[String]]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (read, scope) in lists.iter().flat_map(|list| list.iter()).enumerate() {
        if read == MAX_SCOPES * 4 || out.len() == MAX_SCOPES {
            break;
        }
        if !scope.is_empty() && !out.contains(scope) {
            out.push(scope.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn selection_order() {
        let challenge = v(&["mcp:basic"]);
        let supported = v(&["mcp:basic", "mcp:read", "mcp:write"]);
        assert_eq!(select(Some(&challenge), Some(&supported)), Some(v(&["mcp:basic"])));
        assert_eq!(select(None, Some(&supported)), Some(supported.clone()));
        assert_eq!(select(Some(&[]), None), None);
        assert_eq!(select(None, None), None);
    }

    #[test]
    fn a_list_of_very_many_scopes_keeps_the_first_thousand() {
        let many: Vec<String> = (0..200_000).map(|i| format!("s{i}")).collect();
        let kept = select(None, Some(&many)).expect("scopes");
        assert_eq!((kept.len(), kept[999].as_str()), (MAX_SCOPES, "s999"));
        let repeated = vec!["a".to_owned(); 200_000];
        assert_eq!(union(Some(&repeated), Some(&many)), Some(v(&["a"])));
    }

    #[test]
    fn step_up_is_a_union() {
        assert_eq!(union(Some(&v(&["a", "b"])), Some(&v(&["b", "c"]))), Some(v(&["a", "b", "c"])));
        assert_eq!(union(None, Some(&v(&["c"]))), Some(v(&["c"])));
        assert_eq!(union(None, None), None);
        assert!(contains_all(&v(&["a", "b"]), &v(&["b"])));
        assert_eq!(split(" a  b a "), v(&["a", "b"]));
        assert_eq!(join(&v(&["a", "b"])), "a b");
    }

    #[test]
    fn scope_sets_compare_in_any_order() {
        assert!(same_set(&v(&["a", "b"]), &v(&["b", "a"])));
        assert!(same_set(&[], &[]));
        assert!(!same_set(&v(&["a", "b"]), &v(&["a"])));
        assert!(!same_set(&v(&["a"]), &v(&["a", "b"])));
        assert!(!same_set(&v(&["a", "b"]), &v(&["a", "c"])));
    }
}
