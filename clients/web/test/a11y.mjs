// A player in Vietnamese on a phone who uses the keyboard only (no pointer at all): the
// browser's language (vi-VN) picks the page's, every page is checked for words that are not
// from the Vietnamese dictionary and with axe-core; then a Caro game online against an English
// player and every game on the device, all by Tab, the arrow keys, Enter and Space.

import assert from "node:assert/strict";
import {
  checkAxe,
  checkLanguage,
  computerAnswered,
  keyTo,
  openPage,
  screenshotBoard,
  screenshotPage,
  seqOf,
  tabToButton,
  VI_PHONE,
  waitFor,
} from "./lib.mjs";

// The players' names the tests choose: shown as typed, in any language.
export const NAMES = ["ann", "bob", "wes", "hal", "lan"];

// Presses Enter (or `key`) on the focused element and waits for the position to move on.
async function pressAndWait(page, key = "Enter", what = "the action") {
  const before = await seqOf(page);
  await page.keyboard.press(key);
  await waitFor(async () => (await seqOf(page)) > before, what);
}

// The first place of the board matching `selector`, by its key (its name in the notation).
const placeKey = (page, selector) => page.locator(selector).first().getAttribute("data-key");

export async function vietnameseKeyboard(browser, url, errors, ann) {
  const lan = await openPage(browser, url, VI_PHONE, errors, "lan");
  const page = lan.page;
  await page.waitForSelector("#sign-in");
  assert.match(await page.textContent("#sign-in h2"), /khách/, "vi-VN: the page speaks Vietnamese");
  await checkLanguage(lan, "vi", "sign-in");
  await checkAxe(lan, "sign-in (vi)");
  await screenshotPage(lan, "vi-sign-in-phone");

  // The name field has the focus on load: type, Enter.
  await page.keyboard.type("lan");
  await page.keyboard.press("Enter");
  await page.waitForSelector("[data-quick=caro]");
  await page.waitForSelector("#offline");
  await checkLanguage(lan, "vi", "lobby", NAMES);
  await checkAxe(lan, "lobby (vi)");
  await screenshotPage(lan, "vi-lobby-phone");

  // The language switch in the header, by keys: the page redraws in English, and back.
  await tabToButton(page, /^English$/);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#lang-switch:text('Tiếng Việt')");
  await checkLanguage(lan, "en", "lobby after the switch", NAMES);
  await page.focus("#lang-switch");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#lang-switch:text('English')");

  await caroByKeys(lan, ann);
  await onTheDeviceByKeys(lan, url);
  await lan.context.close();
}

// Caro online: lan (Vietnamese, keys only) against ann (English, clicks), five moves each way
// and lan resigns by keys (C14).
async function caroByKeys(lan, ann) {
  const page = lan.page;
  await ann.page.goto(ann.page.url().replace(/#.*$/, "#/"));
  await ann.page.click("[data-quick=caro]");
  await page.goto(page.url().replace(/#.*$/, "#/"));
  await page.waitForSelector("[data-quick=caro]");
  await tabToButton(page, /^Cờ caro$/);
  await page.keyboard.press("Enter");
  for (const s of [lan, ann]) await s.page.waitForSelector("section.game[data-kind=caro]");
  assert.equal(await page.getAttribute("section.game", "data-game"), await ann.page.getAttribute("section.game", "data-game"));
  const lanIsX = (await page.textContent(".players")).includes("X: lan (bạn)");
  const lanCells = ["H8", "H9", "H10"];
  const annCells = ["A1", "B1", "C1"];
  for (let i = 0; i < 3; i++) {
    for (const mover of lanIsX ? ["lan", "ann"] : ["ann", "lan"]) {
      const before = await seqOf(page);
      if (mover === "lan") {
        await waitFor(async () => (await page.textContent("#status")) === "Lượt của bạn", "lan's turn (in Vietnamese)");
        await keyTo(page, lanCells[i]);
      } else {
        await waitFor(async () => (await ann.page.textContent("#status")) === "Your turn", "ann's turn");
        await ann.page.click(`[data-cell=${annCells[i]}]`);
      }
      await waitFor(async () => (await seqOf(page)) > before && (await seqOf(ann.page)) > before, `${mover}'s move on both pages`);
    }
  }
  // The focus stayed on the board through the redraws: the last cell lan played.
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-key")), "H10", "the focus survives the redraws");
  assert.match(await page.getAttribute("[data-key=H8]", "aria-label"), /^H8, X|^H8, O/, "a screen reader reads the cell and its stone");
  await checkLanguage(lan, "vi", "caro game (vi)", NAMES);
  await checkAxe(lan, "caro game (vi)");
  await checkAxe(ann, "caro game (en)");
  await checkLanguage(ann, "en", "caro game (en)", NAMES);
  await screenshotPage(lan, "vi-caro-keyboard-phone");
  await tabToButton(page, /^Đầu hàng$/);
  await page.keyboard.press("Enter");
  for (const s of [lan, ann]) {
    await waitFor(
      async () => (await s.page.getAttribute("section.game", "data-status")) === "finished",
      `${s.label} to see the resignation`,
    );
  }
  assert.match(await page.textContent("#status"), /thắng — C14: /, "the outcome in Vietnamese, the rule id kept");
  await checkLanguage(lan, "vi", "finished caro game (vi)", NAMES);
  console.log("keyboard only (vi): caro online, 3 moves each, resigned by keys");
}

// Every game on the device, keys only, in Vietnamese: a pit, a pawn step and a wall, a flip,
// a backgammon turn (roll, then checker by checker), and Caro against the computer with a
// take-back (C17).
async function onTheDeviceByKeys(lan, url) {
  const page = lan.page;
  await page.goto(`${url}#/local/mancala`);
  await page.waitForSelector("section.game.local[data-kind=mancala]");
  for (let i = 0; i < 2; i++) {
    await keyTo(page, await placeKey(page, ".pit.playable"), null);
    await pressAndWait(page, " ", "a sow by Space");
  }
  assert.match(await page.getAttribute("[data-key='0-1']", "aria-label"), /Hố 1 .*hạt/, "a pit is named with its seeds");
  await checkLanguage(lan, "vi", "mancala on the device", NAMES);
  await checkAxe(lan, "mancala on the device (vi)");

  await page.goto(`${url}#/local/quoridor`);
  await page.waitForSelector("section.game.local[data-kind=quoridor]");
  await keyTo(page, await placeKey(page, ".square.target"), null);
  await pressAndWait(page, "Enter", "a pawn step by keys");
  await tabToButton(page, /^Tường ─$/);
  await page.keyboard.press("Enter");
  await keyTo(page, "d5", null);
  assert.match(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), /^d5: đặt tường ngang$/);
  await pressAndWait(page, "Enter", "a wall by keys");
  assert.equal(await page.locator(".wall").count(), 1);
  await checkLanguage(lan, "vi", "quoridor on the device", NAMES);
  await checkAxe(lan, "quoridor on the device (vi)");
  await screenshotBoard(lan, "vi-quoridor-keyboard");

  await page.goto(`${url}#/local/junqi`);
  await page.waitForSelector("section.game.local[data-kind=junqi]");
  for (const point of ["c7", "c6"]) {
    await keyTo(page, point, null);
    await pressAndWait(page, "Enter", `flip ${point} by keys`);
  }
  assert.match(
    await page.getAttribute("[data-key=c7]", "aria-label"),
    /^c7: .+ (đỏ|xanh)/,
    "a flipped piece is read with its rank and colour",
  );
  await checkLanguage(lan, "vi", "junqi on the device", NAMES);
  await checkAxe(lan, "junqi on the device (vi)");

  await page.goto(`${url}#/local/backgammon`);
  await page.waitForSelector("section.game.local[data-kind=backgammon]");
  // The opening roll (B3) is already made: the first mover plays its dice, then the other
  // side rolls.
  await backgammonPlayByKeys(page);
  await tabToButton(page, /^Đổ xúc xắc$/);
  await pressAndWait(page, "Enter", "the roll by keys");
  await backgammonPlayByKeys(page);
  await checkLanguage(lan, "vi", "backgammon on the device", NAMES);
  await checkAxe(lan, "backgammon on the device (vi)");
  await screenshotBoard(lan, "vi-backgammon-keyboard");

  await page.goto(`${url}#/computer/caro/easy`);
  await page.waitForSelector("section.game.local[data-kind=caro][data-mode=computer]");
  assert.match(await page.textContent("h2"), /Cờ caro · chơi với máy \(Dễ\)/);
  await keyTo(page, "H8", null);
  await pressAndWait(page, "Enter", "X at H8 by keys");
  await computerAnswered(page);
  assert.equal(await seqOf(page), 2, "the computer answered");
  await tabToButton(page, /^Đi lại$/);
  await page.keyboard.press("Enter");
  await waitFor(async () => (await seqOf(page)) === 0, "C17: the take-back by keys");
  await checkLanguage(lan, "vi", "caro against the computer", NAMES);
  await checkAxe(lan, "caro against the computer (vi)");
  console.log("keyboard only (vi): mancala, quoridor (step and wall), junqi, backgammon, caro against the computer with a take-back");
}

// One backgammon play by keys: checker by checker, from an offered source to an offered
// destination, until the play is sent (or the pass when no move is legal).
async function backgammonPlayByKeys(page) {
  const start = await seqOf(page);
  for (let step = 0; step < 4 && (await seqOf(page)) === start; step++) {
    if (await page.locator("button", { hasText: "Không có nước đi" }).count()) {
      await tabToButton(page, /^Không có nước đi/);
      await page.keyboard.press("Enter");
      break;
    }
    await keyTo(page, await placeKey(page, "g.point.source, rect.bg-bar.source"));
    await keyTo(page, await placeKey(page, "g.point.target, rect.bg-off.target"));
    await waitFor(
      async () => (await seqOf(page)) > start || Number(await page.getAttribute(".board-wrap", "data-made")) === step + 1,
      "the checker to move by keys",
    );
  }
  await waitFor(async () => (await seqOf(page)) > start, "the play sent by keys");
}
