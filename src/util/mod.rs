//! Small shared pieces every layer may use, which import nothing else of the crate:
//! the one way a file is written atomically, the English of counts, and the signal
//! sweep of unfinished temporary files.
//!
//! * [`output`] — the one atomic writer: a temporary twin beside the destination,
//!   fsync, rename, fsync of the directory; the refusals every named output shares
//!   (a symbolic link, a device or pipe, an existing file without `--force`, a missing
//!   directory); the write-back of large streamed files.
//! * [`text`] — `counted(3, "puzzle")` is "3 puzzles", and the [`say!`](crate::say)
//!   macro for messages to a person on stderr.
//! * [`signals`] — on Ctrl-C, SIGTERM or SIGHUP, the unfinished temporary files
//!   registered with it are removed before the run ends.
//!
//! Architecture invariant: `util` imports only `util` (`tests/suite/tidy.rs` checks it).

pub mod output;
pub mod signals;
pub mod text;
