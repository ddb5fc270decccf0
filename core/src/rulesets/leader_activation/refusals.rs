//! The kinds of refusal of leader-activation: each names the rule it enforces (its doc
//! comment quotes the sentence) or the open point of docs/rules/INTERPRETATIONS.md
//! it follows. The ideas every ruleset shares are [`crate::refusal::Shared`].

crate::refusal_kinds! {
    /// Why leader-activation refuses a decision.
    pub enum Refused {
        /// "Upon a leader's activation in the Command Phase, the leader may himself command any three friendly units": leaders are activated, units are commanded.
        NotALeader = "not-a-leader",
        /// A leader is locked in close combat between activations, not in the middle of his own (L10: close combat is a referee fact).
        LockMidActivation = "lock-mid-activation",
        /// "It may not be activated at another time during that turn." A unit, likewise,
        /// may be commanded only if it has "not yet been activated during that turn".
        ActivatedOnce = "activated-once",
        /// "You do not get a skip activation for a leader locked in close combat although you are not allowed to activate him."
        LockedInCloseCombat = "locked-in-close-combat",
        /// "Remember that the side which had the first activation in a turn will never have the last activation as well." (L9, option `last-activation-rule`)
        LastActivation = "last-activation-rule",
        /// "A broken leader is allowed to self rally upon its activation": only a broken leader self-rallies.
        SelfRallyUnbroken = "self-rally-unbroken",
        /// "If the leader fails to self rally, he may not do anything": one self-rally an activation.
        SelfRallyOnce = "self-rally-once",
        /// "A broken leader is allowed to self rally upon its activation": before anything else.
        SelfRallyFirst = "self-rally-first",
        /// "A broken leader may only self rally and may not be rallied by another leader."
        BrokenLeader = "broken-leader",
        /// "after the leader has performed any action of his own (such as moving or shooting) he may not command other units any more"
        LeaderHasActed = "leader-has-acted",
        /// "the leader may himself command any three friendly units" (the scenario may set another number).
        CommandLimit = "command-limit",
        /// "A leader may not activate another leader"
        LeaderNotCommanded = "leader-not-commanded",
        /// "He may only do so if these units are not broken, in command range and have not yet been activated during that turn."
        BrokenNotCommanded = "broken-not-commanded",
        /// "The command range depends on the unit commanded rather than on the leader giving the orders." (L8: measured when the unit is commanded, inclusive)
        OutOfCommandRange = "out-of-command-range",
        /// "After all actions have been completed, choose another unit to command": a unit acts only while it is the one commanded, and before its leader acts himself.
        ActionsOver = "actions-over",
        /// "Commanding a unit simply means activating it": a unit acts once its leader has commanded it.
        NotCommanded = "not-commanded",
        /// "You may rally up to three units within command range."
        RallyLimit = "rally-limit",
        /// "Command teams themselves may not be rallied by other command teams - they may instead try to self rally."
        LeaderNotRallied = "leader-not-rallied",
        /// "A leader is allowed a single rally action at the end of his activation. … he may rally broken units."
        RallyUnbroken = "rally-unbroken",
        /// "You get as many skips as you have leaders less."
        NoSkipLeft = "no-skip-left",
        /// LN4: a move of the leader being activated is "any action of his own (such as moving or shooting)" unless `displaced` says it is the referee's; any other move is the referee's, so only the active leader's move says `displaced`.
        DisplacedOnlyTheActiveLeader = "displaced-only-the-active-leader",
        /// "Skipping means that instead of activating a command team you pass on to your opponent": the opponent must have a leader left to activate.
        NothingToPassTo = "nothing-to-pass-to",
    }
}
