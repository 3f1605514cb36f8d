// Online play: two players quick-match every game and play it by clicks while a spectator
// watches Caro to a win (C7), dropping its connection and resuming from its last seq.

import assert from "node:assert/strict";
import { ARTIFACTS, act, backgammonTurn, checkAxe, quickMatch, screenshotBoard, seqOf, toMove, waitFor } from "./lib.mjs";

export async function caroToAWin(ann, bob, wes, relay) {
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
      // A player's page reloaded on a flaky network: its first read of the game fails on the
      // way while the event stream works. The page reads the game again by itself and shows
      // it, without waiting for a move that the other player waits on it to make.
      let aborted = 0;
      const flaky = (route) => (aborted++ === 0 ? route.abort("connectionreset") : route.continue());
      await o.page.route("**/ludus.v1.Gateway/GetGame", flaky);
      await o.page.reload();
      await o.page.waitForSelector("section.game[data-status=active]");
      // (The reload itself logs O's leaving and return: both pages reach the same seq.)
      await waitFor(async () => (await seqOf(o.page)) === (await seqOf(x.page)), "the reloaded page to catch up");
      await o.page.unroute("**/ludus.v1.Gateway/GetGame", flaky);
      assert.equal(aborted > 1, true, "the first read failed and another one was made");
      assert.match(await o.page.textContent("#status"), /X to move/);
      console.log("  a failed first read was tried again");
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
      ["X: D8", "O: A1", "X: E8", "O: C1", "X: F8", "O: E1", "O disconnected", "O is back", "X: G8", "O: G1", "X: H8"],
      `${s.label}: every move once, in order, in C1 notation (and O's reload, C13)`,
    );
    assert.equal(await s.page.locator("[data-cell=H8] .last").count(), 1, `${s.label}: the last move is highlighted`);
    assert.equal(await s.page.locator(".win").count(), 5, `${s.label}: the winning line`);
  }
  assert.match(await wes.page.textContent("#connection"), /game over/);
  await checkAxe(wes, "caro");
  await screenshotBoard(wes, "caro");
  await wes.page.screenshot({ path: `${ARTIFACTS}/caro-phone-spectator.png`, fullPage: true });
  console.log(`  screenshot ${ARTIFACTS}/caro-phone-spectator.png`);
}

export async function mancala(ann, bob) {
  const game = await quickMatch(ann, bob, "mancala");
  console.log(`mancala ${game}`);
  for (let i = 0; i < 3; i++) {
    const mover = await toMove([ann, bob]);
    await act([ann, bob], () => mover.page.locator(".pit.playable").last().click());
  }
  assert.equal(await ann.page.locator(".hole.last").count(), 1, "the last seed's pit is highlighted");
  assert.ok((await ann.page.$$("#moves li")).length >= 3);
  await checkAxe(ann, "mancala");
  await screenshotBoard(ann, "mancala");
}

export async function quoridor(ann, bob) {
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
  await checkAxe(ann, "quoridor");
  await screenshotBoard(ann, "quoridor");
}

export async function junqi(ann, bob) {
  const game = await quickMatch(ann, bob, "junqi");
  console.log(`junqi ${game}`);
  // Non-camp points (camps start empty, J3, J6).
  const order = ["c7", "c6", "b7", "d6", "a8", "e5", "b11", "d2"];
  for (const point of order) {
    const mover = await toMove([ann, bob]);
    await act([ann, bob], () => mover.page.click(`[data-point=${point}]`));
  }
  assert.ok((await ann.page.locator(".piece.red, .piece.blue").count()) >= 8, "flipped pieces show their rank");
  await checkAxe(ann, "junqi");
  await screenshotBoard(ann, "junqi");
}

export async function backgammon(ann, bob) {
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
  await checkAxe(ann, "backgammon");
  await screenshotBoard(ann, "backgammon");
}
