// Backgammon (rules/backgammon.md), from the viewer's side (B1): their home board 1-6 at the
// bottom right, 7-12 bottom left, 13-18 top left, 19-24 top right; black sees the board
// turned half round so its own numbers read the same way; spectators see white's side.
//
// Moves are played checker by checker: click a checker, then where it goes (a point, or the
// tray on the right to bear off). The page only offers moves that belong to one of the
// server's legal plays (GetGame's legal_plays); once the moves made are a whole legal play
// it is sent. A destination that fits no legal play is sent as it is, so the server's refusal
// (with its rule id) is what the player reads.

import { h, s } from "../dom.js";
import {
  type BackgammonMove,
  BackgammonPhase,
  type BackgammonPlay,
  BackgammonSimpleAction,
  type BackgammonView,
} from "../gen/ludus/v1/backgammon_pb.js";
import type { MessageKey } from "../i18n.js";
import { t } from "../i18n.js";
import type { Board, BoardInput } from "./board.js";
import { keyboardBoard, place } from "./keys.js";

const PW = 44;
const BW = 40;
const OW = 56;
const M = 16;
const HALF = 220;
const R = 18;
const BAR = 25;
const OFF = 0;

const SIMPLE_LABEL: Record<number, MessageKey> = {
  [BackgammonSimpleAction.ROLL]: "backgammon.roll",
  [BackgammonSimpleAction.DOUBLE]: "backgammon.double",
  [BackgammonSimpleAction.TAKE]: "backgammon.take",
  [BackgammonSimpleAction.DROP]: "backgammon.drop",
  [BackgammonSimpleAction.BEAVER]: "backgammon.beaver",
  [BackgammonSimpleAction.ACCEPT_RESIGNATION]: "backgammon.acceptResignation",
  [BackgammonSimpleAction.REJECT_RESIGNATION]: "backgammon.rejectResignation",
};

interface Step {
  from: number;
  to: number;
}

export function moveText(m: Step & { hit?: boolean }): string {
  const end = (p: number) => (p === BAR ? "bar" : p === OFF ? "off" : String(p));
  return `${end(m.from)}/${end(m.to)}${m.hit ? "*" : ""}`;
}

function sameStep(a: Step, b: Step): boolean {
  return a.from === b.from && a.to === b.to;
}

// The moves of `play` left once `made` is taken out of it, or undefined when `made` is not
// part of it.
function remaining(play: BackgammonPlay, made: Step[]): BackgammonMove[] | undefined {
  const rest = [...play.moves];
  for (const step of made) {
    const i = rest.findIndex((m) => sameStep(m, step));
    if (i < 0) return undefined;
    rest.splice(i, 1);
  }
  return rest;
}

export class BackgammonBoard implements Board {
  private made: Step[] = [];
  private selected: number | undefined;
  private madeAtSeq = -1n;
  private hint = "";

  draw(input: BoardInput): Element {
    const view = input.snapshot.view?.view;
    if (view?.case !== "backgammon") return s("svg");
    const b: BackgammonView = view.value;
    if (this.madeAtSeq !== input.snapshot.seq) {
      // A new position: whatever was half-played belongs to the old one.
      this.made = [];
      this.selected = undefined;
      this.madeAtSeq = input.snapshot.seq;
      this.hint = "";
    }
    const viewer = input.mySeat ?? b.you ?? 0;
    const black = viewer === 1;
    const playing = input.myTurn && b.phase === BackgammonPhase.PLAY && input.mySeat !== undefined;

    // Counts in the viewer's numbering: + the viewer's checkers, - the opponent's.
    const counts = new Array<number>(26).fill(0);
    for (let p = 1; p <= 24; p++) {
      const white = black ? 25 - p : p;
      const c = b.points[white - 1] ?? 0;
      counts[p] = black ? -c : c;
    }
    const bar = [b.bar[viewer] ?? 0, b.bar[1 - viewer] ?? 0];
    const off = [b.off[viewer] ?? 0, b.off[1 - viewer] ?? 0];
    if (playing) {
      for (const step of this.made) {
        if (step.from === BAR) bar[0]--;
        else counts[step.from]--;
        if (step.to === OFF) off[0]++;
        else {
          if (counts[step.to] === -1) {
            counts[step.to] = 0;
            bar[1]++;
          }
          counts[step.to]++;
        }
      }
    }
    const candidates: BackgammonMove[] = [];
    if (playing) {
      for (const play of b.legalPlays) {
        const rest = remaining(play, this.made);
        if (!rest) continue;
        for (const m of rest) {
          const available = m.from === BAR ? bar[0] > 0 : counts[m.from] > 0;
          if (available && !candidates.some((c) => sameStep(c, m))) candidates.push(m);
        }
      }
    }
    const destinations = new Set(candidates.filter((m) => m.from === this.selected).map((m) => m.to));
    const sources = new Set(candidates.map((m) => m.from));

    const landed = new Set<number>();
    const lifted = new Set<number>();
    const lastMoves = b.lastPlay?.play?.moves ?? [];
    const lastSeat = b.lastPlay?.seat ?? 0;
    for (const m of lastMoves) {
      // The last play is in its mover's numbering: bring it to the viewer's.
      const toViewer = (p: number) => (p === BAR || p === OFF ? p : lastSeat === viewer ? p : 25 - p);
      landed.add(toViewer(m.to));
      lifted.add(toViewer(m.from));
    }

    const width = 2 * M + 12 * PW + BW + OW;
    const height = 2 * M + 2 * HALF + 20;
    const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "board backgammon" });
    svg.append(s("rect", { x: 0, y: 0, width, height, class: "bg-frame" }));
    svg.append(s("rect", { x: M, y: M, width: 12 * PW + BW, height: 2 * HALF + 20, class: "bg-felt" }));
    const barX = M + 6 * PW;
    const clickBar = () => this.clickPoint(input, BAR, sources, destinations, b);
    const barRect = s("rect", {
      x: barX,
      y: M,
      width: BW,
      height: 2 * HALF + 20,
      class: `bg-bar${this.selected === undefined && sources.has(BAR) ? " source" : ""}`,
      "data-point": "bar",
      onclick: clickBar,
    });
    const barLabel = t("backgammon.bar", { mine: bar[0], theirs: bar[1] }) + this.marks(BAR, sources, destinations);
    svg.append(place(barRect, { key: "bar", row: 0, column: 6, label: barLabel, activate: clickBar }));
    const offX = M + 12 * PW + BW + 4;
    const clickOff = () => this.clickPoint(input, OFF, sources, destinations, b);
    const offRect = s("rect", {
      x: offX,
      y: M,
      width: OW - 8,
      height: 2 * HALF + 20,
      rx: 6,
      class: `bg-off${destinations.has(OFF) ? " target" : ""}`,
      "data-point": "off",
      onclick: clickOff,
    });
    const offLabel = t("backgammon.off", { n: off[0] }) + this.marks(OFF, sources, destinations);
    svg.append(place(offRect, { key: "off", row: 0, column: 13, label: offLabel, activate: clickOff }));

    const slotX = (p: number) => {
      if (p <= 6) return barX + BW + (6 - p) * PW;
      if (p <= 12) return M + (12 - p) * PW;
      if (p <= 18) return M + (p - 13) * PW;
      return barX + BW + (p - 19) * PW;
    };
    for (let p = 1; p <= 24; p++) {
      const top = p >= 13;
      const x = slotX(p);
      const baseY = top ? M : M + 2 * HALF + 20;
      const tipY = top ? M + HALF - 30 : M + HALF + 50;
      const classes = [`tri ${p % 2 ? "dark" : "light"}`];
      if (landed.has(p)) classes.push("last");
      else if (lifted.has(p)) classes.push("last-from");
      if (destinations.has(p)) classes.push("target");
      if (this.selected === p) classes.push("selected");
      else if (this.selected === undefined && sources.has(p)) classes.push("source");
      const role = classes.includes("source") ? " source" : classes.includes("target") ? " target" : "";
      const clickThis = () => this.clickPoint(input, p, sources, destinations, b);
      const g = s("g", { class: `point${role}`, "data-point": String(p), onclick: clickThis });
      g.append(s("path", { d: `M${x},${baseY}L${x + PW},${baseY}L${x + PW / 2},${tipY}Z`, class: classes.join(" ") }));
      const n = Math.abs(counts[p]);
      const mine = counts[p] > 0;
      const colour = mine === !black ? "white" : "black";
      for (let i = 0; i < Math.min(n, 5); i++) {
        const cy = top ? baseY + R + i * 2 * R : baseY - R - i * 2 * R;
        g.append(s("circle", { cx: x + PW / 2, cy, r: R - 1, class: `checker ${colour}` }));
      }
      if (n > 5) {
        const cy = top ? baseY + R + 4 * 2 * R : baseY - R - 4 * 2 * R;
        g.append(s("text", { x: x + PW / 2, y: cy + 5, class: `count ${colour}` }, String(n)));
      }
      g.append(s("text", { x: x + PW / 2, y: top ? M - 3 : height - 3, class: "coord" }, String(p)));
      // Points in the viewer's numbering (B1), placed for the arrow keys as drawn: the top
      // row 13-24 left to right with the bar between the halves and the tray after 24, the
      // bottom row 12-1 (Up and Down go straight across).
      const column = p <= 6 ? 7 + (6 - p) : p <= 12 ? 12 - p : p <= 18 ? p - 13 : 7 + (p - 19);
      const content =
        n === 0
          ? t("backgammon.empty")
          : t("backgammon.checkers", { n, colour: t(colour === "white" ? "backgammon.white" : "backgammon.black") });
      const label = t("backgammon.point", { point: p, content }) + this.marks(p, sources, destinations);
      place(g, { key: String(p), row: top ? 0 : 2, column, label, activate: clickThis });
      svg.append(g);
    }
    const myColour = black ? "black" : "white";
    const theirColour = black ? "white" : "black";
    for (let i = 0; i < bar[0]; i++) {
      svg.append(
        s("circle", {
          cx: barX + BW / 2,
          cy: M + HALF + 50 + i * 2 * R,
          r: R - 1,
          class: `checker ${myColour}${this.selected === BAR ? " selected" : ""}`,
          "pointer-events": "none",
        }),
      );
    }
    for (let i = 0; i < bar[1]; i++) {
      svg.append(
        s("circle", {
          cx: barX + BW / 2,
          cy: M + HALF - 30 - i * 2 * R,
          r: R - 1,
          class: `checker ${theirColour}`,
          "pointer-events": "none",
        }),
      );
    }
    svg.append(
      s("text", { x: offX + (OW - 8) / 2, y: M + 2 * HALF, class: "coord" }, t("backgammon.offCount", { n: off[0] })),
      s("text", { x: offX + (OW - 8) / 2, y: M + 30, class: "coord" }, t("backgammon.offCount", { n: off[1] })),
    );
    // Dice and cube in the middle of the right half.
    // The dice of this turn, or (faded) those of the last play.
    const dice = b.dice.length > 0 ? b.dice : (b.lastPlay?.dice ?? []);
    dice.forEach((die, i) => {
      const x = barX + BW + 2 * PW + i * 46;
      const y = M + HALF - 10;
      svg.append(
        s("rect", { x, y, width: 38, height: 38, rx: 6, class: b.dice.length > 0 ? "die" : "die old" }),
        s("text", { x: x + 19, y: y + 26, class: "die-pips" }, String(die)),
      );
    });
    svg.append(
      s("rect", { x: M + 2 * PW, y: M + HALF - 10, width: 38, height: 38, rx: 4, class: "cube" }),
      s("text", { x: M + 2 * PW + 19, y: M + HALF + 16, class: "die-pips" }, String(b.cubeValue || 1)),
    );

    const controls = h("div", { class: "controls" });
    if (input.myTurn) {
      for (const legal of input.legal) {
        const a = legal.action?.action;
        if (a?.case === "backgammon" && a.value.kind.case === "simple") {
          controls.append(
            h(
              "button",
              { "data-action": legal.notation, onclick: () => legal.action && input.submit(legal.action) },
              SIMPLE_LABEL[a.value.kind.value] ? t(SIMPLE_LABEL[a.value.kind.value]) : legal.notation,
            ),
          );
        }
      }
      if (playing) {
        const empty = b.legalPlays.find((p) => p.moves.length === 0);
        if (empty) {
          controls.append(
            h(
              "button",
              { onclick: () => input.submit({ action: { case: "backgammon", value: { kind: { case: "play", value: empty } } } }) },
              t("backgammon.noMovePass"),
            ),
          );
        }
        if (this.made.length > 0) {
          controls.append(
            h(
              "button",
              {
                onclick: () => {
                  this.made = [];
                  this.selected = undefined;
                  this.hint = "";
                  input.redraw();
                },
              },
              t("backgammon.undo"),
            ),
            h("span", { class: "small" }, ` ${this.made.map(moveText).join(" ")}`),
          );
        }
      }
    }
    const pips = t("backgammon.pips", {
      list: b.pips.map((p, seat) => `${input.snapshot.seats[seat]?.displayName ?? seat} ${p}`).join(" · "),
    });
    // Dice and cube for a screen reader (the SVG draws them as shapes).
    const diceLine = `${dice.length ? `${t("backgammon.dice", { dice: dice.join(", ") })} · ` : ""}${t("backgammon.cube", { value: String(b.cubeValue || 1) })}`;
    const board = keyboardBoard(svg, "backgammon", t("backgammon.board"));
    return h(
      "div",
      { class: "board-wrap", "data-made": this.made.length },
      board,
      h("p", { class: "small", id: "dice" }, diceLine),
      controls,
      this.hint ? h("p", { class: "hint" }, this.hint) : null,
      h("p", { class: "small" }, pips),
    );
  }

  private clickPoint(input: BoardInput, p: number, sources: Set<number>, destinations: Set<number>, b: BackgammonView): void {
    if (input.mySeat === undefined || !input.myTurn || b.phase !== BackgammonPhase.PLAY) return;
    this.hint = "";
    if (this.selected !== undefined && p !== this.selected && (destinations.has(p) || !sources.has(p))) {
      const step = { from: this.selected, to: p };
      this.selected = undefined;
      if (!destinations.has(p)) {
        // Fits no legal play: let the server say why (its refusal carries the rule id).
        this.send(input, [...this.made, step]);
        return;
      }
      this.made.push(step);
      const whole = b.legalPlays.find((play) => remaining(play, this.made)?.length === 0);
      const extendable = b.legalPlays.some((play) => (remaining(play, this.made)?.length ?? 0) > 0);
      if (whole && !extendable) {
        this.send(input, whole.moves);
        return;
      }
      input.redraw();
      return;
    }
    if (this.selected === p) {
      this.selected = undefined;
    } else if (sources.has(p)) {
      this.selected = p;
    } else {
      this.hint = p === BAR ? t("backgammon.noEntry") : t("backgammon.noMoveFrom", { point: p === OFF ? "off" : p });
    }
    input.redraw();
  }

  // What a place offers now, said after its name: a source, a destination, the selection.
  private marks(p: number, sources: Set<number>, destinations: Set<number>): string {
    if (this.selected === p) return t("backgammon.selected");
    if (destinations.has(p)) return t("backgammon.target");
    if (this.selected === undefined && sources.has(p)) return t("backgammon.source");
    return "";
  }

  private send(input: BoardInput, moves: Step[]): void {
    this.made = [];
    input.submit({
      action: { case: "backgammon", value: { kind: { case: "play", value: { moves: moves.map((m) => ({ from: m.from, to: m.to })) } } } },
    });
  }
}
