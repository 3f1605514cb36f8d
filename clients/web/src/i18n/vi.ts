// Vietnamese strings of the web client, as the seed sites say them (cờ caro, cờ vây bốn phương…).
// `satisfies` makes a key missing here, or one that English does not have, a compile error.

import type { MessageKey } from "./en.js";
import { featuresVi } from "./features.vi.js";

export const vi = {
  ...featuresVi,
  "lang.name": "Tiếng Việt",
  "lang.switch": "English",
} as const satisfies Record<MessageKey, string>;
