//! Carve strategies: remove clues from a complete grid while the solution stays unique.
//!
//! * `minimal` (SEEDS.md) — visit the cells in a shuffled order; empty each one and
//!   keep the removal only if the puzzle still has exactly one solution. Every cell is
//!   tried once, so the result is minimal: no clue can go without losing uniqueness.
//! * `target` — the same walk, but stop as soon as the clue count reaches a target
//!   (drawn by the caller inside a difficulty band). When the walk ends first, the
//!   puzzle is minimal above the target; the caller decides whether it still fits.
//!
//! * `add-clues` — the reverse direction: start from [`START_CLUES`] random clues of
//!   the solution, then add clues that the solver shows to disambiguate: walking the
//!   other cells in random order, a cell gets its clue exactly when some solution of the
//!   current puzzle puts another digit there (found by the same one-search test as a
//!   removal). A cell passed over stays decided, since more clues never add
//!   solutions, so after one walk every empty cell is forced: the puzzle is unique.
//!   Always finished by a `target` pass (a full `minimal` pass when `stop_at` is 0),
//!   since the early random clues are often redundant; when the puzzle is already
//!   below `stop_at`, random clues of the solution are added up to it instead.
//! * `unavoidable` — first find the small unavoidable sets of the solution (4 cells in
//!   2 boxes, 6 cells in 3 boxes: two rows of a band whose digits on 2 or 3 columns
//!   can be exchanged, likewise two columns of a stack, and three rows of a band
//!   holding two digits on the same columns, likewise for stacks); keep one clue of
//!   each, chosen greedily (the cell hitting most still-unhit sets, ties at random),
//!   so removals that would break uniqueness that way are never tried; then carve the
//!   other cells at random, stopping at `stop_at`.
//!
//! `stop_at` is honoured by `target`, `add-clues` and `unavoidable`; `minimal`
//! ignores it.
//!
//! The uniqueness test after one removal is [`removal_keeps_unique`]: since the
//! puzzle was unique with digit `d` in the emptied cell, it stays unique exactly when
//! no solution puts another digit there. That is one "find any solution" search with
//! one extra elimination, and for most early removals propagation alone refutes it.
//! Nothing here allocates: the puzzle and the visiting order are stack arrays.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::engine::grid::{Cells, N_CELLS};
use crate::engine::solve::removal_keeps_unique;

use super::symmetry::Symmetry;

mod unavoidable;

/// How to carve a puzzle out of a complete grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carve {
    /// Remove every clue that can go: a minimal puzzle.
    Minimal,
    /// Remove clues until a target clue count is reached (or none can go).
    Target,
    /// Start from a few clues, add disambiguating ones until unique, then carve.
    AddClues,
    /// Keep one clue of every small unavoidable set, then carve the rest.
    Unavoidable,
}

impl Carve {
    /// The strategy's name on the command line and in manifests.
    pub fn name(self) -> &'static str {
        match self {
            Carve::Minimal => "minimal",
            Carve::Target => "target",
            Carve::AddClues => "add-clues",
            Carve::Unavoidable => "unavoidable",
        }
    }

    /// Every strategy, in the order of SEEDS.md.
    pub const ALL: [Carve; 4] = [
        Carve::Minimal,
        Carve::Target,
        Carve::AddClues,
        Carve::Unavoidable,
    ];

    /// The strategy called `name`, the inverse of [`Carve::name`].
    pub fn from_name(name: &str) -> Option<Carve> {
        Carve::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Random clues `add-clues` starts from (SEEDS.md: "about 15").
pub const START_CLUES: usize = 15;

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

/// What to carve: the strategy, where to stop, and the symmetry of the clue pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarveConfig {
    pub strategy: Carve,
    /// Clue count at which `target`, `add-clues` and `unavoidable` stop.
    pub stop_at: u8,
    /// With anything but `None`, clues are removed in orbits (`minimal` and `target`).
    pub symmetry: Symmetry,
}

impl CarveConfig {
    /// True when the strategy can keep the clue pattern symmetric: the removal walks
    /// of `minimal` and `target`. `add-clues` starts from random single clues and
    /// `unavoidable` keeps single cells of unavoidable sets, so neither can.
    pub fn supports_symmetry(&self) -> bool {
        self.symmetry == Symmetry::None || matches!(self.strategy, Carve::Minimal | Carve::Target)
    }
}

/// Carves `solution` as `config` says. A symmetric carve removes whole orbits (see
/// [`Symmetry`]); its `minimal` means minimal with respect to orbits.
///
/// Panics if the strategy does not support the symmetry ([`CarveConfig::supports_symmetry`]):
/// callers validate that with the user's options, before any work.
pub fn carve_with<R: Rng + ?Sized>(
    config: &CarveConfig,
    solution: &Cells,
    rng: &mut R,
) -> CarveOutcome {
    if config.symmetry == Symmetry::None {
        return carve(config.strategy, solution, config.stop_at, rng);
    }
    assert!(config.supports_symmetry(), "checked by the caller");
    let mut order: [u8; N_CELLS] = std::array::from_fn(|i| i as u8);
    order.shuffle(rng);
    let stop_at = match config.strategy {
        Carve::Minimal => 0,
        _ => config.stop_at,
    };
    walk_orbits(*solution, &order, stop_at, config.symmetry)
}

/// The removal walk over orbits: visits `order`, and for each cell not yet visited
/// through its orbit, empties the whole orbit and keeps the removal only if the
/// puzzle stays unique; an orbit that would take the count below `stop_at` is left.
/// Invariant: `puzzle` is uniquely solvable throughout, and symmetric.
fn walk_orbits(mut puzzle: Cells, order: &[u8], stop_at: u8, symmetry: Symmetry) -> CarveOutcome {
    let mut n_clues = N_CELLS as u8;
    let mut tried = [false; N_CELLS];
    let mut complete = true;
    for &cell in order {
        let cell = cell as usize;
        if tried[cell] {
            continue;
        }
        let (orbit, len) = symmetry.orbit(cell);
        for &o in &orbit[..len] {
            tried[o as usize] = true;
        }
        if n_clues < stop_at + len as u8 {
            complete = false;
            continue;
        }
        let saved = puzzle;
        for &o in &orbit[..len] {
            puzzle[o as usize] = 0;
        }
        // One cell: the cheap single-removal test. Several: count to two.
        let unique = if len == 1 {
            removal_keeps_unique(&puzzle, cell, saved[cell])
        } else {
            crate::engine::solve::count_solutions(&puzzle, 2) == 1
        };
        if unique {
            n_clues -= len as u8;
        } else {
            puzzle = saved;
        }
    }
    CarveOutcome {
        puzzle,
        n_clues,
        minimal: complete,
    }
}

/// Carves `solution` (a complete valid grid) with no symmetry. `stop_at` is the clue
/// count at which `target`, `add-clues` and `unavoidable` stop; `minimal` ignores it.
pub fn carve<R: Rng + ?Sized>(
    strategy: Carve,
    solution: &Cells,
    stop_at: u8,
    rng: &mut R,
) -> CarveOutcome {
    let mut order: [u8; N_CELLS] = std::array::from_fn(|i| i as u8);
    order.shuffle(rng);
    match strategy {
        Carve::Minimal => walk(*solution, N_CELLS as u8, &order, 0),
        Carve::Target => walk(*solution, N_CELLS as u8, &order, stop_at),
        Carve::AddClues => {
            let mut puzzle = [0u8; N_CELLS];
            for &c in &order[..START_CLUES] {
                puzzle[c as usize] = solution[c as usize];
            }
            for &c in &order[START_CLUES..] {
                let c = c as usize;
                // Some solution puts another digit here: this clue disambiguates.
                if !removal_keeps_unique(&puzzle, c, solution[c]) {
                    puzzle[c] = solution[c];
                }
            }
            debug_assert!(crate::engine::solve::is_unique(&puzzle));
            let mut n = crate::engine::grid::n_clues(&puzzle);
            order.shuffle(rng);
            // Below the target already: the reverse direction goes on adding random
            // clues of the solution (uniqueness cannot be lost by adding).
            for &c in &order {
                if n >= stop_at {
                    break;
                }
                if puzzle[c as usize] == 0 {
                    puzzle[c as usize] = solution[c as usize];
                    n += 1;
                }
            }
            walk(puzzle, n, &order, stop_at)
        }
        Carve::Unavoidable => {
            let keep = unavoidable::hitting_set(solution, rng);
            // Kept cells go to the end of the walk's order and are never tried.
            let (mut front, mut back) = (0, N_CELLS);
            let mut sorted = [0u8; N_CELLS];
            for &c in &order {
                if keep & (1u128 << c) != 0 {
                    back -= 1;
                    sorted[back] = c;
                } else {
                    sorted[front] = c;
                    front += 1;
                }
            }
            let out = walk(*solution, N_CELLS as u8, &sorted[..front], stop_at);
            CarveOutcome {
                minimal: false,
                ..out
            }
        }
    }
}

/// The removal walk of `minimal` and `target`: visits `order`, empties each cell and
/// keeps the removal only if the puzzle stays unique; stops once `n_clues <= stop_at`.
/// Invariant: `puzzle` is uniquely solvable throughout, with `n_clues` givens.
fn walk(mut puzzle: Cells, mut n_clues: u8, order: &[u8], stop_at: u8) -> CarveOutcome {
    for (visited, &cell) in order.iter().enumerate() {
        if n_clues <= stop_at {
            return CarveOutcome {
                puzzle,
                n_clues,
                minimal: visited == order.len(),
            };
        }
        let cell = cell as usize;
        let digit = puzzle[cell];
        if digit == 0 {
            continue;
        }
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
        minimal: order.len() == N_CELLS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generate::fill::{fill, Fill};
    use crate::engine::grid::n_clues;
    use crate::engine::solve::{count_solutions, solve, Verdict};
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

    #[test]
    fn every_strategy_gives_unique_puzzles_and_stop_at_is_honoured() {
        let mut rng = Pcg64::seed_from_u64(3);
        for strategy in Carve::ALL {
            assert_eq!(Carve::from_name(strategy.name()), Some(strategy));
            for stop_at in [0u8, 30] {
                let grid = fill(Fill::Mrv, &mut rng);
                let out = carve(strategy, &grid, stop_at, &mut rng);
                let name = strategy.name();
                assert_eq!(solve(&out.puzzle), Verdict::Unique(grid), "{name}");
                assert_eq!(n_clues(&out.puzzle), out.n_clues, "{name}");
                if stop_at == 30 && strategy != Carve::Minimal {
                    assert!(out.n_clues >= 30, "{name}: {} clues", out.n_clues);
                }
            }
        }
    }
}
