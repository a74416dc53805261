//! The peer of `bench --difficulty`: the `sudoku` crate 0.8's generator, used the way
//! one of its users would use it to fill a band.
//!
//! The crate makes a puzzle in two calls: `Sudoku::generate_solved_with_rng` fills a
//! random grid, and `Sudoku::generate_with_symmetry_and_rng_from(grid, Symmetry::None,
//! rng)` carves it to a *minimal* puzzle (shuffle the cells, keep each removal while
//! the puzzle stays unique: our `minimal` carve). It has no way to stop at a clue
//! count, and minimal puzzles have about 22–26 clues, so for a clue target drawn in a
//! band (as our pipeline draws it) a user does the obvious thing: when the minimal
//! puzzle has fewer clues than the target, add clues of the solution back at random
//! until it has exactly the target (adding clues never breaks uniqueness); when it has
//! more, keep it if it still lands in the band, else fill and carve again. That is one
//! attempt, counted like ours.
//!
//! Randomness: the crate wants a `rand` 0.8 generator, so each attempt seeds a
//! `rand_pcg` 0.3 `Pcg64` from the puzzle's own item stream (two draws, nanoseconds
//! beside the attempt); the target and the order in which clues are added back come
//! from the item stream itself. Puzzle `i` of the peer is as reproducible as ours.

use rand::seq::SliceRandom;
use rand::Rng;
use sudoku::{Sudoku, Symmetry};

use crate::engine::grid::{Cells, N_CELLS};

/// One attempt for a band `lo..=hi`: the crate's solved grid, its minimal puzzle, then
/// clues added back up to a target drawn in the band. Returns the solution, the puzzle
/// and its clue count; the caller decides whether it landed.
pub fn attempt<R: Rng + ?Sized>(lo: u8, hi: u8, rng: &mut R) -> (Cells, Cells, u8) {
    let mut crate_rng = rand_pcg03::Pcg64::new(rng.random::<u128>(), rng.random::<u128>());
    let solved = Sudoku::generate_solved_with_rng(&mut crate_rng);
    // Drawn between fill and carve, as `run::seed::make_seed` draws it.
    let target = rng.random_range(lo..=hi);
    let minimal =
        Sudoku::generate_with_symmetry_and_rng_from(solved, Symmetry::None, &mut crate_rng);
    let solution = solved.to_bytes();
    let mut puzzle = minimal.to_bytes();
    let mut n_clues = minimal.n_clues();
    if n_clues < target {
        let mut order: [u8; N_CELLS] = std::array::from_fn(|i| i as u8);
        order.shuffle(rng);
        for &c in &order {
            if n_clues >= target {
                break;
            }
            let c = c as usize;
            if puzzle[c] == 0 {
                puzzle[c] = solution[c];
                n_clues += 1;
            }
        }
    }
    (solution, puzzle, n_clues)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grid::n_clues;
    use crate::engine::nxn::solve::nine::{solve, Verdict};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn attempts_are_unique_and_meet_the_target_from_below() {
        let mut rng = Pcg64::seed_from_u64(4);
        for (lo, hi) in [(36, 40), (30, 35), (17, 23)] {
            let (solution, puzzle, n) = attempt(lo, hi, &mut rng);
            assert_eq!(n, n_clues(&puzzle));
            assert_eq!(solve(&puzzle), Verdict::Unique(solution));
            // Minimal puzzles have far fewer than 30 clues: easy and medium are reached
            // by adding clues back, exactly to a target inside the band.
            if lo >= 30 {
                assert!((lo..=hi).contains(&n), "{n} clues for {lo}-{hi}");
            }
        }
    }

    #[test]
    fn same_stream_same_puzzle() {
        let run = |seed| {
            let mut rng = Pcg64::seed_from_u64(seed);
            attempt(24, 29, &mut rng).1
        };
        assert_eq!(run(9), run(9));
        assert_ne!(run(9), run(10));
    }
}
