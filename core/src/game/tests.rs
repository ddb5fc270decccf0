use super::*;

/// The rally fixture played, and its header.
fn played() -> (Header, Vec<Event>) {
    let text = include_str!("../../../fixtures/leader-activation/rally.json");
    let script = crate::script::Script::parse(text, "rally", crate::registry::builtin()).unwrap();
    let mut game = Game::open(script.header.clone(), crate::registry::builtin()).unwrap();
    let mut events = Vec::new();
    for (decision, dice) in &script.decisions {
        events.extend(game.play(decision, dice.as_ref()).unwrap());
    }
    (script.header, events)
}

/// Random games of every ruleset: each line `play_lines` writes from
/// the bytes its link hashed is the event's canonical line, byte for
/// byte, and the game plays on as `play` would.
#[test]
fn the_lines_a_game_plays_are_its_events_canonical_lines() {
    for ruleset in ["leader-activation", "phoenix-command", "combat-hq", "formation-activation"] {
        let (header, decisions) = crate::sim::random_game(ruleset, 11, 60).unwrap();
        let (mut lined, mut plain) = (
            Game::open(header.clone(), crate::registry::builtin()).unwrap(),
            Game::open(header, crate::registry::builtin()).unwrap(),
        );
        for decision in &decisions {
            let (events, lines) = lined.play_lines(decision, None).unwrap();
            assert_eq!(events, plain.play(decision, None).unwrap(), "{ruleset}");
            let encoded: Vec<String> = events.iter().map(|e| record::encode_event(e).unwrap()).collect();
            assert_eq!(lines.lines(), &encoded[..], "{ruleset}");
            // Chained as the game made them, split as a check of the lines splits them.
            let checked = crate::chain::ChainedLines::check(lines.from(), encoded).unwrap();
            let members = |c: crate::chain::CheckedLine<'_>| (c.seq, c.kind, c.hash, c.body.to_vec());
            assert_eq!(
                lines.checked().map(members).collect::<Vec<_>>(),
                checked.checked().map(members).collect::<Vec<_>>()
            );
            assert_eq!((lines.to(), lines.to()), (checked.to(), &Head { seq: lined.seq(), hash: lined.head() }));
        }
        assert_eq!((lined.head(), lined.seq()), (plain.head(), plain.seq()), "{ruleset}");
    }
}

#[test]
fn a_line_taken_unparsed_folds_in_as_its_parsed_event_does() {
    let (header, events) = played();
    let (mut parsed, mut taken) = (
        Game::open(header.clone(), crate::registry::builtin()).unwrap(),
        Game::open(header, crate::registry::builtin()).unwrap(),
    );
    for event in &events {
        let line = record::encode_event(event).unwrap();
        parsed.apply(event).unwrap();
        // Every event of this game is a decision, a roll or a fact: each is taken.
        assert!(taken.apply_line(line.as_bytes()), "seq {} is taken", event.seq);
        assert_eq!(
            (taken.head(), taken.decisions(), taken.turns()),
            (parsed.head(), parsed.decisions(), parsed.turns())
        );
        assert_eq!(taken.state(), parsed.state(), "seq {}", event.seq);
        // Taken twice, it is out of its place: refused, and nothing changes.
        assert!(!taken.apply_line(line.as_bytes()));
        assert_eq!(taken.seq(), event.seq);
    }
}

#[test]
fn verify_takes_every_line_of_a_good_record_unparsed_and_leaves_a_refused_decision_to_the_parse() {
    let (header, events) = played();
    let mut verifier = Verifier::new(&header, crate::registry::builtin()).unwrap();
    for event in &events {
        assert!(verifier.take_line(record::encode_event(event).unwrap().as_bytes()), "seq {}", event.seq);
    }
    let (verified, game) = verifier.finish().unwrap();
    assert_eq!((verified.head, game.seq()), (events.last().unwrap().hash, events.len() as u64));

    // The first decision, giving the first move to a side the scenario does not have.
    let mut body = events[0].body.clone();
    body["decision"]["first"] = "nobody".into();
    let hash =
        record::link(&Game::open(header.clone(), crate::registry::builtin()).unwrap().root(), 1, Kind::Decision, &body)
            .unwrap();
    let refused = Event { body, hash, ..events[0].clone() };
    let mut verifier = Verifier::new(&header, crate::registry::builtin()).unwrap();
    assert!(!verifier.take_line(record::encode_event(&refused).unwrap().as_bytes()));
    assert_eq!(verifier.game().seq(), 0);
    let failure = verifier.push(&refused).unwrap_err();
    assert_eq!(failure.kind, Fault::DecisionRefused, "{failure}");
}

/// A decision whose text the typed read does not vouch for (a member
/// the rules ignore, a control character, a number out of range) is
/// left to the parse, which refuses it as a pushed event is refused.
#[test]
fn a_decision_the_text_read_does_not_vouch_for_is_left_to_the_parse() {
    let (header, events) = played();
    let root = Game::open(header.clone(), crate::registry::builtin()).unwrap().root();
    let changes: [fn(&mut Value); 3] =
        [|d| d["extra"] = 1.into(), |d| d["first"] = "red\u{1b}[31m".into(), |d| d["first"] = 10_000_000_000u64.into()];
    for change in changes {
        let mut body = events[0].body.clone();
        change(&mut body["decision"]);
        let hash = record::link(&root, 1, Kind::Decision, &body).unwrap();
        let refused = Event { body, hash, ..events[0].clone() };
        let mut verifier = Verifier::new(&header, crate::registry::builtin()).unwrap();
        assert!(!verifier.take_line(record::encode_event(&refused).unwrap().as_bytes()), "{:?}", refused.body);
        assert_eq!(verifier.game().seq(), 0);
        let failure = verifier.push(&refused).unwrap_err();
        assert_eq!(failure.kind, Fault::DecisionRefused, "{failure}");
        assert!(failure.to_string().contains("decision"), "{failure}");
    }
}

#[test]
fn a_line_not_canonical_or_not_next_is_left_to_the_parse() {
    let (header, events) = played();
    let line = record::encode_event(&events[0]).unwrap();
    let game = || Game::open(header.clone(), crate::registry::builtin()).unwrap();
    assert!(game().apply_line(line.as_bytes()));
    let spaced = line.replacen("\"body\":", "\"body\": ", 1);
    let upper = line.replacen(&events[0].hash.to_string(), &events[0].hash.to_string().to_uppercase(), 1);
    let later = record::encode_event(&events[1]).unwrap();
    let relinked = record::encode_event(&Event { hash: Digest::of(b"elsewhere"), ..events[0].clone() }).unwrap();
    for other in [spaced, upper, later, relinked, format!("{line} "), line.replace("\"seq\":1}", "\"seq\":01}")] {
        let mut g = game();
        assert!(!g.apply_line(other.as_bytes()), "{other}");
        assert_eq!((g.seq(), g.head()), (0, g.root()), "{other}");
    }
}

/// A line whose body is not canonical (a space in it) but whose link is
/// hashed over its bytes as they are, so that the link holds: refused
/// by the fold, with a reader's proof and without, for every kind of
/// line (a fact's body is proved canonical by its own reader,
/// `record::fact_scanned`; a decision's by the fold when the reader
/// left it).
#[test]
fn a_line_whose_link_holds_but_whose_body_is_not_canonical_is_left_to_the_parse() {
    let (header, events) = played();
    let mut game = Game::open(header.clone(), crate::registry::builtin()).unwrap();
    let mut refused = std::collections::BTreeSet::new();
    for event in &events {
        let line = record::encode_event(event).unwrap();
        let body = record::split_shape(line.as_bytes()).unwrap().body;
        let close = body.as_ptr() as usize - line.as_ptr() as usize + body.len() - 1;
        let spaced = format!("{} {}", &line[..close], &line[close..]);
        let parts = record::split_shape(spaced.as_bytes()).unwrap();
        let link = record::link_pieces(&game.head(), parts.hashed);
        let spaced = spaced.replacen(&event.hash.to_string(), &link.to_string(), 1);
        let proof = record::LinkProof::of(&game.head(), spaced.as_bytes()).expect("its link holds");
        for proof in [None, Some(&proof)] {
            let mut g = game.clone();
            assert!(!g.apply_line_proven(spaced.as_bytes(), proof), "{spaced}");
            assert_eq!((g.seq(), g.head()), (game.seq(), game.head()));
        }
        refused.insert(event.kind.name());
        assert!(game.apply_line(line.as_bytes()), "{line}");
    }
    assert_eq!(refused.into_iter().collect::<Vec<_>>(), ["decision", "fact", "roll"]);
}

/// Why replay (`Game::apply`) and verify stop at the first bad event.
fn replayed_and_verified(header: &Header, events: &[Event]) -> (ApplyError, VerifyFailure) {
    let mut game = Game::open(header.clone(), crate::registry::builtin()).unwrap();
    let replayed = events.iter().find_map(|e| game.apply(e).err()).expect("replay stops");
    let verified = verify(header, events.iter().cloned().map(Ok::<_, String>), crate::registry::builtin())
        .expect_err("verify stops");
    (replayed, verified)
}

#[test]
fn replay_and_verify_say_the_same_of_a_decision_out_of_order_or_a_broken_link() {
    let (header, events) = played();
    // The second decision renumbered 3, and the chain rebuilt over it.
    let mut renumbered = events.clone();
    let second = renumbered.iter().filter(|e| e.kind == Kind::Decision).nth(1).unwrap().seq;
    let mut head = record::header_hash(&header).unwrap();
    for e in renumbered.iter_mut() {
        if e.seq == second {
            e.body["number"] = 3.into();
        }
        e.hash = record::link(&head, e.seq, e.kind, &e.body).unwrap();
        head = e.hash;
    }
    let (replayed, verified) = replayed_and_verified(&header, &renumbered);
    assert_eq!((replayed.seq, Some(replayed.seq)), (second, verified.seq));
    assert_eq!(replayed.reason, "decision number 3 where 2 was due: a decision was dropped, repeated or moved");
    assert_eq!(verified.reason, replayed.reason);
    assert_eq!((replayed.kind, verified.kind), (Fault::DecisionNumber, Fault::DecisionNumber));
    // The same decision changed without rebuilding the chain.
    let mut changed = events;
    changed.iter_mut().find(|e| e.seq == second).unwrap().body["number"] = 3.into();
    let (replayed, verified) = replayed_and_verified(&header, &changed);
    assert!(replayed.reason.starts_with("the hash does not chain"), "{}", replayed.reason);
    assert_eq!(verified.reason, replayed.reason);
    assert_eq!((replayed.kind, verified.kind), (Fault::LinkBroken, Fault::LinkBroken));
}

#[test]
fn a_header_that_lies_about_itself_fails_with_the_claim_it_breaks() {
    let (header, events) = played();
    let verified = |header: &Header| {
        verify(header, events.iter().cloned().map(Ok::<_, String>), crate::registry::builtin()).unwrap_err()
    };
    let mut rehashed = header.clone();
    rehashed.rules_hash = Digest::of(b"other rules");
    let failure = verified(&rehashed);
    assert_eq!((failure.seq, failure.kind), (None, Fault::HeaderRulesHash));
    assert_eq!(
        check_header(&rehashed, crate::registry::builtin()).unwrap_err().message,
        failure.reason.trim_start_matches("header: ")
    );
    let mut recommitted = header.clone();
    recommitted.parties[0].commitment = Some(Digest::of(b"another share"));
    assert_eq!(verified(&recommitted).kind, Fault::CommitmentMismatch);
}

#[test]
fn a_record_cut_short_or_with_an_unreadable_line_fails_as_truncated_or_unreadable() {
    let (header, mut events) = played();
    let last = events.pop().unwrap();
    let failure = verify(&header, events.iter().cloned().map(Ok::<_, String>), crate::registry::builtin()).unwrap_err();
    assert_eq!((failure.seq, failure.kind), (Some(last.seq), Fault::Truncated));
    let failure = verify(
        &header,
        [Ok::<_, String>(events[0].clone())].into_iter().chain(std::iter::once(Err("line 3: not JSON".to_string()))),
        crate::registry::builtin(),
    )
    .unwrap_err();
    assert_eq!((failure.seq, failure.kind), (Some(2), Fault::Unreadable));
}
