// Keyboard play on every board: the board is one tab stop (a roving tabindex), the arrow keys
// move between its places, Enter or Space acts as a click on the focused one, and each place
// has the name a screen reader reads, in the game's own notation (H8, e5, point 13, pit 4, c6).
//
// Boards are redrawn from scratch after every event: the place that had the focus is found
// again by its key and focused once the new board is in the page, so playing by keys does not
// lose its spot when the opponent moves.

import { t } from "../i18n.js";

export interface Place {
  // Unique within the board, kept across redraws (the place's name in the game's notation).
  key: string;
  // Position for the arrow keys: rows from the top, columns from the left, as drawn.
  row: number;
  column: number;
  label: string;
  activate: () => void;
}

// The key of the focused place of each kind of board, and whether the board had the focus.
const remembered = new Map<string, { key: string; focused: boolean }>();

/** Makes `node` a place of the board: named, reachable by keys, activated by Enter/Space. */
export function place(node: Element, p: Place): Element {
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", p.label);
  node.setAttribute("tabindex", "-1");
  node.setAttribute("data-key", p.key);
  node.setAttribute("data-row", String(p.row));
  node.setAttribute("data-column", String(p.column));
  node.addEventListener("keydown", (event) => {
    const key = (event as KeyboardEvent).key;
    if (key === "Enter" || key === " ") {
      event.preventDefault();
      p.activate();
    }
  });
  return node;
}

function coordinates(node: Element): [number, number] {
  return [Number(node.getAttribute("data-row")), Number(node.getAttribute("data-column"))];
}

// The place the arrow `key` leads to from `from`: the nearest one in that direction, the
// straight line first (same row or column), then the closest beside it.
export function neighbour(places: Element[], from: Element, key: string): Element | undefined {
  const [row, column] = coordinates(from);
  let best: Element | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const other of places) {
    if (other === from) continue;
    const [r, c] = coordinates(other);
    const ahead = { ArrowRight: c - column, ArrowLeft: column - c, ArrowDown: r - row, ArrowUp: row - r }[key];
    if (ahead === undefined || ahead <= 0) continue;
    const aside = key === "ArrowRight" || key === "ArrowLeft" ? Math.abs(r - row) : Math.abs(c - column);
    const score = aside * 1000 + ahead;
    if (score < bestScore) {
      bestScore = score;
      best = other;
    }
  }
  return best;
}

/**
 * Wires the places inside `board` (an SVG or a container): one of them is the tab stop, the
 * arrow keys move the focus, Home/End go to the first and last. `kind` names the board for
 * remembering the focused place across redraws.
 */
export function keyboardBoard(board: Element, kind: string, label: string): Element {
  board.setAttribute("role", "group");
  board.setAttribute("aria-label", label);
  board.setAttribute("aria-description", t("board.keysHint"));
  const places = [...board.querySelectorAll("[data-key]")];
  if (places.length === 0) return board;
  // The label says all (the seeds, the point's number, the piece): the figures drawn inside a
  // place move out beside it (same coordinates, clicks pass through to the place), so that
  // its name is its label alone and nothing is read twice.
  for (const p of places) {
    let after: Element = p;
    for (const text of [...p.querySelectorAll("text")]) {
      text.setAttribute("aria-hidden", "true");
      text.setAttribute("pointer-events", "none");
      after.after(text);
      after = text;
    }
  }
  const memory = remembered.get(kind);
  const current = places.find((p) => p.getAttribute("data-key") === memory?.key) ?? places[0];
  current.setAttribute("tabindex", "0");
  board.addEventListener("focusin", (event) => {
    const target = event.target as Element;
    const key = target.getAttribute?.("data-key");
    if (!key) return;
    for (const p of places) p.setAttribute("tabindex", p === target ? "0" : "-1");
    remembered.set(kind, { key, focused: true });
  });
  board.addEventListener("focusout", (event) => {
    const next = (event as FocusEvent).relatedTarget as Node | null;
    // Focus moving elsewhere on the page (not the board being redrawn, which leaves null).
    const memo = remembered.get(kind);
    if (next && !board.contains(next) && memo) memo.focused = false;
  });
  board.addEventListener("keydown", (event) => {
    const e = event as KeyboardEvent;
    const from = (e.target as Element).closest?.("[data-key]");
    if (!from) return;
    let to: Element | undefined;
    if (e.key === "Home") to = places[0];
    else if (e.key === "End") to = places[places.length - 1];
    else to = neighbour(places, from, e.key);
    if (e.key.startsWith("Arrow") || e.key === "Home" || e.key === "End") e.preventDefault();
    (to as HTMLElement | SVGElement | undefined)?.focus();
  });
  if (memory?.focused) {
    // The board is put into the page right after it is drawn.
    queueMicrotask(() => {
      if (current.isConnected) (current as SVGElement).focus();
    });
  }
  return board;
}
