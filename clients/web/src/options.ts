// Every game's options, described once: which choices a quick match, a friend room and a game
// against the computer offer, with the rule id each comes from, and how the chosen values
// become the API's GameSettings. The lobby's "New game" card, the room host's settings and the
// form's tests all read this one description; nothing else in the page names an option.
//
// The clocks mirror the games' table policies (games/catalog: C12 and C17 for Caro, Q28, B20,
// M10, J19): a quick match takes the server's clock except where the players choose one
// (Quoridor Q28, Backgammon B20); a room chooses among the friend clocks; against the computer
// Caro and Mancala are untimed (C17, M11).

import type { MessageInitShape } from "@bufbuild/protobuf";
import { clear, h } from "./dom.js";
import type { GameSettingsSchema } from "./gen/ludus/v1/game_pb.js";
import { MancalaFirstPlayer, MancalaRuleSet } from "./gen/ludus/v1/mancala_pb.js";
import { QuoridorGoal, QuoridorMode } from "./gen/ludus/v1/quoridor_pb.js";
import { type MessageKey, t } from "./i18n.js";

export type Settings = MessageInitShape<typeof GameSettingsSchema>;
export type Context = "quick" | "room" | "computer";
export type Values = Record<string, string>;

export interface Choice {
  value: string;
  // A message key, or a text that reads the same in every language (a number, "19×19").
  label: MessageKey | { text: string };
}

export interface OptionField {
  id: string;
  rule: string;
  label: MessageKey;
  choices: Choice[];
  initial: string;
  // Where the option is offered; every context when absent.
  offered?: Context[];
  // Whether the option applies given the other values (e.g. B17-B19 only in money play).
  applies?: (values: Values, context: Context) => boolean;
}

export interface GameOptions {
  kind: string;
  fields: OptionField[];
  settings(values: Values, context: Context): Settings;
}

const plain = (text: string): Choice["label"] => ({ text });
const seconds = (list: number[]): Choice[] => list.map((s) => ({ value: String(s * 1000), label: plain(`${s} s`) }));
const onOff = (initial: boolean): Pick<OptionField, "choices" | "initial"> => ({
  choices: [
    { value: "on", label: "opt.on" },
    { value: "off", label: "opt.off" },
  ],
  initial: initial ? "on" : "off",
});
const clock = (values: Values): bigint => BigInt(values.clock ?? "0");

export const GAME_OPTIONS: GameOptions[] = [
  {
    kind: "caro",
    fields: [
      {
        id: "size",
        rule: "C1",
        label: "opt.board",
        choices: [15, 19].map((n) => ({ value: String(n), label: plain(`${n}×${n}`) })),
        initial: "15",
      },
      { id: "blocked", rule: "C5", label: "opt.caro.blocked", ...onOff(true) },
      { id: "exact", rule: "C5", label: "opt.caro.exact", ...onOff(false) },
      // C12: the friend room's clock; quick matches use the server's, the computer none (C17).
      {
        id: "clock",
        rule: "C12",
        label: "opt.clock",
        choices: [{ value: "0", label: "opt.untimed" }, ...seconds([30, 60, 120])],
        initial: "60000",
        offered: ["room"],
      },
    ],
    settings: (v, context) => ({
      options: { case: "caro", value: { boardSize: Number(v.size), blockedEndsOff: v.blocked === "off", exactlyFive: v.exact === "on" } },
      turnTimeMs: context === "room" ? clock(v) : 0n,
    }),
  },
  {
    kind: "mancala",
    fields: [
      {
        id: "rules",
        rule: "M1/K1",
        label: "opt.mancala.rules",
        choices: [
          { value: String(MancalaRuleSet.KALAH), label: plain("Kalah") },
          { value: String(MancalaRuleSet.CONGKLAK), label: plain("Congklak") },
        ],
        initial: String(MancalaRuleSet.KALAH),
      },
      // M3: against the computer the "computer moves first" choice says it instead.
      {
        id: "first",
        rule: "M3",
        label: "opt.first",
        choices: [
          { value: String(MancalaFirstPlayer.RANDOM), label: "opt.random" },
          { value: String(MancalaFirstPlayer.SEAT_0), label: "opt.first.seat0" },
          { value: String(MancalaFirstPlayer.SEAT_1), label: "opt.first.seat1" },
        ],
        initial: String(MancalaFirstPlayer.RANDOM),
        offered: ["room"],
      },
    ],
    settings: (v, context) => ({
      options: {
        case: "mancala",
        value: { ruleSet: Number(v.rules), firstPlayer: context === "room" ? Number(v.first) : MancalaFirstPlayer.RANDOM },
      },
    }),
  },
  {
    kind: "quoridor",
    fields: [
      {
        id: "mode",
        rule: "Q22-Q24",
        label: "opt.quoridor.mode",
        choices: [
          { value: String(QuoridorMode.FREE_FOR_ALL), label: "opt.quoridor.ffa" },
          { value: String(QuoridorMode.TEAMS), label: "opt.quoridor.teams" },
          { value: String(QuoridorMode.TOURNAMENT_MATCH), label: "opt.quoridor.tournament" },
        ],
        initial: String(QuoridorMode.FREE_FOR_ALL),
        // Teams and tournaments are not quick-matched, and the computer plays free-for-all.
        offered: ["room"],
      },
      {
        id: "players",
        rule: "Q4",
        label: "opt.players",
        choices: [2, 3, 4, 5, 6, 7, 8].map((n) => ({ value: String(n), label: plain(String(n)) })),
        initial: "2",
      },
      {
        id: "goal",
        rule: "Q25",
        label: "opt.quoridor.goal",
        choices: [
          { value: String(QuoridorGoal.OPPOSITE), label: "opt.quoridor.opposite" },
          { value: String(QuoridorGoal.CENTER), label: "opt.quoridor.center" },
        ],
        initial: String(QuoridorGoal.OPPOSITE),
      },
      {
        id: "size",
        rule: "Q26",
        label: "opt.board",
        choices: [9, 11, 13].map((n) => ({ value: String(n), label: plain(`${n}×${n}`) })),
        initial: "9",
      },
      {
        id: "walls",
        rule: "Q27",
        label: "opt.quoridor.walls",
        choices: [
          { value: "0", label: "opt.auto" as MessageKey },
          ...[1, 3, 5, 7, 10, 15, 20].map((n) => ({ value: String(n), label: plain(String(n)) })),
        ],
        initial: "0",
      },
      { id: "clock", rule: "Q28", label: "opt.clock", choices: seconds([15, 30, 45, 60, 90]), initial: "30000" },
    ],
    settings: (v, context) => ({
      options: {
        case: "quoridor",
        value: {
          mode: context === "room" ? Number(v.mode) : QuoridorMode.FREE_FOR_ALL,
          goal: Number(v.goal),
          size: Number(v.size),
          walls: Number(v.walls),
          players: Number(v.players),
        },
      },
      turnTimeMs: clock(v),
    }),
  },
  {
    kind: "backgammon",
    fields: [
      {
        id: "match",
        rule: "B22",
        label: "opt.backgammon.match",
        choices: [
          { value: "0", label: "opt.backgammon.money" },
          ...[1, 3, 5, 7, 11, 15, 21].map((n) => ({ value: String(n), label: plain(String(n)) })),
        ],
        initial: "0",
      },
      // B17-B19 are money-play rules: a match keeps them off (B22).
      { id: "auto", rule: "B17", label: "opt.backgammon.auto", ...onOff(false), applies: (v) => v.match === "0" },
      { id: "beavers", rule: "B18", label: "opt.backgammon.beavers", ...onOff(false), applies: (v) => v.match === "0" },
      { id: "jacoby", rule: "B19", label: "opt.backgammon.jacoby", ...onOff(false), applies: (v) => v.match === "0" },
      // B20: quick-match players queue for one of these; a room may also play untimed.
      {
        id: "clock",
        rule: "B20",
        label: "opt.clock",
        choices: [{ value: "0", label: "opt.default" }, ...seconds([30, 60, 90, 120])],
        initial: "0",
      },
    ],
    settings: (v) => {
      const money = v.match === "0";
      return {
        options: {
          case: "backgammon",
          value: {
            automaticDoubles: money && v.auto === "on",
            beavers: money && v.beavers === "on",
            jacoby: money && v.jacoby === "on",
            matchGame: money ? undefined : { length: Number(v.match) },
          },
        },
        turnTimeMs: clock(v),
      };
    },
  },
  // Flip Junqi has no options; its clock is fixed (J19).
  { kind: "junqi", fields: [], settings: () => ({ options: { case: "junqi", value: {} } }) },
];

export function gameOptions(kind: string): GameOptions | undefined {
  return GAME_OPTIONS.find((g) => g.kind === kind);
}

export function initialValues(kind: string): Values {
  const values: Values = {};
  for (const field of gameOptions(kind)?.fields ?? []) values[field.id] = field.initial;
  return values;
}

function offered(field: OptionField, values: Values, context: Context): boolean {
  return (!field.offered || field.offered.includes(context)) && (!field.applies || field.applies(values, context));
}

function choiceText(choice: Choice): string {
  return typeof choice.label === "string" ? t(choice.label) : choice.label.text;
}

// The values back from settings (a room's current ones), so the host's form starts from them.
export function valuesFromSettings(settings: Settings | undefined): { kind: string; values: Values } | undefined {
  const options = settings?.options;
  if (!options?.case) return undefined;
  const values = initialValues(options.case);
  const turn = settings?.turnTimeMs;
  if (turn !== undefined && "clock" in values) values.clock = String(turn);
  const o = options.value as Record<string, unknown>;
  switch (options.case) {
    case "caro":
      values.size = String(o.boardSize || 15);
      values.blocked = o.blockedEndsOff ? "off" : "on";
      values.exact = o.exactlyFive ? "on" : "off";
      break;
    case "mancala":
      values.rules = String(o.ruleSet || MancalaRuleSet.KALAH);
      values.first = String(o.firstPlayer || MancalaFirstPlayer.RANDOM);
      break;
    case "quoridor":
      for (const [id, key, fallback] of [
        ["mode", "mode", 1],
        ["goal", "goal", 1],
        ["size", "size", 9],
        ["walls", "walls", 0],
        ["players", "players", 2],
      ] as const) {
        values[id] = String((o[key] as number) || fallback);
      }
      break;
    case "backgammon": {
      const match = o.matchGame as { length?: number } | undefined;
      values.match = String(match?.length ?? 0);
      values.auto = o.automaticDoubles ? "on" : "off";
      values.beavers = o.beavers ? "on" : "off";
      values.jacoby = o.jacoby ? "on" : "off";
      break;
    }
  }
  return { kind: options.case, values };
}

// A form of the game's options for `context`: a select per option, labelled with its rule id.
// `prefix` keeps ids unique when two forms share a page.
export class OptionsForm {
  readonly node = h("div", { class: "options" });
  private values: Values;

  constructor(
    private kind: string,
    private readonly context: Context,
    private readonly prefix: string,
    values?: Values,
  ) {
    this.values = values ?? initialValues(kind);
    this.render();
  }

  get game(): string {
    return this.kind;
  }

  setGame(kind: string, values?: Values): void {
    this.kind = kind;
    this.values = values ?? initialValues(kind);
    this.render();
  }

  settings(): Settings {
    const description = gameOptions(this.kind);
    if (!description) throw new Error(`no options for ${this.kind}`);
    return description.settings(this.values, this.context);
  }

  private render(): void {
    clear(this.node);
    const fields = gameOptions(this.kind)?.fields ?? [];
    const shown = fields.filter((f) => offered(f, this.values, this.context));
    if (shown.length === 0) {
      this.node.append(h("p", { class: "small" }, t("opt.none")));
      return;
    }
    for (const field of shown) {
      const id = `${this.prefix}-${field.id}`;
      const select = h(
        "select",
        {
          id,
          name: field.id,
          "data-option": field.id,
          onchange: (event: Event) => {
            this.values[field.id] = (event.target as HTMLSelectElement).value;
            // An option may show or hide others (match play hides B17-B19).
            this.render();
            (this.node.querySelector(`#${id}`) as HTMLElement | null)?.focus();
          },
        },
        ...field.choices.map((choice) =>
          h("option", { value: choice.value, selected: this.values[field.id] === choice.value }, choiceText(choice)),
        ),
      );
      this.node.append(
        h(
          "div",
          { class: "option" },
          h("label", { for: id }, `${t(field.label)} `, h("span", { class: "rule" }, `(${field.rule})`)),
          select,
        ),
      );
    }
  }
}
