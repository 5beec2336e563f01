//! `mcp-edge SERVER shell`: one connection, many commands, for a person at
//! a terminal.
//!
//! The line editor (rustyline) blocks, so it runs on a thread of its own;
//! commands go to the async side, which runs them and says when they are
//! done. What the server sends meanwhile is printed above the prompt;
//! what it asks (elicitation, sampling) comes to the editor thread as a
//! question, answered at the prompt, since a person is right there.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use mcp_edge::ListenFilter;
use mcp_edge::protocol::types::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, JsonObject,
};
use mcp_edge::protocol::{ErrorObject, Notification};
use mcp_edge::{Client, ClientOptions, TransportChoice};
use rustyline::error::ReadlineError;
use rustyline::{Editor, ExternalPrinter, history::DefaultHistory};
use serde_json::{Value, json};

use crate::config::Target;

mod complete;
mod questions;

use crate::commands::execute;
use crate::native::{Failure, Outcome, Plan, Settings, json_object, report, stringify_values};
use crate::{connect, output};
use complete::ShellHelper;
use questions::answer;

const HELP: &str = "\
commands:
  tools                     list the tools
  call NAME [JSON]          call a tool, e.g. call echo {\"message\": \"hi\"}
  resources                 list the resources
  templates                 list the resource templates
  read URI                  read a resource
  prompts                   list the prompts
  prompt NAME [JSON]        get a prompt
  complete REF ARG [VALUE]  complete an argument (REF: prompt:NAME or resource:TEMPLATE)
  watch [URI...]            print list changes (and updates of URI) as they come
  info                      the server and its capabilities
  ping                      check that the server answers
  help                      this
  exit                      leave (or Ctrl-D)
Tab completes commands, tool and prompt names, argument names and URIs.
What the server sends is printed above the prompt; its questions are asked here.";

const COMMANDS: &[&str] = &[
    "tools",
    "call",
    "resources",
    "templates",
    "read",
    "prompts",
    "prompt",
    "complete",
    "watch",
    "info",
    "ping",
    "help",
    "exit",
];

/// Names the editor completes, refreshed when the server's lists change.
#[derive(Default)]
struct Catalog {
    /// Tool name to its argument names.
    tools: BTreeMap<String, Vec<String>>,
    /// Prompt name to its argument names.
    prompts: BTreeMap<String, Vec<String>>,
    resources: Vec<String>,
    /// A list changed since it was read.
    stale: bool,
}

type SharedCatalog = Arc<Mutex<Catalog>>;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Something for the editor thread.
enum ToShell {
    /// The command it sent is done.
    Done,
    /// The server asks the user something (boxed: a question is some 340
    /// bytes, and most messages are `Done`).
    Ask(Box<Question>),
}

enum Question {
    Elicit(ElicitParams, tokio::sync::oneshot::Sender<ElicitResult>),
    Sample(CreateMessageParams, tokio::sync::oneshot::Sender<Option<String>>),
}

/// Where lines printed above the prompt go: the editor's printer once it
/// exists, stderr before.
type Printer = Arc<Mutex<Option<Box<dyn ExternalPrinter + Send>>>>;

/// Whether the editor sits at the prompt (so a question from the server
/// needs the user to press Enter first).
static IDLE: AtomicBool = AtomicBool::new(false);

/// Whether the first prompt has been shown.
static READY: AtomicBool = AtomicBool::new(false);

fn print_above(printer: &Printer, line: String) {
    let mut slot = lock(printer);
    let printed = match slot.as_mut() {
        Some(printer) => printer.print(format!("{line}\n")).is_ok(),
        None => false,
    };
    if !printed {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

/// One line for a server notification.
fn describe(notification: &Notification) -> String {
    let params = notification.params.clone().unwrap_or(Value::Null);
    match notification.method.as_str() {
        "notifications/message" => {
            let level = params.get("level").and_then(Value::as_str).unwrap_or("info");
            let logger = params.get("logger").and_then(Value::as_str).map(|l| format!(" {l}:")).unwrap_or_default();
            let data = match params.get("data") {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            format!("[{level}]{logger} {data}")
        }
        "notifications/resources/updated" => {
            format!("~ updated {}", params.get("uri").and_then(Value::as_str).unwrap_or("?"))
        }
        method if method.ends_with("/list_changed") => {
            let what = method.trim_start_matches("notifications/").trim_end_matches("/list_changed");
            format!("~ the {what} list changed")
        }
        method => format!("~ {method} {params}"),
    }
}

pub async fn run(
    target: &Target,
    transport: TransportChoice,
    auth: &connect::AuthArgs,
    options: ClientOptions,
    settings: Settings,
) -> ExitCode {
    let printer: Printer = Arc::new(Mutex::new(None));
    let catalog: SharedCatalog = Arc::default();
    let (to_shell, from_async) = mpsc::channel::<ToShell>();

    let options = {
        let printer = printer.clone();
        let catalog = catalog.clone();
        let ask_elicit = to_shell.clone();
        let ask_sample = to_shell.clone();
        let note_elicit = printer.clone();
        let note_sample = printer.clone();
        options
            .on_notification(move |notification| {
                if notification.method.ends_with("/list_changed") {
                    lock(&catalog).stale = true;
                    // Servers that add tools once a client is there say so
                    // right after the handshake: not news to the user yet.
                    if !READY.load(Ordering::SeqCst) {
                        return;
                    }
                }
                print_above(&printer, describe(notification));
            })
            .on_elicitation(
                move |params, _context| {
                    let (send, receive) = tokio::sync::oneshot::channel();
                    let asked = ask_elicit.send(ToShell::Ask(Box::new(Question::Elicit(params, send)))).is_ok();
                    if asked && IDLE.load(Ordering::SeqCst) {
                        print_above(&note_elicit, "? the server asks for input (press Enter to answer)".into());
                    }
                    async move {
                        Ok(receive.await.unwrap_or(ElicitResult { action: ElicitAction::Cancel, content: None }))
                    }
                },
                true,
            )
            .on_sampling(move |params, _context| {
                let (send, receive) = tokio::sync::oneshot::channel();
                let asked = ask_sample.send(ToShell::Ask(Box::new(Question::Sample(params, send)))).is_ok();
                if asked && IDLE.load(Ordering::SeqCst) {
                    print_above(&note_sample, "? the server asks for a completion (press Enter to answer)".into());
                }
                async move {
                    match receive.await {
                        Ok(Some(text)) => Ok(CreateMessageResult {
                            role: "assistant".into(),
                            content: json!({ "type": "text", "text": text }),
                            model: "human at mcp-edge shell".into(),
                            stop_reason: Some("endTurn".into()),
                        }),
                        _ => Err(ErrorObject::new(-1, "the user declined to answer the sampling request")),
                    }
                }
            })
    };

    let client = match connect::connect(target, transport, auth, options).await {
        Ok(client) => client,
        Err(error) => return report(&Failure::Client(error)),
    };
    if let Some(negotiated) = client.negotiated() {
        let server = &negotiated.result.server_info;
        let version = if server.version.is_empty() { String::new() } else { format!(" {}", server.version) };
        println!(
            "connected to {}{version} ({}, {}); `help` lists the commands",
            server.name,
            negotiated.version.as_str(),
            client.transport_kind()
        );
    }
    refresh(&client, &catalog).await;

    let (commands, mut incoming) = tokio::sync::mpsc::channel::<String>(1);
    let editor = {
        let printer = printer.clone();
        let catalog = catalog.clone();
        std::thread::spawn(move || editor_loop(commands, from_async, printer, catalog))
    };

    let mut files = output::Files::new(settings.output.clone());
    let mut watches = Vec::new();
    while let Some(line) = incoming.recv().await {
        match parse(&line) {
            Ok(Command::Watch(uris)) => {
                let mut filter = ListenFilter::list_changes();
                filter.resource_subscriptions = uris;
                match client.listen(filter).await {
                    Ok(mut subscription) => {
                        println!("watching: changes are printed as they come");
                        // The notifications reach the printer through the
                        // listener; the task keeps the subscription open.
                        watches.push(tokio::spawn(async move {
                            use futures::StreamExt;
                            while let Some(Ok(_)) = subscription.next().await {}
                        }));
                    }
                    Err(error) => eprintln!("error: {error}"),
                }
            }
            Ok(Command::Plan(plan)) => match execute(&client, plan, &settings, &mut files).await {
                Ok(Outcome::Success) => {}
                Ok(Outcome::ToolError) => eprintln!("(the tool reported an error)"),
                Err(failure) => {
                    crate::progress::clear();
                    eprintln!("error: {failure}");
                }
            },
            Ok(Command::Help) => println!("{HELP}"),
            Ok(Command::Nothing) => {}
            Err(message) => eprintln!("{message}"),
        }
        let stale = std::mem::take(&mut lock(&catalog).stale);
        if stale || matches!(line.split_whitespace().next(), Some("tools" | "prompts" | "resources")) {
            refresh(&client, &catalog).await;
        }
        let _ = std::io::stdout().flush();
        if to_shell.send(ToShell::Done).is_err() {
            break;
        }
    }
    for watch in watches {
        watch.abort();
    }
    drop(to_shell);
    let _ = editor.join();
    client.close().await;
    ExitCode::SUCCESS
}

/// Reads the names the editor completes (errors leave them as they were:
/// a server without prompts, say).
async fn refresh(client: &Client, catalog: &SharedCatalog) {
    let capabilities = client
        .negotiated()
        .map(|n| serde_json::to_value(&n.result.capabilities).unwrap_or(Value::Null))
        .unwrap_or(Value::Null);
    let has = |name: &str| capabilities.get(name).is_some_and(|c| !c.is_null());
    if has("tools")
        && let Ok(tools) = client.list_all_tools().await
    {
        let tools = tools
            .into_iter()
            .map(|tool| {
                let names = tool
                    .input_schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                (tool.name, names)
            })
            .collect();
        lock(catalog).tools = tools;
    }
    if has("prompts")
        && let Ok(prompts) = client.list_all_prompts().await
    {
        let prompts =
            prompts.into_iter().map(|p| (p.name, p.arguments.into_iter().map(|a| a.name).collect())).collect();
        lock(catalog).prompts = prompts;
    }
    if has("resources")
        && let Ok(resources) = client.list_all_resources().await
    {
        lock(catalog).resources = resources.into_iter().map(|r| r.uri).collect();
    }
}

enum Command {
    Plan(Plan),
    Watch(Vec<String>),
    Help,
    Nothing,
}

/// One line of input, checked.
fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim();
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    let failure = |f: Failure| f.to_string();
    let json_args = |text: &str| -> Result<Option<JsonObject>, String> {
        if text.is_empty() { Ok(None) } else { json_object(text).map(Some).map_err(failure) }
    };
    let name_and_json = |what: &str| -> Result<(String, &str), String> {
        let (name, json) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if name.is_empty() {
            return Err(format!("usage: {word} {what} [JSON]"));
        }
        Ok((name.to_owned(), json.trim()))
    };
    Ok(Command::Plan(match word {
        "" => return Ok(Command::Nothing),
        "help" | "?" => return Ok(Command::Help),
        "tools" => Plan::Tools,
        "resources" => Plan::Resources,
        "templates" => Plan::Templates,
        "prompts" => Plan::Prompts,
        "info" => Plan::Info,
        "ping" => Plan::Ping,
        "call" => {
            let (tool, json) = name_and_json("NAME")?;
            Plan::Call { tool, arguments: json_args(json)? }
        }
        "prompt" => {
            let (name, json) = name_and_json("NAME")?;
            Plan::Prompt { name, arguments: json_args(json)?.map(stringify_values) }
        }
        "read" if !rest.is_empty() => Plan::Read { uri: rest.to_owned() },
        "read" => return Err("usage: read URI".into()),
        "complete" => {
            let words = shlex::split(rest).ok_or("unbalanced quotes")?;
            let (reference, argument, value) = match words.as_slice() {
                [reference, argument] => (reference, argument, String::new()),
                [reference, argument, value] => (reference, argument, value.clone()),
                _ => return Err("usage: complete prompt:NAME|resource:TEMPLATE ARG [VALUE]".into()),
            };
            let reference = match reference.split_once(':') {
                Some(("prompt", name)) => mcp_edge::protocol::types::CompletionReference::Prompt(name.into()),
                Some(("resource", uri)) => mcp_edge::protocol::types::CompletionReference::Resource(uri.into()),
                _ => return Err("REF must be prompt:NAME or resource:TEMPLATE".into()),
            };
            Plan::Complete { reference, argument: argument.clone(), value }
        }
        "watch" => return Ok(Command::Watch(rest.split_whitespace().map(str::to_owned).collect())),
        other => return Err(format!("unknown command `{other}` (`help` lists them)")),
    }))
}

/// The editor thread: reads lines, sends them, waits for them to be done,
/// answering the server's questions meanwhile.
fn editor_loop(
    commands: tokio::sync::mpsc::Sender<String>,
    from_async: mpsc::Receiver<ToShell>,
    printer: Printer,
    catalog: SharedCatalog,
) {
    let config = rustyline::Config::builder()
        .auto_add_history(true)
        .completion_type(rustyline::CompletionType::List)
        .max_history_size(1000)
        .unwrap_or_default()
        .build();
    let mut editor: Editor<ShellHelper, DefaultHistory> = match Editor::with_config(config) {
        Ok(editor) => editor,
        Err(error) => {
            eprintln!("mcp-edge: cannot start the line editor: {error}");
            return;
        }
    };
    editor.set_helper(Some(ShellHelper { catalog }));
    if let Ok(external) = editor.create_external_printer() {
        *lock(&printer) = Some(Box::new(external));
    }
    let history = history_file();
    if let Some(file) = &history {
        let _ = editor.load_history(file);
    }
    loop {
        IDLE.store(true, Ordering::SeqCst);
        READY.store(true, Ordering::SeqCst);
        let line = editor.readline("mcp> ");
        IDLE.store(false, Ordering::SeqCst);
        let line = match line {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(_) => break,
        };
        // Questions that came while the prompt was idle.
        while let Ok(ToShell::Ask(question)) = from_async.try_recv() {
            answer(&mut editor, *question);
        }
        let trimmed = line.trim();
        if matches!(trimmed, "exit" | "quit") {
            break;
        }
        if trimmed.is_empty() {
            continue;
        }
        if commands.blocking_send(line).is_err() {
            break;
        }
        loop {
            match from_async.recv() {
                Ok(ToShell::Done) | Err(_) => break,
                Ok(ToShell::Ask(question)) => answer(&mut editor, *question),
            }
        }
    }
    if let Some(file) = &history {
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.save_history(file);
    }
    *lock(&printer) = None;
}

/// `$XDG_STATE_HOME/mcp-edge/history` (~/.local/state/...).
fn history_file() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".local/state"))
    })?;
    Some(state.join("mcp-edge/history"))
}
