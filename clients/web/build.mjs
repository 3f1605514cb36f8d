// `npm run bundle`: bundles src/main.ts with esbuild into dist/app.js (and the computer's
// worker, src/bot-worker.ts, into dist/bot-worker.js) and copies the page and
// its stylesheet next to it. dist/ is what `ludus serve` hands out (--web-dir).

import { copyFile, cp, mkdir, rm, stat } from "node:fs/promises";
import { build } from "esbuild";

const dist = new URL("./dist/", import.meta.url);
await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: true,
  outfile: "dist/app.js",
  logLevel: "warning",
});
// The computer player's Web Worker (offline games against the computer).
await build({
  entryPoints: ["src/bot-worker.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: true,
  outfile: "dist/bot-worker.js",
  logLevel: "warning",
});
await copyFile(new URL("./index.html", import.meta.url), new URL("index.html", dist));
await copyFile(new URL("./src/style.css", import.meta.url), new URL("style.css", dist));
await copyFile(new URL("./src/sw.js", import.meta.url), new URL("sw.js", dist));
// Offline games, when `npm run build:offline` has made them.
const offline = new URL("./offline-pkg/", import.meta.url);
if (
  await stat(offline).then(
    () => true,
    () => false,
  )
) {
  await cp(offline, new URL("offline/", dist), { recursive: true });
  console.log("built clients/web/dist (with offline games)");
} else {
  console.log("built clients/web/dist (no offline games: npm run build:offline makes them)");
}
