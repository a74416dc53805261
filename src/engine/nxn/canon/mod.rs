//! Exact canonical form of an N×N puzzle or grid, "pattern first" (Dobrichev's
//! `patminlex` convention, DESIGN.md, "Canonical form"), for every [`Shape`].
//!
//! The group is the one of [`super::transform`]: transposition × band-respecting row
//! maps × stack-respecting column maps, 2 × (b!)^(2b+2) geometric maps (128 for 4×4,
//! 3,359,232 for 9×9, ≈1.3e14 for 16×16, ≈1.8e25 for 25×25), times relabelling. The
//! form is (1) the smallest clue pattern ('0' empty < '1' given, row-major) over all
//! geometric maps, then (2) among the maps reaching it, the smallest string after
//! relabelling the symbols 1, 2, 3, … in order of first appearance.
//!
//! Trying every map is out of the question beyond 9×9, so the search follows
//! [`crate::engine::nxn::canon::nine`]:
//!
//! * **Pattern phase.** The image is built one output row at a time; only the partial
//!   maps whose pattern prefix is the smallest so far survive (lexicographic order is
//!   decided row by row, so nothing larger can win later). The column map is never
//!   enumerated here: its remaining freedom is an ordered partition of the stacks and,
//!   per stack, of its columns (`ColumnFreedom`); refining it by a row keeps exactly
//!   the column maps that minimise that row, and the set stays such a product.
//! * **Symbol phase.** Every surviving map, with every column map its freedom still
//!   allows, is relabelled and compared clue by clue with the best so far (early exit
//!   at the first larger label).
//! * **Automorphisms of the input** are cut before they multiply the work: among rows
//!   of a band with identical content (say, empty rows), bands with identical content,
//!   and likewise columns and stacks, only the order by source index is tried, and a
//!   board equal to its transpose is read in one orientation. Swapping identical lines
//!   does not change any image, so this is exact.
//! * **Valid full grids** take their own path (the pattern is all ones, so the
//!   pattern phase would keep every map): row 0 relabels to 1…N whatever the map, so
//!   a label is the output column of that symbol in row 0, and row 1 is the conjugate
//!   `q(j) = pos(p(col(j))) + 1` of the permutation `p` linking the two rows. It is
//!   minimised by a depth-first search over output columns that, as soon as `q(j)`
//!   names a column not placed yet, puts it at the smallest free place it may take
//!   (every map minimal from there has it there), so only genuine ties branch.
//!   The rest of the grid then follows by sorting rows within bands and bands.
//!
//! Exactness: every step keeps *all* maps that can still be minimal, so the result is
//! the same for every member of a class (tested against brute force on 4×4, against
//! [`crate::engine::nxn::canon::nine`] on 9×9, and for invariance under random transforms on all sizes).
//!
//! Cost — `cargo bench --bench canon -- nxn`, release build on a shared 2-core
//! machine, per call: a 4×4 puzzle ≈ 0.6 µs; a carved 16×16 puzzle (45–60 % givens)
//! ≈ 16–20 µs; a carved 25×25 puzzle ≈ 50 µs; a random valid full grid ≈ 0.5 ms
//! (16×16) and ≈ 2.6 ms (25×25). The cost grows with the number of maps that tie,
//! i.e. with the automorphisms of the clue pattern:
//!
//! * valid full grids keep one leaf per map that ties on rows 0–1: the most
//!   symmetric grid there is (the "pattern grid" of cyclic shifts) takes ≈ 36 ms at
//!   16×16 (73,728 leaves) and ≈ 150 ms at 25×25;
//! * on other boards the pattern phase keeps one partial map per tie and the symbol
//!   phase tries every (survivor × column map), so a board whose *pattern* has a
//!   huge symmetry group while its symbols do not is the pathological case: nearly
//!   full boards. Measured at 16×16 on a random grid with h cells blanked: h = 8:
//!   0.8 ms; h = 6: 5 ms; h = 5: 0.1 s; h = 4: 0.6 s; h = 3: 28 s; h ≤ 2 (or a
//!   full board that is not a valid grid): more than a minute, up to the whole group. Carved puzzles
//!   are far from this (the rows' patterns differ), and sparse boards are cheap
//!   thanks to the twin cut (1–16 givens on 16×16: ≤ 0.1 ms). A fix would need the
//!   full-grid search's lazy rows and labels for boards with holes.
//!
//! Nothing allocates per call after warm-up: scratch vectors live in a reusable
//! [`Canonicalizer`] (one per thread behind [`canonical_form`]), the rest on the
//! stack, sized for [`MAX_N`].

pub mod nine;

use std::cell::RefCell;

use super::{Shape, MAX_CELLS, MAX_N};

/// Largest box side (25×25).
const MAX_B: usize = 5;

/// "No value / not placed", larger than any label or position in comparisons.
const NONE: u8 = u8::MAX;

// ---------------------------------------------------------------------------
// Column freedom as an ordered partition
// ---------------------------------------------------------------------------

/// Stable sort of `items` by `keys`, moving items only inside *tied* runs (`ties`
/// bit `i`: positions `i` and `i + 1` may still be swapped); afterwards a tie
/// survives only between equal keys. At most 5 items: a bubble sort is plenty.
#[inline]
fn sort_tied<K: Copy + Ord>(items: &mut [u8], keys: &mut [K], ties: &mut u8) {
    let n = items.len();
    for _ in 1..n {
        for i in 0..n - 1 {
            if (*ties >> i) & 1 == 1 && keys[i] > keys[i + 1] {
                items.swap(i, i + 1);
                keys.swap(i, i + 1);
            }
        }
    }
    let mut kept = 0;
    for i in 0..n - 1 {
        if (*ties >> i) & 1 == 1 && keys[i] == keys[i + 1] {
            kept |= 1 << i;
        }
    }
    *ties = kept;
}

/// The `[lo, hi]` run of positions tied to position `i`.
#[inline]
fn tied_run(ties: u8, i: usize) -> (usize, usize) {
    let (mut lo, mut hi) = (i, i);
    while lo > 0 && (ties >> (lo - 1)) & 1 == 1 {
        lo -= 1;
    }
    while (ties >> hi) & 1 == 1 {
        hi += 1;
    }
    (lo, hi)
}

/// The set of column maps still allowed for one partial map, as a product: an order
/// of the b source stacks in which tied neighbouring slots may still be swapped,
/// times, per source stack, an order of its b columns with tied neighbours likewise.
///
/// Invariant: every column map in the set gives the same output rows so far, and
/// [`ColumnFreedom::refine`] keeps exactly the members that minimise the next row.
/// The product form is closed under refinement because a stack's best inner order
/// does not depend on where the stack lands, and a member whose stack chunks are not
/// all at their best is strictly larger (the sorted chunks dominate entrywise).
#[derive(Clone, Copy, Debug)]
struct ColumnFreedom {
    /// Source stack at output stack slot 0, 1, …
    stack_order: [u8; MAX_B],
    /// Bit i: stack slots i and i+1 may still be swapped.
    stack_ties: u8,
    /// Per *source* stack: the offsets of its columns in output order.
    inner: [[u8; MAX_B]; MAX_B],
    /// Per source stack: bit i, inner positions i and i+1 may still be swapped.
    inner_ties: [u8; MAX_B],
}

impl ColumnFreedom {
    /// Nothing decided for box side `b`: every stack and column order is allowed.
    fn open(b: usize) -> Self {
        let all = ((1u16 << (b - 1)) - 1) as u8;
        ColumnFreedom {
            stack_order: [0, 1, 2, 3, 4],
            stack_ties: all,
            inner: [[0, 1, 2, 3, 4]; MAX_B],
            inner_ties: [all; MAX_B],
        }
    }

    /// Narrows the set to the members that make the row with clue mask `mask` (bit
    /// `c` = a clue in source column `c`) as small as possible and returns that row
    /// as an N-bit value, output column 0 most significant (so integer order is the
    /// pattern string's order). Inside a tied run of columns empties go first;
    /// inside a tied run of stacks, stacks go by their best chunk.
    #[inline]
    fn refine(&mut self, mask: u32, b: usize) -> u32 {
        let mut chunk = [0u32; MAX_B];
        for (s, chunk_s) in chunk[..b].iter_mut().enumerate() {
            let mut keys = [0u8; MAX_B];
            for (key, &off) in keys[..b].iter_mut().zip(&self.inner[s][..b]) {
                *key = (mask >> (s * b + off as usize) & 1) as u8;
            }
            sort_tied(
                &mut self.inner[s][..b],
                &mut keys[..b],
                &mut self.inner_ties[s],
            );
            *chunk_s = keys[..b].iter().fold(0, |acc, &k| acc << 1 | k as u32);
        }
        let mut keys = [0u32; MAX_B];
        for (key, &s) in keys[..b].iter_mut().zip(&self.stack_order[..b]) {
            *key = chunk[s as usize];
        }
        sort_tied(
            &mut self.stack_order[..b],
            &mut keys[..b],
            &mut self.stack_ties,
        );
        keys[..b].iter().fold(0, |acc, &k| acc << b | k)
    }

    /// Calls `f` with every concrete column map in the set (`cols[j]` = source
    /// column at output column `j`), except that twin columns and stacks (identical
    /// content, see [`Twins`]) are only taken in source order.
    fn for_each_map(&self, b: usize, twins: &Twins, f: &mut impl FnMut(&[u8; MAX_N])) {
        let mut cols = [0u8; MAX_N];
        self.expand(b, twins, 0, &mut cols, 0, 0, f);
    }

    /// Depth-first expansion of output column `p` onwards.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &self,
        b: usize,
        twins: &Twins,
        p: usize,
        cols: &mut [u8; MAX_N],
        used_stacks: u32,
        used_cols: u32,
        f: &mut impl FnMut(&[u8; MAX_N]),
    ) {
        if p == b * b {
            f(cols);
            return;
        }
        let (slot, k) = (p / b, p % b);
        if k == 0 {
            // Choose the source stack of this slot among its tied run.
            let (lo, hi) = tied_run(self.stack_ties, slot);
            for &s in &self.stack_order[lo..=hi] {
                let s = s as usize;
                if used_stacks >> s & 1 == 1 || twins.stack_before[s] & !used_stacks != 0 {
                    continue;
                }
                self.expand_inner(b, twins, p, s, cols, used_stacks | 1 << s, used_cols, f);
            }
        } else {
            let s = cols[p - 1] as usize / b;
            self.expand_inner(b, twins, p, s, cols, used_stacks, used_cols, f);
        }
    }

    /// Chooses the column at output column `p`, inside source stack `s`.
    #[allow(clippy::too_many_arguments)]
    fn expand_inner(
        &self,
        b: usize,
        twins: &Twins,
        p: usize,
        s: usize,
        cols: &mut [u8; MAX_N],
        used_stacks: u32,
        used_cols: u32,
        f: &mut impl FnMut(&[u8; MAX_N]),
    ) {
        let (lo, hi) = tied_run(self.inner_ties[s], p % b);
        for &off in &self.inner[s][lo..=hi] {
            let c = s * b + off as usize;
            if used_cols >> c & 1 == 1 || twins.col_before[c] & !used_cols != 0 {
                continue;
            }
            cols[p] = c as u8;
            self.expand(b, twins, p + 1, cols, used_stacks, used_cols | 1 << c, f);
        }
    }
}

// ---------------------------------------------------------------------------
// Identical lines: automorphisms of the input that cost nothing to exclude
// ---------------------------------------------------------------------------

/// For each line, the lines of the same chute with identical content and a
/// smaller index (and the same for chutes): those must come first in the output.
/// Swapping identical lines leaves the board unchanged, so every image is still
/// reached by a map that takes twins in source order.
#[derive(Clone, Copy, Debug, Default)]
struct Twins {
    row_before: [u32; MAX_N],
    band_before: [u32; MAX_B],
    col_before: [u32; MAX_N],
    stack_before: [u32; MAX_B],
}

impl Twins {
    fn of<S: Shape>(g: &[u8]) -> Self {
        let (n, b) = (S::N, S::B);
        let row = |r: usize| &g[r * n..r * n + n];
        let same_rows = |r1: usize, r2: usize| row(r1) == row(r2);
        let same_cols = |c1: usize, c2: usize| (0..n).all(|r| g[r * n + c1] == g[r * n + c2]);
        let mut t = Twins::default();
        for x in 0..n {
            for y in (x / b * b)..x {
                if same_rows(y, x) {
                    t.row_before[x] |= 1 << y;
                }
                if same_cols(y, x) {
                    t.col_before[x] |= 1 << y;
                }
            }
        }
        for x in 0..b {
            for y in 0..x {
                if (0..b).all(|i| same_rows(y * b + i, x * b + i)) {
                    t.band_before[x] |= 1 << y;
                }
                if (0..b).all(|i| same_cols(y * b + i, x * b + i)) {
                    t.stack_before[x] |= 1 << y;
                }
            }
        }
        t
    }
}

// ---------------------------------------------------------------------------
// The canonicalizer
// ---------------------------------------------------------------------------

/// A partial geometric map in the pattern phase: orientation, the source rows of
/// the output rows placed so far, and the column freedom left.
#[derive(Clone, Copy, Debug)]
struct PartialMap {
    transposed: bool,
    rows: [u8; MAX_N],
    used_rows: u32,
    cols: ColumnFreedom,
}

/// A map of rows 0–1 and all columns kept by the full-grid search.
#[derive(Clone, Copy, Debug)]
struct Leaf {
    transposed: bool,
    r0: u8,
    r1: u8,
    /// Source column at each output column.
    cols: [u8; MAX_N],
}

/// Reusable scratch space for [`canonical_form`], for boards of every size: keep
/// one per thread and call [`Canonicalizer::canonical_form`] for each board; its
/// buffers grow to the largest need once and are then reused.
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

    /// The canonical form of the `S` board `cells` (0 = empty): see
    /// [`canonical_form`].
    ///
    /// # Panics
    /// If a cell holds a value above N.
    pub fn canonical_form<S: Shape>(&mut self, cells: &S::Cells) -> S::Cells {
        debug_assert!(S::B <= MAX_B);
        if let Some(&v) = cells.as_ref().iter().find(|&&v| usize::from(v) > S::N) {
            panic!("cell value {v} is above {}", S::N);
        }
        let t = transposed::<S>(cells);
        // A board equal to its transpose gives the same images in both orientations.
        let n_orientations = if t == *cells { 1 } else { 2 };
        let grids = [*cells, t];
        if super::solves::<S>(cells.as_ref(), cells.as_ref()) {
            return self.full_grid_minlex::<S>(&grids, n_orientations);
        }
        self.pattern_first::<S>(&grids, n_orientations)
    }

    /// General path: pattern phase (row by row over partial maps with lazy column
    /// freedom), then the symbol phase over the survivors.
    fn pattern_first<S: Shape>(&mut self, grids: &[S::Cells; 2], n_orient: usize) -> S::Cells {
        let (n, b) = (S::N, S::B);
        // Clue masks of every row in both orientations: bit c = clue in column c.
        let mut masks = [[0u32; MAX_N]; 2];
        for (i, &v) in grids[0].as_ref().iter().enumerate() {
            let (r, c) = (i / n, i % n);
            let clue = (v != 0) as u32;
            masks[0][r] |= clue << c;
            masks[1][c] |= clue << r;
        }
        let twins = [
            Twins::of::<S>(grids[0].as_ref()),
            Twins::of::<S>(grids[1].as_ref()),
        ];

        // Pattern phase. Invariant after step k: `current` holds every partial map
        // (orientation, source rows of output rows 0..=k, column freedom) whose
        // first k+1 pattern rows are the smallest achievable, `pattern[0..=k]`
        // (up to the twin order, which changes no image).
        let mut pattern = [0u32; MAX_N];
        self.current.clear();
        for transposed in [false, true].into_iter().take(n_orient) {
            self.current.push(PartialMap {
                transposed,
                rows: [0; MAX_N],
                used_rows: 0,
                cols: ColumnFreedom::open(b),
            });
        }
        let band_mask = (1u32 << b) - 1;
        for (k, pattern_k) in pattern[..n].iter_mut().enumerate() {
            let mut best = u32::MAX;
            self.next.clear();
            for pm in &self.current {
                let tw = &twins[pm.transposed as usize];
                // Bands stay together: a band's first row may be any row of an
                // unused band (twin bands in order), the next ones only unused rows
                // of the same band.
                let allowed = if k % b == 0 {
                    let mut started = 0u32;
                    for band in 0..b {
                        if pm.used_rows >> (b * band) & band_mask != 0 {
                            started |= 1 << band;
                        }
                    }
                    let mut a = 0;
                    for band in 0..b {
                        if started >> band & 1 == 0 && tw.band_before[band] & !started == 0 {
                            a |= band_mask << (b * band);
                        }
                    }
                    a
                } else {
                    let band = pm.rows[k - 1] as usize / b;
                    (band_mask << (b * band)) & !pm.used_rows
                };
                let row_masks = &masks[pm.transposed as usize];
                for (src, &row_mask) in row_masks[..n].iter().enumerate() {
                    if allowed >> src & 1 == 0 || tw.row_before[src] & !pm.used_rows != 0 {
                        continue;
                    }
                    let mut cols = pm.cols;
                    let value = cols.refine(row_mask, b);
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
        let mut clue_cells = [0u16; MAX_CELLS];
        let mut n_clues = 0;
        for (r, &row) in pattern[..n].iter().enumerate() {
            for j in 0..n {
                if row >> (n - 1 - j) & 1 == 1 {
                    clue_cells[n_clues] = (r * n + j) as u16;
                    n_clues += 1;
                }
            }
        }
        let clue_cells = &clue_cells[..n_clues];

        // Symbol phase: every survivor with every column map its freedom allows
        // (all give the minimal pattern), relabelled by first appearance and
        // compared clue by clue with the best so far. The comparison stops at the
        // first larger label; from the first smaller one on, labels are written
        // straight into `best` (its prefix is equal).
        let mut best = [NONE; MAX_CELLS];
        for pm in &self.current {
            let g = grids[pm.transposed as usize].as_ref();
            pm.cols
                .for_each_map(b, &twins[pm.transposed as usize], &mut |cols| {
                    let mut labels = [0u8; MAX_N + 1];
                    let mut next_label = 1;
                    let mut smaller = false;
                    for (i, &cell) in clue_cells.iter().enumerate() {
                        let (r, j) = (cell as usize / n, cell as usize % n);
                        let v = g[pm.rows[r] as usize * n + cols[j] as usize] as usize;
                        if labels[v] == 0 {
                            labels[v] = next_label;
                            next_label += 1;
                        }
                        let l = labels[v];
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

        let mut out = S::empty();
        for (i, &cell) in clue_cells.iter().enumerate() {
            out.as_mut()[cell as usize] = best[i];
        }
        out
    }

    /// Minlex of a valid full grid (module docs, last bullet).
    fn full_grid_minlex<S: Shape>(&mut self, grids: &[S::Cells; 2], n_orient: usize) -> S::Cells {
        let (n, b) = (S::N, S::B);
        // Pass 1: the smallest row 1 over all roots (orientation, row 0, row 1 of
        // the same band), keeping every complete column map that reaches it.
        let mut best_q = [NONE; MAX_N];
        self.leaves.clear();
        for (t, grid) in grids.iter().enumerate().take(n_orient) {
            let h = grid.as_ref();
            for r0 in 0..n {
                let mut pos0 = [0u8; MAX_N + 1];
                for c in 0..n {
                    pos0[h[r0 * n + c] as usize] = c as u8;
                }
                for r1 in (r0 / b * b..r0 / b * b + b).filter(|&r| r != r0) {
                    let mut p = [0u8; MAX_N];
                    for (c, pc) in p[..n].iter_mut().enumerate() {
                        *pc = pos0[h[r1 * n + c] as usize];
                    }
                    let root = Root {
                        leaf: Leaf {
                            transposed: t == 1,
                            r0: r0 as u8,
                            r1: r1 as u8,
                            cols: [NONE; MAX_N],
                        },
                        p,
                        b,
                    };
                    root.search(&RowOne::START, 0, &mut best_q, &mut self.leaves);
                }
            }
        }

        // Pass 2: labels are fixed by row 0 (a symbol's label is its output column
        // + 1); the rest of row 0's band is its other rows in ascending order, the
        // other bands are sorted inside, then sorted among themselves.
        let mut best = [[NONE; MAX_N]; MAX_N];
        let mut image = [[0u8; MAX_N]; MAX_N];
        for leaf in &self.leaves {
            let h = grids[leaf.transposed as usize].as_ref();
            let mut label = [0u8; MAX_N + 1];
            for j in 0..n {
                label[h[leaf.r0 as usize * n + leaf.cols[j] as usize] as usize] = j as u8 + 1;
            }
            for (r, row) in image[..n].iter_mut().enumerate() {
                for j in 0..n {
                    row[j] = label[h[r * n + leaf.cols[j] as usize] as usize];
                }
            }
            let top = leaf.r0 as usize / b;
            let mut cand = [[0u8; MAX_N]; MAX_N];
            let rest =
                (top * b..top * b + b).filter(|&r| r != leaf.r0 as usize && r != leaf.r1 as usize);
            for (row, r) in cand[2..b].iter_mut().zip(rest) {
                *row = image[r];
            }
            cand[2..b].sort_unstable();
            // Early exit: most leaves already lose on the rest of the first band.
            if cand[2..b] > best[2..b] {
                continue;
            }
            let mut bands = [[[0u8; MAX_N]; MAX_B]; MAX_B];
            let mut n_bands = 0;
            for band in (0..b).filter(|&band| band != top) {
                bands[n_bands][..b].copy_from_slice(&image[band * b..band * b + b]);
                bands[n_bands][..b].sort_unstable();
                n_bands += 1;
            }
            bands[..n_bands].sort_unstable();
            for (i, band) in bands[..n_bands].iter().enumerate() {
                cand[b + i * b..b + i * b + b].copy_from_slice(&band[..b]);
            }
            if cand[2..n] < best[2..n] {
                best = cand;
            }
        }

        let mut out = S::empty();
        let o = out.as_mut();
        for j in 0..n {
            o[j] = j as u8 + 1;
            o[n + j] = best_q[j];
        }
        for r in 2..n {
            o[r * n..r * n + n].copy_from_slice(&best[r][..n]);
        }
        out
    }
}

/// One root of the full-grid search: orientation and rows 0–1 (in `leaf`), and
/// `p[c]` = the column where row 0 holds the symbol that row 1 has in column `c`.
struct Root {
    leaf: Leaf,
    p: [u8; MAX_N],
    b: usize,
}

/// A partial column map of the full-grid search, with the row-1 labels so far.
/// Filled slots of a stack slot always form a prefix of it.
#[derive(Clone, Copy, Debug)]
struct RowOne {
    /// Source column at each output column (or NONE).
    col: [u8; MAX_N],
    /// Output column of each source column (or NONE).
    pos: [u8; MAX_N],
    /// Source stack at each output slot (or NONE), and its inverse.
    slot_stack: [u8; MAX_B],
    stack_slot: [u8; MAX_B],
    /// Row 1's labels so far.
    q: [u8; MAX_N],
}

impl RowOne {
    const START: RowOne = RowOne {
        col: [NONE; MAX_N],
        pos: [NONE; MAX_N],
        slot_stack: [NONE; MAX_B],
        stack_slot: [NONE; MAX_B],
        q: [0; MAX_N],
    };

    fn place(&mut self, c: usize, at: usize, b: usize) {
        self.col[at] = c as u8;
        self.pos[c] = at as u8;
        let slot = at / b;
        if self.slot_stack[slot] == NONE {
            self.slot_stack[slot] = (c / b) as u8;
            self.stack_slot[c / b] = slot as u8;
        }
    }

    /// The smallest output column unplaced source column `c` may still take: the
    /// first free place of its stack's slot, or else the start of the first empty
    /// slot.
    fn first_free(&self, c: usize, b: usize) -> usize {
        let slot = self.stack_slot[c / b];
        if slot != NONE {
            let start = slot as usize * b;
            (start..start + b)
                .find(|&j| self.col[j] == NONE)
                .expect("an unplaced column's stack slot has a free place")
        } else {
            let slot = (0..b)
                .find(|&s| self.slot_stack[s] == NONE)
                .expect("an unplaced stack has an empty slot");
            slot * b
        }
    }
}

impl Root {
    /// Depth-first search of output column `j` onwards; keeps in `leaves` every
    /// complete map whose row 1 equals the smallest found, `best_q`.
    ///
    /// Why it is exact: when `q(j)` names a column `t` not placed yet, every
    /// completion of the current partial map shares `q(0..j)` (those targets are all
    /// placed), and the one putting `t` at its first free place has the smallest
    /// `q(j)`; so every minimal completion puts it there, and reserving that place
    /// now loses nothing. Only genuine choices — which column opens a slot or fills
    /// the next free place — branch, and a branch stops as soon as its prefix of
    /// `q` exceeds the best.
    fn search(&self, st: &RowOne, j: usize, best_q: &mut [u8; MAX_N], leaves: &mut Vec<Leaf>) {
        let b = self.b;
        let n = b * b;
        if j == n {
            if st.q[..n] < best_q[..n] {
                best_q[..n].copy_from_slice(&st.q[..n]);
                leaves.clear();
            }
            leaves.push(Leaf {
                cols: st.col,
                ..self.leaf
            });
            return;
        }
        let mut cands = [0u8; MAX_N];
        let mut n_cands = 0;
        if st.col[j] != NONE {
            cands[0] = st.col[j];
            n_cands = 1;
        } else {
            let s = st.slot_stack[j / b];
            for c in 0..n {
                let stack_ok = if s != NONE {
                    c / b == s as usize
                } else {
                    st.stack_slot[c / b] == NONE
                };
                if stack_ok && st.pos[c] == NONE {
                    cands[n_cands] = c as u8;
                    n_cands += 1;
                }
            }
        }
        for &c in &cands[..n_cands] {
            let mut next = *st;
            next.place(c as usize, j, b);
            let target = self.p[c as usize] as usize;
            if next.pos[target] == NONE {
                let f = next.first_free(target, b);
                next.place(target, f, b);
            }
            next.q[j] = next.pos[target] + 1;
            if next.q[..=j] > best_q[..=j] {
                continue;
            }
            self.search(&next, j + 1, best_q, leaves);
        }
    }
}

/// The canonical form of an `S` puzzle or full grid (0 = empty, 1..=N = symbols),
/// "pattern first": over all geometric maps the smallest clue pattern ('0' empty <
/// '1' given, row-major), then, among the maps reaching it, the smallest string
/// after relabelling symbols 1, 2, 3, … in order of first appearance. Empty cells
/// are 0 in the result. Exact; see the module docs for the cost. Uses a
/// thread-local [`Canonicalizer`], so it allocates only on a thread's first calls.
///
/// # Panics
/// If a cell holds a value above N.
pub fn canonical_form<S: Shape>(cells: &S::Cells) -> S::Cells {
    thread_local! {
        static CANONICALIZER: RefCell<Canonicalizer> = RefCell::new(Canonicalizer::new());
    }
    CANONICALIZER.with(|c| c.borrow_mut().canonical_form::<S>(cells))
}

fn transposed<S: Shape>(cells: &S::Cells) -> S::Cells {
    let (src, mut out) = (cells.as_ref(), S::empty());
    for r in 0..S::N {
        for c in 0..S::N {
            out.as_mut()[c * S::N + r] = src[r * S::N + c];
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Reference implementation
// ---------------------------------------------------------------------------

/// Every band-respecting line map for box side `b`: (b!)^(b+1) of them.
fn all_line_maps(b: usize) -> Vec<[u8; MAX_N]> {
    fn perms(items: &mut Vec<u8>, k: usize, out: &mut Vec<Vec<u8>>) {
        if k == items.len() {
            out.push(items.clone());
            return;
        }
        for i in k..items.len() {
            items.swap(k, i);
            perms(items, k + 1, out);
            items.swap(k, i);
        }
    }
    let mut p = Vec::new();
    perms(&mut (0..b as u8).collect(), 0, &mut p);
    // Mixed-radix count over (chute order, inner order of slot 0, 1, …).
    let mut maps = Vec::new();
    let mut digits = vec![0usize; b + 1];
    loop {
        let mut m = [0u8; MAX_N];
        for slot in 0..b {
            let chute = p[digits[0]][slot] as usize;
            for k in 0..b {
                m[slot * b + k] = (chute * b) as u8 + p[digits[slot + 1]][k];
            }
        }
        maps.push(m);
        let mut i = 0;
        while i <= b {
            digits[i] += 1;
            if digits[i] < p.len() {
                break;
            }
            digits[i] = 0;
            i += 1;
        }
        if i > b {
            return maps;
        }
    }
}

/// The canonical form by definition: every geometric map, pattern compared first,
/// then the relabelled symbols. Feasible for 4×4 (128 maps) and, in a release
/// build, 9×9 (3,359,232 maps, seconds); for tests only.
pub fn canonical_form_brute_force<S: Shape>(cells: &S::Cells) -> S::Cells {
    let n = S::N;
    let maps = all_line_maps(S::B);
    let grids = [*cells, transposed::<S>(cells)];
    let mut best: Option<(Vec<u8>, Vec<u8>)> = None;
    let (mut pattern, mut labelled) = (vec![0u8; S::CELLS], vec![0u8; S::CELLS]);
    for g in &grids {
        let g = g.as_ref();
        for cols in &maps {
            for rows in &maps {
                let mut labels = [0u8; MAX_N + 1];
                let mut next_label = 1;
                for i in 0..S::CELLS {
                    let v = g[rows[i / n] as usize * n + cols[i % n] as usize] as usize;
                    pattern[i] = (v != 0) as u8;
                    labelled[i] = 0;
                    if v != 0 {
                        if labels[v] == 0 {
                            labels[v] = next_label;
                            next_label += 1;
                        }
                        labelled[i] = labels[v];
                    }
                }
                let better = match &best {
                    None => true,
                    Some((bp, bl)) => (&pattern, &labelled) < (bp, bl),
                };
                if better {
                    best = Some((pattern.clone(), labelled.clone()));
                }
            }
        }
    }
    let mut out = S::empty();
    out.as_mut()
        .copy_from_slice(&best.expect("the group is not empty").1);
    out
}

#[cfg(test)]
mod tests {
    use super::super::transform::Transform;
    use super::super::{is_consistent, n_clues, pattern_grid, Box2, Box3, Box4, Box5};
    use super::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// A random valid grid: randomised backtracking (fewest candidates first,
    /// symbols in random order), restarted when it wanders too long. Unlike the
    /// pattern grid's class, these grids have (almost always) no automorphism.
    fn random_grid<S: Shape>(rng: &mut Pcg64) -> S::Cells {
        fn fill<S: Shape>(g: &mut [u8], rng: &mut Pcg64, budget: &mut u32) -> bool {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let (mut rows, mut cols, mut boxes) = ([0u32; MAX_N], [0u32; MAX_N], [0u32; MAX_N]);
            for (i, &v) in g.iter().enumerate() {
                rows[S::row(i)] |= 1 << v;
                cols[S::col(i)] |= 1 << v;
                boxes[S::box_of(i)] |= 1 << v;
            }
            let mut best: Option<(usize, u32)> = None;
            for i in (0..S::CELLS).filter(|&i| g[i] == 0) {
                let cand =
                    S::all_values() & !(rows[S::row(i)] | cols[S::col(i)] | boxes[S::box_of(i)]);
                if best.is_none_or(|(_, b)| cand.count_ones() < b.count_ones()) {
                    best = Some((i, cand));
                }
            }
            let Some((i, cand)) = best else {
                return true;
            };
            let mut symbols: Vec<u8> = (1..=S::N as u8).filter(|v| cand >> v & 1 == 1).collect();
            symbols.shuffle(rng);
            for v in symbols {
                g[i] = v;
                if fill::<S>(g, rng, budget) {
                    return true;
                }
            }
            g[i] = 0;
            false
        }
        loop {
            let mut g = S::empty();
            if fill::<S>(g.as_mut(), rng, &mut 100_000) {
                return g;
            }
        }
    }

    /// `grid` with each cell kept with probability `keep_percent` %.
    fn board_from<S: Shape>(grid: &S::Cells, keep_percent: u32, rng: &mut Pcg64) -> S::Cells {
        let mut p = *grid;
        for cell in p.as_mut() {
            if rng.random_range(0..100) >= keep_percent {
                *cell = 0;
            }
        }
        p
    }

    /// Random boards with arbitrary (not necessarily valid) symbols: few symbols
    /// and sparse patterns have many automorphisms and stress the tie handling.
    fn arbitrary_board<S: Shape>(rng: &mut Pcg64, n_clues: usize, n_symbols: u8) -> S::Cells {
        let mut cells = S::empty();
        let mut placed = 0;
        while placed < n_clues {
            let i = rng.random_range(0..S::CELLS);
            if cells.as_ref()[i] == 0 {
                cells.as_mut()[i] = rng.random_range(1..=n_symbols);
                placed += 1;
            }
        }
        cells
    }

    fn show(cells: &[u8]) -> String {
        cells
            .iter()
            .map(|&v| char::from_digit(u32::from(v), 36).expect("values up to 25"))
            .collect()
    }

    /// The (pattern, relabelled symbols) pair the definition compares.
    fn key(cells: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let mut labels = [0u8; MAX_N + 1];
        let mut next = 1;
        let labelled = cells
            .iter()
            .map(|&v| {
                if v != 0 && labels[v as usize] == 0 {
                    labels[v as usize] = next;
                    next += 1;
                }
                labels[v as usize]
            })
            .collect();
        (cells.iter().map(|&v| u8::from(v != 0)).collect(), labelled)
    }

    /// The form is invariant, a fixed point, keeps clue count and consistency,
    /// and is no larger than any image the random transforms reach (a necessary
    /// condition for being the minimum, checkable at every size).
    fn assert_invariant<S: Shape>(board: &S::Cells, rng: &mut Pcg64, n_transforms: usize) {
        let form = canonical_form::<S>(board);
        assert_eq!(
            key(form.as_ref()).1,
            form.as_ref(),
            "labels in first-appearance order"
        );
        assert_eq!(n_clues(form.as_ref()), n_clues(board.as_ref()));
        assert_eq!(canonical_form::<S>(&form), form, "not a fixed point");
        if is_consistent::<S>(board.as_ref()) {
            assert!(is_consistent::<S>(form.as_ref()));
        }
        for _ in 0..n_transforms {
            let t = Transform::<S>::random(rng);
            assert!(key(form.as_ref()) <= key(t.apply(board).as_ref()));
            assert_eq!(
                show(canonical_form::<S>(&t.apply(board)).as_ref()),
                show(form.as_ref()),
                "board {} under {t:?}",
                show(board.as_ref())
            );
        }
    }

    #[test]
    fn box2_matches_brute_force() {
        let mut rng = Pcg64::seed_from_u64(1);
        let mut boards = vec![Box2::empty(), pattern_grid::<Box2>()];
        for _ in 0..300 {
            let g = random_grid::<Box2>(&mut rng);
            let keep = rng.random_range(0..=100);
            boards.push(g);
            boards.push(board_from::<Box2>(&g, keep, &mut rng));
            let n = rng.random_range(0..=16);
            let symbols = rng.random_range(1..=4);
            boards.push(arbitrary_board::<Box2>(&mut rng, n, symbols));
        }
        forms_agree::<Box2>(&boards, canonical_form_brute_force::<Box2>);
    }

    /// Asserts that the generic form is `reference`'s form on every board.
    fn forms_agree<S: Shape>(boards: &[S::Cells], reference: impl Fn(&S::Cells) -> S::Cells) {
        for board in boards {
            assert_eq!(
                show(canonical_form::<S>(board).as_ref()),
                show(reference(board).as_ref()),
                "board {}",
                show(board.as_ref())
            );
        }
    }

    #[test]
    fn box2_brute_force_sees_the_whole_group() {
        assert_eq!(all_line_maps(2).len(), 8);
        assert_eq!(all_line_maps(3).len(), 1296);
        let distinct: std::collections::HashSet<_> = all_line_maps(3).into_iter().collect();
        assert_eq!(distinct.len(), 1296);
        // The smallest 4×4 grid (DESIGN.md's rule applied to 4×4) is its own form.
        let smallest = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
        assert_eq!(canonical_form_brute_force::<Box2>(&smallest), smallest);
        assert_eq!(canonical_form::<Box2>(&smallest), smallest);
    }

    /// On 9×9 the generic form is the fast form, on the qqwing puzzles, on full
    /// grids of several classes and on arbitrary boards full of ties.
    #[test]
    fn box3_equals_the_9x9_canonical_form() {
        let text = include_str!("../../../../data/qqwing-10k.txt");
        let puzzles: Vec<[u8; 81]> = text
            .lines()
            .take(200)
            .enumerate()
            .map(|(i, l)| crate::engine::grid::parse_line(l, i + 1).expect("data parses"))
            .collect();
        let mut boards = puzzles.clone();
        for p in &puzzles[..6] {
            let s = sudoku::Sudoku::from_bytes(*p)
                .expect("qqwing puzzles parse")
                .solution()
                .expect("qqwing puzzles are uniquely solvable");
            boards.push(s.to_bytes());
        }
        boards.push(pattern_grid::<Box3>());
        let mut rng = Pcg64::seed_from_u64(3);
        for _ in 0..200 {
            let n = rng.random_range(0..=81);
            let symbols = rng.random_range(1..=9);
            boards.push(arbitrary_board::<Box3>(&mut rng, n, symbols));
        }
        forms_agree::<Box3>(&boards, crate::engine::nxn::canon::nine::canonical_form);
    }

    #[test]
    fn invariant_under_random_transforms() {
        let mut rng = Pcg64::seed_from_u64(4);
        // 4×4 and 9×9: puzzles of every density, full grids, arbitrary boards.
        for keep in [0, 25, 40, 55, 70, 100] {
            let g = random_grid::<Box2>(&mut rng);
            assert_invariant::<Box2>(&board_from::<Box2>(&g, keep, &mut rng), &mut rng, 50);
            let g = random_grid::<Box3>(&mut rng);
            assert_invariant::<Box3>(&board_from::<Box3>(&g, keep, &mut rng), &mut rng, 50);
        }
        let b = arbitrary_board::<Box3>(&mut rng, 12, 4);
        assert_invariant::<Box3>(&b, &mut rng, 50);
        // 16×16: carved boards of the densities the factory makes.
        for keep in [45, 55, 60, 70] {
            let g = random_grid::<Box4>(&mut rng);
            assert_invariant::<Box4>(&board_from::<Box4>(&g, keep, &mut rng), &mut rng, 50);
        }
        // Boards with identical empty rows and columns take the twin cut.
        let mut sparse = Box4::empty();
        sparse[17] = 3;
        sparse[200] = 9;
        sparse[203] = 3;
        assert_invariant::<Box4>(&sparse, &mut rng, 50);
        assert_invariant::<Box4>(&Box4::empty(), &mut rng, 5);
        // 25×25: a few carved boards.
        for keep in [50, 60] {
            let g = random_grid::<Box5>(&mut rng);
            assert_invariant::<Box5>(&board_from::<Box5>(&g, keep, &mut rng), &mut rng, 10);
        }
    }

    #[test]
    fn full_grids_are_invariant_and_start_with_1_to_n() {
        let mut rng = Pcg64::seed_from_u64(5);
        let grids4 = [random_grid::<Box4>(&mut rng), pattern_grid::<Box4>()];
        for g in &grids4 {
            assert_invariant::<Box4>(g, &mut rng, 10);
            let form = canonical_form::<Box4>(g);
            assert!(form[..16].iter().copied().eq(1..=16));
            assert!(super::super::solves::<Box4>(&form, &form));
        }
        assert_ne!(
            canonical_form::<Box4>(&grids4[0]),
            canonical_form::<Box4>(&grids4[1])
        );
        let g = random_grid::<Box5>(&mut rng);
        assert_invariant::<Box5>(&g, &mut rng, 3);
        assert_invariant::<Box3>(&pattern_grid::<Box3>(), &mut rng, 20);
    }

    #[test]
    fn different_classes_get_different_forms() {
        // Carved boards of different random grids: (almost surely) different
        // classes, so a form that forgot the symbols or part of the pattern would
        // merge some of them.
        let mut rng = Pcg64::seed_from_u64(6);
        let mut forms = std::collections::HashSet::new();
        for _ in 0..20 {
            let g = random_grid::<Box4>(&mut rng);
            let p = board_from::<Box4>(&g, 60, &mut rng);
            let form = canonical_form::<Box4>(&p);
            let t = Transform::<Box4>::random(&mut rng);
            assert_eq!(canonical_form::<Box4>(&t.apply(&p)), form);
            forms.insert(form);
        }
        assert_eq!(forms.len(), 20);
    }
}
