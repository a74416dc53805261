//! One file per subcommand: turn parsed arguments into library calls, read input and
//! write output. This is the I/O edge of the crate; the puzzle logic it calls never
//! sees a file, a terminal or a clap type.

pub mod canon;
pub mod generate;
pub mod solve;
pub mod transform;

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

use anyhow::Context;

/// How a command that finished went: the process exit code is 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Everything was fine.
    Clean,
    /// The command finished but found defects (bad input lines, a failed check).
    Defects,
}

/// Opens `FILE`, or standard input for `-` or no argument.
pub fn open_input(path: &Option<PathBuf>) -> anyhow::Result<Box<dyn BufRead>> {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            let f = File::open(p).with_context(|| format!("opening {}", p.display()))?;
            Ok(Box::new(BufReader::new(f)))
        }
        _ => Ok(Box::new(BufReader::new(io::stdin()))),
    }
}

/// True for the error a closed pipe gives (`... | head`): not a failure of ours.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Runs `per_line` over every input line with its 1-based number, writing through a
/// buffered stdout. Returns `Defects` if any call reported one.
pub fn for_each_line(
    input: &Option<PathBuf>,
    mut per_line: impl FnMut(&str, usize, &mut dyn io::Write) -> io::Result<bool>,
) -> anyhow::Result<Outcome> {
    let reader = open_input(input)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut clean = true;
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("reading line {}", i + 1))?;
        clean &= per_line(&line, i + 1, &mut out)?;
    }
    io::Write::flush(&mut out)?;
    Ok(if clean {
        Outcome::Clean
    } else {
        Outcome::Defects
    })
}
