//! Rendering results: for people (the default) or as one JSON document.
//!
//! Everything writes to the `out` it is given (stdout in the binary), never
//! to stderr: progress and logs live there.

use std::io::{self, Write};
use std::time::Duration;

use mcp_edge::Negotiated;
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

/// The tools as a table: name, arguments (`*` marks the required ones),
/// title and the first line of the description.
pub fn tools(out: &mut dyn Write, tools: &[Tool]) -> io::Result<()> {
    if tools.is_empty() {
        return writeln!(out, "(no tools)");
    }
    let rows = tools
        .iter()
        .map(|tool| {
            vec![
                tool.name.clone(),
                schema_arguments(&tool.input_schema).join(","),
                title_of(&tool.name, tool.title.as_deref()),
                tool.description.as_deref().map(first_line).unwrap_or_default().to_owned(),
            ]
        })
        .collect();
    table(out, &["NAME", "ARGUMENTS", "TITLE", "DESCRIPTION"], rows)
}

/// A title worth a column: set and not just the name again.
fn title_of(name: &str, title: Option<&str>) -> String {
    title.filter(|t| !t.is_empty() && *t != name).unwrap_or_default().to_owned()
}

/// Left-aligned columns two spaces apart, under a header. Columns empty in
/// every row are left out; the last column is cut to the terminal's width
/// when stdout is one.
fn table(out: &mut dyn Write, header: &[&str], rows: Vec<Vec<String>>) -> io::Result<()> {
    let keep: Vec<usize> = (0..header.len()).filter(|&c| rows.iter().any(|r| !r[c].is_empty())).collect();
    let widths: Vec<usize> = keep
        .iter()
        .map(|&c| rows.iter().map(|r| r[c].chars().count()).chain([header[c].len()]).max().unwrap_or(0))
        .collect();
    let limit = terminal_width();
    let line = |cells: Vec<&str>| -> String {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 < cells.len() {
                text.push_str(&format!("{:<width$}  ", cell, width = widths[i]));
            } else {
                text.push_str(cell);
            }
        }
        let text = text.trim_end().to_owned();
        match limit {
            Some(limit) if text.chars().count() > limit && limit > 1 => {
                let mut cut: String = text.chars().take(limit - 1).collect();
                cut.push('…');
                cut
            }
            _ => text,
        }
    };
    writeln!(out, "{}", line(keep.iter().map(|&c| header[c]).collect()))?;
    for row in &rows {
        writeln!(out, "{}", line(keep.iter().map(|&c| row[c].as_str()).collect()))?;
    }
    Ok(())
}

/// The width of the terminal stdout is, if it is one.
fn terminal_width() -> Option<usize> {
    use std::io::IsTerminal;
    if !io::stdout().is_terminal() {
        return None;
    }
    if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return Some(columns);
    }
    #[cfg(unix)]
    {
        let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: TIOCGWINSZ fills the winsize it is given, which outlives the call.
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
        if ok && size.ws_col > 0 {
            return Some(size.ws_col as usize);
        }
    }
    None
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

fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or_default().trim()
}

/// The resources as a table: URI, name, media type and size, title, description.
pub fn resources(out: &mut dyn Write, resources: &[Resource]) -> io::Result<()> {
    if resources.is_empty() {
        return writeln!(out, "(no resources)");
    }
    let rows = resources
        .iter()
        .map(|r| {
            vec![
                r.uri.clone(),
                r.name.clone(),
                labelled(r.mime_type.as_deref(), r.size),
                title_of(&r.name, r.title.as_deref()),
                r.description.as_deref().map(first_line).unwrap_or_default().to_owned(),
            ]
        })
        .collect();
    table(out, &["URI", "NAME", "TYPE", "TITLE", "DESCRIPTION"], rows)
}

/// The resource templates as a table.
pub fn templates(out: &mut dyn Write, templates: &[ResourceTemplate]) -> io::Result<()> {
    if templates.is_empty() {
        return writeln!(out, "(no resource templates)");
    }
    let rows = templates
        .iter()
        .map(|t| {
            vec![
                t.uri_template.clone(),
                t.name.clone(),
                labelled(t.mime_type.as_deref(), None),
                title_of(&t.name, t.title.as_deref()),
                t.description.as_deref().map(first_line).unwrap_or_default().to_owned(),
            ]
        })
        .collect();
    table(out, &["URI TEMPLATE", "NAME", "TYPE", "TITLE", "DESCRIPTION"], rows)
}

/// `text/plain, 1.2 KiB`.
fn labelled(mime_type: Option<&str>, size: Option<u64>) -> String {
    let details: Vec<String> = mime_type.map(str::to_owned).into_iter().chain(size.map(human_size)).collect();
    details.join(", ")
}

/// The prompts as a table, with their arguments (`*`: required).
pub fn prompts(out: &mut dyn Write, prompts: &[Prompt]) -> io::Result<()> {
    if prompts.is_empty() {
        return writeln!(out, "(no prompts)");
    }
    let rows = prompts
        .iter()
        .map(|p| {
            let arguments: Vec<String> = p
                .arguments
                .iter()
                .map(|a| if a.required == Some(true) { format!("{}*", a.name) } else { a.name.clone() })
                .collect();
            vec![
                p.name.clone(),
                arguments.join(","),
                title_of(&p.name, p.title.as_deref()),
                p.description.as_deref().map(first_line).unwrap_or_default().to_owned(),
            ]
        })
        .collect();
    table(out, &["NAME", "ARGUMENTS", "TITLE", "DESCRIPTION"], rows)
}

/// The servers found in configuration files.
pub fn servers(out: &mut dyn Write, rows: Vec<Vec<String>>) -> io::Result<()> {
    if rows.is_empty() {
        return writeln!(out, "(no servers configured)");
    }
    table(out, &["NAME", "TYPE", "COMMAND OR URL", "FILE"], rows)
}

/// Where binary content (images, audio, blobs) goes: `--output FILE`
/// (`-`: stdout), else a file in a fresh temporary folder. Its path is
/// printed in place of the content.
#[derive(Debug, Default)]
pub struct Files {
    output: Option<std::path::PathBuf>,
    saved: usize,
}

impl Files {
    pub fn new(output: Option<std::path::PathBuf>) -> Self {
        Files { output, saved: 0 }
    }

    /// Whether binary content goes raw to stdout (`--output -`), so text
    /// must go elsewhere.
    pub fn to_stdout(&self) -> bool {
        self.output.as_deref() == Some(std::path::Path::new("-"))
    }

    /// Saves one piece of base64 content; returns where it went.
    fn save(&mut self, kind: &str, mime_type: Option<&str>, data: &str) -> io::Result<String> {
        use base64::Engine as _;
        let cleaned: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(cleaned.as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("the {kind} is not valid base64: {e}")))?;
        self.saved += 1;
        let path = match &self.output {
            Some(path) if path.as_os_str() == "-" => {
                let mut stdout = io::stdout().lock();
                stdout.write_all(&bytes)?;
                stdout.flush()?;
                return Ok("stdout".into());
            }
            // A second piece next to the first: out.png, out-2.png, ...
            Some(path) if self.saved > 1 => {
                let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let name = match path.extension() {
                    Some(ext) => format!("{stem}-{}.{}", self.saved, ext.to_string_lossy()),
                    None => format!("{stem}-{}", self.saved),
                };
                path.with_file_name(name)
            }
            Some(path) => path.clone(),
            None => {
                let dir = std::env::temp_dir().join(format!("mcp-edge-{}", std::process::id()));
                std::fs::create_dir_all(&dir)?;
                dir.join(format!("{kind}-{}.{}", self.saved, extension(mime_type)))
            }
        };
        std::fs::write(&path, &bytes)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))?;
        Ok(path.display().to_string())
    }
}

/// A file extension for a media type.
fn extension(mime_type: Option<&str>) -> &'static str {
    let mime = mime_type.unwrap_or_default().split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    match mime.as_str() {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/ogg" => "ogg",
        "audio/webm" | "video/webm" => "webm",
        "application/pdf" => "pdf",
        "application/json" => "json",
        "application/gzip" | "application/x-gzip" => "gz",
        "application/zip" => "zip",
        _ if mime.starts_with("text/") => "txt",
        _ => "bin",
    }
}

/// A tool's result: its content blocks, or its structured content when it
/// sent no text.
pub fn tool_result(out: &mut dyn Write, result: &CallToolResult, files: &mut Files) -> io::Result<()> {
    for block in &result.content {
        content_block(out, block, files)?;
    }
    let has_text = result.content.iter().any(|b| matches!(b, ContentBlock::Text { .. }));
    if let Some(structured) = result.structured_content.as_ref().filter(|_| !has_text) {
        json(out, structured)?;
    }
    Ok(())
}

/// Text as text; images, audio and blobs saved to a file whose path is
/// printed; links as links.
pub fn content_block(out: &mut dyn Write, block: &ContentBlock, files: &mut Files) -> io::Result<()> {
    match block {
        ContentBlock::Text { text } => text_line(out, text),
        ContentBlock::Image { data, mime_type } => {
            let path = files.save("image", Some(mime_type), data)?;
            writeln!(out, "[image {mime_type}, {}] {path}", human_size(base64_len(data)))
        }
        ContentBlock::Audio { data, mime_type } => {
            let path = files.save("audio", Some(mime_type), data)?;
            writeln!(out, "[audio {mime_type}, {}] {path}", human_size(base64_len(data)))
        }
        ContentBlock::ResourceLink { uri, name, mime_type } => {
            let details: Vec<&str> =
                [Some(name.as_str()).filter(|n| !n.is_empty()), mime_type.as_deref()].into_iter().flatten().collect();
            if details.is_empty() {
                writeln!(out, "[link] {uri}")
            } else {
                writeln!(out, "[link] {uri} ({})", details.join(", "))
            }
        }
        ContentBlock::Resource { resource } => match (&resource.text, &resource.blob) {
            (Some(text), _) => {
                writeln!(out, "[resource {}]", contents_summary(resource))?;
                text_line(out, text)
            }
            (None, Some(blob)) => {
                let path = files.save("resource", resource.mime_type.as_deref(), blob)?;
                writeln!(out, "[resource {}] {path}", contents_summary(resource))
            }
            (None, None) => writeln!(out, "[resource {}]", contents_summary(resource)),
        },
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
pub fn read_result(out: &mut dyn Write, result: &ReadResourceResult, files: &mut Files) -> io::Result<()> {
    let several = result.contents.len() > 1;
    for contents in &result.contents {
        match &contents.text {
            Some(text) => {
                if several {
                    writeln!(out, "--- {}", contents_summary(contents))?;
                }
                text_line(out, text)?;
            }
            None => match &contents.blob {
                Some(blob) => {
                    let path = files.save("blob", contents.mime_type.as_deref(), blob)?;
                    writeln!(out, "[blob {}] {path}", contents_summary(contents))?
                }
                None => writeln!(out, "[empty {}]", contents_summary(contents))?,
            },
        }
    }
    Ok(())
}

/// The prompt's messages, each tagged with its role.
pub fn prompt_result(out: &mut dyn Write, result: &GetPromptResult, files: &mut Files) -> io::Result<()> {
    if let Some(description) = result.description.as_deref().filter(|d| !d.trim().is_empty()) {
        writeln!(out, "# {}", first_line(description))?;
    }
    for message in &result.messages {
        write!(out, "[{}] ", message.role)?;
        content_block(out, &message.content, files)?;
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
        let dir = std::env::temp_dir().join(format!("mcp-edge-output-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = Files::new(Some(dir.join("out.png")));
        let text = render(|out| blocks.iter().try_for_each(|b| content_block(out, b, &mut files)));
        let saved = dir.join("out.png");
        assert_eq!(text, format!("hello\n[image image/png, 6 B] {}\n[link] file:///a (a)\n", saved.display()));
        assert_eq!(std::fs::read(&saved).unwrap(), b"hello!");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn structured_content_only_without_text() {
        let result = CallToolResult { structured_content: Some(json!({"a": 1})), ..Default::default() };
        assert_eq!(render(|out| tool_result(out, &result, &mut Files::default())), "{\n  \"a\": 1\n}\n");
    }

    #[test]
    fn capabilities_list_their_features() {
        let caps = json!({"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": false}});
        assert_eq!(capability_summary(&caps), "logging, resources, tools (listChanged)");
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn empty_columns_are_left_out() {
        let mut buffer = Vec::new();
        let rows = vec![vec!["a".into(), "".into(), "x".into()], vec!["long".into(), "".into(), "y".into()]];
        table(&mut buffer, &["NAME", "TITLE", "DESCRIPTION"], rows).unwrap();
        assert_eq!(String::from_utf8(buffer).unwrap(), "NAME  DESCRIPTION\na     x\nlong  y\n");
    }
}
