//! The stdio transport: the server is a child process that reads JSON-RPC
//! lines on its stdin and writes them on its stdout (R3.3-R3.7).
//!
//! Native only (unix and Windows). The pipes are served by tokio tasks so that [`Transport::poll_event`]
//! is a plain channel poll: a writer task owns stdin (so lines go out in
//! `send` order), a reader task owns stdout, another stderr, and a supervisor
//! task owns the [`Child`] and is the only one that reports the end of the
//! connection, so it is reported exactly once and after the last message.

use std::collections::VecDeque;
use std::io;
#[cfg(unix)]
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::{Transport, TransportError, TransportEvent};
use crate::cause::Cause;
use crate::protocol::Message;
use crate::protocol::jsonrpc;
use crate::runtime::{BoxFuture, boxed};

mod pipes;
mod supervisor;

use pipes::*;
use supervisor::*;

/// Hears each line the server writes to stderr.
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// How long, after the process exited, its pipes may take to reach EOF. A
/// grandchild that inherited them can keep them open forever.
const DRAIN_TIMEOUT: Duration = Duration::from_millis(500);
/// How long a server that closed its stdout may take to exit by itself.
const STDOUT_EOF_EXIT_WAIT: Duration = Duration::from_secs(1);
/// How long the OS may take to kill the child (SIGKILL, TerminateProcess) and
/// let us reap it.
const REAP_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest stderr line kept whole; stderr is only for humans.
const STDERR_LINE_MAX: usize = 64 * 1024;
/// How much of a rejected stdout line a log message shows.
const PREVIEW_CHARS: usize = 200;

/// How to start a server process.
#[derive(Clone)]
pub struct StdioOptions {
    /// The program to run, looked up in `PATH` when it has no slash.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the inherited environment.
    pub env: Vec<(String, String)>,
    /// Its working directory; ours when `None`.
    pub cwd: Option<PathBuf>,
    /// The longest stdout line accepted; longer lines are logged and skipped.
    pub max_line_bytes: usize,
    /// How long to wait after closing its stdin before sending SIGTERM (on
    /// Windows, which has no SIGTERM: before killing it).
    pub exit_grace: Duration,
    /// How long to wait after SIGTERM before sending SIGKILL. Unused on
    /// Windows, where the server is killed once `exit_grace` is over.
    pub term_grace: Duration,
    /// How many of its last stderr lines an exit error quotes.
    pub stderr_tail_lines: usize,
    /// Hears each stderr line; `None` logs them with `log::info!`.
    pub on_stderr: Option<StderrCallback>,
}

impl std::fmt::Debug for StdioOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "StdioOptions")
            .field("program", &self.program)
            .field("args", &self.args)
            .field("env", &self.env.iter().map(|(k, _)| k).collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .field("max_line_bytes", &self.max_line_bytes)
            .field("exit_grace", &self.exit_grace)
            .field("term_grace", &self.term_grace)
            .field("stderr_tail_lines", &self.stderr_tail_lines)
            .field("on_stderr", &self.on_stderr.is_some())
            .finish()
    }
}

impl StdioOptions {
    /// Runs `program` with `args`, with the default limits and graces.
    pub fn new(program: impl Into<String>, args: impl IntoIterator<Item = impl Into<String>>) -> Self {
        StdioOptions {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
            max_line_bytes: 16 * 1024 * 1024,
            exit_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(2),
            stderr_tail_lines: 20,
            on_stderr: None,
        }
    }

    /// Splits `line` as a POSIX shell would (quotes and backslashes, no
    /// expansion): the first word is the program.
    pub fn from_command_line(line: &str) -> Result<Self, TransportError> {
        let refuse = |reason: &str| TransportError::Spawn { command: line.to_owned(), reason: reason.into() };
        let words = shlex::split(line).ok_or_else(|| refuse("unbalanced quotes or a trailing backslash"))?;
        let mut words = words.into_iter();
        let program = words.next().ok_or_else(|| refuse("the command line is empty"))?;
        Ok(StdioOptions::new(program, words))
    }

    /// Adds an environment variable.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sends each stderr line to `f` instead of the log.
    pub fn on_stderr(mut self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_stderr = Some(Arc::new(f));
        self
    }

    /// The command as a shell would show it, for messages.
    fn display_command(&self) -> String {
        let words = std::iter::once(self.program.as_str()).chain(self.args.iter().map(String::as_str));
        // Words with NUL bytes cannot be quoted; they fail to spawn anyway.
        shlex::try_join(words).unwrap_or_else(|_| format!("{} {}", self.program, self.args.join(" ")))
    }
}

/// What the handle asks of the supervisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    Run,
    /// Graceful: stdin is closing, then SIGTERM (unix only), then a kill.
    Close,
    /// The transport was dropped: nobody can use the process any more.
    Kill,
}

type Outgoing = (String, oneshot::Sender<Result<(), TransportError>>);
type Tail = Arc<Mutex<VecDeque<String>>>;

/// A server process spoken to over its stdin and stdout.
pub struct StdioTransport {
    command: String,
    pid: Option<u32>,
    /// `None` once closing: dropping the sender is what closes the child's stdin.
    writer: Option<mpsc::UnboundedSender<Outgoing>>,
    events: mpsc::UnboundedReceiver<TransportEvent>,
    control: watch::Sender<Control>,
    gone: watch::Receiver<bool>,
    close_bound: Duration,
    finished: bool,
}

impl std::fmt::Debug for StdioTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "StdioTransport")
            .field("command", &self.command)
            .field("pid", &self.pid())
            .finish()
    }
}

impl StdioTransport {
    /// Starts the server. Must be called inside a tokio runtime (with I/O
    /// and time enabled).
    pub fn spawn(options: StdioOptions) -> Result<StdioTransport, TransportError> {
        let command = options.display_command();
        let spawn_error = |reason: Cause| TransportError::Spawn { command: command.clone(), reason };
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| spawn_error("no tokio runtime: start the stdio transport from inside one".into()))?;

        let mut process = Command::new(&options.program);
        process
            .args(&options.args)
            .envs(options.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &options.cwd {
            process.current_dir(dir);
        }
        let mut child = process.spawn().map_err(|e| match &options.cwd {
            Some(dir) => spawn_error(Cause::with_source(format!("{e} (working directory {})", dir.display()), e)),
            None => spawn_error(Cause::of(e)),
        })?;
        let pid = child.id();
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // Cannot happen with all three piped; the child dies with `child`.
            return Err(spawn_error("the child's pipes are missing".into()));
        };

        let (writer, outgoing) = mpsc::unbounded_channel();
        let (events_tx, events) = mpsc::unbounded_channel();
        let (control, control_rx) = watch::channel(Control::Run);
        let (gone_tx, gone) = watch::channel(false);
        let tail: Tail = Arc::new(Mutex::new(VecDeque::new()));

        let writer_task = runtime.spawn(write_loop(stdin, outgoing));
        let stdout_task = runtime.spawn(read_stdout(BufReader::new(stdout), options.max_line_bytes, events_tx.clone()));
        let on_stderr = options.on_stderr.clone().unwrap_or_else(|| {
            let program = options.program.clone();
            Arc::new(move |line: &str| log::info!("{program}: {line}"))
        });
        let stderr_task =
            runtime.spawn(read_stderr(BufReader::new(stderr), on_stderr, tail.clone(), options.stderr_tail_lines));
        let supervisor = Supervisor {
            child,
            control: control_rx,
            events: events_tx,
            writer_task,
            stdout_task: Some(stdout_task),
            stderr_task: Some(stderr_task),
            tail,
            exit_grace: options.exit_grace,
            term_grace: options.term_grace,
        };
        runtime.spawn(async move {
            supervisor.run().await;
            gone_tx.send_replace(true);
        });

        // Windows skips term_grace; the bound only has to be long enough.
        let close_bound = options
            .exit_grace
            .saturating_add(options.term_grace)
            .saturating_add(REAP_TIMEOUT)
            .saturating_add(DRAIN_TIMEOUT * 2);
        Ok(StdioTransport { command, pid, writer: Some(writer), events, control, gone, close_bound, finished: false })
    }

    /// The server's process id, while it runs (`None` once it was reaped,
    /// when the id may already belong to another process).
    pub fn pid(&self) -> Option<u32> {
        if *self.gone.borrow() { None } else { self.pid }
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        // A close already under way is left to finish its graceful sequence.
        self.control.send_if_modified(|control| {
            let run = *control == Control::Run;
            if run {
                *control = Control::Kill;
            }
            run
        });
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, message: Message) -> BoxFuture<'static, Result<(), TransportError>> {
        let line = message.to_json();
        // R3.4/R3.5: an empty or multi-line write would corrupt the stream.
        if line.is_empty() || line.contains('\n') {
            return boxed(async {
                Err(TransportError::InvalidMessage("the message does not serialize to one line".into()))
            });
        }
        let (done, written) = oneshot::channel();
        let queued = match &self.writer {
            Some(writer) => writer.send((line + "\n", done)).is_ok(),
            None => false,
        };
        boxed(async move {
            if !queued {
                return Err(stdin_closed());
            }
            written.await.unwrap_or_else(|_| Err(stdin_closed()))
        })
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent> {
        let events = &mut self.events;
        // The channel ends early only when the runtime dropped the tasks
        // before they finished.
        super::poll_channel(&mut self.finished, || events.poll_recv(cx), "the stdio transport's tasks stopped")
    }

    fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>> {
        // The writer finishes the lines already queued, then drops stdin.
        self.writer = None;
        self.control.send_if_modified(|control| {
            let run = *control == Control::Run;
            if run {
                *control = Control::Close;
            }
            run
        });
        let mut gone = self.gone.clone();
        let bound = self.close_bound;
        let command = self.command.clone();
        boxed(async move {
            match tokio::time::timeout(bound, gone.wait_for(|gone| *gone)).await {
                // An error means the supervisor was dropped, and the child with
                // it (kill_on_drop).
                Ok(_) => Ok(()),
                Err(_) => Err(TransportError::Other(format!(
                    "the server `{command}` did not stop within {} ms",
                    bound.as_millis()
                ))),
            }
        })
    }

    fn kind(&self) -> super::TransportKind {
        super::TransportKind::Stdio
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Result<String, usize>> {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(async {
            let mut reader = input;
            let mut buffer = Vec::new();
            let mut out = Vec::new();
            while let Some(line) = next_line(&mut reader, max, &mut buffer).await.unwrap() {
                out.push(match line {
                    Line::Whole(bytes) => Ok(String::from_utf8_lossy(bytes).into_owned()),
                    Line::TooLong { kept, total } => {
                        assert!(kept.len() <= max);
                        Err(total)
                    }
                });
            }
            out
        })
    }

    #[test]
    fn splits_lines_and_tolerates_crlf_and_a_missing_final_newline() {
        let got = lines(b"one\r\n\ntwo\nthree", 100);
        assert_eq!(got, vec![Ok("one".into()), Ok(String::new()), Ok("two".into()), Ok("three".into())]);
        assert_eq!(lines(b"", 10), vec![]);
    }

    #[test]
    fn reports_oversized_lines_by_length_and_keeps_going() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(lines(&input, 10), vec![Err(50), Ok("ok".into())]);
        // Exactly at the limit, with or without a carriage return.
        assert_eq!(lines(b"0123456789\r\n0123456789\n", 10), vec![Ok("0123456789".into()), Ok("0123456789".into())]);
        assert_eq!(lines(b"0123456789a\r\n", 10), vec![Err(11)]);
    }

    #[test]
    fn decodes_batches_and_skips_garbage() {
        assert!(decode_line(b"   ").is_empty());
        assert!(matches!(decode_line(b"not json").as_slice(), [Err(_)]));
        assert!(matches!(decode_line(b"{\"foo\":1}").as_slice(), [Err(_)]));
        let batch = br#"[{"jsonrpc":"2.0","method":"a"},{"nope":1},{"jsonrpc":"2.0","id":1,"result":{}}]"#;
        let got = decode_line(batch);
        assert!(matches!(got.as_slice(), [Ok(Message::Notification(_)), Err(_), Ok(Message::Response(_))]));
    }

    #[cfg(unix)]
    #[test]
    fn describes_exit_statuses() {
        assert_eq!(describe_status(ExitStatus::from_raw(3 << 8)), "exit code 3");
        assert_eq!(describe_status(ExitStatus::from_raw(libc::SIGKILL)), "killed by signal 9 (SIGKILL)");
        assert_eq!(describe_status(ExitStatus::from_raw(libc::SIGTERM)), "killed by signal 15 (SIGTERM)");
    }

    #[test]
    fn splits_command_lines_like_a_shell() {
        let options = StdioOptions::from_command_line(r#"node "my server.js" --name 'a b' c\ d"#).unwrap();
        assert_eq!(options.program, "node");
        assert_eq!(options.args, ["my server.js", "--name", "a b", "c d"]);
        assert_eq!(options.display_command(), "node 'my server.js' --name 'a b' 'c d'");
        for bad in ["", "   ", "node 'unclosed", "node \"unclosed"] {
            let error = StdioOptions::from_command_line(bad).unwrap_err();
            assert!(matches!(error, TransportError::Spawn { .. }), "{bad:?}: {error:?}");
        }
    }
}
