//! The offline HTML play page (issue #13): one self-contained file in which a person
//! plays the chosen puzzles in a browser, from `file://`, on a desk or a phone.
//!
//! The page is a template (`play.html`) with the player inlined: `play.css` and
//! `play.js`, kept as real files so they read and lint as what they are, and no
//! framework. The puzzles travel inside it as one JSON document in a
//! `<script type="application/json">` element, which the script reads; nothing is
//! fetched, so the page works offline and the file is all there is to share.
//!
//! Properties the page keeps (the unit tests below check them):
//!
//! * Deterministic: the bytes depend only on the arguments (no date, no random id),
//!   so a publisher regenerates the same file from the same bank.
//! * No network: no URL scheme of the web appears anywhere in the page (the unit
//!   test greps for `http`), so no font, script or image is ever requested.
//! * Safe embedding: the title is HTML-escaped, and in the JSON every `<`, `>` and
//!   `&` is written as a `\u00XX` escape, so no text a caller passes (a band name,
//!   a title) can close the data element or open a tag.
//! * Progress is kept in the browser's `localStorage` under a key made of a hash of
//!   the page's data, so two pages opened from `file://` (one origin for all files
//!   in most browsers) do not overwrite each other's progress; a page regenerated
//!   with the same puzzles finds its progress again.

use serde::Serialize;

use crate::engine::grid::{find_repeat, format_sized_into, Size};
use crate::engine::rating::Rater;

/// The page around the player; `{{name}}` marks where [`play_page`] puts each part.
const TEMPLATE: &str = include_str!("play.html");
/// The player's style sheet, screen and print.
const CSS: &str = include_str!("play.css");
/// The player: input, pencil marks, check, reveal, timer, storage, PNG download.
const JS: &str = include_str!("play.js");

/// One puzzle of a play page, as a bank row gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayPuzzle<'a> {
    /// The number shown to the player (e.g. the bank's `id`).
    pub number: usize,
    /// The difficulty band's name (the bank's `difficulty` column).
    pub band: &'a str,
    /// The technique rating as the bank writes it (`2.3`), when there is one.
    pub rating: Option<&'a str>,
    /// The hardest technique the rating needed (`naked-pair`), when there is one.
    pub technique: Option<&'a str>,
    /// The puzzle, row-major: `0` = empty, `1..=N` = a given.
    pub givens: &'a [u8],
    /// Its complete solution, row-major, `1..=N`.
    pub solution: &'a [u8],
}

/// Why a play page could not be made from the puzzles given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayPageError {
    /// The page would have nothing to play.
    #[error("no puzzles for the play page (choose at least one)")]
    NoPuzzles,
    /// A puzzle or solution is not of the page's size.
    #[error("puzzle {number}: the {what} has {found} cells, expected {expected} for {size}")]
    BadLength {
        number: usize,
        what: &'static str,
        found: usize,
        expected: usize,
        size: Size,
    },
    /// A cell holds a value outside the size's range (or an empty solution cell).
    #[error(
        "puzzle {number}: the {what} holds {value} at row {row}, column {column} \
         (expected {expected})"
    )]
    BadValue {
        number: usize,
        what: &'static str,
        row: usize,
        column: usize,
        value: u8,
        expected: &'static str,
    },
    /// The solution is not a valid grid: the player could never be told "solved".
    #[error("puzzle {number}: the solution repeats {symbol:?} in {unit}")]
    BadSolution {
        number: usize,
        symbol: char,
        unit: String,
    },
    /// A given differs from the solution in the same cell.
    #[error("puzzle {number}: the given at row {row}, column {column} differs from the solution")]
    GivenNotInSolution {
        number: usize,
        row: usize,
        column: usize,
    },
}

/// The JSON document the player reads (`play.js` names the same fields).
#[derive(Serialize)]
struct PageData<'a> {
    /// Side N of the boards.
    size: usize,
    /// Side of a box.
    #[serde(rename = "box")]
    box_side: usize,
    /// The symbols of values 1..=N in order (`123456789ABCDEFG`).
    symbols: &'a str,
    /// What this page's `localStorage` keys start with (after a fixed prefix).
    key: String,
    puzzles: Vec<PuzzleData<'a>>,
}

/// One puzzle as the player reads it: boards in the bank's text format.
#[derive(Serialize)]
struct PuzzleData<'a> {
    number: usize,
    band: &'a str,
    rating: Option<&'a str>,
    technique: Option<&'a str>,
    givens: String,
    solution: String,
    /// 9×9 only: the solving path one pattern at a time, for the Hint button.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hints: Vec<HintData>,
}

/// One pattern of the solving path as the Hint button shows it (cells 0..80,
/// digits 1..9, houses 0..27: rows, columns, boxes).
#[derive(Serialize)]
struct HintData {
    technique: &'static str,
    rating: String,
    cells: Vec<u8>,
    houses: Vec<u8>,
    digits: Vec<u8>,
    placements: Vec<(u8, u8)>,
    eliminations: Vec<(u8, u8)>,
}

/// The hints of a 9×9 puzzle: every pattern of its solving path ([`Rater`]), in
/// order; none for a puzzle the rater refuses (the page still plays it).
fn hints(rater: &mut Rater, givens: &[u8]) -> Vec<HintData> {
    let Ok(cells) = <&crate::engine::grid::Cells>::try_from(givens) else {
        return Vec::new();
    };
    let mut steps = Vec::new();
    if rater.rate_with_steps(cells, &mut steps).is_err() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for step in &steps {
        for p in &step.patterns {
            out.push(HintData {
                technique: step.technique.name(),
                rating: format!("{}.{}", step.rating / 10, step.rating % 10),
                cells: p.cells.clone(),
                houses: (0..27).filter(|u| p.houses >> u & 1 != 0).collect(),
                digits: (1..=9).filter(|d| p.digits >> (d - 1) & 1 != 0).collect(),
                placements: p.placements.clone(),
                eliminations: p.eliminations.clone(),
            });
        }
    }
    out
}

/// Makes the play page of `puzzles`, boards of `size`, titled `title`.
///
/// The size is the engine's [`Size`] rather than a bare side length, so an
/// impossible size cannot be asked for; the puzzles are checked (cell count, value
/// range, a valid solution that agrees with the givens) because the page could not
/// otherwise tell the player when a puzzle is solved.
pub fn play_page(
    size: Size,
    title: &str,
    puzzles: &[PlayPuzzle<'_>],
) -> Result<String, PlayPageError> {
    if puzzles.is_empty() {
        return Err(PlayPageError::NoPuzzles);
    }
    let n = size.side();
    let symbols = &crate::engine::grid::SYMBOLS[1..=n];
    let symbols = std::str::from_utf8(symbols).expect("the symbol table is ASCII");
    let mut rater = Rater::new();
    let mut data = PageData {
        size: n,
        box_side: size.box_side(),
        symbols,
        key: String::new(),
        puzzles: puzzles
            .iter()
            .map(|p| puzzle_data(size, p, &mut rater))
            .collect::<Result<_, _>>()?,
    };
    // The storage key is a hash of everything else the page shows, the title too:
    // same page, same key (progress survives regenerating the file); another page,
    // another key.
    let unkeyed = serde_json::to_string(&(title, &data)).expect("page data serialises");
    data.key = format!(
        "{:016x}",
        twox_hash::XxHash3_64::oneshot(unkeyed.as_bytes())
    );
    let json = serde_json::to_string(&data).expect("page data serialises");

    let title = escape_html(title);
    let data = escape_script_json(&json);
    Ok(fill_template(TEMPLATE, |name| match name {
        "title" => Some(title.as_str()),
        "css" => Some(CSS),
        "data" => Some(data.as_str()),
        "js" => Some(JS),
        _ => None,
    }))
}

/// Checks one puzzle and writes its boards in the text format.
/// `rater` rates 9×9 puzzles for their hints (one for the page: it owns a few MiB
/// of scratch space).
fn puzzle_data<'a>(
    size: Size,
    p: &PlayPuzzle<'a>,
    rater: &mut Rater,
) -> Result<PuzzleData<'a>, PlayPageError> {
    let n = size.side();
    let n_cells = size.n_cells();
    let number = p.number;
    for (what, cells) in [("puzzle", p.givens), ("solution", p.solution)] {
        if cells.len() != n_cells {
            return Err(PlayPageError::BadLength {
                number,
                what,
                found: cells.len(),
                expected: n_cells,
                size,
            });
        }
        let lowest = u8::from(what == "solution");
        if let Some(at) = cells.iter().position(|&v| v < lowest || usize::from(v) > n) {
            return Err(PlayPageError::BadValue {
                number,
                what,
                row: at / n + 1,
                column: at % n + 1,
                value: cells[at],
                expected: size.symbols(),
            });
        }
    }
    if let Some((unit, at, _)) = find_repeat(p.solution, size) {
        return Err(PlayPageError::BadSolution {
            number,
            symbol: char::from(crate::engine::grid::SYMBOLS[usize::from(p.solution[at])]),
            unit: unit.to_string(),
        });
    }
    if let Some(at) = (0..n_cells).find(|&i| p.givens[i] != 0 && p.givens[i] != p.solution[i]) {
        return Err(PlayPageError::GivenNotInSolution {
            number,
            row: at / n + 1,
            column: at % n + 1,
        });
    }
    Ok(PuzzleData {
        number,
        band: p.band,
        rating: p.rating,
        technique: p.technique,
        givens: text(p.givens),
        solution: text(p.solution),
        hints: if size == Size::Nine {
            hints(rater, p.givens)
        } else {
            Vec::new()
        },
    })
}

/// A board in the bank's text format (`.` for empty, `A` = 10).
fn text(cells: &[u8]) -> String {
    let mut out = vec![0u8; cells.len()];
    format_sized_into(cells, &mut out);
    String::from_utf8(out).expect("the text format is ASCII")
}

/// Text made safe between tags and inside attribute values.
fn escape_html(text: &str) -> String {
    replace_chars(text, |ch| match ch {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '"' => Some("&quot;"),
        '\'' => Some("&#39;"),
        _ => None,
    })
}

/// JSON made safe inside a `<script>` element: `<`, `>` and `&` only occur inside
/// JSON strings, where `\u003c` etc. mean the same character, so the document parses
/// to the same value while `</script>` and `<!--` can no longer appear in it.
fn escape_script_json(json: &str) -> String {
    replace_chars(json, |ch| match ch {
        '<' => Some("\\u003c"),
        '>' => Some("\\u003e"),
        '&' => Some("\\u0026"),
        _ => None,
    })
}

/// `text` with every character `with` names replaced by what it gives.
fn replace_chars(text: &str, with: impl Fn(char) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match with(ch) {
            Some(replacement) => out.push_str(replacement),
            None => out.push(ch),
        }
    }
    out
}

/// Replaces each `{{name}}` of `template` by `part(name)`, in one pass over the
/// template only, so a part that happens to contain `{{...}}` (a title) is never
/// expanded itself. A name `part` does not know is a bug in the template.
fn fill_template<'a>(template: &str, part: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(template.len() + CSS.len() + JS.len() + 4096);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        let close = rest[open..]
            .find("}}")
            .map(|c| open + c)
            .expect("every {{ of the template is closed");
        let name = &rest[open + 2..close];
        out.push_str(&rest[..open]);
        out.push_str(part(name).unwrap_or_else(|| panic!("unknown template part {name:?}")));
        rest = &rest[close + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grid::parse_sized;

    /// A 9×9 puzzle and its solution (DESIGN.md's example).
    const PUZZLE: &str =
        "..9...43.....7.52..5......638.9.4.6.....5.9.....7.6..39..4......6....7.....837..2";

    fn cells(size: Size, text: &str) -> Vec<u8> {
        let mut out = vec![0; size.n_cells()];
        parse_sized(text, 1, size, &mut out).expect("a test board parses");
        out
    }

    /// A puzzle of `size` with its solution: the pattern grid, every other cell empty.
    fn pattern_puzzle(size: Size) -> (Vec<u8>, Vec<u8>) {
        let (n, b) = (size.side(), size.box_side());
        let solution: Vec<u8> = (0..n * n)
            .map(|i| {
                let (r, c) = (i / n, i % n);
                ((b * (r % b) + r / b + c) % n + 1) as u8
            })
            .collect();
        assert!(find_repeat(&solution, size).is_none(), "a valid grid");
        let givens = solution
            .iter()
            .enumerate()
            .map(|(i, &v)| if i % 2 == 0 { v } else { 0 })
            .collect();
        (givens, solution)
    }

    fn nine() -> (Vec<u8>, Vec<u8>) {
        let givens = cells(Size::Nine, PUZZLE);
        let crate::engine::nxn::solve::nine::Verdict::Unique(solution) =
            crate::engine::nxn::solve::nine::solve(&givens.clone().try_into().expect("81 cells"))
        else {
            panic!("the example puzzle is unique");
        };
        (givens, solution.to_vec())
    }

    /// Puzzle `number` of `band`, without a rating.
    fn unrated<'a>(number: usize, band: &'a str, puzzle: &'a (Vec<u8>, Vec<u8>)) -> PlayPuzzle<'a> {
        PlayPuzzle {
            number,
            band,
            rating: None,
            technique: None,
            givens: &puzzle.0,
            solution: &puzzle.1,
        }
    }

    fn page(title: &str, band: &str) -> String {
        let puzzle = nine();
        let puzzles = [
            PlayPuzzle {
                rating: Some("2.3"),
                technique: Some("naked-single"),
                ..unrated(7, band, &puzzle)
            },
            unrated(8, "hard", &puzzle),
        ];
        play_page(Size::Nine, title, &puzzles).expect("valid puzzles")
    }

    /// The JSON document embedded in `page`, as the script reads it.
    fn embedded_data(page: &str) -> serde_json::Value {
        let start = page
            .find(r#"<script type="application/json" id="puzzle-data">"#)
            .expect("the data element");
        let body = &page[start..];
        let body = &body[body.find('>').expect("tag end") + 1..];
        let body = &body[..body.find("</script>").expect("the data element closes")];
        serde_json::from_str(body).expect("the embedded data is JSON")
    }

    #[test]
    fn the_same_input_gives_the_same_bytes() {
        let a = page("Book 7", "easy");
        let b = page("Book 7", "easy");
        assert_eq!(a, b);
        assert_ne!(a, page("Book 8", "easy"), "the title is on the page");
    }

    #[test]
    fn the_page_names_no_web_address() {
        for size in Size::ALL {
            let puzzle = pattern_puzzle(size);
            let puzzle = unrated(1, "easy", &puzzle);
            let html = play_page(size, "t", &[puzzle]).expect("valid puzzle");
            assert!(
                !html.to_ascii_lowercase().contains("http"),
                "{size}: the page mentions http"
            );
            assert!(!html.contains("//cdn") && !html.contains("src="), "{size}");
        }
    }

    #[test]
    fn text_from_the_caller_cannot_break_out_of_its_element() {
        let html = page("</script><b>x</b> & {{js}}", "</script><b>band</b>");
        let lower = html.to_ascii_lowercase();
        assert!(!html.contains("<b>"), "no tag from the title or the band");
        assert!(html.contains("<title>&lt;/script&gt;&lt;b&gt;x&lt;/b&gt; &amp; {{js}}</title>"));
        // One `</script>` closes the data element and one the player; the title's
        // `{{js}}` was not expanded into a second copy of the player.
        assert_eq!(lower.matches("</script").count(), 2);
        assert_eq!(html.matches(JS).count(), 1);
        // The band still reaches the player intact, through the JSON escapes.
        let data = embedded_data(&html);
        assert_eq!(data["puzzles"][0]["band"], "</script><b>band</b>");
    }

    #[test]
    fn the_inlined_player_cannot_close_its_own_element() {
        let css = CSS.to_ascii_lowercase();
        let js = JS.to_ascii_lowercase();
        assert!(!css.contains("</style"), "play.css closes its <style>");
        assert!(!js.contains("</script") && !js.contains("<!--"), "play.js");
        assert!(!TEMPLATE.to_ascii_lowercase().contains("http"));
    }

    #[test]
    fn the_embedded_data_is_what_the_player_needs() {
        let (givens, solution) = nine();
        let html = page("Book 7", "easy");
        let data = embedded_data(&html);
        assert_eq!(data["size"], 9);
        assert_eq!(data["box"], 3);
        assert_eq!(data["symbols"], "123456789");
        assert_eq!(data["key"].as_str().map(str::len), Some(16));
        let first = &data["puzzles"][0];
        assert_eq!(first["number"], 7);
        assert_eq!(first["band"], "easy");
        assert_eq!(first["rating"], "2.3");
        assert_eq!(first["technique"], "naked-single");
        assert_eq!(first["givens"], PUZZLE);
        assert_eq!(first["solution"], text(&solution));
        assert_eq!(data["puzzles"][1]["rating"], serde_json::Value::Null);
        assert_eq!(givens.len(), 81);
        // Another title is another page: its progress is kept under another key.
        let other = embedded_data(&page("Book 8", "easy"));
        assert_ne!(data["key"], other["key"]);
    }

    #[test]
    fn every_size_makes_a_page() {
        for size in Size::ALL {
            let grids = pattern_puzzle(size);
            let (givens, solution) = &grids;
            let puzzle = unrated(3, "medium", &grids);
            let html = play_page(size, &format!("{size} book"), &[puzzle]).expect("valid");
            assert!(html.starts_with("<!DOCTYPE html>"), "{size}");
            assert!(html.trim_end().ends_with("</html>"), "{size}");
            let data = embedded_data(&html);
            assert_eq!(data["size"], size.side());
            assert_eq!(data["box"], size.box_side());
            assert_eq!(
                data["symbols"].as_str().map(str::len),
                Some(size.side()),
                "{size}"
            );
            assert_eq!(data["puzzles"][0]["givens"], text(givens), "{size}");
            assert_eq!(
                cells(size, data["puzzles"][0]["solution"].as_str().expect("text")),
                *solution,
                "{size}: the solution reads back"
            );
        }
    }

    #[test]
    fn puzzles_the_page_could_not_play_are_refused() {
        let puzzle = nine();
        let (givens, solution) = &puzzle;
        let good = unrated(5, "easy", &puzzle);
        assert_eq!(
            play_page(Size::Nine, "t", &[]),
            Err(PlayPageError::NoPuzzles)
        );

        let short = PlayPuzzle {
            givens: &givens[..80],
            ..good
        };
        let err = play_page(Size::Nine, "t", &[short]).expect_err("80 cells");
        assert_eq!(
            err.to_string(),
            "puzzle 5: the puzzle has 80 cells, expected 81 for 9x9"
        );

        let mut unsolved = solution.clone();
        unsolved[10] = 0;
        let err = play_page(
            Size::Nine,
            "t",
            &[PlayPuzzle {
                solution: &unsolved,
                ..good
            }],
        )
        .expect_err("an empty solution cell");
        assert!(matches!(
            err,
            PlayPageError::BadValue {
                what: "solution",
                row: 2,
                column: 2,
                ..
            }
        ));

        let mut repeated = solution.clone();
        repeated.swap(0, 1);
        repeated[1] = repeated[0];
        assert!(matches!(
            play_page(
                Size::Nine,
                "t",
                &[PlayPuzzle {
                    solution: &repeated,
                    ..good
                }]
            ),
            Err(PlayPageError::BadSolution { number: 5, .. })
        ));

        let mut wrong_given = givens.clone();
        let at = wrong_given.iter().position(|&v| v != 0).expect("a given");
        wrong_given[at] = wrong_given[at] % 9 + 1;
        assert_eq!(
            play_page(
                Size::Nine,
                "t",
                &[PlayPuzzle {
                    givens: &wrong_given,
                    ..good
                }]
            ),
            Err(PlayPageError::GivenNotInSolution {
                number: 5,
                row: at / 9 + 1,
                column: at % 9 + 1
            })
        );
    }
}
