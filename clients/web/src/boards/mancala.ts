// Mancala (rules/mancala.md, Kalah and Congklak): the viewer's pits along the bottom, pit 1
// at the left, their store at the right; the opponent's pits along the top, right to left.
// A click on one of your pits sows it (M1 numbering). The pit last sown and the pit its last
// seed reached are highlighted.

import { h, s } from "../dom.js";
import type { MancalaView } from "../gen/ludus/v1/mancala_pb.js";
import { t } from "../i18n.js";
import type { Board, BoardInput } from "./board.js";
import { keyboardBoard, place } from "./keys.js";

const PIT = 64;
const GAP = 8;

export class MancalaBoard implements Board {
  draw(input: BoardInput): Element {
    const view = input.snapshot.view?.view;
    if (view?.case !== "mancala") return s("svg");
    const m: MancalaView = view.value;
    const bottom = input.mySeat ?? m.viewerSeat ?? 0;
    const top = 1 - bottom;
    const n = m.sides[bottom]?.pits.length ?? 6;
    const width = (n + 2) * (PIT + GAP) + GAP;
    const height = 2 * (PIT + GAP) + GAP + 40;
    const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "board mancala" });
    svg.append(s("rect", { x: 0, y: 0, width, height, rx: 18, class: "mancala-bg" }));
    const sown = m.lastSow ? { seat: m.lastSow.seat, pit: m.lastSow.pit } : undefined;
    const lastSpot = m.lastSow?.lastSeed?.spot;

    const pit = (seat: number, index: number, x: number, y: number) => {
      const seeds = m.sides[seat]?.pits[index - 1] ?? 0;
      const mine = input.myTurn && seat === input.mySeat;
      const legal = mine && m.legalPits.includes(index);
      const sow = () => {
        if (input.mySeat === undefined || seat !== input.mySeat) return;
        input.submit({ action: { case: "mancala", value: { pit: index } } });
      };
      const g = s("g", {
        class: `pit${legal ? " playable" : ""}`,
        "data-pit": `${seat}-${index}`,
        onclick: sow,
      });
      // Pits as M1 numbers them; the viewer's row is the lower one, read left to right.
      const owner = seat === bottom ? t("mancala.yours") : t("mancala.theirs");
      place(g, {
        key: `${seat}-${index}`,
        row: seat === bottom ? 1 : 0,
        column: seat === bottom ? index : n + 1 - index,
        label: t("mancala.pit", { owner, pit: index, seeds }),
        activate: sow,
      });
      const classes = ["hole"];
      if (sown && sown.seat === seat && sown.pit === index) classes.push("last-from");
      if (lastSpot && lastSpot.seat === seat && lastSpot.pit === index) classes.push("last");
      g.append(
        s("ellipse", { cx: x + PIT / 2, cy: y + PIT / 2, rx: PIT / 2 - 2, ry: PIT / 2 - 2, class: classes.join(" ") }),
        s("text", { x: x + PIT / 2, y: y + PIT / 2 + 7, class: "seeds" }, String(seeds)),
        s("text", { x: x + PIT / 2, y: seat === bottom ? y + PIT + 16 : y - 4, class: "coord" }, String(index)),
      );
      return g;
    };
    const rowTop = GAP + 20;
    const rowBottom = rowTop + PIT + GAP;
    for (let i = 1; i <= n; i++) {
      svg.append(pit(bottom, i, (PIT + GAP) * i + GAP, rowBottom));
      svg.append(pit(top, i, (PIT + GAP) * (n + 1 - i) + GAP, rowTop));
    }
    const store = (seat: number, x: number) => {
      const classes = ["hole", "store"];
      if (lastSpot && lastSpot.seat === seat && lastSpot.pit === 0) classes.push("last");
      const owner = seat === bottom ? t("mancala.yours") : t("mancala.theirs");
      return s(
        "g",
        { "data-store": seat, role: "img", "aria-label": t("mancala.store", { owner, seeds: m.sides[seat]?.store ?? 0 }) },
        s("rect", { x, y: rowTop, width: PIT, height: 2 * PIT + GAP, rx: PIT / 2, class: classes.join(" ") }),
        s("text", { x: x + PIT / 2, y: rowTop + PIT + 8, class: "seeds" }, String(m.sides[seat]?.store ?? 0)),
      );
    };
    svg.append(store(bottom, (PIT + GAP) * (n + 1) + GAP), store(top, GAP));
    return h("div", { class: "board-wrap" }, keyboardBoard(svg, "mancala", t("mancala.board")));
  }
}
