//! Password hashing: Argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane), salted
//! from the OS CSPRNG, stored as PHC strings. Hashing takes tens of milliseconds of CPU and
//! 19 MiB, so it runs on the blocking pool, at most [`MAX_CONCURRENT_HASHES`] at once per
//! process (a registration flood queues instead of exhausting memory), shared round-robin per
//! client address ([`FairQueue`]): one address registering in bulk queues behind itself, not
//! in front of everybody's sign-ins.

use std::sync::Arc;

use argon2::{
    Algorithm, Argon2, Params, Version,
    password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash},
};
use tokio::sync::OnceCell;

use crate::error::ServiceError;
use crate::fair::FairQueue;
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
    slots: FairQueue,
    /// The hash an unknown username is checked against, so it costs the same time as a
    /// wrong password (no user enumeration by timing).
    dummy: Arc<OnceCell<String>>,
}

impl Default for Passwords {
    fn default() -> Self {
        Passwords {
            slots: FairQueue::new(MAX_CONCURRENT_HASHES),
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
    /// Runs `work` on the blocking pool in `address`'s turn.
    async fn blocking<T: Send + 'static>(
        &self,
        address: &str,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let _turn = self.slots.turn(address).await;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|_| ServiceError::Internal)
    }

    /// The PHC string of `password` with a fresh salt, hashed in `address`'s turn (the
    /// client's address; empty when unknown).
    pub async fn hash(&self, address: &str, password: Password) -> Result<String, ServiceError> {
        self.blocking(address, move || hash_blocking(&password))
            .await?
    }

    /// Whether `password` matches `stored`, checked in `address`'s turn; with no stored hash
    /// (unknown user) it checks a dummy hash anyway and answers false, taking the same time.
    pub async fn verify(
        &self,
        address: &str,
        password: Password,
        stored: Option<String>,
    ) -> Result<bool, ServiceError> {
        match stored {
            Some(phc) => {
                self.blocking(address, move || verify_blocking(&password, &phc))
                    .await
            }
            None => {
                let dummy = self.dummy().await?;
                self.blocking(address, move || verify_blocking(&password, &dummy))
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
                self.hash("", filler).await
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
        let hash = passwords.hash("", password("correct horse")).await.unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(!hash.contains("correct horse"));
        assert!(
            passwords
                .verify("", password("correct horse"), Some(hash.clone()))
                .await
                .unwrap()
        );
        assert!(
            !passwords
                .verify("", password("correct horsf"), Some(hash.clone()))
                .await
                .unwrap()
        );
        let again = passwords.hash("", password("correct horse")).await.unwrap();
        assert_ne!(hash, again, "every hash has its own salt");
    }

    /// Security (ARCHITECTURE.md, "Accounts"): a sign-in from one address is not queued
    /// behind another address's burst of registrations. Counted in hashes, not time.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sign_in_is_not_queued_behind_a_strangers_burst_of_registrations() {
        let passwords = Passwords::default();
        let stored = passwords.hash("", password("correct horse")).await.unwrap();
        let burst = 6 * MAX_CONCURRENT_HASHES;
        let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let registrations: Vec<_> = (0..burst)
            .map(|_| {
                let (passwords, done) = (passwords.clone(), done.clone());
                tokio::spawn(async move {
                    passwords
                        .hash("203.0.113.1", password("a new account"))
                        .await
                        .unwrap();
                    done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                })
            })
            .collect();
        // Every slot busy, the rest of the burst queued.
        while passwords.slots.waiting() < burst - MAX_CONCURRENT_HASHES {
            tokio::task::yield_now().await;
        }
        let before = done.load(std::sync::atomic::Ordering::SeqCst);
        let signed_in = passwords
            .verify("198.51.100.2", password("correct horse"), Some(stored))
            .await
            .unwrap();
        let after = done.load(std::sync::atomic::Ordering::SeqCst);
        assert!(signed_in);
        // Its turn comes after the hashes running when it queued and at most one more of the
        // burst; the rest of the burst still waits. A FIFO queue ran all of it first.
        assert!(
            after - before <= MAX_CONCURRENT_HASHES + 1 + MAX_CONCURRENT_HASHES,
            "{} of the burst's hashes finished while the sign-in waited",
            after - before
        );
        assert!(after < burst, "the burst was not all served first");
        for registration in registrations {
            registration.await.unwrap();
        }
    }

    #[tokio::test]
    async fn an_unknown_user_never_verifies() {
        let passwords = Passwords::default();
        assert!(
            !passwords
                .verify("", password("anything at all"), None)
                .await
                .unwrap()
        );
        assert!(
            !passwords
                .verify(
                    "",
                    password("anything at all"),
                    Some("not a phc string".into())
                )
                .await
                .unwrap()
        );
    }
}
