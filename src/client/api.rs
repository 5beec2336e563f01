//! The typed MCP calls, the capability gate, and pagination helpers.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{Client, Error, Negotiated, RequestOptions};
use crate::debug::Quoted;
use crate::protocol::types::{
    CallToolResult, CompleteResult, CompletionReference, GetPromptResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel, Prompt, ReadResourceResult,
    Resource, ResourceTemplate, Tool,
};
use crate::protocol::{ProtocolVersion, RawResult, methods, object};

/// Refuses a call the server's declared capabilities do not cover (R2.13:
/// use only negotiated capabilities).
pub(crate) fn check_capability(negotiated: &Negotiated, method: &str) -> Result<(), Error> {
    let caps = &negotiated.result.capabilities;
    let (declared, capability) = match method {
        methods::TOOLS_LIST | methods::TOOLS_CALL => (caps.tools.is_some(), "tools"),
        methods::RESOURCES_LIST | methods::RESOURCES_TEMPLATES_LIST | methods::RESOURCES_READ => {
            (caps.resources.is_some(), "resources")
        }
        methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
            (caps.resources_subscribe(), "resources.subscribe")
        }
        methods::PROMPTS_LIST | methods::PROMPTS_GET => (caps.prompts.is_some(), "prompts"),
        methods::LOGGING_SET_LEVEL => (caps.logging.is_some(), "logging"),
        // 2024-11-05 had no `completions` capability: completion was ungated.
        methods::COMPLETION_COMPLETE => {
            (caps.completions.is_some() || negotiated.version == ProtocolVersion::V2024_11_05, "completions")
        }
        _ => (true, ""),
    };
    if declared {
        Ok(())
    } else {
        Err(Error::CapabilityMissing { capability: capability.to_owned(), method: method.to_owned() })
    }
}

/// A typed result read straight from the server's text (no `Value` tree in
/// between).
fn decode<T: DeserializeOwned>(method: &str, result: &RawResult) -> Result<T, Error> {
    result.parse().map_err(|e| Error::InvalidResult { method: method.to_owned(), reason: e.to_string() })
}

fn tool_params(name: &str, arguments: Option<JsonObject>) -> Value {
    let mut params = Map::new();
    params.insert("name".into(), Value::from(name));
    params.insert("arguments".into(), Value::Object(arguments.unwrap_or_default()));
    Value::Object(params)
}

fn cursor_params(cursor: Option<&str>) -> Option<Value> {
    cursor.map(|c| object! { "cursor": c })
}

impl Client {
    async fn call<T: DeserializeOwned>(&self, method: &str, params: Option<Value>) -> Result<T, Error> {
        let result = self.request_raw(method, params, RequestOptions::default()).await?;
        decode(method, &result)
    }

    /// Follows `nextCursor` until the last page, each read by `read`.
    /// Stops with an error when a server repeats a cursor or exceeds
    /// `max_pages` (a loop, not a list).
    async fn list_all<P, T>(
        &self,
        method: &str,
        read: fn(&str, &RawResult) -> Result<P, Error>,
        mut page: impl FnMut(P) -> (Vec<T>, Option<String>),
    ) -> Result<Vec<T>, Error> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = crate::hash::Names::default();
        for _ in 0..self.inner.options.max_pages {
            let result = self.request_raw(method, cursor_params(cursor.as_deref()), RequestOptions::default()).await?;
            let result = read(method, &result)?;
            let (mut page_items, next) = page(result);
            items.append(&mut page_items);
            match next {
                None => return Ok(items),
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(Error::InvalidResult {
                        method: method.to_owned(),
                        reason: format!("the server repeated the cursor {next}", next = Quoted(&next)),
                    });
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(Error::InvalidResult {
            method: method.to_owned(),
            reason: format!("more than {} pages", self.inner.options.max_pages),
        })
    }

    /// `ping`: checks the server is alive.
    pub async fn ping(&self) -> Result<(), Error> {
        self.request(methods::PING, None, RequestOptions::default()).await.map(drop)
    }

    /// One page of `tools/list`.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult, Error> {
        self.call(methods::TOOLS_LIST, cursor_params(cursor)).await
    }

    /// Every tool, across all pages.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, Error> {
        self.list_all(methods::TOOLS_LIST, decode, |r: ListToolsResult| (r.tools, r.next_cursor)).await
    }

    /// Lists every page of tools for what listing does in the engine (the
    /// stateless cache, the tools' header annotations) without decoding
    /// them: the typed `Tool` decoder stays out of builds that never ask
    /// for it, such as the JS face's `.wasm`.
    /// `list_all`'s own future, not an `async fn` around it (a state
    /// machine less); only its error is read.
    pub(crate) fn relist_tools(&self) -> impl std::future::Future<Output = Result<Vec<()>, Error>> + '_ {
        // Read as a `Value` by the crate's reader (the only one the wasm
        // has), not by serde.
        let next_cursor = |page: Value| page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
        self.list_all(methods::TOOLS_LIST, crate::client::request::to_value, move |page: Value| {
            (Vec::<()>::new(), next_cursor(page))
        })
    }

    /// `tools/call` with default options.
    pub async fn call_tool(&self, name: &str, arguments: Option<JsonObject>) -> Result<CallToolResult, Error> {
        self.call_tool_with(name, arguments, RequestOptions::default()).await
    }

    /// `tools/call` with a timeout, progress callback, and so on.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        options: RequestOptions,
    ) -> Result<CallToolResult, Error> {
        let result = self.request_raw(methods::TOOLS_CALL, Some(tool_params(name, arguments)), options).await?;
        decode(methods::TOOLS_CALL, &result)
    }

    /// `tools/call`, returning the result as the server sent it.
    pub async fn call_tool_raw(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        options: RequestOptions,
    ) -> Result<Value, Error> {
        self.request(methods::TOOLS_CALL, Some(tool_params(name, arguments)), options).await
    }

    /// One page of `resources/list`.
    pub async fn list_resources(&self, cursor: Option<&str>) -> Result<ListResourcesResult, Error> {
        self.call(methods::RESOURCES_LIST, cursor_params(cursor)).await
    }

    /// Every resource, across all pages.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, Error> {
        self.list_all(methods::RESOURCES_LIST, decode, |r: ListResourcesResult| (r.resources, r.next_cursor)).await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(&self, cursor: Option<&str>) -> Result<ListResourceTemplatesResult, Error> {
        self.call(methods::RESOURCES_TEMPLATES_LIST, cursor_params(cursor)).await
    }

    /// Every resource template, across all pages.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        self.list_all(methods::RESOURCES_TEMPLATES_LIST, decode, |r: ListResourceTemplatesResult| {
            (r.resource_templates, r.next_cursor)
        })
        .await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.call(methods::RESOURCES_READ, Some(object! { "uri": uri })).await
    }

    /// `resources/subscribe`: updates arrive as `notifications/resources/updated`.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), Error> {
        self.request(methods::RESOURCES_SUBSCRIBE, Some(object! { "uri": uri }), RequestOptions::default())
            .await
            .map(drop)
    }

    /// `resources/unsubscribe`.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), Error> {
        let params = Some(object! { "uri": uri });
        self.request(methods::RESOURCES_UNSUBSCRIBE, params, RequestOptions::default()).await.map(drop)
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult, Error> {
        self.call(methods::PROMPTS_LIST, cursor_params(cursor)).await
    }

    /// Every prompt, across all pages.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, Error> {
        self.list_all(methods::PROMPTS_LIST, decode, |r: ListPromptsResult| (r.prompts, r.next_cursor)).await
    }

    /// `prompts/get` with string arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<GetPromptResult, Error> {
        let mut params = Map::new();
        params.insert("name".into(), Value::from(name));
        if let Some(arguments) = arguments {
            params.insert("arguments".into(), Value::Object(arguments));
        }
        self.call(methods::PROMPTS_GET, Some(Value::Object(params))).await
    }

    /// `completion/complete` for one argument; `context` holds the values of
    /// arguments already filled in (2025-06-18+).
    pub async fn complete(
        &self,
        reference: &CompletionReference,
        argument: &str,
        value: &str,
        context: Option<Map<String, Value>>,
    ) -> Result<CompleteResult, Error> {
        let mut params = object! {
            "ref": reference.to_value(),
            "argument": object! { "name": argument, "value": value },
        };
        let newer = self.negotiated().is_some_and(|n| n.version >= ProtocolVersion::V2025_06_18);
        if let (Some(context), true) = (context, newer) {
            params["context"] = object! { "arguments": context };
        }
        self.call(methods::COMPLETION_COMPLETE, Some(params)).await
    }

    /// `logging/setLevel`.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), Error> {
        let params = Some(object! { "level": level.as_str() });
        self.request(methods::LOGGING_SET_LEVEL, params, RequestOptions::default()).await.map(drop)
    }

    /// Tells the server the roots changed (only if `roots.listChanged` was declared).
    pub async fn notify_roots_changed(&self) -> Result<(), Error> {
        self.roots_changed_declared()?;
        self.notify(methods::ROOTS_LIST_CHANGED, None).await
    }

    /// Whether `roots.listChanged` was declared, as
    /// [`Client::notify_roots_changed`] needs.
    pub(crate) fn roots_changed_declared(&self) -> Result<(), Error> {
        if !self.inner.options.roots_list_changed {
            return Err(Error::InvalidArgument(
                "roots.listChanged was not declared: register roots with on_roots".into(),
            ));
        }
        Ok(())
    }
}
