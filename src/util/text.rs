//! The English of the summaries: counts with their nouns, and [`say!`](crate::say)
//! for messages to a person that must never fail a run.

/// `eprintln!` for messages to a person (progress notes, warnings, summaries) that
/// ignores a closed or failing stderr: when nobody reads them, the run still
/// completes and exits as it would have (DESIGN.md: a broken pipe is not an error),
/// where `eprintln!` would panic.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `n` and its noun, singular for one: `counted(1, "puzzle")` is "1 puzzle",
/// `counted(3, "puzzle")` "3 puzzles" (every noun of the summaries takes an `s`).
pub fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A quantity for a sentence or a legend, to three or four figures: `41.2k`,
/// `1.25M`, `7.5`.
pub fn short(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::{counted, short};

    #[test]
    fn short_quantities_keep_three_figures() {
        assert_eq!(short(41_234.0), "41.2k");
        assert_eq!(short(1_250_000.0), "1.25M");
        assert_eq!(short(7.46), "7.5");
    }

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1u64, "puzzle"), "1 puzzle");
        assert_eq!(counted(0u64, "puzzle"), "0 puzzles");
        assert_eq!(counted(3u32, "shard"), "3 shards");
    }
}
