//! `grade`: the technique rating per input line, through the binary: known ratings,
//! the same rating for every symmetric variant (made by the `transform` command), a
//! path whose placements rebuild the solution `solve` prints, JSON an app can read,
//! and the exit codes of bad lines.

use crate::common;

use common::factory;

/// (puzzle, the rater's answer): a naked-single puzzle and a naked-pair puzzle.
const KNOWN: [(&str, &str); 2] = [
    (
        "8.....6....6..1.29....9.45...5........48.39..2......31...2.8.9.....4.......935.86",
        "2.3 naked-single",
    ),
    (
        "..1...7..3..4.2..559.....147...8...9..89.43......6......37486............7.593.8.",
        "3.0 naked-pair",
    ),
];

fn stdout(args: &[&str], input: String, code: i32) -> String {
    let out = factory().args(args).write_stdin(input).assert().code(code);
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn rates_known_puzzles_and_every_variant_alike() {
    let input: String = KNOWN.iter().map(|(p, _)| format!("{p}\n")).collect();
    let rated = stdout(&["grade"], input.clone(), 0);
    let expected: Vec<&str> = KNOWN.iter().map(|(_, r)| *r).collect();
    assert_eq!(rated.lines().collect::<Vec<_>>(), expected);

    // Ten random symmetry variants of each: the rating is a class invariant.
    let variants = stdout(&["transform", "--count", "10", "--seed", "5"], input, 0);
    assert_eq!(variants.lines().count(), 20);
    let rated = stdout(&["grade"], variants, 0);
    let lines: Vec<&str> = rated.lines().collect();
    assert_eq!(&lines[..10], [expected[0]; 10]);
    assert_eq!(&lines[10..], [expected[1]; 10]);
}

#[test]
fn the_path_rebuilds_the_solution_and_json_says_the_same() {
    let (puzzle, answer) = KNOWN[1];
    let text = stdout(&["grade", "--steps"], format!("{puzzle}\n"), 0);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(answer));
    let mut grid: Vec<u8> = puzzle.bytes().collect();
    let mut hardest = 0.0f64;
    for step in lines {
        assert!(step.starts_with("  "), "{step}");
        let mut words = step.split_whitespace();
        hardest = hardest.max(words.next().unwrap().parse().unwrap());
        for w in words.filter(|w| w.contains('=') && !w.contains("<>")) {
            let (cell, d) = w.split_once('=').unwrap();
            let (r, c) = cell[1..].split_once('c').unwrap();
            let at = (r.parse::<usize>().unwrap() - 1) * 9 + c.parse::<usize>().unwrap() - 1;
            assert_eq!(grid[at], b'.', "{w} sets a given or a set cell");
            grid[at] = d.as_bytes()[0];
        }
    }
    assert_eq!(hardest, 3.0, "the rating is the hardest step");
    let solved = stdout(&["solve"], format!("{puzzle}\n"), 0);
    assert_eq!(String::from_utf8(grid).unwrap(), solved.trim_end());

    let json = stdout(&["grade", "--json", "--steps"], format!("{puzzle}\n"), 0);
    let v: serde_json::Value = serde_json::from_str(json.trim_end()).unwrap();
    assert_eq!(v["line"], 1);
    assert_eq!(v["rating"], 3.0);
    assert_eq!(v["technique"], "naked-pair");
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), text.lines().count() - 1);
    let placed: usize = steps
        .iter()
        .map(|s| s["placements"].as_array().unwrap().len())
        .sum();
    assert_eq!(placed, puzzle.matches('.').count());
}

#[test]
fn bad_lines_are_answered_in_place_with_their_exit_codes() {
    let (good, answer) = KNOWN[0];
    let several = format!("12345678{}", ".".repeat(73));
    let input = format!("{several}\n{good}\n");
    let out = stdout(&["grade"], input.clone(), 1);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "line 1: the puzzle has several solutions; only uniquely solvable puzzles are rated",
            answer
        ]
    );
    let json = stdout(&["grade", "--json"], input, 1);
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(first["line"], 1);
    assert!(first["error"]
        .as_str()
        .unwrap()
        .contains("several solutions"));

    let bad = format!("{}x{}\n{good}\n", &good[..39], &good[40..]);
    let out = factory().arg("grade").write_stdin(bad).assert().code(2);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with("line 1, column 40: unexpected character 'x'"),
        "{text}"
    );
    assert_eq!(text.lines().nth(1), Some(answer));
    // With --json a malformed line is a JSON object too, so an app parses every line.
    let bad = format!("{}x{}\n", &good[..39], &good[40..]);
    let out = factory()
        .args(["grade", "--json"])
        .write_stdin(bad)
        .assert()
        .code(2);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
    assert_eq!(v["line"], 1);
    assert!(v["error"].as_str().unwrap().contains("column 40"), "{v}");
}

/// Regression: a 16×16 line was answered "column 2: unexpected character 'G'", as if
/// it were a 9×9 board with a typo; `grade` rates 9×9 only and now says that.
#[test]
fn a_board_of_another_size_is_told_grade_is_9x9_only() {
    let sixteen = format!("1G{}", ".".repeat(254));
    let out = factory()
        .arg("grade")
        .write_stdin(format!("{sixteen}\n"))
        .assert()
        .code(2);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(
        text.trim_end(),
        "line 1: 256 cells make a 16x16 board, not 9x9: this command reads 9x9 boards only"
    );
}

/// Regression: `grade --steps` listed a cell or an elimination once per pattern that
/// gave it (`1.0 full-house [r2c6 r8c4 r2c6 r8c4 r2c6]`, an xy-wing's eliminations
/// twice), so an app drawing hints drew them twice. Every step of these paths (an
/// xy-wing puzzle, a full-house one, the known ones) lists each cell, placement and
/// elimination once.
#[test]
fn a_step_lists_each_cell_and_deduction_once() {
    let mut input = String::from(
        ".76.42.....253......3....7.......2.4...7..81....485.3...9......8.....3.121..6..59\n\
         ..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2\n",
    );
    for (puzzle, _) in KNOWN {
        input += &format!("{puzzle}\n");
    }
    let json = stdout(&["grade", "--steps", "--json"], input, 0);
    let mut steps = 0;
    let mut techniques = std::collections::BTreeSet::new();
    for line in json.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for step in v["steps"].as_array().unwrap() {
            steps += 1;
            techniques.insert(step["technique"].as_str().unwrap().to_string());
            for key in ["cells", "placements", "eliminations"] {
                let items = step[key].as_array().unwrap();
                let distinct: std::collections::BTreeSet<String> =
                    items.iter().map(|i| i.to_string()).collect();
                assert_eq!(distinct.len(), items.len(), "{key} repeats in {step}");
            }
        }
    }
    assert!(steps > 40, "{steps} steps");
    for t in ["xy-wing", "full-house"] {
        assert!(techniques.contains(t), "{t} not in {techniques:?}");
    }
}

/// Very hard puzzles whose Sudoku Explainer rating (ER) is published, each with where
/// it is published: (name, puzzle, SE rating, source). Most come from Denis
/// Berthier's example files (github.com/denis-berthier/CSP-Rules-V2.1 and
/// CSP-Rules-Examples), which give each puzzle's "SER"; two from the Enjoy Sudoku
/// Players' Forum.
#[rustfmt::skip]
const PUBLISHED_HARDEST: &[(&str, &str, &str, &str)] = &[
    ("Loki (mith)", "57....9..........8.1.........168..4......28.9..2.9416.....2.....6.9.82.4...41.6..", "11.9", "CSP-Rules-Examples Sudoku/Tridagons/Loki-11.9.clp"),
    ("B7B list", "..3....8..5....2.17...........5.8..6.9.12....8....3....6.9....5..4....7.....1.6.2", "11.9", "CSP-Rules-V2.1 Examples/Sudoku/Metcalf-B7B.clp"),
    ("Metcalf B7B", "5.......9.2.1...7...8...3...4.6.........5.......2.7.1...3...8...6...4.2.9.......5", "11.8", "CSP-Rules-V2.1 Examples/Sudoku/Metcalf-B7B.clp"),
    ("B7B list, second", ".2...67..4...8......9.......3.....7.5.8....4..1.3....2....9..5....6.1..3...2..6.7", "11.8", "CSP-Rules-V2.1 Examples/Sudoku/Metcalf-B7B.clp"),
    ("mith T&E(3) 972#8", "...45...9.....92.6..97.....2.1..786..78..19.296...8.17.928..6..7.6.....881.......", "11.8", "CSP-Rules-V2.1 Examples/Sudoku/Tridagons/mith-TE3-972#8.clp"),
    ("mith T&E(3) #4662", "1.3.56.....7..9.........5....4...6.8..6.48.95......42..4.89..62.....59.4.6..2485.", "11.7", "CSP-Rules-Examples Sudoku/Tridagons/#4662-SFin+Trid.clp"),
    ("mith T&E(3) #1182", ".2.4.......7.....66.8....15...5.4.61....9...2.6..12.9......51..5......249.124....", "11.7", "CSP-Rules-Examples Sudoku/Tridagons/#1182-many-guardians.clp"),
    ("mith T&E(3) #2423", "...4..7.9.57.89.....9732....459...1.67....59.9.15..4...94..167...6...9.171..9....", "11.7", "CSP-Rules-Examples Sudoku/Tridagons/#2423-OR4FW7+OR2FgW2.clp"),
    ("eleven's Imp630 #350", "..3..6....5718.....6........816...75.....8......5...68.7.....42...73.85..1.....97", "11.7", "CSP-Rules-Examples Sudoku/Imp630/#350-EL13c259.clp"),
    ("coloin (eleven)", "..3......4...8..36..8...1...4..6..73...9..........2..5..4.7..686........7..6..5..", "11.0", "forum.enjoysudoku.com/the-hardest-sudokus-new-thread-t6539-225.html"),
    ("coloin, second (eleven)", "..3......4...8..36..8...1...4..6..73...9..........2..5..4.7..686....4...7.....5..", "11.0", "forum.enjoysudoku.com/the-hardest-sudokus-new-thread-t6539-225.html"),
    ("mith T&E(3) #16150", "1.345..8945........983....5.....39.8.39...17...4....2...18......4593.8......15...", "11.0", "CSP-Rules-Examples Sudoku/Tridagons/#16150-W6+9xOR2FW5.clp"),
    ("magictour top1465 #3", "7.8...3.....6.1...5.........4.....263...8.......1...9..9.2....4....7.5...........", "9.6", "CSP-Rules-V2.1 Examples/Sudoku/Magictour-top1465/#3-gW16.clp"),
    ("magictour top1465 #2", "7.8...3.....2.1...5.........4.....263...8.......1...9..9.6....4....7.5...........", "9.5", "CSP-Rules-V2.1 Examples/Sudoku/Magictour-top1465/#2-gW16.clp"),
    ("shye & jovi_al", ".8.4.5....12.3...........6.3....4..7.6.7...5.7...8...9......1......9.2.....3.6...", "9.5", "CSP-Rules-Examples Sudoku/g-whips/shye-gW8.clp"),
    ("magictour top1465 #182", "......8...7..9..1...3..7..51..6......5..2..4...8..9..74.....2...6..1..5......6..3", "9.4", "CSP-Rules-V2.1 Examples/Sudoku/Magictour-top1465/#182-W22.clp"),
    ("Mauricio", ".....1..2....3..4...52..1....36...1..2..7...89....57....9..7....8.9....43...4..8.", "9.4", "CSP-Rules-V2.1 Examples/Sudoku/Mauricio-W31-GW12-B19-gB11.clp"),
    ("ObiWahn+Tarek #426", "6..5......1...3.8...2.7.9....3..5.......9.1..7..4....25....27...8.....1...46....3", "9.2", "CSP-Rules-V2.1 Examples/Sudoku/Oddagons/ObiWahn+Tarek#426-W17-W+O14.clp"),
    ("ObiWahn+Tarek #197", "2.....9....34......7..5..8.9...1......5...7...8...3..2.6..7..1......85....42....3", "9.2", "CSP-Rules-V2.1 Examples/Sudoku/Oddagons/ObiWahn+Tarek#197-W9.clp"),
    ("pisces2 #523", "6.......1.2.....4...7...8....41.59..381697425..93.26....6...7...9.....8.1.......3", "9.0", "CSP-Rules-V2.1 Examples/Sudoku/Fewer-steps/pisces2#523-9.0-W7.clp"),
    ("ObiWahn+Tarek #38", "......3..2...8.1...5...9....8..1.9....67...3.4....5..2..3.2....1....47...9.6...8.", "8.4", "CSP-Rules-Examples Sudoku-a/Oddagons/ObiWahn+Tarek#38-W5-O9.clp"),
];

/// The published hardest puzzles through `grade` rate exactly as SE does, the twelve
/// at 11.0–11.9 with SE's nested forcing chains (before 0.4.12 they were
/// `beyond-implemented`, 9.5–10.0 lower bounds). `grade` rates them on every core:
/// the hardest take up to a minute each.
#[test]
fn the_published_hardest_puzzles_rate_as_se() {
    let input: String = PUBLISHED_HARDEST
        .iter()
        .map(|(_, p, _, _)| format!("{p}\n"))
        .collect();
    let rated = stdout(&["grade"], input, 0);
    let lines: Vec<&str> = rated.lines().collect();
    assert_eq!(lines.len(), PUBLISHED_HARDEST.len());
    for (&(name, _, se, source), line) in PUBLISHED_HARDEST.iter().zip(lines) {
        let (ours, technique) = line.split_once(' ').expect("rating and technique");
        assert_eq!(ours, se, "{name} ({source}): {line}");
        let expected = match se {
            "8.4" => "forcing-chain",
            "9.5" if name.starts_with("shye") => "dynamic-forcing-chain-plus",
            "11.0" | "11.7" | "11.8" | "11.9" => "nested-forcing-chain",
            _ => "dynamic-forcing-chain",
        };
        assert_eq!(technique, expected, "{name} ({source}): {line}");
    }
}

/// `grade` rates lines on every core and answers them in input order: one thread or
/// three give the same bytes, malformed and unsolvable lines answered in place.
#[test]
fn grade_answers_in_input_order_whatever_the_threads() {
    let qqwing = include_str!("../../data/qqwing-10k.txt");
    let mut input: String = qqwing.lines().take(150).map(|l| format!("{l}\n")).collect();
    input.push_str("not a puzzle\n");
    input.push_str(&".".repeat(81));
    input.push('\n');
    input.extend(qqwing.lines().skip(150).take(150).map(|l| format!("{l}\n")));
    let run = |threads: &str, args: &[&str]| {
        let out = factory()
            .env("RAYON_NUM_THREADS", threads)
            .args(args)
            .write_stdin(input.clone())
            .assert()
            .code(2);
        out.get_output().stdout.clone()
    };
    for args in [&["grade"][..], &["grade", "--steps", "--json"][..]] {
        let one = run("1", args);
        assert_eq!(one, run("3", args), "{args:?}");
        let text = String::from_utf8(one).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("  ")).collect();
        assert_eq!(lines.len(), 302, "{args:?}");
        assert!(
            lines[150].contains("151") && !lines[150].contains("rating"),
            "{}",
            lines[150]
        );
        assert!(lines[151].contains("several solutions"), "{}", lines[151]);
    }
}

/// A caller that sends one line and waits for its answer gets it: `grade` batches
/// only lines already read in. Regression: a batch waited for 8 lines per thread or
/// the end of the input.
#[test]
fn grade_answers_a_line_before_the_next_one_comes() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(common::bin())
        .arg("grade")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut input, output) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines() {
            tx.send(line.unwrap()).unwrap();
        }
    });
    for (puzzle, rating) in KNOWN {
        let rating: &str = rating;
        writeln!(input, "{puzzle}").unwrap();
        input.flush().unwrap();
        let answer = rx.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(answer.as_deref(), Ok(rating), "{puzzle}");
    }
    drop(input);
    assert!(child.wait().unwrap().success());
}

/// `scripts/compare-grade-tiers`, the per-tier A/B of two raters: the binary against
/// itself prints the same output on each tier and exits 0; against a binary whose
/// ratings differ it says so and exits 1; a bad rating column is named by line and
/// column. With `--instructions` (valgrind, which `scripts/test-deps` installs) the
/// binary against itself executes the same instructions per puzzle, within 1 %, and
/// a wrapper is counted with what it runs. (Its timings are not checked: speed
/// lives in benchmarks.)
#[test]
fn the_tier_comparison_script_checks_the_output_of_both_binaries() {
    let dir = tempfile::tempdir().unwrap();
    let qq = include_str!("../../data/qqwing-10k.txt");
    // Two made-up tiers (the script only groups by the rating column).
    let rated: String = qq
        .lines()
        .take(6)
        .enumerate()
        .map(|(i, p)| format!("{p} {}.{i}\n", 3 + i % 2))
        .collect();
    let file = dir.path().join("rated.txt");
    std::fs::write(&file, rated).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/compare-grade-tiers");
    let compare_with = |new: &std::path::Path, file: &std::path::Path, extra: &[&str]| {
        std::process::Command::new(script)
            .arg(common::bin())
            .arg(new)
            .args(["--rounds", "1", "--steps", "--file"])
            .arg(file)
            .args(extra)
            .output()
            .expect("python3 runs the script")
    };
    let compare = |new: &std::path::Path, file: &std::path::Path| compare_with(new, file, &[]);
    let out = compare(&common::bin(), &file);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{text}");
    for (row, tier) in rows.iter().zip(["3.x", "4.x"]) {
        assert!(row.trim_start().starts_with(tier), "{row}");
        assert!(row.contains("       3 ") && row.ends_with("yes"), "{row}");
    }
    // Counted, not timed: the same binary does the same work.
    let counted = |new: &std::path::Path| {
        let out = compare_with(new, &file, &["--instructions"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            text.starts_with(" tier puzzles  old M/puzzle"),
            "{text}{err}"
        );
        let ratios: Vec<f64> = text
            .lines()
            .skip(1)
            .map(|row| {
                let field = row.split_whitespace().nth(4).expect("an old/new column");
                field.trim_end_matches('x').parse().expect("a ratio")
            })
            .collect();
        assert_eq!(ratios.len(), 2, "{text}");
        (out.status.code(), text, ratios)
    };
    let (code, text, ratios) = counted(&common::bin());
    assert_eq!(code, Some(0), "{text}");
    assert!(ratios.iter().all(|r| (0.99..=1.01).contains(r)), "{text}");
    assert!(
        text.lines().skip(1).all(|row| row.ends_with("yes")),
        "{text}"
    );

    // A "new" rater that rates one puzzle differently.
    let fake = dir.path().join("fake-rater");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\n\"{}\" \"$@\" | sed '1s/^/x/'\n",
            common::bin().display()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&fake, perms).unwrap();
    let out = compare(&fake, &file);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.lines().skip(1).all(|row| row.ends_with("NO")),
        "{text}"
    );
    // The wrapper's shell and sed count too: more instructions than the binary's.
    let (code, text, ratios) = counted(&fake);
    assert_eq!(code, Some(1), "{text}");
    assert!(ratios.iter().all(|&r| r < 1.0), "{text}");
    assert!(
        text.lines().skip(1).all(|row| row.ends_with("NO")),
        "{text}"
    );

    std::fs::write(&file, format!("{} 3.O\n", qq.lines().next().unwrap())).unwrap();
    let out = compare(&common::bin(), &file);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rated.txt:1: column 2: not a rating: '3.O'"),
        "{err}"
    );
}
