"""Python stubs of the Ludus protos, generated at run time (grpcio-tools), for the test clients."""

import os
import sys
import tempfile


def load_stubs(proto_dir: str) -> None:
    """Generates the stubs of `proto_dir/ludus/**.proto` (include path `proto_dir`) into a temp
    directory and puts it first on `sys.path`, so `from ludus.v1 import ...` finds them.

    Only the `ludus/` tree: `proto/released/` beside it holds the last released copy of the same
    files, which would clash."""
    from grpc_tools import protoc

    out_dir = tempfile.mkdtemp(prefix="ludus-py-stubs-")
    protos = []
    for root, _dirs, files in os.walk(os.path.join(proto_dir, "ludus")):
        protos += [os.path.join(root, f) for f in files if f.endswith(".proto")]
    status = protoc.main(
        ["protoc", f"-I{proto_dir}", f"--python_out={out_dir}", f"--grpc_python_out={out_dir}"]
        + sorted(protos)
    )
    if status != 0:
        raise SystemExit(f"grpc_tools.protoc failed with status {status}")
    sys.path.insert(0, out_dir)
