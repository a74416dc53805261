//! `sudoku-factory render INPUT [--pdf FILE] [--svg DIR] [--png DIR] [--txt FILE]
//! [--html FILE]`:
//! the I/O of `render` — read a bank (checked against its manifest as `export` does:
//! complete, every shard's size, row count and XXH3) or a puzzle file (every line
//! solved; a line without exactly one solution is an error), read the `--exclude`
//! banks and files, feed the selection, and write the outputs.
//!
//! Nothing is written until the whole input is read and the selection made, so bad
//! input (a malformed line, a damaged bank, a `--count` too large, an output that
//! exists without `--force`) leaves every output untouched. Each file is written under
//! a hidden temporary name beside it (`.NAME.tmp-PID`), fsynced and renamed only when
//! complete; `--txt --append` writes the old content and the new lines to the
//! temporary file, so the file is never seen half-appended. The layout and the
//! writers are in [`crate::render`].

use std::fs;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use rayon::prelude::*;

use crate::bank::format::class_key;
use crate::bank::{self, format::Manifest};
use crate::cli::{GradeArg, RenderArgs};
use crate::engine::bands::{BandTable, Scale};
use crate::engine::board::{Board, Verdict};
use crate::engine::grid::{parse_board, ParseError, Size};
use crate::render::font::Fonts;
use crate::render::html::{self, PlayPuzzle};
use crate::render::layout::{self, BookConfig, Trim};
use crate::render::select::{Candidate, Config, Count, Selector};
use crate::render::{pdf, png, svg, Puzzle};
use crate::say;
use crate::util::signals::{remove_on_signal, OnSignal};
use crate::util::text::counted;
use crate::with_board;

use super::{board_error, open_input, Outcome};
use crate::bank::reader::{check_bands, check_complete, for_each_row, refuse_bank_file};
use crate::util::output::{
    create_output_dir, parent_of, refuse_existing, refuse_input, refuse_special, same_file,
    sync_dir, write_file,
};

/// Where the puzzles come from.
enum Source {
    Bank {
        dir: PathBuf,
        manifest: Box<Manifest>,
    },
    Lines(Vec<(usize, Vec<u8>)>),
}

pub fn run(args: &RenderArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let mut book_config = BookConfig {
        trim: args.trim,
        bleed: args.bleed,
        per_page: args
            .per_page
            .unwrap_or(match (args.large_print, args.trim) {
                (true, _) => 1,
                (false, Trim::SixByNine) => 2,
                (false, _) => 4,
            }),
        large_print: args.large_print,
        caption: args.caption,
    };
    book_config.check()?;
    // `-` is standard input here (INPUT, --exclude), never an output's name.
    let stdin = Path::new("-");
    for (flag, path, example) in [
        ("--pdf", &args.pdf, "book.pdf"),
        ("--html", &args.html, "play.html"),
        ("--txt", &args.txt, "book.txt"),
        ("--svg", &args.svg, "svg"),
        ("--png", &args.png, "png"),
    ] {
        if path.as_deref() == Some(stdin) {
            bail!("{flag} -: render writes files, and `-` means standard input here; name one, e.g. {flag} {example}");
        }
    }
    if args.input == stdin && args.exclude.iter().any(|p| p == stdin) {
        bail!("INPUT and --exclude both read standard input (-): give one of them a file");
    }
    // Outputs that exist are refused before anything is read.
    for file in [&args.pdf, &args.html].into_iter().flatten() {
        refuse_existing(file, args.force)?;
    }
    if let Some(txt) = &args.txt {
        if !args.append {
            refuse_existing(txt, args.force)?;
        } else if txt.is_dir() {
            bail!("{} is a directory, not a file to append to", txt.display());
        } else {
            refuse_special(txt)?;
        }
    }
    // No two outputs on one file (one would replace the other), none over a file of
    // the bank being read.
    let files: Vec<&PathBuf> = [&args.pdf, &args.html, &args.txt]
        .into_iter()
        .flatten()
        .collect();
    for (i, a) in files.iter().enumerate() {
        if let Some(b) = files[i + 1..].iter().find(|b| same_file(a, b)) {
            bail!(
                "{} and {} are the same file: give each output its own",
                a.display(),
                b.display()
            );
        }
        if args.input.is_dir() {
            refuse_bank_file(a, &args.input)?;
        }
        // `--append --txt BOOKS --exclude BOOKS` reads the earlier books before it
        // adds the next one: only a file replaced may not be read.
        let appended = args.append && args.txt.as_ref() == Some(*a);
        let excluded = args.exclude.iter().filter(|_| !appended);
        refuse_input(
            a,
            std::iter::once(&args.input)
                .chain(excluded)
                .map(PathBuf::as_path),
        )?;
    }
    for dir in [&args.svg, &args.png].into_iter().flatten() {
        if dir.exists() && !dir.is_dir() {
            bail!("{} exists and is not a directory", dir.display());
        }
    }

    let (source, size) = open_source(args)?;
    let fonts = Fonts::new();
    if args.pdf.is_some() {
        if args.per_page.is_none() {
            // The default: the trim's count, or fewer where its digits would be too
            // small (big grids on a small trim).
            book_config.per_page = layout::PER_PAGE
                .into_iter()
                .rev()
                .filter(|&n| n <= book_config.per_page)
                .find(|&per_page| {
                    BookConfig {
                        per_page,
                        ..book_config
                    }
                    .check_legible(size, &fonts)
                    .is_ok()
                })
                .unwrap_or(1);
        }
        // A book that cannot be printed legibly is refused before any puzzle is read.
        book_config.check_legible(size, &fonts)?;
    }
    let puzzles = with_board!(size, B => select::<B>(args, source)?);

    let book = match &args.pdf {
        Some(_) => Some(layout::book(&puzzles, &book_config, &fonts)?),
        None => None,
    };
    // Image names are known now: refuse existing ones before writing anything.
    let (images, mut made) = image_jobs(args, &puzzles)?;
    // Until the image sets are complete, a failure (the book's write, an image's) or
    // a signal removes the directories this run made for them: they hold nothing or
    // a set cut short.
    let page = match &args.html {
        Some(_) => Some(play_page(&args.title, size, &puzzles)?),
        None => None,
    };

    let (first, last) = (
        puzzles.first().map_or("", |p| p.band.as_str()),
        puzzles.last().map_or("", |p| p.band.as_str()),
    );
    let bands = if first == last {
        first.to_string()
    } else {
        format!("{first} to {last}")
    };
    let mut summary = vec![format!(
        "{} ({bands})",
        counted(puzzles.len() as u64, "puzzle")
    )];
    if let (Some(path), Some(book)) = (&args.pdf, &book) {
        let bytes = pdf::write(
            &book.pages,
            &fonts,
            &pdf::Meta {
                title: args.title.clone(),
                outline: book.sections.clone(),
            },
        )?;
        write_file(path, &bytes)?;
        sync_dir(parent_of(path))?;
        summary.push(format!(
            "{}: {} pages (puzzle pages 1-{}, solution pages {}-{}), gutter {} in, {} bytes",
            path.display(),
            book.pages.len(),
            book.first_solution_page - 1,
            book.first_solution_page,
            book.pages.len(),
            book.gutter,
            bytes.len()
        ));
    }
    if !images.is_empty() {
        images
            .par_iter()
            .try_for_each(|job| -> anyhow::Result<()> {
                let page = layout::grid_image(&puzzles[job.index], job.solution, &fonts);
                let bytes = match job.kind {
                    ImageKind::Svg => svg::write(&page, &fonts),
                    ImageKind::Png => png::write(&page, &fonts, args.dpi)?,
                };
                Ok(write_file(&job.path, &bytes)?)
            })?;
        for (dir, kind, ext) in [(&args.svg, "SVG", "svg"), (&args.png, "PNG", "png")] {
            if let Some(dir) = dir {
                if args.force {
                    remove_stale_images(dir, ext, &images)?;
                }
                sync_dir(dir)?;
                summary.push(format!(
                    "{}: {} {kind} images",
                    dir.display(),
                    2 * puzzles.len()
                ));
            }
        }
    }
    // Complete: the image sets stay whatever happens next, as the book does.
    made.0.clear();
    if let (Some(path), Some(page)) = (&args.html, &page) {
        write_file(path, page.as_bytes())?;
        sync_dir(parent_of(path))?;
        summary.push(format!(
            "{}: a play page of {}, {} bytes",
            path.display(),
            counted(puzzles.len() as u64, "puzzle"),
            page.len()
        ));
    }
    if let Some(txt) = &args.txt {
        let mut text = Vec::new();
        if args.append {
            match fs::read(txt) {
                Ok(old) => {
                    text = old;
                    if !text.is_empty() && !text.ends_with(b"\n") {
                        text.push(b'\n');
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("reading {}", txt.display())),
            }
        }
        for p in &puzzles {
            text.extend_from_slice(p.givens_text().as_bytes());
            text.push(b'\n');
        }
        write_file(txt, &text)?;
        sync_dir(parent_of(txt))?;
        summary.push(format!(
            "{}: {} {}",
            txt.display(),
            counted(puzzles.len() as u64, "line"),
            if args.append { "appended" } else { "written" }
        ));
    }
    if !args.quiet {
        say!(
            "sudoku-factory: rendered {} in {:.2} s",
            summary.join("; "),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Outcome::Clean)
}

/// Directories a render made for its images, removed (with what they hold: only
/// that render's files) when dropped while not empty, that is on a failure before
/// the image sets were complete; and, by their guards, when a signal ends the run
/// before then (a set cut short would look complete).
struct MadeDirs(Vec<(PathBuf, OnSignal)>);

impl Drop for MadeDirs {
    fn drop(&mut self) {
        for (dir, _) in &self.0 {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// The input and its board size.
fn open_source(args: &RenderArgs) -> anyhow::Result<(Source, Size)> {
    if args.input.is_dir() {
        let dir = args.input.clone();
        let manifest = bank::read_manifest(&dir)?;
        let size = bank_size(&dir, &manifest)?;
        if let Some(want) = args.size {
            if want != size {
                bail!(
                    "--size {want}: the bank {} holds {size} puzzles",
                    dir.display()
                );
            }
        }
        check_complete(&dir, &manifest)?;
        check_bands(&args.difficulty, &manifest, size).context("--difficulty")?;
        if let Some(Count::PerBand(bands)) = &args.count {
            let names: Vec<String> = bands.iter().map(|(name, _)| name.clone()).collect();
            check_bands(&names, &manifest, size).context("--count")?;
        }
        return Ok((
            Source::Bank {
                dir,
                manifest: Box::new(manifest),
            },
            size,
        ));
    }
    let name = input_name(&args.input);
    let lines = read_lines(&Some(args.input.clone()), &name)?;
    let size = match args.size {
        Some(size) => size,
        None => infer_size(&lines, &name)?,
    };
    let table = BandTable::default_for(size);
    for d in &named_bands(args) {
        if !table.bands().iter().any(|b| &b.name == d) {
            let known: Vec<&str> = table.bands().iter().map(|b| b.name.as_str()).collect();
            bail!(
                "band {d:?} (--difficulty or --count): {size} puzzles are graded {} (the default table)",
                known.join(", ")
            );
        }
    }
    Ok((Source::Lines(lines), size))
}

/// The bands `--difficulty` and `--count NAME=N` name: each must be a band of the
/// input's table.
fn named_bands(args: &RenderArgs) -> Vec<String> {
    let mut names = args.difficulty.clone();
    if let Some(Count::PerBand(bands)) = &args.count {
        names.extend(bands.iter().map(|(name, _)| name.clone()));
    }
    names
}

fn input_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    }
}

fn bank_size(dir: &Path, manifest: &Manifest) -> anyhow::Result<Size> {
    manifest
        .params
        .board_size()
        .map_err(|e| anyhow!("{}: params.{e}", dir.join(bank::format::MANIFEST).display()))
}

/// The lines of a puzzle file, with their 1-based numbers. A blank line is kept: it
/// is no puzzle, and parsing it says so (the text format has no blank lines).
fn read_lines(path: &Option<PathBuf>, name: &str) -> anyhow::Result<Vec<(usize, Vec<u8>)>> {
    let mut reader = open_input(path)?;
    let mut lines = Vec::new();
    for line_no in 1.. {
        let mut line = Vec::new();
        let read = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("reading {name}, line {line_no}"))?;
        if read == 0 {
            break;
        }
        while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            line.pop();
        }
        lines.push((line_no, line));
    }
    Ok(lines)
}

/// The size whose cell count the first non-blank line has (a blank line before it is
/// reported when the lines are parsed).
fn infer_size(lines: &[(usize, Vec<u8>)], name: &str) -> anyhow::Result<Size> {
    let first = lines
        .iter()
        .find(|(_, line)| !line.iter().all(u8::is_ascii_whitespace));
    let Some((line_no, line)) = first else {
        bail!("{name} holds no puzzle");
    };
    // A byte-order mark is not a cell: the line's parse names it.
    let n = String::from_utf8_lossy(line)
        .trim()
        .trim_start_matches('\u{feff}')
        .chars()
        .count();
    Size::ALL
        .into_iter()
        .find(|s| s.n_cells() == n)
        .ok_or_else(|| {
            anyhow!(
                "{name}, line {line_no}: {n} cells is no board size (16, 81, 256 or 625 for 4x4, 9x9, 16x16, 25x25); pass --size"
            )
        })
}

/// Reads the input and the exclusions and makes the selection.
fn select<B: Board>(args: &RenderArgs, source: Source) -> anyhow::Result<Vec<Puzzle>> {
    let exclude = read_exclusions::<B>(&args.exclude)?;
    let band_order: Vec<String> = match &source {
        // The bank's own table on its own scale (a rating-graded bank's bands are
        // rating ranges: read as clue bands they failed to parse and the order fell
        // back to the default clue table's).
        Source::Bank { manifest, .. } => manifest
            .params
            .band_table(B::SIZE)
            .unwrap_or_else(|| BandTable::default_for(B::SIZE)),
        Source::Lines(_) => lines_table::<B>(args)?,
    }
    .bands()
    .iter()
    .map(|b| b.name.clone())
    .collect();
    let mut selector = Selector::new(Config {
        band_order,
        difficulty: args.difficulty.clone(),
        count: args.count.clone(),
        seed: args.seed,
        allow_variants: args.allow_variants,
        exclude,
    });
    match source {
        Source::Bank { dir, manifest } => {
            for_each_row(&dir, &manifest, B::SIZE, B::empty(), |row| {
                let class = class_key::<B>(
                    &row.canonical
                        .unwrap_or_else(|| B::canonical_form(&row.puzzle)),
                );
                selector.offer(Candidate {
                    size: B::SIZE,
                    band: row.difficulty.as_str().to_string(),
                    rating: row
                        .rating
                        .map(|r| (r.rating, r.technique.name().to_string())),
                    givens: row.puzzle.as_ref().to_vec(),
                    solution: row.solution.as_ref().to_vec(),
                    class,
                });
            })?;
        }
        Source::Lines(lines) => {
            let name = input_name(&args.input);
            let table = lines_table::<B>(args)?;
            let mut bad = Vec::new();
            for (line_no, line) in &lines {
                match solve_line::<B>(line, *line_no) {
                    Ok((givens, solution)) => {
                        let n_clues = givens.as_ref().iter().filter(|&&v| v != 0).count();
                        // Rated on the way in (9x9): a book made from `--txt` keeps
                        // the order and captions a bank's would have.
                        let rating = B::rate_solved(&givens, &solution, u8::MAX);
                        let band = table
                            .grade_puzzle(n_clues as u16, rating.map(|r| r.rating))
                            .map_or_else(
                                || "unbanded".to_string(),
                                |i| table.bands()[i].name.clone(),
                            );
                        selector.offer(Candidate {
                            size: B::SIZE,
                            band,
                            rating: rating.map(|r| (r.rating, r.technique.name().to_string())),
                            givens: givens.as_ref().to_vec(),
                            solution: solution.as_ref().to_vec(),
                            class: class_key::<B>(&B::canonical_form(&givens)),
                        });
                    }
                    Err(e) => bad.push(e),
                }
            }
            if !bad.is_empty() {
                for e in bad.iter().take(20) {
                    say!("sudoku-factory: {name}, {e}");
                }
                let (verb, article) = if bad.len() == 1 {
                    ("is", "a ")
                } else {
                    ("are", "")
                };
                bail!(
                    "{name}: {} {verb} not {article}uniquely solvable {} {} (the first: {}); nothing written",
                    counted(bad.len() as u64, "line"),
                    B::SIZE,
                    if bad.len() == 1 { "puzzle" } else { "puzzles" },
                    bad[0]
                );
            }
        }
    }
    Ok(selector.finish()?)
}

/// The band table of a puzzle file's lines: the size's default clue table, or with
/// `--grade rating` the default rating table (9x9 only).
fn lines_table<B: Board>(args: &RenderArgs) -> anyhow::Result<BandTable> {
    Ok(match args.grade {
        GradeArg::Clues => BandTable::default_for(B::SIZE),
        GradeArg::Rating => BandTable::parse_scaled("default", B::SIZE, Scale::Rating)
            .map_err(|e| anyhow::anyhow!("--grade rating: {e}"))?,
    })
}

/// Parses and solves one puzzle line: its givens and its unique solution, or what is
/// wrong with it (naming the line, and the column of a bad character).
fn solve_line<B: Board>(line: &[u8], line_no: usize) -> Result<(B::Cells, B::Cells), String> {
    let mut cells = B::empty();
    parse_board(line, line_no, B::SIZE, cells.as_mut()).map_err(|e| board_error(&e, true))?;
    match B::solve(&cells) {
        Verdict::Unique(solution) => Ok((cells, solution)),
        Verdict::NoSolution => Err(format!("line {line_no}: the puzzle has no solution")),
        Verdict::Multiple => Err(format!(
            "line {line_no}: the puzzle has more than one solution"
        )),
    }
}

/// The canonical classes of every puzzle in the `--exclude` banks and files.
fn read_exclusions<B: Board>(paths: &[PathBuf]) -> anyhow::Result<std::collections::HashSet<u128>> {
    let mut classes = std::collections::HashSet::new();
    for path in paths {
        if path.is_dir() {
            let manifest = bank::read_manifest(path)?;
            let size = bank_size(path, &manifest)?;
            if size != B::SIZE {
                bail!(
                    "--exclude {}: a bank of {size} puzzles, the input is {}",
                    path.display(),
                    B::SIZE
                );
            }
            check_complete(path, &manifest)?;
            for_each_row(path, &manifest, B::SIZE, B::empty(), |row| {
                classes.insert(class_key::<B>(
                    &row.canonical
                        .unwrap_or_else(|| B::canonical_form(&row.puzzle)),
                ));
            })
            .with_context(|| format!("--exclude {}", path.display()))?;
        } else {
            let name = input_name(path);
            for (line_no, line) in read_lines(&Some(path.clone()), &name)? {
                let mut cells = B::empty();
                parse_board(&line, line_no, B::SIZE, cells.as_mut()).map_err(|e| match e {
                    // `--size` is the rendered puzzles' size: no help here.
                    ParseError::OtherSize { .. } => anyhow!(
                        "--exclude {name}: {e}; the puzzles rendered are {}",
                        B::SIZE
                    ),
                    e => anyhow!("--exclude {name}: {e}"),
                })?;
                classes.insert(class_key::<B>(&B::canonical_form(&cells)));
            }
        }
    }
    Ok(classes)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ImageKind {
    Svg,
    Png,
}

/// One image to write: puzzle `index` (or its solution) into `path`.
struct ImageJob {
    index: usize,
    solution: bool,
    kind: ImageKind,
    path: PathBuf,
}

/// The images `--svg` and `--png` ask for, `puzzle-0001.svg` and `solution-0001.svg`
/// (numbers padded to at least four digits); their directories created (returned:
/// the ones that were not there, as [`MadeDirs`]), and names that exist refused
/// without `--force`.
fn image_jobs(args: &RenderArgs, puzzles: &[Puzzle]) -> anyhow::Result<(Vec<ImageJob>, MadeDirs)> {
    let width = puzzles
        .iter()
        .map(|p| p.number)
        .max()
        .unwrap_or(1)
        .to_string()
        .len()
        .max(4);
    let mut jobs = Vec::new();
    for (dir, kind, ext) in [
        (&args.svg, ImageKind::Svg, "svg"),
        (&args.png, ImageKind::Png, "png"),
    ] {
        let Some(dir) = dir else { continue };
        for (index, p) in puzzles.iter().enumerate() {
            for solution in [false, true] {
                let stem = if solution { "solution" } else { "puzzle" };
                let path = dir.join(format!("{stem}-{:0width$}.{ext}", p.number));
                if !args.force && fs::symlink_metadata(&path).is_ok() {
                    bail!(
                        "{} already exists; pass --force to replace it",
                        path.display()
                    );
                }
                jobs.push(ImageJob {
                    index,
                    solution,
                    kind,
                    path,
                });
            }
        }
    }
    let mut created = Vec::new();
    for dir in [&args.svg, &args.png].into_iter().flatten() {
        if !dir.exists() {
            // Registered before it is made, as a temporary file is.
            created.push((dir.clone(), remove_on_signal(dir.clone(), true)));
        }
        create_output_dir(dir)?;
    }
    Ok((jobs, MadeDirs(created)))
}

/// With `--force` an image set replaces the last one in its directory: images of
/// the same naming (`puzzle-NNNN.EXT`, `solution-NNNN.EXT`) that this run did not
/// write — left by an earlier, larger `--count` — are removed, so the directory holds
/// one book's images. Other files are never touched.
fn remove_stale_images(dir: &Path, ext: &str, written: &[ImageJob]) -> anyhow::Result<()> {
    let ours = |name: &str| {
        let Some(stem) = name.strip_suffix(ext).and_then(|n| n.strip_suffix('.')) else {
            return false;
        };
        let number = stem
            .strip_prefix("puzzle-")
            .or_else(|| stem.strip_prefix("solution-"));
        number.is_some_and(|n| n.len() >= 4 && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let entries = fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let path = entry.path();
        let stale = entry.file_name().to_str().is_some_and(ours)
            && entry.file_type().is_ok_and(|t| t.is_file())
            && !written.iter().any(|job| job.path == path);
        if stale {
            fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    Ok(())
}

/// The offline play page of the chosen puzzles, numbered as in the book.
fn play_page(title: &str, size: Size, puzzles: &[Puzzle]) -> anyhow::Result<String> {
    let ratings: Vec<Option<String>> = puzzles.iter().map(Puzzle::rating_text).collect();
    let shown: Vec<PlayPuzzle<'_>> = puzzles
        .iter()
        .zip(&ratings)
        .map(|(p, rating)| PlayPuzzle {
            number: p.number as usize,
            band: &p.band,
            rating: rating.as_deref(),
            technique: p.rating.as_ref().map(|(_, t)| t.as_str()),
            givens: &p.givens,
            solution: &p.solution,
        })
        .collect();
    Ok(html::play_page(size, title, &shown)?)
}
