// Offline play, no server: two people on one device, or one person against the computer.
// The rules run in the page as WebAssembly (clients/offline, the same rules crates the server
// uses), loaded from offline/ludus_offline.js when the build has it; the computer's search
// runs in a Web Worker (bot-worker.ts) on the same module, so the page never freezes while
// it thinks. Taking moves back is offered only where a seed allows it (C17, M11), which the
// module decides. The position comes as the server's own GetGame answer, a binary
// GameSnapshot mapped by the same Rust code game-state runs, decoded here like any other.

import { fromBinary } from "@bufbuild/protobuf";
import type { ActionInit, Board } from "./boards/board.js";
import { moveText } from "./boards/backgammon.js";
import { CaroBoard, caroCellName } from "./boards/caro.js";
import { quoridorCellName } from "./boards/quoridor.js";
import { clear, h } from "./dom.js";
import { boardForKind, gameTitle, seatLabel } from "./game.js";
import { BackgammonSimpleAction } from "./gen/ludus/v1/backgammon_pb.js";
import { GameSnapshotSchema, GameStatus } from "./gen/ludus/v1/game_pb.js";
import { QuoridorOrientation } from "./gen/ludus/v1/quoridor_pb.js";

interface LocalGame {
  play(notation: string, random: Uint32Array): void;
  playComputer(notation: string, random: Uint32Array): void;
  takeBack(): void;
  snapshot(): Uint8Array;
  state(): string;
  position(): string;
  free(): void;
}

interface OfflineModule {
  default: () => Promise<unknown>;
  LocalGame: {
    new (kind: string, random: Uint32Array): LocalGame;
    againstComputer(kind: string, level: string, human: number, random: Uint32Array): LocalGame;
  };
}

// What only the device knows (LocalGame.state); the game itself is in LocalGame.snapshot.
interface LocalState {
  kind: string;
  mode: "two" | "computer";
  human: number | null;
  level: string | null;
  computerToMove: boolean;
  takeBackOffered: boolean;
  canTakeBack: boolean;
  moves: { seat: number | null; notation: string }[];
}

export const OFFLINE_GAMES = ["caro", "mancala", "quoridor", "backgammon", "junqi"] as const;
export const LEVELS = ["easy", "normal", "hard"] as const;

// How long the computer may think at each level before the page's deadline stops its search
// (it answers with the best action found so far). Its work budget usually ends it sooner.
const THINK_MS: Record<string, number> = { easy: 1000, normal: 2000, hard: 5000 };

// The level as each game's seed names it (C17, M11, J20).
export function levelName(kind: string, level: string): string {
  if (kind === "caro" && level === "normal") return "Medium";
  if (kind === "junqi") return { easy: "Beginner", normal: "Normal", hard: "Expert" }[level] ?? level;
  return level.charAt(0).toUpperCase() + level.slice(1);
}

let loaded: Promise<OfflineModule | undefined> | undefined;

// The wasm module, or undefined when this build has none.
export function offlineModule(): Promise<OfflineModule | undefined> {
  loaded ??= (async () => {
    try {
      const url = new URL("offline/ludus_offline.js", location.href).href;
      const module = (await import(url)) as OfflineModule;
      await module.default();
      return module;
    } catch {
      return undefined;
    }
  })();
  return loaded;
}

function fresh(): Uint32Array {
  return crypto.getRandomValues(new Uint32Array(16));
}

const SIMPLE_WORDS: Record<number, string> = {
  [BackgammonSimpleAction.ROLL]: "roll",
  [BackgammonSimpleAction.DOUBLE]: "double",
  [BackgammonSimpleAction.TAKE]: "take",
  [BackgammonSimpleAction.DROP]: "drop",
  [BackgammonSimpleAction.BEAVER]: "beaver",
  [BackgammonSimpleAction.ACCEPT_RESIGNATION]: "accept",
  [BackgammonSimpleAction.REJECT_RESIGNATION]: "reject",
};

// A board's click, in the game's notation (what the rules parse): the same clicks as online,
// where the server gets the structured action instead.
export function actionNotation(action: ActionInit): string | undefined {
  const a = action.action;
  switch (a?.case) {
    case "caro":
      return a.value.place ? caroCellName(a.value.place.column ?? 0, a.value.place.row ?? 0) : undefined;
    case "mancala":
      return String(a.value.pit ?? 0);
    case "quoridor": {
      const k = a.value.kind;
      if (k?.case === "move") return quoridorCellName(k.value.file ?? 0, k.value.rank ?? 0);
      if (k?.case === "wall") {
        const cell = quoridorCellName(k.value.cell?.file ?? 0, k.value.cell?.rank ?? 0);
        return `${cell}${k.value.orientation === QuoridorOrientation.VERTICAL ? "v" : "h"}`;
      }
      if (k?.case === "pass") return "pass";
      return undefined;
    }
    case "junqi": {
      const k = a.value.kind;
      if (k?.case === "flip") return k.value.point ?? "";
      if (k?.case === "move") return `${k.value.from ?? ""}-${k.value.to ?? ""}`;
      return undefined;
    }
    case "backgammon": {
      const k = a.value.kind;
      if (k?.case === "simple") return SIMPLE_WORDS[k.value];
      if (k?.case === "play") {
        const moves = (k.value.moves ?? []).map((m) => moveText({ from: m.from ?? 0, to: m.to ?? 0 }));
        return moves.length ? moves.join(" ") : "no play";
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function boardFor(kind: string): Board {
  return boardForKind(kind) ?? new CaroBoard();
}

// What one device shows both players, said once on the Junqi page.
const JUNQI_NOTE =
  "Both of you see this one screen: every piece not yet flipped is shown face down, unknown to you both, as at a real table. The deal came from this device's random generator and only the rules inside the page know it.";

export class LocalPage {
  private game: LocalGame | undefined;
  private board: Board;
  private notice = "";
  private closed = false;
  private worker: Worker | undefined;
  // Bumped by every new game and take-back: a late answer of the computer is then ignored.
  private generation = 0;
  private thinking = false;
  private requests = 0;
  private readonly pending = new Map<number, (reply: WorkerReply) => void>();
  // The person's seat against the computer (0 moves first in Caro, as X).
  private human = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly kind: string,
    // The computer's level, or undefined for two people.
    private readonly level?: string,
  ) {
    this.board = boardFor(kind);
  }

  async open(): Promise<void> {
    const module = await offlineModule();
    if (!module) {
      clear(this.root);
      this.root.append(h("p", { id: "notice", class: "notice" }, "This build has no offline games (npm run build:offline makes them)."));
      return;
    }
    delete document.documentElement.dataset.computerPrepared;
    if (this.level) {
      this.worker = new Worker(new URL("bot-worker.js", location.href), { type: "module" });
      this.worker.onmessage = (event: MessageEvent<WorkerReply>) => {
        const resolve = this.pending.get(event.data.id);
        this.pending.delete(event.data.id);
        resolve?.(event.data);
      };
      // Mancala Hard builds its endgame database here, before the first move (measured:
      // the reply carries the time it took).
      void this.ask({ type: "prepare", kind: this.kind, level: this.level }).then((reply) => {
        if (reply.prepared) {
          document.documentElement.dataset.computerPrepared = JSON.stringify(reply.prepared);
        }
      });
    }
    this.newGame(module);
  }

  close(): void {
    this.closed = true;
    this.worker?.terminate();
    this.game?.free();
  }

  private ask(request: WorkerRequest): Promise<WorkerReply> {
    const id = ++this.requests;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker?.postMessage({ ...request, id });
    });
  }

  private newGame(module: OfflineModule): void {
    this.game?.free();
    this.game = undefined;
    this.generation += 1;
    this.thinking = false;
    this.board = boardFor(this.kind);
    this.notice = "";
    try {
      this.game = this.level
        ? module.LocalGame.againstComputer(this.kind, this.level, this.human, fresh())
        : new module.LocalGame(this.kind, fresh());
    } catch (error) {
      this.notice = error instanceof Error ? error.message : String(error);
    }
    this.render(module);
  }

  private act(module: OfflineModule, step: () => void): void {
    try {
      step();
      this.notice = "";
    } catch (error) {
      // The rules' own refusal, rule id first ("C3: H8 is already taken").
      this.notice = error instanceof Error ? error.message : String(error);
    }
    this.render(module);
  }

  private takeBack(module: OfflineModule): void {
    this.generation += 1;
    this.thinking = false;
    this.act(module, () => this.game?.takeBack());
  }

  // The computer's turn: the worker searches the position with the level's budget and the
  // page's deadline; the answer is played unless the game moved on meanwhile.
  private think(module: OfflineModule): void {
    const game = this.game;
    if (!game || !this.level || this.thinking) return;
    this.thinking = true;
    const generation = this.generation;
    void this.ask({ type: "think", kind: this.kind, level: this.level, position: game.position(), thinkMs: THINK_MS[this.level] ?? 2000 }).then(
      (reply) => {
        if (generation !== this.generation || this.closed) return;
        this.thinking = false;
        if (reply.error !== undefined || reply.notation === undefined) {
          this.notice = `The computer failed: ${reply.error ?? "no answer"}`;
          this.render(module);
          return;
        }
        const notation = reply.notation;
        this.act(module, () => this.game?.playComputer(notation, fresh()));
      },
    );
  }

  private render(module: OfflineModule): void {
    if (this.closed || !this.game) {
      if (!this.closed && this.notice) {
        clear(this.root);
        this.root.append(h("p", { id: "notice", class: "notice", role: "alert" }, this.notice));
      }
      return;
    }
    const state = JSON.parse(this.game.state()) as LocalState;
    const snapshot = fromBinary(GameSnapshotSchema, this.game.snapshot());
    const kind = state.kind;
    const over = snapshot.status === GameStatus.FINISHED;
    const toMove = snapshot.turn?.toMove;
    const computer = state.mode === "computer";
    const human = state.human ?? 0;
    const names = computer
      ? [0, 1].map((seat) => (seat === human ? "You" : `Computer (${levelName(kind, state.level ?? "")})`))
      : ["Player 1", "Player 2"];
    // Who sits where is the page's to say: the module numbers the seats only.
    for (const seat of snapshot.seats) seat.displayName = names[seat.seat] ?? "";
    const mySeat = snapshot.yourSeat;
    const label = (seat: number) => `${seatLabel(kind, seat)} (${names[seat]})`;
    let status: string;
    if (snapshot.outcome) {
      const winners = snapshot.outcome.winners.map(label).join(", ");
      status = `${winners ? `${winners} won` : "Draw"} — ${snapshot.outcome.rule}: ${snapshot.outcome.reason}`;
    } else if (state.computerToMove) {
      status = `${label(toMove ?? 0)} is thinking…`;
    } else {
      status = `${label(toMove ?? 0)} to move`;
    }
    const myTurn = !over && !state.computerToMove;
    const boardNode = this.board.draw({
      snapshot,
      mySeat,
      myTurn,
      legal: myTurn ? snapshot.legalActions : [],
      submit: (action) => {
        const text = actionNotation(action);
        if (text !== undefined) this.act(module, () => this.game?.play(text, fresh()));
      },
      redraw: () => this.render(module),
    });
    const subtitle = computer ? `against the computer (${levelName(kind, state.level ?? "")})` : "two players, this device";
    const note = computer
      ? "Offline: the rules and the computer run on this device, no server involved."
      : "Offline: the rules run in this page, no server involved.";
    clear(this.root);
    this.root.append(
      h(
        "section",
        {
          class: "game local",
          "data-kind": kind,
          "data-mode": state.mode,
          "data-seq": String(state.moves.length),
          "data-status": over ? "finished" : "active",
          "data-thinking": state.computerToMove && !over ? "yes" : "no",
        },
        h("h2", {}, `${gameTitle(kind)} · ${subtitle}`),
        h(
          "div",
          { class: "game-grid" },
          h("div", { class: "board-col" }, boardNode),
          h(
            "aside",
            { class: "side" },
            h("p", { id: "status", class: "status" }, status),
            h("p", { class: "small" }, note),
            kind === "junqi" && !computer ? h("p", { class: "small", id: "face-down-note" }, JUNQI_NOTE) : null,
            h("p", { id: "notice", class: "notice", role: "alert" }, this.notice),
            h(
              "div",
              { class: "controls" },
              state.takeBackOffered
                ? h("button", { id: "take-back", disabled: !state.canTakeBack, onclick: () => this.takeBack(module) }, "Take back")
                : null,
              h("button", { id: "new-game", onclick: () => this.newGame(module) }, "New game"),
              computer
                ? h(
                    "button",
                    {
                      id: "switch-sides",
                      onclick: () => {
                        this.human = 1 - this.human;
                        this.newGame(module);
                      },
                    },
                    "New game, other side",
                  )
                : null,
            ),
            h("h3", {}, "Moves"),
            h("ol", { id: "moves", class: "moves" }, ...state.moves.map((m) => h("li", {}, `${seatLabel(kind, m.seat ?? 0)}: ${m.notation}`))),
          ),
        ),
      ),
    );
    if (state.computerToMove && !over) this.think(module);
  }
}

// Messages to and from bot-worker.ts.
export interface WorkerRequest {
  type: "prepare" | "think";
  kind: string;
  level: string;
  position?: string;
  thinkMs?: number;
}

export interface WorkerReply {
  id: number;
  notation?: string;
  error?: string;
  prepared?: { ms: number; seeds?: number; positions?: number; bytes?: number; wasmBytes: number };
}
