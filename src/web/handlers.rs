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
use wasm_bindgen_futures::JsFuture;

use super::convert::{AbortOnDrop, from_js, message_of, object_with, thrown_to_error_object, to_js};
use crate::client::handlers::check_elicitation_content;
use crate::client::{HandlerResult, RequestContext, RequestHandler, apply_elicitation_defaults};
use crate::protocol::{ErrorObject, Notification, codes};
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

fn internal(message: String) -> ErrorObject {
    ErrorObject::new(codes::INTERNAL_ERROR, message)
}

/// Calls `function` with `args` and waits for its value, whether it returned
/// one or a promise of one.
async fn call(function: &Function, args: &[JsValue], handler: &str) -> Result<JsValue, ErrorObject> {
    let returned = match args {
        [] => function.call0(&JsValue::UNDEFINED),
        [a] => function.call1(&JsValue::UNDEFINED, a),
        [a, b, ..] => function.call2(&JsValue::UNDEFINED, a, b),
    }
    .map_err(|thrown| thrown_to_error_object(&thrown, handler))?;
    JsFuture::from(Promise::resolve(&returned)).await.map_err(|thrown| thrown_to_error_object(&thrown, handler))
}

/// The `extra` argument: `{signal, requestId, method, _meta?}`.
fn extra(context: &RequestContext, signal: Option<web_sys::AbortSignal>) -> Result<JsValue, ErrorObject> {
    let convert = |value: &Value| to_js(value).map_err(|e| internal(format!("{e}")));
    let request_id = convert(&context.id.to_value())?;
    let method = JsValue::from_str(&context.method);
    let signal: JsValue = signal.map(JsValue::from).unwrap_or(JsValue::UNDEFINED);
    let mut entries: Vec<(&str, &JsValue)> = vec![("signal", &signal), ("requestId", &request_id), ("method", &method)];
    let meta = match &context.progress_token {
        Some(token) => Some(convert(&crate::protocol::object! { "progressToken": token.clone() })?),
        None => None,
    };
    if let Some(meta) = &meta {
        entries.push(("_meta", meta));
    }
    Ok(object_with(&entries))
}

impl RequestHandler for JsHandler {
    fn handle(&self, params: Option<Value>, context: RequestContext) -> BoxFuture<'static, HandlerResult> {
        let function = self.function.clone();
        let kind = self.kind;
        boxed(async move {
            let name = kind.name();
            let params = params.unwrap_or_else(|| Value::Object(Map::new()));
            let js_params = to_js(&params).map_err(|e| internal(format!("{e}")))?;
            let mut abort = AbortOnDrop::armed();
            let extra = extra(&context, abort.signal())?;
            let answered = call(&function, &[js_params, extra], name).await;
            // Settled: the signal must not fire now.
            abort.disarm();
            let answered = answered?;
            let result = match from_js(&answered, "the handler's result") {
                Ok(Some(Value::Array(roots))) if matches!(kind, HandlerKind::Roots) => roots_answer(roots)?,
                Ok(Some(Value::Object(result))) if !matches!(kind, HandlerKind::Roots) => result,
                Ok(_) => {
                    return Err(internal(format!(
                        "the {name} handler returned {}, not {}",
                        describe(&answered),
                        if matches!(kind, HandlerKind::Roots) { ROOTS_SHAPE } else { "an object" }
                    )));
                }
                Err(error) => {
                    return Err(internal(format!("the {name} handler's result: {error}")));
                }
            };
            Ok(Value::Object(finish(kind, &params, result)?))
        })
    }
}

fn describe(value: &JsValue) -> String {
    if value.is_undefined() { "undefined".into() } else { message_of(value) }
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

/// What a `roots` function returns.
const ROOTS_SHAPE: &str = "an array of {uri, name?}";

/// The `roots/list` result of the list a `roots` function returned, as it
/// returned it (members such as `_meta` kept) once each root has a string
/// `uri` and, if any, a string `name`.
fn roots_answer(roots: Vec<Value>) -> Result<Map<String, Value>, ErrorObject> {
    for (i, root) in roots.iter().enumerate() {
        let problem = match root {
            Value::Object(root) if !root.get("uri").is_some_and(Value::is_string) => "has no string `uri`",
            Value::Object(root) if root.get("name").is_some_and(|name| !name.is_string()) => {
                "has a `name` that is not a string"
            }
            Value::Object(_) => continue,
            _ => "is not an object",
        };
        return Err(internal(format!("the roots handler must return {ROOTS_SHAPE}: root {i} {problem}")));
    }
    let mut answer = Map::new();
    answer.insert("roots".into(), Value::Array(roots));
    Ok(answer)
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
    use serde_json::json;
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    use super::*;

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn a_roots_list_is_answered_as_it_was_returned() {
        let roots = json!([{"uri": "file:///a", "name": "A", "_meta": {"k": 1}}, {"uri": "file:///b"}]);
        let Value::Array(list) = roots.clone() else { unreachable!() };
        let answer = roots_answer(list).map(Value::Object);
        assert_eq!(answer.ok(), Some(json!({ "roots": roots })));
    }

    #[wasm_bindgen_test]
    fn a_root_without_a_string_uri_or_name_is_refused_by_its_place() {
        for (roots, expected) in [
            (json!([{"uri": "file:///a"}, {"name": "B"}]), "root 1 has no string `uri`"),
            (json!([{"uri": 1}]), "root 0 has no string `uri`"),
            (json!([{"uri": "file:///a", "name": 2}]), "root 0 has a `name` that is not a string"),
            (json!(["file:///a"]), "root 0 is not an object"),
        ] {
            let Value::Array(list) = roots else { unreachable!() };
            match roots_answer(list) {
                Err(error) => {
                    assert_eq!(error.code, codes::INTERNAL_ERROR);
                    assert!(error.message.ends_with(expected), "{}", error.message);
                    assert!(error.message.contains("an array of {uri, name?}"), "{}", error.message);
                }
                Ok(answer) => panic!("accepted {answer:?}"),
            }
        }
    }
}
