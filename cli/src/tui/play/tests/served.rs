//! The menu against a dice server, without a terminal or a server: what
//! the model asks of the edge (a pick sent on the head it was listed on,
//! the game read again), and what it shows of the answers by hand.

use super::*;

const URL: &str = "http://club.example:7878";

/// The `rally` game after its first `n` decisions as a server would give
/// it to `side`: the game, the listing for the side, a line per event.
fn served(n: usize, side: &str) -> Served {
    let game = rally_after(n);
    let listing = moves::list(&game, Some(side)).unwrap();
    let lines = (1..=game.seq()).map(|seq| (seq, format!("event {seq}"))).collect();
    Served { game, listing, lines, ended: false }
}

fn on_server(n: usize, side: &str) -> Model {
    Model::served(URL.into(), served(n, side))
}

#[test]
fn given_a_server_when_a_pick_is_chosen_then_it_is_sent_on_the_head_it_was_listed_on() {
    let m = on_server(2, "allies");
    let screen = m.screen(PANES);
    assert_eq!(
        screen.title,
        format!("rollcall play · rally · leader-activation@1 · you play allies on the server {URL}")
    );
    assert!(screen.status.ends_with("Enter sends the decision to the server · ? keys · q quit"), "{}", screen.status);
    let head = m.listing.head.clone();
    let m = m.key(Key::Enter);
    let Some(Request::Send { pick, decision, expected }) = m.request.clone() else { panic!("nothing sent") };
    assert_eq!((pick.as_str(), expected), ("command unit=rifles-1", head));
    assert_eq!(decision, json!({"type": "command", "unit": "rifles-1"}));
    assert!(m.pending.is_empty(), "nothing is held on a server");

    // The server decided it: the game read again is shown, its new lines marked.
    let sent = Sent { refused: None, signed: true };
    let m = m.answer(Outcome::Sent { pick, answer: Ok(sent), now: Ok(Box::new(served(3, "allies"))) });
    assert!(m.request.is_none());
    assert!(m.message.starts_with("#3 command unit=rifles-1: decided by the server: seq 6, head "), "{}", m.message);
    assert!(m.message.ends_with("signed by the server (checked)"), "{}", m.message);
    assert!(m.said[0].starts_with("#3 command unit=rifles-1: decided by the server: game rally at seq 6"));
    let screen = m.screen(PANES);
    assert_eq!(marked(&screen.narrative), ["event 5", "event 6"]);
    assert_eq!(m.listing, served(3, "allies").listing, "listed again from the server");
}

#[test]
fn given_a_server_when_it_refuses_then_its_words_are_shown_and_the_menu_stays() {
    let m = on_server(2, "allies").key(Key::Enter);
    let Some(Request::Send { pick, .. }) = m.request.clone() else { panic!("nothing sent") };
    let why = "decision: lt-adams is not being activated (422 refused): nothing was written".to_string();
    let m = m.answer(Outcome::Sent { pick, answer: Err(why), now: Ok(Box::new(served(2, "allies"))) });
    assert_eq!(
        m.message,
        "command unit=rifles-1: decision: lt-adams is not being activated (422 refused): nothing was written"
    );
    assert!(m.said.is_empty());
    assert!(matches!(m.open, Open::Menu));
    assert!(text(&m.screen(PANES).menu).starts_with("What allies may do now:"));
    // A 200 that names a refusal is one too; a head signature that is not the server's is said.
    let m = m.key(Key::Enter);
    let refused = Sent { refused: Some("the chain is used up".into()), signed: true };
    let m = m.answer(Outcome::Sent { pick: "p".into(), answer: Ok(refused), now: Err("gone".into()) });
    assert_eq!(
        m.message,
        "p: refused: the chain is used up: nothing was written (the game could not be read again: gone)"
    );
    let m = m.key(Key::Enter);
    let forged = Sent { refused: None, signed: false };
    let m = m.answer(Outcome::Sent { pick: "p".into(), answer: Ok(forged), now: Ok(Box::new(served(3, "allies"))) });
    assert!(m.message.ends_with("its signature is NOT the server's"), "{}", m.message);
}

#[test]
fn given_a_server_then_nothing_is_taken_back_or_ended_and_the_help_says_so() {
    let m = on_server(2, "allies");
    for key in ['u', 'e'] {
        let m = m.clone().key(Key::Char(key));
        assert!(m.request.is_none());
        assert_eq!(m.message, "? shows the keys");
    }
    let help = m.clone().key(Key::Char('?')).screen(PANES).help.unwrap().join("\n");
    assert!(help.contains("sent to the server") && !help.contains("take back"), "{help}");
    assert!(m.key(Key::Char('q')).quit, "nothing is held: q leaves at once");
}

#[test]
fn given_the_other_side_to_decide_then_the_screen_waits_and_follows_the_server() {
    // After lt-adams' rally, axis activates: allies waits.
    let m = on_server(7, "allies");
    let screen = m.screen(PANES);
    assert!(
        text(&screen.menu)
            .starts_with("Waiting for axis to decide: their decisions appear here as the server makes them"),
        "{}",
        text(&screen.menu)
    );
    assert!(screen.status.contains("axis to decide · waiting: the server is read every second"), "{}", screen.status);
    assert!(m.follows());
    let head = m.game.head();
    let m = m.tick();
    assert!(matches!(m.request, Some(Request::Follow { head: h }) if h == head));
    assert!(!m.follows(), "one reading at a time");
    // Not moved: nothing changes. Gone: said, and tried again.
    let m = m.answer(Outcome::Followed(Ok(None)));
    assert_eq!((m.message.as_str(), m.game.head()), ("", head));
    let m = m.answer(Outcome::Followed(Err("http://club.example:7878/games/rally: cannot reach the server".into())));
    assert_eq!(m.message, "http://club.example:7878/games/rally: cannot reach the server (trying again)");
    // Axis activated lt-vogel, commanded and acted, and ended: allies' decision again.
    let m = m.answer(Outcome::Followed(Ok(Some(Box::new(served(11, "allies"))))));
    assert_eq!(m.message, "your decision: allies to decide");
    assert!(text(&m.screen(PANES).menu).starts_with("What allies may do now:"));
    assert_eq!(marked(&m.screen(PANES).narrative).len() as u64, served(11, "allies").game.seq() - rally_after(7).seq());
}

#[test]
fn given_a_form_open_or_a_game_ended_then_the_server_is_not_followed() {
    // The move of the referee's inputs asks its fields: no reading meanwhile.
    let m = on_server(7, "allies");
    let moves = m.listing.entries().position(|e| e.pick == "move").unwrap();
    let m = (0..moves).fold(m, |m, _| m.key(Key::Down)).key(Key::Enter);
    assert!(matches!(m.open, Open::Decide(..)));
    assert!(!m.follows() && m.tick().request.is_none());

    let mut ended = served(14, "allies");
    ended.ended = true;
    let m = Model::served(URL.into(), ended);
    assert!(!m.follows());
    assert!(text(&m.screen(PANES).menu).starts_with("The game has ended: nothing more may be decided (q quits)."));
    let m = m.key(Key::Enter);
    assert!(m.request.is_none(), "nothing is sent on an ended game: {}", m.message);
}
