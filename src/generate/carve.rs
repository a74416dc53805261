//! Carve strategies: remove clues from a complete grid while the solution stays unique.
//!
//! * `minimal` (SEEDS.md) — visit the cells in a shuffled order; empty each one and
//!   keep the removal only if the puzzle still has exactly one solution. Every cell is
//!   tried once, so the result is minimal: no clue can go without losing uniqueness.
//! * `target` — the same walk, but stop as soon as the clue count reaches a target
//!   (drawn by the caller inside a difficulty band). When the walk ends first, the
//!   puzzle is minimal above the target; the caller decides whether it still fits.
//!
//! The uniqueness test after one removal is [`removal_keeps_unique`]: since the
//! puzzle was unique with digit `d` in the emptied cell, it stays unique exactly when
//! no solution puts another digit there. That is one "find any solution" search with
//! one extra elimination, and for most early removals propagation alone refutes it.
//! Nothing here allocates: the puzzle and the visiting order are stack arrays.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::grid::{Cells, N_CELLS};
use crate::solve::removal_keeps_unique;

/// How to carve a puzzle out of a complete grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carve {
    /// Remove every clue that can go: a minimal puzzle.
    Minimal,
    /// Remove clues until a target clue count is reached (or none can go).
    Target,
}

impl Carve {
    /// The strategy's name on the command line and in manifests.
    pub fn name(self) -> &'static str {
        match self {
            Carve::Minimal => "minimal",
            Carve::Target => "target",
        }
    }
}

/// A carved puzzle and its clue count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarveOutcome {
    /// The puzzle: the grid with the removed cells set to 0.
    pub puzzle: Cells,
    /// Number of givens left.
    pub n_clues: u8,
    /// True when every remaining clue was tried and none could go.
    pub minimal: bool,
}

/// Carves `solution` (a complete valid grid). `stop_at` is the clue count at which
/// `Target` stops; `Minimal` ignores it.
pub fn carve<R: Rng + ?Sized>(
    strategy: Carve,
    solution: &Cells,
    stop_at: u8,
    rng: &mut R,
) -> CarveOutcome {
    let stop_at = match strategy {
        Carve::Minimal => 0,
        Carve::Target => stop_at,
    };
    let mut order: [u8; N_CELLS] = std::array::from_fn(|i| i as u8);
    order.shuffle(rng);
    let mut puzzle = *solution;
    let mut n_clues = N_CELLS as u8;
    for (visited, &cell) in order.iter().enumerate() {
        if n_clues <= stop_at {
            // Stopped early: minimal only if every later clue was already tried,
            // which is never the case before the last cell.
            return CarveOutcome {
                puzzle,
                n_clues,
                minimal: visited == N_CELLS,
            };
        }
        let cell = cell as usize;
        let digit = puzzle[cell];
        puzzle[cell] = 0;
        if removal_keeps_unique(&puzzle, cell, digit) {
            n_clues -= 1;
        } else {
            puzzle[cell] = digit;
        }
    }
    CarveOutcome {
        puzzle,
        n_clues,
        minimal: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::fill::{fill, Fill};
    use crate::grid::n_clues;
    use crate::solve::{count_solutions, solve, Verdict};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn minimal_carve_is_unique_and_minimal() {
        let mut rng = Pcg64::seed_from_u64(1);
        for _ in 0..5 {
            let grid = fill(Fill::Backtrack, &mut rng);
            let out = carve(Carve::Minimal, &grid, 0, &mut rng);
            assert_eq!(solve(&out.puzzle), Verdict::Unique(grid));
            assert_eq!(n_clues(&out.puzzle), out.n_clues);
            for c in (0..81).filter(|&c| out.puzzle[c] != 0) {
                let mut p = out.puzzle;
                p[c] = 0;
                assert!(count_solutions(&p, 2) > 1, "clue at {c} was removable");
            }
        }
    }

    #[test]
    fn target_carve_stops_at_the_target() {
        let mut rng = Pcg64::seed_from_u64(2);
        let grid = fill(Fill::Backtrack, &mut rng);
        let out = carve(Carve::Target, &grid, 38, &mut rng);
        assert_eq!(out.n_clues, 38);
        assert!(!out.minimal);
        assert_eq!(solve(&out.puzzle), Verdict::Unique(grid));
    }
}
