// Keyboard play: where each arrow key leads on a board's places (regular grids and the
// backgammon board's two rows with the bar between the halves).
import { describe, expect, it } from "vitest";
import { neighbour } from "../../src/boards/keys.js";
import { normaliseRoomCode } from "../../src/room.js";

// A place as neighbour() reads it: its key, row and column attributes.
function fakePlace(key: string, row: number, column: number): Element {
  const attrs: Record<string, string> = { "data-key": key, "data-row": String(row), "data-column": String(column) };
  return { getAttribute: (name: string) => attrs[name] ?? null } as unknown as Element;
}

const grid = (size: number) => {
  const places: Element[] = [];
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) places.push(fakePlace(`${r},${c}`, r, c));
  return places;
};
const at = (places: Element[], key: string) => places.find((p) => p.getAttribute("data-key") === key) as Element;
const go = (places: Element[], from: string, key: string) => neighbour(places, at(places, from), key)?.getAttribute("data-key");

describe("neighbour", () => {
  it("moves one cell on a grid and stops at the edges", () => {
    const places = grid(3);
    expect(go(places, "1,1", "ArrowRight")).toBe("1,2");
    expect(go(places, "1,1", "ArrowLeft")).toBe("1,0");
    expect(go(places, "1,1", "ArrowUp")).toBe("0,1");
    expect(go(places, "1,1", "ArrowDown")).toBe("2,1");
    expect(go(places, "1,2", "ArrowRight")).toBeUndefined();
    expect(go(places, "0,0", "ArrowUp")).toBeUndefined();
    expect(go(places, "1,1", "Enter")).toBeUndefined();
  });

  it("keeps to the line before going beside it (backgammon: bar between the halves)", () => {
    // Top row: 13-18, the bar, 19-24; bottom row: 12-7, 6-1 (column 6 left empty).
    const places = [fakePlace("18", 0, 5), fakePlace("bar", 0, 6), fakePlace("19", 0, 7), fakePlace("7", 2, 5), fakePlace("6", 2, 7)];
    expect(go(places, "18", "ArrowRight")).toBe("bar");
    expect(go(places, "bar", "ArrowRight")).toBe("19");
    expect(go(places, "7", "ArrowRight")).toBe("6");
    expect(go(places, "19", "ArrowDown")).toBe("6");
    expect(go(places, "6", "ArrowUp")).toBe("19");
  });
});

describe("room codes", () => {
  it("are typed in any case, with or without the space or a dash", () => {
    expect(normaliseRoomCode("k7m 4qp")).toBe("K7M4QP");
    expect(normaliseRoomCode("K7M-4QP")).toBe("K7M4QP");
  });
});
