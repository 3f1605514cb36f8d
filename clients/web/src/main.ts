// The Ludus web client: sign in as a guest, pick a live game to watch or quick-match any of
// the five games, then play or watch it (see game.ts).
//
// Routes live in the URL hash: `#/` the lobby, `#/game/<id>` one game, `#/local/<kind>` two
// people on this device, `#/computer/<kind>/<level>` against the computer on this device.

import { accountLinks, accountSession, ensureFreshSession } from "./account.js";
import { Code, currentSession, errorCode, gateway, refusalText, setSession } from "./api.js";
import { clear, h } from "./dom.js";
import { GamePage, gameTitle, seatLabel } from "./game.js";
import { TicketState } from "./gen/ludus/v1/matchmaking_pb.js";
import { CaroFirstMover } from "./gen/ludus/v1/rooms_pb.js";
import { lang, setLang, t } from "./i18n.js";
import { LEVELS, LocalPage, levelName, OFFLINE_GAMES, offlineModule } from "./local.js";
import { GAME_OPTIONS, initialValues, loadGameOptions, type Settings, settingsFrom } from "./options.js";
import { PlayCard } from "./play.js";
import { normaliseRoomCode, RoomPage } from "./room.js";
import { featurePage } from "./routes.js";

// One-click quick matches and rooms: each game with its options' defaults (ListGameOptions).
function defaultGames(): { kind: string; settings: Settings; roomFirstMover: boolean }[] {
  return GAME_OPTIONS.map(({ kind, description }) => ({
    kind,
    settings: settingsFrom(description, "quick", initialValues(description, "quick")),
    roomFirstMover: description.options.some((o) => o.field === "room.first_mover"),
  }));
}

const app = document.getElementById("app") as HTMLElement;
let page: GamePage | LocalPage | RoomPage | ReturnType<typeof featurePage> | undefined;
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
      h("span", { translate: "no" }, `${session.name} `),
      h(
        "button",
        {
          class: "link",
          id: "sign-out",
          onclick: () => {
            setSession(undefined);
            void route();
          },
        },
        t("auth.signOut"),
      ),
    );
  }
  // The language switch, always in the header: the page is drawn again in the other language.
  const other = lang() === "vi" ? "en" : "vi";
  who.append(
    " ",
    h(
      "button",
      {
        class: "link",
        id: "lang-switch",
        lang: other,
        "aria-label": t("lang.switchLabel"),
        onclick: () => {
          setLang(other);
          void route();
        },
      },
      t("lang.switch"),
    ),
  );
}

let routing = 0;

async function route(): Promise<void> {
  const generation = ++routing;
  leave();
  showWho();
  clear(app);
  // Offline games need no session and no server.
  const local = /^#\/local\/([a-z]+)$/.exec(location.hash);
  const computer = /^#\/computer\/([a-z]+)\/([a-z]+)$/.exec(location.hash);
  if (local || computer) {
    page = local ? new LocalPage(app, local[1]) : new LocalPage(app, computer?.[1] ?? "", computer?.[2]);
    await page.open();
    return;
  }
  // The games' options (the lobby's forms, a room host's settings): fetched once per page.
  await Promise.all([ensureFreshSession(), loadGameOptions()]);
  if (generation !== routing) return;
  if (!currentSession()) {
    signInForm();
    void offlineCard();
    return;
  }
  page = featurePage(app, location.hash);
  if (page) {
    await page.open();
    return;
  }
  const room = /^#\/room\/([A-Za-z0-9]+)$/.exec(location.hash);
  if (room) {
    page = new RoomPage(app, normaliseRoomCode(room[1]));
    await page.open();
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
  const input = h("input", {
    id: "name",
    name: "name",
    maxlength: 32,
    required: true,
    placeholder: t("auth.namePlaceholder"),
    autocomplete: "nickname",
  }) as HTMLInputElement;
  const notice = h("p", { id: "notice", class: "notice", role: "alert", translate: "no" }, message);
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
            setSession({
              token: response.token,
              playerId: response.playerId,
              name: input.value.trim(),
              expiresAtMs: Number(response.expiresAtUnixMs),
            });
            await route();
          } catch (error) {
            notice.textContent = refusalText(error);
          }
        })();
      },
    },
    h("h2", {}, t("auth.guestTitle")),
    h("label", { for: "name" }, t("auth.nameLabel")),
    input,
    h("button", { type: "submit" }, t("auth.signIn")),
    notice,
  );
  app.append(form, accountForm());
  input.focus();
}

// Registering (or signing in to) an account: what hosting a room needs (Ping44). The access
// token lives like a guest's, in memory and sessionStorage; account.ts renews it with the
// refresh token before it expires (ARCHITECTURE.md, "Web client sessions").
function accountForm(): HTMLElement {
  const field = (id: string, label: string, attrs: Record<string, string | number | boolean>) => {
    const input = h("input", { id, name: id, required: true, ...attrs }) as HTMLInputElement;
    return { input, nodes: [h("label", { for: id }, label), input] };
  };
  const username = field("username", t("auth.username"), { autocomplete: "username", maxlength: 24 });
  const password = field("password", t("auth.password"), { type: "password", autocomplete: "current-password", maxlength: 128 });
  const display = h("input", {
    id: "display-name",
    name: "display-name",
    maxlength: 32,
    placeholder: t("auth.displayPlaceholder"),
    autocomplete: "nickname",
  }) as HTMLInputElement;
  const notice = h("p", { id: "account-notice", class: "notice", role: "alert", translate: "no" });
  const submit = (register: boolean) => {
    void (async () => {
      try {
        const client = await gateway();
        const session = register
          ? await client.register({
              username: username.input.value.trim(),
              password: password.input.value,
              displayName: display.value.trim() || username.input.value.trim(),
            })
          : await client.signIn({ username: username.input.value.trim(), password: password.input.value });
        setSession(accountSession(session, username.input.value.trim()));
        await route();
      } catch (error) {
        notice.textContent = refusalText(error);
      }
    })();
  };
  return h(
    "form",
    {
      id: "account",
      class: "card",
      onsubmit: (event: Event) => {
        event.preventDefault();
        submit(false);
      },
    },
    h("h2", {}, t("auth.accountTitle")),
    ...username.nodes,
    ...password.nodes,
    h("label", { for: "display-name" }, t("auth.nameLabel")),
    display,
    h(
      "div",
      { class: "controls" },
      h("button", { type: "submit", id: "account-sign-in" }, t("auth.signIn")),
      h(
        "button",
        {
          type: "button",
          id: "register",
          onclick: () => {
            if (username.input.reportValidity() && password.input.reportValidity()) submit(true);
          },
        },
        t("auth.register"),
      ),
    ),
    notice,
  );
}

// Friend rooms: join one by its code; an account also creates one for any game.
function roomsCard(notice: HTMLElement): HTMLElement {
  const code = h("input", {
    id: "room-code",
    name: "room-code",
    maxlength: 9,
    placeholder: "K7M 4QP",
    autocomplete: "off",
    translate: "no",
  }) as HTMLInputElement;
  const join = h(
    "form",
    {
      id: "join-room",
      class: "quick",
      onsubmit: (event: Event) => {
        event.preventDefault();
        const typed = normaliseRoomCode(code.value);
        if (typed) location.hash = `#/room/${encodeURIComponent(typed)}`;
      },
    },
    code,
    h("button", { type: "submit" }, t("lobby.join")),
  );
  const card = h(
    "div",
    { class: "card", id: "rooms" },
    h("h2", {}, t("lobby.rooms")),
    h("label", { for: "room-code" }, t("lobby.joinByCode")),
    join,
  );
  if (currentSession()?.account) {
    const create = h("div", { class: "quick" });
    for (const q of defaultGames()) {
      create.append(
        h(
          "button",
          {
            "data-create-room": q.kind,
            onclick: () => {
              void (async () => {
                try {
                  const client = await gateway();
                  // Caro: the host moves first (C10 also offers rock-paper-scissors).
                  const firstMover = q.roomFirstMover ? CaroFirstMover.HOST : CaroFirstMover.UNSPECIFIED;
                  const snapshot = await client.createRoom({ settings: { game: q.settings, firstMover } });
                  location.hash = `#/room/${encodeURIComponent(snapshot.room?.code ?? "")}`;
                } catch (error) {
                  notice.textContent = refusalText(error);
                }
              })();
            },
          },
          gameTitle(q.kind),
        ),
      );
    }
    card.append(h("p", { class: "small" }, t("lobby.createRoomFor")), create);
  } else {
    card.append(h("p", { class: "small" }, t("lobby.createNeedsAccount")));
  }
  return card;
}

// `current` is false once the player navigated elsewhere: the lobby then stops refreshing.
async function lobby(current: () => boolean): Promise<void> {
  const notice = h("p", { id: "notice", class: "notice", role: "alert", translate: "no" });
  const quick = h("div", { class: "card" }, h("h2", {}, t("lobby.quickMatch")));
  const buttons = h("div", { class: "quick" });
  const searchState = h("p", { id: "search", class: "small" });
  for (const q of defaultGames()) {
    buttons.append(h("button", { "data-quick": q.kind, onclick: () => quickMatch(q.settings, searchState, notice) }, gameTitle(q.kind)));
  }
  quick.append(buttons, searchState);
  const mine = h("ul", { id: "my-games", class: "games" });
  const live = h("ul", { id: "live-games", class: "games" });
  app.append(
    notice,
    new PlayCard().node,
    accountLinks(),
    quick,
    roomsCard(notice),
    h("div", { class: "card" }, h("h2", {}, t("lobby.yourGames")), mine),
    h("div", { class: "card" }, h("h2", {}, t("lobby.liveGames")), live),
  );
  const refresh = async () => {
    if (!current()) return;
    try {
      const client = await gateway();
      const [liveGames, myGames] = await Promise.all([client.listLiveGames({ limit: 30 }), client.listMyGames({ limit: 20 })]);
      clear(live);
      if (liveGames.games.length === 0) live.append(h("li", { class: "small" }, t("lobby.nobodyPlaying")));
      for (const game of liveGames.games) {
        const kind = game.settings?.options.case;
        const players = game.seats.map((s) => `${seatLabel(kind, s.seat)} ${s.displayName}`).join(t("lobby.versus"));
        live.append(
          h(
            "li",
            {},
            h(
              "a",
              { href: `#/game/${encodeURIComponent(game.gameId)}`, "data-watch": game.gameId },
              t("lobby.liveLine", { game: gameTitle(kind), players }),
            ),
            h("span", { class: "small" }, t("lobby.moveNumber", { seq: String(game.seq) })),
          ),
        );
      }
      clear(mine);
      if (myGames.games.length === 0) mine.append(h("li", { class: "small" }, t("lobby.noneInProgress")));
      for (const game of myGames.games) {
        const kind = game.settings?.options.case;
        const opponents = game.seats
          .filter((s) => s.seat !== game.yourSeat)
          .map((s) => s.displayName)
          .join(", ");
        mine.append(
          h(
            "li",
            {},
            h("a", { href: `#/game/${encodeURIComponent(game.gameId)}` }, t("lobby.myGameLine", { game: gameTitle(kind), opponents })),
          ),
        );
      }
    } catch (error) {
      if (errorCode(error) === Code.Unauthenticated) {
        setSession(undefined);
        leave();
        clear(app);
        signInForm(t("auth.signedOut", { reason: refusalText(error) }));
        return;
      }
      notice.textContent = refusalText(error);
    }
  };
  void offlineCard();
  await refresh();
  if (current()) lobbyTimer = window.setInterval(() => void refresh(), 3000);
}

// "On this device": every game for two people or against the computer, shown when this
// build carries the offline games.
async function offlineCard(): Promise<void> {
  if (!(await offlineModule())) return;
  // Still on the lobby or the sign-in page (the module may load after the player moved on).
  if (!app.querySelector("#sign-in, [data-quick]")) return;
  const card = h(
    "div",
    { class: "card", id: "offline" },
    h("h2", {}, t("lobby.offlineTitle")),
    h("p", { class: "small" }, t("lobby.offlineText")),
  );
  const rows = h("div", { class: "offline-games" });
  for (const kind of OFFLINE_GAMES) {
    const row = h("div", { class: "offline-row" }, h("span", { class: "offline-title" }, gameTitle(kind)));
    row.append(h("a", { class: "button", href: `#/local/${kind}`, "data-local": kind }, t("lobby.twoPlayers")));
    for (const level of LEVELS) {
      row.append(
        h(
          "a",
          { class: "button", href: `#/computer/${kind}/${level}`, "data-computer": `${kind}-${level}` },
          t("lobby.versusLevel", { level: levelName(kind, level) }),
        ),
      );
    }
    rows.append(row);
  }
  card.append(rows);
  if (!app.querySelector("#offline")) app.append(card);
}

function quickMatch(settings: Settings, state: HTMLElement, notice: HTMLElement): void {
  searching?.abort();
  const abort = new AbortController();
  searching = abort;
  clear(state);
  state.append(
    t("lobby.searching"),
    h(
      "button",
      {
        class: "link",
        onclick: () => {
          abort.abort();
          state.textContent = t("lobby.cancelled");
        },
      },
      t("lobby.cancel"),
    ),
  );
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

// An invite link, `/?room=K7M4QP` (the web form of `ludus://room/K7M4QP`): open that room,
// after signing in if need be.
const invited = new URLSearchParams(location.search).get("room");
if (invited && (location.hash === "" || location.hash === "#/")) {
  history.replaceState(
    null,
    "",
    `${location.pathname}${location.search.replace(/([?&])room=[^&]*&?/, "$1").replace(/[?&]$/, "")}#/room/${encodeURIComponent(normaliseRoomCode(invited))}`,
  );
}

// The page's language for screen readers and the browser (index.html ships `en`).
document.documentElement.lang = lang();
document.title = "Ludus";

window.addEventListener("hashchange", () => void route());
void route();
