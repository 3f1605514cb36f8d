// Quoridor (rules/quoridor.md): files a.. from the left, ranks 1.. from the bottom. In "move"
// mode a click on a cell moves your pawn there (the server's legal steps and jumps are
// marked); in a wall mode a click on a cell places a wall whose lower-left cell it is
// (horizontal: above the cell and its right neighbour; vertical: right of the cell and the
// one above). The last move or wall is highlighted.

import { h, s } from "../dom.js";
import { QuoridorColour, QuoridorOrientation, type QuoridorView } from "../gen/ludus/v1/quoridor_pb.js";
import { t } from "../i18n.js";
import type { Board, BoardInput } from "./board.js";
import { keyboardBoard, place } from "./keys.js";

const C = 40;
const G = 10;
const M = 24;

const COLOURS: Record<number, string> = {
  [QuoridorColour.RED]: "#d33",
  [QuoridorColour.YELLOW]: "#e6b800",
  [QuoridorColour.BLUE]: "#2a6fdb",
  [QuoridorColour.GREEN]: "#2a9d4b",
  [QuoridorColour.PURPLE]: "#8a4fd0",
  [QuoridorColour.ORANGE]: "#f07f1a",
  [QuoridorColour.CYAN]: "#19b5c4",
  [QuoridorColour.PINK]: "#e463a8",
};

export function quoridorCellName(file: number, rank: number): string {
  return `${String.fromCharCode(97 + file)}${rank + 1}`;
}

type Mode = "move" | "wall-h" | "wall-v";

export class QuoridorBoard implements Board {
  private mode: Mode = "move";

  draw(input: BoardInput): Element {
    const view = input.snapshot.view?.view;
    if (view?.case !== "quoridor") return s("svg");
    const q: QuoridorView = view.value;
    const n = q.size || 9;
    const extent = 2 * M + n * C + (n - 1) * G;
    const x = (file: number) => M + file * (C + G);
    const y = (rank: number) => M + (n - 1 - rank) * (C + G);
    const svg = s("svg", { viewBox: `0 0 ${extent} ${extent}`, class: "board quoridor" });
    svg.append(s("rect", { x: 0, y: 0, width: extent, height: extent, class: "quoridor-bg" }));

    const targets = new Set<string>();
    for (const legal of input.legal) {
      const a = legal.action?.action;
      if (a?.case === "quoridor" && a.value.kind.case === "move") {
        targets.add(`${a.value.kind.value.file},${a.value.kind.value.rank}`);
      }
    }
    const last = q.lastAction?.action?.kind;
    const lastFrom = q.lastAction?.from;

    // What a screen reader says of each cell: whose pawn stands there, the walls it anchors.
    const pawnAt = new Map<string, string>();
    for (const pawn of q.pawns) {
      if (!pawn.cell || !pawn.inGame) continue;
      const who = pawn.seats.map((seat) => input.snapshot.seats[seat]?.displayName ?? String(seat)).join(" & ");
      pawnAt.set(`${pawn.cell.file},${pawn.cell.rank}`, who);
    }
    const wallAt = new Map<string, string>();
    for (const placed of q.walls) {
      const wall = placed.wall;
      if (!wall?.cell) continue;
      const key = `${wall.cell.file},${wall.cell.rank}`;
      const mark = wall.orientation === QuoridorOrientation.HORIZONTAL ? t("quoridor.wallH") : t("quoridor.wallV");
      wallAt.set(key, (wallAt.get(key) ?? "") + mark);
    }
    for (let rank = 0; rank < n; rank++) {
      for (let file = 0; file < n; file++) {
        const classes = ["square"];
        if (this.mode === "move" && targets.has(`${file},${rank}`)) classes.push("target");
        if (last?.case === "move" && last.value.file === file && last.value.rank === rank) classes.push("last");
        if (lastFrom && lastFrom.file === file && lastFrom.rank === rank && last?.case === "move") classes.push("last-from");
        const name = quoridorCellName(file, rank);
        const key = `${file},${rank}`;
        const pawn = pawnAt.get(key);
        let label = t("quoridor.cell", { cell: name });
        if (this.mode === "wall-h") label = t("quoridor.placeWallH", { cell: name });
        else if (this.mode === "wall-v") label = t("quoridor.placeWallV", { cell: name });
        else if (targets.has(key)) label += t("quoridor.reachable");
        if (pawn !== undefined) label += t("quoridor.pawn", { who: pawn });
        label += wallAt.get(key) ?? "";
        const cell = s("rect", {
          x: x(file),
          y: y(rank),
          width: C,
          height: C,
          rx: 4,
          class: classes.join(" "),
          "data-cell": name,
          onclick: () => this.click(input, file, rank),
        });
        place(cell, { key: name, row: n - 1 - rank, column: file, label, activate: () => this.click(input, file, rank) });
        svg.append(cell);
      }
    }
    for (let file = 0; file < n; file++) {
      svg.append(s("text", { x: x(file) + C / 2, y: extent - 6, class: "coord" }, String.fromCharCode(97 + file)));
    }
    for (let rank = 0; rank < n; rank++) {
      svg.append(s("text", { x: 10, y: y(rank) + C / 2 + 4, class: "coord" }, String(rank + 1)));
    }
    for (const placed of q.walls) {
      const wall = placed.wall;
      if (!wall?.cell) continue;
      const isLast =
        last?.case === "wall" &&
        last.value.cell?.file === wall.cell.file &&
        last.value.cell?.rank === wall.cell.rank &&
        last.value.orientation === wall.orientation;
      const { file, rank } = wall.cell;
      const cls = `wall${isLast ? " last-wall" : ""}`;
      if (wall.orientation === QuoridorOrientation.HORIZONTAL) {
        svg.append(s("rect", { x: x(file), y: y(rank) - G, width: 2 * C + G, height: G, rx: 2, class: cls }));
      } else {
        svg.append(s("rect", { x: x(file) + C, y: y(rank + 1), width: G, height: 2 * C + G, rx: 2, class: cls }));
      }
    }
    for (const pawn of q.pawns) {
      if (!pawn.cell || !pawn.inGame) continue;
      const toMove = q.sideToMove === pawn.side;
      svg.append(
        s("circle", {
          cx: x(pawn.cell.file) + C / 2,
          cy: y(pawn.cell.rank) + C / 2,
          r: C * 0.34,
          fill: COLOURS[pawn.colour] ?? "#555",
          class: `pawn${toMove ? " to-move" : ""}`,
          "pointer-events": "none",
        }),
      );
    }

    const controls = h("div", { class: "controls" });
    const modes: [Mode, string][] = [
      ["move", t("quoridor.movePawn")],
      ["wall-h", t("quoridor.wallHButton")],
      ["wall-v", t("quoridor.wallVButton")],
    ];
    for (const [mode, label] of modes) {
      controls.append(
        h(
          "button",
          {
            class: mode === this.mode ? "selected" : undefined,
            "aria-pressed": mode === this.mode ? "true" : "false",
            "data-mode": mode,
            onclick: () => {
              this.mode = mode;
              input.redraw();
            },
          },
          label,
        ),
      );
    }
    for (const legal of input.legal) {
      const a = legal.action?.action;
      if (a?.case === "quoridor" && a.value.kind.case === "pass") {
        controls.append(h("button", { onclick: () => legal.action && input.submit(legal.action) }, t("quoridor.pass")));
      }
    }
    const walls = q.pawns
      .map((p) =>
        t("quoridor.wallsLeft", {
          who: p.seats.map((seat) => input.snapshot.seats[seat]?.displayName ?? seat).join(" & "),
          n: p.wallsLeft,
        }),
      )
      .join(" · ");
    const board = keyboardBoard(svg, "quoridor", t("quoridor.board", { size: n }));
    return h("div", { class: "board-wrap" }, board, input.mySeat !== undefined ? controls : null, h("p", { class: "small" }, walls));
  }

  private click(input: BoardInput, file: number, rank: number): void {
    if (input.mySeat === undefined) return;
    if (this.mode === "move") {
      input.submit({ action: { case: "quoridor", value: { kind: { case: "move", value: { file, rank } } } } });
      return;
    }
    // A wall's lower-left cell is at most N-2 in both directions; the server says so too.
    const orientation = this.mode === "wall-h" ? QuoridorOrientation.HORIZONTAL : QuoridorOrientation.VERTICAL;
    input.submit({
      action: { case: "quoridor", value: { kind: { case: "wall", value: { cell: { file, rank }, orientation } } } },
    });
  }
}
