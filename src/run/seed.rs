//! Making one seed puzzle of a run, the expensive way: fill a complete grid, carve it
//! towards a clue count drawn from the seed's band, and start again from a new grid
//! until the puzzle lands in the band; then its canonical form. Seed `j` of round
//! `round` draws only from its own stream (`rng::item_rng(seed, Seed, j, round)`), so
//! it is the same whichever thread makes it. The pipeline decides which seeds to make
//! and which duplicates to replace; this module makes one.

use std::time::{Duration, Instant};

use rand::Rng;

use crate::engine::board::Board;
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grade::BandTable;
use crate::run::rng::{item_rng, Purpose};

/// What making a seed needs of a run's plan.
#[derive(Clone, Copy, Debug)]
pub struct Recipe<'a> {
    /// The run's `--seed`.
    pub seed: u64,
    pub fill: Fill,
    pub carve: Carve,
    pub symmetry: Symmetry,
    pub bands: &'a BandTable,
    /// Band indices to produce, in equal shares (seed `j` gets `selected[j % len]`).
    pub selected: &'a [usize],
    /// Fill-and-carve attempts allowed for one seed to land in its band.
    pub max_attempts: u32,
}

/// One seed puzzle, made the expensive way; `C` is the board's cells.
#[derive(Clone, Copy, Debug)]
pub struct SeedPuzzle<C> {
    pub puzzle: C,
    pub solution: C,
    pub canonical: C,
    pub n_clues: u16,
    pub band: u8,
    /// Fill-and-carve attempts it took to land in the band.
    pub attempts: u32,
    /// Time spent filling, carving (all attempts) and canonicalising this seed.
    pub fill_time: Duration,
    pub carve_time: Duration,
    pub canon_time: Duration,
}

/// A seed that did not land in its band within the attempts allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("band {band:?} ({lo}-{hi} clues) was not reached in {attempts} attempts with --carve {carve}; {hint}")]
pub struct BandUnreachable {
    pub band: String,
    pub lo: u16,
    pub hi: u16,
    pub attempts: u32,
    pub carve: &'static str,
    pub hint: &'static str,
}

/// Makes seed `j` in replacement round `round`: fill, then carve until it lands in
/// its band, at most `max_attempts` times.
pub fn make_seed<B: Board>(
    recipe: &Recipe<'_>,
    j: u64,
    round: u32,
) -> Result<SeedPuzzle<B::Cells>, BandUnreachable> {
    let band = recipe.selected[(j % recipe.selected.len() as u64) as usize];
    let spec = &recipe.bands.bands()[band];
    let mut rng = item_rng(recipe.seed, Purpose::Seed, j, round);
    let (mut fill_time, mut carve_time) = (Duration::ZERO, Duration::ZERO);
    for attempt in 1..=recipe.max_attempts {
        let t0 = Instant::now();
        let solution = B::fill(recipe.fill, &mut rng);
        let t1 = Instant::now();
        let target = rng.random_range(spec.lo..=spec.hi);
        let out = B::carve(recipe.carve, target, recipe.symmetry, &solution, &mut rng);
        let t2 = Instant::now();
        fill_time += t1 - t0;
        carve_time += t2 - t1;
        if recipe.bands.accepts(band, out.n_clues) {
            let canonical = B::canonical_form(&out.puzzle);
            return Ok(SeedPuzzle {
                puzzle: out.puzzle,
                solution,
                canonical,
                n_clues: out.n_clues,
                band: band as u8,
                attempts: attempt,
                fill_time,
                carve_time,
                canon_time: t2.elapsed(),
            });
        }
    }
    Err(BandUnreachable {
        band: spec.name.clone(),
        lo: spec.lo,
        hi: spec.hi,
        attempts: recipe.max_attempts,
        carve: recipe.carve.name(),
        hint: match recipe.carve {
            Carve::Minimal => "minimal puzzles rarely have this many clues; try --carve target",
            Carve::Target | Carve::AddClues | Carve::Unavoidable => {
                "puzzles this sparse are very rare; widen the band"
            }
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Nine;

    fn recipe<'a>(bands: &'a BandTable, selected: &'a [usize], max_attempts: u32) -> Recipe<'a> {
        Recipe {
            seed: 42,
            fill: Fill::Template,
            carve: Carve::Target,
            symmetry: Symmetry::None,
            bands,
            selected,
            max_attempts,
        }
    }

    #[test]
    fn a_seed_lands_in_its_band_and_is_the_same_every_time() {
        let bands = BandTable::default_9x9();
        let r = recipe(&bands, &[0, 1, 2, 3], 100);
        for j in 0..8 {
            let a = make_seed::<Nine>(&r, j, 0).unwrap();
            let spec = &bands.bands()[a.band as usize];
            assert!(
                (spec.lo..=spec.hi).contains(&a.n_clues),
                "{j}: {}",
                a.n_clues
            );
            assert_eq!(usize::from(a.band), r.selected[(j % 4) as usize]);
            let b = make_seed::<Nine>(&r, j, 0).unwrap();
            assert_eq!(
                (a.puzzle, a.solution, a.canonical),
                (b.puzzle, b.solution, b.canonical)
            );
            let other_round = make_seed::<Nine>(&r, j, 1).unwrap();
            assert_ne!(
                a.puzzle, other_round.puzzle,
                "a new round draws a new stream"
            );
        }
    }

    #[test]
    fn an_unreachable_band_is_an_error_that_says_what_to_change() {
        let bands =
            BandTable::parse_for("rare=17-17,easy=36-40", crate::engine::grid::Size::Nine).unwrap();
        let r = recipe(&bands, &[0], 2);
        let e = make_seed::<Nine>(&r, 0, 0).unwrap_err();
        assert_eq!((e.lo, e.hi, e.attempts), (17, 17, 2));
        assert!(e.to_string().contains("widen the band"), "{e}");
    }
}
