//! The server's own documents: liveness, readiness, metrics and the OpenAPI
//! document.

use std::sync::atomic::Ordering;

use bytes::Bytes;

use crate::serve::answer::{Answer, Kind};
use crate::serve::route::{Ctx, Job, Parsed};

/// `/healthz`: the process answers.
pub fn health(_: Ctx<'_>) -> Parsed<'_> {
    let body = Bytes::from_static(b"{\"status\":\"ok\"}");
    Ok(Job::ready(Answer::operation(200, Kind::Json, body)))
}

/// `/readyz`: the snapshot served, or 503 while draining.
pub fn ready(ctx: Ctx<'_>) -> Parsed<'_> {
    let answer = match ctx.state.draining.load(Ordering::Relaxed) {
        true => {
            let body = Bytes::from_static(b"{\"status\":\"draining\"}");
            Answer::operation(503, Kind::Json, body)
        }
        false => {
            let body = format!(
                "{{\"status\":\"ready\",\"checksum\":\"{}\"}}",
                ctx.served.view.header.checksum_hex()
            );
            Answer::operation(200, Kind::Json, Bytes::from(body))
        }
    };
    Ok(Job::ready(answer))
}

/// `/metrics`, in Prometheus' text format.
pub fn metrics(ctx: Ctx<'_>) -> Parsed<'_> {
    let state = ctx.state;
    let mut body = state.metrics.render(
        &ctx.served.view,
        &ctx.served.memo,
        &state.work,
        &state.streams,
        &state.descriptors,
    );
    body.push_str(&super::super::metrics::Metrics::render_publishing(
        &state.publishing(),
    ));
    let body = Bytes::from(body);
    Ok(Job::ready(Answer::operation(200, Kind::Metrics, body)))
}

/// The OpenAPI document of the route table, rendered once at start.
pub fn openapi(ctx: Ctx<'_>) -> Parsed<'_> {
    Ok(Job::ready(Answer::json(ctx.state.openapi.clone())))
}
