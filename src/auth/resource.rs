//! The resource indicator of RFC 8707: which MCP server a token is for.

use crate::debug::Quoted;
use crate::http::url::Url;

/// The canonical URI of an MCP server (RFC 8707, MCP 2025-11-25): absolute,
/// no fragment, lowercase scheme and host, no default port; the path and
/// query are kept as written (no trailing slash is added or removed).
pub fn canonical(server_url: &str) -> Result<String, String> {
    let mut url = Url::parse(server_url)?;
    if url.scheme != "http" && url.scheme != "https" {
        return Err(format!("{server_url} is not an http(s) URL", server_url = Quoted(server_url)));
    }
    url.fragment = None;
    url.userinfo = None;
    if url.port.is_some() && url.port == default_port(&url.scheme) {
        url.port = None;
    }
    Ok(url.to_string())
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// Whether protected resource metadata that names `resource` may be used
/// for the server at `server_url`: the same origin, and the server's path
/// equal to the resource's path or below it at a segment boundary
/// (`https://h/api` covers `https://h/api/mcp`, not `https://h/apix`).
pub fn covers(resource: &str, server_url: &str) -> bool {
    let (Ok(resource), Ok(server)) = (Url::parse(resource), Url::parse(server_url)) else {
        return false;
    };
    if resource.fragment.is_some() || !resource.same_origin(&server) {
        return false;
    }
    if resource.query.is_some() && resource.query != server.query {
        return false;
    }
    let with_slash = |path: &str| if path.ends_with('/') { path.to_owned() } else { format!("{path}/") };
    with_slash(&server.path).starts_with(&with_slash(&resource.path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(canonical("HTTPS://MCP.Example.com/Server/MCP#x").unwrap(), "https://mcp.example.com/Server/MCP");
        assert_eq!(canonical("https://mcp.example.com:443").unwrap(), "https://mcp.example.com");
        assert_eq!(canonical("https://mcp.example.com:8443").unwrap(), "https://mcp.example.com:8443");
        assert_eq!(canonical("http://localhost:3000/mcp").unwrap(), "http://localhost:3000/mcp");
        assert!(canonical("mcp.example.com").is_err());
        assert!(canonical("ftp://mcp.example.com/").is_err());
    }

    #[test]
    fn what_a_resource_covers() {
        assert!(covers("http://localhost:1/mcp", "http://localhost:1/mcp"));
        assert!(covers("http://localhost:1", "http://localhost:1/mcp"));
        assert!(covers("http://LOCALHOST:1/", "http://localhost:1/mcp"));
        assert!(covers("https://h/api", "https://h/api/mcp"));
        assert!(!covers("https://h/apix", "https://h/api/mcp"));
        assert!(!covers("https://h/api/mcp/deeper", "https://h/api/mcp"));
        assert!(!covers("https://evil.example.com/mcp", "http://localhost:1/mcp"));
        assert!(!covers("http://localhost:2/mcp", "http://localhost:1/mcp"));
        assert!(!covers("https://localhost:1/mcp", "http://localhost:1/mcp"));
        assert!(!covers("not a url", "http://localhost:1/mcp"));
        assert!(!covers("http://localhost:1/mcp#f", "http://localhost:1/mcp"));
    }
}
