//! Members and seats: joining as a player or a spectator (C16), seats and teams (Q23),
//! readiness, leaving (the host role moves on), and the host's powers: computer players,
//! kicking, handing over, changing the settings between games.

use ludus_rules::RandomSource;

use super::{Caller, Change, Changes, MAX_SPECTATORS, Member, Phase, Room, Seat, Team};
use crate::error::{RoomError, reason};
use crate::settings::{RoomMode, RoomSettings};

impl Room {
    /// The host seats a computer player at `level` (ARCHITECTURE.md, "Computer players"), ready at once, on the team
    /// with fewer players in team mode. It leaves when the host removes it (`kick`).
    pub fn add_computer(
        &mut self,
        host: &str,
        level: ludus_rules::Level,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        self.require_host(host, "add a computer player")?;
        let team = (self.settings.mode() == RoomMode::Teams).then(|| {
            let on = |team| {
                self.seated()
                    .iter()
                    .filter(|m| m.seat.as_ref().and_then(|s| s.team) == Some(team))
                    .count()
            };
            if on(Team::Yellow) < on(Team::Red) {
                Team::Yellow
            } else {
                Team::Red
            }
        });
        self.check_free_seat(team)?;
        let number = (1..)
            .find(|n| {
                let id = format!(
                    "{}{}-{n}",
                    ludus_catalog::bots::BOT_ID_PREFIX,
                    self.code.as_str()
                );
                self.member(&id).is_none()
            })
            .unwrap_or(1);
        let player_id = format!(
            "{}{}-{number}",
            ludus_catalog::bots::BOT_ID_PREFIX,
            self.code.as_str()
        );
        let title = ludus_catalog::bots::level_title(self.settings.kind(), level);
        self.members.push(Member {
            player_id: player_id.clone(),
            name: format!("Computer {number} ({title})"),
            account: false,
            seat: None,
            chat_times: Vec::new(),
            computer: Some(level.name().to_owned()),
        });
        let mut changes = vec![Change::Joined {
            player_id: player_id.clone(),
            seated: true,
        }];
        changes.extend(self.take_seat(&player_id, team, rng)?);
        changes.extend(self.set_ready(&player_id, true)?);
        Ok(changes)
    }

    /// Joins as a player (taking a seat, with `team` in team mode) or as a spectator. Joining
    /// again changes nothing, except that a spectator asking to play takes a seat.
    pub fn join(
        &mut self,
        caller: &Caller,
        as_player: bool,
        team: Option<Team>,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        if self.kicked.contains(&caller.player_id) {
            return Err(RoomError::denied(
                reason::KICKED,
                "the host removed you from this room",
            ));
        }
        if let Some(member) = self.member(&caller.player_id) {
            if as_player && member.seat.is_none() {
                return self.take_seat(&caller.player_id, team, rng);
            }
            return Ok(Vec::new());
        }
        if as_player {
            self.check_free_seat(team)?;
        } else if self.spectators().count() >= MAX_SPECTATORS {
            return Err(RoomError::exhausted(
                reason::SPECTATORS_FULL,
                format!("C16: a room has up to {MAX_SPECTATORS} spectators, and this one is full"),
            ));
        }
        self.members.push(Member {
            player_id: caller.player_id.clone(),
            name: caller.name.clone(),
            account: caller.account,
            seat: None,
            chat_times: Vec::new(),
            computer: None,
        });
        let mut changes = vec![Change::Joined {
            player_id: caller.player_id.clone(),
            seated: as_player,
        }];
        if as_player {
            changes.extend(self.take_seat(&caller.player_id, team, rng)?);
        }
        Ok(changes)
    }

    pub(super) fn check_free_seat(&self, team: Option<Team>) -> Result<(), RoomError> {
        let players = self.settings.players();
        let seated = self.seated();
        if seated.len() >= players {
            return Err(RoomError::exhausted(
                reason::ROOM_FULL,
                format!("the room is full ({players} players): join as a spectator to watch"),
            ));
        }
        if self.settings.mode() == RoomMode::Teams {
            let Some(team) = team else {
                return Err(RoomError::invalid(
                    "team",
                    "Q23",
                    "team: Q23: choose red or yellow",
                ));
            };
            let on_team = seated
                .iter()
                .filter(|m| m.seat.as_ref().and_then(|s| s.team) == Some(team))
                .count();
            if on_team >= players / 2 {
                return Err(RoomError::exhausted(
                    reason::ROOM_FULL,
                    format!("Q23: team {team:?} is full ({} players)", players / 2),
                ));
            }
        }
        Ok(())
    }

    /// Sits the member down. One seat per player: a second one is ALREADY_EXISTS.
    pub fn take_seat(
        &mut self,
        player: &str,
        team: Option<Team>,
        rng: &mut dyn RandomSource,
    ) -> Changes {
        let member = self.require_member(player)?;
        if member.seat.is_some() {
            return Err(RoomError::Exists {
                reason: reason::ALREADY_SEATED,
                message: "you already hold a seat in this room: one seat per player".into(),
            });
        }
        self.check_free_seat(team)?;
        let team = if self.settings.mode() == RoomMode::Teams {
            team
        } else {
            None
        };
        self.counter += 1;
        let order = self.counter;
        if let Some(m) = self.member_mut(player) {
            m.seat = Some(Seat {
                team,
                ready: false,
                order,
            });
        }
        let mut changes = vec![Change::Seated {
            player_id: player.to_owned(),
            team,
        }];
        changes.extend(self.draw_rock_paper_scissors(rng));
        Ok(changes)
    }

    /// Gives the seat up (the member stays as a spectator). Refused while the member plays.
    pub fn leave_seat(&mut self, player: &str) -> Changes {
        let member = self.require_member(player)?;
        if member.seat.is_none() {
            return Err(RoomError::precondition(
                reason::NOT_SEATED,
                "you hold no seat in this room",
            ));
        }
        if self.is_playing(player) {
            return Err(RoomError::precondition(
                reason::WRONG_STATE,
                "you are playing a game of this room: finish or resign it first",
            ));
        }
        if let Some(m) = self.member_mut(player) {
            m.seat = None;
        }
        self.rock_paper_scissors = None;
        let mut changes = vec![Change::Unseated {
            player_id: player.to_owned(),
        }];
        changes.extend(self.cancel_countdown_if_incomplete());
        Ok(changes)
    }

    /// Ready or not for the next game.
    pub fn set_ready(&mut self, player: &str, ready: bool) -> Changes {
        self.require_member(player)?;
        let Some(seat) = self.member_mut(player).and_then(|m| m.seat.as_mut()) else {
            return Err(RoomError::precondition(
                reason::NOT_SEATED,
                "only seated players get ready: take a seat first",
            ));
        };
        if seat.ready == ready {
            return Ok(Vec::new());
        }
        seat.ready = ready;
        Ok(vec![Change::Ready {
            player_id: player.to_owned(),
            ready,
        }])
    }

    /// Leaves the room. The host role moves on (to the earliest-joined member with an
    /// account, else the earliest-joined member). The service resigns the player's games in
    /// play (C14: leaving the table loses).
    pub fn leave(&mut self, player: &str) -> Changes {
        self.require_member(player)?;
        self.members.retain(|m| m.player_id != player);
        let mut changes = vec![Change::Left {
            player_id: player.to_owned(),
        }];
        changes.extend(self.after_departure(player));
        Ok(changes)
    }

    /// `player`'s presence lapsed: no room stream and no request for the service's grace.
    /// They leave as if they had left (the host role moves on, an empty room expires),
    /// unless they play at a live table: their game's own presence rules apply there (C13),
    /// and the room asks again later. Not a member: nothing.
    pub fn presence_lapsed(&mut self, player: &str) -> Changes {
        if self.member(player).is_none() || self.is_playing(player) {
            return Ok(Vec::new());
        }
        self.leave(player)
    }

    /// The host removes a member, who may not come back.
    pub fn kick(&mut self, host: &str, player: &str) -> Changes {
        self.require_host(host, "remove players")?;
        if host == player {
            return Err(RoomError::precondition(
                reason::WRONG_STATE,
                "the host cannot remove themselves: leave the room instead",
            ));
        }
        self.require_member(player)
            .map_err(|_| RoomError::NotFound(format!("{player} is not in this room")))?;
        self.members.retain(|m| m.player_id != player);
        self.kicked.insert(player.to_owned());
        let mut changes = vec![Change::Kicked {
            player_id: player.to_owned(),
        }];
        changes.extend(self.after_departure(player));
        Ok(changes)
    }

    pub(super) fn after_departure(&mut self, player: &str) -> Vec<Change> {
        let mut changes = Vec::new();
        if self
            .rock_paper_scissors
            .as_ref()
            .is_some_and(|d| d.players.iter().any(|p| p == player))
        {
            self.rock_paper_scissors = None;
        }
        if self.host == player
            && let Some(next) = self
                .members
                .iter()
                .find(|m| m.account)
                .or_else(|| self.members.iter().find(|m| m.computer.is_none()))
        {
            self.host = next.player_id.clone();
            changes.push(Change::HostChanged {
                player_id: self.host.clone(),
            });
        }
        changes.extend(self.cancel_countdown_if_incomplete());
        changes
    }

    /// The host hands the role to another member.
    pub fn hand_over(&mut self, host: &str, to: &str) -> Changes {
        self.require_host(host, "hand the room over")?;
        if host == to {
            return Ok(Vec::new());
        }
        self.member(to)
            .ok_or_else(|| RoomError::NotFound(format!("{to} is not in this room")))?;
        self.host = to.to_owned();
        Ok(vec![Change::HostChanged {
            player_id: to.to_owned(),
        }])
    }

    /// The host changes the settings between games. Ready flags reset (players agreed to the
    /// old settings); a running countdown stops.
    pub fn update_settings(&mut self, host: &str, settings: RoomSettings) -> Changes {
        self.require_host(host, "change the settings")?;
        if self.phase == Phase::Playing {
            return Err(RoomError::precondition(
                reason::WRONG_STATE,
                "settings change between games: wait for the game to end",
            ));
        }
        if self.tournament.is_some() {
            return Err(RoomError::precondition(
                "Q24",
                "Q24: a tournament is under way: its settings hold until the champion is known",
            ));
        }
        let seated = self.seated().len();
        if seated > settings.players() {
            return Err(RoomError::precondition(
                reason::ROOM_FULL,
                format!(
                    "{seated} players are seated and the new table has {} seats: players must leave their seats first",
                    settings.players()
                ),
            ));
        }
        let team_mode = settings.mode() == RoomMode::Teams;
        let game_changed = settings.kind() != self.settings.kind();
        self.settings = settings;
        for seat in self.members.iter_mut().filter_map(|m| m.seat.as_mut()) {
            seat.ready = false;
            if !team_mode {
                seat.team = None;
            }
        }
        if game_changed {
            // C11 counts games of one pairing in one game.
            self.last_game = None;
            self.rock_paper_scissors = None;
        }
        let mut changes = vec![Change::SettingsChanged];
        if matches!(self.phase, Phase::Countdown { .. } | Phase::Paused { .. }) {
            self.phase = Phase::Lobby;
            changes.push(Change::CountdownCancelled {
                why: "the host changed the settings".into(),
            });
        }
        Ok(changes)
    }
}
