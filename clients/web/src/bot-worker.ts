// The computer player's Web Worker: the game crates' bots (clients/offline's `think`) search
// here, off the page's thread, so the board stays responsive while they think. The deadline
// is the page's clock: `Date.now()` plus the level's thinking time, polled by the search
// through the budget's `out_of_time` (the rules crates have no clock of their own).

import type { WorkerReply, WorkerRequest } from "./local.js";

interface BotModule {
  default: () => Promise<{ memory: WebAssembly.Memory }>;
  think(kind: string, position: string, level: string, random: Uint32Array, deadlineMs: number): string;
  prepare(kind: string, level: string): string;
}

let module: Promise<{ bots: BotModule; memory: WebAssembly.Memory }> | undefined;

function load(): Promise<{ bots: BotModule; memory: WebAssembly.Memory }> {
  module ??= (async () => {
    const bots = (await import(new URL("offline/ludus_offline.js", self.location.href).href)) as BotModule;
    const exports = await bots.default();
    return { bots, memory: exports.memory };
  })();
  return module;
}

// One request at a time, in order: a think waits for the prepare before it.
let queue: Promise<void> = Promise.resolve();

self.onmessage = (event: MessageEvent<WorkerRequest & { id: number }>) => {
  const request = event.data;
  queue = queue.then(async () => {
    let reply: WorkerReply;
    try {
      const { bots, memory } = await load();
      if (request.type === "prepare") {
        const started = performance.now();
        const db = JSON.parse(bots.prepare(request.kind, request.level)) as { seeds?: number; positions?: number; bytes?: number };
        reply = { id: request.id, prepared: { ...db, ms: Math.round(performance.now() - started), wasmBytes: memory.buffer.byteLength } };
      } else {
        const random = crypto.getRandomValues(new Uint32Array(64));
        const deadline = Date.now() + (request.thinkMs ?? 2000);
        reply = { id: request.id, notation: bots.think(request.kind, request.position ?? "", request.level, random, deadline) };
      }
    } catch (error) {
      reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    (self as unknown as Worker).postMessage(reply);
  });
};
