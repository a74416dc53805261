//! Uniqueness techniques: they assume the puzzle has one solution (the rater checks
//! that first) and remove candidates that would allow a second one.
//!
//! * Unique rectangle (SE "unique loop" of four cells): four cells on two rows, two
//!   columns and two boxes that all hold {a, b}. If only a and b stayed, a and b
//!   could swap: two solutions. Type 1 (4.5): three cells are exactly {a, b}, so a
//!   and b leave the fourth. Type 4 (4.5): the two others share a unit where a may
//!   only stand in them, so b leaves both. Type 2 (4.6): the two others are
//!   {a, b, z}, so one of them is z and z leaves their common peers. (Types 1 and 4
//!   at 4.5, type 2 at 4.6: measured, it matches SE on 3 % more of its 4.x puzzles
//!   than type 4 at 4.6.)
//! * BUG, bivalue universal grave: if every empty cell had two candidates and every
//!   digit two places per unit, the puzzle would have zero or two solutions. Type 1
//!   (5.6): one cell has a third candidate, which must therefore be its value. Type 2
//!   (5.7): several cells carry the same extra digit z; one of them is z, so z leaves
//!   their common peers.
//!
//! Longer unique loops (SE 4.6–5.0), types 3 and BUG types 3 and 4 are not
//! implemented; puzzles that need them are rated by a later technique.

use super::tables::{Bits, Cells128, CELL_UNITS, PEERS, UNIT_MASK};
use super::{Board, Found, Technique};

pub(crate) fn rectangle(b: &Board, f: &mut Found) -> bool {
    // Type 1 before types 2 and 4 over the whole grid (the easiest first).
    rectangle_pass(b, f, 1) || rectangle_pass(b, f, 2)
}

fn rectangle_pass(b: &Board, f: &mut Found, pass: u8) -> bool {
    for r1 in 0..9 {
        for r2 in r1 + 1..9 {
            let same_band = r1 / 3 == r2 / 3;
            for c1 in 0..9 {
                for c2 in c1 + 1..9 {
                    // Exactly two boxes: same band xor same stack.
                    if same_band == (c1 / 3 == c2 / 3) {
                        continue;
                    }
                    let cells = [9 * r1 + c1, 9 * r1 + c2, 9 * r2 + c1, 9 * r2 + c2];
                    rectangle_at(b, f, cells, pass);
                }
            }
        }
    }
    f.elim(Technique::UniqueRectangle, if pass == 1 { 45 } else { 46 })
}

fn rectangle_at(b: &Board, f: &mut Found, cells: [usize; 4], pass: u8) -> bool {
    let mut common = 0x1ffu16;
    for &c in &cells {
        common &= b.cand[c];
    }
    if common.count_ones() < 2 {
        return false;
    }
    for a in Bits(common as u32) {
        for bd in Bits((common as u32) & !((2u32 << a) - 1)) {
            let pair = (1u16 << a) | (1u16 << bd);
            let mut extra = [0usize; 4];
            let mut n_extra = 0;
            for &c in &cells {
                if b.cand[c] != pair {
                    extra[n_extra] = c;
                    n_extra += 1;
                }
            }
            let pattern = cells.iter().map(|&c| c as u8);
            if pass == 1 && n_extra == 1 {
                let c = extra[0];
                f.elims.push((c as u8, a as u8));
                f.elims.push((c as u8, bd as u8));
                f.cells.extend(pattern);
                return true;
            }
            if n_extra != 2 {
                continue;
            }
            let (x, y) = (extra[0], extra[1]);
            // Type 2: both extras are {a, b, z}.
            let (ex, ey) = (b.cand[x] & !pair, b.cand[y] & !pair);
            if ex == ey && ex.count_ones() == 1 && pass == 2 {
                let z = ex.trailing_zeros() as usize;
                let targets = b.pos[z] & PEERS[x] & PEERS[y];
                if targets != 0 {
                    f.push_mask(targets, z);
                    f.cells.extend(pattern);
                    return true;
                }
            }
            // Type 4: the extras share a unit where one of a, b stands only in them.
            let both = (1u128 << x) | (1u128 << y);
            for k in 0..3 {
                if CELL_UNITS[x][k] != CELL_UNITS[y][k] {
                    continue;
                }
                let um = UNIT_MASK[CELL_UNITS[x][k] as usize];
                for (keep, drop) in [(a, bd), (bd, a)] {
                    if b.pos[keep] & um == both && pass == 1 {
                        f.elims.push((x as u8, drop as u8));
                        f.elims.push((y as u8, drop as u8));
                        f.cells.extend(pattern);
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// BUG types 1 and 2.
pub(crate) fn bug(b: &Board, f: &mut Found) -> bool {
    // The non-bivalue cells and, for each, the digit that appears three times in its
    // row (the one that breaks the grave).
    let mut bug_cells = [0usize; 8];
    let mut extra = [0u16; 8];
    let mut n = 0;
    for c in Cells128(b.empty) {
        let k = b.cand[c].count_ones();
        if k == 2 {
            continue;
        }
        if k != 3 || n == bug_cells.len() {
            return false;
        }
        let row = UNIT_MASK[CELL_UNITS[c][0] as usize];
        let mut e = 0u16;
        for d in Bits(b.cand[c] as u32) {
            if (b.pos[d] & row).count_ones() == 3 {
                e |= 1 << d;
            }
        }
        if e.count_ones() != 1 {
            return false;
        }
        bug_cells[n] = c;
        extra[n] = e;
        n += 1;
    }
    if n == 0 {
        return false;
    }
    // Without the extras, every digit must have 0 or 2 places in every unit.
    for d in 0..9 {
        let mut p = b.pos[d];
        for i in 0..n {
            if extra[i] >> d & 1 != 0 {
                p &= !(1u128 << bug_cells[i]);
            }
        }
        for &um in &UNIT_MASK {
            let k = (p & um).count_ones();
            if k != 0 && k != 2 {
                return false;
            }
        }
    }
    f.cells.extend(bug_cells[..n].iter().map(|&c| c as u8));
    if n == 1 {
        let c = bug_cells[0];
        return f.place(Technique::Bug, 56, c, extra[0].trailing_zeros() as usize);
    }
    if extra[..n].iter().all(|&e| e == extra[0]) {
        let z = extra[0].trailing_zeros() as usize;
        let mut targets = b.pos[z];
        for &c in &bug_cells[..n] {
            targets &= PEERS[c];
        }
        if targets != 0 {
            f.push_mask(targets, z);
            return f.elim(Technique::Bug, 57);
        }
    }
    f.cells.clear();
    false
}
