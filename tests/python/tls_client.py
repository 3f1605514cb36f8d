"""A Python grpcio client of the Ludus gateway over TLS (driven by tests/tests/e2e/tls.rs).

Usage: tls_client.py PROTO_DIR ADDRESS CA_FILE

Generates the Python stubs from PROTO_DIR (grpcio-tools) into a temp directory, connects to
ADDRESS (host:port) over TLS trusting only CA_FILE, signs in as a guest, starts a Caro game
against the computer and plays H8. Prints one JSON line: the game id, the player id, and the
seq the move got. Any failure raises (non-zero exit, traceback on stderr).
"""

import json
import sys

from stubs import load_stubs


def main() -> None:
    proto_dir, address, ca_file = sys.argv[1:4]
    import grpc

    load_stubs(proto_dir)
    from ludus.v1 import caro_pb2, game_pb2, gateway_pb2, gateway_pb2_grpc

    with open(ca_file, "rb") as f:
        credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
    with grpc.secure_channel(address, credentials) as channel:
        grpc.channel_ready_future(channel).result(timeout=60)
        gateway = gateway_pb2_grpc.GatewayStub(channel)
        session = gateway.SignInGuest(
            gateway_pb2.SignInGuestRequest(display_name="Python"), timeout=60
        )
        metadata = [("authorization", f"Bearer {session.token}")]
        game = gateway.PlayComputer(
            gateway_pb2.PlayComputerRequest(
                settings=game_pb2.GameSettings(caro=caro_pb2.CaroOptions()),
                level="easy",
                computer_first=False,
            ),
            metadata=metadata,
            timeout=60,
        ).game
        played = gateway.SubmitAction(
            gateway_pb2.SubmitActionRequest(
                game_id=game.game_id,
                expected_seq=game.seq,
                action_id="python-1",
                action=game_pb2.Action(notation="H8"),
            ),
            metadata=metadata,
            timeout=60,
        )
        if not played.event.HasField("action_applied"):
            raise SystemExit(f"the move was not applied: {played.event}")
        print(
            json.dumps(
                {
                    "game_id": game.game_id,
                    "player_id": session.player_id,
                    "seq": played.event.seq,
                }
            )
        )


if __name__ == "__main__":
    main()
