//! The account RPCs of the gateway: registration, sign-in, token refresh and sign-out,
//! guest upgrade, profiles. Passwords and refresh tokens pass through to the accounts
//! service and back, never logged (their messages print them redacted); the gateway mints
//! the 15-minute access tokens, since it holds the signing key.

use ludus_proto::ids::{validate_id, validate_ruleset};
use ludus_proto::{error_details, pb};
use tonic::{Code, Request, Response, Status};

use crate::auth::{Caller, Kind, validate_display_name};
use crate::refusal::{invalid, reason, refuse};
use crate::service::GatewayService;

/// Rating pools one profile request may ask for.
pub const MAX_PROFILE_RULESETS: usize = 32;

/// The client's address as the gateway sees it (failed sign-ins are limited per address,
/// password hashing and analysis places are shared per address).
pub(crate) fn client_address<T>(request: &Request<T>) -> String {
    request
        .remote_addr()
        .map(|addr| addr.ip().to_string())
        .unwrap_or_default()
}

impl GatewayService {
    /// Accounts' grant as the caller's session: the gateway mints the access token, since it
    /// holds the signing key.
    fn session(
        &self,
        grant: Response<pb::AccountSessionGrant>,
    ) -> Result<Response<pb::AccountSession>, Status> {
        let grant = grant.into_inner();
        let account = grant.account.ok_or_else(|| {
            tracing::error!("accounts answered a session grant without an account");
            error_details::internal_error(error_details::DOMAIN_GATEWAY)
        })?;
        let (access_token, access_expires_at_unix_ms) = self
            .tokens
            .issue_account(&account.player_id, &account.display_name)?;
        Ok(Response::new(pb::AccountSession {
            access_token,
            access_expires_at_unix_ms,
            refresh_token: grant.refresh_token,
            refresh_expires_at_unix_ms: grant.refresh_expires_at_unix_ms,
            account: Some(account),
        }))
    }

    #[tracing::instrument(name = "register", skip_all)]
    pub(crate) async fn account_register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::AccountSession>, Status> {
        self.limits
            .check_registration(crate::limits::peer(&request))?;
        let client_address = client_address(&request);
        let request = request.into_inner();
        let display_name = validate_display_name(&request.display_name)?;
        let grant = self
            .accounts
            .clone()
            .create_account(pb::CreateAccountRequest {
                username: request.username,
                password: request.password,
                display_name,
                guest_player_id: String::new(),
                client_address,
            })
            .await?;
        self.session(grant)
    }

    #[tracing::instrument(name = "sign_in", skip_all)]
    pub(crate) async fn account_sign_in(
        &self,
        request: Request<pb::SignInRequest>,
    ) -> Result<Response<pb::AccountSession>, Status> {
        self.limits.check_sign_in(crate::limits::peer(&request))?;
        let client_address = client_address(&request);
        let request = request.into_inner();
        let grant = self
            .accounts
            .clone()
            .sign_in(pb::AccountsSignInRequest {
                username: request.username,
                password: request.password,
                client_address,
            })
            .await?;
        self.session(grant)
    }

    #[tracing::instrument(name = "refresh", skip_all)]
    pub(crate) async fn account_refresh(
        &self,
        request: Request<pb::RefreshRequest>,
    ) -> Result<Response<pb::AccountSession>, Status> {
        self.limits.check_sign_in(crate::limits::peer(&request))?;
        let grant = self
            .accounts
            .clone()
            .refresh(pb::AccountsRefreshRequest {
                refresh_token: request.into_inner().refresh_token,
            })
            .await?;
        self.session(grant)
    }

    #[tracing::instrument(name = "sign_out", skip_all)]
    pub(crate) async fn account_sign_out(
        &self,
        request: Request<pb::SignOutRequest>,
    ) -> Result<Response<pb::SignOutResponse>, Status> {
        self.limits.check_sign_in(crate::limits::peer(&request))?;
        self.accounts
            .clone()
            .sign_out(pb::AccountsSignOutRequest {
                refresh_token: request.into_inner().refresh_token,
            })
            .await?;
        Ok(Response::new(pb::SignOutResponse {}))
    }

    #[tracing::instrument(name = "upgrade_guest", skip_all)]
    pub(crate) async fn account_upgrade_guest(
        &self,
        request: Request<pb::UpgradeGuestRequest>,
    ) -> Result<Response<pb::AccountSession>, Status> {
        let caller = self.guest_caller(&request)?;
        self.limits
            .check_registration(crate::limits::peer(&request))?;
        let client_address = client_address(&request);
        let request = request.into_inner();
        let display_name = if request.display_name.trim().is_empty() {
            caller.display_name
        } else {
            validate_display_name(&request.display_name)?
        };
        let grant = self
            .accounts
            .clone()
            .create_account(pb::CreateAccountRequest {
                username: request.username,
                password: request.password,
                display_name,
                guest_player_id: caller.player_id,
                client_address,
            })
            .await?;
        tracing::info!(player_id = ?grant.get_ref().account.as_ref().map(|a| &a.player_id), "guest upgraded to an account");
        self.session(grant)
    }

    #[tracing::instrument(name = "get_profile", skip_all)]
    pub(crate) async fn account_get_profile(
        &self,
        request: Request<pb::GetProfileRequest>,
    ) -> Result<Response<pb::Profile>, Status> {
        let caller = self.authenticated(&request)?;
        let request = request.into_inner();
        let player_id = caller.or_named(request.player_id)?;
        check_rulesets(&request.rulesets)?;
        let account = self
            .accounts
            .clone()
            .get_account(pb::GetAccountRequest { player_id })
            .await?
            .into_inner();
        Ok(Response::new(
            self.profile(account, request.rulesets).await?,
        ))
    }

    #[tracing::instrument(name = "update_profile", skip_all)]
    pub(crate) async fn account_update_profile(
        &self,
        request: Request<pb::UpdateProfileRequest>,
    ) -> Result<Response<pb::Profile>, Status> {
        let caller = self.authenticated(&request)?;
        if caller.kind != Kind::Account {
            return Err(refuse(
                Code::FailedPrecondition,
                "guests have no profile: register first (UpgradeGuest keeps your player id)",
                reason::ACCOUNT_REQUIRED,
            ));
        }
        let request = request.into_inner();
        let display_name = validate_display_name(&request.display_name)?;
        check_rulesets(&request.rulesets)?;
        let account = self
            .accounts
            .clone()
            .update_account(pb::UpdateAccountRequest {
                player_id: caller.player_id,
                display_name,
            })
            .await?
            .into_inner();
        Ok(Response::new(
            self.profile(account, request.rulesets).await?,
        ))
    }

    /// A signed-in guest, or FAILED_PRECONDITION for an account.
    fn guest_caller<T>(&self, request: &Request<T>) -> Result<Caller, Status> {
        let caller = self.authenticated(request)?;
        if caller.kind != Kind::Guest {
            return Err(refuse(
                Code::FailedPrecondition,
                "already registered: only a guest can be upgraded",
                reason::ALREADY_REGISTERED,
            ));
        }
        Ok(caller)
    }

    /// The profile of `account` with its rating in each pool asked for. A ratings outage
    /// fails the call (UNAVAILABLE) rather than showing made-up numbers.
    async fn profile(
        &self,
        account: pb::Account,
        rulesets: Vec<String>,
    ) -> Result<pb::Profile, Status> {
        let lookups = rulesets.into_iter().map(|ruleset| {
            let mut ratings = self.ratings.clone();
            let player_id = account.player_id.clone();
            async move {
                ratings
                    .get_rating(pb::RatingsGetRatingRequest { ruleset, player_id })
                    .await
                    .map(Response::into_inner)
            }
        });
        let mut accounts = self.accounts.clone();
        let player_id = account.player_id.clone();
        let counts = async move {
            accounts
                .get_game_counts(pb::GetGameCountsRequest { player_id })
                .await
                .map(Response::into_inner)
        };
        let (ratings, counts) = futures::try_join!(futures::future::try_join_all(lookups), counts)?;
        let rated_games = ratings.iter().map(|r| r.games).sum();
        Ok(pb::Profile {
            player_id: account.player_id,
            username: account.username,
            display_name: account.display_name,
            created_at_unix_ms: account.created_at_unix_ms,
            ratings,
            rated_games,
            games_played: counts.played,
            games_won: counts.won,
            games_drawn: counts.drawn,
        })
    }

    /// `ListPlayerGames`: a player's archived games (the caller's own when `player_id` is
    /// empty), newest first. Finished games are public, as live ones are to spectators.
    #[tracing::instrument(name = "list_player_games", skip_all)]
    pub(crate) async fn archive_list_player_games(
        &self,
        request: Request<pb::ListPlayerGamesRequest>,
    ) -> Result<Response<pb::ListPlayerGamesResponse>, Status> {
        let caller = self.authenticated(&request)?;
        let mut request = request.into_inner();
        request.player_id = caller.or_named(request.player_id)?;
        self.accounts.clone().list_player_games(request).await
    }

    /// `GetArchivedGame`: one finished game from the archive.
    #[tracing::instrument(name = "get_archived_game", skip_all)]
    pub(crate) async fn archive_get_game(
        &self,
        request: Request<pb::GetArchivedGameRequest>,
    ) -> Result<Response<pb::ArchivedGame>, Status> {
        self.authenticated(&request)?;
        let request = request.into_inner();
        validate_id("game_id", &request.game_id)?;
        self.accounts.clone().get_archived_game(request).await
    }
}

fn check_rulesets(rulesets: &[String]) -> Result<(), Status> {
    if rulesets.len() > MAX_PROFILE_RULESETS {
        return Err(invalid(
            format!("rulesets: at most {MAX_PROFILE_RULESETS}"),
            reason::INVALID_RULESET,
        ));
    }
    rulesets
        .iter()
        .try_for_each(|r| validate_ruleset("rulesets", r).map_err(Status::from))
}
