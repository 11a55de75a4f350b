//! The language: compiling a script, its limits and operation budget, calling its hooks, its errors
//! ([`crate::script`] has the overview).

use rhai::{CallFnOptions, Dynamic, Engine, EvalAltResult, Position, Scope, AST};
use serde::Serialize;
use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The language a script is written in, as recorded with it in scenarios and links (bumped when a change of
/// the language or of a hook's arguments could change a saved script's numbers).
pub const LANGUAGE: &str = "rhai-1";

/// The ahash seed of every Rhai engine (any fixed value: it only has to be the same everywhere).
pub const HASH_SEED: [u64; 4] = [0x7061_636b, 0x6c61_6221, 0x0031, 0x0002];

/// Largest script accepted, in bytes (a share link carries it).
pub const MAX_SOURCE_BYTES: usize = 20_000;

/// The limits every call of a script runs under.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Operations per call (Rhai counts one per statement, expression node and loop turn).
    pub operations: u64,
    /// Depth of nested function calls (recursion).
    pub call_levels: usize,
    /// Nesting depth of expressions (and of statements) in the source.
    pub expr_depth: usize,
    /// Characters in any string.
    pub string_size: usize,
    /// Elements in any array.
    pub array_size: usize,
    /// Operations over all the calls of one run ([`Budget`]): a model's run (one packing, one episode)
    /// stops when its script has spent them.
    pub run_operations: u64,
}

impl Default for Limits {
    /// 50 000 operations per call (GPA's fit test takes about 20), 16 nested calls, depth 32, strings of
    /// 1 000 characters, arrays of 100 000 elements (a percentile test reads up to `placement` R observations),
    /// RUN_OPERATIONS per run.
    fn default() -> Self {
        Limits {
            operations: 50_000,
            call_levels: 16,
            expr_depth: 32,
            string_size: 1_000,
            array_size: 100_000,
            run_operations: RUN_OPERATIONS,
        }
    }
}

/// The default operation budget of one run, [`Limits::run_operations`]: 20 million, about 30 times what the
/// starter GPA spends packing the whole PlanetLab day (0.61–0.64 M over ~30 000 calls of `fits`), and 400
/// calls at the per-call limit.
pub const RUN_OPERATIONS: u64 = 20_000_000;

/// The operations a run's script may still spend (shared by the threads of that run). Each call is cut at
/// the smaller of the per-call limit and what is left, so a run never spends more than its budget.
#[derive(Debug)]
pub struct Budget {
    total: u64,
    left: AtomicU64,
}

impl Budget {
    /// A budget of `ops` operations.
    pub fn new(ops: u64) -> Self {
        Budget {
            total: ops,
            left: AtomicU64::new(ops),
        }
    }

    /// Operations spent so far.
    pub fn spent(&self) -> u64 {
        self.total - self.left.load(Ordering::Relaxed)
    }

    fn spend(&self, ops: u64) {
        let _ = self
            .left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| {
                Some(l.saturating_sub(ops))
            });
    }
}

thread_local! {
    /// The running call's operations so far and its cap (what is left of its run's budget), set by
    /// [`Script::call_in`] and read by the engine's progress callback (a call runs on one thread).
    static CALL: (Cell<u64>, Cell<u64>) = const { (Cell::new(0), Cell::new(u64::MAX)) };
}

/// A function a model calls in a script: its name and its arguments' names, in order.
#[derive(Clone, Copy, Debug)]
pub struct Hook {
    /// Function name.
    pub name: &'static str,
    /// Argument names (documented by the model).
    pub params: &'static [&'static str],
    /// Whether a script must define it.
    pub required: bool,
}

/// An error of a script: where (1-based line and column, when known) and what.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScriptError {
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl ScriptError {
    fn at(pos: Position, message: String) -> Self {
        ScriptError {
            line: pos.line(),
            column: pos.position(),
            message,
        }
    }
    /// An error without a place (a hook's value the model rejects, a spent budget).
    pub fn plain(message: impl Into<String>) -> Self {
        ScriptError {
            line: None,
            column: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ScriptError {
    /// `line L, column C: message` (as much of the place as is known).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            (Some(l), None) => write!(f, "line {l}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

/// A compiled script: its engine (with the limits) and its functions. `Send + Sync`: one compiled script
/// serves every thread of a run. In a build without the cargo feature `scripts` there is none
/// ([`Script::compile`] fails), so no code of the language is compiled into that build (issue 30).
pub struct Script {
    inner: Compiled,
}

#[cfg(feature = "scripts")]
struct Compiled {
    engine: Engine,
    ast: AST,
}

/// No compiled script exists in a build without the language.
#[cfg(not(feature = "scripts"))]
enum Compiled {}

/// The error of [`Script::compile`] in a build without the cargo feature `scripts`.
pub const NOT_IN_BUILD: &str =
    "user scripts are not in this build of the engine (cargo feature scripts)";

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Script").finish_non_exhaustive()
    }
}

/// A sandboxed engine with `limits`: the standard functions minus `eval` and output, with the libm math.
#[cfg_attr(not(feature = "scripts"), allow(dead_code))]
fn engine(limits: &Limits) -> Engine {
    static SEED: std::sync::Once = std::sync::Once::new();
    SEED.call_once(|| {
        // an Err means the seed was already set (by us): nothing to do
        let _ = rhai::config::hashing::set_hashing_seed(Some(HASH_SEED));
    });
    let mut e = Engine::new();
    e.set_max_operations(limits.operations)
        .set_max_call_levels(limits.call_levels)
        .set_max_expr_depths(limits.expr_depth, limits.expr_depth)
        .set_max_string_size(limits.string_size)
        .set_max_array_size(limits.array_size)
        .set_max_variables(1_000)
        .set_max_functions(100)
        .on_progress(|ops| {
            CALL.with(|(n, cap)| {
                n.set(ops);
                // Some ends the call (ErrorTerminated): the run's budget is spent
                (ops > cap.get()).then_some(Dynamic::UNIT)
            })
        })
        .on_print(|_| {})
        .on_debug(|_, _, _| {});
    e.disable_symbol("eval");
    // libm's math, bit-identical natively and in wasm (std's calls the platform's libm natively)
    e.register_fn("exp", libm::exp)
        .register_fn("ln", libm::log)
        .register_fn("log", libm::log10)
        .register_fn("sin", libm::sin)
        .register_fn("cos", libm::cos)
        .register_fn("tan", libm::tan)
        .register_fn("pow", libm::pow)
        .register_fn("normal_quantile", crate::substrate::stats::normal_quantile);
    e
}

impl Script {
    /// The engine and the functions (a build without the language has no script to ask).
    fn parts(&self) -> (&Engine, &AST) {
        #[cfg(feature = "scripts")]
        return (&self.inner.engine, &self.inner.ast);
        #[cfg(not(feature = "scripts"))]
        match self.inner {}
    }

    /// Compiles `source` under `limits` and checks that it defines every required hook of `hooks` with its
    /// number of arguments (an optional hook, if defined, must have it too). Errors: a source over
    /// [`MAX_SOURCE_BYTES`], a syntax error (at its line and column), a missing hook or a wrong arity (at the
    /// function's line); in a build without the cargo feature `scripts`, [`NOT_IN_BUILD`] for any source.
    pub fn compile(source: &str, hooks: &[Hook], limits: &Limits) -> Result<Script, ScriptError> {
        if !cfg!(feature = "scripts") {
            return Err(ScriptError::plain(NOT_IN_BUILD));
        }
        if source.len() > MAX_SOURCE_BYTES {
            return Err(ScriptError::plain(format!(
                "the script has {} bytes; at most {MAX_SOURCE_BYTES} are accepted",
                source.len()
            )));
        }
        let engine = engine(limits);
        let ast = engine
            .compile(source)
            .map_err(|e| ScriptError::at(e.1, e.0.to_string()))?;
        for h in hooks {
            let defs: Vec<_> = ast.iter_functions().filter(|f| f.name == h.name).collect();
            let want = h.params.len();
            if defs.iter().any(|f| f.params.len() == want) {
                continue;
            }
            let signature = format!("fn {}({})", h.name, h.params.join(", "));
            if let Some(f) = defs.first() {
                return Err(ScriptError::plain(format!(
                    "'{}' takes {} argument(s) here; the hook is {signature}",
                    h.name,
                    f.params.len()
                )));
            }
            if h.required {
                return Err(ScriptError::plain(format!(
                    "the script defines no '{}'; write {signature} {{ … }}",
                    h.name
                )));
            }
        }
        #[cfg(feature = "scripts")]
        let script = Ok(Script {
            inner: Compiled { engine, ast },
        });
        #[cfg(not(feature = "scripts"))]
        let script = {
            let _ = (engine, ast);
            Err(ScriptError::plain(NOT_IN_BUILD))
        };
        script
    }

    /// Whether the script defines `name` with `arity` arguments.
    pub fn defines(&self, name: &str, arity: usize) -> bool {
        self.parts()
            .1
            .iter_functions()
            .any(|f| f.name == name && f.params.len() == arity)
    }

    /// Calls `name(args…)` (the script's top level is not run again; a call sees only its arguments) and
    /// returns its value. Errors: a runtime error (the operation limit, a call too deep, a value too large,
    /// a type mismatch…) at its line and column.
    pub fn call(&self, name: &str, args: impl rhai::FuncArgs) -> Result<Dynamic, ScriptError> {
        let mut scope = Scope::new();
        let opts = CallFnOptions::new().eval_ast(false).rewind_scope(true);
        CALL.with(|(n, cap)| {
            n.set(0);
            cap.set(u64::MAX);
        });
        let (engine, ast) = self.parts();
        engine
            .call_fn_with_options::<Dynamic>(opts, &mut scope, ast, name, args)
            .map_err(|e| runtime_error(name, *e, None))
    }

    /// [`Script::call`] within a run's `budget`: the call's operations are taken from it, and a call that
    /// would overspend it stops with an error naming the budget.
    pub fn call_in(
        &self,
        budget: &Budget,
        name: &str,
        args: impl rhai::FuncArgs,
    ) -> Result<Dynamic, ScriptError> {
        let left = budget.left.load(Ordering::Relaxed);
        if left == 0 {
            return Err(ScriptError::plain(over_budget(name, budget.total)));
        }
        let mut scope = Scope::new();
        let opts = CallFnOptions::new().eval_ast(false).rewind_scope(true);
        CALL.with(|(n, cap)| {
            n.set(0);
            cap.set(left);
        });
        let (engine, ast) = self.parts();
        let r = engine.call_fn_with_options::<Dynamic>(opts, &mut scope, ast, name, args);
        budget.spend(CALL.with(|(n, _)| n.get()));
        r.map_err(|e| runtime_error(name, *e, Some(budget.total)))
    }

    /// [`Script::call`] for a number: an integer result is converted; anything else is an error.
    pub fn call_f64(&self, name: &str, args: impl rhai::FuncArgs) -> Result<f64, ScriptError> {
        as_f64(name, self.call(name, args)?)
    }

    /// [`Script::call_in`] for a number, as [`Script::call_f64`].
    pub fn call_f64_in(
        &self,
        budget: &Budget,
        name: &str,
        args: impl rhai::FuncArgs,
    ) -> Result<f64, ScriptError> {
        as_f64(name, self.call_in(budget, name, args)?)
    }

    /// [`Script::call`] for a boolean (`true`/`false` only).
    pub fn call_bool(&self, name: &str, args: impl rhai::FuncArgs) -> Result<bool, ScriptError> {
        as_bool(name, self.call(name, args)?)
    }

    /// [`Script::call_in`] for a boolean, as [`Script::call_bool`].
    pub fn call_bool_in(
        &self,
        budget: &Budget,
        name: &str,
        args: impl rhai::FuncArgs,
    ) -> Result<bool, ScriptError> {
        as_bool(name, self.call_in(budget, name, args)?)
    }
}

/// A hook's value as a number: an integer is converted; anything else is an error.
fn as_f64(name: &str, v: Dynamic) -> Result<f64, ScriptError> {
    if let Ok(x) = v.as_float() {
        Ok(x)
    } else if let Ok(i) = v.as_int() {
        Ok(i as f64)
    } else {
        Err(ScriptError::plain(format!(
            "'{name}' returned {} ({}); a number is needed",
            v,
            v.type_name()
        )))
    }
}

/// A hook's value as a boolean (`true`/`false` only).
fn as_bool(name: &str, v: Dynamic) -> Result<bool, ScriptError> {
    v.as_bool().map_err(|_| {
        ScriptError::plain(format!(
            "'{name}' returned {} ({}); true or false is needed",
            v,
            v.type_name()
        ))
    })
}

/// The message of a spent run budget of `total` operations.
fn over_budget(name: &str, total: u64) -> String {
    format!(
        "'{name}' ran over the operation budget of one run ({total} operations over all its calls): \
         the script does too much per call"
    )
}

/// A runtime error in words, at the innermost position; the operation limit and the call depth say which
/// limit was hit.
fn runtime_error(name: &str, e: EvalAltResult, budget: Option<u64>) -> ScriptError {
    let inner = e.unwrap_inner();
    // the innermost place, else the call's (the operation limit has none of its own)
    let pos = if inner.position().is_none() {
        e.position()
    } else {
        inner.position()
    };
    let message = match inner {
        EvalAltResult::ErrorTerminated(..) if budget.is_some() => {
            over_budget(name, budget.unwrap_or_default())
        }
        EvalAltResult::ErrorTooManyOperations(_) => {
            format!("'{name}' ran over the operation limit of one call (an endless loop?)")
        }
        EvalAltResult::ErrorStackOverflow(_) => {
            format!("'{name}' nests calls too deep (endless recursion?)")
        }
        other => {
            // Rhai's text ends with " (line L, position C)": the place is in the fields instead
            let text = other.to_string();
            let place = format!(" ({pos})");
            format!(
                "in '{name}': {}",
                text.strip_suffix(&place).unwrap_or(&text)
            )
        }
    };
    ScriptError::at(pos, message)
}

#[cfg(test)]
mod tests;
