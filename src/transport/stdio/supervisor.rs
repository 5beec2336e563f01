//! The child's supervisor: notices the process ending, runs the graceful
//! shutdown (stdin closes, then SIGTERM on unix, then a kill) and reaps it;
//! and the human description of an exit status.

use super::*;
use crate::cause::Cause;

/// How an exit status reads in an error message.
pub(super) fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    #[cfg(unix)]
    if let Some(signal) = status.signal() {
        let core = if status.core_dumped() { ", core dumped" } else { "" };
        return match signal_name(signal) {
            Some(name) => format!("killed by signal {signal} ({name}){core}"),
            None => format!("killed by signal {signal}{core}"),
        };
    }
    status.to_string()
}

#[cfg(unix)]
pub(super) fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return None,
    })
}

/// Owns the child: notices its end, runs the shutdown sequence, reaps it.
pub(super) struct Supervisor {
    pub(super) child: Child,
    pub(super) control: watch::Receiver<Control>,
    pub(super) events: mpsc::UnboundedSender<TransportEvent>,
    pub(super) writer_task: JoinHandle<()>,
    pub(super) stdout_task: Option<JoinHandle<()>>,
    pub(super) stderr_task: Option<JoinHandle<()>>,
    pub(super) tail: Tail,
    pub(super) exit_grace: Duration,
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(super) term_grace: Duration,
}

pub(super) enum Happened {
    Exited(io::Result<ExitStatus>),
    StdoutClosed,
    Asked(Control),
}

/// Resolves when the handle asks for something other than `Run`; a dropped
/// handle counts as `Kill`.
pub(super) async fn wait_control(control: &mut watch::Receiver<Control>) -> Control {
    loop {
        let current = *control.borrow_and_update();
        if current != Control::Run {
            return current;
        }
        if control.changed().await.is_err() {
            return Control::Kill;
        }
    }
}

pub(super) async fn finished(task: &mut Option<JoinHandle<()>>) {
    match task.as_mut() {
        Some(handle) => {
            let _ = handle.await;
            *task = None;
        }
        None => std::future::pending().await,
    }
}

impl Supervisor {
    pub(super) async fn run(mut self) {
        let happened = tokio::select! {
            status = self.child.wait() => Happened::Exited(status),
            () = finished(&mut self.stdout_task) => Happened::StdoutClosed,
            control = wait_control(&mut self.control) => Happened::Asked(control),
        };
        let reason = match happened {
            Happened::Exited(Ok(status)) => Some(self.exited(status).await),
            Happened::Exited(Err(e)) => {
                // The child cannot be waited for; make sure it does not outlive us.
                let _ = self.child.start_kill();
                Some(TransportError::Io(Cause::with_source(format!("waiting for the server process: {e}"), e)))
            }
            Happened::StdoutClosed => self.stdout_closed().await,
            Happened::Asked(Control::Kill) => {
                self.kill_and_reap().await;
                None
            }
            Happened::Asked(_) => {
                self.terminate().await;
                self.drain().await;
                Some(TransportError::Closed("the client closed the connection".into()))
            }
        };
        if let Some(reason) = reason {
            let _ = self.events.send(TransportEvent::Closed(reason));
        }
        self.writer_task.abort();
        for task in [self.stdout_task.take(), self.stderr_task.take()].into_iter().flatten() {
            task.abort();
        }
    }

    /// The reason for an exit the server chose, once its output is read.
    async fn exited(&mut self, status: ExitStatus) -> TransportError {
        self.drain().await;
        TransportError::ProcessExited { status: describe_status(status), stderr_tail: self.tail() }
    }

    /// The server closed its stdout: it can no longer answer, whether or not
    /// it exits. One that lingers is shut down as if the client closed it.
    async fn stdout_closed(&mut self) -> Option<TransportError> {
        let waited = tokio::select! {
            waited = tokio::time::timeout(STDOUT_EOF_EXIT_WAIT, self.child.wait()) => Some(waited),
            control = wait_control(&mut self.control) => {
                if control == Control::Kill {
                    self.kill_and_reap().await;
                    return None;
                }
                None
            }
        };
        match waited {
            Some(Ok(Ok(status))) => Some(self.exited(status).await),
            Some(Ok(Err(e))) => {
                let _ = self.child.start_kill();
                Some(TransportError::Io(Cause::with_source(format!("waiting for the server process: {e}"), e)))
            }
            Some(Err(_still_running)) => {
                let reason = TransportError::Closed("the server closed its stdout but kept running".into());
                let _ = self.events.send(TransportEvent::Closed(reason));
                // Its stdin closes with the writer.
                self.writer_task.abort();
                self.terminate().await;
                None
            }
            None => {
                self.terminate().await;
                self.drain().await;
                Some(TransportError::Closed("the client closed the connection".into()))
            }
        }
    }

    /// R2.22: stdin is closed (by the caller), then SIGTERM, then SIGKILL,
    /// each after its grace. Windows has no SIGTERM (a console process cannot
    /// be asked to stop without a console of its own), so there the server is
    /// killed once the stdin grace is over. Returns once the child is reaped
    /// or cannot be.
    async fn terminate(&mut self) {
        if let Ok(waited) = tokio::time::timeout(self.exit_grace, self.child.wait()).await {
            return self.reaped(waited);
        }
        #[cfg(unix)]
        {
            self.sigterm();
            if let Ok(waited) = tokio::time::timeout(self.term_grace, self.child.wait()).await {
                return self.reaped(waited);
            }
            log::warn!("the server ignored stdin closing and SIGTERM; sending SIGKILL");
        }
        #[cfg(not(unix))]
        log::warn!("the server did not exit after its stdin closed; killing it");
        self.kill_and_reap().await;
    }

    #[cfg(unix)]
    fn sigterm(&self) {
        if let Some(pid) = self.child.id().and_then(|pid| libc::pid_t::try_from(pid).ok()) {
            // SAFETY: kill has no memory effects. The pid is our child's and it
            // has not been reaped (`id()` is `None` after that), so it cannot
            // name another process.
            let sent = unsafe { libc::kill(pid, libc::SIGTERM) };
            if sent != 0 {
                log::debug!("SIGTERM to the server: {}", io::Error::last_os_error());
            }
        }
    }

    async fn kill_and_reap(&mut self) {
        if let Err(e) = self.child.start_kill() {
            log::debug!("killing the server: {e}");
        }
        match tokio::time::timeout(REAP_TIMEOUT, self.child.wait()).await {
            Ok(waited) => self.reaped(waited),
            Err(_) => {
                log::warn!("the server process did not die within {} ms of being killed", REAP_TIMEOUT.as_millis())
            }
        }
    }

    fn reaped(&self, waited: io::Result<ExitStatus>) {
        match waited {
            Ok(status) => log::debug!("the server process ended: {}", describe_status(status)),
            Err(e) => log::warn!("waiting for the server process: {e}"),
        }
    }

    /// Lets the readers take what the process wrote before it ended, so its
    /// last messages come before the Closed event and its last stderr lines
    /// make the tail.
    async fn drain(&mut self) {
        let deadline = tokio::time::Instant::now() + DRAIN_TIMEOUT;
        for task in [&mut self.stdout_task, &mut self.stderr_task] {
            if tokio::time::timeout_at(deadline, finished(task)).await.is_err() {
                log::debug!("the server's pipes stayed open after it ended (a child process may hold them)");
            }
        }
    }

    fn tail(&self) -> Vec<String> {
        self.tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).iter().cloned().collect()
    }
}
