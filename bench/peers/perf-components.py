#!/usr/bin/env python3
"""Sums `perf report` self time by component (BENCHMARKS.md, "Where a move's CPU goes").

Usage: perf report -i perf.data --no-children --sort dso,sym --stdio -q 2>/dev/null \
         | bench/peers/perf-components.py
Reads lines "<overhead>%  <dso>  [.|k] <symbol>" and prints one markdown table.
"""
import re
import sys

# First match wins: (component, patterns searched in "dso symbol").
COMPONENTS = [
    ("kernel (loopback TCP, epoll, scheduler, syscalls)", [r"\[kernel", r"\[k\]"]),
    ("allocator (mimalloc, libc malloc/free)", [r"\bmi_|_mi_|mimalloc|malloc|_int_free|\bfree\b|cfree|realloc|calloc"]),
    ("memcpy/memmove/memcmp (libc)", [r"mem(cpy|move|cmp|set)|__memcmp|bcmp"]),
    ("redis-server", [r"redis-server"]),
    ("redis client (redis-rs)", [r"\bredis::|combine::"]),
    ("tracing / OpenTelemetry / logs", [r"tracing|opentelemetry|sharded_slab|nu_ansi|matchers"]),
    ("h2 / hyper (HTTP/2 framing, HPACK)", [r"\bh2::|hyper|httparse"]),
    ("tonic / tower / http", [r"tonic|tower|\bhttp::|http_body|axum"]),
    ("prost (protobuf encode/decode)", [r"prost|::encode|::merge|encoded_len"]),
    ("tokio runtime", [r"tokio|mio::|parking_lot"]),
    ("rules (caro, game logic)", [r"ludus_caro|ludus_rules|ludus_catalog|ludus_games"]),
    ("Ludus services and store (other ludus_* code)", [r"ludus"]),
    ("JSON / hashing / tokens", [r"serde|json|sha2|hmac|jsonwebtoken|ulid|base64|ring::|rustls"]),
    ("Rust std/core/alloc (collections, fmt, drops)", [r"core::|alloc::|std::|hashbrown|<"]),
]


def main() -> None:
    totals: dict[str, float] = {}
    for line in sys.stdin:
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+(\[.\])\s+(.*)", line)
        if not m:
            continue
        share, dso, kind, symbol = float(m.group(1)), m.group(2), m.group(3), m.group(4)
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


if __name__ == "__main__":
    main()
