//! The `sudoku-factory` binary: parse arguments, run the subcommand, map the outcome
//! to an exit code (0 success, 1 finished with defects, 2 bad usage or fatal error).

use std::process::ExitCode;

use clap::Parser;
use sudoku_factory::cli::{Cli, Command};
use sudoku_factory::cmd::{self, Outcome};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Generate(args) => cmd::generate::run(args),
        Command::Solve(args) => cmd::solve::run(args),
        Command::Canon(args) => cmd::canon::run(args),
        Command::Transform(args) => cmd::transform::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Stats(args) => cmd::stats::run(args),
    };
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Defects) => ExitCode::from(1),
        Ok(Outcome::BadInput) => ExitCode::from(2),
        Err(e) if cmd::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sudoku-factory: {e:#}");
            ExitCode::from(2)
        }
    }
}
