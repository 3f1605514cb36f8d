// The string tables: the same keys and the same {placeholders} in both languages, and t()
// filling them; the language follows the choice, else the browser.
import { afterEach, describe, expect, it } from "vitest";
import { en } from "../../src/i18n/en.js";
import { vi } from "../../src/i18n/vi.js";
import { lang, setLang, t } from "../../src/i18n.js";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("dictionaries", () => {
  it("have the same keys", () => {
    expect(Object.keys(vi).sort()).toEqual(Object.keys(en).sort());
  });

  it("use the same placeholders for each key", () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(placeholders(vi[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it("say every player-facing string in Vietnamese (only names and notation are kept)", () => {
    // The strings allowed to read the same in both languages: game names the seeds keep in
    // English (Mancala, Backgammon), the rule sets' names (Kalah, Congklak), notation and pure formats.
    const same = Object.keys(en).filter((key) => en[key as keyof typeof en] === vi[key as keyof typeof en]);
    for (const key of same) {
      expect(key, `${key} is not translated`).toMatch(
        /^(game\.(mancala|backgammon)|opt\.mancala\.(kalah|congklak)|caro\.(x|o|cell)|lobby\.liveLine|game\.outcome|quoridor\.cell|junqi\.point|junqi\.short\.(mine|bomb))$/,
      );
    }
  });
});

describe("t", () => {
  afterEach(() => setLang("en"));

  it("fills placeholders and leaves unknown ones visible", () => {
    setLang("en");
    expect(t("game.toMove", { seat: "X" })).toBe("X to move");
    expect(t("game.toMove")).toBe("{seat} to move");
  });

  it("speaks the chosen language with the seeds' names", () => {
    setLang("vi");
    expect(lang()).toBe("vi");
    expect(t("game.caro")).toBe("Cờ caro");
    expect(t("game.quoridor")).toBe("Rào chắn");
    expect(t("level.caro.normal")).toBe("Vừa");
    expect(t("room.countdown", { seconds: 3 })).toBe("Ván tiếp theo bắt đầu sau 3 giây");
  });
});
