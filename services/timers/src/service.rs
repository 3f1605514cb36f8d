//! The `Timers` gRPC service.

use std::sync::Arc;

use ludus_proto::error_details;
use ludus_proto::pb::{self, timers_server::Timers};
use ludus_store::{StoreError, TimerStore};
use prost::Message;
use tokio::sync::Notify;
use tonic::{Request, Response, Status};

/// Longest timer key accepted.
pub const MAX_KEY_LEN: usize = 200;

/// Arms and cancels timers; the worker fires them.
#[derive(Clone, Debug)]
pub struct TimersService {
    store: TimerStore,
    /// Wakes this replica's worker, which may be sleeping past the new deadline.
    wake: Arc<Notify>,
}

impl TimersService {
    pub fn new(store: TimerStore, wake: Arc<Notify>) -> Self {
        TimersService { store, wake }
    }
}

fn store_status(error: StoreError) -> Status {
    match error {
        StoreError::Unavailable(message) => error_details::refusal(
            tonic::Code::Unavailable,
            format!("session store unavailable: {message}"),
            error_details::DOMAIN_TIMERS,
            error_details::reason::UNAVAILABLE,
            &[],
        ),
        other => {
            tracing::error!(error = %other, "timer store failed");
            Status::internal("internal error")
        }
    }
}

/// INVALID_ARGUMENT naming the field, with its rich details.
fn invalid(message: impl Into<String>) -> Status {
    error_details::invalid_argument(
        message,
        error_details::DOMAIN_TIMERS,
        error_details::reason::INVALID_FIELD,
    )
}

fn validate_key(key: &str) -> Result<(), Status> {
    if key.is_empty() || key.len() > MAX_KEY_LEN || key.chars().any(char::is_control) {
        return Err(invalid(format!(
            "key: must be 1 to {MAX_KEY_LEN} characters without control characters"
        )));
    }
    Ok(())
}

#[tonic::async_trait]
impl Timers for TimersService {
    #[tracing::instrument(skip_all, fields(key = %request.get_ref().key))]
    async fn arm(
        &self,
        request: Request<pb::ArmTimerRequest>,
    ) -> Result<Response<pb::ArmTimerResponse>, Status> {
        let request = request.into_inner();
        validate_key(&request.key)?;
        let action = request
            .action
            .filter(|action| action.action.is_some())
            .ok_or_else(|| invalid("action: required"))?;
        let due = u64::try_from(request.due_unix_ms)
            .map_err(|_| invalid("due_unix_ms: must not be negative"))?;
        self.store
            .arm(&request.key, &action.encode_to_vec(), due)
            .await
            .map_err(store_status)?;
        self.wake.notify_one();
        Ok(Response::new(pb::ArmTimerResponse {}))
    }

    #[tracing::instrument(skip_all, fields(key = %request.get_ref().key))]
    async fn cancel(
        &self,
        request: Request<pb::CancelTimerRequest>,
    ) -> Result<Response<pb::CancelTimerResponse>, Status> {
        let request = request.into_inner();
        validate_key(&request.key)?;
        let cancelled = self
            .store
            .cancel(&request.key)
            .await
            .map_err(store_status)?;
        Ok(Response::new(pb::CancelTimerResponse { cancelled }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_bounded_and_printable() {
        assert!(validate_key("turn/g/1").is_ok());
        assert!(validate_key("").is_err());
        assert!(validate_key(&"k".repeat(MAX_KEY_LEN + 1)).is_err());
        assert!(validate_key("a\nb").is_err());
    }
}
