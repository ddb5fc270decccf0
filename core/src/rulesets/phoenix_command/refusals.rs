//! The kinds of refusal of phoenix-command: each names the rule it enforces (its doc
//! comment quotes the sentence) or the open point of docs/rules/INTERPRETATIONS.md
//! it follows. The ideas every ruleset shares are [`crate::refusal::Shared`].

crate::refusal_kinds! {
    /// Why phoenix-command refuses a decision.
    pub enum Refused {
        /// A figure who failed his check when his Shaken comrades were abandoned "will lag behind by 1 CP" (P6).
        LagsBehind = "lags-behind",
        /// Shaken figures not rallied only hold: "the Shaken figures will …" do nothing more.
        ShakenFigure = "shaken-figure",
        /// "Panicked figures can only use ragged fire" or flee towards cover; only a Panicked figure flees.
        PanickedFlees = "panicked-flees",
        /// "Once a fanatic has panicked, he cannot be rallied out of his panic, and will attempt to leave the battlefield."
        Fanatic = "fanatic",
        /// A fleeing figure either reaches cover or leaves the battlefield.
        FleeOneWay = "flee-one-way",
        /// "The target figure then decides if he wishes to engage in melee or escape": a melee attack comes last among the actions.
        MeleeLast = "melee-last",
        /// "Panicked figures can only use ragged fire": a Shaken or Panicked figure fires ragged where he stands.
        RaggedFireOnly = "ragged-fire-only",
        /// A figure moves no further than its action allows (a standard move, a double-time advance, 3" to cover).
        BeyondMove = "beyond-move",
        /// "Units can only perform actions by expending accumulated CP"
        NotSpendingCp = "not-spending-cp",
        /// "Units can only perform actions by expending accumulated CP": a unit or leader pays only with CP it has.
        NoCp = "no-cp",
        /// Only the unit's own figures in play act, check, rout or take cover with it.
        NotAFigureOfTheUnit = "not-a-figure-of-the-unit",
        /// "Each figure in the unit must perform his action before the unit's next CP can be expended"
        OneActionPerCp = "one-action-per-cp",
        /// "Each figure in the unit must perform his action before the unit's next CP can be expended": a CP's actions finish first.
        MidCp = "mid-cp",
        /// "each figure can only double-time advance once per turn"
        DoubleTimeOnce = "double-time-once",
        /// A unit without a leader gives no orders: command checks, CP spent on morale and new teams need one.
        NoLeader = "no-leader",
        /// "If a unit decides to expend CP by performing actions, all the unit's CP must be expended"
        ExpendAll = "expend-all-cp",
        /// "The new leader must accumulate and spend 1 CP to take command"
        TakeCommandFirst = "take-command-first",
        /// "Leaders are not required to perform command checks on themselves."
        LeaderNotChecked = "leader-not-checked",
        /// A command check is made for the figures besides the leader.
        NothingToCheck = "nothing-to-check",
        /// The new leader is appointed "immediately from within its ranks".
        BrevetFromRanks = "brevet-from-ranks",
        /// A unit brevets a new leader only when its leader has fallen and the unit has not broken.
        NoBrevetDue = "no-brevet-due",
        /// The referee gives a hit's injury effect (P9: no injury table in the scenario) before the game goes on, oldest hit first.
        InjuryDue = "injury-due",
        /// "The target figure then decides if he wishes to engage in melee or escape" (option `melee-response`) before the game goes on.
        MeleeResponseDue = "melee-response-due",
        /// A unit whose leader fell brevets a new one "immediately from within its ranks".
        BrevetDue = "brevet-due",
        /// A Broken unit "immediately routs, moving directly away from the enemy towards the nearest cover": the referee moves it first.
        RoutDue = "rout-due",
        /// "A unit which has been successfully interrupted must cease performing actions and end their turn."
        Interrupted = "interrupted",
        /// A sub-unit consolidated into a larger unit acts with it, not on its own.
        NotAUnitNow = "not-a-unit-now",
        /// A figure fires a weapon he carries.
        WeaponNotCarried = "weapon-not-carried",
        /// "A weapon listed as 1 Use means that the weapon is disposable and can only be fired once before being discarded."
        OneUse = "one-use",
        /// "units which have used the Double-time advance in their actions" may not fire (option `double-time-bars-fire-for-the-turn`).
        DoubleTimeBarsFire = "double-time-bars-fire-for-the-turn",
        /// "Units which have performed strategic movement in the turn … are not eligible to fire"
        StrategicMovementBarsFire = "strategic-movement-bars-fire",
        /// A unit that moved strategically "may not act in the operations phase".
        StrategicMovementBarsOperations = "strategic-movement-bars-operations",
        /// "The Weapons Tables provide information on Range"
        OutOfWeaponRange = "out-of-weapon-range",
        /// "Explosive weapons detonate on the intervening cover": the decision gives where it stands.
        ExplosiveNeedsCover = "explosive-needs-cover",
        /// The 1, 2 or 3 shot line: "A Shooter, even if willing, cannot use the 2 shot or 3 shot lines … with" a 1 Shot/Action or 1 Use weapon; ragged fire is at the maximum rate.
        ShotLine = "shot-line",
        /// "a weapon listed as having 1 Shot/Action or 1 Use takes the shooter his entire action to aim and fire"; disciplined fire and advancing and firing are different actions (2.4).
        AdvanceAndFire = "advance-and-fire",
        /// An injury effect is given only for a hit waiting for one.
        NoInjuryDue = "no-injury-due",
        /// A Light Wound calls for a roll against the figure's Knockout Chance, which the scenario gives (P9).
        NoKnockoutChance = "no-knockout-chance",
        /// "A unit (ambushers) sets an interrupt by expending 1 CP": one held CP at a time.
        InterruptHeld = "interrupt-held",
        /// A Broken unit takes no orders: it cannot lie in wait, move strategically, join or act.
        BrokenTakesNoOrders = "broken-takes-no-orders",
        /// "A unit can only attempt one Ragged Interrupt in a turn"
        RaggedInterruptOnce = "ragged-interrupt-once",
        /// An interrupt fires at a unit that has entered the ambushers' line of sight.
        NotLyingInWait = "not-lying-in-wait",
        /// The ambushers fire at the unit they lay in wait for.
        NotTheAmbushedUnit = "not-the-ambushed-unit",
        /// "A failed roll means that the figures that failed perform ragged fire on the" target at once.
        FailedCheckFiresRagged = "failed-check-fires-ragged",
        /// "The entire unit must perform the same action"
        SameAction = "same-action",
        /// "a unit performing a Ragged Interrupt can only perform ragged fire"
        RaggedInterruptRaggedFire = "ragged-interrupt-ragged-fire",
        /// Only a unit "which has been successfully interrupted" takes cover.
        NotInterrupted = "not-interrupted",
        /// "Each figure can move up to 3" towards the nearest cover"; "they cannot advance towards an enemy to do so": nearer no enemy figure in play (N23; option `take-cover-away-from-interrupters-only`: the interrupting unit's).
        TowardsEnemy = "towards-enemy",
        /// A blown ambush's fire "is resolved before" the unit goes on.
        AmbushBlown = "ambush-blown",
        /// A melee attack needs the attacker's Melee Attack Value, which the scenario gives.
        NoMeleeAttackValue = "no-melee-attack-value",
        /// A melee response answers a melee attack that waits for one.
        NoMeleeWaiting = "no-melee-waiting",
        /// A target that engages in melee stands; only an escaping target moves away.
        EngagedStays = "engaged-stays",
        /// "If the target survives this attack, the target can then perform actions normally" (option `melee-escape-without-moving`).
        EscapeWithoutMoving = "melee-escape-without-moving",
        /// "the leader must expend a CP to restore the Unit Morale to Bold for the turn"; a Broken unit: "Once the unit is in cover, the leader must expend a CP to steady the unit".
        RestoreUnitMoraleFirst = "restore-unit-morale-first",
        /// "the leader must expend 1 CP composing himself before he can expend any further CP"
        LeaderComposesFirst = "leader-composes-first",
        /// "a leader must first spend 1 accumulated CP to rally all shaken figures in his unit"
        RallyShakenFirst = "rally-shaken-first",
        /// Only a unit's leader, or a superior officer who has joined it, spends CP on its morale.
        NotHisUnit = "not-his-unit",
        /// A superior officer joins a unit within his command distance.
        SuperiorNotJoined = "superior-not-joined",
        /// "If the leader has no CP, the leader's superior officer can move to join the unit and expend his own CP to rally the unit" (N27; a unit that routs excepted: "A commanding officer can attempt to rendezvous with the unit as it routs").
        LeaderHasCp = "leader-has-cp",
        /// A rally, steadying, composing or abandonment needs a Shaken, Panicked or Broken figure or unit to act on.
        NothingToRally = "nothing-to-rally",
        /// "Once the unit is in cover, the leader must expend a CP to steady the unit"
        SteadyInCover = "steady-in-cover",
        /// The Shaken figures are dealt with (rallied, abandoned, forced) before the unit's actions.
        ShakenDealtWithFirst = "shaken-dealt-with-first",
        /// A unit abandons its Shaken figures once an activation.
        AbandonOnce = "abandon-once",
        /// A forced rally is for "where he has multiple shaken troops in his unit".
        ForcedRallyMultiple = "forced-rally-multiple",
        /// Only a Broken unit routs.
        NotRouting = "not-routing",
        /// Orders reach only the figures and sub-units within the leader's command distance (P8).
        BeyondCommandDistance = "beyond-command-distance",
        /// "To consolidate sub-units into a larger unit or organization, all sub-units to be consolidated must be within" the command distance of its leader; reorganisation orders come from the leader two levels above.
        NotTheLeader = "not-the-leader",
        /// Consolidation joins sub-units not yet one unit.
        NothingToConsolidate = "nothing-to-consolidate",
        /// A unit consolidates or detaches its own sub-units.
        NotASubUnit = "not-a-sub-unit",
        /// "units can be consolidated into larger organizations …" whole (option `consolidate-whole-organisation`).
        ConsolidateWhole = "consolidate-whole-organisation",
        /// "If the intent were to consolidate to a platoon, all the units would first have to" be consolidated squads.
        NotOneUnit = "not-one-unit",
        /// "Once a unit has been activated in a turn, it cannot become activated again in the turn."
        ActivatedOnce = "activated-once",
        /// The leader stays with his unit: the sub-unit holding him is not detached.
        LeaderStays = "leader-stays",
        /// Reorganisation orders reach units two levels below the leader who gives them.
        TwoLevelsBelow = "two-levels-below",
        /// A reorganisation moves whole units and whole squads.
        WholeUnits = "whole-units",
        /// A leader leads from within his team, squad or platoon.
        LeadFromWithin = "lead-from-within",
        /// A leader needs a command rating: "a command check is made against the leader's Command Rating".
        NoCommandRating = "no-command-rating",
        /// A new team, squad or platoon takes a name no other organisation has.
        NameTaken = "name-taken",
        /// A reorganisation places every figure (or squad) of what it replaces.
        LeftOut = "left-out",
        /// Units move strategically before operations begin.
        StrategicMovementOver = "strategic-movement-over",
        /// "The unit must not be in contact with the enemy before it engages in strategic movement", and "its movement may not bring it into enemy contact".
        EnemyContact = "enemy-contact",
        /// Strategic movement comes first: units are activated once operations begin.
        OperationsNotBegun = "operations-not-begun",
        /// "The decision then passes to the unit with the next highest number of CP, and so forth until all units have been activated."
        MostCpActsNext = "most-cp-acts-next",
    }
}
