//! Scripted scenarios at native speed: a scenario file (YAML or JSON) of
//! steps with templates, checks, extractors, cookies and redirects, run by
//! k6's executors through loadgen's own HTTP/1.1, HTTP/2 and HTTP/3
//! drivers, with an HDR histogram per step.

pub mod duration;
pub mod error;
pub mod file;
pub mod random;
pub mod template;

pub use error::ScenarioError;
pub mod check;
pub mod compile;
pub mod convert;
pub mod dom;
pub mod executor;
pub mod extract;
pub mod feeder;
pub mod iteration_values;
pub mod lane;
pub mod metrics;
pub mod origin;
pub mod redirect;
pub mod render;
pub mod response;
pub mod run;
pub mod scenario_clock;
pub mod segment;
pub mod share;
pub mod step_session;
pub mod suite;
pub mod thread;
pub mod urls;
pub mod vu;
