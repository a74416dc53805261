//! Uniqueness techniques: they assume the puzzle has one solution (the rater checks
//! that first) and remove candidates that would allow a second one.
//!
//! * Unique loops (SE's "unique loop"): an even cycle of cells that all hold the
//!   digits {a, b}, consecutive cells sharing a unit, every unit it touches holding
//!   exactly two of its cells (at positions of different parity). If only a and b
//!   stayed, they could be swapped along the loop: two solutions. The rectangle (four
//!   cells in two boxes) is the shortest; SE rates a loop 4.5, +0.1 for six cells,
//!   +0.2 for eight, +0.5 for ten or more. Type 1: one cell has more than {a, b}, so
//!   a and b leave it. Type 2 (+0.1 on rectangles only, as the SE-rated file shows;
//!   SE's published source adds nothing): the cells with more all carry the same one
//!   extra digit z, so z leaves their common peers. Type 3: the two cells with more
//!   share a unit and act as one cell of their extra digits in a naked set of that
//!   unit (+0.1 per digit of the set beyond one), or with the loop's digits in a
//!   hidden set (+0.1 per digit beyond two). Type 4: one of a, b stands in such a
//!   unit only in the two cells, so the other leaves both.
//! * BUG, bivalue universal grave: if every empty cell had two candidates and every
//!   digit two places per unit, the puzzle would have zero or two solutions, so one
//!   of the cells with more (the BUG cells) takes one of its extra digits. Type 1
//!   (5.6): one BUG cell, whose other digits go. Type 2 (5.7): one extra digit z, so
//!   z leaves the cells that see every BUG cell. Type 4 (5.7): two BUG cells in a
//!   unit where their one common other digit has no other place, so each loses its
//!   remaining digit. Type 3 (5.8–6.2): the BUG cells share a unit, where their
//!   extras act as one cell of a naked set.

use super::memo::CellMemo;
use super::tables::{digit_count, Bits, Cells128, FewBits, CELL_UNITS, PEERS, UNIT_MASK};
use super::{Found, Pencilmarks, Technique};

/// What [`loops`] last found nothing in: the board's candidates then, and the pairs
/// of digits (bit `9 a + b`) that closed no loop at all (of those the search
/// walks: a loop none of whose types can apply is not walked).
///
/// A pair's search walks only the cells holding both digits and reads only their
/// candidates. When none of the cells holding them now changed since, they are some
/// of the cells it walked then (candidates only shrink), with the same candidates:
/// every path it can take now it could take then, so a pair that closed no loop
/// then closes none now, and is skipped.
#[derive(Default)]
pub(crate) struct LoopMemo {
    cells: CellMemo,
    no_loop: u128,
}

/// Unique rectangles and loops, every type, in one pass: all the loops of every pair
/// of digits are found, each type's hint is rated, and the step applies every hint
/// of the lowest rating (the easiest first, as SE sorts its loop hints).
pub(crate) fn loops(b: &Pencilmarks, f: &mut Found, memo: &mut LoopMemo) -> bool {
    let fresh = memo.cells.changed(b);
    let mut no_loop = 0u128;
    let mut search = LoopSearch {
        b,
        best: u8::MAX,
        technique: Technique::UniqueRectangle,
        pair: 0,
        members: 0,
        exact: 0,
        start: 0,
        first_extra: 0,
        path: [0; MAX_LOOP],
        len: 0,
        visits: [0; 27],
        open: 0,
        on_path: 0,
        closed_any: false,
    };
    for a in 0..9 {
        for bd in a + 1..9 {
            let members = b.pos[a] & b.pos[bd];
            if members.count_ones() < 4 {
                continue;
            }
            let key = 1u128 << (9 * a + bd);
            if memo.no_loop & key != 0 && members & fresh == 0 {
                no_loop |= key;
                continue;
            }
            let pair = (1u16 << a) | (1u16 << bd);
            let members = loop_core(members);
            search.pair = pair;
            let mut exact = 0u128;
            for c in Cells128(members) {
                exact |= u128::from(b.cand[c] == pair) << c;
            }
            search.members = members;
            search.exact = exact;
            search.closed_any = false;
            for s in Cells128(exact) {
                search.start = s;
                search.push(s);
                search.extend(f, s, 0, 0, 0);
                search.pop(s);
            }
            if !search.closed_any {
                no_loop |= key;
            }
        }
    }
    let found = search.best != u8::MAX && f.elim(search.technique, search.best);
    if !found {
        // Pairs of fewer than four common cells close no loop: no entry needed.
        memo.no_loop = no_loop;
    }
    memo.cells.remember(found, b)
}

/// The cells of `members` a loop of them can use: each of a loop cell's row, column
/// and box holds another loop cell, so a cell that has no other member in one of
/// its units is no loop's, and is dropped, until every cell left has (often none).
fn loop_core(mut members: u128) -> u128 {
    loop {
        let mut core = members;
        for c in Cells128(members) {
            let others = members & !(1u128 << c);
            if CELL_UNITS[c]
                .iter()
                .any(|&u| others & UNIT_MASK[u as usize] == 0)
            {
                core &= !(1u128 << c);
            }
        }
        if core == members {
            return core;
        }
        members = core;
    }
}

/// The longest loop: every cell visits three units, every visited unit holds two
/// loop cells, so a loop has at most 2 × 27 / 3 cells.
const MAX_LOOP: usize = 18;

/// The depth-first search for loops of one pair of digits, with its path state.
struct LoopSearch<'a> {
    b: &'a Pencilmarks,
    /// The lowest rating of a hint found so far (`u8::MAX`: none yet).
    best: u8,
    technique: Technique,
    pair: u16,
    /// The cells holding both digits of the pair.
    members: u128,
    /// The members holding exactly the pair.
    exact: u128,
    /// The first cell: a cell of exactly the pair, the lowest such cell of the loop.
    start: usize,
    /// The path's first cell with more than the pair, when it has one.
    first_extra: usize,
    path: [u8; MAX_LOOP],
    len: usize,
    /// Per unit: 0 no loop cell, 1 / 2 one loop cell at an even / odd position,
    /// 3 two cells (full).
    visits: [u8; 27],
    /// Units holding exactly one loop cell (a closed loop has none).
    open: u32,
    on_path: u128,
    /// Whether the pair's search closed a loop (with or without a hint).
    closed_any: bool,
}

impl LoopSearch<'_> {
    /// Whether `cell` may take position `self.len`: each of its units must be
    /// empty or hold one cell at a position of the other parity (a unique loop
    /// visits each of its units with exactly two cells, of different parity).
    fn fits(&self, cell: usize) -> bool {
        let parity = 1 + (self.len & 1) as u8;
        CELL_UNITS[cell].iter().all(|&u| {
            let v = self.visits[u as usize];
            v == 0 || v == 3 - parity
        })
    }

    fn push(&mut self, cell: usize) {
        let parity = 1 + (self.len & 1) as u8;
        for &u in &CELL_UNITS[cell] {
            let v = &mut self.visits[u as usize];
            if *v == 0 {
                *v = parity;
                self.open += 1;
            } else {
                *v = 3;
                self.open -= 1;
            }
        }
        self.path[self.len] = cell as u8;
        self.len += 1;
        self.on_path |= 1 << cell;
    }

    fn pop(&mut self, cell: usize) {
        self.len -= 1;
        self.on_path &= !(1u128 << cell);
        for &u in &CELL_UNITS[cell] {
            let v = &mut self.visits[u as usize];
            if *v == 3 {
                *v = 2 - (self.len & 1) as u8;
                self.open += 1;
            } else {
                *v = 0;
                self.open -= 1;
            }
        }
    }

    /// Extends the path from `cur`; `extras` counts the cells with more than the
    /// pair, `extra_digits` is the union of their other digits, `last` the unit
    /// (plus one) of the link that reached `cur`.
    fn extend(&mut self, f: &mut Found, cur: usize, extras: u32, extra_digits: u16, last: u8) {
        // Dedupe: the start is the loop's lowest cell of exactly the pair.
        let mut free = self.members & !self.on_path & !(self.exact & ((1 << self.start) - 1));
        // At most two cells with extra digits, unless all of them carry the same
        // single one (type 2): past two, only the pair's cells may follow, or the
        // pair and that digit's.
        if extras >= 2 {
            let mut allowed = self.exact;
            if digit_count(extra_digits) == 1 {
                let mut other = 0u128;
                for d in Bits((0x1ff & !self.pair & !extra_digits) as u32) {
                    other |= self.b.pos[d];
                }
                allowed = self.members & !other;
            }
            free &= allowed;
        }
        let mut closed = false;
        for &u in &CELL_UNITS[cur] {
            if u + 1 == last {
                continue;
            }
            let unit = UNIT_MASK[u as usize];
            if !closed
                && self.len >= 4
                && self.len.is_multiple_of(2)
                && unit >> self.start & 1 != 0
                && self.open == 0
            {
                closed = true;
                self.closed(f, extras);
            }
            if self.len == MAX_LOOP {
                continue;
            }
            for next in Cells128(unit & free) {
                let more = self.b.cand[next] & !self.pair;
                let (n_extras, digits) = if more == 0 {
                    (extras, extra_digits)
                } else {
                    (extras + 1, extra_digits | more)
                };
                // Two cells with extra digits that share no unit (types 3 and 4
                // need one) and more than one extra digit (type 2 needs one): no
                // type applies to any loop through them, whatever else it holds.
                if more != 0
                    && extras == 1
                    && digit_count(digits) != 1
                    && PEERS[self.first_extra] >> next & 1 == 0
                {
                    continue;
                }
                if !self.fits(next) {
                    continue;
                }
                if more != 0 && extras == 0 {
                    self.first_extra = next;
                }
                self.push(next);
                self.extend(f, next, n_extras, digits, u + 1);
                self.pop(next);
            }
        }
    }

    /// A valid loop closed at `self.path[..self.len]`: rates and records its hints.
    fn closed(&mut self, f: &mut Found, extras: u32) {
        self.closed_any = true;
        // Each loop is walked from its start in both directions; keep one.
        if self.path[1] > self.path[self.len - 1] || extras == 0 {
            return;
        }
        let b = self.b;
        let pair = self.pair;
        let len = self.len;
        let base = match len {
            4 => 45,
            6 => 46,
            8 => 47,
            _ => 50,
        };
        let technique = if len == 4 {
            Technique::UniqueRectangle
        } else {
            Technique::UniqueLoop
        };
        let mut ex = [0usize; MAX_LOOP];
        let mut n = 0;
        let mut extra_digits = 0u16;
        for &c in &self.path[..len] {
            let c = c as usize;
            if b.cand[c] != pair {
                ex[n] = c;
                n += 1;
                extra_digits |= b.cand[c] & !pair;
            }
        }
        if n == 1 {
            // Type 1: the one cell with more than the pair is not the pair.
            self.record(f, technique, base, &[(1 << ex[0], pair)]);
            return;
        }
        if digit_count(extra_digits) == 1 {
            // Type 2: one of the extra cells is z, so z leaves their common peers.
            let mut targets = b.empty;
            for &c in &ex[..n] {
                targets &= PEERS[c];
            }
            self.record(
                f,
                technique,
                base + u8::from(len == 4),
                &[(targets, extra_digits)],
            );
        }
        if n != 2 {
            return;
        }
        let (x, y) = (ex[0], ex[1]);
        let both = (1u128 << x) | (1u128 << y);
        let (lo, hi) = (pair.trailing_zeros(), 15 - pair.leading_zeros());
        for (&ux, &uy) in CELL_UNITS[x].iter().zip(&CELL_UNITS[y]) {
            if ux != uy {
                continue;
            }
            let u = ux as usize;
            // Type 4: one digit of the pair stands in this unit only in x and y, so
            // the other digit leaves both.
            for (keep, drop) in [(lo, hi), (hi, lo)] {
                if b.pos[keep as usize] & UNIT_MASK[u] == both {
                    self.record(f, technique, base, &[(both, 1 << drop)]);
                }
            }
            if digit_count(extra_digits) >= 2 {
                self.type3(f, technique, base, u, x, y, extra_digits);
            }
        }
    }

    /// Type 3: x and y (the two cells with extra digits, in unit `u`) act as one
    /// cell holding their extra digits, which must contain x's or y's value. With
    /// other cells of the unit it forms a naked set (its digits leave the rest of
    /// the unit, rated base + size − 1), or, with x standing for both, the pair's
    /// digits and others form a hidden set (the set's cells keep only its digits,
    /// base + size − 2). SE's conditions: the set fills at most half the unit's
    /// empty cells (strictly, for hidden sets), and the extra digits that are not
    /// in both x and y must be covered by the other cells of a naked set.
    #[allow(clippy::too_many_arguments)]
    fn type3(
        &mut self,
        f: &mut Found,
        technique: Technique,
        base: u8,
        u: usize,
        x: usize,
        y: usize,
        extra: u16,
    ) {
        let b = self.b;
        let unit = UNIT_MASK[u];
        let xy = (1u128 << x) | (1u128 << y);
        let empty = unit & b.empty;
        let n_empty = empty.count_ones();
        let common = extra & b.cand[x] & b.cand[y];
        let mut others = [0usize; 9];
        let mut n_others = 0;
        for c in Cells128(empty & !xy) {
            others[n_others] = c;
            n_others += 1;
        }
        // Digits other than the pair and the extras that still have a place in the
        // unit outside y, with those places.
        let mut rest = [(0usize, 0u128); 9];
        let mut n_rest = 0;
        for d in Bits((0x1ff & !self.pair & !extra) as u32) {
            let places = b.pos[d] & unit & !(1u128 << y);
            if places != 0 {
                rest[n_rest] = (d, places);
                n_rest += 1;
            }
        }
        let pair_places = (b.pos[self.pair.trailing_zeros() as usize]
            | b.pos[15 - self.pair.leading_zeros() as usize])
            & unit
            & !(1u128 << y);
        for degree in digit_count(extra)..=7 {
            let size = degree as usize;
            if 2 * degree <= n_empty && size - 1 <= n_others {
                for pick in Subsets::new(n_others, size - 1) {
                    let mut digits = 0u16;
                    let mut cells = 0u128;
                    for (i, &c) in others[..n_others].iter().enumerate() {
                        if pick >> i & 1 != 0 {
                            digits |= b.cand[c];
                            cells |= 1 << c;
                        }
                    }
                    if digit_count(digits | extra) == degree
                        && digit_count(digits | common) == degree
                    {
                        let rest_of_unit = empty & !xy & !cells;
                        self.record(
                            f,
                            technique,
                            base + degree as u8 - 1,
                            &[(rest_of_unit, digits | extra)],
                        );
                    }
                }
            }
            if 2 * degree < n_empty && size - 2 <= n_rest {
                for pick in Subsets::new(n_rest, size - 2) {
                    let mut digits = self.pair;
                    let mut places = pair_places;
                    for (i, &(d, p)) in rest[..n_rest].iter().enumerate() {
                        if pick >> i & 1 != 0 {
                            digits |= 1 << d;
                            places |= p;
                        }
                    }
                    if places.count_ones() == degree {
                        self.record(
                            f,
                            technique,
                            base + degree as u8 - 2,
                            &[(places & !xy, 0x1ff & !digits)],
                        );
                    }
                }
            }
        }
    }

    /// Records a hint of `rating` eliminating, for each `(cells, digits)`, the
    /// digits from the cells; a hint that eliminates nothing is not one. Keeps
    /// only the hints of the lowest rating seen.
    fn record(&mut self, f: &mut Found, technique: Technique, rating: u8, elims: &[(u128, u16)]) {
        let b = self.b;
        let worth = elims
            .iter()
            .any(|&(cells, digits)| Cells128(cells).any(|c| b.cand[c] & digits != 0));
        if !worth || rating > self.best {
            return;
        }
        if rating < self.best {
            self.best = rating;
            self.technique = technique;
            f.clear();
        }
        let mark = f.mark();
        for &(cells, digits) in elims {
            for c in Cells128(cells) {
                for d in Bits((b.cand[c] & digits) as u32) {
                    f.elims.push((c as u8, d as u8));
                }
            }
        }
        f.cells.extend_from_slice(&self.path[..self.len]);
        let extra = self.path[..self.len]
            .iter()
            .fold(0, |acc, &c| acc | b.cand[c as usize]);
        f.pattern(mark, 0, extra);
    }
}

/// The `k`-element subsets of `0..n` (n ≤ 16) as bit masks, in increasing order.
struct Subsets {
    next: u32,
    end: u32,
    k: u32,
}

impl Subsets {
    fn new(n: usize, k: usize) -> Self {
        Subsets {
            next: 0,
            end: 1 << n,
            k: k as u32,
        }
    }
}

impl Iterator for Subsets {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        while self.next < self.end {
            let m = self.next;
            self.next += 1;
            if m.count_ones() == self.k {
                return Some(m);
            }
        }
        None
    }
}

/// BUG types 1 to 4, as Sukaku Explainer finds them (tried after the WXYZ-wing,
/// before the VWXYZ-wing).
///
/// The BUG cells and their extra digits come from the units: where a digit has
/// neither zero nor two places in a unit and exactly one of them is a cell of three
/// candidates or more, that cell is a BUG cell and the digit one of its extras (a
/// unit with several such cells leaves the choice to another; one with none means
/// no BUG). Without the extras every empty cell must have two candidates and every
/// digit zero or two places in every unit: that grave would have zero or two
/// solutions, so some BUG cell takes an extra. The step applies every hint of the
/// lowest rating: type 1 (5.6), types 2 and 4 (5.7), else type 3 (5.7 + 0.1 per
/// digit of its naked set beyond one).
pub(crate) fn bug(b: &Pencilmarks, f: &mut Found) -> bool {
    let mut multi = 0u128;
    for c in Cells128(b.empty) {
        multi |= u128::from(digit_count(b.cand[c]) >= 3) << c;
    }
    if multi == 0 {
        return false;
    }
    let mut extra = [0u16; 81];
    let (mut cells, mut all) = (0u128, 0u16);
    // The cells that see every BUG cell (solved ones too, as SE counts them).
    let mut common = !0u128;
    for &unit in &UNIT_MASK {
        for d in 0..9 {
            let p = b.pos[d] & unit;
            if p == 0 || p.two() {
                continue;
            }
            let big = p & multi;
            if big == 0 {
                return false;
            }
            if big.one() {
                let c = big.trailing_zeros() as usize;
                cells |= big;
                extra[c] |= 1 << d;
                all |= 1 << d;
                common &= PEERS[c];
            }
        }
    }
    common &= !cells;
    let n = cells.count_ones();
    if n == 0 || n > 1 && !all.one() && common == 0 {
        return false;
    }
    // Without the extras: every empty cell bivalue, every digit 0 or 2 places per unit.
    if Cells128(b.empty).any(|c| digit_count(b.cand[c] & !extra[c]) != 2) {
        return false;
    }
    for d in 0..9 {
        let mut p = b.pos[d];
        for c in Cells128(cells) {
            p &= !(u128::from(extra[c] >> d & 1) << c);
        }
        if UNIT_MASK.iter().any(|&um| p & um != 0 && !(p & um).two()) {
            return false;
        }
    }
    let mark = f.mark();
    if n == 1 {
        // Type 1: the cell takes one of its extras.
        let c = cells.trailing_zeros() as usize;
        f.cells.push(c as u8);
        if extra[c].one() {
            f.place(Technique::Bug, 56, c, extra[c].trailing_zeros() as usize);
        } else {
            for d in Bits((b.cand[c] & !extra[c]) as u32) {
                f.elims.push((c as u8, d as u8));
            }
            f.elim(Technique::Bug, 56);
        }
        f.pattern(mark, 0, all);
        return true;
    }
    if all.one() {
        // Type 2: one extra digit, so it leaves the cells that see every BUG cell.
        let z = all.trailing_zeros() as usize;
        let targets = common & b.pos[z];
        if targets != 0 {
            f.cells.extend(Cells128(cells).map(|c| c as u8));
            f.push_mask(targets, z);
            f.pattern(mark, 0, all);
        }
    }
    if n == 2 {
        bug_type_4(b, f, cells, &extra, all);
    }
    if f.elim(Technique::Bug, 57) {
        return true;
    }
    f.cells.clear();
    if all.one() || common == 0 {
        return false;
    }
    bug_type_3(b, f, cells, all)
}

/// The units of SE's region types (boxes, rows, columns) that hold every cell of
/// `cells`.
fn units_holding_all(cells: u128) -> impl Iterator<Item = usize> {
    [18..27, 0..9, 9..18]
        .into_iter()
        .flatten()
        .filter(move |&u| cells & !UNIT_MASK[u] == 0)
}

/// BUG type 4 (5.7): two BUG cells in one unit whose only common digit besides the
/// extras is `v`. `v` has no other place in the unit, so one of them is `v` and the
/// other takes an extra: each loses its other digit.
fn bug_type_4(b: &Pencilmarks, f: &mut Found, cells: u128, extra: &[u16; 81], all: u16) {
    let c1 = cells.trailing_zeros() as usize;
    let c2 = 127 - cells.leading_zeros() as usize;
    let v = b.cand[c1] & b.cand[c2] & !all;
    if !v.one() {
        return;
    }
    for u in units_holding_all(cells) {
        let mark = f.mark();
        f.cells.extend([c1 as u8, c2 as u8]);
        for c in [c1, c2] {
            for d in Bits((b.cand[c] & !extra[c] & !v) as u32) {
                f.elims.push((c as u8, d as u8));
            }
        }
        f.pattern(mark, 1 << u, v | all);
    }
}

/// BUG type 3 (5.8 to 6.2): the BUG cells share a unit, and their extras, as one
/// cell, form a naked set of `k` digits with `k - 1` other cells of the unit (of two
/// candidates or more, `k` from 2 to 6): its digits leave the unit's other cells.
/// Every instance of the smallest `k` that eliminates anything.
fn bug_type_3(b: &Pencilmarks, f: &mut Found, cells: u128, all: u16) -> bool {
    let mut best = u8::MAX;
    for u in units_holding_all(cells) {
        let others = UNIT_MASK[u] & b.empty & !cells;
        let mut pool = [0usize; 9];
        let mut m = 0;
        for c in Cells128(others) {
            if digit_count(b.cand[c]) >= 2 {
                pool[m] = c;
                m += 1;
            }
        }
        for k in 2..=6usize {
            let rating = 57 + k as u8 - 1;
            if rating > best {
                break;
            }
            for pick in Subsets::new(m, k - 1) {
                let mut union = 0u16;
                let mut naked = 0u128;
                for i in Bits(pick) {
                    union |= b.cand[pool[i]];
                    naked |= 1 << pool[i];
                }
                if digit_count(union) != k as u32 || all & !union != 0 {
                    continue;
                }
                let rest = others & !naked;
                if !Cells128(rest).any(|c| b.cand[c] & union != 0) {
                    continue;
                }
                if rating < best {
                    // A smaller set: the larger ones found so far go.
                    f.clear();
                    best = rating;
                }
                let mark = f.mark();
                for c in Cells128(rest) {
                    for d in Bits((b.cand[c] & union) as u32) {
                        f.elims.push((c as u8, d as u8));
                    }
                }
                f.cells.extend(Cells128(cells | naked).map(|c| c as u8));
                f.pattern(mark, 1 << u, union);
            }
        }
    }
    best != u8::MAX && f.elim(Technique::Bug, best)
}

#[cfg(test)]
mod tests {
    use super::loop_core;

    fn mask(cells: &[usize]) -> u128 {
        cells.iter().fold(0, |m, &c| m | 1u128 << c)
    }

    /// A rectangle keeps its four cells; a cell alone in a unit goes, and so does
    /// one whose only partner in a unit went (the second round).
    #[test]
    fn the_loop_core_keeps_loops_and_drops_cells_without_partners() {
        let rectangle = [0, 3, 9, 12];
        assert_eq!(loop_core(mask(&rectangle)), mask(&rectangle));
        // r6c1 is alone in its row. r7c7 has r7c6 in its row and box and r8c7 in
        // its column and box, but r7c6 is alone in its column and r8c7 in its
        // row: they go first, then r7c7.
        let strays = [55, 69, 70, 79];
        let all: Vec<usize> = rectangle.iter().chain(&strays).copied().collect();
        assert_eq!(loop_core(mask(&all)), mask(&rectangle));
        assert_eq!(loop_core(mask(&strays)), 0);
    }
}
