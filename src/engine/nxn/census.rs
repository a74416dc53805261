//! The 4×4 census: how many essentially different 4×4 puzzles exist at all.
//!
//! 16×16 and larger boards have more distinct puzzles than any bank will ever hold,
//! but 4×4 has few: 288 grids in 2 classes, and only a limited number of classes of
//! uniquely solvable puzzles per clue count. A factory asked for more distinct 4×4
//! seeds than exist would search forever, so it needs these numbers up front —
//! per clue-count range, for minimal puzzles only, and per [`Symmetry`] of the
//! clue pattern.
//!
//! Everything is enumerated exactly, once per process ([`census4`]):
//!
//! * the 288 grids by depth-first filling;
//! * uniqueness of a puzzle (grid `g`, clue cells `m`) by counting grids that agree
//!   with `g` on `m` — independent of any solver: `m` is unique iff it is not a
//!   subset of the agreement mask of `g` with any other grid. For a fixed grid, the
//!   non-unique masks are the downward closure of its 287 agreement masks (a
//!   superset-sum sweep over 2^16 masks);
//! * classes by the exact [`canonical_form`]. Every uniquely solvable puzzle is a
//!   transform of one whose solution is one of the 2 class representatives, so all
//!   2^16 patterns on those 2 grids meet every class; classes with a *symmetric*
//!   member are found by trying only the symmetric patterns, on every grid up to
//!   relabelling (the symmetric member may sit on any grid of the class).
//!
//! The result (pinned by a test): 4710 classes of uniquely solvable puzzles with 4
//! to 16 givens, 36 of them minimal — 13 with 4 givens, 22 with 5, 1 with 6, as
//! Sudopedia's "Shi Doku" page lists (it also gives 85,632 minimal puzzles before
//! symmetry, which we reproduce; its 13,581,312 uniquely solvable puzzles before
//! symmetry is 1,632 more than both our agreement count and the solver find,
//! 13,579,680, checked over every mask of every grid).
//!
//! Uniqueness and minimality are class invariants (the group maps solutions to
//! solutions), so computing them on any member is enough.

use std::collections::{BTreeMap, HashSet};
use std::ops::RangeInclusive;
use std::sync::OnceLock;

use super::canon::canonical_form;
use super::transform::Transform;
use super::Box2;
use crate::engine::generate::Symmetry;

/// Cells of a 4×4 board.
const CELLS: usize = 16;

/// One class of uniquely solvable 4×4 puzzles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PuzzleClass {
    /// The canonical form (0 = empty).
    pub form: [u8; CELLS],
    /// Number of givens.
    pub n_clues: u16,
    /// No given can be removed without losing uniqueness.
    pub minimal: bool,
    /// Bit `i`: some member's clue pattern has symmetry `Symmetry::ALL[i]`.
    symmetries: u8,
    /// Distinct puzzles in the class: 3,072 divided by the number of group elements
    /// that map a member onto itself. Expansion can draw at most this many
    /// distinct variants of a seed of this class.
    pub n_members: u16,
}

impl PuzzleClass {
    /// Whether some member of the class has a clue pattern invariant under `s`
    /// (always true for [`Symmetry::None`]).
    pub fn has_symmetric_member(&self, s: Symmetry) -> bool {
        self.symmetries >> symmetry_bit(s) & 1 == 1
    }
}

/// A question to [`Census4::count`]: classes with a clue count in `clues`,
/// optionally only the minimal ones, having a member with symmetry `symmetry`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CensusQuery {
    pub clues: RangeInclusive<u16>,
    pub minimal_only: bool,
    pub symmetry: Symmetry,
}

impl Default for CensusQuery {
    /// Every class: any clue count, minimal or not, any pattern.
    fn default() -> Self {
        CensusQuery {
            clues: 0..=CELLS as u16,
            minimal_only: false,
            symmetry: Symmetry::None,
        }
    }
}

/// The exact census of 4×4 grids and uniquely solvable puzzles, up to symmetry.
#[derive(Debug)]
pub struct Census4 {
    grids: Vec<[u8; CELLS]>,
    grid_forms: Vec<[u8; CELLS]>,
    classes: Vec<PuzzleClass>,
}

/// The census, computed on first use (≈ 0.25 s in a release build, seconds in debug)
/// and shared by every thread afterwards.
pub fn census4() -> &'static Census4 {
    static CENSUS: OnceLock<Census4> = OnceLock::new();
    CENSUS.get_or_init(Census4::compute)
}

impl Census4 {
    /// Every 4×4 grid (288), in lexicographic order.
    pub fn grids(&self) -> &[[u8; CELLS]] {
        &self.grids
    }

    /// The canonical form of each grid class (2), in ascending order.
    pub fn grid_classes(&self) -> &[[u8; CELLS]] {
        &self.grid_forms
    }

    /// Every class of uniquely solvable puzzles, by clue count then form.
    pub fn classes(&self) -> &[PuzzleClass] {
        &self.classes
    }

    /// How many essentially different uniquely solvable puzzles match `query`.
    pub fn count(&self, query: &CensusQuery) -> usize {
        self.matching(query).count()
    }

    /// The fewest distinct puzzles in any class matching `query` (see
    /// [`PuzzleClass::n_members`]): the most variants every such seed can give.
    /// `None` when no class matches.
    pub fn min_members(&self, query: &CensusQuery) -> Option<usize> {
        self.matching(query).map(|c| usize::from(c.n_members)).min()
    }

    /// The most variants every seed matching `query` can give: [`Census4::min_members`]
    /// without a symmetry; with one, the fewest distinct images of a symmetric member
    /// of a matching class under the subgroup that keeps its symmetry
    /// ([`Transform::random_keeping`], which draws a symmetric seed's variants).
    pub fn min_variants(&self, query: &CensusQuery) -> Option<usize> {
        let symmetry = query.symmetry;
        if symmetry == Symmetry::None {
            return self.min_members(query);
        }
        let group = Transform::<Box2>::all_elements().expect("4x4's group is enumerable");
        let keeping: Vec<&Transform<Box2>> = group.iter().filter(|t| t.keeps(symmetry)).collect();
        self.matching(query)
            .filter_map(|class| {
                let members: HashSet<[u8; CELLS]> =
                    group.iter().map(|t| t.apply(&class.form)).collect();
                members
                    .iter()
                    .filter(|m| symmetry.keeps_pattern(4, &m[..]))
                    .map(|m| {
                        let images: HashSet<[u8; CELLS]> =
                            keeping.iter().map(|t| t.apply(m)).collect();
                        images.len()
                    })
                    .min()
            })
            .min()
    }

    fn matching<'a>(&'a self, query: &'a CensusQuery) -> impl Iterator<Item = &'a PuzzleClass> {
        self.classes.iter().filter(|c| {
            query.clues.contains(&c.n_clues)
                && (c.minimal || !query.minimal_only)
                && c.has_symmetric_member(query.symmetry)
        })
    }

    /// The clue counts of uniquely solvable puzzles (minimal ones only if
    /// `minimal_only`), as the smallest and largest; `None` if there are none.
    pub fn clue_range(&self, minimal_only: bool) -> Option<RangeInclusive<u16>> {
        let mut counts = self
            .classes
            .iter()
            .filter(|c| c.minimal || !minimal_only)
            .map(|c| c.n_clues);
        let first = counts.next()?;
        let (lo, hi) = counts.fold((first, first), |(lo, hi), k| (lo.min(k), hi.max(k)));
        Some(lo..=hi)
    }

    fn compute() -> Self {
        let grids = all_grids();
        // Agreement masks: bit i of agree[g][h] set when grids g and h hold the
        // same symbol in cell i.
        let agree: Vec<Vec<u16>> = grids
            .iter()
            .map(|g| {
                grids
                    .iter()
                    .map(|h| (0..CELLS).fold(0u16, |m, i| m | u16::from(g[i] == h[i]) << i))
                    .collect()
            })
            .collect();

        // Grid classes, and the first grid of each as its representative.
        let mut grid_classes: BTreeMap<[u8; CELLS], usize> = BTreeMap::new();
        for (i, g) in grids.iter().enumerate() {
            grid_classes.entry(canonical_form::<Box2>(g)).or_insert(i);
        }

        // Every class, from all 2^16 patterns on each representative grid.
        let mut classes: BTreeMap<[u8; CELLS], PuzzleClass> = BTreeMap::new();
        let mut ambiguous = vec![false; 1 << CELLS];
        for &rep in grid_classes.values() {
            ambiguous_masks(&agree[rep], rep, &mut ambiguous);
            for mask in 0..1u32 << CELLS {
                let mask = mask as u16;
                if ambiguous[mask as usize] {
                    continue;
                }
                let minimal = (0..CELLS)
                    .filter(|&i| mask >> i & 1 == 1)
                    .all(|i| ambiguous[(mask ^ 1 << i) as usize]);
                let form = canonical_form::<Box2>(&puzzle(&grids[rep], mask));
                classes.entry(form).or_insert(PuzzleClass {
                    form,
                    n_clues: mask.count_ones() as u16,
                    minimal,
                    symmetries: 1 << symmetry_bit(Symmetry::None),
                    n_members: 0,
                });
            }
        }

        // Classes with a symmetric member: symmetric patterns on every grid whose
        // first row is 1234 — relabelling keeps the pattern and the class, and
        // every grid is a relabelling of one of these 12.
        for s in Symmetry::ALL.into_iter().filter(|&s| s != Symmetry::None) {
            let orbits = orbit_masks(s);
            for (g, grid) in grids
                .iter()
                .enumerate()
                .filter(|(_, g)| g[..4] == [1, 2, 3, 4])
            {
                for choice in 0..1u32 << orbits.len() {
                    let mask = orbits
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| choice >> k & 1 == 1)
                        .fold(0u16, |m, (_, &o)| m | o);
                    let unique = agree[g]
                        .iter()
                        .enumerate()
                        .all(|(h, &a)| h == g || mask & !a != 0);
                    if unique {
                        let form = canonical_form::<Box2>(&puzzle(grid, mask));
                        classes
                            .get_mut(&form)
                            .expect("the representatives' patterns meet every class")
                            .symmetries |= 1 << symmetry_bit(s);
                    }
                }
            }
        }

        // Class sizes by the orbit-stabiliser theorem: |class| = |G| / |Aut(form)|.
        let group = Transform::<Box2>::all_elements().expect("the 4x4 group is enumerable");
        for class in classes.values_mut() {
            let fixing = group
                .iter()
                .filter(|t| t.apply(&class.form) == class.form)
                .count();
            class.n_members = (group.len() / fixing) as u16;
        }
        let mut classes: Vec<PuzzleClass> = classes.into_values().collect();
        classes.sort_by_key(|c| (c.n_clues, c.form));
        Census4 {
            grids,
            grid_forms: grid_classes.into_keys().collect(),
            classes,
        }
    }
}

/// Bit index of a symmetry in [`PuzzleClass`]'s set.
fn symmetry_bit(s: Symmetry) -> usize {
    Symmetry::ALL
        .iter()
        .position(|&x| x == s)
        .expect("ALL lists every symmetry")
}

/// Every 4×4 grid, in lexicographic order (row-major depth-first filling).
fn all_grids() -> Vec<[u8; CELLS]> {
    fn fill(g: &mut [u8; CELLS], i: usize, out: &mut Vec<[u8; CELLS]>) {
        if i == CELLS {
            out.push(*g);
            return;
        }
        for v in 1..=4 {
            g[i] = v;
            if super::is_consistent::<Box2>(g) {
                fill(g, i + 1, out);
            }
        }
        g[i] = 0;
    }
    let mut out = Vec::with_capacity(288);
    fill(&mut [0; CELLS], 0, &mut out);
    out
}

/// Marks in `ambiguous` every clue mask that does not determine grid `g` among
/// all grids: the subsets of its agreement mask with some other grid. The
/// agreement masks are marked, then the set is closed downward with one sweep
/// per bit (removing the bits of `A \ x` in increasing order leads from any
/// marked `A` to any subset `x`), 16 × 2^16 steps instead of 287 × 2^16.
fn ambiguous_masks(agree_g: &[u16], g: usize, ambiguous: &mut [bool]) {
    ambiguous.fill(false);
    for (h, &a) in agree_g.iter().enumerate() {
        if h != g {
            ambiguous[a as usize] = true;
        }
    }
    for bit in 0..CELLS {
        for m in 0..1usize << CELLS {
            if m >> bit & 1 == 1 && ambiguous[m] {
                ambiguous[m ^ 1 << bit] = true;
            }
        }
    }
}

/// The puzzle with the givens of `grid` on `mask`.
fn puzzle(grid: &[u8; CELLS], mask: u16) -> [u8; CELLS] {
    let mut p = [0u8; CELLS];
    for i in (0..CELLS).filter(|&i| mask >> i & 1 == 1) {
        p[i] = grid[i];
    }
    p
}

/// The orbits of symmetry `s` on the 4×4 cells, as cell masks: a clue pattern
/// is invariant under `s` iff it is a union of orbits.
fn orbit_masks(s: Symmetry) -> Vec<u16> {
    let image = |i: usize| {
        let (r, c) = (i / 4, i % 4);
        let (r2, c2) = match s {
            Symmetry::None => (r, c),
            Symmetry::Rot180 => (3 - r, 3 - c),
            Symmetry::Rot90 => (c, 3 - r),
            Symmetry::Mirror => (r, 3 - c),
            Symmetry::Diagonal => (c, r),
        };
        r2 * 4 + c2
    };
    let mut seen = 0u16;
    let mut orbits = Vec::new();
    for i in 0..CELLS {
        if seen >> i & 1 == 1 {
            continue;
        }
        let mut orbit = 0u16;
        let mut j = i;
        while orbit >> j & 1 == 0 {
            orbit |= 1 << j;
            j = image(j);
        }
        seen |= orbit;
        orbits.push(orbit);
    }
    orbits
}

#[cfg(test)]
mod tests {
    use super::super::solve::count_solutions;
    use super::*;

    #[test]
    fn class_sizes_add_up_to_every_uniquely_solvable_puzzle() {
        // 13,579,680 uniquely solvable 4×4 puzzles (counted by the solver on all
        // 288 × 2^16 grid-pattern pairs) and 85,632 minimal ones (Sudopedia, "Shi
        // Doku"): the orbit-stabiliser sizes must add up to both.
        let census = census4();
        let total: usize = census
            .classes()
            .iter()
            .map(|c| usize::from(c.n_members))
            .sum();
        assert_eq!(total, 13_579_680);
        let minimal: usize = census
            .classes()
            .iter()
            .filter(|c| c.minimal)
            .map(|c| usize::from(c.n_members))
            .sum();
        assert_eq!(minimal, 85_632);
        let group = Transform::<Box2>::all_elements().unwrap();
        assert_eq!(group.len(), 3072);
        let distinct: std::collections::HashSet<_> = group.iter().collect();
        assert_eq!(distinct.len(), 3072, "the elements are distinct");
        assert!(census.min_members(&CensusQuery::default()).unwrap() >= 1);
    }

    #[test]
    fn there_are_288_grids_in_exactly_2_classes() {
        let census = census4();
        assert_eq!(census.grids().len(), 288);
        let distinct: std::collections::HashSet<_> = census.grids().iter().collect();
        assert_eq!(distinct.len(), 288);
        assert!(census
            .grids()
            .iter()
            .all(|g| super::super::solves::<Box2>(g, g)));
        assert_eq!(count_solutions::<Box2>(&[0; CELLS], u32::MAX), 288);
        assert_eq!(census.grid_classes().len(), 2);
        // The smallest grid is the form of its class.
        assert_eq!(
            census.grid_classes()[0],
            [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
        );
    }

    /// Every mask of one grid of each class, against the reference solver.
    #[test]
    fn uniqueness_by_agreement_matches_the_solver() {
        let census = census4();
        let grids = census.grids();
        for g in [0, 1] {
            let agree: Vec<u16> = grids
                .iter()
                .map(|h| (0..CELLS).fold(0u16, |m, i| m | u16::from(grids[g][i] == h[i]) << i))
                .collect();
            let mut ambiguous = vec![false; 1 << CELLS];
            ambiguous_masks(&agree, g, &mut ambiguous);
            let mut n_unique = 0;
            for mask in 0..1u32 << CELLS {
                let p = puzzle(&grids[g], mask as u16);
                let unique = count_solutions::<Box2>(&p, 2) == 1;
                assert_eq!(!ambiguous[mask as usize], unique, "mask {mask:016b}");
                n_unique += u32::from(unique);
            }
            assert!(n_unique > 0);
        }
        // Grids 0 and 1 (1234/3412/2143/4321 and 1234/3412/2341/4123) lie in
        // different classes.
        assert_ne!(
            canonical_form::<Box2>(&grids[0]),
            canonical_form::<Box2>(&grids[1])
        );
    }

    #[test]
    fn every_class_is_canonical_unique_and_correctly_flagged() {
        let census = census4();
        for c in census.classes() {
            assert_eq!(canonical_form::<Box2>(&c.form), c.form);
            assert_eq!(super::super::n_clues(&c.form), c.n_clues);
            assert_eq!(count_solutions::<Box2>(&c.form, 2), 1, "{:?}", c.form);
            let removable = (0..CELLS).filter(|&i| c.form[i] != 0).any(|i| {
                let mut q = c.form;
                q[i] = 0;
                count_solutions::<Box2>(&q, 2) == 1
            });
            assert_eq!(c.minimal, !removable, "{:?}", c.form);
            assert!(c.has_symmetric_member(Symmetry::None));
        }
    }

    #[test]
    fn counts_are_consistent() {
        let census = census4();
        let all = census.count(&CensusQuery::default());
        assert_eq!(all, census.classes().len());
        // No 4×4 puzzle with fewer than 4 givens is unique (a known fact), and a
        // full grid is unique but never minimal.
        let range = census.clue_range(false).expect("there are puzzles");
        assert_eq!(*range.start(), 4);
        assert_eq!(*range.end(), 16);
        let minimal_range = census.clue_range(true).expect("there are minimal puzzles");
        assert_eq!(*minimal_range.start(), 4);
        assert!(*minimal_range.end() < 16);
        let mut total = 0;
        for k in 0..=16 {
            let at = |minimal_only, symmetry| {
                census.count(&CensusQuery {
                    clues: k..=k,
                    minimal_only,
                    symmetry,
                })
            };
            let (n, n_min) = (at(false, Symmetry::None), at(true, Symmetry::None));
            assert!(n_min <= n);
            for s in Symmetry::ALL {
                assert!(at(false, s) <= n);
                assert!(at(true, s) <= at(false, s));
                assert!(at(true, s) <= n_min);
            }
            if k == 16 {
                assert_eq!(n, 2); // the two grid classes
            }
            total += n;
        }
        assert_eq!(total, all);
        // Symmetric patterns exist: e.g. the full grid is symmetric under all.
        for s in Symmetry::ALL {
            assert!(
                census.count(&CensusQuery {
                    symmetry: s,
                    ..CensusQuery::default()
                }) > 0
            );
        }
    }

    /// The census itself, per clue count: (all, minimal, rot180, rot90, mirror,
    /// diagonal) classes. Minimal classes with a symmetric member: 6 rot180, 2
    /// rot90, 3 mirror, 13 diagonal (all with 4 givens, plus 10 + 1 diagonal ones
    /// with 5 and 6).
    #[test]
    fn census_numbers() {
        const TABLE: [(u16, usize, usize, usize, usize, usize, usize); 13] = [
            (4, 13, 13, 6, 2, 3, 2),
            (5, 96, 22, 0, 0, 0, 21),
            (6, 376, 1, 28, 0, 13, 50),
            (7, 711, 0, 0, 0, 0, 91),
            (8, 1040, 0, 50, 10, 32, 109),
            (9, 980, 0, 0, 0, 0, 108),
            (10, 788, 0, 38, 0, 27, 89),
            (11, 414, 0, 0, 0, 0, 66),
            (12, 210, 0, 28, 11, 25, 46),
            (13, 56, 0, 0, 0, 0, 20),
            (14, 22, 0, 6, 0, 5, 8),
            (15, 2, 0, 0, 0, 0, 2),
            (16, 2, 0, 2, 2, 2, 2),
        ];
        let census = census4();
        let at = |clues: RangeInclusive<u16>, minimal_only, symmetry| {
            census.count(&CensusQuery {
                clues,
                minimal_only,
                symmetry,
            })
        };
        for (k, all, minimal, rot180, rot90, mirror, diagonal) in TABLE {
            let got = (
                at(k..=k, false, Symmetry::None),
                at(k..=k, true, Symmetry::None),
                at(k..=k, false, Symmetry::Rot180),
                at(k..=k, false, Symmetry::Rot90),
                at(k..=k, false, Symmetry::Mirror),
                at(k..=k, false, Symmetry::Diagonal),
            );
            assert_eq!(
                got,
                (all, minimal, rot180, rot90, mirror, diagonal),
                "{k} givens"
            );
        }
        assert_eq!(at(0..=16, false, Symmetry::None), 4710);
        assert_eq!(at(0..=3, false, Symmetry::None), 0);
        assert_eq!(at(0..=16, true, Symmetry::None), 36);
        let minimal_symmetric = Symmetry::ALL.map(|s| at(0..=16, true, s));
        assert_eq!(minimal_symmetric, [36, 6, 2, 3, 13]);
    }

    #[test]
    fn orbits_partition_the_board() {
        for s in Symmetry::ALL {
            let orbits = orbit_masks(s);
            assert_eq!(orbits.iter().fold(0u16, |m, &o| m | o), u16::MAX);
            assert_eq!(orbits.iter().map(|o| o.count_ones()).sum::<u32>(), 16);
        }
        assert_eq!(orbit_masks(Symmetry::Rot90).len(), 4);
        assert_eq!(orbit_masks(Symmetry::Diagonal).len(), 10);
        assert_eq!(orbit_masks(Symmetry::Mirror).len(), 8);
    }
}
