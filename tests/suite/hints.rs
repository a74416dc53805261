//! Hints an app can follow: `grade --steps --json --candidates` gives, for every
//! step, its patterns (houses, digits, cells, conclusions, chains) and the board
//! before it. These tests check, with their own reading of the rules and nothing
//! of the rater's code, that each stated pattern justifies each stated conclusion
//! on the stated candidate grid: hidden pairs, XY-wings, aligned triplet exclusions,
//! and every chain (X-chains, AICs, nishio, static and dynamic forcing chains) node
//! by node.

use serde_json::Value;

use crate::common::factory;

/// Puzzles of `se-rated.txt` whose paths take, among others, a hidden pair, an
/// XY-wing, an X-chain, an AIC, an XY-chain, an aligned triplet exclusion, a nishio, a
/// static and a dynamic forcing chain; and one (SE 9.5, from Denis Berthier's
/// CSP-Rules examples) that takes dynamic forcing chains (+), and one (SE 11.7) that
/// takes nested forcing chains.
const PUZZLES: &[&str] = &[
    "..267.....4.1..37..7...4..1..72.9.582.......495.4.17..8..7...9..95..3.6.....568..",
    "87.....39.53...27....3.5......682......1.3...2.9.4.3.8.8.7.9.5.1.7...8.3.2..3..4.",
    "..7.4...2......3...643.5..7.9...7..8..54.67..6..8...3.7..1.459...9......1...9.8..",
    "79..6.....4..29..7..6.....4......9.2..79.14..8.9......6.....5..4..35..7.....7..16",
    "....3..1..4.58.6...65.....8....6...1..19.27..4...5....6.....42...8.17.6..5..2....",
    "8..1..2.5.1..4..9.6....9.....93.7..1.5.....2.2..4.53.....5....7.2..8..5.5.6..1..2",
    "..57...1.....295..83.4............69..92173..34............5.31..139.....7...29..",
    ".5.1.9.4.2..7.5..6..93.68...8.....2...6...4...........56.8.2.1431.....87....7....",
    "9.......1.583.497..1..7..6...5...7..83.....45..1...6....6.3.8...2.1.6.3....7.5...",
    // Since 0.4.7 grouped strong links take two of the paths above elsewhere: an
    // X-chain and a dynamic forcing chain of their own.
    ".8.6...3.4.....5.6..2..5...6...73...83..6..71...98...4...4..6..1.3.....7.4...9.8.",
    "...8.5...4...1...6....7......9.8.1.....5.1....31.4.75.1..7.8..3..6...2...27...91.",
    // Since 0.4.8: an aligned triplet exclusion, and an XY-chain (a BUG type 3 took
    // the path of the one above elsewhere).
    ".7.....8.1.......49..158..3...286.....34.92...6.3.5.9.6..8.1..9.1.....3...7.2.6..",
    "3..75..622....3..8.581........6.94......4......92.5........782.8..9....757..62..1",
    ".8.4.5....12.3...........6.3....4..7.6.7...5.7...8...9......1......9.2.....3.6...",
    // SE 11.7 (eleven's Imp630 #350): nested forcing chains, whose propagations nest
    // static and dynamic chains.
    "..3..6....5718.....6........816...75.....8......5...68.7.....42...73.85..1.....97",
];

/// The board before a step, as the JSON gives it.
struct Board {
    /// Candidate digits per cell, bit `d` for digit `d` (1..=9).
    cand: Vec<u16>,
}

fn row(c: usize) -> usize {
    c / 9
}
fn col(c: usize) -> usize {
    c % 9
}
fn boxx(c: usize) -> usize {
    c / 27 * 3 + c % 9 / 3
}
fn sees(a: usize, b: usize) -> bool {
    a != b && (row(a) == row(b) || col(a) == col(b) || boxx(a) == boxx(b))
}

/// The cells of a house object `{"kind", "number"}`.
fn house_cells(h: &Value) -> Vec<usize> {
    let n = h["number"].as_u64().unwrap() as usize - 1;
    let kind = h["kind"].as_str().unwrap();
    (0..81)
        .filter(|&c| match kind {
            "row" => row(c) == n,
            "column" => col(c) == n,
            "box" => boxx(c) == n,
            other => panic!("unknown house kind {other}"),
        })
        .collect()
}

fn numbers(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

fn pairs(v: &Value) -> Vec<(usize, usize)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_u64().unwrap() as usize,
                p[1].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

impl Board {
    fn from_step(step: &Value) -> Board {
        let cand = step["candidates"]
            .as_array()
            .expect("--candidates gives the candidates")
            .iter()
            .map(|s| {
                s.as_str()
                    .unwrap()
                    .bytes()
                    .fold(0u16, |m, b| m | 1 << (b - b'0'))
            })
            .collect::<Vec<_>>();
        assert_eq!(cand.len(), 81);
        Board { cand }
    }

    fn has(&self, c: usize, d: usize) -> bool {
        self.cand[c] >> d & 1 != 0
    }

    fn digits(&self, c: usize) -> Vec<usize> {
        (1..=9).filter(|&d| self.has(c, d)).collect()
    }
}

/// A hidden pair: two digits whose only places in the house are the two cells;
/// the cells' other digits go.
fn check_hidden_pair(board: &Board, p: &Value) {
    let houses = p["houses"].as_array().unwrap();
    assert_eq!(houses.len(), 1, "a hidden pair lives in one house: {p}");
    let house = house_cells(&houses[0]);
    let digits = numbers(&p["digits"]);
    let cells = numbers(&p["cells"]);
    assert_eq!((digits.len(), cells.len()), (2, 2), "{p}");
    for &c in &cells {
        assert!(house.contains(&c), "{c} is not in the house: {p}");
    }
    for &d in &digits {
        let places: Vec<usize> = house.iter().copied().filter(|&c| board.has(c, d)).collect();
        assert_eq!(places, cells, "digit {d}'s places in the house: {p}");
    }
    assert!(p["placements"].as_array().unwrap().is_empty());
    let elims = pairs(&p["eliminations"]);
    assert!(!elims.is_empty());
    for (c, d) in elims {
        assert!(
            cells.contains(&c) && !digits.contains(&d) && board.has(c, d),
            "{p}"
        );
    }
}

/// An XY-wing: a bivalue pivot {x, y} seeing bivalue pincers {x, z} and {y, z};
/// z goes from every cell seeing both pincers.
fn check_xy_wing(board: &Board, p: &Value) {
    let cells = numbers(&p["cells"]);
    assert_eq!(cells.len(), 3, "{p}");
    let elims = pairs(&p["eliminations"]);
    assert!(!elims.is_empty());
    let wing = (0..3).find_map(|i| {
        let pivot = cells[i];
        let (a, b) = (cells[(i + 1) % 3], cells[(i + 2) % 3]);
        let (pv, av, bv) = (board.digits(pivot), board.digits(a), board.digits(b));
        if pv.len() != 2 || av.len() != 2 || bv.len() != 2 || !sees(pivot, a) || !sees(pivot, b) {
            return None;
        }
        let z: Vec<usize> = av.iter().copied().filter(|d| bv.contains(d)).collect();
        let (x, y) = (pv[0], pv[1]);
        let fits = z.len() == 1
            && !pv.contains(&z[0])
            && (av.contains(&x) && bv.contains(&y) || av.contains(&y) && bv.contains(&x));
        fits.then_some((a, b, z[0]))
    });
    let (a, b, z) = wing.unwrap_or_else(|| panic!("no XY-wing in these cells: {p}"));
    for (c, d) in elims {
        assert!(d == z && sees(c, a) && sees(c, b) && board.has(c, d), "{p}");
    }
}

/// An aligned triplet exclusion: three cells, then two or more excluders (cells of
/// two or three candidates that see all three); each eliminated digit of a cell of
/// the three has no choice of values for the three with it that is allowed: none
/// where two of them sharing a house take one digit or an excluder keeps no
/// candidate.
fn check_aligned_triplet(board: &Board, p: &Value) {
    let cells = numbers(&p["cells"]);
    let (base, excluders) = cells.split_at(3);
    assert!(excluders.len() >= 2, "{p}");
    for &e in excluders {
        let n = board.digits(e).len();
        assert!(
            (2..=3).contains(&n) && base.iter().all(|&c| sees(e, c)),
            "{p}"
        );
    }
    let allowed = |v: [usize; 3]| {
        let clash = (0..3).any(|i| (i + 1..3).any(|j| v[i] == v[j] && sees(base[i], base[j])));
        let starved = excluders
            .iter()
            .any(|&e| board.digits(e).iter().all(|d| v.contains(d)));
        !clash && !starved
    };
    let elims = pairs(&p["eliminations"]);
    assert!(!elims.is_empty(), "{p}");
    for (c, d) in elims {
        let i = base
            .iter()
            .position(|&b| b == c)
            .expect("a cell of the three");
        assert!(board.has(c, d), "{p}");
        for x in board.digits(base[(i + 1) % 3]) {
            for y in board.digits(base[(i + 2) % 3]) {
                let mut v = [0; 3];
                (v[i], v[(i + 1) % 3], v[(i + 2) % 3]) = (d, x, y);
                assert!(!allowed(v), "{d} in cell {c} with {v:?} is allowed: {p}");
            }
        }
    }
}

/// A chain: every node a candidate of the board, implied by the nodes it names
/// through the link it names; a contradiction branch holds a candidate both on and
/// off, a forcing chain's branches cover every case and each reaches the
/// conclusion. Returns the digits of its nodes.
fn check_chain(board: &Board, p: &Value) -> Vec<usize> {
    let chain = &p["chain"];
    let branches = chain["branches"].as_array().expect("a chain has branches");
    let placements = pairs(&p["placements"]);
    let elims = pairs(&p["eliminations"]);
    assert_eq!(placements.len() + elims.len(), 1, "one conclusion: {p}");
    let (conclusion, placed) = match placements.first() {
        Some(&c) => (c, true),
        None => (elims[0], false),
    };
    let mut assumptions = Vec::new();
    let mut digits = Vec::new();
    let mut reached = Vec::new();
    for branch in branches {
        let nodes: Vec<(usize, usize, bool)> = branch
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["cell"].as_u64().unwrap() as usize,
                    n["digit"].as_u64().unwrap() as usize,
                    n["on"].as_bool().unwrap(),
                )
            })
            .collect();
        let mut assumed = None;
        for (i, n) in branch.as_array().unwrap().iter().enumerate() {
            let (c, d, on) = nodes[i];
            assert!(
                board.has(c, d),
                "node r{}c{} {d} is no candidate",
                row(c) + 1,
                col(c) + 1
            );
            digits.push(d);
            let from = numbers(&n["from"]);
            assert!(from.iter().all(|&j| j < i), "a node comes after its causes");
            let from: Vec<(usize, usize, bool)> = from.iter().map(|&j| nodes[j]).collect();
            let link = &n["link"];
            if link == "assumed" {
                assert!(
                    from.is_empty() && assumed.is_none(),
                    "one assumption per branch"
                );
                assumed = Some((c, d, on));
                continue;
            }
            if let Some(rule) = link.get("rule") {
                // Off through a rule of dynamic forcing chains (+): its causes are
                // the candidates whose going made the pattern.
                assert!(!on && !from.is_empty(), "{n}");
                assert!(from.iter().all(|&(_, _, fon)| !fon), "{n}");
                let mut left = board.cand.clone();
                for &(fc, fd, _) in &from {
                    left[fc] &= !(1 << fd);
                }
                let rule = rule.as_str().unwrap();
                if NESTED.contains(&rule) {
                    // A whole chain of the nested search, on the board its causes
                    // (the candidates whose going made its links) left: the node is
                    // one of its candidates.
                    assert!(left[c] >> d & 1 != 0, "{rule} off {n}");
                } else {
                    assert!(rule_removes(&left, rule, (c, d)), "{rule} off {n}");
                }
                continue;
            }
            let house = link.is_object().then(|| house_cells(link));
            if !on {
                // Off: an on node in the same cell, or of the same digit in the house.
                assert_eq!(from.len(), 1, "an off node has one cause: {n}");
                let (fc, fd, fon) = from[0];
                assert!(fon, "an off node follows from an on node: {n}");
                match &house {
                    None => assert!(link == "cell" && fc == c && fd != d, "{n}"),
                    Some(h) => assert!(fd == d && fc != c && h.contains(&c) && h.contains(&fc)),
                }
            } else {
                // On: every other candidate of the cell, or place of the digit in the
                // house, is off among its causes.
                let mut others: Vec<(usize, usize, bool)> = match &house {
                    None => {
                        assert_eq!(link, "cell");
                        (1..=9)
                            .filter(|&e| e != d && board.has(c, e))
                            .map(|e| (c, e, false))
                            .collect()
                    }
                    Some(h) => h
                        .iter()
                        .filter(|&&q| q != c && board.has(q, d))
                        .map(|&q| (q, d, false))
                        .collect(),
                };
                let mut causes = from.clone();
                others.sort();
                causes.sort();
                assert_eq!(causes, others, "an on node's causes are the rest: {n}");
            }
        }
        let assumed = assumed.expect("every branch starts from an assumption");
        assumptions.push(assumed);
        if chain["kind"] == "contradiction" {
            let clash = nodes
                .iter()
                .any(|&(c, d, on)| on && nodes.contains(&(c, d, false)));
            assert!(clash, "a contradiction branch holds a node on and off: {p}");
            // The assumption is the conclusion's opposite.
            assert_eq!((assumed.0, assumed.1), conclusion);
            assert_eq!(assumed.2, !placed);
        } else {
            assert_eq!(chain["kind"], "forcing");
            reached.push(nodes.contains(&(conclusion.0, conclusion.1, placed)));
        }
    }
    if chain["kind"] == "forcing" {
        assert!(
            reached.iter().all(|&r| r),
            "every branch reaches the conclusion: {p}"
        );
        assumptions.sort();
        assert!(
            covers_every_case(board, &assumptions),
            "the cases: {assumptions:?}"
        );
    } else {
        assert_eq!(branches.len(), 1);
    }
    digits
}

/// The chains a nested forcing chain's propagations search (a node they remove
/// names one as its rule).
const NESTED: &[&str] = &[
    "x-chain",
    "xy-chain",
    "aic",
    "forcing-chain",
    "dynamic-forcing-chain",
    "dynamic-forcing-chain-plus",
    "nested-forcing-chain",
];

/// Whether `rule` (pointing, claiming, hidden pair, naked pair, X-wing) on the
/// candidates `cand` (bit `d` for digit `d`) removes digit `d` from cell `c`.
fn rule_removes(cand: &[u16], rule: &str, (c, d): (usize, usize)) -> bool {
    let houses: Vec<Vec<usize>> = (0..9)
        .map(|n| (0..81).filter(|&q| row(q) == n).collect())
        .chain((0..9).map(|n| (0..81).filter(|&q| col(q) == n).collect()))
        .chain((0..9).map(|n| (0..81).filter(|&q| boxx(q) == n).collect()))
        .collect();
    let places = |h: &[usize], e: usize| -> Vec<usize> {
        h.iter()
            .copied()
            .filter(|&q| cand[q] >> e & 1 != 0)
            .collect()
    };
    let (rows, cols, boxes) = (&houses[..9], &houses[9..18], &houses[18..]);
    match rule {
        // The digit's places in a base house all in a cover house holding c.
        "pointing" | "claiming" => {
            let (bases, covers) = if rule == "pointing" {
                (boxes.to_vec(), [rows, cols].concat())
            } else {
                ([rows, cols].concat(), boxes.to_vec())
            };
            bases.iter().any(|base| {
                let p = places(base, d);
                covers.iter().any(|cover| {
                    p.len() > 1
                        && p.iter().all(|q| cover.contains(q))
                        && cover.contains(&c)
                        && !base.contains(&c)
                })
            })
        }
        // Two other digits confined to two cells of a house, c one of them.
        "hidden-pair" => houses.iter().filter(|h| h.contains(&c)).any(|h| {
            (1..=9).any(|d1| {
                (d1 + 1..=9).any(|d2| {
                    let mut both = places(h, d1);
                    both.extend(places(h, d2));
                    both.sort();
                    both.dedup();
                    d != d1 && d != d2 && both.len() == 2 && both.contains(&c)
                })
            })
        }),
        // Two other cells of a house whose candidates are two digits, d one of them.
        "naked-pair" => houses.iter().filter(|h| h.contains(&c)).any(|h| {
            h.iter().any(|&x| {
                h.iter().any(|&y| {
                    let union = cand[x] | cand[y];
                    x < y && x != c && y != c && union.count_ones() == 2 && union >> d & 1 != 0
                })
            })
        }),
        // Two base lines holding d only in two cover lines, c in a cover, not a base.
        "x-wing" => [(rows, cols), (cols, rows)].iter().any(|(bases, covers)| {
            (0..9).any(|i| {
                (i + 1..9).any(|j| {
                    let mut p = places(&bases[i], d);
                    p.extend(places(&bases[j], d));
                    let hit: Vec<&Vec<usize>> = covers
                        .iter()
                        .filter(|v| p.iter().any(|q| v.contains(q)))
                        .collect();
                    hit.len() == 2
                        && hit.iter().any(|v| v.contains(&c))
                        && !bases[i].contains(&c)
                        && !bases[j].contains(&c)
                })
            })
        }),
        other => panic!("unknown rule {other}"),
    }
}

/// Whether the assumptions are the two values of one candidate, every candidate
/// of one cell, or every place of one digit in one house.
fn covers_every_case(board: &Board, cases: &[(usize, usize, bool)]) -> bool {
    if let [(c1, d1, false), (c2, d2, true)] = cases {
        return (c1, d1) == (c2, d2);
    }
    if cases.iter().any(|&(_, _, on)| !on) {
        return false;
    }
    let (c0, d0, _) = cases[0];
    let got: Vec<(usize, usize)> = cases.iter().map(|&(c, d, _)| (c, d)).collect();
    let cell: Vec<(usize, usize)> = board.digits(c0).into_iter().map(|d| (c0, d)).collect();
    let in_house = |f: fn(usize) -> usize| -> Vec<(usize, usize)> {
        (0..81)
            .filter(|&q| f(q) == f(c0) && board.has(q, d0))
            .map(|q| (q, d0))
            .collect()
    };
    got == cell || got == in_house(row) || got == in_house(col) || got == in_house(boxx)
}

fn grade_steps(puzzles: &[&str]) -> Vec<Value> {
    let out = factory()
        .args(["grade", "--steps", "--json", "--candidates"])
        .write_stdin(puzzles.join("\n") + "\n")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_hint_pattern_justifies_its_conclusions_on_the_candidate_grid() {
    let mut checked = std::collections::BTreeMap::<String, usize>::new();
    for puzzle in grade_steps(PUZZLES) {
        for step in puzzle["steps"].as_array().unwrap() {
            let board = Board::from_step(step);
            let technique = step["technique"].as_str().unwrap();
            let patterns = step["patterns"].as_array().unwrap();
            assert!(!patterns.is_empty(), "every step has a pattern: {step}");
            // The step's conclusions are its patterns' together.
            let mut all = Vec::new();
            for p in patterns {
                all.extend(pairs(&p["placements"]).into_iter().map(|x| (x, true)));
                all.extend(pairs(&p["eliminations"]).into_iter().map(|x| (x, false)));
            }
            let mut stated: Vec<_> = pairs(&step["placements"])
                .into_iter()
                .map(|x| (x, true))
                .chain(pairs(&step["eliminations"]).into_iter().map(|x| (x, false)))
                .collect();
            all.sort();
            all.dedup();
            stated.sort();
            assert_eq!(all, stated, "{technique}: the patterns' conclusions");
            for p in patterns {
                match technique {
                    "hidden-pair" => check_hidden_pair(&board, p),
                    "aligned-triplet-exclusion" => check_aligned_triplet(&board, p),
                    "xy-wing" => check_xy_wing(&board, p),
                    "x-chain" => {
                        let digits = check_chain(&board, p);
                        assert!(digits.iter().all(|&d| d == digits[0]), "one digit: {p}");
                    }
                    "aic"
                    | "xy-chain"
                    | "nishio"
                    | "forcing-chain"
                    | "dynamic-forcing-chain"
                    | "dynamic-forcing-chain-plus"
                    | "nested-forcing-chain" => {
                        check_chain(&board, p);
                    }
                    _ => continue,
                }
                *checked.entry(technique.to_string()).or_default() += 1;
            }
        }
    }
    for t in [
        "hidden-pair",
        "xy-wing",
        "x-chain",
        "aic",
        "xy-chain",
        "aligned-triplet-exclusion",
        "nishio",
        "forcing-chain",
        "dynamic-forcing-chain",
        "dynamic-forcing-chain-plus",
        "nested-forcing-chain",
    ] {
        assert!(
            checked.get(t).copied().unwrap_or(0) > 0,
            "no {t} checked: {checked:?}"
        );
    }
}
