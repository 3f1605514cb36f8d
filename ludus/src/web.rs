//! The web client's files, served by the all-in-one binary on their own port.
//!
//! The page is built separately (`npm ci && npm run build` in `clients/web`, which writes
//! `clients/web/dist`), so `cargo build` never needs Node.js; this server only hands out
//! those files, plus `/config.json`, which tells the page which port the gateway's grpc-web
//! listens on. When the directory holds no build, every path answers with how to build it.

use std::{future::Future, path::PathBuf};

use axum::{Router, http::StatusCode, http::header, response::IntoResponse, routing::get};
use tokio::net::TcpListener;
use tower_http::services::ServeDir;

/// Where the page is and what it must know.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// The built client (`clients/web/dist`).
    pub dir: PathBuf,
    /// The gateway's port; the page calls it on the host it was itself loaded from.
    pub gateway_port: u16,
    /// Whether the gateway serves TLS: the page then calls it over https whatever scheme the
    /// page itself came over.
    pub gateway_tls: bool,
}

/// Whether `dir` holds a built client.
pub fn is_built(dir: &std::path::Path) -> bool {
    dir.join("index.html").is_file()
}

/// The page's runtime settings, as `/config.json`.
fn config_json(gateway_port: u16, gateway_tls: bool) -> String {
    if gateway_tls {
        format!("{{\"gatewayPort\":{gateway_port},\"gatewayScheme\":\"https:\"}}")
    } else {
        format!("{{\"gatewayPort\":{gateway_port}}}")
    }
}

fn not_built_page(dir: &std::path::Path) -> String {
    format!(
        "<!doctype html><meta charset=utf-8><title>Ludus: web client not built</title>\
         <h1>The web client is not built</h1>\
         <p>Nothing to serve in <code>{}</code>. Build it once with Node.js 20+:</p>\
         <pre>cd clients/web &amp;&amp; npm ci &amp;&amp; npm run build</pre>\
         <p>then restart <code>cargo run --release</code> (or pass <code>--web-dir</code>).</p>",
        html_escape(&dir.display().to_string())
    )
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The router: `/config.json`, then the built files (or the "not built" page).
pub fn router(config: &WebConfig) -> Router {
    let settings = config_json(config.gateway_port, config.gateway_tls);
    let router = Router::new().route(
        "/config.json",
        get(move || async move {
            (
                [
                    (header::CONTENT_TYPE, "application/json"),
                    (header::CACHE_CONTROL, "no-store"),
                ],
                settings,
            )
        }),
    );
    if is_built(&config.dir) {
        router.fallback_service(ServeDir::new(&config.dir))
    } else {
        let page = not_built_page(&config.dir);
        router.fallback(move || async move {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                page,
            )
                .into_response()
        })
    }
}

/// Serves the web client on `listener` until `shutdown` completes.
pub async fn serve(
    config: WebConfig,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    axum::serve(listener, router(&config))
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}
