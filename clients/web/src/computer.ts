// Online games against the computer (PlayComputer): the take-back the rules allow there (C17:
// Caro against Easy or Medium, M11: Mancala's last sow). The server decides; a refusal shows
// with its rule id like any other.

import type { GatewayClient } from "./api.js";
import { h } from "./dom.js";
import type { GameEvent, GameSnapshot } from "./gen/ludus/v1/game_pb.js";
import { t } from "./i18n.js";

export function takeBackButton(
  snapshot: GameSnapshot,
  call: (send: (client: GatewayClient) => Promise<{ event?: GameEvent }>) => void,
): HTMLElement | null {
  const kind = snapshot.settings?.options.case;
  const computer = snapshot.seats.find((seat) => seat.computerLevel);
  if (!computer || (kind !== "caro" && kind !== "mancala")) return null;
  if (kind === "caro" && computer.computerLevel === "hard") return null;
  const gameId = snapshot.gameId;
  return h(
    "button",
    { type: "button", id: "take-back", onclick: () => call((c) => c.takeBack({ gameId })) },
    `${t("play.takeBack")} (${kind === "caro" ? "C17" : "M11"})`,
  );
}
