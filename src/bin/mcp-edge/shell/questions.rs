//! The server's questions asked at the prompt: an elicitation form, one
//! field a line, and a sampling request's typed reply.

use mcp_edge::protocol::types::{CreateMessageParams, ElicitAction, ElicitParams, ElicitResult, JsonObject};
use rustyline::Editor;
use rustyline::config::Configurer;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use serde_json::Value;

use super::Question;
use super::complete::ShellHelper;

pub(super) fn answer(editor: &mut Editor<ShellHelper, DefaultHistory>, question: Question) {
    match question {
        Question::Elicit(params, reply) => {
            let _ = reply.send(elicit(editor, &params));
        }
        Question::Sample(params, reply) => {
            let _ = reply.send(sample(editor, &params));
        }
    }
}

/// Asks one line without putting it in the history.
fn ask(editor: &mut Editor<ShellHelper, DefaultHistory>, prompt: &str) -> Result<String, ReadlineError> {
    let helper = editor.helper_mut().map(|h| std::mem::take(&mut h.catalog));
    editor.set_auto_add_history(false);
    let line = editor.readline(prompt);
    editor.set_auto_add_history(true);
    if let (Some(catalog), Some(h)) = (helper, editor.helper_mut()) {
        h.catalog = catalog;
    }
    line
}

/// A form for the requested schema, one field a line. Ctrl-C cancels,
/// Ctrl-D declines.
fn elicit(editor: &mut Editor<ShellHelper, DefaultHistory>, params: &ElicitParams) -> ElicitResult {
    let refuse = |action| ElicitResult { action, content: None };
    println!("? the server asks: {}", params.message);
    if let Some(url) = &params.url {
        println!("  open {url}");
        return match ask(editor, "  press Enter when done (Ctrl-C cancels, Ctrl-D declines) ") {
            Ok(_) => ElicitResult { action: ElicitAction::Accept, content: None },
            Err(ReadlineError::Eof) => refuse(ElicitAction::Decline),
            Err(_) => refuse(ElicitAction::Cancel),
        };
    }
    println!("  (Enter keeps a default or skips an optional field; Ctrl-C cancels, Ctrl-D declines)");
    let schema = params.requested_schema.clone().unwrap_or(Value::Null);
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut content = JsonObject::new();
    let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    for (name, field) in &properties {
        let is_required = required.contains(&name.as_str());
        let prompt = field_prompt(name, field, is_required);
        loop {
            let line = match ask(editor, &prompt) {
                Ok(line) => line,
                Err(ReadlineError::Eof) => return refuse(ElicitAction::Decline),
                Err(_) => return refuse(ElicitAction::Cancel),
            };
            let text = line.trim();
            if text.is_empty() {
                if field.get("default").is_some() || !is_required {
                    // The client fills defaults in (fill_defaults).
                    break;
                }
                println!("  {name} is required");
                continue;
            }
            match field_value(field, text) {
                Ok(value) => {
                    content.insert(name.clone(), value);
                    break;
                }
                Err(why) => println!("  {why}"),
            }
        }
    }
    ElicitResult { action: ElicitAction::Accept, content: Some(content) }
}

/// `  name* (Your full name) [string, default x]: `.
fn field_prompt(name: &str, field: &Value, required: bool) -> String {
    let text = |key: &str| field.get(key).and_then(Value::as_str);
    let mut prompt = format!("  {name}{}", if required { "*" } else { "" });
    if let Some(description) = text("description").or(text("title")) {
        prompt.push_str(&format!(" ({description})"));
    }
    let mut kind = text("type").unwrap_or("string").to_owned();
    if let Some(choices) = choices(field) {
        kind = format!("one of {}", choices.join("|"));
        if text("type") == Some("array") {
            kind = format!("some of {}, comma-separated", choices.join("|"));
        }
    } else if let Some(format) = text("format") {
        kind = format!("{kind}, {format}");
    }
    match field.get("default") {
        Some(default) => prompt.push_str(&format!(" [{kind}, default {default}]: ")),
        None => prompt.push_str(&format!(" [{kind}]: ")),
    }
    prompt
}

/// The values an enum field allows (`enum`, `oneOf` with `const`, or an
/// array's `items`).
fn choices(field: &Value) -> Option<Vec<String>> {
    let of = |schema: &Value| -> Option<Vec<String>> {
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return Some(values.iter().filter_map(Value::as_str).map(str::to_owned).collect());
        }
        let options = schema.get("oneOf").or_else(|| schema.get("anyOf")).and_then(Value::as_array)?;
        Some(options.iter().filter_map(|o| o.get("const").and_then(Value::as_str)).map(str::to_owned).collect())
    };
    of(field).or_else(|| field.get("items").and_then(of))
}

/// A typed answer for a field.
fn field_value(field: &Value, text: &str) -> Result<Value, String> {
    let allowed = choices(field);
    let check = |value: &str| -> Result<Value, String> {
        match &allowed {
            Some(choices) if !choices.iter().any(|c| c == value) => {
                Err(format!("`{value}` is not one of {}", choices.join(", ")))
            }
            _ => Ok(Value::String(value.to_owned())),
        }
    };
    match field.get("type").and_then(Value::as_str) {
        Some("boolean") => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" | "1" => Ok(Value::Bool(true)),
            "n" | "no" | "false" | "0" => Ok(Value::Bool(false)),
            _ => Err("answer yes or no".into()),
        },
        Some("integer") => text.parse::<i64>().map(Value::from).map_err(|_| "a whole number, please".into()),
        Some("number") => text
            .parse::<f64>()
            .ok()
            .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
            .ok_or_else(|| "a number, please".into()),
        Some("array") => {
            text.split(',').map(|item| check(item.trim())).collect::<Result<Vec<_>, _>>().map(Value::Array)
        }
        _ => check(text),
    }
}

/// Shows the conversation the server wants completed; the user's line is
/// the answer (None: declined with Ctrl-C or Ctrl-D).
fn sample(editor: &mut Editor<ShellHelper, DefaultHistory>, params: &CreateMessageParams) -> Option<String> {
    println!("? the server asks for a completion (max {} tokens):", params.max_tokens);
    if let Some(system) = &params.system_prompt {
        println!("  [system] {system}");
    }
    for message in &params.messages {
        let blocks = match &message.content {
            Value::Array(blocks) => blocks.clone(),
            block => vec![block.clone()],
        };
        for block in blocks {
            let text = match block.get("text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => format!("[{}]", block.get("type").and_then(Value::as_str).unwrap_or("content")),
            };
            println!("  [{}] {text}", message.role);
        }
    }
    ask(editor, "  your reply (Ctrl-C declines): ").ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_are_typed() {
        let int = json!({"type": "integer"});
        assert_eq!(field_value(&int, "42"), Ok(json!(42)));
        assert!(field_value(&int, "x").is_err());
        let choice = json!({"type": "string", "enum": ["a", "b"]});
        assert!(field_value(&choice, "c").is_err());
        let many = json!({"type": "array", "items": {"enum": ["a", "b"]}});
        assert_eq!(field_value(&many, "a, b"), Ok(json!(["a", "b"])));
        assert_eq!(field_value(&json!({"type": "boolean"}), "y"), Ok(json!(true)));
    }
}
