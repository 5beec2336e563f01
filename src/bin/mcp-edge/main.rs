//! The native command-line client: `mcp-edge [OPTIONS] <SERVER> <COMMAND>`.
//!
//! This file holds the arguments and the dispatch; [`servers`] finds what
//! SERVER names (with [`config`], the `mcpServers` files), [`connect`] opens
//! the session, [`commands`] runs a command, [`output`] renders results for
//! people or as JSON, [`progress`] shows `notifications/progress` on stderr,
//! and [`shell`] is the interactive session. On wasm32 the binary is empty:
//! it spawns processes and runs tokio, which a browser has neither of.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod commands;
#[cfg(not(target_arch = "wasm32"))]
mod config;
#[cfg(not(target_arch = "wasm32"))]
mod connect;
#[cfg(not(target_arch = "wasm32"))]
mod output;
#[cfg(not(target_arch = "wasm32"))]
mod progress;
#[cfg(not(target_arch = "wasm32"))]
mod servers;
#[cfg(not(target_arch = "wasm32"))]
mod shell;
#[cfg(not(target_arch = "wasm32"))]
mod verdicts;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use clap::Parser;

    let cli = native::Cli::parse();
    native::init_logging(cli.verbose);
    native::main(cli)
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::fmt;
    use std::io::{self, Write};
    use std::process::ExitCode;
    use std::time::Duration;

    use clap::builder::TypedValueParser as _;
    use clap::{Parser, Subcommand};
    use mcp_edge::protocol::types::{CompletionReference, JsonObject};
    use mcp_edge::{ClientOptions, Error, TransportChoice};
    use mcp_edge::{EraChoice, ListenFilter};
    use serde_json::Value;

    use crate::commands::execute;
    use crate::{connect, output, progress, servers, shell};

    const EXAMPLES: &str = "\
SERVER is an http:// or https:// URL, a command line that starts a server
speaking MCP over stdio (quote it; it is split like a shell would), or @NAME:
a server of an `mcpServers` file (`mcp-edge servers` lists them and where they
were found: .mcp.json, .cursor/mcp.json, .vscode/mcp.json here, then
~/.config/mcp-edge/mcp.json, ~/.cursor/mcp.json, Claude Desktop's
claude_desktop_config.json, VS Code's user mcp.json, ~/.claude.json;
--config replaces that list). For a URL the transport is detected: Streamable
HTTP, else the legacy HTTP+SSE transport of 2024-11-05 (`--transport` forces
one).

Values of -H and -e may name environment variables, expanded by mcp-edge
itself so keys stay out of shell history: -H 'Authorization: Bearer $TOKEN'
(also ${TOKEN}; $$ is a literal $). Headers are sent to the server's origin
only: a redirect elsewhere is refused. With an Authorization header, or one
that names a key or token (X-API-Key), a 401 is reported as is: no OAuth.

A server that answers 401 is authorized with OAuth: the authorization page
opens in the system browser (or its URL is printed with --no-browser), the
browser comes back to http://127.0.0.1:<port>/callback, and the tokens are
kept in $XDG_CONFIG_HOME/mcp-edge/tokens (~/.config/...), readable by you only
(--no-auth-store keeps them in memory).

Examples:
  mcp-edge 'npx -y @modelcontextprotocol/server-everything' tools
  mcp-edge -H 'X-API-Key: $API_KEY' https://example.com/mcp tools
  mcp-edge -e DEBUG=1 --cwd ~/src/server 'node dist/index.js' info
  mcp-edge @github call search_repositories '{\"query\": \"mcp\"}'
  mcp-edge --config ./mcp.json @everything shell
  mcp-edge 'node server.js' call get-image --output image.png
  mcp-edge http://127.0.0.1:3001/sse info
  mcp-edge 'node server.js' call echo '{\"message\": \"hi\"}'
  mcp-edge --json 'python -m my_server' info
  mcp-edge 'node server.js' complete prompt:greeting name Al

In lists, `*` marks a required argument. Images, audio and blobs are saved to
a temporary file (or --output FILE) and their path printed.

Exit status: 0 success, 1 the tool reported an error (isError), 2 usage,
protocol or transport error.";

    /// A Model Context Protocol client for the command line.
    #[derive(Debug, Parser)]
    #[command(
        name = "mcp-edge",
        version,
        after_help = EXAMPLES,
        override_usage = "mcp-edge [OPTIONS] <SERVER> <COMMAND>\n       mcp-edge [OPTIONS] servers\n       \
                          mcp-edge completions <SHELL>"
    )]
    pub struct Cli {
        /// Print the server's results as JSON (one document on stdout)
        #[arg(long, global = true)]
        json: bool,

        /// Seconds each request may take, the handshake included; progress restarts the clock
        /// of `call`, up to 10 times this in all
        #[arg(long, global = true, value_name = "SECS", default_value = "60", value_parser = parse_timeout)]
        timeout: Duration,

        /// Log debug details and the server's stderr (RUST_LOG is honoured too)
        #[arg(short, long, global = true)]
        pub verbose: bool,

        /// How to reach an http(s) SERVER: detect it, or force Streamable HTTP or the legacy
        /// HTTP+SSE transport
        #[arg(
            long,
            global = true,
            value_name = "TRANSPORT",
            default_value = "auto",
            value_parser = clap::builder::PossibleValuesParser::new(["auto", "streamable-http", "sse"])
                .map(|name| name.parse::<TransportChoice>().unwrap_or_default())
        )]
        transport: TransportChoice,

        /// Which protocol era to speak: detect it with a `server/discover` probe (cached per
        /// server), or force the initialize handshake (2024-11-05 to 2025-11-25) or the
        /// stateless revision (2026-07-28)
        #[arg(
            long,
            global = true,
            value_name = "ERA",
            default_value = "auto",
            value_parser = clap::builder::PossibleValuesParser::new(["auto", "handshake", "stateless"])
                .map(|name| match name.as_str() {
                    "handshake" => EraChoice::Handshake,
                    "stateless" => EraChoice::Stateless,
                    _ => EraChoice::Auto,
                })
        )]
        era: EraChoice,

        /// Declare the tasks extension (2026-07-28): the server may run a tool call as a task,
        /// which is polled to its end (cancelled after --timeout times 10)
        #[arg(long, global = true)]
        tasks: bool,

        /// OAuth: a client id registered with the authorization server beforehand (else the
        /// client registers itself where the server allows it)
        #[arg(long, global = true, value_name = "ID")]
        client_id: Option<String>,

        /// OAuth: the secret of --client-id, for a confidential client (other users may see
        /// command lines: prefer --client-secret-file or env MCP_EDGE_CLIENT_SECRET)
        #[arg(
            long,
            global = true,
            value_name = "SECRET",
            requires = "client_id",
            conflicts_with = "client_secret_file"
        )]
        client_secret: Option<String>,

        /// OAuth: read the secret of --client-id from this file (its first line)
        #[arg(long, global = true, value_name = "PATH", requires = "client_id")]
        client_secret_file: Option<std::path::PathBuf>,

        /// OAuth: a scope to ask for instead of the server's suggestion (repeat, or separate
        /// with spaces)
        #[arg(long, global = true, value_name = "SCOPE")]
        scope: Vec<String>,

        /// OAuth: print the authorization URL on stderr instead of opening a browser, and read
        /// the URL the browser is redirected to from stdin (or take the redirect as usual)
        #[arg(long, global = true)]
        no_browser: bool,

        /// OAuth: keep tokens in memory only, not in ~/.config/mcp-edge/tokens
        #[arg(long, global = true)]
        no_auth_store: bool,

        /// An HTTP header for an http(s) server, `Name: value` (repeat for more); `$VAR` in the
        /// value is taken from the environment
        #[arg(short = 'H', long = "header", global = true, value_name = "HEADER")]
        headers: Vec<String>,

        /// An environment variable for a stdio server, `KEY=VALUE` (repeat for more); `$VAR` in
        /// the value is taken from the environment
        #[arg(short = 'e', long = "env", global = true, value_name = "KEY=VALUE")]
        env: Vec<String>,

        /// The directory a stdio server runs in
        #[arg(long, global = true, value_name = "DIR")]
        cwd: Option<std::path::PathBuf>,

        /// An `mcpServers` (or VS Code `servers`) file to take @NAME servers from, instead of
        /// the usual places (repeat for more; the first naming a server wins)
        #[arg(long = "config", global = true, value_name = "FILE")]
        configs: Vec<std::path::PathBuf>,

        /// Where images, audio and blobs go (`-`: raw to stdout) instead of a temporary file
        #[arg(short, long, global = true, value_name = "FILE")]
        output: Option<std::path::PathBuf>,

        /// The server: an http(s):// URL, a command line to run over stdio, or @NAME from a
        /// configuration file
        #[arg(value_name = "SERVER")]
        server: Option<String>,

        #[command(subcommand)]
        command: Command,
    }

    #[derive(Debug, Subcommand)]
    enum Command {
        /// Show the server's name, version, protocol version, transport and capabilities
        Info,
        /// List the tools
        Tools,
        /// Call a tool (progress is shown on stderr)
        Call {
            /// The tool's name
            tool: String,
            /// Its arguments, as a JSON object
            #[arg(value_name = "JSON_ARGS")]
            arguments: Option<String>,
        },
        /// List the resources
        Resources,
        /// List the resource templates
        Templates,
        /// Read a resource
        Read {
            /// The resource's URI
            uri: String,
        },
        /// List the prompts
        Prompts,
        /// Get a prompt
        Prompt {
            /// The prompt's name
            name: String,
            /// Its arguments, as a JSON object (values are sent as strings)
            #[arg(value_name = "JSON_ARGS")]
            arguments: Option<String>,
        },
        /// Ask for completions of a prompt argument or a resource template variable
        Complete {
            /// `prompt:<name>` or `resource:<uri-template>`
            #[arg(value_name = "REF")]
            reference: String,
            /// The argument (or template variable) to complete
            argument: String,
            /// What has been typed so far
            #[arg(default_value = "")]
            value: String,
        },
        /// Check that the server answers
        Ping,
        /// Print change notifications as they come: updates of the resources named, and with
        /// the flags list changes (2026-07-28: one subscriptions/listen; older revisions:
        /// resources/subscribe and the session stream). Runs until --count or --for ends it
        Watch {
            /// Resource URIs to watch for updates (and resources under them)
            #[arg(value_name = "URI")]
            uris: Vec<String>,
            /// Tool list changes
            #[arg(long)]
            tools: bool,
            /// Prompt list changes
            #[arg(long)]
            prompts: bool,
            /// Resource list changes
            #[arg(long)]
            resources: bool,
            /// Stop after this many notifications
            #[arg(long, value_name = "N")]
            count: Option<usize>,
            /// Stop after this many seconds
            #[arg(long = "for", value_name = "SECS", value_parser = parse_timeout)]
            duration: Option<Duration>,
        },
        /// List the servers of the configuration files found (or given with --config)
        Servers,
        /// Print a completion script: `source <(mcp-edge completions bash)`
        Completions {
            /// bash, zsh, fish, elvish or powershell
            shell: clap_complete::Shell,
        },
        /// An interactive session on one connection: `tools`, `call NAME {json}`, `read URI`,
        /// ... with history and tab completion (`help` lists the commands)
        Shell,
    }

    fn parse_timeout(text: &str) -> Result<Duration, String> {
        let seconds: f64 = text.trim().parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
        if seconds.is_nan() || seconds <= 0.0 {
            return Err("the timeout must be more than 0 seconds".into());
        }
        Duration::try_from_secs_f64(seconds).map_err(|_| format!("`{text}` seconds is too long a timeout"))
    }

    /// Logs to stderr through env_logger, hiding an active progress bar
    /// while a line is written so the two never tear each other.
    pub fn init_logging(verbose: bool) {
        let mut builder = env_logger::Builder::new();
        builder
            .filter_level(if verbose { log::LevelFilter::Debug } else { log::LevelFilter::Warn })
            .target(env_logger::Target::Stderr);
        if let Ok(filters) = std::env::var("RUST_LOG") {
            builder.parse_filters(&filters);
        }
        let logger = builder.build();
        let max_level = logger.filter();
        if log::set_boxed_logger(Box::new(progress::SuspendingLogger(logger))).is_ok() {
            log::set_max_level(max_level);
        }
    }

    /// How a run went, when it got as far as an answer.
    pub(crate) enum Outcome {
        Success,
        ToolError,
    }

    /// Why a run failed. Every failure is reported as one `mcp-edge:` line.
    pub(crate) enum Failure {
        /// Arguments that clap accepted but that make no sense.
        Usage(String),
        /// The session, the server or the transport.
        Client(Error),
        /// Writing the output.
        Output(io::Error),
        /// Starting the async runtime.
        Runtime(io::Error),
    }

    impl From<Error> for Failure {
        fn from(error: Error) -> Self {
            Failure::Client(error)
        }
    }

    impl fmt::Display for Failure {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                Failure::Usage(message) => f.write_str(message),
                Failure::Client(error) => write!(f, "{error}"),
                Failure::Output(error) => write!(f, "cannot write the output: {error}"),
                Failure::Runtime(error) => write!(f, "cannot start the async runtime: {error}"),
            }
        }
    }

    /// What to do, with every argument checked before a server is started.
    pub(crate) enum Plan {
        Info,
        Tools,
        Call { tool: String, arguments: Option<JsonObject> },
        Resources,
        Templates,
        Read { uri: String },
        Prompts,
        Prompt { name: String, arguments: Option<JsonObject> },
        Complete { reference: CompletionReference, argument: String, value: String },
        Ping,
        Watch { filter: ListenFilter, count: Option<usize>, duration: Option<Duration> },
    }

    impl Plan {
        fn new(command: Command) -> Result<Plan, Failure> {
            Ok(match command {
                Command::Servers | Command::Completions { .. } | Command::Shell => {
                    return Err(Failure::Usage("this command takes no SERVER".into()));
                }
                Command::Info => Plan::Info,
                Command::Tools => Plan::Tools,
                Command::Call { tool, arguments } => {
                    let arguments = arguments.as_deref().map(json_object).transpose()?;
                    Plan::Call { tool, arguments }
                }
                Command::Resources => Plan::Resources,
                Command::Templates => Plan::Templates,
                Command::Read { uri } => Plan::Read { uri },
                Command::Prompts => Plan::Prompts,
                Command::Prompt { name, arguments } => {
                    let arguments = arguments.as_deref().map(json_object).transpose()?.map(stringify_values);
                    Plan::Prompt { name, arguments }
                }
                Command::Complete { reference, argument, value } => {
                    Plan::Complete { reference: completion_reference(&reference)?, argument, value }
                }
                Command::Ping => Plan::Ping,
                Command::Watch { uris, tools, prompts, resources, count, duration } => {
                    let filter = ListenFilter {
                        tools_list_changed: tools,
                        prompts_list_changed: prompts,
                        resources_list_changed: resources,
                        resource_subscriptions: uris,
                    };
                    if filter.is_empty() {
                        return Err(Failure::Usage(
                            "watch needs a resource URI or one of --tools, --prompts, --resources".into(),
                        ));
                    }
                    Plan::Watch { filter, count, duration }
                }
            })
        }
    }

    pub(crate) fn json_object(text: &str) -> Result<JsonObject, Failure> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => Ok(object),
            Ok(other) => Err(Failure::Usage(format!(
                "JSON_ARGS must be a JSON object such as '{{\"name\": \"value\"}}', not {}",
                mcp_edge::protocol::json_kind(&other)
            ))),
            Err(error) => Err(Failure::Usage(format!("JSON_ARGS is not valid JSON ({error}): {text}"))),
        }
    }

    /// Prompt arguments are strings on the wire: `{"n": 3}` sends `"3"`.
    pub(crate) fn stringify_values(object: JsonObject) -> JsonObject {
        object
            .into_iter()
            .map(|(key, value)| {
                let text = match value {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                (key, Value::String(text))
            })
            .collect()
    }

    fn completion_reference(text: &str) -> Result<CompletionReference, Failure> {
        match text.split_once(':') {
            Some(("prompt", name)) if !name.is_empty() => Ok(CompletionReference::Prompt(name.to_owned())),
            Some(("resource", uri)) if !uri.is_empty() => Ok(CompletionReference::Resource(uri.to_owned())),
            _ => Err(Failure::Usage(format!("REF must be `prompt:<name>` or `resource:<uri-template>`, not `{text}`"))),
        }
    }

    pub fn main(cli: Cli) -> ExitCode {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(error) => return report(&Failure::Runtime(error)),
        };
        runtime.block_on(run(cli))
    }

    /// Reports a failure as one `mcp-edge:` line on stderr; exit status 2.
    pub(crate) fn report(failure: &Failure) -> ExitCode {
        progress::clear();
        // Multi-line errors (a crashed server's stderr tail) come indented
        // after their first line; nothing else is added.
        let _ = writeln!(io::stderr().lock(), "mcp-edge: {failure}");
        ExitCode::from(2)
    }

    /// The secret of --client-id: --client-secret, else the first line of
    /// --client-secret-file, else env MCP_EDGE_CLIENT_SECRET (only with a
    /// --client-id, so a stray variable does not change a public client).
    fn client_secret(
        given: Option<String>,
        file: Option<&std::path::Path>,
        client_id: &Option<String>,
    ) -> Result<Option<String>, Failure> {
        if given.is_some() {
            return Ok(given);
        }
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::Usage(format!("--client-secret-file {}: {e}", path.display())))?;
            let secret = text.lines().next().unwrap_or_default().trim().to_owned();
            if secret.is_empty() {
                return Err(Failure::Usage(format!("--client-secret-file {}: the file is empty", path.display())));
            }
            return Ok(Some(secret));
        }
        Ok(client_id.as_ref().and_then(|_| std::env::var(SECRET_ENV).ok()).filter(|s| !s.is_empty()))
    }

    /// Where the CLI takes --client-secret from when it is not on the command line.
    const SECRET_ENV: &str = "MCP_EDGE_CLIENT_SECRET";

    async fn run(cli: Cli) -> ExitCode {
        use clap::CommandFactory;
        if let (Some(server), Command::Completions { .. } | Command::Servers) = (&cli.server, &cli.command) {
            return report(&Failure::Usage(format!("`servers` and `completions` take no SERVER (`{server}`)")));
        }
        let server = match cli.command {
            Command::Completions { shell } => {
                let mut command = Cli::command();
                let mut stdout = io::stdout().lock();
                clap_complete::generate(shell, &mut command, "mcp-edge", &mut stdout);
                return ExitCode::SUCCESS;
            }
            Command::Servers => {
                return match servers::list(&cli.configs, cli.json) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(failure) => report(&failure),
                };
            }
            _ => match cli.server.as_deref() {
                Some(server) => server,
                None => return report(&Failure::Usage("SERVER is missing (a URL, a command line or @NAME)".into())),
            },
        };
        let target = match servers::resolve(server, &cli.headers, &cli.env, cli.cwd.clone(), &cli.configs) {
            Ok(target) => target,
            Err(failure) => return report(&failure),
        };
        let shell = matches!(cli.command, Command::Shell);
        let plan = if shell {
            None
        } else {
            match Plan::new(cli.command) {
                Ok(plan) => Some(plan),
                Err(failure) => return report(&failure),
            }
        };
        let options = ClientOptions::new("mcp-edge", env!("CARGO_PKG_VERSION"))
            .with_timeout(cli.timeout)
            .with_era(cli.era)
            .with_tasks(cli.tasks)
            .with_task_timeout(cli.timeout.saturating_mul(10));
        let client_secret = match client_secret(cli.client_secret, cli.client_secret_file.as_deref(), &cli.client_id) {
            Ok(secret) => secret,
            Err(failure) => return report(&failure),
        };
        let auth = connect::AuthArgs {
            client_id: cli.client_id,
            client_secret,
            scopes: cli.scope.iter().flat_map(|scope| scope.split_whitespace()).map(str::to_owned).collect(),
            no_browser: cli.no_browser,
            no_store: cli.no_auth_store,
        };
        let settings = Settings { json: cli.json, timeout: cli.timeout, output: cli.output };
        let Some(plan) = plan else {
            return shell::run(&target, cli.transport, &auth, options, settings).await;
        };
        let client = match connect::connect(&target, cli.transport, &auth, options).await {
            Ok(client) => client,
            Err(error) => return report(&Failure::Client(error)),
        };
        let mut files = output::Files::new(settings.output.clone());
        let code = match execute(&client, plan, &settings, &mut files).await {
            Ok(Outcome::Success) => ExitCode::SUCCESS,
            Ok(Outcome::ToolError) => ExitCode::from(1),
            // Reported before the shutdown, which may take the server's grace time.
            Err(failure) => report(&failure),
        };
        // Shut the server down gracefully whatever happened.
        client.close().await;
        code
    }

    /// How results are shown, for one command or a whole shell session.
    pub(crate) struct Settings {
        pub json: bool,
        pub timeout: Duration,
        pub output: Option<std::path::PathBuf>,
    }
}
