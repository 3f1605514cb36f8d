#!/usr/bin/env python3
"""Sums `perf report` self time by component (BENCHMARKS.md, "Where a move's CPU goes").

Usage: perf report -i perf.data --no-children --sort dso,sym --stdio -q 2>/dev/null \
         | bench/peers/perf-components.py [--bin-dir DIR] [--top N]
Reads lines "<overhead>%  <dso>  [.|k] <symbol>" and prints one markdown table.

perf on this box often leaves a Rust binary's samples as raw addresses ("0x0000000000a808bc")
although the binaries carry their symbols: with --bin-dir, such an address in a DSO found in
DIR is resolved with `nm -C` (perf's address is a file offset: it is moved to the symbols'
address space through the LOAD segments `readelf -l` lists). --top N also prints the N heaviest
symbols after resolving.
"""
import bisect
import os
import re
import subprocess
import sys

# First match wins: (component, patterns searched in "dso symbol").
COMPONENTS = [
    ("kernel (loopback TCP, epoll, scheduler, syscalls)", [r"\[kernel", r"\[k\]"]),
    ("allocator (mimalloc, libc malloc/free)", [r"\bmi_|_mi_|mimalloc|malloc|_int_free|\bfree\b|cfree|realloc|calloc"]),
    ("memcpy/memmove/memcmp (libc)", [r"mem(cpy|move|cmp|set)|__memcmp|bcmp"]),
    ("redis-server", [r"redis-server|redis-check-rdb|libjemalloc"]),
    ("redis client (redis-rs)", [r"\bredis::|combine::"]),
    ("tracing / OpenTelemetry / logs", [r"tracing|opentelemetry|sharded_slab|nu_ansi|matchers"]),
    ("h2 / hyper (HTTP/2 framing, HPACK)", [r"\bh2::|hyper|httparse"]),
    ("tonic / tower / http", [r"tonic|tower|\bhttp::|http_body|axum"]),
    ("prost (protobuf encode/decode)", [r"prost|::encode|::merge|encoded_len"]),
    ("tokio runtime", [r"tokio|mio::|parking_lot"]),
    ("rules (caro, game logic)", [r"ludus_caro|ludus_rules|ludus_catalog|ludus_games"]),
    # Crate paths, not the DSO's name (every symbol of ludus-gateway carries that).
    ("Ludus services and store (other ludus_* code)", [r"ludus_"]),
    ("JSON / hashing / tokens", [r"serde|json|sha2|hmac|jsonwebtoken|ulid|base64|ring::|rustls"]),
    ("Rust std/core/alloc, bytes, slab (collections, fmt, drops)",
     [r"core::|alloc::|std::|hashbrown|bytes::|slab::|<"]),
]


class Symbols:
    """A binary's function symbols by address, from `nm -C`."""

    def __init__(self, path: str) -> None:
        out = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True,
                             text=True, check=False).stdout
        pairs = []
        for line in out.splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in "tTwW":
                pairs.append((int(parts[0], 16), parts[2]))
        pairs.sort()
        self.addresses = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]
        # (file offset, size, virtual address) of each LOAD segment.
        headers = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True,
                                 check=False).stdout
        self.segments = [
            (int(m.group(1), 16), int(m.group(3), 16), int(m.group(2), 16))
            for m in re.finditer(r"LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)",
                                 headers)
        ]

    def name(self, file_offset: int) -> str | None:
        address = next((file_offset - offset + vaddr for offset, size, vaddr in self.segments
                        if offset <= file_offset < offset + size), file_offset)
        i = bisect.bisect_right(self.addresses, address) - 1
        return self.names[i] if i >= 0 else None


def main() -> None:
    args = sys.argv[1:]
    bin_dir = args[args.index("--bin-dir") + 1] if "--bin-dir" in args else None
    top = int(args[args.index("--top") + 1]) if "--top" in args else 0
    symbols: dict[str, Symbols | None] = {}
    totals: dict[str, float] = {}
    by_symbol: dict[str, float] = {}
    for line in sys.stdin:
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+(\[.\])\s+(.*)", line)
        if not m:
            continue
        share, dso, kind, symbol = float(m.group(1)), m.group(2), m.group(3), m.group(4)
        raw = re.fullmatch(r"0x([0-9a-f]+)", symbol.strip())
        if raw and bin_dir:
            if dso not in symbols:
                path = os.path.join(bin_dir, dso)
                symbols[dso] = Symbols(path) if os.path.isfile(path) else None
            table = symbols[dso]
            resolved = table.name(int(raw.group(1), 16)) if table else None
            symbol = resolved or symbol
        by_symbol[f"{dso} {symbol}"] = by_symbol.get(f"{dso} {symbol}", 0.0) + share
        text = f"{dso} {kind} {symbol}"
        component = "other (unresolved addresses, libc, ...)"
        for name, patterns in COMPONENTS:
            if any(re.search(p, text) for p in patterns):
                component = name
                break
        totals[component] = totals.get(component, 0.0) + share
    print("| component | share of samples |")
    print("|---|---|")
    for name, share in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {share:.1f} % |")
    if top:
        print()
        for name, share in sorted(by_symbol.items(), key=lambda kv: -kv[1])[:top]:
            print(f"{share:6.2f} %  {name[:140]}")


if __name__ == "__main__":
    main()
