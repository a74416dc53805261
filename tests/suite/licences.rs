//! The licence contract (DESIGN.md, "Licences"): what `cargo install` ships — the
//! default build's normal and build dependencies — is under permissive licences (MIT,
//! Apache-2.0, BSD, ISC, Zlib, BSL-1.0, Unicode, CC0 and the like); copyleft (GPL,
//! LGPL, AGPL, MPL, ...) stays out. The AGPL `sudoku` peer may be linked only behind
//! its opt-in feature: it is absent from the default build and present with
//! `--features sudoku-peer`, so the gate is proven to hold both ways. Dev-dependencies
//! are not shipped and are not checked.
//!
//! The graph comes from `cargo metadata --offline --filter-platform HOST`: offline, so
//! the test never reaches the network, and for this machine's platform only, so it
//! needs nothing but the crates this build already downloaded (without the filter,
//! Cargo wants the Windows-only crates a Linux build never fetched, and a cold Cargo
//! cache failed the test).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// SPDX identifiers the default build accepts (permissive licences).
const PERMISSIVE: &[&str] = &[
    "MIT",
    "MIT-0",
    "Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "0BSD",
    "ISC",
    "Zlib",
    "BSL-1.0",
    "Unicode-3.0",
    "Unicode-DFS-2016",
    "CC0-1.0",
    "Unlicense",
];

/// Whether an SPDX expression may ship in the default build: an `OR` needs one
/// permissive side, an `AND` both, `X WITH exception` is judged by X; parentheses
/// group; the old `A/B` spelling means `A OR B`.
fn permissive(expr: &str) -> bool {
    let spaced = expr
        .replace('(', " ( ")
        .replace(')', " ) ")
        .replace('/', " OR ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut at = 0;
    let ok = or_expr(&tokens, &mut at);
    ok == Some(true) && at == tokens.len()
}

fn or_expr(t: &[&str], at: &mut usize) -> Option<bool> {
    let mut ok = and_expr(t, at)?;
    while t.get(*at) == Some(&"OR") {
        *at += 1;
        ok |= and_expr(t, at)?;
    }
    Some(ok)
}

fn and_expr(t: &[&str], at: &mut usize) -> Option<bool> {
    let mut ok = atom(t, at)?;
    while t.get(*at) == Some(&"AND") {
        *at += 1;
        ok &= atom(t, at)?;
    }
    Some(ok)
}

fn atom(t: &[&str], at: &mut usize) -> Option<bool> {
    let token = *t.get(*at)?;
    *at += 1;
    let ok = if token == "(" {
        let inner = or_expr(t, at)?;
        (t.get(*at) == Some(&")")).then_some(())?;
        *at += 1;
        inner
    } else {
        PERMISSIVE.contains(&token.trim_end_matches('+'))
    };
    if t.get(*at) == Some(&"WITH") {
        *at += 2; // The exception only widens what the licence allows.
    }
    Some(ok)
}

/// The host triple, as Cargo reports it (`cargo -vV`: `host: x86_64-unknown-linux-gnu`).
fn host() -> String {
    let out = Command::new(env!("CARGO"))
        .arg("-vV")
        .output()
        .expect("cargo -vV runs");
    crate::common::stdout_of(&out)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("cargo -vV names the host")
        .to_string()
}

/// The crates the build with `features` ships, by name, with their licences: the
/// default features' graph from the root along normal and build edges.
fn shipped(features: &[&str]) -> BTreeMap<String, String> {
    let mut args = vec![
        "metadata",
        "--format-version",
        "1",
        "--offline",
        "--filter-platform",
    ];
    let host = host();
    args.push(&host);
    let joined = features.join(",");
    if !features.is_empty() {
        args.extend(["--features", &joined]);
    }
    let out = Command::new(env!("CARGO"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        crate::common::stderr_of(&out)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let package: BTreeMap<&str, (&str, &str)> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let licence = p["license"].as_str().unwrap_or("(none)");
            (
                p["id"].as_str().unwrap(),
                (p["name"].as_str().unwrap(), licence),
            )
        })
        .collect();
    let nodes: BTreeMap<&str, &serde_json::Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let mut seen = BTreeSet::new();
    let mut todo = vec![meta["resolve"]["root"].as_str().unwrap()];
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let ships = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build");
            if ships {
                todo.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    seen.iter()
        .map(|id| (package[id].0.to_string(), package[id].1.to_string()))
        .collect()
}

#[test]
fn the_default_build_is_permissive_and_the_agpl_peer_needs_its_feature() {
    let default = shipped(&[]);
    assert!(
        default.len() > 50,
        "the walk found the dependency graph ({})",
        default.len()
    );
    let bad: Vec<String> = default
        .iter()
        .filter(|(_, licence)| !permissive(licence))
        .map(|(name, licence)| format!("{name}: {licence}"))
        .collect();
    assert!(
        bad.is_empty(),
        "crates in the default build under a licence that is not permissive \
         (DESIGN.md, Licences):\n{}",
        bad.join("\n")
    );
    assert!(
        !default.contains_key("sudoku"),
        "the AGPL sudoku crate is in the default build"
    );
    let with_peer = shipped(&["sudoku-peer"]);
    assert_eq!(
        with_peer.get("sudoku").map(String::as_str),
        Some("AGPL-3.0"),
        "--features sudoku-peer links the AGPL peer (and only it is copyleft)"
    );
    let copyleft: Vec<&String> = with_peer
        .iter()
        .filter(|(_, licence)| !permissive(licence))
        .map(|(name, _)| name)
        .collect();
    assert_eq!(copyleft, [&"sudoku".to_string()]);
}

#[test]
fn licence_expressions_are_read_as_spdx() {
    for ok in [
        "MIT OR Apache-2.0",
        "MIT/Apache-2.0",
        "Unlicense OR MIT",
        "Apache-2.0 WITH LLVM-exception OR Apache-2.0 OR MIT",
        "BSL-1.0",
        "BSD-3-Clause",
        "(MIT OR Apache-2.0) AND Unicode-3.0",
        "BSD-3-Clause AND BSD-2-Clause",
        "Zlib OR Apache-2.0 OR MIT",
        "ISC",
    ] {
        assert!(permissive(ok), "{ok}");
    }
    for bad in [
        "GPL-3.0",
        "AGPL-3.0",
        "MPL-2.0",
        "LGPL-2.1-or-later",
        "MIT AND GPL-2.0",
        "(MIT OR Apache-2.0) AND LGPL-3.0",
        "MITX",
        "(none)",
        "",
        "MIT OR",
    ] {
        assert!(!permissive(bad), "{bad}");
    }
    assert!(
        permissive("GPL-2.0 OR MIT"),
        "a permissive alternative suffices"
    );
}
