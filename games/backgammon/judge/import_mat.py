#!/usr/bin/env python3
"""Opens a backgammon match record (a .mat file, B22) in GNU Backgammon and prints its score
(not part of CI).

    pip install gnubg            # GNU Backgammon 1.1 as a Python module
    python3 games/backgammon/judge/import_mat.py FILE.mat

gnubg's own `import mat` reads the file (it replays every roll, move and cube action, so a
file it accepts is a legal match); the script then prints each game's starting score, its
winner and points, and the final score. Exit status 0 when gnubg imports the match, 1 when
it does not (gnubg then says why on its output).
"""
import os
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = os.path.abspath(sys.argv[1])
    import gnubg  # imported late: gnubg prints its banner and boards on import and on commands

    gnubg.command(f'import mat "{path}"')
    match = gnubg.match()
    if not match or not match.get("games"):
        print(f"gnubg could not import {path} as a match")
        return 1
    info = match["match-info"]
    names = {side: info[side]["name"] for side in ("X", "O")}
    length = info.get("match-length", 0)
    print(f"{names['X']} (X) against {names['O']} (O), {length}-point match, {len(match['games'])} games")
    score = {"X": 0, "O": 0}
    for number, game in enumerate(match["games"], start=1):
        g = game["info"]
        score = {"X": g["score-X"], "O": g["score-O"]}
        winner = g.get("winner")
        won = g.get("points-won", 0)
        how = " (resigned)" if g.get("resigned") else ""
        crawford = " Crawford" if g.get("crawford") else ""
        print(f"game {number}{crawford}: {score['X']}-{score['O']}, {names.get(winner, 'nobody')} wins {won}{how}")
        if winner in score:
            score[winner] += won
    print(f"final score: {names['X']} {score['X']}, {names['O']} {score['O']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
