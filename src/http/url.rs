//! Just enough URL handling for OAuth and the transports: split an absolute
//! http(s) URL into its parts, compare origins, resolve a `Location`, build
//! query strings, and resolve RFC 3986 references strictly (the legacy
//! transport's `endpoint` event).
//!
//! Hand-written on purpose: the OAuth checks compare strings byte for byte
//! (a PRM `resource` of `http://host` must stay `http://host`, not become
//! `http://host/`), and a full WHATWG parser would add size to the wasm build
//! for nothing this module needs.

pub use super::form::{encode_form, form_component, parse_form, push_pair};
use crate::debug::Quoted;

/// An absolute URL, split. Scheme and host are lowercase; everything else
/// is kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// `http` or `https` (or any other scheme, lowercase).
    pub scheme: String,
    /// `user:password` before `@`, if any.
    pub userinfo: Option<String>,
    /// The host, lowercase; IPv6 literals keep their brackets.
    pub host: String,
    /// The port, when one is written.
    pub port: Option<u16>,
    /// The path as written; may be empty.
    pub path: String,
    /// The query without `?`.
    pub query: Option<String>,
    /// The fragment without `#`.
    pub fragment: Option<String>,
}

impl Url {
    /// Parses an absolute URL with an authority (`scheme://host...`).
    pub fn parse(input: &str) -> Result<Url, String> {
        if input.is_empty() {
            return Err("the URL is empty".into());
        }
        if input.bytes().any(|b| b <= 0x20 || b == 0x7f) {
            return Err("the URL contains spaces or control characters".into());
        }
        let colon = input.find(':').ok_or("the URL has no scheme")?;
        let scheme = &input[..colon];
        let mut chars = scheme.chars();
        let valid_scheme = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if !valid_scheme {
            return Err("the URL has no valid scheme".into());
        }
        let rest = input[colon + 1..].strip_prefix("//").ok_or("the URL is not of the form scheme://host/...")?;
        let authority_end = crate::ascii::find_any(rest, b"/?#").unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(authority_end);
        let (userinfo, hostport) = match last(authority, b'@') {
            Some(at) => (Some(authority[..at].to_owned()), &authority[at + 1..]),
            None => (None, authority),
        };
        let (host, port) = if let Some(stripped) = hostport.strip_prefix('[') {
            let close = stripped.find(']').ok_or("an IPv6 host is missing its `]`")?;
            let host = &hostport[..close + 2];
            let after = &stripped[close + 1..];
            match after.strip_prefix(':') {
                Some(port) => (host, port),
                None if after.is_empty() => (host, ""),
                None => return Err("junk after the IPv6 host".into()),
            }
        } else {
            match last(hostport, b':') {
                Some(c) => (&hostport[..c], &hostport[c + 1..]),
                None => (hostport, ""),
            }
        };
        if host.is_empty() {
            return Err("the URL has no host".into());
        }
        // A colon is left in a host only when the port part had one too
        // (`http://a:b:1/`): no reg-name has one, and printed back the URL
        // would read differently (found by the `url` fuzz target).
        if crate::ascii::has_any(host, b"[]\\<>^|%:") && !host.starts_with('[') {
            return Err("the host contains characters hosts cannot have".into());
        }
        let port = if port.is_empty() {
            None
        } else {
            Some(
                number::<u16>(port)
                    .ok_or_else(|| format!("the port {port} is not a number from 0 to 65535", port = Quoted(port)))?,
            )
        };
        let (before_fragment, fragment) = match tail.find('#') {
            Some(hash) => (&tail[..hash], Some(tail[hash + 1..].to_owned())),
            None => (tail, None),
        };
        let (path, query) = match before_fragment.find('?') {
            Some(q) => (&before_fragment[..q], Some(before_fragment[q + 1..].to_owned())),
            None => (before_fragment, None),
        };
        Ok(Url {
            scheme: scheme.to_ascii_lowercase(),
            userinfo,
            host: host.to_ascii_lowercase(),
            port,
            path: path.to_owned(),
            query,
            fragment,
        })
    }

    /// The port, or the scheme's default one.
    pub fn effective_port(&self) -> Option<u16> {
        self.port.or(match self.scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        })
    }

    /// `scheme://host[:port]`, the port left out when it is the default.
    pub fn origin(&self) -> String {
        let default = match self.scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        };
        match self.port {
            Some(port) if Some(port) != default => format!("{}://{}:{port}", self.scheme, self.host),
            _ => format!("{}://{}", self.scheme, self.host),
        }
    }

    /// Same scheme, host and port.
    pub fn same_origin(&self, other: &Url) -> bool {
        self.scheme == other.scheme && self.host == other.host && self.effective_port() == other.effective_port()
    }

    /// Whether the host is this machine (`localhost`, 127.0.0.0/8, `[::1]`).
    pub fn is_loopback(&self) -> bool {
        let host = self.host.as_str();
        host == "localhost"
            || host.ends_with(".localhost")
            || host == "[::1]"
            || (host.starts_with("127.")
                && host.split('.').count() == 4
                && host.split('.').all(|p| number::<u8>(p).is_some()))
    }

    /// `https`, or `http` to this machine (or anywhere, if allowed).
    pub fn is_secure_or_loopback(&self, allow_insecure: bool) -> bool {
        self.scheme == "https" || (self.scheme == "http" && (allow_insecure || self.is_loopback()))
    }

    /// Resolves a reference (a `Location` header) against this URL
    /// (RFC 3986 §5.2, without dot-segment subtleties beyond `.` and `..`).
    pub fn join(&self, reference: &str) -> Result<Url, String> {
        let reference = reference.trim_ascii();
        if reference.starts_with("//") {
            return Url::parse(&format!("{}:{reference}", self.scheme));
        }
        if let Some(colon) = reference.find(':') {
            let before = &reference[..colon];
            if !before.is_empty() && !crate::ascii::has_any(before, b"/?#") {
                return Url::parse(reference);
            }
        }
        let mut base = self.clone();
        base.fragment = None;
        let (without_fragment, fragment) = match reference.find('#') {
            Some(hash) => (&reference[..hash], Some(reference[hash + 1..].to_owned())),
            None => (reference, None),
        };
        let (path, query) = match without_fragment.find('?') {
            Some(q) => (&without_fragment[..q], Some(without_fragment[q + 1..].to_owned())),
            None => (without_fragment, None),
        };
        if path.is_empty() {
            if query.is_some() {
                base.query = query;
            }
        } else {
            let merged = if path.starts_with('/') {
                path.to_owned()
            } else {
                let directory = match last(&base.path, b'/') {
                    Some(slash) => &base.path[..=slash],
                    None => "/",
                };
                format!("{directory}{path}")
            };
            // `merged` starts with `/` here (a path after an authority does).
            base.path = remove_dot_segments(&merged);
            base.query = query;
        }
        base.fragment = fragment;
        Ok(base)
    }

    /// The query's `name=value` pairs, decoded.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        self.query.as_deref().map(parse_form).unwrap_or_default()
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}://", self.scheme)?;
        if let Some(userinfo) = &self.userinfo {
            write!(f, "{userinfo}@")?;
        }
        write!(f, "{}", self.host)?;
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        write!(f, "{}", self.path)?;
        if let Some(query) = &self.query {
            write!(f, "?{query}")?;
        }
        if let Some(fragment) = &self.fragment {
            write!(f, "#{fragment}")?;
        }
        Ok(())
    }
}

#[cfg(any(feature = "legacy-sse", test))] // only the legacy transport resolves references
/// The five components of a URI reference (RFC 3986, appendix B), borrowed
/// from the text as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reference<'a> {
    pub scheme: Option<&'a str>,
    pub authority: Option<&'a str>,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub fragment: Option<&'a str>,
}

#[cfg(any(feature = "legacy-sse", test))] // only the legacy transport resolves references
impl Reference<'_> {
    /// Splits a reference the way appendix B's regular expression does,
    /// taking a scheme only if it is well formed (`ALPHA *( ALPHA / DIGIT /
    /// "+" / "-" / "." )`). Unlike [`Url::parse`] it accepts anything: a
    /// relative reference has no scheme or authority.
    pub fn split(text: &str) -> Reference<'_> {
        let (rest, fragment) = match text.split_once('#') {
            Some((rest, fragment)) => (rest, Some(fragment)),
            None => (text, None),
        };
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, Some(query)),
            None => (rest, None),
        };
        let (scheme, rest) = match crate::ascii::find_any(rest, b":/") {
            Some(colon) if rest.as_bytes()[colon] == b':' && is_scheme(&rest[..colon]) => {
                (Some(&rest[..colon]), &rest[colon + 1..])
            }
            _ => (None, rest),
        };
        let (authority, path) = match rest.strip_prefix("//") {
            Some(after) => {
                let end = after.find('/').unwrap_or(after.len());
                (Some(&after[..end]), &after[end..])
            }
            None => (None, rest),
        };
        Reference { scheme, authority, path, query, fragment }
    }
}

/// A decimal number that fits `T` (a port, an IPv4 part), read as the
/// `u64` every other number of the crate is read as: one integer reader
/// in the wasm, not one more per width.
fn number<T: TryFrom<u64>>(text: &str) -> Option<T> {
    text.parse::<u64>().ok().and_then(|n| T::try_from(n).ok())
}

/// Where the last `byte` (ASCII) is in `text`: `str::rfind` with a `char`
/// is a searcher of its own in the wasm (0.5 KB) for what a byte scan does.
fn last(text: &str, byte: u8) -> Option<usize> {
    text.bytes().rposition(|b| b == byte)
}

#[cfg(any(feature = "legacy-sse", test))] // only the legacy transport resolves references
fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(any(feature = "legacy-sse", test))] // only the legacy transport resolves references
/// Resolves `reference` against the absolute `base` (RFC 3986 5.2.2,
/// strict). The fragment is dropped: it never goes over HTTP.
pub(crate) fn resolve(base: &str, reference: &str) -> Result<String, String> {
    let b = Reference::split(base);
    let Some(base_scheme) = b.scheme else {
        return Err(format!("the base {base} is not absolute", base = Quoted(base)));
    };
    if reference.contains(':') && Reference::split(reference).scheme.is_none() {
        // `a:b` with a malformed scheme, or a first segment with a colon:
        // RFC 3986 4.2 forbids it in a relative-path reference.
        let first = reference.split(['/', '?', '#']).next().unwrap_or_default();
        if first.contains(':') {
            return Err("it has a malformed scheme".into());
        }
    }
    let r = Reference::split(reference);
    let (scheme, authority, path, query);
    if let Some(s) = r.scheme {
        scheme = s.to_owned();
        authority = r.authority.map(str::to_owned);
        path = remove_dot_segments(r.path);
        query = r.query;
    } else {
        scheme = base_scheme.to_owned();
        if let Some(a) = r.authority {
            authority = Some(a.to_owned());
            path = remove_dot_segments(r.path);
            query = r.query;
        } else {
            authority = b.authority.map(str::to_owned);
            if r.path.is_empty() {
                path = b.path.to_owned();
                query = r.query.or(b.query);
            } else {
                path = if r.path.starts_with('/') {
                    remove_dot_segments(r.path)
                } else {
                    remove_dot_segments(&merge(b.authority.is_some(), b.path, r.path))
                };
                query = r.query;
            }
        }
    }
    let mut out = String::new();
    out.push_str(&scheme);
    out.push(':');
    if let Some(authority) = &authority {
        out.push_str("//");
        out.push_str(authority);
    }
    out.push_str(&path);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    Ok(out)
}

#[cfg(any(feature = "legacy-sse", test))] // only the legacy transport resolves references
/// RFC 3986 5.2.3.
fn merge(base_has_authority: bool, base_path: &str, reference_path: &str) -> String {
    if base_has_authority && base_path.is_empty() {
        return format!("/{reference_path}");
    }
    match last(base_path, b'/') {
        Some(slash) => format!("{}{reference_path}", &base_path[..=slash]),
        None => reference_path.to_owned(),
    }
}

/// RFC 3986 5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut input = path;
    let mut output = String::with_capacity(path.len());
    while !input.is_empty() {
        if let Some(rest) = input.strip_prefix("../") {
            input = rest;
        } else if let Some(rest) = input.strip_prefix("./") {
            input = rest;
        } else if input.starts_with("/./") {
            input = &input[2..];
        } else if input == "/." {
            input = "/";
        } else if input.starts_with("/../") || input == "/.." {
            input = if input == "/.." { "/" } else { &input[3..] };
            match last(&output, b'/') {
                Some(slash) => output.truncate(slash),
                None => output.clear(),
            }
        } else if input == "." || input == ".." {
            input = "";
        } else {
            let start = usize::from(input.starts_with('/'));
            let end = input[start..].find('/').map_or(input.len(), |i| i + start);
            output.push_str(&input[..end]);
            input = &input[end..];
        }
    }
    output
}

#[cfg(feature = "legacy-sse")] // only the legacy transport checks endpoint origins
/// The host (lowercase, brackets kept for IPv6) and port of an authority.
pub(crate) fn host_port(authority: &str) -> (String, Option<&str>) {
    let host_port = last(authority, b'@').map_or(authority, |at| &authority[at + 1..]);
    let (host, port) = if host_port.starts_with('[') {
        match host_port.find(']') {
            Some(end) => {
                let port = host_port[end + 1..].strip_prefix(':');
                (&host_port[..=end], port)
            }
            None => (host_port, None),
        }
    } else {
        match last(host_port, b':') {
            Some(colon) => (&host_port[..colon], Some(&host_port[colon + 1..])),
            None => (host_port, None),
        }
    };
    (host.to_ascii_lowercase(), port.filter(|p| !p.is_empty()))
}

#[cfg(feature = "legacy-sse")] // only the legacy transport checks endpoint origins
/// The origin (scheme, host, port with the scheme's default filled in) of
/// an absolute http(s) URL; `None` for anything else. Lenient where
/// [`Url::parse`] is strict: it splits any text as a reference first.
pub(crate) fn origin_parts(url: &str) -> Option<(String, String, u16)> {
    let parts = Reference::split(url);
    let scheme = parts.scheme?.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let (host, port) = host_port(parts.authority?);
    if host.is_empty() {
        return None;
    }
    let port = match port {
        Some(port) => number(port)?,
        None => default_port,
    };
    Some((scheme, host, port))
}

/// Appends query parameters to a URL that may already have a query.
pub fn with_query(url: &str, pairs: &[(&str, &str)]) -> String {
    let (base, fragment) = match url.find('#') {
        Some(hash) => (&url[..hash], &url[hash..]),
        None => (url, ""),
    };
    let encoded = encode_form(pairs);
    let separator = if !base.contains('?') {
        "?"
    } else if base.ends_with('?') || base.ends_with('&') {
        ""
    } else {
        "&"
    };
    format!("{base}{separator}{encoded}{fragment}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_parts() {
        let url = Url::parse("HTTPS://User@Example.COM:8443/a/b?x=1#frag").unwrap();
        assert_eq!(url.scheme, "https");
        assert_eq!(url.userinfo.as_deref(), Some("User"));
        assert_eq!(url.host, "example.com");
        assert_eq!(url.port, Some(8443));
        assert_eq!(url.path, "/a/b");
        assert_eq!(url.query.as_deref(), Some("x=1"));
        assert_eq!(url.fragment.as_deref(), Some("frag"));
        assert_eq!(url.origin(), "https://example.com:8443");
        let bare = Url::parse("http://localhost:3000").unwrap();
        assert_eq!(bare.path, "");
        assert_eq!(bare.to_string(), "http://localhost:3000");
        let v6 = Url::parse("http://[::1]:8080/mcp").unwrap();
        assert_eq!(v6.host, "[::1]");
        assert!(v6.is_loopback());
    }

    #[test]
    fn refuses_what_is_not_an_absolute_url() {
        for bad in
            ["", "mcp.example.com", "/relative", "https://", "https://host:99999/", "https://ho st/", "1https://x/"]
        {
            assert!(Url::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn origins_compare_with_default_ports() {
        let a = Url::parse("https://example.com/x").unwrap();
        let b = Url::parse("https://EXAMPLE.com:443/y").unwrap();
        let c = Url::parse("http://example.com/x").unwrap();
        assert!(a.same_origin(&b));
        assert!(!a.same_origin(&c));
        // The userinfo trick does not change the host.
        let tricky = Url::parse("https://example.com@evil.example/").unwrap();
        assert_eq!(tricky.host, "evil.example");
    }

    #[test]
    fn joins_references() {
        let base = Url::parse("https://as.example/oauth/authorize?x=1").unwrap();
        assert_eq!(base.join("/cb?code=1").unwrap().to_string(), "https://as.example/cb?code=1");
        assert_eq!(base.join("cb").unwrap().to_string(), "https://as.example/oauth/cb");
        assert_eq!(base.join("../up").unwrap().to_string(), "https://as.example/up");
        assert_eq!(base.join("//other.example/p").unwrap().to_string(), "https://other.example/p");
        assert_eq!(base.join("http://localhost:3000/callback?code=a").unwrap().host, "localhost");
    }

    #[test]
    fn query_helpers() {
        assert_eq!(with_query("https://a/x", &[("a", "b c")]), "https://a/x?a=b+c");
        assert_eq!(with_query("https://a/x?k=1", &[("a", "&")]), "https://a/x?k=1&a=%26");
        let url = Url::parse("http://localhost/cb?code=a%20b&state=x").unwrap();
        assert_eq!(url.query_pairs(), vec![("code".into(), "a b".into()), ("state".into(), "x".into())]);
        assert_eq!(form_component("a b:c/é"), "a+b%3Ac%2F%C3%A9");
    }

    #[test]
    fn rfc3986_normal_examples() {
        // RFC 3986 5.4.1, base http://a/b/c/d;p?q
        let base = "http://a/b/c/d;p?q";
        let cases = [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q"),
            ("g#s", "http://a/b/c/g"),
            ("g?y#s", "http://a/b/c/g?y"),
            (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../", "http://a/"),
            ("../../g", "http://a/g"),
        ];
        for (reference, expected) in cases {
            assert_eq!(resolve(base, reference).as_deref(), Ok(expected), "{reference:?}");
        }
    }

    #[test]
    fn rfc3986_abnormal_examples() {
        // RFC 3986 5.4.2
        let base = "http://a/b/c/d;p?q";
        let cases = [
            ("../../../g", "http://a/g"),
            ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g"),
            ("g#s/../x", "http://a/b/c/g"),
            ("http:g", "http:g"),
        ];
        for (reference, expected) in cases {
            assert_eq!(resolve(base, reference).as_deref(), Ok(expected), "{reference:?}");
        }
    }
}
