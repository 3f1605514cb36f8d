// What the browser tests share: the all-in-one `ludus` serving the built client, a relay that
// can cut the network, headless Chromium pages at desktop and phone sizes, load-scaled waits
// (patienceMs), the moves every feature plays, screenshots, and the checks every page passes:
// axe-core (no serious or critical violation), the page in the chosen language only.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const here = (p) => fileURLToPath(new URL(p, import.meta.url));
export const LUDUS = process.env.LUDUS_BIN ?? here("../../../target/debug/ludus");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const ARTIFACTS = process.env.ARTIFACTS ?? here("../artifacts");
// A bound on a hang, never a performance assertion: 20 s, stretched on a busy machine the way
// the Rust harness stretches its waits (`ludus_store::testing::patience`): by the load per
// core when above 1, times LUDUS_TEST_PATIENCE when set, at most 8 times in all. Read at each
// wait, as the load is then.
export function patienceMs() {
  const busy = Math.max(loadavg()[0] / availableParallelism(), 1);
  const asked = Number(process.env.LUDUS_TEST_PATIENCE);
  const factor = Math.min(busy * (Number.isFinite(asked) && asked >= 1 ? asked : 1), 8);
  return Math.round(20_000 * factor);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(check, what) {
  const deadline = Date.now() + patienceMs();
  let last;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ""}`);
}

export async function startLudus(extraArgs = []) {
  const [gatewayPort, webPort] = [await freePort(), await freePort()];
  // A fresh accounts database per run (the room's host registers an account).
  const dataDir = await mkdtemp(join(tmpdir(), "ludus-browser-"));
  const child = spawn(
    LUDUS,
    [
      "serve",
      "--listen",
      `127.0.0.1:${gatewayPort}`,
      "--web-listen",
      `127.0.0.1:${webPort}`,
      "--web-dir",
      here("../dist"),
      "--data-dir",
      dataDir,
      ...extraArgs,
    ],
    { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "warn" } },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = `http://127.0.0.1:${webPort}/`;
  await waitFor(async () => (await fetch(`${url}config.json`)).ok, "ludus to serve the web client");
  return { url, gatewayPort, child, exited, dataDir };
}

// A TCP relay in front of the gateway that can cut every connection through it and refuse
// new ones for a while: a dropped network, as a phone on a train sees it.
export async function startRelay(gatewayPort) {
  const sockets = new Set();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(gatewayPort, "127.0.0.1");
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(a);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    drop() {
      refusing = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

export const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// The browser's language picks the page's (src/i18n.ts): English unless a test asks for vi.
export const DESKTOP = { viewport: { width: 1200, height: 900 }, locale: "en-US" };
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: "en-US" };
export const VI_PHONE = { ...PHONE, locale: "vi-VN" };

export async function openPage(browser, url, options, errors, label) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(patienceMs());
  page.on("pageerror", (error) => errors.push(`${label}: ${error.message}`));
  await page.goto(url);
  return { context, page, label };
}

// On a failure: a screenshot of every page, and what each page shows in words (its address,
// the game's state attributes, the notice and connection lines, the start of its text), so a
// failure on a machine whose screenshots are gone still says what the pages saw.
export async function reportFailure(browser, prefix) {
  for (const context of browser.contexts()) {
    for (const page of context.pages()) {
      const path = `${ARTIFACTS}/${prefix}failure-${browser.contexts().indexOf(context)}.png`;
      await page.screenshot({ path, fullPage: true }).catch(() => {});
      console.error(`failure screenshot ${path} (${page.url()})`);
      const seen = await page
        .evaluate(() => {
          const game = document.querySelector("section.game");
          const text = (selector) => document.querySelector(selector)?.textContent?.trim() ?? "-";
          return {
            game: game ? Object.fromEntries(Object.entries(game.dataset)) : "no game section",
            notice: text("#notice"),
            connection: text("#connection"),
            text: (document.getElementById("app")?.textContent ?? "").replace(/\s+/g, " ").slice(0, 300),
          };
        })
        .catch((error) => ({ unreadable: String(error) }));
      console.error(`  the page showed ${JSON.stringify(seen)}`);
    }
  }
}

// A guest by name, landing on the lobby's "New game" card.
export async function signInGuest(session, name) {
  await session.page.fill("#name", name);
  await session.page.click("#sign-in button[type=submit]");
  await session.page.waitForSelector("#new-game");
}

// The page's address with another route (hash).
export const at = (page, hash) => `${page.url().split("#")[0]}${hash}`;

// The lobby's "New game" card: a tab, a game, then each option by its id.
export async function chooseGame(session, tab, kind, options = {}) {
  const page = session.page;
  await page.goto(at(page, "#/"));
  await page.click(`[data-play=${tab}]`);
  await page.selectOption("#new-game-kind", kind);
  for (const [id, value] of Object.entries(options)) await page.selectOption(`#new-${id}`, value);
}

export async function signIn(session, name) {
  await session.page.fill("#name", name);
  await session.page.click("#sign-in button[type=submit]");
  await session.page.waitForSelector("[data-quick=caro]");
  const stored = await session.page.evaluate(() => ({
    session: sessionStorage.getItem("ludus.session"),
    local: Object.keys(localStorage).length,
    cookies: document.cookie,
  }));
  assert.ok(stored.session?.includes("token"), "the token is kept in sessionStorage");
  assert.equal(stored.local, 0, "nothing in localStorage");
  assert.equal(stored.cookies, "", "no cookie");
}

export const seqOf = async (page) => Number(await page.getAttribute("section.game", "data-seq"));

// Both players quick-match `kind`; returns the game id and who is to move first.
export async function quickMatch(a, b, kind) {
  for (const s of [a, b]) {
    await s.page.goto(s.page.url().replace(/#.*$/, "#/"));
    await s.page.click(`[data-quick=${kind}]`);
  }
  for (const s of [a, b]) await s.page.waitForSelector(`section.game[data-kind=${kind}]`);
  const ids = await Promise.all([a, b].map((s) => s.page.getAttribute("section.game", "data-game")));
  assert.equal(ids[0], ids[1], `${kind}: one game for both players`);
  return ids[0];
}

// The game page's own marks, the same in every language.
export const myTurn = async (page) => (await page.getAttribute("section.game", "data-my-turn")) === "yes";
export const finished = async (page) => (await page.getAttribute("section.game", "data-status")) === "finished";

// The first of `players` whose turn it is.
export async function toMove(players) {
  let found;
  await waitFor(async () => {
    for (const s of players) {
      if (await myTurn(s.page)) {
        found = s;
        return true;
      }
    }
    return false;
  }, "a player whose turn it is");
  return found;
}

// Clicks and waits until every page has seen the game move past `before`.
export async function act(pages, click) {
  const before = await seqOf(pages[0].page);
  await click();
  await waitFor(async () => {
    for (const s of pages) if ((await seqOf(s.page)) <= before) return false;
    return true;
  }, "the action to reach every page");
}

export async function screenshotBoard(session, name) {
  const path = `${ARTIFACTS}/${name}.png`;
  await session.page.locator(".board-col").screenshot({ path });
  console.log(`  screenshot ${path}`);
}

// Backgammon turns on one page (online, or offline: both seats, or the person against the
// computer): roll if asked, take a double when one is offered (B15), else checker by checker
// from the offered sources to the offered targets until the play is sent. Buttons are found
// by their action's notation (`data-action`), so the page's language does not matter.
export async function backgammonTurn(page) {
  const start = await seqOf(page);
  for (const notation of ["roll", "take"]) {
    const button = page.locator(`button[data-action="${notation}"]`);
    if (await button.count()) {
      await button.click();
      await waitFor(async () => (await seqOf(page)) > start, notation);
      return;
    }
  }
  for (let step = 0; step < 4 && (await seqOf(page)) === start; step++) {
    const pass = page.locator(".board-wrap button:not([data-action])").first();
    if ((await page.locator("g.point.source, rect.bg-bar.source").count()) === 0 && (await pass.count())) {
      await pass.click();
      break;
    }
    await page.locator("g.point.source, rect.bg-bar.source").first().click();
    await page.locator("g.point.target, rect.bg-off.target").first().click();
    await waitFor(
      async () => (await seqOf(page)) > start || Number(await page.getAttribute(".board-wrap", "data-made")) === step + 1,
      "the checker to move",
    );
  }
  await waitFor(async () => (await seqOf(page)) > start, "the play to be sent");
}

// One person's click on the local page, and the position moving on by one action.
export async function localClick(page, selector, what) {
  const before = await seqOf(page);
  await page.locator(selector).first().click();
  await waitFor(async () => (await seqOf(page)) > before, what);
}

// Waits for the computer to answer (the page leaves its thinking state).
export async function computerAnswered(page) {
  await waitFor(async () => (await page.getAttribute("section.game", "data-thinking")) === "no", "the computer to answer");
}

// A new page state: axe-core at phone and desktop sizes (checkAxe), then a full-page
// screenshot.
export async function screenshotChecked(session, name) {
  await checkAxe(session, name);
  await screenshotPage(session, name);
}

export async function screenshotPage(session, name) {
  const path = `${ARTIFACTS}/${name}.png`;
  await session.page.screenshot({ path, fullPage: true });
  console.log(`  screenshot ${path}`);
}

// --- Accessibility: axe-core in the page ---------------------------------------------------

const AXE = here("../node_modules/axe-core/axe.min.js");
// Every check made, for the closing summary: page, size, violations by impact.
export const axeReport = [];

// axe-core on the page as it is now, at the phone size and the desktop size: no serious or
// critical violation (WCAG 2.x A/AA and best practices). The page keeps its own size after.
export async function checkAxe(session, name) {
  const page = session.page;
  const original = page.viewportSize();
  for (const [size, viewport] of [
    ["phone", PHONE.viewport],
    ["desktop", DESKTOP.viewport],
  ]) {
    await page.setViewportSize(viewport);
    if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const result = await window.axe.run(document, { resultTypes: ["violations"] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, target: v.nodes[0]?.target?.join(" ") }));
    });
    const grave = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    axeReport.push({ name, size, violations: violations.length, grave: grave.length });
    assert.deepEqual(grave, [], `axe on ${name} (${size}): serious or critical violations`);
  }
  if (original) await page.setViewportSize(original);
}

// --- Language: every word the page shows comes from the dictionary of its language --------

// The words of every string in one dictionary (src/i18n/en.ts or vi.ts): the strings are the
// quoted values of its `"key": "value"` lines.
async function vocabulary(lang) {
  // The pages' own strings and the feature pages' (features.<lang>.ts, spread into <lang>.ts).
  const source =
    (await readFile(here(`../src/i18n/${lang}.ts`), "utf8")) + (await readFile(here(`../src/i18n/features.${lang}.ts`), "utf8"));
  const words = new Set();
  for (const match of source.matchAll(/^\s*(?:"[\w.]+":\s*)?"((?:[^"\\]|\\.)*)",?$/gm)) {
    for (const word of match[1].matchAll(/[\p{L}\p{N}]+/gu)) words.add(word[0].toLowerCase());
  }
  return words;
}

const vocabularies = {};

/**
 * Fails on any word the page shows (text, and the labels, placeholders and descriptions a
 * screen reader reads) that is not in the dictionary of `lang`: a string that skipped t()
 * shows up here as an English word on the Vietnamese page (or a Vietnamese one on the
 * English page). Player names, the server's own words and notation are marked
 * `translate="no"` by the page and skipped; `names` are the players' names the test chose.
 */
export async function checkLanguage(session, lang, name, names = []) {
  vocabularies[lang] ??= await vocabulary(lang);
  const known = vocabularies[lang];
  const page = session.page;
  assert.equal(await page.evaluate(() => document.documentElement.lang), lang, `${name}: <html lang>`);
  const texts = await page.evaluate(() => {
    const out = [];
    const skipped = (node) => node.closest?.("[translate=no], script, style, title");
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!skipped(node.parentElement) && node.textContent.trim()) out.push(node.textContent);
    }
    for (const el of document.body.querySelectorAll("[aria-label], [placeholder], [title], [aria-description]")) {
      if (skipped(el)) continue;
      for (const attr of ["aria-label", "placeholder", "title", "aria-description"]) {
        const value = el.getAttribute(attr);
        if (value) out.push(value);
      }
    }
    return out;
  });
  const allowed = new Set(["ludus", ...names.map((n) => n.toLowerCase())]);
  const stray = new Set();
  for (const text of texts) {
    for (const [word] of text.matchAll(/[\p{L}\p{N}]+/gu)) {
      const w = word.toLowerCase();
      // Single letters (X, O, a file) and anything with a digit (H8, e5, K7M) are notation.
      if (w.length < 2 || /\p{N}/u.test(w)) continue;
      if (!known.has(w) && !allowed.has(w)) stray.add(`${word} (in "${text.trim().slice(0, 60)}")`);
    }
  }
  assert.deepEqual([...stray], [], `${name}: words not from the ${lang} dictionary`);
}

// --- Keyboard only --------------------------------------------------------------------------

const focusedKey = (page) => page.evaluate(() => document.activeElement?.getAttribute("data-key") ?? null);

// Presses Tab until the focus is on a board's place (the board is one tab stop).
export async function tabToBoard(page) {
  for (let i = 0; i < 80; i++) {
    if ((await focusedKey(page)) !== null) return;
    await page.keyboard.press("Tab");
  }
  throw new Error("Tab never reached the board");
}

// Presses Tab until the focused element is a button whose text matches `pattern`.
export async function tabToButton(page, pattern) {
  for (let i = 0; i < 80; i++) {
    const text = await page.evaluate(() => (document.activeElement?.tagName === "BUTTON" ? document.activeElement.textContent : null));
    if (text !== null && pattern.test(text)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached a button ${pattern}`);
}

// Walks the focus with the arrow keys to the place named `key` (a cell in the game's
// notation), then presses Enter there: what a keyboard user does.
export async function keyTo(page, key, press = "Enter") {
  await tabToBoard(page);
  let at;
  for (let i = 0; i < 60; i++) {
    at = await page.evaluate((target) => {
      const now = document.activeElement;
      const goal = document.querySelector(`[data-key="${target}"]`);
      if (!now || !goal) return null;
      const n = (el, a) => Number(el.getAttribute(a));
      return {
        name: now.getAttribute("data-key"),
        dr: n(goal, "data-row") - n(now, "data-row"),
        dc: n(goal, "data-column") - n(now, "data-column"),
      };
    }, key);
    assert.ok(at, `the place ${key} is on the board`);
    if (at.name === key) {
      if (press) await page.keyboard.press(press);
      return;
    }
    const arrow = at.dc > 0 ? "ArrowRight" : at.dc < 0 ? "ArrowLeft" : at.dr > 0 ? "ArrowDown" : "ArrowUp";
    await page.keyboard.press(arrow);
  }
  throw new Error(`the arrow keys never reached ${key} (stuck at ${JSON.stringify(at)})`);
}
