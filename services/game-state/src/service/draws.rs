//! Draw offers and answers. Refusals name the game's own draw rule
//! ([`ludus_catalog::LiveGame::draw_rule`]: Caro C8, Mancala M9, Junqi LJ1; Quoridor Q18 and
//! Backgammon B13 refuse every offer).

use ludus_catalog::{CatalogError, seat_u32};
use ludus_proto::pb;

use super::base::GameStateService;
use crate::error::ServiceError;

impl GameStateService {
    pub async fn offer_draw(
        &self,
        request: pb::PlayerRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        self.seated_change(&request.game_id, &request.player_id, |loaded, seat| {
            loaded.game.can_agree_draw().map_err(CatalogError::Rule)?;
            let rule = loaded.game.draw_rule();
            if let Some(by) = loaded.record.draw_offer {
                return Err(ServiceError::FailedPrecondition(if by == seat {
                    format!("{rule}: your draw offer is already pending")
                } else {
                    format!("{rule}: your opponent already offered a draw: answer it")
                }));
            }
            Ok(pb::game_event::Kind::DrawOffered(pb::DrawOffered {
                seat: seat_u32(seat),
            }))
        })
        .await
    }

    pub async fn respond_draw(
        &self,
        request: pb::RespondDrawInternalRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        self.seated_change(&request.game_id, &request.player_id, |loaded, seat| {
            let rule = loaded.game.draw_rule();
            let offered_by = match loaded.record.draw_offer {
                Some(by) if by != seat => by,
                Some(_) => {
                    return Err(ServiceError::FailedPrecondition(format!(
                        "{rule}: you cannot answer your own draw offer"
                    )));
                }
                None => {
                    return Err(ServiceError::FailedPrecondition(format!(
                        "{rule}: there is no draw offer to answer"
                    )));
                }
            };
            if request.accept {
                loaded.game.agree_draw().map_err(CatalogError::Rule)?;
                // The event's message is the offer's: it names who offered.
                Ok(pb::game_event::Kind::DrawAgreed(pb::DrawOffered {
                    seat: seat_u32(offered_by),
                }))
            } else {
                Ok(pb::game_event::Kind::DrawDeclined(pb::DrawDeclined {
                    seat: seat_u32(seat),
                }))
            }
        })
        .await
    }
}
