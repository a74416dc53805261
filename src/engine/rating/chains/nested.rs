//! SE's nested forcing chains (9.5 to 11.0 + length), from its published rules:
//! dynamic cell, region and binary forcing chains whose propagations, each time
//! their singles run out, apply the rules of dynamic forcing chains (+) ([`plus`])
//! and then, if those find nothing, a whole chain search of a lower kind on the
//! board the propagation has left:
//!
//! | level | rating | the nested search                                      |
//! |-------|--------|--------------------------------------------------------|
//! | 2     | 9.5    | static chains and cycles (X, Y, then both links)       |
//! | 3     | 10.0   | those, then static cell and region forcing chains      |
//! | 4     | 10.5   | dynamic forcing chains                                 |
//! | 5     | 11.0   | dynamic forcing chains, then nested level 2            |
//!
//! What a nested hint removes is an off node whose ancestors are SE's *rule
//! parents*: the candidates, gone in the outer propagation, whose going made the
//! hint's strong links (its on nodes forced by a cell or a house that lost them).
//! The hint's own complexity is added to the outer chain's (each distinct nested
//! chain once), and the total decides the length increment.
//!
//! Unlike the levels below, which search for the best conclusion in our own way,
//! this one follows SE's procedure as written (its order of searches, of
//! propagation and of hints), because a nested hint's parents and complexity depend
//! on which chain SE finds first. It runs only where every other technique fails:
//! no puzzle of SE's rated sample reaches it; the published hardest do. Its
//! potentials live in arenas kept across steps, so a search allocates only while
//! the arenas grow.

use std::collections::{HashMap, VecDeque};

use super::super::tables::{Bits, Cells128, FewBits, CELL_UNITS, UNIT_MASK};
use super::super::{Pencilmarks, Technique};
use super::{length_increment, plus, Chain, Link, Node};

/// No potential / no nested chain.
const NO: u32 = u32::MAX;

/// Why a potential holds: SE's cause, which says where its rule parents are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cause {
    /// An assumption (SE: no cause).
    Start,
    /// Its cell (SE: naked single).
    Cell,
    /// A unit, `0..27` (SE: hidden single in a row, column or box).
    Unit(u8),
    /// A rule of the propagation's board (SE: advanced).
    Rule,
}

/// One potential: a node `9 * cell + digit`, on or off, its cause, its parents
/// (`parents[first..first + len]`, potential indices) and the nested chain that
/// removed it (an index of [`Engine::nested`]) or [`NO`].
#[derive(Clone, Copy)]
struct Pot {
    node: u16,
    on: bool,
    cause: Cause,
    first: u32,
    len: u32,
    nested: u32,
    /// The off nodes on its first-parent line, hashed to bits (a filter that lets
    /// [`Engine::is_parent`] skip most walks).
    line: u128,
    /// The rule that removed it ([`Cause::Rule`]).
    rule: Technique,
}

/// SE's `LinkedSet<Potential>` of one polarity: node → potential, in insertion
/// order.
struct LSet {
    at: Box<[u32; 729]>,
    order: Vec<u16>,
}

impl LSet {
    fn new() -> Self {
        LSet {
            at: Box::new([NO; 729]),
            order: Vec::new(),
        }
    }

    fn clear(&mut self) {
        for &n in &self.order {
            self.at[n as usize] = NO;
        }
        self.order.clear();
    }

    #[inline]
    fn get(&self, n: usize) -> Option<u32> {
        let p = self.at[n];
        (p != NO).then_some(p)
    }

    #[inline]
    fn has(&self, n: usize) -> bool {
        self.at[n] != NO
    }

    /// Adds `pot` for node `n` unless `n` is there; true when added.
    #[inline]
    fn add(&mut self, n: usize, pot: u32) -> bool {
        if self.at[n] != NO {
            return false;
        }
        self.at[n] = pot;
        self.order.push(n as u16);
        true
    }

    /// Keeps only the nodes `other` has (their potentials stay this set's).
    fn retain(&mut self, other: &LSet) {
        let at = &mut self.at;
        self.order.retain(|&n| {
            let keep = other.has(n as usize);
            if !keep {
                at[n as usize] = NO;
            }
            keep
        });
    }

    fn copy_from(&mut self, other: &LSet) {
        self.clear();
        for &n in &other.order {
            self.add(n as usize, other.at[n as usize]);
        }
    }
}

/// The on and off sets of one propagation.
struct Sides {
    on: LSet,
    off: LSet,
}

/// A search's kind (SE's `Chaining` parameters; nishio is never nested).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Kind {
    pub multiple: bool,
    pub dynamic: bool,
    /// 0: no rule in the propagations; 1: the (+) rules; 2 to 5: nested.
    pub level: u8,
}

/// SE's highest nesting level.
pub(super) const TOP_LEVEL: u8 = 5;

/// SE's base rating of the cell, region and binary chains of a search at `level`,
/// dynamic or not, in tenths.
pub(super) const fn base(dynamic: bool, level: u8) -> u8 {
    match level {
        0 if dynamic => 85,
        0 => 80,
        1 => 90,
        l => 95 + 5 * (l - 2),
    }
}

impl Kind {
    pub(super) const fn new(multiple: bool, dynamic: bool, level: u8) -> Kind {
        Kind {
            multiple,
            dynamic,
            level,
        }
    }

    fn base(self) -> u8 {
        base(self.dynamic, self.level)
    }

    /// The searches a propagation of this kind nests, in SE's order after the (+)
    /// rules.
    fn nested(self) -> &'static [Kind] {
        const STATIC: Kind = Kind::new(false, false, 0);
        const MULTIPLE: Kind = Kind::new(true, false, 0);
        const DYNAMIC: Kind = Kind::new(true, true, 0);
        const NESTED2: Kind = Kind::new(true, true, 2);
        match self.level {
            0 | 1 => &[],
            2 => &[STATIC],
            3 => &[STATIC, MULTIPLE],
            4 => &[DYNAMIC],
            _ => &[DYNAMIC, NESTED2],
        }
    }
}

/// What a hint is (SE's hint classes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A bidirectional cycle: targets its on and off ends.
    Cycle { x: bool, y: bool },
    /// A static forcing chain ("p on ⇒ p off" or "p off ⇒ p on"): one target.
    Forcing { x: bool, y: bool },
    /// A contradiction or a double forcing chain: targets the two ends.
    Binary { absurd: bool },
    /// A cell forcing chain: a target per candidate of the cell.
    Cell,
    /// A region forcing chain (unit): a target per place of the digit.
    Region(u8),
}

/// One hint of a search: its shape, its removals (nodes, increasing:
/// `removals[r0..r1]`) and its targets (potentials, `targets[t0..t1]`), with
/// SE's rating of it and its sort keys.
#[derive(Clone, Copy)]
pub(super) struct Hint {
    shape: Shape,
    r0: u32,
    r1: u32,
    t0: u32,
    t1: u32,
    /// Tenths.
    pub rating: u8,
    complexity: u32,
    key: u8,
    /// Its conclusion as a hint shows it: a node placed (`true`) or removed; a
    /// cycle's removals have none ([`NO`]).
    pub conclusion: (u32, bool),
}

impl Hint {
    fn sort_key(&self) -> u8 {
        match self.shape {
            Shape::Cycle { x, y } | Shape::Forcing { x, y } => match (x, y) {
                (true, true) => 4,
                (false, true) => 3,
                _ => 2,
            },
            Shape::Binary { absurd: true } => 7,
            Shape::Binary { absurd: false } => 1,
            Shape::Cell => 5,
            Shape::Region(_) => 6,
        }
    }

    /// The technique a nested hint stands for in a chain's explanation.
    fn technique(&self, kind: Kind) -> Technique {
        match self.shape {
            Shape::Cycle { x: true, y: false } | Shape::Forcing { x: true, y: false } => {
                Technique::XChain
            }
            Shape::Cycle { x: false, y: true } => Technique::XyChain,
            Shape::Cycle { .. } | Shape::Forcing { .. } => Technique::Aic,
            _ if !kind.dynamic => Technique::ForcingChain,
            _ if kind.level == 0 => Technique::DynamicForcingChain,
            _ if kind.level == 1 => Technique::DynamicForcingChainPlus,
            _ => Technique::NestedForcingChain,
        }
    }
}

/// The grid a search works on: candidates by cell and places by digit.
#[derive(Clone, Copy)]
struct Grid {
    cand: [u16; 81],
    pos: [u128; 9],
}

impl Grid {
    #[inline]
    fn remove(&mut self, n: usize) {
        self.cand[n / 9] &= !(1 << (n % 9));
        self.pos[n % 9] &= !(1u128 << (n / 9));
    }
}

/// One search engine: SE's `Chaining` of one kind, with the engine of the
/// searches it nests.
pub(super) struct Engine {
    kind: Kind,
    grid: Grid,
    /// The board a dynamic propagation started from (SE's `saveGrid`), as the
    /// source board of the (+) rules; its values and empty cells are the step's.
    src: Box<Pencilmarks>,
    pots: Vec<Pot>,
    parents: Vec<u32>,
    /// Each nested chain: its complexity and a fingerprint of its chains (SE's
    /// `FullChain`: equal chains count once).
    nested: Vec<(u32, u64)>,
    sides: Vec<Sides>,
    free: Vec<usize>,
    pub(super) hints: Vec<Hint>,
    removals: Vec<u16>,
    targets: Vec<u32>,
    pending_on: VecDeque<u32>,
    pending_off: VecDeque<u32>,
    /// Implications of one node: (node, cause, hidden parents in `hidden`).
    links: Vec<(u16, Cause, u32, u32)>,
    hidden: Vec<u32>,
    /// Ancestor walks: a stamp per polarity and node.
    seen: Vec<u32>,
    stamp: u32,
    todo: Vec<u32>,
    next: Vec<u32>,
    /// Rule parents of one nested hint (nodes, off).
    rule_parents: Vec<u16>,
    /// A propagation's advanced potentials: node, parents (`adv_parents`), nested.
    advanced: Vec<(u16, u32, u32, u32, Technique)>,
    adv_parents: Vec<u32>,
    found: Vec<u32>,
    chains: Vec<u32>,
    line: Vec<u32>,
    order: Vec<u32>,
    keep: Vec<bool>,
    /// Distinct nested chains met by [`Engine::complexity`] (fingerprints), and
    /// the nested chains of one target.
    done: Vec<u64>,
    met: Vec<u32>,
    /// Static searches (the grid fixed): each node's links, by polarity and kind
    /// of links, computed once a search: (stamp, start, end) into `memo_links`.
    memo: Vec<(u32, u32, u32)>,
    memo_links: Vec<(u16, Cause, u32, u32)>,
    /// Where the links of the last node asked for are: in `memo_links` (true) or
    /// `links`, and their range.
    view: (bool, u32, u32),
    memo_stamp: u32,
    inner: Vec<Engine>,
}

impl Engine {
    pub(super) fn new(kind: Kind, b: &Pencilmarks) -> Self {
        Engine {
            kind,
            grid: Grid {
                cand: b.cand,
                pos: b.pos,
            },
            src: Box::new(b.clone()),
            pots: Vec::new(),
            parents: Vec::new(),
            nested: Vec::new(),
            sides: Vec::new(),
            free: Vec::new(),
            hints: Vec::new(),
            removals: Vec::new(),
            targets: Vec::new(),
            pending_on: VecDeque::new(),
            pending_off: VecDeque::new(),
            links: Vec::new(),
            hidden: Vec::new(),
            seen: vec![0; 1458],
            stamp: 0,
            todo: Vec::new(),
            next: Vec::new(),
            rule_parents: Vec::new(),
            advanced: Vec::new(),
            adv_parents: Vec::new(),
            found: Vec::new(),
            chains: Vec::new(),
            line: Vec::new(),
            order: Vec::new(),
            keep: Vec::new(),
            done: Vec::new(),
            met: Vec::new(),
            memo: vec![(0, 0, 0); 729 * 8],
            memo_links: Vec::new(),
            memo_stamp: 0,
            view: (false, 0, 0),
            inner: kind.nested().iter().map(|&k| Engine::new(k, b)).collect(),
        }
    }

    /// Runs the search on `b`'s candidates as `cand`/`pos` say, `b` giving the
    /// values and empty cells: [`Engine::hints`] holds its hints in SE's order
    /// (rating, complexity, kind), each removal set once.
    pub(super) fn search(&mut self, b: &Pencilmarks, cand: &[u16; 81], pos: &[u128; 9]) {
        self.grid = Grid {
            cand: *cand,
            pos: *pos,
        };
        self.src.value = b.value;
        self.src.empty = b.empty;
        self.pots.clear();
        self.parents.clear();
        self.nested.clear();
        self.hints.clear();
        self.removals.clear();
        self.targets.clear();
        self.memo_stamp = self.memo_stamp.wrapping_add(1);
        if self.memo_stamp == 0 {
            self.memo.iter_mut().for_each(|m| m.0 = 0);
            self.memo_stamp = 1;
        }
        self.memo_links.clear();
        if self.kind.multiple || self.kind.dynamic {
            self.multiple_chains();
        } else {
            for (y, x) in [(false, true), (true, false), (true, true)] {
                self.loops(y, x);
            }
        }
        for i in 0..self.hints.len() {
            let h = self.hints[i];
            let complexity = self.complexity(&h);
            let h = &mut self.hints[i];
            h.complexity = complexity;
            h.key = h.sort_key();
            let base = match h.shape {
                Shape::Cycle { x, y } => {
                    if x && y {
                        70
                    } else {
                        65
                    }
                }
                Shape::Forcing { x, y } => {
                    if x && y {
                        70
                    } else {
                        66
                    }
                }
                _ => self.kind.base(),
            };
            let len = (complexity as usize).saturating_sub(2);
            h.rating = base.saturating_add(length_increment(len));
        }
        // SE's stable sort, as an unstable one (which needs no scratch memory) with
        // the order found as the last key: where a hint's targets start grows with
        // it (every hint has one).
        self.hints
            .sort_unstable_by_key(|h| (h.rating, h.complexity, h.key, h.t0));
        // SE keeps the first hint of each set of removals: the hints grouped by
        // removals (each group in SE's order), the first of each kept.
        let (hints, removals) = (&self.hints, &self.removals);
        let of = |i: u32| {
            let h = &hints[i as usize];
            &removals[h.r0 as usize..h.r1 as usize]
        };
        self.order.clear();
        self.order.extend(0..hints.len() as u32);
        self.order
            .sort_unstable_by(|&a, &b| of(a).cmp(of(b)).then(a.cmp(&b)));
        self.keep.clear();
        self.keep.resize(hints.len(), false);
        for (k, &i) in self.order.iter().enumerate() {
            if k == 0 || of(self.order[k - 1]) != of(i) {
                self.keep[i as usize] = true;
            }
        }
        let keep = &self.keep;
        let mut i = 0;
        self.hints.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    /// The removals of hint `h`.
    pub(super) fn removals(&self, h: &Hint) -> &[u16] {
        &self.removals[h.r0 as usize..h.r1 as usize]
    }

    /// The on (`on`) or off set of sides `k`.
    fn set_of(&self, k: usize, on: bool) -> &LSet {
        if on {
            &self.sides[k].on
        } else {
            &self.sides[k].off
        }
    }

    fn take_sides(&mut self) -> usize {
        match self.free.pop() {
            Some(i) => i,
            None => {
                self.sides.push(Sides {
                    on: LSet::new(),
                    off: LSet::new(),
                });
                self.sides.len() - 1
            }
        }
    }

    fn give_sides(&mut self, i: usize) {
        self.sides[i].on.clear();
        self.sides[i].off.clear();
        self.free.push(i);
    }

    /// The line filter of a potential whose first parent is `parent`.
    #[inline]
    fn line_below(&self, parent: u32) -> u128 {
        let a = &self.pots[parent as usize];
        a.line | if a.on { 0 } else { 1u128 << (a.node % 128) }
    }

    fn pot(&mut self, node: usize, on: bool, cause: Cause, parents: &[u32]) -> u32 {
        let first = self.parents.len() as u32;
        self.parents.extend_from_slice(parents);
        let line = parents.first().map_or(0, |&a| self.line_below(a));
        self.pots.push(Pot {
            node: node as u16,
            on,
            cause,
            first,
            len: parents.len() as u32,
            nested: NO,
            line,
            rule: Technique::None,
        });
        (self.pots.len() - 1) as u32
    }

    // ---- implications ----------------------------------------------------------

    /// SE's "on ⇒ off" of node `n`: its cell's other candidates (with `y`), then its
    /// digit's other places in its box, row and column, each node once.
    fn on_to_off(&mut self, n: usize, y: bool) {
        self.links.clear();
        let (c, d) = (n / 9, n % 9);
        if y {
            for e in Bits((self.grid.cand[c] & !(1 << d)) as u32) {
                self.links.push(((9 * c + e) as u16, Cause::Cell, 0, 0));
            }
        }
        let [row, col, bx] = CELL_UNITS[c];
        let mut done = 1u128 << c;
        for u in [bx, row, col] {
            let places = UNIT_MASK[u as usize] & self.grid.pos[d] & !done;
            for q in Cells128(places) {
                self.links.push(((9 * q + d) as u16, Cause::Unit(u), 0, 0));
            }
            done |= places;
        }
        self.view = (false, 0, self.links.len() as u32);
    }

    /// SE's "off ⇒ on" of node `n` (on the grid as it is, `n` still on it): its
    /// cell's other candidate when it has two (with `y`), then its digit's other
    /// place in its box, row and column where it has two (with `x`). With `hidden`
    /// (a dynamic propagation, `off` its off set), each gets as parents the
    /// candidates of its cell, or of its digit in its unit, that the propagation
    /// switched off (SE's hidden parents).
    fn off_to_on(&mut self, n: usize, y: bool, x: bool, hidden: Option<usize>) {
        self.links.clear();
        self.hidden.clear();
        let (c, d) = (n / 9, n % 9);
        if y && self.grid.cand[c].two() {
            let mut e = self.grid.cand[c].trailing_zeros() as usize;
            if e == d {
                e = (self.grid.cand[c] & !(1 << e)).trailing_zeros() as usize;
            }
            let h0 = self.hidden.len() as u32;
            if let Some(s) = hidden {
                for v in Bits((self.src.cand[c] & !self.grid.cand[c]) as u32) {
                    if let Some(p) = self.sides[s].off.get(9 * c + v) {
                        self.hidden.push(p);
                    }
                }
            }
            let h1 = self.hidden.len() as u32;
            self.links.push(((9 * c + e) as u16, Cause::Cell, h0, h1));
        }
        if x {
            let [row, col, bx] = CELL_UNITS[c];
            for u in [bx, row, col] {
                let places = self.grid.pos[d] & UNIT_MASK[u as usize];
                if !places.two() {
                    continue;
                }
                let mut q = places.trailing_zeros() as usize;
                if q == c {
                    q = (places & !(1u128 << q)).trailing_zeros() as usize;
                }
                let node = (9 * q + d) as u16;
                if self.links.iter().any(|l| l.0 == node) {
                    continue;
                }
                let h0 = self.hidden.len() as u32;
                if let Some(s) = hidden {
                    let gone = self.src.pos[d] & !self.grid.pos[d] & UNIT_MASK[u as usize];
                    for r in Cells128(gone) {
                        if let Some(p) = self.sides[s].off.get(9 * r + d) {
                            self.hidden.push(p);
                        }
                    }
                }
                let h1 = self.hidden.len() as u32;
                self.links.push((node, Cause::Unit(u), h0, h1));
            }
        }
        self.view = (false, 0, self.links.len() as u32);
    }

    /// [`Engine::on_to_off`] (`on`) or [`Engine::off_to_on`] of node `n` on a grid
    /// that does not change during the search (no hidden parents), from the memo.
    fn static_links(&mut self, n: usize, on: bool, y: bool, x: bool) {
        let i = (2 * n + on as usize) * 4 + 2 * y as usize + x as usize;
        let (stamp, a, b) = self.memo[i];
        if stamp == self.memo_stamp {
            self.view = (true, a, b);
            return;
        }
        if on {
            self.on_to_off(n, y);
        } else {
            self.off_to_on(n, y, x, None);
        }
        let a = self.memo_links.len() as u32;
        self.memo_links.extend_from_slice(&self.links);
        let b = self.memo_links.len() as u32;
        self.memo[i] = (self.memo_stamp, a, b);
        self.view = (true, a, b);
    }

    #[inline]
    fn n_links(&self) -> usize {
        (self.view.2 - self.view.1) as usize
    }

    /// Link `i` of the last node asked for: (node, cause, hidden parents' range).
    #[inline]
    fn link(&self, i: usize) -> (u16, Cause, u32, u32) {
        if self.view.0 {
            self.memo_links[self.view.1 as usize + i]
        } else {
            self.links[i]
        }
    }

    /// A potential for link `i` of [`Engine::links`], implied by `parent`.
    fn linked(&mut self, i: usize, on: bool, parent: u32) -> u32 {
        let (node, cause, h0, h1) = self.link(i);
        let first = self.parents.len() as u32;
        self.parents.push(parent);
        for k in h0..h1 {
            let h = self.hidden[k as usize];
            self.parents.push(h);
        }
        let line = self.line_below(parent);
        self.pots.push(Pot {
            node,
            on,
            cause,
            first,
            len: self.parents.len() as u32 - first,
            nested: NO,
            line,
            rule: Technique::None,
        });
        (self.pots.len() - 1) as u32
    }

    // ---- static chains and cycles ------------------------------------------------

    fn loops(&mut self, y: bool, x: bool) {
        for c in 0..81 {
            let cand = self.grid.cand[c];
            if !cand.several() {
                continue;
            }
            for d in Bits(cand as u32) {
                self.unary(9 * c + d, y, x);
            }
        }
    }

    /// SE's unary chaining from node `n`: cycles back to "n on", then (with `x`)
    /// forcing chains from "n on" to "n off" and from "n off" to "n on".
    fn unary(&mut self, n: usize, y: bool, x: bool) {
        if !self.grid.cand[n / 9].at_most(2) && !x {
            return;
        }
        let p_on = self.pot(n, true, Cause::Start, &[]);
        let s = self.take_sides();
        self.sides[s].on.add(n, p_on);
        self.found.clear();
        self.cycles(s, y, x, n);
        let cycles = std::mem::take(&mut self.found);
        let mut chains = std::mem::take(&mut self.chains);
        chains.clear();
        if x {
            self.give_sides(s);
            let s = self.take_sides();
            self.sides[s].on.add(n, p_on);
            self.forcing(s, y, (n, true), &mut chains);
            self.give_sides(s);
            let s = self.take_sides();
            let p_off = self.pot(n, false, Cause::Start, &[]);
            self.sides[s].off.add(n, p_off);
            self.forcing(s, y, (n, false), &mut chains);
            self.give_sides(s);
        } else {
            self.give_sides(s);
        }
        for &dst_on in &cycles {
            let dst_off = self.reversed(dst_on);
            self.cycle_hint(dst_on, dst_off, x, y);
        }
        for &t in &chains {
            let target = self.pots[t as usize];
            let (c, d) = (target.node as usize / 9, target.node as usize % 9);
            let r0 = self.removals.len() as u32;
            if target.on {
                for e in Bits((self.grid.cand[c] & !(1 << d)) as u32) {
                    self.removals.push((9 * c + e) as u16);
                }
            } else {
                self.removals.push(target.node);
            }
            let conclusion = (target.node as u32, target.on);
            self.push_concluding(Shape::Forcing { x, y }, r0, &[t], conclusion);
        }
        self.found = cycles;
        self.found.clear();
        self.chains = chains;
    }

    /// Records a hint whose removals are `removals[r0..]`, unless it removes nothing.
    fn push_hint(&mut self, shape: Shape, r0: u32, targets: &[u32]) {
        self.push_concluding(shape, r0, targets, (NO, false));
    }

    /// [`Engine::push_concluding`] of a hint whose targets are `targets[t0..]`.
    fn push_from(&mut self, shape: Shape, r0: u32, t0: usize, conclusion: (u32, bool)) {
        if self.removals.len() as u32 == r0 {
            self.targets.truncate(t0);
            return;
        }
        self.hints.push(Hint {
            shape,
            r0,
            r1: self.removals.len() as u32,
            t0: t0 as u32,
            t1: self.targets.len() as u32,
            rating: 0,
            complexity: 0,
            key: 0,
            conclusion,
        });
    }

    /// [`Engine::push_hint`] of a hint that places node `.0` (`.1`) or removes it.
    fn push_concluding(&mut self, shape: Shape, r0: u32, targets: &[u32], conclusion: (u32, bool)) {
        let r1 = self.removals.len() as u32;
        if r1 == r0 {
            return;
        }
        let t0 = self.targets.len() as u32;
        self.targets.extend_from_slice(targets);
        self.hints.push(Hint {
            shape,
            r0,
            r1,
            t0,
            t1: self.targets.len() as u32,
            rating: 0,
            complexity: 0,
            key: 0,
            conclusion,
        });
    }

    /// Whether node `off` (off) is on the first-parent line of potential `p`.
    fn is_parent(&self, p: u32, off: u16) -> bool {
        if self.pots[p as usize].line >> (off % 128) & 1 == 0 {
            return false;
        }
        let mut q = p;
        loop {
            let pot = self.pots[q as usize];
            if pot.len == 0 {
                return false;
            }
            q = self.parents[pot.first as usize];
            let a = self.pots[q as usize];
            if a.node == off && !a.on {
                return true;
            }
        }
    }

    /// SE's cycle search from "source on" (sides `s`): layer by layer; an off node
    /// is reached again by every path that does not pass it already. The cycles'
    /// ends ("source on" again, four layers or more) go to [`Engine::found`].
    fn cycles(&mut self, s: usize, y: bool, x: bool, source: usize) {
        self.queue_assumptions(s);
        let mut length = 0;
        while !self.pending_on.is_empty() || !self.pending_off.is_empty() {
            length += 1;
            while let Some(p) = self.pending_on.pop_front() {
                let n = self.pots[p as usize].node as usize;
                self.static_links(n, true, y, x);
                for i in 0..self.n_links() {
                    let q = self.link(i).0;
                    if !self.is_parent(p, q) {
                        let off = self.linked(i, false, p);
                        self.pending_off.push_back(off);
                        self.sides[s].off.add(q as usize, off);
                    }
                }
            }
            length += 1;
            while let Some(p) = self.pending_off.pop_front() {
                let n = self.pots[p as usize].node as usize;
                self.static_links(n, false, y, x);
                for i in 0..self.n_links() {
                    let q = self.link(i).0 as usize;
                    let cycle = length >= 4 && q == source;
                    let new = !self.sides[s].on.has(q);
                    if !cycle && !new {
                        continue;
                    }
                    let on = self.linked(i, true, p);
                    if cycle {
                        self.found.push(on);
                    }
                    if new {
                        self.sides[s].on.add(q, on);
                        self.pending_on.push_back(on);
                    }
                }
            }
        }
    }

    /// Queues the potentials of sides `s` (the assumptions) to be expanded.
    fn queue_assumptions(&mut self, s: usize) {
        self.pending_on.clear();
        self.pending_off.clear();
        for &n in &self.sides[s].on.order {
            self.pending_on.push_back(self.sides[s].on.at[n as usize]);
        }
        for &n in &self.sides[s].off.order {
            self.pending_off.push_back(self.sides[s].off.at[n as usize]);
        }
    }

    /// SE's static forcing chains from the assumption in sides `s`, layer by layer:
    /// the first potential reaching the source node with the other polarity goes
    /// to `chains` (each polarity once).
    fn forcing(&mut self, s: usize, y: bool, source: (usize, bool), chains: &mut Vec<u32>) {
        self.queue_assumptions(s);
        while !self.pending_on.is_empty() || !self.pending_off.is_empty() {
            while let Some(p) = self.pending_on.pop_front() {
                self.forcing_step(s, p, true, y, source, chains);
            }
            while let Some(p) = self.pending_off.pop_front() {
                self.forcing_step(s, p, false, y, source, chains);
            }
        }
    }

    /// One potential `p` (polarity `on`) of a forcing search expanded: each node it
    /// implies with the other polarity is added if new, and goes to `chains` if it is
    /// the source node with the other polarity (once each).
    fn forcing_step(
        &mut self,
        s: usize,
        p: u32,
        on: bool,
        y: bool,
        source: (usize, bool),
        chains: &mut Vec<u32>,
    ) {
        let n = self.pots[p as usize].node as usize;
        self.static_links(n, on, y, true);
        for i in 0..self.n_links() {
            let q = self.link(i).0;
            let known = self.set_of(s, !on).has(q as usize);
            let pots = &self.pots;
            let target = source == (q as usize, on)
                && !(chains.iter())
                    .any(|&t| pots[t as usize].node == q && pots[t as usize].on != on);
            if known && !target {
                continue;
            }
            let implied = self.linked(i, !on, p);
            if target {
                chains.push(implied);
            }
            if !known {
                let side = &mut self.sides[s];
                if on {
                    side.off.add(q as usize, implied);
                    self.pending_off.push_back(implied);
                } else {
                    side.on.add(q as usize, implied);
                    self.pending_on.push_back(implied);
                }
            }
        }
    }

    /// SE's reversed cycle of the line ending at `dst_on`: each potential with the
    /// other polarity (its cause kept), the parents running the other way; returns
    /// the reversed start (the source node, off).
    fn reversed(&mut self, dst_on: u32) -> u32 {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let mut q = dst_on;
        loop {
            line.push(q);
            let pot = self.pots[q as usize];
            if pot.len == 0 {
                break;
            }
            q = self.parents[pot.first as usize];
        }
        // line: dst_on, …, start. The reversed dst_on has no parent; each earlier
        // one's reversal is the parent of the next one's.
        let mut prev = NO;
        for &q in &line {
            let pot = self.pots[q as usize];
            let one = [prev];
            let parents: &[u32] = if prev == NO { &[] } else { &one };
            prev = self.pot(pot.node as usize, !pot.on, pot.cause, parents);
        }
        self.line = line;
        prev
    }

    /// SE's cycle hint: what sees both an on and an off node of a digit on the
    /// cycle (the start's own node left out) goes.
    fn cycle_hint(&mut self, dst_on: u32, dst_off: u32, x: bool, y: bool) {
        let mut cells = 0u128;
        let mut q = dst_on;
        loop {
            let pot = self.pots[q as usize];
            if pot.len == 0 {
                break;
            }
            cells |= 1u128 << (pot.node / 9);
            q = self.parents[pot.first as usize];
        }
        let (mut forw, mut back) = ([0u128; 9], [0u128; 9]);
        let mut q = dst_on;
        loop {
            let pot = self.pots[q as usize];
            if pot.len == 0 {
                break;
            }
            let (c, d) = (pot.node as usize / 9, pot.node as usize % 9);
            let seen = super::super::tables::PEERS[c] & self.grid.pos[d] & !cells;
            if pot.on {
                forw[d] |= seen;
            } else {
                back[d] |= seen;
            }
            q = self.parents[pot.first as usize];
        }
        let r0 = self.removals.len() as u32;
        for c in 0..81 {
            for d in 0..9 {
                if (forw[d] & back[d]) >> c & 1 != 0 {
                    self.removals.push((9 * c + d) as u16);
                }
            }
        }
        self.push_hint(Shape::Cycle { x, y }, r0, &[dst_on, dst_off]);
    }

    // ---- multiple and dynamic chains -------------------------------------------

    fn multiple_chains(&mut self) {
        let kind = self.kind;
        for c in 0..81 {
            let cand = self.grid.cand[c];
            let card = cand.count_ones();
            if !(card > 2 || card > 1 && kind.dynamic) {
                continue;
            }
            // Per candidate, the sides of "d on" (cell reductions read them all).
            let mut per_value: [usize; 9] = [usize::MAX; 9];
            let cell_sides = self.take_sides();
            let mut first = true;
            for d in Bits(cand as u32) {
                let n = 9 * c + d;
                let s = self.take_sides();
                per_value[d] = s;
                let double = card >= 3 && kind.dynamic;
                let contradiction = kind.dynamic;
                self.binary(n, s, double, contradiction);
                self.region_chains(c, d, s);
                if first {
                    let (a, b) = two(&mut self.sides, cell_sides, s);
                    a.on.copy_from(&b.on);
                    a.off.copy_from(&b.off);
                    first = false;
                } else {
                    let (a, b) = two(&mut self.sides, cell_sides, s);
                    a.on.retain(&b.on);
                    a.off.retain(&b.off);
                }
            }
            if card == 2 || kind.multiple && card > 2 {
                for on in [true, false] {
                    for j in 0..self.set_of(cell_sides, on).order.len() {
                        let t = self.set_of(cell_sides, on).order[j] as usize;
                        let t0 = self.targets.len();
                        for d in Bits(cand as u32) {
                            let p = self.set_of(per_value[d], on).get(t).expect("in every case");
                            self.targets.push(p);
                        }
                        let r0 = self.reduction(t, on);
                        self.push_from(Shape::Cell, r0, t0, (t as u32, on));
                    }
                }
            }
            for d in Bits(cand as u32) {
                self.give_sides(per_value[d]);
            }
            self.give_sides(cell_sides);
        }
    }

    /// Pushes the removals of concluding node `t` on (its cell's other candidates)
    /// or off (itself); returns where they start.
    fn reduction(&mut self, t: usize, on: bool) -> u32 {
        let r0 = self.removals.len() as u32;
        if on {
            let (c, d) = (t / 9, t % 9);
            for e in Bits((self.grid.cand[c] & !(1 << d)) as u32) {
                self.removals.push((9 * c + e) as u16);
            }
        } else {
            self.removals.push(t as u16);
        }
        r0
    }

    /// Propagates "n on" (`on`) or "n off" in sides `s`; with `contradiction`, one
    /// that meets a contradiction is a hint of the opposite.
    fn assume(&mut self, n: usize, on: bool, s: usize, contradiction: bool) {
        let p = self.pot(n, on, Cause::Start, &[]);
        if on {
            self.sides[s].on.add(n, p);
        } else {
            self.sides[s].off.add(n, p);
        }
        if let Some((a, b)) = self.chaining(s) {
            if contradiction {
                let r0 = self.reduction(n, !on);
                let shape = Shape::Binary { absurd: true };
                self.push_concluding(shape, r0, &[a, b], (n as u32, !on));
            }
        }
    }

    /// SE's binary chaining of node `n`: "n on" (its sides kept in `s`) and "n off";
    /// contradictions and double forcing chains as asked.
    fn binary(&mut self, n: usize, s: usize, double: bool, contradiction: bool) {
        self.assume(n, true, s, contradiction);
        if !double && !contradiction {
            return;
        }
        let o = self.take_sides();
        self.assume(n, false, o, contradiction);
        if double {
            for on in [true, false] {
                let len = if on {
                    self.sides[s].on.order.len()
                } else {
                    self.sides[s].off.order.len()
                };
                for j in 0..len {
                    let t = if on {
                        self.sides[s].on.order[j]
                    } else {
                        self.sides[s].off.order[j]
                    } as usize;
                    let (from_on, from_off) = if on {
                        (self.sides[s].on.get(t), self.sides[o].on.get(t))
                    } else {
                        (self.sides[s].off.get(t), self.sides[o].off.get(t))
                    };
                    if let (Some(a), Some(b)) = (from_on, from_off) {
                        let r0 = self.reduction(t, on);
                        let shape = Shape::Binary { absurd: false };
                        self.push_concluding(shape, r0, &[a, b], (t as u32, on));
                    }
                }
            }
        }
        self.give_sides(o);
    }

    /// SE's region chaining of digit `d` from cell `c` (sides `s` of "c holds d"):
    /// in each unit where `c` is the digit's first place of two (or more, for
    /// multiple chains), every place assumed on in turn.
    fn region_chains(&mut self, c: usize, d: usize, s: usize) {
        let [row, col, bx] = CELL_UNITS[c];
        for u in [bx, row, col] {
            let places = self.grid.pos[d] & UNIT_MASK[u as usize];
            let card = places.count_ones();
            if !(card == 2 || self.kind.multiple && card > 2) {
                continue;
            }
            if places.trailing_zeros() as usize != c {
                continue;
            }
            let region = self.take_sides();
            let (mut per_place, mut places_n) = ([0usize; 9], 0);
            for q in Cells128(places) {
                if q == c {
                    per_place[places_n] = s;
                    places_n += 1;
                    let (a, b) = two(&mut self.sides, region, s);
                    a.on.copy_from(&b.on);
                    a.off.copy_from(&b.off);
                } else {
                    let o = self.take_sides();
                    let p = self.pot(9 * q + d, true, Cause::Start, &[]);
                    self.sides[o].on.add(9 * q + d, p);
                    self.chaining(o);
                    per_place[places_n] = o;
                    places_n += 1;
                    let (a, b) = two(&mut self.sides, region, o);
                    a.on.retain(&b.on);
                    a.off.retain(&b.off);
                }
            }
            let per_place = &per_place[..places_n];
            for on in [true, false] {
                for j in 0..self.set_of(region, on).order.len() {
                    let t = self.set_of(region, on).order[j] as usize;
                    let t0 = self.targets.len();
                    for &o in per_place {
                        let p = self.set_of(o, on).get(t).expect("in every case");
                        self.targets.push(p);
                    }
                    let r0 = self.reduction(t, on);
                    self.push_from(Shape::Region(u), r0, t0, (t as u32, on));
                }
            }
            for &o in per_place {
                if o != s {
                    self.give_sides(o);
                }
            }
            self.give_sides(region);
        }
    }

    /// SE's propagation of the assumptions in sides `s`, in its order (an on node
    /// before the next off node); dynamic kinds switch off nodes off the grid as
    /// they go, and from level 1 apply their rules when nothing is pending. Returns
    /// the first contradiction (its on and off potentials); the grid is put back.
    fn chaining(&mut self, s: usize) -> Option<(u32, u32)> {
        let kind = self.kind;
        let saved = self.grid;
        self.src.cand = saved.cand;
        self.src.pos = saved.pos;
        self.queue_assumptions(s);
        let mut result = None;
        while !self.pending_on.is_empty() || !self.pending_off.is_empty() {
            // Every pending on node before the next off node.
            let step = match self.pending_on.pop_front() {
                Some(p) => Some((p, true)),
                None => self.pending_off.pop_front().map(|p| (p, false)),
            };
            if let Some((p, on)) = step {
                result = self.chain_step(s, p, on);
                if result.is_some() {
                    break;
                }
            }
            if self.pending_on.is_empty() && self.pending_off.is_empty() && kind.level > 0 {
                self.advanced_potentials(s);
                for i in 0..self.advanced.len() {
                    let (q, p0, p1, nested, rule) = self.advanced[i];
                    if self.sides[s].off.has(q as usize) {
                        continue;
                    }
                    let off = self.pot(q as usize, false, Cause::Rule, &[]);
                    let first = self.parents.len() as u32;
                    for k in p0..p1 {
                        let parent = self.adv_parents[k as usize];
                        self.parents.push(parent);
                    }
                    let pot = &mut self.pots[off as usize];
                    (pot.first, pot.len) = (first, p1 - p0);
                    self.pots[off as usize].nested = nested;
                    self.pots[off as usize].rule = rule;
                    self.sides[s].off.add(q as usize, off);
                    self.pending_off.push_back(off);
                }
            }
        }
        self.grid = saved;
        self.src.cand = saved.cand;
        self.src.pos = saved.pos;
        result
    }

    /// One potential `p` (polarity `on`) of a propagation (sides `s`) expanded: each
    /// node it implies with the other polarity is added if new; a dynamic off node
    /// leaves the grid. Returns the first contradiction (on and off potentials).
    fn chain_step(&mut self, s: usize, p: u32, on: bool) -> Option<(u32, u32)> {
        let n = self.pots[p as usize].node as usize;
        match (on, self.kind.dynamic) {
            (true, true) => self.on_to_off(n, true),
            (false, true) => self.off_to_on(n, true, true, Some(s)),
            (_, false) => self.static_links(n, on, true, true),
        }
        if !on && self.kind.dynamic {
            self.grid.remove(n);
        }
        for i in 0..self.n_links() {
            let q = self.link(i).0 as usize;
            if let Some(clash) = self.set_of(s, on).get(q) {
                let implied = self.linked(i, !on, p);
                return Some(if on {
                    (clash, implied)
                } else {
                    (implied, clash)
                });
            }
            if !self.set_of(s, !on).has(q) {
                let implied = self.linked(i, !on, p);
                if on {
                    self.sides[s].off.add(q, implied);
                    self.pending_off.push_back(implied);
                } else {
                    self.sides[s].on.add(q, implied);
                    self.pending_on.push_back(implied);
                }
            }
        }
        None
    }

    /// SE's advanced potentials of a propagation (sides `s`) whose singles ran out:
    /// the (+) rules, then each nested search in turn, until one gives a removal
    /// with parents; into [`Engine::advanced`].
    fn advanced_potentials(&mut self, s: usize) {
        self.advanced.clear();
        self.adv_parents.clear();
        {
            let g = plus::Board {
                b: &self.src,
                cand: &self.grid.cand,
                pos: &self.grid.pos,
            };
            let (out, parents, off) = (
                &mut self.advanced,
                &mut self.adv_parents,
                &self.sides[s].off,
            );
            plus::advanced(&g, &mut |h| {
                let p0 = parents.len() as u32;
                parents.extend(
                    h.parents[..h.n_parents]
                        .iter()
                        .filter_map(|&q| off.get(q as usize)),
                );
                let p1 = parents.len() as u32;
                for &q in &h.removals[..h.n_removals] {
                    out.push((q, p0, p1, NO, h.technique));
                }
            });
        }
        if !self.advanced.is_empty() {
            return;
        }
        let mut inner = std::mem::take(&mut self.inner);
        for engine in inner.iter_mut() {
            engine.search(&self.src, &self.grid.cand, &self.grid.pos);
            for h in 0..engine.hints.len() {
                let hint = engine.hints[h];
                engine.collect_rule_parents(&hint, &self.src, &self.grid);
                if engine.rule_parents.is_empty() {
                    continue;
                }
                let nested = self.nested.len() as u32;
                self.nested
                    .push((hint.complexity, engine.fingerprint(&hint)));
                let p0 = self.adv_parents.len() as u32;
                for &q in &engine.rule_parents {
                    if let Some(p) = self.sides[s].off.get(q as usize) {
                        self.adv_parents.push(p);
                    }
                }
                let p1 = self.adv_parents.len() as u32;
                let technique = engine.technique(&hint);
                for &q in engine.removals(&hint) {
                    self.advanced.push((q, p0, p1, nested, technique));
                }
            }
            if !self.advanced.is_empty() {
                break;
            }
        }
        self.inner = inner;
    }

    // ---- reading hints ---------------------------------------------------------

    fn targets(&self, h: &Hint) -> &[u32] {
        &self.targets[h.t0 as usize..h.t1 as usize]
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    #[inline]
    fn key(p: &Pot) -> usize {
        p.node as usize * 2 + p.on as usize
    }

    /// Walks the ancestors of `target` breadth first (each node and polarity once,
    /// the first potential met of it), calling `f` on each potential.
    fn walk(&mut self, target: u32, mut f: impl FnMut(&Self, u32)) {
        let stamp = self.next_stamp();
        self.todo.clear();
        self.todo.push(target);
        while !self.todo.is_empty() {
            self.next.clear();
            for i in 0..self.todo.len() {
                let p = self.todo[i];
                let pot = self.pots[p as usize];
                let k = Self::key(&pot);
                if self.seen[k] == stamp {
                    continue;
                }
                self.seen[k] = stamp;
                f(self, p);
                let (a, b) = (pot.first as usize, (pot.first + pot.len) as usize);
                self.next.extend_from_slice(&self.parents[a..b]);
            }
            std::mem::swap(&mut self.todo, &mut self.next);
        }
    }

    fn ancestor_count(&mut self, target: u32) -> u32 {
        let mut count = 0;
        self.walk(target, |_, _| count += 1);
        count
    }

    /// SE's complexity of a hint: its chains' distinct ancestors (by target, as
    /// its shape counts them) and each distinct nested chain's complexity.
    fn complexity(&mut self, h: &Hint) -> u32 {
        let flat: u32 = match h.shape {
            Shape::Cycle { .. } => self.ancestor_count(self.targets[h.t0 as usize]),
            _ => (h.t0..h.t1).fold(0u32, |sum, k| {
                sum.saturating_add(self.ancestor_count(self.targets[k as usize]))
            }),
        };
        let mut nested = 0u32;
        let (mut done, mut met) = (
            std::mem::take(&mut self.done),
            std::mem::take(&mut self.met),
        );
        done.clear();
        for k in h.t0..h.t1 {
            met.clear();
            self.walk(self.targets[k as usize], |e, p| {
                let n = e.pots[p as usize].nested;
                if n != NO {
                    met.push(n);
                }
            });
            for &n in &met {
                let (complexity, print) = self.nested[n as usize];
                if !done.contains(&print) {
                    done.push(print);
                    nested = complexity.saturating_add(nested);
                }
            }
        }
        (self.done, self.met) = (done, met);
        flat.saturating_add(nested)
    }

    /// A fingerprint of a hint's chains (each target's ancestors in walk order).
    fn fingerprint(&mut self, h: &Hint) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for k in h.t0..h.t1 {
            self.walk(self.targets[k as usize], |e, p| {
                Self::key(&e.pots[p as usize]).hash(&mut hasher)
            });
            u32::MAX.hash(&mut hasher);
        }
        hasher.finish()
    }

    /// SE's rule parents of hint `h` found on grid `now`, whose search started
    /// from `from`: for each on node of its chains forced by a cell or a unit (its
    /// start counted as forced by the hint's cell or region), the candidates of
    /// that cell, or places of its digit in that unit, that went between the two.
    /// Into [`Engine::rule_parents`] (off nodes, each once).
    fn collect_rule_parents(&mut self, h: &Hint, from: &Pencilmarks, now: &Grid) {
        self.rule_parents.clear();
        let start = match h.shape {
            Shape::Cell => Some(Cause::Cell),
            Shape::Region(u) => Some(Cause::Unit(u)),
            _ => None,
        };
        let mut out = std::mem::take(&mut self.rule_parents);
        for k in h.t0..h.t1 {
            self.walk(self.targets[k as usize], |e, p| {
                let pot = e.pots[p as usize];
                let cause = match pot.cause {
                    Cause::Start => start,
                    c => Some(c),
                };
                if !pot.on {
                    return;
                }
                let (c, d) = (pot.node as usize / 9, pot.node as usize % 9);
                let mut add = |q: usize| {
                    if !out.contains(&(q as u16)) {
                        out.push(q as u16);
                    }
                };
                match cause {
                    Some(Cause::Cell) => {
                        for v in Bits((from.cand[c] & !now.cand[c]) as u32) {
                            add(9 * c + v);
                        }
                    }
                    Some(Cause::Unit(u)) => {
                        let gone = from.pos[d] & !now.pos[d] & UNIT_MASK[u as usize];
                        for r in Cells128(gone) {
                            add(9 * r + d);
                        }
                    }
                    _ => {}
                }
            });
        }
        self.rule_parents = out;
    }

    /// The chain behind hint `h` (a cell, region or binary chain), as a hint shows
    /// it: a contradiction's one branch holds both ends, a forcing chain has a
    /// branch per case, each reaching the conclusion.
    pub(super) fn explain(&self, h: &Hint) -> Chain {
        let targets = self.targets(h);
        if h.shape == (Shape::Binary { absurd: true }) {
            return Chain {
                forcing: false,
                branches: vec![self.branch(targets)],
            };
        }
        Chain {
            forcing: true,
            branches: targets.iter().map(|&t| self.branch(&[t])).collect(),
        }
    }

    /// The nodes of the ancestors of `roots`, each after the nodes it follows from.
    fn branch(&self, roots: &[u32]) -> Vec<Node> {
        fn visit(
            e: &Engine,
            p: u32,
            index: &mut HashMap<usize, u16>,
            nodes: &mut Vec<Node>,
        ) -> u16 {
            let pot = e.pots[p as usize];
            if let Some(&i) = index.get(&Engine::key(&pot)) {
                return i;
            }
            let parents = &e.parents[pot.first as usize..(pot.first + pot.len) as usize];
            let from = parents.iter().map(|&q| visit(e, q, index, nodes)).collect();
            let link = match pot.cause {
                Cause::Start => Link::Assumed,
                Cause::Cell => Link::Cell,
                Cause::Unit(u) => Link::House(u),
                Cause::Rule => Link::Rule(pot.rule),
            };
            let i = nodes.len() as u16;
            nodes.push(Node {
                cell: (pot.node / 9) as u8,
                digit: (pot.node % 9) as u8 + 1,
                on: pot.on,
                from,
                link,
            });
            index.insert(Engine::key(&pot), i);
            i
        }
        let mut index = HashMap::new();
        let mut nodes = Vec::new();
        for &r in roots {
            visit(self, r, &mut index, &mut nodes);
        }
        nodes
    }

    /// The first hint of the search (SE's choice), if any.
    pub(super) fn first(&self) -> Option<&Hint> {
        self.hints.first()
    }

    /// The technique hint `h` stands for.
    pub(super) fn technique(&self, h: &Hint) -> Technique {
        h.technique(self.kind)
    }
}

/// Two distinct elements of `v`, mutably and immutably.
fn two(v: &mut [Sides], a: usize, b: usize) -> (&mut Sides, &Sides) {
    debug_assert_ne!(a, b);
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &x[b])
    }
}
