//! One message to many server streams of one connection leaves in a few writes, not one write
//! per stream: what lets one game event reach a thousand subscribers of a gateway without a
//! thousand `sendto`s (BENCHMARKS.md, "One write per connection"). The gateway needs both
//! halves: the accepted connection telling h2 to buffer such frames (`Conn::is_write_vectored`;
//! without it this test counts 201 writes for 200 streams) and the runtime running the
//! connection's task after the streams' tasks ([`ludus_server::runtime`]). The second only
//! shows with both workers busy, as in `loadgen streams`; here the test checks that the build
//! has it.
//!
//! Counted from `/proc/self/io` (`syscw`, this process's write system calls: the server's
//! and the client's, and the runtime's own wake-ups), so Linux only.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ludus_proto::pb::{
    self,
    matchmaking_client::MatchmakingClient,
    matchmaking_server::{Matchmaking, MatchmakingServer},
};
use tokio::net::TcpListener;
use tokio::sync::{Notify, broadcast, mpsc};
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

/// Streams watching at once: the writes one update costs are compared with this.
const STREAMS: usize = 200;

/// A ticket id long enough that the update is a frame h2 would otherwise keep apart (a game
/// event is 350-550 bytes).
const TICKET_ID_BYTES: usize = 400;

/// Every `WatchTicket` stream gets each update sent on `updates`, through a task and a
/// channel of its own, the way the gateway's event streams do.
struct Broadcasting {
    updates: broadcast::Sender<pb::TicketUpdate>,
    watching: Arc<AtomicUsize>,
    opened: Arc<Notify>,
}

#[tonic::async_trait]
impl Matchmaking for Broadcasting {
    type WatchTicketStream =
        tokio_stream::wrappers::ReceiverStream<Result<pb::TicketUpdate, Status>>;

    async fn enqueue(
        &self,
        _: Request<pb::EnqueueRequest>,
    ) -> Result<Response<pb::EnqueueResponse>, Status> {
        Err(Status::unimplemented("not in this test"))
    }

    async fn watch_ticket(
        &self,
        _: Request<pb::WatchTicketRequest>,
    ) -> Result<Response<Self::WatchTicketStream>, Status> {
        let mut updates = self.updates.subscribe();
        let (tx, rx) = mpsc::channel(8);
        tokio::spawn(async move {
            while let Ok(update) = updates.recv().await {
                if tx.send(Ok(update)).await.is_err() {
                    return;
                }
            }
        });
        self.watching.fetch_add(1, Ordering::AcqRel);
        self.opened.notify_one();
        Ok(Response::new(tokio_stream::wrappers::ReceiverStream::new(
            rx,
        )))
    }

    type QueueAndWatchStream = Self::WatchTicketStream;

    async fn queue_and_watch(
        &self,
        _: Request<pb::EnqueueRequest>,
    ) -> Result<Response<Self::QueueAndWatchStream>, Status> {
        Err(Status::unimplemented("not in this test"))
    }

    async fn cancel_ticket(
        &self,
        _: Request<pb::CancelTicketRequest>,
    ) -> Result<Response<pb::TicketUpdate>, Status> {
        Err(Status::unimplemented("not in this test"))
    }
}

/// This process's write system calls so far.
fn writes_so_far() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").expect("/proc/self/io");
    io.lines()
        .find_map(|line| line.strip_prefix("syscw: "))
        .and_then(|count| count.trim().parse().ok())
        .expect("syscw in /proc/self/io")
}

#[test]
fn one_update_to_many_streams_of_a_connection_is_a_few_writes() {
    assert!(
        ludus_server::runtime::lifo_slot_off(),
        "built without the tokio_unstable cfg of .cargo/config.toml (RUSTFLAGS replaces it)"
    );
    ludus_server::runtime()
        .expect("runtime")
        .block_on(update_many_streams());
}

async fn update_many_streams() {
    ludus_server::service_auth::install(&[7; 32], "tests").expect("secret");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let (updates, _) = broadcast::channel(4);
    let watching = Arc::new(AtomicUsize::new(0));
    let opened = Arc::new(Notify::new());
    let stop = CancellationToken::new();
    let serving = tokio::spawn(ludus_server::serve(
        MatchmakingServer::new(Broadcasting {
            updates: updates.clone(),
            watching: watching.clone(),
            opened: opened.clone(),
        }),
        listener,
        stop.clone().cancelled_owned(),
    ));

    // One connection (a plain channel: not the in-process path), many streams on it.
    let endpoint = tonic::transport::Endpoint::from_shared(url).expect("endpoint");
    let mut channel = None;
    for _ in 0..100 {
        if let Ok(connected) = endpoint.connect().await {
            channel = Some(connected);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let client = MatchmakingClient::with_interceptor(
        channel.expect("the server listens"),
        ludus_server::TraceContext,
    );
    let mut streams = Vec::new();
    for _ in 0..STREAMS {
        let stream = client
            .clone()
            .watch_ticket(pb::WatchTicketRequest::default())
            .await
            .expect("watching")
            .into_inner();
        streams.push(stream);
    }
    while watching.load(Ordering::Acquire) < STREAMS {
        opened.notified().await;
    }

    let update = pb::TicketUpdate {
        ticket_id: "t".repeat(TICKET_ID_BYTES),
        ..Default::default()
    };
    let before = writes_so_far();
    // From a task of the runtime, as the gateway's feed hands an event to its streams.
    let sent = {
        let (updates, update) = (updates.clone(), update.clone());
        tokio::spawn(async move { updates.send(update) })
    };
    sent.await.expect("sender task").expect("streams listening");
    for stream in &mut streams {
        let received = stream.message().await.expect("an update").expect("open");
        assert_eq!(received, update);
    }
    let writes = writes_so_far() - before;
    // One write per stream was the old cost; a handful of writes (and the runtime's wake-ups
    // of its parked workers, also counted) is the new one.
    assert!(
        writes < (STREAMS / 4) as u64,
        "{writes} write system calls to send one update to {STREAMS} streams of one connection"
    );

    drop(streams);
    stop.cancel();
    serving.await.expect("server task").expect("server");
}
