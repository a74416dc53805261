//! The counting solver: the hot loop of the whole factory.
//!
//! Every carve step asks "is this puzzle still uniquely solvable?", so this module
//! decides how fast the factory is. The board is stored **per digit and per band**:
//! `f[4 * d + b]` is a 27-bit mask of the cells of band `b` (rows `3b..3b+3`) where
//! digit `d + 1` may still stand, bit `9 * row_in_band + column` (word `4 * d + 3` is
//! zero padding, so an index splits into digit and band with masks). A band is where
//! the strongest cheap rule lives: inside one band a digit occupies exactly one cell
//! per row *and* one per box, so its placement there is one of the six 3×3
//! permutation matrices (row → box). Collapsing each row of a digit-band to its three
//! "mini-rows" (row ∩ box) gives a 9-bit matrix, and a 512-entry table maps that
//! matrix to the union of the permutation matrices it still contains. One AND with
//! that union performs, at once, every box/line reduction of the digit in the band,
//! the row and box hidden singles (they show up as rows left with one cell) and the
//! "no place for this digit in a row or box" contradictions. A band cannot see
//! columns; they are covered by carrying, after each shrink, the columns the band is
//! now known to use (a stack with one candidate column) into the two other bands of
//! the same digit. Placing a digit is just restricting its digit-band word to the
//! cell's row and box; the shrink then sees a row with one cell, marks the cell
//! decided and removes it from the band's other eight digits — one code path for
//! givens' consequences, singles and branching.
//!
//! Why this layout: 27-bit words turn every rule into a few u32 operations and
//! lookups in small tables (~3 KiB, computed by `const fn`, resident in L1), and a
//! search node is 36 + 3 words and a `u64` — 164 bytes — so branching copies little.
//! A `dirty` bit per digit-band says which words changed since they were last shrunk,
//! so a round only touches what moved, and dirty words are shrunk in passes over a
//! snapshot so that consecutive shrinks overlap in the CPU (see `propagate`).
//! Cell-wise naked singles and empty cells are found for the 27 cells of a band at
//! once with a bit-sliced counter over the nine digits; the search branches on a
//! bivalue cell (a third counter level), which nearly always exists, and the last
//! branch of a node continues in the node's own board.
//!
//! The carve test [`removal_keeps_unique`] first tries two exits that need no board
//! at all — the emptied cell is a naked or a hidden single of its old digit among the
//! remaining givens — and otherwise searches for any solution with the old digit
//! forbidden in the cell.
//!
//! Architecture invariant: nothing here allocates and nothing is `unsafe`. A search
//! node is a `Copy` value on the stack, and every branch decides at least one more
//! cell, so recursion depth ≤ 81.

use crate::engine::grid::{Cells, N_CELLS};
use crate::engine::nxn::PERMS3;

/// All 27 cell bits of a band.
const BAND: u32 = (1 << 27) - 1;
/// Multiplying a 9-bit column set by this repeats it in the three rows of a band.
const SPREAD: u32 = 1 | 1 << 9 | 1 << 18;

/// `MINI[row]`: for a 9-bit row of one digit-band, which of its three mini-rows
/// (row ∩ box, 3 cells each) still hold a candidate — bit `s` for stack `s`.
static MINI: [u8; 512] = build_mini();
/// `BOXLINE[m]`: `m` is the 3×3 mini-row matrix of a digit-band (bit `3r + s` for
/// row `r`, stack `s`). The digit fills the band as a permutation matrix; the entry is
/// the 27-cell mask of the mini-rows that belong to at least one permutation matrix
/// inside `m`, or 0 when none fits (contradiction).
static BOXLINE: [u32; 512] = build_boxline();
/// `LOCKED[cols]`: `cols` is the set of columns where a digit may stand in a band.
/// The digit uses exactly one column per stack there, so a stack with a single
/// candidate column is that column: the entry is the band mask with every such
/// column cleared, to be ANDed into the digit's two other bands.
static LOCKED: [u32; 512] = build_locked();
/// `KEEP[p]`: placing a digit on band position `p` keeps `p` and clears the rest of
/// its row and of its box in the digit-band (the column is cleared in other bands by
/// the locked-column rule, since the placed box's stack is then a single column).
static KEEP: [u32; 27] = build_keep();
/// The two other bands of band `b`.
const OTHERS: [(usize, usize); 3] = [(1, 2), (0, 2), (0, 1)];

const fn build_mini() -> [u8; 512] {
    let mut t = [0u8; 512];
    let mut x = 0;
    while x < 512 {
        let mut s = 0;
        while s < 3 {
            if (x >> (3 * s)) & 7 != 0 {
                t[x] |= 1 << s;
            }
            s += 1;
        }
        x += 1;
    }
    t
}

const fn build_boxline() -> [u32; 512] {
    let mut t = [0u32; 512];
    let mut m = 0;
    while m < 512 {
        let mut union = 0usize;
        let mut p = 0;
        while p < 6 {
            // A permutation of the three stacks, as row -> stack.
            let [s0, s1, s2] = PERMS3[p];
            let pm = 1 << s0 | 1 << (3 + s1) | 1 << (6 + s2);
            if pm & m == pm {
                union |= pm;
            }
            p += 1;
        }
        let mut cells = 0u32;
        let mut j = 0;
        while j < 9 {
            if union >> j & 1 != 0 {
                // mini-row j = (row j / 3, stack j % 3) covers 3 cells.
                cells |= 7 << (9 * (j / 3) + 3 * (j % 3));
            }
            j += 1;
        }
        t[m] = cells;
        m += 1;
    }
    t
}

const fn build_locked() -> [u32; 512] {
    let mut t = [0u32; 512];
    let mut cols = 0;
    while cols < 512 {
        let mut locked = 0u32;
        let mut s = 0;
        while s < 3 {
            let g = (cols >> (3 * s)) & 7;
            if g != 0 && g & (g - 1) == 0 {
                locked |= (g as u32) << (3 * s);
            }
            s += 1;
        }
        t[cols] = !(locked * SPREAD) & BAND;
        cols += 1;
    }
    t
}

const fn build_keep() -> [u32; 27] {
    let mut t = [0u32; 27];
    let mut p = 0;
    while p < 27 {
        let (r, s) = (p / 9, (p % 9) / 3);
        let boxmask = (7 << (3 * s)) * SPREAD;
        let rowmask = 0x1ff << (9 * r);
        t[p] = (!(boxmask | rowmask) | 1 << p) & BAND;
        p += 1;
    }
    t
}

/// Number of words in a board: digit `d`, band `b` is word `4 * d + b`; the fourth
/// word of each digit is padding that stays 0, so that splitting an index into digit
/// and band is a mask instead of a division by three.
const WORDS: usize = 36;
/// Every real digit-band bit of a `dirty` mask.
const ALL_WORDS: u64 = 0x7_7777_7777;

/// A search node. Invariants between calls of [`BandBoard::propagate`]:
/// * a cell outside `unsolved` holds exactly one digit: its bit is set in exactly
///   one digit-band word, and that digit's row/box/column peers are cleared (or the
///   clearing is pending in a `dirty` word);
/// * `dirty` bit `i` is set whenever `f[i]` changed since it was last shrunk.
#[derive(Clone, Copy, Debug)]
struct BandBoard {
    /// `f[4 * d + b]`: cells of band `b` where digit `d + 1` may stand (placed
    /// included); `f[4 * d + 3] == 0`.
    f: [u32; WORDS],
    /// Per band, cells whose digit is not yet decided.
    unsolved: [u32; 3],
    /// Digit-band words to shrink before the board is stable.
    dirty: u64,
}

/// ANDs `mask` into word `j` of `f`, flagging it in `dirty` if that changed it.
/// Branch-free: whether a word changes is unpredictable.
#[inline(always)]
fn restrict(f: &mut [u32; WORDS], dirty: &mut u64, j: usize, mask: u32) {
    let old = f[j];
    let new = old & mask;
    f[j] = new;
    *dirty |= ((old != new) as u64) << j;
}

impl BandBoard {
    /// The board of a puzzle's givens, eliminations applied but not propagated.
    /// `None` when two givens clash (or a value is out of range).
    #[inline]
    fn from_cells(cells: &Cells) -> Option<BandBoard> {
        let mut f = [BAND; WORDS];
        let given = nonzero_mask(cells, 0);
        // Per word, its own digit's givens.
        let mut own = [0u32; WORDS];
        let mut filled = [0u32; 3];
        for b in 0..3 {
            filled[b] = (given >> (27 * b)) as u32 & BAND;
            let mut g = filled[b];
            while g != 0 {
                let p = g.trailing_zeros() as usize;
                g &= g - 1;
                let v = cells[27 * b + p];
                if v > 9 {
                    return None;
                }
                let i = 4 * (v as usize - 1) + b;
                let bit = 1u32 << p;
                // A clash: an earlier given of the same digit already ruled this
                // cell out.
                if f[i] & bit == 0 {
                    return None;
                }
                // The digit leaves the rest of the cell's row and box, and its
                // column in the other bands.
                f[i] &= KEEP[p];
                let col = !(SPREAD << (p % 9));
                let (o1, o2) = OTHERS[b];
                f[i - b + o1] &= col;
                f[i - b + o2] &= col;
                own[i] |= bit;
            }
        }
        // Every given cell leaves the other digits' words; padding words become 0.
        for d in 0..9 {
            for b in 0..3 {
                f[4 * d + b] &= !(filled[b] ^ own[4 * d + b]);
            }
            f[4 * d + 3] = 0;
        }
        Some(BandBoard {
            f,
            unsolved: [BAND & !filled[0], BAND & !filled[1], BAND & !filled[2]],
            dirty: ALL_WORDS,
        })
    }

    /// Restricts word `j` to `mask` (see [`restrict`]).
    #[inline(always)]
    fn restrict(&mut self, j: usize, mask: u32) {
        restrict(&mut self.f, &mut self.dirty, j, mask);
    }

    /// Shrinks dirty words and places naked singles until nothing changes. False on
    /// a contradiction.
    #[inline]
    fn propagate(&mut self) -> bool {
        // `dirty` lives in a register for the whole loop.
        let mut dirty = self.dirty;
        let f = &mut self.f;
        loop {
            // Shrink in passes over a snapshot of `dirty`: the next index then does
            // not depend on the current shrink's results, so the CPU can overlap
            // consecutive shrinks instead of waiting on each one's flags.
            while dirty != 0 {
                let mut todo = dirty;
                dirty = 0;
                while todo != 0 {
                    let i = todo.trailing_zeros() as usize;
                    todo &= todo - 1;
                    // Flags raised for i earlier in this pass are served by this shrink.
                    dirty &= !(1 << i);
                    // Shrink word i (see the module notes).
                    let a = f[i];
                    let m = MINI[(a & 0x1ff) as usize] as usize
                        | (MINI[(a >> 9 & 0x1ff) as usize] as usize) << 3
                        | (MINI[(a >> 18 & 0x1ff) as usize] as usize) << 6;
                    let a = a & BOXLINE[m & 0x1ff];
                    if a == 0 {
                        return false;
                    }
                    f[i] = a;
                    let (d4, b) = (i & !3, i & 3);
                    // Columns: a stack of this band with one candidate column uses that
                    // column, so the digit's other bands lose it.
                    let keep = LOCKED[((a | a >> 9 | a >> 18) & 0x1ff) as usize];
                    let (o1, o2) = OTHERS[b];
                    restrict(f, &mut dirty, d4 + o1, keep);
                    restrict(f, &mut dirty, d4 + o2, keep);
                    // Rows left with a single cell decide that cell (every row is
                    // non-empty after the box/line AND, so `x & (x - 1) == 0` means
                    // exactly one bit).
                    let (r0, r1, r2) = (a & 0x1ff, a & 0x1ff << 9, a & 0x1ff << 18);
                    let single = if r0 & (r0 - 1) == 0 { r0 } else { 0 }
                        | if r1 & (r1 - 1) == 0 { r1 } else { 0 }
                        | if r2 & (r2 - 1) == 0 { r2 } else { 0 };
                    let new = single & self.unsolved[b];
                    if new != 0 {
                        // A decided cell leaves the band's other digits: clear it from
                        // all nine, then give word i its bits back (and no dirty flag).
                        self.unsolved[b] &= !new;
                        let mut changed = 0u64;
                        for d in 0..9 {
                            restrict(f, &mut changed, 4 * d + b, !new);
                        }
                        f[i] = a;
                        dirty |= changed & !(1 << i);
                    }
                }
            }
            // Naked singles, bit-sliced over the nine digits of each band.
            for b in 0..3 {
                let u = self.unsolved[b];
                if u == 0 {
                    continue;
                }
                let (mut ones, mut twos) = (0u32, 0u32);
                for d in 0..9 {
                    let x = f[4 * d + b] & u;
                    twos |= ones & x;
                    ones |= x;
                }
                if u & !ones != 0 {
                    return false; // an open cell without candidates
                }
                let singles = ones & !twos;
                if singles == 0 {
                    continue;
                }
                for d in 0..9 {
                    let mut s = f[4 * d + b] & singles;
                    if s != 0 {
                        // Place every single of this digit at once; two that see
                        // each other clear each other and the shrink reports it.
                        let mut mask = BAND;
                        while s != 0 {
                            mask &= KEEP[s.trailing_zeros() as usize];
                            s &= s - 1;
                        }
                        restrict(f, &mut dirty, 4 * d + b, mask);
                    }
                }
            }
            if dirty == 0 {
                self.dirty = 0;
                return true;
            }
        }
    }

    /// True once every cell is decided (only meaningful after `propagate`).
    #[inline(always)]
    fn solved(&self) -> bool {
        self.unsolved[0] | self.unsolved[1] | self.unsolved[2] == 0
    }

    /// The cell to branch on as (band, position, digit mask): a bivalue cell when
    /// there is one (almost always), else one with the fewest candidates.
    #[inline]
    fn branch_cell(&self) -> (usize, usize, u32) {
        for b in 0..3 {
            let u = self.unsolved[b];
            let (mut ones, mut twos, mut threes) = (0u32, 0u32, 0u32);
            for d in 0..9 {
                let x = self.f[4 * d + b] & u;
                threes |= twos & x;
                twos |= ones & x;
                ones |= x;
            }
            let bivalue = twos & !threes;
            if bivalue != 0 {
                let p = bivalue.trailing_zeros() as usize;
                return (b, p, self.digits_at(b, p));
            }
        }
        let mut best = (u32::MAX, 0, 0, 0);
        for b in 0..3 {
            let mut open = self.unsolved[b];
            while open != 0 {
                let p = open.trailing_zeros() as usize;
                open &= open - 1;
                let ds = self.digits_at(b, p);
                if ds.count_ones() < best.0 {
                    best = (ds.count_ones(), b, p, ds);
                }
            }
        }
        (best.1, best.2, best.3)
    }

    /// The candidate digits (bit `d`) of band position `p` of band `b`.
    #[inline]
    fn digits_at(&self, b: usize, p: usize) -> u32 {
        let mut ds = 0;
        for d in 0..9 {
            ds |= (self.f[4 * d + b] >> p & 1) << d;
        }
        ds
    }

    /// Reads the digits of a solved board.
    fn cells(&self) -> Cells {
        let mut out = [0u8; N_CELLS];
        for (i, &w) in self.f.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                out[27 * (i & 3) + w.trailing_zeros() as usize] = (i / 4) as u8 + 1;
                w &= w - 1;
            }
        }
        out
    }
}

/// Depth-first search that counts solutions up to `limit` and keeps the first.
struct Search {
    limit: u32,
    count: u32,
    first: Cells,
}

impl Search {
    fn run(&mut self, mut board: BandBoard) {
        loop {
            if !board.propagate() {
                return;
            }
            if board.solved() {
                if self.count == 0 {
                    self.first = board.cells();
                }
                self.count += 1;
                return;
            }
            let (b, p, mut digits) = board.branch_cell();
            // All digits but the last are tried on copies; the last one continues in
            // this node's own board, since nothing is left to come back to.
            while digits & (digits - 1) != 0 {
                let d = digits.trailing_zeros() as usize;
                digits &= digits - 1;
                let mut next = board;
                next.restrict(4 * d + b, KEEP[p]);
                self.run(next);
                if self.count >= self.limit {
                    return;
                }
                // That digit is exhausted here; the siblings start without it.
                board.restrict(4 * d + b, !(1 << p));
            }
            let d = digits.trailing_zeros() as usize;
            board.restrict(4 * d + b, KEEP[p]);
        }
    }
}

/// Counts the solutions of `board`, stopping at `limit`; also returns the first found.
#[inline]
fn count_board(board: BandBoard, limit: u32) -> (u32, Cells) {
    let mut search = Search {
        limit: limit.max(1),
        count: 0,
        first: [0; N_CELLS],
    };
    search.run(board);
    (search.count, search.first)
}

/// What a puzzle's solutions look like: the engine's one verdict type, here over
/// 9×9 cells.
pub type Verdict = crate::engine::nxn::solve::Verdict<Cells>;

/// Number of solutions of `cells`, counted up to `limit`.
pub fn count_solutions(cells: &Cells, limit: u32) -> u32 {
    match BandBoard::from_cells(cells) {
        Some(board) => count_board(board, limit).0,
        None => 0,
    }
}

/// Solves `cells`, telling apart no, one and several solutions.
pub fn solve(cells: &Cells) -> Verdict {
    let Some(board) = BandBoard::from_cells(cells) else {
        return Verdict::NoSolution;
    };
    match count_board(board, 2) {
        (0, _) => Verdict::NoSolution,
        (1, solution) => Verdict::Unique(solution),
        _ => Verdict::Multiple,
    }
}

/// True when `cells` has exactly one solution.
pub fn is_unique(cells: &Cells) -> bool {
    count_solutions(cells, 2) == 1
}

/// For every cell, its 20 peers (the other cells of its row, column and box).
static PEERS: [[u8; 20]; N_CELLS] = build_peers();

const fn build_peers() -> [[u8; 20]; N_CELLS] {
    let mut t = [[0u8; 20]; N_CELLS];
    let mut c = 0;
    while c < N_CELLS {
        let (r, k) = (c / 9, c % 9);
        let mut n = 0;
        let mut o = 0;
        while o < N_CELLS {
            let (r2, k2) = (o / 9, o % 9);
            let same_box = r / 3 == r2 / 3 && k / 3 == k2 / 3;
            if o != c && (r == r2 || k == k2 || same_box) {
                t[c][n] = o as u8;
                n += 1;
            }
            o += 1;
        }
        c += 1;
    }
    t
}

/// All 81 cells; row 0, column 0 and box 0 as 81-cell masks.
const ALL81: u128 = (1 << 81) - 1;
const ROW0: u128 = 0x1ff;
const COL0: u128 = 1 | 1 << 9 | 1 << 18 | 1 << 27 | 1 << 36 | 1 << 45 | 1 << 54 | 1 << 63 | 1 << 72;
const BOX0: u128 = 7 | 7 << 9 | 7 << 18;
/// Per cell, its 20 peers as a bit set.
static PEER_MASK: [u128; N_CELLS] = build_peer_mask();

const fn build_peer_mask() -> [u128; N_CELLS] {
    let peers = build_peers();
    let mut t = [0u128; N_CELLS];
    let mut c = 0;
    while c < N_CELLS {
        let mut n = 0;
        while n < 20 {
            t[c] |= 1 << peers[c][n];
            n += 1;
        }
        c += 1;
    }
    t
}

/// Bit set of the cells whose value differs from `v`, eight cells per step: after
/// XOR with `v` in every byte, a byte's top bit is set iff the byte is non-zero, and
/// a multiply gathers the eight top bits.
#[inline(always)]
fn nonzero_mask(cells: &Cells, v: u8) -> u128 {
    let splat = u64::from(v) * 0x0101_0101_0101_0101;
    let mut m = 0u128;
    for (k, chunk) in cells.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk")) ^ splat;
        let nz =
            (((x & 0x7f7f_7f7f_7f7f_7f7f) + 0x7f7f_7f7f_7f7f_7f7f) | x) & 0x8080_8080_8080_8080;
        m |= u128::from((nz >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    m | u128::from(cells[80] != v) << 80
}

/// The carve step's uniqueness test. `puzzle` is uniquely solvable with `digit` in
/// `cell`; the caller has just emptied `cell` in `puzzle`. The emptied puzzle is still
/// unique exactly when no solution puts another digit in `cell` — a single
/// "find any solution" search under one extra elimination, which fails fast in the
/// common case instead of counting to two.
#[inline]
pub fn removal_keeps_unique(puzzle: &Cells, cell: usize, digit: u8) -> bool {
    // Cheap exit first: when the cell's peers already show the eight other digits,
    // the emptied cell is a naked single of `digit`, so the puzzle is still unique.
    // Early in a carve most removals end here, without building a board.
    let mut seen = 1u32 << digit;
    for &o in &PEERS[cell] {
        seen |= 1 << puzzle[o as usize];
    }
    if seen | 1 == 0x3ff {
        return true;
    }
    // Second cheap exit: `digit` has no other place in the cell's row, column or box
    // (a hidden single), judged from the givens alone. Cells where `digit` may
    // stand are the empty ones that no given `digit` sees.
    let (empty, has_digit) = (
        nonzero_mask(puzzle, 0) ^ ALL81,
        !nonzero_mask(puzzle, digit) & ALL81,
    );
    let mut blocked = 0u128;
    let mut m = has_digit;
    while m != 0 {
        blocked |= PEER_MASK[m.trailing_zeros() as usize];
        m &= m - 1;
    }
    let open = empty & !blocked & !(1u128 << cell);
    let (r, k) = (cell / 9, cell % 9);
    let unit_masks = [
        ROW0 << (9 * r),
        COL0 << k,
        BOX0 << (27 * (r / 3) + 3 * (k / 3)),
    ];
    if unit_masks.iter().any(|&u| open & u == 0) {
        return true;
    }
    let Some(mut board) = BandBoard::from_cells(puzzle) else {
        return false;
    };
    board.restrict(4 * (digit as usize - 1) + cell / 27, !(1 << (cell % 27)));
    count_board(board, 1).0 == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grid::{parse_line, solves};

    const MINIMAL: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";

    fn qqwing() -> Vec<Cells> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/qqwing-10k.txt");
        let text = std::fs::read_to_string(path).expect("fixture ships with the repository");
        text.lines()
            .enumerate()
            .map(|(i, l)| parse_line(l, i + 1).expect("fixture is well formed"))
            .collect()
    }

    fn reference_count(cells: &Cells, limit: usize) -> usize {
        sudoku::Sudoku::from_bytes(*cells).map_or(0, |s| s.solutions_count_up_to(limit))
    }

    #[test]
    fn solves_a_minimal_puzzle_uniquely() {
        let puzzle = parse_line(MINIMAL, 1).unwrap();
        match solve(&puzzle) {
            Verdict::Unique(solution) => assert!(solves(&puzzle, &solution)),
            other => panic!("expected a unique solution, got {other:?}"),
        }
    }

    #[test]
    fn empty_board_has_many_solutions_and_clash_has_none() {
        assert_eq!(count_solutions(&[0; 81], 5), 5);
        let mut clash = [0u8; 81];
        clash[0] = 1;
        clash[1] = 1;
        assert_eq!(solve(&clash), Verdict::NoSolution);
    }

    #[test]
    fn removing_a_needed_clue_is_detected() {
        let puzzle = parse_line(MINIMAL, 1).unwrap();
        // The puzzle is minimal, so every removal must break uniqueness.
        for c in (0..81).filter(|&c| puzzle[c] != 0) {
            let mut p = puzzle;
            let d = p[c];
            p[c] = 0;
            assert!(!removal_keeps_unique(&p, c, d), "cell {c}");
            assert_eq!(count_solutions(&p, 2), 2);
        }
    }

    #[test]
    fn agrees_with_the_sudoku_crate_on_all_qqwing_puzzles() {
        let all = qqwing();
        assert_eq!(all.len(), 10_000);
        for (i, p) in all.iter().enumerate() {
            let peer = sudoku::Sudoku::from_bytes(*p).unwrap();
            assert_eq!(count_solutions(p, 2), 1, "puzzle {i}");
            assert_eq!(peer.solutions_count_up_to(2), 1, "puzzle {i}");
            let Verdict::Unique(solution) = solve(p) else {
                panic!("puzzle {i} is not unique")
            };
            assert!(solves(p, &solution), "puzzle {i}");
            assert_eq!(solution, peer.solution().unwrap().to_bytes(), "puzzle {i}");
            assert!(is_unique(p), "puzzle {i}");
        }
    }

    #[test]
    fn zero_one_and_many_solutions_agree_with_the_sudoku_crate() {
        // Perturb qqwing puzzles deterministically: dropping clues gives many
        // solutions, adding a wrong clue gives none (with or without a clash).
        let all = qqwing();
        let mut seen = [0u32; 3];
        let mut x = 0x9e37_79b9_u32;
        let mut next = |n: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % n
        };
        for p in all.iter().take(2000) {
            let mut q = *p;
            for _ in 0..1 + next(3) {
                let c = next(81) as usize;
                q[c] = if next(2) == 0 { 0 } else { 1 + next(9) as u8 };
            }
            for limit in [1, 2, 7] {
                assert_eq!(
                    count_solutions(&q, limit) as usize,
                    reference_count(&q, limit as usize),
                    "{q:?} up to {limit}"
                );
            }
            match solve(&q) {
                Verdict::NoSolution => seen[0] += 1,
                Verdict::Unique(s) => {
                    seen[1] += 1;
                    assert!(solves(&q, &s));
                }
                Verdict::Multiple => seen[2] += 1,
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
    }

    #[test]
    fn edge_cases() {
        // Empty board: many solutions, counted exactly up to the limit.
        assert_eq!(count_solutions(&[0; 81], 1), 1);
        assert_eq!(count_solutions(&[0; 81], 100), 100);
        assert_eq!(count_solutions(&[0; 81], 0), 1, "limit 0 counts as 1");
        assert_eq!(solve(&[0; 81]), Verdict::Multiple);
        assert!(!is_unique(&[0; 81]));
        // Clashing givens in a row, a column and a box.
        for (a, b) in [(0, 8), (0, 72), (0, 20), (80, 60)] {
            let mut q = [0u8; 81];
            q[a] = 5;
            q[b] = 5;
            assert_eq!(solve(&q), Verdict::NoSolution, "{a} {b}");
            assert_eq!(count_solutions(&q, 2), 0);
        }
        // A complete grid is its own unique solution; with one cell changed, none.
        let Verdict::Unique(grid) = solve(&parse_line(MINIMAL, 1).unwrap()) else {
            panic!("fixture is unique")
        };
        assert_eq!(solve(&grid), Verdict::Unique(grid));
        let mut bad = grid;
        bad[40] = bad[40] % 9 + 1;
        assert_eq!(solve(&bad), Verdict::NoSolution);
        // No clash among the givens, yet no solution: cell 0 sees all nine digits.
        let mut q = [0u8; 81];
        for (k, d) in (1..=8).enumerate() {
            q[1 + k] = d;
        }
        q[9 * 4] = 9;
        assert_eq!(solve(&q), Verdict::NoSolution);
        assert_eq!(count_solutions(&q, 2), 0);
    }

    #[test]
    fn carving_with_removal_keeps_unique_gives_minimal_puzzles() {
        for (n, p) in qqwing().iter().take(20).enumerate() {
            let Verdict::Unique(grid) = solve(p) else {
                panic!("fixture is unique")
            };
            // Visit the cells in a scrambled order: any step that is not a multiple
            // of 3 is coprime with 81, so k -> k * step + n mod 81 is a permutation.
            let step = if (7 + n) % 3 == 0 { 8 + n } else { 7 + n };
            let mut puzzle = grid;
            for k in 0..81 {
                let c = (k * step + n) % 81;
                let d = puzzle[c];
                puzzle[c] = 0;
                let keeps = removal_keeps_unique(&puzzle, c, d);
                assert_eq!(keeps, reference_count(&puzzle, 2) == 1, "cell {c}");
                if !keeps {
                    puzzle[c] = d;
                }
            }
            assert_eq!(solve(&puzzle), Verdict::Unique(grid));
            // Minimal: every remaining clue is needed.
            for c in (0..81).filter(|&c| puzzle[c] != 0) {
                let mut q = puzzle;
                q[c] = 0;
                assert!(!removal_keeps_unique(&q, c, puzzle[c]), "cell {c}");
                assert_eq!(count_solutions(&q, 2), 2);
                assert_eq!(reference_count(&q, 2), 2);
            }
        }
    }
}
