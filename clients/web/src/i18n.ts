// The page's language: Vietnamese or English, from the player's choice (kept in localStorage)
// or else the browser's language. Every string a player reads goes through `t`.

import { en, type MessageKey } from "./i18n/en.js";
import { vi } from "./i18n/vi.js";

export type Lang = "en" | "vi";
export type { MessageKey };

const DICTIONARIES: Record<Lang, Record<MessageKey, string>> = { en, vi };
const STORAGE_KEY = "ludus.lang";

function detect(): Lang {
  const chosen = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (chosen === "en" || chosen === "vi") return chosen;
  const preferred = globalThis.navigator?.languages ?? [globalThis.navigator?.language ?? "en"];
  for (const tag of preferred) {
    const base = tag.toLowerCase().split("-")[0];
    if (base === "vi" || base === "en") return base;
  }
  return "en";
}

let current: Lang = detect();

export function lang(): Lang {
  return current;
}

/** Switches the language, remembers the choice and sets `<html lang>` for screen readers. */
export function setLang(next: Lang): void {
  current = next;
  globalThis.localStorage?.setItem(STORAGE_KEY, next);
  if (globalThis.document) document.documentElement.lang = next;
}

/** The string for `key` in the current language, with `{param}` placeholders filled. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  const template = DICTIONARIES[current][key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** A label key from the server (ListGameOptions) in the current language; a key this page
 * does not know yet (a newer server) reads as itself rather than failing the page. */
export function label(key: string): string {
  return key in DICTIONARIES[current] ? t(key as MessageKey) : key;
}
