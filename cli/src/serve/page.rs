//! The play page, `GET /games/{id}/play`: one self-contained HTML page
//! from which a side plays a game on this server. It draws the table with
//! the viewer's own drawing code (`assets/board.js`) and style, and asks
//! this server, and nothing else, for the rest: the game's head, state and
//! narrative, the decisions legal now for the side whose token it holds
//! (their forms rendered from the listing's field descriptions, so the page
//! knows no ruleset), and it sends the decisions chosen. It learns that the
//! game moved from the stream of heads (`GET /games/{id}/heads`).
//!
//! The page is a pure function of the game's id: what it shows comes
//! through the routes every client uses, under the same rules (a token for
//! every write; a listing from the written state alone). The side's token is
//! typed once and kept in the tab's session storage: never in a URL, so
//! never in a log line, a history or a referrer.

use serde_json::json;

use crate::output::view::{escape_html, fill, page_json, BOARD, STYLE};

const TEMPLATE: &str = include_str!("../../assets/play.html");
const PLAY_STYLE: &str = include_str!("../../assets/play.css");
const SCRIPT: &str = include_str!("../../assets/play.js");

/// The play page of `game`.
pub fn render(game: &str) -> String {
    let data = json!({
        "format": "rollcall-play",
        "game": game,
        "made_by": concat!("rollcall ", env!("CARGO_PKG_VERSION")),
    });
    let title = escape_html(&format!("{game} · play · rollcall"));
    let json = page_json(&data);
    fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", &title),
            ("/*{{STYLE}}*/", STYLE),
            ("/*{{PLAY_STYLE}}*/", PLAY_STYLE),
            ("/*{{BOARD}}*/", BOARD),
            ("/*{{SCRIPT}}*/", SCRIPT),
            ("{{DATA}}", &json),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::render;

    /// The page reaches nothing but the server it came from, and a game id
    /// cannot close the element its data is in.
    #[test]
    fn the_page_reaches_only_its_server_and_a_game_id_cannot_break_out() {
        let html = render("</script><script>alert(1)</script>");
        assert!(
            html.contains("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; connect-src 'self'"),
            "the page's policy"
        );
        for outside in ["<script src", "<link rel=\"stylesheet\"", "@import", "url(http", "https://"] {
            assert!(!html.contains(outside), "the page loads nothing from elsewhere: {outside}");
        }
        assert!(!html.contains("</script><script>alert"), "the id is escaped in the data and the title");
        let data = html.split("id=\"rollcall-data\">").nth(1).unwrap().split("</script>").next().unwrap();
        let data: serde_json::Value = serde_json::from_str(data).unwrap();
        assert_eq!(data["game"], "</script><script>alert(1)</script>");
    }

    /// The table is drawn by the viewer's code, not a copy of it.
    #[test]
    fn the_page_draws_with_the_viewers_own_code() {
        let html = render("friday");
        assert!(html.contains(crate::output::view::BOARD));
        assert!(html.contains(crate::output::view::STYLE));
        assert_eq!(html.matches("const RollcallBoard").count(), 1);
    }
}
