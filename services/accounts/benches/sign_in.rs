//! What one sign-in costs the accounts service: the Argon2id verification (OWASP parameters)
//! that dominates it, and the refresh-token rotation transaction on SQLite.
//!
//! `cargo bench -p ludus-accounts --bench sign_in`

use criterion::{Criterion, criterion_group, criterion_main};
use ludus_accounts::{
    AccountStore,
    model::{Account, Password, RefreshToken, Username},
    passwords::Passwords,
    store::NewSession,
    testing::SqliteFile,
};

fn passwords(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let passwords = Passwords::default();
    let password = Password::parse("correct horse battery".into()).expect("valid");
    let hash = runtime
        .block_on(passwords.hash("", password.clone()))
        .expect("hash");
    c.bench_function("argon2id verify (m=19 MiB, t=2, p=1)", |b| {
        b.iter(|| {
            runtime
                .block_on(passwords.verify("", password.clone(), Some(hash.clone())))
                .expect("verify")
        })
    });
}

fn rotation(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let file = SqliteFile::new().expect("temp dir");
    let store = runtime
        .block_on(AccountStore::connect(&file.url()))
        .expect("open");
    let mut token = RefreshToken::generate();
    let session = NewSession {
        family_id: "bench".into(),
        token: token.digest(),
        now_ms: 0,
        expires_at_ms: i64::MAX,
    };
    let account = Account {
        player_id: "a-bench".into(),
        username: Username::parse("bench").expect("valid"),
        display_name: "Bench".into(),
        created_at_ms: 0,
    };
    runtime
        .block_on(store.create_account(&account, "hash", &session))
        .expect("create");
    c.bench_function("refresh-token rotation (SQLite, one transaction)", |b| {
        b.iter(|| {
            let next = RefreshToken::generate();
            runtime
                .block_on(store.rotate(&token.digest(), &next.digest(), 1, i64::MAX))
                .expect("rotate");
            token = next;
        })
    });
}

criterion_group!(benches, passwords, rotation);
criterion_main!(benches);
