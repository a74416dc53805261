//! The 9×9 Sudoku symmetry group as a small `Copy` value type.
//!
//! Every validity-preserving map of a 9×9 grid is an optional transposition,
//! followed by a permutation of the rows that keeps each band together (3! band
//! orders × (3!)^3 row orders inside them), a permutation of the columns that
//! keeps each stack together (likewise), and a relabelling of the nine digits.
//! That is 2 × 1296 × 1296 × 9! elements; the first three factors are the
//! 3,359,232 *geometric* maps that [`crate::engine::canon`] searches. Expansion (DESIGN.md,
//! pipeline step 2) draws random elements to make variants of a seed, so a
//! [`Transform`] must be cheap to draw, apply, compose and invert, and drawing must
//! consume the RNG in one fixed, documented way because banks are regenerated
//! byte for byte from a seed years later. Rotations and reflections are not extra
//! generators: they are products of transposition and line reversals, built here
//! by [`Transform::compose`] so the named elements and the group law share one code
//! path. Nothing here allocates; `apply` is a single pass over 81 cells.

use rand::seq::SliceRandom;
use rand::Rng;

/// One element of the Sudoku symmetry group.
///
/// Meaning of the fields (`src'` is the source grid, transposed first when
/// `transpose` is set):
///
/// `out[r][c] = digits[src'[rows[r]][cols[c]]]`
///
/// i.e. output row `r` is row `rows[r]` of `src'`, output column `c` is its column
/// `cols[c]`, and every digit `d` is written as `digits[d]` (`digits[0] == 0` keeps
/// empty cells empty). Invariant (kept by every constructor, the fields are
/// private): `rows` and `cols` are permutations of `0..9` that map each band/stack
/// onto one band/stack, and `digits` is a permutation of `1..=9` fixing 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Transform {
    transpose: bool,
    rows: [u8; 9],
    cols: [u8; 9],
    digits: [u8; 10],
}

const IDENTITY_LINES: [u8; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const REVERSED_LINES: [u8; 9] = [8, 7, 6, 5, 4, 3, 2, 1, 0];
const IDENTITY_DIGITS: [u8; 10] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/// Inverse of a permutation of `0..9`.
fn invert_lines(map: &[u8; 9]) -> [u8; 9] {
    let mut inv = [0u8; 9];
    for (i, &m) in map.iter().enumerate() {
        inv[m as usize] = i as u8;
    }
    inv
}

/// Draws a band-respecting line map: first the order of the three chutes (one
/// `shuffle` of `[0, 1, 2]`), then, for output chute 0, 1, 2 in turn, the order of
/// the three lines inside it (one `shuffle` each). Four shuffles of 3 elements.
fn random_lines<R: Rng + ?Sized>(rng: &mut R) -> [u8; 9] {
    let mut chutes = [0u8, 1, 2];
    chutes.shuffle(rng);
    let mut lines = [0u8; 9];
    for (out_chute, &src_chute) in chutes.iter().enumerate() {
        let mut offsets = [0u8, 1, 2];
        offsets.shuffle(rng);
        for (i, &off) in offsets.iter().enumerate() {
            lines[3 * out_chute + i] = 3 * src_chute + off;
        }
    }
    lines
}

impl Transform {
    /// The neutral element: maps every grid to itself.
    pub fn identity() -> Self {
        Transform {
            transpose: false,
            rows: IDENTITY_LINES,
            cols: IDENTITY_LINES,
            digits: IDENTITY_DIGITS,
        }
    }

    /// A uniformly random element of the whole group (geometry and digits).
    ///
    /// RNG consumption, fixed forever (banks are regenerated from it):
    /// 1. `rng.random::<bool>()` — transpose or not;
    /// 2. the row map: `shuffle` of the 3 band indices, then one `shuffle` of
    ///    `[0, 1, 2]` for the rows of output band 0, 1, 2 in that order;
    /// 3. the column map: the same four shuffles for stacks and columns;
    /// 4. one `shuffle` of the digits `[1, …, 9]`; `digits[d]` is its `d-1`-th entry.
    ///
    /// Every step draws each of its choices uniformly and independently, and
    /// distinct draws give distinct group elements, so the result is uniform over
    /// all 2 × 1296 × 1296 × 9! elements. Steps 1–3 are exactly
    /// [`Transform::random_geometric`], so the geometric part of `random` equals
    /// `random_geometric` on an equally seeded RNG.
    ///
    /// The `shuffle` algorithm is rand 0.9's (value-stable within 0.9.x); moving
    /// to another rand minor version may change the stream and must be treated as
    /// a format change.
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let mut t = Self::random_geometric(rng);
        let mut perm = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        perm.shuffle(rng);
        t.digits[1..].copy_from_slice(&perm);
        t
    }

    /// A uniformly random geometric element (digits untouched): steps 1–3 of
    /// [`Transform::random`], consuming the RNG identically.
    pub fn random_geometric<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let transpose = rng.random::<bool>();
        let rows = random_lines(rng);
        let cols = random_lines(rng);
        Transform {
            transpose,
            rows,
            cols,
            digits: IDENTITY_DIGITS,
        }
    }

    /// Whether the source is transposed before the line maps apply.
    pub fn is_transposed(&self) -> bool {
        self.transpose
    }

    /// Applies the transform: `out[r][c] = digits[src'[rows[r]][cols[c]]]` (see the
    /// type's docs). Works on puzzles and full grids alike; 0 stays 0.
    ///
    /// # Panics
    /// If a cell holds a value above 9.
    pub fn apply(&self, cells: &[u8; 81]) -> [u8; 81] {
        let mut out = [0u8; 81];
        for (r, out_row) in out.chunks_exact_mut(9).enumerate() {
            let src_row = self.rows[r] as usize;
            for (c, cell) in out_row.iter_mut().enumerate() {
                let src_col = self.cols[c] as usize;
                // Transposing first means reading src[col][row] instead of src[row][col].
                let idx = if self.transpose {
                    src_col * 9 + src_row
                } else {
                    src_row * 9 + src_col
                };
                *cell = self.digits[cells[idx] as usize];
            }
        }
        out
    }

    /// The transform that applies `self` first, then `then`:
    /// `x.compose(&y).apply(g) == y.apply(&x.apply(g))`.
    ///
    /// Derivation (write `h = x.apply(g)`): when `then` does not transpose, output
    /// row `r` of `y.apply(h)` is row `y.rows[r]` of `h`, which is row
    /// `x.rows[y.rows[r]]` of `g'`; columns alike. When `then` transposes, `h` is
    /// read as `h[col][row]`, so `then`'s row map lands on `x`'s *column* map and
    /// vice versa, and the two transpositions cancel (xor).
    pub fn compose(&self, then: &Self) -> Self {
        let (x, y) = (self, then);
        let mut rows = [0u8; 9];
        let mut cols = [0u8; 9];
        let (x_for_rows, x_for_cols) = if y.transpose {
            (&x.cols, &x.rows)
        } else {
            (&x.rows, &x.cols)
        };
        for i in 0..9 {
            rows[i] = x_for_rows[y.rows[i] as usize];
            cols[i] = x_for_cols[y.cols[i] as usize];
        }
        let mut digits = [0u8; 10];
        for (d, out) in digits.iter_mut().enumerate() {
            *out = y.digits[x.digits[d] as usize];
        }
        Transform {
            transpose: x.transpose ^ y.transpose,
            rows,
            cols,
            digits,
        }
    }

    /// The inverse element: `t.compose(&t.inverse()) == Transform::identity()`
    /// (and the other way round).
    ///
    /// With `x = self` and `z` its inverse, [`Transform::compose`] gives the row
    /// map `x.rows ∘ z.rows` (no transposition) or `x.cols ∘ z.rows`
    /// (transposition): both must be the identity, which fixes `z`.
    pub fn inverse(&self) -> Self {
        let (rows, cols) = if self.transpose {
            (invert_lines(&self.cols), invert_lines(&self.rows))
        } else {
            (invert_lines(&self.rows), invert_lines(&self.cols))
        };
        let mut digits = [0u8; 10];
        for (d, &m) in self.digits.iter().enumerate() {
            digits[m as usize] = d as u8;
        }
        Transform {
            transpose: self.transpose,
            rows,
            cols,
            digits,
        }
    }

    /// Transposition, the cell at `(r, c)` moves to `(c, r)` (main diagonal).
    pub fn transpose() -> Self {
        Transform {
            transpose: true,
            ..Self::identity()
        }
    }

    /// Left–right mirror (as an image editor's "flip horizontal"): `(r, c)` moves
    /// to `(r, 8 - c)`. Reverses the stacks and the columns inside them.
    pub fn mirror_horizontal() -> Self {
        Transform {
            cols: REVERSED_LINES,
            ..Self::identity()
        }
    }

    /// Top–bottom mirror ("flip vertical"): `(r, c)` moves to `(8 - r, c)`.
    /// Reverses the bands and the rows inside them.
    pub fn mirror_vertical() -> Self {
        Transform {
            rows: REVERSED_LINES,
            ..Self::identity()
        }
    }

    /// Quarter turn clockwise: `(r, c)` moves to `(c, 8 - r)`; transposition then
    /// the left–right mirror.
    pub fn rotate90() -> Self {
        Self::transpose().compose(&Self::mirror_horizontal())
    }

    /// Half turn: `(r, c)` moves to `(8 - r, 8 - c)`; both mirrors.
    pub fn rotate180() -> Self {
        Self::mirror_horizontal().compose(&Self::mirror_vertical())
    }

    /// Quarter turn anticlockwise: `(r, c)` moves to `(8 - c, r)`; transposition
    /// then the top–bottom mirror.
    pub fn rotate270() -> Self {
        Self::transpose().compose(&Self::mirror_vertical())
    }

    /// Reflection in the anti-diagonal: `(r, c)` moves to `(8 - c, 8 - r)`;
    /// transposition then the half turn.
    pub fn anti_transpose() -> Self {
        Self::transpose().compose(&Self::rotate180())
    }

    /// Pure relabelling: digit `i + 1` becomes `digits[i]`.
    ///
    /// # Panics
    /// If `digits` is not a permutation of `1..=9` (a programming error: the
    /// result would not be a group element and would break validity).
    pub fn relabel(digits: [u8; 9]) -> Self {
        let mut seen = 0u16;
        for &d in &digits {
            assert!((1..=9).contains(&d), "relabel: digit {d} is not in 1..=9");
            seen |= 1 << d;
        }
        assert_eq!(seen, 0b11_1111_1110, "relabel: {digits:?} repeats a digit");
        let mut map = IDENTITY_DIGITS;
        map[1..].copy_from_slice(&digits);
        Transform {
            digits: map,
            ..Self::identity()
        }
    }
}

impl Default for Transform {
    fn default() -> Self {
        Self::identity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// A valid full grid (the smallest one, from DESIGN.md).
    const GRID: &str =
        "123456789456789123789123456214365897365897214897214365531642978642978531978531642";
    /// A minimal puzzle (DESIGN.md's example).
    const PUZZLE: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";

    fn parse(s: &str) -> [u8; 81] {
        let mut cells = [0u8; 81];
        for (cell, ch) in cells.iter_mut().zip(s.bytes()) {
            *cell = if ch == b'.' { 0 } else { ch - b'0' };
        }
        cells
    }

    /// Every row, column and box of a full grid holds each digit once.
    fn is_valid_full(g: &[u8; 81]) -> bool {
        (0..9).all(|i| {
            let (mut row, mut col, mut bx) = (0u16, 0u16, 0u16);
            for j in 0..9 {
                row |= 1 << g[i * 9 + j];
                col |= 1 << g[j * 9 + i];
                bx |= 1 << g[(i / 3 * 3 + j / 3) * 9 + i % 3 * 3 + j % 3];
            }
            row == 0x3fe && col == 0x3fe && bx == 0x3fe
        })
    }

    /// The geometric map given by a cell mapping `(r, c) -> (r', c')`.
    fn by_coordinates(g: &[u8; 81], f: impl Fn(usize, usize) -> (usize, usize)) -> [u8; 81] {
        let mut out = [0u8; 81];
        for r in 0..9 {
            for c in 0..9 {
                let (r2, c2) = f(r, c);
                out[r2 * 9 + c2] = g[r * 9 + c];
            }
        }
        out
    }

    fn samples() -> Vec<Transform> {
        let mut rng = Pcg64::seed_from_u64(7);
        (0..300).map(|_| Transform::random(&mut rng)).collect()
    }

    #[test]
    fn random_transforms_keep_validity_and_clue_count() {
        let grid = parse(GRID);
        let puzzle = parse(PUZZLE);
        assert!(is_valid_full(&grid));
        let n_clues = puzzle.iter().filter(|&&d| d != 0).count();
        for t in samples() {
            assert!(is_valid_full(&t.apply(&grid)), "{t:?}");
            let p = t.apply(&puzzle);
            assert_eq!(p.iter().filter(|&&d| d != 0).count(), n_clues);
            // A puzzle's givens stay consistent with the transformed solution.
            let s = t.apply(&grid);
            let q = t.apply(&parse(&GRID[..40]));
            for i in 0..81 {
                assert!(q[i] == 0 || q[i] == s[i]);
            }
        }
    }

    #[test]
    fn compose_matches_sequential_apply_and_inverse_cancels() {
        let grid = parse(GRID);
        let puzzle = parse(PUZZLE);
        let ts = samples();
        for pair in ts.windows(2) {
            let (x, y) = (pair[0], pair[1]);
            let xy = x.compose(&y);
            assert_eq!(xy.apply(&grid), y.apply(&x.apply(&grid)));
            assert_eq!(xy.apply(&puzzle), y.apply(&x.apply(&puzzle)));
            assert_eq!(x.compose(&x.inverse()), Transform::identity());
            assert_eq!(x.inverse().compose(&x), Transform::identity());
            assert_eq!(x.inverse().apply(&x.apply(&puzzle)), puzzle);
            // Associativity, with a third element.
            let z = ts[0];
            assert_eq!(xy.compose(&z), x.compose(&y.compose(&z)));
        }
    }

    #[test]
    fn random_is_deterministic_and_varied() {
        let draw = |seed| {
            let mut rng = Pcg64::seed_from_u64(seed);
            (Transform::random(&mut rng), Transform::random(&mut rng))
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
        // The geometric part of random() is random_geometric() on the same stream.
        let mut a = Pcg64::seed_from_u64(9);
        let mut b = Pcg64::seed_from_u64(9);
        let full = Transform::random(&mut a);
        let geo = Transform::random_geometric(&mut b);
        assert_eq!(
            Transform {
                digits: IDENTITY_DIGITS,
                ..full
            },
            geo
        );
    }

    #[test]
    fn random_reaches_both_orientations_and_all_band_orders() {
        let ts = samples();
        assert!(ts.iter().any(|t| t.transpose) && ts.iter().any(|t| !t.transpose));
        let mut band_orders = std::collections::HashSet::new();
        for t in &ts {
            band_orders.insert([t.rows[0] / 3, t.rows[3] / 3, t.rows[6] / 3]);
            for b in 0..3 {
                assert!(t.rows[3 * b..3 * b + 3]
                    .iter()
                    .all(|&r| r / 3 == t.rows[3 * b] / 3));
                assert!(t.cols[3 * b..3 * b + 3]
                    .iter()
                    .all(|&c| c / 3 == t.cols[3 * b] / 3));
            }
        }
        assert_eq!(band_orders.len(), 6);
    }

    #[test]
    fn named_elements_match_coordinates() {
        let g = parse(PUZZLE);
        type CellMap = fn(usize, usize) -> (usize, usize);
        let cases: [(Transform, CellMap); 7] = [
            (Transform::rotate90(), |r, c| (c, 8 - r)),
            (Transform::rotate180(), |r, c| (8 - r, 8 - c)),
            (Transform::rotate270(), |r, c| (8 - c, r)),
            (Transform::mirror_horizontal(), |r, c| (r, 8 - c)),
            (Transform::mirror_vertical(), |r, c| (8 - r, c)),
            (Transform::transpose(), |r, c| (c, r)),
            (Transform::anti_transpose(), |r, c| (8 - c, 8 - r)),
        ];
        for (t, f) in cases {
            assert_eq!(t.apply(&g), by_coordinates(&g, f), "{t:?}");
        }
    }

    #[test]
    fn rotation_laws() {
        let r = Transform::rotate90();
        let r4 = r.compose(&r).compose(&r).compose(&r);
        assert_eq!(r4, Transform::identity());
        assert_eq!(r.compose(&r), Transform::rotate180());
        assert_eq!(r.compose(&r).compose(&r), Transform::rotate270());
        assert_eq!(r.inverse(), Transform::rotate270());
        for m in [
            Transform::mirror_horizontal(),
            Transform::mirror_vertical(),
            Transform::transpose(),
            Transform::anti_transpose(),
        ] {
            assert_eq!(m.compose(&m), Transform::identity());
            assert_ne!(m, Transform::identity());
        }
    }

    #[test]
    fn relabel_maps_digits() {
        let t = Transform::relabel([9, 8, 7, 6, 5, 4, 3, 2, 1]);
        let g = parse(GRID);
        let out = t.apply(&g);
        for i in 0..81 {
            assert_eq!(out[i], 10 - g[i]);
        }
        let p = t.apply(&parse(PUZZLE));
        assert!(p
            .iter()
            .zip(parse(PUZZLE))
            .all(|(&a, b)| (a == 0) == (b == 0)));
    }
}
