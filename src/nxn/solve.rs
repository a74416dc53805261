//! Counting solver for N×N boards.
//!
//! For now a plain reference solver: depth-first search on the empty cell with the
//! fewest candidates, counting solutions up to a limit. Simple enough to trust, it is
//! kept as the oracle the fast solver is tested against.

use super::{Shape, MAX_CELLS, MAX_N};

/// Counts the solutions of `cells` (an `S` board), stopping at `limit`. A board that
/// repeats a value in a unit has no solution.
pub fn count_solutions_reference<S: Shape>(cells: &[u8], limit: u32) -> u32 {
    debug_assert_eq!(cells.len(), S::CELLS);
    if !super::is_consistent::<S>(cells) {
        return 0;
    }
    let mut board = [0u8; MAX_CELLS];
    board[..S::CELLS].copy_from_slice(cells);
    let (mut rows, mut cols, mut boxes) = ([0u32; MAX_N], [0u32; MAX_N], [0u32; MAX_N]);
    for (i, &v) in cells.iter().enumerate() {
        if v != 0 {
            rows[S::row(i)] |= 1 << v;
            cols[S::col(i)] |= 1 << v;
            boxes[S::box_of(i)] |= 1 << v;
        }
    }
    let mut count = 0;
    search::<S>(
        &mut board, &mut rows, &mut cols, &mut boxes, limit, &mut count,
    );
    count
}

fn search<S: Shape>(
    board: &mut [u8; MAX_CELLS],
    rows: &mut [u32; MAX_N],
    cols: &mut [u32; MAX_N],
    boxes: &mut [u32; MAX_N],
    limit: u32,
    count: &mut u32,
) {
    // The empty cell with the fewest candidates.
    let mut best = None;
    let mut best_n = u32::MAX;
    for i in 0..S::CELLS {
        if board[i] == 0 {
            let cand = S::all_values() & !(rows[S::row(i)] | cols[S::col(i)] | boxes[S::box_of(i)]);
            if cand.count_ones() < best_n {
                best_n = cand.count_ones();
                best = Some((i, cand));
            }
        }
    }
    let Some((i, mut cand)) = best else {
        *count += 1;
        return;
    };
    let (r, c, b) = (S::row(i), S::col(i), S::box_of(i));
    while cand != 0 && *count < limit {
        let v = cand.trailing_zeros();
        cand &= cand - 1;
        board[i] = v as u8;
        rows[r] |= 1 << v;
        cols[c] |= 1 << v;
        boxes[b] |= 1 << v;
        search::<S>(board, rows, cols, boxes, limit, count);
        rows[r] &= !(1 << v);
        cols[c] &= !(1 << v);
        boxes[b] &= !(1 << v);
    }
    board[i] = 0;
}

/// Counts the solutions of `cells`, stopping at `limit`.
pub fn count_solutions<S: Shape>(cells: &[u8], limit: u32) -> u32 {
    count_solutions_reference::<S>(cells, limit)
}

#[cfg(test)]
mod tests {
    use super::super::{Box2, Box3};
    use super::*;

    #[test]
    fn the_empty_4x4_board_has_288_solutions() {
        assert_eq!(count_solutions_reference::<Box2>(&[0; 16], u32::MAX), 288);
    }

    #[test]
    fn agrees_with_the_9x9_solver_on_qqwing_puzzles() {
        let text = include_str!("../../data/qqwing-10k.txt");
        for (n, line) in text.lines().take(20).enumerate() {
            let cells = crate::grid::parse_line(line, n + 1).unwrap();
            assert_eq!(
                count_solutions_reference::<Box3>(&cells, 2),
                crate::solve::count_solutions(&cells, 2)
            );
        }
    }
}
