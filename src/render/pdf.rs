//! The display list as a PDF: pages with media, trim (and bleed) boxes, content
//! streams of strokes and text, compressed; fonts embedded as subset TrueType CID
//! fonts (Type0, Identity-H, glyph ids as CIDs) with a ToUnicode map, so print
//! services accept the file (every font embedded) and `pdftotext` reads the digits.
//!
//! Objects are written with `pdf-writer` (no hand-written PDF syntax). Same pages,
//! same bytes: no creation date, no random document id, the subset tag derived from
//! the subset's glyphs, objects in a fixed order.

use std::collections::BTreeMap;

use miniz_oxide::deflate::compress_to_vec_zlib;
use pdf_writer::types::{CidFontType, FontFlags, LineCapStyle, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use super::font::{Fonts, Weight};
use super::layout::{Item, Page, Text};

/// Why a PDF could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdfError {
    #[error("subsetting the font {font}: {reason}")]
    Subset { font: &'static str, reason: String },
}

/// Document metadata (no dates: the same book gives the same bytes).
#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub title: String,
    /// Bookmarks: a title and the 0-based page it opens.
    pub outline: Vec<(String, usize)>,
}

/// zlib level of content and font streams: 6, the usual balance (level 9 saved under
/// 1% on a 250-page book for twice the time).
const LEVEL: u8 = 6;

const SYSTEM_INFO: SystemInfo = SystemInfo {
    registry: Str(b"Adobe"),
    ordering: Str(b"Identity"),
    supplement: 0,
};

/// One embedded font: the subset's glyph ids of the characters used.
struct Embedded {
    weight: Weight,
    resource: &'static [u8],
    /// Character → glyph id in the subset (= CID).
    cids: BTreeMap<char, u16>,
    /// The original glyph id of each CID, in CID order.
    glyphs: Vec<u16>,
}

/// Writes `pages` as a PDF.
pub fn write(pages: &[Page], fonts: &Fonts, meta: &Meta) -> Result<Vec<u8>, PdfError> {
    // Pass 1: the characters each font sets, so the subsets (and their CIDs) are known
    // before any content stream is written.
    let mut used: BTreeMap<Weight, BTreeMap<char, u16>> = BTreeMap::new();
    for page in pages {
        for Text { weight, text, .. } in page.texts() {
            let chars = used.entry(*weight).or_default();
            for c in text.chars() {
                chars.entry(c).or_insert_with(|| fonts.glyph(*weight, c));
            }
        }
    }
    let mut embedded: Vec<Embedded> = Vec::new();
    for (weight, chars) in &used {
        // CIDs in order of original glyph id: deterministic whatever the text order.
        let mut gids: Vec<u16> = chars.values().copied().collect();
        gids.sort_unstable();
        gids.dedup();
        let remapper = subsetter::GlyphRemapper::new_from_glyphs_sorted(&gids);
        let cids = chars
            .iter()
            .map(|(&c, &g)| (c, remapper.get(g).expect("remapped above")))
            .collect();
        embedded.push(Embedded {
            weight: *weight,
            resource: match weight {
                Weight::Regular => b"F1",
                Weight::Bold => b"F2",
            },
            cids,
            glyphs: remapper.remapped_gids().collect(),
        });
    }

    let mut pdf = Pdf::new();
    let mut next = 1;
    let mut alloc = || {
        let r = Ref::new(next);
        next += 1;
        r
    };
    let catalog = alloc();
    let tree = alloc();
    let info = alloc();
    let font_refs: Vec<[Ref; 5]> = embedded
        .iter()
        .map(|_| [alloc(), alloc(), alloc(), alloc(), alloc()])
        .collect();
    let page_refs: Vec<(Ref, Ref)> = pages.iter().map(|_| (alloc(), alloc())).collect();
    let marks: Vec<(&str, Ref)> = meta
        .outline
        .iter()
        .filter_map(|(title, page)| Some((title.as_str(), page_refs.get(*page)?.0)))
        .collect();
    let outline = alloc();
    let mark_refs: Vec<Ref> = marks.iter().map(|_| alloc()).collect();

    let mut cat = pdf.catalog(catalog);
    cat.pages(tree);
    if !marks.is_empty() {
        cat.outlines(outline);
    }
    cat.finish();
    if let (Some(&first), Some(&last)) = (mark_refs.first(), mark_refs.last()) {
        pdf.outline(outline)
            .first(first)
            .last(last)
            .count(mark_refs.len() as i32);
        for (k, ((title, page), &r)) in marks.iter().zip(&mark_refs).enumerate() {
            let mut item = pdf.outline_item(r);
            item.title(TextStr(title)).parent(outline);
            if k > 0 {
                item.prev(mark_refs[k - 1]);
            }
            if let Some(&next) = mark_refs.get(k + 1) {
                item.next(next);
            }
            item.dest().page(*page).fit();
        }
    }
    pdf.pages(tree)
        .kids(page_refs.iter().map(|&(p, _)| p))
        .count(pages.len() as i32);
    pdf.document_info(info)
        .title(TextStr(&meta.title))
        .producer(TextStr(concat!(
            "sudoku-factory ",
            env!("CARGO_PKG_VERSION")
        )))
        .creator(TextStr("sudoku-factory render"));

    for (font, refs) in embedded.iter().zip(&font_refs) {
        write_font(&mut pdf, fonts, font, *refs)?;
    }

    for (page, &(page_ref, content_ref)) in pages.iter().zip(&page_refs) {
        let stream = content(page, &embedded);
        let compressed = compress_to_vec_zlib(&stream, LEVEL);
        pdf.stream(content_ref, &compressed)
            .filter(Filter::FlateDecode);
        let mut p = pdf.page(page_ref);
        let h = page.height;
        let media = Rect::new(0.0, 0.0, page.width, h);
        let [tx, ty, tw, th] = page.trim;
        p.parent(tree)
            .media_box(media)
            .trim_box(Rect::new(tx, h - ty - th, tx + tw, h - ty))
            .contents(content_ref);
        if (tw, th) != (page.width, h) {
            p.bleed_box(media);
        }
        let mut resources = p.resources();
        let mut font_dict = resources.fonts();
        for (font, refs) in embedded.iter().zip(&font_refs) {
            font_dict.pair(Name(font.resource), refs[0]);
        }
    }
    Ok(pdf.finish())
}

/// The font objects: Type0 → CIDFontType2 → descriptor → subset file, and ToUnicode.
fn write_font(
    pdf: &mut Pdf,
    fonts: &Fonts,
    font: &Embedded,
    [type0, cid, descriptor, file, to_unicode]: [Ref; 5],
) -> Result<(), PdfError> {
    let name = font.weight.postscript_name();
    let remapper = subsetter::GlyphRemapper::new_from_glyphs(&font.glyphs[1..]);
    let subset =
        subsetter::subset(font.weight.data(), 0, &remapper).map_err(|e| PdfError::Subset {
            font: name,
            reason: format!("{e:?}"),
        })?;
    // The subset tag: six capitals from the glyph set, so the same subset gets the
    // same name (and different subsets in one file different names).
    let hash = twox_hash::XxHash3_64::oneshot(
        &font
            .glyphs
            .iter()
            .flat_map(|g| g.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let tag: String = (0..6)
        .map(|i| char::from(b'A' + ((hash >> (5 * i)) % 26) as u8))
        .collect();
    let base = format!("{tag}+{name}");
    let base = Name(base.as_bytes());

    let face = fonts.face(font.weight);
    let scale = 1000.0 / f32::from(face.units_per_em());
    let widths: Vec<f32> = font
        .glyphs
        .iter()
        .map(|&g| fonts.advance(font.weight, g) * scale)
        .collect();

    pdf.type0_font(type0)
        .base_font(base)
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(cid)
        .to_unicode(to_unicode);
    let mut cid_font = pdf.cid_font(cid);
    cid_font
        .subtype(CidFontType::Type2)
        .base_font(base)
        .system_info(SYSTEM_INFO)
        .font_descriptor(descriptor)
        .default_width(widths.first().copied().unwrap_or(0.0))
        .cid_to_gid_map_predefined(Name(b"Identity"));
    cid_font.widths().consecutive(0, widths.iter().copied());
    cid_font.finish();

    let bbox = face.global_bounding_box();
    let cap = face.capital_height().unwrap_or(face.ascender());
    pdf.font_descriptor(descriptor)
        .name(base)
        .flags(FontFlags::NON_SYMBOLIC)
        .bbox(Rect::new(
            f32::from(bbox.x_min) * scale,
            f32::from(bbox.y_min) * scale,
            f32::from(bbox.x_max) * scale,
            f32::from(bbox.y_max) * scale,
        ))
        .italic_angle(0.0)
        .ascent(f32::from(face.ascender()) * scale)
        .descent(f32::from(face.descender()) * scale)
        .cap_height(f32::from(cap) * scale)
        .stem_v(match font.weight {
            Weight::Regular => 80.0,
            Weight::Bold => 140.0,
        })
        .font_file2(file);

    let compressed = compress_to_vec_zlib(&subset, LEVEL);
    pdf.stream(file, &compressed)
        .filter(Filter::FlateDecode)
        .pair(Name(b"Length1"), subset.len() as i32);

    let mut cmap = UnicodeCmap::new(Name(b"Custom"), SYSTEM_INFO);
    for (&c, &cid) in &font.cids {
        cmap.pair(cid, c);
    }
    let cmap = cmap.finish();
    pdf.stream(to_unicode, cmap.as_slice());
    Ok(())
}

/// A page's content stream: strokes grouped by width (one path each), rectangles,
/// then all text in one text object.
fn content(page: &Page, embedded: &[Embedded]) -> Vec<u8> {
    let h = page.height;
    let mut c = Content::new();
    c.set_line_cap(LineCapStyle::ProjectingSquareCap);
    // Strokes grouped by width, in order of first appearance: one path per width.
    let mut widths: Vec<f32> = Vec::new();
    for line in page.lines() {
        if !widths.contains(&line.width) {
            widths.push(line.width);
        }
    }
    for &w in &widths {
        c.set_line_width(w);
        for line in page.lines().filter(|line| line.width == w) {
            c.move_to(line.x1, h - line.y1);
            c.line_to(line.x2, h - line.y2);
        }
        c.stroke();
    }
    for item in &page.items {
        if let Item::Rect {
            x,
            y,
            w,
            h: rh,
            gray,
        } = item
        {
            c.set_fill_gray(*gray);
            c.rect(*x, h - y - rh, *w, *rh);
            c.fill_nonzero();
        }
    }
    c.set_fill_gray(0.0);
    let mut in_text = false;
    let mut current: Option<(Weight, f32)> = None;
    let mut bytes = Vec::new();
    for Text {
        x,
        y,
        size,
        weight,
        text,
    } in page.texts()
    {
        let Some(font) = embedded.iter().find(|f| f.weight == *weight) else {
            continue;
        };
        if !in_text {
            c.begin_text();
            in_text = true;
        }
        if current != Some((*weight, *size)) {
            c.set_font(Name(font.resource), *size);
            current = Some((*weight, *size));
        }
        c.set_text_matrix([1.0, 0.0, 0.0, 1.0, *x, h - y]);
        bytes.clear();
        for ch in text.chars() {
            let cid = font.cids.get(&ch).copied().unwrap_or(0);
            bytes.extend_from_slice(&cid.to_be_bytes());
        }
        c.show(Str(&bytes));
    }
    if in_text {
        c.end_text();
    }
    c.finish().into_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grid::Size;
    use crate::render::layout::{book, BookConfig, Trim};
    use crate::render::Puzzle;

    #[test]
    fn same_pages_same_bytes_and_fonts_are_subset() {
        let fonts = Fonts::new();
        let p = Puzzle {
            number: 1,
            size: Size::Four,
            band: "easy".into(),
            rating: None,
            givens: vec![1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1],
            solution: vec![1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1],
        };
        let config = BookConfig {
            trim: Trim::SixByNine,
            bleed: false,
            per_page: 1,
            large_print: false,
            caption: Default::default(),
        };
        let b = book(&[p], &config, &fonts).unwrap();
        let meta = Meta {
            title: "Test".into(),
            outline: b.sections.clone(),
        };
        let one = write(&b.pages, &fonts, &meta).unwrap();
        let two = write(&b.pages, &fonts, &meta).unwrap();
        assert_eq!(one, two);
        assert!(one.starts_with(b"%PDF-"));
        // Two subset fonts of a few glyphs each, far below the 1.4 MB of the files.
        assert!(one.len() < 40_000, "{}", one.len());
        let text = String::from_utf8_lossy(&one);
        assert!(text.contains("+DejaVuSans-Bold"));
        assert!(text.contains("/FontFile2"));
        assert!(!text.contains("CreationDate"));
        // Bookmarks: the band's section and the solutions.
        assert!(text.contains("/Outlines") && text.contains("(Solutions)"));
    }
}
