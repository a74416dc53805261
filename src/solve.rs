//! The counting solver: the hot loop of the whole factory.
//!
//! Every carve step asks "is this puzzle still uniquely solvable?", so this module
//! decides how fast the factory is. The representation is one 81-bit board per digit
//! (`u128`), bit `c` set when the digit may still stand in cell `c` (placed digits
//! included). With that layout the two classic propagation rules are a handful of
//! wide bitwise operations instead of loops over cells:
//!
//! * **naked singles** — a bit-sliced counter over the nine boards yields, for all 81
//!   cells at once, the cells with zero, exactly one, or at least two candidates;
//! * **hidden singles** — a digit whose board meets a unit (row, column, box) in one
//!   cell must go there; a digit that misses a unit entirely is a contradiction.
//!
//! When propagation stalls the search branches on a cell with the fewest candidates
//! (a bivalue cell whenever there is one, found with a third counter level).
//!
//! Architecture invariant: nothing here allocates. A search node is a `Copy` value of
//! 160 bytes living on the stack; the recursion depth is bounded by 81.

use crate::grid::{Cells, N_CELLS};

/// All 81 cell bits.
const ALL: u128 = (1u128 << N_CELLS) - 1;

/// The 27 units: rows 0–8, columns 9–17, boxes 18–26, as cell masks.
const UNITS: [u128; 27] = build_units();
/// For every cell, the other 20 cells that share a unit with it.
const PEERS: [u128; N_CELLS] = build_peers();

const fn build_units() -> [u128; 27] {
    let mut units = [0u128; 27];
    let mut c = 0;
    while c < N_CELLS {
        let (r, k) = (c / 9, c % 9);
        let b = (r / 3) * 3 + k / 3;
        units[r] |= 1 << c;
        units[9 + k] |= 1 << c;
        units[18 + b] |= 1 << c;
        c += 1;
    }
    units
}

const fn build_peers() -> [u128; N_CELLS] {
    let units = build_units();
    let mut peers = [0u128; N_CELLS];
    let mut c = 0;
    while c < N_CELLS {
        let (r, k) = (c / 9, c % 9);
        let b = (r / 3) * 3 + k / 3;
        peers[c] = (units[r] | units[9 + k] | units[18 + b]) & !(1 << c);
        c += 1;
    }
    peers
}

/// A search node: candidate positions per digit and the cells not yet assigned.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    /// `cand[d]`: cells where digit `d + 1` may stand (its placed cells included).
    cand: [u128; 9],
    /// Cells without an assigned digit.
    unsolved: u128,
}

impl Board {
    /// The empty board: every digit possible everywhere.
    pub const EMPTY: Board = Board {
        cand: [ALL; 9],
        unsolved: ALL,
    };

    /// Builds the board of a puzzle's givens (eliminations only, no propagation).
    /// Returns `None` when two givens clash.
    #[inline]
    pub fn from_cells(cells: &Cells) -> Option<Board> {
        let mut board = Board::EMPTY;
        for (c, &v) in cells.iter().enumerate() {
            if v != 0 && !board.assign(v as usize - 1, c) {
                return None;
            }
        }
        Some(board)
    }

    /// Places digit index `d` (0-based) in cell `c`; false if it was not a candidate.
    #[inline(always)]
    pub fn assign(&mut self, d: usize, c: usize) -> bool {
        let bit = 1u128 << c;
        if self.cand[d] & bit == 0 {
            return false;
        }
        for board in &mut self.cand {
            *board &= !bit;
        }
        self.cand[d] |= bit;
        self.cand[d] &= !PEERS[c];
        self.unsolved &= !bit;
        true
    }

    /// Forbids digit index `d` in cell `c`.
    #[inline]
    pub fn forbid(&mut self, d: usize, c: usize) {
        self.cand[d] &= !(1u128 << c);
    }

    /// Bit-sliced candidate counts over the unsolved cells: cells with at least one,
    /// at least two and at least three candidates.
    #[inline(always)]
    fn counts(&self) -> (u128, u128, u128) {
        let u = self.unsolved;
        let (mut ones, mut twos, mut threes) = (0u128, 0u128, 0u128);
        for &board in &self.cand {
            let b = board & u;
            threes |= twos & b;
            twos |= ones & b;
            ones |= b;
        }
        (ones, twos, threes)
    }

    /// Applies naked and hidden singles until nothing changes. Returns false on a
    /// contradiction (a cell without candidates, a unit without a place for a digit,
    /// or two singles that collide).
    #[inline]
    fn propagate(&mut self) -> bool {
        loop {
            let u = self.unsolved;
            if u == 0 {
                return true;
            }
            // Naked singles, all cells at once.
            let (mut ones, mut twos) = (0u128, 0u128);
            for &board in &self.cand {
                let b = board & u;
                twos |= ones & b;
                ones |= b;
            }
            if u & !ones != 0 {
                return false;
            }
            let singles = ones & !twos;
            if singles != 0 {
                for d in 0..9 {
                    let mut s = singles & self.cand[d];
                    while s != 0 {
                        let c = s.trailing_zeros() as usize;
                        s &= s - 1;
                        if !self.assign(d, c) {
                            return false;
                        }
                    }
                }
                continue;
            }
            // Hidden singles. A digit with all nine copies placed has nothing to find,
            // and skipping it is cheaper than scanning its 27 units.
            let mut progress = false;
            for d in 0..9 {
                if (self.cand[d] & !self.unsolved).count_ones() == 9 {
                    continue;
                }
                for unit in &UNITS {
                    let m = self.cand[d] & unit;
                    if m == 0 {
                        return false;
                    }
                    if m & (m - 1) == 0 && m & self.unsolved != 0 {
                        if !self.assign(d, m.trailing_zeros() as usize) {
                            return false;
                        }
                        progress = true;
                    }
                }
            }
            if !progress {
                return true;
            }
        }
    }

    /// The cell to branch on: a bivalue cell if any, else one with fewest candidates.
    #[inline]
    fn branch_cell(&self) -> usize {
        let (_, twos, threes) = self.counts();
        let bivalue = twos & !threes;
        if bivalue != 0 {
            return bivalue.trailing_zeros() as usize;
        }
        // Rare: every open cell has three or more candidates. Scan for the minimum.
        let mut best = (u32::MAX, 0usize);
        let mut open = self.unsolved;
        while open != 0 {
            let c = open.trailing_zeros() as usize;
            open &= open - 1;
            let n = self.cand.iter().filter(|&&b| b >> c & 1 != 0).count() as u32;
            if n < best.0 {
                best = (n, c);
            }
        }
        best.1
    }

    /// Reads the digits of a fully assigned board.
    fn cells(&self) -> Cells {
        let mut out = [0u8; N_CELLS];
        for (d, &board) in self.cand.iter().enumerate() {
            let mut b = board;
            while b != 0 {
                out[b.trailing_zeros() as usize] = d as u8 + 1;
                b &= b - 1;
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
    fn run(&mut self, mut board: Board) {
        if !board.propagate() {
            return;
        }
        if board.unsolved == 0 {
            if self.count == 0 {
                self.first = board.cells();
            }
            self.count += 1;
            return;
        }
        let c = board.branch_cell();
        let bit = 1u128 << c;
        for d in 0..9 {
            if board.cand[d] & bit == 0 {
                continue;
            }
            let mut next = board;
            next.assign(d, c);
            self.run(next);
            if self.count >= self.limit {
                return;
            }
            // This digit is exhausted here: forbid it for the remaining branches,
            // which lets propagation in the siblings start from a stronger board.
            board.cand[d] &= !bit;
        }
    }
}

/// What a puzzle's solutions look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The givens admit no completion (or clash).
    NoSolution,
    /// Exactly one completion.
    Unique(Cells),
    /// Two or more completions.
    Multiple,
}

/// Counts the solutions of `board`, stopping at `limit`; also returns the first found.
#[inline]
pub fn count_board(board: Board, limit: u32) -> (u32, Cells) {
    let mut search = Search {
        limit: limit.max(1),
        count: 0,
        first: [0; N_CELLS],
    };
    search.run(board);
    (search.count, search.first)
}

/// Number of solutions of `cells`, counted up to `limit`.
pub fn count_solutions(cells: &Cells, limit: u32) -> u32 {
    match Board::from_cells(cells) {
        Some(board) => count_board(board, limit).0,
        None => 0,
    }
}

/// Solves `cells`, telling apart no, one and several solutions.
pub fn solve(cells: &Cells) -> Verdict {
    let Some(board) = Board::from_cells(cells) else {
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

/// The carve step's uniqueness test. `puzzle` is uniquely solvable with `digit` in
/// `cell`; the caller has just emptied `cell` in `puzzle`. The emptied puzzle is still
/// unique exactly when no solution puts another digit in `cell` — a single
/// "find any solution" search under one extra elimination, which fails fast in the
/// common case instead of counting to two.
#[inline]
pub fn removal_keeps_unique(puzzle: &Cells, cell: usize, digit: u8) -> bool {
    let Some(mut board) = Board::from_cells(puzzle) else {
        return false;
    };
    board.forbid(digit as usize - 1, cell);
    count_board(board, 1).0 == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{parse_line, solves};

    const MINIMAL: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";

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
}
