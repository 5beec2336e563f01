//! `auth.authorize: "popup"`: the authorization page in a popup window.
//!
//! The popup is opened on the authorization URL; the authorization server
//! sends it back to the redirect URI, the page `www/oauth-callback.html`,
//! which hands its own URL back two ways, and the first to arrive wins:
//! - `postMessage` to its opener, `{ type: "mcp-edge:oauth-callback", url }`
//!   with this page's origin as target. Accepted only from this page's
//!   origin, from the popup this flow opened, in that exact shape.
//! - a `BroadcastChannel` named `mcp-edge-oauth:<state>`, for when the
//!   authorization server cut the popup off from its opener
//!   (`Cross-Origin-Opener-Policy`).
//!
//! The wait is bounded, and a popup the user closes ends it with an error
//! that says so. The `state` (and everything else in the URL) is checked by
//! the OAuth flow, not here.

use std::time::Duration;

use futures::StreamExt;
use futures::channel::mpsc;
use futures::future::{Either, select};
use js_sys::Reflect;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{BroadcastChannel, MessageEvent, Window};

use super::convert::message_of;
use crate::auth::{AuthError, AuthorizationRequest, Authorizer};
use crate::runtime::{BoxFuture, boxed, sleep};

/// The `type` of the callback page's message.
pub(crate) const MESSAGE_TYPE: &str = "mcp-edge:oauth-callback";
/// The default window features: a small popup window.
pub(crate) const DEFAULT_FEATURES: &str = "popup=yes,width=520,height=720";
/// How often the popup is checked for having been closed.
const POLL: Duration = Duration::from_millis(250);
/// How long a message may still arrive after the popup closed itself.
const GRACE: Duration = Duration::from_millis(1500);

/// The channel a flow listens on, tied to its `state`.
pub(crate) fn channel_name(state: &str) -> String {
    format!("mcp-edge-oauth:{state}")
}

/// The URL a callback message carries, if the message has the callback
/// page's shape.
pub(crate) fn callback_url(data: &JsValue) -> Option<String> {
    if !data.is_object() {
        return None;
    }
    let kind = Reflect::get(data, &JsValue::from_str("type")).ok()?.as_string()?;
    if kind != MESSAGE_TYPE {
        return None;
    }
    Reflect::get(data, &JsValue::from_str("url")).ok()?.as_string()
}

/// Opens the authorization page in a popup window.
#[derive(Debug, Clone)]
pub(crate) struct PopupAuthorizer {
    /// The longest the user may take.
    pub(crate) timeout: Duration,
    /// `window.open` features.
    pub(crate) features: String,
}

/// A listener of `message` events, kept alive while it is registered.
type OnMessage = Closure<dyn FnMut(MessageEvent)>;

/// The listeners of one flow; dropping it removes them and closes the popup.
struct Listening {
    window: Window,
    popup: Window,
    on_message: OnMessage,
    channel: Option<(BroadcastChannel, OnMessage)>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.window.remove_event_listener_with_callback("message", self.on_message.as_ref().unchecked_ref());
        if let Some((channel, _)) = &self.channel {
            channel.set_onmessage(None);
            channel.close();
        }
        // The callback page closes itself; this covers timeouts, errors and
        // a flow that was dropped.
        let _ = self.popup.close();
    }
}

fn failed(message: impl Into<String>) -> AuthError {
    AuthError::Authorizer(message.into())
}

impl PopupAuthorizer {
    async fn run(&self, request: &AuthorizationRequest) -> Result<String, AuthError> {
        let window = web_sys::window()
            .ok_or_else(|| failed("a popup needs a page (there is no window here): pass auth.authorize, a function"))?;
        let origin =
            window.location().origin().map_err(|e| failed(format!("this page has no origin: {}", message_of(&e))))?;
        let name: String = format!("mcp-edge-oauth-{}", request.state.chars().take(12).collect::<String>());
        let blocked = |detail: &str| {
            failed(format!(
                "the browser blocked the popup window for the authorization page{detail}. Browsers allow \
                 popups only right after a click: call McpClient.connect from a click handler, allow \
                 popups for this site, or use auth: {{ authorize: \"redirect\" }}"
            ))
        };
        let popup = match window.open_with_url_and_target_and_features(&request.url, &name, &self.features) {
            Ok(Some(popup)) => popup,
            Ok(None) => return Err(blocked("")),
            Err(error) => return Err(blocked(&format!(" ({})", message_of(&error)))),
        };
        if popup.closed().unwrap_or(false) {
            return Err(blocked(" (it was closed at once)"));
        }

        // Nothing can arrive before this task yields: listen now.
        let (sender, mut arrivals) = mpsc::unbounded::<String>();
        let from_popup = popup.clone();
        let to_flow = sender.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let ours = event.origin() == origin
                && event.source().is_some_and(|source| js_sys::Object::is(&source, &from_popup));
            match callback_url(&event.data()) {
                Some(url) if ours => {
                    let _ = to_flow.unbounded_send(url);
                }
                Some(_) => log::debug!("ignoring an OAuth callback message from another window or origin"),
                None => {}
            }
        });
        window
            .add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref())
            .map_err(|e| failed(format!("cannot listen for messages: {}", message_of(&e))))?;
        let channel = match BroadcastChannel::new(&channel_name(&request.state)) {
            Ok(channel) => {
                let to_flow = sender;
                let on_channel = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                    if let Some(url) = callback_url(&event.data()) {
                        let _ = to_flow.unbounded_send(url);
                    }
                });
                channel.set_onmessage(Some(on_channel.as_ref().unchecked_ref()));
                Some((channel, on_channel))
            }
            // Older browsers: postMessage alone.
            Err(_) => None,
        };
        let listening = Listening { window, popup, on_message, channel };

        let started = js_sys::Date::now();
        let limit_ms = self.timeout.as_secs_f64() * 1000.0;
        loop {
            if let Either::Left((arrived, _)) = select(arrivals.next(), Box::pin(sleep(POLL))).await {
                return arrived.ok_or_else(|| failed("the popup's listeners went away"));
            }
            if listening.popup.closed().unwrap_or(false) {
                // The callback page posts, then closes itself: give a
                // message sent just before a moment to arrive.
                return match select(arrivals.next(), Box::pin(sleep(GRACE))).await {
                    Either::Left((Some(url), _)) => Ok(url),
                    _ => Err(failed(
                        "the authorization popup was closed before the sign-in finished \
                         (if it was not closed by hand, the authorization server may isolate its pages \
                         with Cross-Origin-Opener-Policy and the callback page did not load: try \
                         auth: { authorize: \"redirect\" })",
                    )),
                };
            }
            if js_sys::Date::now() - started >= limit_ms {
                return Err(failed(format!(
                    "no answer from the authorization popup within {} s",
                    self.timeout.as_secs()
                )));
            }
        }
    }
}

impl Authorizer for PopupAuthorizer {
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>> {
        boxed(self.run(request))
    }
}
