//! `ludus play`: quick match, then the game loop (events and typed commands side by side).
//! The loop is the same for every game; what differs (how a line parses, the prompt, the
//! board) is looked up from the game being played.

use std::time::Duration;

use anyhow::Context as _;
use ludus_proto::pb;
use tokio::sync::mpsc;
use tonic::{Code, Status};

use super::flush;
use super::i18n::{set_lang, tr, trf};
use super::input::{self, Command};
use super::render;
use super::saved_session::{self, SessionFile};
use super::screen::Screen;
use super::session::{self, Client, Events, Next, Session};
use super::table::Table;
use super::{GameChoice, PlayArgs};

/// How long before the deadline the player is warned that the clock is running out.
const CLOCK_WARNING: Duration = Duration::from_secs(10);
/// How often the queue line updates.
const QUEUE_TICK: Duration = Duration::from_secs(1);

/// Signs in, finds a match, and plays it to the end.
pub async fn run(args: PlayArgs) -> anyhow::Result<()> {
    // Checked before signing in: a wrong flag should not cost a round trip.
    let settings = args.settings()?;
    let file = SessionFile::default_location()?;
    let Session {
        mut client,
        player_id,
        name,
        account,
    } = saved_session::sign_in(
        &file,
        args.server.address(),
        args.name.as_deref(),
        args.guest,
    )
    .await?;
    // Guests play casual queues, accounts rated ones (M12): say which this will be.
    let kind = if account {
        tr("play.account")
    } else {
        tr("play.guest")
    };
    println!(
        "{}",
        trf(
            "play.signedIn",
            &[("name", &name), ("kind", &kind), ("id", &player_id)]
        )
    );
    let mut lines = input::stdin_lines();
    let (game_id, seat) = match &args.computer {
        // a game against the computer starts at once, unrated.
        Some(level) => {
            let game = play_computer(&mut client, settings, level).await?;
            println!(
                "{}",
                trf(
                    "play.againstComputer",
                    &[("game", &game.0), ("level", level), ("seat", &game.1)]
                )
            );
            game
        }
        None => {
            let Some((game_id, seat)) = find_match(&mut client, settings, &mut lines).await? else {
                return Ok(());
            };
            println!(
                "\n{}",
                trf("play.matched", &[("game", &game_id), ("seat", &seat)])
            );
            (game_id, seat)
        }
    };

    // GetGame knows the seat from the token; the ticket said it too.
    play_game(
        client,
        &player_id,
        &game_id,
        Some(seat),
        &mut lines,
        Screen::stdout(),
    )
    .await
}

/// Plays `game_id` from the caller's seat until it ends or the player quits (which resigns);
/// the game's own settings say which game it is. A room enters its games through here.
pub(crate) async fn play_game(
    mut client: Client,
    player_id: &str,
    game_id: &str,
    seat: Option<u32>,
    lines: &mut mpsc::Receiver<String>,
    screen: Screen,
) -> anyhow::Result<()> {
    let snapshot = session::get_game(&mut client, game_id).await?;
    let kind = GameChoice::of(snapshot.settings.as_ref())
        .with_context(|| trf("play.notPlayable", &[("game", &game_id)]))?;
    let mut table = Table::from_snapshot(snapshot);
    table.me = table.me.or(seat);
    let events = Events::new(client.clone(), game_id.to_owned(), table.seq);
    let mut game = Game {
        client,
        kind,
        table,
        events,
        action_prefix: action_prefix(player_id),
        attempts: 0,
        warned_turn: None,
        input_open: true,
        screen,
    };
    game.redraw();
    if game.table.finished {
        return Ok(());
    }
    game.run(lines).await
}

/// Starts a game against the computer at `level`: (game id, the caller's seat).
async fn play_computer(
    client: &mut Client,
    settings: pb::GameSettings,
    level: &str,
) -> anyhow::Result<(String, u32)> {
    let game = client
        .play_computer(pb::PlayComputerRequest {
            settings: Some(settings),
            level: level.to_owned(),
            computer_first: false,
        })
        .await
        .map_err(|status| {
            anyhow::anyhow!(trf(
                "play.computerFailed",
                &[("reason", &session::describe(&status))]
            ))
        })?
        .into_inner()
        .game
        .ok_or_else(|| anyhow::anyhow!(tr("play.noGame")))?;
    Ok((game.game_id, game.your_seat.unwrap_or(0)))
}

/// Waits in the quick-match queue, showing how long, until matched. `None` when the player
/// typed `quit` before a match.
async fn find_match(
    client: &mut Client,
    settings: pb::GameSettings,
    lines: &mut mpsc::Receiver<String>,
) -> anyhow::Result<Option<(String, u32)>> {
    let mut updates = client
        .find_match(pb::FindMatchRequest {
            settings: Some(settings),
            ranking: pb::MatchRanking::Default as i32,
        })
        .await
        .map_err(|status| {
            anyhow::anyhow!(trf(
                "play.queueFailed",
                &[("reason", &session::describe(&status))]
            ))
        })?
        .into_inner();
    let started = tokio::time::Instant::now();
    let mut tick = tokio::time::interval(QUEUE_TICK);
    let mut ticket_id = String::new();
    let mut input_open = true;
    println!("{}", tr("play.quitHint"));
    loop {
        tokio::select! {
            update = updates.message() => {
                let update = match update {
                    Ok(Some(update)) => update,
                    Ok(None) => anyhow::bail!(tr("play.queueClosed")),
                    Err(status) => anyhow::bail!(trf("play.findFailed", &[("reason", &session::describe(&status))])),
                };
                if !update.ticket_id.is_empty() {
                    ticket_id = update.ticket_id.clone();
                }
                match pb::TicketState::try_from(update.state) {
                    Ok(pb::TicketState::Matched) if !update.game_id.is_empty() => {
                        return Ok(Some((update.game_id, update.seat)));
                    }
                    Ok(pb::TicketState::Matched) => anyhow::bail!(tr("play.noGameId")),
                    Ok(pb::TicketState::Cancelled) => anyhow::bail!(tr("play.ticketCancelled")),
                    Ok(pb::TicketState::Queued | pb::TicketState::Unspecified) | Err(_) => {}
                }
            }
            _ = tick.tick() => {
                print!("\r{}", trf("play.waiting", &[("seconds", &started.elapsed().as_secs())]));
                flush();
            }
            // Only `quit` matters here, and it reads the same in every game.
            line = lines.recv(), if input_open => match line.as_deref().map(|l| input::parse(l, GameChoice::Caro)) {
                None => input_open = false,
                Some(Command::Quit) => {
                    leave_queue(client, &ticket_id).await;
                    return Ok(None);
                }
                Some(_) => println!("\n{}", tr("play.stillWaiting")),
            },
        }
    }
}

/// Cancels the ticket; if a match beat the cancel, resigns that game so the opponent is not
/// left waiting for a player who has gone.
async fn leave_queue(client: &mut Client, ticket_id: &str) {
    if ticket_id.is_empty() {
        // Dropping the FindMatch stream cancels a ticket the server has not named yet.
        println!("\n{}", tr("play.leftQueue"));
        return;
    }
    let cancel = client
        .cancel_match(pb::CancelMatchRequest {
            ticket_id: ticket_id.to_owned(),
        })
        .await;
    match cancel {
        Ok(response) => {
            let response = response.into_inner();
            if !response.cancelled && !response.game_id.is_empty() {
                let resigned = client
                    .resign(pb::ResignRequest {
                        game_id: response.game_id.clone(),
                    })
                    .await;
                match resigned {
                    Ok(_) => println!(
                        "\n{}",
                        trf("play.matchedFirstResigned", &[("game", &response.game_id)])
                    ),
                    Err(status) => println!(
                        "\n{}",
                        trf(
                            "play.matchedFirstFailed",
                            &[
                                ("game", &response.game_id),
                                ("reason", &session::describe(&status))
                            ]
                        )
                    ),
                }
            } else {
                println!("\n{}", tr("play.leftQueue"));
            }
        }
        Err(status) => println!(
            "\n{}",
            trf(
                "play.leaveFailed",
                &[("reason", &session::describe(&status))]
            )
        ),
    }
}

/// The start of this player's action ids: the end of the player id, so two players' ids
/// never collide and the server's id rules (letters, digits, '-', '_') hold.
fn action_prefix(player_id: &str) -> String {
    let tail: Vec<char> = player_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let start = tail.len().saturating_sub(8);
    let prefix: String = tail.get(start..).unwrap_or_default().iter().collect();
    if prefix.is_empty() {
        "p".to_owned()
    } else {
        prefix
    }
}

/// A game in progress, from one seat.
struct Game {
    client: Client,
    /// The game queued for; the view, once it comes, says the same.
    kind: GameChoice,
    table: Table,
    events: Events,
    action_prefix: String,
    /// Counts submissions, so a second try at the same seq (after a rejected cell) gets a
    /// fresh action id rather than the first attempt's result.
    attempts: u32,
    /// The turn already warned about the clock.
    warned_turn: Option<u64>,
    input_open: bool,
    screen: Screen,
}

/// What to do after a step of the loop.
enum Flow {
    Continue,
    Done,
}

impl Game {
    async fn run(&mut self, lines: &mut mpsc::Receiver<String>) -> anyhow::Result<()> {
        loop {
            let warning = self.clock_warning_in();
            let flow = tokio::select! {
                next = self.events.next() => self.on_next(next?),
                line = lines.recv(), if self.input_open => match line {
                    Some(line) => self.on_command(input::parse(&line, self.kind)).await?,
                    None => {
                        self.input_open = false;
                        self.screen.line(tr("play.inputClosed"));
                        Flow::Continue
                    }
                },
                () = sleep_opt(warning) => {
                    self.warned_turn = self.table.turn.as_ref().map(|t| t.turn_seq);
                    self.screen.line(&format!("\n{}", trf("play.clockWarning", &[("seconds", &CLOCK_WARNING.as_secs())])));
                    self.prompt();
                    Flow::Continue
                }
            };
            if let Flow::Done = flow {
                return Ok(());
            }
        }
    }

    /// Time until the clock warning for this turn, if one is due.
    fn clock_warning_in(&self) -> Option<Duration> {
        if !self.table.my_turn() {
            return None;
        }
        let turn = self.table.turn.as_ref()?;
        if turn.deadline_unix_ms <= 0 || self.warned_turn == Some(turn.turn_seq) {
            return None;
        }
        let warn_at = turn
            .deadline_unix_ms
            .saturating_sub(i64::try_from(CLOCK_WARNING.as_millis()).unwrap_or(i64::MAX));
        let wait = warn_at.checked_sub(session::now_ms())?;
        u64::try_from(wait).ok().map(Duration::from_millis)
    }

    fn on_next(&mut self, next: Next) -> Flow {
        match next {
            Next::Event(event) => self.on_event(&event),
            Next::Notice(notice) => {
                // The prompt may be waiting on this line: start a fresh one.
                if self.table.my_turn() {
                    self.screen.line("");
                }
                self.say(&notice);
                Flow::Continue
            }
            Next::End => {
                // The stream ends only after the final event, which was already shown.
                Flow::Done
            }
        }
    }

    /// Shows an event (from the stream or from a call's response); `Done` once the game is
    /// over.
    fn on_event(&mut self, event: &pb::GameEvent) -> Flow {
        self.events.seen(event.seq);
        if self.table.apply(event) {
            self.redraw();
        }
        if self.table.finished {
            self.events.finish();
            Flow::Done
        } else {
            Flow::Continue
        }
    }

    fn redraw(&self) {
        self.screen.clear();
        self.screen.print(&self.table.screen(session::now_ms()));
        self.prompt();
    }

    fn prompt(&self) {
        if self.table.my_turn() && self.input_open {
            self.screen
                .print(&prompt_text(self.kind, self.table.view.as_ref()));
        }
    }

    /// Lists the legal actions the server offers now. They come only with a snapshot (the
    /// public events do not carry them), so this reads the game afresh.
    async fn show_legal(&mut self) {
        match session::get_game(&mut self.client, &self.table.game_id.clone()).await {
            Ok(snapshot) => self.say(render::render_legal(&snapshot.legal_actions).trim_end()),
            Err(error) => self.say(&format!("{error:#}")),
        }
    }

    /// Whether a C13 friend-room choice is pending and this player is the one who stayed.
    fn absence_choice_is_mine(&self) -> bool {
        self.table
            .absence_choice
            .is_some_and(|(absent, _)| self.table.me.is_some_and(|me| me != absent))
    }

    async fn answer_absence(
        &mut self,
        game_id: String,
        choice: pb::AbsenceChoice,
    ) -> Result<Option<pb::GameEvent>, tonic::Status> {
        self.client
            .answer_absence(pb::AnswerAbsenceRequest {
                game_id,
                choice: choice as i32,
            })
            .await
            .map(|r| r.into_inner().event)
    }

    /// Says something to the player and asks again.
    fn say(&self, message: &str) {
        self.screen.line(message);
        self.prompt();
    }

    async fn on_command(&mut self, command: Command) -> anyhow::Result<Flow> {
        if self.table.finished {
            return Ok(Flow::Done);
        }
        let game_id = self.table.game_id.clone();
        let is_action = matches!(command, Command::Play(_));
        let result = match command {
            Command::Help => {
                self.say(input::help(self.kind));
                return Ok(Flow::Continue);
            }
            Command::Legal => {
                if !self.table.my_turn() {
                    self.say(tr("play.notYourTurn"));
                } else {
                    self.show_legal().await;
                }
                return Ok(Flow::Continue);
            }
            Command::Redraw => {
                self.redraw();
                return Ok(Flow::Continue);
            }
            Command::Language(Some(lang)) => {
                set_lang(lang);
                self.screen.clear();
                self.screen.print(&self.table.screen(session::now_ms()));
                self.say(tr("lang.switched"));
                return Ok(Flow::Continue);
            }
            Command::Language(None) => {
                self.say(tr("lang.usage"));
                return Ok(Flow::Continue);
            }
            Command::Unknown(text) => {
                self.say(&trf(
                    "play.unknownCommand",
                    &[("text", &format!("{text:?}"))],
                ));
                return Ok(Flow::Continue);
            }
            Command::Play(cell) => {
                if !self.table.my_turn() {
                    self.say(tr("play.notYourTurn"));
                    return Ok(Flow::Continue);
                }
                self.attempts += 1;
                let request = pb::SubmitActionRequest {
                    game_id,
                    expected_seq: self.table.seq,
                    action_id: format!(
                        "{}-{}-{}",
                        self.action_prefix, self.table.seq, self.attempts
                    ),
                    action: Some(pb::Action::notation(cell)),
                };
                self.client
                    .submit_action(request)
                    .await
                    .map(|r| r.into_inner().event)
            }
            Command::Resign => self
                .client
                .resign(pb::ResignRequest { game_id })
                .await
                .map(|r| r.into_inner().event),
            Command::TakeBack => self
                .client
                .take_back(pb::TakeBackRequest { game_id })
                .await
                .map(|r| r.into_inner().event),
            Command::Quit => {
                let resigned = self
                    .client
                    .resign(pb::ResignRequest { game_id })
                    .await
                    .map(|r| r.into_inner().event);
                match resigned {
                    Ok(Some(event)) => {
                        self.on_event(&event);
                    }
                    Ok(None) => self.screen.line(tr("play.resigned")),
                    Err(status) => self.screen.line(&trf(
                        "play.resignFailed",
                        &[("reason", &session::describe(&status))],
                    )),
                }
                self.screen.line(tr("play.bye"));
                return Ok(Flow::Done);
            }
            // While a C13 choice is ours to make, `draw` calls the game a draw.
            Command::OfferDraw if self.absence_choice_is_mine() => {
                self.answer_absence(game_id, pb::AbsenceChoice::Draw).await
            }
            Command::OfferDraw => self
                .client
                .offer_draw(pb::OfferDrawRequest { game_id })
                .await
                .map(|r| r.into_inner().event),
            Command::Absence(_) if !self.absence_choice_is_mine() => {
                self.say(tr("play.noAbsenceChoice"));
                return Ok(Flow::Continue);
            }
            Command::Absence(choice) => self.answer_absence(game_id, choice).await,
            Command::Accept | Command::Decline => {
                if self
                    .table
                    .draw_offered_by
                    .is_none_or(|by| Some(by) == self.table.me)
                {
                    self.say(tr("play.noDrawOffer"));
                    return Ok(Flow::Continue);
                }
                self.client
                    .respond_draw(pb::RespondDrawRequest {
                        game_id,
                        accept: command == Command::Accept,
                    })
                    .await
                    .map(|r| r.into_inner().event)
            }
        };
        match result {
            Ok(Some(event)) => Ok(self.on_event(&event)),
            // Accepted without an event to show: the stream will bring it.
            Ok(None) => Ok(Flow::Continue),
            // A refused move outside Caro: the server's reason, then what is legal (a Caro
            // board shows the free cells itself, and listing 200 of them helps nobody).
            Err(status)
                if is_action
                    && self.kind != GameChoice::Caro
                    && matches!(
                        status.code(),
                        Code::FailedPrecondition | Code::InvalidArgument
                    ) =>
            {
                self.screen.line(&session::describe(&status));
                self.show_legal().await;
                Ok(Flow::Continue)
            }
            Err(status) => self.on_error(&status).await,
        }
    }

    /// A refused call: say why and ask again; a stale seq re-reads the game first.
    async fn on_error(&mut self, status: &Status) -> anyhow::Result<Flow> {
        let message = session::describe(status);
        if status.code() == Code::Aborted {
            self.screen
                .line(&trf("play.movedOn", &[("message", &message)]));
            match session::get_game(&mut self.client, &self.table.game_id.clone()).await {
                Ok(snapshot) => {
                    self.events.seen(snapshot.seq);
                    self.table.refresh(snapshot);
                    self.table
                        .note(trf("play.refreshedAfter", &[("message", &message)]));
                    self.redraw();
                    if self.table.finished {
                        self.events.finish();
                        return Ok(Flow::Done);
                    }
                }
                Err(error) => self.say(&format!("{error:#}")),
            }
        } else {
            self.say(&message);
        }
        Ok(Flow::Continue)
    }
}

/// What the prompt asks for, in the game's notation; in Backgammon it follows the stage of
/// the turn.
fn prompt_text(game: GameChoice, view: Option<&pb::GameView>) -> String {
    match game {
        GameChoice::Caro => tr("prompt.caro").to_owned(),
        GameChoice::Mancala => tr("prompt.mancala").to_owned(),
        GameChoice::Quoridor => tr("prompt.quoridor").to_owned(),
        GameChoice::Junqi => tr("prompt.junqi").to_owned(),
        GameChoice::Backgammon => {
            let backgammon = match view.and_then(|v| v.view.as_ref()) {
                Some(pb::game_view::View::Backgammon(b)) => Some(b),
                _ => None,
            };
            let phase = backgammon.map_or(pb::BackgammonPhase::Unspecified as i32, |b| b.phase);
            match pb::BackgammonPhase::try_from(phase) {
                Ok(pb::BackgammonPhase::Roll) if backgammon.is_some_and(|b| b.can_double) => {
                    tr("prompt.rollOrDouble").to_owned()
                }
                Ok(pb::BackgammonPhase::Roll) => tr("prompt.roll").to_owned(),
                Ok(pb::BackgammonPhase::DoubleOffered) => {
                    if backgammon.is_some_and(|b| b.beavers) {
                        tr("prompt.takeDropBeaver").to_owned()
                    } else {
                        tr("prompt.takeDrop").to_owned()
                    }
                }
                Ok(pb::BackgammonPhase::ResignationOffered) => tr("prompt.acceptReject").to_owned(),
                _ => tr("prompt.backgammonPlay").to_owned(),
            }
        }
    }
}

/// Sleeps for `duration`, or forever when there is nothing to wait for.
async fn sleep_opt(duration: Option<Duration>) {
    match duration {
        Some(duration) => tokio::time::sleep(duration).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_ids_use_allowed_characters() {
        assert_eq!(action_prefix("01HZX-abc:def_123456789"), "23456789");
        assert_eq!(action_prefix("ab"), "ab");
        assert_eq!(action_prefix("::"), "p");
    }

    #[test]
    fn prompts_follow_the_game_and_the_backgammon_phase() {
        assert_eq!(
            prompt_text(GameChoice::Caro, None),
            "your move (a cell like H8, or help)> "
        );
        assert!(prompt_text(GameChoice::Mancala, None).starts_with("your sow"));
        let view = |phase: pb::BackgammonPhase, can_double: bool| pb::GameView {
            view: Some(pb::game_view::View::Backgammon(pb::BackgammonView {
                phase: phase as i32,
                can_double,
                ..Default::default()
            })),
        };
        let prompt =
            |phase, can_double| prompt_text(GameChoice::Backgammon, Some(&view(phase, can_double)));
        assert_eq!(prompt(pb::BackgammonPhase::Roll, true), "roll or double> ");
        assert_eq!(prompt(pb::BackgammonPhase::Roll, false), "roll> ");
        assert_eq!(
            prompt(pb::BackgammonPhase::DoubleOffered, false),
            "take or drop> "
        );
        assert!(prompt(pb::BackgammonPhase::Play, false).starts_with("your play"));
    }
}
