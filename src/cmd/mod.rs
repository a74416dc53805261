//! One file per subcommand: turn parsed arguments into library calls, read input and
//! write output. This is the I/O edge of the crate; the puzzle logic it calls never
//! sees a file, a terminal or a clap type.
//!
//! * [`generate`] — make a bank (or `--resume` one): the pipeline, progress, summary.
//! * [`verify`] — check a bank: manifest, checksums, ids, every row re-solved.
//! * [`stats`] — summarise a bank; the chart only where `--svg` says.
//! * [`merge`] — combine banks of one size.
//! * [`bench`](mod@bench) — measure the strategies; the table, CSV, JSON and SVG.
//! * [`solve`], [`canon`], [`transform`] — line filters over puzzle text.
//! * [`grade`] — the technique rating of each input puzzle, with its path on demand.
//! * [`export`] — a bank into one SQLite, JSON Lines or CSV file, written atomically.
//! * [`import`] — anyone's puzzle files into a bank; rejected puzzles reported by line.
//! * [`render`] — a PDF book, SVG/PNG images and text of chosen puzzles, each output
//!   written under a temporary name and renamed when complete.

pub mod bench;
pub mod canon;
pub mod export;
pub mod generate;
pub mod grade;
pub mod import;
pub mod merge;
pub mod render;
pub mod solve;
pub mod stats;
pub mod transform;
pub mod verify;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;

use anyhow::Context;

use crate::engine::board::Board;
use crate::engine::grid::{parse_board, ParseError};
use crate::util::text::counted;

/// How a command that finished went; `main` maps it to the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Everything was fine: exit code 0.
    Clean,
    /// The command finished but found defects (a puzzle without a unique solution,
    /// a failed check): exit code 1.
    Defects,
    /// The command finished but some input lines were malformed: exit code 2, the
    /// code of bad usage, after every other line was still handled.
    BadInput,
}

/// Opens `FILE`, or standard input for `-` or no argument.
pub fn open_input(path: &Option<PathBuf>) -> anyhow::Result<Box<dyn BufRead>> {
    Ok(Box::new(BufReader::new(open_read(path)?)))
}

/// [`open_input`] unbuffered.
fn open_read(path: &Option<PathBuf>) -> anyhow::Result<Box<dyn Read>> {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            if p.is_dir() {
                anyhow::bail!("{} is a directory, not a file of puzzles", p.display());
            }
            let f = File::open(p).with_context(|| format!("opening {}", p.display()))?;
            Ok(Box::new(f))
        }
        _ => Ok(Box::new(io::stdin())),
    }
}

/// Writes a command's report `text` to stdout. A closed pipe (`| head`) is not an
/// error and the command goes on with its files (`stats --svg`, `bench --out`); any
/// other failure (a full disk) is an error, never a panic.
pub fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(e).context("writing to standard output")
        }
        _ => Ok(()),
    }
}

/// Runs `per_line` over every well-formed input line (a board of `B`'s size) with its
/// 1-based number, writing through a buffered stdout, and returns the worst outcome.
/// A malformed line is answered with its parse error on stdout (one line out per
/// line in) and counted on stderr.
pub fn for_each_line<B: Board>(
    input: &Option<PathBuf>,
    per_line: impl FnMut(B::Cells, usize, &mut dyn Write) -> io::Result<Outcome>,
) -> anyhow::Result<Outcome> {
    for_each_line_as::<B>(input, LineErrors::Text, true, per_line)
}

/// A malformed line as a command reports it: see [`ParseError::explained`].
pub fn board_error(e: &ParseError, takes_size: bool) -> String {
    e.explained(takes_size)
}

/// `--bands` of `scale` for boards of `size` (generate and bench): its errors name
/// `--bands`, except that rating bands on another size than 9×9 are `--grade
/// rating`'s (the default table was asked for, no `--bands` given).
pub fn parse_bands(
    spec: &str,
    size: crate::engine::grid::Size,
    scale: crate::engine::bands::Scale,
) -> anyhow::Result<crate::engine::bands::BandTable> {
    use crate::engine::bands::{BandError, BandTable};
    // Since 0.4.12 the rater has SE's whole scale: every rating the band table takes
    // (up to 11.9) is one it can give.
    BandTable::parse_scaled(spec, size, scale).map_err(|e| match e {
        BandError::RatingSize(_) => anyhow::anyhow!("--grade rating: {e}"),
        e => anyhow::Error::new(e).context("--bands"),
    })
}

/// How [`for_each_line_as`] answers a malformed line on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineErrors {
    /// The parse error's message, e.g. `line 3, column 7: unexpected character 'x' ...`.
    Text,
    /// The message once for each of the lines a well-formed line gives (`transform
    /// --count K`), so that the output keeps K lines per input line.
    TextTimes(u32),
    /// A JSON object `{"line": N, "error": "..."}`, for commands whose output is JSON.
    Json,
}

/// One input line: its 1-based number and its board, or the message that answers it.
type Line<B> = (usize, Result<<B as Board>::Cells, String>);

/// The input lines of a command, read one at a time: each well-formed one as a board
/// of `B`'s size, a malformed one as the message that answers it.
struct Lines<'a, B: Board> {
    input: &'a Option<PathBuf>,
    reader: BufReader<Box<dyn Read>>,
    takes_size: bool,
    line: Vec<u8>,
    no: usize,
    _board: std::marker::PhantomData<B>,
}

impl<'a, B: Board> Lines<'a, B> {
    fn open(input: &'a Option<PathBuf>, takes_size: bool) -> anyhow::Result<Self> {
        Ok(Lines {
            input,
            reader: BufReader::with_capacity(1 << 16, open_read(input)?),
            takes_size,
            // Raw bytes, not `lines()`: a line that is not UTF-8 is one more malformed
            // line, answered like the others, not the end of the input.
            line: Vec::with_capacity(B::SIZE.n_cells() + 2),
            no: 0,
            _board: std::marker::PhantomData,
        })
    }

    /// Whether a whole line is already read in, so that [`Lines::next`] will not wait
    /// for input.
    fn ready(&self) -> bool {
        self.reader.buffer().contains(&b'\n')
    }

    /// The next line's number and board (or error message); `None` at the end.
    fn next(&mut self) -> anyhow::Result<Option<Line<B>>> {
        self.line.clear();
        self.no += 1;
        let (no, input) = (self.no, self.input);
        let read = self
            .reader
            .read_until(b'\n', &mut self.line)
            .with_context(|| match input {
                Some(p) if p.as_os_str() != "-" => format!("reading {} line {no}", p.display()),
                _ => format!("reading standard input line {no}"),
            })?;
        if read == 0 {
            return Ok(None);
        }
        let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let mut cells = B::empty();
        Ok(Some((
            no,
            parse_board(text, no, B::SIZE, cells.as_mut())
                .map(|()| cells)
                .map_err(|e| board_error(&e, self.takes_size)),
        )))
    }
}

/// Answers malformed line `no` with message `e`, as `errors` says.
fn answer_malformed(out: &mut dyn Write, errors: LineErrors, no: usize, e: &str) -> io::Result<()> {
    match errors {
        LineErrors::Text => writeln!(out, "{e}"),
        LineErrors::TextTimes(k) => (0..k).try_for_each(|_| writeln!(out, "{e}")),
        LineErrors::Json => writeln!(out, "{}", serde_json::json!({"line": no, "error": e})),
    }
}

/// Every write of the line loops is to standard output: the error says so (a full
/// disk said only "No space left on device").
fn stdout_err(e: io::Error) -> anyhow::Error {
    anyhow::Error::new(e).context("writing to standard output")
}

/// The outcome of a run that answered `malformed` lines as such, its worst line
/// outcome being `outcome`; the count goes to stderr.
fn with_malformed(outcome: Outcome, malformed: u64) -> Outcome {
    if malformed == 0 {
        return outcome;
    }
    crate::say!(
        "sudoku-factory: {}",
        counted(malformed, "malformed input line")
    );
    Outcome::BadInput
}

/// As [`for_each_line`], answering malformed lines as `errors` says; `takes_size`:
/// whether the command has `--size` (for [`board_error`]).
pub fn for_each_line_as<B: Board>(
    input: &Option<PathBuf>,
    errors: LineErrors,
    takes_size: bool,
    mut per_line: impl FnMut(B::Cells, usize, &mut dyn Write) -> io::Result<Outcome>,
) -> anyhow::Result<Outcome> {
    let mut lines = Lines::<B>::open(input, takes_size)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let (mut outcome, mut malformed) = (Outcome::Clean, 0u64);
    while let Some((no, parsed)) = lines.next()? {
        match parsed {
            Ok(cells) => outcome = outcome.max(per_line(cells, no, &mut out).map_err(stdout_err)?),
            Err(e) => {
                answer_malformed(&mut out, errors, no, &e).map_err(stdout_err)?;
                malformed += 1;
            }
        }
    }
    out.flush().map_err(stdout_err)?;
    Ok(with_malformed(outcome, malformed))
}

/// As [`for_each_line_as`], with `per_line` run on every core: the lines are read
/// in batches, each batch's boards handled in parallel (`per_line` writes a line's
/// answer into its buffer), and the answers written in input order, the same bytes
/// as one line at a time. For commands whose lines cost much and unevenly (`grade`:
/// milliseconds to a minute).
pub fn for_each_line_parallel<B: Board>(
    input: &Option<PathBuf>,
    errors: LineErrors,
    takes_size: bool,
    per_line: impl Fn(&B::Cells, usize, &mut Vec<u8>) -> io::Result<Outcome> + Sync,
) -> anyhow::Result<Outcome> {
    use rayon::prelude::*;
    let mut lines = Lines::<B>::open(input, takes_size)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let (mut outcome, mut malformed) = (Outcome::Clean, 0u64);
    // Enough lines per batch to keep every thread busy while one line is slow; but
    // only lines already read in join the first: a caller that sends a line and
    // waits for its answer gets it.
    let batch_len = 64 * rayon::current_num_threads();
    let mut batch = Vec::with_capacity(batch_len);
    // Each line's answer, the buffers kept across batches.
    let mut answers: Vec<Vec<u8>> = Vec::with_capacity(batch_len);
    loop {
        batch.clear();
        match lines.next()? {
            Some(line) => batch.push(line),
            None => break,
        }
        while batch.len() < batch_len && lines.ready() {
            match lines.next()? {
                Some(line) => batch.push(line),
                None => break,
            }
        }
        answers.resize_with(batch.len(), Vec::new);
        let outcomes: Vec<io::Result<Outcome>> = (batch.par_iter())
            .zip(answers.par_iter_mut())
            .map(|((no, parsed), buf)| {
                buf.clear();
                match parsed {
                    Ok(cells) => per_line(cells, *no, buf),
                    Err(_) => Ok(Outcome::Clean),
                }
            })
            .collect();
        for (((no, parsed), buf), this) in batch.iter().zip(&answers).zip(outcomes) {
            let this = this.map_err(stdout_err)?;
            match parsed {
                Ok(_) => {
                    out.write_all(buf).map_err(stdout_err)?;
                    outcome = outcome.max(this);
                }
                Err(e) => {
                    answer_malformed(&mut out, errors, *no, e).map_err(stdout_err)?;
                    malformed += 1;
                }
            }
        }
        out.flush().map_err(stdout_err)?;
    }
    Ok(with_malformed(outcome, malformed))
}

/// Writes a board in the text format (or with `0` for empty cells) and a newline.
pub fn write_cells<B: Board>(out: &mut dyn Write, cells: &B::Cells, zeros: bool) -> io::Result<()> {
    let mut text = B::empty();
    let buf = text.as_mut();
    if zeros {
        B::format_zeros_into(cells, buf);
    } else {
        B::format_into(cells, buf);
    }
    out.write_all(buf)?;
    out.write_all(b"\n")
}
