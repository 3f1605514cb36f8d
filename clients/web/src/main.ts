// The Ludus web client: sign in as a guest, pick a live game to watch or quick-match any of
// the five games, then play or watch it (see game.ts).
//
// Routes live in the URL hash: `#/` the lobby, `#/game/<id>` one game.

import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, currentSession, errorCode, gateway, refusalText, setSession } from "./api.js";
import { clear, h } from "./dom.js";
import { GamePage, gameTitle, seatLabel } from "./game.js";
import { LocalPage, OFFLINE_GAMES, offlineModule } from "./local.js";
import type { GameSettingsSchema } from "./gen/ludus/v1/game_pb.js";
import { MancalaFirstPlayer, MancalaRuleSet } from "./gen/ludus/v1/mancala_pb.js";
import { TicketState } from "./gen/ludus/v1/matchmaking_pb.js";
import { QuoridorGoal, QuoridorMode } from "./gen/ludus/v1/quoridor_pb.js";

type Settings = MessageInitShape<typeof GameSettingsSchema>;

// Quick-match settings per game, as the terminal client sends them; the server's clock.
const QUICK_MATCHES: { kind: string; settings: Settings }[] = [
  { kind: "caro", settings: { options: { case: "caro", value: { boardSize: 15 } } } },
  {
    kind: "mancala",
    settings: { options: { case: "mancala", value: { ruleSet: MancalaRuleSet.KALAH, firstPlayer: MancalaFirstPlayer.RANDOM } } },
  },
  {
    kind: "quoridor",
    settings: { options: { case: "quoridor", value: { mode: QuoridorMode.FREE_FOR_ALL, goal: QuoridorGoal.OPPOSITE, size: 9, players: 2 } } },
  },
  { kind: "backgammon", settings: { options: { case: "backgammon", value: {} } } },
  { kind: "junqi", settings: { options: { case: "junqi", value: {} } } },
];

const app = document.getElementById("app") as HTMLElement;
let page: GamePage | LocalPage | undefined;
let lobbyTimer: number | undefined;
let searching: AbortController | undefined;

function leave(): void {
  page?.close();
  page = undefined;
  if (lobbyTimer !== undefined) window.clearInterval(lobbyTimer);
  lobbyTimer = undefined;
  searching?.abort();
  searching = undefined;
}

function showWho(): void {
  const who = document.getElementById("who");
  if (!who) return;
  clear(who);
  const session = currentSession();
  if (session) {
    who.append(
      `${session.name} `,
      h("button", { class: "link", id: "sign-out", onclick: () => { setSession(undefined); void route(); } }, "sign out"),
    );
  }
}

let routing = 0;

async function route(): Promise<void> {
  const generation = ++routing;
  leave();
  showWho();
  clear(app);
  // Offline games need no session and no server.
  const local = /^#\/local\/([a-z]+)$/.exec(location.hash);
  if (local) {
    page = new LocalPage(app, local[1]);
    await page.open();
    return;
  }
  if (!currentSession()) {
    signInForm();
    void offlineCard();
    return;
  }
  const match = /^#\/game\/([^/]+)$/.exec(location.hash);
  if (match) {
    page = new GamePage(app, decodeURIComponent(match[1]));
    await page.open();
    return;
  }
  await lobby(() => generation === routing);
}

function signInForm(message = ""): void {
  const input = h("input", { id: "name", name: "name", maxlength: 32, required: true, placeholder: "your name", autocomplete: "nickname" }) as HTMLInputElement;
  const notice = h("p", { id: "notice", class: "notice", role: "alert" }, message);
  const form = h(
    "form",
    {
      id: "sign-in",
      class: "card",
      onsubmit: (event: Event) => {
        event.preventDefault();
        void (async () => {
          try {
            const client = await gateway();
            const response = await client.signInGuest({ displayName: input.value.trim() });
            setSession({ token: response.token, playerId: response.playerId, name: input.value.trim(), expiresAtMs: Number(response.expiresAtUnixMs) });
            await route();
          } catch (error) {
            notice.textContent = refusalText(error);
          }
        })();
      },
    },
    h("h2", {}, "Play as a guest"),
    h("label", { for: "name" }, "Name shown to others"),
    input,
    h("button", { type: "submit" }, "Sign in"),
    notice,
  );
  app.append(form);
  input.focus();
}

// `current` is false once the player navigated elsewhere: the lobby then stops refreshing.
async function lobby(current: () => boolean): Promise<void> {
  const notice = h("p", { id: "notice", class: "notice", role: "alert" });
  const quick = h("div", { class: "card" }, h("h2", {}, "Quick match"));
  const buttons = h("div", { class: "quick" });
  const searchState = h("p", { id: "search", class: "small" });
  for (const q of QUICK_MATCHES) {
    buttons.append(h("button", { "data-quick": q.kind, onclick: () => quickMatch(q.settings, searchState, notice) }, gameTitle(q.kind)));
  }
  quick.append(buttons, searchState);
  const mine = h("ul", { id: "my-games", class: "games" });
  const live = h("ul", { id: "live-games", class: "games" });
  app.append(
    notice,
    quick,
    h("div", { class: "card" }, h("h2", {}, "Your games"), mine),
    h("div", { class: "card" }, h("h2", {}, "Live games"), live),
  );
  const refresh = async () => {
    if (!current()) return;
    try {
      const client = await gateway();
      const [liveGames, myGames] = await Promise.all([client.listLiveGames({ limit: 30 }), client.listMyGames({ limit: 20 })]);
      clear(live);
      if (liveGames.games.length === 0) live.append(h("li", { class: "small" }, "Nobody is playing right now."));
      for (const game of liveGames.games) {
        const kind = game.settings?.options.case;
        const players = game.seats.map((s) => `${seatLabel(kind, s.seat)} ${s.displayName}`).join(" vs ");
        live.append(h("li", {}, h("a", { href: `#/game/${encodeURIComponent(game.gameId)}`, "data-watch": game.gameId }, `${gameTitle(kind)}: ${players}`), h("span", { class: "small" }, ` · move ${game.seq}`)));
      }
      clear(mine);
      if (myGames.games.length === 0) mine.append(h("li", { class: "small" }, "None in progress."));
      for (const game of myGames.games) {
        const kind = game.settings?.options.case;
        mine.append(h("li", {}, h("a", { href: `#/game/${encodeURIComponent(game.gameId)}` }, `${gameTitle(kind)} vs ${game.seats.filter((s) => s.seat !== game.yourSeat).map((s) => s.displayName).join(", ")}`)));
      }
    } catch (error) {
      if (errorCode(error) === Code.Unauthenticated) {
        setSession(undefined);
        leave();
        clear(app);
        signInForm(`Signed out: ${refusalText(error)}`);
        return;
      }
      notice.textContent = refusalText(error);
    }
  };
  void offlineCard();
  await refresh();
  if (current()) lobbyTimer = window.setInterval(() => void refresh(), 3000);
}

// "Two players, this device": shown when this build carries the offline games.
async function offlineCard(): Promise<void> {
  if (!(await offlineModule())) return;
  // Still on the lobby or the sign-in page (the module may load after the player moved on).
  if (!app.querySelector("#sign-in, [data-quick]")) return;
  const card = h("div", { class: "card", id: "offline" }, h("h2", {}, "Two players, this device (no network)"));
  const buttons = h("div", { class: "quick" });
  for (const kind of OFFLINE_GAMES) {
    buttons.append(h("a", { class: "button", href: `#/local/${kind}`, "data-local": kind }, gameTitle(kind)));
  }
  card.append(buttons);
  if (!app.querySelector("#offline")) app.append(card);
}

function quickMatch(settings: Settings, state: HTMLElement, notice: HTMLElement): void {
  searching?.abort();
  const abort = new AbortController();
  searching = abort;
  clear(state);
  state.append("Looking for an opponent… ", h("button", { class: "link", onclick: () => { abort.abort(); state.textContent = "Cancelled."; } }, "cancel"));
  void (async () => {
    try {
      const client = await gateway();
      // Closing the stream before a match cancels the ticket (the server's rule).
      for await (const update of client.findMatch({ settings }, { signal: abort.signal })) {
        if (update.state === TicketState.MATCHED && update.gameId) {
          searching = undefined;
          location.hash = `#/game/${encodeURIComponent(update.gameId)}`;
          return;
        }
      }
    } catch (error) {
      if (abort.signal.aborted) return;
      notice.textContent = refusalText(error);
      state.textContent = "";
    }
  })();
}

// After one visit the page and its offline games load with no network (src/sw.js).
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("sw.js").catch(() => undefined);
}

window.addEventListener("hashchange", () => void route());
void route();
