//! HTTP to a dice server, for the commands that use one (`play --server`,
//! `turn fetch`, `verify URL`): a request sent, its answer read.

use std::time::Duration;

use serde_json::Value;

use crate::fail::Fail;

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().timeout(Duration::from_secs(60)).build()
}

/// A server's answer: its status and JSON (or text) body.
pub struct Answer {
    pub status: u16,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The server's message, for a refusal.
    pub fn message(&self) -> String {
        let v = self.json();
        match v["message"].as_str() {
            Some(m) => format!("{m} ({} {})", self.status, v["error"].as_str().unwrap_or("")),
            None => format!("HTTP {}: {}", self.status, self.body.trim()),
        }
    }
}

fn send(request: ureq::Request, body: Option<&Value>) -> Result<Answer, Fail> {
    let url = request.url().to_string();
    let result = match body {
        Some(b) => request.set("Content-Type", "application/json").send_string(&b.to_string()),
        None => request.call(),
    };
    match result {
        Ok(r) => Ok(Answer { status: r.status(), body: r.into_string().map_err(|e| fail!("{url}: {e}"))? }),
        Err(ureq::Error::Status(status, r)) => Ok(Answer { status, body: r.into_string().unwrap_or_default() }),
        Err(ureq::Error::Transport(t)) => Err(fail!("{url}: cannot reach the server: {}", on_the_way(&t))),
    }
}

/// What went wrong on the way to the server, in ureq's words without the
/// URL they start with (the message names it once, first).
fn on_the_way(t: &ureq::Transport) -> String {
    let mut words = t.kind().to_string();
    if let Some(message) = t.message() {
        words = format!("{words}: {message}");
    }
    if let Some(source) = std::error::Error::source(t) {
        words = format!("{words}: {source}");
    }
    words
}

pub fn get(url: &str) -> Result<Answer, Fail> {
    send(agent().get(url), None)
}

/// A GET with the side's token, when there is one.
pub fn get_as(url: &str, token: Option<&str>) -> Result<Answer, Fail> {
    let mut request = agent().get(url);
    if let Some(t) = token {
        request = request.set("Authorization", &format!("Bearer {t}"));
    }
    send(request, None)
}

pub fn post(url: &str, token: Option<&str>, body: &Value) -> Result<Answer, Fail> {
    let mut request = agent().post(url);
    if let Some(t) = token {
        request = request.set("Authorization", &format!("Bearer {t}"));
    }
    send(request, Some(body))
}

/// A server's address without a trailing slash.
pub fn base(url: &str) -> &str {
    url.trim_end_matches('/')
}

/// A record at a URL, downloaded to a temporary file for `verify`.
pub fn download(url: &str) -> Result<tempfile::NamedTempFile, Fail> {
    let answer = get(url)?;
    if answer.status != 200 {
        return Err(fail!("{url}: {}", answer.message()));
    }
    let mut file = tempfile::Builder::new().suffix(".jsonl").tempfile().map_err(|e| Fail::msg(e.to_string()))?;
    std::io::Write::write_all(&mut file, answer.body.as_bytes()).map_err(|e| Fail::msg(e.to_string()))?;
    Ok(file)
}
