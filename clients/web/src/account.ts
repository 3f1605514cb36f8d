// Accounts as a player expects them: the session kept fresh (Refresh before the access token
// expires), a guest's upgrade to an account (UpgradeGuest, keeping the player id), and the
// `#/account` page: profile with ratings per rule set, finished games (ListPlayerGames) with a
// replay of each, and leaderboards.
//
// The refresh token: see ARCHITECTURE.md, "Web client sessions" (kept with the access token in
// this tab's sessionStorage; single use, and a replayed one revokes the whole session).

import { Code, currentSession, errorCode, gateway, refusalText, type Session, setSession } from "./api.js";
import { clear, h } from "./dom.js";
import type { ArchivedGame } from "./gen/ludus/v1/accounts_pb.js";
import { ResultKind } from "./gen/ludus/v1/game_pb.js";
import type { AccountSession } from "./gen/ludus/v1/gateway_pb.js";
import { t } from "./i18n.js";
import { GAME_NAMES } from "./play.js";

// The pools a new player most likely plays (the catalog's rating pools of the default
// options); the profile adds every pool of the player's own finished games.
const COMMON_POOLS = [
  "caro/15/blocked-ends",
  "caro/19/blocked-ends",
  "mancala/kalah",
  "mancala/congklak",
  "quoridor/9/classic",
  "backgammon/money",
  "backgammon/match",
  "junqi/flip",
];

const REFRESH_CHECK_MS = 1000;
// Refresh a minute before the end, but never later than half-way through a short term.
const REFRESH_MARGIN_MS = 60_000;

export function accountSession(session: AccountSession, fallbackName: string): Session {
  const account = session.account;
  return {
    token: session.accessToken,
    playerId: account?.playerId ?? "",
    name: account?.displayName ?? fallbackName,
    expiresAtMs: Number(session.accessExpiresAtUnixMs),
    account: true,
    refreshToken: session.refreshToken,
    refreshExpiresAtMs: Number(session.refreshExpiresAtUnixMs),
    obtainedAtMs: Date.now(),
  };
}

export function refreshDueAt(session: Session): number {
  const obtained = session.obtainedAtMs ?? session.expiresAtMs - 15 * 60_000;
  const lifetime = Math.max(0, session.expiresAtMs - obtained);
  return session.expiresAtMs - Math.min(REFRESH_MARGIN_MS, lifetime / 2);
}

let refreshing: Promise<boolean> | undefined;

// Trades the refresh token for new tokens, once at a time. A refusal (spent, revoked or
// expired) ends the session: the page goes back to sign-in.
export function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    const session = currentSession();
    if (!session?.refreshToken) return false;
    try {
      const client = await gateway();
      const next = await client.refresh({ refreshToken: session.refreshToken });
      setSession(accountSession(next, session.name));
      return true;
    } catch (error) {
      if (errorCode(error) === Code.Unauthenticated) {
        setSession(undefined);
        window.dispatchEvent(new HashChangeEvent("hashchange"));
      }
      return false;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

// Before a page talks to the gateway: an access token about to lapse is renewed first (a tab
// that slept, or a reload after the term).
export async function ensureFreshSession(): Promise<void> {
  const session = currentSession();
  if (session?.refreshToken && Date.now() >= refreshDueAt(session)) await refreshSession();
}

// A timer, not one timeout per token: a laptop that slept past the due time refreshes as soon
// as it wakes.
if (typeof window !== "undefined") {
  window.setInterval(() => void ensureFreshSession(), REFRESH_CHECK_MS);
}

async function signOut(): Promise<void> {
  const token = currentSession()?.refreshToken;
  setSession(undefined);
  if (token) {
    try {
      await (await gateway()).signOut({ refreshToken: token });
    } catch {
      // Signed out here already; the server's session ends with its refresh term.
    }
  }
  location.hash = "#/";
}

export function accountLinks(): HTMLElement {
  return h(
    "nav",
    { class: "card account-links", "aria-label": t("account.nav") },
    h("a", { href: "#/account", id: "account-link" }, currentSession()?.account ? t("account.profile") : t("account.upgradeTitle")),
    " · ",
    h("a", { href: "#/account#leaderboard", id: "leaderboard-link" }, t("account.leaderboards")),
  );
}

function resultText(game: ArchivedGame, me: string): string {
  const outcome = game.outcome;
  const seat = game.seats.find((s) => s.playerId === me)?.seat;
  if (!outcome || outcome.kind === ResultKind.CANCELLED) return t("account.cancelled");
  if (outcome.kind === ResultKind.DRAW) return t("account.draw");
  return seat !== undefined && outcome.winners.includes(seat) ? t("account.won") : t("account.lost");
}

export function gameName(kind: string | undefined): string {
  return t(GAME_NAMES[kind ?? ""] ?? "game.caro");
}

export class AccountPage {
  private readonly abort = new AbortController();
  private readonly notice = h("p", { id: "notice", class: "notice", role: "alert" });

  constructor(private readonly root: HTMLElement) {}

  close(): void {
    this.abort.abort();
  }

  async open(): Promise<void> {
    const session = currentSession();
    if (!session) return;
    this.root.append(this.notice);
    if (!session.account) {
      this.root.append(this.upgradeForm(session));
      this.root.append(await this.leaderboard([]));
      return;
    }
    try {
      const client = await gateway();
      const history = await client.listPlayerGames({ limit: 50 }, { signal: this.abort.signal });
      const pools = [...new Set([...history.games.map((g) => g.ruleset), ...COMMON_POOLS])];
      const profile = await client.getProfile({ rulesets: pools.slice(0, 32) }, { signal: this.abort.signal });
      if (this.abort.signal.aborted) return;
      const played = profile.ratings.filter((r) => r.games > 0);
      this.root.append(
        h(
          "section",
          { class: "card", id: "profile" },
          h("h2", {}, profile.displayName),
          h(
            "p",
            { class: "small" },
            t("account.member", { username: profile.username, since: new Date(Number(profile.createdAtUnixMs)).toLocaleDateString() }),
          ),
          h("p", { id: "record" }, t("account.record", { played: profile.gamesPlayed, won: profile.gamesWon, drawn: profile.gamesDrawn })),
          h("h3", {}, t("account.ratings")),
          played.length === 0
            ? h("p", { class: "small" }, t("account.noRatings"))
            : h(
                "table",
                { id: "ratings" },
                h(
                  "thead",
                  {},
                  h(
                    "tr",
                    {},
                    h("th", { scope: "col" }, t("account.pool")),
                    h("th", { scope: "col" }, t("account.rating")),
                    h("th", { scope: "col" }, t("account.games")),
                  ),
                ),
                h(
                  "tbody",
                  {},
                  ...played.map((r) =>
                    h("tr", {}, h("td", {}, r.ruleset), h("td", {}, String(Math.round(r.rating))), h("td", {}, String(r.games))),
                  ),
                ),
              ),
          h(
            "div",
            { class: "controls" },
            h("button", { type: "button", id: "sign-out-everywhere", onclick: () => void signOut() }, t("account.signOut")),
          ),
        ),
        h(
          "section",
          { class: "card", id: "history" },
          h("h2", {}, t("account.history")),
          history.games.length === 0
            ? h("p", { class: "small" }, t("account.noGames"))
            : h(
                "ul",
                { class: "games" },
                ...history.games.map((g) =>
                  h(
                    "li",
                    {},
                    h(
                      "a",
                      { href: `#/replay/${encodeURIComponent(g.gameId)}`, "data-replay": g.gameId },
                      `${gameName(g.settings?.options.case)} · ${g.ruleset}`,
                    ),
                    ` · ${resultText(g, session.playerId)} · ${g.seats.map((s) => s.displayName).join(" – ")} · ${new Date(Number(g.endedAtUnixMs)).toLocaleString()}`,
                  ),
                ),
              ),
        ),
        await this.leaderboard(pools),
      );
    } catch (error) {
      this.notice.textContent = refusalText(error);
    }
  }

  private async leaderboard(pools: string[]): Promise<HTMLElement> {
    const all = [...new Set([...COMMON_POOLS, ...pools])];
    const list = h("ol", { id: "leaderboard-list", class: "games" });
    const select = h("select", { id: "leaderboard-pool" }, ...all.map((p) => h("option", { value: p }, p))) as HTMLSelectElement;
    const load = async () => {
      try {
        const board = await (await gateway()).getLeaderboard({ ruleset: select.value, limit: 20 }, { signal: this.abort.signal });
        clear(list);
        if (board.entries.length === 0) list.append(h("li", { class: "small" }, t("account.nobodyYet")));
        for (const entry of board.entries) {
          list.append(
            h(
              "li",
              { "data-player": entry.playerId },
              `${entry.displayName || entry.playerId} · ${Math.round(entry.rating)} (${entry.games})`,
            ),
          );
        }
      } catch (error) {
        if (!this.abort.signal.aborted) this.notice.textContent = refusalText(error);
      }
    };
    select.addEventListener("change", () => void load());
    await load();
    return h(
      "section",
      { class: "card", id: "leaderboard" },
      h("h2", {}, t("account.leaderboards")),
      h("label", { for: "leaderboard-pool" }, t("account.pool")),
      select,
      list,
    );
  }

  // A guest registers and keeps their player id, games and tickets (UpgradeGuest).
  private upgradeForm(session: Session): HTMLElement {
    const input = (id: string, attrs: Record<string, string | number | boolean>) =>
      h("input", { id, name: id, ...attrs }) as HTMLInputElement;
    const username = input("upgrade-username", { required: true, autocomplete: "username", maxlength: 24, minlength: 3 });
    const password = input("upgrade-password", {
      required: true,
      type: "password",
      autocomplete: "new-password",
      maxlength: 128,
      minlength: 8,
    });
    const display = input("upgrade-display", { maxlength: 32, autocomplete: "nickname", value: session.name });
    return h(
      "form",
      {
        class: "card",
        id: "upgrade",
        onsubmit: (event: Event) => {
          event.preventDefault();
          void (async () => {
            try {
              const client = await gateway();
              const next = await client.upgradeGuest({
                username: username.value.trim(),
                password: password.value,
                displayName: display.value.trim(),
              });
              setSession(accountSession(next, display.value.trim() || session.name));
              location.hash = "#/account";
              window.dispatchEvent(new HashChangeEvent("hashchange"));
            } catch (error) {
              this.notice.textContent = refusalText(error);
            }
          })();
        },
      },
      h("h2", {}, t("account.upgradeTitle")),
      h("p", { class: "small" }, t("account.upgradeWhy")),
      h("label", { for: "upgrade-username" }, t("account.username")),
      username,
      h("label", { for: "upgrade-password" }, t("account.password")),
      password,
      h("label", { for: "upgrade-display" }, t("account.displayName")),
      display,
      h("button", { type: "submit", id: "upgrade-submit" }, t("account.upgrade")),
    );
  }
}
