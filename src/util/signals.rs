//! Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP) end a run as they always
//! did, but first remove the temporary files it was writing: the hidden twin of a
//! shard, a manifest, an export or a rendered file, `merge`'s scratch directory, and
//! a directory of images `render` made for a set not yet complete.
//! What a run had completed stays (finished shards, the manifest `--resume` reads, a
//! stage's seed file); only unfinished bytes go. Without this, the next run into the
//! same place removes them (as it does after SIGKILL, which nothing can catch).
//!
//! Writers register each temporary path before creating it ([`remove_on_signal`]),
//! create it under the same lock as the sweep ([`creating`]), and the guard
//! unregisters it when the file is renamed into place or removed: one lock per file,
//! none per row. [`install`] starts a thread that waits for the
//! signals; on one it removes what is registered, says so, and ends the process by
//! that signal (the default action), so a shell or a supervisor sees the same exit
//! status as before.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// What is registered: an id (to unregister), the path, and whether it is a directory.
static TEMPORARY: Mutex<Vec<(u64, PathBuf, bool)>> = Mutex::new(Vec::new());
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn registry() -> MutexGuard<'static, Vec<(u64, PathBuf, bool)>> {
    // A thread that panicked while holding the lock left a valid list.
    TEMPORARY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Unregisters its path when dropped (the file was renamed into place, or removed).
#[must_use = "the path is unregistered when the guard is dropped"]
#[derive(Debug)]
pub struct OnSignal(u64);

impl Drop for OnSignal {
    fn drop(&mut self) {
        registry().retain(|(id, _, _)| *id != self.0);
    }
}

/// Registers a temporary file (`dir: false`) or directory to remove if a signal ends
/// the process while the guard lives. Register before creating it.
pub fn remove_on_signal(path: PathBuf, dir: bool) -> OnSignal {
    let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    registry().push((id, path, dir));
    OnSignal(id)
}

/// Runs `create`, which makes a registered path exist (creates the file or directory,
/// or opens it in a way that may create it), so that no signal falls between the two:
/// the signal thread either finds what `create` made and removes it, or began its
/// sweep first and the process ends before `create` runs. Without it, a file created
/// just after the sweep would outlive the run. Renames into place go through it too,
/// so that a registered directory the sweep removed gets no finished file after.
pub fn creating<T>(create: impl FnOnce() -> T) -> T {
    let _sweep_waits = registry();
    create()
}

/// Waits, forever, if a signal's sweep has begun: the process is about to end by that
/// signal. `main` calls it before it reports the run's outcome, which is moot then (an
/// error, most likely, from a file the sweep removed): the exit status stays the
/// signal's, and no misleading message is printed.
pub fn settle() {
    drop(registry());
}

/// Removes `entries` (files or directories); returns how many files and how many
/// directories existed.
fn remove<'a>(entries: impl Iterator<Item = &'a (u64, PathBuf, bool)>) -> (u64, u64) {
    let (mut files, mut dirs) = (0, 0);
    for (_, path, dir) in entries {
        if *dir {
            dirs += u64::from(std::fs::remove_dir_all(path).is_ok());
        } else {
            files += u64::from(std::fs::remove_file(path).is_ok());
        }
    }
    (files, dirs)
}

/// Starts the thread that tidies up on SIGINT, SIGTERM or SIGHUP, then ends the
/// process by that signal. Call once, at start-up; if the signals cannot be hooked,
/// the run goes on with their default action (and the next run tidies up).
pub fn install() {
    // A signal ignored when the process started stays ignored: `nohup` ignores SIGHUP,
    // and a shell script's background job SIGINT, on purpose.
    let hooked: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
        .into_iter()
        .filter(|&signal| !ignored(signal))
        .collect();
    let Ok(mut signals) = signal_hook::iterator::Signals::new(hooked) else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let list = registry();
                let (files, dirs) = remove(list.iter());
                // The lock stays held: no writer registers a new file before the end.
                std::mem::forget(list);
                if files + dirs > 0 {
                    let name = match signal {
                        SIGINT => "interrupted",
                        SIGTERM => "terminated",
                        _ => "hung up",
                    };
                    let what: Vec<String> = [
                        (files, "unfinished temporary file"),
                        (dirs, "unfinished directory"),
                    ]
                    .into_iter()
                    .filter(|&(n, _)| n > 0)
                    .map(|(n, what)| crate::util::text::counted(n, what))
                    .collect();
                    crate::say!("sudoku-factory: {name}; removed {}", what.join(" and "));
                }
                // The default action of these three signals ends the process.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    drop(spawned);
}

/// Whether `signal`'s disposition is "ignore" (inherited from the parent process).
fn ignored(signal: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current disposition
    // into `old`, a zeroed sigaction that it fills.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_paths_are_removed_and_dropped_guards_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let (kept, gone, scratch) = (
            dir.path().join("kept"),
            dir.path().join(".gone.tmp"),
            dir.path().join("scratch"),
        );
        std::fs::write(&kept, b"done").unwrap();
        std::fs::write(&gone, b"half").unwrap();
        std::fs::create_dir_all(scratch.join("inner")).unwrap();
        let renamed = remove_on_signal(kept.clone(), false);
        drop(renamed);
        let guards = [
            remove_on_signal(gone.clone(), false),
            remove_on_signal(scratch.clone(), true),
        ];
        // Only this test's entries: other tests' guards are short-lived, but filter.
        let ours: Vec<_> = registry()
            .iter()
            .filter(|(_, p, _)| p.starts_with(dir.path()))
            .map(|(_, p, d)| (p.clone(), *d))
            .collect();
        assert_eq!(ours, vec![(gone.clone(), false), (scratch.clone(), true)]);
        // What the signal thread does (to this test's entries only).
        let removed = remove(
            registry()
                .iter()
                .filter(|(_, p, _)| p.starts_with(dir.path())),
        );
        assert_eq!(removed, (1, 1));
        assert!(kept.exists() && !gone.exists() && !scratch.exists());
        drop(guards);
        assert!(!registry().iter().any(|(_, p, _)| p.starts_with(dir.path())));
    }

    /// Regression: a file created just after the sweep outlived the run (an export's
    /// SQLite file, reopened by path once the sweep had removed it).
    #[test]
    fn a_creation_waits_for_a_sweep_in_progress() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".late.tmp");
        let _guard = remove_on_signal(path.clone(), false);
        // The signal thread's sweep holds the lock (here: until it is dropped).
        let sweep = registry();
        let creator = {
            let path = path.clone();
            std::thread::spawn(move || creating(|| std::fs::File::create(&path)).is_ok())
        };
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(!path.exists(), "created while the sweep held the lock");
        drop(sweep);
        assert!(creator.join().unwrap());
        assert!(path.exists());
    }
}
