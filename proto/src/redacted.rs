//! `Debug` for the messages that carry a password, a refresh token or a bearer token (the build script tells
//! prost not to derive it for them): every field but the secret is printed, and the secret
//! shows only whether it was set, so neither a `{:?}` in a log line nor a tracing field can
//! leak one.

use std::fmt;

use crate::pb;

/// Stands in for a secret in Debug output.
struct Redacted<'a>(&'a str);

impl fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("\"\"")
        } else {
            f.write_str("<redacted>")
        }
    }
}

impl fmt::Debug for pb::CreateAccountRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CreateAccountRequest")
            .field("username", &self.username)
            .field("password", &Redacted(&self.password))
            .field("display_name", &self.display_name)
            .field("guest_player_id", &self.guest_player_id)
            .finish()
    }
}

impl fmt::Debug for pb::AccountsSignInRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountsSignInRequest")
            .field("username", &self.username)
            .field("password", &Redacted(&self.password))
            .field("client_address", &self.client_address)
            .finish()
    }
}

impl fmt::Debug for pb::AccountSessionGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountSessionGrant")
            .field("account", &self.account)
            .field("refresh_token", &Redacted(&self.refresh_token))
            .field(
                "refresh_expires_at_unix_ms",
                &self.refresh_expires_at_unix_ms,
            )
            .finish()
    }
}

impl fmt::Debug for pb::AccountsRefreshRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountsRefreshRequest")
            .field("refresh_token", &Redacted(&self.refresh_token))
            .finish()
    }
}

impl fmt::Debug for pb::AccountsSignOutRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountsSignOutRequest")
            .field("refresh_token", &Redacted(&self.refresh_token))
            .finish()
    }
}

impl fmt::Debug for pb::RegisterRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisterRequest")
            .field("username", &self.username)
            .field("password", &Redacted(&self.password))
            .field("display_name", &self.display_name)
            .finish()
    }
}

impl fmt::Debug for pb::SignInRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignInRequest")
            .field("username", &self.username)
            .field("password", &Redacted(&self.password))
            .finish()
    }
}

impl fmt::Debug for pb::AccountSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountSession")
            .field("access_token", &Redacted(&self.access_token))
            .field("access_expires_at_unix_ms", &self.access_expires_at_unix_ms)
            .field("refresh_token", &Redacted(&self.refresh_token))
            .field(
                "refresh_expires_at_unix_ms",
                &self.refresh_expires_at_unix_ms,
            )
            .field("account", &self.account)
            .finish()
    }
}

impl fmt::Debug for pb::RefreshRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RefreshRequest")
            .field("refresh_token", &Redacted(&self.refresh_token))
            .finish()
    }
}

impl fmt::Debug for pb::SignOutRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignOutRequest")
            .field("refresh_token", &Redacted(&self.refresh_token))
            .finish()
    }
}

impl fmt::Debug for pb::UpgradeGuestRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpgradeGuestRequest")
            .field("username", &self.username)
            .field("password", &Redacted(&self.password))
            .field("display_name", &self.display_name)
            .finish()
    }
}

impl fmt::Debug for pb::SignInGuestResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignInGuestResponse")
            .field("token", &Redacted(&self.token))
            .field("player_id", &self.player_id)
            .field("expires_at_unix_ms", &self.expires_at_unix_ms)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_reach_debug_output() {
        let printed = [
            format!(
                "{:?}",
                pb::RegisterRequest {
                    username: "ann".into(),
                    password: "hunter2-secret".into(),
                    display_name: "Ann".into(),
                }
            ),
            format!(
                "{:?}",
                pb::AccountSession {
                    access_token: "hunter2-secret".into(),
                    refresh_token: "hunter2-secret".into(),
                    ..Default::default()
                }
            ),
            format!(
                "{:?}",
                pb::SignInGuestResponse {
                    token: "hunter2-secret".into(),
                    player_id: "g-1".into(),
                    expires_at_unix_ms: 1,
                }
            ),
            format!(
                "{:?}",
                pb::AccountsSignInRequest {
                    username: "ann".into(),
                    password: "hunter2-secret".into(),
                    client_address: "10.0.0.1".into(),
                }
            ),
        ];
        for line in printed {
            assert!(!line.contains("hunter2-secret"), "{line}");
            assert!(line.contains("<redacted>"), "{line}");
        }
    }
}
