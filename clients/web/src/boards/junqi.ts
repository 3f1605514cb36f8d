// Flip Junqi (rules/junqi.md): 5 columns x 12 rows, row 0 at the top; points are named as J2
// says (column a-e, rank 1-12 from the bottom, e.g. c6). A click on a face-down piece flips
// it (J7); a click on a face-up piece selects it, and a click on another point moves it
// there (J9-J15; the server's legal targets are marked). The last action is highlighted.

import { h, s } from "../dom.js";
import { JunqiColour, JunqiPointState, JunqiRank, type JunqiView } from "../gen/ludus/v1/junqi_pb.js";
import { type MessageKey, t } from "../i18n.js";
import type { Board, BoardInput } from "./board.js";
import { keyboardBoard, place } from "./keys.js";

const W = 64;
const H = 44;
const M = 28;
const FRONT = 36;

// Each rank's name (for screen readers) and the short label drawn on the piece, as JoyPip
// writes them (Tư lệnh "TL"…).
const RANK_KEY: Record<number, string> = {
  [JunqiRank.COMMANDER]: "commander",
  [JunqiRank.CORPS_COMMANDER]: "corps",
  [JunqiRank.DIVISION]: "division",
  [JunqiRank.BRIGADE]: "brigade",
  [JunqiRank.REGIMENT]: "regiment",
  [JunqiRank.BATTALION]: "battalion",
  [JunqiRank.COMPANY]: "company",
  [JunqiRank.PLATOON]: "platoon",
  [JunqiRank.ENGINEER]: "engineer",
  [JunqiRank.MINE]: "mine",
  [JunqiRank.BOMB]: "bomb",
  [JunqiRank.FLAG]: "flag",
};

function rankText(rank: JunqiRank, form: "rank" | "short"): string {
  const key = RANK_KEY[rank];
  return key ? t(`junqi.${form}.${key}` as MessageKey) : "?";
}

const CAMPS = new Set(["2,1", "2,3", "3,2", "4,1", "4,3", "7,1", "7,3", "8,2", "9,1", "9,3"]);
const HEADQUARTERS = new Set(["0,1", "0,3", "11,1", "11,3"]);

export function junqiPointName(row: number, column: number): string {
  return `${String.fromCharCode(97 + column)}${12 - row}`;
}

export class JunqiBoard implements Board {
  private selected: string | undefined;

  draw(input: BoardInput): Element {
    const view = input.snapshot.view?.view;
    if (view?.case !== "junqi") return s("svg");
    const j: JunqiView = view.value;
    const width = 2 * M + 4 * W;
    const height = 2 * M + 11 * H + FRONT;
    const px = (column: number) => M + column * W;
    const py = (row: number) => M + row * H + (row >= 6 ? FRONT : 0);
    const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "board junqi" });
    svg.append(s("rect", { x: 0, y: 0, width, height, class: "junqi-bg" }));

    // Roads (thin) and railways (thick, J5).
    for (let row = 0; row < 12; row++) {
      const rail = row === 1 || row === 5 || row === 6 || row === 10;
      svg.append(s("line", { x1: px(0), y1: py(row), x2: px(4), y2: py(row), class: rail ? "rail" : "road" }));
    }
    for (let column = 0; column < 5; column++) {
      const rail = column === 0 || column === 4;
      for (const [from, to] of [
        [0, 5],
        [6, 11],
      ] as const) {
        svg.append(s("line", { x1: px(column), y1: py(from), x2: px(column), y2: py(to), class: "road" }));
      }
      if (rail) svg.append(s("line", { x1: px(column), y1: py(1), x2: px(column), y2: py(10), class: "rail" }));
      if (column % 2 === 0)
        svg.append(s("line", { x1: px(column), y1: py(5), x2: px(column), y2: py(6), class: column === 2 ? "rail" : "road" }));
    }

    const targets = new Set<string>();
    for (const legal of input.legal) {
      const a = legal.action?.action;
      if (a?.case === "junqi" && a.value.kind.case === "move" && a.value.kind.value.from === this.selected) {
        targets.add(a.value.kind.value.to);
      }
    }
    const lastKind = j.lastAction?.action?.kind;
    const lastPoints = new Set<string>();
    if (lastKind?.case === "flip") lastPoints.add(lastKind.value.point);
    if (lastKind?.case === "move") lastPoints.add(lastKind.value.from).add(lastKind.value.to);

    for (let row = 0; row < 12; row++) {
      for (let column = 0; column < 5; column++) {
        const name = junqiPointName(row, column);
        const point = j.points[row * 5 + column];
        const key = `${row},${column}`;
        const activate = () => this.click(input, name, point?.state);
        const g = s("g", { "data-point": name, onclick: activate });
        const cx = px(column);
        const cy = py(row);
        if (CAMPS.has(key)) g.append(s("circle", { cx, cy, r: 19, class: "camp" }));
        else if (HEADQUARTERS.has(key)) g.append(s("rect", { x: cx - 22, y: cy - 15, width: 44, height: 30, rx: 12, class: "camp" }));
        g.append(s("rect", { x: cx - W / 2, y: cy - H / 2, width: W, height: H, class: "hit" }));
        if (lastPoints.has(name)) g.append(s("rect", { x: cx - 27, y: cy - 17, width: 54, height: 34, rx: 6, class: "last" }));
        if (targets.has(name)) g.append(s("circle", { cx, cy, r: 7, class: "target-dot" }));
        if (point?.state === JunqiPointState.FACE_DOWN) {
          g.append(s("rect", { x: cx - 24, y: cy - 14, width: 48, height: 28, rx: 5, class: "piece face-down" }));
        } else if (point?.state === JunqiPointState.FACE_UP && point.piece) {
          const colour = point.piece.colour === JunqiColour.RED ? "red" : "blue";
          const selected = this.selected === name ? " selected" : "";
          g.append(
            s("rect", { x: cx - 24, y: cy - 14, width: 48, height: 28, rx: 5, class: `piece ${colour}${selected}` }),
            s("text", { x: cx, y: cy + 5, class: "piece-label" }, rankText(point.piece.rank, "short")),
          );
        }
        // The point's name (J2) and what stands on it, for a screen reader.
        let content = t("junqi.emptyPoint");
        if (point?.state === JunqiPointState.FACE_DOWN) content = t("junqi.faceDown");
        else if (point?.state === JunqiPointState.FACE_UP && point.piece) {
          content = t("junqi.piece", { colour: colourName(point.piece.colour), rank: rankText(point.piece.rank, "rank") });
        }
        let label = t("junqi.point", { point: name, content });
        if (CAMPS.has(key)) label += t("junqi.camp");
        else if (HEADQUARTERS.has(key)) label += t("junqi.headquarters");
        if (this.selected === name) label += t("junqi.selected");
        if (targets.has(name)) label += t("junqi.target");
        place(g, { key: name, row, column, label, activate });
        svg.append(g);
      }
    }
    const colours = j.seatColours.map((c, seat) => `${input.snapshot.seats[seat]?.displayName ?? seat}: ${colourName(c)}`);
    return h(
      "div",
      { class: "board-wrap" },
      keyboardBoard(svg, "junqi", t("junqi.board")),
      h("p", { class: "small" }, colours.join(" · "), t("junqi.quiet", { n: j.quietActions, limit: j.drawLimit })),
    );
  }

  private click(input: BoardInput, name: string, state: JunqiPointState | undefined): void {
    if (input.mySeat === undefined) return;
    if (this.selected === name) {
      this.selected = undefined;
      input.redraw();
      return;
    }
    if (this.selected !== undefined && state !== JunqiPointState.FACE_DOWN) {
      const from = this.selected;
      this.selected = undefined;
      if (state === JunqiPointState.FACE_UP && !this.isTarget(input, from, name) && this.movesFrom(input, name)) {
        this.selected = name;
        input.redraw();
        return;
      }
      input.submit({ action: { case: "junqi", value: { kind: { case: "move", value: { from, to: name } } } } });
      return;
    }
    if (state === JunqiPointState.FACE_DOWN) {
      this.selected = undefined;
      input.submit({ action: { case: "junqi", value: { kind: { case: "flip", value: { point: name } } } } });
      return;
    }
    if (state === JunqiPointState.FACE_UP) {
      this.selected = name;
      input.redraw();
    }
  }

  private isTarget(input: BoardInput, from: string, to: string): boolean {
    return input.legal.some((l) => {
      const a = l.action?.action;
      return a?.case === "junqi" && a.value.kind.case === "move" && a.value.kind.value.from === from && a.value.kind.value.to === to;
    });
  }

  private movesFrom(input: BoardInput, from: string): boolean {
    return input.legal.some((l) => {
      const a = l.action?.action;
      return a?.case === "junqi" && a.value.kind.case === "move" && a.value.kind.value.from === from;
    });
  }
}

function colourName(colour: JunqiColour): string {
  if (colour === JunqiColour.RED) return t("junqi.red");
  if (colour === JunqiColour.BLUE) return t("junqi.blue");
  return t("junqi.unsettled");
}
