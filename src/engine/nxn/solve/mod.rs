//! Counting solver for N×N boards, and the carve step's uniqueness test.
//!
//! The carve strategies ask "is this puzzle still uniquely solvable?" once per cell,
//! so on 16×16 (256 cells) and 25×25 (625 cells) everything hinges on this search.
//! It is a classic constraint-propagation search, generic over [`Shape`]:
//!
//! * **State**: one candidate mask per cell (`u32`, bit `v` for value `v`). A cell with
//!   a single bit is decided; `n_open` counts the cells with two or more.
//! * **Naked singles**: a cell whose mask drops to one bit is queued; draining the
//!   queue removes its value from the 3(N−1)−(b−1)²… peers of its row, column and box
//!   (each peer once), which may queue more cells.
//! * **Hidden singles**: when the queue is empty, every row, column and box is swept
//!   with a bit-sliced two-level counter (`once`, `twice`) over its N masks: a value
//!   in `once & !twice` has exactly one place in the unit and is assigned there.
//! * **Contradictions**: a cell whose mask becomes empty, a unit where some value has
//!   no place at all (`once` misses a bit), or one cell that is the only place of two
//!   values. Any of them abandons the node.
//! * **Branching**: on the open cell with the fewest candidates (MRV, "minimum
//!   remaining values"; Norvig's and every DLX-free solver's choice), trying its
//!   values in increasing order; a value that failed is eliminated before the next
//!   one is tried, and the last value continues in the node itself.
//!
//! Why a trail instead of copying boards: a 25×25 node is 2.5 KiB of masks and a
//! search on a sparse board can go hundreds of levels deep, which would not fit a
//! 2 MiB thread stack. Every change to a mask instead pushes the old mask on a trail
//! and backtracking pops it back. Along one path every push removes at least one
//! candidate bit, so the trail never holds more than N²·N entries: that bound sizes
//! the stack arrays, which are const-generic (`C` cells, `T` trail entries) so that a
//! 4×4 search does not clear 25×25 scratch. The public functions pick the sizes from
//! `S::B` (see `sized!`). Nothing here allocates on the heap and nothing is `unsafe`.
//!
//! [`removal_keeps_unique`] is the carve test (same contract as
//! [`crate::engine::nxn::solve::nine::removal_keeps_unique`]): two exits that only look at the givens
//! (naked and hidden single of the removed value), then one "find any solution"
//! search with the removed value forbidden in the emptied cell.
//!
//! [`count_solutions_reference`] is a deliberately plain search kept as the test
//! oracle.

pub mod nine;

use std::marker::PhantomData;

use super::{Shape, MAX_CELLS, MAX_N};

/// Counts the solutions of `cells` (an `S` board), stopping at `limit`. A board that
/// repeats a value in a unit has no solution. The plain reference: MRV search with
/// unit masks and no propagation, kept as the oracle of the fast solver's tests.
pub fn count_solutions_reference<S: Shape>(cells: &[u8], limit: u32) -> u32 {
    debug_assert_eq!(cells.len(), S::CELLS);
    if !super::is_consistent::<S>(cells) {
        return 0;
    }
    let mut board = [0u8; MAX_CELLS];
    board[..S::CELLS].copy_from_slice(cells);
    let (mut rows, mut cols, mut boxes) = ([0u32; MAX_N], [0u32; MAX_N], [0u32; MAX_N]);
    for (i, &v) in cells.iter().enumerate() {
        if v != 0 {
            rows[S::row(i)] |= 1 << v;
            cols[S::col(i)] |= 1 << v;
            boxes[S::box_of(i)] |= 1 << v;
        }
    }
    let mut count = 0;
    search::<S>(
        &mut board, &mut rows, &mut cols, &mut boxes, limit, &mut count,
    );
    count
}

fn search<S: Shape>(
    board: &mut [u8; MAX_CELLS],
    rows: &mut [u32; MAX_N],
    cols: &mut [u32; MAX_N],
    boxes: &mut [u32; MAX_N],
    limit: u32,
    count: &mut u32,
) {
    // The empty cell with the fewest candidates.
    let mut best = None;
    let mut best_n = u32::MAX;
    for i in 0..S::CELLS {
        if board[i] == 0 {
            let cand = S::all_values() & !(rows[S::row(i)] | cols[S::col(i)] | boxes[S::box_of(i)]);
            if cand.count_ones() < best_n {
                best_n = cand.count_ones();
                best = Some((i, cand));
            }
        }
    }
    let Some((i, mut cand)) = best else {
        *count += 1;
        return;
    };
    let (r, c, b) = (S::row(i), S::col(i), S::box_of(i));
    while cand != 0 && *count < limit {
        let v = cand.trailing_zeros();
        cand &= cand - 1;
        board[i] = v as u8;
        rows[r] |= 1 << v;
        cols[c] |= 1 << v;
        boxes[b] |= 1 << v;
        search::<S>(board, rows, cols, boxes, limit, count);
        rows[r] &= !(1 << v);
        cols[c] &= !(1 << v);
        boxes[b] &= !(1 << v);
    }
    board[i] = 0;
}

/// What a puzzle's solutions look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict<C> {
    /// The givens admit no completion (or clash).
    NoSolution,
    /// Exactly one completion.
    Unique(C),
    /// Two or more completions.
    Multiple,
}

/// Calls `$f::<$S, C, T>(args)` with `C` = the cells of `$S` and `T` = C·N, the
/// trail bound. Const generics cannot be computed from `S`'s associated consts on
/// stable Rust, so the four shapes are spelled out; the engine asserts they match.
macro_rules! sized {
    ($S:ident, $f:ident($($arg:expr),*)) => {
        match $S::B {
            2 => $f::<$S, 16, 64>($($arg),*),
            3 => $f::<$S, 81, 729>($($arg),*),
            4 => $f::<$S, 256, 4096>($($arg),*),
            5 => $f::<$S, 625, 15625>($($arg),*),
            _ => unreachable!("the engine's shapes have box sides 2 to 5"),
        }
    };
}

/// Number of solutions of `cells` (an `S` board, row-major, 0 = empty), counted up
/// to `limit` (a limit of 0 counts as 1). Givens that clash or exceed N: 0.
pub fn count_solutions<S: Shape>(cells: &[u8], limit: u32) -> u32 {
    sized!(S, run(cells, limit, None, None))
}

/// Solves `cells`, telling apart no, one and several solutions.
pub fn solve<S: Shape>(cells: &[u8]) -> Verdict<S::Cells> {
    let mut solution = S::empty();
    match sized!(S, run(cells, 2, None, Some(solution.as_mut()))) {
        0 => Verdict::NoSolution,
        1 => Verdict::Unique(solution),
        _ => Verdict::Multiple,
    }
}

/// True when `cells` has exactly one solution.
pub fn is_unique<S: Shape>(cells: &[u8]) -> bool {
    count_solutions::<S>(cells, 2) == 1
}

/// The carve step's uniqueness test. `puzzle` was uniquely solvable with `value` in
/// `cell`; the caller has just emptied `cell`. The emptied puzzle is still unique
/// exactly when no solution puts another value in `cell`: one "find any solution"
/// search under one extra elimination, which usually fails fast, instead of
/// counting to two.
///
/// More generally, for any `puzzle` that has a solution with `value` in `cell`, the
/// answer is "every solution puts `value` in `cell`" (`add-clues` and the symmetric
/// carve rely on that reading).
pub fn removal_keeps_unique<S: Shape>(puzzle: &[u8], cell: usize, value: u8) -> bool {
    debug_assert_eq!(puzzle.len(), S::CELLS);
    debug_assert_eq!(puzzle[cell], 0);
    let Some(units) = Units::of::<S>(puzzle) else {
        return false;
    };
    let bit = 1u32 << value;
    let (r, c, b) = (S::row(cell), S::col(cell), S::box_of(cell));
    // Cheap exit 1: the peers' givens show every other value, so the emptied cell is
    // a naked single of `value`. Early in a carve most removals end here.
    if (units.rows[r] | units.cols[c] | units.boxes[b] | bit) == S::all_values() {
        return true;
    }
    // Cheap exit 2: `value` has no other place in the cell's row, column or box (a
    // hidden single), judged from the givens alone: a place is an empty cell whose
    // row, column and box hold no `value` given.
    let open = |j: usize| {
        j != cell
            && puzzle[j] == 0
            && (units.rows[S::row(j)] | units.cols[S::col(j)] | units.boxes[S::box_of(j)]) & bit
                == 0
    };
    if !(0..S::N).any(|k| open(r * S::N + k))
        || !(0..S::N).any(|k| open(k * S::N + c))
        || !(0..S::N).any(|k| open(S::box_cell(b, k)))
    {
        return true;
    }
    sized!(S, run_units(puzzle, &units, 1, Some((cell, value)), None)) == 0
}

/// Per row, column and box, the mask of the values its givens hold.
struct Units {
    rows: [u32; MAX_N],
    cols: [u32; MAX_N],
    boxes: [u32; MAX_N],
}

impl Units {
    /// The unit masks of `cells`, or `None` when two givens clash in a unit or a
    /// given exceeds N (no solution).
    #[inline]
    fn of<S: Shape>(cells: &[u8]) -> Option<Units> {
        let mut u = Units {
            rows: [0; MAX_N],
            cols: [0; MAX_N],
            boxes: [0; MAX_N],
        };
        for (i, &v) in cells[..S::CELLS].iter().enumerate() {
            if v == 0 {
                continue;
            }
            if usize::from(v) > S::N {
                return None;
            }
            let bit = 1u32 << v;
            let (r, c, b) = (S::row(i), S::col(i), S::box_of(i));
            if (u.rows[r] | u.cols[c] | u.boxes[b]) & bit != 0 {
                return None;
            }
            u.rows[r] |= bit;
            u.cols[c] |= bit;
            u.boxes[b] |= bit;
        }
        Some(u)
    }
}

/// Counts the solutions of `cells` up to `limit`, with `forbid` = (cell, value)
/// eliminated first; writes the first solution found into `out` if given.
fn run<S: Shape, const C: usize, const T: usize>(
    cells: &[u8],
    limit: u32,
    forbid: Option<(usize, u8)>,
    out: Option<&mut [u8]>,
) -> u32 {
    match Units::of::<S>(cells) {
        Some(units) => run_units::<S, C, T>(cells, &units, limit, forbid, out),
        None => 0,
    }
}

fn run_units<S: Shape, const C: usize, const T: usize>(
    cells: &[u8],
    units: &Units,
    limit: u32,
    forbid: Option<(usize, u8)>,
    out: Option<&mut [u8]>,
) -> u32 {
    assert!(
        C == S::CELLS && T == S::CELLS * S::N,
        "sized! matches the shape"
    );
    let mut engine = Engine::<S, C, T> {
        cand: [0; C],
        trail_cell: [0; T],
        trail_mask: [0; T],
        trail_len: 0,
        queue: [0; C],
        queue_len: 0,
        n_open: 0,
        limit: limit.max(1),
        count: 0,
        first: [0; C],
        nodes: 0,
        budget: 0,
        aborted: false,
        pair_unit: 0,
        pair_bit: 0,
        dirty: u128::MAX,
        rng: 0x9e37_79b9_7f4a_7c15,
        shape: PhantomData,
    };
    if !engine.init(cells, units, forbid) || !engine.propagate() {
        return 0;
    }
    // Restarts: a run that branches more than `budget` times is abandoned and the
    // search starts again from the root, with other tie-breaks and value orders and
    // twice the budget. Backtracking search on sparse boards is heavy-tailed (a bad
    // early choice can hide a solution behind an exponential subtree: Gomes, Selman
    // & Kautz, "Boosting combinatorial search through randomization", 1998); a
    // fresh order usually walks straight to a solution. A run that ends within its
    // budget is exact, and the budget grows without bound, so the search stays
    // complete; doubling bounds the waste by the length of the last run.
    let (root_mark, root_open) = (engine.trail_len, engine.n_open);
    let mut budget = C as u64;
    loop {
        engine.count = 0;
        engine.nodes = 0;
        engine.budget = budget;
        engine.search();
        if !engine.aborted {
            break;
        }
        engine.aborted = false;
        engine.undo(root_mark);
        engine.n_open = root_open;
        engine.queue_len = 0;
        budget = budget.saturating_mul(2);
    }
    if let Some(out) = out {
        if engine.count > 0 {
            out.copy_from_slice(&engine.first);
        }
    }
    engine.count
}

/// Kuhn's augmenting path for the matching of [`Engine::all_different`]: finds a
/// value for local cell `k`, moving other cells to other values along the way.
fn augment(
    k: usize,
    masks: &[u32; MAX_N],
    cell_of: &mut [u8; MAX_N + 1],
    value_of: &mut [u8; MAX_N],
    visited: &mut u32,
) -> bool {
    let mut options = masks[k] & !*visited;
    while options != 0 {
        let v = options.trailing_zeros() as usize;
        options &= options - 1;
        *visited |= 1 << v;
        let other = cell_of[v];
        if other == u8::MAX || augment(usize::from(other), masks, cell_of, value_of, visited) {
            cell_of[v] = k as u8;
            value_of[k] = v as u8;
            return true;
        }
    }
    false
}

/// The search state. Invariants between calls of [`Engine::propagate`]:
/// * `cand[i]` is never 0 (a 0 mask is a contradiction, reported at once);
/// * a decided cell (one bit) is either in `queue` or its value has been removed
///   from all its peers;
/// * `n_open` is the number of cells with two or more candidates;
/// * `trail[..trail_len]` holds, in order, the old mask of every change since the
///   root, so popping back to a mark restores the board at that mark.
struct Engine<S, const C: usize, const T: usize> {
    cand: [u32; C],
    trail_cell: [u16; T],
    trail_mask: [u32; T],
    trail_len: usize,
    /// Decided cells whose value is not yet removed from their peers.
    queue: [u16; C],
    queue_len: usize,
    n_open: usize,
    limit: u32,
    count: u32,
    /// The first solution found.
    first: [u8; C],
    /// Branches taken in this run, and how many the run may take.
    nodes: u64,
    budget: u64,
    /// The run went over budget: unwind, the caller restarts.
    aborted: bool,
    /// A value (`pair_bit`, 0 = none) with exactly two places in unit `pair_unit`,
    /// found by the last hidden-single sweep: a binary branch when no cell has two
    /// candidates.
    pair_unit: usize,
    pair_bit: u32,
    /// Units (bit `u`, numbered as in [`Engine::unit_cell`]) changed since their last
    /// all-different check. Not restored by undo: the board a mark restores was a
    /// fixpoint, so a stale bit only costs one redundant check.
    dirty: u128,
    /// xorshift64 state for tie-breaks and value order (deterministic: the results
    /// never depend on it, only the running time).
    rng: u64,
    shape: PhantomData<S>,
}

impl<S: Shape, const C: usize, const T: usize> Engine<S, C, T> {
    /// Candidates from the givens' unit masks: a given is decided and already removed
    /// from its peers' masks (so it is not queued); an empty cell gets every value its
    /// row, column and box lack, minus `forbid`. False on an empty mask.
    fn init(&mut self, cells: &[u8], units: &Units, forbid: Option<(usize, u8)>) -> bool {
        for (i, &v) in cells.iter().enumerate().take(C) {
            if v != 0 {
                self.cand[i] = 1 << v;
                continue;
            }
            let mut m = S::all_values()
                & !(units.rows[S::row(i)] | units.cols[S::col(i)] | units.boxes[S::box_of(i)]);
            if let Some((cell, value)) = forbid {
                if cell == i {
                    m &= !(1 << value);
                }
            }
            self.cand[i] = m;
            if m == 0 {
                return false;
            }
            if m & (m - 1) == 0 {
                self.queue[self.queue_len] = i as u16;
                self.queue_len += 1;
            } else {
                self.n_open += 1;
            }
        }
        true
    }

    /// Sets `cand[i]` to `new` (a strict subset), recording the old mask.
    #[inline(always)]
    fn set(&mut self, i: usize, new: u32) {
        self.dirty |=
            1u128 << S::row(i) | 1u128 << (S::N + S::col(i)) | 1u128 << (2 * S::N + S::box_of(i));
        self.trail_cell[self.trail_len] = i as u16;
        self.trail_mask[self.trail_len] = self.cand[i];
        self.trail_len += 1;
        self.cand[i] = new;
    }

    /// Removes the values `bits` from cell `i`; queues the cell when that decides it.
    /// False when the cell is left without candidates.
    #[inline(always)]
    fn remove(&mut self, i: usize, bits: u32) -> bool {
        let old = self.cand[i];
        if old & bits == 0 {
            return true;
        }
        let new = old & !bits;
        self.set(i, new);
        if new & new.wrapping_sub(1) == 0 {
            if new == 0 {
                return false;
            }
            // `old` had another bit besides `new`: the cell was open until now.
            self.n_open -= 1;
            self.queue[self.queue_len] = i as u16;
            self.queue_len += 1;
        }
        true
    }

    /// Decides open cell `i` as the single value `bit`.
    #[inline(always)]
    fn assign(&mut self, i: usize, bit: u32) {
        debug_assert!(self.cand[i] & bit != 0 && self.cand[i] != bit);
        self.set(i, bit);
        self.n_open -= 1;
        self.queue[self.queue_len] = i as u16;
        self.queue_len += 1;
    }

    /// Pops the trail back to `mark`.
    #[inline]
    fn undo(&mut self, mark: usize) {
        while self.trail_len > mark {
            self.trail_len -= 1;
            self.cand[self.trail_cell[self.trail_len] as usize] = self.trail_mask[self.trail_len];
        }
    }

    /// Removes decided cell `i`'s value from its peers: its row, its column, and the
    /// (b−1)² cells of its box outside both.
    #[inline]
    fn clear_peers(&mut self, i: usize) -> bool {
        let bit = self.cand[i];
        let (r, c) = (S::row(i), S::col(i));
        for k in 0..S::N {
            let j = r * S::N + k;
            if j != i && !self.remove(j, bit) {
                return false;
            }
        }
        for k in 0..S::N {
            let j = k * S::N + c;
            if j != i && !self.remove(j, bit) {
                return false;
            }
        }
        let (r0, c0) = (r - r % S::B, c - c % S::B);
        for rr in r0..r0 + S::B {
            if rr == r {
                continue;
            }
            for cc in c0..c0 + S::B {
                if cc != c && !self.remove(rr * S::N + cc, bit) {
                    return false;
                }
            }
        }
        true
    }

    /// Hidden singles and missing values in one unit, whose `k`-th cell is `at(k)`.
    /// Bit-sliced counting: after the first pass `once`, `twice`, `thrice` hold the
    /// values with at least one, two, three places; `solved` those already decided
    /// somewhere, which need nothing. A value with exactly two places is remembered
    /// as a branching candidate (see [`Engine::search`]). False on a contradiction.
    #[inline(always)]
    fn scan_unit(&mut self, unit: usize, at: impl Fn(usize) -> usize) -> bool {
        let (mut once, mut twice, mut thrice, mut solved) = (0u32, 0u32, 0u32, 0u32);
        for k in 0..S::N {
            let m = self.cand[at(k)];
            thrice |= twice & m;
            twice |= once & m;
            once |= m;
            // Branch-free "m if m has one bit, else 0".
            solved |= m & ((m & m.wrapping_sub(1) == 0) as u32).wrapping_neg();
        }
        if once != S::all_values() {
            return false; // some value has no place left in this unit
        }
        let pairs = twice & !thrice;
        if self.pair_bit == 0 && pairs != 0 {
            (self.pair_unit, self.pair_bit) = (unit, pairs & pairs.wrapping_neg());
        }
        let hidden = once & !twice & !solved;
        if hidden == 0 {
            return true;
        }
        for k in 0..S::N {
            let i = at(k);
            let h = self.cand[i] & hidden;
            if h != 0 {
                if h & (h - 1) != 0 {
                    return false; // two values whose only place is this one cell
                }
                self.assign(i, h);
            }
        }
        true
    }

    /// The `k`-th cell of unit `u`: rows are units 0..N, columns N..2N, boxes 2N..3N.
    #[inline(always)]
    fn unit_cell(u: usize, k: usize) -> usize {
        match u / S::N {
            0 => u * S::N + k,
            1 => k * S::N + (u - S::N),
            _ => S::box_cell(u - 2 * S::N, k),
        }
    }

    /// One sweep of hidden singles over every row, column and box.
    fn hidden_singles(&mut self) -> bool {
        self.pair_bit = 0;
        for u in 0..S::N {
            if !self.scan_unit(u, |k| u * S::N + k)
                || !self.scan_unit(S::N + u, |k| k * S::N + u)
                || !self.scan_unit(2 * S::N + u, |k| S::box_cell(u, k))
            {
                return false;
            }
        }
        true
    }

    /// Locked candidates (box/line reduction), for rows and columns alike. A
    /// *mini-row* is the intersection of a row and a box (b cells). Inside a box, a
    /// value confined to one mini-row is in that row's remaining cells nowhere else
    /// ("pointing"); inside a row, a value confined to one mini-row is nowhere else in
    /// that box ("claiming"). Both read off the same mini-row masks with the
    /// once/twice counter over a box's or a row's b mini-rows. The masks are taken
    /// once per sweep: later eliminations only shrink the truth below them, and a
    /// value confined in a superset is confined in the set, so the deductions stay
    /// sound. Values already decided in the unit are skipped (their peers are clear).
    /// False on a contradiction.
    fn locked_candidates(&mut self) -> bool {
        let (n, b) = (S::N, S::B);
        // mini[0][r * b + s]: row r ∩ stack s; mini[1][c * b + t]: column c ∩ band t.
        let mut mini = [[0u32; MAX_N * 5]; 2];
        let mut line_solved = [[0u32; MAX_N]; 2];
        let mut box_solved = [0u32; MAX_N];
        for i in 0..C {
            let m = self.cand[i];
            let (r, c) = (S::row(i), S::col(i));
            mini[0][r * b + c / b] |= m;
            mini[1][c * b + r / b] |= m;
            let single = m & ((m & m.wrapping_sub(1) == 0) as u32).wrapping_neg();
            line_solved[0][r] |= single;
            line_solved[1][c] |= single;
            box_solved[S::box_of(i)] |= single;
        }
        // at(dir, line, k): cell k of row `line` (dir 0) or column `line` (dir 1).
        let at = |dir: usize, line: usize, k: usize| {
            if dir == 0 {
                line * n + k
            } else {
                k * n + line
            }
        };
        for dir in 0..2 {
            let mini = &mini[dir];
            // Pointing: box (band t, stack s) for rows; (stack t, band s) for columns.
            for t in 0..b {
                for s in 0..b {
                    let bx = if dir == 0 { t * b + s } else { s * b + t };
                    let (mut once, mut twice) = (0u32, 0u32);
                    for k in 0..b {
                        let m = mini[(t * b + k) * b + s];
                        twice |= once & m;
                        once |= m;
                    }
                    let confined = once & !twice & !box_solved[bx];
                    if confined == 0 {
                        continue;
                    }
                    for k in 0..b {
                        let line = t * b + k;
                        let bits = mini[line * b + s] & confined & !line_solved[dir][line];
                        if bits == 0 {
                            continue;
                        }
                        for j in 0..n {
                            if j / b != s && !self.remove(at(dir, line, j), bits) {
                                return false;
                            }
                        }
                    }
                }
            }
            // Claiming: line `line`, its b mini-lines.
            for line in 0..n {
                let (mut once, mut twice) = (0u32, 0u32);
                for s in 0..b {
                    let m = mini[line * b + s];
                    twice |= once & m;
                    once |= m;
                }
                let confined = once & !twice & !line_solved[dir][line];
                if confined == 0 {
                    continue;
                }
                let t = line / b;
                for s in 0..b {
                    let bx = if dir == 0 { t * b + s } else { s * b + t };
                    let bits = mini[line * b + s] & confined & !box_solved[bx];
                    if bits == 0 {
                        continue;
                    }
                    // The other lines of the box, on the box's b cells of each.
                    for other in t * b..t * b + b {
                        if other == line {
                            continue;
                        }
                        for j in s * b..s * b + b {
                            if !self.remove(at(dir, other, j), bits) {
                                return false;
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// Generalised arc consistency of the all-different constraint of unit `u`
    /// (Régin, "A filtering algorithm for constraints of difference in CSPs", AAAI
    /// 1994): remove every candidate that belongs to no way of giving the unit's open
    /// cells distinct values. It subsumes naked and hidden subsets of every size.
    ///
    /// The open cells and the values no decided cell holds are equally many, so a
    /// consistent unit has a perfect matching cell → value (found by augmenting
    /// paths; none means a contradiction). With one matching fixed, value `v` of
    /// cell `x` is in some perfect matching iff `x` and the cell `y` matched to `v`
    /// lie on one alternating cycle, i.e. in one strongly connected component of the
    /// graph "x → y when x may take y's matched value". Components come from the
    /// transitive closure (Warshall on u32 rows: n ≤ 25 cells), all on the stack.
    fn all_different(&mut self, u: usize) -> bool {
        let mut cells = [0u16; MAX_N];
        let mut masks = [0u32; MAX_N];
        let mut n = 0;
        let (mut free, mut all_full) = (S::all_values(), true);
        for k in 0..S::N {
            let i = Self::unit_cell(u, k);
            let m = self.cand[i];
            if m & m.wrapping_sub(1) == 0 {
                free &= !m;
            } else {
                cells[n] = i as u16;
                masks[n] = m;
                n += 1;
            }
        }
        if free.count_ones() as usize != n {
            return false; // two decided cells share a value (their clash is queued)
        }
        if n == 0 {
            return true;
        }
        for m in &mut masks[..n] {
            // A value decided in this unit may still await its queued elimination.
            *m &= free;
            all_full &= *m == free;
        }
        if all_full {
            return true; // every open cell can take every free value: nothing to cut
        }
        // Perfect matching: greedy first, augmenting paths for the rest.
        let mut cell_of = [u8::MAX; MAX_N + 1]; // value -> local cell
        let mut value_of = [0u8; MAX_N]; // local cell -> value
        let mut unmatched = free;
        for k in 0..n {
            let easy = masks[k] & unmatched;
            if easy != 0 {
                let v = easy.trailing_zeros() as usize;
                unmatched &= !(1 << v);
                cell_of[v] = k as u8;
                value_of[k] = v as u8;
            } else {
                let mut visited = 0u32;
                if !augment(k, &masks, &mut cell_of, &mut value_of, &mut visited) {
                    return false; // the open cells cannot take distinct values
                }
                // The path ended on some free value: take the matched ones out again.
                unmatched = free;
                for &v in &value_of[..=k] {
                    unmatched &= !(1 << v);
                }
            }
        }
        // reach[k]: local cells reachable from cell k (Warshall closure).
        let mut reach = [0u32; MAX_N];
        for k in 0..n {
            let mut m = masks[k];
            while m != 0 {
                reach[k] |= 1 << cell_of[m.trailing_zeros() as usize];
                m &= m - 1;
            }
        }
        for j in 0..n {
            for k in 0..n {
                if reach[k] >> j & 1 != 0 {
                    reach[k] |= reach[j];
                }
            }
        }
        for k in 0..n {
            // Values of the cells on a cycle through k (k's own value included).
            let mut allowed = 1u32 << value_of[k];
            let mut r = reach[k];
            while r != 0 {
                let y = r.trailing_zeros() as usize;
                r &= r - 1;
                if reach[y] >> k & 1 != 0 {
                    allowed |= 1 << value_of[y];
                }
            }
            let cut = masks[k] & !allowed;
            if cut != 0 && !self.remove(usize::from(cells[k]), cut) {
                return false;
            }
        }
        true
    }

    /// Applies naked singles, hidden singles and locked candidates until none finds
    /// anything (or the board is solved); the costlier rules only run once the
    /// cheaper ones are stuck. False on a contradiction; the queue is then emptied,
    /// so the caller's undo leaves a clean state. On success with open cells, the
    /// last hidden-single sweep saw the final board, so its `pair_*` is current.
    fn propagate(&mut self) -> bool {
        loop {
            while self.queue_len > 0 {
                self.queue_len -= 1;
                let i = self.queue[self.queue_len] as usize;
                if !self.clear_peers(i) {
                    self.queue_len = 0;
                    return false;
                }
            }
            if self.n_open == 0 {
                return true;
            }
            if !self.hidden_singles() {
                self.queue_len = 0;
                return false;
            }
            if self.queue_len != 0 {
                continue;
            }
            let mark = self.trail_len;
            while self.dirty != 0 {
                let u = self.dirty.trailing_zeros() as usize;
                self.dirty &= self.dirty - 1;
                if u < 3 * S::N && !self.all_different(u) {
                    self.queue_len = 0;
                    return false;
                }
            }
            if self.trail_len != mark {
                continue;
            }
            if !self.locked_candidates() {
                self.queue_len = 0;
                return false;
            }
            if self.trail_len == mark {
                return true;
            }
        }
    }

    /// A pseudo-random number (xorshift64).
    #[inline(always)]
    fn next_random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// The open cell with the fewest candidates (a two-candidate cell ends the scan).
    /// The scan starts at a random cell, so ties fall differently in each restart.
    fn branch_cell(&mut self) -> (usize, u32) {
        let start = (self.next_random() % C as u64) as usize;
        let (mut best, mut best_n) = (0, u32::MAX);
        for i in (start..C).chain(0..start) {
            let n = self.cand[i].count_ones();
            if n >= 2 && n < best_n {
                (best, best_n) = (i, n);
                if n == 2 {
                    break;
                }
            }
        }
        (best, self.cand[best])
    }

    /// One of the values of `values`, at random.
    #[inline]
    fn pick(&mut self, values: u32) -> u32 {
        let mut m = values;
        for _ in 0..self.next_random() % u64::from(values.count_ones()) {
            m &= m - 1;
        }
        m & m.wrapping_neg()
    }

    /// Depth-first search counting solutions up to `limit`. Every recursion decides
    /// at least one more cell, so the depth is at most C.
    fn search(&mut self) {
        loop {
            if !self.propagate() {
                return;
            }
            if self.n_open == 0 {
                if self.count == 0 {
                    for (f, &m) in self.first.iter_mut().zip(&self.cand) {
                        *f = m.trailing_zeros() as u8;
                    }
                }
                self.count += 1;
                return;
            }
            let (i, mut values) = self.branch_cell();
            if values.count_ones() > 2 && self.pair_bit != 0 {
                // No cell has two candidates but a unit has a value with two places:
                // branch on where that value goes (the "dual" choice of DLX's
                // fewest-options rule), the first place, else the other one.
                let (u, bit) = (self.pair_unit, self.pair_bit);
                let mut places = (0..S::N)
                    .map(|k| Self::unit_cell(u, k))
                    .filter(|&j| self.cand[j] & bit != 0);
                let (a, b) = (
                    places.next().expect("two places"),
                    places.next().expect("two places"),
                );
                let a = if self.next_random() & 1 == 0 { a } else { b };
                if !self.try_branch(a, bit) {
                    return;
                }
                // The value is not at `a`: the next sweep places it at the other cell.
                continue;
            }
            // Every value but the last is tried below a trail mark; the last one
            // continues in this frame, since nothing is left to come back to.
            while values & (values - 1) != 0 {
                let bit = self.pick(values);
                values &= !bit;
                if !self.try_branch(i, bit) {
                    return;
                }
            }
        }
    }

    /// Searches below "cell `i` holds `bit`" and undoes it; then, unless the search
    /// is over (limit reached, budget spent: returns false), eliminates `bit` from
    /// `i`, since every solution with it has been counted.
    #[inline]
    fn try_branch(&mut self, i: usize, bit: u32) -> bool {
        self.nodes += 1;
        if self.nodes > self.budget {
            self.aborted = true;
            return false;
        }
        let (mark, open) = (self.trail_len, self.n_open);
        self.assign(i, bit);
        self.search();
        self.undo(mark);
        self.n_open = open;
        self.queue_len = 0;
        if self.count >= self.limit || self.aborted {
            return false;
        }
        // `i` had another candidate, so this cannot empty it; with one value left
        // it decides and queues the cell.
        let still_open = self.remove(i, bit);
        debug_assert!(still_open, "at least one value remains");
        true
    }
}

/// The first solution the search finds, if any (tests build random grids with it).
#[cfg(test)]
pub(crate) fn first_solution<S: Shape>(cells: &[u8]) -> Option<S::Cells> {
    let mut solution = S::empty();
    (sized!(S, run(cells, 1, None, Some(solution.as_mut()))) == 1).then_some(solution)
}

#[cfg(test)]
mod tests {
    use super::super::{on_every_shape, Box2, Box3, Box4};
    use super::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// The pattern grid: value at (r, c) = ((r mod b)·b + r div b + c) mod N + 1.
    fn pattern<S: Shape>() -> S::Cells {
        let mut g = S::empty();
        for (i, v) in g.as_mut().iter_mut().enumerate() {
            let (r, c) = (S::row(i), S::col(i));
            *v = (((r % S::B) * S::B + r / S::B + c) % S::N + 1) as u8;
        }
        g
    }

    /// `grid` with `holes` random cells emptied and, with `wrong`, one random empty
    /// cell given a random value (possibly no solution, possibly a clash).
    fn perturb<S: Shape>(grid: &S::Cells, holes: usize, wrong: bool, rng: &mut Pcg64) -> S::Cells {
        let mut p = *grid;
        let mut order: Vec<usize> = (0..S::CELLS).collect();
        order.shuffle(rng);
        for &c in &order[..holes] {
            p.as_mut()[c] = 0;
        }
        if wrong {
            p.as_mut()[order[0]] = rng.random_range(1..=S::N as u8);
        }
        p
    }

    #[test]
    fn the_empty_4x4_board_has_288_solutions() {
        assert_eq!(count_solutions_reference::<Box2>(&[0; 16], u32::MAX), 288);
        assert_eq!(count_solutions::<Box2>(&[0; 16], u32::MAX), 288);
        assert_eq!(count_solutions::<Box2>(&[0; 16], 100), 100);
        assert_eq!(
            count_solutions::<Box2>(&[0; 16], 0),
            1,
            "limit 0 counts as 1"
        );
        assert_eq!(solve::<Box2>(&[0; 16]), Verdict::Multiple);
    }

    #[test]
    fn agrees_with_the_9x9_solver_on_qqwing_puzzles() {
        let text = include_str!("../../../../data/qqwing-10k.txt");
        for (n, line) in text.lines().take(200).enumerate() {
            let cells = crate::engine::grid::parse_line(line, n + 1).unwrap();
            let fast = crate::engine::nxn::solve::nine::count_solutions(&cells, 2);
            assert_eq!(count_solutions::<Box3>(&cells, 2), fast, "line {}", n + 1);
            if n < 20 {
                assert_eq!(count_solutions_reference::<Box3>(&cells, 2), fast);
            }
            let crate::engine::nxn::solve::nine::Verdict::Unique(expected) =
                crate::engine::nxn::solve::nine::solve(&cells)
            else {
                panic!("qqwing puzzles are unique")
            };
            assert_eq!(solve::<Box3>(&cells), Verdict::Unique(expected));
            // The carve test on each given: agrees with counting to two.
            for c in (0..81).filter(|&c| cells[c] != 0).take(10) {
                let mut p = cells;
                p[c] = 0;
                assert_eq!(
                    removal_keeps_unique::<Box3>(&p, c, cells[c]),
                    crate::engine::nxn::solve::nine::count_solutions(&p, 2) == 1,
                    "line {}, cell {c}",
                    n + 1
                );
            }
        }
    }

    /// Random partial boards of a shuffled pattern grid: the fast solver counts (to
    /// 1, 2 and 3) like the reference, and `solve` returns a real solution.
    fn agrees_with_reference<S: Shape>(seed: u64, boards: usize, holes: std::ops::Range<usize>) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut seen = [0u32; 3];
        for n in 0..boards {
            let grid = pattern::<S>();
            let p = perturb::<S>(&grid, rng.random_range(holes.clone()), n % 2 == 1, &mut rng);
            for limit in [1, 2, 3] {
                assert_eq!(
                    count_solutions::<S>(p.as_ref(), limit),
                    count_solutions_reference::<S>(p.as_ref(), limit),
                    "{p:?} up to {limit}"
                );
            }
            match solve::<S>(p.as_ref()) {
                Verdict::NoSolution => seen[0] += 1,
                Verdict::Unique(s) => {
                    seen[1] += 1;
                    assert!(super::super::solves::<S>(p.as_ref(), s.as_ref()));
                }
                Verdict::Multiple => seen[2] += 1,
            }
        }
        assert!(
            seen.iter().all(|&k| k > 0),
            "every verdict occurs: {seen:?}"
        );
    }

    #[test]
    fn agrees_with_the_reference_on_random_partial_4x4_boards() {
        agrees_with_reference::<Box2>(1, 600, 4..14);
    }

    #[test]
    fn agrees_with_the_reference_on_random_partial_9x9_boards() {
        agrees_with_reference::<Box3>(2, 400, 40..62);
    }

    #[test]
    fn agrees_with_the_reference_on_random_partial_16x16_boards() {
        agrees_with_reference::<Box4>(3, 150, 40..140);
    }

    #[test]
    fn removal_test_agrees_with_counting_on_a_carve_walk() {
        // Carve 16×16 and 9×9 pattern grids cell by cell: at every step the one-search
        // test must say what counting to two says.
        fn walk<S: Shape>(seed: u64) {
            let mut rng = Pcg64::seed_from_u64(seed);
            let grid = pattern::<S>();
            let mut puzzle = grid;
            let mut order: Vec<usize> = (0..S::CELLS).collect();
            order.shuffle(&mut rng);
            let (mut kept, mut removed) = (0, 0);
            for c in order {
                let v = puzzle.as_ref()[c];
                puzzle.as_mut()[c] = 0;
                let keeps = removal_keeps_unique::<S>(puzzle.as_ref(), c, v);
                assert_eq!(
                    keeps,
                    count_solutions::<S>(puzzle.as_ref(), 2) == 1,
                    "cell {c}"
                );
                if keeps {
                    removed += 1;
                } else {
                    puzzle.as_mut()[c] = v;
                    kept += 1;
                }
            }
            assert!(kept > 0 && removed > 0);
            assert_eq!(solve::<S>(puzzle.as_ref()), Verdict::Unique(grid));
        }
        walk::<Box2>(4);
        walk::<Box3>(5);
        walk::<Box4>(6);
    }

    #[test]
    fn edge_cases_at_every_size() {
        fn check<S: Shape>() {
            let grid = pattern::<S>();
            assert_eq!(solve::<S>(grid.as_ref()), Verdict::Unique(grid));
            let mut clash = S::empty();
            clash.as_mut()[0] = 1;
            clash.as_mut()[S::N - 1] = 1;
            assert_eq!(solve::<S>(clash.as_ref()), Verdict::NoSolution);
            let mut too_big = S::empty();
            too_big.as_mut()[0] = S::N as u8 + 1;
            assert_eq!(count_solutions::<S>(too_big.as_ref(), 2), 0);
            assert_eq!(count_solutions::<S>(S::empty().as_ref(), 3), 3);
            // No clash among the givens, yet cell 0 sees every value.
            let mut blocked = S::empty();
            for k in 1..S::N {
                blocked.as_mut()[k] = k as u8;
            }
            blocked.as_mut()[S::N * S::B] = S::N as u8;
            assert_eq!(solve::<S>(blocked.as_ref()), Verdict::NoSolution);
        }
        on_every_shape!(check);
    }
}
