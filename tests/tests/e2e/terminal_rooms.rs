//! The terminal client's room commands end to end: `ludus room create`, `join` and the room
//! loop driven as the library functions the `ludus` binary calls, with typed lines from a
//! channel and the text read back from a transcript, against the whole system on a real
//! redis-server. A host opens a Caro room, a guest joins by the code typed in lower case with
//! the space, a spectator joins with `--watch` through a relay that cuts its connection (the
//! room stream resumes with no gap and no duplicate); chat reaches the others, a non-host's
//! start is refused with the server's message, and the game is played to the end from the
//! keyboard, after which everyone is back in the room.

use std::{io::Write, net::SocketAddr};

use clap::Parser as _;
use ludus_terminal::{
    Screen, account,
    room::{self, RoomArgs},
    saved_session::SessionFile,
};
use ludus_tests::{Ludus, patience};
use tokio::{
    net::{TcpListener, TcpStream},
    sync::{mpsc, watch},
    task::JoinHandle,
};

const PASSWORD: &str = "correct horse battery";
/// The Caro prompt the play loop shows when it is the player's turn.
const YOUR_MOVE: &str = "your move (a cell like H8, or help)> ";

#[derive(clap::Parser)]
enum Cli {
    Room(RoomArgs),
}

/// A writer that hands every chunk to the test.
struct Sink(mpsc::UnboundedSender<String>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // The test may have stopped reading; the session does not care.
        let _ = self.0.send(String::from_utf8_lossy(bytes).into_owned());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What one terminal has shown, read in order.
struct Transcript {
    chunks: mpsc::UnboundedReceiver<String>,
    text: String,
    read: usize,
}

impl Transcript {
    /// Waits until `needle` is shown after what was already read, and returns the text up to
    /// it (the next wait starts after it).
    async fn expect(&mut self, needle: &str) -> String {
        let deadline = tokio::time::Instant::now() + patience();
        loop {
            if let Some(at) = self.text[self.read..].find(needle) {
                let end = self.read + at + needle.len();
                let seen = self.text[self.read..end].to_owned();
                self.read = end;
                return seen;
            }
            match tokio::time::timeout_at(deadline, self.chunks.recv()).await {
                Ok(Some(chunk)) => self.text.push_str(&chunk),
                Ok(None) => panic!("the session ended without {needle:?}:\n{}", self.text),
                Err(_) => panic!("no {needle:?} in time:\n{}", self.text),
            }
        }
    }
}

/// One terminal running `ludus room ...`: what it types, what it shows, the command.
struct Terminal {
    keyboard: mpsc::Sender<String>,
    screen: Transcript,
    command: JoinHandle<anyhow::Result<()>>,
}

impl Terminal {
    fn start(argv: &[&str], file: SessionFile) -> Terminal {
        let mut full = vec!["ludus", "room"];
        full.extend_from_slice(argv);
        let Cli::Room(args) = Cli::try_parse_from(full).expect("the command parses");
        let (keyboard, lines) = mpsc::channel(16);
        let (sink, chunks) = mpsc::unbounded_channel();
        let screen = Screen::writer(Sink(sink));
        let command = tokio::spawn(async move { room::run_with(args, &file, lines, screen).await });
        Terminal {
            keyboard,
            screen: Transcript {
                chunks,
                text: String::new(),
                read: 0,
            },
            command,
        }
    }

    async fn types(&self, line: &str) {
        self.keyboard
            .send(format!("{line}\n"))
            .await
            .expect("the session reads the keyboard");
    }

    /// What the command returned.
    async fn ended(self) -> anyhow::Result<()> {
        tokio::time::timeout(patience(), self.command)
            .await
            .expect("the command ends")
            .expect("the command did not panic")
    }
}

/// A TCP relay in front of the gateway whose connections the test cuts: `false` drops every
/// connection and refuses new ones until `true` again.
async fn relay(gateway: SocketAddr) -> (SocketAddr, watch::Sender<bool>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind relay");
    let addr = listener.local_addr().expect("relay address");
    let (switch, up) = watch::channel(true);
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            if !*up.borrow() {
                continue;
            }
            let mut up = up.clone();
            tokio::spawn(async move {
                let Ok(mut outbound) = TcpStream::connect(gateway).await else {
                    return;
                };
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                    _ = up.wait_for(|up| !*up) => {}
                }
            });
        }
    });
    (addr, switch)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_room_by_code_chat_refused_start_and_a_caro_game_to_the_end() {
    // The assertions below read the client's English lines, whatever the machine's locale.
    ludus_terminal::set_lang(ludus_terminal::Lang::En);
    let ludus = Ludus::start().await;
    let server = format!("http://{}", ludus.gateway);
    let homes: Vec<tempfile::TempDir> = (0..3)
        .map(|_| tempfile::tempdir().expect("temp dir"))
        .collect();
    let file = |n: usize| SessionFile::in_dir(homes[n].path().join("ludus"));

    // Ping44: nobody signed in cannot open a room, and is told how to sign in.
    let refused = Terminal::start(&["create", "--server", &server], file(0))
        .ended()
        .await
        .expect_err("a guest cannot create a room");
    assert!(
        format!("{refused:#}").contains("creating a room needs an account"),
        "{refused:#}"
    );

    account::register_with(&file(0), Some(&server), "hana_rooms", PASSWORD, "Hana")
        .await
        .expect("register the host");
    let mut host = Terminal::start(
        &[
            "create",
            "--game",
            "caro",
            "--turn-seconds",
            "60",
            "--first-mover",
            "host",
        ],
        file(0),
    );
    let created = host.screen.expect("(others type `ludus room join ").await;
    let code = host
        .screen
        .expect("`)")
        .await
        .trim_end_matches("`)")
        .to_owned();
    assert_eq!(code.len(), 6, "a six-character code: {code}");
    let shown = format!("{} {}", &code[..3], &code[3..]);
    assert!(
        created.contains(&format!("room {shown} created: you are the host")),
        "{created}"
    );
    assert!(
        created.contains(&format!("invite: ludus://room/{code}")),
        "{created}"
    );
    let summary = host.screen.expect("type help for the room commands").await;
    assert!(
        summary.contains("caro 15x15 · 1 min a move · host first (C10) · private · casual"),
        "{summary}"
    );
    assert!(summary.contains("- Hana (you, host): seated"), "{summary}");

    // The guest types the code as it is shown, in lower case.
    let typed = shown.to_lowercase();
    let mut guest = Terminal::start(
        &["join", "--server", &server, "--name", "Gus", &typed],
        file(1),
    );
    guest
        .screen
        .expect(&format!("joined room {shown} as a player"))
        .await;
    host.screen.expect("Gus joined").await;
    host.screen
        .expect("Gus sat down (2 of 2 seats taken)")
        .await;

    // The spectator goes through a relay that will cut its connection.
    let (relay, link) = relay(ludus.gateway).await;
    let relayed = format!("http://{relay}");
    let mut spectator = Terminal::start(
        &[
            "join", "--watch", "--server", &relayed, "--name", "Sam", &code,
        ],
        file(2),
    );
    spectator
        .screen
        .expect(&format!("joined room {shown} as a spectator"))
        .await;
    host.screen.expect("Sam joined to watch").await;

    // Chat reaches everyone, `say` or a line starting with a quote mark.
    guest.types("say hello from gus").await;
    host.screen.expect("Gus: hello from gus").await;
    spectator.screen.expect("Gus: hello from gus").await;
    spectator.types("\"good luck both").await;
    host.screen.expect("Sam: good luck both").await;
    guest.screen.expect("Sam: good luck both").await;

    // The spectator's connection drops; what is said meanwhile comes once it resumes from the
    // last event seen: no gap, and nothing twice (counted at the end).
    link.send_replace(false);
    spectator
        .screen
        .expect("connection lost, resuming after event #")
        .await;
    host.types("say while you were away").await;
    guest.screen.expect("Hana: while you were away").await;
    link.send_replace(true);
    spectator.screen.expect("Hana: while you were away").await;

    // Only the host starts: the guest sees the server's PERMISSION_DENIED message.
    guest.types("start").await;
    guest.screen.expect("only the host can start a game").await;

    guest.types("ready").await;
    host.screen.expect("Gus is ready").await;
    host.types("start").await;

    // C10 (host first): the host is X. The game is played from both keyboards: X builds
    // H8-L8 while O plays along the top edge.
    for (x, o) in [("H8", "A1"), ("I8", "B1"), ("J8", "C1"), ("K8", "D1")] {
        host.screen.expect(YOUR_MOVE).await;
        host.types(x).await;
        guest.screen.expect(YOUR_MOVE).await;
        guest.types(o).await;
    }
    host.screen.expect(YOUR_MOVE).await;
    host.types("L8").await;
    for terminal in [&mut host, &mut guest, &mut spectator] {
        terminal.screen.expect("game over: X (Hana) wins").await;
        terminal.screen.expect("back in room").await;
    }

    // Back in the room: the result and the room's scoreboard.
    host.screen.expect("finished: Hana won").await;
    host.screen
        .expect("Hana: 1 played, 1 won, 0 drawn, 0 points")
        .await;
    guest.screen.expect("finished: Hana won").await;

    guest.types("leave").await;
    host.screen.expect("Gus left").await;
    guest.ended().await.expect("the guest left");
    for line in [
        "Gus: hello from gus",
        "Sam: good luck both",
        "Hana: while you were away",
    ] {
        assert_eq!(
            spectator.screen.text.matches(line).count(),
            1,
            "{line:?} once:\n{}",
            spectator.screen.text
        );
    }
    spectator.types("leave").await;
    host.screen.expect("Sam left").await;
    spectator.ended().await.expect("the spectator left");
    host.types("leave").await;
    host.screen.expect(&format!("you left room {shown}")).await;
    host.ended().await.expect("the host left");
    ludus.shutdown().await;
}
