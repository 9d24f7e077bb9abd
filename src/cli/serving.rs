//! What `serve` does: bind, load, listen, reload on change or SIGHUP, and stop
//! gracefully on SIGTERM.

use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::Context as _;

use crate::serve;
use crate::serve::reload::{Reloader, Trigger};
use crate::snapshot::SnapshotError;
use crate::view::LoadError;

use super::args::ServeArgs;

pub(super) fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    // A bad dataset file is a mistake to hear about now, not at the first request.
    let dataset = match args.no_watch {
        true => args.dataset.told()?,
        false => args.dataset.followed()?,
    };
    // The address is bound before the snapshot loads (seconds, for a large one), so
    // a taken port fails at once; it is listened on once loaded, so until then a
    // connection is refused and a balancer tries another replica without waiting.
    let socket = bound(args.addr).with_context(|| format!("cannot listen on {}", args.addr))?;
    let view =
        serve::reload::load(&args.snapshot, None).map_err(|e| unloadable(e, &args.snapshot))?;
    tracing::info!(
        snapshot = %args.snapshot.display(),
        checksum = %view.header.checksum_hex(),
        build_ms = view.build_time.as_millis() as u64,
        phases = %view.phases,
        rendered_bytes = view.rendered_bytes(),
        own_bytes = view.own_bytes(),
        fragment_bytes = view.fragment_bytes(),
        counts = %view.describe_counts(),
        "view loaded"
    );
    let settings = args.settings(dataset);
    let state = serve::state(view, settings);
    let reloader = Reloader::start(state.clone(), &args.snapshot, !args.no_watch)
        .with_context(|| format!("cannot watch {}", args.snapshot.display()))?;
    if !args.no_watch {
        tracing::info!(snapshot = %args.snapshot.display(), "watching the snapshot for changes");
    }
    serve::raise_open_files_limit();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let served = runtime.block_on(async move {
        reload_on_hangup(&reloader);
        let listener = socket
            .listen(BACKLOG)
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        tracing::info!(addr = %args.addr, "serving");
        serve::serve(listener, state, shutdown_signal()).await;
        tracing::info!("stopped");
        Ok(ExitCode::SUCCESS)
    });
    // Blocking work still running (a file read a slow disk holds) does not
    // keep the process from exiting.
    runtime.shutdown_timeout(SHUTDOWN_WAIT);
    served
}

/// How long an exit waits for blocking work still running once serving stopped.
const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Connections the kernel queues for `accept` (what `TcpListener::bind` asks).
const BACKLOG: u32 = 1024;

/// A socket bound to `addr`, not yet listening; address reuse as `bind` sets it.
pub(super) fn bound(addr: SocketAddr) -> std::io::Result<tokio::net::TcpSocket> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    Ok(socket)
}

/// Why the snapshot to serve cannot be loaded; for a missing file, what to do.
pub(super) fn unloadable(e: LoadError, path: &std::path::Path) -> anyhow::Error {
    match e {
        LoadError::Snapshot(SnapshotError::Read { cause, .. })
            if cause.kind() == std::io::ErrorKind::NotFound =>
        {
            let from = match path.is_relative() {
                true => std::env::current_dir()
                    .map(|d| format!(" (relative to {})", d.display()))
                    .unwrap_or_default(),
                false => String::new(),
            };
            anyhow::anyhow!(
                "there is no snapshot at {}{from}: give its path with --snapshot or \
                 CATALOGUE_SNAPSHOT, or make one with `catalogue build`",
                path.display()
            )
        }
        e => e.into(),
    }
}

/// SIGHUP reloads the snapshot from the same path.
pub(super) fn reload_on_hangup(reloader: &Reloader) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let trigger = reloader.trigger();
        match signal(SignalKind::hangup()) {
            Ok(mut hup) => {
                tokio::spawn(async move {
                    while hup.recv().await.is_some() {
                        tracing::info!("SIGHUP: reloading the snapshot");
                        if trigger.send(Trigger::Forced).is_err() {
                            break;
                        }
                    }
                });
            }
            Err(e) => tracing::warn!(error = %e, "cannot listen for SIGHUP"),
        }
    }
    #[cfg(not(unix))]
    let _ = reloader;
}

/// Resolves on Ctrl-C or SIGTERM.
pub(super) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down: finishing what is in flight");
}
