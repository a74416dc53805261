//! Exact canonical form of a 9×9 puzzle or grid, "pattern first" (the
//! convention of Dobrichev's `patminlex`, see DESIGN.md, "Canonical form").
//!
//! Two puzzles are the same up to symmetry exactly when their canonical forms are
//! equal, which is how the seed population is deduplicated and what the bank's
//! `canonical` column holds, so the form must be exact, and it is computed once
//! per seed, so it must be fast. The definition ranges over 3,359,232 geometric
//! maps; instead of trying them all ([`canonical_form_brute_force`], kept as the
//! test oracle), we build the answer one output row at a time and keep only the
//! partial maps that are still lexicographically minimal, representing the
//! column freedom that is not decided yet lazily, as an ordered partition of
//! stacks and of columns inside stacks. Valid full grids take a dedicated path
//! (their pattern is all ones, so only the digit minlex matters), driven by the
//! second row. Hot paths allocate nothing per puzzle: all buffers live in a
//! reusable [`Canonicalizer`].

use crate::engine::nxn::PERMS3;
use std::cell::RefCell;

/// Label meaning "no value yet / larger than any label" in comparisons.
const NONE: u8 = u8::MAX;

// ---------------------------------------------------------------------------
// Column freedom as an ordered partition (pattern phase and its expansion)
// ---------------------------------------------------------------------------

/// The set of column maps still allowed for one partial map, as a product:
/// an order of the three source stacks in which adjacent, *tied* slots may
/// still be swapped, times, for each source stack, an order of its three
/// columns with tied neighbours likewise swappable.
///
/// Invariant: every column map in this set gives the same output rows so far
/// (tied columns/stacks look identical in all rows placed), and refining by
/// the next row keeps exactly those members that minimise that row — the set
/// stays a product because a stack's best inner order does not depend on where
/// the stack lands, so the product form is closed under refinement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ColumnFreedom {
    /// Source stack at output stack slot 0, 1, 2.
    stack_order: [u8; 3],
    /// Bit i: stack slots i and i+1 may still be swapped (i = 0, 1).
    stack_ties: u8,
    /// Per *source* stack: the order of its columns and their ties, as an
    /// index into [`INNER_STATES`] (`order index * 4 + tie bits`, tie bit i:
    /// positions i and i+1 inside the stack may still be swapped).
    inner: [u8; 3],
}

impl ColumnFreedom {
    /// Nothing decided: every stack and column order is allowed.
    const OPEN: ColumnFreedom = ColumnFreedom {
        stack_order: [0, 1, 2],
        stack_ties: 0b11,
        inner: [0b11; 3], // identity order, both ties
    };

    /// Narrows the set to the members that make the row with clue mask `mask`
    /// (bit `c` = a clue in source column `c`) as small as possible, and returns
    /// that smallest row as a 9-bit value whose most significant bit is output
    /// column 0 (so integer order is the pattern string's order).
    ///
    /// Within a tied group of columns, empties go first (a '0' as early as
    /// possible); within a tied group of stacks, stacks go in order of their
    /// best 3-bit chunk. Ties survive only between equal neighbours.
    #[inline]
    fn refine(&mut self, mask: u16) -> u16 {
        let mut chunk = [0u8; 3]; // best chunk of each source stack
        for (s, chunk_s) in chunk.iter_mut().enumerate() {
            // One table lookup per stack: the clue bits of its three source
            // columns select the refined inner state and the best chunk.
            let bits = (mask >> (3 * s)) & 0b111;
            let entry = INNER_REFINE[self.inner[s] as usize][bits as usize];
            self.inner[s] = entry >> 3;
            *chunk_s = entry & 0b111;
        }
        let keys = self.stack_order.map(|s| chunk[s as usize]);
        let (order, ties, sorted) = sort3(self.stack_order, self.stack_ties, keys);
        self.stack_order = order;
        self.stack_ties = ties;
        ((sorted[0] as u16) << 6) | ((sorted[1] as u16) << 3) | sorted[2] as u16
    }

    /// Calls `f` with every concrete column map in the set (`cols[j]` = source
    /// column at output column `j`). At most 1296 maps, usually one.
    fn for_each_map(&self, mut f: impl FnMut(&[u8; 9])) {
        let mut cols = [0u8; 9];
        for sp in tied_orders(self.stack_ties) {
            let stacks = sp.map(|i| self.stack_order[i as usize]);
            let [s0, s1, s2] = stacks.map(|s| s as usize);
            let (i0, i1, i2) = (self.inner[s0], self.inner[s1], self.inner[s2]);
            for p0 in tied_orders(i0 & 0b11) {
                for p1 in tied_orders(i1 & 0b11) {
                    for p2 in tied_orders(i2 & 0b11) {
                        for (slot, (s, p)) in [(s0, p0), (s1, p1), (s2, p2)].iter().enumerate() {
                            for k in 0..3 {
                                cols[3 * slot + k] = (3 * s) as u8
                                    + INNER_STATES[self.inner[*s] as usize >> 2][p[k] as usize];
                            }
                        }
                        f(&cols);
                    }
                }
            }
        }
    }
}

/// Stable sort of three items by `keys`, but only inside tied runs (`ties` bit i
/// ties positions i and i+1). Returns the new item order, the new ties (a tie
/// survives only between equal keys) and the sorted keys.
#[inline]
const fn sort3(items: [u8; 3], ties: u8, keys: [u8; 3]) -> ([u8; 3], u8, [u8; 3]) {
    let (mut it, mut k) = (items, keys);
    // Insertion sort of a 3-element array (compare-swap at 0, 1, 0), never
    // moving across an untied border.
    let steps = [0, 1, 0];
    let mut s = 0;
    while s < 3 {
        let i = steps[s];
        if (ties >> i) & 1 == 1 && k[i] > k[i + 1] {
            let (ti, ki) = (it[i], k[i]);
            it[i] = it[i + 1];
            k[i] = k[i + 1];
            it[i + 1] = ti;
            k[i + 1] = ki;
        }
        s += 1;
    }
    let mut new_ties = 0;
    let mut i = 0;
    while i < 2 {
        if (ties >> i) & 1 == 1 && k[i] == k[i + 1] {
            new_ties |= 1 << i;
        }
        i += 1;
    }
    (it, new_ties, k)
}

/// The six orders of three items; an inner state is `index * 4 + tie bits`.
const INNER_STATES: [[u8; 3]; 6] = PERMS3;

/// `INNER_REFINE[state][bits]`: refining one stack's inner state (see
/// [`ColumnFreedom::inner`]) by the clue bits of its source columns (bit k =
/// column offset k) gives `new_state << 3 | best_chunk`. Precomputed because
/// [`ColumnFreedom::refine`] is the pattern phase's inner loop: 24 × 8 entries.
const INNER_REFINE: [[u8; 8]; 24] = {
    let mut table = [[0u8; 8]; 24];
    let mut state = 0;
    while state < 24 {
        let order = INNER_STATES[state / 4];
        let ties = (state % 4) as u8;
        let mut bits = 0;
        while bits < 8 {
            let keys = [
                (bits >> order[0]) & 1,
                (bits >> order[1]) & 1,
                (bits >> order[2]) & 1,
            ];
            let (new_order, new_ties, sorted) = sort3(order, ties, keys);
            let mut index = 0;
            while !(INNER_STATES[index][0] == new_order[0]
                && INNER_STATES[index][1] == new_order[1]
                && INNER_STATES[index][2] == new_order[2])
            {
                index += 1;
            }
            let chunk = (sorted[0] << 2) | (sorted[1] << 1) | sorted[2];
            table[state][bits as usize] = ((index as u8 * 4 + new_ties) << 3) | chunk;
            bits += 1;
        }
        state += 1;
    }
    table
};

/// All orders of three positions allowed by tie bits (see [`sort3`]).
fn tied_orders(ties: u8) -> &'static [[u8; 3]] {
    match ties {
        0b00 => &PERMS3[..1],
        0b01 => &[[0, 1, 2], [1, 0, 2]],
        0b10 => &PERMS3[..2],
        _ => &PERMS3,
    }
}

/// A partial geometric map in the pattern phase: orientation, the source rows
/// of the output rows placed so far, and the column freedom left.
#[derive(Clone, Copy, Debug)]
struct PartialMap {
    transposed: bool,
    rows: [u8; 9],
    used_rows: u16,
    cols: ColumnFreedom,
}

// ---------------------------------------------------------------------------
// The canonicalizer
// ---------------------------------------------------------------------------

/// Reusable scratch space for [`canonical_form`]: keep one per thread and call
/// [`Canonicalizer::canonical_form`] for each puzzle; its buffers grow to the
/// largest need once and are then reused, so no call allocates after warm-up.
#[derive(Debug, Default)]
pub struct Canonicalizer {
    current: Vec<PartialMap>,
    next: Vec<PartialMap>,
    leaves: Vec<Leaf>,
}

impl Canonicalizer {
    /// A canonicalizer with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The canonical form of `cells` (0 = empty, 1..=9 = digits), with 0 for
    /// empty cells: see [`canonical_form`].
    pub fn canonical_form(&mut self, cells: &[u8; 81]) -> [u8; 81] {
        let grids = [*cells, transposed(cells)];
        if is_valid_full_grid(cells) {
            return full_grid_minlex(&grids, &mut self.leaves);
        }
        self.pattern_first(&grids)
    }

    /// General path: pattern phase (row by row over partial maps with lazy
    /// column freedom), then the digit phase over the survivors.
    fn pattern_first(&mut self, grids: &[[u8; 81]; 2]) -> [u8; 81] {
        // Clue masks of every row in both orientations: bit c = clue in column c.
        // Branch-free: whether a cell is empty is unpredictable, and a
        // mispredicted branch per cell cost a third of the whole call.
        let mut masks = [[0u16; 9]; 2];
        for (i, &d) in grids[0].iter().enumerate() {
            let (r, c) = (i / 9, i % 9);
            let clue = (d != 0) as u16;
            masks[0][r] |= clue << c;
            masks[1][c] |= clue << r;
        }

        // Pattern phase. Invariant after step k: `current` holds every partial
        // map (orientation, source rows of output rows 0..=k, column freedom)
        // whose first k+1 pattern rows equal the smallest achievable ones,
        // `pattern[0..=k]`. Lexicographic order is decided row by row, so
        // dropping anything larger at any step never loses the minimum.
        let mut pattern = [0u16; 9];
        self.current.clear();
        for transposed in [false, true] {
            self.current.push(PartialMap {
                transposed,
                rows: [0; 9],
                used_rows: 0,
                cols: ColumnFreedom::OPEN,
            });
        }
        for (k, pattern_k) in pattern.iter_mut().enumerate() {
            let mut best = u16::MAX;
            self.next.clear();
            for pm in &self.current {
                // Bands stay together: output rows 3b..3b+3 come from one source
                // band, so a band's first row may be any row of an unused band and
                // the next ones only the unused rows of the same band.
                let allowed: u16 = if k % 3 == 0 {
                    let mut a = 0;
                    for b in 0..3 {
                        if pm.used_rows >> (3 * b) & 0b111 == 0 {
                            a |= 0b111 << (3 * b);
                        }
                    }
                    a
                } else {
                    let b = pm.rows[k - 1] / 3;
                    (0b111 << (3 * b)) & !pm.used_rows
                };
                let row_masks = &masks[pm.transposed as usize];
                for (src, &row_mask) in row_masks.iter().enumerate() {
                    if allowed >> src & 1 == 0 {
                        continue;
                    }
                    let mut cols = pm.cols;
                    let value = cols.refine(row_mask);
                    if value > best {
                        continue;
                    }
                    if value < best {
                        best = value;
                        self.next.clear();
                    }
                    let mut rows = pm.rows;
                    rows[k] = src as u8;
                    self.next.push(PartialMap {
                        transposed: pm.transposed,
                        rows,
                        used_rows: pm.used_rows | 1 << src,
                        cols,
                    });
                }
            }
            *pattern_k = best;
            std::mem::swap(&mut self.current, &mut self.next);
        }

        // The minimal pattern's clue cells, in row-major (= comparison) order.
        let mut clue_cells = [0u8; 82]; // one spare slot for the branch-free append
        let mut n_clues = 0;
        for (r, &row) in pattern.iter().enumerate() {
            for j in 0..9 {
                // Branch-free append: always write, advance only on a clue.
                clue_cells[n_clues] = (r * 9 + j) as u8;
                n_clues += (row >> (8 - j) & 1) as usize;
            }
        }
        let clue_cells = &clue_cells[..n_clues];

        // Digit phase: every survivor, with every column map its freedom still
        // allows (these all give the minimal pattern), relabelled by first
        // appearance and compared clue by clue with the best so far. The
        // comparison stops at the first larger label; from the first smaller one
        // on, the labels are written straight into `best` (its prefix is equal).
        let mut best = [NONE; 81];
        for pm in &self.current {
            let g = &grids[pm.transposed as usize];
            pm.cols.for_each_map(|cols| {
                let mut labels = [0u8; 10];
                let mut next_label = 1;
                let mut smaller = false;
                for (i, &cell) in clue_cells.iter().enumerate() {
                    let (r, j) = (cell as usize / 9, cell as usize % 9);
                    let d = g[pm.rows[r] as usize * 9 + cols[j] as usize] as usize;
                    if labels[d] == 0 {
                        labels[d] = next_label;
                        next_label += 1;
                    }
                    let l = labels[d];
                    if !smaller {
                        if l > best[i] {
                            return;
                        }
                        smaller = l < best[i];
                    }
                    if smaller {
                        best[i] = l;
                    }
                }
            });
        }

        let mut out = [0u8; 81];
        for (i, &cell) in clue_cells.iter().enumerate() {
            out[cell as usize] = best[i];
        }
        out
    }
}

/// The canonical form of a puzzle or full grid (0 = empty, 1..=9 = digits),
/// "pattern first": over all 3,359,232 geometric maps take the smallest clue
/// pattern ('0' empty < '1' given, row-major), then, among the maps reaching
/// it, the smallest string after relabelling digits 1, 2, 3, … in order of
/// first appearance. Empty cells are 0 in the result. Exact; uses a
/// thread-local [`Canonicalizer`], so it allocates only on a thread's first
/// calls.
///
/// # Panics
/// If a cell holds a value above 9 (parse input with the grid module first).
pub fn canonical_form(cells: &[u8; 81]) -> [u8; 81] {
    thread_local! {
        static CANONICALIZER: RefCell<Canonicalizer> = RefCell::new(Canonicalizer::new());
    }
    CANONICALIZER.with(|c| c.borrow_mut().canonical_form(cells))
}

fn transposed(cells: &[u8; 81]) -> [u8; 81] {
    let mut out = [0u8; 81];
    for r in 0..9 {
        for c in 0..9 {
            out[c * 9 + r] = cells[r * 9 + c];
        }
    }
    out
}

/// Every row, column and box holds each of 1..=9 exactly once.
fn is_valid_full_grid(g: &[u8; 81]) -> bool {
    let mut rows = [0u16; 9];
    let mut cols = [0u16; 9];
    let mut boxes = [0u16; 9];
    for (i, &d) in g.iter().enumerate() {
        if !(1..=9).contains(&d) {
            return false;
        }
        let (r, c) = (i / 9, i % 9);
        rows[r] |= 1 << d;
        cols[c] |= 1 << d;
        boxes[r / 3 * 3 + c / 3] |= 1 << d;
    }
    rows.iter().chain(&cols).chain(&boxes).all(|&m| m == 0x3fe)
}

// ---------------------------------------------------------------------------
// Valid full grids: plain minlex, driven by the second row
// ---------------------------------------------------------------------------

/// Packs a row of labels (each ≤ 9) into a u64, first cell most significant,
/// so that integer order is lexicographic order.
#[inline]
fn pack_row(labels: impl Iterator<Item = u8>) -> u64 {
    labels.fold(0u64, |acc, l| acc << 4 | l as u64)
}

/// Minlex of a valid full grid (its pattern is all ones).
///
/// Whatever the map, row 0 relabels to 123456789, so a label is just "the
/// output column where row 0 holds that digit". With row 0 from source row
/// `r0` and row 1 from `r1` (same band: 36 *roots* with the orientation), let
/// `p(c)` be the column where row `r0` holds the digit that row `r1` has in
/// column `c`; output row 1 then reads `q(j) = pos(p(col(j))) + 1`, the
/// conjugate of `p` by the column map, and we want the smallest `q`.
///
/// Pass 1 enumerates only the column maps that can give the smallest first
/// three labels. In a valid grid `p` sends the three columns of a stack `S0`
/// into the two *other* stacks (box rule), `m1` = 3 or 2 of them into one
/// stack `T1` and the rest into `T2`. `q(0)` is always 4 (`p(col(0))` goes to
/// position 3 at best, opening slot 1), and the first triple is at best
/// 4,5,6 when `m1` = 3 and 4,5,7 when `m1` = 2, reached exactly when slot 0
/// holds `S0`'s `T1`-columns then its `T2`-column, slot 1 holds `T1` starting
/// with their images in that order, and slot 2 holds `T2` starting with the
/// remaining image. So only stacks with the largest `m1` over all roots open
/// row 1, and the free choices left are the orders inside those groups: 4
/// maps per (root, `S0`) when `m1` = 2, 36 when `m1` = 3. Each map's `q` is
/// computed outright; all maps reaching the smallest `q` are kept (`leaves`).
///
/// Pass 2 labels each kept map's grid: row 2 is the band's third row, the
/// other two bands are sorted (rows inside a band ascending, then bands by
/// their rows), and the smallest grid wins. Splitting the passes matters: a
/// map is fully labelled only if its row 1 is the global minimum.
fn full_grid_minlex(grids: &[[u8; 81]; 2], leaves: &mut Vec<Leaf>) -> [u8; 81] {
    /// Orders of k = 0..=3 items (indices into a group), padded to 3.
    const ORDERS: [&[[u8; 3]]; 4] = [
        PERMS3.split_at(1).0,
        PERMS3.split_at(1).0,
        &[[0, 1, 2], [1, 0, 2]],
        &PERMS3,
    ];

    // The 36 roots, and the largest m1 among all (root, S0).
    let mut roots = [(false, [0u8; 3], [0u8; 9]); 36];
    let mut best_m1 = 2;
    for (i, root) in roots.iter_mut().enumerate() {
        let (t, r0, r1_offset) = (i / 18, i / 2 % 9, i % 2);
        let h = &grids[t];
        let band = r0 / 3 * 3;
        // The two other rows of r0's band, in order; r1 is one, r2 the other.
        let others = [band, band + 1, band + 2];
        let mut others_it = others.iter().filter(|&&r| r != r0);
        let (a, b) = (
            *others_it.next().expect("a band has three rows"),
            *others_it.next().expect("a band has three rows"),
        );
        let (r1, r2) = if r1_offset == 0 { (a, b) } else { (b, a) };
        let mut pos0 = [0u8; 10];
        for c in 0..9 {
            pos0[h[r0 * 9 + c] as usize] = c as u8;
        }
        let mut p = [0u8; 9];
        for (c, pc) in p.iter_mut().enumerate() {
            *pc = pos0[h[r1 * 9 + c] as usize];
        }
        for s in 0..3 {
            let img = [0, 1, 2].map(|k| p[3 * s + k] / 3);
            if img[0] == img[1] && img[1] == img[2] {
                best_m1 = 3;
            }
        }
        *root = (t == 1, [r0 as u8, r1 as u8, r2 as u8], p);
    }

    leaves.clear();
    let mut best_q = u64::MAX;
    for &(transposed, rows, p) in &roots {
        for s0 in 0..3u8 {
            let img = [0, 1, 2].map(|k| p[(3 * s0 + k) as usize] / 3);
            // T1 is the image stack of at least two of S0's columns.
            let t1 = if img[0] == img[1] { img[0] } else { img[2] };
            let m1 = img.iter().filter(|&&x| x == t1).count();
            if m1 < best_m1 {
                continue;
            }
            let t2 = 3 - s0 - t1;
            // g1/g2: S0's columns going to T1/T2; rest1/rest2: the columns of
            // T1/T2 that are nobody's image from S0.
            let (mut g1, mut g2, mut rest1, mut rest2) = ([0u8; 3], [0u8; 3], [0u8; 3], [0u8; 3]);
            let (mut n1, mut n2, mut nr1, mut nr2) = (0, 0, 0, 0);
            for c in 3 * s0..3 * s0 + 3 {
                if p[c as usize] / 3 == t1 {
                    g1[n1] = c;
                    n1 += 1;
                } else {
                    g2[n2] = c;
                    n2 += 1;
                }
            }
            for k in 0..3 {
                let (c1, c2) = (3 * t1 + k, 3 * t2 + k);
                if !g1[..n1].iter().any(|&g| p[g as usize] == c1) {
                    rest1[nr1] = c1;
                    nr1 += 1;
                }
                if !g2[..n2].iter().any(|&g| p[g as usize] == c2) {
                    rest2[nr2] = c2;
                    nr2 += 1;
                }
            }
            for o1 in ORDERS[n1] {
                for o2 in ORDERS[n2] {
                    for o3 in ORDERS[nr1] {
                        for o4 in ORDERS[nr2] {
                            let mut cols = [0u8; 9];
                            let mut n = 0;
                            let mut push = |c: u8| {
                                cols[n] = c;
                                n += 1;
                            };
                            (0..n1).for_each(|i| push(g1[o1[i] as usize]));
                            (0..n2).for_each(|i| push(g2[o2[i] as usize]));
                            (0..n1).for_each(|i| push(p[g1[o1[i] as usize] as usize]));
                            (0..nr1).for_each(|i| push(rest1[o3[i] as usize]));
                            (0..n2).for_each(|i| push(p[g2[o2[i] as usize] as usize]));
                            (0..nr2).for_each(|i| push(rest2[o4[i] as usize]));
                            debug_assert_eq!(n, 9);
                            let mut pos_of = [0u8; 9];
                            for (j, &c) in cols.iter().enumerate() {
                                pos_of[c as usize] = j as u8;
                            }
                            // q, stopping at the first label above best_q's
                            // (most maps lose within a few labels).
                            let mut q = 0u64;
                            let mut smaller = false;
                            let mut lost = false;
                            for (j, &c) in cols.iter().enumerate() {
                                let label = pos_of[p[c as usize] as usize] + 1;
                                q = q << 4 | label as u64;
                                if !smaller {
                                    let best_label = (best_q >> (4 * (8 - j)) & 0xf) as u8;
                                    if label > best_label {
                                        lost = true;
                                        break;
                                    }
                                    smaller = label < best_label;
                                }
                            }
                            if lost {
                                continue;
                            }
                            if q < best_q {
                                best_q = q;
                                leaves.clear();
                            }
                            leaves.push(Leaf {
                                transposed,
                                rows,
                                cols,
                            });
                        }
                    }
                }
            }
        }
    }

    // Pass 2. Rows 0 and 1 are equal for all leaves; compare from row 2 on,
    // labelling the other bands only when row 2 does not already lose.
    let mut best = [u64::MAX; 9];
    for leaf in leaves.iter() {
        let h = &grids[leaf.transposed as usize];
        let mut label = [0u8; 10];
        for j in 0..9 {
            label[h[leaf.rows[0] as usize * 9 + leaf.cols[j] as usize] as usize] = j as u8 + 1;
        }
        let row =
            |r: usize| pack_row((0..9).map(|j| label[h[r * 9 + leaf.cols[j] as usize] as usize]));
        let row2 = row(leaf.rows[2] as usize);
        if row2 > best[2] {
            continue;
        }
        let top = leaf.rows[0] / 3;
        let mut bands = [[0u64; 3]; 2];
        for (n, b) in (0..3u8).filter(|&b| b != top).enumerate() {
            bands[n] = [0, 1, 2].map(|i| row(3 * b as usize + i));
            bands[n].sort_unstable();
        }
        bands.sort_unstable();
        let mut cand = [0u64; 9];
        cand[2] = row2;
        cand[3..6].copy_from_slice(&bands[0]);
        cand[6..9].copy_from_slice(&bands[1]);
        if cand < best {
            best = cand;
        }
    }
    best[0] = pack_row(1..=9);
    best[1] = best_q;
    let mut out = [0u8; 81];
    for (r, &packed) in best.iter().enumerate() {
        for j in 0..9 {
            out[r * 9 + j] = (packed >> (4 * (8 - j)) & 0xf) as u8;
        }
    }
    out
}

/// A complete map of the top band kept by pass 1 of [`full_grid_minlex`].
#[derive(Clone, Copy, Debug)]
struct Leaf {
    transposed: bool,
    /// Source rows of output rows 0, 1, 2.
    rows: [u8; 3],
    /// Source column at each output column.
    cols: [u8; 9],
}

// ---------------------------------------------------------------------------
// Reference implementation (tests only)
// ---------------------------------------------------------------------------

/// The canonical form by definition: literally every one of the 3,359,232
/// geometric maps, pattern compared first, then the relabelled digits. About
/// a second per call in release; for tests only.
pub fn canonical_form_brute_force(cells: &[u8; 81]) -> [u8; 81] {
    // All 1296 band-respecting line maps.
    let mut line_maps = Vec::with_capacity(1296);
    let perms3 = PERMS3;
    for chutes in perms3 {
        for a in perms3 {
            for b in perms3 {
                for c in perms3 {
                    let mut m = [0u8; 9];
                    for (slot, inner) in [a, b, c].iter().enumerate() {
                        for k in 0..3 {
                            m[3 * slot + k] = 3 * chutes[slot] + inner[k];
                        }
                    }
                    line_maps.push(m);
                }
            }
        }
    }

    let grids = [*cells, transposed(cells)];
    let mut best_pattern = u128::MAX;
    let mut best = [NONE; 81];
    for g in &grids {
        for cols in &line_maps {
            // Pattern of every source row under this column map.
            let mut row_pattern = [0u128; 9];
            for (r, rp) in row_pattern.iter_mut().enumerate() {
                for &c in cols {
                    *rp = *rp << 1 | (g[r * 9 + c as usize] != 0) as u128;
                }
            }
            for rows in &line_maps {
                let pattern = rows
                    .iter()
                    .fold(0u128, |acc, &r| acc << 9 | row_pattern[r as usize]);
                if pattern > best_pattern {
                    continue;
                }
                if pattern < best_pattern {
                    best_pattern = pattern;
                    best = [NONE; 81];
                }
                let mut labels = [0u8; 10];
                let mut next_label = 1;
                let mut cand = [0u8; 81];
                for (i, out) in cand.iter_mut().enumerate() {
                    let d = g[rows[i / 9] as usize * 9 + cols[i % 9] as usize] as usize;
                    if d != 0 {
                        if labels[d] == 0 {
                            labels[d] = next_label;
                            next_label += 1;
                        }
                        *out = labels[d];
                    }
                }
                if cand < best {
                    best = cand;
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    type Transform = crate::engine::nxn::transform::Transform<crate::engine::nxn::Box3>;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    const SMALLEST_GRID: &str =
        "123456789456789123789123456214365897365897214897214365531642978642978531978531642";
    const EXAMPLE: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";
    const EXAMPLE_CANON: &str =
        "000000001002001000003040050004000602010070508200600040050200700408700000701308000";

    /// Minimal puzzles, every 200th line of /work/shared/data/qqwing-10k.txt.
    const PUZZLES: [&str; 12] = [
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2",
        ".3.5..7...9....634....49..594.......3.........6....1...7.6.5.1.....9438....8.3...",
        "....5....2.86..9...39.7....94.........7.......26..9.5....4.7..83..86.59.6.....2.7",
        "..43.26..8.....2....6.....1...138........4........7..8.1..5..3..32.7.18.6.5....7.",
        "..4.1.72..1.....5.7.....1.48.5......26.8.1.9...1.962......78...5.....6......24...",
        "...1..56...5.78.12...62..7...8..2.9.......1.7...35..2..3.........1...2..52...7..6",
        "......2....9..4....7.......5.6..9..4......9....4275.8.4.5.87....9215......89..6..",
        ".5...2...6..9.71..8..3..5.6......2..1..7...8........7......9...38..7...952.83....",
        ".......5......3.......594...9.....83.3..7...6.57..8...96.2.....4....63.9.857.....",
        ".6.1...7.9..73..8..23..6.....7.................8.9..17..1....63..9..5..8.5......2",
        "6..29..4...93.87.2..1.6.3..3.2...8...97.....41.4....76....37......98.......6.....",
        "..2.7.5.....6......3.....2.45.9.8.728.......56.3..5..9..8......7...2..3..4..6.9..",
    ];

    fn parse(s: &str) -> [u8; 81] {
        assert_eq!(s.len(), 81);
        let mut cells = [0u8; 81];
        for (cell, ch) in cells.iter_mut().zip(s.bytes()) {
            *cell = match ch {
                b'.' | b'0' => 0,
                b'1'..=b'9' => ch - b'0',
                _ => panic!("bad test fixture character {ch}"),
            };
        }
        cells
    }

    fn show(cells: &[u8; 81]) -> String {
        cells.iter().map(|&d| (b'0' + d) as char).collect()
    }

    /// Full grids of different classes: the solutions of some fixture puzzles
    /// (solved by the peer crate), plus the smallest grid.
    fn grids() -> Vec<[u8; 81]> {
        let mut out = vec![parse(SMALLEST_GRID)];
        for p in &PUZZLES[..4] {
            let s = sudoku::Sudoku::from_str_line(p)
                .expect("fixture puzzles parse")
                .solution()
                .expect("fixture puzzles are uniquely solvable");
            out.push(s.to_bytes());
        }
        out
    }

    /// Random clue sets with arbitrary (not necessarily valid) digits: sparse
    /// patterns have many automorphisms and so stress the tie handling.
    fn random_boards(seed: u64, n_clues: usize, n_digits: u8) -> [u8; 81] {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut cells = [0u8; 81];
        let mut placed = 0;
        while placed < n_clues {
            let i = rng.random_range(0..81);
            if cells[i] == 0 {
                cells[i] = rng.random_range(1..=n_digits);
                placed += 1;
            }
        }
        cells
    }

    #[test]
    fn design_examples() {
        let g = parse(SMALLEST_GRID);
        assert_eq!(show(&canonical_form(&g)), SMALLEST_GRID);
        assert_eq!(show(&canonical_form(&parse(EXAMPLE))), EXAMPLE_CANON);
    }

    /// The defining property: the form is a class invariant.
    #[test]
    fn invariant_under_random_transforms() {
        let mut rng = Pcg64::seed_from_u64(2024);
        let mut boards: Vec<[u8; 81]> = PUZZLES[..6].iter().map(|p| parse(p)).collect();
        boards.extend(grids());
        boards.push(random_boards(1, 9, 4));
        for board in &boards {
            let expected = canonical_form(board);
            for _ in 0..1000 {
                let t = Transform::random(&mut rng);
                let got = canonical_form(&t.apply(board));
                assert_eq!(
                    show(&got),
                    show(&expected),
                    "board {} under {t:?}",
                    show(board)
                );
            }
        }
    }

    /// The form is itself in the class: same clue count, a valid grid stays
    /// valid, and it is its own canonical form.
    #[test]
    fn form_is_a_fixed_point_of_the_class() {
        let mut boards: Vec<[u8; 81]> = PUZZLES.iter().map(|p| parse(p)).collect();
        boards.extend(grids());
        for board in &boards {
            let form = canonical_form(board);
            let n = |b: &[u8; 81]| b.iter().filter(|&&d| d != 0).count();
            assert_eq!(n(&form), n(board));
            assert_eq!(canonical_form(&form), form);
            if is_valid_full_grid(board) {
                assert!(is_valid_full_grid(&form));
            }
        }
        // Different classes give different forms.
        let forms: std::collections::HashSet<_> = boards.iter().map(canonical_form).collect();
        assert_eq!(forms.len(), boards.len());
    }

    /// Against the definition itself, over every one of the 3,359,232 maps.
    /// About a second per board in release; ignored in debug builds (run with
    /// `cargo test --release`).
    #[test]
    #[cfg_attr(debug_assertions, ignore = "slow in debug: run with --release")]
    fn matches_brute_force() {
        let mut boards: Vec<[u8; 81]> = PUZZLES[..4].iter().map(|p| parse(p)).collect();
        boards.extend(grids().into_iter().take(3));
        boards.push(random_boards(7, 6, 3));
        boards.push(random_boards(8, 14, 9));
        for board in &boards {
            assert_eq!(
                show(&canonical_form(board)),
                show(&canonical_form_brute_force(board)),
                "board {}",
                show(board)
            );
        }
    }

    /// The brute force agrees with DESIGN.md too, so it is a trustworthy oracle.
    #[test]
    #[cfg_attr(debug_assertions, ignore = "slow in debug: run with --release")]
    fn brute_force_matches_design_example() {
        assert_eq!(
            show(&canonical_form_brute_force(&parse(EXAMPLE))),
            EXAMPLE_CANON
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(300))]
        /// Arbitrary boards (any clue count, arbitrary digits, so also
        /// unsolvable and highly symmetric ones) keep their form under any
        /// group element, and the form keeps the clue count.
        #[test]
        fn invariant_on_arbitrary_boards(
            board_seed in proptest::prelude::any::<u64>(),
            map_seed in proptest::prelude::any::<u64>(),
            n_clues in 0usize..=81,
        ) {
            let board = random_boards(board_seed, n_clues, 9);
            let t = Transform::random(&mut Pcg64::seed_from_u64(map_seed));
            let form = canonical_form(&board);
            proptest::prop_assert_eq!(show(&canonical_form(&t.apply(&board))), show(&form));
            proptest::prop_assert_eq!(form.iter().filter(|&&d| d != 0).count(), n_clues);
        }
    }

    #[test]
    fn empty_and_invalid_full_boards() {
        let empty = [0u8; 81];
        assert_eq!(canonical_form(&empty), empty);
        // A full board that is not a valid grid takes the general path.
        let mut bad = parse(SMALLEST_GRID);
        bad[0] = bad[1];
        let t = Transform::rotate90().compose(&Transform::relabel(&[2, 3, 1, 5, 4, 6, 7, 9, 8]));
        assert_eq!(canonical_form(&bad), canonical_form(&t.apply(&bad)));
    }

    #[test]
    fn column_freedom_expands_to_distinct_maps() {
        let mut seen = std::collections::HashSet::new();
        ColumnFreedom::OPEN.for_each_map(|m| {
            assert!(seen.insert(*m));
        });
        assert_eq!(seen.len(), 1296);
    }
}
