//! Rendering puzzles for people: pages and pictures made from puzzles the caller has
//! read, as bytes or text; no I/O (the `render` command writes the files).
//!
//! * [`html`] — the offline HTML play page (issue #13): one self-contained file with
//!   the puzzles embedded as JSON and the player (`play.js`, `play.css`) inlined.

pub mod html;
