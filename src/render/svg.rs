//! The display list as SVG: strokes as `<line>`, rectangles as `<rect>`, text as the
//! embedded font's glyph outlines (each glyph once in `<defs>`, placed with `<use>`),
//! so the image looks the same in every viewer and needs no font installed. Each text
//! item is a `<g>` whose `aria-label` is its text, for screen readers and tests.
//!
//! Numbers are written with at most three decimals: same page, same bytes.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use ttf_parser::OutlineBuilder;

use super::font::{Fonts, Weight};
use super::layout::{Item, Page, Text};

/// Writes `page` as a standalone SVG document (units: points).
pub fn write(page: &Page, fonts: &Fonts) -> Vec<u8> {
    let mut out = String::with_capacity(64 * 1024);
    let (w, h) = (num(page.width), num(page.height));
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" width=\"{w}pt\" height=\"{h}pt\" viewBox=\"0 0 {w} {h}\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"#fff\"/>\n"
    );
    // Every glyph used, once.
    let mut glyphs: BTreeSet<(Weight, u16)> = BTreeSet::new();
    for Text { weight, text, .. } in page.texts() {
        glyphs.extend(text.chars().map(|c| (*weight, fonts.glyph(*weight, c))));
    }
    if !glyphs.is_empty() {
        out.push_str("<defs>\n");
        for &(weight, gid) in &glyphs {
            let mut path = SvgPath(String::new());
            fonts.outline(weight, gid, &mut path);
            let _ = writeln!(
                out,
                "<path id=\"{}\" d=\"{}\"/>",
                glyph_id(weight, gid),
                path.0
            );
        }
        out.push_str("</defs>\n");
    }
    out.push_str("<g stroke=\"#000\" stroke-linecap=\"square\" fill=\"none\">\n");
    for line in page.lines() {
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke-width=\"{}\"/>",
            num(line.x1),
            num(line.y1),
            num(line.x2),
            num(line.y2),
            num(line.width)
        );
    }
    out.push_str("</g>\n");
    for item in &page.items {
        if let Item::Rect { x, y, w, h, gray } = item {
            let g = (gray.clamp(0.0, 1.0) * 255.0).round() as u8;
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#{g:02x}{g:02x}{g:02x}\"/>",
                num(*x),
                num(*y),
                num(*w),
                num(*h)
            );
        }
    }
    out.push_str("<g fill=\"#000\">\n");
    for Text {
        x,
        y,
        size,
        weight,
        text,
    } in page.texts()
    {
        let scale = size / fonts.units_per_em(*weight);
        let _ = write!(out, "<g class=\"text\" aria-label=\"{}\">", escape(text));
        let mut pen = *x;
        for c in text.chars() {
            let gid = fonts.glyph(*weight, c);
            let _ = write!(
                out,
                "<use xlink:href=\"#{}\" transform=\"translate({} {}) scale({} -{})\"/>",
                glyph_id(*weight, gid),
                num(pen),
                num(*y),
                num(scale),
                num(scale)
            );
            pen += fonts.advance(*weight, gid) * scale;
        }
        out.push_str("</g>\n");
    }
    out.push_str("</g>\n</svg>\n");
    out.into_bytes()
}

fn glyph_id(weight: Weight, gid: u16) -> String {
    match weight {
        Weight::Regular => format!("r{gid}"),
        Weight::Bold => format!("b{gid}"),
    }
}

/// `v` with at most three decimals, no trailing zeros (`12`, `12.5`, `0.004`).
fn num(v: f32) -> String {
    let mut s = format!("{:.3}", v);
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    if s == "-0" {
        s = "0".into();
    }
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An outline as SVG path data, in font units (y up; the `<use>` flips it).
struct SvgPath(String);

impl OutlineBuilder for SvgPath {
    fn move_to(&mut self, x: f32, y: f32) {
        let _ = write!(self.0, "M{} {}", num(x), num(y));
    }
    fn line_to(&mut self, x: f32, y: f32) {
        let _ = write!(self.0, "L{} {}", num(x), num(y));
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let _ = write!(self.0, "Q{} {} {} {}", num(x1), num(y1), num(x), num(y));
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let _ = write!(
            self.0,
            "C{} {} {} {} {} {}",
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            num(x),
            num(y)
        );
    }
    fn close(&mut self) {
        self.0.push('Z');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.5), "12.5");
        assert_eq!(num(0.0004), "0");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(num(1.23456), "1.235");
    }
}
