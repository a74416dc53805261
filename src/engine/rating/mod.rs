//! Technique rating on the Sudoku Explainer (SE) scale: a logical solver over
//! candidates that applies, at each step, the easiest technique that makes progress
//! and rates the puzzle by the hardest step on that path (SE's rule, described in
//! its public documentation; no SE or HoDoKu code is used here).
//!
//! The techniques, in the order they are tried (SE's order: within a tier the first
//! finder that makes progress wins, exactly as SE's "first hint" accumulator does):
//!
//! | technique | SE rating |
//! |---|---|
//! | full house (last empty cell of a unit) | 1.0 |
//! | hidden single in a box / in a row or column | 1.2 / 1.5 |
//! | direct pointing / direct claiming | 1.7 / 1.9 |
//! | direct hidden pair | 2.0 |
//! | naked single | 2.3 |
//! | direct hidden triple | 2.5 |
//! | pointing / claiming | 2.6 / 2.8 |
//! | naked pair, X-wing, hidden pair | 3.0, 3.2, 3.4 |
//! | naked triple, swordfish, hidden triple | 3.6, 3.8, 4.0 |
//! | skyscraper, two-string kite, turbot fish, empty rectangle | 4.0, 4.1, 4.2, 4.3 |
//! | two strong links of one digit, one of them grouped (turbot fish) | 4.3 |
//! | XY-wing, XYZ-wing | 4.2, 4.4 |
//! | unique rectangle types 1 and 4 / 2 / 3 (naked or hidden set) | 4.5 / 4.6 / 4.5–4.8 |
//! | unique loops of 6 / 8 / 10+ cells (the rectangle's types, same increments) | 4.6 / 4.7 / 5.0 |
//! | naked quad, jellyfish, hidden quad | 5.0, 5.2, 5.4 |
//! | three strong links of one digit / one of them grouped | 5.4–5.6 / 5.7 |
//! | WXYZ-wing | 5.5–5.6 |
//! | BUG type 1 / types 2 and 4 / type 3 (naked set of 2 to 6 digits) | 5.6 / 5.7 / 5.8–6.2 |
//! | VWXYZ-wing | 6.2–6.4 |
//! | X-cycle or Y-cycle (bivalue cells) / forcing X-chain | 6.5 / 6.6 + length |
//! | any other static cycle or "p on ⇒ p off" chain (XY-chain, AIC) | 7.0 + length |
//! | aligned triplet exclusion | 7.5 |
//! | nishio (dynamic, one digit) | 7.5 + length |
//! | cell / region forcing chains (static) | 8.0 + length |
//! | contradiction, double, cell / region forcing chains (dynamic) | 8.5 + length |
//! | the same, pointing, claiming, hidden and naked pairs and X-wings applied inside the propagations (dynamic forcing chains (+)) | 9.0 + length |
//! | beyond the implemented techniques (ceiling) | 9.5 |
//!
//! A step applies every instance of the technique it found (all the hidden singles
//! in boxes, all the X-wings, all the chains of the lowest rating, …), so the path,
//! and with it the rating, is the same for symmetric copies of a puzzle — but for
//! the nishio, multiple and dynamic forcing chains, which follow implications in
//! SE's board order, as SE does (the order decides some lengths, and what a branch
//! that meets a contradiction has reached): 2.3 % of the SE-rated puzzles and a
//! moved copy each rate apart, 0.7 % by more than 0.1. SE applies one instance at a
//! time; the two orders rarely differ in rating.
//!
//! While only rating (no steps recorded), a step no harder than the path's hardest
//! step so far cannot move the rating, whichever deductions it makes ("free
//! deductions"): the path reaches the same board before each step that raises the
//! rating, as long as a deduction a technique could make stays one it can make (or
//! is made) as the board shrinks. Then every path that takes steps no harder than
//! the hardest so far ends where SE's does before its next harder step. Chains keep
//! that property (a shorter chain replaces one that loses a node), so while only
//! rating:
//!
//! - a static chain step also applies every other static chain it met that rates
//!   no higher than the hardest step, and every candidate whose shortest chain,
//!   read as an AIC, does;
//! - a static chain step whose shortest chain already rates no higher does not
//!   search for its exact chain (its rating cannot matter);
//! - with the hardest step at 7.0 or more, those free chains are tried before the
//!   unique loops and the wings ([`chains::Chains::find_free`]).
//!
//! Uniqueness techniques and dynamic chains need not keep the property, so the
//! forcing levels take no free deductions (there they moved a rating), and the rule
//! is checked, not assumed: `grade` and `grade --steps` rate every puzzle of
//! `se-rated.txt` and `qqwing-10k.txt` alike (`scripts/compare-grade-tiers`), and
//! tests compare both ways on the rater's test puzzles. Chain puzzles take fewer
//! and cheaper chain steps: 1.21× the ratings per second on SE's 7.x puzzles,
//! 1.12× on 8.x (0.4.22).
//!
//! "Direct" techniques only count when their eliminations leave a hidden single of
//! the same digit, and (as in SE) only that placement is applied. Chain ratings add
//! SE's length increment: +0.1 each time the chain's node count passes 4, 6, 8, 12,
//! 16, 24, 32, … (alternately ×3/2 and ×4/3).
//!
//! The scale goes up to SE's nested forcing chains (9.5 to 11.0 + length, its levels 2
//! to 5), which rate the hardest published puzzles (11.0–11.9) as SE does. Every
//! uniquely solvable puzzle gets a rating: when no technique makes progress (even
//! SE's highest level; SE gives up there), or a capped rating stops below the nested
//! chains, one cell is set from the solution and the step is rated [`CEILING`] with
//! technique `beyond-implemented`. A puzzle whose path has such a step is
//! `beyond-implemented` too, at the rating of its hardest step (a lower bound), even
//! when a chain of the path rates as high: its technique never claims chains solve it.
//! Invalid input (no solution, several solutions) is a [`RateError`].
//!
//! Architecture invariant: no I/O, no global mutable state. A [`Rater`] owns every
//! scratch buffer (allocated once in [`Rater::new`]); [`Rater::rate`] allocates
//! nothing per step.

mod basic;
mod chains;
mod memo;
mod tables;
mod uniq;

pub use chains::{Chain, Link, Node};

use crate::engine::grid::Cells;
use crate::engine::nxn::solve::nine::{solve, Verdict};
use tables::{Bits, Cells128, CELL_UNITS, PEERS, UNIT_BITS};

/// The first sudoku-factory version whose rater gives this build's ratings. Bump it
/// (with the crate version) whenever a change to the rater changes any rating:
/// `verify` re-rates only banks made since, and holds older ones to consistency.
pub const RATER_SINCE: &str = "0.4.12";

/// The rating of a step when no implemented technique applies (tenths): where SE's
/// nested forcing chains (9.5+) start, above its dynamic forcing chains (+) (9.0+).
/// Since SE's nested chains are implemented, only a step that even their highest
/// level cannot make (SE then gives up) or a rating capped below 9.5 take it.
pub const CEILING: u8 = 95;

/// The highest rating this rater can give (tenths): SE's highest nesting level
/// (11.0) with the length increment of the longest conclusion the rater counts (a
/// nested chain's length adds the lengths of the chains it nests, and saturates at
/// `u32::MAX`): 17.0, which fits a rating's `u8`. The published hardest puzzles
/// rate 11.9 at most, and rating bands stop there.
pub const HIGHEST: u8 = chains::NESTED_TOP + chains::increment_by_bounds(u32::MAX as usize - 2);

/// Declares [`Technique`] with its kebab-case names and [`Technique::ALL`] from one
/// list, so that the three cannot drift apart.
macro_rules! techniques {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// A solving technique of the rater, in the order the rater tries them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Technique {
            $($(#[$doc])* $variant,)*
        }

        impl Technique {
            /// Every technique, in the rater's order.
            pub const ALL: &'static [Technique] = &[$(Technique::$variant,)*];

            /// The kebab-case name used in bank columns and `grade` output.
            pub fn name(self) -> &'static str {
                match self {
                    $(Technique::$variant => $name,)*
                }
            }

            /// The technique called `name`, the inverse of [`Technique::name`].
            pub fn from_name(name: &str) -> Option<Technique> {
                Technique::ALL.iter().copied().find(|t| t.name() == name)
            }
        }
    };
}

techniques! {
    /// Nothing to do: the input is already a complete grid.
    None => "none",
    FullHouse => "full-house",
    HiddenSingle => "hidden-single",
    DirectPointing => "direct-pointing",
    DirectClaiming => "direct-claiming",
    DirectHiddenPair => "direct-hidden-pair",
    NakedSingle => "naked-single",
    DirectHiddenTriple => "direct-hidden-triple",
    Pointing => "pointing",
    Claiming => "claiming",
    NakedPair => "naked-pair",
    XWing => "x-wing",
    HiddenPair => "hidden-pair",
    NakedTriple => "naked-triple",
    Swordfish => "swordfish",
    HiddenTriple => "hidden-triple",
    Skyscraper => "skyscraper",
    TwoStringKite => "two-string-kite",
    /// A turbot fish with a box link, or an empty rectangle.
    TurbotFish => "turbot-fish",
    EmptyRectangle => "empty-rectangle",
    XyWing => "xy-wing",
    XyzWing => "xyz-wing",
    UniqueRectangle => "unique-rectangle",
    /// A unique loop of six or more cells.
    UniqueLoop => "unique-loop",
    NakedQuad => "naked-quad",
    Jellyfish => "jellyfish",
    HiddenQuad => "hidden-quad",
    /// Three strong links of one digit (Sukaku Explainer's 3 strong-linked fishes).
    ThreeLinks => "three-strong-links",
    WxyzWing => "wxyz-wing",
    VwxyzWing => "vwxyz-wing",
    Bug => "bug",
    /// A static chain or cycle on one digit (X-chain, X-cycle).
    XChain => "x-chain",
    /// A cycle of bivalue cells (SE's Y-cycle, 6.5+), or a chain of bivalue cells
    /// that closes none (7.0+, as SE rates it).
    XyChain => "xy-chain",
    /// A static chain or cycle mixing cell and unit links (an AIC / nice loop).
    Aic => "aic",
    /// Three cells whose choices of values two or more common neighbours of two
    /// or three candidates restrict (SE's aligned triplet exclusion).
    AlignedTripletExclusion => "aligned-triplet-exclusion",
    Nishio => "nishio",
    /// Static cell or region forcing chains.
    ForcingChain => "forcing-chain",
    DynamicForcingChain => "dynamic-forcing-chain",
    /// Dynamic forcing chains whose propagations also apply pointing, claiming,
    /// hidden and naked pairs and X-wings (SE's "dynamic forcing chains (+)").
    DynamicForcingChainPlus => "dynamic-forcing-chain-plus",
    /// Dynamic forcing chains whose propagations, when their singles and the (+)
    /// rules run out, nest a whole chain search (SE's "nested forcing chains",
    /// levels 2 to 5).
    NestedForcingChain => "nested-forcing-chain",
    BeyondImplemented => "beyond-implemented",
}

/// A puzzle's rating: the hardest step of the path the rater takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rating {
    /// SE rating in tenths: 23 = 2.3.
    pub rating: u8,
    /// The technique of the hardest step (the first one reaching `rating`).
    pub technique: Technique,
}

impl Rating {
    /// The rating of a path with no step (a full grid).
    const NOTHING: Rating = Rating {
        rating: 0,
        technique: Technique::None,
    };

    /// The rating written as a bank's `rating` column (`2.3`, one decimal) and its
    /// `technique` column, or `None` when either is not one this rater writes.
    pub fn parse(rating: &str, technique: &str) -> Option<Rating> {
        let (whole, tenth) = rating.split_once('.')?;
        if tenth.len() != 1 || whole.is_empty() || whole.len() > 2 {
            return Option::None;
        }
        let whole: u8 = whole.parse().ok()?;
        let tenth: u8 = tenth.parse().ok()?;
        Some(Rating {
            rating: whole.checked_mul(10)?.checked_add(tenth)?,
            technique: Technique::from_name(technique)?,
        })
    }
}

thread_local! {
    /// This thread's reusable [`Rater`], for [`rate`] and [`rate_solved`].
    static RATER: std::cell::RefCell<Rater> = std::cell::RefCell::new(Rater::new());
}

/// Rates `cells` on this thread's reusable [`Rater`] (no allocation per puzzle after
/// the first): the convenience the pipeline and `verify` use. `None` when the puzzle
/// is not uniquely solvable.
pub fn rate(cells: &Cells) -> Option<Rating> {
    RATER.with(|r| r.borrow_mut().rate(cells).ok())
}

/// [`rate`] for a puzzle known to be uniquely solvable with `solution` (a seed the
/// pipeline made): skips the uniqueness check, a few per cent of the rating's cost.
///
/// `cap` (tenths) is the hardest rating the caller can use: the path stops at its
/// first step above it, and that step's rating is returned (the puzzle rates at
/// least that). A rating at or below `cap` is the puzzle's; `u8::MAX` rates fully.
pub fn rate_solved(cells: &Cells, solution: &Cells, cap: u8) -> Rating {
    debug_assert!(matches!(solve(cells), Verdict::Unique(s) if s == *solution));
    RATER.with(|r| r.borrow_mut().run_solved(cells, solution, None, cap))
}

impl std::fmt::Display for Rating {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.rating / 10, self.rating % 10)
    }
}

/// One step of the solving path (for `grade --steps` and hints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub technique: Technique,
    /// SE rating of the step, in tenths.
    pub rating: u8,
    /// The cells of the pattern, where the technique names them (may be empty for
    /// chains).
    pub cells: Vec<u8>,
    /// `(cell, digit 1..=9)` set by the step.
    pub placements: Vec<(u8, u8)>,
    /// `(cell, digit 1..=9)` removed by the step.
    pub eliminations: Vec<(u8, u8)>,
    /// The step one instance of its technique at a time, in the order found: each
    /// pattern with its own houses, digits and conclusions (what a hint shows).
    pub patterns: Vec<Pattern>,
    /// The candidates before the step, per cell (bit `d` = digit `d + 1`; 0 for a
    /// cell already set).
    pub candidates: [u16; 81],
    /// The grid before the step (`0` = empty).
    pub grid: Cells,
}

/// One instance of a technique: the pattern that justifies its conclusions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    /// The houses the pattern lives in (bit `u`: rows `0..9`, columns `9..18`,
    /// boxes `18..27`): a hidden pair's house, a fish's base and cover lines, a
    /// turbot fish's strong links, a VWXYZ-wing's unit, the houses of a chain's
    /// links, a BUG type 3 or 4's unit. Empty for patterns of cells only (XY-, XYZ-
    /// and WXYZ-wings, naked singles, unique loops, BUG types 1 and 2).
    pub houses: u32,
    /// The digits of the pattern (bit `d` = digit `d + 1`).
    pub digits: u16,
    /// The cells of the pattern (for a chain: every cell of its nodes).
    pub cells: Vec<u8>,
    /// `(cell, digit 1..=9)` this pattern sets.
    pub placements: Vec<(u8, u8)>,
    /// `(cell, digit 1..=9)` this pattern removes.
    pub eliminations: Vec<(u8, u8)>,
    /// The chain, for the chain techniques.
    pub chain: Option<Chain>,
}

impl Pattern {
    /// Takes the pattern's cells, digits and houses from its chain: every cell of
    /// its nodes, their digits, the houses of their links.
    pub(crate) fn chain_drawn(&mut self) {
        let Some(chain) = &self.chain else { return };
        let mut cells = Vec::new();
        for node in chain.branches.iter().flatten() {
            if !cells.contains(&node.cell) {
                cells.push(node.cell);
            }
            self.digits |= 1 << (node.digit - 1);
            if let chains::Link::House(u) = node.link {
                self.houses |= 1 << u;
            }
        }
        self.cells = cells;
    }
}

/// Where a pattern's entries start in [`Found`]'s lists ([`Found::mark`]).
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    cells: usize,
    placements: usize,
    elims: usize,
}

impl Mark {
    /// How many eliminations were recorded before the mark.
    pub fn elims(self) -> usize {
        self.elims
    }
}

impl Pattern {
    /// The same instance found another way (an XY-wing from either pincer): the
    /// same cells, houses, digits and conclusions, in any order.
    fn same_as(&self, other: &Pattern) -> bool {
        fn sorted<T: Ord + Clone>(v: &[T]) -> Vec<T> {
            let mut v = v.to_vec();
            v.sort();
            v
        }
        self.houses == other.houses
            && self.digits == other.digits
            && self.chain == other.chain
            && sorted(&self.cells) == sorted(&other.cells)
            && sorted(&self.placements) == sorted(&other.placements)
            && sorted(&self.eliminations) == sorted(&other.eliminations)
    }
}

/// `items` without repeats, each at its first place (the step lists are short: a
/// linear search beats a set).
fn first_of_each<T: PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Why a puzzle cannot be rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RateError {
    #[error("the puzzle has no solution; check the givens")]
    NoSolution,
    #[error("the puzzle has several solutions; only uniquely solvable puzzles are rated")]
    MultipleSolutions,
}

/// The candidate state: placed values, candidate masks per cell (bit `d` = digit
/// `d + 1`) and, per digit, the cells where it may still stand. Both views are kept
/// in sync: cells answer "what can go here", digit masks "where can d go in this
/// unit" with one AND.
#[derive(Clone)]
pub(crate) struct Pencilmarks {
    pub value: [u8; 81],
    pub cand: [u16; 81],
    pub pos: [u128; 9],
    pub empty: u128,
    /// When each digit's places last changed, on a clock that only moves forward
    /// (across puzzles too), so equal stamps mean "not changed since".
    pub digit_stamp: [u64; 9],
    /// When the candidates of each unit's cells last changed.
    pub unit_stamp: [u64; 27],
    /// How many puzzles this board has loaded: [`memo::CellMemo`] tells boards apart
    /// by it.
    pub loads: u64,
    clock: u64,
    /// Digits and units changed since the stamps were last brought up to date
    /// ([`Pencilmarks::stamp`]): `place` and `eliminate` only OR bits in.
    dirty_digits: u16,
    dirty_units: u32,
}

impl Pencilmarks {
    fn new() -> Self {
        Pencilmarks {
            value: [0; 81],
            cand: [0; 81],
            pos: [0; 9],
            empty: 0,
            digit_stamp: [0; 9],
            unit_stamp: [0; 27],
            loads: 0,
            clock: 0,
            dirty_digits: 0,
            dirty_units: 0,
        }
    }

    /// Loads the givens of `cells`, all at once: a cell's candidates are the digits
    /// none of its units holds. False when two givens of a unit clash (the board is
    /// then not a position of any solution).
    fn load(&mut self, cells: &Cells) -> bool {
        // Branch-free (givens and holes alternate at random): digit 0 is a hole, its
        // bit and its slot of `seen` are scratch.
        let mut held = [0u16; 27];
        let mut seen = [0u128; 10];
        let mut clash = false;
        for (c, &v) in cells.iter().enumerate() {
            let bit = (1u16 << v) >> 1;
            for &u in &CELL_UNITS[c] {
                clash |= held[u as usize] & bit != 0;
                held[u as usize] |= bit;
            }
            // A given is no place of any digit: its own bit needs no setting.
            seen[v as usize] |= PEERS[c];
        }
        // The holes, in two words (a shift of a `u128` by a variable costs a
        // branch or several instructions).
        let (mut low, mut high) = (0u64, 0u64);
        for (c, &v) in cells[..64].iter().enumerate() {
            low |= u64::from(v == 0) << c;
        }
        for (c, &v) in cells[64..].iter().enumerate() {
            high |= u64::from(v == 0) << c;
        }
        let empty = u128::from(high) << 64 | u128::from(low);
        for (c, &v) in cells.iter().enumerate() {
            let [r, k, x] = CELL_UNITS[c].map(usize::from);
            self.cand[c] = !(held[r] | held[k] | held[x]) & (u16::from(v == 0) * 0x1ff);
        }
        for (d, pos) in self.pos.iter_mut().enumerate() {
            *pos = empty & !seen[d + 1];
        }
        self.value = *cells;
        self.empty = empty;
        self.loads += 1;
        self.dirty_digits = 0x1ff;
        self.dirty_units = (1 << 27) - 1;
        !clash
    }

    /// Sets digit `d` (0-based) in `cell` and removes it from the peers; returns the
    /// units whose candidates changed.
    pub fn place(&mut self, cell: usize, d: usize) -> u32 {
        self.value[cell] = d as u8 + 1;
        let bit = 1u128 << cell;
        for e in Bits(self.cand[cell] as u32) {
            self.pos[e] &= !bit;
        }
        self.dirty_digits |= self.cand[cell] | 1 << d;
        self.cand[cell] = 0;
        self.empty &= !bit;
        let mut units = UNIT_BITS[cell];
        for p in Cells128(PEERS[cell] & self.pos[d]) {
            self.cand[p] &= !(1 << d);
            units |= UNIT_BITS[p];
        }
        self.dirty_units |= units;
        self.pos[d] &= !PEERS[cell];
        units
    }

    pub fn eliminate(&mut self, cell: usize, d: usize) {
        self.cand[cell] &= !(1 << d);
        self.pos[d] &= !(1u128 << cell);
        self.dirty_digits |= 1 << d;
        self.dirty_units |= UNIT_BITS[cell];
    }

    /// Brings the change stamps up to date: the digits and units changed since the
    /// last call get the next tick of the clock.
    fn stamp(&mut self) {
        if self.dirty_digits == 0 && self.dirty_units == 0 {
            return;
        }
        self.clock += 1;
        for d in Bits(self.dirty_digits as u32) {
            self.digit_stamp[d] = self.clock;
        }
        for u in Bits(self.dirty_units) {
            self.unit_stamp[u] = self.clock;
        }
        self.dirty_digits = 0;
        self.dirty_units = 0;
    }

    #[inline]
    pub fn has(&self, cell: usize, d: usize) -> bool {
        self.cand[cell] >> d & 1 != 0
    }
}

/// What the current step found: filled by a technique finder, applied by the rater.
/// Reused across steps (the vectors keep their capacity).
pub(crate) struct Found {
    pub technique: Technique,
    pub rating: u8,
    pub placements: Vec<(u8, u8)>,
    pub elims: Vec<(u8, u8)>,
    pub cells: Vec<u8>,
    /// Whether the finders record each instance in `patterns` (for steps and
    /// hints; off while only rating, where it would cost a branch per instance).
    pub record: bool,
    pub patterns: Vec<Pattern>,
    /// While only rating, the rating of the path's hardest step so far (0 while
    /// recording steps, which must be SE's one by one): the static chain finders
    /// also apply every chain they meet that rates no higher ("free deductions",
    /// see the module's documentation).
    pub free: u8,
}

impl Found {
    /// Forgets everything recorded: before each step, and in a finder that keeps
    /// only its lowest-rated instances when it finds a lower one.
    fn clear(&mut self) {
        self.placements.clear();
        self.elims.clear();
        self.cells.clear();
        self.patterns.clear();
    }

    /// Where the next instance's entries will start.
    #[inline]
    pub fn mark(&self) -> Mark {
        Mark {
            cells: self.cells.len(),
            placements: self.placements.len(),
            elims: self.elims.len(),
        }
    }

    /// Records, when recording, the entries since `mark` as one instance with its
    /// `houses` (bits of units) and `digits` (0-based bits).
    #[inline]
    pub fn pattern(&mut self, mark: Mark, houses: u32, digits: u16) {
        if self.record {
            self.push_pattern(mark, houses, digits);
        }
    }

    #[cold]
    fn push_pattern(&mut self, mark: Mark, houses: u32, digits: u16) {
        let one_based = |&(c, d): &(u8, u8)| (c, d + 1);
        let pattern = Pattern {
            houses,
            digits,
            cells: first_of_each(self.cells[mark.cells..].iter().copied()),
            placements: first_of_each(self.placements[mark.placements..].iter().map(one_based)),
            eliminations: first_of_each(self.elims[mark.elims..].iter().map(one_based)),
            chain: None,
        };
        if !self.patterns.iter().any(|p| p.same_as(&pattern)) {
            self.patterns.push(pattern);
        }
    }

    /// Records a technique with a placement of digit `d` (0-based); the finders
    /// record every instance of their technique, so a step is the same set of
    /// deductions whatever the symmetry of the grid. A placement found twice is
    /// listed twice (applying it again changes nothing).
    pub fn place(&mut self, t: Technique, rating: u8, cell: usize, d: usize) -> bool {
        self.technique = t;
        self.rating = rating;
        self.placements.push((cell as u8, d as u8));
        true
    }

    /// True when a finder recorded a placement or an elimination.
    pub fn any(&self) -> bool {
        !self.placements.is_empty() || !self.elims.is_empty()
    }

    /// Records a technique whose eliminations are already in `elims`; true when
    /// there is at least one.
    pub fn elim(&mut self, t: Technique, rating: u8) -> bool {
        self.technique = t;
        self.rating = rating;
        !self.elims.is_empty()
    }

    /// Pushes the eliminations of digit `d` from every cell of `mask`.
    pub fn push_mask(&mut self, mask: u128, d: usize) {
        for c in Cells128(mask) {
            self.elims.push((c as u8, d as u8));
        }
    }
}

/// A reusable rater: owns the candidate board and every scratch buffer, so rating
/// many puzzles allocates only once. Not `Sync`-shared: one per thread.
pub struct Rater {
    board: Pencilmarks,
    found: Found,
    memo: basic::Memo,
    chains: chains::Chains,
}

impl Default for Rater {
    fn default() -> Self {
        Self::new()
    }
}

impl Rater {
    pub fn new() -> Self {
        Rater {
            board: Pencilmarks::new(),
            found: Found {
                technique: Technique::None,
                rating: 0,
                placements: Vec::with_capacity(81),
                elims: Vec::with_capacity(729),
                cells: Vec::with_capacity(81),
                record: false,
                patterns: Vec::new(),
                free: 0,
            },
            memo: basic::Memo::default(),
            chains: chains::Chains::new(),
        }
    }

    /// Rates a puzzle (`0` = empty cell).
    pub fn rate(&mut self, cells: &Cells) -> Result<Rating, RateError> {
        self.run(cells, None)
    }

    /// Rates a puzzle and appends every step of the path to `steps`.
    pub fn rate_with_steps(
        &mut self,
        cells: &Cells,
        steps: &mut Vec<Step>,
    ) -> Result<Rating, RateError> {
        self.run(cells, Some(steps))
    }

    /// The grid the last successful `rate` ended with (the solution).
    pub fn grid(&self) -> Cells {
        self.board.value
    }

    fn run(&mut self, cells: &Cells, steps: Option<&mut Vec<Step>>) -> Result<Rating, RateError> {
        // Without steps to record, the singles go first, and a puzzle they solve
        // needs no search: singles are sound deductions, so a full grid they reach
        // from consistent givens is the only solution.
        let fast = steps.is_none() && self.board.load(cells);
        let mut first = Rating::NOTHING;
        if fast {
            first = self.singles();
            if self.board.empty == 0 {
                return Ok(first);
            }
        }
        match solve(cells) {
            Verdict::Unique(solution) if fast => Ok(self.path(&solution, None, first, u8::MAX)),
            Verdict::Unique(solution) => Ok(self.run_solved(cells, &solution, steps, u8::MAX)),
            Verdict::NoSolution => Err(RateError::NoSolution),
            Verdict::Multiple => Err(RateError::MultipleSolutions),
        }
    }

    /// Rates `cells`, whose unique solution is `solution`, up to `cap`
    /// ([`rate_solved`]).
    fn run_solved(
        &mut self,
        cells: &Cells,
        solution: &Cells,
        steps: Option<&mut Vec<Step>>,
        cap: u8,
    ) -> Rating {
        self.board.load(cells);
        self.path(solution, steps, Rating::NOTHING, cap)
    }

    /// The singles from the board as it is ([`basic::singles`]), as a rating.
    fn singles(&mut self) -> Rating {
        match basic::singles(&mut self.board) {
            0 => Rating::NOTHING,
            10 => Rating {
                rating: 10,
                technique: Technique::FullHouse,
            },
            r => Rating {
                rating: r,
                technique: Technique::HiddenSingle,
            },
        }
    }

    /// Follows the path from the board as it is to the solution, `best` being the
    /// hardest step so far; returns the hardest step (`beyond-implemented` when any
    /// step was), or the first one above `cap`.
    /// Without `steps` to record, the singles between two other steps are placed
    /// in one go ([`basic::singles`]).
    fn path(
        &mut self,
        solution: &Cells,
        mut steps: Option<&mut Vec<Step>>,
        mut best: Rating,
        cap: u8,
    ) -> Rating {
        let fast = steps.is_none();
        self.found.record = !fast;
        let mut beyond = false;
        while self.board.empty != 0 && best.rating <= cap {
            if fast {
                let singles = self.singles();
                if singles.rating > best.rating {
                    best = singles;
                }
                debug_assert!(Cells128(!self.board.empty & ((1 << 81) - 1))
                    .all(|c| self.board.value[c] == solution[c]));
                if self.board.empty == 0 {
                    break;
                }
            }
            self.found.clear();
            self.found.free = if fast { best.rating } else { 0 };
            // The board before the step, for the step's record only (not copied
            // while rating).
            let before = if fast {
                None
            } else {
                Some((self.board.cand, self.board.value))
            };
            // Above a cap below SE's nested chains, their search (seconds) would
            // only say what the fallback says: a step above the cap.
            if !self.find(solution, fast, cap >= CEILING) {
                self.fallback(solution);
            }
            if !self.apply(solution) {
                // A finder reported only eliminations of the solution's digits (a
                // bug): keep every puzzle rateable rather than loop forever.
                debug_assert!(false, "a technique made no valid progress");
                self.found.clear();
                self.fallback(solution);
                self.apply(solution);
            }
            if self.found.rating > best.rating {
                best = Rating {
                    rating: self.found.rating,
                    technique: self.found.technique,
                };
            }
            beyond |= self.found.technique == Technique::BeyondImplemented;
            if let (Some(steps), Some((candidates, grid))) = (steps.as_deref_mut(), before) {
                let f = &mut self.found;
                // Finders record a cell or a deduction once per pattern that gives it
                // (two full houses naming the same cell, an xy-wing found from both
                // pincers): a step lists each once, in first-found order.
                steps.push(Step {
                    technique: f.technique,
                    rating: f.rating,
                    cells: first_of_each(f.cells.iter().copied()),
                    placements: first_of_each(f.placements.iter().map(|&(c, d)| (c, d + 1))),
                    eliminations: first_of_each(f.elims.iter().map(|&(c, d)| (c, d + 1))),
                    patterns: std::mem::take(&mut f.patterns),
                    candidates,
                    grid,
                });
            }
        }
        // A path that needed a step beyond the implemented techniques says so,
        // whichever step was the hardest: its rating is a lower bound (SE's step
        // there rates 9.0 or more), not the rating of chains that solve it.
        if beyond {
            best.technique = Technique::BeyondImplemented;
        }
        best
    }

    /// Applies `found`; false when it changed nothing.
    fn apply(&mut self, solution: &Cells) -> bool {
        let mut progress = false;
        for i in 0..self.found.placements.len() {
            let (c, d) = self.found.placements[i];
            let (c, d) = (c as usize, d as usize);
            if solution[c] == d as u8 + 1 && self.board.value[c] == 0 {
                self.board.place(c, d);
                progress = true;
            }
        }
        for i in 0..self.found.elims.len() {
            let (c, d) = self.found.elims[i];
            let (c, d) = (c as usize, d as usize);
            if solution[c] != d as u8 + 1 && self.board.has(c, d) {
                self.board.eliminate(c, d);
                progress = true;
            }
        }
        progress
    }

    /// Sets the most constrained empty cell from the solution, rated [`CEILING`].
    fn fallback(&mut self, solution: &Cells) {
        let b = &self.board;
        let cell = Cells128(b.empty)
            .min_by_key(|&c| b.cand[c].count_ones())
            .expect("called only while cells are empty");
        let mark = self.found.mark();
        self.found.place(
            Technique::BeyondImplemented,
            CEILING,
            cell,
            solution[cell] as usize - 1,
        );
        self.found.pattern(mark, 0, 0);
    }

    /// Runs the finders in SE's order; true when one made progress. `past_singles`:
    /// the board has no full house and no hidden single ([`basic::singles`] ran);
    /// `nested`: SE's nested chains are searched too.
    fn find(&mut self, solution: &Cells, past_singles: bool, nested: bool) -> bool {
        use basic::*;
        self.board.stamp();
        let b = &self.board;
        let f = &mut self.found;
        let (u, d) = (&mut self.memo.units, &mut self.memo.digits);
        !past_singles && (full_house(b, f) || hidden_single(b, f))
            || locking(b, f, true, &mut d[5])
            || {
                skip_filled_units(b, solution, u, &mut self.memo.fillings);
                hidden_set(b, f, 2, true, &mut u[0])
            }
            || naked_single(b, f)
            || hidden_set(b, f, 3, true, &mut u[1])
            || locking(b, f, false, &mut d[6])
            || naked_set(b, f, 2, &mut u[2])
            || {
                skip_template_free(b, d, &mut self.memo.templates);
                fish(b, f, 2, &mut d[0])
            }
            || hidden_set(b, f, 2, false, &mut u[3])
            || naked_set(b, f, 3, &mut u[4])
            || fish(b, f, 3, &mut d[1])
            || hidden_set(b, f, 3, false, &mut u[5])
            || turbot(b, f, &mut d[2])
            || xy_wing(b, f, &mut u[8])
            || xyz_wing(b, f, &mut u[9])
            || self.chains.find_free(b, f)
            || uniq::loops(b, f, &mut self.memo.loops)
            || naked_set(b, f, 4, &mut u[6])
            || fish(b, f, 4, &mut d[3])
            || hidden_set(b, f, 4, false, &mut u[7])
            || three_links(b, f, &mut d[4])
            || wxyz_wing(b, f, &mut self.memo.wxyz)
            || uniq::bug(b, f)
            || vwxyz_wing(b, f, &mut self.memo.vwxyz)
            || self.chains.find_static(b, f, solution)
            || aligned_triplets(b, f, &mut self.memo.triplets)
            || self.chains.find_forcing(b, f, nested)
    }
}

#[cfg(test)]
mod tests;
