//! The pattern techniques up to 5.4: singles, SE's "direct" variants, locked
//! candidates, naked and hidden subsets, fish and the two wings.
//!
//! Each finder looks at the [`Pencilmarks`] and, when the technique makes progress,
//! records every instance of it in [`Found`] and returns true (see the module docs of
//! `rating` for why all instances, not SE's first one).
//! Units are visited boxes first, then rows, then columns, as SE does, so that a
//! box hidden single (1.2) is preferred to a line one (1.5).

use super::memo::CellMemo;
use super::tables::{
    digit_count, Bits, Bits64, Cells128, FewBits, BOXES, CELL_UNITS, COLS, PEERS, ROWS, UNIT_BITS,
    UNIT_CELLS, UNIT_MASK,
};
use super::{Found, Pencilmarks, Technique};

/// What the unit-local and one-digit finders last found nothing in: the board's
/// change stamps at that call, per finder. A unit (digit) whose stamp has not moved
/// since holds the same candidates (places), so the finder, whose result there
/// depends on nothing else, would again find nothing, and skips it. The finders
/// record the stamps only when they return false (nothing anywhere).
///
/// The wings memoise per pivot: a pivot whose three units have not changed has the
/// same candidates in itself and every cell it sees, so the same patterns, and a
/// pattern's eliminations (places of its digit z) can only have shrunk since it
/// had none.
#[derive(Default)]
pub(crate) struct Memo {
    /// Hidden sets (direct pairs and triples, pairs, triples, quads), naked sets
    /// (pairs, triples, quads), XY- and XYZ-wings: [`Pencilmarks::unit_stamp`]s.
    pub units: [[u64; 27]; 10],
    /// WXYZ-wings: the candidates of every cell.
    pub wxyz: CellMemo,
    /// Fish (2, 3, 4), turbot fish, three strong links, locked candidates (direct,
    /// not): [`Pencilmarks::digit_stamp`]s.
    pub digits: [[u64; 9]; 7],
    /// Aligned triplets: the candidates of every cell.
    pub triplets: CellMemo,
    /// VWXYZ-wings: the candidates of every cell.
    pub vwxyz: CellMemo,
    /// Unique loops: the candidates of every cell, and which pairs of digits had no
    /// loop.
    pub loops: super::uniq::LoopMemo,
    /// Which digits have a place no template uses ([`skip_template_free`]).
    pub templates: FilterMemo<9>,
    /// Which units have a candidate no filling of the unit uses
    /// ([`skip_filled_units`]).
    pub fillings: FilterMemo<27>,
}

/// An exact filter's verdict per unit or digit (whether the finders it guards can
/// find anything there), at the unit's or digit's stamp when it was worked out.
pub(crate) struct FilterMemo<const N: usize> {
    stamp: [u64; N],
    /// The units or digits where the finders may find something.
    open: u32,
    /// Nothing skipped: the tests compare the paths with and without the skips.
    pub off: bool,
}

impl<const N: usize> Default for FilterMemo<N> {
    fn default() -> Self {
        FilterMemo {
            stamp: [0; N],
            open: 0,
            off: false,
        }
    }
}

impl<const N: usize> FilterMemo<N> {
    /// Marks in `memos` of `finders` every unit or digit where `open` (worked out
    /// once per stamp) says they can find nothing as searched at its stamp: what
    /// searching it would record.
    fn skip<const M: usize>(
        &mut self,
        stamps: &[u64; N],
        memos: &mut [[u64; N]; M],
        finders: &[usize],
        mut open: impl FnMut(usize) -> bool,
    ) {
        if self.off {
            return;
        }
        for (i, &stamp) in stamps.iter().enumerate() {
            if finders.iter().all(|&k| memos[k][i] == stamp) {
                continue;
            }
            if self.stamp[i] != stamp {
                self.stamp[i] = stamp;
                self.open = self.open & !(1 << i) | u32::from(open(i)) << i;
            }
            if self.open >> i & 1 == 0 {
                for &k in finders {
                    memos[k][i] = stamp;
                }
            }
        }
    }
}

/// The finders of [`Memo::units`] whose result depends on one unit's candidates
/// alone: hidden sets (direct pairs and triples, pairs, triples, quads) and naked
/// sets (pairs, triples, quads).
const ONE_UNIT: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

/// Marks in the one-unit finders' memos ([`ONE_UNIT`]) every unit each candidate of
/// which some filling of the unit uses ([`every_candidate_fills`]) as searched at
/// its stamp: what searching it would record, for a naked or hidden set removes a
/// candidate only when every filling of its unit leaves it out (the set's cells
/// take the set's digits in each).
pub(crate) fn skip_filled_units(
    b: &Pencilmarks,
    solution: &[u8; 81],
    memos: &mut [[u64; 27]; 10],
    t: &mut FilterMemo<27>,
) {
    t.skip(&b.unit_stamp, memos, &ONE_UNIT, |u| {
        !every_candidate_fills(b, solution, u)
    });
}

/// Whether some filling of unit `u` (its missing digits, one per empty cell, each
/// among the cell's candidates) uses each candidate of its empty cells. The
/// solution is one filling. Another that puts in cell x the solution digit of cell
/// y must put y's elsewhere, and so on: a cycle of cells, each taking the next
/// one's solution digit, back to x. So x's candidate is used when y leads back to
/// x in the graph of "holds the solution digit of", here on the cells' solution
/// digits (each empty cell's is its own): digit x leads to the other candidates of
/// the cell whose solution it is.
pub(crate) fn every_candidate_fills(b: &Pencilmarks, solution: &[u8; 81], u: usize) -> bool {
    // A set cell has no candidates: its digit leads nowhere, and none leads to it.
    let mut next = [0u16; 9];
    for &c in &UNIT_CELLS[u] {
        let x = solution[c as usize] as usize - 1;
        next[x] = b.cand[c as usize] & !(1 << x);
    }
    // Warshall's closure on the nine rows packed nine bits apart (row x at
    // 9 x), each step on all rows at once, without a branch on the data: the
    // rows that reach k (bit k of each row, spread to its nine) take k's row
    // (copied into all nine).
    const FIRSTS: u128 = 0x100_8040_2010_0804_0201;
    let mut reach = 0u128;
    for (x, &n) in next.iter().enumerate() {
        reach |= u128::from(n) << (9 * x);
    }
    for k in 0..9 {
        let rows = reach >> k & FIRSTS;
        let via = reach >> (9 * k) & 0x1ff;
        reach |= ((rows << 9) - rows) & via.wrapping_mul(FIRSTS);
    }
    // Each edge x -> y needs x in reach[y]. Without a test per edge (it would
    // mispredict), column x of the closure: bit x of row y sits at 9 y + x, and
    // times 2^(64 - 8 y) lands at 64 + y. The products' bits never meet (9 y -
    // 8 j differs for every y, j), so the sum carries nothing.
    const GATHER: u128 = 0x1_0101_0101_0101_0101;
    let mut missing = 0u16;
    for (x, &n) in next.iter().enumerate() {
        let back = ((reach >> x & FIRSTS).wrapping_mul(GATHER) >> 64) as u16;
        missing |= n & !back;
    }
    missing == 0
}

/// The finders of [`Memo::digits`] whose result depends on one digit's places alone:
/// fish of 2, 3 and 4 lines, turbot fish, three strong links.
const ONE_DIGIT: [usize; 5] = [0, 1, 2, 3, 4];

/// Marks in the one-digit finders' memos ([`ONE_DIGIT`]) every digit all of whose
/// places some template uses ([`template_misses`]) as searched at its stamp: what
/// searching it would record, for their deductions remove only places no template
/// uses. Most digits have none once a puzzle needs the finders past the subsets, so
/// the finders search few digits, or none.
pub(crate) fn skip_template_free(
    b: &Pencilmarks,
    memos: &mut [[u64; 9]; 7],
    t: &mut FilterMemo<9>,
) {
    t.skip(&b.digit_stamp, memos, &ONE_DIGIT, |d| {
        template_misses(b, d) != 0
    });
}

/// Per column, its place in its stack times the stack's power of three: a set of
/// three columns, one per stack, is numbered by the sum of theirs (0..27).
const TRIT: [usize; 9] = [0, 1, 2, 0, 3, 6, 0, 9, 18];

/// Per column, the columns of its stack.
const STACK: [u32; 9] = [7, 7, 7, 0o70, 0o70, 0o70, 0o700, 0o700, 0o700];

/// For two sets of columns (numbered as [`TRIT`] says), the set that completes them
/// to every column (27 when they share one): each stack's third column.
const THIRD: [[u8; 27]; 27] = {
    let mut t = [[27u8; 27]; 27];
    let mut i = 0;
    while i < 27 {
        let mut j = 0;
        while j < 27 {
            let (mut k, mut pow, mut ok) = (0, 1, true);
            let (mut a, mut b) = (i, j);
            while pow < 27 {
                ok &= a % 3 != b % 3;
                // The stack's columns 0, 1 and 2 sum to 3.
                k += (3 - (a % 3 + b % 3) % 3) % 3 * pow;
                (a, b, pow) = (a / 3, b / 3, pow * 3);
            }
            if ok {
                t[i][j] = k as u8;
            }
            j += 1;
        }
        i += 1;
    }
    t
};

/// The places of digit `d` that no template uses. A template puts the nine copies
/// of `d` one in each row, column and box, on its places or where it stands: every
/// solution's `d`s form one. A deduction about `d` from its places alone holds in
/// every template, so it removes only places none uses.
///
/// Band by band, the three rows' choices of one column per stack, grouped by the
/// columns they take (27 sets); three bands' choices make a template when their
/// sets share no column.
pub(crate) fn template_misses(b: &Pencilmarks, d: usize) -> u128 {
    let pos = b.pos[d];
    let mut cols = [0u32; 9];
    for (r, cols) in cols.iter_mut().enumerate() {
        *cols = (pos >> (9 * r)) as u32 & 0x1ff;
        if *cols == 0 {
            // d stands in the row (else the board has no solution, and no template).
            for c in 0..9 {
                if b.value[9 * r + c] as usize == d + 1 {
                    *cols = 1 << c;
                }
            }
        }
    }
    let mut cells = [[0u128; 27]; 3];
    let mut sets = [0u32; 3];
    for band in 0..3 {
        let r = 3 * band;
        for c0 in Bits(cols[r]) {
            for c1 in Bits(cols[r + 1] & !STACK[c0]) {
                for c2 in Bits(cols[r + 2] & !STACK[c0] & !STACK[c1]) {
                    let set = TRIT[c0] + TRIT[c1] + TRIT[c2];
                    sets[band] |= 1 << set;
                    cells[band][set] |=
                        1 << (9 * r + c0) | 1 << (9 * r + 9 + c1) | 1 << (9 * r + 18 + c2);
                }
            }
        }
    }
    let mut used = 0u128;
    for i in Bits(sets[0]) {
        for j in Bits(sets[1]) {
            let k = THIRD[i][j] as usize;
            if k < 27 && sets[2] >> k & 1 != 0 {
                used |= cells[0][i] | cells[1][j] | cells[2][k];
            }
        }
    }
    pos & !used
}

/// A finder's return: when it found nothing, records the board's stamps in its memo.
fn remember<const N: usize>(found: bool, memo: &mut [u64; N], stamps: &[u64; N]) -> bool {
    if !found {
        *memo = *stamps;
    }
    found
}

/// Whether unit or digit `i` changed since `memo` was recorded ([`remember`]).
#[inline]
fn changed<const N: usize>(memo: &[u64; N], stamps: &[u64; N], i: usize) -> bool {
    memo[i] != stamps[i]
}

/// Whether the units of `cell` are unchanged since `memo` was recorded: its
/// candidates and those of every cell it sees are the same.
fn unchanged_around(cell: usize, memo: &[u64; 27], b: &Pencilmarks) -> bool {
    let units = CELL_UNITS[cell];
    !units
        .iter()
        .any(|&u| changed(memo, &b.unit_stamp, u as usize))
}

/// Units in SE's order: boxes, rows, columns.
fn units_se_order() -> impl Iterator<Item = usize> {
    BOXES.chain(ROWS).chain(COLS)
}

/// Full house: the only empty cell of a unit (1.0).
pub(crate) fn full_house(b: &Pencilmarks, f: &mut Found) -> bool {
    for u in units_se_order() {
        let empty = b.empty & UNIT_MASK[u];
        if empty.one() {
            let c = empty.trailing_zeros() as usize;
            if b.cand[c].one() {
                let d = b.cand[c].trailing_zeros() as usize;
                let mark = f.mark();
                f.cells.push(c as u8);
                f.place(Technique::FullHouse, 10, c, d);
                f.pattern(mark, 1 << u, 1 << d);
            }
        }
    }
    f.any()
}

/// Hidden single: a digit with one place left in a unit (box 1.2, line 1.5).
pub(crate) fn hidden_single(b: &Pencilmarks, f: &mut Found) -> bool {
    for (units, rating) in [(BOXES.chain(0..0), 12), (ROWS.chain(COLS), 15)] {
        for u in units {
            for d in 0..9 {
                let p = b.pos[d] & UNIT_MASK[u];
                if p.one() {
                    let c = p.trailing_zeros() as usize;
                    let mark = f.mark();
                    f.cells.push(c as u8);
                    f.place(Technique::HiddenSingle, rating, c, d);
                    f.pattern(mark, 1 << u, 1 << d);
                }
            }
        }
        if f.any() {
            return true;
        }
    }
    false
}

/// Places every single the path's first steps would, without recording the steps:
/// full houses while there are any, then hidden singles in boxes, then in rows and
/// columns (each time back to full houses), until none is left. Returns the hardest
/// of those steps (10, 12 or 15; 0 when there was none).
///
/// This reaches the state, and the hardest step, of [`full_house`] and
/// [`hidden_single`] applied step by step, because a single stays a single until its
/// cell is set (places of a digit in a unit only shrink, down to the one that holds
/// it). So the state reached is the one closure under all singles, and the path meets
/// a step of 1.5 exactly when the closure under full houses and box singles is not
/// that state (a step of 1.2 when the closure under full houses is not, 1.0 when
/// the start is not). Only the units whose candidates changed are looked at again.
///
/// The units looked at first are those changed since the board's stamps were last
/// brought up to date ([`Pencilmarks::stamp`]; all of them after a load). The
/// rater calls this after a load, and between its steps on a board where it last
/// ran to the end before the step's finders stamped it: a unit the step did not
/// change holds no single then, so only the step's units can start one.
pub(crate) fn singles(b: &mut Pencilmarks) -> u8 {
    const LINES: u32 = (1 << 18) - 1;
    const BOX_UNITS: u32 = ((1 << 27) - 1) & !LINES;
    let mut hardest = 0;
    let start = b.dirty_units;
    let (mut houses, mut boxes, mut lines) = (start, start & BOX_UNITS, start & LINES);
    loop {
        let mut changed = 0;
        for u in Bits(std::mem::take(&mut houses)) {
            let empty = b.empty & UNIT_MASK[u];
            if empty.one() {
                let c = empty.trailing_zeros() as usize;
                if b.cand[c].one() {
                    changed |= b.place(c, b.cand[c].trailing_zeros() as usize);
                }
            }
        }
        let rating = if changed != 0 {
            10
        } else {
            let (todo, rating) = if boxes != 0 {
                (std::mem::take(&mut boxes), 12)
            } else {
                (std::mem::take(&mut lines), 15)
            };
            if todo == 0 {
                return hardest;
            }
            for u in Bits(todo) {
                // The digits with one place in the unit.
                let (mut once, mut twice) = (0u16, 0u16);
                for &c in &UNIT_CELLS[u] {
                    let cand = b.cand[c as usize];
                    twice |= once & cand;
                    once |= cand;
                }
                for d in Bits((once & !twice) as u32) {
                    let p = b.pos[d] & UNIT_MASK[u];
                    if p.one() {
                        changed |= b.place(p.trailing_zeros() as usize, d);
                    }
                }
            }
            if changed == 0 {
                continue;
            }
            rating
        };
        hardest = hardest.max(rating);
        houses |= changed;
        boxes |= changed & BOX_UNITS;
        lines |= changed & LINES;
    }
}

/// Naked single: a cell with one candidate left (2.3).
pub(crate) fn naked_single(b: &Pencilmarks, f: &mut Found) -> bool {
    for c in Cells128(b.empty) {
        if b.cand[c].one() {
            let mark = f.mark();
            f.cells.push(c as u8);
            f.place(
                Technique::NakedSingle,
                23,
                c,
                b.cand[c].trailing_zeros() as usize,
            );
            f.pattern(mark, 0, b.cand[c]);
            return true;
        }
    }
    false
}

/// The hidden single of digit `d` that removing `d` from `removed` leaves in the
/// box of one of those cells, if any. Only boxes count: a direct pointing or
/// claiming is the box-scanning step "d is locked there, so in this other box it can
/// only go here". (Measured: also counting singles in rows and columns rates 35 % of
/// SE's 2.5–2.8 puzzles lower than SE; boxes only matches all 600.)
fn single_after(b: &Pencilmarks, d: usize, removed: u128) -> Option<usize> {
    for c in Cells128(removed) {
        {
            let u = CELL_UNITS[c][2];
            let p = b.pos[d] & UNIT_MASK[u as usize];
            let left = p & !removed;
            if p.several() && left.one() {
                return Some(left.trailing_zeros() as usize);
            }
        }
    }
    None
}

/// `count` copies of the set `starts`, each `step` bits on from the one before.
const fn spaced(starts: u128, step: u32, count: u32) -> u128 {
    let mut set = 0u128;
    let mut i = 0;
    while i < count {
        set |= starts << (i * step);
        i += 1;
    }
    set
}

/// The first cell of each row's three segments (a row inside a box): 9 r + 3 s.
const ROW_SEGMENTS: u128 = spaced(spaced(1, 9, 9), 3, 3);
/// The first cell of each row: 9 r.
const ROW_FIRSTS: u128 = spaced(1, 9, 9);
/// The first cell of each column's three segments (a column inside a box): 27 b + c.
const COL_SEGMENTS: u128 = spaced(spaced(1, 27, 3), 1, 9);
/// The top left cell of each box: 27 b + 3 s.
const BOX_FIRSTS: u128 = spaced(spaced(1, 27, 3), 3, 3);

/// Of the segments in `set` (a bit at each one's first cell), taken in threes
/// `step` bits apart from the firsts in `firsts` (a line's, or a box's, three
/// segments): the segments of the threes with exactly one, and with two or more.
fn one_and_several(set: u128, step: u32, firsts: u128) -> (u128, u128) {
    let (a, b, c) = (
        set & firsts,
        set >> step & firsts,
        set >> (2 * step) & firsts,
    );
    let several = a & b | a & c | b & c;
    let spread = |x: u128| x | x << step | x << (2 * step);
    (spread((a | b | c) & !several), spread(several))
}

/// The segments of one direction (rows or columns) with places (`set`, a bit at
/// each segment's first cell) that make pointing and claiming: a line's other
/// segments lie `along` and 2 `along` bits on from its first (in `line_firsts`), a
/// box's `across` and 2 `across`.
fn locked_segments(set: u128, along: u32, line_firsts: u128, across: u32) -> (u128, u128) {
    let (line_one, line_several) = one_and_several(set, along, line_firsts);
    let (box_one, box_several) = one_and_several(set, across, BOX_FIRSTS);
    (set & line_several & box_one, set & line_one & box_several)
}

/// Whether a digit with places `pos` has locked candidates that remove something:
/// (pointing, claiming). Pointing: a box's places in one segment whose line has
/// places elsewhere; claiming: a line's places in one segment whose box has places
/// elsewhere. Every segment at once, a bit each: a row's segment 9 r + 3 s, a
/// column's 27 b + c.
pub(super) fn locked_places(pos: u128) -> (bool, bool) {
    let rows = (pos | pos >> 1 | pos >> 2) & ROW_SEGMENTS;
    let cols = (pos | pos >> 9 | pos >> 18) & COL_SEGMENTS;
    let (row_pointing, row_claiming) = locked_segments(rows, 3, ROW_FIRSTS, 9);
    let (col_pointing, col_claiming) = locked_segments(cols, 27, 0x1ff, 1);
    (
        row_pointing | col_pointing != 0,
        row_claiming | col_claiming != 0,
    )
}

/// Locked candidates. Pointing: a digit confined to one line inside a box leaves the
/// rest of the line (2.6); claiming: confined to one box inside a line, leaves the
/// rest of the box (2.8). `direct`: only when that leaves a hidden single of the
/// digit, which is then the step (1.7 / 1.9).
///
/// Each changed digit is first tested on all its segments at once
/// ([`locked_places`]); the units are searched, in SE's order, only for the digits
/// that have some.
pub(crate) fn locking(b: &Pencilmarks, f: &mut Found, direct: bool, memo: &mut [u64; 9]) -> bool {
    let (mut pointing, mut claiming) = (0u16, 0u16);
    for d in 0..9 {
        if changed(memo, &b.digit_stamp, d) {
            let (p, c) = locked_places(b.pos[d]);
            pointing |= (p as u16) << d;
            claiming |= (c as u16) << d;
        }
    }
    if pointing | claiming == 0 {
        return remember(false, memo, &b.digit_stamp);
    }
    // Pointing first (SE tries box → line before line → box).
    for bx in BOXES {
        for d in Bits(pointing as u32) {
            let p = b.pos[d] & UNIT_MASK[bx];
            if p == 0 {
                continue;
            }
            let c0 = p.trailing_zeros() as usize;
            for line in [CELL_UNITS[c0][0] as usize, CELL_UNITS[c0][1] as usize] {
                if p & UNIT_MASK[line] != p {
                    continue;
                }
                let elim = b.pos[d] & UNIT_MASK[line] & !UNIT_MASK[bx];
                if elim != 0 {
                    let houses = 1 << bx | 1 << line;
                    locking_hit(b, f, d, p, elim, direct, true, houses);
                }
            }
        }
    }
    if f.any() {
        return true;
    }
    for line in ROWS.chain(COLS) {
        for d in Bits(claiming as u32) {
            let p = b.pos[d] & UNIT_MASK[line];
            if p == 0 {
                continue;
            }
            let bx = CELL_UNITS[p.trailing_zeros() as usize][2] as usize;
            if p & UNIT_MASK[bx] != p {
                continue;
            }
            let elim = b.pos[d] & UNIT_MASK[bx] & !UNIT_MASK[line];
            if elim != 0 {
                let houses = 1 << bx | 1 << line;
                locking_hit(b, f, d, p, elim, direct, false, houses);
            }
        }
    }
    remember(f.any(), memo, &b.digit_stamp)
}

/// Records one locked-candidates instance: digit `d` confined to `pattern` in the
/// `houses` (a box and a line), removed from `elim` (direct: only when that leaves
/// a hidden single of `d`, which is then what the step sets).
#[allow(clippy::too_many_arguments)]
fn locking_hit(
    b: &Pencilmarks,
    f: &mut Found,
    d: usize,
    pattern: u128,
    elim: u128,
    direct: bool,
    pointing: bool,
    houses: u32,
) -> bool {
    let (t, r) = match (direct, pointing) {
        (true, true) => (Technique::DirectPointing, 17),
        (true, false) => (Technique::DirectClaiming, 19),
        (false, true) => (Technique::Pointing, 26),
        (false, false) => (Technique::Claiming, 28),
    };
    let mark = f.mark();
    if direct {
        let Some(c) = single_after(b, d, elim) else {
            return false;
        };
        f.place(t, r, c, d);
    } else {
        f.push_mask(elim, d);
        f.elim(t, r);
    }
    f.cells.extend(Cells128(pattern).map(|c| c as u8));
    f.pattern(mark, houses, 1 << d);
    true
}

/// Calls `visit` with every subset of `n` bits of a `k`-bit range (as a bit mask),
/// stopping when it returns true.
fn subsets(k: usize, n: usize, mut visit: impl FnMut(u32) -> bool) -> bool {
    if n > k {
        return false;
    }
    // Gosper's hack: the next integer with the same number of set bits.
    let mut s: u32 = (1 << n) - 1;
    while s < 1 << k {
        if visit(s) {
            return true;
        }
        let low = s & s.wrapping_neg();
        let ripple = s + low;
        s = (((ripple ^ s) >> 2) / low) | ripple;
    }
    false
}

/// Calls `visit(s, union)` for every set `s` of four indices of `cand` (a mask, in
/// [`subsets`]' order) whose candidates together are exactly five digits `union`,
/// leaving out at once every larger set's supersets.
fn quads_of_five(cand: &[u16], mut visit: impl FnMut(u32, u16)) {
    // Largest index outermost: the masks come in increasing order, as Gosper's.
    for l in 3..cand.len() {
        for k in 2..l {
            let uk = cand[l] | cand[k];
            if digit_count(uk) > 5 {
                continue;
            }
            for j in 1..k {
                let uj = uk | cand[j];
                if digit_count(uj) > 5 {
                    continue;
                }
                for (i, &ci) in cand[..j].iter().enumerate() {
                    let union = uj | ci;
                    if digit_count(union) == 5 {
                        visit(1 << i | 1 << j | 1 << k | 1 << l, union);
                    }
                }
            }
        }
    }
}

/// Naked pair, triple, quad: `n` cells of a unit whose candidates together are
/// `n` digits; those digits leave the unit's other cells (3.0, 3.6, 5.0).
pub(crate) fn naked_set(b: &Pencilmarks, f: &mut Found, n: usize, memo: &mut [u64; 27]) -> bool {
    let (t, r) = match n {
        2 => (Technique::NakedPair, 30),
        3 => (Technique::NakedTriple, 36),
        _ => (Technique::NakedQuad, 50),
    };
    for u in units_se_order() {
        if !changed(memo, &b.unit_stamp, u) {
            continue;
        }
        let mut cells = [0usize; 9];
        let mut k = 0;
        for &c in &UNIT_CELLS[u] {
            let cand = b.cand[c as usize];
            if cand.several() && cand.at_most(n as u32) {
                cells[k] = c as usize;
                k += 1;
            }
        }
        if (b.empty & UNIT_MASK[u]).at_most(n as u32) {
            continue;
        }
        let hit = subsets(k, n, |s| {
            let mut digits = 0u16;
            let mut mask = 0u128;
            for i in Bits(s) {
                digits |= b.cand[cells[i]];
                mask |= 1 << cells[i];
            }
            if digit_count(digits) as usize != n {
                return false;
            }
            let others = b.empty & UNIT_MASK[u] & !mask;
            let mark = f.mark();
            for d in Bits(digits as u32) {
                f.push_mask(others & b.pos[d], d);
            }
            if f.elims.len() > mark.elims() {
                f.cells.extend(Cells128(mask).map(|c| c as u8));
                f.pattern(mark, 1 << u, digits);
            }
            false
        });
        debug_assert!(!hit);
    }
    remember(f.elim(t, r), memo, &b.unit_stamp)
}

/// Hidden pair, triple, quad: `n` digits that in a unit fit in `n` cells; the other
/// digits leave those cells (3.4, 4.0, 5.4). `direct` (pairs and triples only):
/// only when that leaves a hidden single in the unit, which is then the step (2.0,
/// 2.5).
pub(crate) fn hidden_set(
    b: &Pencilmarks,
    f: &mut Found,
    n: usize,
    direct: bool,
    memo: &mut [u64; 27],
) -> bool {
    let (t, r) = match (n, direct) {
        (2, true) => (Technique::DirectHiddenPair, 20),
        (3, true) => (Technique::DirectHiddenTriple, 25),
        (2, false) => (Technique::HiddenPair, 34),
        (3, false) => (Technique::HiddenTriple, 40),
        _ => (Technique::HiddenQuad, 54),
    };
    for u in units_se_order() {
        if !changed(memo, &b.unit_stamp, u) {
            continue;
        }
        let um = UNIT_MASK[u];
        let mut digits = [0usize; 9];
        let mut k = 0;
        let mut n_open = 0;
        // Counted, not branched on (which digits qualify varies unit to unit).
        for d in 0..9 {
            let p = b.pos[d] & um;
            n_open += usize::from(p != 0);
            digits[k] = d;
            k += usize::from(p.several() & p.at_most(n as u32));
        }
        if n_open <= n {
            continue;
        }
        let hit = subsets(k, n, |s| {
            let mut cells = 0u128;
            let mut set = 0u16;
            for i in Bits(s) {
                cells |= b.pos[digits[i]] & um;
                set |= 1 << digits[i];
            }
            if !cells.exactly(n as u32) {
                return false;
            }
            if direct {
                for e in 0..9 {
                    if set >> e & 1 != 0 {
                        continue;
                    }
                    let p = b.pos[e] & um;
                    let left = p & !cells;
                    if p.several() && left.one() {
                        let mark = f.mark();
                        f.cells.extend(Cells128(cells).map(|c| c as u8));
                        f.place(t, r, left.trailing_zeros() as usize, e);
                        f.pattern(mark, 1 << u, set);
                    }
                }
            } else {
                let mark = f.mark();
                for c in Cells128(cells) {
                    for e in Bits((b.cand[c] & !set) as u32) {
                        f.elims.push((c as u8, e as u8));
                    }
                }
                if f.elims.len() > mark.elims() {
                    f.cells.extend(Cells128(cells).map(|c| c as u8));
                    f.pattern(mark, 1 << u, set);
                }
            }
            false
        });
        debug_assert!(!hit);
    }
    f.technique = t;
    f.rating = r;
    remember(f.any(), memo, &b.unit_stamp)
}

/// Basic fish of size `n` (X-wing 3.2, swordfish 3.8, jellyfish 5.2): `n` base lines
/// holding a digit only in `n` cover lines; the digit leaves the rest of the covers.
pub(crate) fn fish(b: &Pencilmarks, f: &mut Found, n: usize, memo: &mut [u64; 9]) -> bool {
    let (t, r) = match n {
        2 => (Technique::XWing, 32),
        3 => (Technique::Swordfish, 38),
        _ => (Technique::Jellyfish, 52),
    };
    for d in (0..9).filter(|&d| changed(memo, &b.digit_stamp, d)) {
        for (base, cover) in [(ROWS, COLS), (COLS, ROWS)] {
            let mut lines = [0usize; 9];
            let mut sets = [0u16; 9];
            let mut k = 0;
            // A base row's cover is a column (unit slot 1), a base column's a row.
            let slot = if base.start == 0 { 1 } else { 0 };
            for u in base.clone() {
                let p = b.pos[d] & UNIT_MASK[u];
                if p.several() && p.at_most(n as u32) {
                    lines[k] = u;
                    // The cover lines crossing this base line where d may stand.
                    let mut s = 0u16;
                    for c in Cells128(p) {
                        s |= 1 << (CELL_UNITS[c][slot] as usize - cover.start);
                    }
                    sets[k] = s;
                    k += 1;
                }
            }
            let hit = subsets(k, n, |s| {
                let mut covers = 0u16;
                let mut bases = 0u128;
                for i in Bits(s) {
                    covers |= sets[i];
                    bases |= UNIT_MASK[lines[i]];
                }
                if digit_count(covers) as usize != n {
                    return false;
                }
                let mut cover_mask = 0u128;
                for j in Bits(covers as u32) {
                    cover_mask |= UNIT_MASK[cover.start + j];
                }
                let elim = b.pos[d] & cover_mask & !bases;
                if elim != 0 {
                    let mark = f.mark();
                    f.push_mask(elim, d);
                    f.cells
                        .extend(Cells128(b.pos[d] & bases & cover_mask).map(|c| c as u8));
                    let mut houses = (covers as u32) << cover.start;
                    for i in Bits(s) {
                        houses |= 1 << lines[i];
                    }
                    f.pattern(mark, houses, 1 << d);
                }
                false
            });
            debug_assert!(!hit);
        }
    }
    remember(f.elim(t, r), memo, &b.digit_stamp)
}

/// XY-wing (4.2): a bivalue pivot {x,y} seeing bivalue pincers {x,z} and {y,z}; z
/// leaves every cell seeing both pincers.
pub(crate) fn xy_wing(b: &Pencilmarks, f: &mut Found, memo: &mut [u64; 27]) -> bool {
    let bivalue = bivalue_cells(b);
    for pivot in Cells128(bivalue).filter(|&c| !unchanged_around(c, memo, b)) {
        let pc = b.cand[pivot];
        let wings = bivalue & PEERS[pivot];
        for a in Cells128(wings) {
            let ac = b.cand[a];
            let shared = ac & pc;
            if !shared.one() {
                continue;
            }
            let z = ac & !pc;
            // The other pincer holds the pivot's other digit and z.
            let want = (pc & !shared) | z;
            for c in Cells128(wings & !(1u128 << a)) {
                if b.cand[c] != want {
                    continue;
                }
                let zd = z.trailing_zeros() as usize;
                let targets = b.pos[zd] & PEERS[a] & PEERS[c];
                if targets != 0 {
                    let mark = f.mark();
                    f.push_mask(targets, zd);
                    f.cells.extend([pivot as u8, a as u8, c as u8]);
                    f.pattern(mark, 0, pc | z);
                }
            }
        }
    }
    remember(f.elim(Technique::XyWing, 42), memo, &b.unit_stamp)
}

/// XYZ-wing (4.4): a pivot {x,y,z} seeing bivalue pincers {x,z} and {y,z}; z leaves
/// every cell seeing all three.
pub(crate) fn xyz_wing(b: &Pencilmarks, f: &mut Found, memo: &mut [u64; 27]) -> bool {
    let bivalue = bivalue_cells(b);
    for pivot in Cells128(b.empty).filter(|&c| !unchanged_around(c, memo, b)) {
        let pc = b.cand[pivot];
        if digit_count(pc) != 3 {
            continue;
        }
        let wings = bivalue & PEERS[pivot];
        for a in Cells128(wings) {
            let ac = b.cand[a];
            if ac & pc != ac {
                continue;
            }
            for c in Cells128(wings & !((2u128 << a) - 1)) {
                let cc = b.cand[c];
                if cc & pc != cc || cc == ac {
                    continue;
                }
                let z = ac & cc;
                let zd = z.trailing_zeros() as usize;
                let targets = b.pos[zd] & PEERS[a] & PEERS[c] & PEERS[pivot];
                if targets != 0 {
                    let mark = f.mark();
                    f.push_mask(targets, zd);
                    f.cells.extend([pivot as u8, a as u8, c as u8]);
                    f.pattern(mark, 0, pc);
                }
            }
        }
    }
    remember(f.elim(Technique::XyzWing, 44), memo, &b.unit_stamp)
}

/// The empty cells with exactly two candidates.
pub(crate) fn bivalue_cells(b: &Pencilmarks) -> u128 {
    let mut m = 0u128;
    for c in Cells128(b.empty) {
        if b.cand[c].two() {
            m |= 1 << c;
        }
    }
    m
}

/// The turbot-fish family (Sukaku Explainer's ratings, tried after hidden triples
/// and before XY-wings): two strong links of one digit (its only two places in a
/// unit) whose ends are weakly linked; one of the two far ends holds the digit, so
/// it leaves every cell seeing both. Both links in rows or both in columns is a
/// skyscraper (4.0), a row and a column a two-string kite (4.1), a box link a turbot
/// fish (4.2). The empty rectangle uses as one link a box whose places of the digit
/// lie on one row and one column of it; Sukaku Explainer's code names it 4.2, but
/// 4.3 matches its ratings in `se-rated.txt` (67 % of the 4.x tier exact, not 61 %).
/// Last, at the empty rectangle's 4.3, the other chains of two links one of which is
/// grouped ([`grouped_chains`]: SE's grouped turbot fishes, plus 0.3), named turbot
/// fish: until 0.4.7 they were missing, and SE's path took them where this rater went
/// on to an XY-wing or harder (the 4.x tier 92.1 % exact, now 99.7 %).
pub(crate) fn turbot(b: &Pencilmarks, f: &mut Found, memo: &mut [u64; 9]) -> bool {
    // The strong links of each digit: (unit kind 0 row / 1 col / 2 box, end, end),
    // in bytes (the table is cleared at each call).
    let mut all_links = [[(0u8, 0u8, 0u8); 27]; 9];
    let mut counts = [0usize; 9];
    let fresh = |d: usize| changed(memo, &b.digit_stamp, d);
    for d in (0..9).filter(|&d| fresh(d)) {
        for (u, &um) in UNIT_MASK.iter().enumerate() {
            let p = b.pos[d] & um;
            if p.two() {
                let a = p.trailing_zeros() as usize;
                let z = 127 - p.leading_zeros() as usize;
                all_links[d][counts[d]] = ((u / 9) as u8, a as u8, z as u8);
                counts[d] += 1;
            }
        }
    }
    // Most calls find nothing: one pass says which ratings have a chain at all,
    // and only the lowest is searched again to be recorded.
    let mut found = 0u8;
    for d in 0..9 {
        found |= two_links(b, f, d, &all_links[d][..counts[d]], None);
        if found & 1 != 0 {
            break;
        }
    }
    if found != 0 {
        let rating = 40 + found.trailing_zeros() as u8;
        for d in 0..9 {
            two_links(b, f, d, &all_links[d][..counts[d]], Some(rating));
        }
        let t = match rating {
            40 => Technique::Skyscraper,
            41 => Technique::TwoStringKite,
            _ => Technique::TurbotFish,
        };
        return f.elim(t, rating);
    }
    for d in (0..9).filter(|&d| fresh(d)) {
        empty_rectangle(b, f, d);
    }
    if f.elim(Technique::EmptyRectangle, 43) {
        return true;
    }
    // Other grouped links, at the empty rectangle's rating.
    for d in (0..9).filter(|&d| fresh(d)) {
        grouped_chains(b, f, d, 2);
    }
    remember(f.elim(Technique::TurbotFish, 43), memo, &b.digit_stamp)
}

/// The chains of two strong links of digit `d` (`links`: unit kind 0 row / 1 column
/// / 2 box, end, end) whose far ends' common peers hold `d`: skyscrapers (two
/// parallel lines, 4.0), two-string kites (a row and a column, 4.1) and turbot fishes
/// (a box, 4.2). With `record` the ones of that rating go into `f`; without, nothing
/// is recorded, and the ratings found come back as bits (bit 0: 4.0).
fn two_links(
    b: &Pencilmarks,
    f: &mut Found,
    d: usize,
    links: &[(u8, u8, u8)],
    record: Option<u8>,
) -> u8 {
    let mut found = 0u8;
    for i in 0..links.len() {
        for j in i + 1..links.len() {
            let (k1, k2) = (links[i].0, links[j].0);
            let rating = match (k1.min(k2), k1.max(k2)) {
                (0, 0) | (1, 1) => 40,
                (0, 1) => 41,
                _ => 42,
            };
            if record.is_some_and(|r| r != rating)
                || record.is_none() && found >> (rating - 40) & 1 != 0
            {
                continue;
            }
            let (a1, a2) = (links[i].1 as usize, links[i].2 as usize);
            let (b1, b2) = (links[j].1 as usize, links[j].2 as usize);
            for (x, xe, y, ye) in [
                (a1, a2, b1, b2),
                (a1, a2, b2, b1),
                (a2, a1, b1, b2),
                (a2, a1, b2, b1),
            ] {
                // x and y are weakly linked; xe and ye are the far ends
                // (four distinct cells: the links' own ends differ).
                if x == y || x == ye || xe == y || xe == ye || PEERS[x] >> y & 1 == 0 {
                    continue;
                }
                let chain = (1u128 << x) | (1u128 << xe) | (1u128 << y) | (1u128 << ye);
                let targets = b.pos[d] & PEERS[xe] & PEERS[ye] & !chain;
                if targets == 0 {
                    continue;
                }
                if record.is_none() {
                    found |= 1 << (rating - 40);
                    break;
                }
                let mark = f.mark();
                f.push_mask(targets, d);
                f.cells.extend([xe as u8, x as u8, y as u8, ye as u8]);
                let unit = |(kind, a, _): (u8, u8, u8)| CELL_UNITS[a as usize][kind as usize];
                let houses = 1 << unit(links[i]) | 1 << unit(links[j]);
                f.pattern(mark, houses, 1 << d);
            }
        }
    }
    found
}

/// Empty rectangles of digit `d`: a box whose places of `d` lie on its row `r` and
/// column `c` (not all on one of them), and a strong link of `d` in a line crossing
/// one of them outside the box.
fn empty_rectangle(b: &Pencilmarks, f: &mut Found, d: usize) {
    for bx in BOXES {
        let p = b.pos[d] & UNIT_MASK[bx];
        if !p.several() {
            continue;
        }
        let first = UNIT_CELLS[bx][0] as usize;
        let (r0, c0) = (first / 9, first % 9);
        for (r, &row) in UNIT_MASK.iter().enumerate().skip(r0).take(3) {
            for c in c0..c0 + 3 {
                let col = UNIT_MASK[9 + c];
                if p & !(row | col) != 0 || p & !row == 0 || p & !col == 0 {
                    continue;
                }
                // A column link (outside the box's stack) with an end on row r: its
                // other end's row meets column c in the target. Then the same
                // with rows and columns swapped.
                for (line_kind, cross) in [(COLS, r), (ROWS, c)] {
                    for line in line_kind.clone() {
                        let lp = b.pos[d] & UNIT_MASK[line];
                        if !lp.two() || lp & UNIT_MASK[bx] != 0 {
                            continue;
                        }
                        for (near, far) in [
                            (
                                lp.trailing_zeros() as usize,
                                127 - lp.leading_zeros() as usize,
                            ),
                            (
                                127 - lp.leading_zeros() as usize,
                                lp.trailing_zeros() as usize,
                            ),
                        ] {
                            let (target, on_cross) = if line_kind.start == 9 {
                                (9 * (far / 9) + c, near / 9 == cross)
                            } else {
                                (9 * r + far % 9, near % 9 == cross)
                            };
                            if on_cross && UNIT_MASK[bx] >> target & 1 == 0 && b.has(target, d) {
                                let mark = f.mark();
                                f.elims.push((target as u8, d as u8));
                                f.cells.extend([near as u8, far as u8]);
                                f.cells.extend(Cells128(p).map(|c| c as u8));
                                f.pattern(mark, 1 << bx | 1 << line, 1 << d);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A strong link of one digit for [`grouped_chains`]: its places in `unit` split in
/// two nodes, `a` and `z` (cell masks), one of which holds the digit; with, for
/// each node, the units that hold all of it (as bits).
#[derive(Clone, Copy, Default)]
struct Link {
    a: u128,
    z: u128,
    a_units: u32,
    z_units: u32,
    unit: u8,
    /// More than two places: a node is a group of cells.
    grouped: bool,
}

impl Link {
    /// End `e` of the link taken both ways (`2 i` from `a`, `2 i + 1` from `z`):
    /// its near node, far node, and the far node's units.
    #[inline]
    fn ends(&self, e: usize) -> (u128, u128, u32) {
        if e & 1 == 0 {
            (self.a, self.z, self.z_units)
        } else {
            (self.z, self.a, self.a_units)
        }
    }
}

/// Most strong links one digit can have: one per unit.
const MAX_LINKS: usize = 27;

/// The units that hold every cell of `cells`, as bits.
fn units_holding(cells: u128) -> u32 {
    Cells128(cells).fold(!0, |units, c| units & UNIT_BITS[c])
}

/// The cells that see every cell of `cells`.
fn seeing_all(cells: u128) -> u128 {
    Cells128(cells).fold(!0, |seen, c| seen & PEERS[c])
}

/// The strong links of digit `d`, as Sukaku Explainer takes them (at most six
/// places in the unit): two places, or grouped — a row or column whose places lie in
/// two of its boxes (a node per box), or a box whose places lie on one row and one
/// column of it, on both (a node per line, each with the cell where they cross when
/// that cell holds `d`: the empty rectangle's box). Returns how many were written.
fn strong_links(b: &Pencilmarks, d: usize, links: &mut [Link; MAX_LINKS]) -> usize {
    let mut n = 0;
    for (u, &um) in UNIT_MASK.iter().enumerate() {
        let p = b.pos[d] & um;
        if !p.several() || !p.at_most(6) {
            continue;
        }
        let mut push = |a: u128, z: u128, grouped: bool| {
            links[n] = Link {
                a,
                z,
                a_units: 0,
                z_units: 0,
                unit: u as u8,
                grouped,
            };
            n += 1;
        };
        if p.two() {
            push(1u128 << p.trailing_zeros(), p & p.wrapping_sub(1), false);
        } else if BOXES.contains(&u) {
            // At most one row and column of the box hold three or more places this
            // way (every set of 3–6 cells of a box has one such cross or none).
            let first = UNIT_CELLS[u][0] as usize;
            let rows = (first / 9..first / 9 + 3).map(|r| UNIT_MASK[r]);
            let cross = rows
                .flat_map(|row| (first % 9..first % 9 + 3).map(move |c| (row, UNIT_MASK[9 + c])))
                .find(|&(row, col)| {
                    p & !(row | col) == 0 && p & row & !col != 0 && p & col & !row != 0
                });
            if let Some((row, col)) = cross {
                push(p & row, p & col, true);
            }
        } else {
            let mut parts = BOXES.map(|bx| p & UNIT_MASK[bx]).filter(|&s| s != 0);
            if let (Some(a), Some(z), None) = (parts.next(), parts.next(), parts.next()) {
                push(a, z, true);
            }
        }
    }
    n
}

/// Grouped strong-link chains (Sukaku Explainer's fishes of `n` strong links, a link
/// of which is grouped: [`strong_links`]): `n` strong links of digit `d` in distinct
/// units, each one's far node weakly linked to the next one's near node (disjoint,
/// and all their cells in one unit). One of the chain's two end nodes holds `d`, so
/// it leaves every cell that sees all their cells. SE rates them as the same chain
/// of plain links plus 0.3: 4.3 for two links, 5.7 for three. Pushes their
/// eliminations into `f`.
fn grouped_chains(b: &Pencilmarks, f: &mut Found, d: usize, n: usize) {
    let mut links = [Link::default(); MAX_LINKS];
    let count = strong_links(b, d, &mut links);
    if count < n || !links[..count].iter().any(|l| l.grouped) {
        return;
    }
    // Ends are numbered 2 i (link i from a) and 2 i + 1 (from z).
    let (mut near_in, mut grouped, mut grouped_near) = ([0u128; 27], 0u128, 0u32);
    for (i, l) in links[..count].iter_mut().enumerate() {
        (l.a_units, l.z_units) = (units_holding(l.a), units_holding(l.z));
        for (e, near_units) in [(2 * i, l.a_units), (2 * i + 1, l.z_units)] {
            for u in Bits(near_units) {
                near_in[u] |= 1 << e;
            }
            if l.grouped {
                grouped |= 1 << e;
                grouped_near |= near_units;
            }
        }
    }
    let mut search = GroupedSearch {
        d,
        n,
        links: &links[..count],
        near_in,
        grouped,
        grouped_near,
        chain: [0; 3],
    };
    for e in 0..2 * count {
        let l = &links[e / 2];
        let (near, _, far_units) = l.ends(e);
        if n == 2 && !l.grouped && far_units & grouped_near == 0 {
            continue;
        }
        // Every elimination sees the near end: none there, no chain from it.
        let targets = b.pos[d] & seeing_all(near) & !(l.a | l.z);
        if targets != 0 {
            search.chain[0] = e;
            search.extend(f, 1, far_units, targets, l.a | l.z, 1 << l.unit);
        }
    }
}

/// The depth-first search of [`grouped_chains`].
struct GroupedSearch<'a> {
    d: usize,
    n: usize,
    links: &'a [Link],
    /// Per unit, the ends whose near node lies in it (bit `e` for end `e`).
    near_in: [u128; 27],
    /// The ends of grouped links.
    grouped: u128,
    /// The units that hold a grouped link's near node: where a chain of no grouped
    /// link yet must go next, when the next link is its last.
    grouped_near: u32,
    /// The chain so far, as ends.
    chain: [usize; 3],
}

impl GroupedSearch<'_> {
    /// Extends a chain of `k` links whose last far node lies in `far_units`;
    /// `targets` are the cells of the digit outside the chain that see its near
    /// end, `used` its cells, `units` its links' units.
    fn extend(
        &mut self,
        f: &mut Found,
        k: usize,
        far_units: u32,
        targets: u128,
        used: u128,
        units: u32,
    ) {
        // The weak link: the far node and the next near one in one unit.
        let mut linked = Bits(far_units).fold(0, |m, u| m | self.near_in[u]);
        let any_grouped = self.chain[..k].iter().any(|&e| self.grouped >> e & 1 != 0);
        if k + 1 == self.n {
            // A grouped link in the chain, and each chain once (not also
            // backwards): its last link's index is at least its first's.
            if !any_grouped {
                linked &= self.grouped;
            }
            linked &= !0 << (self.chain[0] & !1);
        }
        for e in Cells128(linked) {
            let l = &self.links[e / 2];
            let cells = l.a | l.z;
            if cells & used != 0 || units >> l.unit & 1 != 0 {
                continue;
            }
            let targets = targets & !cells;
            let (_, far, far_units) = l.ends(e);
            if k + 1 < self.n {
                let none_grouped = !l.grouped && !any_grouped;
                if targets != 0
                    && !(k + 2 == self.n && none_grouped && far_units & self.grouped_near == 0)
                {
                    self.chain[k] = e;
                    self.extend(
                        f,
                        k + 1,
                        far_units,
                        targets,
                        used | cells,
                        units | 1 << l.unit,
                    );
                }
                continue;
            }
            let hits = targets & seeing_all(far);
            if hits == 0 {
                continue;
            }
            let mark = f.mark();
            f.push_mask(hits, self.d);
            f.cells.extend(Cells128(used | cells).map(|c| c as u8));
            f.pattern(mark, units | 1 << l.unit, 1 << self.d);
        }
    }
}

/// Three strong links of one digit chained by two weak links (Sukaku Explainer's
/// "3 strong-linked fishes", tried after hidden quads): one of the chain's two far
/// ends holds the digit, so it leaves every cell seeing both. SE rates it 5.4, plus
/// 0.1 when the links are not all in lines of one direction, 0.2 when they use boxes
/// and both directions. A step applies every chain of the lowest rating found; when
/// there is none, the chains of three links one of which is grouped
/// ([`grouped_chains`]), 5.7, as SE sorts them after every plain one (since 0.4.7:
/// the 5.x tier 73.8 % exact before, 89.2 % with them). (Sukaku's 4–6-link fishes,
/// 5.8–6.8, were tried: on `se-rated.txt` they agree with none of its puzzles and
/// move ±0.5 agreement by 0.2 points, so they are left out; its solver lists the
/// five- and six-link ones as off by default.)
pub(crate) fn three_links(b: &Pencilmarks, f: &mut Found, memo: &mut [u64; 9]) -> bool {
    let mut search = LinkSearch {
        ends_at: [0; 81],
        d: 0,
        links: [(0, 0, 0); 27],
        n_links: 0,
        starts: 0,
        chain: [0; 2 * LINKS],
        kinds: [0; LINKS],
        used: 0,
        best: u8::MAX,
    };
    for d in (0..9).filter(|&d| changed(memo, &b.digit_stamp, d)) {
        search.d = d;
        search.n_links = 0;
        search.starts = 0;
        for (u, &um) in UNIT_MASK.iter().enumerate() {
            let p = b.pos[d] & um;
            if p.two() {
                let (a, z) = (p.trailing_zeros() as u8, 127 - p.leading_zeros() as u8);
                let kind = (u / 9) as u8;
                search.links[search.n_links] = (a, z, kind);
                search.n_links += 1;
                search.starts |= 1u128 << a | 1u128 << z;
            }
        }
        if search.n_links < LINKS {
            continue;
        }
        for (i, &(a, z, _)) in search.links[..search.n_links].iter().enumerate() {
            search.ends_at[a as usize] |= 1 << (2 * i);
            search.ends_at[z as usize] |= 1 << (2 * i + 1);
        }
        for i in 0..search.n_links {
            let (a, z, kind) = search.links[i];
            for (e, x) in [(a, z), (z, a)] {
                search.used = 1u128 << e | 1u128 << x;
                // Every elimination sees the chain's first cell: none there, no
                // chain from it.
                let targets = b.pos[d] & PEERS[e as usize] & !search.used;
                if targets == 0 {
                    continue;
                }
                search.chain[0] = e;
                search.chain[1] = x;
                search.kinds[0] = kind;
                search.extend(f, 1, targets);
            }
        }
        for c in Cells128(search.starts) {
            search.ends_at[c] = 0;
        }
    }
    if search.best != u8::MAX {
        return f.elim(Technique::ThreeLinks, search.best);
    }
    // Then chains with a grouped link, as SE sorts them: 5.7, above every plain one.
    for d in (0..9).filter(|&d| changed(memo, &b.digit_stamp, d)) {
        grouped_chains(b, f, d, LINKS);
    }
    remember(f.elim(Technique::ThreeLinks, 57), memo, &b.digit_stamp)
}

/// Strong links in a [`three_links`] chain.
const LINKS: usize = 3;

/// The depth-first search of [`three_links`] for one digit.
struct LinkSearch {
    /// Per cell, the link ends there: bit 2 i for link i's first cell, 2 i + 1 for
    /// its second.
    ends_at: [u64; 81],
    d: usize,
    /// The digit's strong links: its two cells and the unit kind (0 row, 1
    /// column, 2 box).
    links: [(u8, u8, u8); 27],
    n_links: usize,
    /// Cells at an end of a strong link.
    starts: u128,
    /// The chain's cells, two per link (near end, far end).
    chain: [u8; 2 * LINKS],
    kinds: [u8; LINKS],
    used: u128,
    best: u8,
}

impl LinkSearch {
    /// Extends a chain of `k` links: the next link starts at a cell that sees the
    /// current far end (the weak link). `targets`: the cells of the digit outside
    /// the chain that see its first cell (never empty: a chain that could remove
    /// nothing is not extended).
    fn extend(&mut self, f: &mut Found, k: usize, targets: u128) {
        let d = self.d;
        let last = self.chain[2 * k - 1] as usize;
        if k == LINKS {
            let targets = targets & PEERS[last];
            if targets == 0 {
                return;
            }
            let (mut rows, mut cols, mut boxes) = (false, false, false);
            for &kind in &self.kinds[..k] {
                match kind {
                    0 => rows = true,
                    1 => cols = true,
                    _ => boxes = true,
                }
            }
            let bonus = match (boxes, rows && cols) {
                (false, false) => 0,
                (true, true) => 2,
                _ => 1,
            };
            let rating = 54 + bonus;
            if rating > self.best {
                return;
            }
            if rating < self.best {
                self.best = rating;
                f.clear();
            }
            let mark = f.mark();
            f.push_mask(targets, d);
            f.cells.extend_from_slice(&self.chain[..2 * k]);
            let mut houses = 0u32;
            for i in 0..k {
                houses |= 1 << CELL_UNITS[self.chain[2 * i] as usize][self.kinds[i] as usize];
            }
            f.pattern(mark, houses, 1 << d);
            return;
        }
        let next_starts = PEERS[last] & self.starts & !self.used;
        if next_starts == 0 {
            return;
        }
        // The next link's near end in one of those cells: links in order, each
        // from its first cell then from its second.
        let ends = Cells128(next_starts).fold(0u64, |ends, c| ends | self.ends_at[c]);
        for e in Bits64(ends) {
            let (a, z, kind) = self.links[e / 2];
            let (y, x) = if e % 2 == 0 { (a, z) } else { (z, a) };
            if self.used >> x & 1 != 0 {
                continue;
            }
            let cells = 1u128 << y | 1u128 << x;
            if targets & !cells == 0 {
                continue;
            }
            self.chain[2 * k] = y;
            self.chain[2 * k + 1] = x;
            self.kinds[k] = kind;
            self.used |= cells;
            self.extend(f, k + 1, targets & !cells);
            self.used &= !cells;
        }
    }
}

/// WXYZ-wing (Sukaku Explainer, 5.5–5.6, tried after the three-link fish): a pivot
/// and three cells it sees, holding together exactly four digits, where every digit
/// but one, z, is restricted (its cells in the pattern all see each other). At most
/// one of them can be false in the pattern, so z is true in one of its cells there
/// and leaves every cell seeing all of them. SE rates it 5.5, plus 0.1 when the
/// largest candidate count in the pattern is 3.
pub(crate) fn wxyz_wing(b: &Pencilmarks, f: &mut Found, memo: &mut CellMemo) -> bool {
    let fresh = memo.changed(b);
    if fresh == 0 {
        return false;
    }
    // Rating alone reads the wings' eliminations, not their order.
    let best = if f.record {
        wing(b, f, 4, 55, fresh)
    } else {
        wing4_by_digits(b, f, 55, fresh)
    };
    memo.remember(best != u8::MAX && f.elim(Technique::WxyzWing, best), b)
}

/// VWXYZ-wing (Sukaku Explainer, 6.2–6.4, tried after the BUG, as SE's solver orders
/// them since 0.4.7: 4 more puzzles of `se-rated.txt` exact, 1 fewer): the same
/// pattern on five cells holding exactly five digits, one of which sees the four
/// others, in Sukaku's form: a bivalue cell and four cells of one unit (an ALS-XZ
/// whose small set is the bivalue cell; the wider pattern finds deductions Sukaku
/// rates 7.0+: 48 such puzzles of `se-rated.txt`). SE rates it 6.2, +0.1 when the
/// largest candidate count is 2 or 4, +0.2 when it is 3.
///
/// Since 0.4.8 also SE's doubly linked form, rated the same: both digits of the
/// bivalue cell restricted (always so when it is a fifth cell of the unit). Then
/// each of its digits leaves the cells that see all of that digit's cells in the
/// pattern, and each other digit the cells that see all of its cells among the four
/// (249 puzzles of `se-rated.txt` more exact, none fewer: SE 6.2–6.4 puzzles this
/// rater took to AICs).
///
/// Searched in that form directly: four cells of a unit with five digits, then the
/// bivalue cells on those digits that see one of them (a quarter of the time the
/// search of every pivot and four cells it sees took on minimal puzzles).
///
/// Memoised on cells, as [`aligned_triplets`]: a wing none of whose five cells
/// changed since the finder last found nothing had no eliminations then, and its
/// eliminations (places of its digits outside it) can only have shrunk.
pub(crate) fn vwxyz_wing(b: &Pencilmarks, f: &mut Found, memo: &mut CellMemo) -> bool {
    let bivalue = bivalue_cells(b);
    let mut best = u8::MAX;
    if bivalue == 0 {
        return false;
    }
    let fresh = memo.changed(b);
    if fresh == 0 {
        return false;
    }
    let fresh_y = fresh & bivalue;
    for u in units_se_order() {
        // An unchanged unit and no changed bivalue cell: no new wing.
        if UNIT_MASK[u] & fresh == 0 && fresh_y == 0 {
            continue;
        }
        let (mut cells, mut cand) = ([0usize; 9], [0u16; 9]);
        let mut k = 0;
        for c in Cells128(b.empty & UNIT_MASK[u]) {
            if (2..=5).contains(&digit_count(b.cand[c])) {
                (cells[k], cand[k]) = (c, b.cand[c]);
                k += 1;
            }
        }
        quads_of_five(&cand[..k], |s, union| {
            // The bivalue cell y holds two of the five digits (none of the four
            // others) and sees one of the four cells at least (a cell of the unit
            // sees them all).
            let mut outside = 0u128;
            for d in Bits((!union & 0x1ff) as u32) {
                outside |= b.pos[d];
            }
            let mut ys = bivalue & !outside;
            let mut set = 0u128;
            for i in Bits(s) {
                set |= 1 << cells[i];
            }
            // Four unchanged cells: only a changed bivalue cell makes a new wing.
            if set & fresh == 0 {
                ys &= fresh;
            }
            ys &= !set;
            if ys == 0 {
                return;
            }
            let (mut seen, mut biggest) = (0u128, 0);
            for i in Bits(s) {
                seen |= PEERS[cells[i]];
                biggest = biggest.max(digit_count(cand[i]));
            }
            for y in Cells128(ys & seen) {
                // Only y's digits can be loose (the unit's cells see each other).
                // One loose, z: z leaves every cell that sees all of its cells. None
                // (SE's doubly linked wing): each of y's digits leaves every cell
                // that sees all of its cells, and each other digit every cell that
                // sees all of its cells among the four.
                let mut loose = 0u16;
                for d in Bits(b.cand[y] as u32) {
                    loose |= u16::from(b.pos[d] & set & !PEERS[y] != 0) << d;
                }
                let pattern = set | 1u128 << y;
                let mut elims = [0u128; 9];
                let mut any = false;
                let digits = match digit_count(loose) {
                    0 => union,
                    1 => loose,
                    _ => continue,
                };
                for d in Bits(digits as u32) {
                    elims[d] = b.pos[d] & !pattern & seeing_all(b.pos[d] & pattern);
                    any |= elims[d] != 0;
                }
                if !any {
                    continue;
                }
                let rating = 62 + (2 - (3 - biggest as i32).abs()).max(0) as u8;
                if rating < best {
                    best = rating;
                    f.clear();
                }
                if rating == best {
                    let mark = f.mark();
                    for d in Bits(digits as u32) {
                        f.push_mask(elims[d], d);
                    }
                    f.cells.push(y as u8);
                    f.cells.extend(Cells128(set).map(|c| c as u8));
                    f.pattern(mark, 1 << u, union);
                }
            }
        });
    }
    memo.remember(best != u8::MAX && f.elim(Technique::VwxyzWing, best), b)
}

/// The wings of `size` cells (a pivot and `size - 1` cells it sees, `size` digits
/// between them, every digit but one, z, restricted): records every one of the
/// lowest rating and returns that rating (`u8::MAX`: none). SE's rating is `base`
/// plus (size − m) − |m − largest candidate count|, m = (size + 2) / 2: the middle
/// candidate count is the hardest.
///
/// Memoised on cells (`fresh`: the cells changed since the finder last found
/// nothing): a wing of unchanged cells had no eliminations then, and its
/// eliminations (places of z) can only have shrunk, so only wings with a changed
/// cell are searched.
pub(super) fn wing(b: &Pencilmarks, f: &mut Found, size: u32, base: u8, fresh: u128) -> u8 {
    let mut best = u8::MAX;
    let mut cells = [0usize; 5];
    // The cells a wing may use: 2 to `size` candidates.
    let mut small = 0u128;
    for c in Cells128(b.empty) {
        small |= u128::from((2..=size).contains(&digit_count(b.cand[c]))) << c;
    }
    for pivot in Cells128(small) {
        let pc = b.cand[pivot];
        let pivot_fresh = fresh >> pivot & 1 != 0;
        if !pivot_fresh && PEERS[pivot] & fresh == 0 {
            continue;
        }
        let mut wings = [0usize; 20];
        let mut n = 0;
        // With an unchanged pivot, a wing needs one of the changed cells, the last
        // of which ends the search.
        let (mut fresh_end, mut fresh_wings) = (0, 0u32);
        for c in Cells128(PEERS[pivot] & small) {
            if digit_count(b.cand[c] | pc) <= size {
                let changed = fresh >> c & 1 != 0;
                fresh_wings |= u32::from(changed) << n;
                wings[n] = c;
                n += 1;
                if changed {
                    fresh_end = n;
                }
            }
        }
        if !pivot_fresh && fresh_end == 0 {
            continue;
        }
        cells[0] = pivot;
        let mut search = WingSearch {
            b,
            size: size as usize,
            base,
            wings: &wings[..n],
            fresh: fresh_wings,
            fresh_end,
            cells: &mut cells,
            best: &mut best,
        };
        search.extend(f, 1, 0, pc, 0, !pivot_fresh);
    }
    best
}

/// The wings of [`wing`] of four cells, found by their four digits rather than
/// pivot by pivot in SE's order: the same wings (each under the one digit set it
/// holds), so the same lowest rating and eliminations, in another order. Most
/// digit sets hold too few cells (those whose candidates are all in the set) to
/// make a wing, which a few masks say at once.
pub(super) fn wing4_by_digits(b: &Pencilmarks, f: &mut Found, base: u8, fresh: u128) -> u8 {
    let mut best = u8::MAX;
    let mut small = 0u128;
    for c in Cells128(b.empty) {
        small |= u128::from((2..=4).contains(&digit_count(b.cand[c]))) << c;
    }
    if small & fresh == 0 {
        return best;
    }
    subsets(9, 4, |quad| {
        let quad = quad as u16;
        let mut outside = 0u128;
        for d in Bits((!quad & 0x1ff) as u32) {
            outside |= b.pos[d];
        }
        let cells = small & !outside;
        if cells & fresh != 0 && !cells.at_most(3) {
            for pivot in Cells128(cells) {
                let seen = cells & PEERS[pivot];
                if seen.at_most(2) || (seen | 1 << pivot) & fresh == 0 {
                    continue;
                }
                let mut wings = [0usize; 20];
                let mut n = 0;
                for c in Cells128(seen) {
                    wings[n] = c;
                    n += 1;
                }
                // The pivot sees every wing: only two wings that do not see each
                // other make their common digits loose, and a second loose digit
                // makes no wing, whatever the third wing.
                let loose = |x: usize, y: usize| {
                    let (x, y) = (wings[x], wings[y]);
                    (b.cand[x] & b.cand[y]) & 0u16.wrapping_sub(u16::from(PEERS[x] >> y & 1 == 0))
                };
                for k in 2..n {
                    for j in 1..k {
                        let jk = loose(j, k);
                        if jk.several() {
                            continue;
                        }
                        for i in 0..j {
                            let pattern = [pivot, wings[i], wings[j], wings[k]];
                            let l = jk | loose(i, j) | loose(i, k);
                            if !l.one() || pattern.iter().all(|&c| fresh >> c & 1 == 0) {
                                continue;
                            }
                            let union = pattern.iter().fold(0, |u, &c| u | b.cand[c]);
                            if union == quad {
                                let z = l.trailing_zeros() as usize;
                                wing_found(b, f, &pattern, base, z, &mut best);
                            }
                        }
                    }
                }
            }
        }
        false
    });
    best
}

/// A wing whose one loose digit is `z` (`cells`: the pivot first): when it removes
/// anything, recorded in `f` if it rates no higher than `best` (lowered to it).
/// SE's rating is `base` plus (size − m) − |m − largest candidate count|, m =
/// (size + 2) / 2: the middle candidate count is the hardest.
fn wing_found(b: &Pencilmarks, f: &mut Found, cells: &[usize], base: u8, z: usize, best: &mut u8) {
    let targets = wing_targets(b, cells, z);
    if targets == 0 {
        return;
    }
    let biggest = cells
        .iter()
        .map(|&c| digit_count(b.cand[c]) as i32)
        .max()
        .unwrap_or(0);
    let size = cells.len() as i32;
    let mid = (size + 2) / 2;
    let rating = base + ((size - mid) - (mid - biggest).abs()).max(0) as u8;
    if rating < *best {
        *best = rating;
        f.clear();
    }
    if rating == *best {
        let mark = f.mark();
        f.push_mask(targets, z);
        f.cells.extend(cells.iter().map(|&c| c as u8));
        let digits = cells.iter().fold(0, |acc, &c| acc | b.cand[c]);
        f.pattern(mark, 0, digits);
    }
}

/// The places of digit `z` that see every cell of `cells` holding it (none of
/// which is one: a cell is not its own peer).
fn wing_targets(b: &Pencilmarks, cells: &[usize], z: usize) -> u128 {
    let mut targets = b.pos[z];
    for &x in cells {
        if b.cand[x] >> z & 1 != 0 {
            targets &= PEERS[x];
        }
    }
    targets
}

/// The choice of a wing's cells beyond the pivot, keeping the digit union small.
struct WingSearch<'a> {
    b: &'a Pencilmarks,
    size: usize,
    base: u8,
    wings: &'a [usize],
    /// The wings changed since the finder last found nothing (bit `i` for
    /// `wings[i]`), and the end of the last of them in `wings`.
    fresh: u32,
    fresh_end: usize,
    /// The pattern's cells, the pivot first.
    cells: &'a mut [usize; 5],
    best: &'a mut u8,
}

impl WingSearch<'_> {
    /// Adds cells `k..` from `wings[from..]`. `loose` holds the digits whose cells
    /// in the pattern do not all see each other: adding cells never tightens one,
    /// so a pattern with two loose digits is abandoned, and a complete one has its
    /// z there. With `stale` (no changed cell yet), the pattern takes a changed one
    /// at the latest as its last cell.
    fn extend(
        &mut self,
        f: &mut Found,
        k: usize,
        from: usize,
        union: u16,
        loose: u16,
        stale: bool,
    ) {
        if k == self.size {
            if digit_count(union) as usize == self.size && loose != 0 {
                self.check(f, loose.trailing_zeros() as usize);
            }
            return;
        }
        let end = if stale {
            self.fresh_end
        } else {
            self.wings.len()
        };
        // Past this, too few cells are left to complete the pattern.
        let end = end.min((self.wings.len() + k + 1).saturating_sub(self.size));
        let mut tried = if from < end {
            (1u32 << end) - (1u32 << from)
        } else {
            0
        };
        if stale && k + 1 == self.size {
            tried &= self.fresh;
        }
        for i in Bits(tried) {
            let c = self.wings[i];
            let fresh = self.fresh >> i & 1 != 0;
            let cand = self.b.cand[c];
            let u = union | cand;
            if digit_count(u) as usize > self.size {
                continue;
            }
            // A digit of c is loose when a pattern cell holding it does not see c
            // (the pivot, cells[0], sees every wing).
            let mut unseen = 0u16;
            for &x in &self.cells[1..k] {
                if PEERS[c] >> x & 1 == 0 {
                    unseen |= self.b.cand[x];
                }
            }
            let l = loose | cand & unseen;
            if l.several() {
                continue;
            }
            self.cells[k] = c;
            // With z known, more cells only shrink the cells that see all of z's:
            // none left, no wing.
            if l != 0 && self.targets(k + 1, l.trailing_zeros() as usize) == 0 {
                continue;
            }
            self.extend(f, k + 1, i + 1, u, l, stale && !fresh);
        }
    }

    /// [`wing_targets`] of the pattern's first `k` cells.
    fn targets(&self, k: usize, z: usize) -> u128 {
        wing_targets(self.b, &self.cells[..k], z)
    }

    /// A complete pattern whose one loose digit is `z`.
    fn check(&mut self, f: &mut Found, z: usize) {
        let cells = &self.cells[..self.size];
        wing_found(self.b, f, cells, self.base, z, self.best);
    }
}

/// Aligned triplet exclusion (SE 7.5, tried after the static chains, before
/// nishio). Three cells of two candidates or more, one of them with at most three
/// that sees one of the others, and two or more cells of two or three candidates
/// that see all three (the excluders). A choice of values for the three is
/// impossible when two of them that share a unit take the same value, or when it
/// leaves an excluder no candidate; a value that no possible choice gives its cell
/// leaves it. Every triplet is tried once, whatever order SE's search meets it in.
///
/// Memoised on cells: a triplet none of whose cells and excluders changed since the
/// finder last found nothing had the same choices then (an excluder lost since
/// only lifts a constraint), and eliminations that can only have shrunk; it is
/// skipped.
pub(crate) fn aligned_triplets(b: &Pencilmarks, f: &mut Found, memo: &mut CellMemo) -> bool {
    let fresh = memo.changed(b);
    if fresh == 0 {
        return false;
    }
    // Each cell's excluders: the cells it sees with two or three candidates.
    let mut small = 0u128;
    for c in Cells128(b.empty) {
        if (2..=3).contains(&digit_count(b.cand[c])) {
            small |= 1 << c;
        }
    }
    let mut base_mask = 0u128;
    for c in Cells128(b.empty) {
        if b.cand[c].several() && PEERS[c] & small != 0 {
            base_mask |= 1 << c;
        }
    }
    let mut triples = [0u16; 20];
    for a in Cells128(base_mask) {
        // The second cell shares two excluders with the first, at least: it sees
        // two of the first's.
        let twice = seeing_two(PEERS[a] & small);
        for bb in Cells128(twice & base_mask & !((2u128 << a) - 1)) {
            aligned_with(b, f, (small, base_mask, fresh), a, bb, &mut triples);
        }
    }
    memo.remember(f.elim(Technique::AlignedTripletExclusion, 75), b)
}

/// The cells that see two or more of `cells`.
fn seeing_two(cells: u128) -> u128 {
    let (mut once, mut twice) = (0u128, 0u128);
    for e in Cells128(cells) {
        twice |= once & PEERS[e];
        once |= PEERS[e];
    }
    twice
}

/// The triplets of [`aligned_triplets`] whose two lowest cells are `a` < `bb`.
fn aligned_with(
    b: &Pencilmarks,
    f: &mut Found,
    (small, base_mask, fresh): (u128, u128, u128),
    a: usize,
    bb: usize,
    triples: &mut [u16; 20],
) {
    let common_ab = PEERS[a] & PEERS[bb] & small;
    debug_assert!(common_ab.count_ones() >= 2);
    // A third cell's excluders are some of these: when neither these nor the first
    // two changed, only a changed third cell makes the triplet fresh.
    let above = base_mask & !((2u128 << bb) - 1);
    let open = if (common_ab | 1 << a | 1 << bb) & fresh == 0 {
        above & fresh
    } else {
        above
    };
    if open == 0 {
        return;
    }
    // The third cell sees two common excluders of the first two, at least.
    let thirds = seeing_two(common_ab) & open;
    for c in Cells128(thirds) {
        let common = common_ab & PEERS[c];
        let members = 1 << a | 1 << bb | 1 << c;
        if (common | members) & fresh == 0 {
            continue;
        }
        // Unchanged cells with two unchanged excluders or more: the triplet was
        // tried when the memo was recorded, and found nothing. A changed excluder
        // with a digit none of the three holds excludes no choice of theirs, so
        // when every changed one is such, the choices are as many as then, or more.
        if members & fresh == 0 && (common & !fresh).count_ones() >= 2 {
            let digits = b.cand[a] | b.cand[bb] | b.cand[c];
            if Cells128(common & fresh).all(|e| b.cand[e] & !digits != 0) {
                continue;
            }
        }
        // SE reaches the third cell from the first two: one of the three
        // has at most three candidates and sees one of the others.
        let joined = |x: usize, y: usize, z: usize| {
            small >> x & 1 != 0 && PEERS[x] >> y & 1 | PEERS[x] >> z & 1 != 0
        };
        if !(joined(a, bb, c) || joined(bb, a, c) || joined(c, a, bb)) {
            continue;
        }
        // The excluders: per digit `d`, the digits `x` such that `{d, x}` is a
        // two-candidate excluder's (the two values leave it none, one of them rules
        // the other out of the third cell); the three-candidate ones as they are.
        // An excluder with a digit none of the three holds never loses all its
        // candidates to them: it rules nothing out, and is left out.
        let digits = b.cand[a] | b.cand[bb] | b.cand[c];
        let mut pair = [0u16; 9];
        let mut n3 = 0;
        let mut union = 0u16;
        for e in Cells128(common) {
            let m = b.cand[e];
            if m & !digits != 0 {
                continue;
            }
            union |= m;
            if m.count_ones() == 2 {
                let (p, q) = (m.trailing_zeros(), 15 - m.leading_zeros());
                pair[p as usize] |= 1 << q;
                pair[q as usize] |= 1 << p;
            } else {
                triples[n3] = m;
                n3 += 1;
            }
        }
        // A value of one cell survives when the other two have values no excluder
        // holds, distinct from it where they share a unit with its cell, and
        // from each other where they share one: of one of them, one value more
        // than the cells it must differ from, and then of the other, one more than
        // those. When that holds for all three cells, nothing goes.
        let free = |x: usize| digit_count(b.cand[x] & !union);
        let (fa, fb, fc) = (free(a), free(bb), free(c));
        let sees = |x: usize, y: usize| PEERS[x] >> y & 1 != 0;
        let (ab, ac, bc) = (sees(a, bb), sees(a, c), sees(bb, c));
        // The other two cells' free values y and z, and whether the three pairs
        // share a unit (the cell and y's, the cell and z's, y's and z's).
        let survives = |y: u32, z: u32, xy: bool, xz: bool, yz: bool| {
            let (xy, xz, yz) = (u32::from(xy), u32::from(xz), u32::from(yz));
            y > xy && z > xz + yz || z > xz && y > xy + yz
        };
        if survives(fb, fc, ab, ac, bc)
            && survives(fa, fc, ab, bc, ac)
            && survives(fa, fb, ac, bc, ab)
        {
            continue;
        }
        // The values of c left by `va` in a and `vb` in b: not `va` when a and c
        // share a unit, nor one that with it leaves a two-candidate excluder none;
        // the same for `vb`; and a three-candidate excluder holding both leaves c
        // its third.
        let excluders = &triples[..n3];
        let left_for_c = |va: usize, vb: usize| {
            let two = 1u16 << va | 1 << vb;
            let mut banned = pair[va] | u16::from(ac) << va | pair[vb] | u16::from(bc) << vb;
            if va != vb {
                for &m in excluders {
                    if m & two == two {
                        banned |= m & !two;
                    }
                }
            }
            b.cand[c] & !banned
        };
        // The values b may take beside `va` in a, and a beside `vb` in b.
        let bs_for = |va: usize| b.cand[bb] & !pair[va] & !(u16::from(ab) << va);
        let as_for = |vb: usize| b.cand[a] & !pair[vb] & !(u16::from(ab) << vb);
        // The values of each cell that some choice of the other two allows. Nearly
        // every value has one, mostly the first tried: a's values look for one,
        // then b's values still without one; c's are those the tries allowed,
        // unless one is missing (then every choice is tried).
        let (mut ok_a, mut ok_b, mut ok_c) = (0u16, 0u16, 0u16);
        for va in Bits(b.cand[a] as u32) {
            for vb in Bits(bs_for(va) as u32) {
                let vc = left_for_c(va, vb);
                if vc != 0 {
                    (ok_a, ok_b, ok_c) = (ok_a | 1 << va, ok_b | 1 << vb, ok_c | vc);
                    break;
                }
            }
        }
        for vb in Bits((b.cand[bb] & !ok_b) as u32) {
            for va in Bits(as_for(vb) as u32) {
                let vc = left_for_c(va, vb);
                if vc != 0 {
                    (ok_b, ok_c) = (ok_b | 1 << vb, ok_c | vc);
                    break;
                }
            }
        }
        if ok_c != b.cand[c] {
            for va in Bits(ok_a as u32) {
                for vb in Bits(bs_for(va) as u32) {
                    ok_c |= left_for_c(va, vb);
                }
            }
        }
        let mark = f.mark();
        for (x, ok) in [(a, ok_a), (bb, ok_b), (c, ok_c)] {
            for d in Bits((b.cand[x] & !ok) as u32) {
                if !f.elims.contains(&(x as u8, d as u8)) {
                    f.elims.push((x as u8, d as u8));
                }
            }
        }
        if f.elims.len() > mark.elims {
            f.cells.extend([a as u8, bb as u8, c as u8]);
            f.cells.extend(Cells128(common).map(|e| e as u8));
            f.pattern(mark, 0, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The aligned-triplet memo skips a triplet of unchanged cells only when it was
    /// tried when the memo was recorded: two or more of its excluders unchanged.
    /// Here the triplet had none then (both had four candidates); both became
    /// excluders, each with a digit none of the three holds, so the triplet is new
    /// and the memo must not skip it (it finds what a naked pair would).
    #[test]
    fn the_triplet_memo_skips_only_triplets_tried_before() {
        let mut rater = super::super::Rater::new();
        let (b, f) = (&mut rater.board, &mut rater.found);
        b.load(&[0; 81]);
        // Row 1: {1,2} {1,2} {1,2,3} {4,5,6,8} {4,5,7,9}; every other cell all nine.
        let keep = [
            (0, 0b11),
            (1, 0b11),
            (2, 0b111),
            (3, 0b1011_1000),
            (4, 0b1_0101_1000),
        ];
        for (cell, digits) in keep {
            for d in Bits((0x1ff & !digits) as u32) {
                b.eliminate(cell, d);
            }
        }
        // The naked pair's eliminations elsewhere in the row and the box.
        for cell in [5, 6, 7, 8, 9, 10, 11, 18, 19, 20] {
            b.eliminate(cell, 0);
            b.eliminate(cell, 1);
        }
        let mut memo = CellMemo::default();
        assert!(
            !aligned_triplets(b, f, &mut memo),
            "the first three share no excluder yet"
        );
        // {4,5,6} and {4,5,7}: excluders now.
        b.eliminate(3, 7);
        b.eliminate(4, 8);
        let with_memo = aligned_triplets(b, f, &mut memo);
        let memo_elims = std::mem::take(&mut f.elims);
        let without = aligned_triplets(b, f, &mut CellMemo::default());
        assert!(without && f.elims.contains(&(2, 0)) && f.elims.contains(&(2, 1)));
        assert!(with_memo, "the memo skipped a triplet it never tried");
        assert_eq!(memo_elims, f.elims);
    }

    /// The pruned walk visits exactly the four-sets of five digits that every
    /// four-set in Gosper's order would, in that order.
    #[test]
    fn quads_of_five_are_the_four_sets_of_five_digits_in_subsets_order() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut found = 0;
        for round in 0..500u64 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(round | 1);
            let k = (state >> 60) as usize % 10;
            // Half the rounds draw from six digits, where five-digit unions are common.
            let pool = if round % 2 == 0 { 0x3f } else { 0x1ff };
            let mut cand = [0u16; 9];
            for c in cand.iter_mut().take(k) {
                // Two to five digits of the pool, at random.
                loop {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    *c = (state & pool) as u16;
                    if (2..=5).contains(&c.count_ones()) {
                        break;
                    }
                }
            }
            let mut want = Vec::new();
            subsets(k, 4, |s| {
                let union = Bits(s).fold(0, |u, i| u | cand[i]);
                if union.count_ones() == 5 {
                    want.push((s, union));
                }
                false
            });
            let mut got = Vec::new();
            quads_of_five(&cand[..k], |s, union| got.push((s, union)));
            assert_eq!(got, want, "{:?}", &cand[..k]);
            found += got.len();
        }
        assert!(found >= 50, "only {found} sets of five digits met");
    }
}
