//! The decider shape every ruleset has, its registry entry ([`RulesetInfo`]),
//! and a registry of rulesets looked up by id ([`Registry`]).
//!
//! ```text
//! initial(scenario, rules)          -> State
//! decide(&State, &Decision, &mut Dice) -> Result<Vec<Fact>, Violation>   // pure
//! evolve(&mut State, &Fact)                                           // pure, total
//! ```
//!
//! **Invariant:** all rule logic lives in `decide`. `evolve` only records what
//! a fact says; a fact carries every consequence the rules drew (who acts
//! next, whether a rallied unit may still be commanded), so replay never needs
//! the rules. The engine talks to rulesets through [`Machine`], the same shape
//! over JSON values, so that the log, verify and the CLI need not know which
//! ruleset a game uses.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use crate::bounds::{self, Bound};
use crate::dice::{Dice, DiceError};
use crate::proposal::{Known, Proposal};
use crate::refusal::{RefusalKind, Shared};
use crate::rules::{RuleVersion, RulesError, VersionSpec, Versions};
use crate::untagged::{ReadUntagged, Tagged};

/// Why a decision is refused: a rule forbids it (of a kind, with a message
/// saying why), or a die could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    #[error("{message}")]
    Rule { kind: RefusalKind, message: String },
    #[error(transparent)]
    Dice(#[from] DiceError),
}

impl Violation {
    /// A rule's refusal of `kind`, saying `message`.
    pub fn rule(kind: impl Into<RefusalKind>, message: impl Into<String>) -> Self {
        Violation::Rule { kind: kind.into(), message: message.into() }
    }

    /// The kind of refusal: the rule's, or [`Shared::Dice`].
    pub fn kind(&self) -> RefusalKind {
        match self {
            Violation::Rule { kind, .. } => *kind,
            Violation::Dice(_) => Shared::Dice.kind(),
        }
    }
}

/// Refuses a decision with a kind and a message:
/// `refuse!(Refused::BrokenLeader, "{unit} is broken")`.
#[macro_export]
macro_rules! refuse {
    ($kind:expr, $($arg:tt)*) => {
        return Err($crate::ruleset::Violation::rule($kind, format!($($arg)*)))
    };
}

/// A scenario the ruleset cannot start from, naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ScenarioError {
    /// A path into the scenario, e.g. `units[3].skill`.
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { field: field.into(), message: message.into() }
    }
}

/// Who makes a decision: a side, or the referee. Referee decisions are the
/// inputs the engine cannot compute (movement, casualties, line of sight,
/// who begins a turn); in a two-player game either side may make them, and
/// the record shows which side did, so the opponent can dispute it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Actor {
    Side(String),
    Referee,
}

impl Actor {
    pub fn side(side: &str) -> Actor {
        Actor::Side(side.to_string())
    }

    /// Whether `side` may make a decision whose author this is.
    pub fn allows(&self, side: &str) -> bool {
        match self {
            Actor::Side(s) => s == side,
            Actor::Referee => true,
        }
    }
}

impl std::fmt::Display for Actor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Actor::Side(s) => f.write_str(s),
            Actor::Referee => f.write_str("the referee"),
        }
    }
}

/// A ruleset: a decider over its own state, decisions and facts.
pub trait Ruleset: 'static {
    /// The ruleset id, e.g. `leader-activation`.
    const ID: &'static str;
    /// One line saying what it is.
    const TITLE: &'static str;
    type Scenario: DeserializeOwned;
    type State: Clone + Serialize + DeserializeOwned + Send + 'static;
    /// Declared with [`crate::untagged::tagged_enum!`], which reads it untagged too.
    type Decision: DeserializeOwned + Serialize + ReadUntagged + Clone + Send + 'static;
    /// Declared with [`crate::untagged::tagged_enum!`], which reads it untagged too.
    type Fact: DeserializeOwned + Serialize + ReadUntagged + Send + 'static;

    /// Every version, the first being the default.
    fn versions() -> Vec<VersionSpec>;
    /// The state before the first decision. The rule version is part of it.
    fn initial(scenario: Self::Scenario, rules: &RuleVersion) -> Result<Self::State, ScenarioError>;
    /// What a decision leads to, or why it is refused. Pure.
    fn decide(state: &Self::State, decision: &Self::Decision, dice: &mut Dice) -> Result<Vec<Self::Fact>, Violation>;
    /// Records a fact in the state. Pure and total: no rule logic here.
    fn evolve(state: &mut Self::State, fact: &Self::Fact);
    /// One line of narrative for a fact.
    fn narrate(fact: &Self::Fact) -> String;
    /// The state as text, for `state`, golden files and diffs.
    fn render(state: &Self::State) -> String;
    /// The turn the state is in (0 before the first).
    fn turn(state: &Self::State) -> u32;
    /// The sides, in the scenario's order.
    fn sides(state: &Self::State) -> Vec<String>;
    /// Whose decision the game awaits in this state: a side, or the referee.
    fn awaited(state: &Self::State) -> Actor;
    /// Who may make `decision` in this state. Asked before the decision is
    /// decided; a decision naming something the state does not hold is
    /// answered as best it can be (the rules will refuse it anyway).
    fn author(state: &Self::State, decision: &Self::Decision) -> Actor;
    /// Narrower ranges than [`crate::bounds::NUMBER_RANGE`] for numbers of
    /// the scenario, checked when it loads (a count of dice, a rating).
    fn scenario_bounds() -> Vec<Bound> {
        Vec::new()
    }
    /// The ruleset's own kinds of refusal (besides the [`Shared`] ones).
    fn refusals() -> Vec<RefusalKind>;
    /// Whether two states are the same but for their rule configuration
    /// (`config`, where every ruleset keeps its settings): what diff compares
    /// when two rule versions decide alike ([`crate::diff::decided_state`]),
    /// compared typed rather than written out. Each ruleset names every
    /// member of its state, so that a member added is compared.
    fn same_decided(a: &Self::State, b: &Self::State) -> bool;
    /// The decisions worth listing in this state ([`crate::moves`]): every
    /// decision a side or the referee may make now, each with its free
    /// fields; the listing keeps those `decide` accepts, so a proposal may
    /// be refused, but a legal decision must fit one.
    fn proposals(state: &Self::State) -> Vec<Proposal>;
    /// What the facts of a decision say before any of its dice falls: a
    /// range, a cost, a target number ([`crate::proposal::Known`]). Read from
    /// facts decided with dice that are not the game's: nothing here may
    /// depend on a die.
    fn known(state: &Self::State, facts: &[Self::Fact]) -> Known;
}

/// Why a decision was not decided: it does not parse, it is not the
/// deciding side's to make, or the rules refuse it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{field}: {message}")]
    Malformed { field: String, message: String },
    #[error("this decision is {}, not {}", owner_decision(owner), crate::words::possessive(by))]
    NotTheSides { owner: String, by: String },
    #[error(transparent)]
    Violation(#[from] Violation),
}

impl Refusal {
    /// The kind of refusal, for a test or a `--json` consumer to match.
    pub fn kind(&self) -> RefusalKind {
        match self {
            Refusal::Malformed { .. } => Shared::Malformed.kind(),
            Refusal::NotTheSides { .. } => Shared::NotTheSides.kind(),
            Refusal::Violation(v) => v.kind(),
        }
    }
}

fn owner_decision(owner: &str) -> String {
    format!("{} to make", crate::words::possessive(owner))
}

/// A ruleset's own fact as a machine decided it, behind the
/// ruleset-erasing boundary: the game that decided it writes it out (as a
/// JSON value, or straight as canonical bytes) and folds it in
/// ([`Machine::evolve_decided`]) without reading it back.
pub struct TypedFact(Box<dyn AnyFact>);

impl TypedFact {
    /// The fact's JSON value.
    pub fn value(&self) -> Value {
        self.0.value()
    }

    /// Appends the fact's canonical bytes: those of [`TypedFact::value`],
    /// written without building it.
    pub fn append_canonical(&self, out: &mut Vec<u8>) -> Result<(), crate::canon::CanonError> {
        self.0.append_canonical(out)
    }
}

/// What the engine does with a fact it holds typed.
trait AnyFact: Send {
    fn value(&self) -> Value;
    fn append_canonical(&self, out: &mut Vec<u8>) -> Result<(), crate::canon::CanonError>;
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

impl<F: Serialize + Send + 'static> AnyFact for F {
    fn value(&self) -> Value {
        serde_json::to_value(self).expect("facts serialise")
    }

    fn append_canonical(&self, out: &mut Vec<u8>) -> Result<(), crate::canon::CanonError> {
        crate::canon::append_typed(self, out)
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// A decision read once as its ruleset's own type, on the state of the
/// machine that read it ([`Machine::read`]): asked who may make it, then
/// decided, without being read again.
pub struct TypedDecision<'a>(Box<dyn AnyDecision + 'a>);

impl TypedDecision<'_> {
    /// Who may make the decision in the state it was read on.
    pub fn author(&self) -> Actor {
        self.0.author()
    }

    /// What the decision leads to in the state it was read on, or why it is
    /// refused: its numbers in range, its text free of control characters,
    /// no field the typed read ignored, and then the rules.
    pub fn decide(&self, dice: &mut Dice) -> Result<Vec<TypedFact>, Refusal> {
        self.0.decide(dice)
    }

    /// A copy of the decision as read, apart from the state it was read on,
    /// for another version of its ruleset to decide ([`Machine::read_kept`]):
    /// only a decision checked as it was read ([`Machine::read_text`]).
    pub fn kept(&self) -> Option<KeptDecision> {
        self.0.kept()
    }
}

/// A decision read and checked ([`Machine::read_text`]) by one version of a
/// ruleset, kept for another version of it to decide without reading or
/// checking it again: what is read and checked of a decision is the same
/// under every version (its type, its text).
pub struct KeptDecision(Box<dyn std::any::Any + Send>);

/// How one ruleset reads a decision from its canonical text and checks it
/// there, as [`Machine::read_text`] does, on no state (nothing it reads or
/// checks depends on the state): what a record file's reader ahead runs on
/// its own thread, so that the fold takes each decision read
/// ([`Machine::read_kept_owned`]) rather than reading it itself. `None`
/// where `read_text` would give none: the fold then reads the decision as
/// it would have.
#[derive(Clone, Copy)]
pub struct DecisionReader(fn(Tagged<'_>) -> Option<KeptDecision>);

impl DecisionReader {
    /// A decision read and checked from its canonical text (a decision
    /// line's `decision` member, as a reader ahead finds it once the line's
    /// link is proven: `record::LinkProof::decision_text`); `None` for a
    /// decision [`Machine::read_text`] would not take.
    pub fn read(&self, text: Tagged<'_>) -> Option<KeptDecision> {
        (self.0)(text)
    }
}

/// What the engine asks of a decision it holds typed.
trait AnyDecision {
    fn author(&self) -> Actor;
    fn decide(&self, dice: &mut Dice) -> Result<Vec<TypedFact>, Refusal>;
    fn kept(&self) -> Option<KeptDecision>;
}

/// A ruleset's decision as read from `given`, on `state`.
struct Read<'a, R: Ruleset> {
    state: &'a R::State,
    given: &'a Value,
    decision: R::Decision,
}

impl<R: Ruleset> AnyDecision for Read<'_, R> {
    fn author(&self) -> Actor {
        R::author(self.state, &self.decision)
    }

    fn decide(&self, dice: &mut Dice) -> Result<Vec<TypedFact>, Refusal> {
        check_decision::<R>(self.given, &self.decision)?;
        let facts = R::decide(self.state, &self.decision, dice)?;
        Ok(facts.into_iter().map(|f| TypedFact(Box::new(f))).collect())
    }

    fn kept(&self) -> Option<KeptDecision> {
        None // checked only as it is decided
    }
}

/// A ruleset's decision read from canonical text on `state`, and found
/// there to pass [`check_decision`] ([`Machine::read_text`]).
struct Checked<'a, R: Ruleset> {
    state: &'a R::State,
    decision: R::Decision,
}

impl<R: Ruleset> AnyDecision for Checked<'_, R> {
    fn author(&self) -> Actor {
        R::author(self.state, &self.decision)
    }

    fn decide(&self, dice: &mut Dice) -> Result<Vec<TypedFact>, Refusal> {
        let facts = R::decide(self.state, &self.decision, dice)?;
        Ok(facts.into_iter().map(|f| TypedFact(Box::new(f))).collect())
    }

    fn kept(&self) -> Option<KeptDecision> {
        Some(KeptDecision(Box::new(self.decision.clone())))
    }
}

/// A ruleset's decider behind JSON values: what the engine drives.
pub trait Machine: Send {
    /// Reads a decision as this ruleset's own type, on the current state;
    /// an error means it does not parse.
    fn read<'a>(&'a self, decision: &'a Value) -> Result<TypedDecision<'a>, Refusal>;
    /// Reads a decision from its canonical JSON text (as a record line
    /// holds it) as [`Machine::read`] reads its value, when what
    /// [`TypedDecision::decide`] checks before the rules plainly holds: the
    /// text holds no control character and no number out of range
    /// ([`bounds::plainly_within`]), and the typed decision, written back as
    /// canonical bytes, is the text itself (so no field was ignored). `None`
    /// otherwise: read the value, which names what is wrong, if anything.
    fn read_text<'a>(&'a self, text: Tagged<'_>) -> Option<TypedDecision<'a>>;
    /// A decision another version of this ruleset read and checked, on this
    /// machine's state, as checked; `None` for another ruleset's.
    fn read_kept<'a>(&'a self, kept: &KeptDecision) -> Option<TypedDecision<'a>>;
    /// [`Machine::read_kept`], the decision moved in rather than copied: a
    /// decision read ahead ([`DecisionReader`]).
    fn read_kept_owned<'a>(&'a self, kept: KeptDecision) -> Option<TypedDecision<'a>>;
    /// How this ruleset reads a decision's text on no state.
    fn decision_reader(&self) -> DecisionReader;
    /// Applies a fact; an error means the fact does not parse.
    fn evolve(&mut self, fact: &Value) -> Result<(), Refusal>;
    /// Applies a fact this ruleset decided ([`TypedDecision::decide`]), as typed.
    fn evolve_decided(&mut self, fact: TypedFact);
    /// Applies a fact read typed from its canonical text (read untagged
    /// where it can be: [`crate::untagged`]); `false`, and nothing changed,
    /// when the text is not a fact of this ruleset.
    fn evolve_text(&mut self, fact: Tagged<'_>) -> bool;
    fn narrate(&self, fact: &Value) -> String;
    fn render(&self) -> String;
    fn state(&self) -> Value;
    /// The canonical bytes of [`Machine::state`], written straight from the
    /// typed state rather than through its value.
    fn append_state_canonical(&self, out: &mut Vec<u8>) -> Result<(), crate::canon::CanonError>;
    fn turn(&self) -> u32;
    fn sides(&self) -> Vec<String>;
    fn awaited(&self) -> Actor;
    /// Who may make `decision`; an error means it does not parse.
    fn author(&self, decision: &Value) -> Result<Actor, Refusal> {
        self.read(decision).map(|read| read.author())
    }
    fn boxed_clone(&self) -> Box<dyn Machine>;
    /// Whether `other` holds this state but for the rule configuration
    /// ([`Ruleset::same_decided`]); `false` for a machine of another ruleset.
    fn same_decided(&self, other: &dyn Machine) -> bool;
    /// The machine as [`std::any::Any`], to find a machine of the same ruleset.
    fn as_any(&self) -> &dyn std::any::Any;
    /// Puts back a state [`Machine::state`] gave (a kept snapshot); an error
    /// means the value is not a state of this ruleset.
    fn restore(&mut self, state: &Value) -> Result<(), String>;
    /// The decisions worth listing now ([`Ruleset::proposals`]).
    fn proposals(&self) -> Vec<Proposal>;
    /// Decides `decision` on the state with `dice`, as [`TypedDecision::decide`]
    /// does, keeping only what its facts say before a die falls
    /// ([`Ruleset::known`]).
    fn probe(&self, decision: &Value, dice: &mut Dice) -> Result<Known, Refusal>;
}

struct Typed<R: Ruleset> {
    state: R::State,
}

/// A decision read from its canonical text, when that plainly stands for
/// the checks of its value ([`Machine::read_text`]): the text holds no
/// control character and no number out of range
/// ([`bounds::plainly_within`]), and the typed decision, written back as
/// canonical bytes, is the text itself (so no field was ignored).
fn checked_text<R: Ruleset>(tagged: Tagged<'_>) -> Option<R::Decision> {
    let text = tagged.text();
    if !bounds::plainly_within(text.as_bytes()) {
        return None;
    }
    // Read untagged where it can be (`crate::untagged`); the check below
    // holds of either read.
    let untagged = tagged.untagged().and_then(|untagged| R::Decision::read_untagged(&untagged));
    let decision: R::Decision = untagged.or_else(|| serde_json::from_str(text).ok())?;
    let mut written = Vec::with_capacity(text.len());
    crate::canon::append_typed(&decision, &mut written).ok()?;
    (written == text.as_bytes()).then_some(decision)
}

fn parse<T: DeserializeOwned>(value: &Value) -> Result<T, Refusal> {
    // The inner loop's read, which keeps no path; a value it refuses is read
    // again keeping the path, to name the field.
    if let Ok(typed) = T::deserialize(value) {
        return Ok(typed);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        // Internally tagged enums hide the field's path from serde: the
        // message then names the field (`missing field`, `unknown field`)
        // or only its type, and the caller names the decision.
        let path = e.path().to_string();
        let mut field = if path == "." { String::new() } else { path };
        let message = e.inner().to_string();
        if let Some(name) = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next()) {
            field = if field.is_empty() { name.to_string() } else { format!("{field}.{name}") };
        }
        Refusal::Malformed { field, message }
    })
}

/// A decision's numbers in range, its text free of control characters, and
/// no field the typed read ignored.
fn check_decision<R: Ruleset>(given: &Value, decision: &R::Decision) -> Result<(), Refusal> {
    bounds::check(given, &[]).map_err(|e| Refusal::Malformed { field: e.field, message: e.message })?;
    match crate::strict::ignored_field_of(given, decision) {
        None => Ok(()),
        Some(field) => {
            let name = field.rsplit(['.', ']']).next().unwrap_or(&field).to_string();
            Err(Refusal::Malformed {
                field,
                message: format!("unknown field `{name}`: this decision has no such field"),
            })
        }
    }
}

impl<R: Ruleset> Machine for Typed<R> {
    fn read<'a>(&'a self, decision: &'a Value) -> Result<TypedDecision<'a>, Refusal> {
        let read = Read::<R> { state: &self.state, given: decision, decision: parse(decision)? };
        Ok(TypedDecision(Box::new(read)))
    }

    fn read_text<'a>(&'a self, text: Tagged<'_>) -> Option<TypedDecision<'a>> {
        let decision = checked_text::<R>(text)?;
        Some(TypedDecision(Box::new(Checked::<R> { state: &self.state, decision })))
    }

    fn read_kept<'a>(&'a self, kept: &KeptDecision) -> Option<TypedDecision<'a>> {
        let decision = kept.0.downcast_ref::<R::Decision>()?.clone();
        Some(TypedDecision(Box::new(Checked::<R> { state: &self.state, decision })))
    }

    fn read_kept_owned<'a>(&'a self, kept: KeptDecision) -> Option<TypedDecision<'a>> {
        let decision = *kept.0.downcast::<R::Decision>().ok()?;
        Some(TypedDecision(Box::new(Checked::<R> { state: &self.state, decision })))
    }

    fn decision_reader(&self) -> DecisionReader {
        DecisionReader(|text| checked_text::<R>(text).map(|decision| KeptDecision(Box::new(decision))))
    }

    fn evolve_decided(&mut self, fact: TypedFact) {
        let fact = fact.0.into_any().downcast::<R::Fact>().expect("a fact is folded into the ruleset that decided it");
        R::evolve(&mut self.state, &fact);
    }

    fn evolve_text(&mut self, fact: Tagged<'_>) -> bool {
        // The tagged read has the last word on a fact the untagged one refuses.
        let typed = fact.untagged().and_then(|text| R::Fact::read_untagged(&text));
        match typed.or_else(|| serde_json::from_str::<R::Fact>(fact.text()).ok()) {
            Some(fact) => {
                R::evolve(&mut self.state, &fact);
                true
            }
            None => false,
        }
    }

    fn evolve(&mut self, fact: &Value) -> Result<(), Refusal> {
        let fact: R::Fact = parse(fact)?;
        R::evolve(&mut self.state, &fact);
        Ok(())
    }

    fn narrate(&self, fact: &Value) -> String {
        match R::Fact::deserialize(fact) {
            Ok(f) => R::narrate(&f),
            Err(_) => format!("(unreadable fact {fact})"),
        }
    }

    fn render(&self) -> String {
        R::render(&self.state)
    }

    fn state(&self) -> Value {
        serde_json::to_value(&self.state).expect("state serialises")
    }

    fn append_state_canonical(&self, out: &mut Vec<u8>) -> Result<(), crate::canon::CanonError> {
        crate::canon::append_typed(&self.state, out)
    }

    fn turn(&self) -> u32 {
        R::turn(&self.state)
    }

    fn sides(&self) -> Vec<String> {
        R::sides(&self.state)
    }

    fn awaited(&self) -> Actor {
        R::awaited(&self.state)
    }

    fn boxed_clone(&self) -> Box<dyn Machine> {
        Box::new(Typed::<R> { state: self.state.clone() })
    }

    fn same_decided(&self, other: &dyn Machine) -> bool {
        other.as_any().downcast_ref::<Typed<R>>().is_some_and(|other| R::same_decided(&self.state, &other.state))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn restore(&mut self, state: &Value) -> Result<(), String> {
        self.state = serde::Deserialize::deserialize(state).map_err(|e: serde_json::Error| e.to_string())?;
        Ok(())
    }

    fn proposals(&self) -> Vec<Proposal> {
        R::proposals(&self.state)
    }

    fn probe(&self, decision: &Value, dice: &mut Dice) -> Result<Known, Refusal> {
        let typed: R::Decision = parse(decision)?;
        check_decision::<R>(decision, &typed)?;
        let facts = R::decide(&self.state, &typed, dice)?;
        Ok(R::known(&self.state, &facts))
    }
}

/// Loads a scenario under a rule version into a machine.
pub type Loader = fn(&Value, &RuleVersion) -> Result<Box<dyn Machine>, ScenarioError>;

/// A ruleset in the registry.
#[derive(Clone, Copy)]
pub struct RulesetInfo {
    pub id: &'static str,
    pub title: &'static str,
    pub versions: fn() -> Vec<VersionSpec>,
    pub load: Loader,
    /// The ranges of the scenario's numbers narrower than the number range.
    pub scenario_bounds: fn() -> Vec<Bound>,
    /// The ruleset's own kinds of refusal.
    pub refusals: fn() -> Vec<RefusalKind>,
}

/// The rulesets a game may be played under, each looked up by its id (or a
/// rule version by `ruleset@version`). The kernel knows the shape of a
/// ruleset, not which rulesets there are: whoever opens a game, reads a
/// record's header or a script hands it a registry (the CLI, the store and
/// the tests hand it the built-in rulesets, `crate::registry::builtin`).
#[derive(Clone, Copy)]
pub struct Registry {
    rulesets: &'static [RulesetInfo],
}

impl Registry {
    /// The registry of these rulesets; the first version of each is its default.
    pub const fn new(rulesets: &'static [RulesetInfo]) -> Registry {
        Registry { rulesets }
    }

    /// Every ruleset, in the order given.
    pub fn all(&self) -> &'static [RulesetInfo] {
        self.rulesets
    }

    /// Finds a ruleset by id.
    pub fn find(&self, id: &str) -> Result<RulesetInfo, RulesError> {
        self.rulesets.iter().find(|r| r.id == id).copied().ok_or_else(|| {
            RulesError::UnknownRuleset(
                id.to_string(),
                self.rulesets.iter().map(|r| r.id).collect::<Vec<_>>().join(", "),
            )
        })
    }

    /// Finds a version by `ruleset@version`, or a ruleset's default by `ruleset`.
    pub fn version(&self, id: &str) -> Result<VersionSpec, RulesError> {
        let (ruleset, version) = match id.split_once('@') {
            Some((r, v)) => (r, Some(v)),
            None => (id, None),
        };
        let info = self.find(ruleset)?;
        let versions = (info.versions)();
        match version {
            None => Ok(versions.into_iter().next().expect("a ruleset has a version")),
            Some(v) => {
                let known = versions.iter().map(|s| s.id()).collect::<Vec<_>>().join(", ");
                versions.into_iter().find(|s| s.version == v).ok_or(RulesError::UnknownVersion {
                    ruleset: ruleset.to_string(),
                    version: v.to_string(),
                    known,
                })
            }
        }
    }
}

impl Versions for Registry {
    fn version(&self, id: &str) -> Result<VersionSpec, RulesError> {
        Registry::version(self, id)
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Registry").field(&self.rulesets.iter().map(|r| r.id).collect::<Vec<_>>()).finish()
    }
}

fn load<R: Ruleset>(scenario: &Value, rules: &RuleVersion) -> Result<Box<dyn Machine>, ScenarioError> {
    bounds::check(scenario, &R::scenario_bounds()).map_err(|e| ScenarioError::new(e.field, e.message))?;
    // Read as `parse` reads a decision: plainly (a game's scenario is read
    // each time it opens), and again keeping the path only to name a field.
    let scenario = match R::Scenario::deserialize(scenario) {
        Ok(scenario) => scenario,
        Err(_) => serde_path_to_error::deserialize(scenario)
            .map_err(|e| ScenarioError::new(e.path().to_string(), e.inner().to_string()))?,
    };
    let state = R::initial(scenario, rules)?;
    Ok(Box::new(Typed::<R> { state }))
}

/// The registry entry of a ruleset type.
pub const fn info<R: Ruleset>() -> RulesetInfo {
    RulesetInfo {
        id: R::ID,
        title: R::TITLE,
        versions: R::versions,
        load: load::<R>,
        scenario_bounds: R::scenario_bounds,
        refusals: R::refusals,
    }
}

/// Facts decided so far, and the state they lead to: `decide` records its
/// facts here, and a later fact (who activates next, whether the turn is
/// over) can be computed from the state the earlier facts lead to — without
/// putting rules in `evolve`.
///
/// The state the facts lead to is built only when `decide` asks for it
/// after recording a fact: a copy of the state it started from, evolved by
/// the facts so far. Most decisions never ask, so most decisions copy no
/// state (the copy was the largest cost of re-deciding a record).
pub struct Facts<'s, R: Ruleset> {
    base: &'s R::State,
    /// `base` evolved by `out[..evolved]`, once asked for.
    scratch: Option<R::State>,
    evolved: usize,
    out: Vec<R::Fact>,
}

impl<'s, R: Ruleset> Facts<'s, R> {
    pub fn new(state: &'s R::State) -> Self {
        Facts { base: state, scratch: None, evolved: 0, out: Vec::new() }
    }

    /// Records a fact.
    pub fn push(&mut self, fact: R::Fact) {
        self.out.push(fact);
    }

    /// The state the facts so far lead to.
    pub fn state(&mut self) -> &R::State {
        if self.evolved < self.out.len() {
            let base = self.base;
            let scratch = self.scratch.get_or_insert_with(|| base.clone());
            for fact in &self.out[self.evolved..] {
                R::evolve(scratch, fact);
            }
            self.evolved = self.out.len();
        }
        self.scratch.as_ref().unwrap_or(self.base)
    }

    /// The facts so far.
    pub fn facts(&self) -> &[R::Fact] {
        &self.out
    }

    pub fn into_facts(self) -> Vec<R::Fact> {
        self.out
    }
}
