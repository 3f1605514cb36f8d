// What a friend room shows beyond seats and chat (room.ts): team seats (Q23), C10's
// rock-paper-scissors draw, the scoreboard (Q30-Q36), the tournament bracket (Q24), a rematch;
// and for the host the settings (any game and its options from options.ts: switching games is
// a settings change), the first mover (C10), kick, hand-over and the countdown's pause (Q29).

import type { GatewayClient } from "./api.js";
import type { BracketHistory, BracketRound } from "./bracket.js";
import { h } from "./dom.js";
import { QuoridorMode } from "./gen/ludus/v1/quoridor_pb.js";
import { CaroFirstMover, RoomPhase, type RoomSnapshot, RoomTeam, type RoomView } from "./gen/ludus/v1/rooms_pb.js";
import { type MessageKey, t } from "./i18n.js";
import { GAME_OPTIONS, OptionsForm, valuesFromSettings } from "./options.js";
import { GAME_NAMES } from "./play.js";

export type RoomCommand = (send: (client: GatewayClient) => Promise<RoomSnapshot>) => void;

const TEAM_NAMES: Record<number, MessageKey> = { [RoomTeam.RED]: "room.red", [RoomTeam.YELLOW]: "room.yellow" };
const FIRST_MOVERS: { value: CaroFirstMover; label: MessageKey }[] = [
  { value: CaroFirstMover.ROCK_PAPER_SCISSORS, label: "room.rps" },
  { value: CaroFirstMover.HOST, label: "room.hostFirst" },
  { value: CaroFirstMover.GUEST, label: "room.guestFirst" },
];

const HANDS: Record<string, MessageKey> = { rock: "room.rock", paper: "room.paper", scissors: "room.scissors" };
const handName = (hand: string | undefined) => (hand && HANDS[hand] ? t(HANDS[hand]) : (hand ?? ""));

function teamMode(room: RoomView): boolean {
  const game = room.settings?.game?.options;
  return game?.case === "quoridor" && game.value.mode === QuoridorMode.TEAMS;
}

export function roomExtras(room: RoomView, me: string | undefined, command: RoomCommand, bracket: BracketHistory): HTMLElement {
  const code = room.code;
  const name = (id: string) => room.members.find((m) => m.playerId === id)?.displayName ?? id;
  const mine = room.members.find((m) => m.playerId === me);
  const host = room.hostPlayerId === me;
  const node = h("div", { class: "room-extras" });

  if (teamMode(room)) {
    const teams = h("div", { id: "teams", class: "controls" });
    for (const team of [RoomTeam.RED, RoomTeam.YELLOW]) {
      const members = room.members.filter((m) => m.seated && m.team === team).map((m) => m.displayName);
      teams.append(
        h("span", { class: `team team-${team}`, "data-team": team }, `${t(TEAM_NAMES[team])}: ${members.join(", ") || "—"}`),
        mine?.seated && mine.team === team
          ? ""
          : h(
              "button",
              {
                type: "button",
                "data-sit-team": team,
                onclick: () =>
                  command(async (c) => {
                    // One seat per player: changing team is leaving the seat and taking the other.
                    if (mine?.seated) await c.leaveSeat({ code });
                    return c.takeSeat({ code, team });
                  }),
              },
              t("room.sitWith", { team: t(TEAM_NAMES[team]) }),
            ),
      );
    }
    node.append(h("h3", {}, t("room.teams")), teams);
  }

  // C10's draw, throw by throw (equal throws are drawn again), and who moves first.
  const rps = room.rockPaperScissors;
  if (rps?.winnerId) {
    const [first, second] = rps.playerIds;
    node.append(
      h(
        "div",
        { id: "rps", class: "rps" },
        h("h3", {}, t("room.rps"), " ", h("span", { class: "rule" }, "(C10)")),
        h(
          "ol",
          {},
          ...rps.throws.map((pair) => {
            const [a, b] = pair.split("/");
            return h(
              "li",
              { "data-throw": pair },
              h("span", { translate: "no" }, name(first ?? "")),
              `: ${handName(a)} · `,
              h("span", { translate: "no" }, name(second ?? "")),
              `: ${handName(b)}`,
            );
          }),
        ),
        h("p", { "data-rps-winner": name(rps.winnerId) }, t("room.rpsWinner", { winner: name(rps.winnerId) })),
      ),
    );
  }

  const finished = room.tables.some((table) => table.finished);
  if (mine?.seated && finished && room.phase === RoomPhase.LOBBY) {
    node.append(
      h(
        "button",
        {
          type: "button",
          id: "rematch",
          onclick: () =>
            command(async (c) => {
              const snapshot = await c.setReady({ code, ready: true });
              return host ? c.startRoomGame({ code }) : snapshot;
            }),
        },
        t("room.rematch"),
      ),
    );
  }

  for (const board of room.scoreboards) {
    if (board.scores.length === 0) continue;
    node.append(
      h("h3", {}, t("room.scoreboard", { game: t(GAME_NAMES[board.game] ?? "game.caro") })),
      h(
        "table",
        { class: "scoreboard", "data-scoreboard": board.game },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...(["room.player", "room.played", "room.won", "room.drawn", "room.points"] as const).map((k) =>
              h("th", { scope: "col" }, t(k)),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          ...board.scores.map((s) =>
            h(
              "tr",
              {},
              h("td", { translate: "no" }, s.displayName),
              h("td", {}, String(s.played)),
              h("td", {}, String(s.won)),
              h("td", {}, String(s.drawn)),
              h("td", {}, String(s.points)),
            ),
          ),
        ),
      ),
    );
  }

  const bracketNode = bracketView(room, bracket, name);
  if (bracketNode) node.append(bracketNode);

  if (host) node.append(hostPanel(room, me, command));
  return node;
}

function hostPanel(room: RoomView, me: string | undefined, command: RoomCommand): HTMLElement {
  const code = room.code;
  const panel = h(
    "section",
    { id: "host-panel", class: "host", "aria-labelledby": "host-title" },
    h("h3", { id: "host-title" }, t("room.hostPanel")),
  );

  if (room.phase === RoomPhase.COUNTDOWN || room.phase === RoomPhase.PAUSED) {
    const paused = room.phase === RoomPhase.PAUSED;
    panel.append(
      h(
        "button",
        { type: "button", id: "pause", onclick: () => command((c) => c.pauseRoomCountdown({ code, paused: !paused })) },
        paused ? t("room.resume") : t("room.pause"),
      ),
    );
  }

  const others = room.members.filter((m) => m.playerId !== me);
  if (others.length) {
    panel.append(
      h(
        "ul",
        { id: "host-members", class: "players" },
        ...others.map((m) =>
          h(
            "li",
            { "data-host-member": m.displayName },
            `${m.displayName} `,
            h(
              "button",
              { type: "button", "data-kick": m.displayName, onclick: () => command((c) => c.kickFromRoom({ code, playerId: m.playerId })) },
              t("room.kick"),
            ),
            " ",
            h(
              "button",
              {
                type: "button",
                "data-hand-over": m.displayName,
                onclick: () => command((c) => c.handOverRoom({ code, playerId: m.playerId })),
              },
              t("room.handOver"),
            ),
          ),
        ),
      ),
    );
  }

  // Settings change between games only (the server refuses them during play).
  if (room.phase === RoomPhase.PLAYING) return panel;
  panel.append(settingsForm(room, command));
  return panel;
}

// The form survives the room's redraws (every event redraws the room) until the settings
// themselves change: what the host is choosing is not reset by someone joining.
// Kept per room page (its command function), so a page opened again starts afresh.
const kept = new WeakMap<RoomCommand, { key: string; form: HTMLElement }>();

function settingsForm(room: RoomView, command: RoomCommand): HTMLElement {
  const key = `${room.code}|${JSON.stringify(valuesFromSettings(room.settings?.game))}|${room.settings?.firstMover}|${room.settings?.public}|${room.settings?.rated}|${room.settings?.autoStart}`;
  const previous = kept.get(command);
  if (previous?.key === key) return previous.form;
  const code = room.code;
  const current = valuesFromSettings(room.settings?.game);
  const form = new OptionsForm(current?.kind ?? "caro", "room", "room", current?.values);
  const game = h(
    "select",
    {
      id: "room-game-kind",
      onchange: (event: Event) => {
        const kind = (event.target as HTMLSelectElement).value;
        form.setGame(kind);
        firstMoverRow.hidden = kind !== "caro";
      },
    },
    ...GAME_OPTIONS.map((g) => h("option", { value: g.kind, selected: g.kind === form.game }, t(GAME_NAMES[g.kind] ?? "game.caro"))),
  );
  const firstMover = h(
    "select",
    { id: "room-first-mover" },
    ...FIRST_MOVERS.map((f) =>
      h("option", { value: f.value, selected: (room.settings?.firstMover || CaroFirstMover.ROCK_PAPER_SCISSORS) === f.value }, t(f.label)),
    ),
  ) as HTMLSelectElement;
  // C10 is Caro's: the row shows only while Caro is chosen.
  const firstMoverRow = h(
    "div",
    { class: "option", hidden: form.game !== "caro" },
    h("label", { for: "room-first-mover" }, `${t("room.firstMover")} `, h("span", { class: "rule" }, "(C10)")),
    firstMover,
  );
  const check = (id: string, checked: boolean, label: MessageKey) => {
    const box = h("input", { type: "checkbox", id, class: "check", checked }) as HTMLInputElement;
    return { box, node: h("label", { class: "check-label", for: id }, box, ` ${t(label)}`) };
  };
  const isPublic = check("room-public", room.settings?.public ?? false, "room.public");
  const rated = check("room-rated", room.settings?.rated ?? false, "room.rated");
  const autoStart = check("room-auto-start", room.settings?.autoStart ?? true, "room.autoStart");
  const node = h(
    "form",
    {
      id: "room-settings",
      onsubmit: (event: Event) => {
        event.preventDefault();
        command((c) =>
          c.updateRoomSettings({
            code,
            settings: {
              game: form.settings(),
              public: isPublic.box.checked,
              rated: rated.box.checked,
              firstMover: form.game === "caro" ? Number(firstMover.value) : CaroFirstMover.UNSPECIFIED,
              autoStart: autoStart.box.checked,
              spectatorChat: room.settings?.spectatorChat ?? true,
            },
          }),
        );
      },
    },
    h("div", { class: "option" }, h("label", { for: "room-game-kind" }, t("play.game")), game),
    form.node,
    firstMoverRow,
    h("div", { class: "controls" }, isPublic.node, rated.node, autoStart.node),
    h("button", { type: "submit", id: "room-save" }, t("room.save")),
  );
  kept.set(command, { key, form: node });
  return node;
}

// The knockout's bracket (Q24): every round's matches with who went through, the byes and the
// champion, from the room's log (bracket.ts); until that log is read, the round under way as
// the room's view has it.
function bracketView(room: RoomView, history: BracketHistory, name: (id: string) => string): HTMLElement | null {
  let rounds = history.rounds;
  const tournament = room.tournament;
  if (rounds.length === 0 && tournament && tournament.round > 0) {
    rounds = [
      {
        round: tournament.round,
        byePlayerId: tournament.byePlayerId,
        matches: room.tables.map((table) => ({
          gameId: table.gameId,
          playerIds: [...table.playerIds],
          finished: table.finished,
          winnerIds: [...table.winnerIds],
        })),
      },
    ];
  }
  if (rounds.length === 0) return null;
  const champion = history.championId;
  const current = rounds[rounds.length - 1] as BracketRound;
  return h(
    "section",
    {
      id: "bracket",
      class: "bracket",
      "aria-labelledby": "bracket-title",
      "data-rounds": rounds.length,
      "data-champion": champion ? name(champion) : "",
    },
    h(
      "h3",
      { id: "bracket-title" },
      champion ? t("room.bracketDone") : t("room.bracket", { round: current.round }),
      " ",
      h("span", { class: "rule" }, "(Q24)"),
    ),
    ...rounds.map((round) =>
      h(
        "div",
        { class: "bracket-round", "data-round": round.round },
        h("h4", {}, t("room.round", { round: round.round })),
        h(
          "ul",
          { class: "games" },
          ...round.matches.map((match) =>
            h(
              "li",
              { "data-match": match.gameId, "data-winner": match.winnerIds.map(name).join(",") },
              h("span", { translate: "no" }, match.playerIds.map(name).join(" – ")),
              ` · ${
                !match.finished
                  ? t("room.matchPlaying")
                  : match.winnerIds.length
                    ? t("room.advances", { who: match.winnerIds.map(name).join(", ") })
                    : t("room.matchReplayed")
              }`,
            ),
          ),
          round.byePlayerId
            ? h("li", { class: "small", "data-bye": name(round.byePlayerId) }, t("room.bye", { who: name(round.byePlayerId) }))
            : null,
        ),
      ),
    ),
    champion ? h("p", { id: "champion", class: "champion" }, t("room.champion", { who: name(champion) })) : null,
  );
}
