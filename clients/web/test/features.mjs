// The web client's features beyond a default quick match, in headless Chromium against the
// all-in-one binary (started with a 20-second access-token term so the refresh is exercised),
// in English and Vietnamese (the browser's language), desktop and phone sizes:
//
// - a 19×19 Caro quick match with blocked ends (C1, C5) chosen in the options form, to a win;
// - an account registered, its access token refreshed past its term (single-use refresh
//   tokens), a Congklak game (K1) against the computer on the server with a take-back (M11);
// - that game replayed from the archive move by move, its record downloaded;
// - a 4-player Quoridor room in teams (Q23) run by its host: settings, team seats, a kick, a
//   hand-over and back, the start;
// - a 3-point backgammon match (B22) played with the cube (B14, B15: double and drop), its
//   .mat record downloaded from the replay page into artifacts/ (gnubg imports it:
//   games/backgammon/judge/import_mat.py).
//
// Screenshots of every new page land in artifacts/ (ARTIFACTS overrides).

import assert from "node:assert/strict";
import { mkdir, readFile, rm } from "node:fs/promises";
import { chromium } from "playwright-core";
import {
  ARTIFACTS,
  act,
  at,
  backgammonTurn,
  CHROMIUM,
  chooseGame,
  DESKTOP,
  FLAGS,
  finished,
  myTurn,
  openPage as openPage_,
  PHONE,
  reportFailure,
  screenshotChecked,
  seqOf,
  signInGuest,
  startLudus as startLudus_,
  toMove,
  waitFor,
} from "./lib.mjs";

// Every new page is photographed and checked with axe-core at phone and desktop sizes.
const screenshot = (session, name) => screenshotChecked(session, `features-${name}`);

// Short enough that the test outlives several terms; the page refreshes at half of it.
const ACCESS_TOKEN_SECONDS = 20;

const startLudus = () => startLudus_(["--access-token-seconds", String(ACCESS_TOKEN_SECONDS)]);

// A session in `locale` that accepts downloads (the replay's record).
const openPage = (browser, url, options, locale, errors, label) =>
  openPage_(browser, url, { ...options, locale, acceptDownloads: true }, errors, label);

// --- 19×19 Caro with blocked ends, quick match, to a win (C1, C5, C7) ---
async function caro19(ann, bob) {
  for (const s of [ann, bob]) {
    await chooseGame(s, "quick", "caro", { size: "19", blocked: "on", exact: "off" });
    // The rule ids are shown where the rule is chosen.
    assert.match(await s.page.textContent("label[for=new-blocked]"), /\(C5\)/);
    await s.page.click("#new-quick");
  }
  for (const s of [ann, bob]) await s.page.waitForSelector("section.game[data-kind=caro]");
  assert.equal(await ann.page.locator("[data-cell]").count(), 361, "C1: a 19×19 board");
  assert.equal(await ann.page.locator("[data-cell=S19]").count(), 1);
  const x = await toMove([ann, bob]);
  const o = x === ann ? bob : ann;
  const xMoves = ["D8", "E8", "F8", "G8", "H8"];
  const oMoves = ["A1", "C1", "E1", "S19"];
  for (let i = 0; i < 5; i++) {
    await act([x, o], () => x.page.click(`[data-cell=${xMoves[i]}]`));
    if (i < 4) await act([x, o], () => o.page.click(`[data-cell=${oMoves[i]}]`));
  }
  for (const s of [x, o]) await waitFor(() => finished(s.page), `${s.label} to see the end`);
  assert.equal(await x.page.locator(".win").count(), 5, "C7: an open five wins under the blocked-ends rule");
  await screenshot(bob, "caro19-phone-vi");
  console.log("caro 19×19 blocked ends: won");
}

// --- register, refresh past the term, Congklak against the computer online, take back ---
async function register(session, username) {
  const page = session.page;
  await page.fill("#username", username);
  await page.fill("#password", "correct horse battery");
  await page.fill("#display-name", username);
  await page.click("#register");
  await page.waitForSelector("#new-game");
  const stored = JSON.parse(await page.evaluate(() => sessionStorage.getItem("ludus.session")));
  assert.ok(stored.refreshToken, "the refresh token is kept for the tab");
  const lifetime = stored.expiresAtMs - Date.now();
  assert.ok(lifetime <= ACCESS_TOKEN_SECONDS * 1000 + 1000, `the shortened term applies (${lifetime} ms)`);
  return stored;
}

async function congklakOnline(reg) {
  const page = reg.page;
  await chooseGame(reg, "computer", "mancala", { rules: "2" });
  await page.selectOption("#new-level", "easy");
  await page.click("#new-computer");
  await page.waitForSelector("section.game[data-kind=mancala]");
  assert.equal(await page.locator("[data-pit]").count(), 14, "K1: seven pits a side");
  await screenshot(reg, "congklak-computer");
  let sows = 0;
  let tookBack = false;
  const started = Date.now();
  while (!(await finished(page))) {
    await waitFor(async () => (await myTurn(page)) || (await finished(page)), "the person's turn against the computer");
    if (await finished(page)) break;
    if (sows === 2 && !tookBack) {
      // M11: the last sow (and the computer's replies since) taken back.
      const before = await seqOf(page);
      await page.click("#take-back");
      await waitFor(async () => (await seqOf(page)) > before && (await myTurn(page)), "the take-back");
      assert.equal((await page.locator("#moves li").filter({ hasText: /./ }).count()) > 0, true);
      tookBack = true;
    }
    const before = await seqOf(page);
    await page.locator(".pit.playable").first().click();
    await waitFor(async () => (await seqOf(page)) > before, "the sow to be applied");
    sows += 1;
    // A long game is ended by resigning (C14): the scenario is the online computer, not its length.
    if (Date.now() - started > 90_000 && !(await finished(page))) {
      await page.click("#resign");
      break;
    }
  }
  await waitFor(() => finished(page), "the Congklak game to end");
  assert.ok(tookBack, "a take-back happened");
  console.log(`congklak against the computer online: ${sows} sows, a take-back, game over`);
}

async function refreshedPastTheTerm(reg, first) {
  const page = reg.page;
  // Wait past the first token's term (with the gateway's 5 s leeway), then use the page.
  const expired = first.expiresAtMs + 6000 - Date.now();
  if (expired > 0) await new Promise((r) => setTimeout(r, expired));
  await page.goto(at(page, "#/account"));
  await page.waitForSelector("#profile");
  await page.waitForSelector("#leaderboard");
  // The page kept working past the first access token's term: the tokens were renewed.
  const now = JSON.parse(await page.evaluate(() => sessionStorage.getItem("ludus.session")));
  assert.notEqual(now.token, first.token, "the access token was refreshed");
  assert.notEqual(now.refreshToken, first.refreshToken, "the refresh token rotated");
  assert.ok(now.expiresAtMs > Date.now(), "the current access token is within its term");
  console.log("signed in past the first access token's term (refreshed)");
}

// --- the archived game, move by move, and its record ---
async function replay(reg) {
  const page = reg.page;
  await waitFor(async () => {
    await page.goto(at(page, "#/account"));
    await page.waitForSelector("#history");
    return (await page.locator("[data-replay]").count()) > 0;
  }, "the finished game in the history");
  await screenshot(reg, "account-vi");
  await page.locator("[data-replay]").first().click();
  await page.waitForSelector("#replay");
  const steps = Number(await page.getAttribute("#replay", "data-steps"));
  assert.ok(steps > 3, `the replay has the game's positions (${steps})`);
  await page.click("#replay-first");
  await waitFor(async () => (await page.getAttribute("#replay", "data-step")) === "0", "the first position");
  await page.click("#replay-next");
  await page.click("#replay-next");
  await waitFor(async () => (await page.getAttribute("#replay", "data-step")) === "2", "two moves on");
  await page.keyboard.press("ArrowLeft");
  await waitFor(async () => (await page.getAttribute("#replay", "data-step")) === "1", "one back by keyboard");
  await screenshot(reg, "replay");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#replay-export")]);
  const path = await download.path();
  const text = await readFile(path, "utf8");
  assert.ok(text.trim().length > 0, "the record is not empty");
  console.log(`replayed ${steps} positions; record ${download.suggestedFilename()} (${text.length} bytes)`);
}

// --- a guest registers and keeps their player id (UpgradeGuest) ---
async function upgradeGuest(session, username) {
  const page = session.page;
  const before = JSON.parse(await page.evaluate(() => sessionStorage.getItem("ludus.session")));
  await page.click("#account-link");
  await page.fill("#upgrade-username", username);
  await page.fill("#upgrade-password", "correct horse battery");
  await page.click("#upgrade-submit");
  await page.waitForSelector("#profile");
  const after = JSON.parse(await page.evaluate(() => sessionStorage.getItem("ludus.session")));
  assert.equal(after.playerId, before.playerId, "the guest keeps their player id");
  assert.ok(after.account && after.refreshToken, "now an account with a refresh token");
  await screenshot(session, "upgraded-profile");
  console.log("guest upgraded to an account, same player id");
}

// --- a 4-player Quoridor room in teams, run by its host ---
async function quoridorTeams(host, ann, bob, cy, dee) {
  await chooseGame(host, "room", "quoridor", { mode: "2", players: "4" });
  await host.page.click("#new-room");
  await host.page.waitForSelector("section.room");
  const code = await host.page.getAttribute("section.room", "data-room");
  console.log(`quoridor teams room ${code}`);
  for (const s of [ann, bob, cy, dee]) {
    await s.page.goto(at(s.page, `#/room/${code}`));
    await s.page.waitForSelector("section.room");
  }
  // Team seats (Q23): two red, two yellow.
  const teams = [
    [host, 1],
    [ann, 2],
    [bob, 1],
    [cy, 2],
  ];
  for (const [s, team] of teams) {
    // The host sits with red on creating a team room (Q23).
    const button = s.page.locator(`[data-sit-team="${team}"]`);
    if (await button.count()) await button.click();
    await waitFor(async () => (await s.page.locator(`[data-member="${s.label}"][data-seated=yes]`).count()) === 1, `${s.label} seated`);
  }
  // The host removes a spectator, hands the room over and gets it back.
  await waitFor(async () => (await host.page.locator("[data-kick=dee]").count()) === 1, "dee in the host's list");
  await host.page.click("[data-kick=dee]");
  await waitFor(async () => (await host.page.locator('[data-member="dee"]').count()) === 0, "dee removed");
  await host.page.click("[data-hand-over=ann]");
  await ann.page.waitForSelector("#host-panel");
  await ann.page.click(`[data-hand-over="${host.label}"]`);
  await host.page.waitForSelector("#host-panel");
  // The host's settings: 11×11 (Q26), saved and seen by everyone.
  await host.page.selectOption("#room-size", "11");
  await host.page.click("#room-save");
  await waitFor(async () => (await ann.page.locator("#teams").count()) === 1, "team mode on every page");
  await screenshot(host, "room-host");
  await screenshot(cy, "room-phone-vi");
  for (const [s] of teams) {
    await s.page.click("#ready");
    await waitFor(async () => (await s.page.locator(`[data-member="${s.label}"][data-ready=yes]`).count()) === 1, `${s.label} ready`);
  }
  await host.page.click("#start");
  const players = teams.map(([s]) => s);
  for (const s of players) await s.page.waitForSelector("section.game[data-kind=quoridor]");
  const ids = new Set(await Promise.all(players.map((s) => s.page.getAttribute("section.game", "data-game"))));
  assert.equal(ids.size, 1, "one table for the four");
  assert.equal(await host.page.locator("[data-cell]").count(), 121, "Q26: an 11×11 board");
  for (let i = 0; i < 4; i++) {
    const mover = await toMove(players);
    await act(players, () => mover.page.locator(".square.target").first().click());
  }
  await screenshot(host, "quoridor-teams");
  console.log("quoridor teams: 4 moves by the rotation of two teams");
}

// --- a 3-point backgammon match with the cube (B22, B14, B15) ---
async function backgammonMatch(ann, bob) {
  for (const s of [ann, bob]) {
    await chooseGame(s, "quick", "backgammon", { match: "3" });
    // B17-B19 are money-play rules: gone once a match is chosen.
    assert.equal(await s.page.locator("#new-auto").count(), 0);
    await s.page.click("#new-quick");
  }
  for (const s of [ann, bob]) await s.page.waitForSelector("section.game[data-kind=backgammon]");
  let doubles = 0;
  let drops = 0;
  let actions = 0;
  while (!(await finished(ann.page))) {
    const mover = await toMove([ann, bob]);
    const page = mover.page;
    const before = await seqOf(page);
    const double = page.locator('button[data-action="double"]');
    const drop = page.locator('button[data-action="drop"]');
    if (await double.count()) {
      await double.click();
      doubles += 1;
    } else if (await drop.count()) {
      await drop.click();
      drops += 1;
    } else if (drops >= 2 && doubles === drops) {
      // The Crawford game (B22) has no cube: the trailing player concedes the match (C14).
      await page.click("#resign");
    } else {
      await backgammonTurn(page);
    }
    await waitFor(async () => (await seqOf(page)) > before || (await finished(page)), "the backgammon action");
    // The other page learns the action from its stream, a moment after the mover's answer:
    // the loop reads ann's page next (whether the match ended, whose turn it is).
    const reached = await seqOf(page);
    await waitFor(async () => {
      for (const s of [ann, bob]) if ((await seqOf(s.page)) < reached) return false;
      return true;
    }, "the backgammon action on both pages");
    if (++actions > 400) throw new Error("the match did not end");
  }
  assert.ok(doubles >= 2 && drops >= 2, `the cube was used: ${doubles} doubles, ${drops} drops`);
  await screenshot(ann, "backgammon-match");
  console.log(`backgammon 3-point match: ${doubles} doubles, ${drops} drops, over`);
  await matchRecord(ann, await ann.page.getAttribute("section.game", "data-game"));
}

// The match's record from the replay page (B22: a .mat file), kept in artifacts/ for GNU
// Backgammon (games/backgammon/judge/import_mat.py opens it there).
async function matchRecord(session, gameId) {
  const page = session.page;
  // The archive takes the game once it has ended: the replay page says NOT_FOUND until then.
  await waitFor(async () => {
    await page.goto(at(page, `#/replay/${gameId}`));
    await page.waitForSelector("#replay, #notice:not(:empty)");
    return (await page.locator("#replay-export").count()) === 1;
  }, "the match in the archive");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#replay-export")]);
  assert.match(download.suggestedFilename(), /\.mat$/, "a backgammon record is a .mat file");
  const path = `${ARTIFACTS}/features-backgammon-match.mat`;
  await download.saveAs(path);
  const text = await readFile(path, "utf8");
  // The .mat header and the first game's scores (gnubg's import reads these lines).
  assert.match(text, /^ 3 point match\n\n Game 1\n (ann|bob) : 0 +(ann|bob) : 0\n/);
  assert.match(text, /Doubles => 2/, "the cube's turns are in the record");
  console.log(`  match record ${path}`);
}

async function main() {
  await mkdir(ARTIFACTS, { recursive: true });
  const ludus = await startLudus();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const errors = [];
  try {
    const ann = await openPage(browser, ludus.url, DESKTOP, "en-US", errors, "ann");
    const bob = await openPage(browser, ludus.url, PHONE, "vi-VN", errors, "bob");
    await signInGuest(ann, "ann");
    await signInGuest(bob, "bob");
    // The page speaks the browser's language.
    assert.match(await bob.page.textContent("#new-game h2"), /Ván mới/);
    assert.match(await ann.page.textContent("#new-game h2"), /New game/);
    await screenshot(bob, "lobby-phone-vi");
    await caro19(ann, bob);

    const reg = await openPage(browser, ludus.url, PHONE, "vi-VN", errors, "hana");
    const first = await register(reg, "hana");
    await congklakOnline(reg);
    await refreshedPastTheTerm(reg, first);
    await replay(reg);

    const cy = await openPage(browser, ludus.url, PHONE, "vi-VN", errors, "cy");
    const dee = await openPage(browser, ludus.url, DESKTOP, "en-US", errors, "dee");
    await signInGuest(cy, "cy");
    await signInGuest(dee, "dee");
    await upgradeGuest(dee, "dee_account");
    await quoridorTeams(reg, ann, bob, cy, dee);

    await backgammonMatch(ann, bob);
    assert.deepEqual(errors, [], "no script error on any page");
    console.log("features browser test passed");
  } catch (error) {
    await reportFailure(browser, "features-");
    throw error;
  } finally {
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
