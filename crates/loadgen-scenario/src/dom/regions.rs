//! The places in a page where the next page may differ with the scanner's
//! state after them the same: text between tags once the body has begun,
//! quoted values that no compound of the selector tests, and the text of
//! comments (a build's or a server's timing, say). A list made from other
//! data (other links, names, prices in the same markup) differs from the
//! last page in those alone, row after row; `scan/alike.rs` compares the
//! two pages through them.
//!
//! Noting them costs every scan something, so a page keeps its regions
//! only where its own scan read most of it, or went past many of the last
//! page's: a page that differs from the last in a few places is read near
//! them alone, and pays for none.

/// `(from, to)`: the bytes `from..to` of a page, ended by the `<`, the
/// quote or the comment's closing `--` at `to`.
pub type Region = (usize, usize);

/// Regions kept per page, at most: past them, pages are compared byte for
/// byte.
pub const MOST_REGIONS: usize = 4096;

/// A page whose scan went on past this many of the last page's regions
/// keeps its own for the next: its differences are many, and where they
/// are.
const CROSSED_FOR_REGIONS: usize = 4;

/// Keeps a region of a page, as far as regions are kept.
pub fn push_region(regions: &mut Vec<Region>, region: Region) {
    if regions.len() < MOST_REGIONS {
        regions.push(region);
    }
}

/// Drops the regions from `at` on, the last few of those kept: looked for
/// from the end.
pub fn drop_from(regions: &mut Vec<Region>, at: usize) {
    while regions.last().is_some_and(|&(from, _)| from >= at) {
        regions.pop();
    }
}

/// The last page's regions before its match, and the current page's.
#[derive(Default)]
pub struct Regions {
    /// The last page's, in its order.
    last: Vec<Region>,
    /// How many of those are before where the current page's scan starts.
    before: usize,
    /// The current page's from there on, as its scan goes.
    fresh: Vec<Region>,
    /// Whether the current page's scan keeps its regions.
    noting: bool,
    /// Every page after the first keeps its regions, however it was read.
    #[cfg(test)]
    pub note_always: bool,
}

impl Regions {
    /// Before the scan of a page that starts at `start`, where it has the
    /// last page's bytes before it: whether the scan keeps its regions.
    pub fn start(&mut self, start: usize) -> bool {
        self.before = self.last.partition_point(|(from, _)| *from < start);
        self.fresh.clear();
        self.noting
    }

    /// The last page's regions, and where the scan keeps its own.
    pub fn for_scan(&mut self) -> (&[Region], &mut Vec<Region>) {
        (&self.last, &mut self.fresh)
    }

    /// After the scan of a page that matched at `at`, having read `read`
    /// of its bytes and gone past `crossed` of the last page's regions:
    /// this page's regions before its match (the last page's before where
    /// the scan started, the scan's own, and, if it rejoined the last
    /// page's scan at `from` there, `shift` bytes later here, the last
    /// page's from there, moved), if it kept them. Then whether the next
    /// page's scan keeps its own, if that page `may_be_kept`.
    pub fn keep(
        &mut self,
        rejoined: Option<(usize, isize)>,
        may_be_kept: bool,
        (at, read, crossed): (usize, usize, usize),
    ) {
        if self.noting {
            match rejoined {
                Some((from, shift)) => self.keep_rejoined(from, shift),
                None => self.keep_scanned(at),
            }
        } else {
            self.last.clear();
        }
        self.note_next(may_be_kept, (at, read, crossed));
    }

    /// After the scan of a page that is not kept, which matched at `at`
    /// after reading `read` bytes and going past `crossed` regions: the
    /// last page's stay, and the next page's scan keeps its own only if
    /// that page `may_be_kept`, as [`Regions::keep`] decides.
    pub fn keep_last(&mut self, may_be_kept: bool, read: (usize, usize, usize)) {
        self.fresh.clear();
        self.note_next(may_be_kept, read);
    }

    /// Whether the next page's scan keeps its regions: where it may be
    /// kept, and this page's scan read most of it or went past many.
    fn note_next(&mut self, may_be_kept: bool, (at, read, crossed): (usize, usize, usize)) {
        self.noting = may_be_kept && (read * 2 >= at || crossed >= CROSSED_FOR_REGIONS);
        #[cfg(test)]
        {
            self.noting |= self.note_always;
        }
    }

    /// A page that is not kept.
    pub fn forget(&mut self) {
        self.last.clear();
        self.noting = false;
        #[cfg(test)]
        {
            self.noting = self.note_always;
        }
    }

    /// None kept, as at first, in the room of these.
    pub fn emptied(mut self) -> Regions {
        self.last.clear();
        self.fresh.clear();
        Regions {
            last: self.last,
            fresh: self.fresh,
            ..Regions::default()
        }
    }

    fn keep_scanned(&mut self, at: usize) {
        // Those in the match's tag are past the page kept.
        drop_from(&mut self.fresh, at);
        if self.before == 0 {
            std::mem::swap(&mut self.last, &mut self.fresh);
        } else {
            self.last.truncate(self.before);
            self.last.append(&mut self.fresh);
        }
    }

    fn keep_rejoined(&mut self, from: usize, shift: isize) {
        let rejoined_at = from.wrapping_add_signed(shift);
        let scanned = self
            .fresh
            .partition_point(|(region_from, _)| *region_from < rejoined_at);
        self.fresh.truncate(scanned);
        let after = self
            .last
            .partition_point(|(region_from, _)| *region_from < from);
        if shift != 0 {
            for (region_from, to) in &mut self.last[after..] {
                // After `from`, and `from + shift` is in the page.
                *region_from = region_from.wrapping_add_signed(shift);
                *to = to.wrapping_add_signed(shift);
            }
        }
        let before = self.before.min(after);
        self.last.splice(before..after, self.fresh.drain(..));
    }
}
