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
    /// Per *source* stack: its column offsets (0..3) in output order.
    col_order: [[u8; 3]; 3],
    /// Per source stack, bit i: positions i and i+1 inside it are tied.
    col_ties: [u8; 3],
}

impl ColumnFreedom {
    /// Nothing decided: every stack and column order is allowed.
    const OPEN: ColumnFreedom = ColumnFreedom {
        stack_order: [0, 1, 2],
        stack_ties: 0b11,
        col_order: [[0, 1, 2]; 3],
        col_ties: [0b11; 3],
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
            let order = &mut self.col_order[s];
            let bits = [0, 1, 2].map(|k| ((mask >> (3 * s + order[k] as usize)) & 1) as u8);
            let (new_order, new_ties, sorted) = sort3(*order, self.col_ties[s], bits);
            *order = new_order;
            self.col_ties[s] = new_ties;
            *chunk_s = (sorted[0] << 2) | (sorted[1] << 1) | sorted[2];
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
            for p0 in tied_orders(self.col_ties[s0]) {
                for p1 in tied_orders(self.col_ties[s1]) {
                    for p2 in tied_orders(self.col_ties[s2]) {
                        for (slot, (s, p)) in [(s0, p0), (s1, p1), (s2, p2)].iter().enumerate() {
                            for k in 0..3 {
                                cols[3 * slot + k] =
                                    (3 * s) as u8 + self.col_order[*s][p[k] as usize];
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
fn sort3(items: [u8; 3], ties: u8, keys: [u8; 3]) -> ([u8; 3], u8, [u8; 3]) {
    let (mut it, mut k) = (items, keys);
    // Insertion sort of a 3-element array, never moving across an untied border.
    let swap_if = |it: &mut [u8; 3], k: &mut [u8; 3], i: usize| {
        if ties >> i & 1 == 1 && k[i] > k[i + 1] {
            it.swap(i, i + 1);
            k.swap(i, i + 1);
        }
    };
    swap_if(&mut it, &mut k, 0);
    swap_if(&mut it, &mut k, 1);
    swap_if(&mut it, &mut k, 0);
    let mut new_ties = 0;
    for i in 0..2 {
        if ties >> i & 1 == 1 && k[i] == k[i + 1] {
            new_ties |= 1 << i;
        }
    }
    (it, new_ties, k)
}

/// All orders of three positions allowed by tie bits (see [`sort3`]).
fn tied_orders(ties: u8) -> &'static [[u8; 3]] {
    const ALL: [[u8; 3]; 6] = [
        [0, 1, 2],
        [1, 0, 2],
        [0, 2, 1],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    match ties {
        0b00 => &ALL[..1],
        0b01 => &ALL[..2],
        0b10 => &[[0, 1, 2], [0, 2, 1]],
        _ => &ALL,
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
            return full_grid_minlex(&grids);
        }
        self.pattern_first(&grids)
    }

    /// General path: pattern phase (row by row over partial maps with lazy
    /// column freedom), then the digit phase over the survivors.
    fn pattern_first(&mut self, grids: &[[u8; 81]; 2]) -> [u8; 81] {
        // Clue masks of every row in both orientations: bit c = clue in column c.
        let mut masks = [[0u16; 9]; 2];
        for (t, g) in grids.iter().enumerate() {
            for r in 0..9 {
                for c in 0..9 {
                    if g[r * 9 + c] != 0 {
                        masks[t][r] |= 1 << c;
                    }
                }
            }
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
                for src in 0..9 {
                    if allowed >> src & 1 == 0 {
                        continue;
                    }
                    let mut cols = pm.cols;
                    let value = cols.refine(row_masks[src]);
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
        let mut clue_cells = [0u8; 81];
        let mut n_clues = 0;
        for (r, &row) in pattern.iter().enumerate() {
            for j in 0..9 {
                if row >> (8 - j) & 1 == 1 {
                    clue_cells[n_clues] = (r * 9 + j) as u8;
                    n_clues += 1;
                }
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
/// `r0` and row 1 from `r1` (same band), let `p(c)` be the column where row
/// `r0` holds the digit that `r1` has in column `c`; output row 1 then reads
/// `q(j) = pos(p(col(j))) + 1`, the conjugate of `p` by the column map. We
/// minimise `q` slot by slot with a depth-first search over the column map
/// that assigns positions *lazily*: when `p(col(j))` has no position yet, it
/// takes the smallest one still possible (first free column of its stack's
/// slot, or the next free stack slot), since anything else makes `q(j)` larger.
/// In a valid grid `p` moves every column to another stack (box rule), so this
/// never clashes with the column being placed. Each finished column map fixes
/// all labels; the other two bands are then sorted (rows inside a band
/// ascending, bands by their rows), and the full grid is compared with the best.
fn full_grid_minlex(grids: &[[u8; 81]; 2]) -> [u8; 81] {
    let mut search = FullGridSearch {
        h: &grids[0],
        rows: [0; 3],
        p: [0; 9],
        pos_of: [NONE; 9],
        col_at: [NONE; 9],
        stack_at: [NONE; 3],
        slot_of: [NONE; 3],
        q: [0; 9],
        best: [u64::MAX; 9],
    };
    for h in grids {
        search.h = h;
        for r0 in 0..9 {
            let mut pos0 = [0u8; 10];
            for c in 0..9 {
                pos0[h[r0 * 9 + c] as usize] = c as u8;
            }
            let band = r0 / 3 * 3;
            for r1 in band..band + 3 {
                if r1 == r0 {
                    continue;
                }
                let r2 = 3 * band + 3 - r0 - r1; // the band's third row
                search.rows = [r0 as u8, r1 as u8, r2 as u8];
                for c in 0..9 {
                    search.p[c] = pos0[h[r1 * 9 + c] as usize];
                }
                search.dfs(0, false);
            }
        }
    }
    let mut out = [0u8; 81];
    for (r, &packed) in search.best.iter().enumerate() {
        for j in 0..9 {
            out[r * 9 + j] = (packed >> (4 * (8 - j)) & 0xf) as u8;
        }
    }
    out
}

/// State of the second-row search in [`full_grid_minlex`].
struct FullGridSearch<'a> {
    /// The grid in the current orientation.
    h: &'a [u8; 81],
    /// Source rows of output rows 0, 1, 2 (the top band).
    rows: [u8; 3],
    /// Row-1-to-row-0 column map (see [`full_grid_minlex`]).
    p: [u8; 9],
    /// Output column of each source column, or NONE.
    pos_of: [u8; 9],
    /// Source column at each output column, or NONE.
    col_at: [u8; 9],
    /// Source stack at each output stack slot, or NONE; and its inverse.
    stack_at: [u8; 3],
    slot_of: [u8; 3],
    /// Output row 1 as built so far (labels 1..=9).
    q: [u8; 9],
    /// Best grid so far, one packed row each (see [`pack_row`]).
    best: [u64; 9],
}

impl FullGridSearch<'_> {
    /// Places source column `c` at output column `pos` (and its stack at that
    /// slot if it had none). Returns what to undo: whether the stack was new.
    #[inline]
    fn place(&mut self, c: u8, pos: u8) -> bool {
        self.pos_of[c as usize] = pos;
        self.col_at[pos as usize] = c;
        let (s, slot) = (c / 3, pos / 3);
        if self.slot_of[s as usize] == NONE {
            self.slot_of[s as usize] = slot;
            self.stack_at[slot as usize] = s;
            true
        } else {
            false
        }
    }

    #[inline]
    fn unplace(&mut self, c: u8, new_stack: bool) {
        let pos = self.pos_of[c as usize];
        self.pos_of[c as usize] = NONE;
        self.col_at[pos as usize] = NONE;
        if new_stack {
            let s = c / 3;
            self.stack_at[self.slot_of[s as usize] as usize] = NONE;
            self.slot_of[s as usize] = NONE;
        }
    }

    /// Chooses the source column for output column `j` of row 1. `smaller`:
    /// `q[..j]` is already below the best grid's row 1 (so no pruning).
    fn dfs(&mut self, j: usize, smaller: bool) {
        if j == 9 {
            self.finish();
            return;
        }
        let slot = j / 3;
        // Candidates for output column j: forced if a lazy assignment already
        // put a column there; else the free columns of the stack at this slot;
        // else (slot still empty) any column of any unplaced stack.
        let forced = self.col_at[j];
        let mut candidates = 0u16;
        if forced != NONE {
            candidates = 1 << forced;
        } else if self.stack_at[slot] != NONE {
            let s = self.stack_at[slot];
            for c in 3 * s..3 * s + 3 {
                if self.pos_of[c as usize] == NONE {
                    candidates |= 1 << c;
                }
            }
        } else {
            for c in 0..9u8 {
                if self.slot_of[c as usize / 3] == NONE {
                    candidates |= 1 << c;
                }
            }
        }
        let best_label = (self.best[1] >> (4 * (8 - j)) & 0xf) as u8;
        while candidates != 0 {
            let c = candidates.trailing_zeros() as u8;
            candidates &= candidates - 1;
            let placed_c = forced == NONE;
            let new_stack_c = placed_c && self.place(c, j as u8);
            let d = self.p[c as usize];
            // Position of d: known, or the smallest still possible (lazy).
            let mut placed_d = None;
            let pos_d = if self.pos_of[d as usize] != NONE {
                self.pos_of[d as usize]
            } else {
                let s = d / 3;
                let slot_d = if self.slot_of[s as usize] != NONE {
                    self.slot_of[s as usize]
                } else {
                    // Slots up to j's are taken (filled in order), so the first
                    // free slot is the smallest unassigned one.
                    (0..3u8)
                        .find(|&sl| self.stack_at[sl as usize] == NONE)
                        .expect("d's stack is unplaced, so a stack slot is free")
                };
                let pos = (3 * slot_d..3 * slot_d + 3)
                    .find(|&x| self.col_at[x as usize] == NONE)
                    .expect("d is unplaced, so its stack's slot has a free column");
                placed_d = Some(self.place(d, pos));
                pos
            };
            let label = pos_d + 1;
            if smaller || label <= best_label {
                self.q[j] = label;
                self.dfs(j + 1, smaller || label < best_label);
            }
            if let Some(new_stack_d) = placed_d {
                self.unplace(d, new_stack_d);
            }
            if placed_c {
                self.unplace(c, new_stack_c);
            }
        }
    }

    /// A complete column map: label the whole grid and keep it if smallest.
    fn finish(&mut self) {
        let h = self.h;
        let mut label = [0u8; 10];
        for j in 0..9 {
            let c = self.col_at[j] as usize;
            label[h[self.rows[0] as usize * 9 + c] as usize] = j as u8 + 1;
        }
        let row =
            |r: usize| pack_row((0..9).map(|j| label[h[r * 9 + self.col_at[j] as usize] as usize]));
        let mut cand = [0u64; 9];
        for (i, &r) in self.rows.iter().enumerate() {
            cand[i] = row(r as usize);
        }
        // The two other bands: sort rows within each, then the bands by rows.
        let top = self.rows[0] / 3;
        let mut bands = [[0u64; 3]; 2];
        let mut n = 0;
        for b in 0..3u8 {
            if b == top {
                continue;
            }
            let mut rows = [0, 1, 2].map(|i| row(3 * b as usize + i));
            rows.sort_unstable();
            bands[n] = rows;
            n += 1;
        }
        bands.sort_unstable();
        cand[3..6].copy_from_slice(&bands[0]);
        cand[6..9].copy_from_slice(&bands[1]);
        if cand < self.best {
            self.best = cand;
        }
    }
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
    let perms3: [[u8; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
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
    use crate::transform::Transform;
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

    #[test]
    fn empty_and_invalid_full_boards() {
        let empty = [0u8; 81];
        assert_eq!(canonical_form(&empty), empty);
        // A full board that is not a valid grid takes the general path.
        let mut bad = parse(SMALLEST_GRID);
        bad[0] = bad[1];
        let t = Transform::rotate90().compose(&Transform::relabel([2, 3, 1, 5, 4, 6, 7, 9, 8]));
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
