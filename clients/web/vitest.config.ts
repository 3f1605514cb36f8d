// Unit tests of the pages' logic (test/unit), in Node: no browser, no server.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts"],
    environment: "node",
  },
});
