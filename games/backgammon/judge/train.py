#!/usr/bin/env python3
"""Trains the contact network the bots' cube decisions read (not part of CI).

    pip install gnubg numpy
    cargo build --release -p ludus-backgammon --example judge_bot
    python3 games/backgammon/judge/train.py [--games 2000] [--seed 11] [--write]
    cargo build --release -p ludus-backgammon --example judge_bot   # with the new weights
    python3 games/backgammon/judge/train.py --check   # the Rust network is the trained one

Positions: gnubg 0-ply self-play with seed 11 (the judge's corpus is seed 28, `fit.py` used
7), through `judge_bot` so every result comes from the rules' own generation (as in
`fit.py`: the played result of each decision and up to three other legal results, each with
the opponent on roll); contact positions only. Labels: gnubg's 0-ply chances, seen from the
side that has just moved (the bots' evaluation's point of view, `bot/eval.rs`): win, win
gammon, win backgammon, lose gammon, lose backgammon.

Network: one hidden layer of `--hidden` sigmoid units on the encoding of `bot/net.rs`
(`encode` below is the same: per side and point, "at least 1, 2, 3 checkers" and the
checkers past 3 halved; the bar halved, the borne-off share, the pip count in hundreds; the
side that has just moved first), five sigmoid outputs, trained by Adam on the cross-entropy
to gnubg's chances, a fixed seed and one BLAS thread (the same weights every run). The last
tenth of the games is held out: the script prints the mean absolute errors there, of the
network and of the hand-made evaluation (`judge_bot`'s `W`), epoch by epoch (the training
curve).

`--write` writes `games/backgammon/src/bot/contact_net.bin`: `LNN1`, then inputs, hidden and
outputs as little-endian u32, then little-endian f32: the first layer input by input (hidden
weights each), its biases, the second layer output by output, its biases. `--check`
reads that file back and compares its outputs with `judge_bot`'s `N` (the Rust network of
`bot/net.rs`, as built) on 300 positions of the data set.

The positions and gnubg's labels are kept in `train_data_s<seed>_g<games>.npz` next to this
script (not committed), so a second run only trains.
"""
import os

# One thread, so the floating-point sums come out the same on every run.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import random
import struct
import sys

import gnubg
import numpy as np

from fit import Bot, positions
from judge import contact

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(ROOT, "games", "backgammon", "src", "bot", "contact_net.bin")
INPUTS = 2 * (24 * 4 + 3)


def encode_side(side):
    """One side's inputs; `side[i]` is its checkers on its own point i + 1, `side[24]` its
    bar."""
    out = []
    for n in side[:24]:
        out += [1.0 if n >= 1 else 0.0, 1.0 if n >= 2 else 0.0, 1.0 if n >= 3 else 0.0,
                (n - 3) / 2.0 if n > 3 else 0.0]
    on_board = sum(side)
    pips = sum((i + 1) * n for i, n in enumerate(side))
    out += [side[24] / 2.0, (15 - on_board) / 15.0, pips / 100.0]
    return out


def encode(board):
    """gnubg's board (the side that has just moved, then the side on roll)."""
    return encode_side(board[0]) + encode_side(board[1])


def labels(p):
    """gnubg's chances of the side on roll, seen from the side that has just moved."""
    win, wg, wbg, lg, lbg = p[:5]
    return [1.0 - win, lg, lbg, wg, wbg]


def dataset(args):
    cache = os.path.join(HERE, f"train_data_s{args.seed}_g{args.games}.npz")
    if os.path.exists(cache):
        d = np.load(cache)
        return d["x"], d["y"], d["game"], d["ids"]
    bot = Bot()
    ci = gnubg.cubeinfo()
    ctx0 = gnubg.evalcontext(0, 0, 1, 1, 0.0)
    xs, ys, games, ids = [], [], [], []
    # One game at a time, so each position is tagged with its game (the held-out games).
    for g in range(args.games):
        sub = argparse.Namespace(games=1, seed=args.seed * 100_003 + g)
        for pid in positions(sub, bot):
            board = gnubg.positionfromid(pid)
            if not contact(board) or sum(board[0]) == 0 or sum(board[1]) == 0:
                continue
            xs.append(encode(board))
            ys.append(labels(gnubg.evaluate(board, ci, ctx0)))
            games.append(g)
            ids.append(pid)
        if g % 50 == 0:
            print(f"game {g}: {len(xs)} contact positions", file=sys.stderr)
    bot.close()
    x = np.array(xs, dtype=np.float32)
    y = np.array(ys, dtype=np.float32)
    game = np.array(games, dtype=np.int32)
    ids = np.array(ids)
    np.savez_compressed(cache, x=x, y=y, game=game, ids=ids)
    return x, y, game, ids


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def forward(params, x):
    w1, b1, w2, b2 = params
    h = sigmoid(x @ w1 + b1)
    return h, sigmoid(h @ w2.T + b2)


def mae(pred, y):
    """Mean absolute errors of the win chance and of each side's gammon chance."""
    return (float(np.mean(np.abs(pred[:, 0] - y[:, 0]))),
            float(np.mean(np.abs(pred[:, [1, 3]] - y[:, [1, 3]]))))


def train(args, x, y, game):
    held = game >= args.games - args.games // 10
    xt, yt, xh, yh = x[~held], y[~held], x[held], y[held]
    rng = np.random.default_rng(args.seed)
    k, h, o = x.shape[1], args.hidden, y.shape[1]
    params = [
        (rng.standard_normal((k, h)) * np.sqrt(1.0 / k)).astype(np.float32),
        np.zeros(h, dtype=np.float32),
        (rng.standard_normal((o, h)) * np.sqrt(1.0 / h)).astype(np.float32),
        np.zeros(o, dtype=np.float32),
    ]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    b1, b2, eps = 0.9, 0.999, 1e-8
    n = len(xt)
    for epoch in range(1, args.epochs + 1):
        lr = args.lr * (0.5 ** (epoch / (args.epochs / 4)))
        order = rng.permutation(n)
        for s in range(0, n, args.batch):
            idx = order[s:s + args.batch]
            xb, yb = xt[idx], yt[idx]
            hb, pb = forward(params, xb)
            # Cross-entropy of sigmoid outputs: the output gradient is p - y.
            d2 = (pb - yb) / len(idx)
            g_w2 = d2.T @ hb
            g_b2 = d2.sum(0)
            d1 = (d2 @ params[2]) * hb * (1 - hb)
            g_w1 = xb.T @ d1
            g_b1 = d1.sum(0)
            grads = [g_w1 + args.l2 * params[0], g_b1, g_w2 + args.l2 * params[2], g_b2]
            step += 1
            for i, g in enumerate(grads):
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                mh = m[i] / (1 - b1 ** step)
                vh = v[i] / (1 - b2 ** step)
                params[i] = (params[i] - lr * mh / (np.sqrt(vh) + eps)).astype(np.float32)
        if epoch % 5 == 0 or epoch == args.epochs:
            _, pt = forward(params, xt)
            _, ph = forward(params, xh)
            (wt, gt), (wh, gh) = mae(pt, yt), mae(ph, yh)
            print(f"epoch {epoch:3}: train win {wt:.4f} gammon {gt:.4f}; "
                  f"held-out win {wh:.4f} gammon {gh:.4f}", file=sys.stderr)
    return params, xh, yh, held


def hand_made_mae(ids, y, held):
    """The hand-made evaluation's errors on the held-out positions (`judge_bot`'s `W`: the
    chances of the side on roll)."""
    bot = Bot()
    pred = []
    for pid in ids[held]:
        w = [float(t) for t in bot.ask(f"W {pid}")[1:]]
        pred.append([1.0 - w[0], w[3], 0.0, w[2], 0.0])
    bot.close()
    return mae(np.array(pred), y[held])


def write(params, path):
    w1, b1, w2, b2 = params
    k, h = w1.shape
    o = w2.shape[0]
    with open(path, "wb") as f:
        f.write(b"LNN1")
        f.write(struct.pack("<3I", k, h, o))
        for arr in (w1, b1, w2, b2):
            f.write(np.ascontiguousarray(arr, dtype="<f4").tobytes())


def read(path):
    raw = open(path, "rb").read()
    k, h, o = struct.unpack("<3I", raw[4:16])
    f = np.frombuffer(raw[16:], dtype="<f4")
    w1 = f[:k * h].reshape(k, h)
    b1 = f[k * h:k * h + h]
    w2 = f[k * h + h:k * h + h + o * h].reshape(o, h)
    return [w1, b1, w2, f[k * h + h + o * h:]]


def check(x, ids):
    """The largest difference between the written network (in numpy) and judge_bot's."""
    _, pred = forward(read(OUT), x[:300])
    bot = Bot()
    worst = 0.0
    for pid, p in zip(ids[:300], pred):
        n = [float(t) for t in bot.ask(f"N {pid}")[1:]]
        # judge_bot prints the chances of the side on roll; the network's are the mover's.
        mover = [1.0 - n[0], n[3], n[4], n[1], n[2]]
        worst = max(worst, max(abs(a - b) for a, b in zip(mover, p)))
    bot.close()
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--l2", type=float, default=1e-5)
    ap.add_argument("--write", action="store_true", help=f"write {OUT}")
    ap.add_argument("--check", action="store_true",
                    help="compare the written network with judge_bot's, then stop")
    args = ap.parse_args()
    random.seed(args.seed)
    x, y, game, ids = dataset(args)
    if args.check:
        worst = check(x, ids)
        # judge_bot prints 5 decimals and clamps the gammons inside the win chances.
        print(f"largest difference from judge_bot: {worst:.6f}", file=sys.stderr)
        sys.exit(0 if worst < 1e-3 else 1)
    print(f"{len(x)} contact positions from {args.games} games", file=sys.stderr)
    params, xh, yh, held = train(args, x, y, game)
    _, ph = forward(params, xh)
    wh, gh = mae(ph, yh)
    print(f"network: held-out {len(xh)} positions, mean |win error| {wh:.4f}, "
          f"mean |gammon error| per side {gh:.4f}", file=sys.stderr)
    hw, hg = hand_made_mae(ids, y, held)
    print(f"hand-made: mean |win error| {hw:.4f}, mean |gammon error| per side {hg:.4f}",
          file=sys.stderr)
    if args.write:
        write(params, OUT)
        print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
