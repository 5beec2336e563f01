//! Handlers for requests the server sends to the client (sampling,
//! elicitation, roots, or any method the user names), and listeners for
//! notifications.

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::types::{ElicitAction, ElicitParams, ElicitResult, JsonObject, Root};
use crate::protocol::{ErrorObject, Notification, ProtocolVersion, RequestId, codes, methods};
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync, boxed};

/// The request handlers by method: a list, as a client has a handful (a
/// `HashMap` costs kilobytes of wasm code per type it holds).
#[derive(Clone, Default)]
pub(crate) struct Handlers(Vec<(String, Arc<dyn RequestHandler>)>);

impl Handlers {
    /// Sets the handler of `method`, replacing one set before.
    pub(crate) fn insert(&mut self, method: String, handler: Arc<dyn RequestHandler>) {
        match self.0.iter_mut().find(|(m, _)| *m == method) {
            Some(slot) => slot.1 = handler,
            None => self.0.push((method, handler)),
        }
    }

    /// The handler of `method`.
    pub(crate) fn get(&self, method: &str) -> Option<&Arc<dyn RequestHandler>> {
        self.0.iter().find(|(m, _)| m == method).map(|(_, handler)| handler)
    }

    pub(crate) fn contains_key(&self, method: &str) -> bool {
        self.get(method).is_some()
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(m, _)| m)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What a handler is told about the request it answers.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The server's id for the request.
    pub id: RequestId,
    /// The method.
    pub method: String,
    /// The `_meta.progressToken` the server attached, if any.
    pub progress_token: Option<Value>,
}

/// The outcome a handler produces: a result object, or a JSON-RPC error.
pub type HandlerResult = Result<Value, ErrorObject>;

/// Answers one kind of server-to-client request.
pub trait RequestHandler: MaybeSend + MaybeSync + 'static {
    /// Answers a request. Dropping the future cancels the work (the server
    /// sent `notifications/cancelled`, or the session closed).
    fn handle(&self, params: Option<Value>, context: RequestContext) -> BoxFuture<'static, HandlerResult>;
}

impl<F, Fut> RequestHandler for F
where
    F: Fn(Option<Value>, RequestContext) -> Fut + MaybeSend + MaybeSync + 'static,
    Fut: Future<Output = HandlerResult> + MaybeSend + 'static,
{
    fn handle(&self, params: Option<Value>, context: RequestContext) -> BoxFuture<'static, HandlerResult> {
        boxed(self(params, context))
    }
}

/// A function that hears notifications (`Send + Sync` natively).
pub trait NotificationFn: Fn(&Notification) + MaybeSend + MaybeSync {}
impl<F: Fn(&Notification) + MaybeSend + MaybeSync> NotificationFn for F {}

/// A notification listener.
pub type NotificationListener = Arc<dyn NotificationFn>;

/// Wraps a typed handler: params are decoded (a decode failure answers
/// -32602 with the reason) and the result encoded.
pub(crate) fn typed<P, R, F, Fut>(handler: F) -> Arc<dyn RequestHandler>
where
    P: DeserializeOwned + MaybeSend + 'static,
    R: Serialize + 'static,
    F: Fn(P, RequestContext) -> Fut + MaybeSend + MaybeSync + 'static,
    Fut: Future<Output = Result<R, ErrorObject>> + MaybeSend + 'static,
{
    let handler = Arc::new(handler);
    Arc::new(move |params: Option<Value>, context: RequestContext| {
        let decoded = crate::protocol::raw::from_value::<P>(&params.unwrap_or(Value::Object(Default::default())))
            .map_err(|e| {
                ErrorObject::new(codes::INVALID_PARAMS, format!("invalid params for {}: {e}", context.method))
            });
        let handler = handler.clone();
        async move {
            let params = decoded?;
            let result = handler(params, context).await?;
            serde_json::to_value(result)
                .map_err(|e| ErrorObject::new(codes::INTERNAL_ERROR, format!("could not encode the result: {e}")))
        }
    })
}

/// Fills in the defaults a form's schema declares for fields the user left
/// out, so a server gets every value it described (`elicitation/create`
/// form mode, "defaults everywhere" of 2025-11-25).
pub fn apply_elicitation_defaults(schema: Option<&Value>, content: &mut JsonObject) {
    let Some(properties) = schema.and_then(|s| s.get("properties")).and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        if content.contains_key(name) {
            continue;
        }
        if let Some(default) = property.get("default") {
            content.insert(name.clone(), default.clone());
        }
    }
}

/// Checks an accepted form's content against the schema the server asked
/// with, before it is sent (the spec: a client SHOULD); an error names the
/// failing field. The same interpreting validator as `structuredContent`, no
/// code generation, so it runs in workerd too.
pub(crate) fn check_elicitation_content(schema: Option<&Value>, content: &JsonObject) -> Result<(), ErrorObject> {
    let Some(schema) = schema.filter(|s| s.is_object()) else {
        return Ok(());
    };
    let content = Value::Object(content.clone());
    crate::protocol::schema::validate(schema, &content).map_err(|error| {
        ErrorObject::new(
            codes::INTERNAL_ERROR,
            format!("the accepted content does not match the requested schema at {error}; it was not sent"),
        )
    })
}

/// A server request whose answer the app's handler writes, and which is
/// checked before it is sent ([`check_answer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Asked {
    Sampling,
    Elicitation,
    /// Anything else: sent as the handler answers.
    Other,
}

impl Asked {
    pub(crate) fn of(method: &str) -> Asked {
        match method {
            methods::SAMPLING_CREATE_MESSAGE => Asked::Sampling,
            methods::ELICITATION_CREATE => Asked::Elicitation,
            _ => Asked::Other,
        }
    }
}

/// Checks a handler's answer to a sampling or elicitation request before it
/// is sent (the JS API's handlers return plain values, and the Rust API's
/// sampling result holds its content as JSON): a result the server would
/// refuse is not sent, and the error says what the handler got wrong, here
/// rather than in the server's log. `version`: the session's revision, when
/// known (a list of content blocks is a 2025-11-25 addition).
pub(crate) fn check_answer(asked: Asked, result: &Value, version: Option<ProtocolVersion>) -> Result<(), ErrorObject> {
    let name = match asked {
        Asked::Sampling => "sampling",
        Asked::Elicitation => "elicitation",
        Asked::Other => return Ok(()),
    };
    let Some(result) = result.as_object() else {
        return Err(not_sent(name, "it is not an object"));
    };
    match asked {
        Asked::Sampling => check_sampling_result(result, version),
        _ => check_elicitation_result(result),
    }
}

/// Schema `CreateMessageResult`: `role`, `model`, and `content` as one block
/// or (2025-11-25 on) a list of blocks.
fn check_sampling_result(result: &JsonObject, version: Option<ProtocolVersion>) -> Result<(), ErrorObject> {
    if !matches!(result.get("role").and_then(Value::as_str), Some("assistant" | "user")) {
        return Err(not_sent("sampling", "`role` must be \"assistant\""));
    }
    if !result.get("model").is_some_and(Value::is_string) {
        return Err(not_sent("sampling", "`model` must be a string, the model's name"));
    }
    let is_block = |value: &Value| value.get("type").is_some_and(Value::is_string);
    match result.get("content") {
        Some(Value::Array(_)) if version.is_some_and(|v| v < ProtocolVersion::V2025_11_25) => {
            return Err(not_sent("sampling", "`content` must be one block: a list of blocks is new in 2025-11-25"));
        }
        Some(Value::Array(blocks)) if !blocks.is_empty() && blocks.iter().all(is_block) => {}
        Some(block) if !block.is_array() && is_block(block) => {}
        _ => {
            return Err(not_sent(
                "sampling",
                "`content` must be a content block (`{type: \"text\", text}`, ...) or a list of them",
            ));
        }
    }
    if result.get("stopReason").is_some_and(|reason| !reason.is_string()) {
        return Err(not_sent("sampling", "`stopReason` must be a string"));
    }
    Ok(())
}

/// Schema `ElicitResult`: an `action` of the three, and `content`, if any, an
/// object.
fn check_elicitation_result(result: &JsonObject) -> Result<(), ErrorObject> {
    if !matches!(result.get("action").and_then(Value::as_str), Some("accept" | "decline" | "cancel")) {
        return Err(not_sent("elicitation", "`action` must be \"accept\", \"decline\" or \"cancel\""));
    }
    if result.get("content").is_some_and(|content| !content.is_object()) {
        return Err(not_sent("elicitation", "`content` must be an object of the form's fields"));
    }
    Ok(())
}

fn not_sent(handler: &str, what: &str) -> ErrorObject {
    ErrorObject::new(codes::INTERNAL_ERROR, format!("the {handler} handler's result was not sent: {what}"))
}

/// Wraps an elicitation handler; with `fill_defaults`, an accepted form gets
/// the schema's defaults for every field the handler left out. An accepted
/// form is then checked against the requested schema (see
/// [`check_elicitation_content`]); a handler registered with `on_request`
/// for `elicitation/create` is sent as it answers, its content unchecked
/// (only the answer's shape is checked, as every handler's: [`check_answer`]).
pub(crate) fn elicitation<F, Fut>(handler: F, fill_defaults: bool) -> Arc<dyn RequestHandler>
where
    F: Fn(ElicitParams, RequestContext) -> Fut + MaybeSend + MaybeSync + 'static,
    Fut: Future<Output = Result<ElicitResult, ErrorObject>> + MaybeSend + 'static,
{
    let handler = Arc::new(handler);
    typed(move |params: ElicitParams, context: RequestContext| {
        let handler = handler.clone();
        async move {
            let schema = params.requested_schema.clone();
            let is_form = params.mode.as_deref().unwrap_or("form") == "form";
            let mut result = handler(params, context).await?;
            if is_form && result.action == ElicitAction::Accept {
                let content = result.content.get_or_insert_with(Default::default);
                if fill_defaults {
                    apply_elicitation_defaults(schema.as_ref(), content);
                }
                check_elicitation_content(schema.as_ref(), content)?;
            }
            Ok(result)
        }
    })
}

/// The answer to `roots/list`: `{"roots": [...]}`.
pub(crate) fn roots_answer(roots: &[Root]) -> Value {
    crate::protocol::object! { "roots": roots.iter().map(Root::to_value).collect::<Vec<_>>() }
}

/// A roots handler that always answers the same list.
pub(crate) fn fixed_roots(roots: Vec<Root>) -> Arc<dyn RequestHandler> {
    let answer = roots_answer(&roots);
    Arc::new(move |_params: Option<Value>, _context: RequestContext| {
        let answer = answer.clone();
        async move { Ok(answer) }
    })
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use serde_json::json;

    use super::*;

    /// The wrapped handler answers `content` to a form asking for a
    /// required integer `age` (default 30) and an optional string `name`.
    async fn answer(content: Value, fill_defaults: bool) -> HandlerResult {
        let handler = elicitation(
            move |_params: ElicitParams, _context: RequestContext| {
                let content = content.as_object().cloned();
                async move { Ok(ElicitResult { action: ElicitAction::Accept, content }) }
            },
            fill_defaults,
        );
        let params = json!({
            "message": "About you",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "age": { "type": "integer", "minimum": 0, "default": 30 },
                    "name": { "type": "string", "maxLength": 5 }
                },
                "required": ["age"]
            }
        });
        let context =
            RequestContext { id: RequestId::Int(1), method: "elicitation/create".into(), progress_token: None };
        handler.handle(Some(params), context).await
    }

    #[tokio::test]
    async fn accepted_content_is_checked_against_the_requested_schema() {
        let sent = answer(json!({ "age": 41, "name": "Ada" }), true).await.expect("valid content is sent");
        assert_eq!(sent["content"], json!({ "age": 41, "name": "Ada" }));

        let error = answer(json!({ "age": "old" }), true).await.expect_err("a string age is not sent");
        assert!(error.message.contains("/age"), "{}", error.message);
        assert!(error.message.contains("not sent"), "{}", error.message);

        let error = answer(json!({ "age": 3, "name": "Bartholomew" }), true).await.expect_err("too long a name");
        assert!(error.message.contains("/name"), "{}", error.message);

        // A default fills the missing required field before the check.
        let sent = answer(json!({}), true).await.expect("the default is filled in");
        assert_eq!(sent["content"]["age"], json!(30));
        let error = answer(json!({}), false).await.expect_err("without defaults the required age is missing");
        assert!(error.message.contains("age"), "{}", error.message);
    }

    const SAMPLING: Asked = Asked::Sampling;
    const LATEST: Option<ProtocolVersion> = Some(ProtocolVersion::V2025_11_25);

    #[test]
    fn a_sampling_result_of_the_wrong_shape_is_not_sent() {
        let text = json!({ "type": "text", "text": "hi" });
        let good = json!({ "role": "assistant", "model": "m", "content": text, "stopReason": "endTurn" });
        assert!(check_answer(SAMPLING, &good, LATEST).is_ok());
        assert!(check_answer(SAMPLING, &good, Some(ProtocolVersion::V2024_11_05)).is_ok());
        let list = json!({ "role": "assistant", "model": "m", "content": [text, { "type": "tool_use", "id": "1" }] });
        assert!(check_answer(SAMPLING, &list, LATEST).is_ok());
        assert!(check_answer(SAMPLING, &list, None).is_ok());
        for (wrong, version, named) in [
            (json!("text"), LATEST, "not an object"),
            (json!({ "model": "m", "content": text }), LATEST, "role"),
            (json!({ "role": 7, "model": "m", "content": text }), LATEST, "role"),
            (json!({ "role": "assistant", "content": text }), LATEST, "model"),
            (json!({ "role": "assistant", "model": "m", "content": "hi" }), LATEST, "content"),
            (json!({ "role": "assistant", "model": "m", "content": [] }), LATEST, "content"),
            (json!({ "role": "assistant", "model": "m", "content": [text, 3] }), LATEST, "content"),
            (list.clone(), Some(ProtocolVersion::V2025_06_18), "new in 2025-11-25"),
            (json!({ "role": "assistant", "model": "m", "content": text, "stopReason": 1 }), LATEST, "stopReason"),
        ] {
            let error = check_answer(SAMPLING, &wrong, version).expect_err("refused");
            assert_eq!(error.code, codes::INTERNAL_ERROR);
            assert!(error.message.contains(named) && error.message.contains("not sent"), "{wrong}: {}", error.message);
        }
    }

    #[test]
    fn an_elicitation_result_of_the_wrong_shape_is_not_sent() {
        let asked = Asked::of(crate::protocol::methods::ELICITATION_CREATE);
        for good in [json!({ "action": "accept", "content": { "a": 1 } }), json!({ "action": "decline" })] {
            assert!(check_answer(asked, &good, LATEST).is_ok());
        }
        for (wrong, named) in [
            (json!({}), "action"),
            (json!({ "action": "ok" }), "action"),
            (json!({ "action": "accept", "content": "Ada" }), "content"),
            (json!({ "action": "cancel", "content": null }), "content"),
        ] {
            let error = check_answer(asked, &wrong, LATEST).expect_err("refused");
            assert!(error.message.contains(named) && error.message.contains("not sent"), "{wrong}: {}", error.message);
        }
        // Other requests' answers are the handler's business.
        assert!(check_answer(Asked::of("roots/list"), &json!("anything"), LATEST).is_ok());
    }
}
