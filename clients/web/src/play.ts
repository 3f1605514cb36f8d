// The lobby's "New game" card: pick a game, set its options (options.ts), then a quick match,
// a friend room (accounts host rooms, Ping44) or a game against the computer on the server
// (PlayComputer; the offline computer stays under "On this device").

import { currentSession, gateway, refusalText } from "./api.js";
import { clear, h } from "./dom.js";
import { TicketState } from "./gen/ludus/v1/matchmaking_pb.js";
import { CaroFirstMover } from "./gen/ludus/v1/rooms_pb.js";
import { type MessageKey, t } from "./i18n.js";
import { type Context, GAME_OPTIONS, OptionsForm } from "./options.js";

export const GAME_NAMES: Record<string, MessageKey> = {
  caro: "game.caro",
  mancala: "game.mancala",
  quoridor: "game.quoridor",
  backgammon: "game.backgammon",
  junqi: "game.junqi",
};

// The computer's levels as each game's seed names them (C17, M11, J20).
export function computerLevelName(kind: string, level: string): string {
  if (kind === "caro" && level === "normal") return t("cpu.medium");
  if (kind === "junqi")
    return t(({ easy: "cpu.beginner", normal: "cpu.normal", hard: "cpu.expert" } as const)[level as "easy"] ?? "cpu.normal");
  return t(({ easy: "cpu.easy", normal: "cpu.normal", hard: "cpu.hard" } as const)[level as "easy"] ?? "cpu.normal");
}

const TABS: { context: Context; label: MessageKey }[] = [
  { context: "quick", label: "play.quick" },
  { context: "computer", label: "play.computer" },
  { context: "room", label: "play.room" },
];

export class PlayCard {
  readonly node: HTMLElement;
  private context: Context = "quick";
  private kind = "caro";
  private form: OptionsForm;
  private readonly body = h("div", { class: "play-body" });
  private readonly state = h("p", { id: "new-game-state", class: "small", role: "status" });
  private readonly notice = h("p", { id: "new-game-notice", class: "notice", role: "alert" });
  private searching: AbortController | undefined;

  constructor() {
    this.form = new OptionsForm(this.kind, this.context, "new");
    this.node = h(
      "section",
      { class: "card", id: "new-game", "aria-labelledby": "new-game-title" },
      h("h2", { id: "new-game-title" }, t("play.title")),
      this.body,
      this.state,
      this.notice,
    );
    this.render();
    // A search belongs to the lobby: leaving it (or being matched) ends the search.
    window.addEventListener("hashchange", () => this.close(), { once: true });
  }

  close(): void {
    this.searching?.abort();
  }

  private render(): void {
    clear(this.body);
    const tabs = h("div", { class: "quick", role: "group", "aria-label": t("play.how") });
    for (const tab of TABS) {
      tabs.append(
        h(
          "button",
          {
            type: "button",
            "data-play": tab.context,
            class: tab.context === this.context ? "selected" : undefined,
            "aria-pressed": tab.context === this.context ? "true" : "false",
            onclick: () => {
              this.context = tab.context;
              this.form = new OptionsForm(this.kind, this.context, "new");
              this.render();
            },
          },
          t(tab.label),
        ),
      );
    }
    const game = h(
      "select",
      {
        id: "new-game-kind",
        onchange: (event: Event) => {
          this.kind = (event.target as HTMLSelectElement).value;
          this.form.setGame(this.kind);
        },
      },
      ...GAME_OPTIONS.map((g) => h("option", { value: g.kind, selected: g.kind === this.kind }, t(GAME_NAMES[g.kind] ?? "game.caro"))),
    );
    this.body.append(
      tabs,
      h("div", { class: "option" }, h("label", { for: "new-game-kind" }, t("play.game")), game),
      this.form.node,
      this.actions(),
    );
  }

  private actions(): HTMLElement {
    const row = h("div", { class: "controls" });
    if (this.context === "quick") {
      row.append(h("button", { type: "button", id: "new-quick", onclick: () => this.quick() }, t("play.find")));
    } else if (this.context === "computer") {
      const level = h(
        "select",
        { id: "new-level" },
        ...["easy", "normal", "hard"].map((l) => h("option", { value: l, selected: l === "normal" }, computerLevelName(this.kind, l))),
      ) as HTMLSelectElement;
      const first = h("input", { type: "checkbox", id: "new-computer-first", class: "check" }) as HTMLInputElement;
      row.append(
        h("label", { for: "new-level" }, t("play.level")),
        level,
        // Quoridor puts the person on seat 0 (PlayComputer).
        this.kind === "quoridor" ? "" : h("label", { class: "check-label" }, first, ` ${t("play.computerFirst")}`),
        h("button", { type: "button", id: "new-computer", onclick: () => void this.computer(level.value, first.checked) }, t("play.start")),
      );
    } else if (currentSession()?.account) {
      row.append(h("button", { type: "button", id: "new-room", onclick: () => void this.room() }, t("play.createRoom")));
    } else {
      row.append(h("p", { class: "small" }, t("play.roomNeedsAccount")));
    }
    return row;
  }

  private settings(): ReturnType<OptionsForm["settings"]> {
    return this.form.settings();
  }

  private quick(): void {
    this.searching?.abort();
    const abort = new AbortController();
    this.searching = abort;
    clear(this.state);
    this.notice.textContent = "";
    this.state.append(
      `${t("play.searching")} `,
      h(
        "button",
        {
          type: "button",
          class: "link",
          id: "new-cancel",
          onclick: () => {
            abort.abort();
            this.state.textContent = t("play.cancelled");
          },
        },
        t("play.cancel"),
      ),
    );
    const settings = this.settings();
    void (async () => {
      try {
        const client = await gateway();
        // Closing the stream before a match cancels the ticket (the server's rule).
        for await (const update of client.findMatch({ settings }, { signal: abort.signal })) {
          if (update.state === TicketState.MATCHED && update.gameId) {
            this.searching = undefined;
            location.hash = `#/game/${encodeURIComponent(update.gameId)}`;
            return;
          }
        }
      } catch (error) {
        if (abort.signal.aborted) return;
        this.notice.textContent = refusalText(error);
        this.state.textContent = "";
      }
    })();
  }

  private async computer(level: string, computerFirst: boolean): Promise<void> {
    try {
      const client = await gateway();
      const response = await client.playComputer({
        settings: this.settings(),
        level,
        computerFirst: this.kind !== "quoridor" && computerFirst,
      });
      location.hash = `#/game/${encodeURIComponent(response.game?.gameId ?? "")}`;
    } catch (error) {
      this.notice.textContent = refusalText(error);
    }
  }

  private async room(): Promise<void> {
    try {
      const client = await gateway();
      // C10: rock-paper-scissors decides the first mover unless the host changes it.
      const firstMover = this.kind === "caro" ? CaroFirstMover.ROCK_PAPER_SCISSORS : CaroFirstMover.UNSPECIFIED;
      const snapshot = await client.createRoom({ settings: { game: this.settings(), firstMover } });
      location.hash = `#/room/${encodeURIComponent(snapshot.room?.code ?? "")}`;
    } catch (error) {
      this.notice.textContent = refusalText(error);
    }
  }
}
