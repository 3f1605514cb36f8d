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

/// One field's value as Debug prints it: `shown` as is, `secret` as [`Redacted`].
macro_rules! debug_value {
    (shown, $value:expr) => {
        &$value
    };
    (secret, $value:expr) => {
        &Redacted(&$value)
    };
}

/// `Debug` for each message, its fields in declaration order, each marked `shown` or `secret`.
macro_rules! redacted_debug {
    ($($message:ident { $($field:ident: $how:ident),+ $(,)? })+) => {$(
        impl fmt::Debug for pb::$message {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($message))
                    $(.field(stringify!($field), debug_value!($how, self.$field)))+
                    .finish()
            }
        }
    )+};
}

redacted_debug! {
    CreateAccountRequest {
        username: shown,
        password: secret,
        display_name: shown,
        guest_player_id: shown,
        client_address: shown,
    }
    AccountsSignInRequest {
        username: shown,
        password: secret,
        client_address: shown,
    }
    AccountSessionGrant {
        account: shown,
        refresh_token: secret,
        refresh_expires_at_unix_ms: shown,
    }
    AccountsRefreshRequest { refresh_token: secret }
    AccountsSignOutRequest { refresh_token: secret }
    RegisterRequest {
        username: shown,
        password: secret,
        display_name: shown,
    }
    SignInRequest {
        username: shown,
        password: secret,
    }
    AccountSession {
        access_token: secret,
        access_expires_at_unix_ms: shown,
        refresh_token: secret,
        refresh_expires_at_unix_ms: shown,
        account: shown,
    }
    RefreshRequest { refresh_token: secret }
    SignOutRequest { refresh_token: secret }
    UpgradeGuestRequest {
        username: shown,
        password: secret,
        display_name: shown,
    }
    SignInGuestResponse {
        token: secret,
        player_id: shown,
        expires_at_unix_ms: shown,
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
