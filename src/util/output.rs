//! The one way a file is written: under a hidden temporary twin beside its final name
//! (same file system, so the rename is atomic), made durable, renamed into place, and
//! the directory synced. A file under a final name is always complete: an output that
//! fails, or a run a signal ends, leaves the old file (or none), never half of one.
//!
//! Every writer of the crate goes through here: the bank's shards and manifest
//! (`bank::sink`, with its own fixed temporary names), the seed files, `merge`,
//! `export`, `render`'s book, images and pages, `stats --svg` and `bench --out`. The
//! refusals every named output shares live here too, so that they read the same
//! everywhere: a symbolic link or a device is never replaced by a file, an existing
//! file only with `--force`, and a missing directory is named before any work.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use super::signals::{creating, remove_on_signal, OnSignal};

/// Why an output was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{} is a symbolic link (to {target}); outputs are files, written whole and renamed into place, which would replace the link and leave its target as it was: name the target itself", path.display())]
    SymbolicLink { path: PathBuf, target: String },
    #[error("{} is not a regular file (a device or a pipe); outputs are files, written whole and renamed into place", .0.display())]
    NotAFile(PathBuf),
    #[error("{}: {} is not a directory", path.display(), dir.display())]
    ParentNotADirectory { path: PathBuf, dir: PathBuf },
    #[error("{}: the directory {} does not exist", path.display(), dir.display())]
    NoDirectory { path: PathBuf, dir: PathBuf },
    #[error("{} is a directory, not a file to write", .0.display())]
    IsADirectory(PathBuf),
    #[error("{} already exists; pass --force to replace it", .0.display())]
    Exists(PathBuf),
    #[error("{} is also an input of this command: writing it would replace what is read; write the output elsewhere", .0.display())]
    IsAnInput(PathBuf),
    #[error("{}: not a file name", .0.display())]
    NotAFileName(PathBuf),
    /// An I/O error, with what was being done to which path (`creating PATH`).
    #[error("{doing}")]
    Io {
        doing: String,
        #[source]
        source: io::Error,
    },
}

/// Wraps an I/O error with what was being done: `io_error("creating", path)`.
pub fn io_error(action: &str, path: &Path) -> impl FnOnce(io::Error) -> OutputError {
    let doing = format!("{action} {}", path.display());
    move |source| OutputError::Io { doing, source }
}

/// The directory a file is in (`.` for a bare name).
pub fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Outputs are written under a temporary name and renamed over FILE, which would
/// replace a device or a pipe with a file (`export --to /dev/null --force` replaced
/// /dev/null), or a symbolic link with a file while its target kept the old bytes
/// (`--txt /dev/stdout --force` replaced the system's link): such a FILE is refused,
/// even with `--force`, naming a link's target.
pub fn refuse_special(to: &Path) -> Result<(), OutputError> {
    if fs::symlink_metadata(to).is_ok_and(|meta| meta.is_symlink()) {
        let target = fs::read_link(to).map_or_else(|_| "?".into(), |t| t.display().to_string());
        return Err(OutputError::SymbolicLink {
            path: to.to_path_buf(),
            target,
        });
    }
    if fs::metadata(to).is_ok_and(|meta| !meta.is_file() && !meta.is_dir()) {
        return Err(OutputError::NotAFile(to.to_path_buf()));
    }
    Ok(())
}

/// FILE must not exist unless `force`, must not be special ([`refuse_special`]), and
/// its directory must exist (checked before anything is read or written; a missing
/// directory would otherwise be reported late, under the temporary file's name).
pub fn refuse_existing(to: &Path, force: bool) -> Result<(), OutputError> {
    refuse_missing_dir(to)?;
    refuse_special(to)?;
    match fs::symlink_metadata(to) {
        Ok(meta) if meta.is_dir() => Err(OutputError::IsADirectory(to.to_path_buf())),
        Ok(_) if !force => Err(OutputError::Exists(to.to_path_buf())),
        _ => Ok(()),
    }
}

/// Whether `a` and `b` name one file: the same path, the same directory and name
/// (whether or not the file exists yet), or one file under two names (a link).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    let key = |p: &Path| {
        (
            parent_of(p).canonicalize().ok(),
            p.file_name().map(|n| n.to_owned()),
        )
    };
    a == b || matches!((key(a), key(b)), ((Some(x), n), (Some(y), m)) if x == y && n == m)
}

/// An output must not be one of the command's input files, even with `--force`: it
/// would be replaced before (or while) it is read (`render in.txt --pdf in.txt
/// --force` turned the puzzles into the book).
pub fn refuse_input<'a>(
    to: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<(), OutputError> {
    if inputs.into_iter().any(|input| same_file(to, input)) {
        return Err(OutputError::IsAnInput(to.to_path_buf()));
    }
    Ok(())
}

/// FILE's directory must exist: outputs never create directories (a typo in a path
/// would otherwise make a tree somewhere unexpected).
pub fn refuse_missing_dir(to: &Path) -> Result<(), OutputError> {
    let dir = parent_of(to);
    if dir.is_dir() {
        return Ok(());
    }
    let (path, dir) = (to.to_path_buf(), dir.to_path_buf());
    // Regression: a regular file in the directory's place was said not to exist.
    Err(if dir.exists() {
        OutputError::ParentNotADirectory { path, dir }
    } else {
        OutputError::NoDirectory { path, dir }
    })
}

/// Makes `dir`, a directory the user named for a command's files (`render --svg`,
/// `bench --out`), unless it is there: its parent must exist, as every other output's
/// directory must (regression: `render --svg nodir/svgs` created `nodir` too).
pub fn create_output_dir(dir: &Path) -> Result<(), OutputError> {
    if dir.is_dir() {
        return Ok(());
    }
    refuse_missing_dir(dir)?;
    // A file in the way fails here, named ("creating DIR: File exists").
    creating(|| fs::create_dir(dir)).map_err(io_error("creating", dir))
}

/// The hidden temporary name beside `dest` that a file is written under before its
/// rename (`.NAME.tmp-PID`: same file system, so the rename is atomic).
pub fn temp_name(dest: &Path) -> Result<PathBuf, OutputError> {
    let name = dest
        .file_name()
        .ok_or_else(|| OutputError::NotAFileName(dest.to_path_buf()))?;
    Ok(dest.with_file_name(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    )))
}

/// Removes the temporary twins of `dest` that killed processes left behind
/// (`.NAME.tmp-PID` of a PID no longer running: a SIGKILLed export or render runs no
/// clean-up). Another live process's file is left alone. Linux only (it asks
/// `/proc`); elsewhere a leftover stays until a later run reuses its PID.
pub fn sweep_stale_temps(dest: &Path) {
    #[cfg(target_os = "linux")]
    {
        let Some(name) = dest.file_name() else {
            return;
        };
        let prefix = format!(".{}.tmp-", name.to_string_lossy());
        let Ok(entries) = fs::read_dir(parent_of(dest)) else {
            return;
        };
        for entry in entries.flatten() {
            let file = entry.file_name();
            let Some(pid) = file
                .to_str()
                .and_then(|f| f.strip_prefix(&prefix))
                .and_then(|pid| pid.parse::<u32>().ok())
            else {
                continue;
            };
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = dest;
}

/// Makes the renames in `dir` durable.
pub fn sync_dir(dir: &Path) -> Result<(), OutputError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_error("syncing directory", dir))
}

/// FILE's temporary twin (`.NAME.tmp-PID` beside it), removed on drop, or by the signal
/// sweep, unless committed. For outputs written as a stream; whole outputs use
/// [`write_file`].
pub struct TempOutput {
    tmp: PathBuf,
    dest: PathBuf,
    /// Removes `tmp` if a signal ends the run before the commit (`None` once committed).
    on_signal: Option<OnSignal>,
}

impl TempOutput {
    /// Reserves the twin of `dest` (nothing is created yet), sweeping the twins that
    /// killed processes left.
    pub fn new(dest: &Path) -> Result<TempOutput, OutputError> {
        let tmp = temp_name(dest)?;
        sweep_stale_temps(dest);
        // A leftover of a killed process with the same id: never reopen it.
        let _ = fs::remove_file(&tmp);
        Ok(TempOutput {
            on_signal: Some(remove_on_signal(tmp.clone(), false)),
            tmp,
            dest: dest.to_path_buf(),
        })
    }

    /// The temporary path (for writers that open it by name, like SQLite).
    pub fn tmp(&self) -> &Path {
        &self.tmp
    }

    /// The final path.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Creates the temporary file, under the signal sweep's lock.
    pub fn create(&self) -> Result<File, OutputError> {
        creating(|| File::create(&self.tmp)).map_err(io_error("creating", &self.tmp))
    }

    /// Makes the file durable and puts it under its final name, then syncs the
    /// directory.
    pub fn commit(mut self) -> Result<(), OutputError> {
        File::open(&self.tmp)
            .and_then(|f| f.sync_all())
            .map_err(io_error("syncing", &self.tmp))?;
        let doing = format!("renaming {} to", self.tmp.display());
        // Under the sweep's lock: a directory a signal removes gets no file after.
        creating(|| fs::rename(&self.tmp, &self.dest)).map_err(io_error(&doing, &self.dest))?;
        sync_dir(parent_of(&self.dest))?;
        // Renamed: nothing to remove, on a signal or on drop.
        self.on_signal.take();
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Drop for TempOutput {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `dest` through its temporary twin, fsynced, then renamed: `dest`
/// is either as before or complete. The directory is not synced: a caller writing
/// several files calls [`sync_dir`] once after them.
pub fn write_file(dest: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let tmp = temp_name(dest)?;
    sweep_stale_temps(dest);
    write_via(&tmp, dest, bytes, true).map_err(|e| match e {
        OutputError::Io { source, .. } => io_error("writing", dest)(source),
        e => e,
    })
}

/// Writes `bytes` to `tmp` (registered with the signal sweep, created under its lock),
/// fsynced when `durable`, and renames it to `dest`; on any failure `tmp` is removed.
/// The primitive under [`write_file`], for writers that name their own temporary
/// files (the bank's `.manifest.json.tmp`).
pub fn write_via(tmp: &Path, dest: &Path, bytes: &[u8], durable: bool) -> Result<(), OutputError> {
    let _on_signal = remove_on_signal(tmp.to_path_buf(), false);
    let written = (|| {
        let mut f = creating(|| File::create(tmp)).map_err(io_error("creating", tmp))?;
        f.write_all(bytes).map_err(io_error("writing", tmp))?;
        if durable {
            f.sync_all().map_err(io_error("syncing", tmp))?;
        }
        drop(f);
        creating(|| fs::rename(tmp, dest)).map_err(io_error("renaming into place", dest))
    })();
    if written.is_err() {
        // Never leave a half-written file behind, even a hidden one.
        let _ = fs::remove_file(tmp);
    }
    written
}

/// A file that asks the kernel to start writing its pages to disk every
/// [`WriteBack::STEP`] bytes (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, which does not
/// wait), so the fsync before the rename finds little left to do: on a 1M-row JSON
/// Lines export (360 MB) that fsync took 0.19 s of a 0.9 s run. Elsewhere than Linux it
/// is a plain file.
pub struct WriteBack {
    file: File,
    written: u64,
    started: u64,
}

impl WriteBack {
    /// 4 MiB: a 1M-row JSON Lines export onto disk took 338-370 ms (5 runs) with
    /// 4 MiB steps against 352-382 ms with 8 MiB (less is left for the final fsync);
    /// 2 MiB was no faster.
    const STEP: u64 = 4 << 20;

    pub fn new(file: File) -> WriteBack {
        WriteBack {
            file,
            written: 0,
            started: 0,
        }
    }
}

impl Write for WriteBack {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= Self::STEP {
            start_write_back(&self.file, self.started, self.written - self.started);
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Asks the kernel to start writing `len` bytes of `file` from `from` to disk (`len` 0:
/// to its end) without waiting (`sync_file_range(SYNC_FILE_RANGE_WRITE)`); nothing
/// elsewhere than Linux. Errors are left to the fsync that follows.
fn start_write_back(file: &File, from: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a valid open descriptor and a range of the file; the call only
        // schedules writeback and touches no memory of ours.
        let _ = unsafe {
            libc::sync_file_range(
                file.as_raw_fd(),
                from as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            )
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, from, len);
}

/// Widens the pipe behind standard output, when it is one, to 1 MiB (Linux's
/// `F_SETPIPE_SZ`; the default is 64 KiB): a fast writer then wakes its reader once a
/// megabyte instead of once per 64 KiB. On a 1M-row bank `export --format jsonl --to -
/// | wc -l` took 0.28 s instead of 0.51 s (median wall of 15 interleaved runs), and
/// varied far less. Best effort: a file, a terminal, or a refusal (the system's
/// `pipe-max-size`) leaves the output as it is.
pub fn widen_stdout_pipe() {
    widen_pipe(&io::stdout(), 1 << 20);
}

/// [`widen_stdout_pipe`] for any descriptor: whether `fd` is a pipe now at least
/// `bytes` wide.
fn widen_pipe(fd: &impl std::os::fd::AsRawFd, bytes: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        let fd = fd.as_raw_fd();
        // SAFETY: fstat and fcntl on a descriptor the caller holds open; `stat` is
        // plain data the call fills in.
        unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut stat) != 0 || stat.st_mode & libc::S_IFMT != libc::S_IFIFO {
                return false;
            }
            let size = libc::fcntl(fd, libc::F_SETPIPE_SZ, bytes as libc::c_int);
            size >= 0 && size as usize >= bytes
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (fd, bytes);
        false
    }
}

/// Runs `work` while a helper thread starts the writeback of `file` every `every`: for
/// a file written by someone else (SQLite) what [`WriteBack`] does for ours. On a
/// 1M-row SQLite export (380 MB) the fsync before the rename otherwise took 0.15 s
/// alone at the end.
pub fn with_write_back<T>(file: &File, every: Duration, work: impl FnOnce() -> T) -> T {
    let (done, wait) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(every) {
                start_write_back(file, 0, 0);
            }
        });
        let out = work();
        drop(done);
        out
    })
}

/// True for the error a closed pipe gives (`... | head`): not a failure of ours. The
/// csv crate's error wraps the I/O error without naming it as its source, so it is
/// looked into too (`export --format csv --to - | head -1` failed, exit 2).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    let broken = |e: &io::Error| e.kind() == io::ErrorKind::BrokenPipe;
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>().is_some_and(broken)
            || e.downcast_ref::<csv::Error>()
                .is_some_and(|e| matches!(e.kind(), csv::ErrorKind::Io(io) if broken(io)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pipe_is_widened_and_a_file_is_left_alone() {
        let (reader, mut writer) = io::pipe().unwrap();
        assert!(widen_pipe(&writer, 1 << 20));
        // A megabyte now goes in without a reader draining it.
        writer.write_all(&vec![b'x'; 1 << 20]).unwrap();
        drop(reader);
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("f")).unwrap();
        assert!(!widen_pipe(&file, 1 << 20));
    }

    #[test]
    fn an_input_is_refused_as_an_output_under_any_of_its_names() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        fs::write(&input, "puzzles\n").unwrap();
        let other = dir.path().join("out.txt");
        let linked = dir.path().join("hard-link.txt");
        fs::hard_link(&input, &linked).unwrap();
        let dotted = dir.path().join(".").join("in.txt");
        for to in [&input, &linked, &dotted] {
            let refused = refuse_input(to, [input.as_path()]).unwrap_err();
            assert!(
                refused.to_string().contains("is also an input"),
                "{refused}"
            );
        }
        assert!(refuse_input(&other, [input.as_path()]).is_ok());
        assert!(
            same_file(&other, &dir.path().join("./out.txt")),
            "not there yet"
        );
    }

    #[test]
    fn a_committed_output_is_complete_and_a_dropped_one_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.txt");
        let out = TempOutput::new(&dest).unwrap();
        let mut f = out.create().unwrap();
        f.write_all(b"whole").unwrap();
        drop(f);
        assert!(
            !dest.exists(),
            "nothing under the final name before the commit"
        );
        out.commit().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"whole");

        let other = dir.path().join("other.txt");
        let out = TempOutput::new(&other).unwrap();
        out.create().unwrap();
        drop(out);
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.txt")]);
    }

    #[test]
    fn write_file_replaces_whole_and_refusals_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("a.svg");
        write_file(&dest, b"one").unwrap();
        write_file(&dest, b"two").unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"two");
        let e = refuse_existing(&dest, false).unwrap_err().to_string();
        assert!(
            e.ends_with("already exists; pass --force to replace it"),
            "{e}"
        );
        assert!(refuse_existing(&dest, true).is_ok());
        let e = refuse_existing(&dir.path().join("no/such/x"), true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        let e = refuse_existing(&dest.join("x"), true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a directory"), "{e}");
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&dest, &link).unwrap();
            let e = refuse_existing(&link, true).unwrap_err().to_string();
            assert!(e.contains("is a symbolic link"), "{e}");
            let e = refuse_existing(Path::new("/dev/null"), true)
                .unwrap_err()
                .to_string();
            assert!(e.contains("not a regular file"), "{e}");
        }
    }

    /// Regression: a file renamed into place while the signal sweep removed its
    /// registered directory reappeared in it (a `render --png` directory kept one
    /// image). The rename waits while the sweep holds its lock.
    #[test]
    fn a_commit_waits_for_a_sweep_in_progress() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("image.png");
        let out = TempOutput::new(&dest).unwrap();
        out.create().unwrap().write_all(b"done").unwrap();
        // `creating` holds the sweep's lock while its closure runs, as a sweep does.
        let committer = creating(|| {
            let committer = std::thread::spawn(move || out.commit().is_ok());
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert!(!dest.exists(), "renamed while the sweep held the lock");
            committer
        });
        assert!(committer.join().unwrap());
        assert!(dest.exists());
    }
}
