//! Rendering results: for people (the default) or as one JSON document.
//!
//! Everything writes to the `out` it is given (stdout in the binary), never
//! to stderr: progress and logs live there.

use std::io::{self, Write};
use std::time::Duration;

use mcp_edge::client::Negotiated;
use mcp_edge::protocol::types::{
    CallToolResult, CompleteResult, ContentBlock, GetPromptResult, Prompt, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Tool,
};
use serde_json::Value;

/// One JSON document, pretty-printed, ending with a newline.
pub fn json(out: &mut dyn Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)
}

/// `an array`, `a string`, ...: for messages about the wrong kind of JSON.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Who the server is and what the handshake settled.
pub fn info(out: &mut dyn Write, negotiated: &Negotiated, transport: &str) -> io::Result<()> {
    let result = &negotiated.result;
    let server = &result.server_info;
    writeln!(out, "server: {} {}", server.name, server.version)?;
    if let Some(title) = &server.title {
        writeln!(out, "title: {title}")?;
    }
    if let Some(description) = &server.description {
        writeln!(out, "description: {}", first_line(description))?;
    }
    if let Some(website) = &server.website_url {
        writeln!(out, "website: {website}")?;
    }
    writeln!(out, "protocol: {}", negotiated.version.as_str())?;
    writeln!(out, "transport: {transport}")?;
    let capabilities = serde_json::to_value(&result.capabilities).unwrap_or(Value::Null);
    writeln!(out, "capabilities: {}", capability_summary(&capabilities))?;
    if let Some(instructions) = result.instructions.as_deref().filter(|i| !i.trim().is_empty()) {
        writeln!(out, "instructions:")?;
        for line in instructions.trim_end().lines() {
            if line.trim().is_empty() {
                writeln!(out)?;
            } else {
                writeln!(out, "  {line}")?;
            }
        }
    }
    Ok(())
}

/// `tools (listChanged), resources (subscribe, listChanged), logging`: each
/// capability with the sub-features it turned on.
fn capability_summary(capabilities: &Value) -> String {
    let Some(object) = capabilities.as_object().filter(|o| !o.is_empty()) else {
        return "none".into();
    };
    let parts: Vec<String> = object
        .iter()
        .map(|(name, value)| {
            let mut features: Vec<&str> = value
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, on)| !matches!(on, Value::Bool(false) | Value::Null))
                .map(|(feature, _)| feature.as_str())
                .collect();
            features.sort_unstable();
            if features.is_empty() { name.clone() } else { format!("{name} ({})", features.join(", ")) }
        })
        .collect();
    // Alphabetical, whatever order the server sent, so output is stable.
    let mut parts = parts;
    parts.sort_unstable();
    parts.join(", ")
}

/// Each tool: its name with title and description, then its arguments
/// (`*` marks the required ones).
pub fn tools(out: &mut dyn Write, tools: &[Tool]) -> io::Result<()> {
    if tools.is_empty() {
        return writeln!(out, "(no tools)");
    }
    for tool in tools {
        writeln!(out, "{}", headline(&tool.name, tool.title.as_deref(), tool.description.as_deref()))?;
        let arguments = schema_arguments(&tool.input_schema);
        if !arguments.is_empty() {
            writeln!(out, "    arguments: {}", arguments.join(", "))?;
        }
    }
    Ok(())
}

/// The properties of an object schema, required ones marked with `*`.
fn schema_arguments(schema: &Value) -> Vec<String> {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, _)| if required.contains(&name.as_str()) { format!("{name}*") } else { name.clone() })
        .collect()
}

/// `name - Title: first line of the description`.
fn headline(name: &str, title: Option<&str>, description: Option<&str>) -> String {
    let description = description.map(first_line).filter(|d| !d.is_empty());
    match (title.filter(|t| !t.is_empty() && *t != name), description) {
        (Some(title), Some(description)) => format!("{name} - {title}: {description}"),
        (Some(title), None) => format!("{name} - {title}"),
        (None, Some(description)) => format!("{name} - {description}"),
        (None, None) => name.to_owned(),
    }
}

fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or_default().trim()
}

/// Each resource: its URI, then its name, media type and description.
pub fn resources(out: &mut dyn Write, resources: &[Resource]) -> io::Result<()> {
    if resources.is_empty() {
        return writeln!(out, "(no resources)");
    }
    for resource in resources {
        writeln!(out, "{}", resource.uri)?;
        let name = labelled(&resource.name, resource.mime_type.as_deref(), resource.size);
        writeln!(out, "    {}", headline(&name, resource.title.as_deref(), resource.description.as_deref()))?;
    }
    Ok(())
}

/// Each template: its URI template, then its name, media type and description.
pub fn templates(out: &mut dyn Write, templates: &[ResourceTemplate]) -> io::Result<()> {
    if templates.is_empty() {
        return writeln!(out, "(no resource templates)");
    }
    for template in templates {
        writeln!(out, "{}", template.uri_template)?;
        let name = labelled(&template.name, template.mime_type.as_deref(), None);
        writeln!(out, "    {}", headline(&name, template.title.as_deref(), template.description.as_deref()))?;
    }
    Ok(())
}

/// `name (text/plain, 1.2 KiB)`.
fn labelled(name: &str, mime_type: Option<&str>, size: Option<u64>) -> String {
    let details: Vec<String> = mime_type.map(str::to_owned).into_iter().chain(size.map(human_size)).collect();
    if details.is_empty() { name.to_owned() } else { format!("{name} ({})", details.join(", ")) }
}

/// Each prompt with its arguments (`*` marks the required ones).
pub fn prompts(out: &mut dyn Write, prompts: &[Prompt]) -> io::Result<()> {
    if prompts.is_empty() {
        return writeln!(out, "(no prompts)");
    }
    for prompt in prompts {
        writeln!(out, "{}", headline(&prompt.name, prompt.title.as_deref(), prompt.description.as_deref()))?;
        if !prompt.arguments.is_empty() {
            let arguments: Vec<String> = prompt
                .arguments
                .iter()
                .map(|a| if a.required == Some(true) { format!("{}*", a.name) } else { a.name.clone() })
                .collect();
            writeln!(out, "    arguments: {}", arguments.join(", "))?;
        }
    }
    Ok(())
}

/// A tool's result: its content blocks, or its structured content when it
/// sent no text.
pub fn tool_result(out: &mut dyn Write, result: &CallToolResult) -> io::Result<()> {
    for block in &result.content {
        content_block(out, block)?;
    }
    let has_text = result.content.iter().any(|b| matches!(b, ContentBlock::Text { .. }));
    if let Some(structured) = result.structured_content.as_ref().filter(|_| !has_text) {
        json(out, structured)?;
    }
    Ok(())
}

/// Text as text; anything binary or linked as a one-line summary.
pub fn content_block(out: &mut dyn Write, block: &ContentBlock) -> io::Result<()> {
    match block {
        ContentBlock::Text { text } => text_line(out, text),
        ContentBlock::Image { data, mime_type } => {
            writeln!(out, "[image {mime_type}, {}]", human_size(base64_len(data)))
        }
        ContentBlock::Audio { data, mime_type } => {
            writeln!(out, "[audio {mime_type}, {}]", human_size(base64_len(data)))
        }
        ContentBlock::ResourceLink { uri, name, mime_type } => {
            let mime = mime_type.as_deref().map(|m| format!(", {m}")).unwrap_or_default();
            if name.is_empty() {
                writeln!(out, "[resource link {uri}{mime}]")
            } else {
                writeln!(out, "[resource link {uri} ({name}{mime})]")
            }
        }
        ContentBlock::Resource { resource } => {
            writeln!(out, "[resource {}]", contents_summary(resource))?;
            match &resource.text {
                Some(text) => text_line(out, text),
                None => Ok(()),
            }
        }
        ContentBlock::Unknown(value) => {
            let kind = value.get("type").and_then(Value::as_str).unwrap_or("without a type");
            writeln!(out, "[content {kind}: {value}]")
        }
    }
}

/// `uri, text/plain` or, for a blob, `uri, image/png, 1.2 KiB`.
fn contents_summary(contents: &ResourceContents) -> String {
    let mut summary = contents.uri.clone();
    if let Some(mime_type) = &contents.mime_type {
        summary.push_str(", ");
        summary.push_str(mime_type);
    }
    if let (None, Some(blob)) = (&contents.text, &contents.blob) {
        summary.push_str(", ");
        summary.push_str(&human_size(base64_len(blob)));
    }
    summary
}

/// Text, ending with exactly one newline of its own.
fn text_line(out: &mut dyn Write, text: &str) -> io::Result<()> {
    if text.ends_with('\n') { write!(out, "{text}") } else { writeln!(out, "{text}") }
}

/// Text contents as text; blobs as a summary. Several contents get a
/// header each.
pub fn read_result(out: &mut dyn Write, result: &ReadResourceResult) -> io::Result<()> {
    let several = result.contents.len() > 1;
    for contents in &result.contents {
        match &contents.text {
            Some(text) => {
                if several {
                    writeln!(out, "--- {}", contents_summary(contents))?;
                }
                text_line(out, text)?;
            }
            None => writeln!(out, "[blob {}]", contents_summary(contents))?,
        }
    }
    Ok(())
}

/// The prompt's messages, each tagged with its role.
pub fn prompt_result(out: &mut dyn Write, result: &GetPromptResult) -> io::Result<()> {
    if let Some(description) = result.description.as_deref().filter(|d| !d.trim().is_empty()) {
        writeln!(out, "# {}", first_line(description))?;
    }
    for message in &result.messages {
        write!(out, "[{}] ", message.role)?;
        content_block(out, &message.content)?;
    }
    Ok(())
}

/// One value a line, then how many more there are, if the server said.
pub fn completion(out: &mut dyn Write, result: &CompleteResult) -> io::Result<()> {
    let completion = &result.completion;
    for value in &completion.values {
        writeln!(out, "{value}")?;
    }
    let shown = completion.values.len() as u64;
    match (completion.total, completion.has_more) {
        (Some(total), _) if total > shown => {
            writeln!(out, "({} more, {total} in all)", total - shown)
        }
        (_, Some(true)) => writeln!(out, "(more exist)"),
        _ => Ok(()),
    }
}

/// The answer to `ping`.
pub fn pong(out: &mut dyn Write, elapsed: Duration) -> io::Result<()> {
    writeln!(out, "pong ({} ms)", elapsed.as_millis())
}

/// How many bytes a base64 string decodes to.
fn base64_len(data: &str) -> u64 {
    let symbols = data.bytes().filter(|b| !b.is_ascii_whitespace()).count() as u64;
    let padding = data.trim_end().bytes().rev().take_while(|b| *b == b'=').count() as u64;
    (symbols * 3 / 4).saturating_sub(padding)
}

/// `512 B`, `1.2 KiB`, `3.4 MiB`.
fn human_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else if b < KIB * KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else {
        format!("{:.1} GiB", b / (KIB * KIB * KIB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
        let mut buffer = Vec::new();
        f(&mut buffer).unwrap();
        String::from_utf8(buffer).unwrap()
    }

    #[test]
    fn sizes() {
        assert_eq!(base64_len("aGk="), 2);
        assert_eq!(base64_len("aGVsbG8="), 5);
        assert_eq!(base64_len("aGVsbG8h"), 6);
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(1229), "1.2 KiB");
    }

    #[test]
    fn content_summaries() {
        let blocks = [
            ContentBlock::text("hello"),
            ContentBlock::Image { data: "aGVsbG8h".into(), mime_type: "image/png".into() },
            ContentBlock::ResourceLink { uri: "file:///a".into(), name: "a".into(), mime_type: None },
        ];
        let text = render(|out| blocks.iter().try_for_each(|b| content_block(out, b)));
        assert_eq!(text, "hello\n[image image/png, 6 B]\n[resource link file:///a (a)]\n");
    }

    #[test]
    fn structured_content_only_without_text() {
        let result = CallToolResult { structured_content: Some(json!({"a": 1})), ..Default::default() };
        assert_eq!(render(|out| tool_result(out, &result)), "{\n  \"a\": 1\n}\n");
    }

    #[test]
    fn capabilities_list_their_features() {
        let caps = json!({"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": false}});
        assert_eq!(capability_summary(&caps), "logging, resources, tools (listChanged)");
    }
}
