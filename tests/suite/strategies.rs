//! Every fill × carve combination end to end in the library: 200 puzzles each (20 in
//! debug builds), all uniquely solvable by an independent solver (the `sudoku` crate);
//! plus the diversity claims of SEEDS.md measured by canonical forms.

use std::collections::HashSet;

use rand::SeedableRng;
use rand_pcg::Pcg64;
use rayon::prelude::*;
use sudoku::Sudoku;
use sudoku_factory::engine::bands::BandTable;
use sudoku_factory::engine::board::{Board, Nine};
use sudoku_factory::engine::generate::{Carve, Fill, Symmetry};
use sudoku_factory::engine::grid::is_consistent;
use sudoku_factory::engine::nxn::canon::nine::canonical_form;

const N: u64 = if cfg!(debug_assertions) { 20 } else { 200 };

#[test]
fn every_fill_and_carve_combination_gives_valid_unique_puzzles() {
    for f in Fill::ALL {
        // One fill per index, carved by every strategy (keeps `digits` affordable).
        let grids: Vec<_> = (0..N)
            .into_par_iter()
            .map(|i| Nine::fill(f, &mut Pcg64::seed_from_u64(i)))
            .collect();
        for g in &grids {
            assert!(
                g.iter().all(|&v| v >= 1) && is_consistent(g),
                "{}",
                f.name()
            );
        }
        for c in Carve::ALL {
            grids.par_iter().enumerate().for_each(|(i, g)| {
                let mut rng = Pcg64::seed_from_u64(1000 + i as u64);
                let out = Nine::carve(c, 0, Symmetry::None, g, &mut rng);
                let peer = Sudoku::from_bytes(out.puzzle).expect("valid puzzle");
                let sol = peer.some_solution().expect("solvable");
                assert!(peer.is_uniquely_solvable(), "{} x {}", f.name(), c.name());
                assert_eq!(sol.to_bytes(), *g, "{} x {}", f.name(), c.name());
                if matches!(c, Carve::Minimal | Carve::AddClues) {
                    assert!(out.minimal);
                    for k in (0..81).filter(|&k| out.puzzle[k] != 0) {
                        let mut p = out.puzzle;
                        p[k] = 0;
                        let peer = Sudoku::from_bytes(p).expect("valid");
                        assert!(!peer.is_uniquely_solvable(), "{}: not minimal", c.name());
                    }
                }
            });
        }
    }
}

#[test]
fn target_lands_in_the_requested_band() {
    let table = BandTable::default_9x9();
    for (band, spec) in table.bands().iter().enumerate().take(3) {
        for c in [Carve::Target, Carve::AddClues, Carve::Unavoidable] {
            let mut rng = Pcg64::seed_from_u64(band as u64);
            for _ in 0..20 {
                let g = Nine::fill(Fill::Backtrack, &mut rng);
                let out = Nine::carve(c, spec.lo, Symmetry::None, &g, &mut rng);
                // Sparse bands can be missed when no clue can go; dense ones never.
                if band < 2 {
                    assert!(
                        table.accepts(band, out.n_clues),
                        "{} {}",
                        c.name(),
                        out.n_clues
                    );
                }
            }
        }
    }
}

#[test]
fn template_grids_are_one_class_and_backtrack_grids_are_all_different() {
    let classes = |f: Fill| {
        (0..N)
            .into_par_iter()
            .map(|i| canonical_form(&Nine::fill(f, &mut Pcg64::seed_from_u64(i))))
            .collect::<HashSet<_>>()
            .len() as u64
    };
    assert_eq!(classes(Fill::Template), 1);
    assert_eq!(classes(Fill::Backtrack), N);
}
