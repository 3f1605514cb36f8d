// Every game's options, as the server describes them (Gateway.ListGameOptions, from the
// catalog that validates the settings): which options a quick match, a friend room and a game
// against the computer offer, their values, defaults and rule ids, and the field each writes.
// The lobby's "New game" card and the room host's settings build their forms from it; nothing
// in the page names an option, a value or a rule of its own.
//
// The description is fetched once per page load and the tab keeps the last copy in
// sessionStorage (like the session: the page writes nothing to localStorage but the language
// the player chose): a reload while the gateway does not answer for a moment still draws the
// forms, and the server refuses what it no longer offers, naming the rule. Offline games
// (local.ts) use no options and no server.

import { fromJson, type JsonObject, type JsonValue, toJson, toJsonString } from "@bufbuild/protobuf";
import { gateway } from "./api.js";
import { clear, h } from "./dom.js";
import {
  type GameDescription,
  type GameOption,
  GameOptionKind,
  type GameOptionsCatalog,
  GameOptionsCatalogSchema,
  PlayMode,
} from "./gen/ludus/v1/game_options_pb.js";
import { type GameSettings, GameSettingsSchema } from "./gen/ludus/v1/game_pb.js";
import { type RoomSettings, RoomSettingsSchema } from "./gen/ludus/v1/rooms_pb.js";
import { label, t } from "./i18n.js";

export type Settings = GameSettings;
export type Context = "quick" | "room" | "computer";
// An option's value as the form holds it: "on"/"off" for a flag, else the number as text.
export type Values = Record<string, string>;

export interface GameOptions {
  kind: string;
  description: GameDescription;
}

const MODE: Record<Context, PlayMode> = { quick: PlayMode.QUICK_MATCH, room: PlayMode.ROOM, computer: PlayMode.COMPUTER };
// A RoomSettings field, not the game's (the room's first mover, C10; auto-start, Q29).
const ROOM_FIELD = "room.";
const STORAGE_KEY = "ludus.gameOptions";
// Most entries a select of a numeric range offers (Q28's 15-90 s becomes steps of 5 s).
const MOST_ENTRIES = 16;

// The games, filled in place by loadGameOptions() (so every importer sees the same list).
export const GAME_OPTIONS: GameOptions[] = [];
let fetched = false;

function use(catalog: GameOptionsCatalog): void {
  GAME_OPTIONS.splice(0, GAME_OPTIONS.length, ...catalog.games.map((description) => ({ kind: description.game, description })));
}

function lastCopy(): GameOptionsCatalog | undefined {
  try {
    const raw = globalThis.sessionStorage?.getItem(STORAGE_KEY);
    return raw ? fromJson(GameOptionsCatalogSchema, JSON.parse(raw) as JsonValue, { ignoreUnknownFields: true }) : undefined;
  } catch {
    return undefined;
  }
}

// The description, from the gateway once per page load; until then (or when the gateway does
// not answer) the last copy this browser fetched. Empty only before the first answer ever.
export async function loadGameOptions(): Promise<GameOptions[]> {
  if (fetched) return GAME_OPTIONS;
  try {
    const client = await gateway();
    const catalog = (await client.listGameOptions({})).catalog;
    if (catalog) {
      use(catalog);
      fetched = true;
      globalThis.sessionStorage?.setItem(STORAGE_KEY, toJsonString(GameOptionsCatalogSchema, catalog));
    }
  } catch {
    const copy = lastCopy();
    if (copy && GAME_OPTIONS.length === 0) use(copy);
  }
  return GAME_OPTIONS;
}

export function gameOptions(kind: string): GameOptions | undefined {
  return GAME_OPTIONS.find((g) => g.kind === kind);
}

// --- the form's logic, on a description (pure: unit-tested without a browser) ---

const n = (value: bigint): number => Number(value);

function offeredIn(option: GameOption, mode: PlayMode): boolean {
  return option.modes.includes(mode);
}

// The option's value as the form holds it.
function formValue(option: GameOption, value: number): string {
  if (option.kind === GameOptionKind.FLAG) return value ? "on" : "off";
  return String(value);
}

function numeric(option: GameOption, value: string | undefined): number {
  if (option.kind === GameOptionKind.FLAG) return value === "on" ? 1 : 0;
  return Number(value ?? n(option.defaultValue));
}

// The options of `mode` (one per id), in the description's order.
function optionsOf(description: GameDescription, context: Context, roomFields: boolean): GameOption[] {
  return description.options.filter((o) => offeredIn(o, MODE[context]) && (roomFields || !o.field.startsWith(ROOM_FIELD)));
}

// Whether an option applies given the others' values (B17-B19 only in money play).
function applies(option: GameOption, values: Values, options: GameOption[]): boolean {
  return option.onlyWhen.every((condition) => {
    const other = options.find((o) => o.id === condition.optionId);
    return other !== undefined && condition.values.some((v) => formValue(other, n(v)) === values[other.id]);
  });
}

export function initialValues(description: GameDescription, context: Context, roomFields = false): Values {
  const values: Values = {};
  for (const option of optionsOf(description, context, roomFields)) values[option.id] = formValue(option, n(option.defaultValue));
  return values;
}

export interface FieldChoice {
  value: string;
  text: string;
}

export interface FormField {
  id: string;
  label: string;
  // The rule ids, as shown beside the label ("C5", "Q22-Q24").
  rules: string;
  choices: FieldChoice[];
  value: string;
}

// How a number reads: clocks in seconds, board sizes as N×N, else the number.
function numberText(option: GameOption, value: number): string {
  if (option.unit === "ms") return `${value / 1000} s`;
  if (option.id === "size") return `${value}×${value}`;
  return String(value);
}

// The values a NUMBER offers: its range in its steps, coarser where that would be a long list
// (each still one the server accepts), the default always among them.
function numberValues(option: GameOption): number[] {
  const [min, max, step] = [n(option.min), n(option.max), Math.max(1, n(option.step))];
  const count = Math.floor((max - min) / step) + 1;
  const stride = step * Math.max(1, Math.ceil(count / MOST_ENTRIES));
  const values: number[] = [];
  for (let v = min; v <= max; v += stride) values.push(v);
  if (values[values.length - 1] !== max) values.push(max);
  const initial = n(option.defaultValue);
  if (initial !== 0 && !values.includes(initial)) values.push(initial);
  return values.sort((a, b) => a - b);
}

function choicesOf(option: GameOption): FieldChoice[] {
  switch (option.kind) {
    case GameOptionKind.FLAG:
      return [
        { value: "on", text: t("opt.on") },
        { value: "off", text: t("opt.off") },
      ];
    case GameOptionKind.CHOICE:
      return option.choices.map((c) => ({
        value: String(n(c.value)),
        text: c.labelKey ? label(c.labelKey) : numberText(option, n(c.value)),
      }));
    default: {
      const zero = option.zeroLabelKey ? [{ value: "0", text: label(option.zeroLabelKey) }] : [];
      return [...zero, ...numberValues(option).map((v) => ({ value: String(v), text: numberText(option, v) }))];
    }
  }
}

// The form's fields for `context` given the values chosen so far: the options that apply, each
// with its choices in words, its rule ids and its current value.
export function formFields(description: GameDescription, context: Context, values: Values, roomFields = false): FormField[] {
  const options = optionsOf(description, context, roomFields);
  return options
    .filter((o) => applies(o, values, options))
    .map((option) => ({
      id: option.id,
      label: label(option.labelKey),
      rules: option.rules.join(", "),
      choices: choicesOf(option),
      value: values[option.id] ?? formValue(option, n(option.defaultValue)),
    }));
}

// Writes `value` at a dotted path of proto field names in a JSON object.
function writePath(json: JsonObject, path: string, value: JsonValue): void {
  const parts = path.split(".");
  let node = json;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as JsonObject;
  }
  node[parts[parts.length - 1]] = value;
}

function readPath(json: JsonObject, path: string): JsonValue | undefined {
  let node: JsonValue | undefined = json;
  for (const part of path.split(".")) node = node && typeof node === "object" && !Array.isArray(node) ? node[part] : undefined;
  return node;
}

// The values that apply, as the JSON of the message whose fields they are (`prefix` "" for
// GameSettings, "room." for RoomSettings): a flag as a bool, a number as a number; a 0 is left
// out (proto3's default: a match length of 0 is no match, B22).
function json(description: GameDescription, context: Context, values: Values, prefix: string): JsonObject {
  const out: JsonObject = prefix ? {} : { [description.game]: {} };
  const options = optionsOf(description, context, prefix !== "");
  for (const option of options) {
    if (!applies(option, values, options)) continue;
    const field = option.field;
    if (prefix ? !field.startsWith(prefix) : field.startsWith(ROOM_FIELD)) continue;
    let value = numeric(option, values[option.id]);
    if (option.kind === GameOptionKind.FLAG) {
      const on = option.fieldNegated ? value === 0 : value === 1;
      writePath(out, field.slice(prefix.length), on);
      continue;
    }
    if (value === 0) continue;
    if (!Number.isFinite(value)) value = n(option.defaultValue);
    writePath(out, field.slice(prefix.length), value);
  }
  return out;
}

// The GameSettings the values choose.
export function settingsFrom(description: GameDescription, context: Context, values: Values): Settings {
  return fromJson(GameSettingsSchema, json(description, context, values, ""));
}

// The RoomSettings fields the values choose (first mover, auto-start), without the game.
export function roomSettingsFrom(description: GameDescription, values: Values): RoomSettings {
  return fromJson(RoomSettingsSchema, json(description, "room", values, ROOM_FIELD));
}

// The form's values back from settings (a room's current ones), so the host's form starts
// from them; a field at 0 that is no value of its option holds the option's default.
export function valuesOf(description: GameDescription, context: Context, settings: Settings): Values {
  const stored = toJson(GameSettingsSchema, settings, { useProtoFieldName: true, enumAsInteger: true }) as JsonObject;
  const values: Values = {};
  for (const option of optionsOf(description, context, false)) {
    const raw = readPath(stored, option.field);
    let value = typeof raw === "boolean" ? Number(raw) : Number(raw ?? 0);
    if (option.kind === GameOptionKind.FLAG && option.fieldNegated) value = 1 - value;
    const allowed = option.kind === GameOptionKind.FLAG || choicesOf(option).some((c) => c.value === String(value));
    values[option.id] = formValue(option, allowed || value !== 0 ? value : n(option.defaultValue));
  }
  return values;
}

// The values back from a room's settings, for the host's form.
export function valuesFromSettings(settings: Settings | undefined): { kind: string; values: Values } | undefined {
  const kind = settings?.options.case;
  const game = kind ? gameOptions(kind) : undefined;
  if (!settings || !game) return undefined;
  return { kind: game.kind, values: valuesOf(game.description, "room", settings) };
}

// --- the form ---

// A form of the game's options for `context`: a select per option, labelled with its rule ids.
// `prefix` keeps ids unique when two forms share a page; `roomFields` adds the room's own
// choices (first mover, auto-start) where the page sends RoomSettings itself.
export class OptionsForm {
  readonly node = h("div", { class: "options" });
  private values: Values;

  constructor(
    private kind: string,
    private readonly context: Context,
    private readonly prefix: string,
    values?: Values,
    private readonly roomFields = false,
  ) {
    this.values = values ?? this.initial();
    this.render();
  }

  get game(): string {
    return this.kind;
  }

  setGame(kind: string, values?: Values): void {
    this.kind = kind;
    this.values = values ?? this.initial();
    this.render();
  }

  settings(): Settings {
    const game = gameOptions(this.kind);
    if (!game) throw new Error(`no options for ${this.kind}`);
    return settingsFrom(game.description, this.context, this.values);
  }

  roomSettings(): RoomSettings {
    const game = gameOptions(this.kind);
    if (!game) throw new Error(`no options for ${this.kind}`);
    return roomSettingsFrom(game.description, this.values);
  }

  private initial(): Values {
    const game = gameOptions(this.kind);
    return game ? initialValues(game.description, this.context, this.roomFields) : {};
  }

  private render(): void {
    clear(this.node);
    const game = gameOptions(this.kind);
    if (!game) {
      this.node.append(h("p", { class: "small", role: "status" }, t("opt.unavailable")));
      return;
    }
    const fields = formFields(game.description, this.context, this.values, this.roomFields);
    if (fields.length === 0) {
      this.node.append(h("p", { class: "small" }, t("opt.none")));
      return;
    }
    for (const field of fields) {
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
        ...field.choices.map((choice) => h("option", { value: choice.value, selected: field.value === choice.value }, choice.text)),
      );
      this.node.append(
        h("div", { class: "option" }, h("label", { for: id }, `${field.label} `, h("span", { class: "rule" }, `(${field.rules})`)), select),
      );
    }
  }
}
