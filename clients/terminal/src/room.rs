//! `ludus room`: friend rooms (ARCHITECTURE.md, "Rooms") in the terminal. `create` opens one (an account,
//! Ping44) and prints its code and invite link, `join` comes in by code as a player or
//! (`--watch`) a spectator, `list` shows the public rooms. Then the room loop: the room's
//! events as lines (from `SubscribeRoom`, resumed after a drop with no gap and no
//! duplicate), typed room commands, and the room's games: a seated player plays them in
//! the play loop, a spectator follows them, and both come back to the room afterwards.

mod command;
mod render;

use std::collections::HashSet;

use ludus_proto::pb;
use tokio::{sync::mpsc, task::JoinHandle};
use tonic::{Response, Status};

pub use command::{RoomInput, SeatWish, apply_setting, normalise_code, parse};

use super::input;
use super::play;
use super::saved_session::{self, SessionFile};
use super::screen::Screen;
use super::session::{self, Client, Events, Next, Resumable, RoomFeed, Session};
use super::table::Table;
use super::{GameFlags, Where};
use crate::i18n::{tr, trf};
use command::{display_code, help, invite_link};
use render::Names;

/// Room events waiting while the player is in a game: the room stream is read all along
/// (holding it keeps the member present), and what came in is shown afterwards.
const ROOM_BACKLOG: usize = 1024;
/// Chat lines shown on entering a room (the snapshot has up to 100).
const RECENT_CHAT: usize = 10;
/// How many public rooms `list` asks for.
const LIST_LIMIT: u32 = 50;

/// `ludus room`: create, join or list friend rooms.
#[derive(clap::Args, Debug)]
pub struct RoomArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: RoomCommand,
    /// The Gateway address (default: the saved session's, else the local server).
    #[arg(long, env = "LUDUS_SERVER", global = true)]
    pub server: Option<String>,
    /// Your display name as a guest (join and list; not needed once signed in, and rooms
    /// are created by accounts).
    #[arg(long, global = true)]
    pub name: Option<String>,
    /// Join as a guest even when signed in (needs --name).
    #[arg(long, global = true)]
    pub guest: bool,
}

/// The `ludus room` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum RoomCommand {
    /// Open a room (needs an account: `ludus login`), print its code and invite link, and
    /// stay in it.
    Create(CreateArgs),
    /// Join a room by its code (`K7M 4QP`, any case, with or without the space, or the
    /// invite link `ludus://room/K7M4QP`) and stay in it.
    Join(JoinArgs),
    /// The public rooms (the lobby).
    List,
}

/// `ludus room create`: the game, its options, and the room's own choices.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CreateArgs {
    /// The game and its options (as `ludus play` takes them).
    #[command(flatten)]
    pub game: GameFlags,
    /// Quoridor: seats at the table, 2 to 8 (Q4); teams need an even number, a tournament
    /// counts entrants.
    #[arg(long)]
    pub players: Option<u32>,
    /// Quoridor: free-for-all (Q22), red against yellow (Q23) or a knockout (Q24).
    #[arg(long, value_enum)]
    pub mode: Option<ModeChoice>,
    /// Quoridor: walls per player, or per team (Q27): 1, 3, 5, 7, 10, 15 or 20 (default by
    /// size and players).
    #[arg(long)]
    pub walls: Option<u32>,
    /// Quoridor: race to the opposite edge (default) or the center (Q25).
    #[arg(long, value_enum)]
    pub goal: Option<GoalChoice>,
    /// Caro: who moves first in the first game (C10); later games follow C11.
    #[arg(long, value_enum)]
    pub first_mover: Option<FirstMoverChoice>,
    /// List the room in the lobby (`ludus room list`).
    #[arg(long)]
    pub public: bool,
    /// Rate the room's games when everyone at the table has an account.
    #[arg(long)]
    pub rated: bool,
    /// Quoridor: do not start the next game 30 s after one ends (Q29).
    #[arg(long)]
    pub no_auto_start: bool,
    /// Spectators may not chat.
    #[arg(long)]
    pub no_spectator_chat: bool,
    /// Host without a seat (only watch).
    #[arg(long)]
    pub watch: bool,
}

/// `ludus room join`.
#[derive(clap::Args, Debug, Clone)]
pub struct JoinArgs {
    /// The room's code: `K7M4QP`, `k7m 4qp` (quoted or not), or `ludus://room/K7M4QP`.
    #[arg(required = true, num_args = 1..=2)]
    pub code: Vec<String>,
    /// Join as a spectator (C16: up to 50).
    #[arg(long)]
    pub watch: bool,
    /// A Quoridor team room: the team to sit with (Q23).
    #[arg(long, value_enum)]
    pub team: Option<TeamChoice>,
}

/// Quoridor room modes.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeChoice {
    /// Every seat for itself (Q22).
    Ffa,
    /// Red against yellow (Q23).
    Teams,
    /// A knockout of classic matches (Q24).
    Tournament,
}

/// Quoridor goals (Q25).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalChoice {
    /// The opposite edge.
    Opposite,
    /// The center cell.
    Center,
}

/// Who moves first in a Caro room's first game (C10).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstMoverChoice {
    /// The host.
    Host,
    /// The guest.
    Guest,
    /// Rock-paper-scissors, drawn by the server when the guest sits down.
    Rps,
}

/// Quoridor teams (Q23).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamChoice {
    /// Red.
    Red,
    /// Yellow.
    Yellow,
}

impl TeamChoice {
    fn to_pb(self) -> pb::RoomTeam {
        match self {
            TeamChoice::Red => pb::RoomTeam::Red,
            TeamChoice::Yellow => pb::RoomTeam::Yellow,
        }
    }
}

impl CreateArgs {
    /// The room's settings. Quoridor's room flags on another game are refused, like the
    /// other games' flags.
    pub fn room_settings(&self) -> anyhow::Result<pb::RoomSettings> {
        use pb::game_settings::Options;
        let mut game = self.game.settings(Where::Room)?;
        let quoridor_flags = self.players.is_some()
            || self.mode.is_some()
            || self.walls.is_some()
            || self.goal.is_some()
            || self.no_auto_start;
        match game.options.as_mut() {
            Some(Options::Quoridor(quoridor)) => {
                if let Some(players) = self.players {
                    quoridor.players = players;
                }
                if let Some(mode) = self.mode {
                    quoridor.mode = match mode {
                        ModeChoice::Ffa => pb::QuoridorMode::FreeForAll,
                        ModeChoice::Teams => pb::QuoridorMode::Teams,
                        ModeChoice::Tournament => pb::QuoridorMode::TournamentMatch,
                    } as i32;
                }
                if let Some(walls) = self.walls {
                    quoridor.walls = walls;
                }
                if let Some(GoalChoice::Center) = self.goal {
                    quoridor.goal = pb::QuoridorGoal::Center as i32;
                }
            }
            _ if quoridor_flags => anyhow::bail!(trf(
                "room.quoridorFlags",
                &[("game", &command::game_title(self.game.game))]
            )),
            _ => {}
        }
        let caro = matches!(game.options, Some(Options::Caro(_)));
        if self.first_mover.is_some() && !caro {
            anyhow::bail!(trf(
                "room.firstMoverFlag",
                &[("game", &command::game_title(self.game.game))]
            ));
        }
        let first_mover = match self.first_mover {
            Some(FirstMoverChoice::Host) => pb::CaroFirstMover::Host,
            Some(FirstMoverChoice::Guest) => pb::CaroFirstMover::Guest,
            Some(FirstMoverChoice::Rps) | None if caro => pb::CaroFirstMover::RockPaperScissors,
            _ => pb::CaroFirstMover::Unspecified,
        };
        Ok(pb::RoomSettings {
            game: Some(game),
            public: self.public,
            rated: self.rated,
            first_mover: first_mover as i32,
            auto_start: self.no_auto_start.then_some(false),
            spectator_chat: self.no_spectator_chat.then_some(false),
        })
    }
}

/// `ludus room ...` on this terminal: the saved session, stdin and stdout.
pub async fn run(args: RoomArgs) -> anyhow::Result<()> {
    let file = SessionFile::default_location()?;
    run_with(args, &file, input::stdin_lines(), Screen::stdout()).await
}

/// `ludus room ...` with the session in `file`, lines typed from `lines` and the text on
/// `screen`: returns when the member leaves the room (or after `list`).
pub async fn run_with(
    args: RoomArgs,
    file: &SessionFile,
    mut lines: mpsc::Receiver<String>,
    screen: Screen,
) -> anyhow::Result<()> {
    let RoomArgs {
        command,
        server,
        name,
        guest,
    } = args;
    if guest && name.is_none() {
        anyhow::bail!(tr("room.guestNeedsName"));
    }
    let server = server.as_deref();
    let name = name.as_deref();
    match command {
        RoomCommand::List => {
            let Session { mut client, .. } =
                guest_or_account(file, server, name, guest, "lobby").await?;
            let rooms = client
                .list_public_rooms(pb::ListPublicRoomsRequest { limit: LIST_LIMIT })
                .await
                .map_err(|status| {
                    anyhow::anyhow!(trf(
                        "room.cannotList",
                        &[("reason", &session::describe(&status))]
                    ))
                })?
                .into_inner()
                .rooms;
            screen.print(&render::listing(&rooms));
            Ok(())
        }
        RoomCommand::Create(create) => {
            // Checked before signing in: a wrong flag should not cost a round trip.
            let settings = create.room_settings()?;
            if guest {
                anyhow::bail!(tr("room.needsAccount"));
            }
            let Session {
                mut client,
                player_id,
                ..
            } = account(file, server).await?;
            let snapshot = client
                .create_room(pb::CreateRoomRequest {
                    settings: Some(settings),
                    watch: create.watch,
                })
                .await
                .map_err(|status| {
                    anyhow::anyhow!(trf(
                        "room.cannotCreate",
                        &[("reason", &session::describe(&status))]
                    ))
                })?
                .into_inner();
            let code = snapshot
                .room
                .as_ref()
                .map(|r| r.code.clone())
                .unwrap_or_default();
            screen.line(&trf(
                "room.created",
                &[
                    ("shown", &display_code(&code)),
                    ("link", &invite_link(&code)),
                    ("code", &code),
                ],
            ));
            RoomLoop::enter(client, player_id, snapshot, screen)?
                .run(&mut lines)
                .await
        }
        RoomCommand::Join(join) => {
            let code = normalise_code(&join.code.join(" ")).map_err(anyhow::Error::msg)?;
            let fallback = if join.watch { "spectator" } else { "" };
            let Session {
                mut client,
                player_id,
                ..
            } = guest_or_account(file, server, name, guest, fallback).await?;
            let snapshot = client
                .join_room(pb::JoinRoomRequest {
                    code: code.clone(),
                    watch: join.watch,
                    team: join
                        .team
                        .map_or(pb::RoomTeam::Unspecified, TeamChoice::to_pb)
                        as i32,
                })
                .await
                .map_err(|status| {
                    anyhow::anyhow!(trf(
                        "room.cannotJoin",
                        &[
                            ("code", &display_code(&code)),
                            ("reason", &session::describe(&status))
                        ]
                    ))
                })?
                .into_inner();
            let key = if join.watch {
                "room.joinedAsSpectator"
            } else {
                "room.joinedAsPlayer"
            };
            screen.line(&trf(key, &[("code", &display_code(&code))]));
            let recent = snapshot.chat.len().saturating_sub(RECENT_CHAT);
            for line in snapshot.chat.get(recent..).unwrap_or_default() {
                screen.line(&render::chat_line(line));
            }
            RoomLoop::enter(client, player_id, snapshot, screen)?
                .run(&mut lines)
                .await
        }
    }
}

/// The saved account on this server; a room's host must have one.
async fn account(file: &SessionFile, server: Option<&str>) -> anyhow::Result<Session> {
    let (_, saved) = saved_session::choose_server(server, file.load()?);
    match saved {
        Some(saved) => saved_session::resume(file, &saved).await,
        None => anyhow::bail!(tr("room.needsAccount")),
    }
}

/// The saved account, else a guest: `--name`, or `fallback` when it is not empty.
async fn guest_or_account(
    file: &SessionFile,
    server: Option<&str>,
    name: Option<&str>,
    guest: bool,
    fallback: &str,
) -> anyhow::Result<Session> {
    let name = name.or((!fallback.is_empty()).then_some(fallback));
    saved_session::sign_in(file, server, name, guest).await
}

/// What the loop does next.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// Go on in the room.
    Stay,
    /// Play this game of the room.
    Play(String),
    /// Follow this game of the room as a spectator.
    Watch(String),
    /// The member left (or was removed).
    Leave,
}

/// One member in one room.
struct RoomLoop {
    client: Client,
    player_id: String,
    /// The canonical code.
    code: String,
    /// The room as last seen.
    room: pb::RoomView,
    /// The seq `room` is from: an older snapshot does not replace a newer view.
    view_seq: u64,
    names: Names,
    /// The room's events, read by `follower` all along.
    events: mpsc::Receiver<anyhow::Result<Next<pb::RoomEvent>>>,
    follower: JoinHandle<()>,
    /// Games already entered, watched or announced, so a late event does not pull the
    /// member back into one.
    opened: HashSet<String>,
    screen: Screen,
    input_open: bool,
}

impl Drop for RoomLoop {
    fn drop(&mut self) {
        self.follower.abort();
    }
}

impl RoomLoop {
    /// The room from a snapshot, its events followed from the snapshot's seq on.
    fn enter(
        client: Client,
        player_id: String,
        snapshot: pb::RoomSnapshot,
        screen: Screen,
    ) -> anyhow::Result<RoomLoop> {
        let room = snapshot
            .room
            .ok_or_else(|| anyhow::anyhow!(tr("room.noRoom")))?;
        let (tx, events) = mpsc::channel(ROOM_BACKLOG);
        let mut feed = Resumable::of(client.clone(), RoomFeed(room.code.clone()), snapshot.seq);
        let follower = tokio::spawn(async move {
            loop {
                let next = feed.next().await;
                let failed = next.is_err();
                if tx.send(next).await.is_err() || failed {
                    return;
                }
            }
        });
        let mut names = Names::default();
        names.learn(&room);
        Ok(RoomLoop {
            client,
            player_id,
            code: room.code.clone(),
            room,
            view_seq: snapshot.seq,
            names,
            events,
            follower,
            opened: HashSet::new(),
            screen,
            input_open: true,
        })
    }

    async fn run(&mut self, lines: &mut mpsc::Receiver<String>) -> anyhow::Result<()> {
        self.show();
        self.screen.line(tr("room.typeHelp"));
        // A game already being played: the member's own is resumed (the client was
        // restarted mid-game), a spectator follows the first one.
        let live: Vec<pb::RoomTable> = self.live_tables().cloned().collect();
        self.opened
            .extend(live.iter().map(|table| table.game_id.clone()));
        let first = if let Some(mine) = live.iter().find(|t| t.player_ids.contains(&self.player_id))
        {
            Step::Play(mine.game_id.clone())
        } else if let (Some(table), false) = (live.first(), self.seated()) {
            Step::Watch(table.game_id.clone())
        } else {
            Step::Stay
        };
        if self.then(first, lines).await? {
            return Ok(());
        }
        loop {
            let step = tokio::select! {
                next = self.events.recv() => self.on_next(next)?,
                line = lines.recv(), if self.input_open => self.on_input(line).await,
            };
            if self.then(step, lines).await? {
                return Ok(());
            }
        }
    }

    /// Does `step` (and what a game it enters leads to); true once the member has left.
    async fn then(
        &mut self,
        mut step: Step,
        lines: &mut mpsc::Receiver<String>,
    ) -> anyhow::Result<bool> {
        loop {
            step = match step {
                Step::Stay => return Ok(false),
                Step::Leave => return Ok(true),
                Step::Play(game_id) => self.play(&game_id, lines).await,
                Step::Watch(game_id) => self.spectate(&game_id, lines).await?,
            };
        }
    }

    /// One item from the room's stream.
    fn on_next(
        &mut self,
        next: Option<anyhow::Result<Next<pb::RoomEvent>>>,
    ) -> anyhow::Result<Step> {
        match next {
            Some(Ok(Next::Event(event))) => Ok(self.on_event(*event)),
            Some(Ok(Next::Notice(notice))) => {
                self.screen.line(&notice);
                Ok(Step::Stay)
            }
            // A room's stream does not end; the follower stops only after an error.
            Some(Ok(Next::End)) | None => anyhow::bail!(tr("room.streamStopped")),
            Some(Err(error)) => Err(error),
        }
    }

    /// A typed line, or the end of input.
    async fn on_input(&mut self, line: Option<String>) -> Step {
        match line {
            Some(line) => self.on_line(&line).await,
            None => {
                self.input_open = false;
                self.screen.line(tr("room.inputClosed"));
                Step::Stay
            }
        }
    }

    /// Shows one room event and says what it leads to: a game to play or to follow.
    fn on_event(&mut self, event: pb::RoomEvent) -> Step {
        use pb::room_change::Kind;
        if let Some(room) = &event.room {
            self.names.learn(room);
        }
        let room = event.room.clone().unwrap_or_else(|| self.room.clone());
        if event.seq >= self.view_seq {
            self.room = room.clone();
            self.view_seq = event.seq;
        }
        let mut step = Step::Stay;
        for change in &event.changes {
            if let Some(chat) = &change.chat {
                self.names.learn_one(&chat.player_id, &chat.display_name);
            }
            if let Some(line) = render::change_line(
                change,
                &room,
                &self.names,
                &self.player_id,
                event.at_unix_ms,
            ) {
                self.screen.line(&line);
            }
            match Kind::try_from(change.kind) {
                Ok(Kind::Kicked | Kind::Left) if change.player_id == self.player_id => {
                    return Step::Leave;
                }
                Ok(Kind::GamesStarted) => {
                    let hints;
                    (step, hints) = games_started(
                        &room,
                        &change.game_ids,
                        &self.player_id,
                        &mut self.opened,
                        step,
                    );
                    for hint in hints {
                        self.screen.line(&hint);
                    }
                }
                _ => {}
            }
        }
        step
    }

    /// Plays the member's game, then comes back to the room.
    async fn play(&mut self, game_id: &str, lines: &mut mpsc::Receiver<String>) -> Step {
        let seat = self
            .room
            .tables
            .iter()
            .find(|t| t.game_id == game_id)
            .and_then(|t| t.player_ids.iter().position(|p| p == &self.player_id))
            .and_then(|seat| u32::try_from(seat).ok());
        let played = play::play_game(
            self.client.clone(),
            &self.player_id,
            game_id,
            seat,
            lines,
            self.screen.clone(),
        )
        .await;
        // A game that cannot be followed is no reason to leave the room.
        if let Err(error) = played {
            self.screen.line(&format!("{error:#}"));
        }
        self.back();
        Step::Stay
    }

    /// Follows a game of the room as a spectator until it ends or the member types `back`;
    /// room events and room commands go on meanwhile. What comes next: stay, or a game the
    /// member is seated in.
    async fn spectate(
        &mut self,
        game_id: &str,
        lines: &mut mpsc::Receiver<String>,
    ) -> anyhow::Result<Step> {
        let snapshot = match session::get_game(&mut self.client, game_id).await {
            Ok(snapshot) => snapshot,
            Err(error) => {
                self.screen.line(&format!("{error:#}"));
                return Ok(Step::Stay);
            }
        };
        let mut table = Table::from_snapshot(snapshot);
        table.me = None;
        self.screen
            .line(&trf("room.watchingGame", &[("game", &game_id)]));
        self.redraw(&table);
        let mut events = Events::new(self.client.clone(), game_id.to_owned(), table.seq);
        while !table.finished {
            let step = tokio::select! {
                next = events.next() => match next {
                    Ok(Next::Event(event)) => {
                        if table.apply(&event) {
                            self.redraw(&table);
                        }
                        Step::Stay
                    }
                    Ok(Next::Notice(notice)) => {
                        self.screen.line(&notice);
                        Step::Stay
                    }
                    Ok(Next::End) => break,
                    Err(error) => {
                        self.screen.line(&format!("{error:#}"));
                        break;
                    }
                },
                next = self.events.recv() => self.on_next(next)?,
                line = lines.recv(), if self.input_open => match line {
                    Some(line) if matches!(line.trim().to_lowercase().as_str(), "back" | "quit" | "q") => break,
                    line => self.on_input(line).await,
                },
            };
            match step {
                Step::Stay => {}
                // Another game to watch waits: this one is being watched.
                Step::Watch(_) => {}
                leave_or_play => return Ok(leave_or_play),
            }
        }
        self.back();
        Ok(Step::Stay)
    }

    fn redraw(&self, table: &Table) {
        self.screen.clear();
        self.screen.print(&table.screen(session::now_ms()));
    }

    fn back(&self) {
        self.screen.line(&trf(
            "room.backInRoom",
            &[("code", &display_code(&self.code))],
        ));
    }

    fn show(&self) {
        self.screen.print(&render::summary(
            &self.room,
            &self.player_id,
            session::now_ms(),
        ));
    }

    fn live_tables(&self) -> impl Iterator<Item = &pb::RoomTable> {
        self.room.tables.iter().filter(|t| !t.finished)
    }

    fn seated(&self) -> bool {
        self.room
            .members
            .iter()
            .any(|m| m.player_id == self.player_id && m.seated)
    }

    /// A newer snapshot (a command's answer) replaces the view; its changes come on the
    /// stream and are shown from there.
    fn take(&mut self, snapshot: pb::RoomSnapshot) {
        if snapshot.seq >= self.view_seq
            && let Some(room) = snapshot.room
        {
            self.names.learn(&room);
            self.room = room;
            self.view_seq = snapshot.seq;
        }
    }

    /// The member called `name` (or with that player id).
    fn member_id(&self, name: &str) -> Result<String, String> {
        let found: Vec<&pb::RoomMember> = self
            .room
            .members
            .iter()
            .filter(|m| m.player_id == name || m.display_name.eq_ignore_ascii_case(name))
            .collect();
        match found.as_slice() {
            [one] => Ok(one.player_id.clone()),
            [] => Err(trf("room.nobodyCalled", &[("name", &format!("{name:?}"))])),
            many => Err(trf(
                "room.manyCalled",
                &[
                    ("count", &many.len()),
                    ("name", &format!("{name:?}")),
                    (
                        "ids",
                        &many
                            .iter()
                            .map(|m| m.player_id.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                ],
            )),
        }
    }

    /// Runs one typed room command; a refusal is shown as the server's message (which names
    /// the rule).
    async fn on_line(&mut self, line: &str) -> Step {
        let code = self.code.clone();
        let answer: Result<Response<pb::RoomSnapshot>, Status> = match parse(line) {
            RoomInput::Show => {
                self.show();
                return Step::Stay;
            }
            RoomInput::Help => {
                self.screen.line(help());
                return Step::Stay;
            }
            RoomInput::Language(Some(lang)) => {
                crate::i18n::set_lang(lang);
                self.show();
                self.screen.line(tr("lang.switched"));
                return Step::Stay;
            }
            RoomInput::Language(None) => {
                self.screen.line(tr("lang.usage"));
                return Step::Stay;
            }
            RoomInput::Invalid(message) => {
                self.screen.line(&message);
                return Step::Stay;
            }
            RoomInput::Leave => {
                match self.client.leave_room(pb::RoomCodeRequest { code }).await {
                    Ok(_) => self
                        .screen
                        .line(&trf("room.youLeft", &[("code", &display_code(&self.code))])),
                    Err(status) => self.screen.line(&trf(
                        "room.leaveFailed",
                        &[("reason", &session::describe(&status))],
                    )),
                }
                return Step::Leave;
            }
            RoomInput::Watch(n) => {
                return match self.live_tables().nth(n.saturating_sub(1)) {
                    Some(table) => Step::Watch(table.game_id.clone()),
                    None => {
                        self.screen.line(tr("room.noGameNow"));
                        Step::Stay
                    }
                };
            }
            RoomInput::Seat(wish) => {
                let team = match wish {
                    SeatWish::Next => pb::RoomTeam::Unspecified,
                    SeatWish::Team(team) => team,
                    SeatWish::Number(n) => {
                        let next = self.room.members.iter().filter(|m| m.seated).count() + 1;
                        if usize::try_from(n).ok() != Some(next) {
                            self.screen
                                .line(&trf("room.seatsInOrder", &[("next", &next)]));
                            return Step::Stay;
                        }
                        pb::RoomTeam::Unspecified
                    }
                };
                self.client
                    .take_seat(pb::TakeSeatRequest {
                        code,
                        team: team as i32,
                    })
                    .await
            }
            RoomInput::Unseat => self.client.leave_seat(pb::RoomCodeRequest { code }).await,
            RoomInput::Ready(ready) => {
                self.client
                    .set_ready(pb::SetReadyRequest { code, ready })
                    .await
            }
            RoomInput::Say(text) => {
                self.client
                    .send_room_chat(pb::SendRoomChatRequest { code, text })
                    .await
            }
            RoomInput::Start => {
                self.client
                    .start_room_game(pb::RoomCodeRequest { code })
                    .await
            }
            RoomInput::Pause(paused) => {
                self.client
                    .pause_room_countdown(pb::PauseRoomCountdownRequest { code, paused })
                    .await
            }
            RoomInput::Set { option, value } => {
                let current = self.room.settings.clone().unwrap_or_default();
                match apply_setting(&current, &option, &value) {
                    Ok(settings) => {
                        self.client
                            .update_room_settings(pb::UpdateRoomSettingsRequest {
                                code,
                                settings: Some(settings),
                            })
                            .await
                    }
                    Err(message) => {
                        self.screen.line(&message);
                        return Step::Stay;
                    }
                }
            }
            RoomInput::Kick(name) => match self.member_id(&name) {
                Ok(player_id) => {
                    self.client
                        .kick_from_room(pb::RoomMemberRequest { code, player_id })
                        .await
                }
                Err(message) => {
                    self.screen.line(&message);
                    return Step::Stay;
                }
            },
            RoomInput::Host(name) => match self.member_id(&name) {
                Ok(player_id) => {
                    self.client
                        .hand_over_room(pb::RoomMemberRequest { code, player_id })
                        .await
                }
                Err(message) => {
                    self.screen.line(&message);
                    return Step::Stay;
                }
            },
            RoomInput::Computer(level) => {
                self.client
                    .add_computer_player(pb::AddComputerPlayerRequest { code, level })
                    .await
            }
        };
        match answer {
            Ok(snapshot) => self.take(snapshot.into_inner()),
            Err(status) => self.screen.line(&session::describe(&status)),
        }
        Step::Stay
    }
}

/// What `GAMES_STARTED` leads to for the member `me`, given the step already decided: their
/// own game is played; a spectator follows the first new game; any other new game gets a
/// line saying how to watch it. Games already opened are skipped, so a late or repeated
/// event never pulls anyone back into one.
fn games_started(
    room: &pb::RoomView,
    game_ids: &[String],
    me: &str,
    opened: &mut HashSet<String>,
    mut step: Step,
) -> (Step, Vec<String>) {
    let seated = room.members.iter().any(|m| m.player_id == me && m.seated);
    let mut hints = Vec::new();
    for game_id in game_ids {
        if !opened.insert(game_id.clone()) {
            continue;
        }
        let mine = room
            .tables
            .iter()
            .any(|t| &t.game_id == game_id && t.player_ids.iter().any(|p| p == me));
        if mine {
            step = Step::Play(game_id.clone());
        } else if step == Step::Stay && !seated {
            step = Step::Watch(game_id.clone());
        } else {
            hints.push(trf("room.watchHint", &[("game", game_id)]));
        }
    }
    (step, hints)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::GameChoice;

    #[derive(clap::Parser, Debug)]
    enum Cli {
        Room(RoomArgs),
    }

    fn room(argv: &[&str]) -> anyhow::Result<RoomArgs> {
        let mut full = vec!["ludus", "room"];
        full.extend_from_slice(argv);
        let Cli::Room(args) = Cli::try_parse_from(full)?;
        Ok(args)
    }

    fn create(argv: &[&str]) -> anyhow::Result<pb::RoomSettings> {
        let mut full = vec!["create"];
        full.extend_from_slice(argv);
        match room(&full)?.command {
            RoomCommand::Create(create) => create.room_settings(),
            other => anyhow::bail!("not create: {other:?}"),
        }
    }

    #[test]
    fn create_takes_the_play_flags_and_the_room_flags() {
        use pb::game_settings::Options;
        let Ok(quoridor) = create(&[
            "--game",
            "quoridor",
            "--players",
            "4",
            "--mode",
            "teams",
            "--size",
            "11",
            "--walls",
            "10",
            "--turn-seconds",
            "20",
            "--public",
        ]) else {
            panic!("a quoridor team room");
        };
        assert!(quoridor.public && !quoridor.rated);
        let Some(game) = quoridor.game else {
            panic!("game settings");
        };
        assert_eq!(game.turn_time_ms, 20_000);
        assert!(matches!(
            game.options,
            Some(Options::Quoridor(q)) if (q.players, q.mode, q.size, q.walls)
                == (4, pb::QuoridorMode::Teams as i32, 11, 10)
        ));
        // C12: a Caro room picks its clock, which a quick match may not.
        let Ok(caro) = create(&["--turn-seconds", "30", "--first-mover", "host", "--rated"]) else {
            panic!("a caro room");
        };
        assert_eq!(caro.game.map(|g| g.turn_time_ms), Some(30_000));
        assert_eq!(caro.first_mover, pb::CaroFirstMover::Host as i32);
        assert!(caro.rated);
        let Ok(default) = create(&[]) else {
            panic!("the default room");
        };
        assert_eq!(
            default.first_mover,
            pb::CaroFirstMover::RockPaperScissors as i32,
            "C10: rock-paper-scissors unless the host chooses"
        );
        let Ok(mancala) = create(&["--game", "mancala", "--rule-set", "congklak"]) else {
            panic!("a mancala room");
        };
        assert_eq!(mancala.first_mover, pb::CaroFirstMover::Unspecified as i32);
        let Ok(backgammon) = create(&["--game", "backgammon", "--match-length", "5"]) else {
            panic!("a backgammon match room");
        };
        assert!(matches!(
            backgammon.game.and_then(|g| g.options),
            Some(Options::Backgammon(b)) if b.match_game.as_ref().is_some_and(|m| m.length == 5)
        ));
        assert!(create(&["--game", "junqi"]).is_ok());
        // Flags of another game are refused.
        assert!(create(&["--players", "4"]).is_err());
        assert!(create(&["--game", "junqi", "--first-mover", "host"]).is_err());
        assert!(create(&["--game", "mancala", "--jacoby"]).is_err());
    }

    #[test]
    fn join_takes_the_code_quoted_or_not() {
        for argv in [
            &["join", "k7m", "4qp"][..],
            &["join", "k7m 4qp"],
            &["join", "K7M4QP", "--watch"],
        ] {
            let Ok(RoomArgs {
                command: RoomCommand::Join(join),
                ..
            }) = room(argv)
            else {
                panic!("{argv:?} did not parse");
            };
            assert_eq!(
                normalise_code(&join.code.join(" ")).as_deref(),
                Ok("K7M4QP")
            );
        }
        assert!(room(&["join"]).is_err(), "a code is needed");
        let Ok(args) = room(&["list", "--server", "http://127.0.0.1:1"]) else {
            panic!("list did not parse");
        };
        assert!(matches!(args.command, RoomCommand::List));
        assert_eq!(args.server.as_deref(), Some("http://127.0.0.1:1"));
        let Ok(args) = room(&["join", "--name", "Gus", "K7M4QP", "--team", "red"]) else {
            panic!("join with a team did not parse");
        };
        assert_eq!(args.name.as_deref(), Some("Gus"));
        assert!(matches!(
            args.command,
            RoomCommand::Join(JoinArgs {
                team: Some(TeamChoice::Red),
                ..
            })
        ));
        assert_eq!(GameFlags::default().game, GameChoice::Caro);
    }

    #[test]
    fn a_started_game_is_played_by_its_players_and_followed_by_spectators() {
        let member = |id: &str, seated: bool| pb::RoomMember {
            player_id: id.into(),
            display_name: id.into(),
            seated,
            ..Default::default()
        };
        let table = |game: &str, players: &[&str]| pb::RoomTable {
            game_id: game.into(),
            player_ids: players.iter().map(|p| (*p).to_owned()).collect(),
            ..Default::default()
        };
        // A Q24 round: two matches, carol has the bye, sam watches.
        let room = pb::RoomView {
            members: vec![
                member("ann", true),
                member("bob", true),
                member("cy", true),
                member("dee", true),
                member("carol", true),
                member("sam", false),
            ],
            tables: vec![table("g1", &["ann", "bob"]), table("g2", &["cy", "dee"])],
            ..Default::default()
        };
        let games = ["g1".to_owned(), "g2".to_owned()];
        let started = |me: &str, opened: &mut HashSet<String>| {
            games_started(&room, &games, me, opened, Step::Stay)
        };
        let (step, hints) = started("cy", &mut HashSet::new());
        assert_eq!(step, Step::Play("g2".into()));
        assert_eq!(hints.len(), 1, "the other match can be watched: {hints:?}");
        let (step, hints) = started("sam", &mut HashSet::new());
        assert_eq!(
            step,
            Step::Watch("g1".into()),
            "a spectator follows the first"
        );
        assert_eq!(hints, ["  type watch to follow it, or `ludus watch g2`"]);
        let (step, hints) = started("carol", &mut HashSet::new());
        assert_eq!(
            step,
            Step::Stay,
            "the bye plays nothing and is told how to watch"
        );
        assert_eq!(hints.len(), 2);
        // The same event again (a resume) changes nothing.
        let mut opened = HashSet::new();
        let _ = started("ann", &mut opened);
        assert_eq!(started("ann", &mut opened), (Step::Stay, Vec::new()));
    }
}
