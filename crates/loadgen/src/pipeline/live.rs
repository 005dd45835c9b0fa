//! Progress while a run goes on. On a terminal: one live line, redrawn
//! every second, with elapsed and remaining time, current and mean req/s,
//! p99, errors and responses other than 2xx (a server shedding load answers
//! fast with 503s, which req/s counts). Elsewhere: h2load's
//! `progress: N% done` lines.

use indicatif::{ProgressBar, ProgressStyle};
use loadgen_core::interval::Interval;
use loadgen_core::plan::{Mode, Plan};
use std::time::Duration;

pub struct Live {
    bar: ProgressBar,
    total: Option<Duration>,
    responses: u64,
    errors: u64,
    not_2xx: u64,
    seconds: f64,
}

impl Live {
    /// A live line when stderr is a terminal; `None` otherwise.
    pub fn start(plan: &Plan) -> Option<Live> {
        if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            return None;
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("static template"));
        bar.enable_steady_tick(Duration::from_millis(200));
        let total = match plan.mode {
            Mode::Duration { duration, warm_up } => Some(duration + warm_up),
            Mode::Requests(_) => None,
        };
        bar.set_message("starting");
        Some(Live {
            bar,
            total,
            responses: 0,
            errors: 0,
            not_2xx: 0,
            seconds: 0.0,
        })
    }

    pub fn interval(&mut self, interval: &Interval) {
        let w = &interval.window;
        self.responses += w.responses;
        self.errors += w.errors;
        self.not_2xx += w.responses.saturating_sub(w.status_classes[2]);
        self.seconds = (interval.offset + interval.length).as_secs_f64();
        let length = interval.length.as_secs_f64().max(1e-9);
        let elapsed = interval.offset + interval.length;
        let remaining = match self.total {
            Some(total) => format!(", {}s left", total.saturating_sub(elapsed).as_secs()),
            None => String::new(),
        };
        self.bar.set_message(format!(
            "{}s{remaining} | {:.0} req/s now, {:.0} mean | p99 {} | {} errors | {} non-2xx",
            elapsed.as_secs(),
            w.responses as f64 / length,
            self.responses as f64 / self.seconds.max(1e-9),
            loadgen_report::units::duration_us(w.request_time.value_at_quantile(0.99) as f64),
            self.errors,
            self.not_2xx
        ));
    }

    /// A line on stderr above the live line.
    pub fn say(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
