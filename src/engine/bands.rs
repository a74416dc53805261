//! Difficulty bands: grading a puzzle by its number of clues (DESIGN.md).
//!
//! A [`BandTable`] is a list of named, non-overlapping clue ranges. Every puzzle gets
//! at most one name: the band whose range holds its clue count, or the easiest band
//! (highest range) when it has more clues than any range allows — "a puzzle with more
//! than 40 clues is `easy`". Gaps between ranges are allowed (the six-level scale is
//! made of single counts); a puzzle in a gap has no band and the generator does not
//! keep it. The lowest allowed clue count is 17 on 9×9 and 4 on 4×4: no puzzle with
//! fewer has a unique solution, so such a request is refused instead of looping
//! forever. For 16×16 and 25×25 only the simple bound is proven, N − 1 (15 and 24):
//! with fewer clues two symbols are missing from the givens, and swapping them in a
//! solution gives another. A band above that bound but below what carving reaches
//! ends in the pipeline's "band unreachable" error after `--max-attempts`.
//!
//! Every size has its own default table ([`BandTable::default_for`]), chosen from
//! measured clue counts and documented in the README.
//!
//! A table can instead grade by **technique rating** ([`Scale::Rating`], `generate
//! --grade rating`): the same named, non-overlapping ranges, over the Sudoku Explainer
//! scale in tenths (`hard=2.5-4.9`, the top band open: `extreme=7.0+`). A rating above
//! every range goes to the band reaching highest (the hardest), the mirror image of
//! the clue rule, and the same code grades both.

use std::fmt;

use crate::engine::grid::Size;

/// Fewest clues of any uniquely solvable 9×9 puzzle (McGuire, Tugemann, Civario 2012).
pub const MIN_CLUES: u8 = 17;

/// Fewest clues a band may ask for on a board of `size`: the proven bound for 4×4
/// (by enumeration) and 9×9; on the larger boards N − 1, below which two symbols
/// are absent from the givens and can be swapped in any solution.
pub fn min_clues(size: Size) -> u16 {
    match size {
        Size::Four => 4,
        Size::Nine => u16::from(MIN_CLUES),
        Size::Sixteen | Size::TwentyFive => size.side() as u16 - 1,
    }
}

/// Default bands of the other sizes (see [`BandTable::default_for`] and the README).
/// 4×4: the census of every uniquely solvable puzzle (4–16 clues, minimal ones 4–6).
/// 16×16 and 25×25: by carve cost measured with `bench --size N --difficulty`. Minimal
/// 16×16 puzzles have about 87–101 clues (34–39 % of 256), and carving gets steeply
/// slower below ~100; 25×25 carving falls off a cliff near 320 clues (51 %), so the
/// expert bands stop just above the cliff.
const DEFAULT_4X4: &str = "easy=10-12,medium=8-9,hard=6-7,expert=4-5";
const DEFAULT_16X16: &str = "easy=130-150,medium=115-129,hard=105-114,expert=90-104";
const DEFAULT_25X25: &str = "easy=400-450,medium=370-399,hard=345-369,expert=320-344";

/// The default rating table of issue #12: SE 1.0–1.4 needs only singles in boxes,
/// 1.5–2.4 singles and direct intersections, 2.5–4.9 the subset/fish/wing layer,
/// 5.0–6.9 quads, uniqueness, BUG and short chains, 7.0+ forcing chains.
///
/// Each band also has a clue range (`@LO-HI`), so that its puzzles look like the band:
/// walking back from a minimal puzzle until the rating falls under 1.5 often ends on a
/// nearly full grid (150 of 400 `easy` seeds had 60–74 clues before 0.4.3). The
/// ceilings are the README's measurement: easy at most 45 clues, medium 40, the rest
/// 36 (which carving for them rarely passes).
const DEFAULT_RATING: &str = "easy=1.0-1.4@17-45,medium=1.5-2.4@17-40,hard=2.5-4.9@17-36,\
diabolical=5.0-6.9@17-36,extreme=7.0+@17-36";

/// What a band table grades by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scale {
    /// Clue counts (`--grade clues`, the default).
    #[default]
    Clues,
    /// The SE technique rating, in tenths (`--grade rating`; 9×9 only).
    Rating,
}

impl Scale {
    pub fn name(self) -> &'static str {
        match self {
            Scale::Clues => "clues",
            Scale::Rating => "rating",
        }
    }

    pub fn from_name(name: &str) -> Option<Scale> {
        [Scale::Clues, Scale::Rating]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// `--difficulty any` (generate, export, render) and `all` (bench) mean every band,
/// so no table may name a band so.
pub fn means_every_band(name: &str) -> bool {
    name == "any" || name == "all"
}

/// One named range, inclusive at both ends: clue counts, or ratings in tenths (an
/// open top, `7.0+`, is `hi == u16::MAX`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Band {
    pub name: String,
    pub lo: u16,
    pub hi: u16,
    /// A rating band's clue range (`easy=1.0-1.4@17-45`), inclusive: what `generate`
    /// and `bench` keep for the band also has this many clues. `None`: any count.
    pub clues: Option<(u16, u16)>,
    /// A rating band whose seeds are spread evenly over its rating steps
    /// (`medium=1.5-2.4:even`): each seed aims at one of the ratings the rater gives
    /// in the band, drawn uniformly ([`rating_steps`]), and lands only on it.
    pub even: bool,
}

/// The ratings (tenths) the rater gives puzzles within `lo..=hi` (`hi` may be
/// `u16::MAX`, an open band): every technique's rating below the chains, and each
/// tenth from 6.5 up to the 9.5 ceiling. Ratings a puzzle almost never ends on are
/// left out: 1.0 (a full house is the hardest step only of a nearly full grid),
/// 1.9 (a direct claiming), 4.9, 5.1 and 5.3 (large uniqueness patterns) and
/// 5.8-6.1 (between the WXYZ- and VWXYZ-wings): no puzzle of `se-rated.txt` or the
/// qqwing set rates them, so a seed aimed at one would rarely land.
pub fn rating_steps(lo: u16, hi: u16) -> impl Iterator<Item = u16> {
    const BELOW_CHAINS: [u16; 31] = [
        12, 15, 17, 20, 23, 25, 26, 28, 30, 32, 34, 36, 38, 40, 41, 42, 43, 44, 45, 46, 47, 48, 50,
        52, 54, 55, 56, 57, 62, 63, 64,
    ];
    BELOW_CHAINS
        .into_iter()
        .chain(65..=95)
        .filter(move |r| (lo..=hi).contains(r))
}

/// A difficulty table: named clue ranges, easiest first as the user wrote them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandTable {
    bands: Vec<Band>,
    scale: Scale,
}

/// Why a band table or a band selection was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BandError {
    #[error("band table {item:?}: {reason} (expected {expected})")]
    Malformed {
        item: String,
        reason: &'static str,
        /// The form of an item of the table's scale, with an example.
        expected: &'static str,
    },
    #[error("band {name:?} asks for {lo} clues, but no {size} puzzle with fewer than {min} clues has a unique solution")]
    BelowMinimum {
        name: String,
        lo: u16,
        size: Size,
        min: u16,
    },
    #[error("band {name:?} asks for {hi} clues, but a {size} board has only {cells} cells")]
    AboveMaximum {
        name: String,
        hi: u16,
        size: Size,
        cells: usize,
    },
    #[error("bands {a:?} and {b:?} overlap; every puzzle must get exactly one band")]
    Overlap { a: String, b: String },
    #[error("band {0:?} is named twice")]
    Duplicate(String),
    #[error("the band table is empty")]
    Empty,
    #[error("no band named (`any`, or names from: {known})")]
    NoneChosen { known: String },
    #[error("unknown band {name:?} (known: {known})")]
    Unknown { name: String, known: String },
    #[error("rating bands need a 9x9 board: the technique rater is 9x9 only ({0} asked)")]
    RatingSize(Size),
}

impl BandTable {
    /// The default 9×9 table: easy 36–40, medium 30–35, hard 24–29, expert 17–23.
    pub fn default_9x9() -> BandTable {
        BandTable::parse("easy=36-40,medium=30-35,hard=24-29,expert=17-23")
            .expect("the default table is valid")
    }

    /// The six-level scale of one write-up: level k removes 45 + 2k cells, i.e. keeps
    /// 36, 34, 32, 30, 28 and 26 clues for levels 0 (very easy) to 5 (professional).
    pub fn six_level() -> BandTable {
        let spec = (0..6)
            .map(|k| format!("level{k}={n}-{n}", n = 36 - 2 * k))
            .collect::<Vec<_>>()
            .join(",");
        BandTable::parse(&spec).expect("the six-level table is valid")
    }

    /// The default table of a board size (README, "Difficulty bands"). 9×9 is
    /// DESIGN.md's table; the others keep the same four names and were chosen from
    /// the clue counts carving reaches on each size.
    pub fn default_for(size: Size) -> BandTable {
        let spec = match size {
            Size::Four => DEFAULT_4X4,
            Size::Nine => return BandTable::default_9x9(),
            Size::Sixteen => DEFAULT_16X16,
            Size::TwentyFive => DEFAULT_25X25,
        };
        BandTable::parse_for(spec, size).expect("the default tables are valid")
    }

    /// Parses a 9×9 table: `default`, `six-level`, or `NAME=LO-HI[,NAME=LO-HI...]`.
    pub fn parse(spec: &str) -> Result<BandTable, BandError> {
        BandTable::parse_for(spec, Size::Nine)
    }

    /// Parses a table for boards of `size`: `default` (that size's table),
    /// `six-level` (9×9 only), or `NAME=LO-HI[,NAME=LO-HI...]`.
    pub fn parse_for(spec: &str, size: Size) -> Result<BandTable, BandError> {
        match (spec.trim(), size) {
            ("default", _) => return Ok(BandTable::default_for(size)),
            ("six-level", Size::Nine) => return Ok(BandTable::six_level()),
            ("six-level", _) => {
                return Err(BandError::Malformed {
                    item: "six-level".into(),
                    reason: "the six-level scale is a 9x9 table",
                    expected: CLUE_ITEM,
                })
            }
            _ => {}
        }
        let (min, cells) = (min_clues(size), size.n_cells());
        let bands = parse_items(spec, CLUE_ITEM, |name, range, malformed| {
            if range.trim().ends_with('+') {
                return Err(malformed(
                    "an open top (LO+) is for rating bands (--grade rating); a clue band is LO-HI",
                ));
            }
            // Regression: `easy=1.5-2` said "LO is not a number".
            if range.contains('.') {
                return Err(malformed(
                    "a decimal range is a rating band (--grade rating); a clue band is whole clue counts LO-HI",
                ));
            }
            let (lo, hi) = match range.split_once('-') {
                Some((lo, hi)) => (lo.trim(), hi.trim()),
                None => (range.trim(), range.trim()),
            };
            let number = |text: &str, what: [&'static str; 2]| {
                text.parse::<u16>().map_err(|e| match e.kind() {
                    std::num::IntErrorKind::PosOverflow => malformed(what[1]),
                    _ => malformed(what[0]),
                })
            };
            let lo = number(lo, ["LO is not a number", "LO is too large"])?;
            let hi = number(hi, ["HI is not a number", "HI is too large"])?;
            if lo > hi {
                return Err(malformed("LO is larger than HI"));
            }
            if lo < min {
                return Err(BandError::BelowMinimum {
                    name: name.to_string(),
                    lo,
                    size,
                    min,
                });
            }
            if usize::from(hi) > cells {
                return Err(BandError::AboveMaximum {
                    name: name.to_string(),
                    hi,
                    size,
                    cells,
                });
            }
            Ok((lo, hi, None, false))
        })?;
        Ok(BandTable {
            bands,
            scale: Scale::Clues,
        })
    }

    /// The default rating table (`--grade rating`): easy 1.0–1.4, medium 1.5–2.4, hard
    /// 2.5–4.9, diabolical 5.0–6.9, extreme 7.0+.
    pub fn default_rating() -> BandTable {
        BandTable::parse_rating(DEFAULT_RATING).expect("the default rating table is valid")
    }

    /// Parses a table of `scale` for boards of `size`: [`BandTable::parse_for`] for
    /// clues, [`BandTable::parse_rating`] for ratings (9×9 only).
    pub fn parse_scaled(spec: &str, size: Size, scale: Scale) -> Result<BandTable, BandError> {
        match scale {
            Scale::Clues => BandTable::parse_for(spec, size),
            Scale::Rating if size != Size::Nine => Err(BandError::RatingSize(size)),
            Scale::Rating => BandTable::parse_rating(spec),
        }
    }

    /// Parses a rating table: `default`, or `NAME=LO-HI[,...]` with one-decimal SE
    /// ratings (`hard=2.5-4.9`), the last range may be open (`extreme=7.0+`).
    pub fn parse_rating(spec: &str) -> Result<BandTable, BandError> {
        match spec.trim() {
            "default" => return Ok(BandTable::default_rating()),
            "six-level" => {
                return Err(BandError::Malformed {
                    item: "six-level".into(),
                    reason: "the six-level scale is a table of clue counts, not of ratings",
                    expected: RATING_ITEM,
                })
            }
            _ => {}
        }
        // `default:even`: the default table, every band spread evenly.
        if let Some(table) = spec.trim().strip_suffix(":even") {
            if table.trim() == "default" {
                let mut table = BandTable::default_rating();
                for band in &mut table.bands {
                    band.even = true;
                }
                return Ok(table);
            }
        }
        let bands = parse_items(spec, RATING_ITEM, |name, range, malformed| {
            let (range, even) = match range.trim().split_once(':') {
                Some((range, "even")) => (range, true),
                Some(_) => return Err(malformed("the only suffix after : is even")),
                None => (range, false),
            };
            let (range, clues) = match range.split_once('@') {
                Some((range, clues)) => (range.trim(), Some(clue_range(name, clues, &malformed)?)),
                None => (range.trim(), None),
            };
            let (lo, hi) = match range.strip_suffix('+') {
                Some(lo) => (lo.trim(), None),
                None => match range.split_once('-') {
                    Some((lo, hi)) => (lo.trim(), Some(hi.trim())),
                    None => (range, Some(range)),
                },
            };
            let lo = parse_tenths(lo).ok_or(malformed("LO is not a rating like 2.5"))?;
            let hi = match hi {
                Some(hi) => parse_tenths(hi).ok_or(malformed("HI is not a rating like 4.9"))?,
                None => u16::MAX,
            };
            if lo > hi {
                return Err(malformed("LO is larger than HI"));
            }
            if lo < 10 {
                return Err(malformed("ratings start at 1.0"));
            }
            // A band no puzzle can reach would be searched for in vain (a clue table
            // such as 36-40 given with --grade rating, say).
            if lo >= 120 {
                return Err(malformed(
                    "no puzzle rates 12.0 or more on the SE scale (the hardest known rate 11.9; is this a clue table?)",
                ));
            }
            if even && rating_steps(lo, hi).next().is_none() {
                return Err(malformed(
                    "no rating the rater gives lies in this range, so :even has nothing to spread over",
                ));
            }
            Ok((lo, hi, clues, even))
        })?;
        Ok(BandTable {
            bands,
            scale: Scale::Rating,
        })
    }

    /// What this table grades by.
    pub fn scale(&self) -> Scale {
        self.scale
    }

    /// Band `i`'s range as `--bands` writes it: `36-40`, or `2.5-4.9` / `7.0+`, with
    /// a rating band's clue range after `@` (`1.0-1.4@17-45`).
    pub fn range_text(&self, i: usize) -> String {
        let b = &self.bands[i];
        let range = match self.scale {
            Scale::Clues => format!("{}-{}", b.lo, b.hi),
            Scale::Rating if b.hi == u16::MAX => format!("{}+", tenths(b.lo)),
            Scale::Rating => format!("{}-{}", tenths(b.lo), tenths(b.hi)),
        };
        let range = match b.clues {
            Some((lo, hi)) => format!("{range}@{lo}-{hi}"),
            None => range,
        };
        if b.even {
            format!("{range}:even")
        } else {
            range
        }
    }

    /// Whether a puzzle of `n_clues` givens may be kept for band `i`: within its clue
    /// range (a rating band's `@LO-HI`; any count without one).
    pub fn clues_fit(&self, i: usize, n_clues: u16) -> bool {
        self.bands[i]
            .clues
            .is_none_or(|(lo, hi)| (lo..=hi).contains(&n_clues))
    }

    /// The band of a puzzle with `n_clues` givens and technique rating `rating` (in
    /// tenths), by this table's scale; `None` for a rating table without a rating.
    pub fn grade_puzzle(&self, n_clues: u16, rating: Option<u8>) -> Option<usize> {
        match self.scale {
            Scale::Clues => self.grade(n_clues),
            Scale::Rating => self.grade(u16::from(rating?)),
        }
    }

    /// The bands, in the order given.
    pub fn bands(&self) -> &[Band] {
        &self.bands
    }

    /// The band index of a value on this table's scale (clues, or rating tenths), if
    /// any: above every range, the band reaching highest.
    pub fn grade(&self, n_clues: impl Into<u16>) -> Option<usize> {
        let n_clues = n_clues.into();
        if let Some(i) = self
            .bands
            .iter()
            .position(|b| (b.lo..=b.hi).contains(&n_clues))
        {
            return Some(i);
        }
        let (top, band) = self
            .bands
            .iter()
            .enumerate()
            .max_by_key(|(_, b)| b.hi)
            .expect("a table has at least one band");
        (n_clues > band.hi).then_some(top)
    }

    /// Whether a value lies in band `i`'s own range: what `generate` and `bench` keep
    /// for band `i`, so a band asked for as `22-24` gets 22 to 24 clues. ([`grade`]
    /// names any puzzle, and gives one above every range to the top band; a
    /// generator aiming at the top band must not take those.)
    ///
    /// [`grade`]: BandTable::grade
    pub fn accepts(&self, i: usize, n_clues: impl Into<u16>) -> bool {
        let b = &self.bands[i];
        (b.lo..=b.hi).contains(&n_clues.into())
    }

    /// Resolves `any` or a comma-separated list of band names into band indices.
    pub fn select(&self, spec: &str) -> Result<Vec<usize>, BandError> {
        if spec.trim() == "any" {
            return Ok((0..self.bands.len()).collect());
        }
        let mut chosen = Vec::new();
        for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let i = self
                .bands
                .iter()
                .position(|b| b.name == name)
                .ok_or_else(|| BandError::Unknown {
                    name: name.to_string(),
                    known: self.to_string(),
                })?;
            if !chosen.contains(&i) {
                chosen.push(i);
            }
        }
        if chosen.is_empty() {
            return Err(BandError::NoneChosen {
                known: self.to_string(),
            });
        }
        Ok(chosen)
    }
}

impl fmt::Display for BandTable {
    /// The table in the `--bands` syntax, so that it can be passed back in.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.bands.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}={}", b.name, self.range_text(i))?;
        }
        Ok(())
    }
}

/// How an item of a clue table reads, for error messages.
const CLUE_ITEM: &str = "NAME=LO-HI, e.g. easy=36-40";
/// How an item of a rating table reads, for error messages.
const RATING_ITEM: &str = "NAME=LO-HI or NAME=LO+, then optionally @CLUES-CLUES and :even, \
e.g. hard=2.5-4.9 or easy=1.0-1.4@17-45 or medium=1.5-2.4:even";

/// A rating band's clue range, the part after `@`: whole clue counts `LO-HI`, 17 to 81.
fn clue_range(
    name: &str,
    text: &str,
    malformed: &dyn Fn(&'static str) -> BandError,
) -> Result<(u16, u16), BandError> {
    let (lo, hi) = text
        .split_once('-')
        .ok_or(malformed("the clue range after @ is LO-HI, e.g. @17-45"))?;
    let number = |t: &str| t.trim().parse::<u16>().ok();
    let lo = number(lo).ok_or(malformed("the clue range's LO is not a whole number"))?;
    let hi = number(hi).ok_or(malformed("the clue range's HI is not a whole number"))?;
    if lo > hi {
        return Err(malformed("the clue range's LO is larger than its HI"));
    }
    let (min, cells) = (min_clues(Size::Nine), Size::Nine.n_cells());
    if lo < min {
        return Err(BandError::BelowMinimum {
            name: name.to_string(),
            lo,
            size: Size::Nine,
            min,
        });
    }
    if usize::from(hi) > cells {
        return Err(BandError::AboveMaximum {
            name: name.to_string(),
            hi,
            size: Size::Nine,
            cells,
        });
    }
    Ok((lo, hi))
}

/// The items `NAME=RANGE` of a table spec (items read as `expected` says), with
/// `range` reading a range (given the band's name and a maker of `Malformed` errors
/// for the item); names checked, no name twice, no two ranges overlapping, at least
/// one band.
fn parse_items(
    spec: &str,
    expected: &'static str,
    range: impl Fn(
        &str,
        &str,
        &dyn Fn(&'static str) -> BandError,
    ) -> Result<(u16, u16, Option<(u16, u16)>, bool), BandError>,
) -> Result<Vec<Band>, BandError> {
    let mut bands: Vec<Band> = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let malformed = |reason| BandError::Malformed {
            item: item.to_string(),
            reason,
            expected,
        };
        let (name, text) = item.split_once('=').ok_or(malformed("missing '='"))?;
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(malformed(
                "a band name is ASCII letters, digits, '-' or '_'",
            ));
        }
        if means_every_band(name) {
            return Err(malformed(
                "`any` and `all` are not band names: `--difficulty any` means every band",
            ));
        }
        let (lo, hi, clues, even) = range(name, text, &malformed)?;
        for other in &bands {
            if other.name == name {
                return Err(BandError::Duplicate(name.to_string()));
            }
            if lo <= other.hi && other.lo <= hi {
                return Err(BandError::Overlap {
                    a: other.name.clone(),
                    b: name.to_string(),
                });
            }
        }
        bands.push(Band {
            name: name.to_string(),
            lo,
            hi,
            clues,
            even,
        });
    }
    if bands.is_empty() {
        return Err(BandError::Empty);
    }
    Ok(bands)
}

/// `2.5` → 25: a rating with at most one decimal, in tenths.
fn parse_tenths(s: &str) -> Option<u16> {
    let (whole, tenth) = s.split_once('.').unwrap_or((s, "0"));
    if whole.is_empty() || whole.len() > 2 || tenth.len() != 1 {
        return None;
    }
    let whole: u16 = whole.parse().ok()?;
    let tenth: u16 = tenth.parse().ok()?;
    Some(whole * 10 + tenth)
}

/// 25 → `2.5`.
fn tenths(t: u16) -> String {
    format!("{}.{}", t / 10, t % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_table_grades_every_count_from_17() {
        let t = BandTable::default_9x9();
        let name = |n: u16| t.grade(n).map(|i| t.bands()[i].name.as_str());
        assert_eq!(name(17), Some("expert"));
        assert_eq!(name(23), Some("expert"));
        assert_eq!(name(24), Some("hard"));
        assert_eq!(name(35), Some("medium"));
        assert_eq!(name(40), Some("easy"));
        assert_eq!(name(55), Some("easy"));
        assert_eq!(name(16), None);
        assert_eq!(BandTable::parse(&t.to_string()).unwrap(), t);
    }

    #[test]
    fn refuses_bad_tables_with_reasons() {
        let err = |s| BandTable::parse(s).unwrap_err().to_string();
        assert!(err("easy=10-20").contains("no 9x9 puzzle with fewer than 17"));
        assert!(err("easy=70-82").contains("a 9x9 board has only 81 cells"));
        let four = BandTable::parse_for("easy=3-5", Size::Four).unwrap_err();
        assert!(four.to_string().contains("no 4x4 puzzle with fewer than 4"));
        // Regression: 16x16 and 25x25 took any band, and one of 1-2 clues ran for
        // minutes to the "unreachable" error: below N - 1 clues two symbols are free.
        for (size, min) in [(Size::Sixteen, 15), (Size::TwentyFive, 24)] {
            let low = BandTable::parse_for(&format!("a={}-{}", min - 1, min + 50), size)
                .unwrap_err()
                .to_string();
            let want = format!("no {size} puzzle with fewer than {min} clues");
            assert!(low.contains(&want), "{low}");
            assert!(BandTable::parse_for(&format!("a={min}-{}", min + 50), size).is_ok());
        }
        assert!(BandTable::parse_for("a=200-300", Size::Sixteen)
            .unwrap_err()
            .to_string()
            .contains("a 16x16 board has only 256 cells"));
        assert!(BandTable::parse_for("six-level", Size::Four).is_err());
        assert!(err("easy=30-40,hard=25-30").contains("overlap"));
        assert!(err("easy").contains("missing '='"));
        assert!(err("easy=x-3").contains("LO is not a number"));
        // Regressions: `a=30+` (a rating band's open top) said "LO is not a number",
        // a non-ASCII name was refused as not "letters", and rating tables' errors
        // gave a clue table's example.
        assert!(err("a=30+").contains("an open top (LO+) is for rating bands"));
        assert!(err("easy=1.5-2").contains("a decimal range is a rating band (--grade rating)"));
        assert!(err("\u{e9}=30-35").contains("ASCII letters"));
        let rating = BandTable::parse_rating("a=0.0-0.5")
            .unwrap_err()
            .to_string();
        assert!(rating.contains("e.g. hard=2.5-4.9"), "{rating}");
        assert!(!rating.contains("easy=36-40"), "{rating}");
        assert!(err("easy=40-30").contains("LO is larger"));
        assert!(err("").contains("empty"));
        // Regressions: messages that named the wrong problem.
        assert!(err("easy=30-99999999999999999999").contains("HI is too large"));
        let six = BandTable::parse_rating("six-level")
            .unwrap_err()
            .to_string();
        assert!(six.contains("not of ratings"), "{six}");
        let none = BandTable::default_9x9()
            .select(" , ")
            .unwrap_err()
            .to_string();
        assert!(
            none.contains("no band named") && none.contains("easy=36-40"),
            "{none}"
        );
    }

    #[test]
    fn every_size_has_a_valid_default_table_with_the_same_names() {
        for size in Size::ALL {
            let t = BandTable::default_for(size);
            let names: Vec<_> = t.bands().iter().map(|b| b.name.as_str()).collect();
            assert_eq!(names, ["easy", "medium", "hard", "expert"], "{size}");
            assert_eq!(BandTable::parse_for("default", size).unwrap(), t);
            assert_eq!(BandTable::parse_for(&t.to_string(), size).unwrap(), t);
            // Every count from the lowest band up grades to exactly one band.
            let lo = t.bands().iter().map(|b| b.lo).min().unwrap();
            for n in lo..=size.n_cells() as u16 {
                assert!(t.grade(n).is_some(), "{size}: {n} clues");
            }
        }
    }

    #[test]
    fn rating_tables_parse_grade_and_print_back() {
        let t = BandTable::default_rating();
        assert_eq!(t.scale(), Scale::Rating);
        assert_eq!(t.to_string(), DEFAULT_RATING);
        assert_eq!(BandTable::parse_rating(&t.to_string()).unwrap(), t);
        let name = |r: u8| {
            t.grade_puzzle(25, Some(r))
                .map(|i| t.bands()[i].name.as_str())
        };
        assert_eq!(name(10), Some("easy"));
        assert_eq!(name(14), Some("easy"));
        assert_eq!(name(15), Some("medium"));
        assert_eq!(name(24), Some("medium"));
        assert_eq!(name(25), Some("hard"));
        assert_eq!(name(49), Some("hard"));
        assert_eq!(name(50), Some("diabolical"));
        assert_eq!(name(70), Some("extreme"));
        assert_eq!(name(115), Some("extreme"));
        assert_eq!(
            t.grade_puzzle(25, None),
            None,
            "a rating table needs the rating"
        );
        assert_eq!(t.range_text(4), "7.0+@17-36");
        // Every default band has a clue range; easy's stops at 45.
        assert_eq!(t.bands()[0].clues, Some((17, 45)));
        assert!(t.clues_fit(0, 45) && !t.clues_fit(0, 46));
        assert!(t.bands().iter().all(|b| b.clues.is_some()));
        // Without one, any count fits; with one, the table prints it back.
        let own = BandTable::parse_rating("easy=1.0-1.4@30-34, hard=2.5+").unwrap();
        assert_eq!(own.to_string(), "easy=1.0-1.4@30-34,hard=2.5+");
        assert_eq!(BandTable::parse_rating(&own.to_string()).unwrap(), own);
        assert!(own.clues_fit(1, 81) && own.clues_fit(0, 30) && !own.clues_fit(0, 29));
        // A closed top: ratings above it still go to the hardest band.
        let closed = BandTable::parse_rating("easy=1.0-2.0,hard=2.1-5").unwrap();
        assert_eq!(closed.to_string(), "easy=1.0-2.0,hard=2.1-5.0");
        assert_eq!(closed.grade_puzzle(17, Some(90)), Some(1));
        // Clue tables ignore the rating.
        let clues = BandTable::default_9x9();
        assert_eq!(clues.grade_puzzle(38, Some(90)), Some(0));
    }

    #[test]
    fn an_even_band_spreads_over_its_rating_steps_and_prints_back() {
        let t = BandTable::parse_rating("medium=1.5-2.4@17-40:even, hard=2.5+").unwrap();
        assert!(t.bands()[0].even && !t.bands()[1].even);
        assert_eq!(t.to_string(), "medium=1.5-2.4@17-40:even,hard=2.5+");
        assert_eq!(BandTable::parse_rating(&t.to_string()).unwrap(), t);
        assert_eq!(rating_steps(15, 24).collect::<Vec<_>>(), [15, 17, 20, 23]);
        assert_eq!(
            rating_steps(62, 66).collect::<Vec<_>>(),
            [62, 63, 64, 65, 66]
        );
        assert_eq!(rating_steps(94, u16::MAX).collect::<Vec<_>>(), [94, 95]);
        // `default:even` is the default table with every band even.
        let all = BandTable::parse_rating("default:even").unwrap();
        assert!(all.bands().iter().all(|b| b.even));
        assert_eq!(all.bands().len(), BandTable::default_rating().bands().len());
        let err = BandTable::parse_rating("odd=5.8-6.1:even").unwrap_err();
        assert!(err.to_string().contains("nothing to spread over"), "{err}");
    }

    #[test]
    fn refuses_bad_rating_tables() {
        let err = |s| BandTable::parse_rating(s).unwrap_err().to_string();
        assert!(err("easy=0.5-1.4").contains("ratings start at 1.0"));
        assert!(err("easy=36-40").contains("no puzzle rates 12.0 or more"));
        assert!(err("x=12.0+").contains("no puzzle rates 12.0 or more"));
        assert!(err("any=1.0-2.0").contains("`any` and `all` are not band names"));
        assert!(err("easy=1.0-2.0,all=2.1+").contains("not band names"));
        assert!(BandTable::parse_rating("x=11.9+").is_ok());
        assert!(err("easy=1.0-2.5,hard=2.5+").contains("overlap"));
        assert!(err("easy=1.00-2").contains("LO is not a rating"));
        assert!(err("easy=1.0-x").contains("HI is not a rating"));
        // Regression: an unknown suffix was read as part of HI.
        assert!(err("easy=1.0-1.4:odd").contains("the only suffix after : is even"));
        assert!(err("easy=1.0-1.4:even:even").contains("the only suffix after : is even"));
        assert!(err("easy=3.0-2.0").contains("LO is larger"));
        assert!(err("easy=1.0-1.4@45").contains("the clue range after @ is LO-HI"));
        assert!(err("easy=1.0-1.4@x-45").contains("clue range's LO is not a whole number"));
        assert!(err("easy=1.0-1.4@30-4.5").contains("clue range's HI is not a whole number"));
        assert!(err("easy=1.0-1.4@45-30").contains("clue range's LO is larger"));
        assert!(err("easy=1.0-1.4@16-30").contains("fewer than 17 clues"));
        assert!(err("easy=1.0-1.4@30-82").contains("only 81 cells"));
        assert!(
            BandTable::parse_scaled("default", Size::Sixteen, Scale::Rating)
                .unwrap_err()
                .to_string()
                .contains("9x9 only")
        );
    }

    #[test]
    fn six_level_and_selection() {
        let t = BandTable::six_level();
        assert_eq!(t.bands().len(), 6);
        assert_eq!(t.grade(30u16), Some(3));
        assert_eq!(t.grade(31u16), None);
        assert_eq!(t.grade(50u16), Some(0));
        let d = BandTable::default_9x9();
        assert_eq!(d.select("any").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(d.select("hard, easy").unwrap(), vec![2, 0]);
        assert!(d
            .select("nightmare")
            .unwrap_err()
            .to_string()
            .contains("unknown band"));
    }
}
