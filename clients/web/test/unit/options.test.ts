// The option forms' logic (options.ts) on descriptions shaped as ListGameOptions sends them:
// which fields a mode shows, what settings the values make, and the values read back.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  type GameDescription,
  GameDescriptionSchema,
  GameOptionKind,
  type GameOptionSchema,
  PlayMode,
} from "../../src/gen/ludus/v1/game_options_pb.js";
import { CaroFirstMover } from "../../src/gen/ludus/v1/rooms_pb.js";
import { label } from "../../src/i18n.js";
import { formFields, initialValues, roomSettingsFrom, settingsFrom, valuesOf } from "../../src/options.js";

const ALL = [PlayMode.QUICK_MATCH, PlayMode.ROOM, PlayMode.COMPUTER];
type Option = MessageInitShape<typeof GameOptionSchema>;
const game = (name: string, options: Option[]): GameDescription => create(GameDescriptionSchema, { game: name, options });

const caro = game("caro", [
  {
    id: "size",
    field: "caro.board_size",
    kind: GameOptionKind.CHOICE,
    rules: ["C1"],
    labelKey: "opt.board",
    modes: ALL,
    defaultValue: 15n,
    choices: [{ value: 15n }, { value: 19n }],
  },
  {
    id: "blocked",
    field: "caro.blocked_ends_off",
    kind: GameOptionKind.FLAG,
    rules: ["C5"],
    labelKey: "opt.caro.blocked",
    modes: ALL,
    defaultValue: 1n,
    fieldNegated: true,
  },
  {
    id: "exact",
    field: "caro.exactly_five",
    kind: GameOptionKind.FLAG,
    rules: ["C5"],
    labelKey: "opt.caro.exact",
    modes: ALL,
    defaultValue: 0n,
  },
  {
    id: "first_mover",
    field: "room.first_mover",
    kind: GameOptionKind.CHOICE,
    rules: ["C10"],
    labelKey: "room.firstMover",
    modes: [PlayMode.ROOM],
    defaultValue: 1n,
    choices: [
      { value: 1n, labelKey: "room.rps" },
      { value: 2n, labelKey: "room.hostFirst" },
      { value: 3n, labelKey: "room.guestFirst" },
    ],
  },
  {
    id: "clock",
    field: "turn_time_ms",
    kind: GameOptionKind.CHOICE,
    rules: ["C12"],
    labelKey: "opt.clock",
    modes: [PlayMode.ROOM],
    defaultValue: 0n,
    unit: "ms",
    choices: [{ value: 0n, labelKey: "opt.untimed" }, { value: 30000n }, { value: 60000n }, { value: 120000n }],
  },
]);

const money = { optionId: "match", values: [0n] };
const backgammon = game("backgammon", [
  {
    id: "match",
    field: "backgammon.match_game.length",
    kind: GameOptionKind.CHOICE,
    rules: ["B22"],
    labelKey: "opt.backgammon.match",
    modes: ALL,
    defaultValue: 0n,
    choices: [{ value: 0n, labelKey: "opt.backgammon.money" }, { value: 3n }, { value: 5n }],
  },
  {
    id: "auto",
    field: "backgammon.automatic_doubles",
    kind: GameOptionKind.FLAG,
    rules: ["B17"],
    labelKey: "opt.backgammon.auto",
    modes: ALL,
    defaultValue: 0n,
    onlyWhen: [money],
  },
  {
    id: "auto_limit",
    field: "backgammon.automatic_double_limit",
    kind: GameOptionKind.NUMBER,
    rules: ["B17"],
    labelKey: "opt.backgammon.autoLimit",
    modes: ALL,
    defaultValue: 1n,
    min: 1n,
    max: 15n,
    step: 1n,
    onlyWhen: [money, { optionId: "auto", values: [1n] }],
  },
]);

const quoridorClock = game("quoridor", [
  {
    id: "players",
    field: "quoridor.players",
    kind: GameOptionKind.NUMBER,
    rules: ["Q4"],
    labelKey: "opt.players",
    modes: ALL,
    defaultValue: 2n,
    min: 2n,
    max: 8n,
    step: 1n,
  },
  {
    id: "clock",
    field: "turn_time_ms",
    kind: GameOptionKind.NUMBER,
    rules: ["Q28"],
    labelKey: "opt.clock",
    modes: [PlayMode.QUICK_MATCH],
    defaultValue: 0n,
    min: 15000n,
    max: 90000n,
    step: 1000n,
    zeroLabelKey: "opt.default",
    unit: "ms",
  },
]);

describe("formFields", () => {
  it("shows each mode's options with their rule ids, and the room's own only when asked", () => {
    const ids = (context: "quick" | "room", roomFields = false) =>
      formFields(caro, context, initialValues(caro, context, roomFields), roomFields).map((f) => f.id);
    expect(ids("quick")).toEqual(["size", "blocked", "exact"]);
    expect(ids("room")).toEqual(["size", "blocked", "exact", "clock"]);
    expect(ids("room", true)).toEqual(["size", "blocked", "exact", "first_mover", "clock"]);
    const blocked = formFields(caro, "quick", initialValues(caro, "quick")).find((f) => f.id === "blocked");
    expect(blocked?.rules).toBe("C5");
    expect(blocked?.value).toBe("on");
  });

  it("hides the money rules in a match and the doubles' limit until doubles are on (B17, B22)", () => {
    const shown = (values: Record<string, string>) => formFields(backgammon, "quick", values).map((f) => f.id);
    expect(shown({ match: "0", auto: "off" })).toEqual(["match", "auto"]);
    expect(shown({ match: "0", auto: "on" })).toEqual(["match", "auto", "auto_limit"]);
    expect(shown({ match: "3", auto: "on" })).toEqual(["match"]);
  });

  it("offers a long range in coarser steps, each one the server accepts, with what 0 means first", () => {
    const clock = formFields(quoridorClock, "quick", initialValues(quoridorClock, "quick")).find((f) => f.id === "clock");
    const values = clock?.choices.map((c) => Number(c.value)) ?? [];
    expect(values[0]).toBe(0);
    expect(clock?.choices[0].text).toBe(label("opt.default"));
    expect(values.slice(1)).toEqual([15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90].map((s) => s * 1000));
    expect(clock?.choices[1].text).toBe("15 s");
  });

  it("names boards N×N and reads an unknown label key as itself", () => {
    const size = formFields(caro, "quick", {}).find((f) => f.id === "size");
    expect(size?.choices.map((c) => c.text)).toEqual(["15×15", "19×19"]);
    expect(label("opt.fromANewerServer")).toBe("opt.fromANewerServer");
  });
});

describe("settingsFrom", () => {
  it("writes each value at its field: a negated flag, a number, the clock where offered", () => {
    const settings = settingsFrom(caro, "room", { size: "19", blocked: "off", exact: "on", clock: "60000", first_mover: "2" });
    expect(settings.options.case).toBe("caro");
    expect(settings.options.value).toMatchObject({ boardSize: 19, blockedEndsOff: true, exactlyFive: true });
    expect(settings.turnTimeMs).toBe(60000n);
    // Not offered in a quick match: the server's clock.
    expect(settingsFrom(caro, "quick", { size: "15", clock: "60000" }).turnTimeMs).toBe(0n);
  });

  it("makes a match only for a length, and leaves the money rules out of one (B22)", () => {
    const match = settingsFrom(backgammon, "quick", { match: "5", auto: "on", auto_limit: "3" });
    expect(match.options.case === "backgammon" && match.options.value.matchGame?.length).toBe(5);
    expect(match.options.case === "backgammon" && match.options.value.automaticDoubles).toBe(false);
    const moneyGame = settingsFrom(backgammon, "quick", { match: "0", auto: "on", auto_limit: "3" });
    expect(moneyGame.options.case === "backgammon" && moneyGame.options.value.matchGame).toBeUndefined();
    expect(moneyGame.options.value).toMatchObject({ automaticDoubles: true, automaticDoubleLimit: 3 });
  });

  it("gives the room's own fields to RoomSettings only (C10)", () => {
    const room = roomSettingsFrom(caro, { first_mover: "2", size: "19" });
    expect(room.firstMover).toBe(CaroFirstMover.HOST);
    expect(room.game).toBeUndefined();
  });
});

describe("valuesOf", () => {
  it("reads the values back from settings, defaults where a field holds 0", () => {
    const values = { size: "19", blocked: "off", exact: "on", clock: "30000" };
    expect(valuesOf(caro, "room", settingsFrom(caro, "room", values))).toEqual(values);
    const empty = settingsFrom(quoridorClock, "room", {});
    expect(valuesOf(quoridorClock, "room", empty)).toEqual({ players: "2" });
  });
});
