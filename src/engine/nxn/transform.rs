//! The N×N Sudoku symmetry group as a small `Copy` value type, for every [`Shape`].
//!
//! The one implementation for every size, 9×9 included (a hand-written 9×9 twin drew
//! and applied identically, was no faster, and is gone): an optional transposition, then a row map that keeps each of the b bands together
//! (b! band orders × (b!)^b row orders inside them), a column map that keeps each
//! stack together (likewise), and a relabelling of the N symbols. That is
//! 2 × (b!)^(2b+2) geometric maps times N! relabellings — 128 × 4! for 4×4,
//! about 1.3e14 × 16! for 16×16. The RNG consumption is part of the bank format:
//! 9×9 banks made before and after the twin went are byte-identical. Lines and symbols are stored in arrays sized for the largest
//! board ([`MAX_N`]); entries past N are kept at the identity so that equality and
//! hashing see only the group element. Nothing here allocates; `apply` is a single
//! pass over the N² cells.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use rand::seq::SliceRandom;
use rand::Rng;

use super::{Shape, MAX_N};
use crate::engine::generate::Symmetry;

/// Largest box side (25×25 boards).
const MAX_B: usize = 5;

/// One element of the N×N Sudoku symmetry group for shape `S`.
///
/// Meaning of the fields (`src'` is the source board, transposed first when
/// `transpose` is set):
///
/// `out[r][c] = symbols[src'[rows[r]][cols[c]]]`
///
/// i.e. output row `r` is row `rows[r]` of `src'`, output column `c` is its column
/// `cols[c]`, and every symbol `v` is written as `symbols[v]` (`symbols[0] == 0`
/// keeps empty cells empty). Invariant (kept by every constructor, the fields are
/// private): `rows[..N]` and `cols[..N]` are permutations of `0..N` that map each
/// band/stack onto one band/stack, `symbols[..=N]` is a permutation of `1..=N`
/// fixing 0, and every entry past N is the identity.
pub struct Transform<S: Shape> {
    transpose: bool,
    rows: [u8; MAX_N],
    cols: [u8; MAX_N],
    symbols: [u8; MAX_N + 1],
    shape: PhantomData<S>,
}

// Written by hand rather than derived: a derive would demand `S: PartialEq + Hash`,
// which the `Shape` trait does not promise, and `Debug` should show N entries only.
impl<S: Shape> Clone for Transform<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Shape> Copy for Transform<S> {}

impl<S: Shape> PartialEq for Transform<S> {
    fn eq(&self, other: &Self) -> bool {
        self.transpose == other.transpose
            && self.rows == other.rows
            && self.cols == other.cols
            && self.symbols == other.symbols
    }
}

impl<S: Shape> Eq for Transform<S> {}

impl<S: Shape> Hash for Transform<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.transpose.hash(state);
        self.rows.hash(state);
        self.cols.hash(state);
        self.symbols.hash(state);
    }
}

impl<S: Shape> fmt::Debug for Transform<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transform")
            .field("size", &S::N)
            .field("transpose", &self.transpose)
            .field("rows", &&self.rows[..S::N])
            .field("cols", &&self.cols[..S::N])
            .field("symbols", &&self.symbols[1..=S::N])
            .finish()
    }
}

impl<S: Shape> Default for Transform<S> {
    fn default() -> Self {
        Self::identity()
    }
}

const IDENTITY_LINES: [u8; MAX_N] = {
    let mut a = [0u8; MAX_N];
    let mut i = 0;
    while i < MAX_N {
        a[i] = i as u8;
        i += 1;
    }
    a
};

const IDENTITY_SYMBOLS: [u8; MAX_N + 1] = {
    let mut a = [0u8; MAX_N + 1];
    let mut i = 0;
    while i <= MAX_N {
        a[i] = i as u8;
        i += 1;
    }
    a
};

/// Inverse of a line map (a permutation of `0..n`, identity past `n`).
fn invert_lines(map: &[u8; MAX_N], n: usize) -> [u8; MAX_N] {
    let mut inv = IDENTITY_LINES;
    for (i, &m) in map[..n].iter().enumerate() {
        inv[m as usize] = i as u8;
    }
    inv
}

/// Draws a band-respecting line map for box side `b`: first the order of the `b`
/// chutes (one `shuffle` of `[0, …, b-1]`), then, for output chute 0, 1, … in turn,
/// the order of the `b` lines inside it (one `shuffle` each). `b + 1` shuffles of
/// `b` elements — for `b = 3` exactly the 9×9 type's draw.
fn random_lines<R: Rng + ?Sized>(rng: &mut R, b: usize) -> [u8; MAX_N] {
    let mut chutes = [0u8, 1, 2, 3, 4];
    chutes[..b].shuffle(rng);
    let mut lines = IDENTITY_LINES;
    for (out_chute, &src_chute) in chutes[..b].iter().enumerate() {
        let mut offsets = [0u8, 1, 2, 3, 4];
        offsets[..b].shuffle(rng);
        for (i, &off) in offsets[..b].iter().enumerate() {
            lines[b * out_chute + i] = (b as u8) * src_chute + off;
        }
    }
    lines
}

/// Every permutation of `items[..k]` (Heap's algorithm), appended to `out`.
fn heap_permutations(items: &mut [u8; 4], k: usize, out: &mut Vec<[u8; 4]>) {
    if k <= 1 {
        out.push(*items);
        return;
    }
    for i in 0..k {
        heap_permutations(items, k - 1, out);
        let j = if k.is_multiple_of(2) { i } else { 0 };
        items.swap(j, k - 1);
    }
}

/// A random permutation `p` of `0..k` (k ≤ 5) that commutes with the reversal:
/// `p[k-1-i] == k-1-p[i]`. The pairs `(i, k-1-i)` are shuffled and each flipped or
/// not; the middle of an odd `k` stays put.
fn symmetric_perm<R: Rng + ?Sized>(rng: &mut R, k: usize) -> [u8; MAX_B] {
    let mut pairs = [0u8, 1, 2, 3, 4];
    pairs[..k / 2].shuffle(rng);
    let mut perm = [0u8, 1, 2, 3, 4];
    for (i, &pair) in pairs[..k / 2].iter().enumerate() {
        let to = if rng.random::<bool>() {
            k as u8 - 1 - pair
        } else {
            pair
        };
        perm[i] = to;
        perm[k - 1 - i] = k as u8 - 1 - to;
    }
    perm
}

/// A random band-respecting line map for box side `b` that commutes with the
/// reversal of the lines (`lines[n-1-i] == n-1-lines[i]`): the chutes in a
/// [`symmetric_perm`] order, the lines of each chute in the first half in any order
/// and those of its mirror chute in the mirrored order, the middle chute's (odd `b`)
/// in a [`symmetric_perm`].
fn symmetric_lines<R: Rng + ?Sized>(rng: &mut R, b: usize) -> [u8; MAX_N] {
    let n = b * b;
    let chutes = symmetric_perm(rng, b);
    let mut lines = IDENTITY_LINES;
    for (out_chute, &src) in chutes[..b.div_ceil(2)].iter().enumerate() {
        let src = usize::from(src);
        let offsets = if 2 * out_chute + 1 == b {
            symmetric_perm(rng, b)
        } else {
            let mut o = [0u8, 1, 2, 3, 4];
            o[..b].shuffle(rng);
            o
        };
        for (i, &off) in offsets[..b].iter().enumerate() {
            let (at, from) = (b * out_chute + i, b * src + usize::from(off));
            lines[at] = from as u8;
            lines[n - 1 - at] = (n - 1 - from) as u8;
        }
    }
    lines
}

/// `lines` followed by the reversal of the lines (`i -> n - 1 - lines[i]`).
fn mirrored(lines: &[u8; MAX_N], n: usize) -> [u8; MAX_N] {
    let mut out = *lines;
    for line in &mut out[..n] {
        *line = (n - 1) as u8 - *line;
    }
    out
}

/// The reversal `i -> n - 1 - i` of `0..n`, identity past `n`.
fn reversed_lines(n: usize) -> [u8; MAX_N] {
    let mut lines = IDENTITY_LINES;
    for (i, line) in lines[..n].iter_mut().enumerate() {
        *line = (n - 1 - i) as u8;
    }
    lines
}

impl<S: Shape> Transform<S> {
    /// The neutral element: maps every board to itself.
    pub fn identity() -> Self {
        debug_assert!(S::B <= MAX_B);
        Transform {
            transpose: false,
            rows: IDENTITY_LINES,
            cols: IDENTITY_LINES,
            symbols: IDENTITY_SYMBOLS,
            shape: PhantomData,
        }
    }

    /// A uniformly random element of the whole group (geometry and symbols).
    ///
    /// RNG consumption, fixed forever (banks are regenerated from it):
    /// 1. `rng.random::<bool>()` — transpose or not;
    /// 2. the row map: `shuffle` of the b band indices, then one `shuffle` of
    ///    `[0, …, b-1]` for the rows of output band 0, 1, … in that order;
    /// 3. the column map: the same b + 1 shuffles for stacks and columns;
    /// 4. one `shuffle` of the symbols `[1, …, N]`; `symbols[v]` is its `v-1`-th entry.
    ///
    /// Every step draws its choices uniformly and independently and distinct draws
    /// give distinct elements, so the result is uniform over the group. Steps 1–3
    /// are [`Transform::random_geometric`].
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let mut t = Self::random_geometric(rng);
        let mut perm = IDENTITY_SYMBOLS;
        perm[1..=S::N].shuffle(rng);
        t.symbols = perm;
        t
    }

    /// A uniformly random geometric element (symbols untouched): steps 1–3 of
    /// [`Transform::random`], consuming the RNG identically.
    pub fn random_geometric<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let transpose = rng.random::<bool>();
        let rows = random_lines(rng, S::B);
        let cols = random_lines(rng, S::B);
        Transform {
            transpose,
            rows,
            cols,
            ..Self::identity()
        }
    }

    /// A random element of the subgroup that keeps a clue pattern with `symmetry`
    /// symmetric ([`Transform::keeps`]: it commutes with the symmetry's map, or for
    /// `rot90` with a transposition maps it to its inverse), for the variants of a
    /// symmetric seed; every element of that subgroup can be drawn:
    ///
    /// * `rot180`: row and column maps that commute with reversal, any transposition;
    /// * `mirror` (left-right): any row map, a column map that commutes with
    ///   reversal, no transposition (it would make the mirror a top-bottom one);
    /// * `diagonal`: one map for rows and columns alike, any transposition;
    /// * `rot90`: a row map commuting with reversal, the same map for columns or its
    ///   mirror image (a reflection turns rot90 into its inverse), any transposition.
    ///
    /// Symbols are relabelled at random. `Symmetry::None` is [`Transform::random`]
    /// (the same draws, so banks without `--symmetry` keep their bytes).
    pub fn random_keeping<R: Rng + ?Sized>(symmetry: Symmetry, rng: &mut R) -> Self {
        let b = S::B;
        let (transpose, rows, cols) = match symmetry {
            Symmetry::None => return Self::random(rng),
            Symmetry::Rot180 => (
                rng.random::<bool>(),
                symmetric_lines(rng, b),
                symmetric_lines(rng, b),
            ),
            Symmetry::Mirror => (false, random_lines(rng, b), symmetric_lines(rng, b)),
            Symmetry::Diagonal => {
                let lines = random_lines(rng, b);
                (rng.random::<bool>(), lines, lines)
            }
            Symmetry::Rot90 => {
                let lines = symmetric_lines(rng, b);
                let cols = if rng.random::<bool>() {
                    mirrored(&lines, S::N)
                } else {
                    lines
                };
                (rng.random::<bool>(), lines, cols)
            }
        };
        let mut symbols = IDENTITY_SYMBOLS;
        symbols[1..=S::N].shuffle(rng);
        Transform {
            transpose,
            rows,
            cols,
            symbols,
            shape: PhantomData,
        }
    }

    /// Whether this element is in the subgroup [`Transform::random_keeping`] draws
    /// from for `symmetry` (every element for `Symmetry::None`).
    pub fn keeps(&self, symmetry: Symmetry) -> bool {
        let n = S::N;
        let reversible = |lines: &[u8; MAX_N]| {
            (0..n).all(|i| usize::from(lines[n - 1 - i]) == n - 1 - usize::from(lines[i]))
        };
        match symmetry {
            Symmetry::None => true,
            Symmetry::Rot180 => reversible(&self.rows) && reversible(&self.cols),
            Symmetry::Mirror => !self.transpose && reversible(&self.cols),
            Symmetry::Diagonal => self.rows == self.cols,
            Symmetry::Rot90 => {
                reversible(&self.rows)
                    && (self.cols == self.rows || self.cols == mirrored(&self.rows, n))
            }
        }
    }

    /// Every element of the group, for boards small enough to enumerate it (4×4:
    /// 2 · 8 · 8 · 4! = 3,072 elements); `None` for larger shapes, whose groups
    /// have billions of elements or more.
    pub fn all_elements() -> Option<Vec<Self>> {
        if S::B > 2 {
            return None;
        }
        // The 8 band-respecting line maps of 0..4: chute order × order inside each.
        let mut lines = Vec::new();
        for chutes in [[0u8, 1], [1, 0]] {
            for first in [[0u8, 1], [1, 0]] {
                for second in [[0u8, 1], [1, 0]] {
                    let mut map = IDENTITY_LINES;
                    for (i, &off) in first.iter().enumerate() {
                        map[i] = 2 * chutes[0] + off;
                    }
                    for (i, &off) in second.iter().enumerate() {
                        map[2 + i] = 2 * chutes[1] + off;
                    }
                    lines.push(map);
                }
            }
        }
        let mut symbol_perms = Vec::new();
        let mut perm = [1u8, 2, 3, 4];
        heap_permutations(&mut perm, 4, &mut symbol_perms);
        let mut out = Vec::with_capacity(3072);
        for transpose in [false, true] {
            for rows in &lines {
                for cols in &lines {
                    for symbols in &symbol_perms {
                        let mut t = Self::relabel(symbols);
                        t.transpose = transpose;
                        t.rows = *rows;
                        t.cols = *cols;
                        out.push(t);
                    }
                }
            }
        }
        Some(out)
    }

    /// Whether the source is transposed before the line maps apply.
    pub fn is_transposed(&self) -> bool {
        self.transpose
    }

    /// Output row `r` reads source row `row_map()[r]` (after the optional
    /// transposition); N entries.
    pub fn row_map(&self) -> &[u8] {
        &self.rows[..S::N]
    }

    /// Output column `c` reads source column `col_map()[c]`; N entries.
    pub fn col_map(&self) -> &[u8] {
        &self.cols[..S::N]
    }

    /// Applies the transform: `out[r][c] = symbols[src'[rows[r]][cols[c]]]` (see the
    /// type's docs). Works on puzzles and full grids alike; 0 stays 0.
    ///
    /// # Panics
    /// If a cell holds a value above N.
    pub fn apply(&self, cells: &S::Cells) -> S::Cells {
        let src = cells.as_ref();
        let mut out = S::empty();
        for (r, out_row) in out.as_mut().chunks_exact_mut(S::N).enumerate() {
            let src_row = self.rows[r] as usize;
            for (c, cell) in out_row.iter_mut().enumerate() {
                let src_col = self.cols[c] as usize;
                // Transposing first means reading src[col][row] instead of src[row][col].
                let idx = if self.transpose {
                    src_col * S::N + src_row
                } else {
                    src_row * S::N + src_col
                };
                let v = src[idx] as usize;
                assert!(v <= S::N, "cell value {v} is above {}", S::N);
                *cell = self.symbols[v];
            }
        }
        out
    }

    /// The transform that applies `self` first, then `then`:
    /// `x.compose(&y).apply(g) == y.apply(&x.apply(g))`.
    ///
    /// Same derivation as the 9×9 type: when `then` transposes, its row map lands
    /// on `self`'s column map and vice versa, and the transpositions cancel (xor).
    pub fn compose(&self, then: &Self) -> Self {
        let (x, y) = (self, then);
        let (x_for_rows, x_for_cols) = if y.transpose {
            (&x.cols, &x.rows)
        } else {
            (&x.rows, &x.cols)
        };
        let mut rows = IDENTITY_LINES;
        let mut cols = IDENTITY_LINES;
        for i in 0..S::N {
            rows[i] = x_for_rows[y.rows[i] as usize];
            cols[i] = x_for_cols[y.cols[i] as usize];
        }
        let mut symbols = IDENTITY_SYMBOLS;
        for (v, out) in symbols[..=S::N].iter_mut().enumerate() {
            *out = y.symbols[x.symbols[v] as usize];
        }
        Transform {
            transpose: x.transpose ^ y.transpose,
            rows,
            cols,
            symbols,
            shape: PhantomData,
        }
    }

    /// The inverse element: `t.compose(&t.inverse()) == Transform::identity()`
    /// (and the other way round).
    pub fn inverse(&self) -> Self {
        let (rows, cols) = if self.transpose {
            (
                invert_lines(&self.cols, S::N),
                invert_lines(&self.rows, S::N),
            )
        } else {
            (
                invert_lines(&self.rows, S::N),
                invert_lines(&self.cols, S::N),
            )
        };
        let mut symbols = IDENTITY_SYMBOLS;
        for (v, &m) in self.symbols[..=S::N].iter().enumerate() {
            symbols[m as usize] = v as u8;
        }
        Transform {
            transpose: self.transpose,
            rows,
            cols,
            symbols,
            shape: PhantomData,
        }
    }

    /// Transposition: the cell at `(r, c)` moves to `(c, r)` (main diagonal).
    pub fn transpose() -> Self {
        Transform {
            transpose: true,
            ..Self::identity()
        }
    }

    /// Left–right mirror: `(r, c)` moves to `(r, N-1-c)`. Reverses the stacks and
    /// the columns inside them.
    pub fn mirror_horizontal() -> Self {
        Transform {
            cols: reversed_lines(S::N),
            ..Self::identity()
        }
    }

    /// Top–bottom mirror: `(r, c)` moves to `(N-1-r, c)`. Reverses the bands and
    /// the rows inside them.
    pub fn mirror_vertical() -> Self {
        Transform {
            rows: reversed_lines(S::N),
            ..Self::identity()
        }
    }

    /// Quarter turn clockwise: `(r, c)` moves to `(c, N-1-r)`; transposition then
    /// the left–right mirror.
    pub fn rotate90() -> Self {
        Self::transpose().compose(&Self::mirror_horizontal())
    }

    /// Half turn: `(r, c)` moves to `(N-1-r, N-1-c)`; both mirrors.
    pub fn rotate180() -> Self {
        Self::mirror_horizontal().compose(&Self::mirror_vertical())
    }

    /// Quarter turn anticlockwise: `(r, c)` moves to `(N-1-c, r)`; transposition
    /// then the top–bottom mirror.
    pub fn rotate270() -> Self {
        Self::transpose().compose(&Self::mirror_vertical())
    }

    /// Reflection in the anti-diagonal: `(r, c)` moves to `(N-1-c, N-1-r)`;
    /// transposition then the half turn.
    pub fn anti_transpose() -> Self {
        Self::transpose().compose(&Self::rotate180())
    }

    /// Pure relabelling: symbol `i + 1` becomes `symbols[i]`.
    ///
    /// # Panics
    /// If `symbols` is not a permutation of `1..=N` (a programming error: the
    /// result would not be a group element and would break validity).
    pub fn relabel(symbols: &[u8]) -> Self {
        assert_eq!(
            symbols.len(),
            S::N,
            "relabel: expected {} symbols, got {}",
            S::N,
            symbols.len()
        );
        let mut seen = 0u32;
        for &v in symbols {
            assert!(
                (1..=S::N).contains(&usize::from(v)),
                "relabel: symbol {v} is not in 1..={}",
                S::N
            );
            seen |= 1 << v;
        }
        assert_eq!(
            seen,
            S::all_values(),
            "relabel: {symbols:?} repeats a symbol"
        );
        let mut map = IDENTITY_SYMBOLS;
        map[1..=S::N].copy_from_slice(symbols);
        Transform {
            symbols: map,
            ..Self::identity()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        is_consistent, n_clues, on_every_shape, pattern_grid, Box2, Box3, Box4, Box5,
    };
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// Whether the clue pattern of `cells` is invariant under `symmetry`.
    fn symmetric<S: Shape>(cells: &S::Cells, symmetry: Symmetry) -> bool {
        symmetry.keeps_pattern(S::N, cells.as_ref())
    }

    /// A full grid with a random symmetric set of orbits emptied.
    fn symmetric_puzzle<S: Shape>(symmetry: Symmetry, rng: &mut Pcg64) -> S::Cells {
        let mut cells = pattern_grid::<S>();
        for cell in 0..S::CELLS {
            if rng.random::<bool>() {
                let (orbit, len) = symmetry.orbit_in(S::N, cell);
                for &o in &orbit[..len] {
                    cells.as_mut()[usize::from(o)] = 0;
                }
            }
        }
        cells
    }

    fn variants_keep_symmetry<S: Shape>() {
        let mut rng = Pcg64::seed_from_u64(17);
        for symmetry in Symmetry::ALL {
            let mut distinct = std::collections::HashSet::new();
            for _ in 0..300 {
                let puzzle = symmetric_puzzle::<S>(symmetry, &mut rng);
                assert!(symmetric::<S>(&puzzle, symmetry));
                let t = Transform::<S>::random_keeping(symmetry, &mut rng);
                assert!(t.keeps(symmetry), "{symmetry:?} {t:?}");
                let image = t.apply(&puzzle);
                assert!(symmetric::<S>(&image, symmetry), "{symmetry:?} {t:?}");
                assert!(is_consistent::<S>(image.as_ref()));
                distinct.insert(t);
            }
            // A large subgroup (4×4's smallest, rot90's, has 2·4·2·4! = 384 elements).
            assert!(distinct.len() > 100, "{symmetry:?}: {}", distinct.len());
        }
    }

    #[test]
    fn variants_of_a_symmetric_puzzle_keep_its_symmetry_on_every_size() {
        on_every_shape!(variants_keep_symmetry);
    }

    #[test]
    fn the_keeping_subgroups_are_exactly_the_symmetry_preserving_elements_on_4x4() {
        // On 4×4 every element can be tried: one in `keeps` keeps every symmetric
        // pattern symmetric, and one outside it breaks some of 40 random ones (so
        // the subgroup is not needlessly small).
        let group = Transform::<Box2>::all_elements().unwrap();
        let mut rng = Pcg64::seed_from_u64(5);
        for symmetry in &Symmetry::ALL[1..] {
            let puzzles: Vec<_> = (0..40)
                .map(|_| symmetric_puzzle::<Box2>(*symmetry, &mut rng))
                .collect();
            let mut kept = 0;
            for t in &group {
                let keeps_all = puzzles
                    .iter()
                    .all(|p| symmetric::<Box2>(&t.apply(p), *symmetry));
                assert_eq!(t.keeps(*symmetry), keeps_all, "{symmetry:?} {t:?}");
                kept += usize::from(keeps_all);
            }
            let expected = match symmetry {
                Symmetry::Rot180 => 2 * 4 * 4 * 24,
                Symmetry::Mirror => 8 * 4 * 24,
                Symmetry::Diagonal => 2 * 8 * 24,
                _ => 2 * 4 * 2 * 24,
            };
            assert_eq!(kept, expected, "{symmetry:?}");
        }
    }

    fn is_valid_full<S: Shape>(g: &S::Cells) -> bool {
        g.as_ref().iter().all(|&v| v != 0) && is_consistent::<S>(g.as_ref())
    }

    /// A board with the cell mapping `(r, c) -> f(r, c)` applied.
    fn by_coordinates<S: Shape>(
        g: &S::Cells,
        f: impl Fn(usize, usize) -> (usize, usize),
    ) -> S::Cells {
        let mut out = S::empty();
        for i in 0..S::CELLS {
            let (r2, c2) = f(i / S::N, i % S::N);
            out.as_mut()[r2 * S::N + c2] = g.as_ref()[i];
        }
        out
    }

    /// A puzzle-like board: every third cell of a shuffled valid grid blanked.
    fn some_puzzle<S: Shape>(rng: &mut Pcg64) -> S::Cells {
        let mut p = Transform::<S>::random(rng).apply(&pattern_grid::<S>());
        for (i, cell) in p.as_mut().iter_mut().enumerate() {
            if i % 3 == 0 || rng.random_range(0..4) == 0 {
                *cell = 0;
            }
        }
        p
    }

    fn laws<S: Shape>(seed: u64) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let grid = pattern_grid::<S>();
        assert!(is_valid_full::<S>(&grid));
        let puzzle = some_puzzle::<S>(&mut rng);
        let ts: Vec<Transform<S>> = (0..60).map(|_| Transform::random(&mut rng)).collect();
        for pair in ts.windows(2) {
            let (x, y) = (pair[0], pair[1]);
            // Validity and clue count are kept.
            let image = x.apply(&grid);
            assert!(is_valid_full::<S>(&image), "{x:?}");
            let p = x.apply(&puzzle);
            assert_eq!(n_clues(p.as_ref()), n_clues(puzzle.as_ref()));
            assert!(is_consistent::<S>(p.as_ref()));
            // Group laws.
            let xy = x.compose(&y);
            assert_eq!(xy.apply(&grid), y.apply(&x.apply(&grid)));
            assert_eq!(xy.apply(&puzzle), y.apply(&x.apply(&puzzle)));
            assert_eq!(x.compose(&x.inverse()), Transform::identity());
            assert_eq!(x.inverse().compose(&x), Transform::identity());
            assert_eq!(x.inverse().apply(&p), puzzle);
            assert_eq!(xy.compose(&ts[0]), x.compose(&y.compose(&ts[0])));
            assert_eq!(Transform::identity().compose(&x), x);
        }
        // Random elements move the board (a fixed draw could hide a broken shuffle).
        assert!(ts.iter().any(|t| t.apply(&grid) != grid));
    }

    #[test]
    fn random_transforms_keep_validity_clue_count_and_group_laws() {
        laws::<Box2>(1);
        laws::<Box3>(2);
        laws::<Box4>(3);
        laws::<Box5>(4);
    }

    fn named_elements<S: Shape>() {
        let mut rng = Pcg64::seed_from_u64(5);
        let g = some_puzzle::<S>(&mut rng);
        let m = S::N - 1;
        type Case<S> = (Transform<S>, Box<dyn Fn(usize, usize) -> (usize, usize)>);
        let cases: [Case<S>; 7] = [
            (Transform::rotate90(), Box::new(move |r, c| (c, m - r))),
            (Transform::rotate180(), Box::new(move |r, c| (m - r, m - c))),
            (Transform::rotate270(), Box::new(move |r, c| (m - c, r))),
            (
                Transform::mirror_horizontal(),
                Box::new(move |r, c| (r, m - c)),
            ),
            (
                Transform::mirror_vertical(),
                Box::new(move |r, c| (m - r, c)),
            ),
            (Transform::transpose(), Box::new(|r, c| (c, r))),
            (
                Transform::anti_transpose(),
                Box::new(move |r, c| (m - c, m - r)),
            ),
        ];
        for (t, f) in cases {
            assert_eq!(t.apply(&g), by_coordinates::<S>(&g, f), "{t:?}");
        }
        let r = Transform::<S>::rotate90();
        assert_eq!(r.compose(&r), Transform::rotate180());
        assert_eq!(r.compose(&r).compose(&r), Transform::rotate270());
        assert_eq!(r.inverse(), Transform::rotate270());
        assert_eq!(r.compose(&r).compose(&r).compose(&r), Transform::identity());
    }

    #[test]
    fn named_elements_match_coordinates() {
        on_every_shape!(named_elements);
    }

    #[test]
    fn random_keeps_chutes_together_and_reaches_every_chute_order() {
        let mut rng = Pcg64::seed_from_u64(11);
        let mut orders = std::collections::HashSet::new();
        let mut transposed = [false; 2];
        for _ in 0..400 {
            let t = Transform::<Box2>::random(&mut rng);
            transposed[t.is_transposed() as usize] = true;
            let (rows, cols) = (t.row_map(), t.col_map());
            for b in 0..2 {
                assert_eq!(rows[2 * b] / 2, rows[2 * b + 1] / 2);
                assert_eq!(cols[2 * b] / 2, cols[2 * b + 1] / 2);
            }
            orders.insert((rows.to_vec(), cols.to_vec()));
        }
        // All 8 × 8 line-map pairs of the 4×4 group appear, both orientations too.
        assert_eq!(orders.len(), 64);
        assert_eq!(transposed, [true, true]);
    }

    #[test]
    fn relabel_maps_symbols() {
        let symbols: Vec<u8> = (1..=16u8).rev().collect();
        let t = Transform::<Box4>::relabel(&symbols);
        let g = pattern_grid::<Box4>();
        let out = t.apply(&g);
        for i in 0..Box4::CELLS {
            assert_eq!(out[i], 17 - g[i]);
        }
        assert_eq!(t.compose(&t), Transform::identity());
    }
}
