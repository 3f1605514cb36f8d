//! A fair share of a few slots (the password hasher's): callers are served round-robin by
//! key (the client's address), so one address queueing a thousand registrations waits behind
//! itself, and a sign-in from another address takes the next free slot but one, not the
//! thousand-and-first (ARCHITECTURE.md, "Accounts").
//!
//! A slot is a [`Turn`]; dropping it hands the slot straight to the next waiter, taken from
//! the key after the one served last. Waiters that went away (their call was cancelled) are
//! skipped.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex, PoisonError},
};

use tokio::sync::oneshot;

/// Slots shared round-robin among keys.
#[derive(Clone, Debug)]
pub struct FairQueue {
    state: Arc<Mutex<State>>,
}

#[derive(Debug)]
struct State {
    /// Slots nobody holds.
    free: usize,
    /// Keys with someone waiting, in the order they are served next.
    order: VecDeque<String>,
    /// Each waiting key's waiters, oldest first.
    waiting: HashMap<String, VecDeque<oneshot::Sender<Turn>>>,
}

/// One held slot, given back when dropped.
#[derive(Debug)]
pub struct Turn {
    state: Option<Arc<Mutex<State>>>,
}

impl FairQueue {
    /// `slots` slots (at least one).
    pub fn new(slots: usize) -> Self {
        FairQueue {
            state: Arc::new(Mutex::new(State {
                free: slots.max(1),
                order: VecDeque::new(),
                waiting: HashMap::new(),
            })),
        }
    }

    /// A slot for `key`: at once when one is free and nobody waits, else in `key`'s turn.
    pub async fn turn(&self, key: &str) -> Turn {
        let receiver = {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            if state.free > 0 && state.order.is_empty() {
                state.free -= 1;
                return Turn {
                    state: Some(self.state.clone()),
                };
            }
            let (sender, receiver) = oneshot::channel();
            let queue = state.waiting.entry(key.to_owned()).or_default();
            if queue.is_empty() {
                state.order.push_back(key.to_owned());
            }
            if let Some(queue) = state.waiting.get_mut(key) {
                queue.push_back(sender);
            }
            receiver
        };
        match receiver.await {
            Ok(turn) => turn,
            // The sender lives in the queue until a slot is handed to it, and the queue lives
            // as long as `self`: this cannot happen, but a slot taken here is still a slot.
            Err(_) => Box::pin(self.turn(key)).await,
        }
    }

    /// Callers waiting for a slot, all keys together.
    pub fn waiting(&self) -> usize {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.waiting.values().map(VecDeque::len).sum()
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let Some(shared) = self.state.take() else {
            return;
        };
        let mut state = shared.lock().unwrap_or_else(PoisonError::into_inner);
        while let Some(key) = state.order.pop_front() {
            let Some(queue) = state.waiting.get_mut(&key) else {
                continue;
            };
            let next = queue.pop_front();
            if queue.is_empty() {
                state.waiting.remove(&key);
            } else {
                state.order.push_back(key);
            }
            let Some(next) = next else { continue };
            let handed = Turn {
                state: Some(shared.clone()),
            };
            match next.send(handed) {
                Ok(()) => return,
                // That waiter went away: defuse the turn (the lock is held) and try the next.
                Err(mut unwanted) => unwanted.state = None,
            }
        }
        state.free += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn until_waiting(queue: &FairQueue, waiting: usize) {
        while queue.waiting() < waiting {
            tokio::task::yield_now().await;
        }
    }

    /// Security (ARCHITECTURE.md, "Accounts"): a caller is served within one round of the
    /// others, however many turns another key queued first.
    #[tokio::test]
    async fn a_caller_is_served_after_one_turn_of_a_key_that_queued_a_burst() {
        let queue = FairQueue::new(1);
        let held = queue.turn("flooder").await;
        let served = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        let mut wait = |key: &'static str, queue: &FairQueue| {
            let (queue, served) = (queue.clone(), served.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = queue.turn(key).await;
                served.lock().unwrap().push(key);
            }));
        };
        for n in 0..20 {
            wait("flooder", &queue);
            until_waiting(&queue, n + 1).await;
        }
        wait("neighbour", &queue);
        until_waiting(&queue, 21).await;
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        let served = served.lock().unwrap();
        let position = served.iter().position(|k| *k == "neighbour").unwrap();
        assert_eq!(
            position, 1,
            "the neighbour comes after one of the flood's turns, not all 20: {served:?}"
        );
        assert_eq!(served.len(), 21);
    }

    #[tokio::test]
    async fn a_cancelled_waiter_passes_its_turn_on() {
        let queue = FairQueue::new(1);
        let held = queue.turn("a").await;
        let gone = {
            let queue = queue.clone();
            tokio::spawn(async move { drop(queue.turn("b").await) })
        };
        until_waiting(&queue, 1).await;
        gone.abort();
        let _ = gone.await;
        let next = {
            let queue = queue.clone();
            tokio::spawn(async move { drop(queue.turn("c").await) })
        };
        until_waiting(&queue, 2).await;
        drop(held);
        next.await.unwrap();
        // Every slot came back: a new caller gets one at once.
        assert_eq!(queue.waiting(), 0);
        drop(queue.turn("d").await);
    }
}
