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
//!    millions of rows costs N puzzles of memory (plus 16 bytes per class seen); with
//!    `--count easy=40,hard=40`, the same pick within each band named, and only those;
//! 5. book order: band (the band table's order: easy before expert), then within a
//!    band the lower rating first, then more clues first (easier first), then input
//!    order.
//!
//! A count larger than what is left after 1–3 (in its band, for a per-band count) is
//! an error, so a book is never silently short.

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
    pub count: Option<Count>,
    /// Seed of the pick when `count` is set.
    pub seed: u64,
    /// Keep every variant of a class instead of the first.
    pub allow_variants: bool,
    /// Classes to skip (keys of canonical forms).
    pub exclude: HashSet<u128>,
}

/// How many puzzles a book holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Count {
    /// This many, from every band selected.
    Total(usize),
    /// This many of each band named, and none of the others.
    PerBand(Vec<(String, usize)>),
}

impl std::str::FromStr for Count {
    type Err = String;

    /// `N`, or `BAND=N[,BAND=N...]` (each N at least 1, no band twice).
    fn from_str(text: &str) -> Result<Count, String> {
        let number = |t: &str| match t.trim().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!("{t:?} is not a count of 1 or more")),
        };
        if !text.contains('=') {
            return number(text).map(Count::Total);
        }
        let mut bands: Vec<(String, usize)> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (band, n) = item
                .split_once('=')
                .ok_or_else(|| format!("{item:?}: expected BAND=N, e.g. medium=40"))?;
            let band = band.trim();
            if band.is_empty() {
                return Err(format!("{item:?}: a band name before '='"));
            }
            if bands.iter().any(|(b, _)| b == band) {
                return Err(format!("band {band:?} is counted twice"));
            }
            bands.push((band.to_string(), number(n)?));
        }
        Ok(Count::PerBand(bands))
    }
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
    #[error(
        "--count {band}={asked}: only {} {} available in band {band:?} ({why}); lower it or add input",
        crate::util::text::counted(*.available, "distinct puzzle"),
        if *.available == 1 { "is" } else { "are" }
    )]
    TooFewInBand {
        band: String,
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
    /// With a count: per pick (one, or one per band counted), a max-heap of its
    /// count's smallest keys so far, and its eligible candidates.
    heaps: Vec<(BinaryHeap<Picked>, u64)>,
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
        let picks = match &config.count {
            None => 0,
            Some(Count::Total(_)) => 1,
            Some(Count::PerBand(bands)) => bands.len(),
        };
        Selector {
            config,
            seen: HashSet::new(),
            heaps: (0..picks).map(|_| (BinaryHeap::new(), 0)).collect(),
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
        // The pick a candidate goes to, with that pick's count.
        let pick = match &c.count {
            None => None,
            Some(Count::Total(n)) => Some((0, *n)),
            Some(Count::PerBand(bands)) => {
                match bands.iter().position(|(b, _)| *b == candidate.band) {
                    Some(i) => Some((i, bands[i].1)),
                    None => {
                        self.other_bands += 1;
                        return;
                    }
                }
            }
        };
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
        match pick {
            None => self.all.push((order, candidate)),
            Some((i, n)) => {
                let key = twox_hash::XxHash3_64::oneshot_with_seed(c.seed, &candidate.givens);
                let (heap, eligible) = &mut self.heaps[i];
                *eligible += 1;
                heap.push(Picked {
                    key,
                    order,
                    candidate,
                });
                if heap.len() > n {
                    heap.pop();
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
        match &self.config.count {
            Some(Count::Total(n)) if *n as u64 > self.eligible => {
                return Err(SelectError::TooFew {
                    asked: *n,
                    available: self.eligible,
                    why,
                });
            }
            Some(Count::PerBand(bands)) => {
                for ((band, n), (_, eligible)) in bands.iter().zip(&self.heaps) {
                    if *n as u64 > *eligible {
                        return Err(SelectError::TooFewInBand {
                            band: band.clone(),
                            asked: *n,
                            available: *eligible,
                            why,
                        });
                    }
                }
            }
            _ => {}
        }
        if self.eligible == 0 {
            return Err(SelectError::Empty { why });
        }
        let mut chosen: Vec<(u64, Candidate)> = if self.config.count.is_some() {
            self.heaps
                .into_iter()
                .flat_map(|(heap, _)| heap.into_iter())
                .map(|p| (p.order, p.candidate))
                .collect()
        } else {
            self.all
        };
        let order = &self.config.band_order;
        let band_rank = |band: &str| order.iter().position(|b| b == band).unwrap_or(order.len());
        // Unrated puzzles (a clue-graded bank rated with --no-rating) order by clues.
        let rating = |c: &Candidate| c.rating.as_ref().map_or(0, |(r, _)| *r);
        chosen.sort_by(|(oa, a), (ob, b)| {
            band_rank(&a.band)
                .cmp(&band_rank(&b.band))
                .then_with(|| a.band.cmp(&b.band))
                .then_with(|| rating(a).cmp(&rating(b)))
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
                    count: Some(Count::Total(5)),
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
                count: Some(Count::Total(19)),
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

    #[test]
    fn per_band_counts_pick_in_each_band_and_order_by_rating_then_clues() {
        let mut cands: Vec<Candidate> = Vec::new();
        for i in 0..30u128 {
            let band = ["easy", "medium", "hard"][i as usize % 3];
            let mut c = cand(band, 24 + (i as usize * 7) % 10, i);
            c.rating = Some((20 + (i * 13 % 30) as u8, "x".into()));
            cands.push(c);
        }
        let per_band = Count::PerBand(vec![("hard".into(), 4), ("easy".into(), 3)]);
        let got = run(
            Config {
                count: Some(per_band),
                ..config()
            },
            &cands,
        )
        .unwrap();
        let bands: Vec<&str> = got.iter().map(|p| p.band.as_str()).collect();
        assert_eq!(
            bands,
            ["easy", "easy", "easy", "hard", "hard", "hard", "hard"]
        );
        for w in got.windows(2).filter(|w| w[0].band == w[1].band) {
            let key = |p: &Puzzle| (p.rating.as_ref().unwrap().0, std::cmp::Reverse(p.n_clues()));
            assert!(key(&w[0]) <= key(&w[1]), "{:?} then {:?}", w[0], w[1]);
        }
        let too_many = run(
            Config {
                count: Some(Count::PerBand(vec![("medium".into(), 11)])),
                ..config()
            },
            &cands,
        );
        assert!(
            matches!(&too_many, Err(SelectError::TooFewInBand { band, asked: 11, available: 10, .. }) if band == "medium"),
            "{too_many:?}"
        );
        assert_eq!("12".parse::<Count>(), Ok(Count::Total(12)));
        assert_eq!(
            "easy=40, very-hard=2".parse::<Count>(),
            Ok(Count::PerBand(vec![
                ("easy".into(), 40),
                ("very-hard".into(), 2)
            ]))
        );
        for bad in ["0", "x", "easy=0", "easy=1,easy=2", "=3", "easy"] {
            assert!(bad.parse::<Count>().is_err(), "{bad}");
        }
    }
}
