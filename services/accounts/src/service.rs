//! The `Accounts` gRPC service: registration, sign-in, refresh-token rotation, sign-out and
//! account reads, and the archive of finished games (record, list, read, count), over
//! [`AccountStore`].

use std::time::Duration;

use ludus_clock::Clock;
use ludus_proto::archive_record::{ArchivedGameHead, RecordGamesRequest};
use ludus_proto::pb::{self, accounts_server::Accounts};
use prost::Message as _;
use tonic::{Request, Response, Status};

use crate::archive::{self, PageCursor, SeatResult};
use crate::error::{RefreshError, ServiceError};
use crate::limits::SignInLimits;
use crate::model::{
    self, Account, GUEST_PREFIX, Password, RefreshToken, Username, check_display_name,
    check_player_id,
};
use crate::passwords::Passwords;
use crate::store::{AccountStore, GameToArchive, NewSession, Rotation, SeatRow};

/// How long a refresh token is accepted (each refresh issues a new one with a fresh term).
pub const DEFAULT_REFRESH_TTL: Duration = Duration::from_secs(30 * 24 * 3600);
/// Longest client address the gateway may pass (an IPv6 literal fits with room to spare).
pub const MAX_CLIENT_ADDRESS_LEN: usize = 64;

/// The accounts service.
#[derive(Clone, Debug)]
pub struct AccountsService {
    store: AccountStore,
    passwords: Passwords,
    limits: SignInLimits,
    refresh_ttl: Duration,
    /// Session terms start and end on it.
    clock: Clock,
}

fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl AccountsService {
    pub fn new(
        store: AccountStore,
        limits: SignInLimits,
        refresh_ttl: Duration,
        clock: Clock,
    ) -> Self {
        AccountsService {
            store,
            passwords: Passwords::default(),
            limits,
            refresh_ttl,
            clock,
        }
    }

    /// Unix ms on the service's clock, as the SQL rows keep it.
    fn now_ms(&self) -> i64 {
        i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX)
    }

    /// Work done once before serving (the dummy password hash).
    pub async fn prepare(&self) -> Result<(), ServiceError> {
        self.passwords.prepare().await
    }

    /// The failed sign-in limits (for the background task that trims them).
    pub fn limits(&self) -> &SignInLimits {
        &self.limits
    }

    /// A new session for `player_id`: its family row and first token.
    fn new_session(&self, now_ms: i64) -> (RefreshToken, NewSession) {
        let token = RefreshToken::generate();
        let session = NewSession {
            family_id: ulid::Ulid::generate().to_string(),
            token: token.digest(),
            now_ms,
            expires_at_ms: now_ms.saturating_add(duration_ms(self.refresh_ttl)),
        };
        (token, session)
    }

    fn grant(account: Account, token: RefreshToken, expires_at_ms: i64) -> pb::AccountSessionGrant {
        pb::AccountSessionGrant {
            account: Some(account.into()),
            refresh_token: token.into_string(),
            refresh_expires_at_unix_ms: expires_at_ms,
        }
    }

    async fn create_account(
        &self,
        request: pb::CreateAccountRequest,
    ) -> Result<pb::AccountSessionGrant, ServiceError> {
        if request.client_address.len() > MAX_CLIENT_ADDRESS_LEN {
            return Err(ServiceError::BadClientAddress);
        }
        let username = Username::parse(&request.username)?;
        let password = Password::parse(request.password)?;
        let display_name = check_display_name(&request.display_name)?;
        let player_id = if request.guest_player_id.is_empty() {
            model::new_account_player_id()
        } else {
            check_player_id(&request.guest_player_id)?;
            if !request.guest_player_id.starts_with(GUEST_PREFIX) {
                return Err(ServiceError::AlreadyRegistered(request.guest_player_id));
            }
            request.guest_player_id
        };
        // Cheap refusals before the expensive hash (a taken name is re-checked by the
        // unique key when inserting, which settles races).
        if self.store.credentials(&username).await?.is_some() {
            return Err(ServiceError::UsernameTaken);
        }
        if self.store.account(&player_id).await?.is_some() {
            return Err(ServiceError::AlreadyRegistered(player_id));
        }
        let password_hash = self
            .passwords
            .hash(&request.client_address, password)
            .await?;
        let now = self.now_ms();
        let account = Account {
            player_id,
            username,
            display_name,
            created_at_ms: now,
        };
        let (token, session) = self.new_session(now);
        self.store
            .create_account(&account, &password_hash, &session)
            .await?;
        self.limits
            .succeed(account.username.as_str(), &request.client_address);
        tracing::info!(player_id = %account.player_id, username = %account.username, "account registered");
        Ok(Self::grant(account, token, session.expires_at_ms))
    }

    async fn sign_in(
        &self,
        request: pb::AccountsSignInRequest,
    ) -> Result<pb::AccountSessionGrant, ServiceError> {
        if request.client_address.len() > MAX_CLIENT_ADDRESS_LEN {
            return Err(ServiceError::BadClientAddress);
        }
        let address = request.client_address;
        // A name that cannot exist and an oversized password fail like a wrong password for
        // the limits (they are guesses too), but get their precise status.
        let username = match Username::parse(&request.username) {
            Ok(username) => username,
            Err(error) => {
                self.limits.check("", &address)?;
                self.limits.fail("", &address);
                return Err(error);
            }
        };
        self.limits.check(username.as_str(), &address)?;
        let password = match Password::parse(request.password) {
            Ok(password) => password,
            // Outside the policy it cannot be anybody's password (and an oversized one is
            // never hashed): its precise status tells nothing about the account.
            Err(error) => {
                self.limits.fail(username.as_str(), &address);
                return Err(error);
            }
        };
        let credentials = self.store.credentials(&username).await?;
        let stored_hash = credentials.as_ref().map(|c| c.password_hash.clone());
        let matches = self
            .passwords
            .verify(&address, password, stored_hash)
            .await?;
        let Some(credentials) = credentials.filter(|_| matches) else {
            self.limits.fail(username.as_str(), &address);
            // No username in the log: people type passwords into the username field.
            tracing::info!("sign-in refused");
            return Err(ServiceError::WrongCredentials);
        };
        let (token, session) = self.new_session(self.now_ms());
        self.store
            .open_session(&credentials.account.player_id, &session)
            .await?;
        self.limits.succeed(username.as_str(), &address);
        tracing::info!(player_id = %credentials.account.player_id, "account signed in");
        Ok(Self::grant(
            credentials.account,
            token,
            session.expires_at_ms,
        ))
    }

    async fn refresh(
        &self,
        request: pb::AccountsRefreshRequest,
    ) -> Result<pb::AccountSessionGrant, ServiceError> {
        let presented = RefreshToken::parse(request.refresh_token)
            .ok_or(ServiceError::Refresh(RefreshError::Unknown))?;
        let next = RefreshToken::generate();
        let now = self.now_ms();
        let expires_at_ms = now.saturating_add(duration_ms(self.refresh_ttl));
        let rotation = self
            .store
            .rotate(&presented.digest(), &next.digest(), now, expires_at_ms)
            .await?;
        let player_id = match rotation {
            Rotation::Rotated { player_id } => player_id,
            Rotation::Unknown => return Err(ServiceError::Refresh(RefreshError::Unknown)),
            Rotation::Expired => return Err(ServiceError::Refresh(RefreshError::Expired)),
            Rotation::Revoked => return Err(ServiceError::Refresh(RefreshError::Revoked)),
            Rotation::Reused => {
                tracing::warn!("a spent refresh token was presented again: its session is revoked");
                return Err(ServiceError::Refresh(RefreshError::Reused));
            }
        };
        let account = self
            .store
            .account(&player_id)
            .await?
            .ok_or(ServiceError::NoAccount(player_id))?;
        Ok(Self::grant(account, next, expires_at_ms))
    }

    async fn sign_out(
        &self,
        request: pb::AccountsSignOutRequest,
    ) -> Result<pb::AccountsSignOutResponse, ServiceError> {
        let presented = RefreshToken::parse(request.refresh_token)
            .ok_or(ServiceError::Refresh(RefreshError::Unknown))?;
        let player_id = self
            .store
            .revoke_family_of(&presented.digest(), self.now_ms())
            .await?
            .ok_or(ServiceError::Refresh(RefreshError::Unknown))?;
        tracing::info!(player_id = %player_id, "account signed out");
        Ok(pb::AccountsSignOutResponse { player_id })
    }

    async fn get_account(&self, player_id: String) -> Result<pb::Account, ServiceError> {
        check_player_id(&player_id)?;
        self.store
            .account(&player_id)
            .await?
            .map(Into::into)
            .ok_or(ServiceError::NoAccount(player_id))
    }

    async fn update_account(
        &self,
        request: pb::UpdateAccountRequest,
    ) -> Result<pb::Account, ServiceError> {
        check_player_id(&request.player_id)?;
        let display_name = check_display_name(&request.display_name)?;
        self.store
            .set_display_name(&request.player_id, &display_name)
            .await?
            .map(Into::into)
            .ok_or(ServiceError::NoAccount(request.player_id))
    }
}

impl AccountsService {
    async fn record_game(
        &self,
        request: pb::RecordGameRequest,
    ) -> Result<pb::RecordGameResponse, ServiceError> {
        let game = request.game.ok_or(ServiceError::BadGame("required"))?;
        let seats = seat_results(&archive::head_of(&game))?;
        let newly_recorded = self.store.record_game(&game, &seats).await?;
        tracing::info!(game_id = %game.game_id, newly_recorded, "game archived");
        Ok(pb::RecordGameResponse { newly_recorded })
    }

    /// A batch of game ends in one transaction; a game that fails validation is refused
    /// alone (its entry says why) and the rest are stored.
    ///
    /// Each game comes encoded and is stored as it came: only its head is read
    /// (`ludus_proto::archive_record`).
    async fn record_games(
        &self,
        request: RecordGamesRequest,
    ) -> Result<pb::RecordGamesResponse, ServiceError> {
        if request.games.len() > MAX_RECORD_BATCH {
            return Err(ServiceError::BadGame("games: at most 1,000 in one batch"));
        }
        let mut answers = vec![pb::RecordedGame::default(); request.games.len()];
        let mut valid = Vec::with_capacity(request.games.len());
        for (index, record) in request.games.iter().enumerate() {
            let head = ArchivedGameHead::decode(record.as_slice())
                .map_err(|_| ServiceError::BadGame("games: not an encoded ArchivedGame"));
            match head.and_then(|head| seat_results(&head).map(|seats| (head, seats))) {
                Ok((head, seats)) => valid.push((index, head, record, seats)),
                Err(error) => answers[index].refused = error.to_string(),
            }
        }
        let batch: Vec<GameToArchive<'_>> = valid
            .iter()
            .map(|(_, head, record, seats)| (head, record.as_slice(), seats.as_slice()))
            .collect();
        let stored = self.store.record_games(&batch).await?;
        let mut newly = 0;
        for ((index, ..), newly_recorded) in valid.iter().zip(stored) {
            answers[*index].newly_recorded = newly_recorded;
            newly += usize::from(newly_recorded);
        }
        tracing::info!(
            games = answers.len(),
            newly,
            refused = answers.len() - valid.len(),
            "games archived"
        );
        Ok(pb::RecordGamesResponse { games: answers })
    }

    async fn list_player_games(
        &self,
        request: pb::ListPlayerGamesRequest,
    ) -> Result<pb::ListPlayerGamesResponse, ServiceError> {
        check_player_id(&request.player_id)?;
        let limit = match request.limit {
            0 => archive::DEFAULT_PAGE,
            n => n.min(archive::MAX_PAGE),
        };
        let cursor = match request.page_token.as_str() {
            "" => None,
            token => Some(PageCursor::parse(token)?),
        };
        // One more than asked says whether another page follows.
        let mut rows = self
            .store
            .player_games(&request.player_id, cursor.as_ref(), limit + 1)
            .await?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next_page_token = match rows.last() {
            Some((cursor, _)) if more => cursor.to_token(),
            _ => String::new(),
        };
        let games = rows
            .iter()
            .map(|(_, record)| archive::decode_record(record).map(archive::summary))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(pb::ListPlayerGamesResponse {
            games,
            next_page_token,
        })
    }

    async fn get_archived_game(&self, game_id: String) -> Result<pb::ArchivedGame, ServiceError> {
        ludus_proto::ids::validate_id("game_id", &game_id)?;
        let record = self
            .store
            .archived_game(&game_id)
            .await?
            .ok_or(ServiceError::NoArchivedGame(game_id))?;
        archive::decode_record(&record)
    }

    async fn game_counts(&self, player_id: String) -> Result<pb::GameCounts, ServiceError> {
        check_player_id(&player_id)?;
        let (played, won, drawn) = self.store.game_counts(&player_id).await?;
        Ok(pb::GameCounts { played, won, drawn })
    }
}

/// The most games one `RecordGames` call archives (the request's limit).
pub const MAX_RECORD_BATCH: usize = 1000;

/// A finished game's seats with their results, once its ids are valid.
fn seat_results(game: &ArchivedGameHead) -> Result<Vec<SeatRow>, ServiceError> {
    ludus_proto::ids::validate_id("game.game_id", &game.game_id)?;
    ludus_proto::ids::validate_ruleset("game.ruleset", &game.ruleset)?;
    if game.seats.is_empty() {
        return Err(ServiceError::BadGame("seats: a finished game has players"));
    }
    game.seats
        .iter()
        .map(|seat| {
            ludus_proto::ids::validate_id("game.seats.player_id", &seat.player_id)?;
            Ok((
                seat.seat,
                seat.player_id.clone(),
                SeatResult::of(game.outcome.as_ref(), seat.seat),
            ))
        })
        .collect()
}

#[tonic::async_trait]
impl Accounts for AccountsService {
    #[tracing::instrument(skip_all)]
    async fn create_account(
        &self,
        request: Request<pb::CreateAccountRequest>,
    ) -> Result<Response<pb::AccountSessionGrant>, Status> {
        Ok(Response::new(
            AccountsService::create_account(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn sign_in(
        &self,
        request: Request<pb::AccountsSignInRequest>,
    ) -> Result<Response<pb::AccountSessionGrant>, Status> {
        Ok(Response::new(
            AccountsService::sign_in(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn refresh(
        &self,
        request: Request<pb::AccountsRefreshRequest>,
    ) -> Result<Response<pb::AccountSessionGrant>, Status> {
        Ok(Response::new(
            AccountsService::refresh(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn sign_out(
        &self,
        request: Request<pb::AccountsSignOutRequest>,
    ) -> Result<Response<pb::AccountsSignOutResponse>, Status> {
        Ok(Response::new(
            AccountsService::sign_out(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn get_account(
        &self,
        request: Request<pb::GetAccountRequest>,
    ) -> Result<Response<pb::Account>, Status> {
        Ok(Response::new(
            AccountsService::get_account(self, request.into_inner().player_id).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn update_account(
        &self,
        request: Request<pb::UpdateAccountRequest>,
    ) -> Result<Response<pb::Account>, Status> {
        Ok(Response::new(
            AccountsService::update_account(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn record_game(
        &self,
        request: Request<pb::RecordGameRequest>,
    ) -> Result<Response<pb::RecordGameResponse>, Status> {
        Ok(Response::new(
            AccountsService::record_game(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn record_games(
        &self,
        request: Request<RecordGamesRequest>,
    ) -> Result<Response<pb::RecordGamesResponse>, Status> {
        Ok(Response::new(
            AccountsService::record_games(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn list_player_games(
        &self,
        request: Request<pb::ListPlayerGamesRequest>,
    ) -> Result<Response<pb::ListPlayerGamesResponse>, Status> {
        Ok(Response::new(
            AccountsService::list_player_games(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn get_archived_game(
        &self,
        request: Request<pb::GetArchivedGameRequest>,
    ) -> Result<Response<pb::ArchivedGame>, Status> {
        Ok(Response::new(
            AccountsService::get_archived_game(self, request.into_inner().game_id).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn get_game_counts(
        &self,
        request: Request<pb::GetGameCountsRequest>,
    ) -> Result<Response<pb::GameCounts>, Status> {
        Ok(Response::new(
            AccountsService::game_counts(self, request.into_inner().player_id).await?,
        ))
    }
}
