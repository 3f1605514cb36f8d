//! Password hashing: Argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane), salted
//! from the OS CSPRNG, stored as PHC strings. Hashing takes tens of milliseconds of CPU and
//! 19 MiB, so it runs on the blocking pool, at most [`MAX_CONCURRENT_HASHES`] at once per
//! process (a registration flood queues instead of exhausting memory).

use std::sync::Arc;

use argon2::{
    Algorithm, Argon2, Params, Version,
    password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash},
};
use tokio::sync::{OnceCell, Semaphore};

use crate::error::ServiceError;
use crate::model::Password;

/// OWASP Password Storage Cheat Sheet, Argon2id: m = 19 MiB, t = 2, p = 1.
pub const MEMORY_KIB: u32 = 19 * 1024;
pub const PASSES: u32 = 2;
pub const LANES: u32 = 1;
/// Hashes computed at once per process.
pub const MAX_CONCURRENT_HASHES: usize = 4;

/// Hashes and verifies passwords off the async runtime.
#[derive(Clone, Debug)]
pub struct Passwords {
    permits: Arc<Semaphore>,
    /// The hash an unknown username is checked against, so it costs the same time as a
    /// wrong password (no user enumeration by timing).
    dummy: Arc<OnceCell<String>>,
}

impl Default for Passwords {
    fn default() -> Self {
        Passwords {
            permits: Arc::new(Semaphore::new(MAX_CONCURRENT_HASHES)),
            dummy: Arc::default(),
        }
    }
}

fn argon2() -> Result<Argon2<'static>, ServiceError> {
    let params = Params::new(MEMORY_KIB, PASSES, LANES, None).map_err(|e| {
        tracing::error!(error = %e, "bad argon2 parameters");
        ServiceError::Internal
    })?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

fn hash_blocking(password: &Password) -> Result<String, ServiceError> {
    let hash: PasswordHash = argon2()?.hash_password(password.as_bytes()).map_err(|e| {
        tracing::error!(error = %e, "password hashing failed");
        ServiceError::Internal
    })?;
    Ok(hash.to_string())
}

fn verify_blocking(password: &Password, phc: &str) -> bool {
    // The parameters come from the PHC string, so hashes made with older parameters verify.
    match PasswordHash::new(phc) {
        Ok(parsed) => argon2()
            .map(|argon2| argon2.verify_password(password.as_bytes(), &parsed).is_ok())
            .unwrap_or(false),
        Err(e) => {
            tracing::error!(error = %e, "stored password hash is not a PHC string");
            false
        }
    }
}

impl Passwords {
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| ServiceError::Internal)?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|_| ServiceError::Internal)
    }

    /// The PHC string of `password` with a fresh salt.
    pub async fn hash(&self, password: Password) -> Result<String, ServiceError> {
        self.blocking(move || hash_blocking(&password)).await?
    }

    /// Whether `password` matches `stored`; with no stored hash (unknown user) it checks a
    /// dummy hash anyway and answers false, taking the same time.
    pub async fn verify(
        &self,
        password: Password,
        stored: Option<String>,
    ) -> Result<bool, ServiceError> {
        match stored {
            Some(phc) => {
                self.blocking(move || verify_blocking(&password, &phc))
                    .await
            }
            None => {
                let dummy = self.dummy().await?;
                self.blocking(move || verify_blocking(&password, &dummy))
                    .await
                    .map(|_| false)
            }
        }
    }

    /// Computes the dummy hash now (the server calls it before serving), so even the first
    /// unknown-username sign-in costs one verification, like a wrong password.
    pub async fn prepare(&self) -> Result<(), ServiceError> {
        self.dummy().await.map(drop)
    }

    async fn dummy(&self) -> Result<String, ServiceError> {
        self.dummy
            .get_or_try_init(|| async {
                let filler = Password::parse(crate::model::RefreshToken::generate().into_string())?;
                self.hash(filler).await
            })
            .await
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn password(s: &str) -> Password {
        Password::parse(s.into()).unwrap()
    }

    #[tokio::test]
    async fn a_hash_verifies_its_password_only() {
        let passwords = Passwords::default();
        let hash = passwords.hash(password("correct horse")).await.unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(!hash.contains("correct horse"));
        assert!(
            passwords
                .verify(password("correct horse"), Some(hash.clone()))
                .await
                .unwrap()
        );
        assert!(
            !passwords
                .verify(password("correct horsf"), Some(hash.clone()))
                .await
                .unwrap()
        );
        let again = passwords.hash(password("correct horse")).await.unwrap();
        assert_ne!(hash, again, "every hash has its own salt");
    }

    #[tokio::test]
    async fn an_unknown_user_never_verifies() {
        let passwords = Passwords::default();
        assert!(
            !passwords
                .verify(password("anything at all"), None)
                .await
                .unwrap()
        );
        assert!(
            !passwords
                .verify(password("anything at all"), Some("not a phc string".into()))
                .await
                .unwrap()
        );
    }
}
