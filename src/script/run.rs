//! The state of one run of a user's script ([`ScriptRun`]): its operation budget and its first run-time
//! error, kept alike by every model's script policy (placement's fit test, oversubscription's rate,
//! admission's admit rule, lifetime's host score, era's quote).

use super::lang::{Budget, ScriptError};
use std::cell::{Cell, RefCell};

/// One run of a script (one packing, episode or simulation run): what is left of its operation budget
/// ([`Budget`]; [`super::Limits::run_operations`] by default) and its first run-time error. Once an error is
/// kept the run has failed for good: [`ScriptRun::guard`] then gives the caller's fallback without calling
/// the script (the model's documented behaviour: fit nothing, rate 1, reject, best fit, quote nothing).
///
/// Its methods take `&self` because placement's fit test and admission's rule are called through `&self`
/// traits; a run is on one thread (the type is not `Sync`).
#[derive(Debug)]
pub struct ScriptRun {
    budget: Budget,
    failed: Cell<bool>,
    error: RefCell<Option<ScriptError>>,
}

impl ScriptRun {
    /// A run with a budget of `ops` operations over all its calls.
    pub fn new(ops: u64) -> Self {
        ScriptRun {
            budget: Budget::new(ops),
            failed: Cell::new(false),
            error: RefCell::new(None),
        }
    }

    /// The run's budget, to pass to [`super::Script::call_in`] and its typed variants.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Operations the script has spent in this run so far.
    pub fn operations(&self) -> u64 {
        self.budget.spent()
    }

    /// Whether the script still runs (no error so far).
    pub fn ok(&self) -> bool {
        !self.failed.get()
    }

    /// Keeps `e` as the run's error if it is the first; the run has failed from then on.
    pub fn fail(&self, e: ScriptError) {
        if !self.failed.replace(true) {
            *self.error.borrow_mut() = Some(e);
        }
    }

    /// The run's first error, if any (and clears it; the run stays failed).
    pub fn take_error(&self) -> Option<ScriptError> {
        self.error.borrow_mut().take()
    }

    /// `call()`'s value while the run is ok; `fallback` once it has failed, or when `call` errs (its error
    /// is kept by [`ScriptRun::fail`]).
    pub fn guard<T>(&self, fallback: T, call: impl FnOnce() -> Result<T, ScriptError>) -> T {
        if !self.ok() {
            return fallback;
        }
        call().unwrap_or_else(|e| {
            self.fail(e);
            fallback
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first error stays, later ones are dropped; after it the fallback comes without a call.
    #[test]
    fn keeps_the_first_error_and_stops_calling() {
        let run = ScriptRun::new(10);
        assert_eq!(run.guard(0, || Ok(7)), 7);
        assert_eq!(run.guard(0, || Err(ScriptError::plain("first"))), 0);
        assert!(!run.ok());
        assert_eq!(
            run.guard(0, || unreachable!("a failed run calls nothing")),
            0
        );
        run.fail(ScriptError::plain("second"));
        assert_eq!(run.take_error().unwrap().message, "first");
        assert_eq!(
            (run.take_error(), run.ok(), run.operations()),
            (None, false, 0)
        );
    }
}
