//! game-state's instruments: `ludus.moves` and `ludus.games.finished`, recorded once per
//! committed event (a lost compare-and-set records nothing, a retried action is not counted
//! twice).

use std::sync::LazyLock;

use ludus_proto::pb;
use opentelemetry::{
    KeyValue,
    metrics::{Counter, Meter},
};

use ludus_catalog::GameKind;

/// Made on first use, after `main` installed the meter provider (see
/// `ludus_telemetry::metrics`).
static METRICS: LazyLock<GameMetrics> =
    LazyLock::new(|| GameMetrics::new(&ludus_telemetry::metrics::meter()));

/// Records what the committed `event` of a `kind` game counts for.
pub fn committed(kind: GameKind, event: &pb::GameEvent) {
    METRICS.committed(kind, event);
}

#[derive(Debug)]
pub struct GameMetrics {
    moves: Counter<u64>,
    finished: Counter<u64>,
}

impl GameMetrics {
    pub fn new(meter: &Meter) -> Self {
        GameMetrics {
            moves: meter
                .u64_counter("ludus.moves")
                .with_unit("{move}")
                .with_description(
                    "Committed player actions; automatic = played by the server for the seat",
                )
                .build(),
            finished: meter
                .u64_counter("ludus.games.finished")
                .with_unit("{game}")
                .with_description("Games that ended, by result")
                .build(),
        }
    }

    /// One `ludus.moves` per committed action (`automatic` for the server's autoplay), one
    /// `ludus.games.finished` for the event that ended the game: no event is committed
    /// after that one, so a game finishes once.
    pub fn committed(&self, kind: GameKind, event: &pb::GameEvent) {
        let game = KeyValue::new("game", kind.name());
        if let Some(pb::game_event::Kind::ActionApplied(applied)) = &event.kind {
            self.moves.add(
                1,
                &[game.clone(), KeyValue::new("automatic", applied.automatic)],
            );
        }
        if let Some(outcome) = &event.outcome {
            let result = match pb::ResultKind::try_from(outcome.kind) {
                Ok(pb::ResultKind::Win) => "win",
                Ok(pb::ResultKind::Draw) => "draw",
                Ok(pb::ResultKind::Cancelled) => "cancelled",
                // Every outcome game-state writes has one of the three.
                _ => "unknown",
            };
            self.finished
                .add(1, &[game, KeyValue::new("result", result)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ludus_proto::pb::game_event::Kind;
    use ludus_telemetry::testing::{MetricsRecorder, attrs};

    fn event(kind: Kind) -> pb::GameEvent {
        pb::GameEvent {
            kind: Some(kind),
            ..Default::default()
        }
    }

    fn applied(automatic: bool) -> pb::GameEvent {
        event(Kind::ActionApplied(pb::ActionApplied {
            automatic,
            ..Default::default()
        }))
    }

    fn finishing(event: pb::GameEvent, kind: pb::ResultKind) -> pb::GameEvent {
        pb::GameEvent {
            outcome: Some(pb::Outcome {
                kind: kind as i32,
                ..Default::default()
            }),
            ..event
        }
    }

    #[test]
    fn moves_and_finished_games_are_counted_by_game_and_kind() {
        let recorder = MetricsRecorder::new();
        let metrics = GameMetrics::new(&recorder.meter());
        metrics.committed(GameKind::Caro, &applied(false));
        metrics.committed(GameKind::Caro, &applied(false));
        metrics.committed(
            GameKind::Caro,
            &finishing(applied(false), pb::ResultKind::Win),
        );
        metrics.committed(GameKind::Junqi, &applied(true));
        let resigned = event(Kind::Resigned(pb::PlayerResigned { seat: 0 }));
        metrics.committed(
            GameKind::Quoridor,
            &finishing(resigned, pb::ResultKind::Win),
        );
        let agreed = event(Kind::DrawAgreed(pb::DrawOffered { seat: 1 }));
        metrics.committed(GameKind::Mancala, &finishing(agreed, pb::ResultKind::Draw));
        // A disconnection, say: neither a move nor an ending.
        metrics.committed(GameKind::Caro, &pb::GameEvent::default());

        let mut points: Vec<_> = recorder
            .points()
            .into_iter()
            .map(|p| (p.name, p.attributes, p.value))
            .collect();
        points.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        // (instrument, game, its other attribute, value)
        let mut expected: Vec<_> = [
            ("ludus.moves", "caro", ("automatic", "false"), 3.0),
            ("ludus.moves", "junqi", ("automatic", "true"), 1.0),
            ("ludus.games.finished", "caro", ("result", "win"), 1.0),
            ("ludus.games.finished", "quoridor", ("result", "win"), 1.0),
            ("ludus.games.finished", "mancala", ("result", "draw"), 1.0),
        ]
        .into_iter()
        .map(|(name, game, other, value)| (name.to_owned(), attrs(&[("game", game), other]), value))
        .collect();
        expected.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        assert_eq!(points, expected);
    }
}
