//! Why a distributed run could not be made: one line, and whether the
//! caller's input was at fault (a refused token, a plan a worker refused,
//! a worker URL that is not one) or something failed on the way.

use http::StatusCode;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerError {
    /// The input was at fault (the command line's exit 2), not the run.
    pub usage: bool,
    pub message: String,
}

impl ControllerError {
    pub fn usage(message: impl Into<String>) -> ControllerError {
        ControllerError {
            usage: true,
            message: message.into(),
        }
    }

    pub fn failure(message: impl Into<String>) -> ControllerError {
        ControllerError {
            usage: false,
            message: message.into(),
        }
    }

    /// A worker's refusal: what was asked is at fault for a 4xx (a wrong
    /// token, a plan over its bounds or outside its allowed targets), but
    /// not for a busy worker (409) or one that cannot do it (5xx).
    pub fn refused(status: StatusCode, message: String) -> ControllerError {
        let usage = status.is_client_error() && status != StatusCode::CONFLICT;
        ControllerError { usage, message }
    }

    /// The same error, said of one worker.
    pub fn of_worker(self, url: &str) -> ControllerError {
        ControllerError {
            message: format!("worker {url}: {}", self.message),
            ..self
        }
    }
}

impl fmt::Display for ControllerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ControllerError {}
