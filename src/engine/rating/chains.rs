//! Chains: forcing chains over candidate nodes, from SE's published rules (the
//! levels and their base ratings, the length increment); the search is our own.
//!
//! A node is a candidate `9 * cell + digit` that is either *on* (the cell holds the
//! digit) or *off*. Assuming a node, [`propagate`] follows implications (static
//! ones breadth first; dynamic ones in SE's order, [`propagate_se`]) and
//! records, for every reached node, its parent (the node that implied it) or, for
//! an *on* node, the cell or unit that forced it:
//!
//! * on ⇒ off: the other candidates of the cell and the digit's other places in the
//!   cell's row, column and box;
//! * off ⇒ on, static: the other candidate of a bivalue cell, the other place of a
//!   digit with two places in a unit (the strong links of AICs);
//! * off ⇒ on, dynamic: the last candidate left in a cell or the last place left in
//!   a unit *given every node switched off so far* (SE's dynamic chains).
//!
//! The levels, tried in order; within a level the easiest conclusion wins:
//!
//! 1. static chains, rated as SE's three passes rate them: on one digit, X-cycles
//!    (6.5 + length) and "p on ⇒ p off" X-chains (6.6 + length); on bivalue cells,
//!    Y-cycles only (6.5 + length: SE searches no Y forcing chain); with every link,
//!    cycles and "p on ⇒ p off" chains at 7.0 + length — an XY-chain that closes no
//!    cycle included (named `xy-chain` when its links are all bivalue cells, else
//!    `aic`). A cycle removes what sees an on and an off node of its digit.
//! 2. nishio: dynamic on one digit, "p on ⇒ contradiction" (7.5 + length);
//! 3. static cell and region forcing chains (8.0 + length), as SE's multiple
//!    chains search them: from cells of three candidates or more, and from a
//!    unit's places of a digit when its first place is such a cell;
//! 4. dynamic chains (8.5 + length): contradictions ("p on" or "p off" reaches a
//!    node both on and off), double forcing (p on and p off agree, from cells of
//!    three candidates or more), cell and region forcing chains from every cell
//!    and every unit's places of a digit.
//! 5. dynamic chains (+) (9.0 + length, SE's first nesting level): level 4 whose
//!    propagations, each time their singles run out, apply SE's rules ([`plus`]:
//!    pointing and claiming, hidden pairs, naked pairs, X-wings) on the board they
//!    have left; what a rule removes is an off node whose ancestors are the
//!    candidates whose going made the pattern, and the propagation goes on from it.
//! 6. SE's nested forcing chains (9.5, 10.0, 10.5, 11.0 + length: its levels 2 to 5):
//!    level 5's propagations nest, after the (+) rules, a whole chain search of a
//!    lower kind on their board ([`nested`], which follows SE's procedure as
//!    written); the first hint in SE's order of the first level with one is the
//!    step, as in SE.
//!
//! The length of a conclusion is counted as SE counts it: each branch (the chains
//! to "x on" and to "x off" of a contradiction, one chain per case of a forcing
//! chain) with its own distinct ancestors, the branches added up, less two; SE
//! adds 0.1 each time it passes 4, 6, 8, 12, 16, 24, 32, … ([`length_increment`]).
//! A dynamic branch that reaches a contradiction stops there, its sets partial
//! (SE's, in the same order), and still counts as a case of a forcing chain.
//!
//! Level 1 first asks the static implication closure of the step ([`Reach`], one
//! pass of Tarjan's algorithm) which candidates a static chain can refute at all, and
//! searches only those (same results, a quarter less time on SE 5.0+ puzzles).
//! Level 3 reads every branch's outcome (what "p on" switches on and off) from the
//! same closure, and propagates only the branches of the conclusions it rates.
//! Level 2 propagates only the assumptions that [`nishio_clash`] says clash. Same
//! results; together 16 % less time on SE 5.0+ puzzles.
//!
//! The step's static strong links are computed once ([`Strong`]) and shared by the
//! closure and every static search of the step.
//!
//! No allocation per step: one [`Prop`] per start node and polarity (≈3 KiB each,
//! 4.4 MiB in all) and one for the levels that read each at once, the closure
//! (≈140 KiB) and the strong links (≈14 KiB) live in [`Chains`], allocated with the
//! rater.
//!
//! Level 1 searches only what can still change its conclusions: a candidate's chains
//! no deeper than the best so far allows, mixed cycles only from
//! [`Chains::mixed_cycle_starts`], and cycles of either kind only from starts whose
//! component of the solution's true graph can remove something ([`true_loops`]); a
//! unit test compares the pruned search with the full one.

use super::tables::{
    digit_count, Bits, Bits64, Cells128, FewBits, CELL_UNITS, PEERS, UNIT_BITS, UNIT_MASK,
};
use super::{Found, Pencilmarks, Technique};

mod nested;
mod plus;
mod true_loops;

/// Parent of the start node.
const START: u16 = u16::MAX;
/// Parent code of an on node forced by its cell: `CAUSE_CELL + cell`.
const CAUSE_CELL: u16 = 1000;
/// Parent code of an on node forced by a unit: `CAUSE_UNIT + unit`.
const CAUSE_UNIT: u16 = 2000;
/// Parent code of an off node a rule of [`Mode::Plus`] switched off: `RULE + k`,
/// `k` indexing [`Prop::rules`].
const RULE: u16 = 3000;
// At most 729 instances a propagation (each switches a node off), all below START.
const _: () = assert!(RULE as usize + 729 < START as usize);
/// No contradiction.
const NONE: u16 = u16::MAX;
/// [`Prop::contra`] of a static outcome read from the closure: a contradiction whose
/// node [`Chains::trace`] finds.
const CLASH: u16 = u16::MAX - 1;
/// Polarity bit of a queued node.
const ON: u16 = 1 << 15;

type Set729 = [u64; 12];

/// A set of nodes by digit: node `9 * c + d` is bit `c` of `[d]`, so that a
/// propagation marks a digit's places among a cell's peers in one operation.
type Nodes = [u128; 9];

#[inline]
fn has(s: &Nodes, n: usize) -> bool {
    s[n % 9] >> (n / 9) & 1 != 0
}

#[inline]
fn get(s: &Set729, n: usize) -> bool {
    s[n >> 6] >> (n & 63) & 1 != 0
}
#[inline]
fn set(s: &mut Set729, n: usize) {
    s[n >> 6] |= 1 << (n & 63);
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Static,
    /// Static, one digit: strong links of units only (X-chains).
    StaticX,
    /// Static, strong links of bivalue cells only (XY-chains).
    StaticY,
    /// Static, every link, followed in SE's order (level 3's forcing chains).
    Forcing,
    Nishio,
    Dynamic,
    /// Dynamic, and when the singles run out, SE's rules of its dynamic forcing
    /// chains (+) on the propagation's board ([`plus`]).
    Plus,
}

/// The outcome of assuming one node.
#[derive(Clone)]
struct Prop {
    on: Nodes,
    off: Nodes,
    par_on: [u16; 729],
    par_off: [u16; 729],
    /// A node found both on and off, [`CLASH`] when the closure says there is one
    /// but the propagation has not run, or [`NONE`].
    contra: u16,
    /// The rule instances of a [`Mode::Plus`] propagation (an off node's parent
    /// `RULE + k` is instance `k`), their parents in `rule_parents`. Empty, and
    /// unallocated, until the level first runs.
    rules: Vec<RuleUse>,
    rule_parents: Vec<u16>,
}

/// One rule instance of a [`Mode::Plus`] propagation: its technique and its
/// parents, `rule_parents[start..end]` (off nodes).
#[derive(Clone, Copy)]
struct RuleUse {
    technique: Technique,
    start: u32,
    end: u32,
}

impl Prop {
    /// The node set of polarity `on`, the other set, and the first one's parents.
    fn sides(&mut self, on: bool) -> (&mut Nodes, &Nodes, &mut [u16; 729]) {
        if on {
            (&mut self.on, &self.off, &mut self.par_on)
        } else {
            (&mut self.off, &self.on, &mut self.par_off)
        }
    }

    fn new() -> Self {
        Prop {
            on: [0; 9],
            off: [0; 9],
            par_on: [START; 729],
            par_off: [START; 729],
            contra: NONE,
            rules: Vec::new(),
            rule_parents: Vec::new(),
        }
    }

    /// The parents (off nodes) of the rule instance behind parent code `par`.
    fn rule_parents(&self, par: u16) -> &[u16] {
        let r = self.rules[(par - RULE) as usize];
        &self.rule_parents[r.start as usize..r.end as usize]
    }
}

/// Scratch of one propagation and of the ancestor walks.
struct Work {
    cand: [u16; 81],
    pos: [u128; 9],
    queue: [u16; 1458],
    seen_on: Set729,
    seen_off: Set729,
    stack: [u16; 1458],
    strong: Strong,
    /// The eliminations of one round of [`plus`] rules, with their instance.
    plus: Vec<(u16, u16)>,
}

/// The static strong links of one step, computed once for every static search of
/// the step ([`Strong::compute`]): for each candidate node, the on nodes that "node
/// off" implies — its cell's other candidate when the cell is bivalue, then its
/// digit's other place in each of its units (row, column, box) where it has two —
/// with the parent code [`propagate`] records for each.
struct Strong {
    to: [[(u16, u16); 4]; 729],
    len: [u8; 729],
    /// The bivalue cells.
    bivalue: u128,
    /// Per digit, the cells whose node has a strong link.
    linked: [u128; 9],
    /// Per candidate node, its digit's other places in the units where it has two
    /// (the cells of its strong links by unit).
    conj: [u128; 729],
}

impl Strong {
    fn compute(&mut self, b: &Pencilmarks) {
        self.bivalue = 0;
        self.linked = [0; 9];
        for c in Cells128(b.empty) {
            for d in Bits(b.cand[c] as u32) {
                let n = 9 * c + d;
                let (mut k, mut conj) = (0, 0u128);
                if b.cand[c].two() {
                    self.bivalue |= 1 << c;
                    let e = (b.cand[c] & !(1 << d)).trailing_zeros() as usize;
                    self.to[n][k] = ((9 * c + e) as u16, CAUSE_CELL + c as u16);
                    k += 1;
                }
                // Each unit's link written, and counted only where d has two
                // places (no branch: which units those are varies). At most
                // three links come before a unit's, so the write stays in `to`.
                for &u in &CELL_UNITS[c] {
                    let places = b.pos[d] & UNIT_MASK[u as usize];
                    let two = places.two();
                    let other = places & !(1u128 << c);
                    let at = 9 * other.trailing_zeros() as usize + d;
                    self.to[n][k] = (at as u16, CAUSE_UNIT + u as u16);
                    k += usize::from(two);
                    conj |= other & 0u128.wrapping_sub(u128::from(two));
                }
                self.len[n] = k as u8;
                self.conj[n] = conj;
                if k != 0 {
                    self.linked[d] |= 1 << c;
                }
            }
        }
    }

    /// The strong links from "n off": (on node, parent code).
    #[inline]
    fn from(&self, n: usize) -> &[(u16, u16)] {
        &self.to[n][..self.len[n] as usize]
    }
}

/// The best conclusion of a level so far.
#[derive(Clone, Copy)]
struct Best {
    rating: u8,
    technique: Technique,
    node: usize,
    place: bool,
    source: Source,
}

/// What a conclusion was drawn from, for its explanation ([`Chains::explain`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Its opposite assumed alone leads to a contradiction.
    Alone,
    /// Node `n` on and node `n` off both lead to it.
    Double(u16),
    /// Every candidate of the cell leads to it.
    Cell(u8),
    /// Every place of the digit (`.1`, 0-based) in the unit (`.0`) leads to it.
    Region(u8, u8),
}

/// A chain as a hint shows it: the branches of implications that justify one
/// conclusion. One branch for a contradiction (the assumption, the opposite of
/// the conclusion, leads to a candidate both on and off); for a forcing chain one
/// per case of a cell, a house or one candidate (on and off), every branch
/// reaching the conclusion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    pub forcing: bool,
    pub branches: Vec<Vec<Node>>,
}

/// One node of a chain's branch: a candidate switched on (the cell holds the
/// digit) or off, with the nodes that imply it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub cell: u8,
    /// 1..=9.
    pub digit: u8,
    pub on: bool,
    /// The indices, in the branch, of the nodes that imply this one: none for the
    /// assumption, one on node for an off node, for an on node every other
    /// candidate of its cell or place of its digit in its house (all off).
    pub from: Vec<u16>,
    pub link: Link,
}

/// Why a node follows from its `from` nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// The branch's assumption.
    Assumed,
    /// Through the node's cell (its other candidates).
    Cell,
    /// Through a house (unit `0..27`: rows, columns, boxes).
    House(u8),
    /// Through a rule of dynamic forcing chains (+) (pointing, claiming, hidden
    /// pair, naked pair, X-wing) on the branch's board: its `from` nodes are the
    /// candidates whose going made the pattern.
    Rule(Technique),
}

pub(crate) struct Chains {
    /// The board ([`Pencilmarks::loads`], its clock) and free bound whose
    /// closure [`Chains::find_free`] left for level 1 ([`Chains::closure`]), with
    /// the lowest rating it gave.
    armed: Option<((u64, u64, u8), u8)>,
    /// The conclusions rated as the level's best so far (all of them are applied).
    ties: Ties,
    /// Level 1's refuted candidates with the rating of their shortest static chain
    /// (before any cycle reading), which bounds what a mixed cycle can improve.
    chain_ratings: Vec<(u16, u8)>,
    /// Level 1's refuted candidates, and the on-to-on links of each one's shortest
    /// static chain ([`Reach::hops`]).
    refuted: Vec<u16>,
    hops: Vec<u8>,
    reach: Box<Reach>,
    /// Which cycle starts can remove anything ([`true_loops`]).
    true_graph: Box<true_loops::TrueGraph>,
    /// The propagation of levels 1 and 2, which read each one at once (kept apart
    /// from the 1,458 of levels 3 and 4, so that it stays in cache).
    scratch: Box<Prop>,
    from_on: Vec<Prop>,
    from_off: Vec<Prop>,
    /// The nodes of `from_on` and `from_off` whose propagation ran (parents
    /// recorded); the others hold only their outcome, read from the closure.
    traced_on: Set729,
    traced_off: Set729,
    work: Box<Work>,
    /// The engines of the nested levels, made when first needed.
    nested: Option<Vec<nested::Engine>>,
    /// Count every ancestor of the levels' conclusions ([`most_nodes`] sets no
    /// limit): what the tests compare the limited counts with.
    pub(super) exact: bool,
    /// Read every mixed cycle the search closes, not only those as long as it
    /// goes: what the tests compare the shortcut with.
    every_cycle: bool,
}

/// Records the conclusions in `f` since `mark` as a pattern; the new pattern, or
/// `None` when it is not recorded (nothing to explain).
fn new_pattern(f: &mut Found, mark: super::Mark) -> Option<&mut super::Pattern> {
    let recorded = f.patterns.len();
    f.pattern(mark, 0, 0);
    if f.patterns.len() == recorded {
        return None;
    }
    f.patterns.last_mut()
}

/// SE's length increment, in tenths: +1 each time `len` passes 4, 6, 8, 12, 16, 24,
/// 32, … (the bound grows alternately by 3/2 and 4/3). A table lookup below
/// [`TABLED`] nodes (every chain of a 9×9 board: it has 1,458 nodes), which the
/// searches ask for at every conclusion and every bound.
pub(crate) fn length_increment(len: usize) -> u8 {
    match INCREMENTS.get(len) {
        Some(&inc) => inc,
        None => increment_by_bounds(len),
    }
}

/// [`length_increment`] computed: the bounds walked up to `len`.
pub(crate) const fn increment_by_bounds(len: usize) -> u8 {
    let (mut added, mut ceil, mut odd) = (0u8, 4usize, false);
    while len > ceil {
        added = added.saturating_add(1);
        ceil = if odd { ceil * 4 / 3 } else { ceil * 3 / 2 };
        odd = !odd;
    }
    added
}

/// Chain lengths of [`INCREMENTS`] and [`LONGEST`].
const TABLED: usize = 2048;

/// [`length_increment`] of every length below [`TABLED`].
static INCREMENTS: [u8; TABLED] = {
    let mut t = [0u8; TABLED];
    let mut len = 0;
    while len < TABLED {
        t[len] = increment_by_bounds(len);
        len += 1;
    }
    t
};

/// For each increment allowed (tenths), the most nodes a chain can have within it
/// (at least 4), [`TABLED`] − 1 when every tabled length is.
static LONGEST: [u16; 32] = {
    let mut t = [0u16; 32];
    let mut allowed = 0;
    while allowed < 32 {
        let mut k = 4;
        while k + 1 < TABLED && INCREMENTS[k + 1] as usize <= allowed {
            k += 1;
        }
        t[allowed] = k as u16;
        allowed += 1;
    }
    t
};

/// The most nodes `k` for which `base + length_increment(k)` stays within `limit`
/// (tenths), or `None` when even `base` exceeds it. Past [`TABLED`] − 1 nodes the
/// answer is that bound: no chain of a 9×9 board is longer.
fn longest(base: u8, limit: u8) -> Option<usize> {
    let allowed = limit.checked_sub(base)? as usize;
    Some(LONGEST.get(allowed).map_or(TABLED - 1, |&k| k as usize))
}

impl Chains {
    pub(crate) fn new() -> Self {
        Chains {
            armed: None,
            ties: Ties {
                list: Vec::with_capacity(729),
                free: 0,
            },
            chain_ratings: Vec::with_capacity(729),
            refuted: Vec::with_capacity(729),
            hops: Vec::with_capacity(729),
            reach: Box::new(Reach::new()),
            true_graph: Box::new(true_loops::TrueGraph::new()),
            scratch: Box::new(Prop::new()),
            from_on: vec![Prop::new(); 729],
            from_off: vec![Prop::new(); 729],
            traced_on: [0; 12],
            traced_off: [0; 12],
            work: Box::new(Work {
                cand: [0; 81],
                pos: [0; 9],
                queue: [0; 1458],
                seen_on: [0; 12],
                seen_off: [0; 12],
                stack: [0; 1458],
                strong: Strong {
                    to: [[(0, 0); 4]; 729],
                    len: [0; 729],
                    bivalue: 0,
                    linked: [0; 9],
                    conj: [0; 729],
                },
                plus: Vec::new(),
            }),
            nested: None,
            exact: false,
            every_cycle: false,
        }
    }

    /// Level 1, the static chains and cycles; true when it made progress.
    pub(crate) fn find_static(
        &mut self,
        b: &Pencilmarks,
        f: &mut Found,
        solution: &[u8; 81],
    ) -> bool {
        self.ties.list.clear();
        self.ties.free = f.free;
        let found = self.unary(b, Some(solution), !f.record);
        let progress = self.apply(b, f, found);
        if found.is_some() && f.free != 0 {
            self.free_deductions(f, f.free.max(f.rating));
            return f.any();
        }
        progress
    }

    /// Free deductions ([`Found::free`]): the refuted candidates whose shortest
    /// chain, of 2 h + 2 nodes, read as an AIC rates (7.0 + the increment of 2 h)
    /// no higher than `limit`, the path's hardest step with this one. They go now
    /// rather than at a later step, which would rate no higher.
    fn free_deductions(&self, f: &mut Found, limit: u8) {
        for (i, &n) in self.refuted.iter().enumerate() {
            let h = self.hops[i];
            if h != u8::MAX && 70 + length_increment(2 * h as usize) <= limit {
                f.elims.push(((n / 9) as u8, (n % 9) as u8));
            }
        }
    }

    /// Levels 2 to 5, on the board [`Chains::find_static`] last saw (they read its
    /// closure), then (with `nested`) level 6; true when one made progress.
    pub(crate) fn find_forcing(&mut self, b: &Pencilmarks, f: &mut Found, nested: bool) -> bool {
        self.ties.list.clear();
        self.ties.free = 0;
        let found = self
            .nishio(b)
            .or_else(|| self.multiple(b, Mode::Forcing))
            .or_else(|| self.multiple(b, Mode::Dynamic))
            .or_else(|| self.multiple(b, Mode::Plus));
        self.apply(b, f, found) || nested && self.nested(b, f)
    }

    /// SE's nested levels 2 to 5 ([`nested`]): the first hint, in SE's order, of
    /// the first level that has one (SE applies that one hint).
    fn nested(&mut self, b: &Pencilmarks, f: &mut Found) -> bool {
        let engines = self.nested.get_or_insert_with(|| {
            (2..=nested::TOP_LEVEL)
                .map(|level| nested::Engine::new(nested::Kind::new(true, true, level), b))
                .collect()
        });
        for e in engines.iter_mut() {
            e.search(b, &b.cand, &b.pos);
            let Some(&h) = e.first() else { continue };
            let mark = f.mark();
            let technique = e.technique(&h);
            let (n, place) = h.conclusion;
            let (c, d) = (n as usize / 9, n as usize % 9);
            if place {
                f.place(technique, h.rating, c, d);
            } else {
                f.elims.push((c as u8, d as u8));
            }
            f.technique = technique;
            f.rating = h.rating;
            if let Some(pattern) = new_pattern(f, mark) {
                pattern.chain = Some(e.explain(&h));
                pattern.chain_drawn();
            }
            return f.any();
        }
        false
    }

    /// Records in `f` every tie of the level's best conclusion `found`, and while
    /// only rating the conclusions no harder than [`Found::free`] too.
    fn apply(&mut self, b: &Pencilmarks, f: &mut Found, found: Option<Best>) -> bool {
        let Some(best) = found else { return false };
        for i in 0..self.ties.list.len() {
            let t = self.ties.list[i];
            if t.rating > best.rating.max(self.ties.free) {
                continue;
            }
            let (c, d) = (t.node / 9, t.node % 9);
            let mark = f.mark();
            if t.place {
                if f.placements.contains(&(c as u8, d as u8)) {
                    continue;
                }
                f.place(t.technique, t.rating, c, d);
            } else if !f.elims.contains(&(c as u8, d as u8)) {
                f.elims.push((c as u8, d as u8));
            } else {
                continue;
            }
            if f.record {
                self.explain_into(b, f, &t, mark);
            }
        }
        // Ties of one rating may mix techniques of a level; name the first.
        f.technique = best.technique;
        f.rating = best.rating;
        f.any()
    }

    /// Records the conclusion `t` (recorded in `f` since `mark`) as a pattern with
    /// the chain that justifies it.
    #[cold]
    fn explain_into(&mut self, b: &Pencilmarks, f: &mut Found, t: &Best, mark: super::Mark) {
        if let Some(pattern) = new_pattern(f, mark) {
            pattern.chain = self.explain(b, t);
            pattern.chain_drawn();
        }
    }

    /// The chain behind conclusion `t` of this step: the propagations that drew it,
    /// run again (one at a time, in the scratch space) and read back from the
    /// conclusion or the contradiction to the assumptions.
    fn explain(&mut self, b: &Pencilmarks, t: &Best) -> Option<Chain> {
        let mode = match t.technique {
            Technique::XChain => Mode::StaticX,
            Technique::XyChain => Mode::StaticY,
            Technique::Aic => Mode::Static,
            Technique::ForcingChain => Mode::Forcing,
            Technique::Nishio => Mode::Nishio,
            Technique::DynamicForcingChain => Mode::Dynamic,
            Technique::DynamicForcingChainPlus => Mode::Plus,
            _ => return None,
        };
        let target = (t.node, t.place);
        let cases: Vec<(usize, bool)> = match t.source {
            Source::Alone => {
                // A static chain reads best as "p on ⇒ … ⇒ p off": searched until
                // the assumption itself is refuted, else until any contradiction. A
                // cycle's conclusion is also a chain with every static link, which a
                // one-kind search may not find.
                let assumed = !t.place;
                let dynamic = matches!(mode, Mode::Nishio | Mode::Dynamic | Mode::Plus);
                let w = &mut self.work;
                for mode in [mode, Mode::Static] {
                    let p = &mut self.scratch;
                    if !dynamic {
                        propagate(b, p, w, t.node, assumed, mode, Until::Refuted(usize::MAX));
                        if has(if assumed { &p.off } else { &p.on }, t.node) {
                            let roots = [(t.node, assumed), (t.node, !assumed)];
                            return Some(Chain {
                                forcing: false,
                                branches: vec![branch(b, p, &roots)],
                            });
                        }
                    }
                    propagate(b, p, w, t.node, assumed, mode, Until::Contradiction);
                    if p.contra != NONE {
                        let x = p.contra as usize;
                        return Some(Chain {
                            forcing: false,
                            branches: vec![branch(b, p, &[(x, true), (x, false)])],
                        });
                    }
                }
                return None;
            }
            Source::Double(n) => vec![(n as usize, true), (n as usize, false)],
            Source::Cell(c) => {
                let c = c as usize;
                Bits(b.cand[c] as u32).map(|d| (9 * c + d, true)).collect()
            }
            Source::Region(u, d) => {
                let (u, d) = (u as usize, d as usize);
                Cells128(b.pos[d] & UNIT_MASK[u])
                    .map(|c| (9 * c + d, true))
                    .collect()
            }
        };
        let mut branches = Vec::with_capacity(cases.len());
        for (n, on) in cases {
            let p = &mut self.scratch;
            propagate(b, p, &mut self.work, n, on, mode, Until::Contradiction);
            let reached = if target.1 { &p.on } else { &p.off };
            if !has(reached, target.0) {
                return None;
            }
            branches.push(branch(b, p, &[target]));
        }
        Some(Chain {
            forcing: true,
            branches,
        })
    }

    /// The step's closure ([`Reach`]), the candidates it refutes and, with
    /// `prune`, their shortest chains ([`Reach::hops`]); returns the lowest
    /// rating those give read as AICs (`u8::MAX` without `prune`). Reused once
    /// when [`Chains::find_free`] computed it on this board (`armed`).
    fn closure(&mut self, b: &Pencilmarks, prune: bool) -> u8 {
        let key = (b.loads, b.clock, self.ties.free);
        if prune {
            if let Some((armed, lowest)) = self.armed.take() {
                if armed == key {
                    return lowest;
                }
            }
        }
        self.work.strong.compute(b);
        self.reach.compute(b, &self.work.strong);
        // Static implications reach "n off" only through an on node weakly linked
        // to n; the closure says at once whether any is reached, so most candidates
        // skip the searches below (which would find nothing).
        self.refuted.clear();
        for c in Cells128(b.empty) {
            for d in Bits(b.cand[c] as u32) {
                if self.reach.refutes(b, 9 * c + d) {
                    self.refuted.push((9 * c + d) as u16);
                }
            }
        }
        // Each refuted candidate's shortest static chain, all at once: its length
        // bounds the chain's rating both ways (read as a cycle, it rates at most
        // two lengths lower), and a candidate whose chain cannot rate as low as the
        // shortest one's is not searched for its exact chain.
        let mut lowest = u8::MAX;
        if prune {
            self.reach
                .hops(b, &self.refuted, &mut self.hops, self.ties.free);
            for &h in &self.hops {
                lowest = lowest.min(70 + length_increment(2 * h as usize));
            }
        }
        lowest
    }

    /// While only rating, with the path's hardest step at 7.0 or more: the free
    /// deductions of the static chains (see [`Chains::find_static`]), when their
    /// shortest chain already rates no higher. Tried before the costlier finders
    /// from the unique loops on, which at that rating cannot raise the rating
    /// either: any deduction no harder than the hardest step will do (see the
    /// module's documentation). When there are none, the closure is kept for the
    /// static chains' level of the same step, on the same board.
    pub(crate) fn find_free(&mut self, b: &Pencilmarks, f: &mut Found) -> bool {
        if f.free < 70 {
            return false;
        }
        self.ties.free = f.free;
        let lowest = self.closure(b, true);
        if lowest > f.free {
            self.armed = Some(((b.loads, b.clock, f.free), lowest));
            return false;
        }
        self.free_deductions(f, f.free);
        f.technique = Technique::Aic;
        f.rating = lowest;
        f.any()
    }

    /// Level 1: static chains from p on that reach p off. Each kind is searched on
    /// its own links, so the shortest chain of each kind is found whatever the
    /// order of discovery (the rating is then the same for every symmetric copy).
    /// With the puzzle's `solution`, the search is pruned: chains searched no
    /// longer than the best so far allows, mixed cycles only from
    /// [`Chains::mixed_cycle_starts`], cycles only from the starts [`true_loops`]
    /// keeps open (always but in the test that proves it changes nothing). With
    /// `lazy` too (nothing recorded: only the best's technique is read, not its
    /// ties'), a chain whose rating the shortest chains already give is not
    /// searched, unless it is the best and its name is needed.
    fn unary(&mut self, b: &Pencilmarks, solution: Option<&[u8; 81]>, lazy: bool) -> Option<Best> {
        let prune = solution.is_some();
        let lazy = lazy && prune;
        // The candidates rated without their search, their technique unknown.
        let mut unnamed: Set729 = [0; 12];
        let mut best: Option<Best> = None;
        self.chain_ratings.clear();
        let lowest = self.closure(b, prune);
        // A chain no harder than the path's hardest step: the step cannot raise
        // the rating, so its own is not searched for, and it takes the free
        // deductions only (`find_static`).
        if lazy && lowest <= self.ties.free {
            return Some(Best {
                rating: lowest,
                technique: Technique::Aic,
                node: self.refuted[0] as usize,
                place: false,
                source: Source::Alone,
            });
        }
        for i in 0..self.refuted.len() {
            let n = self.refuted[i] as usize;
            // A chain of each kind, searched no longer than the best so far
            // allows: one of `len` nodes rates at least the kind's cycle base +
            // the increment of len - 4 (read as a cycle).
            for (mode, base, cycle) in [(Mode::Static, 70, 70), (Mode::StaticX, 66, 65)] {
                // Read as a cycle, a static chain of 2 h + 2 nodes rates 7.0 + the
                // increment of 2 h - 2: above the lowest, it is neither the best nor
                // a tie, nor a chain rating a mixed cycle could improve on.
                if prune && mode == Mode::Static {
                    let h = self.hops[i] as usize;
                    if 70 + length_increment((2 * h).saturating_sub(2)) > lowest {
                        continue;
                    }
                    // Read as a chain it rates above the lowest, so only its cycle
                    // could tie: none can close, no search (most such candidates).
                    if 70 + length_increment(2 * h) > lowest
                        && !self.reach.may_close_cycle(b, &self.work.strong, n)
                    {
                        continue;
                    }
                }
                // Most candidates have no X-chain at all: a closure over the digit's
                // places (no parents, no queue) says so before the search.
                if prune && mode == Mode::StaticX && !x_refutes(b, &self.work.strong, n) {
                    continue;
                }
                let depth = match best.filter(|_| prune) {
                    None => usize::MAX,
                    Some(best) => match longest(cycle, best.rating) {
                        Some(k) => k + 4 - 1,
                        None => continue,
                    },
                };
                // The shortest chain of any kind ends at depth 2 h + 1: deeper than
                // the search may go, it finds nothing. (`u8::MAX`: h not known, as
                // no mixed chain that long can matter, but an X-chain might.)
                let h = self.hops[i];
                if prune && h != u8::MAX && 2 * h as usize + 1 > depth {
                    continue;
                }
                // Read as a chain it rates the lowest, and no cycle can close: the
                // search would find a chain of 2 h + 2 nodes, rated the lowest.
                // Only its name (XY-chain or AIC) is unknown, and only the best's
                // is read.
                if lazy
                    && mode == Mode::Static
                    && 70 + length_increment(2 * h as usize) == lowest
                    && !self.reach.may_close_cycle(b, &self.work.strong, n)
                {
                    self.chain_ratings.push((n as u16, lowest));
                    set(&mut unnamed, n);
                    let t = Technique::Aic;
                    consider(
                        &mut best,
                        &mut self.ties,
                        lowest,
                        t,
                        n,
                        false,
                        Source::Alone,
                    );
                    continue;
                }
                let p = &mut self.scratch;
                propagate(b, p, &mut self.work, n, true, mode, Until::Refuted(depth));
                if !has(&p.off, n) {
                    continue;
                }
                let (len, _, y_only) = ancestors(b, p, &mut self.work, &[(n, false)], usize::MAX);
                // SE rates every forcing chain its X pass does not find at 7.0,
                // whatever its links; one on bivalue cells keeps its name.
                let t = match mode {
                    Mode::StaticX => Technique::XChain,
                    _ if y_only => Technique::XyChain,
                    _ => Technique::Aic,
                };
                let mut rating = base + inc_for(len);
                if mode == Mode::Static {
                    self.chain_ratings.push((n as u16, rating));
                }
                // The same loop read as a bidirectional cycle (without n's two
                // nodes) rates 6.5 (X) or 7.0 + its own length.
                if closes_cycle(b, p, n) {
                    let cycle = if mode == Mode::StaticX { 65 } else { 70 };
                    rating = rating.min(cycle + length_increment(len.saturating_sub(4)));
                }
                consider(
                    &mut best,
                    &mut self.ties,
                    rating,
                    t,
                    n,
                    false,
                    Source::Alone,
                );
            }
        }
        // The best chain, when rated without its search, gets its name.
        if let Some(best) = best
            .as_mut()
            .filter(|best| get(&unnamed, best.node) && best.technique != Technique::XChain)
        {
            best.technique = self.static_chain_name(b, best.node);
        }
        // A candidate a cycle removes sees an on node Z and an off node A of its
        // digit on it, and the cycle holds both ways: "q on ⇒ Z off ⇒ … ⇒ A on ⇒ q
        // off" refutes it as a chain too. No chain, no cycle to look for.
        let found = best?;
        // X-cycles came with the X-chains (`closes_cycle`). Y-cycles, which SE
        // finds with no Y forcing chain, are searched here; so are mixed cycles, only
        // where they would rate below the chains found (they differ from a chain of
        // the same loop by the two ends' nodes: at most 0.1).
        if found.rating >= 65 {
            let mut starts = self.reach.cyclic;
            if let Some(solution) = solution {
                let (strong, succ) = (&self.work.strong, &self.reach.succ);
                let open = self
                    .true_graph
                    .starts(b, strong, succ, solution, true, &b.pos);
                starts.iter_mut().zip(open).for_each(|(s, o)| *s &= o);
            }
            self.cycles(
                b,
                Mode::StaticY,
                65,
                Technique::XyChain,
                &mut best,
                false,
                &starts,
            );
        }
        if let Some(found) = best.filter(|found| found.rating > 70) {
            let starts = match solution {
                Some(solution) => {
                    // Such a cycle removes only candidates whose shortest chain
                    // rated the best (see `mixed_cycle_starts`).
                    let mut targets: Nodes = [0; 9];
                    for &(q, rating) in &self.chain_ratings {
                        if rating == found.rating {
                            targets[q as usize % 9] |= 1 << (q / 9);
                        }
                    }
                    let (strong, succ) = (&self.work.strong, &self.reach.succ);
                    let open = self
                        .true_graph
                        .starts(b, strong, succ, solution, false, &targets);
                    let mut starts = self.mixed_cycle_starts(b, found.rating);
                    starts.iter_mut().zip(open).for_each(|(s, o)| *s &= o);
                    // Only cycles as long as the search goes remove anything.
                    match longest(70, found.rating - 1) {
                        Some(k) if !self.every_cycle && starts != [0; 12] => {
                            let strong = &self.work.strong;
                            self.reach.closing_at(b, strong, &mut starts, (k + 2) / 2)
                        }
                        _ => {}
                    }
                    starts
                }
                None => self.reach.cyclic,
            };
            if starts != [0; 12] {
                self.cycles(
                    b,
                    Mode::Static,
                    70,
                    Technique::Aic,
                    &mut best,
                    true,
                    &starts,
                );
            }
        }
        best
    }

    /// The name of the static chain that refutes node `n` (it has one): an
    /// XY-chain when all its links are bivalue cells, else an AIC.
    fn static_chain_name(&mut self, b: &Pencilmarks, n: usize) -> Technique {
        let p = &mut self.scratch;
        propagate(
            b,
            p,
            &mut self.work,
            n,
            true,
            Mode::Static,
            Until::Refuted(usize::MAX),
        );
        debug_assert!(has(&p.off, n));
        let (_, _, y_only) = ancestors(b, p, &mut self.work, &[(n, false)], usize::MAX);
        if y_only {
            Technique::XyChain
        } else {
            Technique::Aic
        }
    }

    /// The nodes worth starting a mixed cycle from, to improve on `best` (tenths).
    ///
    /// A cycle of n nodes rates 7.0 + the increment of n − 2. Each candidate q it
    /// removes sees an on node Z and an off node A of its digit on it, and the
    /// cycle read the other way round from Z gives the static chain "q on ⇒ Z off
    /// ⇒ … ⇒ A on ⇒ q off" of at most n + 2 nodes: rated at most 7.0 + the
    /// increment of n, which is at most 0.1 more (the bounds 4, 6, 8, 12, … are
    /// 2 or more apart). q's shortest chain rated no lower than `best`, so a cycle
    /// below `best` removes only candidates whose shortest chain rated exactly
    /// `best`. Its on nodes, Z among them, switch each other on in turn: one
    /// component of the closure. So the cycle starts in the component of such a
    /// Z, and no other start can find one (most steps have none at all).
    ///
    /// That chain rates `best` and the cycle below it, so the increment of n is
    /// one more than that of n − 2: n − 2 is the last length of its increment,
    /// and n the most nodes a cycle below `best` can have, where the search stops.
    /// A shorter cycle removes nothing.
    fn mixed_cycle_starts(&self, b: &Pencilmarks, best: u8) -> Set729 {
        let mut roots: Set729 = [0; 12];
        for &(q, rating) in &self.chain_ratings {
            if rating != best {
                continue;
            }
            let (qc, d) = (q as usize / 9, q as usize % 9);
            for z in Cells128(PEERS[qc] & b.pos[d]) {
                let z = 9 * z + d;
                if get(&self.reach.cyclic, z) {
                    set(&mut roots, self.reach.root[z] as usize);
                }
            }
        }
        let mut starts: Set729 = [0; 12];
        if roots == [0; 12] {
            return starts;
        }
        for (k, &word) in self.reach.cyclic.iter().enumerate() {
            for bit in Bits64(word) {
                let s = 64 * k + bit;
                if get(&roots, self.reach.root[s] as usize) {
                    set(&mut starts, s);
                }
            }
        }
        starts
    }

    /// SE's bidirectional cycles of one kind (Y: bivalue cells; or every static
    /// link): from a candidate s assumed on, a static chain that comes back
    /// to "s on" through the strong link of an off node F with s, F reached again
    /// from an on node W that F is not an ancestor of. The cycle's nodes, each on
    /// or off, remove every candidate outside its cells that sees an on and an off
    /// node of its digit; rated `base` + the length increment of its node count
    /// less two. Sources are the nodes of non-trivial components of the static
    /// closure (any other has no cycle), and Y-cycles start on bivalue cells, as
    /// in SE. With `improve`, only cycles rated below the best so far are looked
    /// for (not its ties), and only from `starts` (all must lie in `cyclic`).
    #[allow(clippy::too_many_arguments)]
    fn cycles(
        &mut self,
        b: &Pencilmarks,
        mode: Mode,
        base: u8,
        t: Technique,
        best: &mut Option<Best>,
        improve: bool,
        starts: &Set729,
    ) {
        // A cycle of n nodes (the last on node n - 2 links from the start) rates
        // base + length_increment(n - 2): none longer than the best allows matters,
        // and the search stops at that depth.
        let mut max_nodes = 1458;
        if let Some(best) = best {
            match longest(base, best.rating - improve as u8) {
                Some(k) => max_nodes = k + 2,
                None => return,
            }
        }
        let cells_link = mode != Mode::StaticX;
        let units_link = mode != Mode::StaticY;
        for (k, &word) in starts.iter().enumerate() {
            for bit in Bits64(word) {
                let s = 64 * k + bit;
                let (a_cell, a) = (s / 9, s % 9);
                let bivalue = b.cand[a_cell].two();
                if mode == Mode::StaticY && !bivalue {
                    continue;
                }
                // The off nodes that switch s on: s's cell's other candidate, s's
                // other place in a unit where it has two.
                let mut partners = [0usize; 4];
                let mut np = 0;
                if cells_link && bivalue {
                    partners[np] =
                        9 * a_cell + (b.cand[a_cell] & !(1 << a)).trailing_zeros() as usize;
                    np += 1;
                }
                if units_link {
                    for &u in &CELL_UNITS[a_cell] {
                        let places = b.pos[a] & UNIT_MASK[u as usize];
                        if places.two() {
                            let z = (places & !(1u128 << a_cell)).trailing_zeros() as usize;
                            partners[np] = 9 * z + a;
                            np += 1;
                        }
                    }
                }
                if np == 0 {
                    continue;
                }
                let p = &mut self.scratch;
                propagate(
                    b,
                    p,
                    &mut self.work,
                    s,
                    true,
                    mode,
                    Until::Depth(max_nodes - 2),
                );
                for &f in &partners[..np] {
                    let (fc, fd) = (f / 9, f % 9);
                    // Every on node weakly linked to F closes a cycle of its own
                    // (through the path the breadth-first search found to it).
                    let (ties, every_cycle) = (&mut self.ties, self.every_cycle);
                    let mut close = |w: usize| {
                        if w == s || !has(&p.on, w) {
                            return;
                        }
                        let Some(len) = cycle_len(b, p, s, w, f) else {
                            return;
                        };
                        // A cycle below the best removes only candidates whose
                        // chain rated the best, and none unless it is as long as
                        // the search goes (see `mixed_cycle_starts`).
                        if improve && len != max_nodes && !every_cycle {
                            return;
                        }
                        let rating = base + length_increment(len.saturating_sub(2));
                        for q in cycle_eliminations(b, p, w, f) {
                            consider(best, ties, rating, t, q, false, Source::Alone);
                        }
                    };
                    if cells_link {
                        for e in Bits((b.cand[fc] & !(1 << fd)) as u32) {
                            close(9 * fc + e);
                        }
                    }
                    for q in Cells128(PEERS[fc] & b.pos[fd]) {
                        close(9 * q + fd);
                    }
                }
            }
        }
    }

    /// Level 2: dynamic chains on one digit from p on that reach a contradiction.
    fn nishio(&mut self, b: &Pencilmarks) -> Option<Best> {
        let mut best: Option<Best> = None;
        for c in Cells128(b.empty) {
            for d in Bits(b.cand[c] as u32) {
                // Most assumptions lead to no contradiction: the set-wise check
                // says which do, and only those are propagated (to be rated).
                if !nishio_clash(b, c, d) {
                    continue;
                }
                let n = 9 * c + d;
                let p = &mut self.scratch;
                let until = Until::Contradiction;
                propagate(b, p, &mut self.work, n, true, Mode::Nishio, until);
                let x = p.contra as usize;
                let Some(most) = most_nodes(75, best, self.exact) else {
                    continue;
                };
                let len = clash_len(b, p, &mut self.work, x, most);
                consider(
                    &mut best,
                    &mut self.ties,
                    75 + inc_for(len),
                    Technique::Nishio,
                    n,
                    false,
                    Source::Alone,
                );
            }
        }
        best
    }

    /// Levels 3 to 5: cell and region forcing chains (static, [`Mode::Forcing`]);
    /// contradiction, double, cell and region forcing chains (dynamic, and dynamic
    /// with SE's rules, [`Mode::Plus`]), as SE's multiple chains search them (see
    /// the module docs).
    ///
    /// At the static level the closure gives each branch's outcome
    /// ([`Chains::static_outcomes`]), and only the branches of a conclusion are
    /// propagated, to rate it; dynamic outcomes need the propagations.
    fn multiple(&mut self, b: &Pencilmarks, mode: Mode) -> Option<Best> {
        let (t, base) = level_of(mode);
        let mut best: Option<Best> = None;
        let dynamic = matches!(mode, Mode::Dynamic | Mode::Plus);
        if dynamic {
            (self.traced_on, self.traced_off) = ([!0; 12], [!0; 12]);
        } else {
            self.static_outcomes(b);
        }
        // SE's multiple chains: at the static level only cell and region forcing
        // (from cells of three candidates or more); the dynamic level adds
        // contradictions, and double forcing from cells of three or more (a
        // bivalue cell is a cell forcing chain), each candidate's read straight
        // after its two propagations, while they are in cache.
        for c in Cells128(b.empty).filter(|_| dynamic) {
            let k = digit_count(b.cand[c]);
            for d in Bits(b.cand[c] as u32) {
                let n = 9 * c + d;
                let w = &mut *self.work;
                let until = Until::Contradiction;
                propagate(b, &mut self.from_on[n], w, n, true, mode, until);
                propagate(b, &mut self.from_off[n], w, n, false, mode, until);
                // Contradictions: the assumption is false.
                // Assuming the candidate on (off) led to a contradiction: it is off (on).
                for (from, place) in [(true, false), (false, true)] {
                    let props = if from { &self.from_on } else { &self.from_off };
                    if props[n].contra == NONE {
                        continue;
                    }
                    self.trace(b, n, from, mode);
                    let side = if from {
                        &self.from_on[n]
                    } else {
                        &self.from_off[n]
                    };
                    let x = side.contra as usize;
                    let Some(most) = most_nodes(base, best, self.exact) else {
                        continue;
                    };
                    let len = clash_len(b, side, &mut self.work, x, most);
                    consider(
                        &mut best,
                        &mut self.ties,
                        base + inc_for(len),
                        t,
                        n,
                        place,
                        Source::Alone,
                    );
                }
                if k < 3 {
                    continue;
                }
                // Double forcing: p on and p off imply the same.
                let branches = [n, n];
                let froms = [true, false];
                let source = Source::Double(n as u16);
                self.conclude(b, &branches, &froms, (mode, source), &mut best);
            }
        }
        // Cell forcing: every candidate of a cell implies the same.
        let mut branches = [0usize; 9];
        for c in Cells128(b.empty) {
            let k = digit_count(b.cand[c]) as usize;
            if k < if dynamic { 2 } else { 3 } {
                continue;
            }
            for (i, d) in Bits(b.cand[c] as u32).enumerate() {
                branches[i] = 9 * c + d;
            }
            let source = Source::Cell(c as u8);
            self.conclude_all_on(b, &branches[..k], (mode, source), &mut best);
        }
        // Region forcing: every place of a digit in a unit implies the same.
        for (u, &um) in UNIT_MASK.iter().enumerate() {
            for d in 0..9 {
                let places = b.pos[d] & um;
                let k = places.count_ones() as usize;
                // SE starts a region from its first place, at the static level only
                // when that cell has three candidates or more.
                let first = places.trailing_zeros() as usize;
                if k < 2 || !dynamic && digit_count(b.cand[first]) < 3 {
                    continue;
                }
                for (i, c) in Cells128(places).enumerate() {
                    branches[i] = 9 * c + d;
                }
                let source = Source::Region(u as u8, d as u8);
                self.conclude_all_on(b, &branches[..k], (mode, source), &mut best);
            }
        }
        best
    }

    /// Every branch's outcome at the static level, from the step's closure (which
    /// level 1 computed on this board): "n on" switches on the nodes of n's reach
    /// and off their weak links; "n off" switches off n and what its strong
    /// partners switch on does. These are the sets of a propagation run to the end,
    /// which is what a branch without a contradiction is; a contradiction is marked
    /// [`CLASH`], for [`Chains::trace`] to find its node. Nodes of one component
    /// share their reach, computed once.
    fn static_outcomes(&mut self, b: &Pencilmarks) {
        (self.traced_on, self.traced_off) = ([0; 12], [0; 12]);
        let mut first = [NONE; 729];
        for c in Cells128(b.empty) {
            for d in Bits(b.cand[c] as u32) {
                let n = 9 * c + d;
                let root = self.reach.root[n] as usize;
                let (on, off, contra) = match first[root] {
                    NONE => {
                        first[root] = n as u16;
                        let on = self.reach.reach[n];
                        let off = weak_links(b, &on);
                        (on, off, clash(&on, &off))
                    }
                    k => {
                        let p = &self.from_on[k as usize];
                        (p.on, p.off, p.contra)
                    }
                };
                let p = &mut self.from_on[n];
                (p.on, p.off, p.contra) = (on, off, contra);
            }
        }
        for c in Cells128(b.empty) {
            for d in Bits(b.cand[c] as u32) {
                let n = 9 * c + d;
                let (mut on, mut off): (Nodes, Nodes) = ([0; 9], [0; 9]);
                off[d] = 1 << c;
                for &(m, _) in self.work.strong.from(n) {
                    let p = &self.from_on[m as usize];
                    for e in 0..9 {
                        on[e] |= p.on[e];
                        off[e] |= p.off[e];
                    }
                }
                let p = &mut self.from_off[n];
                (p.on, p.off, p.contra) = (on, off, clash(&on, &off));
            }
        }
    }

    /// Propagates branch `n` (assumed on when `on`), whose outcome the closure
    /// gave, to record its parents and its contradiction's node; once a step.
    fn trace(&mut self, b: &Pencilmarks, n: usize, on: bool, mode: Mode) {
        let (traced, props) = if on {
            (&mut self.traced_on, &mut self.from_on)
        } else {
            (&mut self.traced_off, &mut self.from_off)
        };
        if !get(traced, n) {
            set(traced, n);
            let w = &mut *self.work;
            propagate(b, &mut props[n], w, n, on, mode, Until::Contradiction);
        }
    }

    /// [`Self::conclude`] for branches that each assume their node on.
    fn conclude_all_on(
        &mut self,
        b: &Pencilmarks,
        branches: &[usize],
        rated: (Mode, Source),
        best: &mut Option<Best>,
    ) {
        // A branch that clashed stopped there and still counts, with what it had
        // reached (SE's partial sets): at the static level the closure's outcome
        // is the whole of it, so the branch is propagated first (the dynamic levels
        // propagated every branch).
        if !matches!(rated.0, Mode::Dynamic | Mode::Plus) {
            for &n in branches {
                if self.from_on[n].contra != NONE {
                    self.trace(b, n, true, rated.0);
                }
            }
        }
        self.conclude(b, branches, &[true; 9][..branches.len()], rated, best);
    }

    /// The conclusions common to every branch (node `branches[i]` assumed on when
    /// `froms[i]`, else off) that make progress, rated by their summed lengths
    /// (`rated`: the level, and where the branches come from).
    fn conclude(
        &mut self,
        b: &Pencilmarks,
        branches: &[usize],
        froms: &[bool],
        rated: (Mode, Source),
        best: &mut Option<Best>,
    ) {
        let (mode, source) = rated;
        let (t, base) = level_of(mode);
        let (mut on, mut off) = {
            let (from_on, from_off) = (&self.from_on, &self.from_off);
            let prop = |i: usize| &(if froms[i] { from_on } else { from_off })[branches[i]];
            let (mut on, mut off) = (prop(0).on, prop(0).off);
            for i in 1..branches.len() {
                for d in 0..9 {
                    on[d] &= prop(i).on[d];
                    off[d] &= prop(i).off[d];
                }
            }
            (on, off)
        };
        // Progress only: placing a candidate, removing one.
        for d in 0..9 {
            on[d] &= b.pos[d];
            off[d] &= b.pos[d];
        }
        if on == [0; 9] && off == [0; 9] {
            return;
        }
        for (&n, &from) in branches.iter().zip(froms) {
            self.trace(b, n, from, mode);
        }
        let (from_on, from_off) = (&self.from_on, &self.from_off);
        let prop = |i: usize| &(if froms[i] { from_on } else { from_off })[branches[i]];
        // In node order, as the conclusions are applied and printed.
        let by_node = |nodes: &Nodes| {
            let mut s: Set729 = [0; 12];
            for (d, &cells) in nodes.iter().enumerate() {
                for c in Cells128(cells) {
                    set(&mut s, 9 * c + d);
                }
            }
            s
        };
        let (common_on, common_off) = (by_node(&on), by_node(&off));
        let w = &mut *self.work;
        let ties = &mut self.ties;
        for (set_, place) in [(&common_on, true), (&common_off, false)] {
            for (k, &word) in set_.iter().enumerate() {
                for bit in Bits64(word) {
                    let q = 64 * k + bit;
                    // Counted no further than a tie with the best so far allows.
                    let Some(most) = most_nodes(base, *best, self.exact) else {
                        return;
                    };
                    let mut len = 0;
                    for i in 0..branches.len() {
                        len += ancestors(b, prop(i), w, &[(q, place)], most - len).0;
                        if len > most {
                            break;
                        }
                    }
                    if len > most {
                        continue;
                    }
                    consider(
                        best,
                        ties,
                        base.saturating_add(inc_for(len)),
                        t,
                        q,
                        place,
                        source,
                    );
                }
            }
        }
    }
}

/// The static implication closure of one step: for every candidate node u, the
/// nodes that "u on" switches on through static links (a weak link to an off node,
/// then a strong link from it: the other candidate of a bivalue cell, the other
/// place of a digit with two places in a unit), repeatedly. Computed once per step
/// by Tarjan's strongly connected components, whose emission order (every component
/// after the ones it reaches) lets each component's set be the union of its
/// successors' sets. Fixed buffers: no allocation per step.
struct Reach {
    /// Each node's successors, by digit (built with a few masks per node, from
    /// [`Strong`]'s unit partners and the bivalue cells).
    succ: [Nodes; 729],
    /// The same successors as lists, in one buffer: node n's are
    /// `succ_list[succ_at[n] as usize..][..succ_len[n] as usize]` (what the
    /// searches walk, where the sets are mostly empty words).
    succ_list: Vec<u16>,
    succ_at: [u32; 729],
    succ_len: [u16; 729],
    /// By digit, as a propagation's sets are ([`Nodes`]): a branch's outcome is
    /// its node's set as it is.
    reach: [Nodes; 729],
    /// The nodes of components with more than one node: the only candidates that
    /// can start a bidirectional cycle.
    cyclic: Set729,
    /// Each node's component, named by its root node (valid for candidates).
    root: [u16; 729],
    index: [u16; 729],
    low: [u16; 729],
    on_stack: Set729,
    stack: [u16; 729],
    depth: usize,
    next_index: u16,
    /// [`Reach::hops`]' scratch, per node: the sources weakly linked to it, those
    /// that reached it, those that reached it at an odd and an even depth.
    hop_weak: [u64; 729],
    hop_seen: [u64; 729],
    hop_depth: [[u64; 729]; 2],
    /// The nodes reached at the current depth, at the next, and at any.
    hop_lists: [Vec<u16>; 3],
}

/// The nodes weakly linked to node `n`: its cell's other candidates, its digit's
/// places among its cell's peers (an on node there switches n off).
fn weakly_linked(b: &Pencilmarks, n: usize) -> impl Iterator<Item = usize> {
    let (c, d) = (n / 9, n % 9);
    let cell = Bits((b.cand[c] & !(1 << d)) as u32).map(move |e| 9 * c + e);
    cell.chain(Cells128(PEERS[c] & b.pos[d]).map(move |q| 9 * q + d))
}

/// Not yet visited by Tarjan's search.
const UNSEEN: u16 = u16::MAX;

impl Reach {
    fn new() -> Self {
        Reach {
            succ: [[0; 9]; 729],
            // Room for five times the most links any step of `se-rated.txt`
            // has (799); a step that needs more grows it once, for good.
            succ_list: Vec::with_capacity(4096),
            succ_at: [0; 729],
            succ_len: [0; 729],
            reach: [[0; 9]; 729],
            cyclic: [0; 12],
            root: [0; 729],
            index: [UNSEEN; 729],
            low: [0; 729],
            on_stack: [0; 12],
            stack: [0; 729],
            depth: 0,
            next_index: 0,
            hop_weak: [0; 729],
            hop_seen: [0; 729],
            hop_depth: [[0; 729]; 2],
            hop_lists: std::array::from_fn(|_| Vec::with_capacity(730)),
        }
    }

    /// For each node of `sources` (candidates), the fewest on-to-on links (each
    /// through an off node: [`Reach::succ`]) from it on to an on node that switches
    /// it off, into `hops`; its shortest static chain "n on ⇒ … ⇒ n off" then has
    /// 2 h + 2 nodes, what a breadth-first [`propagate`] finds. One breadth-first
    /// search for 64 sources at a time (a machine word; a step has about 20), a bit
    /// each, that stops once the chains still to find would rate (even read as
    /// cycles) above the shortest it found and, read as AICs, above `free` (the
    /// chains [`Chains::find_static`] may apply besides the step's): those left
    /// get `u8::MAX`.
    fn hops(&mut self, b: &Pencilmarks, sources: &[u16], hops: &mut Vec<u8>, free: u8) {
        hops.clear();
        hops.resize(sources.len(), u8::MAX);
        let [mut active, mut next, mut seen] = std::mem::take(&mut self.hop_lists);
        for (chunk, sources) in sources.chunks(64).enumerate() {
            active.clear();
            seen.clear();
            for (i, &n) in sources.iter().enumerate() {
                let (n, bit) = (n as usize, 1u64 << i);
                for w in weakly_linked(b, n) {
                    self.hop_weak[w] |= bit;
                }
                if self.hop_seen[n] == 0 {
                    seen.push(n as u16);
                }
                self.hop_seen[n] |= bit;
                self.hop_depth[0][n] |= bit;
                active.push(n as u16);
            }
            let all = u64::MAX >> (64 - sources.len());
            let mut done = 0u64;
            let (mut depth, mut first) = (0u8, 0u8);
            while !active.is_empty() && done != all && depth < u8::MAX - 1 {
                // A chain found at the next depth rates at least 7.0 + the increment
                // of 2 (depth + 1) - 2 nodes; the first found, at most 7.0 + that of
                // 2 first.
                if done != 0
                    && length_increment(2 * depth as usize) > length_increment(2 * first as usize)
                    && 70 + length_increment(2 * depth as usize + 2) > free
                {
                    break;
                }
                depth += 1;
                self.expand(depth as usize, &active, &mut next, &mut seen);
                let reached = &self.hop_depth[depth as usize % 2];
                for &y in &next {
                    let y = y as usize;
                    let got = reached[y] & self.hop_weak[y] & !done;
                    for i in Bits64(got) {
                        hops[64 * chunk + i] = depth;
                    }
                    if done == 0 && got != 0 {
                        first = depth;
                    }
                    done |= got;
                }
                std::mem::swap(&mut active, &mut next);
            }
            for &x in &active {
                self.hop_depth[depth as usize % 2][x as usize] = 0;
            }
            for &x in &seen {
                self.hop_seen[x as usize] = 0;
            }
            for &n in sources {
                for w in weakly_linked(b, n as usize) {
                    self.hop_weak[w] = 0;
                }
            }
        }
        self.hop_lists = [active, next, seen];
    }

    /// Keeps the nodes of `starts` from which a cycle of `hops` on-to-on links
    /// can close: a node s is on such a cycle's breadth-first search only when
    /// some on node W that no fewer than `hops - 1` links reach from it is
    /// weakly linked to a strong-link partner F of s (W on ⇒ F off ⇒ s on).
    /// One search for 64 starts at a time, as [`Reach::hops`].
    fn closing_at(&mut self, b: &Pencilmarks, strong: &Strong, starts: &mut Set729, hops: usize) {
        let mut sources = [0u16; 729];
        let mut count = 0;
        for (k, &word) in starts.iter().enumerate() {
            for bit in Bits64(word) {
                sources[count] = (64 * k + bit) as u16;
                count += 1;
            }
        }
        let [mut active, mut next, mut seen] = std::mem::take(&mut self.hop_lists);
        let mut kept: Set729 = [0; 12];
        for sources in sources[..count].chunks(64) {
            active.clear();
            seen.clear();
            // The on nodes that close a cycle through s, per source bit.
            for (i, &s) in sources.iter().enumerate() {
                let (s, bit) = (s as usize, 1u64 << i);
                for &(f, _) in strong.from(s) {
                    for w in weakly_linked(b, f as usize) {
                        self.hop_weak[w] |= bit;
                    }
                }
                seen.push(s as u16);
                self.hop_seen[s] |= bit;
                self.hop_depth[0][s] |= bit;
                active.push(s as u16);
            }
            let mut closing = 0u64;
            for depth in 1..hops {
                self.expand(depth, &active, &mut next, &mut seen);
                std::mem::swap(&mut active, &mut next);
            }
            // The last depth's nodes: read, then cleared.
            let reached = &mut self.hop_depth[(hops - 1) % 2];
            for &y in &active {
                let y = y as usize;
                closing |= reached[y] & self.hop_weak[y];
                reached[y] = 0;
            }
            for &x in &seen {
                self.hop_seen[x as usize] = 0;
            }
            for (i, &s) in sources.iter().enumerate() {
                for &(f, _) in strong.from(s as usize) {
                    for w in weakly_linked(b, f as usize) {
                        self.hop_weak[w] = 0;
                    }
                }
                if closing >> i & 1 != 0 {
                    set(&mut kept, s as usize);
                }
            }
        }
        self.hop_lists = [active, next, seen];
        *starts = kept;
    }

    /// One depth of the breadth-first searches of [`Reach::hops`] and
    /// [`Reach::closing_at`]: the sources in `hop_depth[(depth - 1) % 2]` of the
    /// `active` nodes (cleared as they go) move on to their successors not yet
    /// reached from them, into `hop_depth[depth % 2]`; `next` gets the nodes
    /// reached, `seen` those reached for the first time from any source.
    fn expand(&mut self, depth: usize, active: &[u16], next: &mut Vec<u16>, seen: &mut Vec<u16>) {
        let [even, odd] = &mut self.hop_depth;
        let (front, reached) = if depth % 2 == 1 {
            (even, odd)
        } else {
            (odd, even)
        };
        // Each node enters `next` once a depth (when first reached at it) and
        // `seen` once a search, so 729 places hold either, and one more takes
        // the write past the end. Every successor is written and the end moves
        // past it only when it counts: no branch per successor (it would
        // mispredict).
        let (mut n_next, mut n_seen) = (0, seen.len());
        next.clear();
        next.resize(730, 0);
        seen.resize(730, 0);
        for &x in active {
            let x = x as usize;
            let from = std::mem::take(&mut front[x]);
            let at = self.succ_at[x] as usize;
            for &y in &self.succ_list[at..at + self.succ_len[x] as usize] {
                let (node, y) = (y, y as usize);
                let new = from & !self.hop_seen[y];
                next[n_next] = node;
                n_next += usize::from((reached[y] == 0) & (new != 0));
                seen[n_seen] = node;
                n_seen += usize::from((self.hop_seen[y] == 0) & (new != 0));
                reached[y] |= new;
                self.hop_seen[y] |= new;
            }
        }
        next.truncate(n_next);
        seen.truncate(n_seen);
    }

    fn compute(&mut self, b: &Pencilmarks, strong: &Strong) {
        self.index = [UNSEEN; 729];
        self.on_stack = [0; 12];
        self.cyclic = [0; 12];
        self.depth = 0;
        self.next_index = 0;
        self.succ_list.clear();
        for c in Cells128(b.empty) {
            let bivalue = strong.bivalue >> c & 1;
            for d in Bits(b.cand[c] as u32) {
                // Weak links of (c, d) on, then each one's strong links. The cell's
                // other candidates off: their digits' other places in the units
                // where they have two, and (c, d) itself when the cell is bivalue.
                // (Masked, not looped over the cell's digits: no branch.)
                let others = b.cand[c] & !(1 << d);
                let mut succ: Nodes = [0; 9];
                for (e, s) in succ.iter_mut().enumerate() {
                    *s = strong.conj[9 * c + e] & 0u128.wrapping_sub(u128::from(others >> e & 1));
                }
                succ[d] |= bivalue << c;
                // d's places among c's peers off: the other candidate of those that
                // are bivalue, and d's other places in their units where it has two.
                let peers = PEERS[c] & b.pos[d];
                let pairs = peers & strong.bivalue;
                let own = succ[d];
                for (s, pos) in succ.iter_mut().zip(&b.pos) {
                    *s |= pairs & pos;
                }
                succ[d] = own;
                for q in Cells128(peers & strong.linked[d]) {
                    succ[d] |= strong.conj[9 * q + d];
                }
                let at = self.succ_list.len();
                for (e, &cells) in succ.iter().enumerate() {
                    for q in Cells128(cells) {
                        self.succ_list.push((9 * q + e) as u16);
                    }
                }
                let n = 9 * c + d;
                self.succ[n] = succ;
                self.succ_at[n] = at as u32;
                self.succ_len[n] = (self.succ_list.len() - at) as u16;
            }
        }
        for c in Cells128(b.empty) {
            for d in Bits(b.cand[c] as u32) {
                if self.index[9 * c + d] == UNSEEN {
                    self.visit(9 * c + d);
                }
            }
        }
    }

    fn visit(&mut self, u: usize) {
        self.index[u] = self.next_index;
        self.low[u] = self.next_index;
        self.next_index += 1;
        self.stack[self.depth] = u as u16;
        self.depth += 1;
        set(&mut self.on_stack, u);
        let at = self.succ_at[u] as usize;
        for i in at..at + self.succ_len[u] as usize {
            let v = self.succ_list[i] as usize;
            if self.index[v] == UNSEEN {
                self.visit(v);
                self.low[u] = self.low[u].min(self.low[v]);
            } else if get(&self.on_stack, v) {
                self.low[u] = self.low[u].min(self.index[v]);
            }
        }
        if self.low[u] != self.index[u] {
            return;
        }
        // u roots a component: its members are on the stack above it. Their set is
        // the component itself plus every successor's set (components reached from
        // here were completed earlier).
        let mut all: Nodes = [0; 9];
        let mut top = self.depth;
        loop {
            top -= 1;
            let v = self.stack[top] as usize;
            all[v % 9] |= 1 << (v / 9);
            if v == u {
                break;
            }
        }
        // The members' successors, each once (an edge at a time, a large
        // component would OR the same sets over and over).
        // A node already in the set came with its own reach (every reach set
        // holds its node): members, or reached by another.
        let absorb = |all: &mut Nodes, x: usize| {
            if !has(all, x) {
                for (a, r) in all.iter_mut().zip(&self.reach[x]) {
                    *a |= r;
                }
            }
        };
        if top + 1 == self.depth {
            // One member (most components): its successors, as listed.
            let at = self.succ_at[u] as usize;
            for &x in &self.succ_list[at..at + self.succ_len[u] as usize] {
                absorb(&mut all, x as usize);
            }
        } else {
            // The members' successors, each once (an edge at a time, a large
            // component would OR the same sets over and over).
            let mut next: Nodes = [0; 9];
            for &v in &self.stack[top..self.depth] {
                for (n, s) in next.iter_mut().zip(&self.succ[v as usize]) {
                    *n |= s;
                }
            }
            for (e, &cells) in next.iter().enumerate() {
                for q in Cells128(cells) {
                    absorb(&mut all, 9 * q + e);
                }
            }
        }
        let cyclic = self.depth - top > 1;
        for &v in &self.stack[top..self.depth] {
            let v = v as usize;
            self.reach[v] = all;
            self.root[v] = u as u16;
            if cyclic {
                set(&mut self.cyclic, v);
            }
            self.on_stack[v >> 6] &= !(1 << (v & 63));
        }
        self.depth = top;
    }

    /// Whether a static chain "n on ⇒ A off ⇒ X on ⇒ … ⇒ Z on ⇒ n off" can be a
    /// cycle with n outside it ([`closes_cycle`]): A and Z places of n's digit
    /// among n's peers that see each other, A with a strong link to X. The loop
    /// X on ⇒ … ⇒ Z on ⇒ A off ⇒ X on then puts X and Z in one component of the
    /// closure; when no such A, X and Z are, no chain from n closes a cycle.
    fn may_close_cycle(&self, b: &Pencilmarks, strong: &Strong, n: usize) -> bool {
        let (c, d) = (n / 9, n % 9);
        let places = PEERS[c] & b.pos[d];
        Cells128(places & strong.linked[d]).any(|a| {
            let zs = places & PEERS[a];
            zs != 0
                && strong.from(9 * a + d).iter().any(|&(x, _)| {
                    let root = self.root[x as usize];
                    Cells128(zs).any(|z| self.root[9 * z + d] == root)
                })
        })
    }

    /// Whether "n on" statically reaches "n off": some node it switches on is
    /// weakly linked to n (another candidate of n's cell, or n's digit in a peer).
    fn refutes(&self, b: &Pencilmarks, n: usize) -> bool {
        let (c, d) = (n / 9, n % 9);
        let r = &self.reach[n];
        r[d] & PEERS[c] & b.pos[d] != 0
            || Bits((b.cand[c] & !(1 << d)) as u32).any(|e| r[e] >> c & 1 != 0)
    }
}

/// The nodes of propagation `p` that lead to `roots` (node, on?), each after the
/// nodes that imply it, with its links: a branch of a [`Chain`].
fn branch(b: &Pencilmarks, p: &Prop, roots: &[(usize, bool)]) -> Vec<Node> {
    fn visit(
        b: &Pencilmarks,
        p: &Prop,
        (n, on): (usize, bool),
        index: &mut std::collections::HashMap<(usize, bool), u16>,
        nodes: &mut Vec<Node>,
    ) -> u16 {
        if let Some(&i) = index.get(&(n, on)) {
            return i;
        }
        let (c, d) = (n / 9, n % 9);
        let (parents, link): (Vec<(usize, bool)>, Link) = if on {
            let par = p.par_on[n];
            if par == START {
                (Vec::new(), Link::Assumed)
            } else if par >= CAUSE_UNIT {
                let u = par - CAUSE_UNIT;
                let others = b.pos[d] & UNIT_MASK[u as usize] & !(1u128 << c);
                let parents = Cells128(others).map(|q| (9 * q + d, false)).collect();
                (parents, Link::House(u as u8))
            } else {
                let others = b.cand[c] & !(1 << d);
                let parents = Bits(others as u32).map(|e| (9 * c + e, false)).collect();
                (parents, Link::Cell)
            }
        } else {
            let par = p.par_off[n];
            if par == START {
                (Vec::new(), Link::Assumed)
            } else if par >= RULE {
                let parents = p.rule_parents(par).iter().map(|&q| (q as usize, false));
                let technique = p.rules[(par - RULE) as usize].technique;
                (parents.collect(), Link::Rule(technique))
            } else {
                let pc = par as usize / 9;
                let link = if pc == c {
                    Link::Cell
                } else {
                    let u = CELL_UNITS[c]
                        .iter()
                        .find(|&&u| UNIT_MASK[u as usize] >> pc & 1 != 0)
                        .expect("an off node's parent is in its cell or sees it");
                    Link::House(*u)
                };
                (vec![(par as usize, true)], link)
            }
        };
        let from = parents
            .into_iter()
            .map(|parent| visit(b, p, parent, index, nodes))
            .collect();
        let i = nodes.len() as u16;
        nodes.push(Node {
            cell: c as u8,
            digit: d as u8 + 1,
            on,
            from,
            link,
        });
        index.insert((n, on), i);
        i
    }
    let mut index = std::collections::HashMap::new();
    let mut nodes = Vec::new();
    for &root in roots {
        visit(b, p, root, &mut index, &mut nodes);
    }
    nodes
}

/// SE's length increment of a chain conclusion counted `len` nodes: SE counts each
/// branch of a conclusion (the chains to "x on" and to "x off" of a contradiction,
/// one chain per case of a forcing chain) with its own ancestors, the branch's end
/// included, adds the branches up and leaves out two.
fn inc_for(len: usize) -> u8 {
    length_increment(len.saturating_sub(2))
}

/// Keeps the lowest-rated conclusion in `best` and every conclusion rated no higher
/// than it so far in `ties` (filtered to the final best rating when applied), and
/// every one rated no higher than `ties.free`.
fn consider(
    best: &mut Option<Best>,
    ties: &mut Ties,
    rating: u8,
    technique: Technique,
    node: usize,
    place: bool,
    source: Source,
) {
    let this = Best {
        rating,
        technique,
        node,
        place,
        source,
    };
    match best {
        Some(b) if rating > b.rating => {
            if rating <= ties.free {
                ties.list.push(this);
            }
        }
        Some(b) if rating == b.rating => ties.list.push(this),
        _ => {
            *best = Some(this);
            if ties.free == 0 {
                ties.list.clear();
            }
            ties.list.push(this);
        }
    }
}

/// The conclusions of a level kept by [`consider`].
struct Ties {
    list: Vec<Best>,
    /// While only rating the static chains, [`Found::free`]: conclusions rated no
    /// higher are kept too, and applied with the step's. 0 at the forcing levels:
    /// their free deductions moved a rating (`se-rated.txt` line 8,975, SE 8.7,
    /// rated 8.4 step by step and 8.7 with them), which must not depend on whether
    /// the steps are recorded.
    free: u8,
}

/// When a propagation may stop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Until {
    /// At the first contradiction.
    Contradiction,
    /// Once the start node is reached with the other polarity (all a "p ⇒ not p"
    /// chain needs: breadth first, it is then the shortest), or before expanding
    /// the nodes this many links from the start (a longer chain rates too high).
    Refuted(usize),
    /// Before expanding the nodes this many links from the start (cycles back to
    /// the start node, which only matter up to a length).
    Depth(usize),
}

/// The base rating (tenths) of dynamic forcing chains (+).
pub(crate) const PLUS: u8 = 90;
/// The base rating of SE's highest nesting level, in tenths (11.0).
pub(crate) const NESTED_TOP: u8 = nested::base(true, nested::TOP_LEVEL);

/// The technique and base rating (tenths) of forcing chains at `mode`'s level.
fn level_of(mode: Mode) -> (Technique, u8) {
    match mode {
        Mode::Dynamic => (Technique::DynamicForcingChain, 85),
        Mode::Plus => (Technique::DynamicForcingChainPlus, PLUS),
        _ => (Technique::ForcingChain, 80),
    }
}

/// Whether assuming digit `d` in cell `c` leads to a contradiction through `d`
/// alone (the links of a nishio propagation: an on cell switches off `d`'s places
/// among its peers, a unit's last place of `d` switches on), computed a wave of
/// cells at a time. A unit whose places (two or more) all switch off in one wave
/// is a contradiction: one by one, as [`propagate`] goes, its last place would
/// switch on and off.
fn nishio_clash(b: &Pencilmarks, c: usize, d: usize) -> bool {
    let pos = b.pos[d];
    let (mut on, mut off, mut wave) = (1u128 << c, 0u128, 1u128 << c);
    loop {
        let mut seen = 0;
        for x in Cells128(wave) {
            seen |= PEERS[x];
        }
        let added = seen & pos & !off;
        if added & on != 0 {
            return true;
        }
        if added == 0 {
            return false;
        }
        off |= added;
        let (left, mut units) = (pos & !off, 0u32);
        for x in Cells128(added) {
            units |= UNIT_BITS[x];
        }
        wave = 0;
        for u in Bits(units) {
            let r = left & UNIT_MASK[u];
            if r == 0 && !(pos & UNIT_MASK[u]).one() {
                return true;
            }
            if r.one() {
                wave |= r & !on;
            }
        }
        if wave == 0 {
            return false;
        }
        on |= wave;
    }
}

/// The nodes that on nodes `on` switch off: their cells' other candidates and
/// their digits' places among their peers.
fn weak_links(b: &Pencilmarks, on: &Nodes) -> Nodes {
    let mut off: Nodes = [0; 9];
    // The cells with an on node of a digit after d.
    let mut after = [0u128; 10];
    for d in (0..9).rev() {
        after[d] = after[d + 1] | on[d];
    }
    let mut before = 0u128;
    for d in 0..9 {
        let mut seen = before | after[d + 1];
        for c in Cells128(on[d]) {
            seen |= PEERS[c];
        }
        off[d] = seen & b.pos[d];
        before |= on[d];
    }
    off
}

/// Whether a static X-chain (digit `n % 9` only: its places' weak links and its
/// bilocal units' strong links) leads from `n` on to `n` off, at any length: what
/// an unbounded [`Mode::StaticX`] search from `n` finds, as two sets of cells.
fn x_refutes(b: &Pencilmarks, strong: &Strong, n: usize) -> bool {
    let (c, d) = (n / 9, n % 9);
    let (mut on, mut off, mut new_on) = (1u128 << c, 0u128, 1u128 << c);
    while new_on != 0 {
        let mut seen = 0u128;
        for o in Cells128(new_on) {
            seen |= PEERS[o];
        }
        let new_off = seen & b.pos[d] & !off;
        off |= new_off;
        if off >> c & 1 != 0 {
            return true;
        }
        new_on = 0;
        for x in Cells128(new_off & strong.linked[d]) {
            for &(m, cause) in strong.from(9 * x + d) {
                if cause >= CAUSE_UNIT {
                    new_on |= 1 << (m / 9);
                }
            }
        }
        new_on &= !on;
        on |= new_on;
    }
    false
}

/// [`CLASH`] when a node is both on and off, else [`NONE`].
fn clash(on: &Nodes, off: &Nodes) -> u16 {
    if on.iter().zip(off).any(|(a, b)| a & b != 0) {
        CLASH
    } else {
        NONE
    }
}

/// Assumes node `start` on (`start_on`) or off and records every implication in `p`
/// (see the module docs for the rules of each mode), [`Until`] `until`.
fn propagate(
    b: &Pencilmarks,
    p: &mut Prop,
    w: &mut Work,
    start: usize,
    start_on: bool,
    mode: Mode,
    until: Until,
) {
    match mode {
        Mode::Static => propagate_static::<STATIC>(b, p, w, start, start_on, until),
        Mode::StaticX => propagate_static::<STATIC_X>(b, p, w, start, start_on, until),
        Mode::StaticY => propagate_static::<STATIC_Y>(b, p, w, start, start_on, until),
        // These levels only ever look for the first contradiction.
        Mode::Forcing | Mode::Nishio | Mode::Dynamic | Mode::Plus => {
            debug_assert!(until == Until::Contradiction);
            propagate_se(b, p, w, (start, start_on), mode)
        }
    }
}

/// [`Mode::Static`], [`Mode::StaticX`] and [`Mode::StaticY`] as the constant
/// parameter of [`propagate_static`], so that each gets its own loop.
const STATIC: u8 = 0;
const STATIC_X: u8 = 1;
const STATIC_Y: u8 = 2;

/// [`propagate`] at the static levels, breadth first.
fn propagate_static<const MODE: u8>(
    b: &Pencilmarks,
    p: &mut Prop,
    w: &mut Work,
    start: usize,
    start_on: bool,
    until: Until,
) {
    p.on = [0; 9];
    p.off = [0; 9];
    p.contra = NONE;
    let cells_link = MODE != STATIC_X;
    let units_link = MODE != STATIC_Y;
    let mut tail = 0usize;
    // Marks node (c, d) and queues it; records a clash as the contradiction.
    macro_rules! mark {
        ($c:expr, $d:expr, $on:expr, $parent:expr) => {{
            let (c, d): (usize, usize) = ($c, $d);
            let node = 9 * c + d;
            let (mine, other, par) = p.sides($on);
            let bit = 1u128 << c;
            if mine[d] & bit == 0 {
                mine[d] |= bit;
                par[node] = $parent;
                if other[d] & bit != 0 && p.contra == NONE {
                    p.contra = node as u16;
                }
                // A static off node without strong links implies nothing.
                if $on || w.strong.len[node] != 0 {
                    w.queue[tail] = node as u16 | if $on { ON } else { 0 };
                    tail += 1;
                }
            }
        }};
    }
    mark!(start / 9, start % 9, start_on, START);
    let mut head = 0;
    // Breadth first: the queue holds one depth after another.
    let (mut depth, mut depth_end) = (0, tail);
    let max_depth = match until {
        Until::Contradiction => usize::MAX,
        Until::Refuted(max) | Until::Depth(max) => max,
    };
    if max_depth == 0 {
        return;
    }
    while head < tail {
        if head == depth_end {
            depth += 1;
            depth_end = tail;
            if depth >= max_depth {
                return;
            }
        }
        let e = w.queue[head];
        head += 1;
        let n = (e & !ON) as usize;
        let (c, d) = (n / 9, n % 9);
        if e & ON != 0 {
            if cells_link {
                for e2 in Bits((b.cand[c] & !(1 << d)) as u32) {
                    mark!(c, e2, false, n as u16);
                }
            }
            // A cycle search reads only the on nodes and their parents, never
            // the off set: it marks only the off nodes a chain continues through
            // (on bivalue cells for Y-cycles, with a strong link for mixed ones).
            // A static search for "start on ⇒ start off" reads those and the
            // start off.
            let through = match (MODE, until) {
                (STATIC_Y, _) => w.strong.bivalue,
                (_, Until::Depth(_)) => w.strong.linked[d],
                (_, Until::Refuted(_)) => {
                    let target = start_on && d == start % 9;
                    w.strong.linked[d] | (target as u128) << (start / 9)
                }
                _ => !0,
            };
            // The digit's places among the cell's peers, marked at once (in cell
            // order, as one by one: the same queue, the same first clash).
            let new = PEERS[c] & b.pos[d] & through & !p.off[d];
            if new != 0 {
                p.off[d] |= new;
                let clash = new & p.on[d];
                if clash != 0 && p.contra == NONE {
                    p.contra = (9 * clash.trailing_zeros() as usize + d) as u16;
                }
                // A static off node without strong links implies nothing.
                let queued = new & w.strong.linked[d];
                for q in Cells128(new) {
                    p.par_off[9 * q + d] = n as u16;
                }
                for q in Cells128(queued) {
                    w.queue[tail] = (9 * q + d) as u16;
                    tail += 1;
                }
            }
        } else {
            let (links, k) = (w.strong.to[n], w.strong.len[n] as usize);
            for &(on, cause) in &links[..k] {
                let by_unit = cause >= CAUSE_UNIT;
                if by_unit && units_link || !by_unit && cells_link {
                    let on = on as usize;
                    mark!(on / 9, on % 9, true, cause);
                }
            }
        }
        // Only marks change these, so they are read after each expansion.
        let done = match until {
            Until::Contradiction => p.contra != NONE,
            // The start's other polarity is marked: a clash, the first or a later one.
            Until::Refuted(_) => has(if start_on { &p.off } else { &p.on }, start),
            Until::Depth(_) => false,
        };
        if done {
            return;
        }
    }
}

/// A propagation in SE's order, for the levels that rate SE's multiple, nishio and
/// dynamic chains: every pending on node is expanded before the next off node, an
/// on node switches off its cell's other candidates (not in nishio) and then its
/// digit's places in its box, its row and its column, and an off node switches on
/// its cell's other candidate (not in nishio) and then its digit's other place in
/// its box, its row and its column, when that is the last one: on the board
/// (static, [`Mode::Forcing`]) or given every off node expanded so far (dynamic).
/// The order decides which contradiction comes first, what a branch that meets one
/// has reached, and each node's parents, so the lengths SE rates. A clash is
/// recorded (with its parent) but not added: the sets stay disjoint, as SE's.
/// The propagation runs until the first contradiction.
fn propagate_se(b: &Pencilmarks, p: &mut Prop, w: &mut Work, assumed: (usize, bool), mode: Mode) {
    let (start, start_on) = assumed;
    p.on = [0; 9];
    p.off = [0; 9];
    p.contra = NONE;
    p.rules.clear();
    p.rule_parents.clear();
    let cells_link = mode != Mode::Nishio;
    let dynamic = mode != Mode::Forcing;
    w.cand = b.cand;
    w.pos = b.pos;
    // On nodes queue in `stack`, off nodes in `queue`.
    let (mut on_head, mut on_tail, mut off_head, mut off_tail) = (0usize, 0usize, 0usize, 0usize);
    macro_rules! mark {
        ($c:expr, $d:expr, $on:expr, $parent:expr) => {{
            let (c, d): (usize, usize) = ($c, $d);
            let node = 9 * c + d;
            let (mine, other, par) = p.sides($on);
            let bit = 1u128 << c;
            if mine[d] & bit == 0 {
                par[node] = $parent;
                if other[d] & bit != 0 {
                    // As in SE, the sets stay disjoint: the clash is recorded
                    // (with its parent) but not added.
                    p.contra = node as u16;
                } else if $on {
                    mine[d] |= bit;
                    w.stack[on_tail] = node as u16;
                    on_tail += 1;
                } else {
                    mine[d] |= bit;
                    w.queue[off_tail] = node as u16;
                    off_tail += 1;
                }
            }
        }};
    }
    mark!(start / 9, start % 9, start_on, START);
    while p.contra == NONE {
        if on_head == on_tail && off_head == off_tail {
            if mode != Mode::Plus {
                break;
            }
            // SE's dynamic chains (+): the rules, on the board as the singles left
            // it; their eliminations are off nodes like any other.
            w.plus.clear();
            let g = plus::Board {
                b,
                cand: &w.cand,
                pos: &w.pos,
            };
            let (rules, parents, out) = (&mut p.rules, &mut p.rule_parents, &mut w.plus);
            // The board's candidates are no off node (every off node so far went
            // from it): an instance counts when it removes one no earlier instance of
            // the round does, which keeps the instances fewer than the nodes.
            let mut queued: Nodes = [0; 9];
            plus::advanced(&g, &mut |h| {
                let removals = &h.removals[..h.n_removals];
                let fresh = |&q: &u16| !has(&queued, q as usize);
                if !removals.iter().any(fresh) {
                    return;
                }
                for &q in removals {
                    queued[q as usize % 9] |= 1 << (q as usize / 9);
                }
                let k = rules.len() as u16;
                let start = parents.len() as u32;
                parents.extend_from_slice(&h.parents[..h.n_parents]);
                let end = parents.len() as u32;
                let technique = h.technique;
                rules.push(RuleUse {
                    technique,
                    start,
                    end,
                });
                out.extend(removals.iter().map(|&q| (q, k)));
            });
            debug_assert!(p.rules.len() <= 729);
            for i in 0..w.plus.len() {
                let (q, k) = w.plus[i];
                let q = q as usize;
                mark!(q / 9, q % 9, false, RULE + k);
                if p.contra != NONE {
                    break;
                }
            }
            if off_head == off_tail {
                break;
            }
            continue;
        }
        if on_head < on_tail {
            let n = w.stack[on_head] as usize;
            on_head += 1;
            let (c, d) = (n / 9, n % 9);
            if cells_link {
                for e2 in Bits((b.cand[c] & !(1 << d)) as u32) {
                    mark!(c, e2, false, n as u16);
                    if p.contra != NONE {
                        break;
                    }
                }
            }
            let [row, col, bx] = CELL_UNITS[c];
            let in_box = UNIT_MASK[bx as usize];
            for m in [
                in_box,
                UNIT_MASK[row as usize] & !in_box,
                UNIT_MASK[col as usize] & !in_box,
            ] {
                if p.contra != NONE {
                    break;
                }
                // One part's places at once, in cell order (SE's order within a
                // part); a clash ends it, the places before it marked.
                let mut new = m & b.pos[d] & !(1u128 << c) & !p.off[d];
                let clash = new & p.on[d];
                if clash != 0 {
                    let q = clash.trailing_zeros() as usize;
                    new &= (1u128 << q) - 1;
                    p.par_off[9 * q + d] = n as u16;
                    p.contra = (9 * q + d) as u16;
                }
                p.off[d] |= new;
                for q in Cells128(new) {
                    p.par_off[9 * q + d] = n as u16;
                    w.queue[off_tail] = (9 * q + d) as u16;
                    off_tail += 1;
                }
            }
        } else {
            let n = w.queue[off_head] as usize;
            off_head += 1;
            let (c, d) = (n / 9, n % 9);
            w.cand[c] &= !(1 << d);
            w.pos[d] &= !(1u128 << c);
            // Static: what the board leaves besides n (n's cell and places are
            // put back for the next off node).
            let (cand, pos) = (w.cand[c], w.pos[d]);
            if !dynamic {
                w.cand[c] = b.cand[c];
                w.pos[d] = b.pos[d];
            }
            if cells_link {
                let r = cand;
                if r.one() {
                    mark!(c, r.trailing_zeros() as usize, true, CAUSE_CELL + c as u16);
                }
            }
            let [row, col, bx] = CELL_UNITS[c];
            for u in [bx, row, col] {
                if p.contra != NONE {
                    break;
                }
                let r = pos & UNIT_MASK[u as usize];
                if r.one() {
                    mark!(r.trailing_zeros() as usize, d, true, CAUSE_UNIT + u as u16);
                }
            }
        }
    }
}

/// Counts the distinct ancestors of `roots` (node, on?) in `p`, the roots included,
/// and says whether they stay on one digit (X) and whether every on node was forced
/// by its cell (Y).
fn ancestors(
    b: &Pencilmarks,
    p: &Prop,
    w: &mut Work,
    roots: &[(usize, bool)],
    limit: usize,
) -> (usize, bool, bool) {
    w.seen_on = [0; 12];
    w.seen_off = [0; 12];
    let mut top = 0;
    let mut count = 0;
    let (mut x_only, mut y_only) = (true, true);
    let digit0 = roots[0].0 % 9;
    macro_rules! push {
        ($node:expr, $on:expr) => {{
            let node: usize = $node;
            let seen = if $on { &mut w.seen_on } else { &mut w.seen_off };
            if !get(seen, node) {
                set(seen, node);
                w.stack[top] = node as u16 | if $on { ON } else { 0 };
                top += 1;
            }
        }};
    }
    for &(n, on) in roots {
        push!(n, on);
    }
    while top > 0 {
        top -= 1;
        let e = w.stack[top];
        count += 1;
        if count > limit {
            break;
        }
        let n = (e & !ON) as usize;
        let (c, d) = (n / 9, n % 9);
        if d != digit0 {
            x_only = false;
        }
        if e & ON != 0 {
            let par = p.par_on[n];
            if par == START {
                continue;
            }
            if par >= CAUSE_UNIT {
                y_only = false;
                let um = UNIT_MASK[(par - CAUSE_UNIT) as usize];
                for q in Cells128(b.pos[d] & um & !(1u128 << c)) {
                    push!(9 * q + d, false);
                }
            } else {
                for e2 in Bits((b.cand[c] & !(1 << d)) as u32) {
                    push!(9 * c + e2, false);
                }
            }
        } else {
            let par = p.par_off[n];
            if par == START {
                continue;
            }
            if par >= RULE {
                for &q in p.rule_parents(par) {
                    push!(q as usize, false);
                }
            } else {
                push!(par as usize, true);
            }
        }
    }
    (count, x_only, y_only)
}

/// The node count SE gives a contradiction on node `x`: the two chains to "x on"
/// and to "x off", each with its own ancestors (those they share count twice).
/// Counted no further than `limit`: a count above it is some count above it.
fn clash_len(b: &Pencilmarks, p: &Prop, w: &mut Work, x: usize, limit: usize) -> usize {
    let on = ancestors(b, p, w, &[(x, true)], limit).0;
    if on > limit {
        return on;
    }
    on + ancestors(b, p, w, &[(x, false)], limit - on).0
}

/// The most nodes a chain of a level rated from `base` may have to rate no higher
/// than `best` (none: any; `exact`: no limit).
fn most_nodes(base: u8, best: Option<Best>, exact: bool) -> Option<usize> {
    match best {
        Some(found) if !exact => longest(base, found.rating).map(|k| k + 2),
        _ => Some(usize::MAX),
    }
}

/// Whether the static chain "n on ⇒ A off ⇒ … ⇒ Z on ⇒ n off" in `p` is a cycle
/// with n outside it: A and Z hold n's digit in other cells and see each other, so
/// the nodes from A to Z close a loop whose on node Z and off node A n sees.
fn closes_cycle(b: &Pencilmarks, p: &Prop, n: usize) -> bool {
    let z = p.par_off[n] as usize;
    let (nc, d) = (n / 9, n % 9);
    if z % 9 != d || z / 9 == nc {
        return false;
    }
    let mut node = z;
    let a = loop {
        let Some(off) = static_parent(b, p, node) else {
            return false;
        };
        let par = p.par_off[off] as usize;
        if par == n {
            break off;
        }
        node = par;
    };
    a % 9 == d && a / 9 != nc && a != z && PEERS[a / 9] >> (z / 9) & 1 != 0
}

/// The off node that forced the static on node `n` (its cell's other candidate or
/// its digit's other place in the forcing unit), or `None` for the start node.
fn static_parent(b: &Pencilmarks, p: &Prop, n: usize) -> Option<usize> {
    let par = p.par_on[n];
    let (c, d) = (n / 9, n % 9);
    if par == START {
        None
    } else if par >= CAUSE_UNIT {
        let um = UNIT_MASK[(par - CAUSE_UNIT) as usize];
        Some(9 * (b.pos[d] & um & !(1u128 << c)).trailing_zeros() as usize + d)
    } else {
        Some(9 * c + (b.cand[c] & !(1 << d)).trailing_zeros() as usize)
    }
}

/// The node count of the cycle s on ⇒ … ⇒ w on ⇒ f off ⇒ s on in a static
/// propagation from s, or `None` when f is already an ancestor of w (no cycle).
fn cycle_len(b: &Pencilmarks, p: &Prop, s: usize, w: usize, f: usize) -> Option<usize> {
    let mut count = 1; // f
    let mut n = w;
    loop {
        count += 1;
        if n == s {
            return Some(count);
        }
        let off = static_parent(b, p, n)?;
        if off == f {
            return None;
        }
        count += 1;
        n = p.par_off[off] as usize;
    }
}

/// The candidates a cycle (see [`cycle_len`]) removes: outside the cycle's cells,
/// those that see an on node and an off node of their digit.
fn cycle_eliminations(
    b: &Pencilmarks,
    p: &Prop,
    w: usize,
    f: usize,
) -> impl Iterator<Item = usize> {
    let mut on = [0u128; 9];
    let mut off = [0u128; 9];
    let mut cells = 0u128;
    let mut mark = |n: usize, is_on: bool| {
        let (c, d) = (n / 9, n % 9);
        cells |= 1u128 << c;
        if is_on {
            on[d] |= 1u128 << c;
        } else {
            off[d] |= 1u128 << c;
        }
    };
    mark(f, false);
    let mut n = w;
    loop {
        mark(n, true);
        let Some(o) = static_parent(b, p, n) else {
            break;
        };
        mark(o, false);
        n = p.par_off[o] as usize;
    }
    let seen = |set: u128| Cells128(set).fold(0u128, |acc, c| acc | PEERS[c]);
    let mut out = [0u128; 9];
    for d in 0..9 {
        if on[d] != 0 && off[d] != 0 {
            out[d] = b.pos[d] & !cells & seen(on[d]) & seen(off[d]);
        }
    }
    (0..9).flat_map(move |d| Cells128(out[d]).map(move |c| 9 * c + d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grid::parse_line;
    use crate::engine::rating::{Rater, Step};

    /// The tables give what walking SE's bounds gives: the increment of every
    /// tabled length, and the longest chain each allowance admits.
    #[test]
    fn the_length_tables_are_the_bounds_walked() {
        for len in 0..TABLED + 100 {
            assert_eq!(length_increment(len), increment_by_bounds(len), "{len}");
        }
        for base in [65u8, 66, 70, 75, 80, 85] {
            // Up to 1.7 above the base (a chain of 1,536 nodes): walked, the bound
            // stays within the table.
            for limit in base - 2..=base + 17 {
                let walked = (base <= limit).then(|| {
                    let mut k = 4;
                    while base + increment_by_bounds(k + 1) <= limit {
                        k += 1;
                    }
                    k
                });
                assert_eq!(longest(base, limit), walked, "{base} {limit}");
            }
        }
        assert_eq!(longest(70, 70), Some(4));
        assert_eq!(longest(70, 72), Some(8));
        assert_eq!(longest(70, 69), None);
    }

    /// The closure's answer is the breadth-first search's, candidate by candidate:
    /// the filter in [`Chains::unary`] may only skip searches that find nothing.
    /// And [`Reach::hops`] gives the length of each refuted candidate's shortest
    /// chain the search finds, or leaves it when it rates above the shortest.
    #[test]
    fn the_closure_refutes_exactly_what_the_static_search_refutes() {
        let text = include_str!("../../../data/qqwing-10k.txt");
        let mut board = Pencilmarks::new();
        let mut reach = Box::new(Reach::new());
        let mut chains = Chains::new();
        let (mut refuted, mut left) = (0, 0);
        let (mut lengths, mut hops) = (Vec::new(), Vec::new());
        for (i, line) in text.lines().step_by(50).enumerate() {
            let cells = parse_line(line.trim(), i + 1).unwrap();
            board.load(&cells);
            // The puzzle's board, then the same with one refuted candidate removed.
            for _ in 0..2 {
                chains.work.strong.compute(&board);
                reach.compute(&board, &chains.work.strong);
                for c in Cells128(board.empty) {
                    for d in Bits(board.cand[c] as u32) {
                        let n = 9 * c + d;
                        let p = &mut chains.from_on[n];
                        propagate(
                            &board,
                            p,
                            &mut chains.work,
                            n,
                            true,
                            Mode::Static,
                            Until::Refuted(usize::MAX),
                        );
                        assert_eq!(reach.refutes(&board, n), has(&p.off, n), "{line} node {n}");
                        refuted += usize::from(has(&p.off, n));
                        if has(&p.off, n) {
                            let (len, _, _) =
                                ancestors(&board, p, &mut chains.work, &[(n, false)], usize::MAX);
                            lengths.push((n as u16, len));
                        }
                    }
                }
                // The shortest chains all at once: each one's length, or none when
                // it would rate above the shortest even read as a cycle.
                let sources: Vec<u16> = lengths.iter().map(|l| l.0).collect();
                reach.hops(&board, &sources, &mut hops, 0);
                let shortest = lengths.iter().map(|l| l.1).min().unwrap_or(0);
                for (&(n, len), &h) in lengths.iter().zip(&hops) {
                    if h == u8::MAX {
                        let above = length_increment(len - 4) > length_increment(shortest - 2);
                        assert!(above, "{line} node {n}: {len} nodes, shortest {shortest}");
                        left += 1;
                    } else {
                        assert_eq!(2 * h as usize + 2, len, "{line} node {n}");
                    }
                }
                // With every chain free to apply, the search goes on for all.
                reach.hops(&board, &sources, &mut hops, u8::MAX);
                for (&(n, len), &h) in lengths.iter().zip(&hops) {
                    assert_eq!(2 * h as usize + 2, len, "{line} node {n}, all free");
                }
                lengths.clear();
                let Some(n) =
                    (0..729).find(|&n| board.has(n / 9, n % 9) && has(&chains.from_on[n].off, n))
                else {
                    break;
                };
                board.eliminate(n / 9, n % 9);
            }
        }
        assert!(
            refuted > 0 && left > 0,
            "{refuted} candidates refuted, {left} left by the shortest chains' search: the comparison proved little"
        );
    }

    /// The closure's outcome of every static branch is the propagation's (level 3's,
    /// in SE's order): the same on and off sets when it meets no contradiction, a
    /// contradiction when it does; and [`Chains::trace`] puts the propagation itself
    /// in its place (what a branch that clashed had reached, the parents).
    #[test]
    fn static_outcomes_are_the_propagations() {
        let text = include_str!("../../../data/qqwing-10k.txt");
        let mut board = Pencilmarks::new();
        let mut chains = Chains::new();
        let mut full = Prop::new();
        let (mut clashes, mut clean) = (0, 0);
        for (i, line) in text.lines().step_by(100).enumerate() {
            let cells = parse_line(line.trim(), i + 1).unwrap();
            board.load(&cells);
            chains.work.strong.compute(&board);
            chains.reach.compute(&board, &chains.work.strong);
            chains.static_outcomes(&board);
            for c in Cells128(board.empty) {
                for d in Bits(board.cand[c] as u32) {
                    let n = 9 * c + d;
                    for on in [true, false] {
                        let until = Until::Contradiction;
                        propagate(
                            &board,
                            &mut full,
                            &mut chains.work,
                            n,
                            on,
                            Mode::Forcing,
                            until,
                        );
                        let read = if on {
                            &chains.from_on[n]
                        } else {
                            &chains.from_off[n]
                        };
                        let what = format!("{line} node {n} on {on}");
                        if full.contra == NONE {
                            assert_eq!((read.on, read.off, read.contra), (full.on, full.off, NONE));
                            clean += 1;
                        } else {
                            assert_eq!(read.contra, CLASH, "{what}");
                            clashes += 1;
                        }
                        chains.trace(&board, n, on, Mode::Forcing);
                        let traced = if on {
                            &chains.from_on[n]
                        } else {
                            &chains.from_off[n]
                        };
                        assert_eq!(
                            (traced.on, traced.off, traced.contra),
                            (full.on, full.off, full.contra),
                            "{what}"
                        );
                        // Parents of the nodes reached (the others keep old ones).
                        let parents = |p: &Prop| -> Vec<(usize, bool, u16)> {
                            let on = (0..729).filter(|&m| has(&p.on, m));
                            let off = (0..729).filter(|&m| has(&p.off, m));
                            (on.map(|m| (m, true, p.par_on[m])))
                                .chain(off.map(|m| (m, false, p.par_off[m])))
                                .collect()
                        };
                        assert!(parents(traced) == parents(&full), "{what}");
                    }
                }
            }
        }
        assert!(
            clashes > 100 && clean > 100,
            "{clashes} contradictions, {clean} without"
        );
    }

    /// The set-wise nishio check finds a contradiction exactly when the
    /// propagation does, for every candidate of the boards on the rating paths of
    /// 500 minimal puzzles.
    #[test]
    fn nishio_clash_is_the_propagations_contradiction() {
        let mut chains = Chains::new();
        let mut p = Prop::new();
        let (mut clashes, mut clean) = (0, 0);
        each_path_board(20, |board, _, line| {
            for c in Cells128(board.empty) {
                for d in Bits(board.cand[c] as u32) {
                    let until = Until::Contradiction;
                    let w = &mut chains.work;
                    propagate(board, &mut p, w, 9 * c + d, true, Mode::Nishio, until);
                    let clash = p.contra != NONE;
                    let what = format!("{line} cell {c} digit {d}");
                    assert_eq!(nishio_clash(board, c, d), clash, "{what}");
                    *(if clash { &mut clashes } else { &mut clean }) += 1;
                }
            }
        });
        assert!(
            clashes > 1000 && clean > 1000,
            "{clashes} clashes, {clean} without"
        );
    }

    /// Searching chains no longer than the best so far allows, mixed cycles only
    /// where [`Chains::mixed_cycle_starts`] says one can improve on the chains, and
    /// cycles only from the starts [`true_loops`] keeps open, changes no conclusion
    /// of level 1: at every step of the rating paths of 2,500 minimal puzzles that
    /// reaches the chains, the pruned and the full search give the same best
    /// rating, technique and conclusions (in the same order).
    #[test]
    fn level_one_prunings_change_no_conclusion() {
        let mut chains = Chains::new();
        let (mut compared, mut improved) = (0, 0);
        // Every 4th qqwing puzzle, then a puzzle whose path has a board where an
        // X-chain (6.9) is the best and no mixed chain's length was worked out (a
        // pruning once read that as "no chain short enough": 7.1 instead).
        let lines = include_str!("../../../data/qqwing-10k.txt")
            .lines()
            .step_by(4);
        let regressions =
            [".1.48....3.65.1..2.5..2.4..681.....................153..8.3..4.2..8.47.1....62.3."];
        each_path_board_of(lines.chain(regressions), |board, step, line| {
            if step.rating >= 65 {
                board.stamp();
                let solution = solution_of(line);
                // Pruned, not pruned, pruned and lazy (whose ties have no name).
                let outcomes =
                    [(true, false), (false, false), (true, true)].map(|(prune, lazy)| {
                        chains.ties.list.clear();
                        let best = chains.unary(board, prune.then_some(&solution), lazy);
                        let best = best.map(|b| (b.rating, b.technique));
                        let rating = best.map_or(0, |b| b.0);
                        let ties: Vec<(usize, bool, Option<Technique>)> = (chains.ties.list.iter())
                            .filter(|t| t.rating == rating)
                            .map(|t| (t.node, t.place, (!lazy).then_some(t.technique)))
                            .collect();
                        (best, ties)
                    });
                assert_eq!(outcomes[0], outcomes[1], "{line}");
                let unnamed = |o: &(_, Vec<(usize, bool, Option<Technique>)>)| {
                    (o.0, o.1.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>())
                };
                assert_eq!(unnamed(&outcomes[0]), unnamed(&outcomes[2]), "{line}");
                compared += 1;
                // A mixed cycle beat every chain: the case a pruned search
                // must not miss.
                let chain_min = chains.chain_ratings.iter().map(|c| c.1).min();
                improved += usize::from(outcomes[1].0.is_some_and(|(rating, t)| {
                    t == Technique::Aic && chain_min.is_some_and(|m| rating < m)
                }));
            }
        });
        assert!(
            compared > 300 && improved > 0,
            "{compared} steps, {improved}"
        );
    }

    /// The mixed-cycle search reads only cycles as long as it goes: reading every
    /// cycle it closes finds the same best and the same ties, on every board of
    /// the rating paths of a quarter of qqwing's puzzles where a mixed cycle is
    /// searched.
    #[test]
    fn only_the_longest_mixed_cycles_improve_on_the_chains() {
        let mut chains = Chains::new();
        let (mut compared, mut improved) = (0, 0);
        each_path_board(4, |board, step, line| {
            if step.rating < 71 {
                return;
            }
            board.stamp();
            let solution = solution_of(line);
            let outcomes = [false, true].map(|every| {
                chains.every_cycle = every;
                chains.ties.list.clear();
                let best = chains.unary(board, Some(&solution), false);
                let rating = best.map_or(0, |b| b.rating);
                let ties: Vec<(usize, Technique)> = (chains.ties.list.iter())
                    .filter(|t| t.rating == rating)
                    .map(|t| (t.node, t.technique))
                    .collect();
                (rating, ties)
            });
            assert_eq!(outcomes[0], outcomes[1], "{line}");
            compared += 1;
            let chain_min = chains.chain_ratings.iter().map(|c| c.1).min();
            improved += usize::from(chain_min.is_some_and(|m| outcomes[0].0 < m));
        });
        chains.every_cycle = false;
        assert!(
            compared > 300 && improved > 0,
            "{compared} steps, {improved}"
        );
    }

    /// Calls `f` with every board on the rating path of every `every`-th puzzle of
    /// `qqwing-10k.txt` (the board before each step), the step and the puzzle's line.
    /// The rules of dynamic forcing chains (+) on a board some of whose wrong
    /// candidates are gone (what a propagation from a true assumption leaves):
    /// every elimination is a candidate left that is not the solution's digit, and
    /// every parent a candidate of the step's board that is gone.
    #[test]
    fn plus_rules_remove_no_solution_digit_and_name_what_went() {
        use crate::engine::nxn::solve::nine::{solve, Verdict};
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let (mut hints, mut removals) = (0, 0);
        let mut rules = std::collections::BTreeSet::new();
        each_path_board(25, |board, _, line| {
            let Verdict::Unique(solution) = solve(&parse_line(line.trim(), 1).unwrap()) else {
                panic!("unique: {line}");
            };
            for _ in 0..3 {
                // Each wrong candidate gone with probability 0, 1/4 or 1/2.
                let keep = rng.random_range(2..=4);
                let (mut cand, mut pos) = (board.cand, board.pos);
                for c in Cells128(board.empty) {
                    for d in Bits(board.cand[c] as u32) {
                        if solution[c] != d as u8 + 1 && rng.random_range(0..keep) >= keep - 1 {
                            cand[c] &= !(1 << d);
                            pos[d] &= !(1u128 << c);
                        }
                    }
                }
                let g = plus::Board {
                    b: board,
                    cand: &cand,
                    pos: &pos,
                };
                plus::advanced(&g, &mut |h| {
                    hints += 1;
                    rules.insert(h.technique);
                    for &q in &h.parents[..h.n_parents] {
                        let (c, d) = (q as usize / 9, q as usize % 9);
                        assert!(
                            board.has(c, d) && cand[c] >> d & 1 == 0,
                            "parent {q}: {line}"
                        );
                    }
                    for &q in &h.removals[..h.n_removals] {
                        let (c, d) = (q as usize / 9, q as usize % 9);
                        assert!(cand[c] >> d & 1 != 0, "removal {q} is no candidate: {line}");
                        assert_ne!(
                            solution[c],
                            d as u8 + 1,
                            "{:?} removes {q}: {line}",
                            h.technique
                        );
                        removals += 1;
                    }
                    assert!(h.n_parents > 0 && h.n_removals > 0);
                });
            }
        });
        assert!(
            hints > 1000 && removals > hints,
            "{hints} hints, {removals} removals"
        );
        for t in [
            Technique::Pointing,
            Technique::Claiming,
            Technique::HiddenPair,
            Technique::NakedPair,
            Technique::XWing,
        ] {
            assert!(rules.contains(&t), "{t:?} never found: {rules:?}");
        }
    }

    /// The nested levels' engine follows SE's procedure as written; without
    /// nesting it searches what the levels below search, in their own ways. On
    /// every chain step of the rating paths of half of `qqwing-10k.txt` and of the
    /// published 9.x puzzles, its first hint rates as the step: always for forcing
    /// chains, dynamic chains and dynamic chains (+); for static chains on all but
    /// a few steps, where level 1 (which searches chains and cycles its own way)
    /// departs from SE's procedure (3 of 3,200 steps of the whole file; 1 of 15,600
    /// of `se-rated.txt`, where SE's own rating is the engine's).
    #[test]
    fn the_nested_engine_rates_the_lower_levels_as_they_do() {
        #[rustfmt::skip]
        const HARD: &[&str] = &[
            "7.8...3.....6.1...5.........4.....263...8.......1...9..9.2....4....7.5...........",
            ".8.4.5....12.3...........6.3....4..7.6.7...5.7...8...9......1......9.2.....3.6...",
            ".....1..2....3..4...52..1....36...1..2..7...89....57....9..7....8.9....43...4..8.",
            "6..5......1...3.8...2.7.9....3..5.......9.1..7..4....25....27...8.....1...46....3",
        ];
        let qqwing = include_str!("../../../data/qqwing-10k.txt");
        let puzzles = qqwing.lines().step_by(2).chain(HARD.iter().copied());
        let kinds = [
            (false, false, 0),
            (true, false, 0),
            (true, true, 0),
            (true, true, 1),
        ]
        .map(|(multiple, dynamic, level)| nested::Kind::new(multiple, dynamic, level));
        let mut engines: Vec<nested::Engine> = Vec::new();
        let (mut rater, mut board, mut steps) = (Rater::new(), Pencilmarks::new(), Vec::new());
        let mut compared = std::collections::BTreeMap::<Technique, (usize, usize)>::new();
        for (i, line) in puzzles.enumerate() {
            let cells = parse_line(line.trim(), i + 1).unwrap();
            steps.clear();
            rater.rate_with_steps(&cells, &mut steps).unwrap();
            board.load(&cells);
            for step in &steps {
                let kind = match step.technique {
                    Technique::XChain | Technique::XyChain | Technique::Aic => Some(0),
                    Technique::ForcingChain => Some(1),
                    Technique::DynamicForcingChain => Some(2),
                    Technique::DynamicForcingChainPlus => Some(3),
                    _ => None,
                };
                if let Some(k) = kind {
                    if engines.is_empty() {
                        engines = kinds.map(|kind| nested::Engine::new(kind, &board)).into();
                    }
                    let e = &mut engines[k];
                    e.search(&board, &board.cand, &board.pos);
                    let rating = e.first().map(|h| h.rating);
                    let level = if k == 0 {
                        Technique::Aic
                    } else {
                        step.technique
                    };
                    let (steps, differ) = compared.entry(level).or_default();
                    *steps += 1;
                    if rating != Some(step.rating) {
                        *differ += 1;
                        assert_eq!(k, 0, "{line}: {:?} {rating:?}", step.technique);
                        println!("{line}: level 1 {} engine {rating:?}", step.rating);
                    }
                }
                for &(c, d) in &step.placements {
                    board.place(c as usize, d as usize - 1);
                }
                for &(c, d) in &step.eliminations {
                    board.eliminate(c as usize, d as usize - 1);
                }
            }
        }
        let count = |t| compared.get(&t).copied().unwrap_or_default();
        let (chains, differ) = count(Technique::Aic);
        assert!(chains > 1000 && differ * 200 <= chains, "{compared:?}");
        assert!(count(Technique::ForcingChain).0 > 100, "{compared:?}");
        assert!(count(Technique::DynamicForcingChain).0 > 20, "{compared:?}");
        assert!(
            count(Technique::DynamicForcingChainPlus).0 > 0,
            "{compared:?}"
        );
    }

    /// Every cycle from a start the true graph closes ([`true_loops`]) removes
    /// nothing, Y-cycles and mixed ones: skipping those starts changes no
    /// conclusion. The test is not idle: on the rating paths of 1,250 minimal
    /// puzzles, the filter closes many starts and keeps others open.
    #[test]
    fn starts_the_true_graph_closes_find_no_cycle_that_removes_anything() {
        let mut chains = Chains::new();
        let (mut closed, mut kept) = (0u32, 0u32);
        each_path_board(8, |board, step, line| {
            if step.rating < 65 {
                return;
            }
            board.stamp();
            let solution = solution_of(line);
            chains.work.strong.compute(board);
            chains.reach.compute(board, &chains.work.strong);
            let kinds = [
                (Mode::StaticY, 65, Technique::XyChain, true),
                (Mode::Static, 70, Technique::Aic, false),
            ];
            for (mode, base, t, y) in kinds {
                let (strong, succ) = (&chains.work.strong, &chains.reach.succ);
                let open = chains
                    .true_graph
                    .starts(board, strong, succ, &solution, y, &board.pos);
                let cyclic = chains.reach.cyclic;
                for (k, (&word, &open)) in cyclic.iter().zip(&open).enumerate() {
                    kept += (word & open).count_ones();
                    for bit in Bits64(word & !open) {
                        let mut start: Set729 = [0; 12];
                        set(&mut start, 64 * k + bit);
                        let mut best = None;
                        chains.cycles(board, mode, base, t, &mut best, false, &start);
                        let removed = best.map(|b| b.node);
                        assert_eq!(removed, None, "{line}: from {}", 64 * k + bit);
                        closed += 1;
                    }
                }
            }
        });
        assert!(
            closed > 10_000 && kept > 1_000,
            "{closed} closed, {kept} kept"
        );
    }

    /// [`x_refutes`] answers what an unbounded X-chain search from the candidate
    /// finds, on every board that reaches the chains of the rating paths of 1,250
    /// minimal puzzles (where earlier techniques leave no X-chain) and of four
    /// puzzles whose paths take one (three of `se-rated.txt`'s 6.x, one of qqwing's).
    #[test]
    fn x_refutes_is_the_unbounded_x_search() {
        let mut chains = Chains::new();
        let (mut refuted, mut not) = (0u32, 0u32);
        let lines = include_str!("../../../data/qqwing-10k.txt")
            .lines()
            .step_by(8);
        let with_x_chains = [
            "16......9..39....7..4...28....485.2....7.6....7.219....29...1..3....79..7......38",
            ".8.6...3.4.....5.6..2..5...6...73...83..6..71...98...4...4..6..1.3.....7.4...9.8.",
            ".1.48....3.65.1..2.5..2.4..681.....................153..8.3..4.2..8.47.1....62.3.",
            "5.2..8..14...7.25..91....4...953..........3....49.7..5.3.2..9.............7.51...",
        ];
        each_path_board_of(lines.chain(with_x_chains), |board, step, line| {
            if step.rating < 65 {
                return;
            }
            chains.work.strong.compute(board);
            for c in Cells128(board.empty) {
                for d in Bits(board.cand[c] as u32) {
                    let n = 9 * c + d;
                    let (p, w) = (&mut chains.scratch, &mut chains.work);
                    propagate(
                        board,
                        p,
                        w,
                        n,
                        true,
                        Mode::StaticX,
                        Until::Refuted(usize::MAX),
                    );
                    let found = has(&p.off, n);
                    assert_eq!(x_refutes(board, &w.strong, n), found, "{line}: {n}");
                    refuted += u32::from(found);
                    not += u32::from(!found);
                }
            }
        });
        assert!(refuted >= 4 && not > 1_000, "{refuted} refuted, {not} not");
    }

    /// A candidate whose shortest static chain [`Reach::hops`] measured at h
    /// on-to-on links is refuted by a search that may reach depth 2 h + 1, and
    /// not by one that stops a node short: what lets `unary` skip a search whose
    /// depth bound is below 2 h + 1.
    #[test]
    fn a_search_finds_the_shortest_chain_exactly_at_depth_2h_plus_1() {
        let mut chains = Chains::new();
        let mut checked = 0u32;
        each_path_board(8, |board, step, line| {
            if step.rating < 65 {
                return;
            }
            chains.work.strong.compute(board);
            chains.reach.compute(board, &chains.work.strong);
            let refuted: Vec<u16> = Cells128(board.empty)
                .flat_map(|c| Bits(board.cand[c] as u32).map(move |d| (9 * c + d) as u16))
                .filter(|&n| chains.reach.refutes(board, n as usize))
                .collect();
            let mut hops = Vec::new();
            chains.reach.hops(board, &refuted, &mut hops, 0);
            for (&n, &h) in refuted.iter().zip(&hops) {
                if h == u8::MAX {
                    continue;
                }
                let n = n as usize;
                for (depth, reached) in [(2 * h as usize + 1, true), (2 * h as usize, false)] {
                    let (p, w) = (&mut chains.scratch, &mut chains.work);
                    propagate(board, p, w, n, true, Mode::Static, Until::Refuted(depth));
                    assert_eq!(has(&p.off, n), reached, "{line}: {n} at depth {depth}");
                }
                checked += 1;
            }
        });
        assert!(checked > 1_000, "{checked} candidates");
    }

    /// [`Reach::may_close_cycle`] is a necessary condition: every static chain
    /// the search finds that [`closes_cycle`] reads as a cycle is from a candidate
    /// it lets through (and it turns most candidates away).
    #[test]
    fn a_chain_closes_a_cycle_only_where_may_close_cycle_says_it_can() {
        let mut chains = Chains::new();
        let (mut cycles, mut turned_away, mut searched) = (0u32, 0u32, 0u32);
        each_path_board(8, |board, step, line| {
            if step.rating < 65 {
                return;
            }
            chains.work.strong.compute(board);
            chains.reach.compute(board, &chains.work.strong);
            for c in Cells128(board.empty) {
                for d in Bits(board.cand[c] as u32) {
                    let n = 9 * c + d;
                    if !chains.reach.refutes(board, n) {
                        continue;
                    }
                    let (p, w) = (&mut chains.scratch, &mut chains.work);
                    propagate(
                        board,
                        p,
                        w,
                        n,
                        true,
                        Mode::Static,
                        Until::Refuted(usize::MAX),
                    );
                    assert!(has(&p.off, n), "{line}: {n} refuted");
                    let may = chains.reach.may_close_cycle(board, &w.strong, n);
                    let closes = closes_cycle(board, p, n);
                    assert!(may || !closes, "{line}: {n} closes a cycle");
                    cycles += u32::from(closes);
                    turned_away += u32::from(!may);
                    searched += 1;
                }
            }
        });
        assert!(
            cycles > 50 && 2 * turned_away > searched,
            "{cycles} cycles, {turned_away} of {searched} turned away"
        );
    }

    fn solution_of(line: &str) -> [u8; 81] {
        use crate::engine::nxn::solve::nine::{solve, Verdict};
        match solve(&parse_line(line.trim(), 1).unwrap()) {
            Verdict::Unique(solution) => solution,
            _ => panic!("{line} has no unique solution"),
        }
    }

    fn each_path_board(every: usize, f: impl FnMut(&mut Pencilmarks, &Step, &str)) {
        let text = include_str!("../../../data/qqwing-10k.txt");
        each_path_board_of(text.lines().step_by(every), f);
    }

    /// [`each_path_board`] for the puzzles of `lines`.
    fn each_path_board_of<'a>(
        lines: impl Iterator<Item = &'a str>,
        mut f: impl FnMut(&mut Pencilmarks, &Step, &str),
    ) {
        let mut rater = Rater::new();
        let mut board = Pencilmarks::new();
        let mut steps: Vec<Step> = Vec::new();
        for (i, line) in lines.enumerate() {
            let cells = parse_line(line.trim(), i + 1).unwrap();
            steps.clear();
            rater.rate_with_steps(&cells, &mut steps).unwrap();
            board.load(&cells);
            for step in &steps {
                f(&mut board, step, line);
                for &(c, d) in &step.placements {
                    board.place(c as usize, d as usize - 1);
                }
                for &(c, d) in &step.eliminations {
                    board.eliminate(c as usize, d as usize - 1);
                }
            }
        }
    }
}
