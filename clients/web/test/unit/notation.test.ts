// The names of places in each game's notation (what the page sends offline, and what a
// screen reader reads), and the clicks turned into the rules' notation.
import { describe, expect, it } from "vitest";
import { moveText } from "../../src/boards/backgammon.js";
import { caroCellName } from "../../src/boards/caro.js";
import { junqiPointName } from "../../src/boards/junqi.js";
import { quoridorCellName } from "../../src/boards/quoridor.js";
import { gameTitle, seatLabel } from "../../src/game.js";
import { BackgammonSimpleAction } from "../../src/gen/ludus/v1/backgammon_pb.js";
import { QuoridorOrientation } from "../../src/gen/ludus/v1/quoridor_pb.js";
import { setLang } from "../../src/i18n.js";
import { actionNotation, levelName } from "../../src/local.js";

describe("cell names", () => {
  it("Caro: column letter from the left, row from the top (C1)", () => {
    expect(caroCellName(7, 7)).toBe("H8");
    expect(caroCellName(0, 0)).toBe("A1");
    expect(caroCellName(18, 18)).toBe("S19");
  });
  it("Quoridor: file a.. from the left, rank 1.. from the bottom", () => {
    expect(quoridorCellName(4, 4)).toBe("e5");
    expect(quoridorCellName(0, 8)).toBe("a9");
  });
  it("Junqi: column a-e, rank 12 at the top (J2)", () => {
    expect(junqiPointName(0, 0)).toBe("a12");
    expect(junqiPointName(11, 4)).toBe("e1");
  });
  it("backgammon moves, with the bar, off and hits (B-notation)", () => {
    expect(moveText({ from: 25, to: 20, hit: true })).toBe("bar/20*");
    expect(moveText({ from: 3, to: 0 })).toBe("3/off");
  });
});

describe("actionNotation", () => {
  it("turns each board's click into the rules' notation", () => {
    expect(actionNotation({ action: { case: "caro", value: { place: { column: 7, row: 7 } } } })).toBe("H8");
    expect(actionNotation({ action: { case: "mancala", value: { pit: 4 } } })).toBe("4");
    expect(actionNotation({ action: { case: "quoridor", value: { kind: { case: "move", value: { file: 4, rank: 1 } } } } })).toBe("e2");
    expect(
      actionNotation({
        action: {
          case: "quoridor",
          value: { kind: { case: "wall", value: { cell: { file: 3, rank: 4 }, orientation: QuoridorOrientation.VERTICAL } } },
        },
      }),
    ).toBe("d5v");
    expect(actionNotation({ action: { case: "junqi", value: { kind: { case: "move", value: { from: "c7", to: "c6" } } } } })).toBe("c7-c6");
    expect(
      actionNotation({ action: { case: "backgammon", value: { kind: { case: "simple", value: BackgammonSimpleAction.ROLL } } } }),
    ).toBe("roll");
    expect(actionNotation({ action: { case: "backgammon", value: { kind: { case: "play", value: { moves: [] } } } } })).toBe("no play");
    expect(
      actionNotation({
        action: {
          case: "backgammon",
          value: {
            kind: {
              case: "play",
              value: {
                moves: [
                  { from: 8, to: 5 },
                  { from: 6, to: 5 },
                ],
              },
            },
          },
        },
      }),
    ).toBe("8/5 6/5");
  });
});

describe("names in the page's language", () => {
  it("levels as each seed names them (C17, M11, J20)", () => {
    setLang("en");
    expect(levelName("caro", "normal")).toBe("Medium");
    expect(levelName("junqi", "hard")).toBe("Expert");
    expect(levelName("mancala", "easy")).toBe("Easy");
    setLang("vi");
    expect(levelName("caro", "normal")).toBe("Vừa");
    expect(levelName("junqi", "easy")).toBe("Mới chơi");
    expect(levelName("mancala", "hard")).toBe("Khó");
    setLang("en");
  });
  it("games and seats", () => {
    setLang("vi");
    expect(gameTitle("junqi")).toBe("Cờ quân lật");
    expect(gameTitle(undefined)).toBe("Ván cờ");
    expect(seatLabel("backgammon", 1)).toBe("Đen");
    expect(seatLabel("caro", 0)).toBe("X");
    expect(seatLabel("quoridor", 2)).toBe("Ghế 3");
    setLang("en");
  });
});
