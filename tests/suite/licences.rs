//! The licence contract (DESIGN.md, "Licences"): what `cargo install` ships — the
//! default build's normal and build dependencies, on every target — is MIT OR
//! Apache-2.0. A crate qualifies when its SPDX expression offers MIT or Apache-2.0 as
//! an alternative. The few crates of the chosen stack that do not (zstd's BSD-3 C
//! library, a proc-macro helper's Unicode data licence) are listed below with their
//! reason; anything new fails here, so a dependency is checked when it is added.
//! Dev-dependencies and opt-in features (the AGPL `sudoku` peer) are not shipped by
//! default and are not checked.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Crates outside MIT/Apache that the default build accepts, and why.
const ACCEPTED: &[(&str, &str)] = &[
    (
        "zstd",
        "the chosen stack's compression (BSD-3-Clause, zstd's own licence)",
    ),
    ("zstd-safe", "zstd's bindings (BSD-3-Clause)"),
    (
        "zstd-sys",
        "the zstd C library (BSD-3-Clause AND BSD-2-Clause)",
    ),
    (
        "unicode-ident",
        "(MIT OR Apache-2.0) AND Unicode-3.0: Unicode tables of proc-macros, build time only",
    ),
    (
        "zlib-rs",
        "Zlib: flate2's backend on some targets only, through hdrhistogram (chosen stack)",
    ),
];

fn offers_mit_or_apache(expr: &str) -> bool {
    // Alternatives at the top level: "A OR B", the old "A/B" spelling, parentheses.
    // An AND anywhere means every part applies, so such crates must be listed.
    if expr.contains(" AND ") {
        return false;
    }
    expr.replace(['(', ')'], " ")
        .split(" OR ")
        .flat_map(|part| part.split('/'))
        .map(str::trim)
        .any(|id| id == "MIT" || id == "Apache-2.0")
}

#[test]
fn the_default_build_is_mit_or_apache() {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let licence: BTreeMap<&str, (&str, &str)> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let id = p["id"].as_str().unwrap();
            (
                id,
                (
                    p["name"].as_str().unwrap(),
                    p["license"].as_str().unwrap_or("(none)"),
                ),
            )
        })
        .collect();
    let nodes: BTreeMap<&str, &serde_json::Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();

    // Walk the default features' graph from the root along normal and build edges.
    let mut shipped = BTreeSet::new();
    let mut todo = vec![meta["resolve"]["root"].as_str().unwrap()];
    while let Some(id) = todo.pop() {
        if !shipped.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let shipped_edge = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build");
            if shipped_edge {
                todo.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    assert!(
        shipped.len() > 50,
        "the walk found the dependency graph ({})",
        shipped.len()
    );

    let bad: Vec<String> = shipped
        .iter()
        .map(|id| licence[id])
        .filter(|(name, expr)| {
            !offers_mit_or_apache(expr) && !ACCEPTED.iter().any(|(n, _)| n == name)
        })
        .map(|(name, expr)| format!("{name}: {expr}"))
        .collect();
    assert!(
        bad.is_empty(),
        "crates in the default build that are not MIT or Apache-2.0:\n{}",
        bad.join("\n")
    );
}

#[test]
fn licence_expressions_are_read_as_alternatives() {
    assert!(offers_mit_or_apache("MIT OR Apache-2.0"));
    assert!(offers_mit_or_apache("MIT/Apache-2.0"));
    assert!(offers_mit_or_apache("Unlicense OR MIT"));
    assert!(offers_mit_or_apache(
        "Apache-2.0 WITH LLVM-exception OR Apache-2.0 OR MIT"
    ));
    assert!(!offers_mit_or_apache("BSL-1.0"));
    assert!(!offers_mit_or_apache("BSD-3-Clause"));
    assert!(!offers_mit_or_apache("(MIT OR Apache-2.0) AND Unicode-3.0"));
    assert!(!offers_mit_or_apache("MITX"));
}
