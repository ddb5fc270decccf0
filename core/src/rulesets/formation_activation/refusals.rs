//! The kinds of refusal of formation-activation: each names the rule it enforces (its doc
//! comment quotes the sentence) or the open point of docs/rules/INTERPRETATIONS.md
//! it follows. The ideas every ruleset shares are [`crate::refusal::Shared`].

crate::refusal_kinds! {
    /// Why formation-activation refuses a decision.
    pub enum Refused {
        /// A unit not yet placed is not on the map: the referee places it first (F6).
        NotOnMap = "not-on-map",
        /// Formation markers are chit-pull, "drawn at random from a cup": an empty cup draws nothing.
        CupEmpty = "cup-empty",
        /// Only the active formation's in-command units conduct operations.
        FormationNotActive = "formation-not-active",
        /// "Out-of-command units may not move or fire during the action phase, but may take reaction fire during the opponent's action phase"
        OutOfCommand = "out-of-command",
        /// A unit that has completed its operations acts again after its formation's next cleanup.
        OperationsComplete = "operations-complete",
        /// A move ends in another hex, and an assault is on another hex.
        SameHex = "same-hex",
        /// Reaction fire is taken "during the opponent's action phase".
        ReactionFireActiveSide = "reaction-fire-active-side",
        /// "in command during their first action phase": a unit is placed between activations, so its formation's next activation is its first (F6).
        PlaceDuringActivation = "place-during-activation",
    }
}
