// Offline play: two people on one device, no server. The rules run in the page as
// WebAssembly (clients/offline, the same rules crates the server uses), loaded from
// offline/ludus_offline.js when the build has it. The board turns to the player to move;
// either player may take the last move back.

import { create } from "@bufbuild/protobuf";
import type { ActionInit, Board } from "./boards/board.js";
import { CaroBoard, caroCellName } from "./boards/caro.js";
import { MancalaBoard } from "./boards/mancala.js";
import { clear, h } from "./dom.js";
import { gameTitle, seatLabel } from "./game.js";
import { GameSnapshotSchema, GameStatus } from "./gen/ludus/v1/game_pb.js";

interface LocalGame {
  play(notation: string, random: Uint32Array): void;
  takeBack(): void;
  state(): string;
  free(): void;
}

interface OfflineModule {
  default: () => Promise<unknown>;
  LocalGame: new (kind: string, random: Uint32Array) => LocalGame;
}

interface LocalState {
  kind: "caro" | "mancala";
  toMove: number | null;
  moves: { seat: number | null; notation: string }[];
  outcome: { kind: number; winners: number[]; rule: string; reason: string } | null;
  view: Record<string, unknown>;
}

export const OFFLINE_GAMES = ["caro", "mancala"] as const;

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

export class LocalPage {
  private game: LocalGame | undefined;
  private board: Board | undefined;
  private notice = "";
  private closed = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly kind: string,
  ) {}

  async open(): Promise<void> {
    const module = await offlineModule();
    if (!module) {
      clear(this.root);
      this.root.append(h("p", { id: "notice", class: "notice" }, "This build has no offline games (npm run build:offline makes them)."));
      return;
    }
    this.newGame(module);
  }

  close(): void {
    this.closed = true;
    this.game?.free();
  }

  private newGame(module: OfflineModule): void {
    this.game?.free();
    try {
      this.game = new module.LocalGame(this.kind, fresh());
    } catch (error) {
      this.notice = String(error);
    }
    this.board = this.kind === "caro" ? new CaroBoard() : new MancalaBoard();
    this.notice = "";
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

  private notation(action: ActionInit): string | undefined {
    const a = action.action;
    if (a?.case === "caro" && a.value.place) return caroCellName(a.value.place.column ?? 0, a.value.place.row ?? 0);
    if (a?.case === "mancala") return String(a.value.pit ?? 0);
    return undefined;
  }

  private render(module: OfflineModule): void {
    if (this.closed || !this.game) return;
    const state = JSON.parse(this.game.state()) as LocalState;
    const over = state.outcome !== null;
    const toMove = state.toMove ?? undefined;
    const names = ["Player 1", "Player 2"];
    const snapshot = create(GameSnapshotSchema, {
      gameId: "local",
      settings: { options: { case: state.kind, value: {} } },
      seats: names.map((displayName, seat) => ({ seat, playerId: `local-${seat}`, displayName })),
      seq: BigInt(state.moves.length),
      status: over ? GameStatus.FINISHED : GameStatus.ACTIVE,
      turn: { toMove },
      view: { view: { case: state.kind, value: state.view } },
      yourSeat: toMove,
    } as Parameters<typeof create<typeof GameSnapshotSchema>>[1]);
    const label = (seat: number) => `${seatLabel(state.kind, seat)} (${names[seat]})`;
    let status: string;
    if (state.outcome) {
      const winners = state.outcome.winners.map(label).join(", ");
      status = `${winners ? `${winners} won` : "Draw"} — ${state.outcome.rule}: ${state.outcome.reason}`;
    } else {
      status = `${label(toMove ?? 0)} to move`;
    }
    const boardNode = this.board?.draw({
      snapshot,
      mySeat: over ? undefined : toMove,
      myTurn: !over,
      legal: [],
      submit: (action) => {
        const text = this.notation(action);
        if (text) this.act(module, () => this.game?.play(text, fresh()));
      },
      redraw: () => this.render(module),
    });
    clear(this.root);
    this.root.append(
      h(
        "section",
        { class: "game local", "data-kind": state.kind, "data-seq": String(state.moves.length), "data-status": over ? "finished" : "active" },
        h("h2", {}, `${gameTitle(state.kind)} · two players, this device`),
        h(
          "div",
          { class: "game-grid" },
          h("div", { class: "board-col" }, boardNode ?? null),
          h(
            "aside",
            { class: "side" },
            h("p", { id: "status", class: "status" }, status),
            h("p", { class: "small" }, "Offline: the rules run in this page, no server involved."),
            h("p", { id: "notice", class: "notice", role: "alert" }, this.notice),
            h(
              "div",
              { class: "controls" },
              h("button", { id: "take-back", disabled: state.moves.length === 0, onclick: () => this.act(module, () => this.game?.takeBack()) }, "Take back"),
              h("button", { id: "new-game", onclick: () => this.newGame(module) }, "New game"),
            ),
            h("h3", {}, "Moves"),
            h("ol", { id: "moves", class: "moves" }, ...state.moves.map((m) => h("li", {}, `${seatLabel(state.kind, m.seat ?? 0)}: ${m.notation}`))),
          ),
        ),
      ),
    );
  }
}
