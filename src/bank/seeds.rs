//! The seed files of a staged run (`generate --stage seeds`, then `--stage expand`):
//! the format only — names, the manifest, the chunk layout and the byte encoding of a
//! chunk. No file is opened here: `bank::sink` writes seed files, `bank::reader`
//! reads them.
//!
//! Stage 1 cuts the seed indices `0..n_seeds` into chunks of `chunk_seeds` (the last
//! one shorter); worker `K` of `N` makes the chunks `c` with `c % N == K`, each seed
//! `j` with its first-round stream only (`make_seed(j, 0)`, which depends on nothing
//! else), and appends them, in chunk order, to `DIR/seeds-K-of-N.bin`. Duplicate
//! seeds are *not* resolved here: that is sequential (later seeds depend on earlier
//! ones), cheap, and done identically by every stage-2 worker.
//!
//! A file is a sequence of chunk records, each a fixed header and a payload:
//!
//! ```text
//! magic "SFSD" | format u32 | chunk u64 | first seed u64 | seeds u32 | board bytes u32
//! | xxh3-64 u64 of (the 32 header bytes before it ++ metadata) | xxh3-64 u64 of boards
//! | metadata (seeds × META_BYTES) | boards (board bytes)
//! ```
//!
//! all little-endian. The metadata is each seed's as it is ([`META_BYTES`]: its
//! canonical key — [`canonical_key`] of its canonical form — clues u16, band u8,
//! attempts u32, and its technique rating: the rating in tenths u8 and the index of
//! its technique in [`Technique::ALL`] u8, `0, 255` for none: a `--no-rating` run, or a
//! size the rater does not rate); the boards are one zstd frame of every seed's
//! puzzle, solution and canonical form, one byte per cell each. Rating is per seed
//! (its variants carry it), so it is stage 1's work and divides by N with the seeds;
//! stage 2 only reads it. The metadata is all a stage-2 worker needs of a seed it
//! writes no rows of (deduplication takes the key), and it has a checksum of its
//! own: a worker reads, checks and decompresses the boards of its own rows' chunks
//! only, and of every other chunk reads the header and metadata (25 bytes a seed),
//! at its offset. Reading every seed file whole made each of N workers read all N
//! files, twice (a checksum pass, then the chunks). A record is checked on its own
//! (its checksums, its position), so a killed worker keeps every complete chunk and
//! redoes only the rest; the manifest `DIR/seeds-K-of-N.json` then adds the size and
//! checksum of the whole file (stage 2 checks the size; the checksum is for copies).
//! While stage 1 runs the file is `DIR/seeds-K-of-N.bin.part`: a file under its final
//! name is always complete.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bank::format::{canonical_key, Params, SeedPuzzle};
use crate::engine::rating::{Rating, Technique};

/// Seeds per chunk of stage 1: the unit of resumption. Not part of the determinism
/// contract (a bank's bytes do not depend on it); the manifest records it.
pub const CHUNK_SEEDS: u64 = 128;
/// Bytes of a chunk header.
pub const HEADER_BYTES: usize = 48;
const MAGIC: &[u8; 4] = b"SFSD";
/// 3 (0.4.5): the metadata and the boards checked apart, so that a worker reads only
/// the metadata of the chunks it writes no rows of. 2 (0.4.4): each seed's
/// metadata, with its rating and canonical key, apart from its compressed boards
/// (format 1 compressed one record per seed, without rating).
const FORMAT: u32 = 3;
/// The technique byte of a seed without a rating.
const UNRATED: u8 = u8::MAX;
const _: () = assert!(Technique::ALL.len() < UNRATED as usize);
/// Largest boards part or seed count a header may announce: far above any real chunk
/// (128 seeds of 25×25 are under 250 KB plain), so a corrupt length is refused before
/// allocating.
const MAX_PAYLOAD: u32 = 1 << 26;

/// The file name stem of worker `worker` of `workers`: `seeds-K-of-N`.
pub fn stem(worker: u64, workers: u64) -> String {
    format!("seeds-{worker}-of-{workers}")
}

/// The seed file of a worker, complete: `DIR/seeds-K-of-N.bin`.
pub fn data_path(dir: &Path, worker: u64, workers: u64) -> PathBuf {
    dir.join(format!("{}.bin", stem(worker, workers)))
}

/// The seed file of a worker while stage 1 runs: `DIR/seeds-K-of-N.bin.part`.
pub fn part_path(dir: &Path, worker: u64, workers: u64) -> PathBuf {
    dir.join(format!("{}.bin.part", stem(worker, workers)))
}

/// The manifest of a worker's seed file: `DIR/seeds-K-of-N.json`.
pub fn manifest_path(dir: &Path, worker: u64, workers: u64) -> PathBuf {
    dir.join(format!("{}.json", stem(worker, workers)))
}

/// `(K, N)` of a seed manifest's file name `seeds-K-of-N.json`.
pub fn parse_manifest_name(name: &str) -> Option<(u64, u64)> {
    let rest = name.strip_prefix("seeds-")?.strip_suffix(".json")?;
    let (k, n) = rest.split_once("-of-")?;
    Some((k.parse().ok()?, n.parse().ok()?))
}

/// `DIR/seeds-K-of-N.json`: what made a seed file, and (once complete) its size and
/// checksum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeedManifest {
    pub tool: String,
    pub version: String,
    /// The run's parameters, as a bank's manifest records them; `workers` and
    /// `worker` are stage 1's.
    pub params: Params,
    pub chunk_seeds: u64,
    /// Seeds of the whole run (all workers).
    pub n_seeds: u64,
    /// Chunks in this file (this worker's share).
    pub chunks: u64,
    pub bytes: u64,
    /// XXH3-64 of the whole file, lowercase hex.
    pub xxh3: String,
    pub complete: bool,
}

/// The chunk layout of stage 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkLayout {
    pub n_seeds: u64,
    pub chunk_seeds: u64,
    pub workers: u64,
}

impl ChunkLayout {
    /// Chunks of the whole run.
    pub fn n_chunks(&self) -> u64 {
        self.n_seeds.div_ceil(self.chunk_seeds)
    }

    /// The seed indices of chunk `c`.
    pub fn seeds_of(&self, c: u64) -> std::ops::Range<u64> {
        let start = c * self.chunk_seeds;
        start..self.n_seeds.min(start + self.chunk_seeds)
    }

    /// The worker whose file holds chunk `c`.
    pub fn worker_of(&self, c: u64) -> u64 {
        c % self.workers
    }

    /// The chunks of `worker`, in file order.
    pub fn chunks_of(&self, worker: u64) -> impl Iterator<Item = u64> {
        (worker..self.n_chunks()).step_by(self.workers as usize)
    }
}

/// Why seed files cannot be used. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum SeedFileError {
    #[error("{path} is missing: worker {worker} of stage 1 (`generate --stage seeds --workers {workers}`) has not finished; run or resume it")]
    Missing {
        path: PathBuf,
        worker: u64,
        workers: u64,
    },
    #[error("{path} is not complete: worker {worker} of stage 1 has not finished; resume it with `generate --stage seeds --resume DIR --workers {workers} --worker {worker}`")]
    Incomplete {
        path: PathBuf,
        worker: u64,
        workers: u64,
    },
    #[error("{path} belongs to another run ({what} differs); stage 2 must be given the options of stage 1")]
    OtherRun { path: PathBuf, what: String },
    #[error("{path} was made by sudoku-factory {found} and this is {this}: stage 2 reads only seed files of its own version (their layout changes between versions); make them again with this one (`generate --stage seeds`)")]
    OtherVersion {
        path: PathBuf,
        found: String,
        this: &'static str,
    },
    #[error("{path} is corrupt: {what}; make it again with `generate --stage seeds` (the other workers' files stay valid)")]
    Corrupt { path: PathBuf, what: String },
    #[error(
        "no seed files (seeds-K-of-N.json) in {0}; run `generate --stage seeds` into it first"
    )]
    NoSeedFiles(PathBuf),
    #[error("{dir} holds seed files of two stage-1 splits ({a} and {b} workers); keep one")]
    MixedSplits { dir: PathBuf, a: u64, b: u64 },
    #[error("{action} {path}: {error}")]
    Io {
        action: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
}

/// A chunk header, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    pub chunk: u64,
    pub first: u64,
    pub n_seeds: u32,
    pub board_bytes: u32,
    pub meta_xxh3: u64,
    pub boards_xxh3: u64,
}

impl ChunkHeader {
    /// Decodes a header; `None` unless it starts with the magic and this format.
    pub fn decode(bytes: &[u8; HEADER_BYTES]) -> Option<ChunkHeader> {
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        if &bytes[..4] != MAGIC
            || u32_at(4) != FORMAT
            || u32_at(24) > MAX_PAYLOAD / META_BYTES as u32
            || u32_at(28) > MAX_PAYLOAD
        {
            return None;
        }
        Some(ChunkHeader {
            chunk: u64_at(8),
            first: u64_at(16),
            n_seeds: u32_at(24),
            board_bytes: u32_at(28),
            meta_xxh3: u64_at(32),
            boards_xxh3: u64_at(40),
        })
    }

    /// Bytes of the metadata part, right after the header.
    pub fn meta_bytes(&self) -> usize {
        self.n_seeds as usize * META_BYTES
    }

    /// Bytes of the whole record: header, metadata and boards.
    pub fn record_bytes(&self) -> u64 {
        (HEADER_BYTES + self.meta_bytes()) as u64 + u64::from(self.board_bytes)
    }

    /// True when `meta` is the metadata this header's checksum covers.
    pub fn checks_meta(&self, header: &[u8; HEADER_BYTES], meta: &[u8]) -> bool {
        meta_checksum(&header[..32], meta) == self.meta_xxh3
    }

    /// True when `boards` are the compressed boards this header's checksum covers.
    pub fn checks_boards(&self, boards: &[u8]) -> bool {
        twox_hash::XxHash3_64::oneshot(boards) == self.boards_xxh3
    }
}

fn meta_checksum(head: &[u8], meta: &[u8]) -> u64 {
    use std::hash::Hasher as _;
    let mut h = twox_hash::XxHash3_64::new();
    h.write(head);
    h.write(meta);
    h.finish()
}

/// Bytes of one seed's metadata, stored uncompressed at the start of a chunk's
/// payload: its canonical key u128, clues u16, band u8, attempts u32, rating u8 and
/// technique u8 — all that stage 2 needs of a seed it writes no rows of.
pub const META_BYTES: usize = 25;

/// Bytes of one seed's boards (puzzle, solution, canonical form) for boards of
/// `cells` cells: the compressed part of a chunk.
pub fn board_bytes(cells: usize) -> usize {
    3 * cells
}

/// Encodes chunk `chunk` (seeds `first..first + seeds.len()`) into `out` (cleared
/// first): the header, every seed's metadata as it is, and the seeds' boards
/// compressed. `plain` is scratch, reused.
pub fn encode_chunk<C: AsRef<[u8]>>(
    chunk: u64,
    first: u64,
    seeds: &[SeedPuzzle<C>],
    compressor: &mut zstd::bulk::Compressor<'_>,
    plain: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    out.clear();
    out.resize(HEADER_BYTES, 0);
    plain.clear();
    for s in seeds {
        let key = s.key.unwrap_or_else(|| canonical_key(s.canonical.as_ref()));
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&s.n_clues.to_le_bytes());
        out.push(s.band);
        out.extend_from_slice(&s.attempts.to_le_bytes());
        out.extend_from_slice(&match s.rating {
            Some(r) => {
                let t = Technique::ALL.iter().position(|&t| t == r.technique);
                [r.rating, t.expect("every technique is in ALL") as u8]
            }
            None => [0, UNRATED],
        });
        plain.extend_from_slice(s.puzzle.as_ref());
        plain.extend_from_slice(s.solution.as_ref());
        plain.extend_from_slice(s.canonical.as_ref());
    }
    // One allocation per chunk (not per seed) for the compressed bytes.
    let compressed = compressor.compress(plain)?;
    let meta_end = out.len();
    out.extend_from_slice(&compressed);
    let n = u32::try_from(seeds.len()).expect("a chunk holds at most CHUNK_SEEDS seeds");
    let board_bytes = u32::try_from(compressed.len())
        .ok()
        .filter(|&b| b <= MAX_PAYLOAD)
        .ok_or_else(|| std::io::Error::other("a seed chunk compressed to more than 64 MiB"))?;
    out[..4].copy_from_slice(MAGIC);
    out[4..8].copy_from_slice(&FORMAT.to_le_bytes());
    out[8..16].copy_from_slice(&chunk.to_le_bytes());
    out[16..24].copy_from_slice(&first.to_le_bytes());
    out[24..28].copy_from_slice(&n.to_le_bytes());
    out[28..32].copy_from_slice(&board_bytes.to_le_bytes());
    let meta_sum = meta_checksum(&out[..32], &out[HEADER_BYTES..meta_end]);
    let boards_sum = twox_hash::XxHash3_64::oneshot(&out[meta_end..]);
    out[32..40].copy_from_slice(&meta_sum.to_le_bytes());
    out[40..48].copy_from_slice(&boards_sum.to_le_bytes());
    Ok(())
}

/// Decodes the metadata of seed `i` from a chunk's payload (boards left `empty`, the
/// canonical key in `key`), or `None` when the payload is too short. Timings are
/// not stored: they are zero.
pub fn decode_meta<C: Copy>(payload: &[u8], i: usize, empty: C) -> Option<SeedPuzzle<C>> {
    let m = payload.get(i * META_BYTES..(i + 1) * META_BYTES)?;
    let key = u128::from_le_bytes(m[..16].try_into().expect("16 bytes"));
    Some(SeedPuzzle {
        puzzle: empty,
        solution: empty,
        canonical: empty,
        key: Some(key),
        n_clues: u16::from_le_bytes([m[16], m[17]]),
        band: m[18],
        attempts: u32::from_le_bytes([m[19], m[20], m[21], m[22]]),
        rating: Technique::ALL
            .get(usize::from(m[24]))
            .map(|&technique| Rating {
                rating: m[23],
                technique,
            }),
        rate_time: std::time::Duration::ZERO,
        fill_time: std::time::Duration::ZERO,
        carve_time: std::time::Duration::ZERO,
        canon_time: std::time::Duration::ZERO,
    })
}

/// Fills the boards of `seed`, seed `i` of a chunk whose compressed part decompressed
/// to `boards`; false when `boards` is too short.
pub fn decode_boards<C: AsMut<[u8]>>(boards: &[u8], i: usize, seed: &mut SeedPuzzle<C>) -> bool {
    let cells = seed.puzzle.as_mut().len();
    let Some(rec) = boards.get(i * board_bytes(cells)..(i + 1) * board_bytes(cells)) else {
        return false;
    };
    seed.puzzle.as_mut().copy_from_slice(&rec[..cells]);
    seed.solution
        .as_mut()
        .copy_from_slice(&rec[cells..2 * cells]);
    seed.canonical
        .as_mut()
        .copy_from_slice(&rec[2 * cells..3 * cells]);
    true
}

/// What a resumed seed file keeps: its valid chunks, their bytes and their hash so far
/// (from [`crate::bank::reader::scan_seed_part`]).
pub struct SeedScan {
    pub chunks: u64,
    pub bytes: u64,
    pub hash: twox_hash::XxHash3_64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(i: u8, rating: Option<Rating>) -> SeedPuzzle<[u8; 16]> {
        SeedPuzzle {
            puzzle: [i; 16],
            solution: [i + 1; 16],
            canonical: [i + 2; 16],
            n_clues: 7,
            band: 1,
            attempts: 3,
            rating,
            key: None,
            rate_time: std::time::Duration::ZERO,
            fill_time: std::time::Duration::ZERO,
            carve_time: std::time::Duration::ZERO,
            canon_time: std::time::Duration::ZERO,
        }
    }

    #[test]
    fn a_chunk_round_trips_and_its_checksum_catches_a_flipped_byte() {
        let rated = Rating {
            rating: 47,
            technique: Technique::XyWing,
        };
        let seeds = [seed(1, None), seed(5, Some(rated))];
        let mut c = zstd::bulk::Compressor::new(3).unwrap();
        let (mut plain, mut out) = (Vec::new(), Vec::new());
        encode_chunk(7, 896, &seeds, &mut c, &mut plain, &mut out).unwrap();
        let head: [u8; HEADER_BYTES] = out[..HEADER_BYTES].try_into().unwrap();
        let h = ChunkHeader::decode(&head).unwrap();
        assert_eq!((h.chunk, h.first, h.n_seeds), (7, 896, 2));
        assert_eq!(h.record_bytes() as usize, out.len());
        let payload = &out[HEADER_BYTES..];
        let (meta, compressed) = payload.split_at(h.meta_bytes());
        assert!(h.checks_meta(&head, meta) && h.checks_boards(compressed));
        // The metadata reads without decompressing: the key is the canonical form's.
        let mut s = decode_meta(payload, 1, [0u8; 16]).unwrap();
        assert_eq!(s.key, Some(canonical_key(&[7; 16])));
        assert_eq!((s.n_clues, s.band, s.attempts), (7, 1, 3));
        assert_eq!(s.rating, Some(rated));
        assert_eq!(s.puzzle, [0; 16]);
        assert_eq!(decode_meta(payload, 0, [0u8; 16]).unwrap().rating, None);
        assert!(decode_meta(&payload[..2 * META_BYTES], 2, [0u8; 16]).is_none());
        let boards = zstd::bulk::decompress(&payload[2 * META_BYTES..], 1 << 20).unwrap();
        assert!(decode_boards(&boards, 1, &mut s));
        assert_eq!(
            (s.puzzle, s.solution, s.canonical),
            ([5; 16], [6; 16], [7; 16])
        );
        assert!(!decode_boards(&boards, 2, &mut s));
        // A flipped byte fails the checksum of its part only.
        let mut bad = compressed.to_vec();
        *bad.last_mut().unwrap() ^= 1;
        assert!(!h.checks_boards(&bad) && h.checks_meta(&head, meta));
        let mut bad = meta.to_vec();
        bad[META_BYTES + 3] ^= 1;
        assert!(!h.checks_meta(&head, &bad));
        // So does a header that names another chunk.
        let mut moved = head;
        moved[8] ^= 1;
        let m = ChunkHeader::decode(&moved).unwrap();
        assert!(!m.checks_meta(&moved, meta));
    }

    #[test]
    fn chunks_are_dealt_round_robin_and_cover_every_seed() {
        let l = ChunkLayout {
            n_seeds: 1000,
            chunk_seeds: 128,
            workers: 3,
        };
        assert_eq!(l.n_chunks(), 8);
        assert_eq!(l.chunks_of(1).collect::<Vec<_>>(), [1, 4, 7]);
        assert_eq!(l.seeds_of(7), 896..1000);
        let total: u64 = (0..3)
            .flat_map(|k| l.chunks_of(k))
            .map(|c| l.seeds_of(c).count() as u64)
            .sum();
        assert_eq!(total, 1000);
        assert_eq!(parse_manifest_name("seeds-2-of-3.json"), Some((2, 3)));
        assert_eq!(parse_manifest_name("seeds-2-of-3.bin"), None);
    }
}
