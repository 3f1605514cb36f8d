// Offline play, no server: two people on one device, or one person against the computer.
// The rules run in the page as WebAssembly (clients/offline, the same rules crates the server
// uses), loaded from offline/ludus_offline.js when the build has it; the computer's search
// runs in a Web Worker (bot-worker.ts) on the same module, so the page never freezes while
// it thinks. Taking moves back is offered only where a seed allows it (C17, M11), which the
// module decides. The position comes as the server's own GetGame answer, a binary
// GameSnapshot mapped by the same Rust code game-state runs, decoded here like any other.

import { fromBinary } from "@bufbuild/protobuf";
import { moveText } from "./boards/backgammon.js";
import type { ActionInit, Board } from "./boards/board.js";
import { CaroBoard, caroCellName } from "./boards/caro.js";
import { quoridorCellName } from "./boards/quoridor.js";
import { clear, h } from "./dom.js";
import { boardForKind, gameTitle, seatLabel } from "./game.js";
import { BackgammonSimpleAction } from "./gen/ludus/v1/backgammon_pb.js";
import { GameSnapshotSchema, GameStatus } from "./gen/ludus/v1/game_pb.js";
import { QuoridorOrientation } from "./gen/ludus/v1/quoridor_pb.js";
import { type MessageKey, t } from "./i18n.js";

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
  if (kind === "caro" && level === "normal") return t("level.caro.normal");
  if (kind === "junqi" && (LEVELS as readonly string[]).includes(level)) return t(`level.junqi.${level}` as MessageKey);
  if ((LEVELS as readonly string[]).includes(level)) return t(`level.${level}` as MessageKey);
  return level;
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
      this.root.append(h("p", { id: "notice", class: "notice" }, t("local.noModule")));
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
    void this.ask({
      type: "think",
      kind: this.kind,
      level: this.level,
      position: game.position(),
      thinkMs: THINK_MS[this.level] ?? 2000,
    }).then((reply) => {
      if (generation !== this.generation || this.closed) return;
      this.thinking = false;
      if (reply.error !== undefined || reply.notation === undefined) {
        this.notice = t("local.computerFailed", { error: reply.error ?? "-" });
        this.render(module);
        return;
      }
      const notation = reply.notation;
      this.act(module, () => this.game?.playComputer(notation, fresh()));
    });
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
      ? [0, 1].map((seat) => (seat === human ? t("local.you") : t("local.computer", { level: levelName(kind, state.level ?? "") })))
      : [t("local.player1"), t("local.player2")];
    // Who sits where is the page's to say: the module numbers the seats only.
    for (const seat of snapshot.seats) seat.displayName = names[seat.seat] ?? "";
    const mySeat = snapshot.yourSeat;
    const label = (seat: number) => `${seatLabel(kind, seat)} (${names[seat]})`;
    let status: (string | HTMLElement)[];
    if (snapshot.outcome) {
      const winners = snapshot.outcome.winners.map(label).join(", ");
      const head = winners ? t("game.won", { winners }) : t("game.draw");
      // The reason is the rules' own words (rule id first), not the page's to translate.
      status = [t("game.outcome", { head, rule: snapshot.outcome.rule }), h("span", { translate: "no" }, snapshot.outcome.reason)];
    } else if (state.computerToMove) {
      status = [t("local.thinking", { who: label(toMove ?? 0) })];
    } else {
      status = [t("game.toMove", { seat: label(toMove ?? 0) })];
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
    const subtitle = computer ? t("local.againstComputer", { level: levelName(kind, state.level ?? "") }) : t("local.twoPlayers");
    const note = computer ? t("local.noteComputer") : t("local.noteTwo");
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
            h("p", { id: "status", class: "status", "aria-live": "polite" }, ...status),
            h("p", { class: "small" }, note),
            kind === "junqi" && !computer ? h("p", { class: "small", id: "face-down-note" }, t("local.junqiNote")) : null,
            h("p", { id: "notice", class: "notice", role: "alert", translate: "no" }, this.notice),
            h(
              "div",
              { class: "controls" },
              state.takeBackOffered
                ? h("button", { id: "take-back", disabled: !state.canTakeBack, onclick: () => this.takeBack(module) }, t("local.takeBack"))
                : null,
              h("button", { id: "new-game", onclick: () => this.newGame(module) }, t("local.newGame")),
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
                    t("local.otherSide"),
                  )
                : null,
            ),
            h("h3", {}, t("game.moves")),
            h(
              "ol",
              { id: "moves", class: "moves", tabindex: 0, "aria-label": t("game.moves") },
              ...state.moves.map((m) => h("li", {}, `${seatLabel(kind, m.seat ?? 0)}: `, h("span", { translate: "no" }, m.notation))),
            ),
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
