// The lobby's "New game" card: pick a game, set its options (options.ts), then a quick match,
// a friend room (accounts host rooms, Ping44) or a game against the computer on the server
// (PlayComputer; the offline computer stays under "On this device").

import { currentSession, gateway, refusalText } from "./api.js";
import { clear, h } from "./dom.js";
import { TicketState } from "./gen/ludus/v1/matchmaking_pb.js";
import { label, type MessageKey, t } from "./i18n.js";
import { type Context, GAME_OPTIONS, gameOptions, OptionsForm } from "./options.js";

export const GAME_NAMES: Record<string, MessageKey> = {
  caro: "game.caro",
  mancala: "game.mancala",
  quoridor: "game.quoridor",
  backgammon: "game.backgammon",
  junqi: "game.junqi",
};

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
    this.form = this.newForm();
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

  // The room tab's form also chooses the room's own settings (C10's first mover, Q29).
  private newForm(): OptionsForm {
    return new OptionsForm(this.kind, this.context, "new", undefined, this.context === "room");
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
              this.form = this.newForm();
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
          // The levels' names and the first-mover box are the game's.
          this.render();
          (this.body.querySelector("#new-game-kind") as HTMLElement | null)?.focus();
        },
      },
      ...GAME_OPTIONS.map((g) => h("option", { value: g.kind, selected: g.kind === this.kind }, label(g.description.labelKey))),
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
    // No description yet (the gateway never answered this tab): the form says so, and there is
    // nothing to send.
    if (!gameOptions(this.kind)) return row;
    if (this.context === "quick") {
      row.append(h("button", { type: "button", id: "new-quick", onclick: () => this.quick() }, t("play.find")));
    } else if (this.context === "computer") {
      const description = gameOptions(this.kind)?.description;
      // The levels as the game's rules name them (C17, M11, J20), the middle one first.
      const levels = description?.computerLevels ?? [];
      const level = h(
        "select",
        { id: "new-level" },
        ...levels.map((l, i) => h("option", { value: l.level, selected: i === Math.floor(levels.length / 2) }, label(l.labelKey))),
      ) as HTMLSelectElement;
      const first = h("input", { type: "checkbox", id: "new-computer-first", class: "check" }) as HTMLInputElement;
      const mayMoveFirst = description?.computerMayMoveFirst ?? false;
      row.append(
        h("label", { for: "new-level" }, t("play.level")),
        level,
        // Quoridor puts the person on seat 0 (PlayComputer).
        mayMoveFirst ? h("label", { class: "check-label" }, first, ` ${t("play.computerFirst")}`) : "",
        h(
          "button",
          { type: "button", id: "new-computer", onclick: () => void this.computer(level.value, mayMoveFirst && first.checked) },
          t("play.start"),
        ),
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
        computerFirst,
      });
      location.hash = `#/game/${encodeURIComponent(response.game?.gameId ?? "")}`;
    } catch (error) {
      this.notice.textContent = refusalText(error);
    }
  }

  private async room(): Promise<void> {
    try {
      const client = await gateway();
      // The room's own choices (C10's first mover, Q29's auto-start) with the game's.
      const settings = this.form.roomSettings();
      settings.game = this.settings();
      const snapshot = await client.createRoom({ settings });
      location.hash = `#/room/${encodeURIComponent(snapshot.room?.code ?? "")}`;
    } catch (error) {
      this.notice.textContent = refusalText(error);
    }
  }
}
