// English strings of the web client. Every key here must also be in vi.ts: the type in
// vi.ts makes a missing translation a compile error (`npm run typecheck`).
//
// `{name}` marks a parameter filled by `t(key, { name })`.

import { featuresEn } from "./features.en.js";

export const en = {
  ...featuresEn,
  "lang.name": "English",
  "lang.switch": "Tiếng Việt",
} as const;

export type MessageKey = keyof typeof en;
