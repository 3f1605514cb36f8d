//! A response stream whose producer runs inside the body's own polls: no task and no channel
//! between the algorithm that decides what a subscriber gets ([`crate::fanout::Resume`]) and
//! the HTTP/2 stream that sends it.
//!
//! A spectator's stream used to be a spawned task forwarding into a channel that the body
//! read: for one event to 1,000 subscribers that is 1,000 more task wake-ups and channel
//! hand-offs on top of the streams' own (BENCHMARKS.md, "One write per connection"). Here
//! the body polls the producer when it wants an item; the producer's `send` puts the item in
//! a queue the body empties first. When the client leaves, the body is dropped and the
//! producer with it, at whatever it was waiting for: so only streams with nothing to undo
//! when they close run this way (a seated player's stream says it closed: it keeps its task).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use ludus_proto::codec::EncodedEvent;
use tonic::Status;

use crate::fanout::{Outbox, StreamItem};

/// Items handed on and not yet taken by the body, shared by the two ends.
type Queue = Arc<Mutex<VecDeque<StreamItem>>>;

/// The producer's end: where it sends its items.
#[derive(Debug)]
pub(crate) struct InlineOutbox {
    queue: Queue,
    capacity: usize,
}

impl Outbox for InlineOutbox {
    /// Queues `item`; while `capacity` items wait, waits for the body to take them. That wait
    /// registers no waker, and needs none: the producer is polled only by the body, which
    /// polls it again only once the queue is empty.
    async fn send(&mut self, item: StreamItem) -> Result<(), crate::fanout::ClientGone> {
        let mut item = Some(item);
        std::future::poll_fn(|_| {
            let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            if queue.len() >= self.capacity {
                return Poll::Pending;
            }
            if let Some(item) = item.take() {
                queue.push_back(item);
            }
            Poll::Ready(())
        })
        .await;
        Ok(())
    }

    /// Never: a client that leaves drops the body, and the producer with it.
    async fn closed(&self) {
        std::future::pending::<()>().await;
    }
}

/// The body's end: a stream of the items `producer` sends, which ends when `producer` has
/// returned and its items are taken.
pub(crate) struct InlineStream<F> {
    producer: Option<Pin<Box<F>>>,
    queue: Queue,
}

/// A producer's outbox holding at most `capacity` items, and the stream that runs `producer`
/// (made from that outbox) and yields what it sends.
pub(crate) fn stream<F>(
    capacity: usize,
    producer: impl FnOnce(InlineOutbox) -> F,
) -> InlineStream<F>
where
    F: Future<Output = ()> + Send,
{
    let queue = Queue::default();
    let outbox = InlineOutbox {
        queue: queue.clone(),
        capacity: capacity.max(1),
    };
    InlineStream {
        producer: Some(Box::pin(producer(outbox))),
        queue,
    }
}

impl<F> InlineStream<F> {
    fn take(&self) -> Option<Result<EncodedEvent, Status>> {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
            .map(|item| item.map_err(|status| *status))
    }
}

impl<F: Future<Output = ()> + Send> futures::Stream for InlineStream<F> {
    type Item = Result<EncodedEvent, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(item) = this.take() {
            return Poll::Ready(Some(item));
        }
        if let Some(producer) = this.producer.as_mut()
            && producer.as_mut().poll(cx).is_ready()
        {
            this.producer = None;
        }
        match this.take() {
            Some(item) => Poll::Ready(Some(item)),
            None if this.producer.is_none() => Poll::Ready(None),
            None => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use futures::StreamExt as _;

    use super::*;

    fn event(byte: u8) -> StreamItem {
        Ok(EncodedEvent::from_encoded(bytes::Bytes::from(vec![byte])))
    }

    fn bytes_of(item: Option<Result<EncodedEvent, Status>>) -> Vec<u8> {
        item.expect("an item")
            .expect("an event")
            .as_bytes()
            .to_vec()
    }

    #[tokio::test]
    async fn yields_what_the_producer_sends_in_order_then_ends() {
        let mut stream = stream(2, |mut outbox| async move {
            for byte in 1..=5 {
                outbox.send(event(byte)).await.expect("sent");
            }
            let _ = outbox
                .send(Err(Box::new(Status::unavailable(
                    "resume with after_seq = 5",
                ))))
                .await;
        });
        for byte in 1..=5 {
            assert_eq!(bytes_of(stream.next().await), vec![byte]);
        }
        let status = stream
            .next()
            .await
            .expect("the status")
            .expect_err("a status");
        assert_eq!(status.code(), tonic::Code::Unavailable);
        assert!(
            stream.next().await.is_none(),
            "ends once the producer returned"
        );
    }

    #[tokio::test]
    async fn the_producer_waits_while_its_items_are_not_taken() {
        let sent_third = Arc::new(AtomicBool::new(false));
        let mut stream = stream(2, {
            let sent_third = sent_third.clone();
            |mut outbox| async move {
                for byte in 1..=3 {
                    outbox.send(event(byte)).await.expect("sent");
                    if byte == 3 {
                        sent_third.store(true, Ordering::SeqCst);
                    }
                }
                std::future::pending::<()>().await;
            }
        });
        assert_eq!(bytes_of(stream.next().await), vec![1]);
        assert!(
            !sent_third.load(Ordering::SeqCst),
            "two items waiting: the third waits for room"
        );
        assert_eq!(bytes_of(stream.next().await), vec![2]);
        assert_eq!(bytes_of(stream.next().await), vec![3]);
        assert!(sent_third.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn a_dropped_stream_drops_its_producer() {
        let dropped = Arc::new(AtomicBool::new(false));
        struct Flag(Arc<AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let mut stream = stream(2, {
            let flag = Flag(dropped.clone());
            |mut outbox| async move {
                let _flag = flag;
                outbox.send(event(1)).await.expect("sent");
                std::future::pending::<()>().await;
            }
        });
        assert_eq!(bytes_of(stream.next().await), vec![1]);
        drop(stream);
        assert!(
            dropped.load(Ordering::SeqCst),
            "the client left: nothing runs on"
        );
    }
}
