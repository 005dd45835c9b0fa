//! One module per subcommand, each a thin step: its flags (beside it, or
//! in `args/` when shared) made into a run handed to the pipeline.

pub mod bench;
pub mod completions;
pub mod convert;
pub mod demo;
pub mod distributed;
pub mod grpc;
pub mod man;
pub mod merge;
pub mod report;
pub mod run;
pub mod serve;
pub mod sweep;
pub mod worker;
