// `npm run bundle`: bundles src/main.ts with esbuild into dist/app.js and copies the page and
// its stylesheet next to it. dist/ is what `ludus serve` hands out (--web-dir).
import { build } from "esbuild";
import { copyFile, mkdir, rm } from "node:fs/promises";

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
await copyFile(new URL("./index.html", import.meta.url), new URL("index.html", dist));
await copyFile(new URL("./src/style.css", import.meta.url), new URL("style.css", dist));
console.log("built clients/web/dist");
