//! `solve`: one line out per line in, verdicts for bad lines, exit codes.

mod common;

use common::factory;

const MINIMAL: &str =
    "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";

#[test]
fn solves_each_line_and_names_bad_ones() {
    let empty = ".".repeat(81);
    let clash = format!("11{}", ".".repeat(79));
    let bad_char = format!("{}x{}", &MINIMAL[..39], &MINIMAL[40..]);
    let input = format!(
        "{MINIMAL}\n{empty}\n{clash}\n  {}  \n",
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
}
