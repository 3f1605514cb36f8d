#!/usr/bin/env python3
"""Fits the contact evaluation's weights to gnubg's 0-ply chances (not part of CI).

    cargo build --release -p ludus-backgammon --example judge_bot
    python3 games/backgammon/judge/fit.py [--games 120] [--seed 7] [--write]
    cargo fmt -p ludus-backgammon       # after --write, which rewrites the constants

Positions come from gnubg 0-ply self-play with a seed other than the judge corpus's (28), so
the judge grades the fitted evaluation on positions it was not fitted on. For every checker
decision the played result and up to three other legal results are kept (the bots score the
results of their candidate plays, good and bad), each with the opponent on roll; contact
positions only (races use the bear-off database and the race formula).

For each position `judge_bot` prints the evaluation's terms (`F <id>`, see
`bot/eval.rs::contact_features`) and gnubg gives the chances of the side on roll. Fitted:

- `CONTACT_WEIGHTS`: logistic regression (Newton's method, a little L2 on all but the
  constant) of the mover's winning chance on the contact terms;
- `GAMMON_WEIGHTS`: logistic regression of the conditional gammon rate (gammons among
  wins) on the gammon terms, the last of which is the side's win logit by the fitted
  `CONTACT_WEIGHTS`; each side's rate weighted by its winning chance; sides whose opponent
  has borne a checker off are left out (the rate is 0 there by rule).

Prints the weights as Rust constants and the mean absolute errors of the weights in eval.rs
and of the fitted ones on the last fifth of the positions (held out of the fit); `--write`
puts the fitted ones into eval.rs.
"""
import argparse
import math
import os
import random
import re
import subprocess
import sys

import gnubg

from judge import equity

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BOT = os.environ.get("JUDGE_BOT", os.path.join(ROOT, "target", "release", "examples", "judge_bot"))
CONTACT_TERMS = 22
GAMMON_TERMS = 11


class Bot:
    def __init__(self):
        self.proc = subprocess.Popen([BOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().split()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def positions(args, bot):
    """(position id with the opponent on roll) of results seen in gnubg self-play."""
    rng = random.Random(args.seed)
    ci = gnubg.cubeinfo()
    ctx0 = gnubg.evalcontext(0, 0, 1, 1, 0.0)
    out = []
    for _ in range(args.games):
        pid = "4HPwATDgc/ABMA"
        for _ in range(400):
            board = gnubg.positionfromid(pid)
            if sum(board[0]) == 0 or sum(board[1]) == 0:
                break
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            results = bot.ask(f"L {pid} {dice[0]} {dice[1]}")[1:]
            played = min(results, key=lambda r: equity(
                gnubg.evaluate(gnubg.positionfromid(r), ci, ctx0)))
            others = [r for r in results if r != played]
            out.append(played)
            out += rng.sample(others, min(3, len(others)))
            pid = played
    return out


def solve(a, b):
    """Solves a x = b (Gauss-Jordan with partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        piv = m[c][c]
        if abs(piv) < 1e-12:
            continue
        for r in range(n):
            if r != c and m[r][c] != 0.0:
                f = m[r][c] / piv
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def logistic_fit(xs, ys, l2=1e-3, iters=25, weights=None):
    k = len(xs[0])
    weights = weights or [1.0] * len(xs)
    w = [0.0] * k
    for _ in range(iters):
        g = [0.0] * k
        h = [[0.0] * k for _ in range(k)]
        for x, y, wt in zip(xs, ys, weights):
            z = sum(a * b for a, b in zip(w, x))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            d = wt * (p - y)
            s = wt * p * (1 - p)
            for i in range(k):
                g[i] += d * x[i]
                sx = s * x[i]
                hi = h[i]
                for j in range(i, k):
                    hi[j] += sx * x[j]
        n = sum(weights)
        for i in range(k):
            for j in range(i):
                h[i][j] = h[j][i]
            reg = l2 * n if i > 0 else 0.0
            g[i] += reg * w[i]
            h[i][i] += reg + 1e-9
        step = solve(h, g)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return w


def dot(w, x):
    return sum(a * b for a, b in zip(w, x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--write", action="store_true",
                    help="write the fitted weights into games/backgammon/src/bot/eval.rs")
    args = ap.parse_args()
    bot = Bot()
    ids = positions(args, bot)
    ci = gnubg.cubeinfo()
    ctx0 = gnubg.evalcontext(0, 0, 1, 1, 0.0)
    rows = []
    for pid in ids:
        f = [float(t) for t in bot.ask(f"F {pid}")[1:]]
        if not f:
            continue
        board = gnubg.positionfromid(pid)
        p = gnubg.evaluate(board, ci, ctx0)
        # gnubg: the side on roll (board[1]); the bot's terms: the side that has just moved.
        rows.append((f, p, sum(board[0]) < 15, sum(board[1]) < 15))
    bot.close()
    print(f"{len(ids)} positions, {len(rows)} in contact", file=sys.stderr)
    split = len(rows) * 4 // 5
    fit, held = rows[:split], rows[split:]

    xs = [r[0][:CONTACT_TERMS] for r in fit]
    ys = [1 - r[1][0] for r in fit]
    cw = logistic_fit(xs, ys)
    gx, gy, gwt = gammon_rows(fit, cw)
    gw = logistic_fit(gx, gy, weights=gwt)

    contact = ("const CONTACT_WEIGHTS: [f64; CONTACT_TERMS] = [\n"
               + "".join(f"    {w:.4f},\n" for w in cw) + "];")
    gammon = ("const GAMMON_WEIGHTS: [f64; GAMMON_TERMS] = [\n"
              + "".join(f"    {w:.4f},\n" for w in gw) + "];")
    print(contact)
    print(gammon)
    path = os.path.join(ROOT, "games", "backgammon", "src", "bot", "eval.rs")
    current = open(path).read()
    old_c = weights_in(current, "CONTACT_WEIGHTS")
    old_g = weights_in(current, "GAMMON_WEIGHTS")
    for name, c, g in (("eval.rs now", old_c, old_g), ("fitted", cw, gw)):
        if len(c) != CONTACT_TERMS or len(g) != GAMMON_TERMS:
            continue
        ew = eg = 0.0
        for f, p, mover_off, roller_off in held:
            z = dot(c, f[:CONTACT_TERMS])
            win = logistic(z)
            rate_m = 0.0 if roller_off else logistic(dot(g, gammon_terms(f, 0, z)))
            rate_r = 0.0 if mover_off else logistic(dot(g, gammon_terms(f, 1, -z)))
            ew += abs(win - (1 - p[0]))
            eg += abs(win * rate_m - p[3]) + abs((1 - win) * rate_r - p[1])
        n = len(held)
        print(f"{name}: held-out {n} positions, mean |win error| {ew / n:.4f}, "
              f"mean |gammon error| per side {eg / (2 * n):.4f}", file=sys.stderr)
    if args.write:
        text = re.sub(r"const CONTACT_WEIGHTS: \[f64; CONTACT_TERMS\] = \[[^\]]*\];",
                      lambda _: contact, current)
        text = re.sub(r"const GAMMON_WEIGHTS: \[f64; GAMMON_TERMS\] = \[[^\]]*\];",
                      lambda _: gammon, text)
        open(path, "w").write(text)


def logistic(z):
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def weights_in(text, name):
    m = re.search(name + r": \[f64; [A-Z_]+\] = \[([^\]]*)\];", text)
    return [float(x) for x in m.group(1).split(",") if x.strip()] if m else []


def gammon_terms(f, side, win_logit):
    """The gammon terms of the mover (side 0) or the side on roll (1), with the win logit
    (the last term) from the contact weights being fitted."""
    start = CONTACT_TERMS + side * GAMMON_TERMS
    return f[start:start + GAMMON_TERMS - 1] + [win_logit]


def gammon_rows(rows, cw):
    """Terms, conditional gammon rate and weight (the side's winning chance) of each side
    that can still win a gammon."""
    xs, ys, ws = [], [], []
    for f, p, mover_off, roller_off in rows:
        z = dot(cw, f[:CONTACT_TERMS])
        mover_win, roller_win = 1 - p[0], p[0]
        # The mover's gammons need the roller to have none off, and vice versa.
        if not roller_off and mover_win > 1e-3:
            xs.append(gammon_terms(f, 0, z))
            ys.append(min(1.0, p[3] / mover_win))
            ws.append(mover_win)
        if not mover_off and roller_win > 1e-3:
            xs.append(gammon_terms(f, 1, -z))
            ys.append(min(1.0, p[1] / roller_win))
            ws.append(roller_win)
    return xs, ys, ws


if __name__ == "__main__":
    main()
