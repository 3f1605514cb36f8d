// What every game's board gets from the game page, and gives back.

import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ActionSchema, GameSnapshot, LegalAction } from "../gen/ludus/v1/game_pb.js";

export type ActionInit = MessageInitShape<typeof ActionSchema>;

export interface BoardInput {
  // The game as this page knows it now (the view of the latest event or GetGame).
  snapshot: GameSnapshot;
  // The viewer's seat; undefined for a spectator.
  mySeat: number | undefined;
  // True when the viewer may act now.
  myTurn: boolean;
  // The viewer's legal actions (from GetGame), empty unless it is their turn.
  legal: LegalAction[];
  // Sends an action; the page shows the server's refusal if there is one.
  submit: (action: ActionInit) => void;
  // Draws the board again (after a local selection changed).
  redraw: () => void;
}

export interface Board {
  // The board (SVG) and any controls the game needs (buttons), as one element.
  draw(input: BoardInput): Element;
}
