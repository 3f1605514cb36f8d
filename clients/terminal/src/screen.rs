//! Where the loops' text goes: the terminal, or any writer (the end-to-end tests read a
//! room session's transcript from one).

use std::{
    io::{IsTerminal as _, Write},
    sync::{Arc, Mutex},
};

/// The output of a loop. Cloning shares the same sink, so a room and the game it enters
/// write one transcript.
#[derive(Clone)]
pub struct Screen {
    sink: Arc<Mutex<dyn Write + Send>>,
    /// Clearing the screen is only for a terminal: a file or a pipe keeps every board, which
    /// keeps logs (and transcripts) readable.
    terminal: bool,
}

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen")
            .field("terminal", &self.terminal)
            .finish_non_exhaustive()
    }
}

impl Screen {
    /// Standard output.
    pub fn stdout() -> Self {
        Self {
            sink: Arc::new(Mutex::new(std::io::stdout())),
            terminal: std::io::stdout().is_terminal(),
        }
    }

    /// Any writer, never cleared.
    pub fn writer(sink: impl Write + Send + 'static) -> Self {
        Self {
            sink: Arc::new(Mutex::new(sink)),
            terminal: false,
        }
    }

    /// Writes `text` as it is (a prompt does not end in a newline) and flushes it.
    pub fn print(&self, text: &str) {
        // A writer that panicked mid-line still takes the next one.
        let mut sink = self.sink.lock().unwrap_or_else(|p| p.into_inner());
        // A terminal that cannot be written to leaves nothing useful to do.
        let _ = sink.write_all(text.as_bytes());
        let _ = sink.flush();
    }

    /// Writes one line.
    pub fn line(&self, text: &str) {
        self.print(&format!("{text}\n"));
    }

    /// Clears the terminal before a redraw; on anything else boards follow each other.
    pub fn clear(&self) {
        if self.terminal {
            self.print("\x1b[H\x1b[2J");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .write(bytes)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_writer_gets_lines_and_prompts_but_no_clearing() {
        let shared = Shared::default();
        let screen = Screen::writer(shared.clone());
        screen.clear();
        screen.line("room K7M 4QP");
        screen.clone().print("> ");
        let text = String::from_utf8(shared.0.lock().map(|b| b.clone()).unwrap_or_default());
        assert_eq!(text.ok().as_deref(), Some("room K7M 4QP\n> "));
    }
}
