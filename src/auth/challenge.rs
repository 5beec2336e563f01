//! `WWW-Authenticate` (RFC 9110 §11.6.1): one header may hold several
//! challenges, each a scheme followed by a token68 or by comma-separated
//! `name=value` parameters whose values are tokens or quoted strings.
//!
//! ```text
//! challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//! auth-param = token BWS "=" BWS ( token / quoted-string )
//! token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//! ```
//!
//! Scheme and parameter names are case-insensitive (kept lowercase here).

/// One challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The scheme, lowercase (`bearer`, `dpop`, `basic`).
    pub scheme: String,
    /// The token68 form, when the challenge uses it instead of parameters.
    pub token68: Option<String>,
    /// Parameters in order, names lowercase, values unescaped.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// A parameter's value by case-insensitive name (the first, if repeated).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Why a header could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed WWW-Authenticate at byte {at}: {reason}")]
pub struct ChallengeError {
    /// Where.
    pub at: usize,
    /// What.
    pub reason: &'static str,
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.at;
        while self.peek().is_some_and(is_tchar) {
            self.at += 1;
        }
        (self.at > start).then(|| crate::protocol::utf8_lossy(&self.bytes[start..self.at]).into_owned())
    }

    fn quoted(&mut self) -> Result<String, ChallengeError> {
        // At the opening quote.
        self.at += 1;
        let mut value = Vec::new();
        loop {
            match self.peek() {
                None => return Err(ChallengeError { at: self.at, reason: "unterminated quoted string" }),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(crate::protocol::utf8_lossy(&value).into_owned());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.peek() {
                        Some(b) if b == b'\t' || b >= 0x20 && b != 0x7f => {
                            value.push(b);
                            self.at += 1;
                        }
                        _ => return Err(ChallengeError { at: self.at, reason: "bad escape in quoted string" }),
                    }
                }
                Some(b) if b == b'\t' || (b >= 0x20 && b != 0x7f) => {
                    value.push(b);
                    self.at += 1;
                }
                Some(_) => return Err(ChallengeError { at: self.at, reason: "control character in quoted string" }),
            }
        }
    }

    /// Tries `name BWS "=" BWS value`; on failure the cursor is unchanged.
    fn auth_param(&mut self) -> Result<Option<(String, String)>, ChallengeError> {
        let start = self.at;
        let Some(name) = self.token() else { return Ok(None) };
        self.skip_ows();
        if self.peek() != Some(b'=') {
            self.at = start;
            return Ok(None);
        }
        self.at += 1;
        self.skip_ows();
        let value = match self.peek() {
            Some(b'"') => self.quoted()?,
            _ => match self.token() {
                Some(value) => value,
                None => {
                    self.at = start;
                    return Ok(None);
                }
            },
        };
        // A parameter ends at a comma or the end of the header.
        let end = self.at;
        self.skip_ows();
        if !matches!(self.peek(), None | Some(b',')) {
            self.at = start;
            return Ok(None);
        }
        self.at = end;
        Ok(Some((name.to_ascii_lowercase(), value)))
    }

    /// Tries a token68 that ends the challenge; on failure the cursor is unchanged.
    fn token68(&mut self) -> Option<String> {
        let start = self.at;
        while self.peek().is_some_and(is_token68_char) {
            self.at += 1;
        }
        if self.at == start {
            return None;
        }
        while self.peek() == Some(b'=') {
            self.at += 1;
        }
        let end = self.at;
        self.skip_ows();
        if matches!(self.peek(), None | Some(b',')) {
            Some(crate::protocol::utf8_lossy(&self.bytes[start..end]).into_owned())
        } else {
            self.at = start;
            None
        }
    }
}

/// Parses every challenge in one header value (or several values joined with `,`).
pub fn parse(header: &str) -> Result<Vec<Challenge>, ChallengeError> {
    let mut cursor = Cursor { bytes: header.as_bytes(), at: 0 };
    let mut challenges = Vec::new();
    loop {
        // Empty list elements are allowed: `, ,Bearer`.
        loop {
            cursor.skip_ows();
            if cursor.peek() == Some(b',') {
                cursor.at += 1;
            } else {
                break;
            }
        }
        if cursor.peek().is_none() {
            return Ok(challenges);
        }
        let scheme = cursor.token().ok_or(ChallengeError { at: cursor.at, reason: "expected an auth scheme" })?;
        let mut challenge = Challenge { scheme: scheme.to_ascii_lowercase(), token68: None, params: Vec::new() };
        let had_space = matches!(cursor.peek(), Some(b' ' | b'\t'));
        cursor.skip_ows();
        if had_space && !matches!(cursor.peek(), None | Some(b',')) {
            match cursor.auth_param()? {
                Some(param) => challenge.params.push(param),
                None => match cursor.token68() {
                    Some(token) => challenge.token68 = Some(token),
                    None => return Err(ChallengeError { at: cursor.at, reason: "expected a parameter or token68" }),
                },
            }
            if challenge.token68.is_none() {
                // More parameters follow commas until something that is not
                // `name=` starts the next challenge.
                loop {
                    let before = cursor.at;
                    cursor.skip_ows();
                    if cursor.peek() != Some(b',') {
                        cursor.at = before;
                        break;
                    }
                    while matches!(cursor.peek(), Some(b',' | b' ' | b'\t')) {
                        cursor.at += 1;
                    }
                    match cursor.auth_param()? {
                        Some((name, value)) => {
                            if challenge.param(&name).is_none() {
                                challenge.params.push((name, value));
                            }
                        }
                        None => break,
                    }
                }
            }
        } else if !matches!(cursor.peek(), None | Some(b',')) {
            return Err(ChallengeError { at: cursor.at, reason: "expected a space after the scheme" });
        }
        challenges.push(challenge);
    }
}

/// What an OAuth resource server said in its `Bearer` (or `DPoP`) challenge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// The scheme it came from (`bearer` or `dpop`).
    pub scheme: String,
    /// RFC 9728 §5.1: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated in the header.
    pub scope: Option<Vec<String>>,
    /// `invalid_token`, `insufficient_scope`, `use_dpop_nonce`, ...
    pub error: Option<String>,
    /// A human-readable explanation.
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// Whether the server asks for more scopes.
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The first `Bearer` challenge (or, failing that, `DPoP`) among all the
/// `WWW-Authenticate` values. A malformed value is skipped, not fatal: the
/// flow then falls back to well-known discovery.
pub fn bearer<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<BearerChallenge> {
    let mut all = Vec::new();
    for value in values {
        match parse(value) {
            Ok(challenges) => all.extend(challenges),
            Err(error) => log::warn!("ignoring a WWW-Authenticate value: {error}"),
        }
    }
    let chosen = all.iter().find(|c| c.scheme == "bearer").or_else(|| all.iter().find(|c| c.scheme == "dpop"))?;
    let scope = chosen.param("scope").map(crate::auth::scope::words).filter(|s| !s.is_empty());
    Some(BearerChallenge {
        scheme: chosen.scheme.clone(),
        resource_metadata: chosen.param("resource_metadata").map(str::to_owned),
        scope,
        error: chosen.param("error").map(str::to_owned),
        error_description: chosen.param("error_description").map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(header: &str) -> Challenge {
        let mut all = parse(header).unwrap();
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0)
    }

    #[test]
    fn the_mcp_shape() {
        let c = one(
            r#"Bearer error="invalid_token", error_description="Missing Authorization header", scope="mcp:basic mcp:write", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.scheme, "bearer");
        assert_eq!(c.param("error"), Some("invalid_token"));
        assert_eq!(c.param("SCOPE"), Some("mcp:basic mcp:write"));
        assert_eq!(c.param("resource_metadata"), Some("http://localhost:1/.well-known/oauth-protected-resource/mcp"));
    }

    #[test]
    fn several_challenges_tokens_and_token68() {
        let all = parse(r#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].scheme, "newauth");
        assert_eq!(all[0].param("type"), Some("1"));
        assert_eq!(all[0].param("title"), Some(r#"Login to "apps""#));
        assert_eq!(all[1].scheme, "basic");
        assert_eq!(all[1].param("realm"), Some("simple"));

        let all = parse("Negotiate abc/def+==, BEARER realm=x , Basic").unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].token68.as_deref(), Some("abc/def+=="));
        assert_eq!(all[1].scheme, "bearer");
        assert_eq!(all[1].param("realm"), Some("x"));
        assert_eq!(all[2].scheme, "basic");
        assert!(all[2].params.is_empty());
    }

    #[test]
    fn commas_and_spaces_inside_quotes_and_empty_elements() {
        let all = parse(r#" , Bearer scope = "a, b=c" ,, error="x\\y" , DPoP algs="ES256""#).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].param("scope"), Some("a, b=c"));
        assert_eq!(all[0].param("error"), Some(r"x\y"));
        assert_eq!(all[1].scheme, "dpop");
    }

    #[test]
    fn malformed_headers_are_errors_not_panics() {
        for bad in [
            r#"Bearer realm="unterminated"#,
            "Bearer realm=\"a\u{1}b\"",
            "=oops",
            "Bearer realm=\"x\" junk",
            "Bearer,realm",
            "Bearer realm=\"x\"\\",
        ] {
            let _ = parse(bad);
        }
        assert!(parse(r#"Bearer realm="unterminated"#).is_err());
        assert!(parse("=oops").is_err());
        // A long hostile header parses in linear time.
        let long = format!("Bearer {}", "a=b, ".repeat(20000));
        assert_eq!(parse(&long).unwrap()[0].params.len(), 1);
    }

    #[test]
    fn bearer_extraction_prefers_bearer_and_skips_garbage() {
        let found = bearer([r#"Basic realm="x""#, r#"bearer scope="mcp:basic""#]).unwrap();
        assert_eq!(found.scope, Some(vec!["mcp:basic".to_owned()]));
        assert!(bearer(["Bearer realm=\"oops"]).is_none());
        let step_up = bearer([r#"Bearer error="insufficient_scope", scope="a  b""#]).unwrap();
        assert!(step_up.is_insufficient_scope());
        assert_eq!(step_up.scope, Some(vec!["a".to_owned(), "b".to_owned()]));
        let dpop = bearer([r#"DPoP error="use_dpop_nonce""#]).unwrap();
        assert_eq!(dpop.scheme, "dpop");
        assert_eq!(bearer([r#"Bearer scope="""#]).unwrap().scope, None);
    }
}
