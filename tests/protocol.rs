//! The protocol layer: codec, ids, versions, types. Runs natively and, under
//! wasm-bindgen-test, in headless Chromium.

use mcp_edge::protocol::types::{CallToolResult, ContentBlock, InitializeResult, ListToolsResult};
use mcp_edge::protocol::{DecodeError, decode, decode_one};
use mcp_edge::protocol::{ErrorObject, Message, ProtocolVersion, RequestId};
use serde_json::json;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

macro_rules! tests {
    ($($(#[$meta:meta])* fn $name:ident() $body:block)*) => {
        $(
            $(#[$meta])*
            #[cfg_attr(not(target_arch = "wasm32"), test)]
            #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
            fn $name() $body
        )*
    };
}

fn one(payload: &str) -> Message {
    match decode_one(payload) {
        Ok(message) => message,
        Err(e) => panic!("{payload} did not decode: {e}"),
    }
}

tests! {
    fn decodes_each_kind() {
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
            Message::request(7, "ping", None)
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}"#),
            Message::notification("notifications/message", Some(json!({"level":"info","data":1})))
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Message::result(RequestId::from("a"), json!({}))
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope","data":{"x":1}}}"#),
            Message::error(Some(RequestId::Int(3)), ErrorObject { code: -32601, message: "nope".into(), data: Some(json!({"x":1})) })
        );
    }

    fn ids_keep_their_json_type() {
        let numeric = one(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        let textual = one(r#"{"jsonrpc":"2.0","id":"1","result":{}}"#);
        assert_ne!(numeric, textual);
        assert_ne!(RequestId::Int(1), RequestId::from("1"));
        // Echoed exactly as received.
        let Message::Request(request) = one(r#"{"jsonrpc":"2.0","id":"007","method":"ping"}"#) else { panic!("not a request") };
        let answer = Message::result(request.id, json!({})).to_json();
        assert!(answer.contains(r#""id":"007""#), "{answer}");
    }

    fn an_error_may_have_a_null_id() {
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#),
            Message::error(None, ErrorObject::new(-32700, "parse"))
        );
    }

    fn rejects_what_is_not_jsonrpc() {
        let cases = [
            r#"{"id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":42}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"str"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"message":"no code"}}"#,
            r#"[1,2]"#,
            r#""just a string""#,
        ];
        for case in cases {
            let outcome = decode(case).map(|items| items.into_iter().all(|m| m.is_ok()));
            assert!(!matches!(outcome, Ok(true)), "accepted {case}");
        }
        assert!(matches!(decode("not json"), Err(DecodeError::NotJson(_))));
        assert!(matches!(decode(""), Err(DecodeError::NotJson(_))));
        assert_eq!(decode("[]"), Err(DecodeError::EmptyBatch));
    }

    fn a_batch_decodes_element_by_element() {
        let batch = r#"[
            {"jsonrpc":"2.0","id":1,"result":{"a":1}},
            {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},
            {"bogus":true},
            {"jsonrpc":"2.0","id":"s","method":"ping"}
        ]"#;
        let Ok(items) = decode(batch) else { panic!("batch rejected") };
        assert_eq!(items.len(), 4);
        assert!(items[0].is_ok() && items[1].is_ok() && items[3].is_ok());
        assert!(items[2].is_err());
        assert!(matches!(&items[3], Ok(Message::Request(r)) if r.id == RequestId::from("s")));
    }

    fn a_result_is_kept_as_the_server_sent_it() {
        // The text is kept (spacing, key order, number spelling) and goes
        // back out unparsed; `null` is a result, not a missing one.
        let text = r#"{"jsonrpc":"2.0","id":7,"result":{"b":1, "a":[1.50,"x\u0041"]}}"#;
        let Ok(Message::Response(response)) = decode_one(text) else { panic!("{text} is a response") };
        let result = response.outcome.clone().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result.text(), r#"{"b":1, "a":[1.50,"x\u0041"]}"#);
        assert_eq!(result, json!({"a": [1.5, "xA"], "b": 1}));
        assert_eq!(Message::Response(response).to_json(), r#"{"jsonrpc":"2.0","id":7,"result":{"b":1, "a":[1.50,"x\u0041"]}}"#);
        let Ok(Message::Response(empty)) = decode_one(r#"{"jsonrpc":"2.0","id":1,"result":null}"#) else {
            panic!("a null result is a response")
        };
        assert_eq!(empty.outcome.map(|r| r.kind()), Ok("null"));
    }

    fn encoding_is_one_compact_line() {
        let message = Message::request(1, "tools/call", Some(json!({"name":"echo","arguments":{"message":"a\nb\r\nc"}})));
        let line = message.to_json();
        assert!(!line.contains('\n') && !line.contains('\r'), "{line}");
        assert_eq!(one(&line), message);
        assert!(line.starts_with(r#"{"jsonrpc":"2.0""#) || line.contains(r#""jsonrpc":"2.0""#));
        let notification = Message::notification("notifications/initialized", None).to_json();
        assert!(!notification.contains("\"id\""), "{notification}");
        assert!(!notification.contains("params"), "{notification}");
    }

    fn versions_parse_and_order() {
        for version in ProtocolVersion::ALL {
            assert_eq!(version.as_str().parse::<ProtocolVersion>(), Ok(version));
        }
        assert!("2099-01-01".parse::<ProtocolVersion>().is_err());
        assert!("2024-10-07".parse::<ProtocolVersion>().is_err());
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2025_03_26);
        assert!(ProtocolVersion::V2025_06_18 < ProtocolVersion::LATEST);
        assert_eq!(ProtocolVersion::LATEST.as_str(), "2025-11-25");
        assert!(ProtocolVersion::V2025_03_26.allows_batches());
        assert!(!ProtocolVersion::V2025_11_25.allows_batches());
    }

    fn results_parse_leniently() {
        let init: InitializeResult = serde_json::from_value(json!({
            "protocolVersion": "2024-11-05",
            "capabilities": {"tools": {}, "futureThing": {"x": 1}},
            "serverInfo": {"name": "old", "version": "1"},
            "somethingNew": true
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(init.capabilities.tools.is_some());
        assert!(init.capabilities.prompts.is_none());

        let tools: ListToolsResult = serde_json::from_value(json!({
            "tools": [{"name": "a", "inputSchema": {"type": "object"}, "icons": []}, {"name": "b"}]
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tools.tools.len(), 2);
        assert_eq!(tools.tools[1].input_schema, json!({"type": "object"}));

        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AAA", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///x", "name": "x"},
                {"type": "hologram", "data": 1},
                {"type": "text"}
            ],
            "isError": true
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(result.is_error());
        assert_eq!(result.content[0], ContentBlock::text("hi"));
        assert!(matches!(result.content[1], ContentBlock::Image { .. }));
        assert!(matches!(result.content[2], ContentBlock::ResourceLink { .. }));
        assert_eq!(result.content[3], ContentBlock::Unknown(json!({"type": "hologram", "data": 1})));
        // A text block without text is kept whole rather than invented.
        assert!(matches!(result.content[4], ContentBlock::Unknown(_)));
        // Round trip keeps the unknown block as sent.
        let back = serde_json::to_value(&result).unwrap_or_default();
        assert_eq!(back["content"][3], json!({"type": "hologram", "data": 1}));
    }

    fn messages_without_a_result_read_as_a_map_would() {
        // The codec reads these members straight into a struct; what a map
        // of the message gave must hold: null is a value, the last of a
        // repeated member wins, unknown members are skipped, and a "result"
        // spelled with escapes is still a result.
        let Err(DecodeError::Invalid(why)) = decode_one(r#"{"jsonrpc":"2.0","method":"m","params":null}"#) else {
            panic!("null params are not an object or an array")
        };
        assert!(why.contains("\"params\" of m"), "{why}");
        let Err(DecodeError::Invalid(why)) = decode_one(r#"{"jsonrpc":null,"method":"m"}"#) else {
            panic!("a null jsonrpc is refused")
        };
        assert!(why.contains("found null"), "{why}");
        let Message::Notification(n) = one(r#"{"jsonrpc":"2.0","method":"a","method":"b","extra":[1,{"x":2}]}"#) else {
            panic!("a notification")
        };
        assert_eq!(n.method, "b");
        let Message::Notification(n) = one("\u{feff}{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":null,\"params\":{\"a\":1}}") else {
            panic!("a notification (a null id is none)")
        };
        assert_eq!(n.params, Some(json!({"a": 1})));
        let Message::Request(r) = one(r#"{"params":[1],"id":"7","method":"m","jsonrpc":"2.0"}"#) else {
            panic!("a request")
        };
        assert_eq!((r.id, r.params), (RequestId::from("7"), Some(json!([1]))));
        let Message::Response(response) = one(r#"{"jsonrpc":"2.0","id":3,"res\u0075lt":{"x":1}}"#) else {
            panic!("an escaped result is a result")
        };
        assert_eq!(response.outcome.map(|r| r.to_value().ok()), Ok(Some(json!({"x": 1}))));
        let Err(DecodeError::Invalid(why)) = decode_one(r#"{"jsonrpc":"2.0","method":7}"#) else {
            panic!("a method that is not a string is refused")
        };
        assert!(why.contains("must be a string"), "{why}");
    }

    fn a_result_no_value_could_hold_is_refused_on_arrival() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let message = |result: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"a":{result}}}}}"#);
        // The result object plus 126 arrays: 127 levels, as deep as a `Value` goes.
        let Message::Response(response) = one(&message(&nested(126))) else { panic!("a response") };
        assert!(response.outcome.is_ok_and(|result| result.to_value().is_ok()));
        for (result, reason) in [(nested(127), "recursion limit exceeded"), ("1e400".to_owned(), "number out of range")] {
            match decode_one(&message(&result)) {
                Err(DecodeError::NotJson(why)) => assert!(why.contains(reason), "{why}"),
                other => panic!("{result:.20} was not refused: {other:?}"),
            }
        }
        // A deep value inside a string is text, not nesting.
        let quoted = format!(r#""{}""#, "[".repeat(1000));
        assert!(matches!(one(&message(&quoted)), Message::Response(_)));
    }
}
