//! Handlers for requests the server sends to the client (sampling,
//! elicitation, roots, or any method the user names), and listeners for
//! notifications.

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::types::{ElicitAction, ElicitParams, ElicitResult, JsonObject, Root};
use crate::protocol::{ErrorObject, Notification, RequestId, codes};
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync, boxed};

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
        let decoded = serde_json::from_value::<P>(params.unwrap_or(Value::Object(Default::default()))).map_err(|e| {
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

/// Wraps an elicitation handler; with `fill_defaults`, an accepted form gets
/// the schema's defaults for every field the handler left out.
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
            if fill_defaults && is_form && result.action == ElicitAction::Accept {
                let content = result.content.get_or_insert_with(Default::default);
                apply_elicitation_defaults(schema.as_ref(), content);
            }
            Ok(result)
        }
    })
}

/// A roots handler that always answers the same list.
pub(crate) fn fixed_roots(roots: Vec<Root>) -> Arc<dyn RequestHandler> {
    let answer = serde_json::json!({ "roots": roots });
    Arc::new(move |_params: Option<Value>, _context: RequestContext| {
        let answer = answer.clone();
        async move { Ok(answer) }
    })
}
