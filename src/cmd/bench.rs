//! `sudoku-factory bench`: measure every fill × carve combination on one rayon pool
//! (per band, with the `sudoku` crate's row beside them, under `--difficulty`), print
//! the table on stdout, then in band mode the fastest combination of each band, and
//! write `OUT/bench.csv`, `OUT/bench.json` and `OUT/bench.svg`. Progress (one line per
//! finished row) goes to stderr.

use std::time::Duration;

use anyhow::{bail, Context};

use crate::bench::{self, BandPlan, BenchConfig, Budget};
use crate::cli::BenchArgs;
use crate::engine::generate::{Carve, Fill};
use crate::engine::grid::Size;
use crate::say;

use super::{write_stdout, Outcome};
use crate::util::output;

/// The longest `--seconds` budget taken: a year per combination.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

pub fn run(args: &BenchArgs) -> anyhow::Result<Outcome> {
    let budget = match args.seconds {
        // Regression: a finite but huge value (1e300) panicked in from_secs_f64.
        Some(s) => match Duration::try_from_secs_f64(s) {
            Ok(d) if s > 0.0 && s <= MAX_SECONDS => Budget::Time(d),
            _ => bail!(
                "--seconds {s}: expected a positive number of seconds up to {MAX_SECONDS} \
                 (a year), e.g. 2.5"
            ),
        },
        None => Budget::Count(args.count),
    };
    // Checked before the measurements, which may take long.
    if args.out.exists() && !args.out.is_dir() {
        bail!(
            "--out {}: exists and is not a directory",
            args.out.display()
        );
    }
    let bands = match &args.difficulty {
        None => None,
        Some(spec) => {
            let table = super::parse_bands(
                args.bands.as_deref().unwrap_or("default"),
                args.size,
                args.grade.into(),
            )?;
            // `all` reads as `any` (generate's word), unless a band is called `all`.
            let spec = match spec.trim() {
                "all" if !table.bands().iter().any(|b| b.name == "all") => "any",
                other => other,
            };
            let selected = table.select(spec).context("--difficulty")?;
            Some(BandPlan {
                table,
                selected,
                max_attempts: args.max_attempts,
            })
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.map_or(0, |t| t as usize))
        .build()
        .context("starting the worker threads")?;
    let mut fills: Vec<Fill> = args.fill.iter().map(|&f| f.into()).collect();
    if fills.is_empty() {
        fills = bench::default_fills();
    }
    fills.dedup();
    let mut carves: Vec<Carve> = args.carve.iter().map(|&c| c.into()).collect();
    if carves.is_empty() {
        carves = Carve::ALL.to_vec();
    }
    carves.dedup();
    for &f in &fills {
        if let Some(reason) = crate::engine::generate::fill::unsuitable(f, args.size) {
            bail!("--fill {} on {} boards: {reason}", f.name(), args.size);
        }
    }
    let config = BenchConfig {
        size: args.size,
        fills,
        carves,
        budget,
        seed: args.seed,
        threads: pool.current_num_threads(),
        bands,
    };
    if config.bands.is_none() && args.size == Size::TwentyFive {
        say!(
            "sudoku-factory: note: without --difficulty, bench carves each 25x25 puzzle to the end, which takes minutes (--seconds is checked between puzzles); --difficulty BAND carves to a band in milliseconds"
        );
    }
    if config.bands.is_some() && args.size != Size::Nine {
        say!("sudoku-factory: note: the sudoku crate makes 9x9 puzzles only, so there are no peer rows");
    } else if config.bands.is_some() && !bench::HAS_PEER {
        say!("sudoku-factory: warning: built without the sudoku-peer feature, so no sudoku crate rows");
    }
    // Made once every option is checked and before the measurements, so that an OUT
    // that cannot be made (no permission, under a file) fails at once.
    output::create_output_dir(&args.out)?;
    let rows = pool.install(|| {
        crate::with_board!(args.size, B => bench::run::<B>(&config, |r| match &r.banded {
            None => say!(
                "sudoku-factory: {}+{}: {} puzzles, {:.1}/s",
                r.fill, r.carve, r.puzzles, r.puzzles_per_second
            ),
            Some(b) if b.reached => say!(
                "sudoku-factory: {}: {}+{}: {} puzzles, {:.1}/s, {:.2} attempts each",
                b.band, r.fill, r.carve, r.puzzles, r.puzzles_per_second, b.attempts_mean
            ),
            Some(b) => say!(
                "sudoku-factory: {}: {}+{}: unreachable (a puzzle missed the band {} times)",
                b.band, r.fill, r.carve, b.attempts_max
            ),
        }))
    });
    let mut text = bench::render_table(&rows);
    let fastest = bench::render_fastest(&rows);
    if !fastest.is_empty() {
        text += &format!("\n{fastest}");
    }
    write_stdout(&text)?;

    // Each file whole or not at all: written under a temporary name and renamed.
    let dir = &args.out;
    let mut w = csv::Writer::from_writer(Vec::new());
    for record in bench::csv_records(&rows) {
        w.write_record(&record)
            .context("encoding the rows as CSV")?;
    }
    let csv = w.into_inner().context("encoding the rows as CSV")?;
    let json = serde_json::to_string_pretty(&rows).context("encoding the rows as JSON")? + "\n";
    let svg = bench::render_svg(&rows);
    for (name, bytes) in [
        ("bench.csv", csv.as_slice()),
        ("bench.json", json.as_bytes()),
        ("bench.svg", svg.as_bytes()),
    ] {
        output::write_file(&dir.join(name), bytes)?;
    }
    output::sync_dir(dir)?;
    say!(
        "sudoku-factory: wrote {}/bench.{{csv,json,svg}}",
        dir.display()
    );
    Ok(Outcome::Clean)
}
