//! The kinds of refusal of combat-hq: each names the rule it enforces (its doc
//! comment quotes the sentence) or the open point of docs/rules/INTERPRETATIONS.md
//! it follows. The ideas every ruleset shares are [`crate::refusal::Shared`].

crate::refusal_kinds! {
    /// Why combat-hq refuses a decision.
    pub enum Refused {
        /// A unit or command group in reserve is off the table: "a single Reserve Command Group enters" before it moves or is activated.
        InReserve = "in-reserve",
        /// "sides alternate pulses, one chain per pulse": when no side has dice left to chain, the turn ends.
        NoPulseLeft = "no-pulse-left",
        /// "on a normal roll, 1s are discarded"; on a Command Failure they go to the enemy: 1s never form a chain.
        OnesFormNoChain = "ones-form-no-chain",
        /// "Dice showing the same number form a Dice Chain": a number a D6 shows, 2 to 6.
        ChainNumber = "chain-number",
        /// A chain is of dice the battle group has left this turn.
        NoDiceToChain = "no-dice-to-chain",
        /// "6s are wild and may join any chain": wild 6s join a chain of another number.
        SixesJoinAnotherChain = "sixes-join-another-chain",
        /// "the 1s go to the opponent as Wild Dice": a side adds only the Wild Dice it holds.
        WildDiceLimit = "wild-dice-limit",
        /// "each die activates one command group (a command unit and up to 3 units within 6")".
        OneGroupPerDie = "one-group-per-die",
        /// "each battle group keeps its own Command Dice": a chain activates or enters its own battle group's command groups.
        OtherBattleGroup = "other-battle-group",
        /// "each die activates one command group (a command unit and up to 3 units within 6")".
        CommandGroupSize = "command-group-size",
        /// A die activates the units of one command group.
        NotInCommandGroup = "not-in-command-group",
        /// The command unit is activated with its command group: the units named are the up to 3 others.
        CommandUnitNamed = "command-unit-named",
        /// "a command unit and up to 3 units within 6"": a unit beyond its command unit's range is not activated.
        OutOfCommandRange = "out-of-command-range",
        /// Only a Reserve Command Group enters the table.
        NotInReserve = "not-in-reserve",
        /// "Its artillery is held in reserve until one command group enters the table." (C2, option `artillery-waits-for-a-command-group`)
        ArtilleryWaits = "artillery-waits-for-a-command-group",
        /// A Command Failure "stops that group's reserves from entering unless the CO pays 2 Staff Orders per Reserve Command Group" (multi-battle-group rules).
        CommandFailureBarsReserves = "command-failure-bars-reserves",
        /// "each battle group keeps its own … Staff Orders pool": the CO pays from his own side's battle groups or his own Staff Orders.
        StaffOrdersPayer = "staff-orders-payer",
        /// "Staff Orders: … restocked orders are usable from the next turn": a group enters only with the Staff Orders usable now.
        StaffOrdersShort = "staff-orders-short",
    }
}
