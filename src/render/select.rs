//! Which puzzles a book holds, in which order: the selection of `render`.
//!
//! Candidates stream in (bank rows or input lines, in input order) through
//! [`Selector::offer`]; [`Selector::finish`] returns the chosen [`Puzzle`]s numbered
//! in book order. The rules, in order:
//!
//! 1. only the bands of `--difficulty` (all when empty);
//! 2. no puzzle whose canonical class is excluded (`--exclude`: a publisher's earlier
//!    books);
//! 3. one puzzle per canonical class, the first met (unless `--allow-variants`);
//! 4. with `--count N`, the N candidates with the smallest seeded hash of their givens:
//!    a deterministic pick that depends on `--seed` and the puzzles, not on the order
//!    or size of the rest of the input — and held in a bounded heap, so a bank of
//!    millions of rows costs N puzzles of memory (plus 16 bytes per class seen);
//! 5. book order: band (the band table's order: easy before expert), then more clues
//!    first (easier first within a band), then input order.
//!
//! A count larger than what is left after 1–3 is an error, so a book is never
//! silently short.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

use crate::engine::grid::Size;

use super::Puzzle;

/// One puzzle offered to the selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub size: Size,
    pub band: String,
    /// SE rating in tenths and technique name, when known.
    pub rating: Option<(u8, String)>,
    pub givens: Vec<u8>,
    pub solution: Vec<u8>,
    /// The key of its canonical form (`run::pipeline::canonical_key`).
    pub class: u128,
}

/// What to select.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The band names in book order (the band table's order); bands not listed come
    /// after them, by name.
    pub band_order: Vec<String>,
    /// Keep only these bands (empty: all).
    pub difficulty: Vec<String>,
    /// How many puzzles (None: every eligible one).
    pub count: Option<usize>,
    /// Seed of the pick when `count` is set.
    pub seed: u64,
    /// Keep every variant of a class instead of the first.
    pub allow_variants: bool,
    /// Classes to skip (keys of canonical forms).
    pub exclude: HashSet<u128>,
}

/// Why a selection cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    #[error(
        "--count {asked}: only {} {} available ({why}); lower --count or add input",
        crate::util::text::counted(*.available, "distinct puzzle"),
        if *.available == 1 { "is" } else { "are" }
    )]
    TooFew {
        asked: usize,
        available: u64,
        why: String,
    },
    #[error("no puzzle to render ({why})")]
    Empty { why: String },
}

/// A candidate in the pick heap, ordered by its seeded hash (then input order).
struct Picked {
    key: u64,
    order: u64,
    candidate: Candidate,
}

impl PartialEq for Picked {
    fn eq(&self, other: &Self) -> bool {
        (self.key, self.order) == (other.key, other.order)
    }
}
impl Eq for Picked {}
impl PartialOrd for Picked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Picked {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.key, self.order).cmp(&(other.key, other.order))
    }
}

/// The streaming selection; see the module documentation.
pub struct Selector {
    config: Config,
    seen: HashSet<u128>,
    /// With a count: a max-heap of the `count` smallest keys so far.
    heap: BinaryHeap<Picked>,
    /// Without a count: every eligible candidate.
    all: Vec<(u64, Candidate)>,
    offered: u64,
    eligible: u64,
    excluded: u64,
    variants: u64,
    other_bands: u64,
}

impl Selector {
    pub fn new(config: Config) -> Selector {
        Selector {
            config,
            seen: HashSet::new(),
            heap: BinaryHeap::new(),
            all: Vec::new(),
            offered: 0,
            eligible: 0,
            excluded: 0,
            variants: 0,
            other_bands: 0,
        }
    }

    /// Offers the next candidate in input order.
    pub fn offer(&mut self, candidate: Candidate) {
        let order = self.offered;
        self.offered += 1;
        let c = &self.config;
        if !c.difficulty.is_empty() && !c.difficulty.contains(&candidate.band) {
            self.other_bands += 1;
            return;
        }
        if c.exclude.contains(&candidate.class) {
            self.excluded += 1;
            return;
        }
        if !c.allow_variants && !self.seen.insert(candidate.class) {
            self.variants += 1;
            return;
        }
        self.eligible += 1;
        match c.count {
            None => self.all.push((order, candidate)),
            Some(n) => {
                let key = twox_hash::XxHash3_64::oneshot_with_seed(c.seed, &candidate.givens);
                self.heap.push(Picked {
                    key,
                    order,
                    candidate,
                });
                if self.heap.len() > n {
                    self.heap.pop();
                }
            }
        }
    }

    /// Candidates offered, and the eligible ones (after bands, exclusions, classes).
    pub fn counts(&self) -> (u64, u64) {
        (self.offered, self.eligible)
    }

    /// The chosen puzzles, numbered from 1 in book order.
    pub fn finish(self) -> Result<Vec<Puzzle>, SelectError> {
        let why = format!(
            "{} offered, {} in other bands, {} excluded, {} further variants of a class{}",
            self.offered,
            self.other_bands,
            self.excluded,
            self.variants,
            if self.config.allow_variants {
                ""
            } else {
                " (--allow-variants keeps them)"
            }
        );
        if let Some(n) = self.config.count {
            if (n as u64) > self.eligible {
                return Err(SelectError::TooFew {
                    asked: n,
                    available: self.eligible,
                    why,
                });
            }
        }
        if self.eligible == 0 {
            return Err(SelectError::Empty { why });
        }
        let mut chosen: Vec<(u64, Candidate)> = if self.config.count.is_some() {
            self.heap
                .into_iter()
                .map(|p| (p.order, p.candidate))
                .collect()
        } else {
            self.all
        };
        let order = &self.config.band_order;
        let band_rank = |band: &str| order.iter().position(|b| b == band).unwrap_or(order.len());
        chosen.sort_by(|(oa, a), (ob, b)| {
            band_rank(&a.band)
                .cmp(&band_rank(&b.band))
                .then_with(|| a.band.cmp(&b.band))
                .then_with(|| clues(b).cmp(&clues(a)))
                .then_with(|| oa.cmp(ob))
        });
        Ok(chosen
            .into_iter()
            .enumerate()
            .map(|(i, (_, c))| Puzzle {
                number: u32::try_from(i + 1).unwrap_or(u32::MAX),
                size: c.size,
                band: c.band,
                rating: c.rating,
                givens: c.givens,
                solution: c.solution,
            })
            .collect())
    }
}

fn clues(c: &Candidate) -> usize {
    c.givens.iter().filter(|&&v| v != 0).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(band: &str, n_clues: usize, class: u128) -> Candidate {
        // `n_clues` givens in all: ones, and two cells that differ per class (so the
        // seeded hash differs).
        let mut givens = vec![0u8; 81];
        for g in givens.iter_mut().take(n_clues - 2) {
            *g = 1;
        }
        givens[80] = (class % 9) as u8 + 1;
        givens[79] = (class / 9 % 9) as u8 + 1;
        Candidate {
            size: Size::Nine,
            band: band.into(),
            rating: None,
            givens,
            solution: vec![1; 81],
            class,
        }
    }

    fn config() -> Config {
        Config {
            band_order: vec!["easy".into(), "medium".into(), "hard".into()],
            ..Config::default()
        }
    }

    fn run(config: Config, cands: &[Candidate]) -> Result<Vec<Puzzle>, SelectError> {
        let mut s = Selector::new(config);
        for c in cands {
            s.offer(c.clone());
        }
        s.finish()
    }

    #[test]
    fn book_order_is_band_then_clues_and_one_per_class() {
        let cands = [
            cand("hard", 27, 1),
            cand("easy", 39, 2),
            cand("hard", 30, 3),
            cand("easy", 40, 2), // same class as the second: dropped
            cand("medium", 33, 4),
        ];
        let got = run(config(), &cands).unwrap();
        let seen: Vec<(u32, &str, usize)> = got
            .iter()
            .map(|p| (p.number, p.band.as_str(), p.n_clues()))
            .collect();
        assert_eq!(
            seen,
            [
                (1, "easy", 39),
                (2, "medium", 33),
                (3, "hard", 30),
                (4, "hard", 27)
            ]
        );
        let all = run(
            Config {
                allow_variants: true,
                ..config()
            },
            &cands,
        )
        .unwrap();
        assert_eq!(all.len(), 5);
    }

    #[test]
    fn bands_exclusions_and_counts() {
        let cands: Vec<Candidate> = (0..20).map(|i| cand("hard", 25, i)).collect();
        let picked = |seed| {
            run(
                Config {
                    count: Some(5),
                    seed,
                    ..config()
                },
                &cands,
            )
            .unwrap()
        };
        assert_eq!(picked(7), picked(7), "the same seed picks the same puzzles");
        assert_ne!(picked(7), picked(8), "another seed picks others");
        let too_many = run(
            Config {
                count: Some(19),
                exclude: HashSet::from([3, 4]),
                ..config()
            },
            &cands,
        );
        assert!(
            matches!(
                too_many,
                Err(SelectError::TooFew {
                    asked: 19,
                    available: 18,
                    ..
                })
            ),
            "{too_many:?}"
        );
        let easy = run(
            Config {
                difficulty: vec!["easy".into()],
                ..config()
            },
            &cands,
        );
        assert!(matches!(easy, Err(SelectError::Empty { .. })));
    }
}
