// Rooms for hosts, in headless Chromium against the all-in-one binary: a host with an account
// (English, desktop) and guests, one of them Vietnamese on a phone, in one friend room:
//
// - Caro with rock-paper-scissors for the first mover (C10): the draw shown to both, its
//   winner moves first; the game won; a rematch, where the loser moves first (C11); the
//   room's scoreboard;
// - the host switches the room to Quoridor; a game ends, the next one's countdown (Q29) is
//   paused and resumed by the host, and then starts the game by itself; the Quoridor
//   scoreboard's points (Q30-Q36);
// - the host makes it a three-player knockout (Q24): the bracket with its bye, round by
//   round, to the champion and Q35's points.
//
// Every new room state passes axe-core (no serious or critical violation) at phone and desktop
// sizes, shows only words of its page's language, and is photographed into artifacts/.

import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { chromium } from "playwright-core";
import {
  ARTIFACTS,
  act,
  at,
  CHROMIUM,
  checkLanguage,
  chooseGame,
  DESKTOP,
  FLAGS,
  finished,
  openPage,
  patienceMs,
  reportFailure,
  screenshotChecked,
  signInGuest,
  startLudus,
  tabToButton,
  toMove,
  VI_PHONE,
  waitFor,
} from "./lib.mjs";

const NAMES = ["hal", "bob", "cy"];
// The Q29 countdown (services/rooms: AUTO_START_MS).
const AUTO_START_MS = 30_000;

// A new page state: axe at both sizes, the page's language only, a screenshot.
async function check(session, lang, name) {
  await checkLanguage(session, lang, `hosts-${name}`, NAMES);
  await screenshotChecked(session, `hosts-${name}`);
}

const room = (session, code) => session.page.goto(at(session.page, `#/room/${code}`));
const phase = (session) => session.page.getAttribute("section.room", "data-phase");

async function toRoom(sessions, code) {
  for (const s of sessions) {
    await room(s, code);
    await s.page.waitForSelector(`section.room[data-room="${code}"]`);
  }
}

async function ready(sessions) {
  for (const s of sessions) {
    await waitFor(async () => (await s.page.locator("#ready").count()) === 1, `${s.label}'s ready button`);
    if ((await s.page.getAttribute(`[data-member="${s.label}"]`, "data-ready")) !== "yes") await s.page.click("#ready");
    await waitFor(async () => (await s.page.getAttribute(`[data-member="${s.label}"]`, "data-ready")) === "yes", `${s.label} ready`);
  }
}

async function inGame(sessions, kind) {
  for (const s of sessions) await s.page.waitForSelector(`section.game[data-kind=${kind}][data-status=active]`);
  const ids = new Set(await Promise.all(sessions.map((s) => s.page.getAttribute("section.game", "data-game"))));
  assert.equal(ids.size, 1, `one ${kind} table for ${sessions.map((s) => s.label).join(", ")}`);
  return [...ids][0];
}

async function resign(loser, players) {
  await loser.page.click("#resign");
  for (const s of players) await waitFor(() => finished(s.page), `${s.label} to see the game end`);
}

// The scoreboard of `game` as { name: [played, won, drawn, points] }.
async function scoreboard(session, game) {
  return session.page.$$eval(`[data-scoreboard=${game}] tbody tr`, (rows) =>
    Object.fromEntries(rows.map((row) => [row.cells[0].textContent, [...row.cells].slice(1).map((c) => Number(c.textContent))])),
  );
}

// --- Caro: C10's rock-paper-scissors, a win, a rematch with C11's first mover ---
async function caroRoom(hal, bob) {
  await chooseGame(hal, "room", "caro");
  await hal.page.click("#new-room");
  await hal.page.waitForSelector("section.room");
  const code = await hal.page.getAttribute("section.room", "data-room");
  console.log(`room ${code}: caro, first mover by rock-paper-scissors (C10)`);
  // The host's first-mover choice is offered (C10), set to the draw by the lobby's form.
  assert.equal(await hal.page.inputValue("#room-first-mover"), "1", "C10: rock-paper-scissors chosen");
  await toRoom([bob], code);
  await bob.page.click("#take-seat");
  // C10: the server draws when the guest sits down; both see every throw and the winner.
  for (const s of [hal, bob]) await s.page.waitForSelector("#rps [data-rps-winner]");
  const winnerName = await hal.page.getAttribute("[data-rps-winner]", "data-rps-winner");
  assert.ok(["hal", "bob"].includes(winnerName), `the draw's winner is a seated player (${winnerName})`);
  const throws = await hal.page.$$eval("#rps [data-throw]", (items) => items.map((li) => li.getAttribute("data-throw")));
  assert.ok(throws.length >= 1);
  for (const [i, pair] of throws.entries()) {
    const [a, b] = pair.split("/");
    // Equal throws are drawn again; the last one decides.
    assert.equal(a === b, i < throws.length - 1, `C10: throw ${i + 1} of ${throws.length} is ${pair}`);
  }
  assert.match(await bob.page.textContent("#rps"), /Búa|Bao|Kéo/, "the throws in Vietnamese");
  assert.match(await hal.page.textContent("#rps"), /Rock|Paper|Scissors/, "the throws in English");
  await check(hal, "en", "caro-rps-host");
  await check(bob, "vi", "caro-rps-phone-vi");
  console.log(`C10: ${throws.join(", ")}; ${winnerName} moves first`);

  await ready([bob]);
  await hal.page.click("#start");
  const players = [hal, bob];
  await inGame(players, "caro");
  const first = await toMove(players);
  assert.equal(first.label, winnerName, "C10: the draw's winner moves first");
  const second = first === hal ? bob : hal;
  const firstMoves = ["D8", "E8", "F8", "G8", "H8"];
  const secondMoves = ["A1", "C1", "E1", "O15"];
  for (let i = 0; i < 5; i++) {
    await act(players, () => first.page.click(`[data-cell=${firstMoves[i]}]`));
    if (i < 4) await act(players, () => second.page.click(`[data-cell=${secondMoves[i]}]`));
  }
  for (const s of players) await waitFor(() => finished(s.page), `${s.label} to see the five`);

  // Back in the room: the scoreboard, and a rematch offered to the seated players.
  await toRoom(players, code);
  for (const s of players) await s.page.waitForSelector("#rematch");
  const board = await scoreboard(hal, "caro");
  assert.deepEqual(board[first.label], [1, 1, 0, 0], "the winner's line: played 1, won 1");
  assert.deepEqual(board[second.label], [1, 0, 0, 0], "the loser's line: played 1, won 0");
  await check(bob, "vi", "caro-rematch-phone-vi");
  // The guest asks for the rematch (ready) with the keyboard only, the host's rematch starts it.
  await tabToButton(bob.page, /^Đấu lại$/);
  await bob.page.keyboard.press("Enter");
  await waitFor(async () => (await hal.page.getAttribute("[data-member=bob]", "data-ready")) === "yes", "bob ready for the rematch");
  await hal.page.click("#rematch");
  const rematch = await inGame(players, "caro");
  const opener = await toMove(players);
  assert.equal(opener.label, second.label, "C11: the loser of the last game moves first");
  console.log(`caro: ${first.label} won, rematch ${rematch} opened by ${opener.label} (C11)`);
  // The rematch is resigned by its first mover: it counts on the scoreboard too.
  await resign(opener, players);
  await toRoom(players, code);
  await waitFor(async () => (await scoreboard(hal, "caro"))[first.label]?.[1] === 2, "the rematch on the scoreboard");
  return code;
}

// --- switch the room to Quoridor; Q29's countdown paused and resumed; Q30-Q36 points ---
async function quoridorCountdown(hal, bob, code) {
  await hal.page.selectOption("#room-game-kind", "quoridor");
  // C10's choice belongs to Caro: hidden once another game is chosen.
  assert.equal(await hal.page.isVisible("#room-first-mover"), false, "no first-mover choice for Quoridor");
  await hal.page.click("#room-save");
  for (const s of [hal, bob]) {
    await waitFor(
      async () => (await s.page.getAttribute("section.room", "data-game")) === "quoridor",
      `${s.label} to see the room switched`,
    );
  }
  // Switching games keeps each game's scoreboard.
  assert.equal(await bob.page.locator("[data-scoreboard=caro] tbody tr").count(), 2, "Caro's scoreboard kept");
  await check(hal, "en", "switched-host");
  const players = [hal, bob];
  // A settings change clears the readiness: everyone confirms the new game.
  await ready([bob]);
  await hal.page.click("#start");
  await inGame(players, "quoridor");
  // Two moves each (Q34 counts a win by the others leaving only after two moves), then a
  // resignation.
  for (let i = 0; i < 4; i++) {
    const mover = await toMove(players);
    await act(players, () => mover.page.locator(".square.target").first().click());
  }
  const loser = await toMove(players);
  const winner = loser === hal ? bob : hal;
  await resign(loser, players);

  // Q29: the next game's countdown runs in the room; the host pauses and resumes it.
  await toRoom(players, code);
  for (const s of players) await waitFor(async () => (await phase(s)) === "COUNTDOWN", `${s.label} to see the countdown`);
  const seconds = async (s) => Number((await s.page.textContent("#room-phase")).match(/(\d+)/)?.[1]);
  const shown = await seconds(bob);
  // The line counts down by itself (no room event in between).
  await waitFor(async () => (await seconds(bob)) < shown, "the countdown to tick");
  assert.equal(await bob.page.locator("#pause").count(), 0, "only the host pauses");
  // The host pauses with the keyboard only.
  await tabToButton(hal.page, /^Pause the countdown$/);
  await hal.page.keyboard.press("Enter");
  for (const s of players) await waitFor(async () => (await phase(s)) === "PAUSED", `${s.label} to see the pause`);
  const left = await seconds(bob);
  assert.ok(left > 0 && left <= AUTO_START_MS / 1000, `the pause keeps what was left (${left} s)`);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await seconds(bob), left, "a paused countdown does not run");
  assert.equal(await phase(hal), "PAUSED");
  await check(hal, "en", "countdown-paused-host");
  await check(bob, "vi", "countdown-paused-phone-vi");
  await hal.page.click("#pause");
  for (const s of players) await waitFor(async () => (await phase(s)) === "COUNTDOWN", `${s.label} to see it resumed`);
  // Resumed with what it had left, the countdown starts the next game by itself (Q29).
  const timeout = left * 1000 + patienceMs();
  for (const s of players) await s.page.waitForSelector("section.game[data-kind=quoridor][data-status=active]", { timeout });
  console.log(`Q29: countdown paused with ${left} s left, resumed, the next game started by itself`);

  // Q30-Q36: the first game's points on the room's Quoridor scoreboard.
  const next = await toMove(players);
  await resign(next, players);
  await toRoom(players, code);
  // The room hears of a game's end after the game's own stream does (the game-end batch calls
  // the room), so a page opened at once may still show the first game only: wait for the second.
  await waitFor(async () => {
    const now = await scoreboard(bob, "quoridor");
    return players.every((s) => now[s.label]?.[0] === 2);
  }, "two Quoridor games on the scoreboard");
  const board = await scoreboard(bob, "quoridor");
  assert.equal(board[winner.label]?.[0], 2, "two Quoridor games played");
  assert.ok(board[winner.label][3] > 0, `the first game's winner has points (${board[winner.label][3]})`);
  console.log(`quoridor scoreboard: ${JSON.stringify(board)}`);
}

// --- a three-player knockout (Q24): the bracket with a bye, to the champion ---
async function knockout(hal, bob, cy, code) {
  const everyone = [hal, bob, cy];
  await toRoom([cy], code);
  // Between games (a running countdown stops on a settings change).
  await hal.page.selectOption("#room-mode", "3");
  await hal.page.selectOption("#room-players", "3");
  await hal.page.click("#room-save");
  await waitFor(async () => (await cy.page.locator("#take-seat").count()) === 1, "cy's seat offered");
  await cy.page.click("#take-seat");
  await ready([bob, cy]);
  await hal.page.click("#start");
  // Round 1: one match, one bye (Q24, three entrants).
  let byeName = "";
  await waitFor(async () => {
    for (const s of everyone) {
      if ((await s.page.locator("#bracket [data-bye]").count()) === 1) {
        byeName = await s.page.getAttribute("#bracket [data-bye]", "data-bye");
        return true;
      }
    }
    return false;
  }, "the bye in the bracket");
  const bye = everyone.find((s) => s.label === byeName);
  const pair = everyone.filter((s) => s !== bye);
  await inGame(pair, "quoridor");
  await check(bye, bye === bob ? "vi" : "en", `bracket-round1-${bye === bob ? "phone-vi" : "desktop"}`);
  // The first mover resigns: the other goes through.
  let loser = await toMove(pair);
  await resign(loser, pair);
  const finalist = pair.find((s) => s !== loser);
  console.log(`Q24 round 1: ${finalist.label} beat ${loser.label}, ${bye.label} had the bye`);

  // Round 2, the final, between the winner and the bye; the host starts it.
  await toRoom(everyone, code);
  await waitFor(async () => (await hal.page.locator('#bracket [data-round="2"]').count()) === 1, "round 2 in the bracket");
  await hal.page.click("#start");
  const final = [finalist, bye];
  await inGame(final, "quoridor");
  loser = await toMove(final);
  const champion = final.find((s) => s !== loser);
  await resign(loser, final);

  // Every page opened afresh reads the whole bracket from the room's log.
  await toRoom(everyone, code);
  for (const s of everyone) {
    await waitFor(
      async () => (await s.page.getAttribute("#bracket", "data-champion")) === champion.label,
      `${s.label} to see the champion`,
    );
    assert.equal(await s.page.getAttribute("#bracket", "data-rounds"), "2", "both rounds in the bracket");
  }
  const winners = await bob.page.$$eval("#bracket [data-match]", (items) => items.map((li) => li.getAttribute("data-winner")));
  assert.deepEqual(winners, [finalist.label, champion.label], "who went through, round by round");
  await check(bob, "vi", "bracket-champion-phone-vi");
  await check(hal, "en", "bracket-champion-host");
  // Q35: 3 per match won, 10 more for the champion, added to the room's Quoridor points.
  const board = await scoreboard(hal, "quoridor");
  const wins = champion === finalist ? 2 : 1;
  console.log(`Q24 final: ${champion.label} is the champion; scoreboard ${JSON.stringify(board)}`);
  return { champion: champion.label, wins, board };
}

async function main() {
  await mkdir(ARTIFACTS, { recursive: true });
  const ludus = await startLudus();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const errors = [];
  try {
    const hal = await openPage(browser, ludus.url, DESKTOP, errors, "hal");
    const bob = await openPage(browser, ludus.url, VI_PHONE, errors, "bob");
    const cy = await openPage(browser, ludus.url, DESKTOP, errors, "cy");
    // Hosting a room needs an account.
    await hal.page.fill("#username", "hal");
    await hal.page.fill("#password", "correct horse battery");
    await hal.page.fill("#display-name", "hal");
    await hal.page.click("#register");
    await hal.page.waitForSelector("#new-game");
    await signInGuest(bob, "bob");
    await signInGuest(cy, "cy");

    const code = await caroRoom(hal, bob);
    const before = await scoreboard(hal, "quoridor");
    await quoridorCountdown(hal, bob, code);
    const points = await scoreboard(hal, "quoridor");
    const { champion, wins, board } = await knockout(hal, bob, cy, code);
    const gained = (board[champion]?.[3] ?? 0) - (points[champion]?.[3] ?? 0);
    assert.equal(gained, 3 * wins + 10, `Q35: the champion's ${wins} match wins and the title`);
    assert.deepEqual(before, {}, "no Quoridor scoreboard before the switch");
    assert.ok(bob.page.viewportSize().width < 400, "bob plays on a phone");
    const overflow = await bob.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the phone's room fits its width (overflow ${overflow}px)`);
    assert.deepEqual(errors, [], "no script error on any page");
    console.log("hosts browser test passed");
  } catch (error) {
    await reportFailure(browser, "hosts-");
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
