//! Simulated play: random legal games of every ruleset, and policies that
//! play them.
//!
//! The property tests and `rollcall simulate` share this module:
//! - [`Rng`], a small seedable generator (no clock, no thread-local
//!   randomness: the same seed gives the same game, on any machine);
//! - a [`Generator`] per ruleset: a random scenario and rule version for a
//!   seed, the policies that play it, when a game is over and who won, and
//!   what its facts count for the statistics (rally tests, command checks…);
//! - [`Policy`]: proposes [`Candidate`] decisions for a state — the player's
//!   and the referee's — and [`Simulation`] plays the first the rules
//!   accept, so a game is legal by construction;
//! - [`Simulator`], the same behind a ruleset id, for the CLI, and
//!   [`random_game`], a long legal game of any ruleset in one call.
//!
//! A policy proposes plausible decisions, mistakes among them: the rules
//! refuse those (the property tests rely on it: no refusal may panic). The
//! driver tries the candidates by priority, each priority's in random order
//! weighted by their weights; a game in which none is legal is stuck, and
//! that is an error, never a silent end.

pub mod combat_hq;
pub mod formation_activation;
pub mod leader_activation;
pub mod phoenix_command;
pub mod stats;

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::Value;

use crate::dice::{Dice, Seed};
use crate::digest::Digest;
use crate::game::Game;
use crate::record::{Event, Header, Kind, Party, SeedMode};
use crate::rules::RuleVersion;
use crate::ruleset::Ruleset;
use crate::seed::{game_seed, Share};

pub use stats::{Measure, Tally};

// ---------------------------------------------------------------------------
// Randomness

/// A small, seedable generator (xorshift64*). Not for dice — those come from
/// the committed seed — only for choosing scenarios and decisions.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`; `n` must not be 0.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// One of `items`, which must not be empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// One of `items`, or none (drawing nothing) when there are none.
    pub fn try_pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }

    /// An integer in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
}

/// The generator a random game plays its decisions with: the seed's own,
/// apart from the one that drew its scenario.
pub fn play_rng(seed: u64) -> Rng {
    Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
}

// ---------------------------------------------------------------------------
// Headers

/// Parties with random shares and their commitments (an open game).
pub fn parties(rng: &mut Rng, names: &[&str]) -> Vec<Party> {
    names
        .iter()
        .map(|name| {
            let mut bytes = [0u8; 32];
            bytes[..8].copy_from_slice(&rng.next_u64().to_be_bytes());
            let share = Share(bytes);
            Party { name: name.to_string(), commitment: Some(share.commitment()), share: Some(share) }
        })
        .collect()
}

/// The header of an open game.
pub fn header(game: String, rules: RuleVersion, scenario: Value, parties: Vec<Party>) -> Header {
    let rules_hash = rules.hash();
    Header { game, rules, rules_hash, scenario, mode: SeedMode::Open, parties, sides: Vec::new(), server: None }
}

/// The same game under other rules (the hash follows the settings): the
/// same game id and shares, so the same dice at every address.
pub fn under(header: &Header, rules: RuleVersion) -> Header {
    let mut h = header.clone();
    h.rules_hash = rules.hash();
    h.rules = rules;
    h
}

/// Resolves a version id with options and constants (the rest at their defaults).
pub fn resolve(
    version: &str,
    options: &std::collections::BTreeMap<String, Value>,
    constants: &std::collections::BTreeMap<String, Value>,
) -> RuleVersion {
    crate::registry::version(version)
        .and_then(|spec| spec.resolve(options, constants, ""))
        .unwrap_or_else(|e| panic!("a generator resolves its own version {version}: {e}"))
}

// ---------------------------------------------------------------------------
// Candidates and policies

/// A decision worth trying.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub decision: Value,
    /// How much the policy favours it among candidates of its priority.
    pub weight: usize,
    /// An optional referee input (a sighting, a casualty): under a policy
    /// with a referee rate it is tried only when the referee steps in, and
    /// it never counts against a game being stuck.
    pub optional: bool,
    /// Candidates of a higher priority are all tried before any of a lower.
    pub priority: u8,
}

impl Candidate {
    /// A decision of weight 1.
    pub fn new(decision: Value) -> Candidate {
        Candidate { decision, weight: 1, optional: false, priority: 0 }
    }

    pub fn weighted(weight: usize, decision: Value) -> Candidate {
        Candidate { decision, weight, optional: false, priority: 0 }
    }

    /// An optional referee input.
    pub fn referee(weight: usize, decision: Value) -> Candidate {
        Candidate { decision, weight, optional: true, priority: 0 }
    }

    /// The decision's `type`.
    pub fn kind(&self) -> &str {
        self.decision["type"].as_str().unwrap_or("")
    }
}

/// How a side plays: the decisions it would try in a state.
pub trait Policy<R: Ruleset>: Send + Sync {
    /// The name `--policy` takes.
    fn name(&self) -> &'static str;
    /// What it does, in a sentence.
    fn about(&self) -> &'static str;
    /// The referee steps in one decision in `n`, trying only the optional
    /// candidates; none: optional candidates are tried with the rest.
    fn referee_one_in(&self) -> Option<usize> {
        None
    }
    /// The candidates for this state; the first legal one (by priority,
    /// then by weighted chance) is played.
    fn propose(&self, state: &R::State, rng: &mut Rng) -> Vec<Candidate>;
}

/// A policy that re-ranks another's candidates: `rank` gives each its
/// priority and weight, or drops it. Purposeful policies are made this way
/// from a ruleset's random legal proposals.
pub struct Ranked<R: Ruleset> {
    pub name: &'static str,
    pub about: &'static str,
    pub referee_one_in: Option<usize>,
    pub propose: fn(&R::State, &mut Rng) -> Vec<Candidate>,
    pub rank: fn(&R::State, Candidate) -> Option<Candidate>,
}

impl<R: Ruleset> Ranked<R> {
    /// Random legal play: `propose`'s candidates as they come, by weight.
    pub fn random(
        about: &'static str,
        referee_one_in: Option<usize>,
        propose: fn(&R::State, &mut Rng) -> Vec<Candidate>,
    ) -> Self {
        Ranked { name: "random", about, referee_one_in, propose, rank: |_, c| Some(c) }
    }
}

impl<R: Ruleset> Policy<R> for Ranked<R> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }

    fn referee_one_in(&self) -> Option<usize> {
        self.referee_one_in
    }

    fn propose(&self, state: &R::State, rng: &mut Rng) -> Vec<Candidate> {
        (self.propose)(state, rng).into_iter().filter_map(|c| (self.rank)(state, c)).collect()
    }
}

/// The index of a candidate, drawn by weight.
fn weighted(pool: &[Candidate], rng: &mut Rng) -> usize {
    let total: usize = pool.iter().map(|c| c.weight).sum();
    let mut r = rng.below(total.max(1));
    for (i, c) in pool.iter().enumerate() {
        if r < c.weight {
            return i;
        }
        r -= c.weight;
    }
    pool.len() - 1
}

// ---------------------------------------------------------------------------
// Generators

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// The ruleset's game is over (a side has won, or cannot go on).
    Over,
    /// The turn limit was reached: the next turn would have begun.
    Turns,
    /// The decision limit was reached.
    Decisions,
}

/// A ruleset's random legal games: scenarios, policies, the end of a game,
/// and what its facts count.
pub trait Generator: 'static {
    type Ruleset: Ruleset;

    /// The ruleset id.
    const RULESET: &'static str;

    /// A random game under `version` (an id of this ruleset's versions):
    /// its scenario, settings and parties, all drawn from `seed`.
    fn header(seed: u64, version: &str) -> Header;

    /// Every policy, the first being "random": every plausible decision,
    /// mistakes included, played at random.
    fn policies() -> Vec<Box<dyn Policy<Self::Ruleset>>>;

    /// Whether the game is over: no policy takes it anywhere worth going.
    fn over(_state: &<Self::Ruleset as Ruleset>::State) -> bool {
        false
    }

    /// The side that won a game that is over, if any.
    fn winner(_state: &<Self::Ruleset as Ruleset>::State) -> Option<String> {
        None
    }

    /// How a side wins (Ok), or why this ruleset names no winner (Err).
    fn winning() -> Result<&'static str, &'static str>;

    /// What the statistics count, and what this ruleset has no equivalent of.
    fn measures() -> Vec<Measure>;

    /// Counts a fact into the game's tally.
    fn observe(fact: &<Self::Ruleset as Ruleset>::Fact, tally: &mut Tally);

    /// Whether the random policy never writes a malformed decision (one
    /// that does not parse is then a bug, not a refusal). Policies that
    /// propose mistakes on purpose may write some.
    const WELL_FORMED: bool = false;

    /// What a report of a stuck game shows beyond the rendered state.
    fn explain(_state: &<Self::Ruleset as Ruleset>::State) -> String {
        String::new()
    }
}

/// The random policy of a generator.
pub fn random_policy<G: Generator>() -> Box<dyn Policy<G::Ruleset>> {
    G::policies().into_iter().next().expect("a generator has a random policy")
}

// ---------------------------------------------------------------------------
// Playing

/// Why a simulated game could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("the game cannot be opened: {0}")]
    Open(String),
    #[error("stuck after {decisions} decisions: no decision is legal in\n{state}{explain}\nrefused:\n{refused}")]
    Stuck { decisions: u64, state: String, explain: String, refused: String },
    #[error("the policy wrote a malformed decision {decision}: {message}")]
    Malformed { decision: String, message: String },
    #[error("{decision} was refused after rolling {rolled:?} (decision {number}): {reason}\nthe state was:\n{state}")]
    RefusedAfterRolling { decision: String, number: u64, rolled: Vec<String>, reason: String, state: String },
    #[error("{decision} was decided, then refused by the game: {reason}")]
    Inconsistent { decision: String, reason: String },
    #[error("deciding {decision} after {decisions} decisions panicked; the state was:\n{state}")]
    Panicked { decision: String, decisions: u64, state: String },
    #[error("no policy {policy:?} for {ruleset}: known are {known}")]
    UnknownPolicy { ruleset: String, policy: String, known: String },
    #[error("no generator of random games for {0}")]
    UnknownRuleset(String),
    #[error("game {index} under {version}: {source}")]
    InGame { index: u64, version: String, source: Box<SimError> },
}

/// A game being played by a policy: the game (events, head, dice) and its
/// typed state, evolved by the same facts.
pub struct Simulation<R: Ruleset> {
    game: Game,
    state: R::State,
    seed: Seed,
    rng: Rng,
    strict: bool,
}

/// What trying one candidate came to.
enum Tried {
    Played(Vec<Event>),
    Refused(String),
}

impl<R: Ruleset> Simulation<R> {
    /// A simulation of an open game; `rng` chooses among the candidates.
    pub fn new(header: Header, rng: Rng) -> Result<Self, SimError> {
        let shares: Option<Vec<Share>> = header.parties.iter().map(|p| p.share).collect();
        let shares = shares.filter(|_| header.mode == SeedMode::Open).ok_or_else(|| {
            SimError::Open("a simulated game is an open one: every party's share must be known".into())
        })?;
        let seed = game_seed(&header.game, &shares);
        let scenario: R::Scenario =
            serde_json::from_value(header.scenario.clone()).map_err(|e| SimError::Open(format!("scenario: {e}")))?;
        let state = R::initial(scenario, &header.rules).map_err(|e| SimError::Open(format!("scenario: {e}")))?;
        let game = Game::open(header, crate::registry::builtin()).map_err(|e| SimError::Open(e.to_string()))?;
        Ok(Simulation { game, state, seed, rng, strict: false })
    }

    /// A malformed candidate is an error, not a refusal: for generators
    /// that never write one on purpose.
    pub fn strict(mut self) -> Self {
        self.strict = true;
        self
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn state(&self) -> &R::State {
        &self.state
    }

    pub fn into_game(self) -> Game {
        self.game
    }

    /// Plays one decision the policy proposes: the referee's now and then,
    /// else the first legal candidate by priority and weighted chance.
    pub fn step(&mut self, policy: &dyn Policy<R>) -> Result<Vec<Event>, SimError> {
        let candidates = policy.propose(&self.state, &mut self.rng);
        let (optional, pool): (Vec<Candidate>, Vec<Candidate>) = match policy.referee_one_in() {
            Some(_) => candidates.into_iter().partition(|c| c.optional),
            None => (Vec::new(), candidates),
        };
        if let Some(n) = policy.referee_one_in() {
            if self.rng.one_in(n) {
                if let Some(events) = self.try_optional(optional)? {
                    return Ok(events);
                }
            }
        }
        let mut refused = Vec::new();
        let mut priorities: Vec<u8> = pool.iter().map(|c| c.priority).collect();
        priorities.sort_unstable_by(|a, b| b.cmp(a));
        priorities.dedup();
        let mut pool = pool;
        for priority in priorities {
            let (mut group, rest): (Vec<Candidate>, Vec<Candidate>) =
                pool.into_iter().partition(|c| c.priority == priority);
            pool = rest;
            let mut tried = BTreeSet::new();
            while !group.is_empty() {
                let c = group.swap_remove(weighted(&group, &mut self.rng));
                if !tried.insert(c.decision.to_string()) {
                    continue;
                }
                match self.try_play(&c.decision)? {
                    Tried::Played(events) => return Ok(events),
                    Tried::Refused(reason) => refused.push(format!("{}\n    -> {reason}", c.decision)),
                }
            }
        }
        Err(SimError::Stuck {
            decisions: self.game.decisions(),
            state: self.game.render(),
            explain: String::new(),
            refused: refused.join("\n"),
        })
    }

    /// The referee's optional inputs, in weighted random order: the first legal one.
    fn try_optional(&mut self, mut optional: Vec<Candidate>) -> Result<Option<Vec<Event>>, SimError> {
        while !optional.is_empty() {
            let c = optional.swap_remove(weighted(&optional, &mut self.rng));
            match self.try_play(&c.decision) {
                Ok(Tried::Played(events)) => return Ok(Some(events)),
                Ok(Tried::Refused(_)) | Err(SimError::Malformed { .. }) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(None)
    }

    /// Decides a candidate on the typed state with the game's own dice
    /// first: a refusal must come before any die is rolled, or it could
    /// depend on the dice and tell the player how they would fall (a refused
    /// decision is not logged: he could order another). Then plays it.
    fn try_play(&mut self, decision: &Value) -> Result<Tried, SimError> {
        let typed: R::Decision = match serde_json::from_value(decision.clone()) {
            Ok(d) => d,
            Err(e) if self.strict => {
                return Err(SimError::Malformed { decision: decision.to_string(), message: e.to_string() })
            }
            Err(e) => return Ok(Tried::Refused(format!("malformed: {e}"))),
        };
        let number = self.game.decisions() + 1;
        let mut dice = Dice::seeded(&self.seed, number);
        let decided = catch_unwind(AssertUnwindSafe(|| R::decide(self.state(), &typed, &mut dice)))
            .map_err(|_| self.panicked(decision))?;
        let facts = match decided {
            Ok(facts) => facts,
            Err(refused) => {
                let rolled: Vec<String> =
                    dice.rolls().iter().map(|r| format!("{}#{}={}", r.label, r.index, r.value)).collect();
                if !rolled.is_empty() {
                    return Err(SimError::RefusedAfterRolling {
                        decision: decision.to_string(),
                        number,
                        rolled,
                        reason: refused.to_string(),
                        state: R::render(self.state()),
                    });
                }
                return Ok(Tried::Refused(refused.to_string()));
            }
        };
        let played = catch_unwind(AssertUnwindSafe(|| self.game.play(decision, None)))
            .map_err(|_| self.panicked(decision))?
            .map_err(|e| SimError::Inconsistent { decision: decision.to_string(), reason: e.to_string() })?;
        for f in &facts {
            R::evolve(&mut self.state, f);
        }
        Ok(Tried::Played(played))
    }

    fn panicked(&self, decision: &Value) -> SimError {
        SimError::Panicked {
            decision: decision.to_string(),
            decisions: self.game.decisions(),
            state: R::render(self.state()),
        }
    }
}

// ---------------------------------------------------------------------------
// Whole games

/// When a simulated game stops, if it is not over before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// At most this many decisions.
    pub decisions: u64,
    /// Stop once this turn is over: the decision that would begin the next
    /// turn is not played.
    pub turns: Option<u32>,
    /// Play on after the ruleset says the game is over (a side that has
    /// won goes on playing alone), for games of a given length.
    pub play_on: bool,
}

/// One simulated game: how it went, where it went (a digest per decision),
/// and its events when they were kept.
#[derive(Debug, Clone)]
pub struct Played {
    pub summary: stats::GameSummary,
    /// For each decision, a digest of what it led to (the decision, its
    /// rolls and facts, without the chain): two games of one seed part at
    /// the first decision whose digests differ.
    pub trace: Vec<Digest>,
    /// The game's events, if asked for (empty otherwise).
    pub events: Vec<Event>,
}

/// Plays a game under a policy until it is over or a limit is reached,
/// counting its facts.
pub fn play<G: Generator>(
    header: Header,
    policy: &dyn Policy<G::Ruleset>,
    rng: Rng,
    limits: Limits,
    keep: bool,
) -> Result<Played, SimError> {
    let mut sim = Simulation::<G::Ruleset>::new(header, rng)?;
    let mut tally = Tally::default();
    let mut trace = Vec::new();
    let mut events = Vec::new();
    let mut decisions = 0;
    let ending = loop {
        if !limits.play_on && G::over(sim.state()) {
            break Ending::Over;
        }
        if decisions >= limits.decisions {
            break Ending::Decisions;
        }
        let new = sim.step(policy).map_err(|e| explained::<G>(e, sim.state()))?;
        if limits.turns.is_some_and(|t| G::Ruleset::turn(sim.state()) > t) {
            // The decision that begins the next turn is not counted (nor kept).
            break Ending::Turns;
        }
        let (digest, step_tally) = digest_and_tally::<G>(&new);
        trace.push(digest);
        for (name, n) in step_tally.0 {
            tally.add(name, n);
        }
        decisions += 1;
        if keep {
            events.extend(new);
        }
    };
    let state = sim.state();
    let turns = match ending {
        Ending::Turns => limits.turns.unwrap_or(0),
        _ => G::Ruleset::turn(state),
    };
    let winner = if ending == Ending::Over { G::winner(state) } else { None };
    let summary = stats::GameSummary { decisions, turns, ending, winner, tally };
    Ok(Played { summary, trace, events })
}

/// A digest of what one decision led to (its events' bodies, without the
/// chain), and what its facts count.
fn digest_and_tally<G: Generator>(events: &[Event]) -> (Digest, Tally) {
    let mut tally = Tally::default();
    let mut bytes = Vec::new();
    for e in events {
        bytes.extend(crate::canon::to_bytes(&e.body).expect("events just decided are canonical"));
        bytes.push(b'\n');
        if e.kind == Kind::Fact {
            let fact: <G::Ruleset as Ruleset>::Fact =
                serde_json::from_value(e.body["fact"].clone()).expect("facts just decided read back");
            G::observe(&fact, &mut tally);
        }
    }
    (Digest::of(&bytes), tally)
}

/// A stuck game's report, with what the generator adds to explain it.
pub fn explained<G: Generator>(mut error: SimError, state: &<G::Ruleset as Ruleset>::State) -> SimError {
    if let SimError::Stuck { explain, .. } = &mut error {
        *explain = G::explain(state);
    }
    error
}

/// The policy of a generator by name.
pub fn policy<G: Generator>(name: &str) -> Result<Box<dyn Policy<G::Ruleset>>, SimError> {
    let policies = G::policies();
    let known = policies.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ");
    policies.into_iter().find(|p| p.name() == name).ok_or_else(|| SimError::UnknownPolicy {
        ruleset: G::RULESET.to_string(),
        policy: name.to_string(),
        known,
    })
}

// ---------------------------------------------------------------------------
// Behind a ruleset id

/// A ruleset's generator behind its id: what `rollcall simulate` drives.
pub trait Simulator: Send + Sync {
    fn ruleset(&self) -> &'static str;
    /// Every policy: its name and what it does.
    fn policies(&self) -> Vec<(&'static str, &'static str)>;
    fn measures(&self) -> Vec<Measure>;
    /// How a side wins (Ok), or why the ruleset names no winner (Err).
    fn winning(&self) -> Result<&'static str, &'static str>;
    /// A random game's header under `version`.
    fn random_header(&self, seed: u64, version: &str) -> Header;
    /// Plays one game under the named policy.
    fn play(&self, header: Header, policy: &str, rng: Rng, limits: Limits, keep: bool) -> Result<Played, SimError>;
    /// A player of `header`'s game who does not draw its dice (see [`Follower`]).
    fn follower(&self, header: &Header, policy: &str, rng: Rng) -> Result<Box<dyn Follower>, SimError>;
}

/// A player of a game whose dice it cannot draw — a sealed game a dice
/// server holds: it follows the record's facts to the typed state, and
/// proposes the decisions its policy would try there, in the order it
/// would try them. The server decides each; a refused one is followed by
/// the next.
pub trait Follower: Send {
    /// Takes in an event of the record (facts move the state; the rest are
    /// passed over).
    fn observe(&mut self, event: &Event) -> Result<(), SimError>;
    /// The decisions to try now, first to last (each once).
    fn candidates(&mut self) -> Vec<Value>;
    /// Whether the game is over, as the generator sees it.
    fn over(&self) -> bool;
}

struct Following<G: Generator> {
    state: <G::Ruleset as Ruleset>::State,
    policy: Box<dyn Policy<G::Ruleset>>,
    rng: Rng,
}

impl<G: Generator> Follower for Following<G> {
    fn observe(&mut self, event: &Event) -> Result<(), SimError> {
        if event.kind != Kind::Fact {
            return Ok(());
        }
        let fact: <G::Ruleset as Ruleset>::Fact = serde_json::from_value(event.body["fact"].clone())
            .map_err(|e| SimError::Open(format!("seq {}: the fact does not read: {e}", event.seq)))?;
        G::Ruleset::evolve(&mut self.state, &fact);
        Ok(())
    }

    fn candidates(&mut self) -> Vec<Value> {
        let state = &self.state;
        let proposed = self.policy.propose(state, &mut self.rng);
        let (optional, pool): (Vec<Candidate>, Vec<Candidate>) = match self.policy.referee_one_in() {
            Some(_) => proposed.into_iter().partition(|c| c.optional),
            None => (Vec::new(), proposed),
        };
        let mut order = Vec::new();
        if self.policy.referee_one_in().is_some_and(|n| self.rng.one_in(n)) {
            order.extend(in_weighted_order(optional, &mut self.rng));
        }
        let mut priorities: Vec<u8> = pool.iter().map(|c| c.priority).collect();
        priorities.sort_unstable_by(|a, b| b.cmp(a));
        priorities.dedup();
        let mut pool = pool;
        for priority in priorities {
            let (group, rest): (Vec<Candidate>, Vec<Candidate>) =
                pool.into_iter().partition(|c| c.priority == priority);
            pool = rest;
            order.extend(in_weighted_order(group, &mut self.rng));
        }
        let mut seen = BTreeSet::new();
        order.into_iter().filter(|d| seen.insert(d.to_string())).collect()
    }

    fn over(&self) -> bool {
        G::over(&self.state)
    }
}

/// Candidates drawn one by one by weight: the order a policy tries them in.
fn in_weighted_order(mut pool: Vec<Candidate>, rng: &mut Rng) -> Vec<Value> {
    let mut order = Vec::with_capacity(pool.len());
    while !pool.is_empty() {
        order.push(pool.swap_remove(weighted(&pool, rng)).decision);
    }
    order
}

struct Erased<G>(std::marker::PhantomData<fn() -> G>);

impl<G: Generator> Simulator for Erased<G> {
    fn ruleset(&self) -> &'static str {
        G::RULESET
    }

    fn policies(&self) -> Vec<(&'static str, &'static str)> {
        G::policies().iter().map(|p| (p.name(), p.about())).collect()
    }

    fn measures(&self) -> Vec<Measure> {
        G::measures()
    }

    fn winning(&self) -> Result<&'static str, &'static str> {
        G::winning()
    }

    fn random_header(&self, seed: u64, version: &str) -> Header {
        G::header(seed, version)
    }

    fn play(&self, header: Header, policy: &str, rng: Rng, limits: Limits, keep: bool) -> Result<Played, SimError> {
        let policy = self::policy::<G>(policy)?;
        play::<G>(header, &*policy, rng, limits, keep)
    }

    fn follower(&self, header: &Header, policy: &str, rng: Rng) -> Result<Box<dyn Follower>, SimError> {
        let policy = self::policy::<G>(policy)?;
        let scenario: <G::Ruleset as Ruleset>::Scenario =
            serde_json::from_value(header.scenario.clone()).map_err(|e| SimError::Open(format!("scenario: {e}")))?;
        let state =
            G::Ruleset::initial(scenario, &header.rules).map_err(|e| SimError::Open(format!("scenario: {e}")))?;
        Ok(Box::new(Following::<G> { state, policy, rng }))
    }
}

fn erased<G: Generator>() -> Box<dyn Simulator> {
    Box::new(Erased::<G>(std::marker::PhantomData))
}

/// Every ruleset's simulator.
pub fn simulators() -> Vec<Box<dyn Simulator>> {
    vec![
        erased::<leader_activation::LeaderGames>(),
        erased::<phoenix_command::PhoenixGames>(),
        erased::<combat_hq::CombatGames>(),
        erased::<formation_activation::FormationGames>(),
    ]
}

/// The simulator of a ruleset (an id, or a version id `ruleset@version`).
pub fn simulator(ruleset: &str) -> Result<Box<dyn Simulator>, SimError> {
    let id = ruleset.split(['@', '+']).next().unwrap_or_default();
    simulators().into_iter().find(|s| s.ruleset() == id).ok_or_else(|| SimError::UnknownRuleset(ruleset.to_string()))
}

/// A random legal game of a version (`ruleset` or `ruleset@version`) of at
/// least `decisions` decisions, from `seed`: its header and its decisions,
/// as `rollcall play` takes them. For tests that need long legal games of
/// every ruleset. A game the ruleset calls over goes on (in phoenix-command,
/// once a side has no unit left, the other plays on alone); one that sticks
/// before the end is an error, and one that ends sooner all the same is
/// drawn again from the next seeds.
pub fn random_game(version: &str, seed: u64, decisions: usize) -> Result<(Header, Vec<Value>), SimError> {
    let sim = simulator(version)?;
    let version = match version.split_once('@') {
        Some(_) => version.to_string(),
        None => crate::registry::version(version).map_err(|e| SimError::UnknownRuleset(e.to_string()))?.id(),
    };
    let limits = Limits { decisions: decisions as u64, turns: None, play_on: true };
    let mut longest = None;
    for attempt in 0..64u64 {
        let seed = seed.wrapping_add(attempt << 32);
        let header = sim.random_header(seed, &version);
        let played = sim.play(header.clone(), "random", play_rng(seed), limits, true)?;
        if played.summary.decisions as usize >= decisions {
            let list = played.events.iter().filter(|e| e.kind == Kind::Decision).map(|e| e.body["decision"].clone());
            return Ok((header, list.collect()));
        }
        longest = longest.max(Some(played.summary.decisions));
    }
    Err(SimError::Stuck {
        decisions: longest.unwrap_or(0),
        state: format!("no game of 64 seeds from {seed} lasted {decisions} decisions\n"),
        explain: String::new(),
        refused: String::new(),
    })
}

/// The header of simulated game `index` of a run seeded `seed`: the
/// scenario under `rules`, one party per name, each with a share drawn from
/// the seed and the index, so a game's dice are the same under every rule
/// version it is played under.
pub fn simulated_header(scenario: &Value, rules: RuleVersion, names: &[&str], seed: u64, index: u64) -> Header {
    let mut rng = game_rng(seed, index);
    let parties = parties(&mut rng, names);
    header(format!("sim-{seed}-{index}"), rules, scenario.clone(), parties)
}

/// The generator of simulated game `index` of a run seeded `seed` (its
/// parties' shares; the policy plays with [`play_rng`] of its draw).
pub fn game_rng(seed: u64, index: u64) -> Rng {
    let bytes = blake3::hash(&[seed.to_be_bytes(), index.to_be_bytes()].concat());
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes.as_bytes()[..8]);
    Rng(u64::from_be_bytes(word) | 1)
}

/// Game `index` of a run, played under A and under B: the same scenario,
/// the same shares (so the same die at every address) and the same policy
/// stream; and the first decision (from 1) at which the two part, if they do.
#[derive(Debug, Clone)]
pub struct Pair {
    pub a: Played,
    pub b: Played,
    pub parted_at: Option<u64>,
}

/// What a run of simulated games plays: a scenario, the two versions, the
/// policy and the limits, and the run's seed.
#[derive(Debug, Clone)]
pub struct Run {
    pub scenario: Value,
    /// The parties' names (the scenario's sides).
    pub parties: Vec<String>,
    pub a: RuleVersion,
    pub b: RuleVersion,
    pub policy: String,
    pub seed: u64,
    pub limits: Limits,
}

impl Run {
    /// The header of game `index` under A (B's is the same [`under`] B's rules).
    pub fn header(&self, index: u64) -> Header {
        let names: Vec<&str> = self.parties.iter().map(String::as_str).collect();
        simulated_header(&self.scenario, self.a.clone(), &names, self.seed, index)
    }

    /// Plays game `index` under A and under B; `keep`: with their events.
    pub fn pair(&self, sim: &dyn Simulator, index: u64, keep: bool) -> Result<Pair, SimError> {
        let header = self.header(index);
        let rng = play_rng(game_rng(self.seed, index).next_u64());
        let in_game = |version: &RuleVersion| {
            let version = version.label();
            move |e: SimError| SimError::InGame { index, version, source: Box::new(e) }
        };
        let a = sim.play(header.clone(), &self.policy, rng.clone(), self.limits, keep).map_err(in_game(&self.a))?;
        let b =
            sim.play(under(&header, self.b.clone()), &self.policy, rng, self.limits, keep).map_err(in_game(&self.b))?;
        let parted_at = match a.trace.iter().zip(&b.trace).position(|(x, y)| x != y) {
            Some(i) => Some(i as u64 + 1),
            None if a.trace.len() != b.trace.len() => Some(a.trace.len().min(b.trace.len()) as u64 + 1),
            None => None,
        };
        Ok(Pair { a, b, parted_at })
    }
}
