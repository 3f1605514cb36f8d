//! Session tokens: who is calling comes from the signed token, never from a request body.

use std::{
    collections::HashMap,
    hash::{BuildHasher, RandomState},
    sync::{Arc, Mutex},
    time::Duration,
};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use ludus_store::Clock;
use serde::{Deserialize, Serialize};
use tonic::{Code, Status, metadata::MetadataMap};

use crate::refusal::{reason, refuse};

/// How long a guest token is accepted.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// The signed claims of a session.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Claims {
    /// The player id.
    sub: String,
    /// The display name at sign-in.
    name: String,
    /// Expiry, Unix seconds.
    exp: u64,
    /// Issued at, Unix seconds.
    iat: u64,
    /// Guest or account (tokens from before accounts existed carry none: guests).
    #[serde(default)]
    kind: Kind,
}

/// Who a token stands for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A guest: a name, no password, a week-long token.
    #[default]
    Guest,
    /// A registered account: 15-minute access tokens renewed with a refresh token.
    Account,
}

/// How long an account's access token is accepted: short, because it cannot be revoked;
/// the refresh token (revocable) renews it.
pub const ACCESS_TOKEN_TTL: Duration = Duration::from_secs(15 * 60);

/// The authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub player_id: String,
    pub display_name: String,
    pub kind: Kind,
}

impl Caller {
    /// The player a read is about: `named` when the request names one (validated), else the
    /// caller themselves.
    pub fn or_named(self, named: String) -> Result<String, Status> {
        if named.is_empty() {
            return Ok(self.player_id);
        }
        ludus_proto::ids::validate_id("player_id", &named)?;
        Ok(named)
    }
}

/// Signs and checks HS256 session tokens.
#[derive(Clone)]
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
    /// How long an account's access token lives ([`ACCESS_TOKEN_TTL`] unless the operator
    /// shortens it, e.g. for a test of the clients' refresh).
    access_ttl: Duration,
    /// Terms start and end on it: the library checks only the signature and the claims'
    /// presence, the expiry is checked here so a test clock drives it.
    clock: Clock,
    /// Tokens whose signature checked out lately (see [`Verified`]).
    verified: Arc<Verified>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("Tokens").field("ttl", &self.ttl).finish()
    }
}

/// Seconds a token stays accepted past its expiry: gateways' clocks may differ a little.
const EXPIRY_LEEWAY_S: u64 = 5;

/// The name a person typed at sign-in, trimmed and composed (NFC), under the shared
/// display-name policy ([`ludus_proto::ids::validate_display_name`]: 1 to 32 characters,
/// nothing invisible, no stacks of combining marks).
pub fn validate_display_name(name: &str) -> Result<String, Status> {
    let name = ludus_proto::ids::normalize_display_name(name);
    ludus_proto::ids::validate_display_name("display_name", &name)?;
    Ok(name)
}

/// The longest authorization header worth verifying: Ludus tokens are a few hundred bytes. A
/// longer one is refused before any HMAC is computed.
pub const MAX_AUTHORIZATION_BYTES: usize = 2048;

impl Tokens {
    /// Tokens signed with `secret` (at least 32 bytes), valid for `ttl` on `clock`.
    pub fn new(secret: &[u8], ttl: Duration, clock: Clock) -> anyhow::Result<Self> {
        anyhow::ensure!(
            secret.len() >= 32,
            "the token secret must be at least 32 bytes"
        );
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_exp = false;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Ok(Tokens {
            encoding: EncodingKey::from_secret(secret)?,
            decoding: DecodingKey::from_secret(secret)?,
            validation,
            ttl,
            access_ttl: ACCESS_TOKEN_TTL,
            clock,
            verified: Arc::new(Verified::default()),
        })
    }

    /// The same tokens with accounts' access tokens living `access_ttl` (at least a second)
    /// instead of [`ACCESS_TOKEN_TTL`].
    pub fn with_access_ttl(mut self, access_ttl: Duration) -> Self {
        self.access_ttl = access_ttl.max(Duration::from_secs(1));
        self
    }

    /// Unix seconds on the gateway's clock.
    fn now_s(&self) -> u64 {
        self.clock.now_ms() / 1000
    }

    /// Issues a token for a new guest; returns (token, player id, expiry in Unix ms).
    pub fn issue_guest(&self, display_name: &str) -> Result<(String, String, i64), Status> {
        let now = self.now_s();
        let exp = now + self.ttl.as_secs();
        let player_id = format!("g-{}", ulid::Ulid::generate());
        let claims = Claims {
            sub: player_id.clone(),
            name: display_name.to_owned(),
            exp,
            iat: now,
            kind: Kind::Guest,
        };
        let (token, exp_ms) = self.sign(&claims)?;
        Ok((token, player_id, exp_ms))
    }

    /// Issues an access token for a signed-in account (`access_ttl`); returns (token,
    /// expiry in Unix ms).
    pub fn issue_account(
        &self,
        player_id: &str,
        display_name: &str,
    ) -> Result<(String, i64), Status> {
        let now = self.now_s();
        self.sign(&Claims {
            sub: player_id.to_owned(),
            name: display_name.to_owned(),
            exp: now + self.access_ttl.as_secs(),
            iat: now,
            kind: Kind::Account,
        })
    }

    fn sign(&self, claims: &Claims) -> Result<(String, i64), Status> {
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .map_err(|e| {
                tracing::error!(error = %e, "could not sign a token");
                Status::internal("internal error")
            })?;
        let exp_ms = i64::try_from(claims.exp.saturating_mul(1000)).unwrap_or(i64::MAX);
        Ok((token, exp_ms))
    }

    /// The caller named by the request's `authorization: Bearer <token>` header.
    pub fn caller(&self, metadata: &MetadataMap) -> Result<Caller, Status> {
        let header = metadata
            .get("authorization")
            .ok_or_else(|| {
                refuse(
                    Code::Unauthenticated,
                    "missing authorization: Bearer <token>",
                    reason::TOKEN_MISSING,
                )
            })?
            .to_str()
            .map_err(|_| {
                refuse(
                    Code::Unauthenticated,
                    "authorization header is not text",
                    reason::TOKEN_MISSING,
                )
            })?;
        if header.len() > MAX_AUTHORIZATION_BYTES {
            return Err(refuse(
                Code::Unauthenticated,
                format!(
                    "authorization header is {} bytes: a Ludus token is under {MAX_AUTHORIZATION_BYTES}",
                    header.len()
                ),
                reason::TOKEN_INVALID,
            ));
        }
        let token = header
            .strip_prefix("Bearer ")
            .or_else(|| header.strip_prefix("bearer "))
            .ok_or_else(|| {
                refuse(
                    Code::Unauthenticated,
                    "authorization must be: Bearer <token>",
                    reason::TOKEN_MISSING,
                )
            })?;
        let token = token.trim();
        let (caller, exp, verified_now) = match self.verified.get(token) {
            Some((caller, exp)) => (caller, exp, false),
            None => {
                let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
                    .map_err(|_| {
                        refuse(
                            Code::Unauthenticated,
                            "the token is not valid",
                            reason::TOKEN_INVALID,
                        )
                    })?;
                let caller = Caller {
                    player_id: data.claims.sub,
                    display_name: data.claims.name,
                    kind: data.claims.kind,
                };
                (caller, data.claims.exp, true)
            }
        };
        // Checked on every call, a token remembered or not: a remembered token expires on
        // time.
        if exp.saturating_add(EXPIRY_LEEWAY_S) < self.now_s() {
            return Err(refuse(
                Code::Unauthenticated,
                "the token has expired: sign in again",
                reason::TOKEN_EXPIRED,
            ));
        }
        // Only a token accepted just now is remembered, so an expired one takes no room.
        if verified_now {
            self.verified.insert(token, caller.clone(), exp);
        }
        Ok(caller)
    }
}

/// Tokens whose signature checked out lately, with their claims: a client sends the same
/// token with every call, and checking it again (HMAC-SHA256, base64, a JSON parse) was about
/// 4 % of the all-in-one's CPU per move (BENCHMARKS.md, "Where a move's CPU goes"). Only a
/// token that passed [`jsonwebtoken::decode`] with this gateway's key is remembered, keyed by
/// its whole text, so a forged or altered token is never found here; its expiry is still
/// checked on every call. Bounded: a full shard forgets one entry for each it learns, and a
/// forgotten token is simply verified again. A new key (a new [`Tokens`]) starts empty.
struct Verified {
    shards: [Mutex<VerifiedShard>; VERIFIED_SHARDS],
    hasher: RandomState,
}

/// A verified token's text, and its caller and expiry (Unix s).
type VerifiedShard = HashMap<Box<str>, (Caller, u64)>;

/// Shards of [`Verified`]: calls on different workers rarely wait for one another.
const VERIFIED_SHARDS: usize = 16;
/// Tokens a shard remembers: 16 × 1,024 clients, about 6 MB at most.
const VERIFIED_PER_SHARD: usize = 1024;

impl Default for Verified {
    fn default() -> Self {
        Verified {
            shards: std::array::from_fn(|_| Mutex::new(HashMap::new())),
            hasher: RandomState::new(),
        }
    }
}

impl Verified {
    fn shard(&self, token: &str) -> &Mutex<VerifiedShard> {
        let at = self.hasher.hash_one(token) as usize % VERIFIED_SHARDS;
        &self.shards[at]
    }

    /// The caller and expiry (Unix s) of `token` if it was verified lately.
    fn get(&self, token: &str) -> Option<(Caller, u64)> {
        // A poisoned shard (a panic while it was held) only means the token is verified again.
        let shard = self.shard(token).lock().ok()?;
        shard.get(token).cloned()
    }

    fn insert(&self, token: &str, caller: Caller, exp: u64) {
        let Ok(mut shard) = self.shard(token).lock() else {
            return;
        };
        if shard.len() >= VERIFIED_PER_SHARD {
            // Which one goes does not matter: keys are spread by a random hasher.
            if let Some(any) = shard.keys().next().cloned() {
                shard.remove(&any);
            }
        }
        shard.insert(token.into(), (caller, exp));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| shard.lock().map_or(0, |s| s.len()))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use ludus_proto::error_details::StatusExt;

    use super::*;

    fn tokens(secret: &[u8]) -> Tokens {
        Tokens::new(secret, DEFAULT_TOKEN_TTL, Clock::system()).unwrap()
    }

    fn metadata(value: &str) -> MetadataMap {
        let mut map = MetadataMap::new();
        map.insert("authorization", value.parse().unwrap());
        map
    }

    #[test]
    fn a_token_names_its_player() {
        let tokens = tokens(&[7; 32]);
        let (token, player_id, _) = tokens.issue_guest("ann").unwrap();
        let caller = tokens
            .caller(&metadata(&format!("Bearer {token}")))
            .unwrap();
        assert_eq!(caller.player_id, player_id);
        assert_eq!(caller.display_name, "ann");
    }

    #[test]
    fn forged_missing_and_malformed_tokens_are_refused() {
        let (token, _, _) = tokens(&[1; 32]).issue_guest("mallory").unwrap();
        let other = tokens(&[2; 32]);
        // The code, and the reason a client acts on (ErrorInfo, domain ludus.gateway).
        let refused = |m: &MetadataMap| {
            let status = other.caller(m).unwrap_err();
            let info = status.get_error_details().error_info().cloned().unwrap();
            assert_eq!(info.domain, "ludus.gateway");
            (status.code(), info.reason)
        };
        let unauthenticated = |reason: &str| (tonic::Code::Unauthenticated, reason.to_owned());
        assert_eq!(
            refused(&metadata(&format!("Bearer {token}"))),
            unauthenticated("TOKEN_INVALID")
        );
        assert_eq!(
            refused(&MetadataMap::new()),
            unauthenticated("TOKEN_MISSING")
        );
        assert_eq!(
            refused(&metadata("Basic abc")),
            unauthenticated("TOKEN_MISSING")
        );
        assert_eq!(
            refused(&metadata("Bearer not.a.jwt")),
            unauthenticated("TOKEN_INVALID")
        );
    }

    #[test]
    fn account_tokens_say_account_and_guest_tokens_say_guest() {
        let tokens = tokens(&[7; 32]);
        let (token, exp_ms) = tokens.issue_account("a-1", "Ann").unwrap();
        let caller = tokens
            .caller(&metadata(&format!("Bearer {token}")))
            .unwrap();
        assert_eq!(caller.kind, Kind::Account);
        assert_eq!(caller.player_id, "a-1");
        let lifetime_ms = exp_ms - i64::try_from(tokens.now_s() * 1000).unwrap();
        assert!(lifetime_ms <= 15 * 60 * 1000, "{lifetime_ms}");
        let (guest, _, _) = tokens.issue_guest("bob").unwrap();
        let caller = tokens
            .caller(&metadata(&format!("Bearer {guest}")))
            .unwrap();
        assert_eq!(caller.kind, Kind::Guest);
    }

    #[test]
    fn expired_tokens_are_refused_as_expired() {
        let tokens = tokens(&[7; 32]);
        let past = tokens.now_s() - 3600;
        let (token, _) = tokens
            .sign(&Claims {
                sub: "a-1".into(),
                name: "Ann".into(),
                exp: past,
                iat: past - 900,
                kind: Kind::Account,
            })
            .unwrap();
        assert_refused_as_expired(&tokens, &metadata(&format!("Bearer {token}")));
        assert_eq!(
            tokens.verified.len(),
            0,
            "an expired token is not remembered"
        );
    }

    fn assert_refused_as_expired(tokens: &Tokens, bearer: &MetadataMap) {
        let refused = tokens.caller(bearer).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::Unauthenticated);
        let reason = refused.get_error_details().error_info().cloned().unwrap();
        assert_eq!(reason.reason, "TOKEN_EXPIRED", "{}", refused.message());
    }

    #[test]
    fn short_secrets_are_refused() {
        assert!(Tokens::new(b"short", DEFAULT_TOKEN_TTL, Clock::system()).is_err());
    }

    #[test]
    fn a_token_expires_when_the_gateways_clock_passes_its_term() {
        let manual = ludus_store::ManualClock::starting_now();
        let tokens = Tokens::new(&[7; 32], DEFAULT_TOKEN_TTL, manual.clock()).unwrap();
        let (token, exp_ms) = tokens.issue_account("a-1", "Ann").unwrap();
        let bearer = metadata(&format!("Bearer {token}"));
        let issued_ms = i64::try_from(manual.clock().now_ms()).unwrap();
        assert!(
            exp_ms - issued_ms <= 15 * 60 * 1000,
            "the term starts on the given clock"
        );
        manual.advance(ACCESS_TOKEN_TTL + Duration::from_secs(EXPIRY_LEEWAY_S));
        assert!(
            tokens.caller(&bearer).is_ok(),
            "accepted through the leeway"
        );
        manual.advance(Duration::from_secs(2));
        assert_refused_as_expired(&tokens, &bearer);
    }

    #[test]
    fn a_shortened_access_term_expires_on_time_and_guests_keep_theirs() {
        let manual = ludus_store::ManualClock::starting_now();
        let tokens = Tokens::new(&[7; 32], DEFAULT_TOKEN_TTL, manual.clock())
            .unwrap()
            .with_access_ttl(Duration::from_secs(20));
        let issued_ms = i64::try_from(manual.clock().now_ms()).unwrap();
        let (account, exp_ms) = tokens.issue_account("a-1", "Ann").unwrap();
        assert!(
            (19_000..=20_000).contains(&(exp_ms - issued_ms)),
            "{}",
            exp_ms - issued_ms
        );
        let (guest, _, guest_exp_ms) = tokens.issue_guest("Gus").unwrap();
        assert!(
            guest_exp_ms - issued_ms > 3600 * 1000,
            "guests keep the session term"
        );
        manual.advance(Duration::from_secs(20 + EXPIRY_LEEWAY_S + 2));
        assert_refused_as_expired(&tokens, &metadata(&format!("Bearer {account}")));
        assert!(tokens.caller(&metadata(&format!("Bearer {guest}"))).is_ok());
    }

    /// A token is verified once and remembered (`Verified`): what is remembered must not
    /// outlive its term, and nothing but the exact text of a verified token may be found.
    #[test]
    fn a_remembered_token_still_expires_and_an_altered_one_is_still_refused() {
        let manual = ludus_store::ManualClock::starting_now();
        let tokens = Tokens::new(&[7; 32], DEFAULT_TOKEN_TTL, manual.clock()).unwrap();
        let (token, _) = tokens.issue_account("a-1", "Ann").unwrap();
        let bearer = metadata(&format!("Bearer {token}"));
        assert_eq!(tokens.caller(&bearer).unwrap().player_id, "a-1");
        assert_eq!(
            tokens.verified.len(),
            1,
            "remembered after one verification"
        );
        assert_eq!(
            tokens.caller(&bearer).unwrap().player_id,
            "a-1",
            "found again"
        );

        // The same claims with another signature, and the signature cut short.
        let (head, signature) = token.rsplit_once('.').unwrap();
        let flipped = if signature.starts_with('A') { 'B' } else { 'A' };
        let forged = format!("{head}.{flipped}{}", &signature[1..]);
        for altered in [forged, format!("{head}.{}", &signature[1..])] {
            let status = tokens
                .caller(&metadata(&format!("Bearer {altered}")))
                .unwrap_err();
            assert_eq!(status.code(), tonic::Code::Unauthenticated);
            assert_eq!(
                status.get_error_details().error_info().unwrap().reason,
                "TOKEN_INVALID"
            );
        }
        assert_eq!(
            tokens.verified.len(),
            1,
            "a refused token is not remembered"
        );

        // Another key (another gateway, a rotated secret) remembers nothing of this one's.
        let other = Tokens::new(&[8; 32], DEFAULT_TOKEN_TTL, manual.clock()).unwrap();
        assert!(other.caller(&bearer).is_err());

        manual.advance(ACCESS_TOKEN_TTL + Duration::from_secs(EXPIRY_LEEWAY_S + 2));
        assert_refused_as_expired(&tokens, &bearer);
    }

    #[test]
    fn remembered_tokens_are_bounded() {
        let verified = Verified::default();
        let caller = Caller {
            player_id: "p".into(),
            display_name: "P".into(),
            kind: Kind::Guest,
        };
        let most = VERIFIED_SHARDS * VERIFIED_PER_SHARD;
        for i in 0..3 * most {
            verified.insert(&format!("token-{i}"), caller.clone(), 1);
        }
        assert!(verified.len() <= most, "{} > {most}", verified.len());
        assert!(
            verified.len() > most / 2,
            "a full cache keeps most of what it holds"
        );
        let newest = format!("token-{}", 3 * most - 1);
        assert!(verified.get(&newest).is_some(), "the newest token is kept");
    }

    #[test]
    fn display_names_are_checked() {
        assert_eq!(validate_display_name("  ann ").unwrap(), "ann");
        assert!(validate_display_name("").is_err());
        assert!(validate_display_name("   ").is_err());
        assert!(validate_display_name(&"x".repeat(33)).is_err());
        assert!(validate_display_name("a\u{7}b").is_err());
        assert!(validate_display_name("ann\u{202E}").is_err());
        assert_eq!(
            validate_display_name(&"é".repeat(32))
                .unwrap()
                .chars()
                .count(),
            32
        );
    }
}
