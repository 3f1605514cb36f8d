// The pages beyond the lobby, games and rooms: `#/account` (profile, history, leaderboards,
// or a guest's upgrade) and `#/replay/<game id>` (an archived game move by move).

import { AccountPage } from "./account.js";
import { ReplayPage } from "./replay.js";

export function featurePage(root: HTMLElement, hash: string): AccountPage | ReplayPage | undefined {
  if (/^#\/account(#.*)?$/.test(hash)) return new AccountPage(root);
  const replay = /^#\/replay\/([^/]+)$/.exec(hash);
  if (replay) return new ReplayPage(root, decodeURIComponent(replay[1]));
  return undefined;
}
