// A friend room (ARCHITECTURE.md, "Rooms"): joined by its code (`#/room/K7M4QP`, or
// the invite link `/?room=K7M4QP`, the web form of `ludus://room/K7M4QP`). The page shows the
// members, the seats and the chat live from SubscribeRoom, lets the player take a seat, get
// ready and (the host) start, and opens the room's game when it starts: a seated player's
// own table, or any table to watch.

import { Code, currentSession, errorCode, failedOnTheWay, gateway, READ_TIMEOUT_MS, refusalText } from "./api.js";
import { BracketHistory } from "./bracket.js";
import { clear, h } from "./dom.js";
import { gameTitle } from "./game.js";
import { QuoridorMode } from "./gen/ludus/v1/quoridor_pb.js";
import {
  RoomChange_Kind,
  type RoomChatLine,
  type RoomEvent,
  RoomPhase,
  type RoomSnapshot,
  type RoomView,
} from "./gen/ludus/v1/rooms_pb.js";
import { type RoomCommand, roomExtras } from "./host.js";
import { t } from "./i18n.js";

const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 8000;

// Codes are typed in any case, with or without the space or a dash (the server's rule too).
export function normaliseRoomCode(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, "");
}

export function inviteLink(code: string): string {
  return `${location.origin}${location.pathname}?room=${encodeURIComponent(code)}`;
}

export class RoomPage {
  private room: RoomView | undefined;
  private chat: RoomChatLine[] = [];
  private lastSeq = 0n;
  private notice = "";
  private connection: "connecting" | "live" | "reconnecting" = "connecting";
  private readonly abort = new AbortController();
  // Games already opened, so a late event does not pull the player back into one.
  private readonly opened = new Set<string>();
  // Q24: every round of the room's knockout, from its log (the view holds only the current one).
  private readonly bracket = new BracketHistory();
  // The phase line, rewritten each second while the Q29 countdown runs (not the whole page:
  // a redraw would move the keyboard's focus).
  private phaseLine: HTMLElement | undefined;
  private readonly ticker = setInterval(() => this.tick(), 1000);
  // One input for the page's life: a redraw (any room event) keeps what is being typed.
  // One function for the page's life: the host's settings form is kept across redraws by it.
  private readonly run: RoomCommand = (send) => this.command(send);
  private readonly chatInput = h("input", {
    id: "chat-text",
    maxlength: 200,
    placeholder: t("room.chatPlaceholder"),
    "aria-label": t("room.chatLabel"),
    autocomplete: "off",
  }) as HTMLInputElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly code: string,
  ) {}

  async open(): Promise<void> {
    let backoff = BACKOFF_START_MS;
    for (;;) {
      try {
        const client = await gateway();
        // Joining again changes nothing (so a join that failed on the way is simply sent
        // again); a newcomer comes in watching and sits down by choice.
        this.take(await client.joinRoom({ code: this.code, watch: true }, { signal: this.abort.signal, timeoutMs: READ_TIMEOUT_MS }));
        break;
      } catch (error) {
        if (this.abort.signal.aborted) return;
        if (!failedOnTheWay(error)) {
          this.notice = refusalText(error);
          this.render();
          return;
        }
        this.connection = "reconnecting";
        this.render();
        await new Promise((resolve) => setTimeout(resolve, backoff / 2 + Math.random() * (backoff / 2)));
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
        if (this.abort.signal.aborted) return;
      }
    }
    // Games already being played when the player came in are theirs to open, not to be
    // pushed into.
    for (const table of this.room?.tables ?? []) this.opened.add(table.gameId);
    this.render();
    void this.follow();
  }

  close(): void {
    this.abort.abort();
    clearInterval(this.ticker);
  }

  private tick(): void {
    if (this.abort.signal.aborted) {
      clearInterval(this.ticker);
      return;
    }
    if (this.room?.phase === RoomPhase.COUNTDOWN && this.phaseLine) this.phaseLine.textContent = phaseLine(this.room);
  }

  private take(snapshot: RoomSnapshot): void {
    if (snapshot.seq < this.lastSeq) return;
    this.lastSeq = snapshot.seq;
    this.room = snapshot.room;
    this.chat = [...snapshot.chat];
  }

  private async follow(): Promise<void> {
    let backoff = BACKOFF_START_MS;
    // A knockout room's stream starts at the log's beginning once, so the bracket has its
    // earlier rounds (Q24); those events only feed the bracket.
    let afterSeq = knockout(this.room) ? 0n : this.lastSeq;
    while (!this.abort.signal.aborted) {
      try {
        const client = await gateway();
        for await (const event of client.subscribeRoom({ code: this.code, afterSeq }, { signal: this.abort.signal })) {
          backoff = BACKOFF_START_MS;
          this.connection = "live";
          this.apply(event);
        }
      } catch (error) {
        if (this.abort.signal.aborted) return;
        const code = errorCode(error);
        if (code === Code.NotFound || code === Code.PermissionDenied || code === Code.Unauthenticated) {
          this.notice = refusalText(error);
          this.render();
          return;
        }
      }
      if (this.abort.signal.aborted) return;
      afterSeq = this.lastSeq;
      this.connection = "reconnecting";
      this.render();
      await new Promise((resolve) => setTimeout(resolve, backoff / 2 + Math.random() * (backoff / 2)));
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    }
  }

  private apply(event: RoomEvent): void {
    const bracketChanged = this.bracket.fold(event);
    if (event.seq <= this.lastSeq) {
      // The log read from its start for the bracket reached the page's snapshot: show it.
      if (bracketChanged || event.seq === this.lastSeq) this.render();
      return;
    }
    this.lastSeq = event.seq;
    if (event.room) this.room = event.room;
    const me = currentSession()?.playerId;
    for (const change of event.changes) {
      if (change.kind === RoomChange_Kind.CHAT && change.chat) {
        this.chat.push(change.chat);
        if (this.chat.length > 100) this.chat.shift();
      }
      if (change.kind === RoomChange_Kind.GAMES_STARTED) {
        // A seated player goes to their own table as soon as it starts.
        for (const gameId of change.gameIds) {
          const table = this.room?.tables.find((t) => t.gameId === gameId);
          if (me && table?.playerIds.includes(me) && !this.opened.has(gameId)) {
            this.opened.add(gameId);
            location.hash = `#/game/${encodeURIComponent(gameId)}`;
            return;
          }
        }
      }
    }
    this.render();
  }

  // A room command; its snapshot (or the refusal, rule id first) is shown at once.
  private command(send: (client: Awaited<ReturnType<typeof gateway>>) => Promise<RoomSnapshot>): void {
    void (async () => {
      try {
        const snapshot = await send(await gateway());
        this.notice = "";
        this.take(snapshot);
        // The start's own answer can carry the new game before the stream does (and the
        // stream then skips that event as already seen): go to it from here too.
        if (this.enterNewGame()) return;
      } catch (error) {
        this.notice = refusalText(error);
      }
      this.render();
    })();
  }

  // Goes to the first unfinished table of this player not opened yet; true if it did.
  private enterNewGame(): boolean {
    const me = currentSession()?.playerId;
    const table = this.room?.tables.find((t) => !t.finished && me && t.playerIds.includes(me) && !this.opened.has(t.gameId));
    if (!table) return false;
    this.opened.add(table.gameId);
    location.hash = `#/game/${encodeURIComponent(table.gameId)}`;
    return true;
  }

  private render(): void {
    if (this.abort.signal.aborted) return;
    // Every room event redraws the page: the keyboard's focus goes back to the control of the
    // same id (the chat input keeps its own, below).
    const focusedId = this.root.contains(document.activeElement) ? document.activeElement?.id : undefined;
    clear(this.root);
    const room = this.room;
    if (!room) {
      this.root.append(
        this.notice
          ? h("p", { id: "notice", class: "notice", role: "alert", translate: "no" }, this.notice)
          : h("p", { id: "notice", class: "notice", role: "alert" }, t("room.joining")),
        h("p", {}, h("a", { href: "#/" }, t("room.back"))),
      );
      return;
    }
    const code = this.code;
    const me = currentSession()?.playerId;
    const mine = room.members.find((m) => m.playerId === me);
    const host = room.hostPlayerId === me;
    const kind = room.settings?.game?.options.case;
    this.phaseLine = h("p", { id: "room-phase", "data-phase": RoomPhase[room.phase] ?? "" }, phaseLine(room));
    const members = h(
      "ul",
      { id: "members", class: "players" },
      ...room.members.map((m) =>
        h(
          "li",
          { "data-member": m.displayName, "data-seated": m.seated ? "yes" : "no", "data-ready": m.ready ? "yes" : "no" },
          h("span", { translate: "no" }, m.displayName),
          `${m.playerId === me ? t("game.you") : ""}${m.host ? t("room.host") : ""} · ${m.seated ? (m.ready ? t("room.seatedReady") : t("room.seated")) : t("room.watching")}`,
        ),
      ),
    );
    const controls = h("div", { class: "controls" });
    if (mine?.seated) {
      controls.append(
        h(
          "button",
          { id: "ready", onclick: () => this.command((c) => c.setReady({ code, ready: !mine.ready })) },
          mine.ready ? t("room.notReady") : t("room.ready"),
        ),
        h("button", { id: "leave-seat", onclick: () => this.command((c) => c.leaveSeat({ code })) }, t("room.leaveSeat")),
      );
    } else {
      controls.append(h("button", { id: "take-seat", onclick: () => this.command((c) => c.takeSeat({ code })) }, t("room.takeSeat")));
    }
    if (host) controls.append(h("button", { id: "start", onclick: () => this.command((c) => c.startRoomGame({ code })) }, t("room.start")));
    controls.append(
      h(
        "button",
        {
          id: "leave-room",
          onclick: () => {
            this.command((c) => c.leaveRoom({ code }));
            location.hash = "#/";
          },
        },
        t("room.leave"),
      ),
    );
    const tables = room.tables.filter((t) => !t.finished);
    const games = h(
      "ul",
      { id: "room-games", class: "games" },
      ...tables.map((table) =>
        h(
          "li",
          {},
          h(
            "a",
            { href: `#/game/${encodeURIComponent(table.gameId)}`, "data-room-game": table.gameId },
            me && table.playerIds.includes(me) ? t("room.playYours") : t("room.watch"),
          ),
        ),
      ),
    );
    const input = this.chatInput;
    const typing = document.activeElement === input;
    const chat = h(
      "ol",
      { id: "chat", class: "chat", tabindex: 0, "aria-label": t("room.chat") },
      ...this.chat.map((line) => h("li", { translate: "no" }, h("b", {}, `${line.displayName}: `), line.text)),
    );
    const chatForm = h(
      "form",
      {
        id: "chat-form",
        class: "chat-form",
        onsubmit: (event: Event) => {
          event.preventDefault();
          const text = input.value.trim();
          if (!text) return;
          this.command(async (c) => {
            const snapshot = await c.sendRoomChat({ code, text });
            input.value = "";
            return snapshot;
          });
        },
      },
      input,
      h("button", { type: "submit" }, t("room.send")),
    );
    this.root.append(
      h(
        "section",
        { class: "room card", "data-room": code, "data-phase": RoomPhase[room.phase] ?? "", "data-game": kind ?? "" },
        h("h2", {}, ...titleParts(room.displayCode || code, gameTitle(kind))),
        h("p", { class: "small" }, t("room.invite"), h("a", { id: "invite", href: inviteLink(code), translate: "no" }, inviteLink(code))),
        this.phaseLine,
        h(
          "p",
          { id: "connection", class: `connection ${this.connection}` },
          this.connection === "live" ? t("conn.live") : this.connection === "reconnecting" ? t("conn.reconnecting") : t("conn.connecting"),
        ),
        h("p", { id: "notice", class: "notice", role: "alert", translate: "no" }, this.notice),
        h("h3", {}, t("room.members")),
        members,
        controls,
        roomExtras(room, me, this.run, this.bracket),
        tables.length ? h("h3", {}, t("room.games")) : null,
        tables.length ? games : null,
        h("h3", {}, t("room.chat")),
        chat,
        chatForm,
      ),
    );
    chat.scrollTop = chat.scrollHeight;
    if (typing) input.focus();
    else if (focusedId) document.getElementById(focusedId)?.focus();
  }
}

// The room's title with its code marked as no words of the page's language (a code is
// letters drawn at random: translating it, or checking it as a word, makes no sense).
function titleParts(code: string, game: string): (string | HTMLElement)[] {
  const [before = "", after = ""] = t("room.title", { code: "\u0000", game }).split("\u0000");
  return [before, h("span", { translate: "no" }, code), after];
}

function knockout(room: RoomView | undefined): boolean {
  const game = room?.settings?.game?.options;
  return game?.case === "quoridor" && game.value.mode === QuoridorMode.TOURNAMENT_MATCH;
}

function phaseLine(room: RoomView): string {
  const seated = room.members.filter((m) => m.seated).length;
  return phaseText(room) + t("room.seatsTaken", { seated, seats: room.seats });
}

function phaseText(room: RoomView): string {
  switch (room.phase) {
    case RoomPhase.LOBBY:
      return t("room.waiting");
    case RoomPhase.COUNTDOWN: {
      const seconds = Math.max(0, Math.ceil((Number(room.countdownDueUnixMs) - Date.now()) / 1000));
      return t("room.countdown", { seconds });
    }
    case RoomPhase.PAUSED:
      return t("room.pausedLeft", { seconds: Math.ceil(Number(room.countdownRemainingMs) / 1000) });
    case RoomPhase.PLAYING:
      return t("room.playing");
    default:
      return "";
  }
}
