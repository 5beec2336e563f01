//! JS functions as handlers of server requests and listeners of
//! notifications.
//!
//! A handler gets `(params, extra)`; what it returns (a value or a promise)
//! becomes the result, what it throws (or rejects with) becomes a JSON-RPC
//! error. `extra.signal` aborts when the server cancels the request or the
//! session closes, as in the TypeScript SDK.

use js_sys::{Function, Promise};
use serde_json::{Map, Value};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use super::convert::{AbortOnDrop, message_of, to_js};
use crate::client::handlers::check_elicitation_content;
use crate::client::{HandlerResult, RequestContext, RequestHandler, apply_elicitation_defaults};
use crate::protocol::{ErrorObject, Notification, codes, json, json_text};
use crate::runtime::{BoxFuture, boxed};

/// What a JS request handler answers, and how its answer is finished.
#[derive(Debug, Clone, Copy)]
pub(crate) enum HandlerKind {
    /// `sampling/createMessage`.
    Sampling,
    /// `roots/list`: the function answers the list itself, `[{uri, name?}]`.
    Roots,
    /// `elicitation/create`; with `fill_defaults`, an accepted form gets the
    /// schema's defaults for the fields the handler left out; with
    /// `validate`, it is then checked against the requested schema.
    Elicitation { fill_defaults: bool, validate: bool },
}

impl HandlerKind {
    fn name(self) -> &'static str {
        match self {
            HandlerKind::Sampling => "sampling",
            HandlerKind::Roots => "roots",
            HandlerKind::Elicitation { .. } => "elicitation",
        }
    }
}

/// A JS function answering one kind of server request.
#[derive(Debug)]
pub(crate) struct JsHandler {
    function: Function,
    kind: HandlerKind,
}

impl JsHandler {
    pub(crate) fn new(function: Function, kind: HandlerKind) -> Self {
        JsHandler { function, kind }
    }
}

#[wasm_bindgen(module = "/src/web/options.js")]
extern "C" {
    /// Calls `handler(params, {signal, ...extra})` and waits for its answer:
    /// resolves to the result's JSON text (a `roots` list made the result's
    /// `roots`, each answer's shape checked), rejects with the JSON text of
    /// the error the server gets. Written in JS: the call, the conversions
    /// and the checks were some 2 KB of the wasm's gzip (docs/size.md,
    /// session 38).
    #[wasm_bindgen(js_name = callHandler)]
    fn call_handler(
        handler: &Function,
        name: &str,
        params: &str,
        extra: &str,
        signal: Option<web_sys::AbortSignal>,
    ) -> Promise;
}

fn internal(message: String) -> ErrorObject {
    ErrorObject::new(codes::INTERNAL_ERROR, message)
}

/// The `extra` argument but its `signal`: `{requestId, method, _meta?}`.
fn extra(context: &RequestContext) -> Value {
    let mut extra = Map::new();
    extra.insert("requestId".into(), context.id.to_value());
    extra.insert("method".into(), Value::from(context.method.as_str()));
    if let Some(token) = &context.progress_token {
        extra.insert("_meta".into(), crate::protocol::object! { "progressToken": token.clone() });
    }
    Value::Object(extra)
}

impl RequestHandler for JsHandler {
    fn handle(&self, params: Option<Value>, context: RequestContext) -> BoxFuture<'static, HandlerResult> {
        let function = self.function.clone();
        let kind = self.kind;
        boxed(async move {
            let params = params.unwrap_or_else(|| Value::Object(Map::new()));
            let mut abort = AbortOnDrop::armed();
            let answered =
                call_handler(&function, kind.name(), &json_text(&params), &json_text(&extra(&context)), abort.signal());
            let answered = crate::runtime::settled(&answered).await;
            // Settled: the signal must not fire now.
            abort.disarm();
            // `options.js` settles with JSON text it wrote: an object either way.
            let text = match &answered {
                Ok(text) | Err(text) => text.as_string().unwrap_or_default(),
            };
            match (answered.is_ok(), json::parse(&text)) {
                (true, Ok(Value::Object(result))) => Ok(Value::Object(finish(kind, &params, result)?)),
                (false, Ok(error)) => {
                    Err(crate::protocol::fields::from_value(error, "an error").unwrap_or_else(internal))
                }
                _ => Err(internal(format!("the {} handler's answer could not be read", kind.name()))),
            }
        })
    }
}

/// Fills an accepted form's defaults and checks it against the requested
/// schema, each when asked to. (The session loop then checks the result's
/// shape, as for every handler: `client::handlers::check_answer`.)
fn finish(
    kind: HandlerKind,
    params: &Value,
    mut result: Map<String, Value>,
) -> Result<Map<String, Value>, ErrorObject> {
    let HandlerKind::Elicitation { fill_defaults, validate } = kind else {
        return Ok(result);
    };
    let is_form = params.get("mode").and_then(Value::as_str).unwrap_or("form") == "form";
    let accepted = result.get("action").and_then(Value::as_str) == Some("accept");
    if !(is_form && accepted) {
        return Ok(result);
    }
    let content = result.entry("content").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(content) = content {
        if fill_defaults {
            apply_elicitation_defaults(params.get("requestedSchema"), content);
        }
        if validate {
            check_elicitation_content(params.get("requestedSchema"), content)?;
        }
    }
    Ok(result)
}

/// Calls a notification listener with `{method, params?}`. A listener that
/// throws is logged; it cannot fail the session.
pub(crate) fn notify_listener(function: &Function, notification: &Notification) {
    let mut object = Map::new();
    object.insert("method".into(), Value::from(notification.method.clone()));
    if let Some(params) = &notification.params {
        object.insert("params".into(), params.clone());
    }
    match to_js(&Value::Object(object)) {
        Ok(value) => {
            if let Err(thrown) = function.call1(&JsValue::UNDEFINED, &value) {
                log::warn!("a notification listener threw on {}: {}", notification.method, message_of(&thrown));
            }
        }
        Err(error) => log::warn!("could not pass {} to a listener: {error}", notification.method),
    }
}

/// Calls a no-argument event listener, logging what it throws.
pub(crate) fn call_listener(function: &Function, event: &str) {
    if let Err(thrown) = function.call0(&JsValue::UNDEFINED) {
        log::warn!("the {event} listener threw: {}", message_of(&thrown));
    }
}

#[cfg(test)]
mod tests {
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    use super::*;
    use wasm_bindgen_futures::JsFuture;

    wasm_bindgen_test_configure!(run_in_browser);

    /// What `callHandler` settles with for a `roots` function returning
    /// `list` (JS source): `Ok` the result's text, `Err` the error's.
    async fn roots_answer(list: &str) -> Result<String, String> {
        let roots = Function::new_no_args(&format!("return {list};"));
        let answered = JsFuture::from(call_handler(&roots, "roots", "{}", r#"{"method":"roots/list"}"#, None)).await;
        answered.map(|t| t.as_string().unwrap_or_default()).map_err(|t| t.as_string().unwrap_or_default())
    }

    #[wasm_bindgen_test]
    async fn a_roots_list_is_answered_as_it_was_returned() {
        let list = r#"[{"uri":"file:///a","name":"A","_meta":{"k":1}},{"uri":"file:///b"}]"#;
        assert_eq!(roots_answer(list).await, Ok(format!(r#"{{"roots":{list}}}"#)));
        // A promise of the list is as good as the list.
        assert_eq!(roots_answer("Promise.resolve([])").await, Ok(r#"{"roots":[]}"#.to_owned()));
    }

    #[wasm_bindgen_test]
    async fn a_root_without_a_string_uri_or_name_is_refused_by_its_place() {
        for (list, expected) in [
            (r#"[{"uri": "file:///a"}, {"name": "B"}]"#, "root 1 has no string `uri`"),
            (r#"[{"uri": 1}]"#, "root 0 has no string `uri`"),
            (r#"[{"uri": "file:///a", "name": 2}]"#, "root 0 has a `name` that is not a string"),
            (r#"["file:///a"]"#, "root 0 is not an object"),
        ] {
            let error = roots_answer(list).await.expect_err(list);
            let error: ErrorObject =
                crate::protocol::fields::from_value(json::parse(&error).expect("JSON"), "an error")
                    .expect("an error object");
            assert_eq!(error.code, codes::INTERNAL_ERROR);
            assert!(error.message.ends_with(expected), "{}", error.message);
            assert!(error.message.contains("must return an array of {uri, name?}"), "{}", error.message);
        }
        let error = roots_answer(r#"{"uri": "file:///a"}"#).await.expect_err("an object");
        assert!(error.contains(r#"the roots handler returned {\"uri\":\"file:///a\"}, not an array"#), "{error}");
    }

    #[wasm_bindgen_test]
    async fn what_a_handler_throws_is_the_error_the_server_gets() {
        let extra = r#"{"requestId":7,"method":"sampling/createMessage"}"#;
        for (body, code, message, data) in [
            (
                "throw Object.assign(new Error('no'), {code: -32042, data: {why: 1}})",
                -32042,
                "no",
                Some(r#"{"why":1}"#),
            ),
            ("return Promise.reject('just text')", codes::INTERNAL_ERROR, "just text", None),
            ("throw new Error('')", codes::INTERNAL_ERROR, "the sampling handler failed", None),
            ("throw {code: 1.5, message: 'odd code'}", codes::INTERNAL_ERROR, "odd code", None),
        ] {
            let handler = Function::new_no_args(body);
            let thrown = JsFuture::from(call_handler(&handler, "sampling", "{}", extra, None)).await.expect_err(body);
            let error: ErrorObject =
                crate::protocol::fields::from_value(json::parse(&thrown.as_string().expect("text")).expect("JSON"), "")
                    .expect("an error object");
            assert_eq!((error.code, error.message.as_str()), (code, message), "{body}");
            assert_eq!(error.data.map(|d| json_text(&d)).as_deref(), data, "{body}");
        }
        // `extra` is the server's, with the signal.
        let handler =
            Function::new_with_args("p, extra", "return {seen: [extra.requestId, extra.method, 'signal' in extra]}");
        let answer = JsFuture::from(call_handler(&handler, "sampling", "{}", extra, None)).await.expect("answered");
        assert_eq!(answer.as_string().as_deref(), Some(r#"{"seen":[7,"sampling/createMessage",true]}"#));
    }
}
