//! Unit tests of the rater: one puzzle per technique, rated with it and nothing
//! harder; the laws (symmetry invariance, the rater ends on the solver's solution).
//!
//! The puzzles ≥ 2.5 come from `se-rated.txt` and carry Sudoku Explainer's own
//! rating; the easier ones are minimal puzzles of `data/qqwing-10k.txt` that need
//! the technique (SE's rating of those is not known to us).

use super::*;
use crate::engine::grid::parse_line;
type Transform = crate::engine::nxn::transform::Transform<crate::engine::nxn::Box3>;
use proptest::prelude::*;
use rand::SeedableRng;

fn cells(line: &str) -> Cells {
    parse_line(line, 1).expect("test puzzle parses")
}

fn rate(line: &str) -> Rating {
    Rater::new()
        .rate(&cells(line))
        .expect("test puzzle is valid")
}

/// The rating and the path's steps.
fn rate_with_steps(line: &str) -> (Rating, Vec<Step>) {
    let mut steps = Vec::new();
    let rated = Rater::new()
        .rate_with_steps(&cells(line), &mut steps)
        .expect("test puzzle is valid");
    (rated, steps)
}

/// (puzzle, technique, rating in tenths)
#[rustfmt::skip]
const BY_TECHNIQUE: &[(&str, Technique, u8)] = &[
    ("...89.75....5.7..3.......64...1..8..........7..8.6514..8...........3...6.76451.9.", Technique::HiddenSingle, 12),
    (".....8..9.8.7..23..65..........3..2.34....75.........6...3968......7.64..5..2..7.", Technique::HiddenSingle, 15),
    ("......7.1.....5.4...........3.61......92....71.....63..763...142...5..9...4..93..", Technique::DirectPointing, 17),
    (".1.27..8.8..3.5..........65............843..6.8..1..7.5...24....3.1..2...6.7..4..", Technique::DirectHiddenPair, 20),
    ("8.....6....6..1.29....9.45...5........48.39..2......31...2.8.9.....4.......935.86", Technique::NakedSingle, 23),
    ("....4....8.2...7.3.9.....6.9...1...6..7.5.1....43.89.....5.7...3...2...5..69.18..", Technique::DirectHiddenTriple, 25),
    ("7.9.2.....8.5.7.3...4...5.....25.89.1...9...4.28.74.....1...9...6.9.2.5.....6.7.8", Technique::Pointing, 26),
    (".6.5.7.2..52...87............1...6..9.5.3.4.767.4.1.93....7....1.4...7.5...1.9...", Technique::Claiming, 28),
    ("..1...7..3..4.2..559.....147...8...9..89.43......6......37486............7.593.8.", Technique::NakedPair, 30),
    (".........3..1.4..9.5.....2.79.....35..5.6.1..21.9.3.47.8.....7.4..582..3....4....", Technique::XWing, 32),
    (".21...35............75361...3.....2..1..7..9....418....8.1.2.7.1...4...54..8.5..3", Technique::HiddenPair, 34),
    (".7..3...263...8...9...5....1...85.2..2.....6..8.21...9....4...3...3...142...6..9.", Technique::NakedTriple, 36),
    ("5..6.4..8.........1..983..4..5...4..78.4.5.69.4.....8..51...83...4.5.2.....3.6...", Technique::Swordfish, 38),
    ("3..5...7..18.4........2..6.7....9..3..5...2..1..6....7.4..6........7.83..3...1..2", Technique::HiddenTriple, 40),
    ("3.9.52..7...6.......8.4.6.51......6.9.2...4.1.4......22.4.3.8.......1...5..29.3.6", Technique::Skyscraper, 40),
    ("6..3.5.9...8.9...694.......8.24...1.1...2...9.9...34.5.......544...5.8...6.8.4..1", Technique::TwoStringKite, 41),
    ("...........84.53...5.1.8.2..9..3..8...2.6.5....38129....56.37..8.......97.......6", Technique::TurbotFish, 42),
    ("9...6.7.1.13....6.8..4...5....6.24..2.......5..45.7....2...4..7.7....69.1.9.8...2", Technique::EmptyRectangle, 43),
    // A grouped link (a row's places of the digit in two of its boxes), SE's 4.3:
    // rated 6.8 (an X-chain) before 0.4.7, which missed the grouped link.
    ("3.1..7.8...2..6.....9.8.2..8...7.9..91..4..75..7.6...2..8.3.6.....8..5...7.6..1.8", Technique::TurbotFish, 43),
    ("...5....4..42..58......136.6.2...49..7.....2..49...1.5.867......27..56..5....3...", Technique::XyWing, 42),
    (".4.2...57...3..1...27.....6.9.1.......87.26.......9.4.8.....23...2..5...57...1.6.", Technique::XyzWing, 44),
    (".8.....1..71.9.34.....2.....3.....9...9...2..8..9.4..65..3.2..17.4...6.5...7.5...", Technique::UniqueRectangle, 45),
    (".5.8.....1..6.9...28...3.....8.4....32.1.6..8.9...2.6.....9.5.1.1.2.....8.5.....2", Technique::UniqueRectangle, 46),
    // Type 3: the two extra cells and a naked pair or triple of their unit.
    (".........9.......176..2..892...3...4.37...95...6.5.7....1...2...2.7.1.3.3..4.2..6", Technique::UniqueRectangle, 47),
    // Unique loops of six, eight and ten or more cells.
    ("4.9...3..8...7.......1.2.89521..7......4.9......2..87516.3.5.......4...1..8...5.3", Technique::UniqueLoop, 46),
    (".....953.49..6..1.7.31..4..9.....6...1.....8...8.....1..9..27.8.5..1..24.874.....", Technique::UniqueLoop, 47),
    (".3.9.5...8.4.......9...4.23.8...1..5..24.98..1..6...4.94.2...3.......2.4...7.8.9.", Technique::UniqueLoop, 50),
    (".8.....9...1...2..4.5...7.8..2.7.4...371.982.1...5...7.1.....7.2.......3...726...", Technique::NakedQuad, 50),
    (".6.1..8...5..4....4.2..5....74.3.5....39.74....9.6.78....3..9.7....7..6...5..6.4.", Technique::Jellyfish, 52),
    ("7.61...4..54...1..3.1..5........3.27.3..5..1.61.7........4..9.1..2...47..4...15.2", Technique::ThreeLinks, 54),
    // Links in a box and a line: +0.1.
    ("3.465...8.5..7..9....4.3..6..9...4.517.....235.3...1..4..2.5....6..8..4.7...146.2", Technique::ThreeLinks, 55),
    // A grouped link among the three: +0.3.
    (".....61.5..6....7.4.7..2.....97...5.65..9..13.3...84.....6..8.4.6....5..8.49.....", Technique::ThreeLinks, 57),
    (".9..2.....1.987..32..4..98...5....3...2...4...4....7...59..6..74..738.2.....4..6.", Technique::WxyzWing, 55),
    ("1.673....3...65.4.........2..56....4.9..4..3.4....78..9.........7.98...6....712.8", Technique::WxyzWing, 56),
    // VWXYZ-wings whose largest candidate count is 5, 2 or 4, and 3.
    ("...........6...3....18547..7..1.2..6..4.9.1..2...4...79..7.1..3.6.....5...2...8..", Technique::VwxyzWing, 62),
    ("..6...3.49....81....7..9..6.6..2.7.82.......94.8.1..6.6..3..9....48....77.2...5..", Technique::VwxyzWing, 63),
    ("..6..1...2....846..34..7..2......846..7...2..648......9..3..71..124....3...7..9..", Technique::VwxyzWing, 64),
    // Doubly linked (both of the bivalue cell's digits restricted): SE 6.2 and 6.4,
    // AICs (7.1) before 0.4.8.
    (".217.654..5.....3..6..2..9...61.34..4.......31..284..7..9...1...........8..9.5..4", Technique::VwxyzWing, 62),
    ("..76...3.32....84..1..8...2...8.6..1..1.9.3..9..5.1...4...1..8..36....19.7...35..", Technique::VwxyzWing, 64),
    (".....27.3..5.7........34.69....89.32.1.....8.98.42....46.79........4.8..7.13.....", Technique::Bug, 56),
    ("6.7..9..2.4....79..297..8.57..6.53......4......19.3..49.3..645..58....1.4..5..2.3", Technique::Bug, 57),
    // SE 5.6 and 5.7: a BUG is tried before the VWXYZ-wing (rated 6.3 before 0.4.7).
    (".8.....4.....7...1.37..2.8......85...713.649...41......4.6..23.7...3.....9.....6.", Technique::Bug, 56),
    (".6.9.4.8.23.....69...7.2.....61.53...856.327.7.......5..2.1.8..6..8.7..1.........", Technique::Bug, 57),
    // BUG type 3, the extras in a naked pair, triple and quad: SE 5.8, 5.9 and 6.0
    // (before 0.4.8 an XY-chain 6.7, a VWXYZ-wing 6.3 and an XY-chain 6.7).
    ("........7..7.682....95.1.84.5...9....3.....5....6...2.14.7.65....528.3..8........", Technique::Bug, 58),
    ("............913...8.......5.3.8.9.5...7...4..28.7.4.1314.2.6.89.........37..8..42", Technique::Bug, 59),
    (".........71...832..26....74.49..1...25..8..37...5..18.43....75..674...18.........", Technique::Bug, 60),
    ("16......9..39....7..4...28....485.2....7.6....7.219....29...1..3....79..7......38", Technique::XChain, 66),
    (".8.6...3.4.....5.6..2..5...6...73...83..6..71...98...4...4..6..1.3.....7.4...9.8.", Technique::XChain, 68),
    // Cycles of bivalue cells (SE's Y-cycles, 6.5 + length)...
    ("3..75..622....3..8.581........6.94......4......92.5........782.8..9....757..62..1", Technique::XyChain, 66),
    ("6..49.1.......138.7..3...4.9..5...6.2.......4.5...7..3.2...6..1.681.......9.32..8", Technique::XyChain, 68),
    // ... and a chain of bivalue cells that closes no cycle: SE's 7.0 + length.
    ("5.8...1.7....6......27.83..8.3...9.49..236..11..4.9..6...........1.2.6..4..8.1..2", Technique::XyChain, 70),
    (".2.8......5..7.283.346.21....6...5.2.1.....9.9.2...6....87.135.597.2..4......8.2.", Technique::Aic, 71),
    // Aligned triplet exclusion (SE 7.5; before 0.4.8 a forcing chain, 8.3).
    (".7.....8.1.......49..158..3...286.....34.92...6.3.5.9.6..8.1..9.1.....3...7.2.6..", Technique::AlignedTripletExclusion, 75),
    (".2..3..6..........3...7...1.6..1..4.73.8.6.29...7.2...2..5.3..66.7...1.5..3...2..", Technique::Nishio, 78),
    ("..2...6..9..5.7..4.1.....7.....8....8..4.9..7.9.253.1..7.3.5.9..3..4..6.5.......1", Technique::ForcingChain, 83),
    ("...8.5...4...1...6....7......9.8.1.....5.1....31.4.75.1..7.8..3..6...2...27...91.", Technique::DynamicForcingChain, 88),
    // SE 9.5 (Denis Berthier's CSP-Rules examples, `g-whips/shye-gW8.clp`): beyond
    // the implemented techniques before 0.4.11.
    (".8.4.5....12.3...........6.3....4..7.6.7...5.7...8...9......1......9.2.....3.6...", Technique::DynamicForcingChainPlus, 95),
    // SE 11.7 (eleven's Imp630 #350, CSP-Rules-Examples `Sudoku/Imp630/#350-EL13c259.clp`):
    // beyond the implemented techniques before 0.4.12.
    ("..3..6....5718.....6........816...75.....8......5...68.7.....42...73.85..1.....97", Technique::NestedForcingChain, 117),
];

#[test]
fn each_technique_rates_a_puzzle_that_needs_it() {
    let mut rater = Rater::new();
    for &(p, technique, rating) in BY_TECHNIQUE {
        let r = rater.rate(&cells(p)).expect("valid");
        assert_eq!((r.technique, r.rating), (technique, rating), "{p}");
    }
}

/// Regression (0.4.6): the chain levels counted a contradiction's two chains as one
/// set of nodes, followed dynamic implications breadth first, and rated SE's
/// multiple chains with contradictions and double chains it does not search
/// there. SE counts each branch with its own ancestors, expands every pending on
/// node first, and uses a branch that met a contradiction with what it had
/// reached. These puzzles of `se-rated.txt` (with SE's rating) each rated 0.1–0.2
/// off before.
#[test]
fn chains_are_counted_and_searched_as_se_does() {
    #[rustfmt::skip]
    let cases: &[(&str, Technique, u8)] = &[
        (".9.....6.6.5...2.13..8.2..5...5.6.....6.9.3...1..2..7..2.....1.8.7...6.21..2.5..9", Technique::Nishio, 77),
        (".52..3...8.......9.7.82.....98.3...53.1.6.7.85...1.39.....41.5.7.......4...3..68.", Technique::Nishio, 77),
        ("..6.58......6........243..72.8.6.37.7.38.41.2.41.2.9.69..716........9......43.7..", Technique::ForcingChain, 83),
        (".67.8.2...8...5.762.......3.1.7.9...3...6...8...5.8.6.5.......774.3...8...8.5.43.", Technique::DynamicForcingChain, 87),
        ("...1....7....4...8.8...56..94....8.2...6.4...6.2....53..34...1.2...3....5....1...", Technique::DynamicForcingChain, 87),
    ];
    let mut rater = Rater::new();
    for &(p, technique, rating) in cases {
        let r = rater.rate(&cells(p)).expect("valid");
        assert_eq!((r.technique, r.rating), (technique, rating), "{p}");
    }
}

/// Regression: BUG cells were given the extra digit their row holds three times, so
/// two of them in one row hid the grave, and a copy of a BUG puzzle transposed (or
/// otherwise moved) rated 7.2 where the original rated 5.7.
#[test]
fn a_bug_is_found_whatever_units_its_cells_share() {
    let original =
        "9.......1...2.8...21.....36.647.928..9.....1..............4......25.19..54..9..72";
    let moved = ".68...4......4..9..1.82.7........9.32...9..8.4...7..5..8.96.3...49...5......3..4.";
    let transposed: String = (0..81)
        .map(|i| original.as_bytes()[9 * (i % 9) + i / 9] as char)
        .collect();
    for p in [original, moved, &transposed] {
        let r = rate(p);
        assert_eq!((r.technique, r.rating), (Technique::Bug, 57), "{p}");
    }
}

/// A pivot seeing four cells that do not share a unit is a wider pattern than
/// Sukaku Explainer's VWXYZ-wing (a bivalue cell and four cells of one unit): SE
/// rates this puzzle 7.0, which it only reaches without it.
#[test]
fn a_vwxyz_wing_is_a_bivalue_cell_and_four_cells_of_one_unit() {
    let p = "...3...7..4...5.....518.46...8.....25.7...9.69.....8...31.785.....9...1..9...4...";
    let r = rate(p);
    assert_eq!((r.technique, r.rating), (Technique::Aic, 70), "{p}");
}

#[test]
fn a_single_hole_is_a_full_house_and_a_full_grid_needs_nothing() {
    let p = BY_TECHNIQUE[0].0;
    let Verdict::Unique(grid) = solve(&cells(p)) else {
        panic!("the test puzzle is unique")
    };
    let mut one_hole = grid;
    one_hole[40] = 0;
    let r = Rater::new().rate(&one_hole).expect("valid");
    assert_eq!((r.technique, r.rating), (Technique::FullHouse, 10));
    let r = Rater::new().rate(&grid).expect("valid");
    assert_eq!((r.technique, r.rating), (Technique::None, 0));
}

#[test]
fn invalid_puzzles_are_errors() {
    let empty = [0u8; 81];
    assert_eq!(Rater::new().rate(&empty), Err(RateError::MultipleSolutions));
    let mut clash = cells(BY_TECHNIQUE[0].0);
    let at = clash.iter().position(|&v| v == 0).expect("an empty cell");
    let given = clash.iter().position(|&v| v != 0).expect("a given");
    clash[at] = clash[given];
    // The copy either clashes with its twin or leaves no solution.
    let r = Rater::new().rate(&clash);
    assert!(matches!(r, Err(RateError::NoSolution)), "{r:?}");
}

#[test]
fn clashing_givens_are_no_solution_even_when_the_singles_fill_the_grid() {
    let Verdict::Unique(grid) = solve(&cells(BY_TECHNIQUE[0].0)) else {
        panic!("the test puzzle is unique")
    };
    let mut clash = grid;
    clash[0] = clash[1];
    clash[40] = 0;
    assert_eq!(Rater::new().rate(&clash), Err(RateError::NoSolution));
}

/// Without steps to record, the rater places the singles between two other steps
/// in one go, and a puzzle the singles solve skips the solver: both give the rating
/// of the step-by-step path, the one `rate_with_steps` takes.
#[test]
fn the_singles_in_one_go_give_the_step_by_step_rating() {
    let qqwing = include_str!("../../../data/qqwing-10k.txt");
    let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
    let (mut rater, mut steps) = (Rater::new(), Vec::new());
    let mut by_singles = 0;
    for p in BY_TECHNIQUE
        .iter()
        .map(|&(p, _, _)| p)
        .chain(qqwing.lines().step_by(25))
    {
        let minimal = cells(p.trim());
        let Verdict::Unique(grid) = solve(&minimal) else {
            panic!("the test puzzle is unique")
        };
        // The puzzle, and easier ones: givens added from the solution.
        let mut puzzle = minimal;
        for _ in 0..4 {
            let g = Transform::random(&mut rng);
            let (p, solution) = (g.apply(&puzzle), g.apply(&grid));
            steps.clear();
            let stepwise = rater.rate_with_steps(&p, &mut steps).expect("valid");
            assert_eq!(rater.rate(&p), Ok(stepwise), "{p:?}");
            assert_eq!(rater.grid(), solution);
            assert_eq!(rate_solved(&p, &solution, u8::MAX), stepwise, "{p:?}");
            by_singles += usize::from(stepwise.rating <= 15);
            for _ in 0..8 {
                let empty: Vec<usize> = (0..81).filter(|&c| puzzle[c] == 0).collect();
                let c = empty[rand::Rng::random_range(&mut rng, 0..empty.len())];
                puzzle[c] = grid[c];
            }
        }
    }
    assert!(
        by_singles > 100,
        "only {by_singles} puzzles solved by singles"
    );
}

/// While only rating, a static chain step also applies the other static chains
/// rated no higher than the path's hardest step (free deductions, see the module's
/// documentation): the rating stays the step-by-step one. Puzzles of `se-rated.txt`
/// (line, SE's rating) whose rating moves when a step applies chains a few tenths
/// above that bound (checked by mutation), and line 8,975, rated 8.4 step by step,
/// which rated 8.7 when the static forcing chains took free deductions too.
#[test]
fn free_deductions_keep_the_step_by_step_rating() {
    let puzzles = [
        // 5,755 (6.9), 5,979 (7.0), 6,382 (7.2), 6,557 (7.3), 6,877 (7.4), 8,975 (8.7).
        "..8..5....6..2...5.75..1..2...3..9.873.....468.9..4...5..2..86.3...7..2....9..1..",
        "..2..836...1..........65..96.9...15.7...1...3.48...6.29..42..........9...136..4..",
        "9..1.2..74.......6.75.3.92...34691...5.....9.....2....8.1...7.4.4.....8....8.7...",
        "..6.4...3.4.37.1.27.....6..9...6.7.....1.4.....8.9...1..1.....52.7.59.1.6...1.8..",
        "9.......8.6..8531.....1.6....42....1.9.....7.3....15....9.4.....8762..5.2.......6",
        ".67..53.......2...5...3...8.8.4..9..17.....45..9..7.8.2...7...4...2.......31..89.",
    ];
    for p in puzzles {
        let (stepwise, steps) = rate_with_steps(p);
        assert!(
            steps
                .iter()
                .any(|s| s.rating >= 66 && s.rating <= stepwise.rating),
            "{p}: a chain step"
        );
        assert_eq!(rate(p), stepwise, "{p}");
    }
}

/// #2423 of mith's T&E(3) list, SE 11.7 (Denis Berthier's CSP-Rules-Examples,
/// `Sudoku/Tridagons/#2423-OR4FW7+OR2FgW2.clp`): its path meets a 9.5 dynamic
/// forcing chain and a 9.9 dynamic forcing chain (+) before the nested chains.
/// Regressions: it rated `9.5 dynamic-forcing-chain`, as if chains solved it (0.4.10),
/// then `9.9 beyond-implemented`, a lower bound (0.4.11).
#[test]
fn a_path_past_every_lower_level_rates_as_se_with_nested_chains() {
    let p = "...4..7.9.57.89.....9732....459...1.67....59.9.15..4...94..167...6...9.171..9....";
    let (rated, steps) = rate_with_steps(p);
    let nested = steps
        .iter()
        .position(|s| s.technique == Technique::NestedForcingChain)
        .expect("a nested chain");
    let before = &steps[..nested];
    assert!(before
        .iter()
        .any(|s| s.technique == Technique::DynamicForcingChain && s.rating == CEILING));
    assert!(before
        .iter()
        .any(|s| s.technique == Technique::DynamicForcingChainPlus && s.rating == 99));
    assert!(steps
        .iter()
        .all(|s| s.technique != Technique::BeyondImplemented));
    let expected = Rating {
        rating: 117,
        technique: Technique::NestedForcingChain,
    };
    assert_eq!(rated, expected);
    assert_eq!(rate(p), expected, "the fast path agrees");
}

/// A rating capped below SE's nested chains skips their search: the step the
/// lower levels cannot make rates above the cap ([`CEILING`], 9.5), as a nested
/// chain would.
#[test]
fn a_cap_below_the_nested_chains_stops_before_them() {
    let p = "..3..6....5718.....6........816...75.....8......5...68.7.....42...73.85..1.....97";
    let Verdict::Unique(grid) = solve(&cells(p)) else {
        panic!("the test puzzle is unique")
    };
    let capped = rate_solved(&cells(p), &grid, 94);
    assert_eq!(
        capped,
        Rating {
            rating: CEILING,
            technique: Technique::BeyondImplemented
        }
    );
}

/// The rater's highest rating is SE's highest nesting level (11.0) with the length
/// increment of the longest conclusion the rater counts (`u32::MAX` nodes).
/// `--bands` refuses a rating band above it.
#[test]
fn the_highest_rating_is_the_longest_top_level_chain() {
    assert_eq!(
        HIGHEST,
        110 + crate::engine::rating::chains::length_increment(u32::MAX as usize - 2)
    );
    assert_eq!(HIGHEST, 170);
}

/// A capped rating is the rating when it is at most the cap, and above the cap
/// when the rating is.
#[test]
fn a_capped_rating_is_exact_up_to_the_cap_and_above_it_beyond() {
    for &(p, _, rating) in BY_TECHNIQUE {
        let Verdict::Unique(grid) = solve(&cells(p)) else {
            panic!("the test puzzle is unique")
        };
        let full = rate(p);
        for cap in [10, 15, 25, 40, 55, 70, 85] {
            let capped = rate_solved(&cells(p), &grid, cap);
            if rating <= cap {
                assert_eq!(capped, full, "{p} capped at {cap}");
            } else {
                assert!(
                    capped.rating > cap && capped.rating <= rating,
                    "{p}: {capped:?} at {cap}"
                );
            }
        }
    }
}

#[test]
fn steps_name_every_placement_and_end_on_the_solution() {
    // Every technique's steps are sound: no elimination removes the solution's
    // digit and every placement is the solution's (the rater would silently skip
    // an unsound deduction, so only the steps show it).
    let mut rater = Rater::new();
    let mut steps = Vec::new();
    for &(p, technique, rating) in BY_TECHNIQUE {
        steps.clear();
        let r = rater.rate_with_steps(&cells(p), &mut steps).expect("valid");
        assert_eq!(steps.iter().map(|s| s.rating).max(), Some(r.rating), "{p}");
        let n_empty = cells(p).iter().filter(|&&v| v == 0).count();
        let n_placed: usize = steps.iter().map(|s| s.placements.len()).sum();
        assert_eq!(n_placed, n_empty, "{p}");
        let Verdict::Unique(grid) = solve(&cells(p)) else {
            panic!("the test puzzle is unique")
        };
        for s in &steps {
            for &(c, d) in &s.placements {
                assert_eq!(grid[c as usize], d, "{p}: {}", s.technique.name());
            }
            for &(c, d) in &s.eliminations {
                assert_ne!(
                    grid[c as usize],
                    d,
                    "{p}: {} removed the solution",
                    s.technique.name()
                );
            }
        }
        // The hardest step names its pattern's cells (chains may not).
        if rating < 60 && technique != Technique::None {
            assert!(
                steps
                    .iter()
                    .any(|s| s.technique == technique && !s.cells.is_empty()),
                "{p}: {} names no cells",
                technique.name()
            );
        }
    }
}

#[test]
fn length_increment_follows_se_bounds() {
    use chains::length_increment as inc;
    assert_eq!(
        [inc(4), inc(5), inc(6), inc(7), inc(8), inc(9)],
        [0, 1, 1, 2, 2, 3]
    );
    assert_eq!(
        [inc(12), inc(13), inc(16), inc(17), inc(24), inc(25)],
        [3, 4, 4, 5, 5, 6]
    );
}

#[test]
fn technique_names_are_kebab_case() {
    for &(_, t, _) in BY_TECHNIQUE {
        let n = t.name();
        assert!(
            n.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{n}"
        );
    }
    assert_eq!(rate(BY_TECHNIQUE[4].0).to_string(), "2.3");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A rating is a property of the puzzle's class: every symmetry keeps it. (Up to
    /// the static chains: a dynamic chain's length depends on the order its nodes are
    /// discovered in, as in SE, so nishio and dynamic chains are left out.)
    #[test]
    fn rating_is_invariant_under_the_symmetry_group(i in 0..BY_TECHNIQUE.len(), seed: u64) {
        let (p, t, _) = BY_TECHNIQUE[i];
        prop_assume!(!matches!(
            t,
            Technique::Nishio | Technique::DynamicForcingChain | Technique::NestedForcingChain
        ));
        let g = Transform::random(&mut rand_pcg::Pcg64::seed_from_u64(seed));
        let mut rater = Rater::new();
        let a = rater.rate(&cells(p)).expect("valid");
        let b = rater.rate(&g.apply(&cells(p))).expect("valid");
        prop_assert_eq!(a.rating, b.rating);
    }

    /// The rater's path ends on the solver's solution.
    #[test]
    fn the_rater_ends_on_the_solution(i in 0..BY_TECHNIQUE.len(), seed: u64) {
        let (p, _, _) = BY_TECHNIQUE[i];
        let g = Transform::random(&mut rand_pcg::Pcg64::seed_from_u64(seed));
        let puzzle = g.apply(&cells(p));
        let mut rater = Rater::new();
        rater.rate(&puzzle).expect("valid");
        let Verdict::Unique(grid) = solve(&puzzle) else {
            panic!("a transformed unique puzzle is unique")
        };
        prop_assert_eq!(rater.grid(), grid);
    }
}

/// BUG type 4: two BUG cells in one unit whose one common digit besides the extras
/// has no other place there; each loses its other digit. The pattern names the unit.
#[test]
fn a_bug_type_4_keeps_the_common_digit_and_the_extras() {
    let p = "4.......6.12...74.3.......52..314..95.97.24.8..........5..4..2...6.8.5..7..9.5..1";
    let (r, steps) = rate_with_steps(p);
    assert_eq!((r.technique, r.rating), (Technique::Bug, 57));
    let step = steps
        .iter()
        .find(|s| s.technique == Technique::Bug)
        .expect("a BUG step");
    let type_4: Vec<_> = step.patterns.iter().filter(|p| p.houses != 0).collect();
    assert!(!type_4.is_empty(), "{:?}", step.patterns);
    for pattern in type_4 {
        let [c1, c2] = pattern.cells[..] else {
            panic!("two BUG cells: {pattern:?}")
        };
        let unit = pattern.houses.trailing_zeros() as usize;
        assert_eq!(pattern.houses.count_ones(), 1);
        let mask = super::tables::UNIT_MASK[unit];
        assert!(mask >> c1 & 1 == 1 && mask >> c2 & 1 == 1);
        // One digit goes from each cell, and both keep a common one.
        let gone = |c: u8| pattern.eliminations.iter().filter(|e| e.0 == c).count();
        assert_eq!((gone(c1), gone(c2)), (1, 1), "{pattern:?}");
        let left = |c: u8| {
            let mut m = step.candidates[c as usize];
            for &(e, d) in &pattern.eliminations {
                if e == c {
                    m &= !(1 << (d - 1));
                }
            }
            m
        };
        assert_ne!(left(c1) & left(c2), 0, "{pattern:?}");
    }
}

#[test]
fn technique_names_round_trip_and_all_lists_every_technique_once() {
    // Strictly increasing in declaration order from the first variant to the last:
    // with as many entries as the enum has variants, none is missing.
    assert!(Technique::ALL.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(Technique::ALL[0], Technique::None);
    assert_eq!(Technique::ALL[40], Technique::BeyondImplemented);
    for &t in Technique::ALL {
        assert_eq!(Technique::from_name(t.name()), Some(t));
    }
    assert_eq!(Technique::from_name("x_wing"), None);
    let r = Rating::parse("2.3", "naked-single").unwrap();
    assert_eq!((r.rating, r.technique), (23, Technique::NakedSingle));
    assert_eq!(r.to_string(), "2.3");
    for bad in [
        ("2.34", "x-wing"),
        ("23", "x-wing"),
        (".3", "x-wing"),
        ("2.3", "wing"),
        ("99.9", "aic"),
        ("-1.0", "aic"),
    ] {
        assert_eq!(Rating::parse(bad.0, bad.1), None, "{bad:?}");
    }
}

/// The puzzles whose rating paths the step-for-step tests compare: those by
/// technique, then every `every`-th of `qqwing-10k.txt`.
fn path_puzzles(every: usize) -> impl Iterator<Item = &'static str> {
    let qqwing = include_str!("../../../data/qqwing-10k.txt");
    (BY_TECHNIQUE.iter().map(|&(p, _, _)| p)).chain(qqwing.lines().step_by(every))
}

/// WXYZ-wings found by their digits are SE's-order wings in another order: on
/// every board of the rating paths of a tenth of the test puzzles, with every cell
/// changed and with a pseudo-random half of them, both searches give the same
/// lowest rating and the same eliminations.
#[test]
fn wxyz_wings_by_digits_are_the_wings_in_another_order() {
    let mut found = Rater::new().found;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let (mut compared, mut with_wings) = (0, 0);
    each_path_board(10, |b, _| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let half = u128::from(state) | u128::from(state.rotate_left(29)) << 64;
        for fresh in [b.empty, b.empty & half] {
            let outcomes = [false, true].map(|by_digits| {
                found.clear();
                let best = if by_digits {
                    basic::wing4_by_digits(b, &mut found, 55, fresh)
                } else {
                    basic::wing(b, &mut found, 4, 55, fresh)
                };
                let mut elims = found.elims.clone();
                elims.sort_unstable();
                elims.dedup();
                (best, elims)
            });
            assert_eq!(outcomes[0], outcomes[1]);
            compared += 1;
            with_wings += usize::from(outcomes[0].0 != u8::MAX);
        }
    });
    assert!(
        compared > 5000 && with_wings > 100,
        "{compared} boards, {with_wings} with wings"
    );
}

/// The finders' memo (units, digits, wing pivots, and the wings, loops and triplets
/// of cells skipped while unchanged since the finder last found nothing) changes no
/// step, nor do the digits the one-digit finders skip for want of a place no template
/// uses: the rater, memo carried across steps and puzzles, takes the path of one that
/// forgets it before every step and skips no digit.
#[test]
fn the_memo_changes_no_step() {
    let puzzles = path_puzzles(100);
    let (mut rater, mut forgetful) = (Rater::new(), Rater::new());
    let mut steps = Vec::new();
    let mut compared = 0;
    for p in puzzles {
        let p = cells(p.trim());
        steps.clear();
        rater.rate_with_steps(&p, &mut steps).expect("valid");
        let Verdict::Unique(solution) = solve(&p) else {
            panic!("the test puzzle is unique")
        };
        let r = &mut forgetful;
        // Recording, as the steps were: while only rating, a finder may list its
        // instances in another order (the WXYZ-wings by digits).
        r.found.record = true;
        r.board.load(&p);
        for (i, step) in steps.iter().enumerate() {
            r.memo = basic::Memo::default();
            r.memo.templates.off = true;
            r.memo.fillings.off = true;
            r.found.clear();
            if !r.find(&solution, false, true) {
                r.fallback(&solution);
            }
            assert!(r.apply(&solution), "step {i} made no progress");
            let f = &r.found;
            // As a step lists them: each once.
            let plus_one =
                |v: &[(u8, u8)]| super::first_of_each(v.iter().map(|&(c, d)| (c, d + 1)));
            assert_eq!(
                (
                    f.technique,
                    f.rating,
                    &super::first_of_each(f.cells.iter().copied())
                ),
                (step.technique, step.rating, &step.cells),
                "step {i}"
            );
            assert_eq!(plus_one(&f.placements), step.placements, "step {i}");
            assert_eq!(plus_one(&f.elims), step.eliminations, "step {i}");
            compared += 1;
        }
        assert_eq!(r.board.empty, 0, "the paths have the same length");
    }
    assert!(compared > 1000, "only {compared} steps compared");
}

/// The levels from nishio up count a conclusion's ancestors only as far as a tie
/// with the best so far allows: that changes no step. The puzzles of
/// `qqwing-10k.txt` and those by technique are rated with and without the limit,
/// steps and all.
#[test]
fn the_counting_limit_changes_no_step() {
    let puzzles = path_puzzles(1);
    let (mut limited, mut exact) = (Rater::new(), Rater::new());
    exact.chains.exact = true;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut chained = 0;
    for p in puzzles {
        let p = cells(p.trim());
        a.clear();
        b.clear();
        let r = limited.rate_with_steps(&p, &mut a).expect("valid");
        assert_eq!(exact.rate_with_steps(&p, &mut b).expect("valid"), r);
        assert!(a == b, "{p:?}");
        chained += usize::from(r.rating >= 75);
    }
    assert!(
        chained > 150,
        "only {chained} puzzles reach nishio or above"
    );
}

/// The boards along the rating paths of `path_puzzles(every)`: the givens, then the
/// board after each step; with the puzzle's solution.
fn each_path_board(every: usize, mut f: impl FnMut(&Pencilmarks, &Cells)) {
    let mut board = Pencilmarks::new();
    let mut steps = Vec::new();
    for p in path_puzzles(every) {
        let p = cells(p.trim());
        steps.clear();
        Rater::new().rate_with_steps(&p, &mut steps).expect("valid");
        let Verdict::Unique(solution) = solve(&p) else {
            panic!("the test puzzle is unique")
        };
        board.load(&p);
        for step in &steps {
            f(&board, &solution);
            for &(c, d) in &step.placements {
                board.place(c as usize, d as usize - 1);
            }
            for &(c, d) in &step.eliminations {
                board.eliminate(c as usize, d as usize - 1);
            }
        }
    }
}

/// The places of `d` no template uses, by trying every template: row by row, a
/// place (or where d stands) in a column and a box no earlier row took.
fn template_misses_by_search(b: &Pencilmarks, d: usize) -> u128 {
    fn rows(
        b: &Pencilmarks,
        d: usize,
        r: usize,
        cols: u32,
        boxes: u32,
        path: u128,
        used: &mut u128,
    ) {
        if r == 9 {
            *used |= path;
            return;
        }
        for c in 0..9 {
            let cell = 9 * r + c;
            let bx = 3 * (r / 3) + c / 3;
            let open = b.pos[d] >> cell & 1 != 0 || b.value[cell] as usize == d + 1;
            if open && cols >> c & 1 == 0 && boxes >> bx & 1 == 0 {
                rows(
                    b,
                    d,
                    r + 1,
                    cols | 1 << c,
                    boxes | 1 << bx,
                    path | 1 << cell,
                    used,
                );
            }
        }
    }
    let mut used = 0;
    rows(b, d, 0, 0, 0, 0, &mut used);
    b.pos[d] & !used
}

/// Aligned triplet exclusion by trying every choice: for any three cells of two
/// candidates or more, one of which has at most three and sees another, with two
/// excluders or more (cells of two or three candidates that see all three), each
/// cell's values that no choice of the three allows, where two cells sharing a
/// unit differ and every excluder keeps a candidate.
fn aligned_by_search(b: &Pencilmarks) -> Vec<(u8, u8)> {
    let sees = |x: usize, y: usize| PEERS[x] >> y & 1 != 0;
    let small = |c: usize| (2..=3).contains(&b.cand[c].count_ones());
    let excluders = (0..81).filter(|&c| small(c)).fold(0u128, |m, c| m | 1 << c);
    let cells: Vec<usize> = (0..81).filter(|&c| b.cand[c].count_ones() >= 2).collect();
    let mut out = Vec::new();
    for (i, &a) in cells.iter().enumerate() {
        for (j, &bb) in cells.iter().enumerate().skip(i + 1) {
            for &c in &cells[j + 1..] {
                let common = PEERS[a] & PEERS[bb] & PEERS[c] & excluders;
                let joined = |x: usize, y: usize, z: usize| small(x) && (sees(x, y) || sees(x, z));
                if common.count_ones() < 2
                    || !(joined(a, bb, c) || joined(bb, a, c) || joined(c, a, bb))
                {
                    continue;
                }
                let mut ok = [0u16; 3];
                for va in Bits(b.cand[a] as u32) {
                    for vb in Bits(b.cand[bb] as u32) {
                        for vc in Bits(b.cand[c] as u32) {
                            let same = |x, y, vx, vy| sees(x, y) && vx == vy;
                            if same(a, bb, va, vb) || same(a, c, va, vc) || same(bb, c, vb, vc) {
                                continue;
                            }
                            let taken = 1u16 << va | 1 << vb | 1 << vc;
                            if Cells128(common).any(|e| b.cand[e] & !taken == 0) {
                                continue;
                            }
                            ok[0] |= 1 << va;
                            ok[1] |= 1 << vb;
                            ok[2] |= 1 << vc;
                        }
                    }
                }
                for (x, ok) in [a, bb, c].into_iter().zip(ok) {
                    out.extend(Bits((b.cand[x] & !ok) as u32).map(|d| (x as u8, d as u8)));
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// [`basic::aligned_triplets`] removes exactly what trying every choice of every
/// triplet does: its shortcuts (excluders holding a digit none of the three holds
/// left out, the count of values no excluder holds) skip only triplets that rule
/// nothing out.
#[test]
fn aligned_triplets_remove_what_no_choice_of_the_three_allows() {
    let (mut boards, mut removing, mut removed) = (0, 0, 0);
    let mut rater = Rater::new();
    each_path_board(100, |b, _| {
        let f = &mut rater.found;
        f.clear();
        basic::aligned_triplets(b, f, &mut memo::CellMemo::default());
        let mut got = f.elims.clone();
        got.sort_unstable();
        got.dedup();
        assert_eq!(got, aligned_by_search(b));
        boards += 1;
        removing += usize::from(!got.is_empty());
        removed += got.len();
    });
    assert!(
        boards > 1000 && removing > 20,
        "{boards} boards, {removing} with eliminations ({removed})"
    );
}

/// The template filter is exact where it matters: [`basic::template_misses`] is what
/// trying every template gives, and every elimination of the one-digit finders (fish,
/// turbot fish, empty rectangles, three strong links, grouped or not) is among its
/// places, so a digit without any has nothing for them (the law behind
/// [`basic::skip_template_free`]).
#[test]
fn one_digit_deductions_remove_only_places_no_template_uses() {
    let (mut boards, mut missed, mut checked) = (0, 0, 0);
    let mut rater = Rater::new();
    each_path_board(200, |b, _| {
        boards += 1;
        let misses: Vec<u128> = (0..9).map(|d| basic::template_misses(b, d)).collect();
        for (d, &m) in misses.iter().enumerate() {
            assert_eq!(m, template_misses_by_search(b, d), "digit {d}");
            missed += usize::from(m != 0);
        }
        let f = &mut rater.found;
        for finder in 0..5 {
            f.clear();
            let mut memo = [u64::MAX; 9];
            match finder {
                0..=2 => basic::fish(b, f, finder + 2, &mut memo),
                3 => basic::turbot(b, f, &mut memo),
                _ => basic::three_links(b, f, &mut memo),
            };
            for &(c, d) in &f.elims {
                assert!(misses[d as usize] >> c & 1 != 0, "finder {finder}: {c} {d}");
                checked += 1;
            }
        }
    });
    assert!(
        boards > 1000 && missed > 100 && checked > 100,
        "{boards} boards, {missed} digits with misses, {checked} eliminations"
    );
}

/// Whether some filling of unit `u` (its missing digits one per empty cell, among
/// the cells' candidates) uses each candidate of its empty cells, by trying every
/// filling.
fn every_candidate_fills_by_search(b: &Pencilmarks, u: usize) -> bool {
    fn fill(
        b: &Pencilmarks,
        cells: &[usize],
        taken: u16,
        digits: &mut Vec<usize>,
        used: &mut [u16],
    ) {
        let i = digits.len();
        if i == cells.len() {
            for (used, &d) in used.iter_mut().zip(digits.iter()) {
                *used |= 1 << d;
            }
            return;
        }
        for d in 0..9 {
            if b.cand[cells[i]] >> d & 1 != 0 && taken >> d & 1 == 0 {
                digits.push(d);
                fill(b, cells, taken | 1 << d, digits, used);
                digits.pop();
            }
        }
    }
    let cells: Vec<usize> = super::tables::UNIT_CELLS[u]
        .iter()
        .map(|&c| c as usize)
        .filter(|&c| b.empty >> c & 1 != 0)
        .collect();
    let mut used = vec![0u16; cells.len()];
    fill(b, &cells, 0, &mut Vec::new(), &mut used);
    cells.iter().zip(&used).all(|(&c, &u)| u == b.cand[c])
}

/// The unit filter is exact where it matters: [`basic::every_candidate_fills`] is
/// what trying every filling gives, and every naked or hidden set (direct or not)
/// lives in a unit where some candidate is in no filling, so a unit without one has
/// nothing for them (the law behind [`basic::skip_filled_units`]).
#[test]
fn subsets_live_only_in_units_with_a_candidate_no_filling_uses() {
    let (mut units, mut loose, mut checked) = (0, 0, 0);
    let mut rater = Rater::new();
    rater.found.record = true;
    each_path_board(200, |b, solution| {
        let fills: Vec<bool> = (0..27)
            .map(|u| basic::every_candidate_fills(b, solution, u))
            .collect();
        for (u, &all) in fills.iter().enumerate() {
            assert_eq!(all, every_candidate_fills_by_search(b, u), "unit {u}");
            units += 1;
            loose += usize::from(!all);
        }
        let f = &mut rater.found;
        for finder in 0..8 {
            f.clear();
            f.patterns.clear();
            let mut memo = [u64::MAX; 27];
            match finder {
                0 | 1 => basic::hidden_set(b, f, finder + 2, true, &mut memo),
                2..=4 => basic::hidden_set(b, f, finder, false, &mut memo),
                _ => basic::naked_set(b, f, finder - 3, &mut memo),
            };
            for p in &f.patterns {
                assert_eq!(p.houses.count_ones(), 1, "finder {finder}");
                let u = p.houses.trailing_zeros() as usize;
                assert!(!fills[u], "finder {finder}: unit {u}");
                checked += 1;
            }
        }
    });
    assert!(
        units > 20_000 && loose > 1000 && checked > 100,
        "{units} units, {loose} with a candidate no filling uses, {checked} sets"
    );
}

/// Locked candidates by their definition: (pointing, claiming) for a digit with
/// places `pos`, unit by unit.
fn locked_places_by_units(pos: u128) -> (bool, bool) {
    use tables::{BOXES, CELL_UNITS, COLS, ROWS, UNIT_MASK};
    let confined = |p: u128, outer: usize, inner: usize| {
        p != 0 && p & UNIT_MASK[inner] == p && pos & UNIT_MASK[inner] & !UNIT_MASK[outer] != 0
    };
    let lines_of = |p: u128| {
        let c = p.trailing_zeros() as usize % 81;
        [CELL_UNITS[c][0] as usize, CELL_UNITS[c][1] as usize]
    };
    let pointing = BOXES.into_iter().any(|bx| {
        let p = pos & UNIT_MASK[bx];
        lines_of(p).into_iter().any(|line| confined(p, bx, line))
    });
    let claiming = ROWS.chain(COLS).any(|line| {
        let p = pos & UNIT_MASK[line];
        let bx = CELL_UNITS[p.trailing_zeros() as usize % 81][2] as usize;
        confined(p, line, bx)
    });
    (pointing, claiming)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// [`basic::locked_places`], every segment at once, says what searching the
    /// units says, on sets of places from dense to a handful.
    #[test]
    fn locked_places_are_the_units_locked_candidates(
        sets in proptest::array::uniform4(any::<u128>()),
        keep in 1..5usize,
    ) {
        let pos = sets[..keep].iter().fold((1u128 << 81) - 1, |acc, s| acc & s);
        prop_assert_eq!(basic::locked_places(pos), locked_places_by_units(pos), "{:#x}", pos);
    }
}
