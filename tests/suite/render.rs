//! `render` end to end: the PDF read back by poppler's tools (`pdfinfo` page count and
//! size, `pdffonts` every font embedded, `pdftotext` the numbers and a solution on
//! its page, `pdftoppm` a page drawn), SVG parsed as XML by Python, PNG decoded by the
//! png crate; the same selection gives the same bytes; every size renders; bad input
//! is exit 2 with nothing written; `--txt --append` appends; `--exclude` skips
//! earlier books.
//!
//! poppler-utils is a requirement of this test (the CI script installs it): a missing
//! tool fails the test instead of skipping it.

use crate::common;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{factory, generate, listing, read_bank};

/// A small 9×9 bank (50 seeds × 2 variants), made once for this file.
fn bank() -> &'static Path {
    static BANK: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &BANK
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let bank = generate(dir.path().join("bank"))
                .count(100)
                .variants(2)
                .seed(13)
                .bank();
            (dir, bank)
        })
        .1
}

/// `render INPUT ARGS...`, not yet run.
fn render(input: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = factory();
    cmd.arg("render").arg(input).args(args);
    cmd
}

/// Runs a poppler tool; a missing tool fails the test.
fn poppler(tool: &str, args: &[&str], file: &Path) -> String {
    let mut cmd = Command::new(tool);
    cmd.args(args).arg(file);
    if tool == "pdftotext" {
        // To stdout (by default it writes FILE.txt beside the PDF).
        cmd.arg("-");
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{tool} (poppler-utils) must be installed: {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?} {}: {}",
        file.display(),
        crate::common::stderr_of(&out)
    );
    crate::common::stdout_of(&out)
}

/// `pdfinfo`'s field `name`.
fn info(pdf: &Path, name: &str) -> String {
    let text = poppler("pdfinfo", &[], pdf);
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
        .trim()
        .to_string()
}

/// The summary's "(puzzle pages 1-P, solution pages S-T)": the first solutions page.
fn first_solution_page(stderr: &str) -> usize {
    let key = "solution pages ";
    let at = stderr.find(key).expect("a page summary") + key.len();
    stderr[at..].split('-').next().unwrap().parse().unwrap()
}

/// The lines of a text file the command wrote.
fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn the_pdf_is_a_book_poppler_reads() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("book.pdf");
    let txt = dir.path().join("book.txt");
    let run = render(
        bank(),
        &["--count", "20", "--trim", "6x9", "--per-page", "2", "--pdf"],
    )
    .arg(&pdf)
    .arg("--txt")
    .arg(&txt)
    .assert()
    .success();
    let stderr = crate::common::stderr_of(&run);
    let first_solutions = first_solution_page(&stderr);

    // 20 puzzles two a page (each band starting a new page), then 20 solutions 12 a page.
    let pages: usize = info(&pdf, "Pages").parse().unwrap();
    assert_eq!(pages, first_solutions - 1 + 2, "{stderr}");
    assert!((10..=14).contains(&(first_solutions - 1)), "{stderr}");
    assert!(info(&pdf, "Page size").starts_with("432 x 648 pts"));

    let fonts = poppler("pdffonts", &[], &pdf);
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert_eq!(rows.len(), 2, "{fonts}");
    for row in rows {
        // name, type (two words), encoding, emb, sub, uni, object id.
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols[4], "yes", "not embedded: {row}");
        assert_eq!(cols[6], "yes", "no ToUnicode: {row}");
    }

    // Two a page (a band that ends leaves its last page half empty): #1 on page 1,
    // #2 on page 1 or 2, #3 no earlier than page 2.
    let page = |n: usize| {
        let n = n.to_string();
        poppler("pdftotext", &["-f", &n, "-l", &n, "-layout"], &pdf)
    };
    let (page1, page2) = (page(1), page(2));
    assert!(page1.contains("#1") && !page1.contains("#3"), "{page1}");
    assert!(
        page1.contains("#2") || page2.contains("#2"),
        "{page1}{page2}"
    );

    // Puzzle #1's solution (looked up in the bank by its givens) on the first solutions
    // page: every row of it, read across the page.
    let first = std::fs::read_to_string(&txt).unwrap();
    let givens = first.lines().next().unwrap();
    let rows = read_bank(bank());
    let solution = &rows.iter().find(|r| r.puzzle == givens).unwrap().solution;
    let p = first_solutions.to_string();
    let page = poppler("pdftotext", &["-f", &p, "-l", &p, "-layout"], &pdf);
    assert!(page.contains("Solutions") && page.contains("#1"), "{page}");
    let lines: Vec<String> = page
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    for row in 0..9 {
        let digits = &solution[row * 9..row * 9 + 9];
        assert!(
            lines.iter().any(|l| l.starts_with(digits)),
            "row {row} {digits} of #1's solution not at a line start on page {p}:\n{page}"
        );
    }

    let out = dir.path().join("page");
    Command::new("pdftoppm")
        .args(["-r", "30", "-png", "-f", "1", "-l", "1", "-singlefile"])
        .arg(&pdf)
        .arg(&out)
        .status()
        .expect("pdftoppm (poppler-utils) must be installed");
    let (w, h) = png_size(&dir.path().join("page.png"));
    assert_eq!((w, h), (180, 270));
}

#[test]
fn letter_and_bleed_page_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("letter.pdf");
    render(bank(), &["--count", "4", "--pdf"])
        .arg(&plain)
        .assert()
        .success();
    assert!(info(&plain, "Page size").starts_with("612 x 792 pts"));
    let bleed = dir.path().join("bleed.pdf");
    render(
        bank(),
        &["--count", "4", "--bleed", "--trim", "letter", "--pdf"],
    )
    .arg(&bleed)
    .assert()
    .success();
    // 0.125 in beyond the outside edge, the top and the bottom.
    assert!(info(&bleed, "Page size").starts_with("621 x 810 pts"));
    // The trim box: flush left on a recto (bleed on the outside, right), flush
    // right on a verso.
    let boxes = poppler("pdfinfo", &["-box", "-f", "1", "-l", "2"], &bleed);
    let trims: Vec<Vec<&str>> = boxes
        .lines()
        .filter(|l| l.contains("TrimBox:"))
        .map(|l| l.split_whitespace().skip(3).collect())
        .collect();
    assert_eq!(
        trims,
        [
            ["0.00", "9.00", "612.00", "801.00"],
            ["9.00", "9.00", "621.00", "801.00"]
        ],
        "{boxes}"
    );
}

fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    (frame.width, frame.height)
}

/// Every file under `dir`, name → bytes.
fn files(dir: &Path) -> HashMap<String, Vec<u8>> {
    let mut out = HashMap::new();
    for entry in walk(dir) {
        let name = entry
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        out.insert(name, std::fs::read(&entry).unwrap());
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn an_image_directory_needs_its_parent() {
    // Regression: `--svg nodir/svgs` created `nodir` as well, where every other
    // output refuses a directory that does not exist. The image directory itself is
    // made when missing.
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("nodir").join("svgs");
    let mut cmd = render(bank(), &["--count", "2", "-q", "--svg"]);
    cmd.arg(&nested);
    common::fails_naming(cmd, &["nodir", "does not exist"]);
    assert_eq!(listing(dir.path()), Vec::<String>::new());
    let made = dir.path().join("svgs");
    render(bank(), &["--count", "2", "-q", "--svg"])
        .arg(&made)
        .assert()
        .success();
    assert_eq!(listing(&made).len(), 4);
}

#[test]
fn a_failed_image_set_leaves_no_directory_it_made() {
    // Regression: a write that failed part-way (here a file-size limit under the
    // first PNG, then under the book written before the images) left the directory
    // the run had made, with whatever it had written. A directory that was there
    // keeps its files.
    let dir = tempfile::tempdir().unwrap();
    let (made, kept) = (dir.path().join("png"), dir.path().join("kept"));
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("notes.txt"), "mine").unwrap();
    for out in [&made, &kept] {
        let output = Command::new("bash")
            .args(["-c", "ulimit -f 8 && exec \"$@\"", "_"])
            .arg(common::bin())
            .arg("render")
            .arg(bank())
            .args(["--count", "4", "-q", "--dpi", "300", "--png"])
            .arg(out)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        let stderr = common::stderr_of(&output);
        assert!(stderr.contains("File too large"), "{stderr}");
    }
    assert!(!made.exists(), "{:?}", listing(&made));
    assert_eq!(listing(&kept), ["notes.txt"]);
    // The book is written first: its failure leaves no empty image directory.
    let output = Command::new("bash")
        .args(["-c", "ulimit -f 8 && exec \"$@\"", "_"])
        .arg(common::bin())
        .arg("render")
        .arg(bank())
        .args(["--count", "40", "-q", "--pdf"])
        .arg(dir.path().join("book.pdf"))
        .arg("--svg")
        .arg(&made)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(!made.exists(), "{:?}", listing(&made));
}

#[test]
fn the_same_selection_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for k in 0..2 {
        let out = dir.path().join(format!("run{k}"));
        std::fs::create_dir(&out).unwrap();
        render(bank(), &["--count", "6", "--seed", "9", "--dpi", "72"])
            .arg("--pdf")
            .arg(out.join("book.pdf"))
            .arg("--svg")
            .arg(out.join("svg"))
            .arg("--png")
            .arg(out.join("png"))
            .arg("--txt")
            .arg(out.join("book.txt"))
            .assert()
            .success();
        runs.push(files(&out));
    }
    assert_eq!(runs[0].len(), 2 + 12 + 12);
    assert_eq!(runs[0], runs[1]);
    // Another seed, another pick.
    let other = dir.path().join("other.txt");
    render(bank(), &["--count", "6", "--seed", "10", "--txt"])
        .arg(&other)
        .assert()
        .success();
    assert_ne!(std::fs::read(&other).unwrap(), runs[0]["book.txt"]);
}

/// Python's XML parser's count of `<line>` elements and of text groups, and the text
/// of the groups.
fn svg_counts(path: &Path) -> (usize, Vec<String>) {
    let script = "import sys, xml.etree.ElementTree as ET\n\
        root = ET.parse(sys.argv[1]).getroot()\n\
        ns = '{http://www.w3.org/2000/svg}'\n\
        lines = root.findall('.//' + ns + 'line')\n\
        texts = [g.get('aria-label') for g in root.iter(ns + 'g') if g.get('class') == 'text']\n\
        print(len(lines)); print(' '.join(texts))";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", crate::common::stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let n: usize = lines.next().unwrap().parse().unwrap();
    let texts = lines
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(String::from)
        .collect();
    (n, texts)
}

#[test]
fn every_size_renders_images_and_a_book() {
    let dir = tempfile::tempdir().unwrap();
    for (side, count) in [(4usize, 6u64), (9, 4), (16, 3), (25, 2)] {
        let bank = generate(dir.path().join(format!("bank{side}")))
            .size(side)
            .count(count)
            .seed(3)
            .bank();
        let out = dir.path().join(format!("out{side}"));
        let txt = out.join("p.txt");
        std::fs::create_dir(&out).unwrap();
        render(&bank, &["--dpi", "150", "--per-page", "1", "--trim", "a4"])
            .arg("--pdf")
            .arg(out.join("book.pdf"))
            .arg("--svg")
            .arg(out.join("svg"))
            .arg("--png")
            .arg(out.join("png"))
            .arg("--txt")
            .arg(&txt)
            .assert()
            .success();
        let givens: Vec<String> = lines_of(&txt);
        assert_eq!(givens.len(), count as usize);
        let pages: usize = info(&out.join("book.pdf"), "Pages").parse().unwrap();
        assert!(pages > count as usize);
        assert!(info(&out.join("book.pdf"), "Page size").starts_with("595.276 x 841.89"));

        let names = listing(&out.join("svg"));
        assert_eq!(names.len(), 2 * count as usize, "{names:?}");
        let (lines, texts) = svg_counts(&out.join("svg/puzzle-0001.svg"));
        assert_eq!(lines, 2 * (side + 1), "{side}x{side}");
        // The givens, row by row, as the text file has them.
        let symbols: String = givens[0].chars().filter(|&c| c != '.').collect();
        assert_eq!(texts.concat(), symbols, "{side}x{side}");
        let (_, solved) = svg_counts(&out.join("svg/solution-0001.svg"));
        assert_eq!(solved.len(), side * side);

        // 2, 3, 4, 5 in at 150 dpi.
        let px = [(4, 300), (9, 450), (16, 600), (25, 750)]
            .iter()
            .find(|(s, _)| *s == side)
            .unwrap()
            .1;
        assert_eq!(png_size(&out.join("png/puzzle-0001.png")), (px, px));
        assert_eq!(png_size(&out.join("png/solution-0001.png")), (px, px));
    }
}

/// Big grids on a small trim: a layout whose digits would be too small to read is
/// refused before anything is written, naming what fits; the default count a page
/// steps down to one that fits (regression: 25×25 grids six a page on 6x9 were set
/// at 3.4 pt, and the default two a page at 5.6 pt).
#[test]
fn a_book_too_small_to_read_is_refused_and_the_default_fits() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .size(25)
        .count(2)
        .seed(3)
        .bank();
    let pdf = dir.path().join("book.pdf");
    for (args, needle) in [
        (
            &["--per-page", "6"][..],
            "--trim 6x9 --per-page 6 sets 25x25 digits at 3.4 pt, below the 6 pt a printed grid needs: pass --per-page 1 (7.9 pt)",
        ),
        (
            &["--large-print"][..],
            "--trim 6x9 --per-page 1 --large-print sets 25x25 digits at 9.0 pt, below the 14 pt where large print starts: leave out --large-print",
        ),
    ] {
        let run = render(&bank, args)
            .args(["--trim", "6x9", "--pdf"])
            .arg(&pdf)
            .assert()
            .code(2);
        let stderr = crate::common::stderr_of(&run);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!pdf.exists(), "{args:?}");
    }
    // The default on 6x9: one puzzle a page, two solutions a page (not six).
    render(&bank, &["--trim", "6x9", "--pdf"])
        .arg(&pdf)
        .assert()
        .success();
    assert_eq!(info(&pdf, "Pages"), "3");
}

#[test]
fn a_puzzle_file_or_stdin_is_solved_and_bad_lines_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let rows = read_bank(bank());
    let text: String = rows
        .iter()
        .take(5)
        .map(|r| format!("  {}\n", r.puzzle))
        .collect();
    let file = dir.path().join("in.txt");
    std::fs::write(&file, &text).unwrap();
    let out = dir.path().join("out.txt");
    render(&file, &["--allow-variants", "--txt"])
        .arg(&out)
        .assert()
        .success();
    let got: BTreeSet<String> = lines_of(&out).into_iter().collect();
    let want: BTreeSet<String> = rows.iter().take(5).map(|r| r.puzzle.clone()).collect();
    assert_eq!(got, want);
    // Standard input, as a PDF.
    let pdf = dir.path().join("stdin.pdf");
    render(Path::new("-"), &["--pdf"])
        .arg(&pdf)
        .write_stdin(text.clone())
        .assert()
        .success();
    assert!(pdf.exists());

    // A line with two solutions, a line with a bad character and a blank line (the
    // text format has none; render used to skip it): exit 2, each named.
    let mut two = rows[0].puzzle.clone().into_bytes();
    let first_given = two.iter().position(|&b| b != b'.').unwrap();
    two[first_given] = b'.';
    let mut holes = two.clone();
    for b in holes.iter_mut().take(40) {
        *b = b'.';
    }
    let bad = format!(
        "{}\n{}\n{}x{}\n\n",
        rows[1].puzzle,
        String::from_utf8(holes).unwrap(),
        &rows[2].puzzle[..4],
        &rows[2].puzzle[5..]
    );
    let pdf = dir.path().join("bad.pdf");
    let run = render(Path::new("-"), &["--pdf"])
        .arg(&pdf)
        .write_stdin(bad)
        .assert()
        .code(2);
    let stderr = crate::common::stderr_of(&run);
    assert!(
        stderr.contains("line 2: the puzzle has more than one solution"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 3, column 5: unexpected character 'x'"),
        "{stderr}"
    );
    assert!(stderr.contains("line 4 is blank"), "{stderr}");
    assert!(
        stderr.contains("3 lines are not uniquely solvable"),
        "{stderr}"
    );
    assert!(!pdf.exists());
}

/// A copy of [`bank`]'s files in `dir/name`, for a test to damage or aim at.
fn copy_of_bank(dir: &Path, name: &str) -> PathBuf {
    let copy = dir.join(name);
    std::fs::create_dir(&copy).unwrap();
    for name in listing(bank()) {
        let from = bank().join(&name);
        if from.is_file() {
            std::fs::copy(&from, copy.join(&name)).unwrap();
        }
    }
    copy
}

#[test]
fn bad_input_is_exit_2_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("book.pdf");
    let txt = dir.path().join("book.txt");
    let svg = dir.path().join("svg");
    let nothing_written = || {
        assert!(!pdf.exists() && !txt.exists() && !svg.exists());
        assert_eq!(listing(dir.path()).len(), 0, "{:?}", listing(dir.path()));
    };
    let fails = |args: &[&str], needle: &str| {
        let run = render(bank(), args)
            .arg("--pdf")
            .arg(&pdf)
            .arg("--txt")
            .arg(&txt)
            .arg("--svg")
            .arg(&svg)
            .assert()
            .code(2);
        let stderr = crate::common::stderr_of(&run);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    };
    fails(&["--trim", "5x8"], "unknown trim size");
    fails(&["--per-page", "3"], "expected 1, 2, 4 or 6");
    fails(&["--large-print", "--per-page", "4"], "--large-print");
    fails(&["--count", "100000"], "--count 100000: only");
    fails(&["--difficulty", "nightmare"], "no such band");
    // Regression: a band `--count` names that the bank lacks was "only 0 distinct
    // puzzles are available".
    fails(
        &["--count", "nightmare=1"],
        "--count: \"nightmare\": the bank has no such band",
    );
    nothing_written();
    // No output at all.
    render(bank(), &[]).assert().code(2);
    // `-` is standard input, never an output (regression: `--txt -` wrote a file
    // named `-`, `--svg -` made a directory of that name); nor can both INPUT and
    // --exclude read it.
    for (flag, example) in [
        ("--txt", "book.txt"),
        ("--svg", "svg"),
        ("--pdf", "book.pdf"),
    ] {
        let run = render(bank(), &[flag, "-"])
            .current_dir(dir.path())
            .assert()
            .code(2);
        let stderr = crate::common::stderr_of(&run);
        assert!(
            stderr.contains(&format!("{flag} -: render writes files")),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("e.g. {flag} {example}")),
            "{stderr}"
        );
    }
    let run = factory()
        .args(["render", "-", "--exclude", "-", "--txt"])
        .arg(&txt)
        .write_stdin("")
        .assert()
        .code(2);
    assert!(crate::common::stderr_of(&run).contains("both read standard input"));
    nothing_written();

    // A bank that fails the manifest checks: a shard of the wrong size.
    let broken = copy_of_bank(dir.path(), "broken");
    let shard = broken.join("bank-00000.csv.zst");
    let mut bytes = std::fs::read(&shard).unwrap();
    bytes.pop();
    std::fs::write(&shard, bytes).unwrap();
    let run = render(&broken, &["--pdf"]).arg(&pdf).assert().code(2);
    assert!(
        crate::common::stderr_of(&run).contains("bank-00000.csv.zst has"),
        "{}",
        crate::common::stderr_of(&run)
    );
    assert!(!pdf.exists());

    // An output that exists: refused, named, untouched; --force replaces it.
    std::fs::write(&pdf, b"earlier book").unwrap();
    let run = render(bank(), &["--count", "2", "--pdf"])
        .arg(&pdf)
        .assert()
        .code(2);
    assert!(crate::common::stderr_of(&run).contains(&format!("{} already exists", pdf.display())));
    assert_eq!(std::fs::read(&pdf).unwrap(), b"earlier book");
    render(bank(), &["--count", "2", "--force", "--pdf"])
        .arg(&pdf)
        .assert()
        .success();
    assert!(std::fs::read(&pdf).unwrap().starts_with(b"%PDF-"));
    // An existing image name too.
    std::fs::create_dir(&svg).unwrap();
    std::fs::write(svg.join("solution-0002.svg"), b"mine").unwrap();
    let run = render(bank(), &["--count", "2", "--svg"])
        .arg(&svg)
        .assert()
        .code(2);
    assert!(crate::common::stderr_of(&run).contains("solution-0002.svg already exists"));
    assert_eq!(listing(&svg), ["solution-0002.svg"]);

    // Regressions: two outputs on one file (the second replaced the first), and an
    // output over a file of the bank being read (with --force it replaced the
    // manifest or a shard, and the bank was lost).
    let same = dir.path().join("same.x");
    let also = dir.path().join(".").join("same.x");
    let run = render(bank(), &["--count", "2", "--txt"])
        .arg(&same)
        .arg("--pdf")
        .arg(&also)
        .assert()
        .code(2);
    assert!(
        crate::common::stderr_of(&run).contains("are the same file"),
        "{}",
        crate::common::stderr_of(&run)
    );
    assert!(!same.exists());
    let copy = copy_of_bank(dir.path(), "copy");
    let before = std::fs::read(copy.join("manifest.json")).unwrap();
    for (flag, name) in [("--txt", "manifest.json"), ("--pdf", "bank-00000.csv.zst")] {
        let run = render(&copy, &["--count", "2", "--force", flag])
            .arg(copy.join(name))
            .assert()
            .code(2);
        assert!(
            crate::common::stderr_of(&run).contains("is a file of the bank"),
            "{}",
            crate::common::stderr_of(&run)
        );
    }
    assert_eq!(std::fs::read(copy.join("manifest.json")).unwrap(), before);
    common::verify(&copy).assert().success();

    // Regression: an output over the input file itself, with --force, replaced the
    // puzzles with the book (or with the few puzzles `--txt` kept).
    let puzzles = dir.path().join("puzzles.txt");
    let qqwing = concat!(env!("CARGO_MANIFEST_DIR"), "/data/qqwing-10k.txt");
    let text: String = std::fs::read_to_string(qqwing)
        .unwrap()
        .lines()
        .take(20)
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&puzzles, &text).unwrap();
    for flag in ["--pdf", "--txt"] {
        let run = render(&puzzles, &["--count", "5", "--force", flag])
            .arg(dir.path().join(".").join("puzzles.txt"))
            .assert()
            .code(2);
        let stderr = crate::common::stderr_of(&run);
        assert!(stderr.contains("is also an input"), "{stderr}");
    }
    assert_eq!(std::fs::read_to_string(&puzzles).unwrap(), text);

    // Regression: a smaller image set written over a larger one with --force left
    // the larger one's puzzle-0003.svg and the like beside it. Other files stay.
    let images = dir.path().join("images");
    render(bank(), &["--count", "3", "--svg"])
        .arg(&images)
        .assert()
        .success();
    std::fs::write(images.join("notes.txt"), "mine").unwrap();
    render(bank(), &["--count", "1", "--force", "--svg"])
        .arg(&images)
        .assert()
        .success();
    assert_eq!(
        listing(&images),
        ["notes.txt", "puzzle-0001.svg", "solution-0001.svg"]
    );
}

#[test]
fn txt_append_appends_and_exclude_skips_earlier_books() {
    let dir = tempfile::tempdir().unwrap();
    let books = dir.path().join("books.txt");
    render(bank(), &["--count", "10", "--seed", "1", "--txt"])
        .arg(&books)
        .assert()
        .success();
    let first = std::fs::read_to_string(&books).unwrap();
    // The next book: none of the first book's classes, appended to the same file.
    render(
        bank(),
        &["--count", "10", "--seed", "1", "--append", "--txt"],
    )
    .arg(&books)
    .arg("--exclude")
    .arg(&books)
    .assert()
    .success();
    let both = std::fs::read_to_string(&books).unwrap();
    assert!(both.starts_with(&first));
    assert_eq!(both.lines().count(), 20);
    let canon = |text: &str| -> BTreeSet<String> {
        let out = factory()
            .arg("canon")
            .write_stdin(text.to_string())
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    };
    let a = canon(&first);
    let b = canon(&both[first.len()..]);
    assert_eq!(a.len(), 10, "one puzzle per class");
    assert_eq!(b.len(), 10);
    assert!(
        a.is_disjoint(&b),
        "the second book repeats a class of the first"
    );
    // Excluding a whole bank leaves nothing.
    let run = render(bank(), &["--txt"])
        .arg(dir.path().join("none.txt"))
        .arg("--exclude")
        .arg(bank())
        .assert()
        .code(2);
    assert!(crate::common::stderr_of(&run).contains("no puzzle to render"));
    // Regression: an exclusion file of 4x4 puzzles was told "pass --size 4", which
    // only made the 9x9 bank a mismatch.
    let fours = dir.path().join("fours.txt");
    std::fs::write(&fours, "1...........4...\n").unwrap();
    let run = render(bank(), &["--txt"])
        .arg(dir.path().join("none.txt"))
        .arg("--exclude")
        .arg(&fours)
        .assert()
        .code(2);
    let err = crate::common::stderr_of(&run);
    assert!(
        err.contains("16 cells make a 4x4 board, not 9x9; the puzzles rendered are 9x9"),
        "{err}"
    );
    assert!(!err.contains("--size"), "{err}");
}

/// Regression: the summary of one puzzle read "rendered 1 puzzles (easy to easy)",
/// "1 lines written".
#[test]
fn the_summary_counts_one_puzzle_in_the_singular() {
    let dir = tempfile::tempdir().unwrap();
    let run = render(bank(), &["--count", "1", "--txt"])
        .arg(dir.path().join("one.txt"))
        .arg("--html")
        .arg(dir.path().join("one.html"))
        .assert()
        .success();
    let err = crate::common::stderr_of(&run);
    assert!(err.contains("rendered 1 puzzle ("), "{err}");
    assert!(err.contains("a play page of 1 puzzle,"), "{err}");
    assert!(err.contains("one.txt: 1 line written"), "{err}");
    assert!(!err.contains(" to "), "one band is named once: {err}");
}

#[test]
fn a_thousand_puzzle_book() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .count(2000)
        .variants(2)
        .seed(5)
        .bank();
    let pdf = dir.path().join("book.pdf");
    let run = render(&bank, &["--count", "1000", "--pdf"])
        .arg(&pdf)
        .assert()
        .success();
    let stderr = crate::common::stderr_of(&run);
    let pages: usize = info(&pdf, "Pages").parse().unwrap();
    // 250 pages of puzzles (plus partial pages where a band ends) and 84 of solutions.
    assert!(
        (250..=254).contains(&(first_solution_page(&stderr) - 1)),
        "{stderr}"
    );
    assert_eq!(pages - (first_solution_page(&stderr) - 1), 84);
    // 301-500 pages: a 0.625 in gutter.
    assert!(stderr.contains("gutter 0.625 in"), "{stderr}");
}

/// The columns of the first and last inked pixel of page `page` of `pdf`, drawn by
/// poppler at 72 dpi (one pixel a point), and the page's width in pixels.
fn ink_columns(pdf: &Path, page: usize, dir: &Path) -> (usize, usize, usize) {
    let out = dir.join(format!("ink{page}"));
    let n = page.to_string();
    let drawn = Command::new("pdftoppm")
        .args([
            "-r",
            "72",
            "-gray",
            "-png",
            "-f",
            &n,
            "-l",
            &n,
            "-singlefile",
        ])
        .arg(pdf)
        .arg(&out)
        .status()
        .expect("pdftoppm (poppler-utils) must be installed");
    assert!(drawn.success());
    let file = std::fs::File::open(out.with_extension("png")).unwrap();
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let (w, h) = (frame.width as usize, frame.height as usize);
    // `-gray` is a gray page, whatever channels the PNG carries: the first one.
    let channels = frame.line_size / w;
    let inked = |x: usize| (0..h).any(|y| buf[y * frame.line_size + x * channels] < 128);
    let first = (0..w).find(|&x| inked(x)).expect("an inked page");
    let last = (0..w).rev().find(|&x| inked(x)).unwrap();
    (first, last, w)
}

#[test]
fn the_inside_margin_is_at_least_the_outside_one() {
    // Regression: a 6x9 book had a 0.375 in inside margin and 0.5 in outside: grids
    // sat nearer the spine than the edge. Measured on the drawn pages: page 1 is a
    // recto (spine on the left), page 2 a verso.
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("book.pdf");
    render(bank(), &["--count", "8", "--trim", "6x9", "-q", "--pdf"])
        .arg(&pdf)
        .assert()
        .success();
    for page in [1, 2] {
        let (first, last, width) = ink_columns(&pdf, page, dir.path());
        let (left, right) = (first, width - 1 - last);
        let (inside, outside) = if page % 2 == 1 {
            (left, right)
        } else {
            (right, left)
        };
        assert!(outside >= 36, "page {page}: outside margin {outside} pt");
        assert!(
            inside >= outside,
            "page {page}: inside margin {inside} pt < outside {outside} pt"
        );
        // The gutter on top of the outside margin: 0.375 in for a short book.
        assert!(inside >= 36 + 27, "page {page}: inside margin {inside} pt");
    }
}

#[test]
fn a_hyphenated_band_reads_as_words_in_the_book() {
    // Regression: the band `very-hard` was printed "Very-hard".
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .count(20)
        .seed(4)
        .args(["--bands", "easy=36-40,very-hard=24-28"])
        .bank();
    let pdf = dir.path().join("book.pdf");
    render(&bank, &["--count", "4", "-q", "--pdf"])
        .arg(&pdf)
        .assert()
        .success();
    let text = poppler("pdftotext", &[], &pdf);
    assert!(text.contains("Very hard"), "{text}");
    assert!(!text.contains("Very-hard"), "{text}");
}

/// Every puzzle caption of a book's text with `--caption band,rating`, "#N Band · SE
/// r": (N, band, rating).
fn captions(text: &str) -> Vec<(usize, &str, &str)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(5)
        .filter(|w| w[0].starts_with('#') && w[2] == "·" && w[3] == "SE")
        .map(|w| (w[0][1..].parse().unwrap(), w[1], w[4]))
        .collect()
}

/// `--count BAND=N,...` makes one section of N per band, each ordered by rating then
/// clues (read back from the PDF's captions with poppler, and from `--txt`); the
/// default caption is the number alone.
#[test]
fn a_book_of_forty_per_band_in_rating_order() {
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank"))
        .args(["--grade", "rating"])
        .count(300)
        .seed(21)
        .bank();
    let rows = read_bank(&bank);
    let (pdf, txt) = (dir.path().join("book.pdf"), dir.path().join("book.txt"));
    let count = ["--count", "easy=40,medium=40,hard=40", "-q"];
    render(&bank, &count)
        .args(["--caption", "band,rating", "--pdf"])
        .arg(&pdf)
        .arg("--txt")
        .arg(&txt)
        .assert()
        .success();
    let text = poppler("pdftotext", &["-layout"], &pdf);
    let book = captions(&text);
    let numbers: Vec<usize> = book.iter().map(|c| c.0).collect();
    assert_eq!(numbers, (1..=120).collect::<Vec<_>>(), "{text}");
    let givens = lines_of(&txt);
    assert_eq!(givens.len(), 120);
    for (k, band) in ["Easy", "Medium", "Hard"].into_iter().enumerate() {
        let section = &book[40 * k..40 * (k + 1)];
        assert!(section.iter().all(|c| c.1 == band), "{section:?}");
        // Lower rating first; equal ratings, more clues first.
        let keys: Vec<(f64, std::cmp::Reverse<u16>)> = section
            .iter()
            .map(|&(n, _, rating)| {
                let row = rows.iter().find(|r| r.puzzle == givens[n - 1]).unwrap();
                assert_eq!(row.rating, rating, "#{n}");
                (rating.parse().unwrap(), std::cmp::Reverse(row.clues))
            })
            .collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{band}: {keys:?}");
    }
    // The book's --txt rendered again, rated and banded by rating on the way in, is
    // the same book (regression: a puzzle file was banded by clue count, unrated).
    let again = dir.path().join("again.pdf");
    render(
        &txt,
        &[
            "--grade",
            "rating",
            "--caption",
            "band,rating",
            "-q",
            "--pdf",
        ],
    )
    .arg(&again)
    .assert()
    .success();
    let text_again = poppler("pdftotext", &["-layout"], &again);
    assert_eq!(captions(&text_again), book);
    // By default the caption is the number: no band, no rating, no technique.
    let plain = dir.path().join("plain.pdf");
    render(&bank, &count)
        .arg("--pdf")
        .arg(&plain)
        .assert()
        .success();
    let text = poppler("pdftotext", &["-layout"], &plain);
    assert!(!text.contains("SE ") && !text.contains('·'), "{text}");
    assert!(text.contains("#120"), "{text}");
    // A band asked for more than it holds is named.
    let run = render(&bank, &["--count", "easy=61", "--pdf"])
        .arg(dir.path().join("short.pdf"))
        .assert()
        .code(2);
    let stderr = crate::common::stderr_of(&run);
    assert!(
        stderr.contains("only 60 distinct puzzles are available in band \"easy\""),
        "{stderr}"
    );
}

/// Regression: SIGTERM during `--png` into a directory the run made left the images
/// written so far, a set cut short that looked like a finished one. Now the
/// directory goes, as a failure's does; one that was there keeps its files.
#[test]
fn a_signal_during_the_images_removes_the_directory_the_run_made() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let bank = generate(dir.path().join("bank")).count(1000).seed(4).bank();
    let pngs = dir.path().join("pngs");
    let written = |d: &Path| std::fs::read_dir(d).map_or(0, |e| e.count());
    let mut cmd = Command::new(common::bin());
    cmd.arg("render")
        .arg(&bank)
        .args(["--count", "1000", "--dpi", "300", "--png"])
        .arg(&pngs);
    let status = common::signal_when(cmd, || written(&pngs) >= 4, libc::SIGTERM)
        .expect("2,000 images take longer than the wait for four");
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    assert!(!pngs.exists(), "{:?}", listing(&pngs));
    assert_eq!(listing(dir.path()), ["bank"]);
}
