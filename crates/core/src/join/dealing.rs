//! A share of a query cut by rows ([`crate::plan::RowShare`]): the driver makes the plan's
//! first tables whole, breadth-first, until one holds enough rows for every share or is the
//! widest it may deal ([`Plan::widest_dealt_table`]), then keeps of that table the rows its
//! share holds ([`Share::holds_row`]) and joins them on. The tables are every engine's, and
//! whole whatever runs the memory budget cuts them into, so every share deals the same one.
//!
//! [`Plan::widest_dealt_table`]: crate::plan::Plan::widest_dealt_table
//! [`Share::holds_row`]: crate::options::Share::holds_row

use std::ops::Range;

use super::{Driver, JoinBackend};
use crate::error::Result;
use crate::options::{RowsDealt, Share};

/// Where the join of a share cut by rows stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dealing {
    /// Not a share cut by rows.
    Off,
    /// Seeking the table to deal: every table so far whole, and of too few rows.
    Seeking,
    /// The table of `width` columns made whole on the host, run by run, while its rows are
    /// too few to deal.
    Gathering { width: usize },
    /// The table of `width` columns dealt: each of its runs keeps the share's rows.
    Dealt { width: usize },
}

impl Dealing {
    /// Whether the table of `width` columns comes before the dealt one: its rows must all
    /// reach that table, none counted on the way.
    pub(super) fn before(self, width: usize) -> bool {
        match self {
            Dealing::Off => false,
            Dealing::Seeking | Dealing::Gathering { .. } => true,
            Dealing::Dealt { width: dealt } => width < dealt,
        }
    }
}

impl<B: JoinBackend> Driver<'_, B> {
    /// [`Driver::extend`] as the share's dealing stands: `rows` of `table`, of `step`
    /// columns, joined on, dealt, or gathered.
    pub(super) fn extend_dealing(
        &mut self,
        step: usize,
        table: &B::Table,
        rows: Range<usize>,
    ) -> Result<()> {
        match self.dealing {
            Dealing::Off => self.extend_rows(step, table, rows),
            Dealing::Dealt { width } if width == step => self.deal(step, table, rows),
            Dealing::Dealt { .. } => self.extend_rows(step, table, rows),
            Dealing::Seeking => self.seek(step, table, rows),
            Dealing::Gathering { width } => self.gather(width, table, rows),
        }
    }

    /// Rows a table must hold to be dealt ([`crate::plan::RowShare::rows_to_deal`]).
    fn rows_to_deal(&self) -> f64 {
        self.plan
            .row_share
            .expect("a share cut by rows")
            .rows_to_deal()
    }

    /// A whole table of `step` columns and `rows` rows: dealt when it has enough rows or is
    /// the widest, else joined to the next table, made whole in turn.
    fn seek(&mut self, step: usize, table: &B::Table, rows: Range<usize>) -> Result<()> {
        let widest = self.plan.widest_dealt_table();
        if step >= widest || rows.len() as f64 >= self.rows_to_deal() {
            self.dealing = Dealing::Dealt { width: step };
            return self.deal(step, table, rows);
        }
        let next = step + 1;
        if next == widest {
            // The widest table: each of its runs is dealt as it comes.
            self.dealing = Dealing::Dealt { width: next };
            return self.extend_rows(step, table, rows);
        }
        self.dealing = Dealing::Gathering { width: next };
        self.extend_rows(step, table, rows)?;
        if self.dealing != (Dealing::Gathering { width: next }) {
            // Enough rows came, and were dealt.
            return Ok(());
        }
        let gathered = std::mem::take(&mut self.gathered);
        let bytes = 4 * gathered.len();
        let result = match self.stopped() {
            true => Ok(()),
            false => {
                self.dealing = Dealing::Seeking;
                let count = gathered.len() / next;
                let whole = self.backend.table_of(gathered)?;
                self.extend(next, &whole, 0..count)
            }
        };
        self.release(bytes);
        result
    }

    /// A run of the table of `width` columns being gathered: kept on the host until the
    /// table has enough rows, which then are dealt, those gathered first.
    fn gather(&mut self, width: usize, table: &B::Table, rows: Range<usize>) -> Result<()> {
        let run = self.backend.read_rows(width, table, rows)?;
        self.hold(4 * run.len());
        self.gathered.extend_from_slice(&run);
        drop(run);
        if ((self.gathered.len() / width) as f64) < self.rows_to_deal() {
            return Ok(());
        }
        self.dealing = Dealing::Dealt { width };
        let gathered = std::mem::take(&mut self.gathered);
        let bytes = 4 * gathered.len();
        let kept = self.share().rows_held(&gathered, width);
        self.dealt(width, gathered.len() / width, kept.len() / width);
        drop(gathered);
        let count = kept.len() / width;
        let result = self
            .backend
            .table_of(kept)
            .and_then(|table| self.extend_rows(width, &table, 0..count));
        self.release(bytes);
        result
    }

    /// The share's rows of `rows` of the dealt `table` (of `step` columns), joined on.
    fn deal(&mut self, step: usize, table: &B::Table, rows: Range<usize>) -> Result<()> {
        self.keep_share(step, table, rows, |driver, kept, count| {
            driver.extend_rows(step, kept, 0..count)
        })
    }

    /// Keeps of `rows` of `table` (of `width` columns) the rows of the plan's share, and
    /// goes on with them as `then` does.
    pub(super) fn keep_share(
        &mut self,
        width: usize,
        table: &B::Table,
        rows: Range<usize>,
        then: impl FnOnce(&mut Self, &B::Table, usize) -> Result<()>,
    ) -> Result<()> {
        let all = rows.len();
        let (kept, count) = self.backend.keep_rows(width, table, rows, self.share())?;
        self.dealt(width, all, count);
        let bytes = 4 * count * width;
        self.hold(bytes);
        let result = then(self, &kept, count);
        self.release(bytes);
        result
    }

    /// The share the plan's join keeps the rows of.
    fn share(&self) -> Share {
        self.plan.row_share.expect("a share cut by rows").share
    }

    /// Counts in the join's paths `rows` rows of the table of `width` columns dealt, `kept`
    /// of them kept.
    fn dealt(&mut self, width: usize, rows: usize, kept: usize) {
        let dealt = self.rows_dealt.get_or_insert(RowsDealt {
            width,
            ..RowsDealt::default()
        });
        dealt.rows += rows as u64;
        dealt.kept += kept as u64;
    }
}
