// One game's page, for players and spectators alike: the board, whose turn with the clock
// counting down, the move list in the game's notation, and the outcome.
//
// Events come from Subscribe. After a dropped connection (or a server restart) the page
// reconnects with exponential backoff and resumes with after_seq = the last seq it received,
// so no event is missed or shown twice. A seated player re-reads the game (GetGame) after each
// event for their own view and legal actions.

import { create } from "@bufbuild/protobuf";
import { Code, currentSession, errorCode, failedOnTheWay, gateway, READ_TIMEOUT_MS, refusalText } from "./api.js";
import { BackgammonBoard, moveText } from "./boards/backgammon.js";
import type { ActionInit, Board } from "./boards/board.js";
import { CaroBoard } from "./boards/caro.js";
import { JunqiBoard } from "./boards/junqi.js";
import { MancalaBoard } from "./boards/mancala.js";
import { QuoridorBoard } from "./boards/quoridor.js";
import { takeBackButton } from "./computer.js";
import { clear, h } from "./dom.js";
import { type GameEvent, type GameSnapshot, GameSnapshotSchema, GameStatus, ResultKind } from "./gen/ludus/v1/game_pb.js";
import { type MessageKey, t } from "./i18n.js";

const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 8000;

function boardFor(snapshot: GameSnapshot): Board | undefined {
  return boardForKind(snapshot.settings?.options.case ?? snapshot.view?.view.case);
}

// The board of a game (online or on this device), by the game's name.
export function boardForKind(kind: string | undefined): Board | undefined {
  switch (kind) {
    case "caro":
      return new CaroBoard();
    case "mancala":
      return new MancalaBoard();
    case "quoridor":
      return new QuoridorBoard();
    case "junqi":
      return new JunqiBoard();
    case "backgammon":
      return new BackgammonBoard();
    default:
      return undefined;
  }
}

const GAME_TITLES: Record<string, MessageKey> = {
  caro: "game.caro",
  mancala: "game.mancala",
  quoridor: "game.quoridor",
  junqi: "game.junqi",
  backgammon: "game.backgammon",
};

// The game's name as its seed site says it (cờ caro, Rào chắn…).
export function gameTitle(kind: string | undefined): string {
  return t(GAME_TITLES[kind ?? ""] ?? "game.unknown");
}

export class GamePage {
  private snapshot: GameSnapshot | undefined;
  private board: Board | undefined;
  private lastSeq = 0n;
  // Every event received, in order: the move list is written from them at each drawing, in
  // the words of the game the page knows by then (events replayed before the first read
  // answered are written as the game's moves too, not as bare seat numbers).
  private events: GameEvent[] = [];
  private notice = "";
  private connection: "connecting" | "live" | "reconnecting" | "ended" = "connecting";
  private readonly abort = new AbortController();
  private clockTimer: number | undefined;
  private refreshing = false;
  private refreshAgain = false;
  private refreshRetry: number | undefined;
  private refreshBackoff = BACKOFF_START_MS;
  private actionCounter = 0;
  private readonly root: HTMLElement;

  constructor(
    root: HTMLElement,
    private readonly gameId: string,
  ) {
    this.root = root;
  }

  async open(): Promise<void> {
    await this.refresh();
    this.clockTimer = window.setInterval(() => this.tickClock(), 250);
    void this.follow();
  }

  close(): void {
    this.abort.abort();
    if (this.clockTimer !== undefined) window.clearInterval(this.clockTimer);
    if (this.refreshRetry !== undefined) window.clearTimeout(this.refreshRetry);
  }

  private get mySeat(): number | undefined {
    return this.snapshot?.yourSeat;
  }

  // GetGame; one at a time, the newest wins. A read that fails on the way (a lost or slow
  // connection, a busy server) is tried again with backoff while the page lacks the position
  // its events reached: otherwise a page whose first read failed would wait on "loading" for
  // an event that may never come (the players wait for the page), and a seated player would
  // keep the legal actions of a position already gone.
  private async refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        const client = await gateway();
        const response = await client.getGame({ gameId: this.gameId }, { signal: this.abort.signal, timeoutMs: READ_TIMEOUT_MS });
        const game = response.game;
        if (game && (!this.snapshot || game.seq >= this.snapshot.seq)) {
          this.snapshot = game;
          this.board ??= boardFor(game);
        }
      } while (this.refreshAgain);
      this.refreshBackoff = BACKOFF_START_MS;
    } catch (error) {
      // A lost connection shows in the connection line; anything else is the server's
      // answer and is shown as it is.
      const transient = failedOnTheWay(error);
      if (!this.abort.signal.aborted && !transient) {
        this.notice = refusalText(error);
      }
      if (!this.abort.signal.aborted && (transient || errorCode(error) === Code.ResourceExhausted)) this.retryRefresh();
    } finally {
      this.refreshing = false;
    }
    this.render();
  }

  // Reads the game again after a backoff, unless the page has caught up meanwhile.
  private retryRefresh(): void {
    if (this.refreshRetry !== undefined) return;
    const wait = this.refreshBackoff / 2 + Math.random() * (this.refreshBackoff / 2);
    this.refreshBackoff = Math.min(this.refreshBackoff * 2, BACKOFF_MAX_MS);
    this.refreshRetry = window.setTimeout(() => {
      this.refreshRetry = undefined;
      if (!this.snapshot || this.snapshot.seq < this.lastSeq) void this.refresh();
    }, wait);
  }

  // Subscribe from the last seq received; reconnect with backoff until the game ends.
  private async follow(): Promise<void> {
    let backoff = BACKOFF_START_MS;
    while (!this.abort.signal.aborted) {
      try {
        const client = await gateway();
        const stream = client.subscribe({ gameId: this.gameId, afterSeq: this.lastSeq }, { signal: this.abort.signal });
        for await (const event of stream) {
          if (this.connection !== "live") {
            this.connection = "live";
            this.render();
          }
          backoff = BACKOFF_START_MS;
          this.apply(event);
        }
        // The stream ends after the event that finishes the game.
        if (this.snapshot?.status === GameStatus.FINISHED) {
          this.connection = "ended";
          this.render();
          return;
        }
      } catch (error) {
        if (this.abort.signal.aborted) return;
        const code = errorCode(error);
        if (code === Code.Unauthenticated || code === Code.NotFound || code === Code.PermissionDenied) {
          this.notice = refusalText(error);
          this.connection = "ended";
          this.render();
          return;
        }
      }
      if (this.abort.signal.aborted) return;
      this.connection = "reconnecting";
      this.render();
      const wait = backoff / 2 + Math.random() * (backoff / 2);
      await new Promise((resolve) => setTimeout(resolve, wait));
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      // The connection may have missed turns: read the game again before resuming.
      await this.refresh();
    }
  }

  private apply(event: GameEvent): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    this.events.push(event);
    const snapshot = this.snapshot;
    // No position yet (the first read failed): the event says the game is there, read it.
    if (!snapshot) void this.refresh();
    if (snapshot && event.seq > snapshot.seq) {
      if (snapshot.yourSeat !== undefined) {
        // A seated player's own view and legal actions (and the seq to act on) come with
        // GetGame, all of one position.
        void this.refresh();
      } else {
        // Events carry the public view: a spectator needs nothing more.
        const next = create(GameSnapshotSchema, snapshot);
        next.seq = event.seq;
        next.turn = event.turn;
        next.status = event.status;
        next.outcome = event.outcome;
        next.legalActions = [];
        if (event.view) next.view = event.view;
        this.snapshot = next;
      }
    }
    this.render();
  }

  private submit(action: ActionInit): void {
    const snapshot = this.snapshot;
    if (!snapshot) return;
    this.actionCounter += 1;
    const actionId = `${currentSession()?.playerId ?? "guest"}-${Date.now()}-${this.actionCounter}`;
    void (async () => {
      try {
        const client = await gateway();
        const response = await client.submitAction({
          gameId: this.gameId,
          expectedSeq: snapshot.seq,
          actionId,
          action,
        });
        this.notice = "";
        if (response.event) this.apply(response.event);
      } catch (error) {
        // The server's own words, rule id first ("C3: H8 is already taken").
        this.notice = refusalText(error);
        if (errorCode(error) === Code.Aborted) {
          this.notice = `${this.notice}${t("game.movedOn")}`;
          void this.refresh();
        }
        this.render();
      }
    })();
  }

  // Resign, offer a draw, or answer one (C14, C8): each answers with the event it caused.
  private call(send: (client: Awaited<ReturnType<typeof gateway>>) => Promise<{ event?: GameEvent }>): void {
    void (async () => {
      try {
        const response = await send(await gateway());
        this.notice = "";
        if (response.event) this.apply(response.event);
      } catch (error) {
        this.notice = refusalText(error);
        this.render();
      }
    })();
  }

  private tableButtons(snapshot: GameSnapshot, me: number): HTMLElement {
    const gameId = this.gameId;
    const offeredBy = snapshot.drawOfferedBy;
    const buttons = h("div", { class: "controls" });
    if (offeredBy === undefined) {
      buttons.append(h("button", { id: "offer-draw", onclick: () => this.call((c) => c.offerDraw({ gameId })) }, t("game.offerDraw")));
    } else if (offeredBy !== me) {
      buttons.append(
        h("button", { id: "accept-draw", onclick: () => this.call((c) => c.respondDraw({ gameId, accept: true })) }, t("game.acceptDraw")),
        h(
          "button",
          { id: "decline-draw", onclick: () => this.call((c) => c.respondDraw({ gameId, accept: false })) },
          t("game.declineDraw"),
        ),
      );
    } else {
      buttons.append(h("span", { class: "small" }, t("game.drawOffered")));
    }
    buttons.append(h("button", { id: "resign", onclick: () => this.call((c) => c.resign({ gameId })) }, t("game.resign")));
    return buttons;
  }

  private moveLines(snapshot: GameSnapshot): ({ seq: bigint } & MoveLine)[] {
    return this.events.flatMap((event) => {
      const line = describe(event, snapshot);
      return line ? [{ seq: event.seq, ...line }] : [];
    });
  }

  private tickClock(): void {
    const clock = this.root.querySelector<HTMLElement>("#clock");
    if (clock) clock.textContent = clockText(this.snapshot);
  }

  private render(): void {
    // A closed page (the player navigated away) never draws over the next one.
    if (this.abort.signal.aborted) return;
    const snapshot = this.snapshot;
    clear(this.root);
    if (!snapshot) {
      this.root.append(h("p", { id: "notice", class: "notice" }, this.notice || t("game.loading")));
      return;
    }
    const kind = snapshot.settings?.options.case;
    const seats = snapshot.seats;
    const me = this.mySeat;
    const toMove = snapshot.turn?.toMove;
    const active = snapshot.status === GameStatus.ACTIVE;
    const myTurn = active && me !== undefined && toMove === me;
    const players = h(
      "ul",
      { class: "players" },
      ...seats.map((seat) =>
        h(
          "li",
          { class: seat.seat === toMove && active ? "to-move" : undefined, "data-seat": seat.seat },
          `${seatLabel(kind, seat.seat)}: `,
          h("span", { translate: "no" }, seat.displayName),
          seat.seat === me ? t("game.you") : "",
        ),
      ),
    );
    const status = active
      ? myTurn
        ? t("game.yourTurn")
        : t("game.toMove", { seat: seatLabel(kind, toMove ?? 0) })
      : outcomeNodes(snapshot);
    const boardNode = this.board?.draw({
      snapshot,
      mySeat: me,
      myTurn,
      legal: myTurn ? snapshot.legalActions : [],
      submit: (action) => this.submit(action),
      redraw: () => this.render(),
    });
    const moveList = h(
      "ol",
      // Scrolls once long: focusable so the keyboard scrolls it too (WCAG 2.1.1).
      { id: "moves", class: "moves", tabindex: 0, "aria-label": t("game.moves") },
      ...this.moveLines(snapshot).map((m) =>
        h(
          "li",
          { "data-seq": String(m.seq), translate: m.server ? "no" : undefined },
          m.text,
          m.notation === undefined ? null : h("span", { translate: "no" }, m.notation),
          m.suffix ?? "",
        ),
      ),
    );
    this.root.append(
      h(
        "section",
        {
          class: "game",
          "data-game": this.gameId,
          "data-kind": kind ?? "",
          "data-seq": String(snapshot.seq),
          "data-status": active ? "active" : "finished",
          "data-my-turn": myTurn ? "yes" : "no",
        },
        h("h2", {}, `${gameTitle(kind)} ${me === undefined ? t("game.watching") : ""}`),
        h(
          "div",
          { class: "game-grid" },
          h("div", { class: "board-col" }, boardNode ?? h("p", {}, t("game.cannotDraw"))),
          h(
            "aside",
            { class: "side" },
            players,
            h("p", { id: "status", class: "status", "aria-live": "polite" }, ...(typeof status === "string" ? [status] : status)),
            h("p", { id: "clock", class: "clock" }, clockText(snapshot)),
            h("p", { id: "connection", class: `connection ${this.connection}` }, connectionText(this.connection)),
            // The server's refusal, in its own words (rule id first): not the page's to translate.
            h("p", { id: "notice", class: "notice", role: "alert", translate: "no" }, this.notice),
            me !== undefined && active ? this.tableButtons(snapshot, me) : null,
            me !== undefined && active ? takeBackButton(snapshot, (send) => this.call(send)) : null,
            h("h3", {}, t("game.moves")),
            moveList,
          ),
        ),
      ),
    );
    moveList.scrollTop = moveList.scrollHeight;
  }
}

function connectionText(state: string): string {
  switch (state) {
    case "live":
      return t("conn.live");
    case "reconnecting":
      return t("conn.lost");
    case "ended":
      return t("conn.ended");
    default:
      return t("conn.connecting");
  }
}

export function seatLabel(kind: string | undefined, seat: number): string {
  switch (kind) {
    case "caro":
      return seat === 0 ? "X" : "O";
    case "backgammon":
      return seat === 0 ? t("seat.white") : t("seat.black");
    default:
      return t("seat.numbered", { n: seat + 1 });
  }
}

function clockText(snapshot: GameSnapshot | undefined): string {
  const deadline = Number(snapshot?.turn?.deadlineUnixMs ?? 0n);
  if (!snapshot || snapshot.status !== GameStatus.ACTIVE || deadline === 0) return "";
  const left = Math.max(0, deadline - Date.now());
  const seconds = Math.ceil(left / 1000);
  const who = seatLabel(snapshot.settings?.options.case, snapshot.turn?.toMove ?? 0);
  return `${who}: ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

// The outcome line: the page's words for who won, then the rule id and the server's reason
// (in the server's words, marked as not the page's to translate).
function outcomeNodes(snapshot: GameSnapshot): (string | HTMLElement)[] {
  const outcome = snapshot.outcome;
  if (!outcome) return [t("game.over")];
  const kind = snapshot.settings?.options.case;
  let head = t("game.over");
  if (outcome.kind === ResultKind.WIN) {
    head = t("game.won", {
      winners: outcome.winners.map((w) => `${seatLabel(kind, w)} (${snapshot.seats[w]?.displayName ?? "?"})`).join(", "),
    });
  } else if (outcome.kind === ResultKind.DRAW) {
    head = t("game.draw");
  } else if (outcome.kind === ResultKind.CANCELLED) {
    head = t("game.cancelled");
  }
  return [t("game.outcome", { head, rule: outcome.rule }), h("span", { translate: "no" }, outcome.reason)];
}

// One line of the move list: the page's words, then the move in the game's notation (the same
// in every language), then what follows it. `server`: the line is the server's own words (a
// timeout's effect), not the page's.
interface MoveLine {
  text: string;
  notation?: string;
  suffix?: string;
  server?: boolean;
}

// One line of the move list per event, in the game's notation.
function describe(event: GameEvent, snapshot: GameSnapshot | undefined): MoveLine | undefined {
  const kind = snapshot?.settings?.options.case;
  const seat = (n: number) => ({ seat: seatLabel(kind, n) });
  switch (event.kind.case) {
    case "started":
      return undefined;
    case "actionApplied": {
      const a = event.kind.value;
      let text = a.notation;
      const play = a.action?.action;
      if (!text && play?.case === "backgammon" && play.value.kind.case === "play") {
        text = play.value.kind.value.moves.map(moveText).join(" ");
      }
      return { text: `${seatLabel(kind, a.seat)}: `, notation: text, suffix: a.automatic ? t("game.auto") : "" };
    }
    case "turnTimedOut":
      return { text: event.kind.value.effect, server: true };
    case "resigned":
      return { text: t("game.resigned", seat(event.kind.value.seat)) };
    case "drawOffered":
      return { text: t("game.offeredDraw", seat(event.kind.value.seat)) };
    case "drawDeclined":
      return { text: t("game.declinedDraw", seat(event.kind.value.seat)) };
    case "drawAgreed":
      return { text: t("game.drawAgreed") };
    case "playerDisconnected":
      return { text: t("game.disconnected", seat(event.kind.value.seat)) };
    case "playerReconnected":
      return { text: t("game.reconnected", seat(event.kind.value.seat)) };
    case "absenceExpired":
      return { text: event.kind.value.effect, server: true };
    default:
      return undefined;
  }
}
