//! `render`: puzzles laid out for people — a print-ready PDF book, one SVG or PNG
//! image per puzzle and per solution, and plain text — with no I/O (the command in
//! `cmd::render` reads the input and writes the files).
//!
//! The pipeline is: candidates → [`select`] (bands, one per canonical class, exclusions,
//! a seeded pick, book order) → a plain list of [`Puzzle`]s → [`layout`] (a display
//! list of lines, rectangles and text in points, pages of a book or one image) →
//! [`pdf`], [`svg`], [`png`] (each turns the same display list into bytes). The
//! embedded font and its metrics live in [`font`]; every writer and the layout use it,
//! so what the layout measures is what the writers draw.
//!
//! * [`select`] — which puzzles, in which order, numbered; the list any writer (the
//!   book, the images, the text, an HTML page) consumes.
//! * [`layout`] — trim sizes, margins and the print-on-demand gutter table, the book's
//!   pages and one image per grid: geometry only.
//! * [`font`] — the DejaVu Sans fonts shipped in `data/fonts/` (compiled in: no system
//!   font lookup), glyph ids, advance widths, outlines.
//! * [`pdf`] — the display list as PDF objects (pdf-writer), fonts embedded as subset
//!   CID fonts with a ToUnicode map; same input, same bytes.
//! * [`svg`] — the display list as SVG, text as glyph outlines (no font needed to view).
//! * [`png`] — the display list rasterised (coverage anti-aliasing) and PNG-encoded.
//! * [`html`] — the offline HTML play page: one self-contained file with the puzzles
//!   embedded as JSON and the player (`play.js`, `play.css`) inlined.
//!
//! Architecture invariant: nothing here reads or writes a file; the writers return
//! bytes, and the same display list feeds all of them.

pub mod font;
pub mod html;
pub mod layout;
pub mod pdf;
pub mod png;
pub mod select;
pub mod svg;

use crate::engine::grid::{Size, SYMBOLS};

/// One chosen puzzle, as every writer consumes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// Its number in the book, from 1, in book order.
    pub number: u32,
    pub size: Size,
    /// The difficulty band's name.
    pub band: String,
    /// The SE rating in tenths (23 = 2.3) and the hardest technique's name, when the
    /// input has them.
    pub rating: Option<(u8, String)>,
    /// The clues, row-major, 0 = empty.
    pub givens: Vec<u8>,
    /// The full solution, row-major.
    pub solution: Vec<u8>,
}

impl Puzzle {
    /// Number of givens.
    pub fn n_clues(&self) -> usize {
        self.givens.iter().filter(|&&v| v != 0).count()
    }

    /// The rating as written in a bank (`4.2`), if any.
    pub fn rating_text(&self) -> Option<String> {
        self.rating
            .as_ref()
            .map(|(r, _)| format!("{}.{}", r / 10, r % 10))
    }

    /// The givens in the DESIGN text format (`.` for empty).
    pub fn givens_text(&self) -> String {
        cells_text(&self.givens)
    }
}

/// A board in the DESIGN text format (`.` for empty).
pub fn cells_text(cells: &[u8]) -> String {
    cells.iter().map(|&v| symbol(v)).collect()
}

/// The symbol of cell value `v` (1 → '1', 10 → 'A', 0 → '.').
pub fn symbol(v: u8) -> char {
    char::from(SYMBOLS[usize::from(v).min(SYMBOLS.len() - 1)])
}
