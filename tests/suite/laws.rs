//! Property tests for the laws the factory stands on: transforms keep validity,
//! uniqueness and clue count; the canonical form is invariant under the group; a
//! generated puzzle has exactly one solution.

use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use sudoku_factory::engine::board::{Board, Nine};
use sudoku_factory::engine::generate::{Carve, Fill, Symmetry};
use sudoku_factory::engine::grid::{is_consistent, n_clues, parse_line, solves, Cells};
use sudoku_factory::engine::nxn::canon::nine::canonical_form;
use sudoku_factory::engine::nxn::solve::nine::{count_solutions, solve, Verdict};
use sudoku_factory::engine::nxn::{transform, Box3};

type Transform = transform::Transform<Box3>;

fn qqwing(i: usize) -> Cells {
    let text = include_str!("../../data/qqwing-10k.txt");
    let line = text.lines().nth(i).expect("fixture has 10,000 lines");
    parse_line(line, i + 1).expect("fixture is well formed")
}

fn grid_from(seed: u64) -> Cells {
    Nine::fill(Fill::Backtrack, &mut Pcg64::seed_from_u64(seed))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_transform_keeps_validity_uniqueness_and_clue_count(i in 0usize..10_000, t in any::<u64>()) {
        let puzzle = qqwing(i);
        let Verdict::Unique(solution) = solve(&puzzle) else { panic!("fixture {i} is unique") };
        let tr = Transform::random(&mut Pcg64::seed_from_u64(t));
        let (p2, s2) = (tr.apply(&puzzle), tr.apply(&solution));
        prop_assert_eq!(n_clues(&p2), n_clues(&puzzle));
        prop_assert!(is_consistent(&s2));
        prop_assert!(solves(&p2, &s2));
        prop_assert_eq!(solve(&p2), Verdict::Unique(s2));
    }

    #[test]
    fn the_canonical_form_is_invariant(i in 0usize..10_000, t in any::<u64>(), g in any::<u64>()) {
        let tr = Transform::random(&mut Pcg64::seed_from_u64(t));
        let puzzle = qqwing(i);
        prop_assert_eq!(canonical_form(&tr.apply(&puzzle)), canonical_form(&puzzle));
        let grid = grid_from(g);
        prop_assert_eq!(canonical_form(&tr.apply(&grid)), canonical_form(&grid));
    }

    #[test]
    fn a_carved_puzzle_has_exactly_one_solution(seed in any::<u64>(), target in 17u8..60) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let grid = Nine::fill(Fill::Backtrack, &mut rng);
        prop_assert!(is_consistent(&grid) && grid.iter().all(|&v| v != 0));
        let out = Nine::carve(Carve::Target, u16::from(target), Symmetry::None, &grid, &mut rng);
        prop_assert!(out.n_clues >= u16::from(target));
        prop_assert_eq!(count_solutions(&out.puzzle, 2), 1);
        prop_assert!(solves(&out.puzzle, &grid));
    }
}
