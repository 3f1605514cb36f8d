// A knockout tournament's bracket (Q24) as the room's event log tells it. The room's view
// carries only the round under way and its tables, and forgets the tournament once the
// champion is known; the bracket of every round, with who went through and the champion, is
// folded here from the room's events (the page reads the log from its start for a tournament
// room, then keeps folding the live events).

import { RoomChange_Kind, type RoomEvent } from "./gen/ludus/v1/rooms_pb.js";

export interface BracketMatch {
  gameId: string;
  playerIds: string[];
  finished: boolean;
  // Empty once finished: a draw (Q24 replays it) or a cancelled game.
  winnerIds: string[];
}

export interface BracketRound {
  round: number;
  // Who sits the round out (Q24, an odd number of players), or "".
  byePlayerId: string;
  matches: BracketMatch[];
}

export class BracketHistory {
  rounds: BracketRound[] = [];
  championId = "";
  private seq = 0n;

  // Folds one room event in (events at or before the last folded one change nothing); true
  // if the bracket changed.
  fold(event: RoomEvent): boolean {
    if (event.seq <= this.seq) return false;
    this.seq = event.seq;
    let changed = false;
    for (const change of event.changes) {
      switch (change.kind) {
        case RoomChange_Kind.TOURNAMENT_ROUND:
          // Round 1 is a new tournament: the last one's bracket gives way.
          if (change.round === 1) {
            this.rounds = [];
            this.championId = "";
          }
          this.roundOf(change.round).byePlayerId = change.playerId;
          changed = true;
          break;
        case RoomChange_Kind.GAMES_STARTED: {
          const round = event.room?.tournament?.round ?? 0;
          if (round === 0) break;
          const matches = this.roundOf(round).matches;
          for (const gameId of change.gameIds) {
            const table = event.room?.tables.find((t) => t.gameId === gameId);
            if (!table || matches.some((m) => m.gameId === gameId)) continue;
            matches.push({ gameId, playerIds: [...table.playerIds], finished: false, winnerIds: [] });
            changed = true;
          }
          break;
        }
        case RoomChange_Kind.GAME_FINISHED:
          for (const round of this.rounds) {
            const match = round.matches.find((m) => m.gameId === change.gameIds[0]);
            if (!match) continue;
            match.finished = true;
            match.winnerIds = [...change.winnerIds];
            changed = true;
          }
          break;
        case RoomChange_Kind.CHAMPION:
          this.championId = change.playerId;
          changed = true;
          break;
        default:
          break;
      }
    }
    return changed;
  }

  private roundOf(round: number): BracketRound {
    let found = this.rounds.find((r) => r.round === round);
    if (!found) {
      found = { round, byePlayerId: "", matches: [] };
      this.rounds.push(found);
      this.rounds.sort((a, b) => a.round - b.round);
    }
    return found;
  }
}
