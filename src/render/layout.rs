//! Geometry of `render`: where every line, rectangle and glyph of a book page or a
//! grid image goes, as a display list in points — the one input of the PDF, SVG and
//! PNG writers, so the three never disagree.
//!
//! Coordinates are PostScript points (1/72 in) from the top-left corner of the page's
//! media box, y downwards. A book page also records its trim box (with `--bleed` the
//! media box is larger: 0.125 in beyond the top, bottom and outside edges, as
//! print-on-demand services ask).
//!
//! The book: puzzles in sections (one per band, each starting a new page, its name as
//! the running head), `per_page` puzzles a page, each captioned with its number, band
//! and rating; then the solutions, keyed by number, 6 or 12 a page; page numbers at
//! the outside corners. Margins are mirrored: the inside one is the outside margin
//! plus the gutter that print-on-demand binding needs for the book's page count
//! ([`gutter_inches`], KDP's published table), so the book is laid out, its pages counted, and laid out again
//! until the gutter matches the count.
//!
//! Grids: thin lines [`Style::thin`] (at least 0.75 pt), box lines and the border
//! [`Style::thick`] (about 2 pt), square caps so corners close; digits centred on
//! their cap height.

use super::font::{Fonts, Weight};
use super::{symbol, Puzzle};
use crate::engine::grid::Size;

/// Points per inch.
pub const PT: f32 = 72.0;
/// The bleed print-on-demand services ask for, beyond the trim on the outside edges.
pub const BLEED: f32 = 0.125 * PT;

/// One mark on a page, in points (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Line(Line),
    /// A filled rectangle, `gray` from 0 (black) to 1 (white).
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        gray: f32,
    },
    Text(Text),
}

/// An axis-aligned stroke from (x1, y1) to (x2, y2), `width` thick, square caps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub x1: f32,
    pub y1: f32,
    pub x2: f32,
    pub y2: f32,
    pub width: f32,
}

/// `text` set at `size` points, its baseline starting at (x, y).
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    pub x: f32,
    pub y: f32,
    pub size: f32,
    pub weight: Weight,
    pub text: String,
}

/// A page (or an image): its media box, trim box and marks.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub width: f32,
    pub height: f32,
    /// The trim box: x, y (top-left) and size, inside the media box.
    pub trim: [f32; 4],
    pub items: Vec<Item>,
}

impl Line {
    /// The rectangle the stroke inks (square caps: the rectangle around the segment):
    /// left, top, right, bottom.
    pub fn area(&self) -> [f32; 4] {
        let h = self.width / 2.0;
        [
            self.x1.min(self.x2) - h,
            self.y1.min(self.y2) - h,
            self.x1.max(self.x2) + h,
            self.y1.max(self.y2) + h,
        ]
    }
}

impl Page {
    /// The page's lines, in drawing order.
    pub fn lines(&self) -> impl Iterator<Item = &Line> {
        self.items.iter().filter_map(|item| match item {
            Item::Line(line) => Some(line),
            _ => None,
        })
    }

    /// The page's texts, in drawing order.
    pub fn texts(&self) -> impl Iterator<Item = &Text> {
        self.items.iter().filter_map(|item| match item {
            Item::Text(text) => Some(text),
            _ => None,
        })
    }
}

/// A trim size of the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trim {
    /// 6 × 9 in, the common trade paperback.
    SixByNine,
    /// 8.5 × 11 in (US letter), the common puzzle-book size.
    EightHalfByEleven,
    /// A4, 210 × 297 mm.
    A4,
}

impl Trim {
    /// The names `--trim` takes (`letter` is 8.5x11).
    pub const NAMES: &'static str = "6x9, 8.5x11, letter, a4";

    pub fn parse(name: &str) -> Option<Trim> {
        match name.trim().to_ascii_lowercase().as_str() {
            "6x9" => Some(Trim::SixByNine),
            "8.5x11" | "letter" => Some(Trim::EightHalfByEleven),
            "a4" => Some(Trim::A4),
            _ => None,
        }
    }

    /// The name `--trim` takes for it.
    pub fn name(self) -> &'static str {
        match self {
            Trim::SixByNine => "6x9",
            Trim::EightHalfByEleven => "8.5x11",
            Trim::A4 => "a4",
        }
    }

    /// Width and height in points.
    pub fn size(self) -> (f32, f32) {
        match self {
            Trim::SixByNine => (6.0 * PT, 9.0 * PT),
            Trim::EightHalfByEleven => (8.5 * PT, 11.0 * PT),
            Trim::A4 => (210.0 / 25.4 * PT, 297.0 / 25.4 * PT),
        }
    }
}

/// The inside margin (gutter) a bound book of `pages` pages needs, in inches: KDP's
/// published table for paperbacks (24–150 pages 0.375 in, up to 300 0.5 in, up to 500
/// 0.625 in, up to 700 0.75 in, more 0.875 in).
pub fn gutter_inches(pages: usize) -> f32 {
    match pages {
        0..=150 => 0.375,
        151..=300 => 0.5,
        301..=500 => 0.625,
        501..=700 => 0.75,
        _ => 0.875,
    }
}

/// How a book is laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BookConfig {
    pub trim: Trim,
    /// Media box 0.125 in larger beyond the top, bottom and outside edges.
    pub bleed: bool,
    /// Puzzles per page: 1, 2, 4 or 6.
    pub per_page: usize,
    /// Larger grids, digits, captions and lines; 1 or 2 puzzles a page.
    pub large_print: bool,
    /// What a puzzle's caption shows beside its number.
    pub caption: Caption,
}

/// What a puzzle's caption shows beside its number (`render --caption`): by default
/// nothing (a printed book's reader needs no band under a band's heading, and a
/// technique name is a spoiler); the band, the SE rating and the hardest technique on
/// request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caption {
    pub band: bool,
    pub rating: bool,
    pub technique: bool,
}

impl std::str::FromStr for Caption {
    type Err = String;

    /// A comma-separated list of `number`, `band`, `rating`, `technique` (the number
    /// is always shown; `number` alone is the default).
    fn from_str(text: &str) -> Result<Caption, String> {
        let mut caption = Caption::default();
        for field in text.split(',').map(str::trim).filter(|f| !f.is_empty()) {
            match field {
                "number" => {}
                "band" => caption.band = true,
                "rating" => caption.rating = true,
                "technique" => caption.technique = true,
                _ => {
                    return Err(format!(
                        "{field:?} is not a caption field (number, band, rating, technique)"
                    ))
                }
            }
        }
        Ok(caption)
    }
}

/// The puzzle counts a page takes.
pub const PER_PAGE: [usize; 4] = [1, 2, 4, 6];

impl BookConfig {
    /// Checks the options that do not depend on the puzzles.
    pub fn check(&self) -> Result<(), LayoutError> {
        if !PER_PAGE.contains(&self.per_page) {
            return Err(LayoutError::PerPage(self.per_page));
        }
        if self.large_print && self.per_page > 2 {
            return Err(LayoutError::LargePrint(self.per_page));
        }
        Ok(())
    }

    /// Checks that `size` grids are legible laid out this way: their digits at least
    /// [`min_digit`] with the narrowest gutter (a long book's wider one is checked
    /// again by [`book`]), so that a book that cannot be printed is refused before
    /// any puzzle is read.
    pub fn check_legible(&self, size: Size, fonts: &Fonts) -> Result<(), LayoutError> {
        self.legible(size, fonts, gutter_inches(0))
    }

    /// The nearest layout whose digits reach `min`: fewer puzzles a page, else a
    /// larger trim (and fewer), with its digit size.
    fn remedy(
        &self,
        size: Size,
        fonts: &Fonts,
        gutter: f32,
        min: f32,
    ) -> Option<(BookConfig, f32)> {
        [self.trim, Trim::EightHalfByEleven, Trim::A4]
            .into_iter()
            .filter(|t| *t == self.trim || t.size().0 > self.trim.size().0)
            .flat_map(|trim| {
                PER_PAGE
                    .into_iter()
                    .rev()
                    .filter(|&n| n <= self.per_page)
                    .map(move |per_page| BookConfig {
                        trim,
                        per_page,
                        ..*self
                    })
            })
            .filter(|c| c != self)
            .map(|c| (c, digit_size(&c, fonts, gutter, size, c.per_page, false)))
            .find(|&(_, digit)| digit >= min)
    }

    fn legible(&self, size: Size, fonts: &Fonts, gutter: f32) -> Result<(), LayoutError> {
        let digit = digit_size(self, fonts, gutter, size, self.per_page, false);
        let min = min_digit(self.large_print, false);
        if digit >= min {
            return Ok(());
        }
        let pass = |c: &BookConfig, digit: f32| {
            let mut pass = Vec::new();
            if c.trim != self.trim {
                pass.push(format!("--trim {}", c.trim.name()));
            }
            if c.per_page != self.per_page {
                pass.push(format!("--per-page {}", c.per_page));
            }
            format!("pass {} ({digit:.1} pt)", pass.join(" "))
        };
        let remedy = match self.remedy(size, fonts, gutter, min) {
            Some((c, digit)) => pass(&c, digit),
            // Regular print needs smaller digits: say what else it needs, if anything
            // (regression: "leave out --large-print" was offered where that alone
            // still did not print).
            None if self.large_print => {
                let plain = BookConfig {
                    large_print: false,
                    ..*self
                };
                let plain_min = min_digit(false, false);
                if digit_size(&plain, fonts, gutter, size, plain.per_page, false) >= plain_min {
                    "leave out --large-print".to_string()
                } else {
                    match plain.remedy(size, fonts, gutter, plain_min) {
                        Some((c, digit)) => {
                            format!("leave out --large-print and {}", pass(&c, digit))
                        }
                        None => format!("no trim prints {size} grids larger"),
                    }
                }
            }
            None => format!("no trim prints {size} grids larger"),
        };
        Err(LayoutError::Illegible(format!(
            "--trim {} --per-page {}{} sets {size} digits at {digit:.1} pt, below the {min} pt {}: {remedy}",
            self.trim.name(),
            self.per_page,
            if self.large_print { " --large-print" } else { "" },
            if self.large_print {
                "where large print starts"
            } else {
                "a printed grid needs"
            },
        )))
    }
}

/// The smallest digit, in points, a book sets: in a puzzle's grid 6 pt (the usual
/// floor of legible print), 14 pt in large print (where large print usually
/// starts); in the solutions, an answer key looked up rather than solved on, 5 pt
/// and 9 pt.
pub fn min_digit(large_print: bool, solutions: bool) -> f32 {
    match (large_print, solutions) {
        (false, false) => 6.0,
        (false, true) => 5.0,
        (true, false) => 14.0,
        (true, true) => 9.0,
    }
}

/// The digit size, in points, of `size` grids laid out `slots_n` a page (every page
/// has a running head of the same height, so page 1 stands for all).
fn digit_size(
    config: &BookConfig,
    fonts: &Fonts,
    gutter: f32,
    size: Size,
    slots_n: usize,
    solutions: bool,
) -> f32 {
    let style = Style::new(config.large_print);
    let mut page = PageBuilder::new(config, fonts, &style, gutter, 0);
    page.head("Solutions");
    page.slot_geometry(slots_n, solutions).side / size.side() as f32 * style.digit
}

/// Why a book cannot be laid out as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("--per-page {0}: expected 1, 2, 4 or 6")]
    PerPage(usize),
    #[error("--large-print sets 1 or 2 puzzles a page, not {0}: pass --per-page 1 or 2")]
    LargePrint(usize),
    #[error("no puzzle to lay out")]
    Empty,
    /// The digits would be too small to read (the message says how small and what
    /// would fit).
    #[error("{0}")]
    Illegible(String),
}

/// Sizes of the marks: normal or large print.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    /// Cell lines, points (at least 0.75).
    pub thin: f32,
    /// Box lines and the border, points.
    pub thick: f32,
    /// Digit height as a share of the cell.
    pub digit: f32,
    pub caption: f32,
    pub head: f32,
    pub folio: f32,
}

impl Style {
    pub fn new(large_print: bool) -> Style {
        if large_print {
            Style {
                thin: 1.0,
                thick: 2.5,
                digit: 0.68,
                caption: 16.0,
                head: 22.0,
                folio: 14.0,
            }
        } else {
            Style {
                thin: 0.75,
                thick: 2.0,
                digit: 0.6,
                caption: 10.0,
                head: 14.0,
                folio: 9.0,
            }
        }
    }
}

/// The margins of a trim, in points, before the gutter: top, bottom, outside.
const TOP: f32 = 0.5 * PT;
const BOTTOM: f32 = 0.5 * PT;
const OUTSIDE: f32 = 0.5 * PT;
/// Space between puzzle slots.
const GAP: f32 = 18.0;

/// A laid-out book: its pages and where its parts begin.
#[derive(Clone, Debug, PartialEq)]
pub struct Book {
    pub pages: Vec<Page>,
    /// The gutter used, in inches (from [`gutter_inches`] of the page count).
    pub gutter: f32,
    /// The 1-based number of the first solutions page.
    pub first_solution_page: usize,
    /// Each section's title and 0-based first page (the bands, then "Solutions"):
    /// the PDF's bookmarks.
    pub sections: Vec<(String, usize)>,
}

/// The live area of page `index` (0-based) in trim coordinates: left, top, right,
/// bottom. Odd page numbers are rectos (the inside on the left). The inside margin is
/// the outside one plus the gutter, so a grid never sits nearer the spine than the
/// edge (regression: a 6×9 book had 0.375 in inside and 0.5 in outside).
pub fn live_area(trim: Trim, gutter: f32, index: usize) -> [f32; 4] {
    let (w, h) = trim.size();
    let recto = index.is_multiple_of(2);
    let inside = OUTSIDE + gutter * PT;
    let (left, right) = if recto {
        (inside, OUTSIDE)
    } else {
        (OUTSIDE, inside)
    };
    [left, TOP, w - right, h - BOTTOM]
}

/// Lays out the book: puzzles by section, then solutions; the gutter fitted to the
/// page count.
pub fn book(puzzles: &[Puzzle], config: &BookConfig, fonts: &Fonts) -> Result<Book, LayoutError> {
    config.check()?;
    if puzzles.is_empty() {
        return Err(LayoutError::Empty);
    }
    // The page count does not depend on the gutter today, but lay out, count and lay
    // out again until it is stable, so that a layout whose flow does depend on it
    // (a wider gutter pushing a grid to the next page) stays right.
    let mut gutter = gutter_inches(0);
    for _ in 0..4 {
        let laid = book_with_gutter(puzzles, config, fonts, gutter)?;
        let fitting = gutter_inches(laid.pages.len());
        if fitting == gutter {
            return Ok(laid);
        }
        gutter = fitting;
    }
    book_with_gutter(puzzles, config, fonts, gutter)
}

/// Columns and rows of `n` slots a page.
fn slots(n: usize) -> (usize, usize) {
    match n {
        1 => (1, 1),
        2 => (1, 2),
        4 => (2, 2),
        6 => (2, 3),
        12 => (3, 4),
        _ => (1, n),
    }
}

/// Solutions a page: 12 small grids, or 6 for large print and big boards; fewer
/// when that would set their digits below [`min_digit`].
fn solutions_per_page(config: &BookConfig, fonts: &Fonts, gutter: f32, size: Size) -> usize {
    let most = if config.large_print || matches!(size, Size::Sixteen | Size::TwentyFive) {
        6
    } else {
        12
    };
    let min = min_digit(config.large_print, true);
    [12, 6, 4, 2]
        .into_iter()
        .filter(|&n| n <= most)
        .find(|&n| digit_size(config, fonts, gutter, size, n, true) >= min)
        .unwrap_or(1)
}

fn book_with_gutter(
    puzzles: &[Puzzle],
    config: &BookConfig,
    fonts: &Fonts,
    gutter: f32,
) -> Result<Book, LayoutError> {
    config.legible(puzzles[0].size, fonts, gutter)?;
    let style = Style::new(config.large_print);
    let mut pages: Vec<Page> = Vec::new();
    let mut sections = Vec::new();
    // Puzzle pages: one section per band, in the order given.
    let mut start = 0;
    while start < puzzles.len() {
        let band = &puzzles[start].band;
        let end = start
            + puzzles[start..]
                .iter()
                .position(|p| &p.band != band)
                .unwrap_or(puzzles.len() - start);
        let title = title_case(band);
        sections.push((title.clone(), pages.len()));
        for chunk in puzzles[start..end].chunks(config.per_page) {
            let index = pages.len();
            let mut page = PageBuilder::new(config, fonts, &style, gutter, index);
            page.head(&title);
            page.grids(chunk, config.per_page, false);
            pages.push(page.finish());
        }
        start = end;
    }
    let first_solution_page = pages.len() + 1;
    sections.push(("Solutions".to_string(), pages.len()));
    let per_page = solutions_per_page(config, fonts, gutter, puzzles[0].size);
    for chunk in puzzles.chunks(per_page) {
        let index = pages.len();
        let mut page = PageBuilder::new(config, fonts, &style, gutter, index);
        page.head("Solutions");
        page.grids(chunk, per_page, true);
        pages.push(page.finish());
    }
    Ok(Book {
        pages,
        gutter,
        first_solution_page,
        sections,
    })
}

/// A band's name as a reader sees it: "medium" → "Medium", "very-hard" → "Very hard"
/// (band names have no spaces; regression: a book printed "Very-hard").
fn title_case(name: &str) -> String {
    let mut chars = name
        .chars()
        .map(|c| if c == '-' || c == '_' { ' ' } else { c });
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The slots of a page: `cols` a row, `gap` apart, each a caption band of
/// `caption_h` (text `caption` pt) over a grid of `side`.
struct SlotGeometry {
    cols: usize,
    gap: f32,
    slot_w: f32,
    slot_h: f32,
    caption: f32,
    caption_h: f32,
    side: f32,
}

/// One book page under construction, in trim coordinates (shifted into the media box
/// by [`PageBuilder::finish`]).
struct PageBuilder<'a> {
    fonts: &'a Fonts,
    style: &'a Style,
    caption: Caption,
    trim: [f32; 4],
    media: (f32, f32),
    /// Live area: left, top, right, bottom.
    live: [f32; 4],
    /// Top of the space below the running head.
    body_top: f32,
    /// Bottom of the space above the folio.
    body_bottom: f32,
    index: usize,
    items: Vec<Item>,
}

impl<'a> PageBuilder<'a> {
    fn new(
        config: &BookConfig,
        fonts: &'a Fonts,
        style: &'a Style,
        gutter: f32,
        index: usize,
    ) -> PageBuilder<'a> {
        let (w, h) = config.trim.size();
        let recto = index.is_multiple_of(2);
        let (media, trim) = if config.bleed {
            // Bleed beyond the outside edge (right of a recto, left of a verso), the
            // top and the bottom.
            let x = if recto { 0.0 } else { BLEED };
            ((w + BLEED, h + 2.0 * BLEED), [x, BLEED, w, h])
        } else {
            ((w, h), [0.0, 0.0, w, h])
        };
        let live = live_area(config.trim, gutter, index);
        let folio_band = style.folio * 2.0;
        PageBuilder {
            fonts,
            style,
            caption: config.caption,
            trim,
            media,
            live,
            body_top: live[1],
            body_bottom: live[3] - folio_band,
            index,
            items: Vec::new(),
        }
    }

    /// The running head: `title` centred in bold, a rule under it.
    fn head(&mut self, title: &str) {
        let [left, top, right, _] = self.live;
        let size = self.style.head;
        let cap = self.fonts.cap_height(Weight::Bold, size);
        let width = self.fonts.width(Weight::Bold, title, size);
        let baseline = top + cap;
        self.items.push(Item::Text(Text {
            x: (left + right - width) / 2.0,
            y: baseline,
            size,
            weight: Weight::Bold,
            text: title.to_string(),
        }));
        let rule_y = baseline + self.fonts.descent(Weight::Bold, size) + 4.0;
        let half = self.style.thin / 2.0;
        self.items.push(Item::Line(Line {
            x1: left + half,
            y1: rule_y,
            x2: right - half,
            y2: rule_y,
            width: self.style.thin,
        }));
        self.body_top = rule_y + half + GAP;
    }

    /// Where `slots_n` grids go in the body of the page.
    fn slot_geometry(&self, slots_n: usize, solutions: bool) -> SlotGeometry {
        let (cols, rows) = slots(slots_n);
        let [left, _, right, _] = self.live;
        let (top, bottom) = (self.body_top, self.body_bottom);
        let gap = if solutions { GAP * 0.75 } else { GAP };
        let slot_w = (right - left - gap * (cols - 1) as f32) / cols as f32;
        let slot_h = (bottom - top - gap * (rows - 1) as f32) / rows as f32;
        let caption = if solutions {
            self.style.caption * 0.9
        } else {
            self.style.caption
        };
        let caption_h = caption * 1.8;
        let t = self.style.thick;
        // The grid's ink is its square plus half the border on every side.
        let side = (slot_w - t).min(slot_h - caption_h - t).max(1.0);
        SlotGeometry {
            cols,
            gap,
            slot_w,
            slot_h,
            caption,
            caption_h,
            side,
        }
    }

    /// `puzzles` in a grid of `slots_n` slots; solutions show every cell, givens in bold.
    fn grids(&mut self, puzzles: &[Puzzle], slots_n: usize, solutions: bool) {
        let g = self.slot_geometry(slots_n, solutions);
        let (side, caption) = (g.side, g.caption);
        let [left, top, t] = [self.live[0], self.body_top, self.style.thick];
        for (k, p) in puzzles.iter().enumerate() {
            let (col, row) = (k % g.cols, k / g.cols);
            let sx = left + col as f32 * (g.slot_w + g.gap);
            let sy = top + row as f32 * (g.slot_h + g.gap);
            let gx = sx + (g.slot_w - side) / 2.0;
            let gy = sy + g.caption_h + t / 2.0;
            self.caption(
                p,
                gx,
                gy - t / 2.0 - caption * 0.6,
                side,
                caption,
                solutions,
            );
            draw_grid(
                &mut self.items,
                self.fonts,
                self.style,
                p,
                [gx, gy, side],
                solutions,
            );
        }
    }

    /// The caption above a grid at (gx, baseline): the number in bold on the left;
    /// for a puzzle, the fields of [`Caption`] asked for on the right.
    fn caption(
        &mut self,
        p: &Puzzle,
        gx: f32,
        baseline: f32,
        side: f32,
        size: f32,
        solution: bool,
    ) {
        let number = format!("#{}", p.number);
        let number_width = self.fonts.width(Weight::Bold, &number, size);
        self.items.push(Item::Text(Text {
            x: gx,
            y: baseline,
            size,
            weight: Weight::Bold,
            text: number,
        }));
        if solution {
            return;
        }
        let mut fields = Vec::new();
        if self.caption.band {
            fields.push(title_case(&p.band));
        }
        if let (true, Some(r)) = (self.caption.rating, p.rating_text()) {
            fields.push(format!("SE {r}"));
        }
        if let (true, Some((_, technique))) = (self.caption.technique, &p.rating) {
            fields.push(technique.clone());
        }
        if fields.is_empty() {
            return;
        }
        let right = fields.join(" · ");
        // A long technique name on a small grid: set smaller rather than overlap the
        // number or leave the grid's width.
        let room = side - number_width - size;
        let mut right_size = size;
        let mut width = self.fonts.width(Weight::Regular, &right, size);
        if width > room && room > 0.0 {
            right_size = size * room / width;
            width = room;
        }
        self.items.push(Item::Text(Text {
            x: gx + side - width,
            y: baseline,
            size: right_size,
            weight: Weight::Regular,
            text: right,
        }));
    }

    /// Adds the folio (page number at the outside corner) and moves everything into
    /// the media box.
    fn finish(mut self) -> Page {
        let [left, _, right, bottom] = self.live;
        let size = self.style.folio;
        let text = (self.index + 1).to_string();
        let width = self.fonts.width(Weight::Regular, &text, size);
        let recto = self.index.is_multiple_of(2);
        let x = if recto { right - width } else { left };
        let y = bottom - self.fonts.descent(Weight::Regular, size);
        self.items.push(Item::Text(Text {
            x,
            y,
            size,
            weight: Weight::Regular,
            text,
        }));
        let (dx, dy) = (self.trim[0], self.trim[1]);
        if dx != 0.0 || dy != 0.0 {
            for item in &mut self.items {
                shift(item, dx, dy);
            }
        }
        Page {
            width: self.media.0,
            height: self.media.1,
            trim: self.trim,
            items: self.items,
        }
    }
}

fn shift(item: &mut Item, dx: f32, dy: f32) {
    match item {
        Item::Line(Line { x1, y1, x2, y2, .. }) => {
            *x1 += dx;
            *x2 += dx;
            *y1 += dy;
            *y2 += dy;
        }
        Item::Rect { x, y, .. } | Item::Text(Text { x, y, .. }) => {
            *x += dx;
            *y += dy;
        }
    }
}

/// Draws `p`'s grid with its top-left corner at (x, y) and side `side`: the givens, or
/// with `solution` every digit (givens in bold).
fn draw_grid(
    items: &mut Vec<Item>,
    fonts: &Fonts,
    style: &Style,
    p: &Puzzle,
    [x, y, side]: [f32; 3],
    solution: bool,
) {
    let n = p.size.side();
    let b = p.size.box_side();
    let cell = side / n as f32;
    // Thin lines first, so the box lines cover their ends.
    for pass in [false, true] {
        for i in 0..=n {
            let thick = i % b == 0;
            if thick != pass {
                continue;
            }
            let width = if thick { style.thick } else { style.thin };
            let at = i as f32 * cell;
            items.push(Item::Line(Line {
                x1: x + at,
                y1: y,
                x2: x + at,
                y2: y + side,
                width,
            }));
            items.push(Item::Line(Line {
                x1: x,
                y1: y + at,
                x2: x + side,
                y2: y + at,
                width,
            }));
        }
    }
    let size = cell * style.digit;
    let cells = if solution { &p.solution } else { &p.givens };
    for (i, &v) in cells.iter().enumerate() {
        if v == 0 {
            continue;
        }
        let weight = if solution && p.givens.get(i).is_some_and(|&g| g != 0) {
            Weight::Bold
        } else {
            Weight::Regular
        };
        let (r, c) = (i / n, i % n);
        let text = symbol(v).to_string();
        let width = fonts.width(weight, &text, size);
        let cap = fonts.cap_height(weight, size);
        items.push(Item::Text(Text {
            x: x + (c as f32 + 0.5) * cell - width / 2.0,
            y: y + (r as f32 + 0.5) * cell + cap / 2.0,
            size,
            weight,
            text,
        }));
    }
}

/// The side of the image of one grid of `size`, in points: 2 in for 4×4, 3 in for 9×9,
/// 4 in for 16×16, 5 in for 25×25 (so at 300 dpi a 9×9 image is 900 × 900 pixels).
pub fn image_side(size: Size) -> f32 {
    match size {
        Size::Four => 2.0 * PT,
        Size::Nine => 3.0 * PT,
        Size::Sixteen => 4.0 * PT,
        Size::TwentyFive => 5.0 * PT,
    }
}

/// One grid as an image: the puzzle's givens, or its solution (givens in bold).
pub fn grid_image(p: &Puzzle, solution: bool, fonts: &Fonts) -> Page {
    let style = Style::new(false);
    let side = image_side(p.size);
    // A margin of the border's half width and a point, so the border is not clipped.
    let margin = style.thick / 2.0 + 1.0;
    let mut items = Vec::new();
    draw_grid(
        &mut items,
        fonts,
        &style,
        p,
        [margin, margin, side - 2.0 * margin],
        solution,
    );
    Page {
        width: side,
        height: side,
        trim: [0.0, 0.0, side, side],
        items,
    }
}

/// The box an item inks: left, top, right, bottom (text: its advance width, from the
/// cap height to the descender).
pub fn ink_bounds(item: &Item, fonts: &Fonts) -> [f32; 4] {
    match item {
        Item::Line(line) => line.area(),
        Item::Rect { x, y, w, h, .. } => [*x, *y, x + w, y + h],
        Item::Text(Text {
            x,
            y,
            size,
            weight,
            text,
        }) => {
            let w = fonts.width(*weight, text, *size);
            let up = fonts.cap_height(*weight, *size);
            let down = fonts.descent(*weight, *size);
            [*x, y - up, x + w, y + down]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn puzzles(size: Size, n: usize) -> Vec<Puzzle> {
        let cells = size.n_cells();
        let side = size.side() as u8;
        (0..n)
            .map(|i| Puzzle {
                number: i as u32 + 1,
                size,
                band: if i < n / 2 { "easy" } else { "expert" }.into(),
                rating: Some((95, "dynamic-forcing-chain-of-chains".into())),
                givens: (0..cells)
                    .map(|c| {
                        if c % 3 == 0 {
                            (c % side as usize) as u8 + 1
                        } else {
                            0
                        }
                    })
                    .collect(),
                solution: (0..cells).map(|c| (c % side as usize) as u8 + 1).collect(),
            })
            .collect()
    }

    #[test]
    fn the_gutter_follows_kdps_table() {
        for (pages, inches) in [
            (24, 0.375),
            (150, 0.375),
            (151, 0.5),
            (300, 0.5),
            (301, 0.625),
            (500, 0.625),
            (501, 0.75),
            (700, 0.75),
            (701, 0.875),
            (828, 0.875),
        ] {
            assert_eq!(gutter_inches(pages), inches, "{pages} pages");
        }
    }

    /// Every layout `render` takes, without bleed: each trim, size, count a page and
    /// print.
    fn every_layout() -> impl Iterator<Item = (BookConfig, Size)> {
        [Trim::SixByNine, Trim::EightHalfByEleven, Trim::A4]
            .into_iter()
            .flat_map(|trim| Size::ALL.into_iter().map(move |size| (trim, size)))
            .flat_map(|(trim, size)| {
                [
                    (1, false),
                    (2, false),
                    (4, false),
                    (6, false),
                    (1, true),
                    (2, true),
                ]
                .into_iter()
                .map(move |(per_page, large_print)| {
                    let config = BookConfig {
                        trim,
                        bleed: false,
                        per_page,
                        large_print,
                        caption: Caption {
                            band: true,
                            rating: true,
                            technique: true,
                        },
                    };
                    (config, size)
                })
            })
    }

    #[test]
    fn all_ink_stays_inside_trim_minus_margins() {
        let fonts = Fonts::new();
        for (config, size) in every_layout() {
            for bleed in [false, true] {
                let config = BookConfig { bleed, ..config };
                let book = match book(&puzzles(size, 13), &config, &fonts) {
                    Ok(book) => book,
                    // Refusals: `every_digit_is_legible_or_the_book_refused`.
                    Err(LayoutError::Illegible(_)) => continue,
                    Err(e) => panic!("{e}"),
                };
                let (w, h) = config.trim.size();
                assert_eq!(book.gutter, gutter_inches(book.pages.len()));
                for (i, page) in book.pages.iter().enumerate() {
                    let [tx, ty, tw, th] = page.trim;
                    assert_eq!((tw, th), (w, h));
                    let [l, t, r, b] = live_area(config.trim, book.gutter, i);
                    let (inside, outside) = if i % 2 == 0 { (l, w - r) } else { (w - r, l) };
                    assert!(outside >= 0.5 * PT, "outside margin {outside}");
                    assert!(inside >= outside + 0.375 * PT, "inside margin {inside}");
                    for item in &page.items {
                        let [x0, y0, x1, y1] = ink_bounds(item, &fonts);
                        let eps = 1e-3;
                        assert!(
                            x0 - tx >= l - eps
                                && y0 - ty >= t - eps
                                && x1 - tx <= r + eps
                                && y1 - ty <= b + eps,
                            "{config:?} {size} page {}: {item:?} outside [{l} {t} {r} {b}]",
                            i + 1
                        );
                        if let Item::Line(Line { width, .. }) = item {
                            assert!(*width >= 0.75, "{width}");
                        }
                    }
                }
            }
        }
    }

    /// The digits' sizes on each page of `book`: puzzle pages, then solution pages
    /// (a digit is a one-symbol text that is not the folio, always the last item).
    fn digit_sizes(book: &Book) -> [f32; 2] {
        let mut min = [f32::MAX; 2];
        for (i, page) in book.pages.iter().enumerate() {
            let solutions = i + 1 >= book.first_solution_page;
            for item in &page.items[..page.items.len() - 1] {
                if let Item::Text(Text { size, text, .. }) = item {
                    if text.chars().count() == 1 {
                        min[solutions as usize] = min[solutions as usize].min(*size);
                    }
                }
            }
        }
        min
    }

    #[test]
    fn every_digit_is_legible_or_the_book_refused() {
        let fonts = Fonts::new();
        let mut refused = Vec::new();
        for (config, size) in every_layout() {
            let early = config.check_legible(size, &fonts);
            let large_print = config.large_print;
            match book(&puzzles(size, 13), &config, &fonts) {
                Ok(book) => {
                    assert_eq!(early, Ok(()));
                    let [puzzle, solution] = digit_sizes(&book);
                    assert!(puzzle >= min_digit(large_print, false), "{config:?} {size}");
                    assert!(
                        solution >= min_digit(large_print, true),
                        "{config:?} {size}"
                    );
                }
                Err(LayoutError::Illegible(why)) => {
                    assert_eq!(early, Err(LayoutError::Illegible(why.clone())));
                    // The remedy it names lays out.
                    let fix = why.rsplit(": ").next().unwrap();
                    let mut fixed = config;
                    if fix.starts_with("leave out --large-print") {
                        fixed.large_print = false;
                    }
                    let words: Vec<&str> = fix.split_whitespace().collect();
                    for pair in words.windows(2) {
                        match pair {
                            ["--per-page", n] => fixed.per_page = n.parse().unwrap(),
                            ["--trim", t] => fixed.trim = Trim::parse(t).unwrap(),
                            _ => {}
                        }
                    }
                    assert_ne!(fixed, config, "{why}");
                    assert!(book(&puzzles(size, 13), &fixed, &fonts).is_ok(), "{why}");
                    refused.push(format!(
                        "{} {size} {}{}",
                        config.trim.name(),
                        config.per_page,
                        if large_print { " large" } else { "" }
                    ));
                }
                Err(e) => panic!("{e}"),
            }
        }
        // Only big grids on the smaller pages, or many a page, are refused; every
        // 4×4 and 9×9 layout prints.
        assert_eq!(
            refused,
            // The inside margin (outside + gutter) costs 0.375 in of width: five
            // more 16×16 and 25×25 layouts than with the gutter alone.
            [
                "6x9 16x16 4",
                "6x9 16x16 6",
                "6x9 16x16 2 large",
                "6x9 25x25 2",
                "6x9 25x25 4",
                "6x9 25x25 6",
                "6x9 25x25 1 large",
                "6x9 25x25 2 large",
                "8.5x11 16x16 2 large",
                "8.5x11 25x25 4",
                "8.5x11 25x25 6",
                "8.5x11 25x25 1 large",
                "8.5x11 25x25 2 large",
                "a4 16x16 2 large",
                "a4 25x25 4",
                "a4 25x25 6",
                "a4 25x25 1 large",
                "a4 25x25 2 large",
            ]
        );
    }

    #[test]
    fn band_names_read_as_words() {
        assert_eq!(title_case("medium"), "Medium");
        assert_eq!(title_case("very-hard"), "Very hard");
        assert_eq!(title_case("super_fiendish"), "Super fiendish");
        assert_eq!(title_case(""), "");
    }

    #[test]
    fn grids_have_thin_and_box_lines_and_every_digit() {
        let fonts = Fonts::new();
        let p = &puzzles(Size::Nine, 1)[0];
        let page = grid_image(p, false, &fonts);
        let widths: Vec<f32> = page
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Line(Line { width, .. }) => Some(*width),
                _ => None,
            })
            .collect();
        assert_eq!(widths.len(), 20);
        assert_eq!(widths.iter().filter(|&&w| w == 2.0).count(), 8);
        assert_eq!(widths.iter().filter(|&&w| w == 0.75).count(), 12);
        let texts = |page: &Page| {
            page.items
                .iter()
                .filter(|i| matches!(i, Item::Text(_)))
                .count()
        };
        assert_eq!(texts(&page), p.n_clues());
        assert_eq!(texts(&grid_image(p, true, &fonts)), 81);
        for item in &page.items {
            let [x0, y0, x1, y1] = ink_bounds(item, &fonts);
            assert!(x0 >= 0.0 && y0 >= 0.0 && x1 <= page.width && y1 <= page.height);
        }
    }

    #[test]
    fn sections_start_new_pages_and_solutions_follow() {
        let fonts = Fonts::new();
        let config = BookConfig {
            trim: Trim::SixByNine,
            bleed: false,
            per_page: 4,
            large_print: false,
            caption: Caption::default(),
        };
        // 5 easy (2 pages) + 5 expert (2 pages), then 10 solutions on one page.
        let book = book(&puzzles(Size::Nine, 10), &config, &fonts).unwrap();
        assert_eq!(book.pages.len(), 5);
        assert_eq!(book.first_solution_page, 5);
        let sections: Vec<(&str, usize)> = book
            .sections
            .iter()
            .map(|(t, p)| (t.as_str(), *p))
            .collect();
        assert_eq!(sections, [("Easy", 0), ("Expert", 2), ("Solutions", 4)]);
        assert!(matches!(
            super::book(
                &puzzles(Size::Nine, 3),
                &BookConfig {
                    per_page: 4,
                    large_print: true,
                    ..config
                },
                &fonts
            ),
            Err(LayoutError::LargePrint(4))
        ));
    }
}
