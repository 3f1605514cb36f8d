//! Randomness for the rules: the CSPRNG, and in test builds the values a test scripted.
//!
//! Dice, deals and first movers are drawn here and nowhere else, so hidden information (future
//! dice, face-down pieces) exists only inside the call that draws it.

use ludus_rules::RandomSource;
use rand::RngExt;

/// Randomness for the rules: the thread-local CSPRNG (ChaCha12, reseeded from the OS).
pub(super) struct Csprng(rand::rngs::ThreadRng);

impl RandomSource for Csprng {
    fn below(&mut self, bound: u32) -> u32 {
        self.0.random_range(0..bound.max(1))
    }
}

pub(super) fn csprng() -> Csprng {
    Csprng(rand::rng())
}

/// A fresh version token for a commit (`ludus_store::Commit::version`): 128 random bits, so no
/// two commits of a game ever write the same one.
pub(super) fn version_token() -> String {
    format!("{:032x}", rand::rng().random::<u128>())
}

/// Randomness for one change to `game_id`: the CSPRNG. A test build (`test-seams`) first
/// uses values a test scripted for that game (`test_seams::script_random`).
pub(super) struct GameRandom<'a> {
    #[cfg_attr(not(feature = "test-seams"), allow(dead_code))]
    game_id: &'a str,
    csprng: Csprng,
}

impl RandomSource for GameRandom<'_> {
    fn below(&mut self, bound: u32) -> u32 {
        #[cfg(feature = "test-seams")]
        if let Some(value) = crate::test_seams::scripted_value(self.game_id) {
            return value % bound.max(1);
        }
        self.csprng.below(bound)
    }
}

pub(super) fn random_for(game_id: &str) -> GameRandom<'_> {
    GameRandom {
        game_id,
        csprng: csprng(),
    }
}
