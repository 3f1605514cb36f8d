#!/usr/bin/env python3
"""gnubg judges the backgammon bots (not part of CI).

    pip install gnubg            # GNU Backgammon 1.1 as a Python module
    cargo build --release -p ludus-backgammon --example judge_bot
    python3 games/backgammon/judge/judge.py corpus   # once: writes corpus.txt (gnubg self-play)
    python3 games/backgammon/judge/judge.py judge [--plies 2]

Checker play: for each decision of the corpus every distinct legal result is scored by gnubg
at 0-ply, the best few and every bot choice again at `--plies` (default 2); the error of a
choice is the cubeless money equity of gnubg's best minus that of the choice, in mEMG
(thousandths of a point per game). Decisions are classified by the position before the play:
contact (the sides can still meet), race (no contact, the mover not yet all home) or bear-off
(no contact, every checker of the mover home).

Cube: money, centred cube, no Jacoby, no beavers; gnubg's cubeful 2-ply cube analysis
(No double / Double-take / Double-pass equities) grades both the doubler (double or roll) and
the taker (take or pass): error = equity of the best action minus that of the bot's.

gnubg evaluations are cached in `cache.json` next to this script, so judging a new bot costs
only its new choices.
"""
import argparse
import base64
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

import gnubg

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CORPUS = os.environ.get("JUDGE_CORPUS", os.path.join(HERE, "corpus.txt"))
CACHE = os.environ.get("JUDGE_CACHE", os.path.join(HERE, "cache.json"))
BOT = os.environ.get("JUDGE_BOT", os.path.join(ROOT, "target", "release", "examples", "judge_bot"))

gnubg.command("set threads 1")  # the library deadlocks in `hint` with worker threads
gnubg.command("set jacoby off")


def equity(p):
    """Cubeless money equity of gnubg's outputs (win, wg, wbg, lg, lbg) for the side on roll."""
    w, wg, wbg, lg, lbg = p[:5]
    return 2 * w - 1 + wg - lg + wbg - lbg


def contact(board):
    opp, me = board
    top_me = max((i + 1 for i in range(25) if me[i]), default=0)
    top_opp = max((i + 1 for i in range(25) if opp[i]), default=0)
    return top_me + top_opp > 25


def kind(board):
    if contact(board):
        return "contact"
    return "bearoff" if all(c == 0 for c in board[1][6:]) else "race"


def make_corpus(args):
    """gnubg (0-ply) plays itself: every legal result (from the rules' own generation, via
    judge_bot) is scored by gnubg and the best is played. Every checker decision with a choice
    is kept, and the pre-roll positions where a cube decision is close."""
    rng = random.Random(args.seed)
    ctx0 = gnubg.evalcontext(0, 0, 1, 1, 0.0)
    ci = gnubg.cubeinfo()
    bot = subprocess.Popen([BOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    plays = defaultdict(list)
    cubes = []
    for _ in range(args.games):
        pid = "4HPwATDgc/ABMA"
        for _ in range(400):
            board = gnubg.positionfromid(pid)
            if sum(board[0]) == 0 or sum(board[1]) == 0:
                break
            w = gnubg.evaluate(board, ci, ctx0)[0]
            if 0.62 <= w <= 0.92:
                cubes.append(pid)
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            bot.stdin.write(f"L {pid} {dice[0]} {dice[1]}\n")
            bot.stdin.flush()
            results = bot.stdout.readline().split()[1:]
            if len(results) > 1:
                plays[kind(board)].append(f"P {pid} {dice[0]} {dice[1]}")
            # The opponent is on roll after the play: the mover wants their equity lowest.
            pid = min(results, key=lambda r: equity(
                gnubg.evaluate(gnubg.positionfromid(r), ci, ctx0)))
    bot.stdin.close()
    bot.wait()
    out = []
    for k, cap in (("contact", args.contact), ("race", args.race), ("bearoff", args.bearoff)):
        got = plays[k]
        rng.shuffle(got)
        out += got[:cap]
        print(f"{k}: {len(got)} decisions, kept {min(cap, len(got))}", file=sys.stderr)
    rng.shuffle(cubes)
    out += [f"C {c}" for c in cubes[: args.cube]]
    print(f"cube: {len(cubes)} positions, kept {min(args.cube, len(cubes))} "
          f"({args.games} games)", file=sys.stderr)
    with open(CORPUS, "w") as f:
        f.write("\n".join(out) + "\n")


class Cache:
    def __init__(self):
        self.data = json.load(open(CACHE)) if os.path.exists(CACHE) else {}

    def save(self):
        with open(CACHE, "w") as f:
            json.dump(self.data, f)

    def result_equity(self, pid, plies):
        """The mover's cubeless equity after a play that reached `pid` (opponent on roll)."""
        key = f"e{plies}:{pid}"
        if key not in self.data:
            board = gnubg.positionfromid(pid)
            ctx = gnubg.evalcontext(0, plies, 1, 1, 0.0)
            self.data[key] = -equity(gnubg.evaluate(board, gnubg.cubeinfo(), ctx))
        return self.data[key]

    def cube(self, pid, plies):
        """gnubg's (No double, Double-take, Double-pass) cubeful equities, per unit cube."""
        # "nj": without the Jacoby rule (the older `c{plies}:` entries were graded under it).
        key = f"c{plies}nj:{pid}"
        if key not in self.data:
            self.data[key] = cube_analysis(pid, plies)
        return self.data[key]


def no_jacoby(mid):
    """The Match ID with bit 66 (counting from 0) set, which turns the Jacoby rule off: without
    it the session `setgnubgid` sets up plays money under the Jacoby rule whatever `set jacoby
    off` said (gnubg 1.1's Python module; `show jacoby` after `setgnubgid` tells)."""
    raw = bytearray(base64.b64decode(mid))
    raw[66 // 8] |= 1 << (66 % 8)
    return base64.b64encode(bytes(raw)).decode()


def cube_analysis(pid, plies):
    board = gnubg.positionfromid(pid)
    ci = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0, 0)
    pi = gnubg.posinfo(1, 0, 0, 1, (0, 0))
    mid = no_jacoby(gnubg.matchid(ci, pi))
    gnubg.setgnubgid(f"{pid}:{mid}")
    gnubg.command(f"set evaluation cubedecision evaluation plies {plies}")
    gnubg.command("set evaluation cubedecision evaluation cubeful on")
    # `hint` prints to the C stdout: catch it on the file descriptor.
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+") as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            gnubg.command("hint")
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read()
    eq = {}
    for name, label in (("nd", "No double"), ("dt", "Double, take"), ("dp", "Double, pass")):
        m = re.search(label + r"\s+([+-]\d+\.\d+)", text)
        if not m:
            raise RuntimeError(f"no '{label}' in gnubg's cube hint for {pid}:\n{text}")
        eq[name] = float(m.group(1))
    return eq


def run_bot(lines):
    proc = subprocess.run([BOT], input="\n".join(lines) + "\n", capture_output=True, text=True,
                          check=True)
    return proc.stdout.splitlines()


def judge(args):
    lines = [l.strip() for l in open(CORPUS) if l.strip()]
    answers = run_bot(lines)
    cache = Cache()
    levels = ("easy", "normal", "hard")
    err = defaultdict(list)  # (level, class) -> errors in mEMG
    best_hits = defaultdict(int)
    hard_ms = []
    normal_ms = []
    cube_err = defaultdict(list)  # (level, "double"|"take") -> errors
    for n, (line, ans) in enumerate(zip(lines, answers)):
        if ans.startswith("E"):
            raise RuntimeError(f"{line}: {ans}")
        f = line.split()
        if f[0] == "P":
            k = kind(gnubg.positionfromid(f[1]))
            head, tail = ans.split("|")
            h = head.split()
            chosen, ms = h[1:4], float(h[4])
            hard_ms.append(ms)
            normal_ms.append(float(h[5]))
            results = tail.split()
            rough = sorted(results, key=lambda r: -cache.result_equity(r, 0))
            finalists = set(rough[: args.keep]) | set(chosen)
            eqs = {r: cache.result_equity(r, args.plies) for r in finalists}
            best = max(eqs.values())
            for lv, r in zip(levels, chosen):
                e = 1000 * (best - eqs[r])
                err[(lv, k)].append(e)
                err[(lv, "all")].append(e)
                best_hits[(lv, k)] += e < 1e-9
                best_hits[(lv, "all")] += e < 1e-9
        else:
            c = cache.cube(f[1], args.plies)
            a = ans.split()
            doubled = min(c["dt"], c["dp"])
            best_d = max(c["nd"], doubled)
            for lv, d, t in zip(levels, a[1:4], a[4:7]):
                got = doubled if d == "D" else c["nd"]
                cube_err[(lv, "double")].append(1000 * (best_d - got))
                got_t = c["dt"] if t == "T" else c["dp"]
                cube_err[(lv, "take")].append(1000 * (got_t - doubled))
        if n % 50 == 0:
            cache.save()
    cache.save()
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    print(f"gnubg {args.plies}-ply, cubeless money equity; mEMG per decision (best play %)")
    for k in ("contact", "race", "bearoff", "all"):
        n = len(err[("hard", k)])
        row = "  ".join(
            f"{lv} {mean(err[(lv, k)]):6.1f} ({100 * best_hits[(lv, k)] / max(n, 1):3.0f} %)"
            for lv in levels)
        print(f"{k:8} n={n:4}  {row}")
    for k in ("double", "take"):
        xs = cube_err[("hard", k)]
        row = "  ".join(
            f"{lv} {mean(cube_err[(lv, k)]):6.1f} (wrong {sum(e > 1e-9 for e in cube_err[(lv, k)])}, "
            f"worst {max(cube_err[(lv, k)], default=0):4.0f})" for lv in levels)
        print(f"cube {k:6} n={len(xs):3}  {row}")
    allc = {lv: cube_err[(lv, "double")] + cube_err[(lv, "take")] for lv in levels}
    print("cube all      " + "  ".join(f"{lv} {mean(allc[lv]):6.1f}" for lv in levels))
    for name, xs in (("hard", hard_ms), ("normal", normal_ms)):
        xs.sort()
        if xs:
            print(f"{name} think: median {xs[len(xs) // 2]:.1f} ms, "
                  f"p90 {xs[len(xs) * 9 // 10]:.1f} ms, p99 {xs[len(xs) * 99 // 100]:.1f} ms, "
                  f"max {xs[-1]:.1f} ms")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("--seed", type=int, default=28)
    c.add_argument("--games", type=int, default=40)
    c.add_argument("--contact", type=int, default=300)
    c.add_argument("--race", type=int, default=150)
    c.add_argument("--bearoff", type=int, default=150)
    c.add_argument("--cube", type=int, default=120)
    j = sub.add_parser("judge")
    j.add_argument("--plies", type=int, default=2)
    j.add_argument("--keep", type=int, default=5, help="0-ply best results re-scored deeper")
    args = ap.parse_args()
    make_corpus(args) if args.cmd == "corpus" else judge(args)


if __name__ == "__main__":
    main()
