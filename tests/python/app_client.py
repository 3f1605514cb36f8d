"""Two mobile-style clients of the Ludus gateway, generated from a given proto set.

Usage: app_client.py PROTO_DIR ADDRESS

Driven by tests/tests/e2e/contract.rs with PROTO_DIR = proto/released (the last released API):
the stubs are generated from those files, so this is an app in the field talking to the current
server. It follows the call order of MOBILE.md:

1. SignInGuest for two players (the token goes in `authorization: Bearer`).
2. FindMatch for both on Caro (the stream's last update carries the game and the seat).
3. Subscribe(after_seq = 0) for both, and play: the player to move submits with the seq it last
   saw and a fresh action_id.
4. A retry with the same action_id (the reply was lost) returns the first result, duplicate.
5. A stale expected_seq is ABORTED and changes nothing.
6. One player's app goes to the background: its stream is cancelled; the other moves; the app
   comes back with Subscribe(after_seq = the last seq it saw) and gets every event it missed,
   in order, with no gap and no duplicate.
7. A resignation ends the game, and every stream ends after the finishing event.

Prints one JSON line: the game id and the seqs each client saw. Any failure raises (non-zero
exit, the reason on stderr).
"""

import json
import os
import queue
import sys
import threading

from stubs import load_stubs


def fail(message: str) -> None:
    raise SystemExit(f"app_client: {message}")


TIMEOUT = float(os.environ.get("LUDUS_APP_TIMEOUT", "60"))


class App:
    """One player's app: a session, and at most one open game stream."""

    def __init__(self, grpc, pb, stub, name: str) -> None:
        self.grpc = grpc
        self.pb = pb
        self.stub = stub
        session = stub.SignInGuest(pb.SignInGuestRequest(display_name=name), timeout=TIMEOUT)
        self.player_id = session.player_id
        self.metadata = [("authorization", f"Bearer {session.token}")]
        self.events: "queue.Queue" = queue.Queue()
        self.stream = None
        self.seen: list = []

    def find_match(self, settings, out: dict) -> None:
        for update in self.stub.FindMatch(
            self.pb.FindMatchRequest(settings=settings), metadata=self.metadata, timeout=TIMEOUT
        ):
            if update.game_id:
                out[self.player_id] = (update.game_id, update.seat)
                return
        fail(f"{self.player_id}: FindMatch ended without a game")

    def subscribe(self, game_id: str, after_seq: int) -> None:
        self.stream = self.stub.Subscribe(
            self.pb.SubscribeRequest(game_id=game_id, after_seq=after_seq),
            metadata=self.metadata,
        )
        stream = self.stream

        def pump() -> None:
            try:
                for event in stream:
                    self.events.put(event)
                self.events.put("end")
            except self.grpc.RpcError as error:
                self.events.put(error)

        threading.Thread(target=pump, daemon=True).start()

    def background(self) -> None:
        """The app went to the background: the OS closed its connection's stream."""
        self.stream.cancel()
        while True:
            item = self.events.get(timeout=TIMEOUT)
            if not hasattr(item, "seq"):
                return  # the cancellation (or the end) arrived: nothing more from this stream
            self.take(item)

    def take(self, event) -> None:
        expected = self.seen[-1] + 1 if self.seen else 1
        if event.seq != expected:
            fail(f"{self.player_id}: event seq {event.seq} where {expected} was next (a gap or a duplicate)")
        self.seen.append(event.seq)

    def next_event(self):
        item = self.events.get(timeout=TIMEOUT)
        if not hasattr(item, "seq"):
            fail(f"{self.player_id}: the stream stopped early: {item}")
        self.take(item)
        return item

    def until(self, seq: int):
        event = None
        while not self.seen or self.seen[-1] < seq:
            event = self.next_event()
        return event


def main() -> None:
    proto_dir, address = sys.argv[1:3]
    import grpc

    load_stubs(proto_dir)
    from ludus.v1 import caro_pb2, game_pb2, gateway_pb2, gateway_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
        stub = gateway_pb2_grpc.GatewayStub(channel)
        apps = [App(grpc, gateway_pb2, stub, name) for name in ("Mai", "Tuan")]

        # 2. Quick match: both wait on their FindMatch stream at once.
        settings = game_pb2.GameSettings(caro=caro_pb2.CaroOptions(board_size=15))
        matched: dict = {}
        waits = [threading.Thread(target=app.find_match, args=(settings, matched)) for app in apps]
        for wait in waits:
            wait.start()
        for wait in waits:
            wait.join(timeout=TIMEOUT * 2)
        if len(matched) != 2 or len({game for game, _ in matched.values()}) != 1:
            fail(f"the two apps were not matched into one game: {matched}")
        game_id = next(iter(matched.values()))[0]
        seat_of = {app.player_id: matched[app.player_id][1] for app in apps}

        # 3. Both watch the game from its start.
        for app in apps:
            app.subscribe(game_id, 0)
        started = apps[0].next_event()
        apps[1].next_event()
        if not started.HasField("started"):
            fail(f"event 1 is not GameStarted: {started}")
        seq = started.seq

        def mover(turn) -> App:
            return next(app for app in apps if seat_of[app.player_id] == turn.to_move)

        def play(app: App, action_id: str):
            """GetGame, then SubmitAction with the snapshot's seq; ABORTED means an event (a
            presence change, say) landed in between: read the game again and retry, as an app
            does."""
            for _attempt in range(5):
                snapshot = stub.GetGame(
                    gateway_pb2.GetGameRequest(game_id=game_id), metadata=app.metadata, timeout=TIMEOUT
                ).game
                if not snapshot.legal_actions:
                    fail(f"GetGame at seq {snapshot.seq}: no legal action for the player to move")
                # Any of the server's legal actions will do; the middle one keeps to the centre.
                chosen = snapshot.legal_actions[len(snapshot.legal_actions) // 2]
                request = gateway_pb2.SubmitActionRequest(
                    game_id=game_id, expected_seq=snapshot.seq, action_id=action_id, action=chosen.action
                )
                try:
                    return request, stub.SubmitAction(request, metadata=app.metadata, timeout=TIMEOUT)
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.ABORTED:
                        raise
            fail("SubmitAction stayed ABORTED after five fresh reads")

        # The first move, then 4. its retry after a "lost" reply.
        first = mover(started.turn)
        request, reply = play(first, "app-move-1")
        if reply.duplicate or reply.event.seq <= seq:
            fail(f"the first move: {reply}")
        retry = stub.SubmitAction(request, metadata=first.metadata, timeout=TIMEOUT)
        if not retry.duplicate or retry.event.seq != reply.event.seq:
            fail(f"a retried action_id must return the first result: {retry}")
        seq = reply.event.seq
        for app in apps:
            app.until(seq)

        # 5. A stale seq: ABORTED, nothing changes.
        second = mover(reply.event.turn)
        try:
            play_stale = gateway_pb2.SubmitActionRequest(
                game_id=game_id, expected_seq=seq - 1, action_id="app-stale",
                action=game_pb2.Action(notation="A1"),
            )
            stub.SubmitAction(play_stale, metadata=second.metadata, timeout=TIMEOUT)
            fail("a stale expected_seq was accepted")
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.ABORTED:
                fail(f"a stale expected_seq: {error.code()} {error.details()}, expected ABORTED")

        # 6. The second player's app goes to the background; the game goes on without it.
        _, reply = play(second, "app-move-2")
        seq = reply.event.seq
        first.until(seq)
        second.until(seq)
        second.background()
        missed_from = second.seen[-1]
        _, reply = play(first, "app-move-3")
        seq = reply.event.seq
        first.until(seq)
        # Back in the foreground: resume after the last seq it saw.
        second.subscribe(game_id, missed_from)
        resumed = second.until(seq)
        if resumed.seq != seq:
            fail(f"resumed at {resumed.seq}, expected {seq}")

        # 7. The first player resigns: the finishing event, then every stream ends.
        stub.Resign(gateway_pb2.ResignRequest(game_id=game_id), metadata=first.metadata, timeout=TIMEOUT)
        for app in apps:
            # A presence event may come before the resignation: read up to the finish.
            while True:
                event = app.next_event()
                if event.HasField("resigned"):
                    break
            end = app.events.get(timeout=TIMEOUT)
            if end != "end":
                fail(f"{app.player_id}: the stream did not end after the finishing event: {end}")

        print(json.dumps({"game_id": game_id, "seen": {app.player_id: app.seen for app in apps}}))


if __name__ == "__main__":
    main()
