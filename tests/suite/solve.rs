//! `solve`: one line out per line in, verdicts for bad lines, exit codes.

use crate::common;

use common::factory;

const MINIMAL: &str =
    "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";

#[test]
fn solves_each_line_and_names_bad_ones() {
    let empty = ".".repeat(81);
    // Consistent, but cell 9 has no candidate: 1-8 in its row, 9 in its column.
    let dead_end = format!("12345678.{}........9{}", ".".repeat(18), ".".repeat(45));
    let input = format!(
        "{MINIMAL}\n{empty}\n{dead_end}\n  {}  \n",
        MINIMAL.replace('.', "0")
    );
    let out = factory().arg("solve").write_stdin(input).assert().code(1);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let solution = sudoku::Sudoku::from_str_line(MINIMAL)
        .unwrap()
        .solution()
        .unwrap()
        .to_str_line()
        .to_string();
    assert_eq!(
        lines,
        [
            solution.as_str(),
            "line 2: multiple solutions",
            "line 3: no solution",
            solution.as_str()
        ]
    );

    let bad_char = format!("{}x{}", &MINIMAL[..39], &MINIMAL[40..]);
    factory()
        .arg("solve")
        .write_stdin(format!("{MINIMAL}\n{bad_char}\n"))
        .assert()
        .code(2)
        .stdout(predicates::str::contains(
            "line 2, column 40: unexpected character 'x' (expected 1-9, '.' or '0')",
        ))
        .stderr(predicates::str::contains("1 malformed input line"));
}

/// Regression (issue #11): a board that repeats a symbol in a unit was searched (41 ms
/// a line in `canon`), and a line that was not UTF-8 ended the input. Both are now
/// malformed lines, answered in place, and the lines after them are still handled.
#[test]
fn refuses_repeats_and_non_utf8_lines_and_answers_the_rest() {
    let clash = format!("11{}", ".".repeat(79));
    let mut input = format!("{clash}\n").into_bytes();
    input.extend(b"\xff\xfe not text\n");
    input.extend(format!("{MINIMAL}\r\n").bytes());
    for command in ["solve", "canon", "transform"] {
        let mut cmd = factory();
        cmd.arg(command);
        if command == "transform" {
            cmd.args(["--seed", "1", "--count", "1"]);
        }
        let out = cmd.write_stdin(input.clone()).assert().code(2);
        let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 3, "{command}: {stdout}");
        assert_eq!(
            lines[0], "line 1, columns 1 and 2: '1' repeats in row 1",
            "{command}"
        );
        assert_eq!(
            lines[1], "line 2, column 1: byte 0xff is not valid UTF-8 text",
            "{command}"
        );
        assert_eq!(lines[2].len(), 81, "{command}: {}", lines[2]);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains("2 malformed input line"), "{command}: {err}");
    }
}

/// Regression: a 4×4 line given without `--size 4` was "expected 81 cells, found
/// 16", and a 16×16 one "unexpected character 'G'"; both now name their size and
/// the flag that reads them.
#[test]
fn a_board_of_another_size_points_to_size() {
    let four = format!("1.{}4.", ".".repeat(12));
    let sixteen = format!("1G{}", ".".repeat(254));
    for command in ["solve", "canon", "transform"] {
        let out = factory()
            .arg(command)
            .write_stdin(format!("{four}\n{sixteen}\n"))
            .assert()
            .code(2);
        let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_eq!(
            stdout.lines().collect::<Vec<_>>(),
            [
                "line 1: 16 cells make a 4x4 board, not 9x9: pass --size 4",
                "line 2: 256 cells make a 16x16 board, not 9x9: pass --size 16",
            ],
            "{command}"
        );
    }
}

#[test]
fn reads_a_file_and_reports_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    std::fs::write(&file, format!("{MINIMAL}\n")).unwrap();
    factory().arg("solve").arg(&file).assert().success();
    factory()
        .arg("solve")
        .arg(dir.path().join("missing.txt"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("opening"));
    // Regression: a directory gave "reading line 1: Is a directory", naming nothing.
    for command in ["solve", "canon", "transform", "grade"] {
        factory()
            .arg(command)
            .arg(dir.path())
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "{} is a directory",
                dir.path().display()
            )));
    }
}

/// Regression: `transform --count 3` gave three lines for a good input line but one
/// for a malformed one, so output line k no longer answered input line ⌈k/3⌉. A
/// malformed line now gives its message three times.
#[test]
fn transform_keeps_count_lines_per_input_line_for_malformed_ones() {
    let out = factory()
        .args(["transform", "--seed", "1", "--count", "3"])
        .write_stdin(format!(
            "{MINIMAL}
not a puzzle
{MINIMAL}
"
        ))
        .assert()
        .code(2);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 9, "{stdout}");
    for (k, line) in lines.iter().enumerate() {
        if k / 3 == 1 {
            assert!(line.starts_with("line 2, column "), "{k}: {line}");
        } else {
            assert_eq!(line.len(), 81, "{k}: {line}");
        }
    }
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("1 malformed input line"), "{err}");
}

/// `transform --count 0` is refused as `generate --count 0` is, not a silent empty
/// output with exit 0.
#[test]
fn transform_refuses_a_count_of_zero() {
    factory()
        .args(["transform", "--count", "0"])
        .write_stdin(format!("{MINIMAL}\n"))
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("--count"));
}
