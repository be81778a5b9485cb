//! One drawing backend type for every chart: plotters' SVG backend (the slide, the first
//! frame, tests; `svg` feature) or, in the page, its canvas backend (`canvas` feature).
//! The charts' drawing functions are generic over `DrawingBackend`; called only with
//! [`Backend`], they are compiled once into the page's wasm instead of once per backend
//! (about 10 KB less wasm).

use crate::kit::draw::DrawSegments;
#[cfg(feature = "svg")]
use plotters::prelude::SVGBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// A backend the charts draw on.
pub enum Backend<'a> {
    /// An SVG document written into a string (`svg` feature).
    #[cfg(feature = "svg")]
    Svg(SVGBackend<'a>),
    /// A canvas in the page (`canvas` feature, wasm32 only; the marker keeps the lifetime
    /// when the `svg` feature is off). Made by [`Backend::canvas`].
    #[cfg(feature = "canvas")]
    Canvas(plotters_canvas::CanvasBackend, std::marker::PhantomData<&'a ()>),
}

#[cfg(feature = "canvas")]
impl Backend<'_> {
    /// A canvas in the page.
    pub fn canvas(canvas: plotters_canvas::CanvasBackend) -> Self {
        Backend::Canvas(canvas, std::marker::PhantomData)
    }
}

#[cfg(feature = "svg")]
impl<'a> Backend<'a> {
    /// An SVG document of `size` px written into `out`.
    pub fn svg(out: &'a mut String, size: (u32, u32)) -> Self {
        Backend::Svg(SVGBackend::with_string(out, size))
    }
}

/// A backend's error, in words.
#[derive(Debug)]
pub struct BackendError(String);

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BackendError {}

type Result<T = ()> = std::result::Result<T, DrawingErrorKind<BackendError>>;

fn cast<E: std::error::Error + Send + Sync>(e: DrawingErrorKind<E>) -> DrawingErrorKind<BackendError> {
    match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(BackendError(e.to_string())),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// Calls the same method on whichever backend this is.
macro_rules! each {
    ($self:expr, $b:ident => $call:expr) => {
        match $self {
            #[cfg(feature = "svg")]
            Backend::Svg($b) => $call.map_err(cast),
            #[cfg(feature = "canvas")]
            Backend::Canvas($b, _) => $call.map_err(cast),
        }
    };
}

impl DrawingBackend for Backend<'_> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            #[cfg(feature = "svg")]
            Backend::Svg(b) => b.get_size(),
            #[cfg(feature = "canvas")]
            Backend::Canvas(b, _) => b.get_size(),
        }
    }

    fn ensure_prepared(&mut self) -> Result {
        each!(self, b => b.ensure_prepared())
    }

    fn present(&mut self) -> Result {
        each!(self, b => b.present())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result {
        each!(self, b => b.draw_pixel(point, color))
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result {
        each!(self, b => b.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        ul: BackendCoord,
        br: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result {
        each!(self, b => b.draw_rect(ul, br, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result {
        each!(self, b => b.draw_path(path, style))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result {
        each!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result {
        each!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Result {
        each!(self, b => b.draw_text(text, style, pos))
    }

    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Result<(u32, u32)> {
        each!(self, b => b.estimate_text_size(text, style))
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result {
        each!(self, b => b.blit_bitmap(pos, size, src))
    }
}

impl DrawSegments for Backend<'_> {
    fn draw_segments<S: BackendStyle>(&mut self, points: &[BackendCoord], style: &S) -> Result {
        match self {
            // One path per segment, as plotters draws a two-point path.
            #[cfg(feature = "svg")]
            Backend::Svg(b) => {
                for pair in points.chunks_exact(2) {
                    b.draw_path(pair.iter().copied(), style).map_err(cast)?;
                }
                Ok(())
            }
            // One path for them all (vendor/plotters-canvas/PATCHED.md).
            #[cfg(feature = "canvas")]
            Backend::Canvas(b, _) => b.draw_segments(points, style).map_err(cast),
        }
    }
}
