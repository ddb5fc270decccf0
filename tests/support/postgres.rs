//! A PostgreSQL database of its own for a test, in the cluster that
//! `ROLLCALL_TEST_POSTGRES` names (`.ci/run` starts a throwaway one and sets
//! it; `.ci/postgres start DIR` does the same by hand). Without it a test
//! is skipped with a notice, except when `ROLLCALL_REQUIRE_POSTGRES=1` (set
//! by `.ci/run`), where it fails: CI must prove the PostgreSQL store.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

/// The cluster's URL (a database a superuser can create databases from).
pub fn cluster(test: &str) -> Option<String> {
    match std::env::var("ROLLCALL_TEST_POSTGRES").ok().filter(|v| !v.is_empty()) {
        Some(url) => Some(url),
        None if std::env::var("ROLLCALL_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") => {
            panic!("{test}: ROLLCALL_TEST_POSTGRES is not set, and ROLLCALL_REQUIRE_POSTGRES=1 demands the PostgreSQL store be tested (.ci/run starts one)")
        }
        None => {
            eprintln!(
                "SKIPPED {test}: no PostgreSQL (set ROLLCALL_TEST_POSTGRES, e.g. to what `.ci/postgres start /tmp/pg` prints)"
            );
            None
        }
    }
}

/// `url` with its database name changed to `name`.
pub fn with_dbname(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let (scheme, rest) = base.split_once("://").expect("a postgres:// URL");
    let authority = rest.split('/').next().unwrap_or_default();
    let mut out = format!("{scheme}://{authority}/{name}");
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

/// A fresh, migrated database, dropped when this is.
pub struct Database {
    pub url: String,
    admin: String,
    name: String,
}

impl Database {
    /// A new database in the cluster (None, after a notice, without one).
    pub fn new(test: &str) -> Option<Database> {
        let admin = cluster(test)?;
        static N: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let name = format!("rollcall_t{}_{}_{nanos}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
        let mut client = postgres::Client::connect(&admin, postgres::NoTls)
            .unwrap_or_else(|e| panic!("{test}: cannot reach ROLLCALL_TEST_POSTGRES={admin}: {e}"));
        client.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let url = with_dbname(&admin, &name);
        rollcall_store::pg_log::migrate(&url).unwrap();
        Some(Database { url, admin, name })
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs SQL as the cluster's superuser, in this database.
    pub fn admin_sql(&self, sql: &str) {
        let mut client = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
        client.batch_execute(sql).unwrap();
    }

    /// Ends every other session on this database (as a restart of the
    /// database would): what a log must reconnect after.
    pub fn kill_connections(&self) -> u64 {
        let mut client = postgres::Client::connect(&self.admin, postgres::NoTls).unwrap();
        let rows = client
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                &[&self.name],
            )
            .unwrap();
        rows.len() as u64
    }
}

/// Restarts the whole cluster (`pg_ctl restart -m fast`, by `.ci/postgres`)
/// when `ROLLCALL_TEST_POSTGRES_DIR` names its directory (`.ci/run` sets
/// it); otherwise ends every session of `db`, which is what a restart does
/// to a client. Says which it did.
pub fn restart(db: &Database) -> &'static str {
    match std::env::var("ROLLCALL_TEST_POSTGRES_DIR").ok().filter(|d| !d.is_empty()) {
        Some(dir) => {
            let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/postgres");
            let status = std::process::Command::new(script).arg("restart").arg(&dir).status().unwrap();
            assert!(status.success(), "the cluster in {dir} restarts");
            "the cluster restarted"
        }
        None => {
            db.kill_connections();
            "every session ended (set ROLLCALL_TEST_POSTGRES_DIR for a real restart)"
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}
