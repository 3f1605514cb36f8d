// `#/replay/<game id>`: an archived game (GetArchivedGame) move by move. Every event of the
// archived log carries the public view after it, so each step is drawn by the game's own board
// as a spectator sees it; the standard text export downloads as a file (a backgammon game as a
// .mat match file, mat.ts, which gnubg imports).

import { create } from "@bufbuild/protobuf";
import { gameName } from "./account.js";
import { gateway, refusalText } from "./api.js";
import type { Board } from "./boards/board.js";
import { clear, h } from "./dom.js";
import { boardForKind } from "./game.js";
import type { ArchivedGame } from "./gen/ludus/v1/accounts_pb.js";
import { type GameEvent, type GameSnapshot, GameSnapshotSchema, GameStatus } from "./gen/ludus/v1/game_pb.js";
import { t } from "./i18n.js";
import { matchFile } from "./mat.js";

// The positions of the game: the start, then one per event that changed the view.
export function replaySteps(game: ArchivedGame): { event: GameEvent | undefined; text: string }[] {
  const steps: { event: GameEvent | undefined; text: string }[] = [];
  let moveIndex = 0;
  for (const event of game.events) {
    if (!event.view) continue;
    if (event.kind.case === "started") {
      steps.push({ event, text: t("replay.start") });
    } else if (event.kind.case === "actionApplied") {
      const text = event.kind.value.notation || game.moves[moveIndex] || "";
      moveIndex += 1;
      steps.push({ event, text });
    } else if (event.kind.case === "takenBack") {
      steps.push({ event, text: t("play.takeBack") });
    } else if (event.kind.case === "resigned") {
      steps.push({ event, text: t("replay.resigned") });
    } else {
      steps.push({ event, text: event.kind.case ?? "" });
    }
  }
  return steps;
}

export function exportFileName(game: ArchivedGame): string {
  const kind = game.settings?.options.case ?? "game";
  // gnubg opens match files by their .mat extension; the others are plain text move lists.
  const extension = kind === "backgammon" ? "mat" : "txt";
  return `ludus-${kind}-${game.gameId}.${extension}`;
}

export class ReplayPage {
  private game: ArchivedGame | undefined;
  private steps: { event: GameEvent | undefined; text: string }[] = [];
  private index = 0;
  private board: Board | undefined;
  private readonly abort = new AbortController();
  private readonly keys = (event: KeyboardEvent) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.key === "ArrowLeft") this.go(this.index - 1);
    if (event.key === "ArrowRight") this.go(this.index + 1);
  };

  constructor(
    private readonly root: HTMLElement,
    private readonly gameId: string,
  ) {}

  close(): void {
    this.abort.abort();
    document.removeEventListener("keydown", this.keys);
  }

  async open(): Promise<void> {
    try {
      this.game = await (await gateway()).getArchivedGame({ gameId: this.gameId }, { signal: this.abort.signal });
    } catch (error) {
      if (this.abort.signal.aborted) return;
      this.root.append(
        h("p", { id: "notice", class: "notice", role: "alert" }, refusalText(error)),
        h("p", {}, h("a", { href: "#/account" }, t("replay.back"))),
      );
      return;
    }
    this.steps = replaySteps(this.game);
    this.board = boardForKind(this.game.settings?.options.case);
    this.index = this.steps.length - 1;
    document.addEventListener("keydown", this.keys);
    this.render();
  }

  private go(index: number): void {
    this.index = Math.max(0, Math.min(this.steps.length - 1, index));
    this.render();
  }

  private snapshotAt(game: ArchivedGame): GameSnapshot {
    const base = create(GameSnapshotSchema, game.finalSnapshot ?? { gameId: game.gameId, settings: game.settings, seats: game.seats });
    const event = this.steps[this.index]?.event;
    if (event && this.index < this.steps.length - 1) {
      base.view = event.view;
      base.seq = event.seq;
      base.turn = event.turn;
      base.status = GameStatus.ACTIVE;
      base.outcome = undefined;
    }
    base.yourSeat = undefined;
    base.legalActions = [];
    return base;
  }

  private download(game: ArchivedGame): void {
    // Backgammon: a .mat match file gnubg imports (mat.ts); the others: the archive's move list.
    const text = game.settings?.options.case === "backgammon" ? matchFile(game) : game.exportText;
    const blob = new Blob([text], { type: "text/plain;charset=utf-8" });
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: exportFileName(game) });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  private render(): void {
    const game = this.game;
    if (!game || this.abort.signal.aborted) return;
    clear(this.root);
    const snapshot = this.snapshotAt(game);
    const boardNode = this.board?.draw({
      snapshot,
      mySeat: undefined,
      myTurn: false,
      legal: [],
      submit: () => undefined,
      redraw: () => this.render(),
    });
    const last = this.steps.length - 1;
    const list = h(
      "ol",
      { id: "replay-moves", class: "moves", start: 0 },
      ...this.steps.map((step, i) =>
        h(
          "li",
          { class: i === this.index ? "current" : undefined, "aria-current": i === this.index ? "step" : undefined },
          h("button", { type: "button", class: "link", "data-step": i, onclick: () => this.go(i) }, step.text),
        ),
      ),
    );
    this.root.append(
      h(
        "section",
        {
          class: "game replay",
          id: "replay",
          "data-game": game.gameId,
          "data-kind": game.settings?.options.case ?? "",
          "data-step": this.index,
          "data-steps": this.steps.length,
        },
        h("h2", {}, `${t("replay.title")} · ${gameName(game.settings?.options.case)} · ${game.ruleset}`),
        h(
          "div",
          { class: "game-grid" },
          h("div", { class: "board-col" }, boardNode ?? h("p", {}, game.exportText)),
          h(
            "aside",
            { class: "side" },
            h("ul", { class: "players" }, ...game.seats.map((s) => h("li", {}, s.displayName))),
            h("p", { id: "replay-position", class: "status", "aria-live": "polite" }, t("replay.position", { step: this.index, of: last })),
            game.outcome ? h("p", { class: "small" }, `${game.outcome.rule}: ${game.outcome.reason}`) : null,
            h(
              "div",
              { class: "controls" },
              h(
                "button",
                { type: "button", id: "replay-first", onclick: () => this.go(0), disabled: this.index === 0 },
                `« ${t("replay.first")}`,
              ),
              h(
                "button",
                { type: "button", id: "replay-prev", onclick: () => this.go(this.index - 1), disabled: this.index === 0 },
                `‹ ${t("replay.prev")}`,
              ),
              h(
                "button",
                { type: "button", id: "replay-next", onclick: () => this.go(this.index + 1), disabled: this.index === last },
                `${t("replay.next")} ›`,
              ),
              h(
                "button",
                { type: "button", id: "replay-last", onclick: () => this.go(last), disabled: this.index === last },
                `${t("replay.last")} »`,
              ),
            ),
            h("button", { type: "button", id: "replay-export", onclick: () => this.download(game) }, t("replay.export")),
            h("h3", {}, t("replay.moves")),
            list,
          ),
        ),
      ),
    );
  }
}
