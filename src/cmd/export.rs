//! `sudoku-factory export BANK --to FILE [--format F]`: one file an app or an analyst
//! opens directly — SQLite, JSON Lines, Parquet, the public `quizzes,solutions` CSV,
//! plain CSV, an OpenSudoku file or Sudoku Exchange lines — made from a complete bank
//! in one streaming pass.
//!
//! The output is written under a hidden temporary name beside FILE
//! (`.FILE.tmp-PID`), fsynced and renamed only when complete: an export that fails
//! or is killed never leaves a partial FILE (a killed one may leave its temporary
//! file, which is never mistaken for FILE). The stream and the formats live in
//! [`crate::bank::export`]; this command turns the arguments into a
//! [`Request`], shows progress and reports.

use std::io::{self, Write};
use std::time::Instant;

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bank::export::{export, Destination, Exported, Format, Request, EXCHANGE_FILES};
use crate::cli::ExportArgs;
use crate::say;
use crate::util::output::{
    create_output_dir, refuse_existing, refuse_special, widen_stdout_pipe, TempOutput, WriteBack,
};

use super::Outcome;

pub fn run(args: &ExportArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let to_stdout = args.to.as_os_str() == "-";
    let (format, zstd) = resolve_format(args, to_stdout)?;
    // The Sudoku Exchange layout without --difficulty: a directory of its four files.
    let exchange_dir = format == Format::SudokuExchange && !to_stdout && args.difficulty.is_empty();
    let mut created = false;
    if exchange_dir {
        refuse_special(&args.to)?;
        // Its four files go into a directory: a file there is in the way, --force or not.
        if args.to.exists() && !args.to.is_dir() {
            bail!(
                "{} is a file: --format sudoku-exchange writes a directory of {} (name a directory, or pass --difficulty for one file of lines)",
                args.to.display(),
                EXCHANGE_FILES.map(|(name, _)| name).join(", ")
            );
        }
        if args.to.exists() && !args.force {
            bail!(
                "{} exists: pass --force to replace its {} (or choose another directory)",
                args.to.display(),
                EXCHANGE_FILES.map(|(name, _)| name).join(", ")
            );
        }
        created = !args.to.exists();
        create_output_dir(&args.to)?;
    } else if !to_stdout {
        refuse_existing(&args.to, args.force)?;
    }
    let request = Request {
        bank: &args.bank,
        format,
        zstd,
        difficulty: &args.difficulty,
        one_per_class: args.one_per_class,
        limit: args.limit,
    };
    let bar = progress(args.quiet);
    let on_rows = |read, total| {
        bar.set_length(total);
        bar.inc(read);
    };
    let (exported, name) = if format == Format::OpenSudoku {
        let bar = &bar;
        if to_stdout {
            let mut out = io::stdout().lock();
            let exported = opensudoku(args, &request, &mut out, "standard output", bar)?;
            (exported, "standard output".to_string())
        } else {
            let file = TempOutput::new(&args.to)?;
            let name = file.dest().display().to_string();
            let mut out = io::BufWriter::new(WriteBack::new(file.create()?));
            let writing = format!("writing {}", file.tmp().display());
            let exported = opensudoku(args, &request, &mut out, &writing, bar)?;
            out.flush().with_context(|| writing.clone())?;
            drop(out);
            file.commit()?;
            (exported, name)
        }
    } else if exchange_dir {
        let written = exchange_files(&request, &args.to, &on_rows);
        if written.is_err() && created {
            // Only an empty directory goes: the temporary files went with the error.
            let _ = std::fs::remove_dir(&args.to);
        }
        (written?, args.to.display().to_string())
    } else if to_stdout {
        widen_stdout_pipe();
        let to = Destination::Stream {
            name: "standard output",
            writer: Box::new(io::stdout().lock()),
        };
        (
            export(&request, to, &on_rows)?,
            "standard output".to_string(),
        )
    } else {
        let file = TempOutput::new(&args.to)?;
        let exported = export(&request, Destination::File(&file), &on_rows)?;
        let name = file.dest().display().to_string();
        file.commit()?;
        (exported, name)
    };
    bar.finish_and_clear();

    if !args.quiet {
        let secs = started.elapsed().as_secs_f64();
        say!(
            "sudoku-factory: exported {} of {} rows to {} ({}) in {secs:.2} s, {:.0} rows/s{}",
            exported.kept,
            exported.bank_rows,
            name,
            format.name(),
            exported.kept as f64 / secs.max(1e-9),
            if exported.closed {
                " (standard output was closed: stopped there)"
            } else {
                ""
            }
        );
    }
    Ok(Outcome::Clean)
}

/// The OpenSudoku import file (XML, version 2) on `out`: a `<folder>` per band of
/// the bank's table (those `--difficulty` names, in the table's order), or the one
/// `--folder` names, each filled by a pass over the bank with that band's rows (a
/// pass per folder keeps memory flat); `--limit` counts across the folders.
fn opensudoku(
    args: &ExportArgs,
    request: &Request<'_>,
    out: &mut dyn io::Write,
    writing: &str,
    bar: &ProgressBar,
) -> anyhow::Result<Exported> {
    let folders: Vec<(String, Vec<String>)> = match &args.folder {
        Some(name) => vec![(name.clone(), args.difficulty.clone())],
        None => {
            let manifest = crate::bank::read_manifest(&args.bank)?;
            let table = manifest
                .params
                .board_size()
                .ok()
                .and_then(|size| manifest.params.band_table(size));
            let names: Vec<String> = table.map_or_else(Vec::new, |t| {
                t.bands().iter().map(|b| b.name.clone()).collect()
            });
            let chosen: Vec<String> = names
                .into_iter()
                .filter(|n| args.difficulty.is_empty() || args.difficulty.contains(n))
                .collect();
            if chosen.is_empty() {
                vec![("sudoku-factory".to_string(), args.difficulty.clone())]
            } else {
                chosen.into_iter().map(|n| (n.clone(), vec![n])).collect()
            }
        }
    };
    let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opensudoku version=\"2\">\n";
    out.write_all(head.as_bytes())
        .context(writing.to_string())?;
    let mut total = Exported {
        kept: 0,
        bank_rows: 0,
        closed: false,
    };
    let passes = folders.len() as u64;
    for (name, bands) in &folders {
        if args.limit.is_some_and(|limit| total.kept >= limit) {
            break;
        }
        let open = format!("  <folder name=\"{}\">\n", xml_attribute(name));
        let pass = Request {
            difficulty: bands,
            limit: args.limit.map(|limit| limit - total.kept),
            ..request.clone()
        };
        let on_rows = |read, rows| {
            bar.set_length(rows * passes);
            bar.inc(read);
        };
        // The folder opens with its first game: a band without rows (or past the
        // limit) leaves no empty folder in the app.
        let to = Destination::Stream {
            name: writing,
            writer: Box::new(Headed {
                head: Some(open.into_bytes()),
                out: &mut *out,
            }),
        };
        let exported = export(&pass, to, &on_rows)?;
        total.kept += exported.kept;
        total.bank_rows = exported.bank_rows;
        if exported.closed {
            total.closed = true;
            return Ok(total);
        }
        if exported.kept > 0 {
            out.write_all(b"  </folder>\n")
                .context(writing.to_string())?;
        }
    }
    out.write_all(b"</opensudoku>\n")
        .context(writing.to_string())?;
    out.flush().context(writing.to_string())?;
    Ok(total)
}

/// A writer that puts `head` before the first bytes written through it.
struct Headed<'a> {
    head: Option<Vec<u8>>,
    out: &'a mut dyn Write,
}

impl Write for Headed<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if let Some(head) = self.head.take() {
            self.out.write_all(&head)?;
        }
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `text` safe inside a double-quoted XML attribute.
fn xml_attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            ch => out.push(ch),
        }
    }
    out
}

/// `--format sudoku-exchange` into the directory `dir`: its four files, each written
/// under a temporary name and renamed only when the whole export succeeded.
fn exchange_files(
    request: &Request<'_>,
    dir: &std::path::Path,
    on_rows: &dyn Fn(u64, u64),
) -> anyhow::Result<Exported> {
    let files = EXCHANGE_FILES
        .iter()
        .map(|(name, _)| TempOutput::new(&dir.join(name)))
        .collect::<Result<Vec<_>, _>>()?;
    let exported = export(request, Destination::Exchange(&files), on_rows)?;
    for file in files {
        file.commit()?;
    }
    Ok(exported)
}

/// `--format`, or the one FILE's extension implies; and whether to compress. Standard
/// output (`--to -`) takes the streamed formats, named by `--format`.
fn resolve_format(args: &ExportArgs, to_stdout: bool) -> anyhow::Result<(Format, bool)> {
    let inferred = Format::infer(&args.to);
    let format = match (args.format, inferred) {
        (Some(f), _) => Format::from(f),
        (None, _) if to_stdout => bail!(
            "--to - writes to standard output: pass --format jsonl, csv-kaggle, csv, sudoku-exchange or opensudoku"
        ),
        (None, Some((f, _))) => f,
        (None, None) => bail!(
            "cannot tell the format from the name {}: pass --format sqlite, jsonl, parquet, csv-kaggle, csv, sudoku-exchange or opensudoku (or name it .sqlite, .db, .jsonl, .parquet, .opensudoku, .csv or .csv.zst)",
            args.to.display()
        ),
    };
    // An explicit format must fit a name that implies one (a Kaggle CSV is a CSV,
    // but not a compressed one): JSON Lines in `x.csv.zst` helps no one.
    if let (Some(_), Some((named, zst))) = (args.format, inferred) {
        let fits = match named {
            Format::Csv => format == Format::Csv || (format == Format::CsvKaggle && !zst),
            named => named == format,
        };
        if !fits {
            let what = match (named, zst) {
                (Format::Sqlite, _) => "a SQLite database",
                (Format::Jsonl, _) => "JSON Lines",
                (Format::Parquet, _) => "Parquet",
                (Format::OpenSudoku, _) => "an OpenSudoku file",
                (_, true) => "zstd-compressed CSV",
                _ => "CSV",
            };
            let ext = match format {
                Format::Sqlite => ".sqlite",
                Format::Jsonl => ".jsonl",
                Format::CsvKaggle | Format::Csv => ".csv",
                Format::SudokuExchange => ".txt",
                Format::OpenSudoku => ".opensudoku",
                Format::Parquet => ".parquet",
            };
            bail!(
                "--format {} does not fit the name {}, which says {what}: name it {ext}, or leave --format out",
                format.name(),
                args.to.display()
            );
        }
    }
    if to_stdout && format == Format::Sqlite {
        bail!(
            "--format sqlite cannot go to standard output (--to -): SQLite writes a file it can seek in; name one, e.g. --to puzzles.sqlite"
        );
    }
    if to_stdout && format == Format::Parquet {
        bail!(
            "--format parquet cannot go to standard output (--to -): a Parquet file ends with its footer, written last; name one, e.g. --to puzzles.parquet"
        );
    }
    let zstd = args.zstd || (format == Format::Csv && inferred == Some((Format::Csv, true)));
    if zstd && format != Format::Csv {
        bail!(
            "--zstd compresses --format csv only, not {} ({})",
            format.name(),
            args.to.display()
        );
    }
    Ok((format, zstd))
}

fn progress(quiet: bool) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        // Drawn only when stderr is a terminal.
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} rows  {per_sec}  ETA {eta}",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    bar
}
