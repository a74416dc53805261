//! Symmetric clue patterns: every symmetric carve yields a pattern invariant under its
//! symmetry, a uniquely solvable puzzle, and (carved to the end) one that is minimal
//! with respect to orbits; the CLI carries `--symmetry` through to the bank.

use crate::common;

use common::{generate, read_bank};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use sudoku_factory::engine::board::{Board, Nine};
use sudoku_factory::engine::generate::{Carve, Fill, Symmetry};
use sudoku_factory::engine::grid::{n_clues, parse_line, Cells};
use sudoku_factory::engine::nxn::solve::nine::{count_solutions, solve, Verdict};
use sudoku_factory::engine::nxn::{transform, Box3};

type Transform = transform::Transform<Box3>;

/// The geometric map a symmetry is named after, as an element of the Sudoku group.
fn as_transform(s: Symmetry) -> Transform {
    match s {
        Symmetry::None => Transform::identity(),
        Symmetry::Rot180 => Transform::rotate180(),
        Symmetry::Rot90 => Transform::rotate90(),
        Symmetry::Mirror => Transform::mirror_horizontal(),
        Symmetry::Diagonal => Transform::transpose(),
    }
}

fn pattern(p: &Cells) -> [bool; 81] {
    std::array::from_fn(|i| p[i] != 0)
}

#[test]
fn symmetric_carves_are_symmetric_unique_and_orbit_minimal() {
    let mut rng = Pcg64::seed_from_u64(77);
    for symmetry in [
        Symmetry::Rot180,
        Symmetry::Rot90,
        Symmetry::Mirror,
        Symmetry::Diagonal,
    ] {
        let t = as_transform(symmetry);
        for (strategy, stop_at) in [(Carve::Minimal, 0), (Carve::Target, 34)] {
            for _ in 0..8 {
                let grid = Nine::fill(Fill::Backtrack, &mut rng);
                let out = Nine::carve(strategy, stop_at, symmetry, &grid, &mut rng);
                assert_eq!(
                    pattern(&t.apply(&out.puzzle)),
                    pattern(&out.puzzle),
                    "{symmetry:?} {strategy:?}"
                );
                assert_eq!(solve(&out.puzzle), Verdict::Unique(grid));
                assert_eq!(u16::from(n_clues(&out.puzzle)), out.n_clues);
                if strategy == Carve::Target {
                    assert!(out.n_clues >= stop_at);
                    continue;
                }
                assert!(out.minimal);
                // No orbit can go: emptying any orbit of givens breaks uniqueness.
                for cell in (0..81).filter(|&c| out.puzzle[c] != 0) {
                    let (orbit, len) = symmetry.orbit_in(9, cell);
                    let mut p = out.puzzle;
                    for &o in &orbit[..len] {
                        p[o as usize] = 0;
                    }
                    assert_eq!(
                        count_solutions(&p, 2),
                        2,
                        "{symmetry:?}: orbit of {cell} was removable"
                    );
                }
            }
        }
    }
}

#[test]
fn generate_writes_symmetric_banks_and_refuses_strategies_that_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bank");
    generate(&out)
        .count(24)
        .args(["--symmetry", "rot180"])
        .difficulty("easy,medium")
        .loud()
        .run()
        .stderr(predicates::str::contains("minimal with respect to orbits"));
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"symmetry\": \"rot180\""));
    // Every row, variants included (regression: variants were drawn from the whole
    // group, so only the seeds were symmetric).
    for symmetry in &Symmetry::ALL[1..] {
        let bank = dir.path().join(symmetry.name());
        generate(&bank)
            .count(40)
            .variants(8)
            .args(["--symmetry", symmetry.name()])
            .difficulty("easy,medium")
            .run();
        let t = as_transform(*symmetry);
        let rows = read_bank(&bank);
        assert_eq!(rows.len(), 40);
        for row in &rows {
            let p = parse_line(&row.puzzle, 1).unwrap();
            assert_eq!(
                pattern(&t.apply(&p)),
                pattern(&p),
                "{symmetry:?} row {}",
                row.id
            );
        }
    }
    generate(dir.path().join("refused"))
        .count(4)
        .args(["--symmetry", "mirror", "--carve", "unavoidable"])
        .loud()
        .cmd()
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--symmetry mirror needs --carve minimal or target",
        ));
    assert!(!dir.path().join("refused").exists());
}
