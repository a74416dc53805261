//! The offline HTML play page in a real browser: the page is made by the library
//! from real puzzles (solved, rated and banded by the engine), written to a
//! temporary directory, and played in headless Chromium by
//! `scripts/check-play-page.py` (Selenium + chromedriver), which types, checks,
//! reveals, reloads, solves and downloads the PNG, then saves a screenshot.
//!
//! The browser tools are Debian's `chromium`, `chromium-driver` and
//! `python3-selenium`; when one is missing this test fails and says what to
//! install: it never skips. Set `PLAY_PAGE_DIR=DIR` to keep the pages and the
//! screenshot in DIR (to open them by hand, or to refresh the README's picture,
//! `data/examples/play-page.png`).

use std::path::Path;
use std::process::Command;

use rand::SeedableRng;
use rand_pcg::Pcg64;
use sudoku_factory::engine::bands::BandTable;
use sudoku_factory::engine::board::{Board, Nxn};
use sudoku_factory::engine::generate::{Carve, Fill, Symmetry};
use sudoku_factory::engine::grid::{parse_sized, Size};
use sudoku_factory::engine::nxn::{Box3, Box4};
use sudoku_factory::render::html::{play_page, PlayPuzzle};

/// Debian's interpreter, which has `python3-selenium` (a pyenv `python3` on PATH
/// may not).
const PYTHON: &str = "/usr/bin/python3";
const INSTALL: &str = "apt-get install chromium chromium-driver python3-selenium";

/// Two 9×9 puzzles of the SE 2.5 set (an easy one to type in).
const NINES: [&str; 2] = [
    "....4....8.2...7.3.9.....6.9...1...6..7.5.1....43.89.....5.7...3...2...5..69.18..",
    ".9....3...1..79.565..3......5..4.1...6.1.7.2...8.9..4......5..263.71..9...1....6.",
];

/// A puzzle with what the page shows about it, owned.
struct Played {
    number: usize,
    band: String,
    rating: Option<String>,
    technique: Option<String>,
    givens: Vec<u8>,
    solution: Vec<u8>,
}

impl Played {
    fn as_play(&self) -> PlayPuzzle<'_> {
        PlayPuzzle {
            number: self.number,
            band: &self.band,
            rating: self.rating.as_deref(),
            technique: self.technique.as_deref(),
            givens: &self.givens,
            solution: &self.solution,
        }
    }
}

fn band(size: Size, n_clues: usize) -> String {
    let table = BandTable::default_for(size);
    let n_clues = u16::try_from(n_clues).expect("a board's clue count fits");
    // Beyond the table's easiest band (more clues) the bank says the easiest name.
    let i = table.grade(n_clues).unwrap_or(0);
    table.bands()[i].name.clone()
}

/// The 9×9 puzzles, solved and rated by the engine, numbered as bank ids would be.
fn nines() -> Vec<Played> {
    NINES
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mut givens = [0u8; 81];
            parse_sized(text, i + 1, Size::Nine, &mut givens).expect("a test puzzle parses");
            let solution = match Nxn::<Box3>::solve(&givens) {
                sudoku_factory::engine::board::Verdict::Unique(s) => s,
                _ => panic!("test puzzle {i} has one solution"),
            };
            let rating = Nxn::<Box3>::rate(&givens).expect("a unique puzzle is rated");
            Played {
                number: 1000 + i,
                band: band(Size::Nine, givens.iter().filter(|&&v| v != 0).count()),
                rating: Some(rating.to_string()),
                technique: Some(rating.technique.name().to_string()),
                givens: givens.to_vec(),
                solution: solution.to_vec(),
            }
        })
        .collect()
}

/// A 16×16 puzzle made by the engine: a filled grid carved down to 200 givens.
fn sixteen() -> Played {
    let mut rng = Pcg64::seed_from_u64(13);
    let solution = Nxn::<Box4>::fill(Fill::Template, &mut rng);
    let carved = Nxn::<Box4>::carve(Carve::Target, 200, Symmetry::None, &solution, &mut rng);
    assert_eq!(Nxn::<Box4>::count_solutions(&carved.puzzle, 2), 1);
    Played {
        number: 1,
        band: band(Size::Sixteen, usize::from(carved.n_clues)),
        rating: None,
        technique: None,
        givens: carved.puzzle.to_vec(),
        solution: solution.to_vec(),
    }
}

fn write_page(path: &Path, size: Size, title: &str, puzzles: &[Played]) {
    let play: Vec<PlayPuzzle<'_>> = puzzles.iter().map(Played::as_play).collect();
    let html = play_page(size, title, &play).expect("the engine's puzzles make a page");
    std::fs::write(path, html).expect("writing the page");
}

/// The page the command makes: `render BANK --html` of a rated bank, twice (same
/// bytes), in `dir`.
fn rendered_page(dir: &Path) -> std::path::PathBuf {
    let bin = env!("CARGO_BIN_EXE_sudoku-factory");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new(bin)
            .args(args)
            .output()
            .expect("running sudoku-factory");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            crate::common::stderr_of(&out)
        );
    };
    let bank = dir.join("bank");
    let _ = std::fs::remove_dir_all(&bank);
    run(&[
        "generate".as_ref(),
        "--grade".as_ref(),
        "rating".as_ref(),
        "--count".as_ref(),
        "40".as_ref(),
        "--variants".as_ref(),
        "2".as_ref(),
        "-q".as_ref(),
        "--out".as_ref(),
        bank.as_os_str(),
    ]);
    let pages = ["play-rendered.html", "play-rendered-again.html"].map(|name| {
        let page = dir.join(name);
        run(&[
            "render".as_ref(),
            bank.as_os_str(),
            "--html".as_ref(),
            page.as_os_str(),
            "--count".as_ref(),
            "5".as_ref(),
            "--seed".as_ref(),
            "9".as_ref(),
            "--force".as_ref(),
            "-q".as_ref(),
        ]);
        page
    });
    let (a, b) = (
        std::fs::read(&pages[0]).unwrap(),
        std::fs::read(&pages[1]).unwrap(),
    );
    assert!(a == b, "the same selection gives the same page");
    let text = String::from_utf8(a).unwrap();
    assert!(
        !text.contains("http"),
        "the rendered page names no web address"
    );
    // Five puzzles of a rated bank: one per class, with their rating, technique and
    // hints.
    let data = page_data(&text);
    let puzzles = data["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), 5, "{data}");
    for p in puzzles {
        assert!(p["rating"].is_string() && p["technique"].is_string(), "{p}");
        assert!(!p["hints"].as_array().unwrap().is_empty(), "{p}");
    }
    pages[0].clone()
}

/// The JSON document a play page carries.
fn page_data(html: &str) -> serde_json::Value {
    let open = r#"<script type="application/json" id="puzzle-data">"#;
    let start = html.find(open).expect("the page has its data element") + open.len();
    let end = start
        + html[start..]
            .find("</script>")
            .expect("the data element ends");
    serde_json::from_str(&html[start..end]).expect("the page's data is JSON")
}

/// Runs the checker on `page` (and `more` pages), saving its screenshot to `shot`.
fn check(page: &Path, shot: &Path, more: &[&Path]) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-play-page.py");
    assert!(
        Path::new(PYTHON).is_file(),
        "{PYTHON} is missing: the play page test needs Debian's python3 with `{INSTALL}`"
    );
    Command::new(PYTHON)
        .arg(&script)
        .arg(page)
        .arg(shot)
        .args(more)
        .output()
        .unwrap_or_else(|e| panic!("running {PYTHON} {}: {e}", script.display()))
}

#[test]
fn the_play_page_plays_in_a_headless_browser() {
    let temp = tempfile::tempdir().expect("a temporary directory");
    let dir = match std::env::var_os("PLAY_PAGE_DIR") {
        Some(keep) => std::path::PathBuf::from(keep),
        None => temp.path().to_path_buf(),
    };
    std::fs::create_dir_all(&dir).expect("creating $PLAY_PAGE_DIR");
    let nine = dir.join("play-9x9.html");
    let sixteen_page = dir.join("play-16x16.html");
    let screenshot = dir.join("play-page.png");
    write_page(&nine, Size::Nine, "Sudoku Factory · Book 1", &nines());
    write_page(&sixteen_page, Size::Sixteen, "16×16", &[sixteen()]);
    let rendered = rendered_page(&dir);

    let out = check(&nine, &screenshot, &[&sixteen_page, &rendered]);
    let stdout = crate::common::stdout_of(&out);
    let stderr = crate::common::stderr_of(&out);
    assert!(
        out.status.success(),
        "the play page failed in the browser ({}):\n{stdout}{stderr}\n(the tools: `{INSTALL}`)",
        out.status
    );
    assert!(stdout.contains("check-play-page: ok"), "{stdout}{stderr}");

    // The game in progress, and a hint past the singles on the rendered page.
    for shot in [screenshot, dir.join("play-page-hint.png")] {
        let png = std::fs::read(&shot).expect("the script saved a screenshot");
        assert!(
            png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000,
            "{} is a PNG picture ({} bytes)",
            shot.display(),
            png.len()
        );
    }
}

/// The checker can fail: a page whose Check marks nothing is refused, by name.
#[test]
fn the_checker_fails_a_page_whose_check_marks_nothing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let page = dir.path().join("broken.html");
    write_page(&page, Size::Nine, "broken", &nines());
    let html = std::fs::read_to_string(&page).expect("reading the page back");
    let marking = "game.wrong.add(i)";
    assert_eq!(
        html.matches(marking).count(),
        1,
        "play.js marks wrong entries here"
    );
    std::fs::write(&page, html.replace(marking, "void i")).expect("writing the broken page");

    let out = check(&page, &dir.path().join("shot.png"), &[]);
    let stderr = crate::common::stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("FAIL") && stderr.contains("Check marks the wrong entry"),
        "{stderr}"
    );
}
