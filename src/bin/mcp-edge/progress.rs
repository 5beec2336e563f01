//! `notifications/progress` on stderr: a bar on a terminal, plain
//! `progress: 3/6 message` lines otherwise. Never on stdout.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_edge::protocol::types::Progress;

/// The bar on screen, if any, so log lines can step around it.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// The bar's resolution when the server gives a total.
const SCALE: u64 = 1000;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing here can be left half-written by a panic.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn active() -> Option<ProgressBar> {
    lock(&ACTIVE).clone()
}

/// Removes the bar from the screen (before an error line is printed).
pub fn clear() {
    if let Some(bar) = lock(&ACTIVE).take() {
        bar.finish_and_clear();
    }
}

/// Shows the progress of one request.
#[derive(Clone)]
pub struct Display {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    terminal: bool,
    bar: Option<ProgressBar>,
    has_total: bool,
}

impl Display {
    /// A display for stderr: a bar if it is a terminal, lines if not.
    pub fn new() -> Self {
        let terminal = std::io::stderr().is_terminal();
        Display { inner: Arc::new(Mutex::new(Inner { terminal, bar: None, has_total: false })) }
    }

    /// The callback to hand to `RequestOptions::with_progress`.
    pub fn callback(&self) -> impl FnMut(&Progress) + Send + 'static {
        let display = self.clone();
        move |progress: &Progress| display.update(progress)
    }

    fn update(&self, progress: &Progress) {
        let mut inner = lock(&self.inner);
        let message = progress.message.as_deref().map(str::trim).filter(|m| !m.is_empty());
        let amount = match progress.total {
            Some(total) => format!("{}/{}", progress.progress, total),
            None => progress.progress.to_string(),
        };
        let text = match message {
            Some(message) => format!("{amount} {message}"),
            None => amount,
        };
        if !inner.terminal {
            // Best effort: a closed stderr must not fail the call.
            let _ = writeln!(std::io::stderr().lock(), "progress: {text}");
            return;
        }
        let bar = inner.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(120));
            *lock(&ACTIVE) = Some(bar.clone());
            bar
        });
        let bar = bar.clone();
        match progress.total.filter(|t| *t > 0.0) {
            Some(total) => {
                if !inner.has_total {
                    inner.has_total = true;
                    bar.set_style(bar_style());
                    bar.set_length(SCALE);
                }
                let fraction = (progress.progress / total).clamp(0.0, 1.0);
                bar.set_position((fraction * SCALE as f64).round() as u64);
            }
            None if !inner.has_total => bar.set_style(spinner_style()),
            None => {}
        }
        bar.set_message(text);
    }

    /// Takes the bar off the screen once the request is answered.
    pub fn finish(&self) {
        if let Some(bar) = lock(&self.inner).bar.take() {
            bar.finish_and_clear();
            lock(&ACTIVE).take();
        }
    }
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} [{elapsed}] [{bar:30}] {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} [{elapsed}] {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner())
}

/// A logger that hides the progress bar while it writes a line.
pub struct SuspendingLogger(pub env_logger::Logger);

impl log::Log for SuspendingLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        self.0.enabled(metadata)
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.0.matches(record) {
            return;
        }
        match active() {
            Some(bar) => bar.suspend(|| self.0.log(record)),
            None => self.0.log(record),
        }
    }

    fn flush(&self) {
        self.0.flush()
    }
}
