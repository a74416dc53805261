//! Carve strategies: remove clues from a complete grid while the solution stays
//! unique — the four methods of SEEDS.md, written once over a [`Shape`] for every size:
//!
//! * `minimal` — visit the cells in a shuffled order; empty each one and keep the
//!   removal only if the puzzle still has exactly one solution. Every cell is tried
//!   once, so the result is minimal: no clue can go without losing uniqueness.
//! * `target` — the same walk, stopping as soon as the clue count reaches `stop_at`.
//!   When the walk ends first, the puzzle is minimal above the target.
//! * `add-clues` — the reverse direction: start from [`start_clues`] random clues (the
//!   9×9 share, 15 of 81 cells, scaled to the board: 3, 15, 47 and 116 clues on 4×4,
//!   9×9, 16×16 and 25×25), then walk the other cells in random order and give a cell
//!   its clue exactly when some solution of the current puzzle puts another value
//!   there (the one-search test of a removal). A cell passed over stays decided, since
//!   more clues never add solutions, so after one walk the puzzle is unique. Finished
//!   by a `target` pass (a full `minimal` pass when `stop_at` is 0); when the puzzle
//!   is already below `stop_at`, random clues of the solution are added up to it.
//! * `unavoidable` — first find the small unavoidable sets of the solution and keep one
//!   clue of each, chosen greedily (the cell hitting most still-unhit sets, ties at
//!   random), so removals that would break uniqueness that way are never tried; then
//!   carve the other cells at random, stopping at `stop_at`. The sets: for two rows
//!   `r1`, `r2` of one band, follow the column permutation `c -> c'` where
//!   `S[r2][c] = S[r1][c']`; each cycle is a set of columns on which the two rows hold
//!   the same values, so exchanging the two rows there gives another valid grid (the
//!   swapped cells share columns, and each pair shares a box). Cycles of length 2 are
//!   the 4-cell rectangles `a b / b a` (two boxes), length 3 the 6-cell sets (three
//!   boxes); longer cycles are not kept. Likewise for two columns of one stack.
//!
//! `stop_at` is honoured by `target`, `add-clues` and `unavoidable`; `minimal`
//! ignores it (0 = carve to the end).
//!
//! Symmetric carving (`minimal` and `target` only, the rule of
//! [`Carve::supports_symmetry`]) removes whole orbits of [`orbit`]: a removal is
//! kept when, for every cell of the orbit, no solution puts another value there (the
//! puzzle before was unique, so a second solution must differ on the orbit). The
//! result is minimal with respect to orbits.
//!
//! The test after one removal is the shape's kernel [`Shape::removal_keeps_unique`]:
//! since the puzzle was unique with value `v` in the emptied cell, it stays unique
//! exactly when no solution puts another value there — one "find any solution"
//! search with one extra elimination, which propagation alone refutes for most early
//! removals. On 9×9 it is the hand-tuned solver's.
//!
//! Nothing here allocates: the puzzle, the visiting order (`[u16; MAX_CELLS]`) and
//! the unavoidable sets live on the stack.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::engine::generate::Symmetry;
use crate::engine::nxn::{n_clues, Shape, MAX_CELLS, MAX_N};

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

    /// True when the strategy can keep the clue pattern `symmetry`: any strategy
    /// without one, and the removal walks of `minimal` and `target` with one.
    /// `add-clues` starts from random single clues and `unavoidable` keeps single
    /// cells of unavoidable sets, so neither can.
    pub fn supports_symmetry(self, symmetry: Symmetry) -> bool {
        symmetry == Symmetry::None || matches!(self, Carve::Minimal | Carve::Target)
    }
}

/// A carved puzzle and its clue count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carved<C> {
    /// The puzzle: the grid with the removed cells set to 0.
    pub puzzle: C,
    /// Number of givens left.
    pub n_clues: u16,
    /// True when every remaining clue was tried and none could go (for a symmetric
    /// carve: no orbit could go).
    pub minimal: bool,
}

/// Random clues `add-clues` starts from: the 9×9 "about 15" as a share of the board,
/// 15/81 of the cells, rounded (3, 15, 47, 116 on 4×4, 9×9, 16×16, 25×25).
pub fn start_clues<S: Shape>() -> usize {
    (S::CELLS * 15 + 40) / 81
}

/// The orbit of `cell` under `symmetry` on an `S` board ([`Symmetry::orbit_in`]).
#[inline]
pub fn orbit<S: Shape>(symmetry: Symmetry, cell: usize) -> ([u16; 4], usize) {
    symmetry.orbit_in(S::N, cell)
}

/// Carves `solution` (a complete valid `S` grid) with `strategy`. `stop_at` is the
/// clue count at which `target`, `add-clues` and `unavoidable` stop (0 = carve to the
/// end); `minimal` ignores it. With a `symmetry` other than `None`, clues are removed
/// in orbits.
///
/// Panics if the strategy does not support the symmetry
/// ([`Carve::supports_symmetry`]): callers validate that before any work.
pub fn carve<S: Shape, R: Rng + ?Sized>(
    strategy: Carve,
    stop_at: u16,
    symmetry: Symmetry,
    solution: &S::Cells,
    rng: &mut R,
) -> Carved<S::Cells> {
    assert!(
        strategy.supports_symmetry(symmetry),
        "{} cannot keep a {} pattern (checked by the caller)",
        strategy.name(),
        symmetry.name()
    );
    let mut order_buf = [0u16; MAX_CELLS];
    let order = &mut order_buf[..S::CELLS];
    for (i, o) in order.iter_mut().enumerate() {
        *o = i as u16;
    }
    order.shuffle(rng);
    let full = S::CELLS as u16;
    match strategy {
        Carve::Minimal | Carve::Target if symmetry != Symmetry::None => {
            let stop_at = if strategy == Carve::Minimal {
                0
            } else {
                stop_at
            };
            walk_orbits::<S>(*solution, order, stop_at, symmetry)
        }
        Carve::Minimal => walk::<S>(*solution, full, order, 0),
        Carve::Target => walk::<S>(*solution, full, order, stop_at),
        Carve::AddClues => {
            let start = start_clues::<S>().min(S::CELLS);
            let mut puzzle = S::empty();
            let (p, s) = (puzzle.as_mut(), solution.as_ref());
            for &c in &order[..start] {
                p[c as usize] = s[c as usize];
            }
            for &c in &order[start..] {
                let c = usize::from(c);
                // Some solution puts another value here: this clue disambiguates.
                if !S::removal_keeps_unique(p, c, s[c]) {
                    p[c] = s[c];
                }
            }
            debug_assert_eq!(S::count_solutions(p, 2), 1);
            let mut n = n_clues(p);
            order.shuffle(rng);
            // Below the target already: add random clues of the solution up to it
            // (adding clues cannot break uniqueness).
            for &c in order.iter() {
                if n >= stop_at {
                    break;
                }
                if p[c as usize] == 0 {
                    p[c as usize] = s[c as usize];
                    n += 1;
                }
            }
            walk::<S>(puzzle, n, order, stop_at)
        }
        Carve::Unavoidable => {
            let mut keep = [false; MAX_CELLS];
            hitting_set::<S, R>(solution, rng, &mut keep);
            // Kept cells go to the back of the order and are never tried.
            let mut sorted = [0u16; MAX_CELLS];
            let (mut front, mut back) = (0, S::CELLS);
            for &c in order.iter() {
                if keep[c as usize] {
                    back -= 1;
                    sorted[back] = c;
                } else {
                    sorted[front] = c;
                    front += 1;
                }
            }
            let out = walk::<S>(*solution, full, &sorted[..front], stop_at);
            Carved {
                minimal: false,
                ..out
            }
        }
    }
}

/// Takes out of `puzzle` (uniquely solvable) every given it can, visiting them in
/// `order`, each removal kept only if the puzzle stays uniquely solvable: a minimal
/// puzzle ([`walk`] to the end).
pub fn minimize<S: Shape>(puzzle: S::Cells, order: &[u16]) -> S::Cells {
    let n = n_clues(puzzle.as_ref());
    walk::<S>(puzzle, n, order, 0).puzzle
}

/// The removal walk of `minimal` and `target`: visits `order`, empties each cell and
/// keeps the removal only if the puzzle stays unique; stops once `n_clues <= stop_at`.
/// Invariant: `puzzle` is uniquely solvable throughout, with `n_clues` givens.
fn walk<S: Shape>(
    mut puzzle: S::Cells,
    mut n_clues: u16,
    order: &[u16],
    stop_at: u16,
) -> Carved<S::Cells> {
    let p = puzzle.as_mut();
    for (visited, &cell) in order.iter().enumerate() {
        if n_clues <= stop_at {
            return Carved {
                puzzle,
                n_clues,
                minimal: visited == order.len(),
            };
        }
        let cell = usize::from(cell);
        let value = p[cell];
        if value == 0 {
            continue;
        }
        p[cell] = 0;
        if S::removal_keeps_unique(p, cell, value) {
            n_clues -= 1;
        } else {
            p[cell] = value;
        }
    }
    Carved {
        puzzle,
        n_clues,
        minimal: order.len() == S::CELLS,
    }
}

/// The removal walk over orbits: visits `order`, and for each cell not yet visited
/// through its orbit, empties the whole orbit and keeps the removal only if the
/// puzzle stays unique; an orbit that would take the count below `stop_at` is left.
/// Invariant: `puzzle` is uniquely solvable throughout, and symmetric.
fn walk_orbits<S: Shape>(
    mut puzzle: S::Cells,
    order: &[u16],
    stop_at: u16,
    symmetry: Symmetry,
) -> Carved<S::Cells> {
    let mut n_clues = S::CELLS as u16;
    let mut tried = [false; MAX_CELLS];
    let mut complete = true;
    let p = puzzle.as_mut();
    for &cell in order {
        let cell = usize::from(cell);
        if tried[cell] {
            continue;
        }
        let (orbit, len) = orbit::<S>(symmetry, cell);
        let orbit = &orbit[..len];
        for &o in orbit {
            tried[usize::from(o)] = true;
        }
        if n_clues < stop_at + len as u16 {
            complete = false;
            continue;
        }
        let mut values = [0u8; 4];
        for (v, &o) in values.iter_mut().zip(orbit) {
            *v = p[usize::from(o)];
            p[usize::from(o)] = 0;
        }
        // The puzzle was unique, so another solution must differ on the orbit: the
        // removal keeps uniqueness iff every orbit cell keeps its value in every
        // solution — one cheap-exit-first test per cell instead of counting to two.
        let unique = orbit
            .iter()
            .zip(&values)
            .all(|(&o, &v)| S::removal_keeps_unique(p, usize::from(o), v));
        if unique {
            n_clues -= len as u16;
        } else {
            for (&v, &o) in values.iter().zip(orbit) {
                p[usize::from(o)] = v;
            }
        }
    }
    Carved {
        puzzle,
        n_clues,
        minimal: complete,
    }
}

/// Most unavoidable sets [`hitting_set`] can find: 2 orientations × b bands × b(b−1)/2
/// row pairs × N/2 disjoint cycles, for b = 5 (every smaller board finds fewer).
const MAX_SETS: usize = 2 * 5 * 10 * (MAX_N / 2);

/// The cell at (r, c) of the grid, or of its transpose.
#[inline]
fn cell_at<S: Shape>(transpose: bool, r: usize, c: usize) -> usize {
    if transpose {
        c * S::N + r
    } else {
        r * S::N + c
    }
}

/// Marks in `keep` the cells to keep as clues: at least one cell of every small
/// unavoidable set of `s` (the module doc says which sets), chosen greedily.
fn hitting_set<S: Shape, R: Rng + ?Sized>(s: &S::Cells, rng: &mut R, keep: &mut [bool; MAX_CELLS]) {
    let s = s.as_ref();
    // Each set: up to 6 cells and its length.
    let mut sets = [([0u16; 6], 0u8); MAX_SETS];
    let mut n = 0;
    for transpose in [false, true] {
        // at(r, c): the cell (r, c) of the grid, or of its transpose.
        let at = |r, c| cell_at::<S>(transpose, r, c);
        for band in 0..S::B {
            for a in 0..S::B {
                for b in a + 1..S::B {
                    let (r1, r2) = (band * S::B + a, band * S::B + b);
                    let mut col_of = [0usize; MAX_N + 1]; // value -> its column in r1
                    for c in 0..S::N {
                        col_of[usize::from(s[at(r1, c)])] = c;
                    }
                    let mut seen = 0u32;
                    for start in 0..S::N {
                        if seen & (1 << start) != 0 {
                            continue;
                        }
                        let (mut c, mut len, mut cells) = (start, 0, [0u16; 6]);
                        while seen & (1 << c) == 0 {
                            seen |= 1 << c;
                            if len < 3 {
                                cells[2 * len] = at(r1, c) as u16;
                                cells[2 * len + 1] = at(r2, c) as u16;
                            }
                            len += 1;
                            c = col_of[usize::from(s[at(r2, c)])];
                        }
                        if len <= 3 {
                            sets[n] = (cells, 2 * len as u8);
                            n += 1;
                        }
                    }
                }
            }
        }
    }
    let sets = &sets[..n];
    let hit = |keep: &[bool; MAX_CELLS], set: &([u16; 6], u8)| {
        set.0[..usize::from(set.1)]
            .iter()
            .any(|&c| keep[usize::from(c)])
    };
    // Greedy hitting set: take a random unhit set, keep the cell of it that hits the
    // most still-unhit sets (ties broken at random), until every set is hit.
    loop {
        let unhit = sets.iter().filter(|x| !hit(keep, x)).count();
        if unhit == 0 {
            return;
        }
        let pick = rng.random_range(0..unhit);
        let set = *sets
            .iter()
            .filter(|x| !hit(keep, x))
            .nth(pick)
            .expect("pick < unhit");
        let (mut best, mut best_hits, mut ties) = (0usize, 0usize, 0u32);
        for &cell in &set.0[..usize::from(set.1)] {
            let cell = usize::from(cell);
            let hits = sets
                .iter()
                .filter(|x| !hit(keep, x) && x.0[..usize::from(x.1)].contains(&(cell as u16)))
                .count();
            if hits > best_hits {
                (best, best_hits, ties) = (cell, hits, 1);
            } else if hits == best_hits {
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    best = cell;
                }
            }
        }
        keep[best] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::nxn::solve::{
        count_solutions, count_solutions_reference, first_solution, solve, Verdict,
    };
    use crate::engine::nxn::{Box2, Box3, Box4, Box5};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// A random permutation of 0..n (n ≤ MAX_N).
    fn perm(n: usize, rng: &mut Pcg64) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        p.shuffle(rng);
        p
    }

    /// The pattern grid, value at (r, c) = ((r mod b)·b + r div b + c) mod N + 1,
    /// shuffled by random band, row-within-band, stack and column-within-stack
    /// permutations and a relabelling: valid, but always equivalent to the pattern.
    pub(crate) fn pattern_grid<S: Shape>(rng: &mut Pcg64) -> S::Cells {
        let (bands, stacks, labels) = (perm(S::B, rng), perm(S::B, rng), perm(S::N, rng));
        let rows: Vec<Vec<usize>> = (0..S::B).map(|_| perm(S::B, rng)).collect();
        let cols: Vec<Vec<usize>> = (0..S::B).map(|_| perm(S::B, rng)).collect();
        let mut g = S::empty();
        for (i, v) in g.as_mut().iter_mut().enumerate() {
            let (r, c) = (S::row(i), S::col(i));
            let r = bands[r / S::B] * S::B + rows[r / S::B][r % S::B];
            let c = stacks[c / S::B] * S::B + cols[c / S::B][c % S::B];
            *v = labels[((r % S::B) * S::B + r / S::B + c) % S::N] as u8 + 1;
        }
        g
    }

    /// A random grid that is not tied to the pattern: random-add with a witness.
    /// Cells are visited in random order and get a random candidate; the witness (a
    /// solution of the clues so far) vouches for its own value, any other value is
    /// kept only if the solver finds a solution with it.
    pub(crate) fn random_grid<S: Shape>(rng: &mut Pcg64) -> S::Cells {
        let mut p = S::empty();
        let mut witness = first_solution::<S>(p.as_ref()).expect("the empty board is solvable");
        for c in perm(S::CELLS, rng) {
            let mut cand = S::all_values();
            for j in 0..S::CELLS {
                let v = p.as_ref()[j];
                if v != 0
                    && (S::row(j) == S::row(c)
                        || S::col(j) == S::col(c)
                        || S::box_of(j) == S::box_of(c))
                {
                    cand &= !(1 << v);
                }
            }
            loop {
                let k = rng.random_range(0..cand.count_ones());
                let v = (0..k).fold(cand, |m, _| m & (m - 1)).trailing_zeros() as u8;
                p.as_mut()[c] = v;
                if v == witness.as_ref()[c] {
                    break;
                }
                if let Some(w) = first_solution::<S>(p.as_ref()) {
                    witness = w;
                    break;
                }
                cand &= !(1 << v);
            }
        }
        assert!(crate::engine::nxn::solves::<S>(p.as_ref(), p.as_ref()));
        p
    }

    fn assert_unique_with_source<S: Shape>(out: &Carved<S::Cells>, grid: &S::Cells, what: &str) {
        assert_eq!(
            solve::<S>(out.puzzle.as_ref()),
            Verdict::Unique(*grid),
            "{what}"
        );
        assert_eq!(n_clues(out.puzzle.as_ref()), out.n_clues, "{what}");
        for (&p, &g) in out.puzzle.as_ref().iter().zip(grid.as_ref()) {
            assert!(
                p == 0 || p == g,
                "{what}: a clue differs from the source grid"
            );
        }
    }

    /// Every clue of `puzzle` is needed: emptying it gives a second solution.
    fn assert_minimal<S: Shape>(puzzle: &S::Cells, what: &str) {
        for c in (0..S::CELLS).filter(|&c| puzzle.as_ref()[c] != 0) {
            let mut q = *puzzle;
            q.as_mut()[c] = 0;
            assert_eq!(
                count_solutions::<S>(q.as_ref(), 2),
                2,
                "{what}: clue {c} was removable"
            );
        }
    }

    fn every_strategy<S: Shape>(seed: u64, grids: usize, stop_at: u16) {
        let mut rng = Pcg64::seed_from_u64(seed);
        for k in 0..grids {
            let grid = if k % 2 == 0 {
                random_grid::<S>(&mut rng)
            } else {
                pattern_grid::<S>(&mut rng)
            };
            for strategy in Carve::ALL {
                for stop in [0, stop_at] {
                    let out = carve::<S, _>(strategy, stop, Symmetry::None, &grid, &mut rng);
                    let what = format!("{}x{} {} to {stop}", S::N, S::N, strategy.name());
                    assert_unique_with_source::<S>(&out, &grid, &what);
                    if stop == 0 && strategy != Carve::Unavoidable {
                        assert!(out.minimal, "{what}");
                        assert_minimal::<S>(&out.puzzle, &what);
                    }
                    if stop > 0 && strategy != Carve::Minimal {
                        assert!(out.n_clues >= stop, "{what}: {} clues", out.n_clues);
                    }
                    if stop > 0 && strategy == Carve::Target {
                        assert_eq!(out.n_clues, stop, "{what}");
                        assert!(!out.minimal, "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_strategy_carves_unique_puzzles_of_the_source_grid_4x4() {
        every_strategy::<Box2>(1, 40, 8);
    }

    #[test]
    fn every_strategy_carves_unique_puzzles_of_the_source_grid_9x9() {
        every_strategy::<Box3>(2, 6, 36);
    }

    #[test]
    fn every_strategy_carves_unique_puzzles_of_the_source_grid_16x16() {
        every_strategy::<Box4>(3, 2, 160);
    }

    #[test]
    fn minimal_4x4_puzzles_are_minimal_by_the_reference_solver() {
        let mut rng = Pcg64::seed_from_u64(4);
        for _ in 0..100 {
            let grid = random_grid::<Box2>(&mut rng);
            let out = carve::<Box2, _>(Carve::Minimal, 0, Symmetry::None, &grid, &mut rng);
            assert_eq!(count_solutions_reference::<Box2>(&out.puzzle, 2), 1);
            for c in (0..16).filter(|&c| out.puzzle[c] != 0) {
                let mut q = out.puzzle;
                q[c] = 0;
                assert_eq!(count_solutions_reference::<Box2>(&q, 2), 2);
            }
        }
    }

    #[test]
    fn a_25x25_target_carve_completes() {
        let mut rng = Pcg64::seed_from_u64(5);
        let grid = random_grid::<Box5>(&mut rng);
        let out = carve::<Box5, _>(Carve::Target, 450, Symmetry::None, &grid, &mut rng);
        assert_eq!(out.n_clues, 450);
        assert_unique_with_source::<Box5>(&out, &grid, "25x25 target");
        let grid = pattern_grid::<Box5>(&mut rng);
        let out = carve::<Box5, _>(Carve::Target, 450, Symmetry::None, &grid, &mut rng);
        assert_eq!(out.n_clues, 450);
        assert_unique_with_source::<Box5>(&out, &grid, "25x25 target, pattern grid");
    }

    fn symmetric<S: Shape>(seed: u64, stop_at: u16) {
        let mut rng = Pcg64::seed_from_u64(seed);
        for symmetry in Symmetry::ALL {
            // Orbits partition the board, with the expected sizes.
            let max = if symmetry == Symmetry::Rot90 { 4 } else { 2 };
            for cell in 0..S::CELLS {
                let (o, len) = orbit::<S>(symmetry, cell);
                assert_eq!(usize::from(o[0]), cell);
                assert!(len == 1 || len == max, "{symmetry:?} {cell}");
                for &x in &o[..len] {
                    let (back, back_len) = orbit::<S>(symmetry, usize::from(x));
                    assert_eq!(back_len, len);
                    assert!(back[..len].contains(&(cell as u16)));
                }
            }
            for (strategy, stop) in [(Carve::Minimal, 0), (Carve::Target, stop_at)] {
                let grid = random_grid::<S>(&mut rng);
                let out = carve::<S, _>(strategy, stop, symmetry, &grid, &mut rng);
                let what = format!("{}x{} {} {}", S::N, S::N, strategy.name(), symmetry.name());
                assert_unique_with_source::<S>(&out, &grid, &what);
                let p = out.puzzle.as_ref();
                for c in 0..S::CELLS {
                    assert_eq!(
                        p[c] == 0,
                        p[orbit::<S>(symmetry, c).0[1] as usize] == 0,
                        "{what}: cell {c}"
                    );
                }
                if strategy == Carve::Minimal {
                    assert!(out.minimal, "{what}");
                    // Minimal with respect to orbits: no clue orbit can go.
                    for c in (0..S::CELLS).filter(|&c| p[c] != 0) {
                        let mut q = out.puzzle;
                        let (o, len) = orbit::<S>(symmetry, c);
                        for &x in &o[..len] {
                            q.as_mut()[usize::from(x)] = 0;
                        }
                        assert!(
                            count_solutions::<S>(q.as_ref(), 2) > 1,
                            "{what}: orbit of {c}"
                        );
                    }
                } else {
                    // The target, or one orbit short of it (an orbit is removed whole).
                    assert!(out.n_clues >= stop && out.n_clues < stop + 4, "{what}");
                }
            }
        }
    }

    #[test]
    fn symmetric_carves_are_invariant_under_their_symmetry() {
        symmetric::<Box2>(6, 10);
        symmetric::<Box3>(7, 40);
        symmetric::<Box4>(8, 170);
    }

    #[test]
    fn orbits_on_a_4x4_board() {
        assert_eq!(orbit::<Box2>(Symmetry::Rot180, 0), ([0, 15, 0, 0], 2));
        assert_eq!(orbit::<Box2>(Symmetry::Rot90, 0), ([0, 3, 15, 12], 4));
        assert_eq!(orbit::<Box2>(Symmetry::Mirror, 4), ([4, 7, 4, 4], 2));
        assert_eq!(orbit::<Box2>(Symmetry::Diagonal, 5).1, 1);
        assert_eq!(
            orbit::<Box3>(Symmetry::Rot180, 40).1,
            1,
            "the centre is fixed"
        );
        assert_eq!(
            orbit::<Box5>(Symmetry::Rot90, 312).1,
            1,
            "the centre is fixed"
        );
    }

    #[test]
    fn only_the_removal_walks_support_a_symmetry() {
        for strategy in Carve::ALL {
            for symmetry in Symmetry::ALL {
                let expected = symmetry == Symmetry::None
                    || matches!(strategy, Carve::Minimal | Carve::Target);
                assert_eq!(strategy.supports_symmetry(symmetry), expected);
            }
        }
    }

    #[test]
    fn start_clues_scale_the_9x9_share() {
        assert_eq!(start_clues::<Box2>(), 3);
        assert_eq!(start_clues::<Box3>(), 15, "SEEDS.md: about 15 on 9x9");
        assert_eq!(start_clues::<Box4>(), 47);
        assert_eq!(start_clues::<Box5>(), 116);
    }

    /// Every set the enumeration finds is unavoidable, and every 4-cell rectangle of
    /// the grid (found by brute force) is hit by the kept cells.
    fn unavoidable_sets_are_hit<S: Shape>(seed: u64, grids: usize) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut rectangles = 0;
        for k in 0..grids {
            let g = if k % 2 == 0 {
                random_grid::<S>(&mut rng)
            } else {
                pattern_grid::<S>(&mut rng)
            };
            let mut keep = [false; MAX_CELLS];
            hitting_set::<S, _>(&g, &mut rng, &mut keep);
            let s = g.as_ref();
            for transpose in [false, true] {
                let at = |r, c| cell_at::<S>(transpose, r, c);
                for r1 in 0..S::N {
                    for r2 in r1 + 1..S::N {
                        if r1 / S::B != r2 / S::B {
                            continue;
                        }
                        for c1 in 0..S::N {
                            for c2 in c1 + 1..S::N {
                                let cells = [at(r1, c1), at(r1, c2), at(r2, c1), at(r2, c2)];
                                if s[cells[0]] != s[cells[3]] || s[cells[1]] != s[cells[2]] {
                                    continue;
                                }
                                rectangles += 1;
                                let mut p = g;
                                for &x in &cells {
                                    p.as_mut()[x] = 0;
                                }
                                assert_eq!(count_solutions::<S>(p.as_ref(), 3), 2);
                                assert!(
                                    cells.iter().any(|&x| keep[x]),
                                    "rectangle {cells:?} not hit"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(rectangles > 0, "the test saw rectangles");
    }

    #[test]
    fn unavoidable_rectangles_are_kept() {
        unavoidable_sets_are_hit::<Box2>(9, 20);
        unavoidable_sets_are_hit::<Box3>(10, 10);
        unavoidable_sets_are_hit::<Box4>(11, 6);
    }
}
