//! A light verdict checked as the join runs. The first walks judge a query light from 32
//! samples, and on a graph whose hubs hold the work they can miss them all (wordnet's
//! query_sparse_8_1: 4.9×10^5 partial matches estimated, 2.4 s joined on one CPU thread). The
//! join of a count judged light therefore runs for a budget about what planning costs; past
//! it, the query is planned again by sampling and joined anew (0.38 s). A verdict that was
//! right costs nothing, one that was wrong at most the budget.

use std::time::{Duration, Instant};

use super::{plan_query, Planned};
use crate::engine::Engine;
use crate::error::Result;
use crate::index::DataIndex;
use crate::options::{MatchOptions, Status};
use crate::report::MatchReport;
use crate::sink::MatchSink;

/// How long the join of `planned` may run before it is planned again: where its plan was
/// judged light and the count is whole (not a share, whose plan every share must cut alike;
/// not a listing or a limit, whose matches the join has handed on), the options' budget or
/// the engine's.
fn budget(
    planned: &Planned,
    engine: &dyn Engine,
    options: &MatchOptions,
    counting: bool,
) -> Option<Duration> {
    let checked = counting
        && planned.plan.choice.light
        && planned.answered.is_none()
        && options.limit.is_none()
        && options.share.is_none();
    checked
        .then(|| {
            options
                .light_join_budget
                .or_else(|| engine.light_join_budget())
        })
        .flatten()
}

impl Planned {
    /// Joins the whole query on `engine`; where [`budget`] gives one and the join runs past
    /// it (and not past the caller's own stops), plans the query again by sampling and joins
    /// that plan, its report's times counting the first attempt's. A budget past the clock's
    /// range (`never`) is none.
    pub(crate) fn join_checking_light(
        &self,
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<MatchReport> {
        let counting = !sink.wants_matches();
        let until = budget(self, engine, options, counting)
            .and_then(|budget| Instant::now().checked_add(budget));
        let Some(until) = until else {
            return self.join(engine, data, options, options.share, sink);
        };
        let within_budget = MatchOptions {
            deadline: Some(options.deadline.map_or(until, |d| d.min(until))),
            ..options.clone()
        };
        let first = self.join(engine, data, &within_budget, None, sink)?;
        if first.status != Status::Timeout || options.stop().is_some() {
            return Ok(first);
        }
        let sampled = MatchOptions {
            heavy_query_work: 0.0,
            ..options.clone()
        };
        let mut report = plan_query(engine, &self.query, data, &sampled, counting)?
            .join(engine, data, options, None, sink)?;
        report.plan.choice.planned_again_after = Some(first.times.join);
        report.times.filter += first.times.filter;
        report.times.plan += first.times.plan;
        report.times.join += first.times.join;
        Ok(report)
    }
}
