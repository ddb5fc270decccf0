//! `rollcall play GAME --pick N [FIELD=VALUE…]`: one of the decisions
//! `rollcall moves` lists, its fields read from what a person typed, played
//! as `play` plays a decision file.

use std::process::ExitCode;

use rollcall_core::log::{open_at_head, EventLog};
use rollcall_core::moves::FillError;
use rollcall_core::script::split_dice;

use crate::args::PlayArgs;
use crate::fail::Fail;
use crate::input::checked::Checked;
use crate::input::store;
use crate::output;
use crate::output::listing::{listed_side, listing, REFEREE};

/// `FIELD=VALUE` arguments, split; a malformed one names itself.
pub(super) fn given_fields(args: &[String]) -> Result<Vec<(String, String)>, Fail> {
    args.iter()
        .map(|a| match a.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.to_string())),
            _ => Err(fail!("{a:?}: give a field of the picked decision as FIELD=VALUE (e.g. to=120,40)")),
        })
        .collect()
}

/// `rollcall play GAME --pick N [FIELD=VALUE…]`: the entry picked from the
/// listing `moves` prints, its fields filled in, decided and appended as
/// `play` appends a decision file's. Bad input (no such entry, a field
/// missing or unreadable) exits 2 and writes nothing; a refusal, 3.
pub fn play(cx: &Checked, args: &PlayArgs) -> Result<ExitCode, Fail> {
    let (id, picked) = (args.game.as_str(), args.pick.as_deref().unwrap_or_default());
    let typed: Vec<String> = args.decision.iter().chain(&args.fields).cloned().collect();
    let given = given_fields(&typed)?;
    let log = store::open_read(&cx.db)?;
    let mut game = open_at_head(&log, id, rollcall_core::registry::builtin())?;
    let by = crate::input::store::decider(&log, &game)?;
    if let (Some(asked), Some(mine)) = (&args.side, &by) {
        if asked != mine && asked != REFEREE {
            return Err(fail!("--side {asked}: this store plays {mine} in game {id}"));
        }
    }
    let side = listed_side(&game, args.side.clone(), by.clone());
    let listing = listing(&game, side.as_deref())?;
    let entry = listing.pick(picked).map_err(|e| fail!("--pick {picked}: {e} (see `rollcall moves {id}`)"))?;
    let decision = entry.fill(&given, false).map_err(|e| {
        let hint = if matches!(e, FillError::Missing { .. }) { ": give each as FIELD=VALUE" } else { "" };
        fail!("--pick {picked} ({}): {e}{hint}", entry.pick)
    })?;
    let (decision, dice) = split_dice(decision).map_err(|(field, m)| fail!("--pick {picked}: {field}: {m}"))?;
    let expected = game.head();
    let events = match game.play_as(&decision, dice.as_ref(), by.as_deref()) {
        Ok(events) => events,
        Err(refusal) => {
            let say = |r| format!("--pick {picked} ({}): {} (nothing was written)", entry.pick, r);
            return crate::output::exit::refusal(refusal, say, cx.mode);
        }
    };
    log.append(id, &expected, &events)?;
    crate::input::store::keep_snapshot(&log, id, &game);
    Ok(output::print(&super::Played { id, game, events }, cx.mode))
}
