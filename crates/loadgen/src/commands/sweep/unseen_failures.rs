//! A knee search whose objectives do not count 4xx/5xx responses calls a
//! server that sheds load with 503s healthy at any rate: `errors` counts
//! transport errors only, and every 503 is a response in `req/s`. Said once,
//! at the first probe where such responses are 1% or more.

use loadgen_core::Report;
use loadgen_report::threshold::Threshold;

/// The share of responses from which the warning is given.
const SHARE: f64 = 0.01;

pub struct UnseenFailures {
    /// The objectives, as written, when none of them counts 4xx/5xx.
    blind: Option<String>,
    warned: bool,
}

impl UnseenFailures {
    pub fn new(slos: &[Threshold]) -> UnseenFailures {
        let blind = !slos.iter().any(Threshold::counts_failed_responses);
        let objectives = slos
            .iter()
            .map(|s| s.expression.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        UnseenFailures {
            blind: blind.then_some(objectives),
            warned: false,
        }
    }

    /// The warning for this probe's report, the first time one is due.
    pub fn check(&mut self, rate: f64, report: &Report) -> Option<String> {
        let objectives = self.blind.as_ref()?;
        let responses = report.responses();
        let failed = report.requests.failed_status;
        if self.warned || responses == 0 || (failed as f64) < SHARE * responses as f64 {
            return None;
        }
        self.warned = true;
        let codes: Vec<String> = report
            .status_codes
            .by_code
            .iter()
            .filter(|(code, _)| code.parse::<u16>().map_or(true, |c| c >= 400))
            .map(|(code, count)| format!("{code}: {count}"))
            .collect();
        Some(format!(
            "warning: at --rate {rate:.1}, {:.1}% of the responses were 4xx/5xx ({}), which \
             {objectives} do not count; an objective on 'failed' (e.g. --slo 'failed<0.5%') does",
            failed as f64 * 100.0 / responses as f64,
            codes.join(", ")
        ))
    }
}
