//! OAuth against a certified authorization server: panva's oidc-provider
//! (tests/peers/oidc-server.mjs) protecting an MCP server built from the
//! official TS SDK (`requireBearerAuth`), with rotating refresh tokens that
//! revoke the grant on reuse, JWT access tokens for the MCP server's
//! audience, DCR and PKCE required. Sign-in is scripted by the server; the
//! test's authorizer plays the browser (follows the redirects with cookies).
//! Each test reads the authorization server's request log to count what
//! happened (refreshes, token types, registrations).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_edge::auth::{
    AuthConfig, AuthError, AuthorizationRequest, Authorizer, FileTokenStore, MemoryTokenStore, OAuthProvider,
    TokenStore,
};
use mcp_edge::{BoxFuture, Client, ClientOptions, ConnectOptions, connect_url};
use serde_json::{Value, json};
use support::native::{Lines, Server, bounded, sdk_script_path};

/// The authorization server and the MCP server it protects.
struct Oidc {
    _server: Server,
    mcp: String,
    origin: String,
    output: Lines,
}

impl Oidc {
    /// Starts it with these settings (see oidc-server.mjs); `None` without the peers.
    async fn start(settings: Value) -> Option<Oidc> {
        let script = sdk_script_path("oidc-server.mjs")?;
        let output = Lines::default();
        let (server, mcp) = Server::announced("node", &[script.to_string_lossy().into_owned()], output.clone()).await;
        let origin = mcp.trim_end_matches("/mcp").to_owned();
        let oidc = Oidc { _server: server, mcp, origin, output };
        oidc.configure(settings).await;
        Some(oidc)
    }

    async fn configure(&self, settings: Value) {
        let query: Vec<String> = settings
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| format!("{k}={}", v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())))
            .collect();
        let answer = reqwest::get(format!("{}/__config?{}", self.origin, query.join("&"))).await.unwrap();
        assert!(answer.status().is_success());
    }

    /// The request log.
    async fn log(&self) -> Vec<Value> {
        let answer = reqwest::get(format!("{}/__log", self.origin)).await.unwrap();
        serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap()
    }

    /// Token requests with this grant type.
    async fn grants(&self, grant_type: &str) -> Vec<Value> {
        let log = self.log().await;
        log.into_iter().filter(|e| e["path"] == "/token" && e["grant_type"] == grant_type).collect()
    }

    async fn count(&self, test: impl Fn(&Value) -> bool) -> usize {
        self.log().await.iter().filter(|e| test(e)).count()
    }
}

/// The user's browser: opens the authorization URL and follows the
/// authorization server's redirects (keeping its cookies) until one goes to
/// the redirect URI, which it returns without loading.
#[derive(Debug, Clone, Default)]
struct Browser {
    cookies: Arc<Mutex<HashMap<String, String>>>,
}

impl Browser {
    async fn follow(&self, start: &str, redirect_uri: &str) -> Result<String, AuthError> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(20))
            .build()
            .unwrap();
        let target = redirect_uri.split('?').next().unwrap_or(redirect_uri).to_owned();
        let mut url = start.to_owned();
        for _ in 0..10 {
            if url.starts_with(&target) {
                return Ok(url);
            }
            let cookie: Vec<String> =
                self.cookies.lock().unwrap().iter().map(|(name, value)| format!("{name}={value}")).collect();
            let answer = http.get(&url).header("cookie", cookie.join("; ")).send().await.unwrap();
            for value in answer.headers().get_all("set-cookie") {
                let pair = value.to_str().unwrap().split(';').next().unwrap_or_default();
                if let Some((name, value)) = pair.split_once('=') {
                    self.cookies.lock().unwrap().insert(name.trim().to_owned(), value.to_owned());
                }
            }
            let status = answer.status().as_u16();
            let Some(location) = answer.headers().get("location").map(|l| l.to_str().unwrap().to_owned()) else {
                let body = answer.text().await.unwrap_or_default();
                return Err(AuthError::Authorizer(format!("the authorization server answered {status}: {body}")));
            };
            url = reqwest::Url::parse(&url).unwrap().join(&location).unwrap().to_string();
        }
        Err(AuthError::Authorizer("too many redirects".into()))
    }
}

impl Authorizer for Browser {
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>> {
        Box::pin(self.follow(&request.url, &request.redirect_uri))
    }
}

fn loopback(port: u16) -> String {
    format!("http://127.0.0.1:{port}/callback")
}

fn provider(oidc: &Oidc, config: AuthConfig, store: Arc<dyn TokenStore>) -> OAuthProvider {
    let mut config = config;
    config.client_name = "mcp-edge oidc test".into();
    OAuthProvider::new(&oidc.mcp, config).unwrap().with_authorizer(Browser::default()).with_store(store)
}

async fn connect(oidc: &Oidc, provider: OAuthProvider) -> Result<Client, mcp_edge::Error> {
    let options = ClientOptions::new("oidc-test", "1.0.0").with_timeout(Duration::from_secs(30));
    connect_url(&oidc.mcp, ConnectOptions::new().with_auth(provider), options).await
}

async fn echo(client: &Client, message: &str) -> Result<String, mcp_edge::Error> {
    let arguments = json!({ "message": message }).as_object().cloned();
    let result = client.call_tool("echo", arguments).await?;
    Ok(support::texts(&result))
}

/// Drops the tokens, keeps the registrations: the next connect authorizes again.
async fn forget_tokens(store: &Arc<dyn TokenStore>, server: &str) {
    let mut record = store.load(server).await.unwrap().unwrap();
    record.tokens = None;
    store.save(server, &record).await.unwrap();
}

/// Issue 15 point 1: a 30 s token is not refreshed before every request
/// (the margin scales with its lifetime), and a token about to expire is
/// refreshed once, not once per request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_lived_tokens_are_refreshed_once_per_expiry() {
    bounded(async {
        let Some(oidc) = Oidc::start(json!({ "accessTtl": 30 })).await else { return };
        let store = Arc::new(MemoryTokenStore::new());
        let client = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(1)), store.clone())).await.unwrap();
        for round in 0..3 {
            assert_eq!(echo(&client, &format!("fresh {round}")).await.unwrap(), format!("Echo: fresh {round}"));
        }
        let refreshes = oidc.grants("refresh_token").await.len();
        assert_eq!(refreshes, 0, "a 30 s token was refreshed while fresh: {:#?}", oidc.log().await);

        // A 4 s token: the margin is 2 s, so after 2.5 s it is due, and
        // three calls in a row refresh it once.
        oidc.configure(json!({ "accessTtl": 4 })).await;
        drop(client);
        let store = Arc::new(MemoryTokenStore::new());
        let client = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(1)), store)).await.unwrap();
        let before = oidc.grants("refresh_token").await.len();
        tokio::time::sleep(Duration::from_millis(2500)).await;
        for round in 0..3 {
            assert_eq!(echo(&client, &format!("due {round}")).await.unwrap(), format!("Echo: due {round}"));
        }
        let refreshes = oidc.grants("refresh_token").await;
        assert_eq!(refreshes.len() - before, 1, "one expiry, one refresh: {refreshes:#?}");
        assert!(refreshes.iter().all(|r| r["status"] == 200 && r["token_type"] == "Bearer"), "{refreshes:#?}");
        assert_eq!(oidc.count(|e| e["event"] == "grant.revoked").await, 0);
    })
    .await
}

/// Issue 14 point 7: 20 concurrent calls when the access token is due make
/// exactly one refresh, against rotation with reuse detection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_concurrent_calls_make_one_refresh() {
    bounded(async {
        let Some(oidc) = Oidc::start(json!({ "accessTtl": 4, "refreshDelayMs": 300 })).await else { return };
        let store = Arc::new(MemoryTokenStore::new());
        let client = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(1)), store)).await.unwrap();
        assert_eq!(echo(&client, "first").await.unwrap(), "Echo: first");
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let calls = (0..20).map(|n| {
            let client = client.clone();
            async move { echo(&client, &format!("call {n}")).await }
        });
        let results = futures::future::join_all(calls).await;
        for (n, result) in results.iter().enumerate() {
            assert_eq!(result.as_deref().ok(), Some(format!("Echo: call {n}").as_str()), "{result:?}");
        }
        let refreshes = oidc.grants("refresh_token").await;
        assert_eq!(refreshes.len(), 1, "{refreshes:#?}");
        assert_eq!(refreshes[0]["status"], 200);
        assert_eq!(oidc.count(|e| e["event"] == "grant.revoked").await, 0);
        assert_eq!(oidc.grants("authorization_code").await.len(), 1);
        eprintln!("20 concurrent calls at expiry: {} refresh request(s), 0 grants revoked", refreshes.len());
    })
    .await
}

/// Issue 15 point 2: the authorization server advertises DPoP, the resource
/// takes Bearer only (its challenge says Bearer, its metadata has no DPoP
/// fields): the client must send Bearer tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_only_when_the_resource_asks() {
    bounded(async {
        let Some(oidc) = Oidc::start(json!({})).await else { return };
        let store = Arc::new(MemoryTokenStore::new());
        let client = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(1)), store)).await.unwrap();
        assert_eq!(echo(&client, "bearer").await.unwrap(), "Echo: bearer");
        let codes = oidc.grants("authorization_code").await;
        assert_eq!(codes.len(), 1, "{codes:#?}");
        assert_eq!(codes[0]["token_type"], "Bearer", "{codes:#?}");
        assert_eq!(codes[0]["dpop"], false);
        let schemes: Vec<Value> =
            oidc.log().await.into_iter().filter(|e| e["path"] == "/mcp").map(|e| e["scheme"].clone()).collect();
        assert!(schemes.iter().skip(1).all(|s| s == "Bearer"), "{schemes:?}");

        // Turned on by the user, against this Bearer-only server: the error says why.
        let mut config = AuthConfig::new(loopback(1));
        config.dpop = true;
        let error = connect(&oidc, provider(&oidc, config, Arc::new(MemoryTokenStore::new()))).await.unwrap_err();
        let text = error.to_string();
        assert!(text.contains("accepts Bearer tokens only"), "{text}");
        assert!(text.contains("DPoP was used because the client is configured to use it"), "{text}");
        assert!(error.is_auth(), "{error:?}");

        // A server whose metadata requires DPoP gets DPoP-bound tokens.
        oidc.configure(json!({ "dpop": "required" })).await;
        let before = oidc.grants("authorization_code").await.len();
        let kept = Arc::new(MemoryTokenStore::new());
        let client = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(1)), kept.clone())).await.unwrap();
        assert_eq!(echo(&client, "dpop").await.unwrap(), "Echo: dpop");
        let codes = oidc.grants("authorization_code").await;
        assert_eq!(codes.len(), before + 1, "{codes:#?}");
        assert_eq!(codes[before]["token_type"], "DPoP", "{codes:#?}");
        let last = oidc.log().await.into_iter().rfind(|e| e["path"] == "/mcp").unwrap();
        assert_eq!(last["scheme"], "DPoP", "{last:#?}");
        assert_eq!(last["status"], 200, "{last:#?}");

        // A later process finds those tokens in the store, but not their
        // key (it lived in the first process's memory): it cannot present
        // them, so it signs in again with a key of its own.
        drop(client);
        let later = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(1)), kept)).await.unwrap();
        assert_eq!(echo(&later, "dpop again").await.unwrap(), "Echo: dpop again");
        let codes = oidc.grants("authorization_code").await;
        assert_eq!(codes.len(), before + 2, "{codes:#?}");
        assert_eq!(codes[before + 1]["token_type"], "DPoP", "{codes:#?}");
    })
    .await
}

/// The CLI's file store with a token that is due, two processes at once:
/// one refresh, the other process uses what the first stored, the grant
/// survives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_cli_processes_refresh_once() {
    bounded(async {
        let Some(oidc) = Oidc::start(json!({ "accessTtl": 4, "refreshDelayMs": 1500 })).await else { return };
        let config = std::env::temp_dir().join(format!("mcp-edge-oidc-{}-{}", std::process::id(), oidc.mcp.len()));
        let _ = std::fs::remove_dir_all(&config);
        let store = Arc::new(FileTokenStore::in_dir(config.join("mcp-edge/tokens")));
        let client = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(1)), store.clone())).await.unwrap();
        assert_eq!(echo(&client, "seed").await.unwrap(), "Echo: seed");
        drop(client);
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let run = |config: std::path::PathBuf, url: String| {
            tokio::task::spawn_blocking(move || {
                let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-edge"));
                command.args(["--no-browser", &url, "call", "echo", r#"{"message":"twice"}"#]);
                command.env("XDG_CONFIG_HOME", &config).env_remove("RUST_LOG");
                support::native::run_to_end(command, Duration::from_secs(60), "mcp-edge")
            })
        };
        let (first, second) =
            tokio::join!(run(config.clone(), oidc.mcp.clone()), run(config.clone(), oidc.mcp.clone()));
        for finished in [first.unwrap(), second.unwrap()] {
            assert_eq!(finished.code, Some(0), "{finished:#?}\n{:#?}", oidc.log().await);
            assert!(finished.stdout.contains("Echo: twice"), "{finished:#?}");
        }
        let refreshes = oidc.grants("refresh_token").await;
        assert_eq!(refreshes.len(), 1, "{refreshes:#?}");
        assert_eq!(oidc.count(|e| e["event"] == "grant.revoked").await, 0, "{:#?}", oidc.log().await);
        // The grant is alive: the stored refresh token works once more.
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let finished = run(config.clone(), oidc.mcp.clone()).await.unwrap();
        assert_eq!(finished.code, Some(0), "{finished:#?}");
        let refreshes = oidc.grants("refresh_token").await;
        assert_eq!(refreshes.len(), 2, "{refreshes:#?}");
        assert!(refreshes.iter().all(|r| r["status"] == 200), "{refreshes:#?}");
        eprintln!("two processes at expiry: {} refresh(es), then one more after the next expiry", 1);
        let _ = oidc.output.get();
        let _ = std::fs::remove_dir_all(&config);
    })
    .await
}

/// Issue 15 point 4: with a store that outlives the session, the client asks
/// for `offline_access` (listed in the AS's scopes_supported, with
/// prompt=consent as OpenID Connect requires), so oidc-provider with its
/// default policy issues a refresh token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_access_gets_a_refresh_token() {
    bounded(async {
        let Some(oidc) = Oidc::start(json!({ "refresh": "offline_access" })).await else { return };
        let dir = std::env::temp_dir().join(format!("mcp-edge-oidc-offline-{}", std::process::id()));
        let store = Arc::new(FileTokenStore::in_dir(&dir));
        let client = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(1)), store.clone())).await.unwrap();
        assert_eq!(echo(&client, "offline").await.unwrap(), "Echo: offline");
        let log = oidc.log().await;
        let authorize: Vec<&Value> = log.iter().filter(|e| e["path"] == "/auth").collect();
        assert!(authorize[0]["scope"].as_str().unwrap_or_default().contains("offline_access"), "{authorize:#?}");
        let codes = oidc.grants("authorization_code").await;
        assert_eq!(codes[0]["refresh_token"], true, "no refresh token issued: {codes:#?}");
        let record = store.load(&oidc.mcp).await.unwrap().unwrap();
        assert!(record.tokens.unwrap().refresh_token.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    })
    .await
}

/// Issue 15 point 4: the registration holds the port-less loopback form, so
/// a later run on another port reuses it (one registration in the AS log).
/// An AS that refuses port-less redirect URIs and matches exactly gets a
/// registration per redirect URI instead of a refused authorization.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_registrations_follow_the_port() {
    bounded(async {
        let Some(oidc) = Oidc::start(json!({})).await else { return };
        let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());
        for port in [40001, 40002] {
            let client = connect(&oidc, provider(&oidc, AuthConfig::new(loopback(port)), store.clone())).await.unwrap();
            assert_eq!(echo(&client, "port").await.unwrap(), "Echo: port");
            forget_tokens(&store, &oidc.mcp).await;
        }
        let registrations: Vec<Value> =
            oidc.log().await.into_iter().filter(|e| e["path"] == "/reg" && e["method"] == "POST").collect();
        assert_eq!(registrations.len(), 1, "{registrations:#?}");
        assert_eq!(registrations[0]["redirect_uris"][0], "http://127.0.0.1/callback", "{registrations:#?}");

        // The strict one.
        let Some(strict) = Oidc::start(json!({ "strictRedirect": true })).await else { return };
        let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());
        for port in [40001, 40002] {
            let outcome = connect(&strict, provider(&strict, AuthConfig::new(loopback(port)), store.clone())).await;
            let client = outcome.unwrap_or_else(|e| panic!("port {port}: {e}"));
            assert_eq!(echo(&client, "strict").await.unwrap(), "Echo: strict");
            forget_tokens(&store, &strict.mcp).await;
        }
        let created: Vec<Value> = strict
            .log()
            .await
            .into_iter()
            .filter(|e| e["path"] == "/reg" && e["method"] == "POST" && e["status"] == 201)
            .collect();
        assert_eq!(created.len(), 2, "{created:#?}");
    })
    .await
}

/// Runs the CLI with `--no-browser` and plays the user: reads the
/// authorization URL it prints, signs in through the test's browser, and
/// pastes the redirect. Returns the exit code and stdout.
async fn cli_sign_in(config: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    use std::io::{BufRead, Read, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-edge"))
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (send, receive) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    let url = tokio::task::spawn_blocking(move || {
        loop {
            let line = receive.recv_timeout(Duration::from_secs(30)).expect("the authorization URL on stderr");
            if line.starts_with("http") && line.contains("/auth?") {
                return line;
            }
        }
    })
    .await
    .unwrap();
    let redirect_uri = reqwest::Url::parse(&url)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    let location = Browser::default().follow(&url, &redirect_uri).await.unwrap();
    child.stdin.take().unwrap().write_all(format!("{location}\n").as_bytes()).unwrap();
    tokio::task::spawn_blocking(move || {
        let status = child.wait().unwrap();
        let mut stdout = String::new();
        child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
        (status.code(), stdout)
    })
    .await
    .unwrap()
}

/// Issue 15 point 4: the confidential client's secret from a file and from
/// the environment, never on the command line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_secret_from_a_file_and_the_environment() {
    bounded(async {
        let Some(oidc) = Oidc::start(json!({})).await else { return };
        let root = std::env::temp_dir().join(format!("mcp-edge-oidc-secret-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let file = root.join("secret");
        std::fs::write(&file, "oidc-confidential-secret-value\n").unwrap();
        let file_text = file.to_string_lossy().into_owned();
        let call = ["call", "echo", r#"{"message":"confidential"}"#];
        let by_file: Vec<&str> =
            ["--no-browser", "--client-id", "oidc-confidential", "--client-secret-file", &file_text]
                .into_iter()
                .chain([oidc.mcp.as_str()])
                .chain(call)
                .collect();
        let (code, stdout) = cli_sign_in(&root.join("a"), &by_file, &[]).await;
        assert_eq!(code, Some(0), "{stdout}\n{:#?}", oidc.log().await);
        assert!(stdout.contains("Echo: confidential"), "{stdout}");
        let by_env: Vec<&str> =
            ["--no-browser", "--client-id", "oidc-confidential", oidc.mcp.as_str()].into_iter().chain(call).collect();
        let secret = [("MCP_EDGE_CLIENT_SECRET", "oidc-confidential-secret-value")];
        let (code, stdout) = cli_sign_in(&root.join("b"), &by_env, &secret).await;
        assert_eq!(code, Some(0), "{stdout}\n{:#?}", oidc.log().await);
        let codes = oidc.grants("authorization_code").await;
        assert_eq!(codes.len(), 2, "{codes:#?}");
        assert!(codes.iter().all(|c| c["client"] == "basic" && c["status"] == 200), "{codes:#?}");
        assert_eq!(oidc.count(|e| e["path"] == "/reg").await, 0, "a configured client registers nothing");
        let _ = std::fs::remove_dir_all(&root);
    })
    .await
}
