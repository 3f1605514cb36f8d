// The web client in a real browser, feature by feature: starts the all-in-one `ludus`
// (in-memory store) serving the built client, opens headless Chromium sessions (two players
// on a desktop and a phone-sized viewport, a spectator on a phone) and runs
//   play.mjs     quick matches of every game, Caro to a win watched by a spectator who drops
//                its connection and resumes, every board played by clicks;
//   rooms.mjs    a room joined by its code and its invite link, chat, seats, the start;
//   a11y.mjs     a Vietnamese player on a phone with the keyboard only: every page in
//                Vietnamese only, a Caro game online and every game on the device by keys;
//   offline.mjs  every game for two people on the device (and with no network), and against
//                the computer.
// Every page visited is checked with axe-core at phone and desktop sizes (no serious or
// critical violation) and screenshots land in artifacts/.
//
// Usage: node test/browser.mjs [feature…]   (after `npm run build`; LUDUS_BIN names the
// binary, CHROMIUM the browser; defaults: ../../target/debug/ludus and /usr/bin/chromium;
// features: play rooms a11y offline, all by default)

import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { chromium } from "playwright-core";
import { vietnameseKeyboard } from "./a11y.mjs";
import {
  ARTIFACTS,
  axeReport,
  CHROMIUM,
  checkAxe,
  DESKTOP,
  FLAGS,
  openPage,
  PHONE,
  reportFailure,
  screenshotPage,
  signIn,
  startLudus,
  startRelay,
} from "./lib.mjs";
import { computer, offline } from "./offline.mjs";
import { backgammon, caroToAWin, junqi, mancala, quoridor } from "./play.mjs";
import { room } from "./rooms.mjs";

const FEATURES = ["play", "rooms", "a11y", "offline"];

async function main() {
  const chosen = process.argv.slice(2);
  for (const f of chosen) assert.ok(FEATURES.includes(f), `unknown feature ${f} (one of ${FEATURES.join(", ")})`);
  const runs = (feature) => chosen.length === 0 || chosen.includes(feature);
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
    await ann.page.waitForSelector("#sign-in");
    await checkAxe(ann, "sign-in (en)");
    await screenshotPage(ann, "sign-in-desktop");
    await signIn(ann, "ann");
    await signIn(bob, "bob");
    await signIn(wes, "wes");
    await checkAxe(bob, "lobby (en)");
    await screenshotPage(bob, "lobby-phone-signed-in");
    if (runs("play")) {
      await caroToAWin(ann, bob, wes, relay);
      await mancala(ann, bob);
      await quoridor(ann, bob);
      await junqi(ann, bob);
      await backgammon(ann, bob);
    }
    if (runs("rooms")) await room(browser, ludus.url, errors, bob, wes);
    if (runs("a11y")) await vietnameseKeyboard(browser, ludus.url, errors, ann);
    if (runs("offline")) {
      await offline(wes, ludus.url);
      await computer(wes, ludus.url);
    }
    // A narrow page never scrolls sideways.
    const overflow = await bob.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the phone layout fits its width (overflow ${overflow}px)`);
    await bob.page.screenshot({ path: `${ARTIFACTS}/last-phone-player.png`, fullPage: true });
    assert.deepEqual(errors, [], "no script error on any page");
    const pages = new Set(axeReport.map((r) => r.name)).size;
    const minor = axeReport.reduce((n, r) => n + r.violations, 0);
    console.log(`axe: ${axeReport.length} checks on ${pages} pages (phone and desktop), 0 serious or critical, ${minor} moderate or minor`);
    console.log(`browser test passed (${chosen.length ? chosen.join(", ") : "every feature"})`);
  } catch (error) {
    await reportFailure(browser, "");
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
