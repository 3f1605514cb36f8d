// `npm run build:offline`: the games' rules as WebAssembly for offline play (two players on
// one device). Needs cargo with the wasm32-unknown-unknown target and wasm-bindgen-cli
// 0.2.130 (`cargo install wasm-bindgen-cli --version 0.2.130`); writes offline-pkg/, which
// `npm run bundle` copies into dist/offline/. Without it the client simply offers no offline
// games.
import { execFileSync } from "node:child_process";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const target = process.env.CARGO_TARGET_DIR
  ? isAbsolute(process.env.CARGO_TARGET_DIR)
    ? process.env.CARGO_TARGET_DIR
    : join(root, process.env.CARGO_TARGET_DIR)
  : join(root, "target");
const run = (command, args) => execFileSync(command, args, { stdio: "inherit", cwd: root });
run("cargo", ["build", "--locked", "--release", "--target", "wasm32-unknown-unknown", "-p", "ludus-offline"]);
run("wasm-bindgen", [
  "--target",
  "web",
  "--no-typescript",
  "--out-dir",
  fileURLToPath(new URL("./offline-pkg/", import.meta.url)),
  join(target, "wasm32-unknown-unknown", "release", "ludus_offline.wasm"),
]);
console.log("built clients/web/offline-pkg");
