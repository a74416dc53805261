//! The rules a "plus" propagation ([`super::Mode::Plus`], SE's dynamic forcing
//! chains (+), 9.0 + length) applies when its singles run out, from SE's published
//! rules: pointing and claiming, hidden pairs, naked pairs, X-wings, tried in that
//! order on the propagation's board (the puzzle's candidates less every node
//! switched off so far); the first rule that finds anything gives all it finds.
//!
//! Each instance found (a hint) comes with its *parents*: the candidates of the
//! step's board that had to be switched off for the pattern to appear (SE's "rule
//! parents"), which count as the new off nodes' ancestors in the chain's length:
//!
//! * pointing, claiming and X-wing: the digit's places in the base houses (the box
//!   of a pointing, the line of a claiming, the two lines of an X-wing), outside the
//!   cover houses, that are gone;
//! * hidden pair: the two digits' places in the house outside the pair's cells;
//! * naked pair: the pair's cells' other candidates.
//!
//! An instance whose parents are all still there was on the board before the
//! chain: it adds nothing to it and is left out, as SE leaves it out. Within a
//! rule, instances come in SE's order (houses, then pairs of digits or cells as
//! increasing bit masks, then digits), and each one's eliminations in cell order.

use super::super::tables::{Cells128, FewBits, BOXES, COLS, ROWS, UNIT_CELLS, UNIT_MASK};
use super::super::{Pencilmarks, Technique};

/// The most parents, or eliminations, one instance has (an X-wing's base lines
/// hold at most 14 other places of its digit; a naked pair's cells, 14 other
/// candidates).
pub(super) const MOST: usize = 32;

/// One instance of a rule: its technique, its parents and eliminations (nodes
/// `9 * cell + digit`, the eliminations in increasing order).
pub(super) struct Hint {
    pub technique: Technique,
    pub parents: [u16; MOST],
    pub n_parents: usize,
    pub removals: [u16; MOST],
    pub n_removals: usize,
}

impl Hint {
    fn new(technique: Technique) -> Self {
        Hint {
            technique,
            parents: [0; MOST],
            n_parents: 0,
            removals: [0; MOST],
            n_removals: 0,
        }
    }

    /// Adds digit `d`'s places `cells` to the parents (`parent`) or eliminations.
    fn add(&mut self, cells: u128, d: usize, parent: bool) {
        let (nodes, n) = if parent {
            (&mut self.parents, &mut self.n_parents)
        } else {
            (&mut self.removals, &mut self.n_removals)
        };
        for c in Cells128(cells) {
            nodes[*n] = (9 * c + d) as u16;
            *n += 1;
        }
    }
}

/// The board of a propagation: the step's board `b` less the off nodes expanded so
/// far (`cand`, `pos`).
pub(super) struct Board<'a> {
    pub b: &'a Pencilmarks,
    pub cand: &'a [u16; 81],
    pub pos: &'a [u128; 9],
}

/// Gives `emit` every instance of the first rule, in SE's order, that has any
/// with parents; false when none has.
pub(super) fn advanced(g: &Board, emit: &mut impl FnMut(&Hint)) -> bool {
    locking(g, emit) || hidden_pairs(g, emit) || naked_pairs(g, emit) || x_wings(g, emit)
}

/// Emits `h` when it has eliminations and parents (the eliminations sorted).
fn offer(h: &mut Hint, emit: &mut impl FnMut(&Hint)) -> bool {
    if h.n_removals == 0 || h.n_parents == 0 {
        return false;
    }
    h.removals[..h.n_removals].sort_unstable();
    emit(h);
    true
}

/// Every pair of `0..9` as increasing bit masks (SE's order of its tuples): the
/// larger index outermost.
fn pairs() -> impl Iterator<Item = (usize, usize)> {
    (1..9).flat_map(|j| (0..j).map(move |i| (i, j)))
}

/// Pointing (a digit's places in a box all in one line: it leaves the rest of the
/// line) and claiming (in a line, all in one box), SE's four passes: boxes against
/// columns, boxes against rows, columns against boxes, rows against boxes.
fn locking(g: &Board, emit: &mut impl FnMut(&Hint)) -> bool {
    let mut any = false;
    for (base, cover) in [(BOXES, COLS), (BOXES, ROWS), (COLS, BOXES), (ROWS, BOXES)] {
        let technique = if base == BOXES {
            Technique::Pointing
        } else {
            Technique::Claiming
        };
        for u1 in base.clone() {
            for u2 in cover.clone() {
                let (m1, m2) = (UNIT_MASK[u1], UNIT_MASK[u2]);
                if m1 & m2 == 0 {
                    continue;
                }
                for d in 0..9 {
                    let places = g.pos[d] & m1;
                    if !places.several() || places & !m2 != 0 {
                        continue;
                    }
                    let mut h = Hint::new(technique);
                    h.add(g.pos[d] & m2 & !m1, d, false);
                    h.add(g.b.pos[d] & m1 & !m2 & !g.pos[d], d, true);
                    any |= offer(&mut h, emit);
                }
            }
        }
    }
    any
}

/// SE's order of houses for sets: boxes, columns, rows.
fn houses() -> impl Iterator<Item = usize> {
    BOXES.chain(COLS).chain(ROWS)
}

/// Two digits whose places in a house (two or more each) are the same two cells:
/// the cells' other candidates go.
fn hidden_pairs(g: &Board, emit: &mut impl FnMut(&Hint)) -> bool {
    let mut any = false;
    for u in houses() {
        let um = UNIT_MASK[u];
        if (g.b.empty & um).at_most(4) {
            continue;
        }
        for (d1, d2) in pairs() {
            let (p1, p2) = (g.pos[d1] & um, g.pos[d2] & um);
            let cells = p1 | p2;
            if !p1.several() || !p2.several() || !cells.exactly(2) {
                continue;
            }
            let set = 1u16 << d1 | 1 << d2;
            let mut h = Hint::new(Technique::HiddenPair);
            for e in (0..9).filter(|&e| set >> e & 1 == 0) {
                h.add(g.pos[e] & cells, e, false);
            }
            for d in [d1, d2] {
                h.add(g.b.pos[d] & um & !cells, d, true);
            }
            any |= offer(&mut h, emit);
        }
    }
    any
}

/// Two cells of a house whose candidates (two or more each) are the same two
/// digits: the digits leave the house's other cells.
fn naked_pairs(g: &Board, emit: &mut impl FnMut(&Hint)) -> bool {
    let mut any = false;
    for u in houses() {
        let um = UNIT_MASK[u];
        if (g.b.empty & um).at_most(3) {
            continue;
        }
        let cells = &UNIT_CELLS[u];
        for (i, j) in pairs() {
            let (ci, cj) = (cells[i] as usize, cells[j] as usize);
            let (a, z) = (g.cand[ci], g.cand[cj]);
            let union = a | z;
            if !a.several() || !z.several() || !union.exactly(2) {
                continue;
            }
            let pair = 1u128 << ci | 1u128 << cj;
            let mut h = Hint::new(Technique::NakedPair);
            for d in (0..9).filter(|&d| union >> d & 1 != 0) {
                h.add(g.pos[d] & um & !pair, d, false);
            }
            for d in (0..9).filter(|&d| union >> d & 1 == 0) {
                h.add(g.b.pos[d] & pair, d, true);
            }
            any |= offer(&mut h, emit);
        }
    }
    any
}

/// Two base lines holding a digit (two or more places each) only in the same two
/// cover lines: the digit leaves the rest of the covers. Columns as bases first,
/// then rows; SE leaves out a digit with more than five givens.
fn x_wings(g: &Board, emit: &mut impl FnMut(&Hint)) -> bool {
    let mut any = false;
    let mut placed = [0usize; 9];
    for &v in g.b.value.iter().filter(|&&v| v != 0) {
        placed[v as usize - 1] += 1;
    }
    for (base, cover) in [(COLS, ROWS), (ROWS, COLS)] {
        for (i, j) in pairs() {
            let bases = UNIT_MASK[base.start + i] | UNIT_MASK[base.start + j];
            for d in (0..9).filter(|&d| placed[d] + 4 <= 9) {
                let (pi, pj) = (
                    g.pos[d] & UNIT_MASK[base.start + i],
                    g.pos[d] & UNIT_MASK[base.start + j],
                );
                if !pi.several() || !pj.several() {
                    continue;
                }
                // The cover lines the places are in.
                let mut covers = 0u128;
                let mut lines = 0u32;
                for v in cover.clone() {
                    if (pi | pj) & UNIT_MASK[v] != 0 {
                        covers |= UNIT_MASK[v];
                        lines += 1;
                    }
                }
                if lines != 2 {
                    continue;
                }
                let mut h = Hint::new(Technique::XWing);
                h.add(g.pos[d] & covers & !bases, d, false);
                h.add(g.b.pos[d] & bases & !covers & !g.pos[d], d, true);
                any |= offer(&mut h, emit);
            }
        }
    }
    any
}
