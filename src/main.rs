//! The `sudoku-factory` binary: parse arguments, run the subcommand, map the outcome
//! to an exit code (0 success, 1 finished with defects, 2 bad usage or fatal error).

use std::process::ExitCode;

use sudoku_factory::cli::{Cli, Command};
use sudoku_factory::cmd::{self, Outcome};

fn main() -> ExitCode {
    // A file-size limit (`ulimit -f`) must end the run with a clear error, not kill the
    // process mid-write: with SIGXFSZ ignored the write fails with EFBIG instead, the
    // sink removes its temporary file and the listed shards stay intact.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN at start-up, before any thread
    // exists, has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = Cli::parse_args();
    // Ctrl-C, SIGTERM, SIGHUP: the unfinished temporary files go before the run ends.
    sudoku_factory::util::signals::install();
    let result = match &cli.command {
        Command::Generate(args) => cmd::generate::run(args),
        Command::Solve(args) => cmd::solve::run(args),
        Command::Grade(args) => cmd::grade::run(args),
        Command::Canon(args) => cmd::canon::run(args),
        Command::Transform(args) => cmd::transform::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Stats(args) => cmd::stats::run(args),
        Command::Merge(args) => cmd::merge::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::Import(args) => cmd::import::run(args),
        Command::Render(args) => cmd::render::run(args),
    };
    // A signal's sweep removed files under the run's feet: end by that signal instead.
    sudoku_factory::util::signals::settle();
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Defects) => ExitCode::from(1),
        Ok(Outcome::BadInput) => ExitCode::from(2),
        Err(e) if sudoku_factory::util::output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            sudoku_factory::say!("sudoku-factory: {e:#}");
            ExitCode::from(2)
        }
    }
}
