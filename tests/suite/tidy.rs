//! The architecture invariants of `src/lib.rs`, checked on the source text, in the
//! spirit of rust-analyzer's tidy test: prose drifts, a test does not.
//!
//! * File I/O and printing happen only in the I/O modules ([`IO_MODULES`]); creating,
//!   renaming or deleting files only in [`WRITE_MODULES`].
//! * Engine code ([`ENGINE_MODULES`]) holds no mutable global state: no atomics, no
//!   locks, no `static mut`, no lazily initialised or thread-local statics, except the
//!   few listed in [`ENGINE_STATE_ALLOWED`] with the reason each is there. Immutable
//!   `static` lookup tables are plain data and allowed.
//! * Imports point down ([`LAYERS`]): `engine` imports only `engine`, `util` only
//!   `util`, `bank` `engine` and `util`, `run` those and `bank`, `render` `engine` and
//!   `util`; nothing but `main` imports `cmd`, and no command imports a sibling
//!   command. Checked on every `crate::` path of the code, naming the line.
//! * Every `#[ignore]` says why (`#[ignore = "..."]`).
//! * Every top-level module is in the code map of `src/lib.rs`, every module of a
//!   layer directory in its `mod.rs` map, and every source
//!   file is reached by a `mod` declaration (no orphan file that silently stops
//!   compiling).
//! * No files of one directory import each other in a circle ([`sibling_circles`]):
//!   what two siblings share lives in a third, below both.
//!
//! Code inside `#[cfg(test)]` modules is exempt from the first two rules (tests may
//! read fixtures), and comments are ignored.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Modules (paths under `src/`, a trailing `/` for a directory) allowed to read and
/// write files and to print.
const IO_MODULES: &[&str] = &[
    "main.rs",
    "cmd/",
    "bank/sink.rs",
    "bank/reader.rs",
    "util/output.rs",
    "util/signals.rs",
    "util/text.rs",
];
/// Modules allowed to create, rename or delete files: `sink` owns every bank file;
/// `util::output` is the one atomic writer every named output goes through; the
/// commands create the directories a user names (`bench --out`, `render --svg`);
/// `signals` removes the unfinished temporary files registered with it when a
/// signal ends a run.
const WRITE_MODULES: &[&str] = &["bank/sink.rs", "cmd/", "util/output.rs", "util/signals.rs"];
/// The puzzle logic: no I/O, no mutable global state.
const ENGINE_MODULES: &[&str] = &["engine/", "run/seed.rs", "run/rng.rs"];
/// Global state in engine code that is there on purpose: (file, the text that
/// declares it, why).
const ENGINE_STATE_ALLOWED: &[(&str, &str, &str)] = &[
    (
        "run/seed.rs",
        "rating: std::sync::OnceLock",
        "not global: a field of each `--from` start puzzle of the plan, rated once by \
         whichever thread draws it first (the same rating whichever)",
    ),
    (
        "engine/nxn/canon/nine.rs",
        "static CANONICALIZER: RefCell<Canonicalizer>",
        "per-thread scratch of the convenience `canonical_form`: no allocation per puzzle",
    ),
    (
        "engine/nxn/canon/mod.rs",
        "static CANONICALIZER: RefCell<Canonicalizer>",
        "per-thread scratch of the convenience `canonical_form`: no allocation per puzzle",
    ),
    (
        "engine/rating/mod.rs",
        "static RATER: std::cell::RefCell<Rater>",
        "per-thread scratch of the convenience `rate` (the pipeline rates every seed): no allocation per puzzle",
    ),
    (
        "engine/nxn/census.rs",
        "static CENSUS: OnceLock<Census4>",
        "an immutable table (every 4x4 class) computed once on first use",
    ),
];

const IO_PATTERNS: &[&str] = &[
    "std::fs",
    "fs::",
    "File::",
    "OpenOptions",
    "println!",
    "print!(",
    "eprintln!",
    "eprint!(",
    "dbg!",
    "stdout()",
    "stderr()",
    "stdin()",
];
const WRITE_PATTERNS: &[&str] = &[
    "File::create",
    "fs::write",
    "fs::rename",
    "fs::remove",
    "fs::create_dir",
    "fs::copy",
    "OpenOptions",
];
const STATE_PATTERNS: &[&str] = &[
    "static mut",
    "Atomic",
    "Mutex",
    "RwLock",
    "OnceLock",
    "OnceCell",
    "LazyLock",
    "lazy_static",
    "thread_local!",
];

/// Every `.rs` file under `dir`, as paths relative to `root`, sorted.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(root).unwrap().to_path_buf());
        }
    }
}

fn src_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    files
        .into_iter()
        .map(|rel| {
            let text = std::fs::read_to_string(root.join(&rel)).unwrap();
            (rel.to_string_lossy().replace('\\', "/"), text)
        })
        .collect()
}

fn in_modules(file: &str, modules: &[&str]) -> bool {
    modules.iter().any(|m| {
        if let Some(dir) = m.strip_suffix('/') {
            file.starts_with(&format!("{dir}/")) || file == format!("{dir}.rs")
        } else {
            file == *m
        }
    })
}

/// The lines of `text` that are code outside `#[cfg(test)]` modules, with their
/// 1-based line numbers and comments cut off.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            let next = lines.get(i + 1).map_or("", |l| l.trim_start());
            if next.starts_with("mod ") && next.ends_with('{') {
                // Skip to the line that closes the module at the same indentation.
                let indent = &lines[i][..lines[i].len() - trimmed.len()];
                let close = format!("{indent}}}");
                i += 2;
                while i < lines.len() && lines[i] != close {
                    i += 1;
                }
                i += 1;
                continue;
            }
        }
        let code = match lines[i].find("//") {
            Some(at) => &lines[i][..at],
            None => lines[i],
        };
        if !code.trim().is_empty() {
            out.push((i + 1, code.to_string()));
        }
        i += 1;
    }
    out
}

/// `file:line: text` for every code line of `files` that contains one of `patterns`.
fn offences<'a>(
    files: impl IntoIterator<Item = &'a (String, String)>,
    patterns: &[&str],
) -> Vec<String> {
    let mut found = Vec::new();
    for (file, text) in files {
        for (line, code) in code_lines(text) {
            if patterns.iter().any(|p| code.contains(p)) {
                found.push(format!("src/{file}:{line}: {}", code.trim()));
            }
        }
    }
    found
}

#[test]
fn file_io_and_printing_only_in_the_io_modules() {
    let files = src_files();
    let outside = offences(
        files.iter().filter(|(f, _)| !in_modules(f, IO_MODULES)),
        IO_PATTERNS,
    );
    assert!(
        outside.is_empty(),
        "file I/O or printing outside the I/O modules {IO_MODULES:?}; move it to `cmd`, \
         `sink` or `bank` and hand the logic values:\n{}",
        outside.join("\n")
    );
    let writes = offences(
        files.iter().filter(|(f, _)| !in_modules(f, WRITE_MODULES)),
        WRITE_PATTERNS,
    );
    assert!(
        writes.is_empty(),
        "files created, renamed or deleted outside {WRITE_MODULES:?} (only `sink` \
         writes bank files):\n{}",
        writes.join("\n")
    );
}

#[test]
fn engine_code_holds_no_mutable_global_state() {
    let files = src_files();
    let allowed = |file: &str, code: &str| {
        ENGINE_STATE_ALLOWED
            .iter()
            .any(|(f, decl, _)| *f == file && code.contains(decl))
    };
    let mut found = Vec::new();
    for (file, text) in files.iter().filter(|(f, _)| in_modules(f, ENGINE_MODULES)) {
        let lines = code_lines(text);
        for (at, (line, code)) in lines.iter().enumerate() {
            // A `thread_local!` block is judged by the static it declares.
            let judged = if code.contains("thread_local!") {
                lines.get(at + 1).map_or("", |(_, next)| next.as_str())
            } else {
                code.as_str()
            };
            // Imports declare nothing; the statics that use them are judged.
            let import = code.trim_start().starts_with("use ");
            if !import && STATE_PATTERNS.iter().any(|p| code.contains(p)) && !allowed(file, judged)
            {
                found.push(format!("src/{file}:{line}: {}", code.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "mutable global state in engine code (pass state in, or add it to \
         ENGINE_STATE_ALLOWED with the reason):\n{}",
        found.join("\n")
    );
    // Every allowance still matches something, so the list cannot rot.
    for (file, decl, why) in ENGINE_STATE_ALLOWED {
        let text = &files.iter().find(|(f, _)| f == file).expect(file).1;
        assert!(
            text.contains(decl),
            "ENGINE_STATE_ALLOWED lists `{decl}` in src/{file} ({why}), which is gone"
        );
    }
}

#[test]
fn every_ignore_says_why() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        rust_files(root, &root.join(dir), &mut files);
    }
    let mut bare = Vec::new();
    for rel in files {
        let text = std::fs::read_to_string(root.join(&rel)).unwrap();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.starts_with("#[ignore") && !t.starts_with("#[ignore = \"") {
                bare.push(format!("{}:{}: {t}", rel.display(), i + 1));
            }
        }
    }
    assert!(
        bare.is_empty(),
        "#[ignore] without a reason; write #[ignore = \"why\"] or delete the test:\n{}",
        bare.join("\n")
    );
}

/// The module names a file declares with `mod name;` / `pub mod name;` (not
/// inline `mod name { ... }` blocks).
fn declared_modules(text: &str) -> BTreeSet<String> {
    code_lines(text)
        .into_iter()
        .filter_map(|(_, code)| {
            let t = code.trim();
            let t = t
                .strip_prefix("pub(crate) ")
                .or(t.strip_prefix("pub "))
                .unwrap_or(t);
            let name = t.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

#[test]
fn every_module_is_in_the_code_map_and_every_file_is_a_module() {
    let files = src_files();
    let text_of = |f: &str| files.iter().find(|(g, _)| g == f).map(|(_, t)| t.as_str());
    let lib = text_of("lib.rs").expect("src/lib.rs");
    let code_map: String = lib
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut missing: Vec<String> = declared_modules(lib)
        .into_iter()
        .filter(|m| !code_map.contains(&format!("[`{m}`]")))
        .collect();
    // Each layer directory maps its own files in its `mod.rs` doc.
    for layer in declared_modules(lib) {
        let Some(text) = text_of(&format!("{layer}/mod.rs")) else {
            continue;
        };
        let map: String = text
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        missing.extend(
            declared_modules(text)
                .into_iter()
                .filter(|m| !map.contains(&format!("[`{m}`]")))
                .map(|m| format!("{layer}::{m}")),
        );
    }
    assert!(
        missing.is_empty(),
        "modules missing from a code map (src/lib.rs, or the layer's mod.rs; add a \
         [`name`] line saying what each is for): {missing:?}"
    );

    // Walk the module tree from the crate roots; every file must be reached.
    let mut reached = BTreeSet::new();
    let mut stack = vec![String::from("lib.rs"), String::from("main.rs")];
    while let Some(file) = stack.pop() {
        let Some(text) = text_of(&file) else { continue };
        reached.insert(file.clone());
        let dir = match file.as_str() {
            "lib.rs" | "main.rs" => String::new(),
            f if f.ends_with("/mod.rs") => f.trim_end_matches("mod.rs").to_string(),
            f => format!("{}/", f.trim_end_matches(".rs")),
        };
        for m in declared_modules(text) {
            for candidate in [format!("{dir}{m}.rs"), format!("{dir}{m}/mod.rs")] {
                if text_of(&candidate).is_some() {
                    stack.push(candidate);
                }
            }
        }
    }
    let orphans: Vec<&String> = files
        .iter()
        .map(|(f, _)| f)
        .filter(|f| !reached.contains(*f))
        .collect();
    assert!(
        orphans.is_empty(),
        "source files no `mod` declaration reaches (dead code that no longer compiles): \
         {orphans:?}"
    );
}

#[test]
fn the_comment_and_test_module_filter_sees_code_only() {
    let text = "fn a() {}\n// println!(\"doc\")\nlet x = 1; // fs::read\n\
                #[cfg(test)]\nmod tests {\n    fn t() { println!(); }\n}\nfn b() {}\n";
    let lines: Vec<String> = code_lines(text).into_iter().map(|(_, c)| c).collect();
    assert_eq!(lines, ["fn a() {}", "let x = 1; ", "fn b() {}"]);
    assert_eq!(
        declared_modules("pub mod a;\nmod b;\nmod c {\n}\n// mod d;\n"),
        BTreeSet::from(["a".to_string(), "b".to_string()])
    );
}

/// Each layer (a directory under `src/`, or a top-level file) and the layers its code
/// may name with `crate::`: imports point down. `main.rs` and `lib.rs` may name
/// everything; `cmd` everything but its siblings (checked apart).
const LAYERS: &[(&str, &[&str])] = &[
    ("engine", &["engine"]),
    ("util", &["util"]),
    ("bank", &["bank", "engine", "util"]),
    ("run", &["run", "bank", "engine", "util"]),
    ("render", &["render", "engine", "util"]),
    ("bench", &["bench", "run", "bank", "engine", "util"]),
    ("cli", &["cli", "bank", "engine", "render", "run", "util"]),
    (
        "cmd",
        &[
            "cmd", "bank", "bench", "cli", "engine", "render", "run", "util",
        ],
    ),
];

/// Where a crate-root macro is defined: `crate::say!` is `util`'s.
const MACROS: &[(&str, &str)] = &[("say", "util"), ("with_board", "engine")];

/// The layer of a file under `src/` (`bank/sink.rs` is `bank`, `cli.rs` is `cli`).
fn layer_of(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// `src/FILE:LINE: ...` for every path in `file`'s code that points the wrong way: a
/// `crate::X` with X not in the layer's list, or, in a command, a sibling command
/// (`super::export::`, `crate::cmd::render::`).
fn wrong_imports(file: &str, text: &str) -> Vec<String> {
    let layer = layer_of(file);
    let Some((_, allowed)) = LAYERS.iter().find(|(l, _)| *l == layer) else {
        return Vec::new(); // lib.rs, main.rs
    };
    let mut found = Vec::new();
    for (line, code) in code_lines(text) {
        let mut say =
            |why: String| found.push(format!("src/{file}:{line}: {} ({why})", code.trim()));
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // `sudoku_factory::` is not this crate's path; `crate::{a, b}` is split below.
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let names: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                inner
                    .split(',')
                    .map(|n| n.trim().split("::").next().unwrap_or("").to_string())
                    .filter(|n| !n.is_empty())
                    .collect()
            } else {
                vec![name]
            };
            for name in names {
                let target = MACROS
                    .iter()
                    .find(|(m, _)| *m == name)
                    .map_or(name.as_str(), |(_, l)| l);
                if !allowed.contains(&target) {
                    say(format!("{layer} may not import {target}"));
                } else if layer == "cmd" && target == "cmd" {
                    let sibling = rest.trim_start_matches("cmd::");
                    if sibling.contains("::") && !sibling.starts_with('{') {
                        say("a command imports a sibling command".into());
                    }
                }
            }
        }
        if layer == "cmd" && !file.ends_with("mod.rs") {
            for (at, _) in code.match_indices("super::") {
                let rest = &code[at + "super::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let is_module = rest[name.len()..].starts_with("::")
                    && name.chars().next().is_some_and(|c| c.is_lowercase());
                if is_module {
                    say(format!("a command imports the sibling command {name}"));
                }
            }
        }
    }
    found
}

#[test]
fn imports_point_down_the_layers() {
    let files = src_files();
    let wrong: Vec<String> = files
        .iter()
        .flat_map(|(file, text)| wrong_imports(file, text))
        .collect();
    assert!(
        wrong.is_empty(),
        "imports that point up or sideways (move the helper down to the lowest layer \
         that needs it, e.g. `util` or `bank::format`):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_import_check_catches_what_it_should() {
    let bad = "use crate::cmd::counted;\nuse crate::run::seed::SeedPuzzle;\n";
    assert_eq!(wrong_imports("bank/reader.rs", bad).len(), 2);
    assert_eq!(
        wrong_imports(
            "engine/grid.rs",
            "let n = crate::util::text::counted(1, \"x\");"
        )
        .len(),
        1
    );
    assert_eq!(
        wrong_imports("engine/board.rs", "crate::with_board!(s, B => x)").len(),
        0
    );
    assert_eq!(
        wrong_imports("render/select.rs", "crate::say!(\"x\")").len(),
        0
    );
    assert_eq!(
        wrong_imports("bank/sink.rs", "use crate::{engine::grid, run::seed};").len(),
        1
    );
    assert_eq!(
        wrong_imports("cmd/stats.rs", "use super::render::write_file;").len(),
        1
    );
    assert_eq!(
        wrong_imports("cmd/stats.rs", "use super::{write_stdout, Outcome};").len(),
        0
    );
    assert_eq!(
        wrong_imports("cmd/stats.rs", "use crate::cmd::export::x;").len(),
        1
    );
    // Test modules and comments are not code.
    assert!(wrong_imports(
        "engine/grid.rs",
        "// crate::bank::x\n#[cfg(test)]\nmod tests {\n    use crate::bank::x;\n}\n"
    )
    .is_empty());
}

/// A file's module as its parent's directory and its name: `a/b.rs` and `a/b/mod.rs`
/// are both module `b` of `a` (the crate roots: `None`).
fn module_of(file: &str) -> Option<(&str, &str)> {
    let path = file.strip_suffix(".rs")?;
    let path = path.strip_suffix("/mod").unwrap_or(path);
    match path {
        "lib" | "main" => None,
        _ => Some(path.rsplit_once('/').unwrap_or(("", path))),
    }
}

/// The sibling modules (of `names`, its parent's other modules) that the code of a
/// module of `dir` names, through `super::` or `dir`'s own `crate::` path.
fn sibling_imports(dir: &str, text: &str, names: &BTreeSet<&str>) -> BTreeSet<String> {
    let own = if dir.is_empty() {
        "crate::".to_string()
    } else {
        format!("crate::{}::", dir.replace('/', "::"))
    };
    let mut named = BTreeSet::new();
    for (_, code) in code_lines(text) {
        for prefix in ["super::", own.as_str()] {
            for (at, _) in code.match_indices(prefix) {
                if prefix == "super::" && code[..at].ends_with("::") {
                    continue; // super::super::x names the grandparent's x
                }
                let rest = &code[at + prefix.len()..];
                let group = rest
                    .strip_prefix('{')
                    .map(|g| g.split('}').next().unwrap_or(""));
                for path in group.map_or(vec![rest], |g| g.split(',').collect()) {
                    let name: String = path
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if names.contains(name.as_str()) {
                        named.insert(name);
                    }
                }
            }
        }
    }
    named
}

/// The circles of imports between the modules of one parent, each as
/// `dir/a.rs -> dir/b.rs -> dir/a.rs`.
fn sibling_circles(files: &[(String, String)]) -> Vec<String> {
    use std::collections::BTreeMap;
    // Per parent directory, its modules' names and their files.
    let mut parents: BTreeMap<&str, BTreeMap<&str, (&str, &str)>> = BTreeMap::new();
    for (file, text) in files {
        if let Some((dir, name)) = module_of(file) {
            parents
                .entry(dir)
                .or_default()
                .insert(name, (file.as_str(), text.as_str()));
        }
    }
    let mut circles = Vec::new();
    for (dir, modules) in &parents {
        let names: BTreeSet<&str> = modules.keys().copied().collect();
        let edges: BTreeMap<&str, BTreeSet<String>> = modules
            .iter()
            .map(|(&name, &(_, text))| {
                let mut to = sibling_imports(dir, text, &names);
                to.remove(name);
                (name, to)
            })
            .collect();
        // Depth-first from each module, through later-named ones only: a path back
        // to where it started is a circle, reported once, from its first name.
        for &start in modules.keys() {
            let mut stack = vec![vec![start]];
            while let Some(path) = stack.pop() {
                for next in &edges[path[path.len() - 1]] {
                    let next = next.as_str();
                    if next == start {
                        let shown: Vec<&str> =
                            path.iter().chain([&start]).map(|m| modules[m].0).collect();
                        circles.push(shown.join(" -> "));
                    } else if next > start && !path.contains(&next) {
                        let mut longer = path.clone();
                        longer.push(next);
                        stack.push(longer);
                    }
                }
            }
        }
    }
    circles
}

#[test]
fn no_files_of_a_directory_import_each_other_in_a_circle() {
    let circles = sibling_circles(&src_files());
    assert!(
        circles.is_empty(),
        "files that import each other (move what they share into a file below both):\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_circle_check_catches_what_it_should() {
    let file = |name: &str, text: &str| (name.to_string(), text.to_string());
    // rating's circle before 0.4.22's CellMemo move, and export's.
    let rating = [
        file("engine/rating/mod.rs", "mod basic;\nmod uniq;\n"),
        file(
            "engine/rating/basic.rs",
            "pub loops: super::uniq::LoopMemo,\n",
        ),
        file("engine/rating/uniq.rs", "use super::basic::CellMemo;\n"),
    ];
    assert_eq!(
        sibling_circles(&rating),
        ["engine/rating/basic.rs -> engine/rating/uniq.rs -> engine/rating/basic.rs"]
    );
    let export = [
        file(
            "bank/export/stream.rs",
            "use super::sqlite::write_sqlite;\n",
        ),
        file(
            "bank/export/sqlite.rs",
            "use crate::bank::export::{stream::Rows, Field};\n",
        ),
        file("bank/export/parquet.rs", "use super::{Field, Kind};\n"),
    ];
    assert_eq!(sibling_circles(&export).len(), 1);
    // Three in a ring is a circle too; a child naming its parent's items is not.
    let ring = [
        file("a/x.rs", "use super::y::Y;\n"),
        file("a/y.rs", "use super::z::Z;\n"),
        file("a/z.rs", "use super::x::X;\n"),
        file("a/mod.rs", "mod x;\nmod y;\nmod z;\npub struct Shared;\n"),
        file("a/w.rs", "use super::Shared;\nuse super::super::x::Far;\n"),
    ];
    assert_eq!(
        sibling_circles(&ring),
        ["a/x.rs -> a/y.rs -> a/z.rs -> a/x.rs"]
    );
    // A directory's mod.rs is its module among its parent's.
    let nested = [
        file("engine/grid.rs", "use super::rating::Rater;\n"),
        file("engine/rating/mod.rs", "use crate::engine::grid::Cells;\n"),
        file("engine/rating/basic.rs", "use super::Found;\n"),
    ];
    assert_eq!(
        sibling_circles(&nested),
        ["engine/grid.rs -> engine/rating/mod.rs -> engine/grid.rs"]
    );
    // In a test module, or a comment, it is not code.
    let tests_only = [
        file("a/x.rs", "use super::y::Y;\n"),
        file(
            "a/y.rs",
            "// super::x::X\n#[cfg(test)]\nmod tests {\n    use super::super::x::X;\n}\n",
        ),
    ];
    assert!(sibling_circles(&tests_only).is_empty());
}
