//! The display list rasterised into an 8-bit grayscale PNG at a given dpi: strokes and
//! rectangles (all axis-aligned) by exact area coverage, glyphs from the embedded
//! font's outlines by `ab_glyph_rasterizer`'s coverage accumulation — anti-aliased,
//! and with no font or graphics library of the system involved. The pHYs chunk
//! records the dpi, so layout programs place the image at its size in inches.

use ab_glyph_rasterizer::{point, Point, Rasterizer};
use ttf_parser::OutlineBuilder;

use super::font::Fonts;
use super::layout::{Item, Page, Text};

/// The dpi `--dpi` accepts, from screen previews to fine print.
pub const DPI_RANGE: std::ops::RangeInclusive<u32> = 36..=1200;

/// Why an image could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    #[error("encoding the PNG: {0}")]
    Encode(#[from] png::EncodingError),
}

/// Pixel size of `page` at `dpi`.
pub fn pixel_size(page: &Page, dpi: u32) -> (u32, u32) {
    let scale = dpi as f32 / 72.0;
    (
        (page.width * scale).round().max(1.0) as u32,
        (page.height * scale).round().max(1.0) as u32,
    )
}

/// Rasterises `page` at `dpi` and encodes it as PNG.
pub fn write(page: &Page, fonts: &Fonts, dpi: u32) -> Result<Vec<u8>, PngError> {
    let (w, h) = pixel_size(page, dpi);
    let mut canvas = Canvas {
        w: w as usize,
        h: h as usize,
        ink: vec![0.0; w as usize * h as usize],
    };
    let s = dpi as f32 / 72.0;
    for item in &page.items {
        match item {
            Item::Line(line) => {
                let [l, t, r, b] = line.area();
                canvas.fill_rect(l * s, t * s, r * s, b * s, 1.0);
            }
            Item::Rect { x, y, w, h, gray } => {
                canvas.fill_rect(x * s, y * s, (x + w) * s, (y + h) * s, 1.0 - gray);
            }
            Item::Text(Text {
                x,
                y,
                size,
                weight,
                text,
            }) => {
                let scale = size / fonts.units_per_em(*weight) * s;
                let mut pen = x * s;
                for c in text.chars() {
                    let gid = fonts.glyph(*weight, c);
                    canvas.glyph(fonts, *weight, gid, pen, y * s, scale);
                    pen += fonts.advance(*weight, gid) * scale;
                }
            }
        }
    }
    let pixels: Vec<u8> = canvas
        .ink
        .iter()
        // + 0.5 and truncation: rounding without a libm call per pixel.
        .map(|&a| (255.0 * (1.0 - a.clamp(0.0, 1.0)) + 0.5) as u8)
        .collect();
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        // fdeflate's fast mode: these images are mostly white, so it compresses them
        // about as well as zlib's default in a fraction of the time (zlib was 37% of
        // the time of `--png`).
        encoder.set_compression(png::Compression::Fast);
        let per_metre = (dpi as f64 / 0.0254).round() as u32;
        encoder.set_pixel_dims(Some(png::PixelDimensions {
            xppu: per_metre,
            yppu: per_metre,
            unit: png::Unit::Meter,
        }));
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&pixels)?;
        writer.finish()?;
    }
    Ok(out)
}

/// Ink coverage per pixel, 0 (paper) to 1 (black).
struct Canvas {
    w: usize,
    h: usize,
    ink: Vec<f32>,
}

impl Canvas {
    /// Adds `alpha` × `a` of ink at pixel (x, y), as paint over what is there.
    #[inline]
    fn paint(&mut self, x: usize, y: usize, a: f32) {
        if x < self.w && y < self.h && a > 0.0 {
            let p = &mut self.ink[y * self.w + x];
            *p = 1.0 - (1.0 - *p) * (1.0 - a.min(1.0));
        }
    }

    /// Fills the rectangle (x0, y0)–(x1, y1) in pixels with `ink`, edge pixels by the
    /// share of their area covered.
    fn fill_rect(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, ink: f32) {
        let (x0, y0) = (x0.max(0.0), y0.max(0.0));
        let (x1, y1) = (x1.min(self.w as f32), y1.min(self.h as f32));
        if x1 <= x0 || y1 <= y0 {
            return;
        }
        let overlap = |a0: f32, a1: f32, p: usize| {
            let p = p as f32;
            (a1.min(p + 1.0) - a0.max(p)).max(0.0)
        };
        for py in (y0.floor() as usize)..(y1.ceil() as usize) {
            let cy = overlap(y0, y1, py);
            for px in (x0.floor() as usize)..(x1.ceil() as usize) {
                let cx = overlap(x0, x1, px);
                self.paint(px, py, cx * cy * ink);
            }
        }
    }

    /// Draws glyph `gid` with its origin at (x, baseline) in pixels, `scale` pixels
    /// per font unit.
    fn glyph(
        &mut self,
        fonts: &Fonts,
        weight: super::font::Weight,
        gid: u16,
        x: f32,
        baseline: f32,
        scale: f32,
    ) {
        let Some(bbox) = fonts
            .face(weight)
            .glyph_bounding_box(ttf_parser::GlyphId(gid))
        else {
            return; // a blank glyph
        };
        let left = (x + f32::from(bbox.x_min) * scale).floor();
        let top = (baseline - f32::from(bbox.y_max) * scale).floor();
        let right = (x + f32::from(bbox.x_max) * scale).ceil() + 1.0;
        let bottom = (baseline - f32::from(bbox.y_min) * scale).ceil() + 1.0;
        if right <= left || bottom <= top {
            return;
        }
        let (gw, gh) = ((right - left) as usize, (bottom - top) as usize);
        let mut outline = Outline {
            raster: Rasterizer::new(gw, gh),
            ox: x - left,
            oy: baseline - top,
            scale,
            start: point(0.0, 0.0),
            last: point(0.0, 0.0),
        };
        fonts.outline(weight, gid, &mut outline);
        let raster = outline.raster;
        raster.for_each_pixel_2d(|px, py, a| {
            let (cx, cy) = (left + px as f32, top + py as f32);
            if cx >= 0.0 && cy >= 0.0 {
                self.paint(cx as usize, cy as usize, a);
            }
        });
    }
}

/// A glyph outline fed into the rasteriser, font units → pixels of the glyph's box.
struct Outline {
    raster: Rasterizer,
    ox: f32,
    oy: f32,
    scale: f32,
    start: Point,
    last: Point,
}

impl Outline {
    fn at(&self, x: f32, y: f32) -> Point {
        point(self.ox + x * self.scale, self.oy - y * self.scale)
    }
}

impl OutlineBuilder for Outline {
    fn move_to(&mut self, x: f32, y: f32) {
        let p = self.at(x, y);
        self.start = p;
        self.last = p;
    }
    fn line_to(&mut self, x: f32, y: f32) {
        let p = self.at(x, y);
        self.raster.draw_line(self.last, p);
        self.last = p;
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (c, p) = (self.at(x1, y1), self.at(x, y));
        self.raster.draw_quad(self.last, c, p);
        self.last = p;
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let (c1, c2, p) = (self.at(x1, y1), self.at(x2, y2), self.at(x, y));
        self.raster.draw_cubic(self.last, c1, c2, p);
        self.last = p;
    }
    fn close(&mut self) {
        if self.last != self.start {
            self.raster.draw_line(self.last, self.start);
        }
        self.last = self.start;
    }
}
