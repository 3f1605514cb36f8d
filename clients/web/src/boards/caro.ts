// Caro (rules/caro.md): a 15x15 or 19x19 grid; a click on a cell places a stone there. The
// last stone is ringed, a winning line (C7) is marked. Cells are named as C1 says: column
// letter from the left, row number from the top (H8).

import { s } from "../dom.js";
import { CaroStone, type CaroView } from "../gen/ludus/v1/caro_pb.js";
import { t } from "../i18n.js";
import type { Board, BoardInput } from "./board.js";
import { keyboardBoard, place } from "./keys.js";

const CELL = 32;
const MARGIN = 24;

export function caroCellName(column: number, row: number): string {
  return `${String.fromCharCode(65 + column)}${row + 1}`;
}

export class CaroBoard implements Board {
  draw(input: BoardInput): Element {
    const view = input.snapshot.view?.view;
    if (view?.case !== "caro") return s("svg");
    const caro: CaroView = view.value;
    const size = caro.boardSize || 15;
    const extent = MARGIN * 2 + CELL * size;
    const svg = s("svg", {
      viewBox: `0 0 ${extent} ${extent}`,
      class: "board caro",
    });
    svg.append(s("rect", { x: 0, y: 0, width: extent, height: extent, class: "caro-bg" }));
    for (let i = 0; i < size; i++) {
      const c = MARGIN + CELL * i + CELL / 2;
      svg.append(
        s("line", { x1: MARGIN + CELL / 2, y1: c, x2: extent - MARGIN - CELL / 2, y2: c, class: "grid" }),
        s("line", { x1: c, y1: MARGIN + CELL / 2, x2: c, y2: extent - MARGIN - CELL / 2, class: "grid" }),
        s("text", { x: c, y: MARGIN - 8, class: "coord" }, String.fromCharCode(65 + i)),
        s("text", { x: MARGIN - 12, y: c + 4, class: "coord" }, String(i + 1)),
      );
    }
    const last = caro.moves[caro.moves.length - 1];
    const winning = new Set(caro.winningLine.map((c) => `${c.column},${c.row}`));
    for (let row = 0; row < size; row++) {
      for (let column = 0; column < size; column++) {
        const stone = caro.cells[row * size + column] ?? CaroStone.EMPTY;
        const x = MARGIN + CELL * column;
        const y = MARGIN + CELL * row;
        const name = caroCellName(column, row);
        const play = () => {
          if (input.mySeat === undefined) return;
          // Every click goes to the server, occupied cells included: its refusal (C3, C2)
          // is what the player sees.
          input.submit({ action: { case: "caro", value: { place: { column, row } } } });
        };
        const content = stone === CaroStone.X ? t("caro.x") : stone === CaroStone.O ? t("caro.o") : t("caro.empty");
        const marks =
          (winning.has(`${column},${row}`) ? t("caro.winning") : "") +
          (last && last.column === column && last.row === row ? t("caro.last") : "");
        const cell = s("g", {
          class: `cell${input.myTurn && stone === CaroStone.EMPTY ? " playable" : ""}`,
          "data-cell": name,
          onclick: play,
        });
        place(cell, { key: name, row, column, label: t("caro.cell", { cell: name, content }) + marks, activate: play });
        cell.append(s("rect", { x, y, width: CELL, height: CELL, class: "hit" }));
        const cx = x + CELL / 2;
        const cy = y + CELL / 2;
        if (winning.has(`${column},${row}`)) {
          cell.append(s("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, class: "win" }));
        }
        if (last && last.column === column && last.row === row) {
          cell.append(s("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: "last" }));
        }
        if (stone === CaroStone.X) {
          const d = CELL * 0.3;
          cell.append(
            s("path", { d: `M${cx - d},${cy - d}L${cx + d},${cy + d}M${cx + d},${cy - d}L${cx - d},${cy + d}`, class: "stone-x" }),
          );
        } else if (stone === CaroStone.O) {
          cell.append(s("circle", { cx, cy, r: CELL * 0.32, class: "stone-o" }));
        }
        svg.append(cell);
      }
    }
    return keyboardBoard(svg, "caro", t("caro.board", { size }));
  }
}
