//! Running one command against a connected server and printing its result
//! (for a single run and for each line of the shell).

use std::io::{self, Write};
use std::time::Duration;

use mcp_edge::ListenFilter;
use mcp_edge::protocol::methods;
use mcp_edge::protocol::types::{CallToolResult, CompleteResult, GetPromptResult, JsonObject, ReadResourceResult};
use mcp_edge::{Client, Error, RequestOptions};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::native::{Failure, Outcome, Plan, Settings};
use crate::{output, progress};

pub(crate) async fn execute(
    client: &Client,
    plan: Plan,
    settings: &Settings,
    files: &mut output::Files,
) -> Result<Outcome, Failure> {
    let (json, timeout) = (settings.json, settings.timeout);
    match plan {
        Plan::Info => {
            let negotiated = client.negotiated().ok_or(Error::NotInitialized)?;
            let kind = client.transport_kind().as_str();
            if json {
                let result = &negotiated.result;
                emit(|out| {
                    output::json(
                        out,
                        &json!({
                            "serverInfo": result.server_info,
                            "protocolVersion": negotiated.version.as_str(),
                            "transport": kind,
                            "capabilities": result.capabilities,
                            "instructions": result.instructions,
                        }),
                    )
                })?;
            } else {
                emit(|out| output::info(out, &negotiated, kind))?;
            }
        }
        Plan::Tools => {
            let tools = client.list_all_tools().await?;
            emit(|out| if json { output::json(out, &json!({ "tools": tools })) } else { output::tools(out, &tools) })?;
        }
        Plan::Call { tool, arguments } => {
            return call(client, &tool, arguments, json, timeout, files).await;
        }
        Plan::Resources => {
            let resources = client.list_all_resources().await?;
            emit(|out| {
                if json {
                    output::json(out, &json!({ "resources": resources }))
                } else {
                    output::resources(out, &resources)
                }
            })?;
        }
        Plan::Templates => {
            let templates = client.list_all_resource_templates().await?;
            emit(|out| {
                if json {
                    output::json(out, &json!({ "resourceTemplates": templates }))
                } else {
                    output::templates(out, &templates)
                }
            })?;
        }
        Plan::Read { uri } => {
            let raw = raw(client, methods::RESOURCES_READ, json!({ "uri": uri })).await?;
            if json {
                emit(|out| output::json(out, &raw))?;
            } else {
                let result: ReadResourceResult = decode(methods::RESOURCES_READ, raw)?;
                emit_text(files, |out, files| output::read_result(out, &result, files))?;
            }
        }
        Plan::Prompts => {
            let prompts = client.list_all_prompts().await?;
            emit(|out| {
                if json { output::json(out, &json!({ "prompts": prompts })) } else { output::prompts(out, &prompts) }
            })?;
        }
        Plan::Prompt { name, arguments } => {
            let mut params = json!({ "name": name });
            if let Some(arguments) = arguments {
                params["arguments"] = Value::Object(arguments);
            }
            let raw = raw(client, methods::PROMPTS_GET, params).await?;
            if json {
                emit(|out| output::json(out, &raw))?;
            } else {
                let result: GetPromptResult = decode(methods::PROMPTS_GET, raw)?;
                emit_text(files, |out, files| output::prompt_result(out, &result, files))?;
            }
        }
        Plan::Complete { reference, argument, value } => {
            let params = json!({
                "ref": reference.to_value(),
                "argument": { "name": argument, "value": value },
            });
            let raw = raw(client, methods::COMPLETION_COMPLETE, params).await?;
            if json {
                emit(|out| output::json(out, &raw))?;
            } else {
                let result: CompleteResult = decode(methods::COMPLETION_COMPLETE, raw)?;
                emit(|out| output::completion(out, &result))?;
            }
        }
        Plan::Watch { filter, count, duration } => watch(client, filter, count, duration, json).await?,
        Plan::Ping => {
            let started = std::time::Instant::now();
            let raw = raw_request(client, methods::PING, None).await?;
            let elapsed = started.elapsed();
            emit(|out| if json { output::json(out, &raw) } else { output::pong(out, elapsed) })?;
        }
    }
    Ok(Outcome::Success)
}

async fn call(
    client: &Client,
    tool: &str,
    arguments: Option<JsonObject>,
    json: bool,
    timeout: Duration,
    files: &mut output::Files,
) -> Result<Outcome, Failure> {
    let display = progress::Display::new();
    let options = RequestOptions::default()
        .with_progress(display.callback())
        .reset_on_progress(Some(timeout.checked_mul(10).unwrap_or(Duration::MAX)));
    let answer = client.call_tool_raw(tool, arguments, options).await;
    display.finish();
    let raw = answer?;
    let result: CallToolResult = decode(methods::TOOLS_CALL, raw.clone())?;
    if json {
        emit(|out| output::json(out, &raw))?;
    } else {
        emit_text(files, |out, files| output::tool_result(out, &result, files))?;
    }
    Ok(if result.is_error() { Outcome::ToolError } else { Outcome::Success })
}

/// A request whose result is printed as the server sent it (with `--json`).
async fn raw(client: &Client, method: &str, params: Value) -> Result<Value, Error> {
    raw_request(client, method, Some(params)).await
}

/// Prints each notification of a subscription (a line, or a JSON line
/// with --json) until `count` came or `duration` passed.
async fn watch(
    client: &Client,
    filter: ListenFilter,
    count: Option<usize>,
    duration: Option<Duration>,
    json: bool,
) -> Result<(), Failure> {
    use futures::StreamExt;
    let mut subscription = client.listen(filter).await?;
    let granted = subscription.granted().clone();
    log::info!("watching {}", serde_json::to_string(&granted).unwrap_or_default());
    let deadline = duration.map(|d| tokio::time::Instant::now() + d);
    let mut seen = 0;
    while count.is_none_or(|count| seen < count) {
        let next = match deadline {
            Some(deadline) => match tokio::time::timeout_at(deadline, subscription.next()).await {
                Ok(next) => next,
                Err(_) => break,
            },
            None => subscription.next().await,
        };
        let notification = match next {
            Some(Ok(notification)) => notification,
            Some(Err(error)) => return Err(Failure::Client(error)),
            None => {
                log::warn!("the server ended the subscription");
                break;
            }
        };
        seen += 1;
        emit(|out| {
            let params = notification.params.clone().unwrap_or(Value::Null);
            if json {
                // One line each, for `jq` and the like on a stream.
                let line = json!({ "method": notification.method, "params": params });
                writeln!(out, "{line}")
            } else {
                writeln!(out, "{} {}", notification.method, params)
            }
        })?;
    }
    subscription.close().await;
    Ok(())
}

async fn raw_request(client: &Client, method: &str, params: Option<Value>) -> Result<Value, Error> {
    client.request(method, params, RequestOptions::default()).await
}

fn decode<T: DeserializeOwned>(method: &str, value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| Error::InvalidResult { method: method.to_owned(), reason: e.to_string() })
}

/// Like [`emit`], to stderr when binary content goes raw to stdout
/// (`--output -`).
fn emit_text(
    files: &mut output::Files,
    write: impl FnOnce(&mut dyn Write, &mut output::Files) -> io::Result<()>,
) -> Result<(), Failure> {
    if files.to_stdout() {
        let mut err = io::stderr().lock();
        return write(&mut err, files).and_then(|()| err.flush()).map_err(Failure::Output);
    }
    emit(|out| write(out, files))
}

/// Writes to stdout in one go. A reader that went away (`| head`) is not
/// an error worth reporting.
pub(crate) fn emit(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Failure> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(Failure::Output),
    }
}
