// Games on the device, no server: two people on one screen (every game, then Mancala and
// the computer with the network gone, from the service worker's cache), and one person
// against the computer (Caro to an end, take-backs C17/M11, every game answered).

import assert from "node:assert/strict";
import { backgammonTurn, checkAxe, computerAnswered, localClick, screenshotBoard, screenshotPage, seqOf, waitFor } from "./lib.mjs";

// Two players on one device, every game, the rules in WebAssembly and no server: a few
// actions each (Caro to a win, with a refusal and no take-back between people, C15), a
// screenshot of each board; then, with the network gone, the page reloads from the service
// worker's cache and a Mancala game is played.
export async function offline(session, url) {
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
  await checkAxe(session, "offline-caro");
  await screenshotBoard(session, "offline-caro");

  await page.goto(`${url}#/local/quoridor`);
  await page.waitForSelector("section.game.local[data-kind=quoridor]");
  await localClick(page, ".square.target", "a pawn step");
  await page.click("[data-mode=wall-h]");
  await localClick(page, "[data-cell=d5]", "a wall");
  await page.click("[data-mode=move]");
  await localClick(page, ".square.target", "the other pawn");
  assert.equal(await page.locator(".wall").count(), 1);
  await checkAxe(session, "offline-quoridor");
  await screenshotBoard(session, "offline-quoridor");

  await page.goto(`${url}#/local/backgammon`);
  await page.waitForSelector("section.game.local[data-kind=backgammon]");
  for (let turn = 0; turn < 3; turn++) await backgammonTurn(page);
  await checkAxe(session, "offline-backgammon");
  await screenshotBoard(session, "offline-backgammon");

  await page.goto(`${url}#/local/junqi`);
  await page.waitForSelector("section.game.local[data-kind=junqi]");
  assert.match(await page.textContent("#face-down-note"), /face down/);
  for (const point of ["c7", "c6", "b7", "d6", "a8", "e5"]) await localClick(page, `[data-point=${point}]`, `flip ${point}`);
  assert.equal(await page.locator(".piece.red, .piece.blue").count(), 6, "flipped pieces show their rank");
  await checkAxe(session, "offline-junqi");
  await screenshotBoard(session, "offline-junqi");

  // No network at all: the service worker serves the page, the rules run in it.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await session.context.setOffline(true);
  try {
    await page.goto(`${url}#/local/mancala`);
    await page.reload();
    await page.waitForSelector("section.game.local[data-kind=mancala]");
    for (let i = 0; i < 3; i++) await localClick(page, ".pit.playable", "an offline sow");
    await checkAxe(session, "offline-mancala");
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
export async function computer(session, url) {
  const page = session.page;
  await page.goto(`${url}#/`);
  await page.waitForSelector("[data-computer=caro-easy]");
  await checkAxe(session, "lobby-phone");
  await screenshotPage(session, "lobby-phone");
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
  await checkAxe(session, "computer-caro");
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
  await checkAxe(session, "computer-mancala");
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
    await checkAxe(session, `computer-${kind}`);
    await screenshotBoard(session, `computer-${kind}`);
  }
  await page.goto(`${url}#/computer/backgammon/normal`);
  await page.waitForSelector("section.game.local[data-kind=backgammon]");
  for (let turn = 0; turn < 3; turn++) {
    await computerAnswered(page);
    await backgammonTurn(page);
  }
  await computerAnswered(page);
  await checkAxe(session, "computer-backgammon");
  await screenshotBoard(session, "computer-backgammon");

  // Mancala Hard builds its endgame database in the worker before its first move.
  await page.goto(`${url}#/computer/mancala/hard`);
  await page.waitForSelector("section.game.local[data-kind=mancala]");
  await waitFor(
    async () => (await page.evaluate(() => document.documentElement.dataset.computerPrepared)) !== undefined,
    "the endgame database",
  );
  const prepared = JSON.parse(await page.evaluate(() => document.documentElement.dataset.computerPrepared));
  console.log(
    `  mancala Hard in the tab: ${prepared.seeds}-seed endgame database, ${prepared.positions} positions, built in ${prepared.ms} ms, wasm memory ${(prepared.wasmBytes / 1048576).toFixed(1)} MiB`,
  );
  assert.equal(prepared.seeds, 12, "the browser's smaller database");
  await computerAnswered(page);
  await localClick(page, ".pit.playable", "a sow against Hard");
  await computerAnswered(page);
  await checkAxe(session, "computer-mancala-hard-phone");
  await screenshotPage(session, "computer-mancala-hard-phone");
  console.log("computer: caro to an end, take-backs (C17, M11), every game answered");
}
