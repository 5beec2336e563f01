//! What outlives a page or a worker: `McpClient.snapshot`/`restore` (a
//! session continued elsewhere) and `exportVerdicts`/`importVerdicts` (what
//! the era and transport probes found), behind the `persist` feature.
//!
//! A Rust program links only what it calls, but the JS face exports every
//! method, so this is where the switch sits. Without the feature (the npm
//! package's `mcp-edge/lite`, 9.3 KB less gzip; docs/size.md) the methods
//! are still there, with the same types, and fail with an error that names
//! what to do instead.

#[cfg(feature = "persist")]
mod imp {
    use js_sys::Promise;
    use serde_json::Value;
    use wasm_bindgen::JsValue;

    use super::super::convert::{WebError, from_js, to_js};
    use super::super::options::connect_options;
    use super::super::{McpClient, promise};
    use crate::client::negotiate::persist::{self, Verdicts};
    use crate::client::negotiate::restore_url_now;
    use crate::client::{Client, Snapshot};
    use crate::protocol::fields;

    pub(crate) fn restore(snapshot: &JsValue, url: String, options: &JsValue) -> Promise {
        let connect = connect_options(&url, options);
        let snapshot = from_js(snapshot, "snapshot").and_then(|value| {
            let value = value.ok_or_else(|| WebError::Type("snapshot must be McpClient.snapshot()'s object".into()))?;
            fields::from_value::<Snapshot>(value, "a snapshot (an object)")
                .map_err(|e| WebError::Type(format!("snapshot is not McpClient.snapshot()'s object: {e}")))
        });
        promise(async move {
            let snapshot = snapshot?;
            let (http, connect, client) = connect?.ready(&url).await?;
            let client = restore_url_now(http, &url, &snapshot, connect, client)?;
            Ok(McpClient::from(client).into())
        })
    }

    pub(crate) fn snapshot(client: &Client) -> JsValue {
        match client.snapshot() {
            Some(snapshot) => to_js(&snapshot.to_value()).unwrap_or(JsValue::UNDEFINED),
            None => JsValue::UNDEFINED,
        }
    }

    pub(crate) fn export_verdicts() -> JsValue {
        to_js(&persist::export().to_value()).unwrap_or(JsValue::UNDEFINED)
    }

    pub(crate) fn import_verdicts(verdicts: &JsValue) -> Result<(), WebError> {
        let value = from_js(verdicts, "verdicts")?.unwrap_or(Value::Null);
        let verdicts = fields::from_value::<Verdicts>(value, "an object")
            .map_err(|e| WebError::Type(format!("verdicts is not McpClient.exportVerdicts()'s object: {e}")))?;
        persist::import(&verdicts);
        Ok(())
    }
}

#[cfg(not(feature = "persist"))]
mod imp {
    use js_sys::Promise;
    use wasm_bindgen::JsValue;

    use super::super::convert::WebError;
    use super::super::promise;
    /// The refusal of a method this build leaves out.
    pub(crate) fn absent(method: &str) -> WebError {
        WebError::Type(format!(
            "McpClient.{method} is not in this build of mcp-edge (mcp-edge/lite leaves out session snapshots \
             and stored verdicts): import `mcp-edge`, or build with the `persist` feature"
        ))
    }

    pub(crate) fn restore(_snapshot: &JsValue, _url: String, _options: &JsValue) -> Promise {
        promise(async { Err(absent("restore")) })
    }

    pub(crate) fn import_verdicts(_verdicts: &JsValue) -> Result<(), WebError> {
        Err(absent("importVerdicts"))
    }
}

#[cfg(not(feature = "persist"))]
pub(crate) use imp::absent;
#[cfg(feature = "persist")]
pub(crate) use imp::{export_verdicts, snapshot};
pub(crate) use imp::{import_verdicts, restore};
