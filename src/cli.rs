//! The command line: clap derive types, and the only file that knows clap.
//!
//! `///` comments here are the `--help` text. Strategy names are value enums whose
//! spellings are fixed by DESIGN.md ("Names that must not drift").

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

use crate::engine::bands::Scale;
use crate::engine::generate::{Carve, Fill, Symmetry};
use crate::engine::grid::Size;

/// Parses `--size`: the side of the board, 4, 9, 16 or 25.
fn parse_board_size(text: &str) -> Result<Size, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .and_then(Size::from_side)
        .ok_or_else(|| "expected 4, 9, 16 or 25 (boxes of 2, 3, 4 or 5)".to_string())
}

/// A band name of `--difficulty` (export, render): trimmed, as `generate` takes them.
fn parse_band_name(text: &str) -> Result<String, String> {
    match text.trim() {
        "" => Err("an empty band name".to_string()),
        name => Ok(name.to_string()),
    }
}

impl Cli {
    /// Parses the command line, with `--difficulty any` (or `all`, names no table may
    /// give a band) read as no filter in `export` and `render`, as `generate` reads it.
    pub fn parse_args() -> Cli {
        let mut cli = Cli::parse();
        let every = |names: &mut Vec<String>| {
            if names
                .iter()
                .any(|n| crate::engine::bands::means_every_band(n))
            {
                names.clear();
            }
        };
        match &mut cli.command {
            Command::Export(args) => every(&mut args.difficulty),
            Command::Render(args) => every(&mut args.difficulty),
            _ => {}
        }
        cli
    }
}

/// Banks of uniquely solvable, graded Sudoku puzzles, made fast and reproducibly.
#[derive(Debug, Parser)]
#[command(name = "sudoku-factory", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate a bank: seed puzzles, their symmetric variants, graded, into zstd CSV shards.
    Generate(GenerateArgs),
    /// Solve puzzles, one per line: prints the solution or a verdict per line.
    Solve(InputArgs),
    /// Rate 9x9 puzzles by technique on the Sudoku Explainer scale, one per line.
    Grade(GradeArgs),
    /// Print the canonical form (pattern first, then digits) of each puzzle or grid.
    Canon(InputArgs),
    /// Print random equivalent puzzles (symmetry transforms) of each input line.
    Transform(TransformArgs),
    /// Check a bank against its manifest and every row against the rules (exit 1 on any defect).
    Verify(VerifyArgs),
    /// Summarise a bank: rows per band, clue counts, canonical forms, stage latencies; write an SVG chart.
    Stats(StatsArgs),
    /// Merge banks (the workers of one run, or different runs) into one: duplicates removed, fresh ids.
    Merge(MergeArgs),
    /// Compare fill × carve strategies: speed, latency, clues, bands, minimality, diversity.
    Bench(BenchArgs),
    /// Export a bank to SQLite, JSON Lines, Parquet, the public dataset CSV layouts, OpenSudoku or Sudoku Exchange files.
    Export(ExportArgs),
    /// Make a bank of anyone's puzzles (text lines, a CSV or Parquet column): solved, canonicalised,
    /// deduplicated, rated and graded; rejected puzzles reported by line.
    Import(ImportArgs),
    /// Lay out puzzles for people: a print-ready PDF book, SVG/PNG images, plain text.
    Render(RenderArgs),
}

/// A fill strategy (SEEDS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FillArg {
    /// Depth-first backtracking, digits tried in a freshly shuffled order at each cell.
    Backtrack,
    /// Digit 1 nine times, then 2, ..., each at a random legal cell; restart when stuck (slow).
    Digits,
    /// Forced moves first, random digit in the most constrained cell, row/column repairs.
    Mrv,
    /// One fixed pattern grid, shuffled: very fast, but a single essentially different grid.
    Template,
    /// Random legal digits at random cells, each addition checked by the solver.
    RandomAdd,
}

impl From<FillArg> for Fill {
    fn from(f: FillArg) -> Fill {
        match f {
            FillArg::Backtrack => Fill::Backtrack,
            FillArg::Digits => Fill::Digits,
            FillArg::Mrv => Fill::Mrv,
            FillArg::Template => Fill::Template,
            FillArg::RandomAdd => Fill::RandomAdd,
        }
    }
}

/// A carve strategy (SEEDS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CarveArg {
    /// Remove every clue that can go; keep the puzzle only if it lands in its band.
    Minimal,
    /// Remove clues until a clue count drawn inside the band is reached.
    Target,
    /// Start from 15 random clues, add disambiguating clues until unique, then carve.
    AddClues,
    /// Keep one clue of every small unavoidable set, then carve the rest at random.
    Unavoidable,
}

/// What difficulty bands grade by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GradeArg {
    /// Clue counts.
    Clues,
    /// The SE technique rating (9x9).
    Rating,
}

impl From<GradeArg> for Scale {
    fn from(g: GradeArg) -> Scale {
        match g {
            GradeArg::Clues => Scale::Clues,
            GradeArg::Rating => Scale::Rating,
        }
    }
}

/// Which part of a run `generate` does (README, "Beyond one machine").
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StageArg {
    /// The whole run: seeds, then their expansion into the bank.
    All,
    /// Stage 1: this worker's share of the seeds, into a seed file in --out.
    Seeds,
    /// Stage 2: the bank (this worker's shards) from the seed files in --seeds.
    Expand,
}

/// A symmetry of the clue pattern (DESIGN.md names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SymmetryArg {
    /// No symmetry.
    None,
    /// Rotation by 180 degrees, the classic newspaper pattern.
    Rot180,
    /// Rotation by 90 degrees (orbits of four cells).
    Rot90,
    /// Left-right mirror image.
    Mirror,
    /// Reflection in the main diagonal.
    Diagonal,
}

impl From<SymmetryArg> for Symmetry {
    fn from(s: SymmetryArg) -> Symmetry {
        match s {
            SymmetryArg::None => Symmetry::None,
            SymmetryArg::Rot180 => Symmetry::Rot180,
            SymmetryArg::Rot90 => Symmetry::Rot90,
            SymmetryArg::Mirror => Symmetry::Mirror,
            SymmetryArg::Diagonal => Symmetry::Diagonal,
        }
    }
}

impl From<CarveArg> for Carve {
    fn from(c: CarveArg) -> Carve {
        match c {
            CarveArg::Minimal => Carve::Minimal,
            CarveArg::Target => Carve::Target,
            CarveArg::AddClues => Carve::AddClues,
            CarveArg::Unavoidable => Carve::Unavoidable,
        }
    }
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Board side: 4, 9, 16 or 25 (boxes of 2, 3, 4, 5). Each size has its own
    /// default band table (README, "Difficulty bands").
    #[arg(long, default_value = "9", value_parser = parse_board_size)]
    pub size: Size,
    /// Number of puzzles (rows) to write.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), required_unless_present = "resume")]
    pub count: Option<u64>,
    /// Output directory of the bank (created if missing).
    #[arg(long, required_unless_present = "resume", conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Continue an interrupted run in this bank directory, with the parameters its
    /// manifest records; the finished bank is byte-identical to an uninterrupted run.
    #[arg(long, value_name = "OUT", conflicts_with_all = [
        "size", "count", "seed", "difficulty", "bands", "grade", "fill", "carve", "symmetry", "variants",
        "shard_rows", "zstd_level", "max_attempts", "force"])]
    pub resume: Option<PathBuf>,
    /// Seed of the whole bank: the same seed and options give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads, 1 to 1024 (default: all cores). Does not change the output.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Bands to produce, in equal shares: `any` (every band of the table) or names, e.g. `easy,hard`.
    #[arg(long, default_value = "any")]
    pub difficulty: String,
    /// Band table: `default`, `six-level`, or NAME=LO-HI,... (clue counts, e.g.
    /// easy=36-40,medium=30-35; with --grade rating, SE ratings, e.g.
    /// easy=1.0-1.4,hard=2.5-4.9,extreme=7.0+, each optionally with a clue range
    /// `@17-40` and `:even` to spread its seeds evenly over its rating steps;
    /// `default:even` for every default band).
    #[arg(long, default_value = "default")]
    pub bands: String,
    /// What the bands grade by: `clues` (clue counts) or `rating` (the SE technique
    /// rating, 9x9 only; default table easy 1.0-1.4, medium 1.5-2.4, hard 2.5-4.9,
    /// diabolical 5.0-6.9, extreme 7.0+, each with a clue range: easy at most 45
    /// clues, medium 40, the others 36). Rating bands carve and retry until the
    /// rating, and the clue count, land in the seed's band.
    #[arg(long, value_enum, default_value_t = GradeArg::Clues)]
    pub grade: GradeArg,
    /// How to fill complete grids.
    #[arg(long, value_enum, default_value_t = FillArg::Backtrack)]
    pub fill: FillArg,
    /// How to carve puzzles out of them.
    #[arg(long, value_enum, default_value_t = CarveArg::Target)]
    pub carve: CarveArg,
    /// Symmetry of the clue pattern: clues are removed in symmetric orbits (with
    /// `--carve minimal` or `target`); puzzles are then minimal with respect to orbits.
    #[arg(long, value_enum, default_value_t = SymmetryArg::None)]
    pub symmetry: SymmetryArg,
    /// Puzzles made from each seed by symmetry transforms (1 = seeds only; at most
    /// 65536, so that one seed's variants fit in one block of work).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub variants: u32,
    /// Rows per shard (the last shard is shorter). With --workers N, a run of fewer
    /// shards than workers cuts each worker's part into shards of count/N rows, which
    /// `merge` cuts back into these.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub shard_rows: u64,
    /// zstd compression level (1-19). The default 1 is the fastest and, on these rows
    /// (mostly random digits), smaller than levels 2-9; 12 saves 2 % at 25 times the
    /// CPU, 19 saves 10 % at some 600 times.
    #[arg(long, default_value_t = crate::bank::format::DEFAULT_ZSTD_LEVEL, value_parser = clap::value_parser!(i32).range(1..=19))]
    pub zstd_level: i32,
    /// Fill-and-carve attempts allowed for one seed to land in its band before giving up.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_attempts: u32,
    /// Replace a bank already in --out.
    #[arg(long)]
    pub force: bool,
    /// No progress bar and no summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Split the bank across N independent processes (a Slurm job array, a Kubernetes
    /// Indexed Job, GNU parallel): each writes only its own shards (K, K+N, ...) with the
    /// bytes a single run would write. Combine the outputs with `merge` (each worker's
    /// manifest lists only its own shards: shards copied into one directory are not a
    /// bank).
    /// With --stage seeds, the seeds are split too: worker K makes the seed chunks
    /// K, K+N, ... (--resume then needs --workers and the worker index again).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub workers: u64,
    /// This process's index in 0..N (default: $SLURM_ARRAY_TASK_ID, else
    /// $JOB_COMPLETION_INDEX).
    #[arg(long)]
    pub worker: Option<u64>,
    /// A staged run across machines: `seeds` (stage 1: this worker's share of the
    /// seeds, into a seed file in --out) then `expand` (stage 2: every worker reads all
    /// seed files from --seeds and writes its shards). Same bytes as `all`.
    #[arg(long, value_enum, default_value_t = StageArg::All)]
    pub stage: StageArg,
    /// Stage 2: the directory of stage 1's seed files (implies --stage expand).
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub seeds: Option<PathBuf>,
    /// Do not record stage latencies (no OUT/histograms/), e.g. to measure their cost.
    #[arg(long)]
    pub no_histograms: bool,
    /// Leave the rating and technique columns empty: no technique rating of the seeds.
    /// Rating costs about a third of making a target-carved seed, and about as much as
    /// making a minimal one.
    #[arg(long)]
    pub no_rating: bool,
    /// Start the rating bands' climbs from these 9x9 puzzles (one a line; what follows
    /// the puzzle after a blank, a comma or a semicolon, such as a rating, is ignored;
    /// `#` starts a comment line), e.g. puzzles already rated high: a search of their neighbourhood,
    /// never giving back one of them. Needs --grade rating; one process (no
    /// --workers or --stage). --resume reads FILE again and needs the same puzzles.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["resume", "seeds"])]
    pub from: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// Board side of the input lines: 4, 9, 16 or 25.
    #[arg(long, default_value = "9", value_parser = parse_board_size)]
    pub size: Size,
    /// Input file with one puzzle per line; `-` or nothing reads standard input.
    pub input: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct GradeArgs {
    /// Input file with one 9x9 puzzle per line; `-` or nothing reads standard input.
    pub input: Option<PathBuf>,
    /// Also print the solving path: every step's technique, rating, pattern cells,
    /// placements (r1c2=5) and eliminations (r1c2<>5).
    #[arg(long)]
    pub steps: bool,
    /// One JSON object per line instead of text: {"line", "rating", "technique"} and,
    /// with --steps, "steps" (cells 0..80 row-major, digits 1..9), each with its
    /// "patterns" (houses, digits, conclusions, chains): see the README's hint schema.
    #[arg(long)]
    pub json: bool,
    /// With --steps --json: each step also gives the grid and the candidates before
    /// it ("grid", "candidates"), what an app draws a hint on.
    #[arg(long, requires_all = ["steps", "json"])]
    pub candidates: bool,
}

#[derive(Debug, Args)]
pub struct TransformArgs {
    /// Board side of the input lines: 4, 9, 16 or 25.
    #[arg(long, default_value = "9", value_parser = parse_board_size)]
    pub size: Size,
    /// Seed of the random transforms.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Equivalent puzzles to print per input line.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub count: u32,
    /// Input file with one puzzle per line; `-` or nothing reads standard input.
    pub input: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Directory of the bank (the --out of generate).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// The board size the bank must hold (4, 9, 16 or 25); default: the size its
    /// manifest records. A different size is an error.
    #[arg(long, value_parser = parse_board_size)]
    pub size: Option<Size>,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// No progress bar and no summary when clean; defects are still printed.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Directory of the bank (the --out of generate).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Also draw the SVG chart (clue counts, ratings, progress per stage) into FILE.
    /// Without it nothing is written: `stats` only reads the bank.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Replace the --svg FILE if it exists (it is refused otherwise).
    #[arg(long)]
    pub force: bool,
    /// Print the figures as one JSON object instead of text (schema in the README).
    #[arg(long)]
    pub json: bool,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Directory of the merged bank (created if missing).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Banks to merge, in this order. When all come from one run (same parameters
    /// except --workers/--worker) rows keep their original id order, so the workers of
    /// a run merge into the single-process bank; otherwise input by input.
    #[arg(value_name = "IN", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Keep at most K rows per canonical form (the first ones in merge order).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_per_class: Option<u64>,
    /// Rows per shard (default: the first input's; for workers' parts, the bank's).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub shard_rows: Option<u64>,
    /// zstd compression level, 1-19 (default: the first input's).
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=19))]
    pub zstd_level: Option<i32>,
    /// Memory for rows held at once, e.g. 512M or 2G; larger inputs are partitioned
    /// through temporary files under OUT. Does not change the output.
    #[arg(long, default_value = "1G", value_parser = crate::bank::merge::parse_size)]
    pub memory: u64,
    /// Replace a bank already in OUT.
    #[arg(long)]
    pub force: bool,
    /// No summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Worker threads, 1 to 1024 (default: all cores). Does not change the output.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files of puzzles, read in this order: one puzzle per line in the text format
    /// (81 characters for 9x9, `.` or `0` for empty cells), or a `.csv` file with a
    /// header or a `.parquet` file, whose puzzle column is --column.
    #[arg(value_name = "FILE", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Directory of the bank to write (created if missing).
    #[arg(long, value_name = "BANK")]
    pub out: PathBuf,
    /// The puzzle column of CSV and Parquet files (default: the first of puzzle, quizzes, quiz,
    /// puzzles in the header; names match without regard to case).
    #[arg(long, value_name = "NAME")]
    pub column: Option<String>,
    /// Board side: 4, 9, 16 or 25.
    #[arg(long, default_value = "9", value_parser = parse_board_size)]
    pub size: Size,
    /// Band table, as `generate --bands` takes it (`default`: the size's table).
    #[arg(long, default_value = "default")]
    pub bands: String,
    /// What the bands grade by: `clues` or `rating` (the SE technique rating, 9x9).
    #[arg(long, value_enum, default_value_t = GradeArg::Clues)]
    pub grade: GradeArg,
    /// Keep puzzles whose canonical class was already imported (they are counted
    /// either way; by default only the first of a class is kept).
    #[arg(long)]
    pub keep_duplicates: bool,
    /// Leave the rating and technique columns empty (no technique rating; not with
    /// --grade rating).
    #[arg(long, conflicts_with = "grade")]
    pub no_rating: bool,
    /// Write every rejected puzzle to this CSV file (`file,line,reason`).
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,
    /// Rows per shard (the last shard is shorter).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub shard_rows: u64,
    /// zstd compression level (1-19).
    #[arg(long, default_value_t = crate::bank::format::DEFAULT_ZSTD_LEVEL, value_parser = clap::value_parser!(i32).range(1..=19))]
    pub zstd_level: i32,
    /// Replace a bank already in --out.
    #[arg(long)]
    pub force: bool,
    /// No progress bar, no summary (rejected puzzles are still reported).
    #[arg(long, short)]
    pub quiet: bool,
    /// Worker threads, 1 to 1024 (default: all cores). Does not change the output.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
}

/// An output format of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormatArg {
    /// A SQLite database: table `puzzles` (the bank's columns, indexed by difficulty and
    /// canonical form) and table `meta` (the manifest).
    Sqlite,
    /// JSON Lines: one object per row, numbers as numbers.
    Jsonl,
    /// The public 9x9 datasets' layout: `quizzes,solutions`, 81 digits, `0` for empty.
    CsvKaggle,
    /// Plain CSV with the bank's header (with --zstd: compressed).
    Csv,
    /// The Sudoku Exchange puzzle bank's 100-byte lines (SHA-1 prefix, 81 digits, SE
    /// rating): FILE is a directory that gets easy.txt, medium.txt, hard.txt and
    /// diabolical.txt split by rating as that bank splits them, or, with
    /// --difficulty, one file of the chosen bands.
    SudokuExchange,
    /// The OpenSudoku app's import file (.opensudoku, XML version 2): one folder per
    /// band, or all rows in the one folder --folder names.
    Opensudoku,
    /// Apache Parquet (.parquet): typed columns (id INT64, clues INT32, rating DOUBLE,
    /// boards and names UTF-8 strings; difficulty and technique dictionary-encoded),
    /// zstd row groups of 131,072 rows, the manifest in the footer's metadata.
    Parquet,
}

impl From<ExportFormatArg> for crate::bank::export::Format {
    fn from(f: ExportFormatArg) -> Self {
        use crate::bank::export::Format;
        match f {
            ExportFormatArg::Sqlite => Format::Sqlite,
            ExportFormatArg::Jsonl => Format::Jsonl,
            ExportFormatArg::CsvKaggle => Format::CsvKaggle,
            ExportFormatArg::Csv => Format::Csv,
            ExportFormatArg::SudokuExchange => Format::SudokuExchange,
            ExportFormatArg::Opensudoku => Format::OpenSudoku,
            ExportFormatArg::Parquet => Format::Parquet,
        }
    }
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Directory of the bank to export (complete: every shard its manifest lists).
    #[arg(value_name = "BANK")]
    pub bank: PathBuf,
    /// The file to write. It appears only when complete (written under a temporary
    /// name beside it, then renamed). `-` writes to standard output (jsonl,
    /// csv-kaggle, csv, sudoku-exchange or opensudoku, named by --format).
    #[arg(long, value_name = "FILE")]
    pub to: PathBuf,
    /// Output format (default: from FILE's extension: .sqlite/.sqlite3/.db, .jsonl,
    /// .parquet, .opensudoku, .csv, .csv.zst).
    #[arg(long, value_enum)]
    pub format: Option<ExportFormatArg>,
    /// Only rows of these bands, comma-separated or repeated (e.g. hard,expert);
    /// `any` (or none): every band.
    #[arg(long, value_name = "BAND", value_delimiter = ',', value_parser = parse_band_name)]
    pub difficulty: Vec<String>,
    /// Only the first row of each canonical form (one puzzle per class of equivalent
    /// puzzles); holds 16 bytes per class in memory.
    #[arg(long)]
    pub one_per_class: bool,
    /// At most N rows (after the other filters); at least 1 (regression: `--limit 0`
    /// wrote an empty file and succeeded).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Compress the CSV with zstd (implied by a FILE ending in .csv.zst).
    #[arg(long)]
    pub zstd: bool,
    /// --format opensudoku: every row in one folder of this name (default: one
    /// folder per band, named after it).
    #[arg(long, value_name = "NAME")]
    pub folder: Option<String>,
    /// Replace FILE if it exists.
    #[arg(long)]
    pub force: bool,
    /// No progress bar and no summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Parses `--trim`: a trim size name.
fn parse_trim(text: &str) -> Result<crate::render::layout::Trim, String> {
    use crate::render::layout::Trim;
    Trim::parse(text).ok_or_else(|| format!("unknown trim size; expected one of {}", Trim::NAMES))
}

/// Parses `--per-page`: 1, 2, 4 or 6.
fn parse_per_page(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n @ (1 | 2 | 4 | 6)) => Ok(n),
        _ => Err("expected 1, 2, 4 or 6".to_string()),
    }
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("outputs").required(true).multiple(true).args(["pdf", "svg", "png", "txt", "html"])))]
pub struct RenderArgs {
    /// A bank directory (its manifest gives the size), or a file with one puzzle per
    /// line (`-` reads standard input); solutions are computed, and a line without a
    /// unique solution is an error.
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
    /// Write a print-ready PDF book: puzzles by band, then the solutions.
    #[arg(long, value_name = "FILE")]
    pub pdf: Option<PathBuf>,
    /// Write one SVG per puzzle and per solution into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// Write one PNG per puzzle and per solution into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    pub png: Option<PathBuf>,
    /// Write the chosen puzzles' givens, one per line, in book order.
    #[arg(long, value_name = "FILE")]
    pub txt: Option<PathBuf>,
    /// Write one self-contained HTML page that plays the chosen puzzles in a browser,
    /// offline (type, pencil marks, check, reveal, timer, progress kept, PNG download).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// With --txt: add the lines at the end of FILE (created if missing), never
    /// replacing what it holds.
    #[arg(long, requires = "txt")]
    pub append: bool,
    /// Board side of a puzzle file: 4, 9, 16 or 25 (default: from the first line's
    /// length). A bank's manifest gives its own.
    #[arg(long, value_parser = parse_board_size)]
    pub size: Option<Size>,
    /// Only puzzles of these bands, comma-separated or repeated (e.g. hard,expert);
    /// `any` (or none): every band.
    #[arg(long, value_name = "BAND", value_delimiter = ',', value_parser = parse_band_name)]
    pub difficulty: Vec<String>,
    /// Exactly N puzzles (more than are available is an error), or N of each band
    /// named and none of the others (`--count easy=40,medium=40,hard=40`); default:
    /// all.
    #[arg(long, value_name = "N|BAND=N,...")]
    pub count: Option<crate::render::select::Count>,
    /// Seed of the pick with --count: the same seed and input pick the same puzzles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Keep several puzzles of one canonical class (by default only the first one of
    /// each class: no two puzzles of a book are the same puzzle in disguise).
    #[arg(long)]
    pub allow_variants: bool,
    /// Skip every puzzle whose canonical form is in these banks or puzzle files (e.g.
    /// earlier books' --txt files).
    #[arg(long, value_name = "BANK_OR_FILE", num_args = 1..)]
    pub exclude: Vec<PathBuf>,
    /// Trim size of the book: 6x9, 8.5x11 (= letter) or a4.
    #[arg(long, default_value = "8.5x11", value_parser = parse_trim)]
    pub trim: crate::render::layout::Trim,
    /// Add 0.125 in of bleed beyond the top, bottom and outside edges (page size
    /// grows; the trim box stays).
    #[arg(long)]
    pub bleed: bool,
    /// Puzzles per page: 1, 2, 4 or 6 (default: 4 on 8.5x11 and a4, 2 on 6x9, 1 with
    /// --large-print; fewer where big grids' digits would fall below 6 pt, 14 pt in
    /// large print, and a count that would is refused).
    #[arg(long, value_parser = parse_per_page)]
    pub per_page: Option<usize>,
    /// With a puzzle file: band its lines by `clues` (the size's default clue table)
    /// or by `rating` (the default rating table, 9x9). Lines are rated either way
    /// (9x9), for the book's order and `--caption rating`; a bank keeps its own bands.
    #[arg(long, value_enum, default_value_t = GradeArg::Clues)]
    pub grade: GradeArg,
    /// What each puzzle's caption shows beside its number, comma-separated from
    /// `number`, `band`, `rating` (SE), `technique` (the hardest step: a spoiler).
    /// Default: the number only.
    #[arg(long, value_name = "FIELDS", default_value = "number")]
    pub caption: crate::render::layout::Caption,
    /// Large print: bigger digits, captions and lines; 1 or 2 puzzles a page.
    #[arg(long)]
    pub large_print: bool,
    /// The title of the PDF (document metadata) and of the HTML play page.
    #[arg(long, default_value = "Sudoku")]
    pub title: String,
    /// Resolution of --png images, dots per inch (a 9x9 grid is 3 in wide).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(36..=1200))]
    pub dpi: u32,
    /// Replace outputs that exist.
    #[arg(long)]
    pub force: bool,
    /// No summary.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Board side: 4, 9, 16 or 25. The `sudoku` crate's peer rows are 9x9 only.
    #[arg(long, default_value = "9", value_parser = parse_board_size)]
    pub size: Size,
    /// Fill strategies to compare, comma-separated (default: all but the slow `digits`).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub fill: Vec<FillArg>,
    /// Carve strategies to compare, comma-separated (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub carve: Vec<CarveArg>,
    /// Puzzles per combination.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "seconds")]
    pub count: u64,
    /// Wall time per combination instead of a count, in seconds (e.g. 2.5).
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Worker threads, 1 to 1024 (default: all cores); every combination runs on the same pool.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Seed: puzzle i of every combination draws from (seed, i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measure per band instead of carving to the end: `any` or `all` (every band of the
    /// table) or names, e.g. `easy,medium`. Each puzzle gets a clue target drawn in its
    /// band and is made again until it lands there; rows count landed puzzles only, and
    /// each band gets a row for the `sudoku` crate 0.8 as the peer.
    #[arg(long)]
    pub difficulty: Option<String>,
    /// Band table for --difficulty: `default`, `six-level`, or NAME=LO-HI,... (clue
    /// counts, e.g. easy=36-40,medium=30-35; SE ratings with --grade rating).
    #[arg(long, requires = "difficulty")]
    pub bands: Option<String>,
    /// With --difficulty: what the bands grade by, `clues` or `rating` (the SE
    /// technique rating, 9x9; puzzles made as `generate --grade rating` makes seeds).
    #[arg(long, value_enum, default_value_t = GradeArg::Clues, requires = "difficulty")]
    pub grade: GradeArg,
    /// With --difficulty: fill-and-carve attempts one puzzle may take to land in its
    /// band; when one runs out, its combination is reported `unreachable` for the band.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..), requires = "difficulty")]
    pub max_attempts: u32,
    /// Directory for bench.csv, bench.json and bench.svg (created if missing).
    #[arg(long, default_value = "bench-results")]
    pub out: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn fill_names_match_the_library() {
        for f in FillArg::value_variants() {
            let name = f.to_possible_value().expect("no skipped variants");
            assert_eq!(name.get_name(), Fill::from(*f).name());
        }
        assert_eq!(FillArg::value_variants().len(), Fill::ALL.len());
        for c in CarveArg::value_variants() {
            let name = c.to_possible_value().expect("no skipped variants");
            assert_eq!(name.get_name(), Carve::from(*c).name());
        }
        assert_eq!(CarveArg::value_variants().len(), Carve::ALL.len());
    }
}
