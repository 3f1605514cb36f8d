// Friend rooms: created by an account, joined by its code and by the invite link, chat,
// seats, ready and start.

import assert from "node:assert/strict";
import { checkAxe, DESKTOP, openPage, screenshotPage, waitFor } from "./lib.mjs";

// A room by its code: a host with an account creates a Caro room, a guest joins it by the
// code typed in the lobby, a spectator by the invite link; chat is seen by all; the guest sits
// down, both get ready, the host starts and both players land in the room's game.
export async function room(browser, url, errors, bob, wes) {
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
  await checkAxe(wes, "room-phone");
  await screenshotPage(wes, "room-phone");
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
