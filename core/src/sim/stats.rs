//! The statistics of simulated play: what each game counts, and how two
//! rule versions' games compare.
//!
//! Game `i` is played under A and under B from the same scenario, the same
//! seed shares (so the same die at every address) and the same policy
//! stream: the games come in pairs, and every comparison is on the per-game
//! differences B − A (a paired test), which removes the noise both versions
//! share. Counts per game (game length, rally tests, units broken…) are
//! compared by a paired t-test on their differences; rates pooled over the
//! games (rally and command-check success) by the ratio estimator, its
//! standard error linearised per game (the delta method), so that tests of
//! one game count as one cluster and the pairing is kept. With a row per
//! measure, a difference is called significant only under Holm's
//! step-down correction at a family-wise α of 0.05: over a score of rows,
//! one would otherwise look significant by chance one run in three.
//!
//! Intervals are 95% and Student-t (n − 1 degrees of freedom). Everything
//! is computed in a fixed order, so a run's report is the same on any
//! machine and with any number of threads.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Ending;

/// What the statistics count, per ruleset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Measure {
    /// A count per game (`name` in the tally); compared over games.
    Count { name: &'static str, what: &'static str },
    /// `successes` over `trials`, pooled over games.
    Rate { name: &'static str, what: &'static str, successes: &'static str, trials: &'static str },
    /// Something asked of every ruleset that this one has no equivalent of, and why.
    Absent { name: &'static str, why: &'static str },
}

/// A game's counts, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tally(pub BTreeMap<&'static str, u64>);

impl Tally {
    pub fn add(&mut self, name: &'static str, n: u64) {
        *self.0.entry(name).or_insert(0) += n;
    }

    pub fn get(&self, name: &str) -> u64 {
        self.0.get(name).copied().unwrap_or(0)
    }
}

/// What one simulated game came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameSummary {
    pub decisions: u64,
    /// The turn it ended in (the turn limit, for a game stopped there).
    pub turns: u32,
    pub ending: Ending,
    /// The side that won, where the ruleset names one and the game is over.
    pub winner: Option<String>,
    pub tally: Tally,
}

/// A value and its 95% confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// One measure under A and B, and their difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub name: String,
    pub what: String,
    /// `count` (mean per game) or `rate` (pooled).
    pub kind: &'static str,
    /// None: no game had a trial of this rate under that version.
    pub a: Option<Estimate>,
    pub b: Option<Estimate>,
    /// B − A, paired by game.
    pub difference: Option<Estimate>,
    /// Two-sided; none when there is nothing to compare.
    pub p: Option<f64>,
    /// Under Holm's correction over every row.
    pub significant: bool,
    pub test: &'static str,
}

/// A comparison of two versions' simulated games.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub games: usize,
    pub alpha: f64,
    pub rows: Vec<Row>,
    /// What this ruleset has no equivalent of, and why.
    pub absent: Vec<(String, String)>,
    /// How a side wins, where the ruleset names a winner.
    pub winner_by: Option<String>,
    /// Why the ruleset names no winner, where it does not.
    pub no_winner: Option<String>,
    /// How the games ended, under A and under B.
    pub endings: [BTreeMap<Ending, usize>; 2],
    /// Games in which A and B made different decisions or facts.
    pub parted: usize,
    /// The first such game (its index) and the decision where it parts.
    pub first_parting: Option<(usize, u64)>,
}

impl Comparison {
    /// The rows that differ significantly.
    pub fn significant(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.significant)
    }
}

/// The family-wise error rate of a comparison.
pub const ALPHA: f64 = 0.05;

const PAIRED_T: &str = "paired t-test on the per-game differences";
const PAIRED_RATIO: &str = "paired ratio-estimator test (delta method, games as clusters)";
const FISHER: &str = "Fisher's exact test on the pooled counts (too few successes or failures for the paired test)";

/// Compares the games of A and B: `pairs[i]` is game `i` under each, with
/// the decision at which they part, if they do.
pub fn compare(
    measures: &[Measure],
    winning: Result<&str, &str>,
    pairs: &[(GameSummary, GameSummary, Option<u64>)],
) -> Comparison {
    let column = |f: &dyn Fn(&GameSummary) -> f64| -> [Vec<f64>; 2] {
        [pairs.iter().map(|p| f(&p.0)).collect(), pairs.iter().map(|p| f(&p.1)).collect()]
    };
    let mut rows = vec![
        count_row("decisions", "game length in decisions", column(&|g| g.decisions as f64)),
        count_row(
            "turns",
            "game length in turns (the turn it ended in, or the turn limit)",
            column(&|g| f64::from(g.turns)),
        ),
        count_row(
            "decisions-per-turn",
            "decisions per turn",
            column(&|g| g.decisions as f64 / f64::from(g.turns.max(1))),
        ),
    ];
    let mut absent = Vec::new();
    for m in measures {
        match *m {
            Measure::Count { name, what } => rows.push(count_row(name, what, column(&|g| g.tally.get(name) as f64))),
            Measure::Rate { name, what, successes, trials } => rows.push(rate_row(
                name,
                what,
                column(&|g| g.tally.get(successes) as f64),
                column(&|g| g.tally.get(trials) as f64),
            )),
            Measure::Absent { name, why } => absent.push((name.to_string(), why.to_string())),
        }
    }
    if winning.is_ok() {
        let sides: std::collections::BTreeSet<&String> =
            pairs.iter().flat_map(|p| p.0.winner.iter().chain(p.1.winner.iter())).collect();
        for side in sides {
            let won = column(&|g| f64::from(u8::from(g.winner.as_ref() == Some(side))));
            rows.push(count_row(&format!("wins:{side}"), &format!("share of games {side} won"), won));
        }
    }
    holm(&mut rows, ALPHA);
    let mut endings = [BTreeMap::new(), BTreeMap::new()];
    for p in pairs {
        *endings[0].entry(p.0.ending).or_insert(0) += 1;
        *endings[1].entry(p.1.ending).or_insert(0) += 1;
    }
    let parted = pairs.iter().filter(|p| p.2.is_some()).count();
    let first_parting = pairs.iter().enumerate().find_map(|(i, p)| p.2.map(|d| (i, d)));
    Comparison {
        games: pairs.len(),
        alpha: ALPHA,
        rows,
        absent,
        winner_by: winning.ok().map(str::to_string),
        no_winner: winning.err().map(str::to_string),
        endings,
        parted,
        first_parting,
    }
}

/// A count per game: each version's mean, and the paired difference.
fn count_row(name: &str, what: &str, [a, b]: [Vec<f64>; 2]) -> Row {
    let differences: Vec<f64> = a.iter().zip(&b).map(|(a, b)| b - a).collect();
    let (difference, p) = match mean_test(&differences) {
        Some((estimate, p)) => (Some(estimate), Some(p)),
        None => (None, None),
    };
    Row {
        name: name.to_string(),
        what: what.to_string(),
        kind: "count",
        a: mean_estimate(&a),
        b: mean_estimate(&b),
        difference,
        p,
        significant: false,
        test: PAIRED_T,
    }
}

/// A rate pooled over games: each version's ratio, and the paired difference.
fn rate_row(name: &str, what: &str, successes: [Vec<f64>; 2], trials: [Vec<f64>; 2]) -> Row {
    let a = Ratio::of(&successes[0], &trials[0]);
    let b = Ratio::of(&successes[1], &trials[1]);
    let count = |xs: &[f64]| xs.iter().sum::<f64>().round() as u64;
    let pooled = ([count(&successes[0]), count(&successes[1])], [count(&trials[0]), count(&trials[1])]);
    let mut test = PAIRED_RATIO;
    let (difference, p) = match (&a, &b) {
        (Some(a), Some(b)) => {
            let w: Vec<f64> = a.residuals.iter().zip(&b.residuals).map(|(u, v)| v - u).collect();
            let (se, n) = (standard_error(&w), w.len());
            let value = b.value - a.value;
            match test_of(value, se, n) {
                (Some(e), Some(_)) if (se == 0.0 && value.abs() >= 1e-12) || too_few(pooled) => {
                    test = FISHER;
                    (Some(e), Some(fisher_exact(pooled.0, pooled.1)))
                }
                tested => tested,
            }
        }
        _ => (None, None),
    };
    Row {
        name: name.to_string(),
        what: what.to_string(),
        kind: "rate",
        a: a.as_ref().map(Ratio::estimate),
        b: b.as_ref().map(Ratio::estimate),
        difference,
        p,
        significant: false,
        test,
    }
}

/// Whether either version's pooled trials hold fewer than
/// [`FEWEST_EACH_WAY`] successes or failures: too few for the paired test's
/// normal approximation, whose spread, taken from a handful of games with a
/// trial, comes out far too small (one trial under A against six under B
/// was called a difference at p = 10⁻⁶).
fn too_few((successes, trials): ([u64; 2], [u64; 2])) -> bool {
    (0..2).any(|i| successes[i] < FEWEST_EACH_WAY || trials[i] - successes[i] < FEWEST_EACH_WAY)
}

/// The fewest successes, and failures, each version's trials must hold for
/// a rate to be tested by the paired ratio test (the textbook condition for
/// the normal approximation of a proportion); with fewer, Fisher's exact
/// test on the pooled counts.
const FEWEST_EACH_WAY: u64 = 5;

/// The ratio estimator Σs / Σt over games, and each game's linearised
/// residual (s − R·t) / t̄, whose spread gives its standard error.
struct Ratio {
    value: f64,
    residuals: Vec<f64>,
}

impl Ratio {
    fn of(successes: &[f64], trials: &[f64]) -> Option<Ratio> {
        let total: f64 = trials.iter().sum();
        if total == 0.0 {
            return None;
        }
        let value = successes.iter().sum::<f64>() / total;
        let mean_trials = total / trials.len() as f64;
        let residuals = successes.iter().zip(trials).map(|(s, t)| (s - value * t) / mean_trials).collect();
        Some(Ratio { value, residuals })
    }

    fn estimate(&self) -> Estimate {
        let se = standard_error(&self.residuals);
        let q = t_quantile(self.residuals.len().saturating_sub(1).max(1) as f64);
        Estimate { value: self.value, low: (self.value - q * se).max(0.0), high: (self.value + q * se).min(1.0) }
    }
}

/// The mean of `xs` and its 95% interval.
pub fn mean_estimate(xs: &[f64]) -> Option<Estimate> {
    if xs.is_empty() {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let q = t_quantile(xs.len().saturating_sub(1).max(1) as f64);
    let se = standard_error(xs);
    Some(Estimate { value: mean, low: mean - q * se, high: mean + q * se })
}

/// The one-sample t-test of mean zero: the mean with its interval, and the
/// two-sided p-value. None for fewer than two values.
pub fn mean_test(xs: &[f64]) -> Option<(Estimate, f64)> {
    if xs.len() < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    match test_of(mean, standard_error(xs), xs.len()) {
        (Some(e), Some(p)) => Some((e, p)),
        _ => None,
    }
}

/// A difference `value` with standard error `se` over `n` pairs: its
/// interval and p-value. With no spread at all, a difference of zero is no
/// difference (p = 1); any other is every pair differing the same way, whose
/// chance under no difference is the exact sign test's, 2 × ½ⁿ (two pairs
/// are no evidence; sixty are).
fn test_of(value: f64, se: f64, n: usize) -> (Option<Estimate>, Option<f64>) {
    if n < 2 {
        return (None, None);
    }
    let df = (n - 1) as f64;
    if se == 0.0 || !se.is_finite() {
        let p = if value.abs() < 1e-12 { 1.0 } else { (2.0 * 0.5f64.powi(n.min(2000) as i32)).min(1.0) };
        return (Some(Estimate { value, low: value, high: value }), Some(p));
    }
    let q = t_quantile(df);
    let p = t_two_sided_p(value / se, df);
    (Some(Estimate { value, low: value - q * se, high: value + q * se }), Some(p))
}

/// The standard error of the mean of `xs`: s / √n (0 for fewer than two).
pub fn standard_error(xs: &[f64]) -> f64 {
    let n = xs.len();
    if n < 2 {
        return 0.0;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let variance = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    (variance / n as f64).sqrt()
}

/// Holm's step-down procedure: sorted by p, the k-th smallest (from 0) is
/// significant if it and every smaller one is at most α / (m − k).
pub fn holm(rows: &mut [Row], alpha: f64) {
    let mut order: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].p.is_some()).collect();
    order.sort_by(|&i, &j| rows[i].p.partial_cmp(&rows[j].p).expect("p-values are numbers").then(i.cmp(&j)));
    let m = order.len();
    for (k, &i) in order.iter().enumerate() {
        if rows[i].p.expect("filtered") > alpha / (m - k) as f64 {
            break;
        }
        rows[i].significant = true;
    }
}

/// The two-sided p-value of Student's t with `df` degrees of freedom:
/// I_{df/(df+t²)}(df/2, 1/2).
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// The 97.5% quantile of Student's t (the half-width factor of a 95%
/// interval), by bisection on the p-value.
pub fn t_quantile(df: f64) -> f64 {
    let (mut low, mut high) = (0.0_f64, 1000.0_f64);
    for _ in 0..100 {
        let mid = (low + high) / 2.0;
        if t_two_sided_p(mid, df) > 0.05 {
            low = mid;
        } else {
            high = mid;
        }
    }
    (low + high) / 2.0
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms).
/// Fisher's exact test of two pooled rates, two-sided: with the margins
/// fixed, the chance of a table no likelier than the one seen. The rate rows
/// use it where the paired test has no spread to work from — each version
/// always or never succeeding, so every game's residual is zero — and would
/// call any difference certain, one trial against one trial included.
fn fisher_exact(successes: [u64; 2], trials: [u64; 2]) -> f64 {
    let [sa, sb] = successes;
    let [ta, tb] = trials;
    let (n, k) = (ta + tb, sa + sb);
    let ln_choose =
        |n: u64, r: u64| ln_gamma(n as f64 + 1.0) - ln_gamma(r as f64 + 1.0) - ln_gamma((n - r) as f64 + 1.0);
    let chance = |x: u64| (ln_choose(ta, x) + ln_choose(tb, k - x) - ln_choose(n, k)).exp();
    let seen = chance(sa);
    (k.saturating_sub(tb)..=k.min(ta)).map(chance).filter(|&p| p <= seen * (1.0 + 1e-7)).sum::<f64>().min(1.0)
}

fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The regularised incomplete beta function I_x(a, b), by its continued
/// fraction (modified Lentz), using the symmetry I_x(a,b) = 1 − I_{1−x}(b,a)
/// where the fraction converges slowly.
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = f64::from(m);
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        for numerator in [even, -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0))] {
            d = 1.0 + numerator * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + numerator / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    /// Known values of Student's t: the 97.5% quantiles of the tables, and p-values.
    #[test]
    fn student_t_matches_the_tables() {
        for (df, q) in [(1.0, 12.706), (2.0, 4.303), (5.0, 2.571), (10.0, 2.228), (30.0, 2.042), (999.0, 1.962)] {
            assert!(close(t_quantile(df), q, 0.001), "df {df}: {} not {q}", t_quantile(df));
        }
        assert!(close(t_two_sided_p(2.0, 10.0), 0.07339, 1e-4));
        assert!(close(t_two_sided_p(0.0, 10.0), 1.0, 1e-12));
        assert!(close(t_two_sided_p(3.0, 1000.0), 0.00277, 1e-4));
    }

    #[test]
    fn the_incomplete_beta_matches_closed_forms() {
        // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 − (1 − x)^b.
        for x in [0.1, 0.5, 0.9] {
            assert!(close(incomplete_beta(1.0, 1.0, x), x, 1e-12));
            assert!(close(incomplete_beta(3.0, 1.0, x), x.powi(3), 1e-12));
            assert!(close(incomplete_beta(1.0, 4.0, x), 1.0 - (1.0 - x).powi(4), 1e-12));
        }
    }

    /// A game that tested a rate `tests` times, `passed` of them passing.
    fn game(passed: u64, tests: u64) -> GameSummary {
        let mut tally = Tally::default();
        tally.add("tests", tests);
        tally.add("passed", passed);
        GameSummary { decisions: 10, turns: 1, ending: Ending::Turns, winner: None, tally }
    }

    /// The rate's row of a comparison of `pairs`.
    fn row(pairs: &[(GameSummary, GameSummary, Option<u64>)]) -> Row {
        let measures = [Measure::Rate { name: "pass", what: "", successes: "passed", trials: "tests" }];
        compare(&measures, Err("none"), pairs).rows.into_iter().find(|r| r.name == "pass").expect("the pass row")
    }

    /// A version that always succeeds against one that never does: one
    /// trial each is no evidence, thirty each is.
    #[test]
    fn a_rate_with_no_spread_is_tested_exactly() {
        let mut few: Vec<_> = (0..20).map(|_| (game(0, 0), game(0, 0), None)).collect();
        few[3] = (game(0, 1), game(1, 1), None);
        assert_eq!(row(&few).p, Some(1.0));
        let many: Vec<_> = (0..30).map(|_| (game(0, 1), game(1, 1), None)).collect();
        assert!(row(&many).p.is_some_and(|p| p < 1e-10), "{:?}", row(&many).p);
        assert_eq!(row(&many).test, FISHER, "thirty successes against none: no failure under B to spread");
        // R: fisher.test(matrix(c(1, 9, 9, 1), 2))$p.value is 0.001093.
        assert!(close(fisher_exact([1, 9], [10, 10]), 0.001_093, 1e-6), "{}", fisher_exact([1, 9], [10, 10]));
    }

    /// A rate with a handful of trials: one under A (failed), six under B
    /// (five passed), spread over sixty games. The paired test's spread,
    /// from the few games with a trial, is far too small (it gave p ≈ 10⁻⁸);
    /// the pooled counts say 0 of 1 against 5 of 6, no evidence. With
    /// enough of each, the paired test is kept.
    #[test]
    fn a_rate_over_a_handful_of_trials_is_tested_exactly() {
        let mut sparse: Vec<_> = (0..60).map(|_| (game(0, 0), game(0, 0), None)).collect();
        sparse[0].0 = game(0, 1);
        for (i, passed) in [1, 1, 1, 1, 1, 0].into_iter().enumerate() {
            sparse[10 + i].1 = game(passed, 1);
        }
        let r = row(&sparse);
        assert_eq!(r.test, FISHER);
        // R: fisher.test(matrix(c(0, 1, 5, 1), 2))$p.value is 0.2857143.
        assert!(r.p.is_some_and(|p| close(p, 0.285_714_3, 1e-6)), "{:?}", r.p);
        // Twenty-odd trials a version, half passing under A, most under B: the paired test.
        let plenty: Vec<_> =
            (0..60).map(|i| (game(u64::from(i % 2 == 0), 1), game(u64::from(i % 5 != 0), 1), None)).collect();
        let r = row(&plenty);
        assert_eq!(r.test, PAIRED_RATIO);
        assert!(r.p.is_some_and(|p| p < 0.01), "{:?}", r.p);
    }

    /// Every pair differing by the same amount: the exact sign test.
    #[test]
    fn a_difference_with_no_spread_is_as_likely_as_its_signs() {
        assert_eq!(test_of(1.0, 0.0, 2).1, Some(0.5));
        assert!(test_of(1.0, 0.0, 30).1.is_some_and(|p| p < 1e-8));
        assert_eq!(test_of(0.0, 0.0, 30).1, Some(1.0));
    }

    /// Given equal games under A and B, then no row differs and every p is 1.
    #[test]
    fn identical_games_differ_in_nothing() {
        let game = |d: u64, r: u64| {
            let mut tally = Tally::default();
            tally.add("tests", 4);
            tally.add("passed", r);
            GameSummary { decisions: d, turns: 3, ending: Ending::Turns, winner: None, tally }
        };
        let pairs: Vec<_> = (0..50).map(|i| (game(100 + i % 7, i % 5), game(100 + i % 7, i % 5), None)).collect();
        let measures = [Measure::Rate { name: "pass", what: "", successes: "passed", trials: "tests" }];
        let c = compare(&measures, Err("none"), &pairs);
        assert_eq!(c.significant().count(), 0);
        assert!(c.rows.iter().all(|r| r.p == Some(1.0)), "{:?}", c.rows);
        assert_eq!(c.parted, 0);
    }

    /// Given B whose rate is higher in every game, then the rate differs,
    /// and the game length (the same) does not.
    #[test]
    fn a_consistent_change_is_significant() {
        let game = |passed: u64| {
            let mut tally = Tally::default();
            tally.add("tests", 10);
            tally.add("passed", passed);
            GameSummary { decisions: 100, turns: 3, ending: Ending::Turns, winner: None, tally }
        };
        let pairs: Vec<_> = (0..40).map(|i| (game(3 + i % 3), game(5 + (i * 7) % 3), Some(1))).collect();
        let measures = [Measure::Rate { name: "pass", what: "", successes: "passed", trials: "tests" }];
        let c = compare(&measures, Err("none"), &pairs);
        let names: Vec<&str> = c.significant().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["pass"]);
        let row = &c.rows[3];
        assert!(row.difference.unwrap().value > 0.15 && row.p.unwrap() < 1e-6, "{row:?}");
        assert_eq!((c.parted, c.first_parting), (40, Some((0, 1))));
    }

    /// Holm: sorted by p, the k-th smallest of m must be at most α/(m − k),
    /// and the first that is not stops the rest.
    #[test]
    fn holm_steps_down() {
        let row = |p: f64| Row {
            name: String::new(),
            what: String::new(),
            kind: "count",
            a: None,
            b: None,
            difference: None,
            p: Some(p),
            significant: false,
            test: PAIRED_T,
        };
        // 0.01 ≤ 0.05/3, 0.02 ≤ 0.05/2, 0.04 ≤ 0.05/1.
        let mut rows = vec![row(0.04), row(0.01), row(0.02)];
        holm(&mut rows, 0.05);
        assert_eq!(rows.iter().map(|r| r.significant).collect::<Vec<_>>(), [true, true, true]);
        let mut rows = vec![row(0.03), row(0.01), row(0.02)];
        holm(&mut rows, 0.05);
        // 0.01 ≤ 0.0167, 0.02 ≤ 0.025, 0.03 ≤ 0.05.
        assert!(rows.iter().all(|r| r.significant));
        // 0.02 > 0.05/3: none, though each alone is below 0.05.
        let mut rows = vec![row(0.02), row(0.02), row(0.02)];
        holm(&mut rows, 0.05);
        assert!(rows.iter().all(|r| !r.significant));
        // 0.001 ≤ 0.05/3, then 0.03 > 0.05/2 stops 0.04 too.
        let mut rows = vec![row(0.04), row(0.001), row(0.03)];
        holm(&mut rows, 0.05);
        assert_eq!(rows.iter().map(|r| r.significant).collect::<Vec<_>>(), [false, true, false]);
    }
}
