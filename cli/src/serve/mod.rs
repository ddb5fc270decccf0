//! `rollcall serve`: the sealed dice server and referee, over HTTP/JSON, on
//! the embedded store or on PostgreSQL (several servers over one database).
//! HTTP only: the server's logic is the `rollcall-server` crate
//! ([`rollcall_server::Service`]), which [`http`]'s routes carry; [`page`]
//! is the play page a side plays from in a browser, [`blocking`] the store
//! called from async handlers, [`client`] the requests the CLI's commands
//! send to a server (`play --server`, `turn fetch`, `verify URL`).

pub mod blocking;
pub mod client;
pub mod http;
pub mod page;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use rollcall_core::log::{EventLog, LogError};
use rollcall_server::Service;

use crate::fail::Fail;
use crate::input::store;

/// Serves until SIGINT or SIGTERM; in-flight requests finish first.
pub fn run(db: &crate::input::store::StoreSpec, addr: &str, turns: u64) -> Result<ExitCode, Fail> {
    let addr: SocketAddr = addr.parse().map_err(|e| fail!("--addr {addr:?}: {e} (for example 127.0.0.1:7878)"))?;
    let store = store::open(db)?;
    // sled, held by this process alone, serves reads from memory.
    let store: Arc<dyn EventLog + Send + Sync> = Arc::new(store);
    let log: Arc<dyn EventLog + Send + Sync> = Arc::new(if store.exclusive() {
        blocking::Blocking::memory_reads(store)
    } else {
        blocking::Blocking::new(store)
    });
    let service = Service::open(log, random, turns, stop_unflushed).map_err(|e| Fail::msg(e.to_string()))?;
    let key = service.public_key();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| fail!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|e| fail!("--addr {addr}: cannot listen: {e}"))?;
        let bound = listener.local_addr().map_err(|e| Fail::msg(e.to_string()))?;
        // Before saying where it listens: a SIGTERM sent as soon as the
        // server is up (by a supervisor, a test) stops it cleanly.
        let stop = stop_signals().map_err(|e| fail!("cannot handle SIGINT and SIGTERM: {e}"))?;
        eprintln!("rollcall serve: listening on http://{bound} (server key {key}); stop with Ctrl-C or SIGTERM");
        let service = Arc::new(service);
        axum::serve(listener, http::router(service.clone()))
            .with_graceful_shutdown(shutdown(stop, service.clone()))
            .await
            .map_err(|e| fail!("the server stopped: {e}"))?;
        let (decisions, flushes) = service.commit_figures();
        eprintln!("rollcall serve: stopped cleanly ({decisions} decisions made durable in {flushes} flushes)");
        Ok::<_, Fail>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The store could not be flushed: nothing written from now on would be
/// durable, so the server stops before it acknowledges anything more.
fn stop_unflushed(e: &LogError) {
    eprintln!("rollcall serve: cannot flush the store ({e}): stopping, so that nothing unflushed is acknowledged");
    std::process::exit(70);
}

fn random() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).expect("the operating system gives randomness");
    bytes
}

/// SIGINT and SIGTERM, each handled from now on (tokio's `ctrl_c()` only
/// from its first poll).
fn stop_signals() -> std::io::Result<[tokio::signal::unix::Signal; 2]> {
    use tokio::signal::unix::{signal, SignalKind};
    Ok([signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?])
}

async fn shutdown([mut interrupt, mut term]: [tokio::signal::unix::Signal; 2], service: Arc<Service>) {
    tokio::select! {
        _ = interrupt.recv() => {}
        _ = term.recv() => {}
    }
    eprintln!("rollcall serve: stopping: finishing the requests in flight");
    // A stream of heads never finishes by itself.
    service.stop_watching();
}
