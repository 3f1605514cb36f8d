// The web client in a real browser: starts the all-in-one `ludus` (in-memory store) serving
// the built client, opens three headless Chromium sessions (two players on a desktop and a
// phone-sized viewport, a spectator on a phone), and checks what each page shows while the
// players quick-match and play Caro to a win (C7) and the spectator watches, drops its
// connection and resumes. Then the players quick-match each other game and play its first
// turns by clicking, and a screenshot of every board is saved in artifacts/. Then a room
// joined by its code and its invite link, with chat; every game offline for two people on
// the phone; and every game against the computer on the device (Caro to an end, take-backs).
//
// Usage: node test/browser.mjs   (after `npm run build`; LUDUS_BIN names the binary,
// CHROMIUM the browser; defaults: ../../target/debug/ludus and /usr/bin/chromium)

import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import assert from "node:assert/strict";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const LUDUS = process.env.LUDUS_BIN ?? here("../../../target/debug/ludus");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARTIFACTS = process.env.ARTIFACTS ?? here("../artifacts");
// A bound on a hang, never a performance assertion: 20 s, stretched on a busy machine the way
// the Rust harness stretches its waits (`ludus_store::testing::patience`): by the load per
// core when above 1, times LUDUS_TEST_PATIENCE when set, at most 8 times in all. Read at each
// wait, as the load is then.
function patienceMs() {
  const busy = Math.max(loadavg()[0] / availableParallelism(), 1);
  const asked = Number(process.env.LUDUS_TEST_PATIENCE);
  const factor = Math.min(busy * (Number.isFinite(asked) && asked >= 1 ? asked : 1), 8);
  return Math.round(20_000 * factor);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check, what) {
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

async function startLudus() {
  const [gatewayPort, webPort] = [await freePort(), await freePort()];
  // A fresh accounts database per run (the room's host registers an account).
  const dataDir = await mkdtemp(join(tmpdir(), "ludus-browser-"));
  const child = spawn(
    LUDUS,
    [
      "serve",
      "--listen", `127.0.0.1:${gatewayPort}`,
      "--web-listen", `127.0.0.1:${webPort}`,
      "--web-dir", here("../dist"),
      "--data-dir", dataDir,
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
async function startRelay(gatewayPort) {
  const sockets = new Set();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(gatewayPort, "127.0.0.1");
    for (const [a, b] of [[client, upstream], [upstream, client]]) {
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

const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const DESKTOP = { viewport: { width: 1200, height: 900 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

async function openPage(browser, url, options, errors, label) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(patienceMs());
  page.on("pageerror", (error) => errors.push(`${label}: ${error.message}`));
  await page.goto(url);
  return { context, page, label };
}

async function signIn(session, name) {
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

const seqOf = async (page) => Number(await page.getAttribute("section.game", "data-seq"));

// Both players quick-match `kind`; returns the game id and who is to move first.
async function quickMatch(a, b, kind) {
  for (const s of [a, b]) {
    await s.page.goto(s.page.url().replace(/#.*$/, "#/"));
    await s.page.click(`[data-quick=${kind}]`);
  }
  for (const s of [a, b]) await s.page.waitForSelector(`section.game[data-kind=${kind}]`);
  const ids = await Promise.all([a, b].map((s) => s.page.getAttribute("section.game", "data-game")));
  assert.equal(ids[0], ids[1], `${kind}: one game for both players`);
  return ids[0];
}

async function toMove(players) {
  let found;
  await waitFor(async () => {
    for (const s of players) {
      if ((await s.page.textContent("#status")) === "Your turn") {
        found = s;
        return true;
      }
    }
    return false;
  }, "a player whose turn it is");
  return found;
}

// Clicks and waits until every page has seen the game move past `before`.
async function act(pages, click) {
  const before = await seqOf(pages[0].page);
  await click();
  await waitFor(async () => {
    for (const s of pages) if ((await seqOf(s.page)) <= before) return false;
    return true;
  }, "the action to reach every page");
}

async function screenshotBoard(session, name) {
  const path = `${ARTIFACTS}/${name}.png`;
  await session.page.locator(".board-col").screenshot({ path });
  console.log(`  screenshot ${path}`);
}

async function caroToAWin(ann, bob, wes, relay) {
  const game = await quickMatch(ann, bob, "caro");
  console.log(`caro ${game}: quick-matched`);
  // The spectator finds it among the live games.
  await wes.page.goto(wes.page.url().replace(/#.*$/, "#/"));
  await wes.page.click(`[data-watch="${game}"]`);
  await wes.page.waitForSelector(`section.game[data-game="${game}"]`);
  assert.match(await wes.page.textContent("h2"), /watching/);

  const x = (await ann.page.textContent(".players")).includes("X: ann (you)") ? ann : bob;
  const o = x === ann ? bob : ann;
  const all = [x, o, wes];
  assert.match(await x.page.textContent("#status"), /Your turn/);
  assert.match(await o.page.textContent("#status"), /X to move/);
  assert.match(await x.page.textContent("#clock"), /^X: [01]:\d\d$/, "C12: the move clock counts down");

  const xMoves = ["D8", "E8", "F8", "G8", "H8"];
  const oMoves = ["A1", "C1", "E1", "G1"];
  for (let i = 0; i < 5; i++) {
    await act(all, () => x.page.click(`[data-cell=${xMoves[i]}]`));
    if (i === 4) break;
    if (i === 1) {
      // An illegal click shows the server's refusal with its rule id (C3), and changes nothing.
      const before = await seqOf(o.page);
      await o.page.click(`[data-cell=D8]`);
      await waitFor(async () => /^C3: /.test(await o.page.textContent("#notice")), "the C3 refusal on the page");
      assert.equal(await seqOf(o.page), before);
      console.log(`  refusal shown: ${await o.page.textContent("#notice")}`);
    }
    if (i === 2) {
      // The spectator's connection drops for a move; it resumes from its last seq.
      relay.drop();
      await waitFor(async () => /reconnecting/.test(await wes.page.textContent("#connection")), "the spectator to notice the drop");
      await act([x, o], () => o.page.click(`[data-cell=${oMoves[i]}]`));
      relay.restore();
      await waitFor(async () => (await seqOf(wes.page)) === (await seqOf(x.page)), "the spectator to catch up");
      console.log("  spectator reconnected and caught up");
      continue;
    }
    await act(all, () => o.page.click(`[data-cell=${oMoves[i]}]`));
  }
  for (const s of all) {
    await waitFor(async () => (await s.page.getAttribute("section.game", "data-status")) === "finished", `${s.label} to see the end`);
    const status = await s.page.textContent("#status");
    assert.match(status, /^X \((ann|bob)\) won — C7: /, `${s.label}: ${status}`);
    const moves = await s.page.$$eval("#moves li", (items) => items.map((li) => li.textContent));
    assert.deepEqual(
      moves,
      ["X: D8", "O: A1", "X: E8", "O: C1", "X: F8", "O: E1", "X: G8", "O: G1", "X: H8"],
      `${s.label}: every move once, in order, in C1 notation`,
    );
    assert.equal(await s.page.locator("[data-cell=H8] .last").count(), 1, `${s.label}: the last move is highlighted`);
    assert.equal(await s.page.locator(".win").count(), 5, `${s.label}: the winning line`);
  }
  assert.match(await wes.page.textContent("#connection"), /game over/);
  await screenshotBoard(wes, "caro");
  await wes.page.screenshot({ path: `${ARTIFACTS}/caro-phone-spectator.png`, fullPage: true });
  console.log(`  screenshot ${ARTIFACTS}/caro-phone-spectator.png`);
}

async function mancala(ann, bob) {
  const game = await quickMatch(ann, bob, "mancala");
  console.log(`mancala ${game}`);
  for (let i = 0; i < 3; i++) {
    const mover = await toMove([ann, bob]);
    await act([ann, bob], () => mover.page.locator(".pit.playable").last().click());
  }
  assert.equal(await ann.page.locator(".hole.last").count(), 1, "the last seed's pit is highlighted");
  assert.ok((await ann.page.$$("#moves li")).length >= 3);
  await screenshotBoard(ann, "mancala");
}

async function quoridor(ann, bob) {
  const game = await quickMatch(ann, bob, "quoridor");
  console.log(`quoridor ${game}`);
  let mover = await toMove([ann, bob]);
  await act([ann, bob], () => mover.page.locator(".square.target").first().click());
  mover = await toMove([ann, bob]);
  await mover.page.click("[data-mode=wall-h]");
  await act([ann, bob], () => mover.page.click("[data-cell=d5]"));
  mover = await toMove([ann, bob]);
  await mover.page.click("[data-mode=wall-v]");
  await act([ann, bob], () => mover.page.click("[data-cell=f3]"));
  assert.equal(await ann.page.locator(".wall").count(), 2);
  assert.equal(await ann.page.locator(".last-wall").count(), 1, "the last wall is highlighted");
  await screenshotBoard(ann, "quoridor");
}

async function junqi(ann, bob) {
  const game = await quickMatch(ann, bob, "junqi");
  console.log(`junqi ${game}`);
  // Non-camp points (camps start empty, J3, J6).
  const order = ["c7", "c6", "b7", "d6", "a8", "e5", "b11", "d2"];
  for (const point of order) {
    const mover = await toMove([ann, bob]);
    await act([ann, bob], () => mover.page.click(`[data-point=${point}]`));
  }
  assert.ok((await ann.page.locator(".piece.red, .piece.blue").count()) >= 8, "flipped pieces show their rank");
  await screenshotBoard(ann, "junqi");
}

async function backgammon(ann, bob) {
  const game = await quickMatch(ann, bob, "backgammon");
  console.log(`backgammon ${game}`);
  // Two whole turns (a roll and a play each), every action seen by both pages.
  for (let action = 0; action < 4; action++) {
    const mover = await toMove([ann, bob]);
    await backgammonTurn(mover.page);
    const seq = await seqOf(mover.page);
    await waitFor(async () => (await seqOf(ann.page)) === seq && (await seqOf(bob.page)) === seq, "both pages to see it");
  }
  assert.ok((await ann.page.$$("#moves li")).length >= 2);
  await screenshotBoard(ann, "backgammon");
}

// Backgammon turns on one page (offline: both seats, or the person against the computer):
// roll if asked, then checker by checker from the offered sources to the offered targets
// until the play is sent.
async function backgammonTurn(page) {
  const start = await seqOf(page);
  // Roll when asked; take a double when one is offered (B15).
  for (const word of ["Roll", "Take"]) {
    const button = page.locator("button[data-action]", { hasText: word });
    if (await button.count()) {
      await button.click();
      await waitFor(async () => (await seqOf(page)) > start, word);
      return;
    }
  }
  for (let step = 0; step < 4 && (await seqOf(page)) === start; step++) {
    const pass = page.locator("button", { hasText: "No legal move" });
    if (await pass.count()) {
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
async function localClick(page, selector, what) {
  const before = await seqOf(page);
  await page.locator(selector).first().click();
  await waitFor(async () => (await seqOf(page)) > before, what);
}

// Waits for the computer to answer (the page leaves its thinking state).
async function computerAnswered(page) {
  await waitFor(async () => (await page.getAttribute("section.game", "data-thinking")) === "no", "the computer to answer");
}

// Two players on one device, every game, the rules in WebAssembly and no server: a few
// actions each (Caro to a win, with a refusal and no take-back between people, C15), a
// screenshot of each board; then, with the network gone, the page reloads from the service
// worker's cache and a Mancala game is played.
async function offline(session, url) {
  const page = session.page;
  await page.goto(`${url}#/local/caro`);
  await page.waitForSelector("section.game.local[data-kind=caro]");
  assert.equal(await page.locator("#take-back").count(), 0, "C15: no take-back between people");
  const cells = ["D8", "A1", "E8", "C1", "F8", "E1", "G8"];
  for (const cell of cells) await localClick(page, `[data-cell=${cell}]`, `offline ${cell}`);
  await page.click("[data-cell=D8]");
  await waitFor(async () => /^C3: /.test(await page.textContent("#notice")), "the offline C3 refusal");
  assert.match(await page.textContent("#status"), /O \(Player 2\) to move/);
  await localClick(page, "[data-cell=G1]", "O again");
  await localClick(page, "[data-cell=H8]", "the winning move");
  await waitFor(async () => (await page.getAttribute("section.game", "data-status")) === "finished", "the offline win");
  assert.match(await page.textContent("#status"), /^X \(Player 1\) won — C7: /);
  assert.equal(await page.locator(".win").count(), 5);
  await screenshotBoard(session, "offline-caro");

  await page.goto(`${url}#/local/quoridor`);
  await page.waitForSelector("section.game.local[data-kind=quoridor]");
  await localClick(page, ".square.target", "a pawn step");
  await page.click("[data-mode=wall-h]");
  await localClick(page, "[data-cell=d5]", "a wall");
  await page.click("[data-mode=move]");
  await localClick(page, ".square.target", "the other pawn");
  assert.equal(await page.locator(".wall").count(), 1);
  await screenshotBoard(session, "offline-quoridor");

  await page.goto(`${url}#/local/backgammon`);
  await page.waitForSelector("section.game.local[data-kind=backgammon]");
  for (let turn = 0; turn < 3; turn++) await backgammonTurn(page);
  await screenshotBoard(session, "offline-backgammon");

  await page.goto(`${url}#/local/junqi`);
  await page.waitForSelector("section.game.local[data-kind=junqi]");
  assert.match(await page.textContent("#face-down-note"), /face down/);
  for (const point of ["c7", "c6", "b7", "d6", "a8", "e5"]) await localClick(page, `[data-point=${point}]`, `flip ${point}`);
  assert.equal(await page.locator(".piece.red, .piece.blue").count(), 6, "flipped pieces show their rank");
  await screenshotBoard(session, "offline-junqi");

  // No network at all: the service worker serves the page, the rules run in it.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await session.context.setOffline(true);
  try {
    await page.goto(`${url}#/local/mancala`);
    await page.reload();
    await page.waitForSelector("section.game.local[data-kind=mancala]");
    for (let i = 0; i < 3; i++) await localClick(page, ".pit.playable", "an offline sow");
    await screenshotBoard(session, "offline-mancala");
    // The computer too: its worker and the module come from the service worker's cache.
    await page.goto(`${url}#/computer/caro/easy`);
    await page.waitForSelector("section.game.local[data-kind=caro][data-mode=computer]");
    await localClick(page, "[data-cell=H8]", "X against the computer, offline");
    await computerAnswered(page);
    assert.equal(await seqOf(page), 2, "the computer answered with no network");
  } finally {
    await session.context.setOffline(false);
  }
  console.log("offline: every game for two people, caro to a win, mancala and the computer with no network");
}

// Against the computer, on the device: Caro against Easy to an end; a take-back against
// Medium that undoes the person's move and the reply (C17), none offered against Hard; one
// exchange in every other game; and what Mancala Hard's endgame database costs in the tab.
async function computer(session, url) {
  const page = session.page;
  await page.goto(`${url}#/`);
  await page.waitForSelector("[data-computer=caro-easy]");
  await screenshotBoard0(session, "lobby-phone");
  await page.goto(`${url}#/computer/caro/easy`);
  await page.waitForSelector("section.game.local[data-kind=caro][data-mode=computer]");
  // The person plays row by row from the top-left corner (no plan at all) until the game ends.
  for (let i = 0; i < 120 && (await page.getAttribute("section.game", "data-status")) === "active"; i++) {
    await computerAnswered(page);
    if ((await page.getAttribute("section.game", "data-status")) !== "active") break;
    await localClick(page, ".cell.playable", "the person's stone");
  }
  await waitFor(async () => (await page.getAttribute("section.game", "data-status")) === "finished", "caro against Easy to end");
  const end = await page.textContent("#status");
  assert.match(end, / won — C7: |Draw/, end);
  console.log(`  caro against Easy: ${end}`);
  await screenshotBoard(session, "computer-caro");

  await page.goto(`${url}#/computer/caro/normal`);
  await page.waitForSelector("section.game.local[data-kind=caro][data-mode=computer]");
  assert.match(await page.textContent("h2"), /Medium/);
  await localClick(page, "[data-cell=H8]", "X at H8");
  await computerAnswered(page);
  await localClick(page, "[data-cell=A1]", "X at A1");
  await computerAnswered(page);
  assert.equal(await seqOf(page), 4);
  await page.click("#take-back");
  await waitFor(async () => (await seqOf(page)) === 2, "the take-back of A1 and its reply");
  assert.equal(await page.locator("[data-cell=A1] .stone-x").count(), 0, "A1 is empty again");
  assert.match(await page.textContent("#status"), /X \(You\) to move/);
  await page.goto(`${url}#/computer/caro/hard`);
  await page.waitForSelector("section.game.local[data-kind=caro][data-mode=computer]");
  assert.equal(await page.locator("#take-back").count(), 0, "C17: no take-back against Hard");
  // The other side: the computer is X and moves first.
  await page.click("#switch-sides");
  await computerAnswered(page);
  assert.equal(await seqOf(page), 1, "X (the computer) opened");
  assert.match(await page.textContent("#status"), /^O \(You\) to move/);

  await page.goto(`${url}#/computer/mancala/easy`);
  await page.waitForSelector("section.game.local[data-kind=mancala]");
  await computerAnswered(page);
  await localClick(page, ".pit.playable", "a sow against the computer");
  await computerAnswered(page);
  await page.click("#take-back");
  await waitFor(async () => (await page.locator("#take-back[disabled]").count()) === 1, "M11: the sow taken back");
  await screenshotBoard(session, "computer-mancala");

  for (const [kind, move] of [
    ["quoridor", ".square.target"],
    ["junqi", "g[data-point]:has(rect.face-down)"],
  ]) {
    await page.goto(`${url}#/computer/${kind}/normal`);
    await page.waitForSelector(`section.game.local[data-kind=${kind}]`);
    await computerAnswered(page);
    const before = await seqOf(page);
    await localClick(page, move, `${kind}: the person's action`);
    await computerAnswered(page);
    assert.ok((await seqOf(page)) >= before + 2, `${kind}: the computer answered`);
    await screenshotBoard(session, `computer-${kind}`);
  }
  await page.goto(`${url}#/computer/backgammon/normal`);
  await page.waitForSelector("section.game.local[data-kind=backgammon]");
  for (let turn = 0; turn < 3; turn++) {
    await computerAnswered(page);
    await backgammonTurn(page);
  }
  await computerAnswered(page);
  await screenshotBoard(session, "computer-backgammon");

  // Mancala Hard builds its endgame database in the worker before its first move.
  await page.goto(`${url}#/computer/mancala/hard`);
  await page.waitForSelector("section.game.local[data-kind=mancala]");
  await waitFor(async () => (await page.evaluate(() => document.documentElement.dataset.computerPrepared)) !== undefined, "the endgame database");
  const prepared = JSON.parse(await page.evaluate(() => document.documentElement.dataset.computerPrepared));
  console.log(`  mancala Hard in the tab: ${prepared.seeds}-seed endgame database, ${prepared.positions} positions, built in ${prepared.ms} ms, wasm memory ${(prepared.wasmBytes / 1048576).toFixed(1)} MiB`);
  assert.equal(prepared.seeds, 12, "the browser's smaller database");
  await computerAnswered(page);
  await localClick(page, ".pit.playable", "a sow against Hard");
  await computerAnswered(page);
  await screenshotBoard0(session, "computer-mancala-hard-phone");
  console.log("computer: caro to an end, take-backs (C17, M11), every game answered");
}

// A room by its code: a host with an account creates a Caro room, a guest joins it by the
// code typed in the lobby, a spectator by the invite link; chat is seen by all; the guest sits
// down, both get ready, the host starts and both players land in the room's game.
async function room(browser, url, errors, bob, wes) {
  const hal = await openPage(browser, url, DESKTOP, errors, "hal");
  await hal.page.fill("#username", "hal");
  await hal.page.fill("#password", "correct horse battery");
  await hal.page.fill("#display-name", "hal");
  await hal.page.click("#register");
  await hal.page.click("[data-create-room=caro]");
  await hal.page.waitForSelector("section.room[data-room]");
  const code = await hal.page.getAttribute("section.room", "data-room");
  console.log(`room ${code}: created`);
  await bob.page.goto(bob.page.url().replace(/#.*$/, "#/"));
  await bob.page.fill("#room-code", `${code.slice(0, 3).toLowerCase()} ${code.slice(3)}`);
  await bob.page.click("#join-room button[type=submit]");
  await bob.page.waitForSelector(`section.room[data-room="${code}"]`);
  const invite = await hal.page.getAttribute("#invite", "href");
  assert.equal(invite, `${url}?room=${code}`);
  await wes.page.goto(invite);
  await wes.page.waitForSelector(`section.room[data-room="${code}"]`);
  for (const s of [hal, bob, wes]) {
    await waitFor(async () => (await s.page.locator("#members li").count()) === 3, `${s.label} to see three members`);
  }
  await hal.page.fill("#chat-text", "hello from hal");
  await hal.page.click("#chat-form button");
  await bob.page.fill("#chat-text", "hi hal, bob here");
  await bob.page.click("#chat-form button");
  for (const s of [hal, bob, wes]) {
    await waitFor(async () => {
      const lines = await s.page.$$eval("#chat li", (items) => items.map((li) => li.textContent));
      return lines.includes("hal: hello from hal") && lines.includes("bob: hi hal, bob here");
    }, `${s.label} to see both chat lines`);
  }
  await screenshotBoard0(wes, "room-phone");
  await bob.page.click("#take-seat");
  await waitFor(async () => (await hal.page.getAttribute("[data-member=bob]", "data-seated")) === "yes", "the host to see bob seated");
  await bob.page.click("#ready");
  await hal.page.click("#ready");
  await waitFor(async () => (await hal.page.getAttribute("[data-member=bob]", "data-ready")) === "yes", "bob ready");
  await hal.page.click("#start");
  for (const s of [hal, bob]) await s.page.waitForSelector("section.game[data-kind=caro]");
  assert.match(await hal.page.textContent(".players"), /X: hal \(you\)/, "C10 host option: the host is X");
  await waitFor(async () => (await wes.page.locator("[data-room-game]").count()) === 1, "the spectator to see the room's game");
  await wes.page.click("[data-room-game]");
  await wes.page.waitForSelector("section.game[data-kind=caro]");
  assert.match(await wes.page.textContent("h2"), /watching/);
  console.log("room: joined by code and by invite link, chat seen by all, the game started");
  await hal.context.close();
}

async function screenshotBoard0(session, name) {
  const path = `${ARTIFACTS}/${name}.png`;
  await session.page.screenshot({ path, fullPage: true });
  console.log(`  screenshot ${path}`);
}

async function main() {
  await mkdir(ARTIFACTS, { recursive: true });
  const ludus = await startLudus();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const errors = [];
  const relay = await startRelay(ludus.gatewayPort);
  try {
    const ann = await openPage(browser, ludus.url, DESKTOP, errors, "ann");
    const bob = await openPage(browser, ludus.url, PHONE, errors, "bob");
    // The spectator reaches the gateway through the relay (the page's ?gateway= override).
    const wes = await openPage(browser, `${ludus.url}?gateway=${encodeURIComponent(relay.url)}`, PHONE, errors, "wes");
    await signIn(ann, "ann");
    await signIn(bob, "bob");
    await signIn(wes, "wes");
    await caroToAWin(ann, bob, wes, relay);
    await mancala(ann, bob);
    await quoridor(ann, bob);
    await junqi(ann, bob);
    await backgammon(ann, bob);
    await room(browser, ludus.url, errors, bob, wes);
    await offline(wes, ludus.url);
    await computer(wes, ludus.url);
    // A narrow page never scrolls sideways.
    const overflow = await bob.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the phone layout fits its width (overflow ${overflow}px)`);
    await bob.page.screenshot({ path: `${ARTIFACTS}/backgammon-phone-player.png`, fullPage: true });
    assert.deepEqual(errors, [], "no script error on any page");
    console.log("browser test passed");
  } catch (error) {
    for (const context of browser.contexts()) {
      for (const page of context.pages()) {
        const path = `${ARTIFACTS}/failure-${browser.contexts().indexOf(context)}.png`;
        await page.screenshot({ path, fullPage: true }).catch(() => {});
        console.error(`failure screenshot ${path} (${page.url()})`);
      }
    }
    throw error;
  } finally {
    relay.close();
    await browser.close();
    ludus.child.kill("SIGTERM");
    await ludus.exited;
    await rm(ludus.dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
