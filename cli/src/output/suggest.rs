//! "Did you mean …?" for a misspelt game id, ruleset id, option name or
//! decision type: the error names the word and what was expected; the
//! closest expected word (Jaro-Winkler similarity, as clap's own
//! suggestions) is added to the message.

/// How alike two words must be to be suggested (clap's own threshold is 0.7;
/// a little stricter, so a suggestion is rarely silly).
const ALIKE: f64 = 0.8;

/// The candidate most like `word`, if any is alike enough.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score >= ALIKE)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `message` with a suggestion added when it is one of the errors that
/// name a wrong word and the right ones; `games` lists the store's game ids
/// for "no game …" (asked only then).
pub fn annotate(message: &str, games: impl FnOnce() -> Vec<String>) -> String {
    let found = unknown_word(message)
        .and_then(|(word, candidates)| closest(&word, candidates.iter().map(String::as_str)).map(str::to_string));
    let found = found.or_else(|| {
        let word = between(message, "no game \"", "\" in the store")?;
        let games = games();
        closest(word, games.iter().map(String::as_str)).map(str::to_string)
    });
    match found {
        Some(right) => format!("{message} (did you mean {right}?)"),
        None => message.to_string(),
    }
}

/// The wrong word and the expected ones, from serde's "unknown variant" and
/// "unknown field", and the rules' "unknown ruleset" and "no such setting".
fn unknown_word(message: &str) -> Option<(String, Vec<String>)> {
    for what in ["unknown variant `", "unknown field `"] {
        if let Some(word) = between(message, what, "`") {
            let expected = message.split_once("expected one of ")?.1;
            let candidates = expected.split('`').skip(1).step_by(2).map(str::to_string).collect();
            return Some((word.to_string(), candidates));
        }
    }
    if let Some(word) = between(message, "unknown ruleset \"", "\"") {
        let known = between(message, "(known: ", ")")?;
        return Some((word.to_string(), known.split(", ").map(str::to_string).collect()));
    }
    if let Some((before, after)) = message.split_once(" has no such setting (it has: ") {
        // "FIELD: WORD: VERSION has no such setting (it has: a, b)"
        let word = before.rsplit(": ").nth(1)?.trim_start_matches('+');
        let known = after.split(')').next()?;
        return Some((word.to_string(), known.split(", ").map(str::to_string).collect()));
    }
    None
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let rest = text.split_once(start)?.1;
    Some(rest.split_once(end)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> Vec<String> {
        panic!("the store is asked only for a missing game")
    }

    #[test]
    fn a_misspelt_decision_type_suggests_the_closest() {
        let m = "bad1.json:128: decisions[1].type: unknown variant `activte`, expected one of `begin-turn`, `activate`, `self-rally`, `rally` (nothing was written)";
        assert_eq!(annotate(m, none), format!("{m} (did you mean activate?)"));
    }

    #[test]
    fn a_misspelt_ruleset_suggests_the_closest() {
        let m = "bad2.json:4: rules: unknown ruleset \"leader-activaton\" (known: leader-activation, phoenix-command, combat-hq, formation-activation)";
        assert_eq!(annotate(m, none), format!("{m} (did you mean leader-activation?)"));
    }

    #[test]
    fn a_misspelt_option_suggests_the_closest() {
        let m = "--b: natural-6-rally: leader-activation@1 has no such setting (it has: skill-as-roll-modifier, natural-1-fails, natural-6-rallies, rally-target)";
        assert_eq!(annotate(m, none), format!("{m} (did you mean natural-6-rallies?)"));
    }

    #[test]
    fn a_misspelt_game_id_suggests_a_stored_game() {
        let m = "no game \"rallly\" in the store db (rollcall games lists them)";
        let games = || vec!["friday".to_string(), "rally".to_string()];
        assert_eq!(annotate(m, games), format!("{m} (did you mean rally?)"));
    }

    #[test]
    fn nothing_alike_suggests_nothing() {
        let m = "no game \"zzz\" in the store db (rollcall games lists them)";
        assert_eq!(annotate(m, || vec!["rally".to_string()]), m);
        let m = "x: unknown variant `qqqq`, expected one of `rally`, `move`";
        assert_eq!(annotate(m, none), m);
        assert_eq!(annotate("some other error", none), "some other error");
    }
}
