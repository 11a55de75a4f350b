use super::*;

const F: Hook = Hook {
    name: "f",
    params: &["x", "y"],
    required: true,
};

fn compile(src: &str) -> Result<Script, ScriptError> {
    Script::compile(src, &[F], &Limits::default())
}

#[test]
fn calls_with_numbers() {
    let s = compile("fn f(x, y) { x * y + 1.5 }").unwrap();
    assert_eq!(s.call_f64("f", [2.0, 3.0]).unwrap(), 7.5);
    let b = compile("fn f(x, y) { x < y }").unwrap();
    assert!(b.call_bool("f", [1.0, 2.0]).unwrap());
    assert!(!b.call_bool("f", [2.0, 1.0]).unwrap());
}

#[test]
fn syntax_error_at_line_and_column() {
    let e = compile("fn f(x, y) {\n  let a = x +* y;\n  a\n}").unwrap_err();
    assert_eq!((e.line, e.column), (Some(2), Some(14)), "{e}");
    assert!(e.to_string().starts_with("line 2, column 14: "), "{e}");
}

#[test]
fn missing_or_wrong_hook() {
    let e = compile("fn g(x, y) { x }").unwrap_err();
    assert!(e.message.contains("defines no 'f'"), "{e}");
    let e = compile("fn f(x) { x }").unwrap_err();
    assert!(e.message.contains("takes 1 argument(s)"), "{e}");
}

#[test]
fn endless_loop_stops_at_the_operation_limit() {
    let s = compile("fn f(x, y) {\n  loop { x += 1.0; }\n}").unwrap();
    let e = s.call_f64("f", [0.0, 0.0]).unwrap_err();
    // Rhai gives this error no place: the message names the function
    assert!(
        e.message.contains("'f' ran over the operation limit"),
        "{e}"
    );
}

#[test]
fn deep_recursion_and_huge_values_stop() {
    let s = compile("fn f(x, y) { f(x, y) }").unwrap();
    let e = s.call_f64("f", [0.0, 0.0]).unwrap_err();
    assert!(e.message.contains("too deep"), "{e}");
    let s = compile("fn f(x, y) { let a = []; a.pad(1000000000, 0); a.len() }").unwrap();
    assert!(s.call_f64("f", [0.0, 0.0]).is_err());
    let s = compile("fn f(x, y) { let s = \"ab\"; loop { s += s; } }").unwrap();
    assert!(s.call_f64("f", [0.0, 0.0]).is_err());
}

#[test]
fn no_eval_no_top_level_rerun() {
    let e = compile("fn f(x, y) { eval(\"1\") }").unwrap_err();
    assert_eq!(e.line, Some(1), "{e}");
    // the top level runs never at a call: a loop there costs nothing
    let s = compile("loop {}\nfn f(x, y) { x }").unwrap();
    assert_eq!(s.call_f64("f", [4.0, 0.0]).unwrap(), 4.0);
}

#[test]
fn math_is_libm_and_quantile_is_the_engines() {
    let s = compile("fn f(x, y) { exp(x) + ln(y) }").unwrap();
    assert_eq!(
        s.call_f64("f", [0.3, 2.5]).unwrap().to_bits(),
        (libm::exp(0.3) + libm::log(2.5)).to_bits()
    );
    let q = compile("fn f(x, y) { normal_quantile(1.0 - x) }").unwrap();
    assert_eq!(
        q.call_f64("f", [0.05, 0.0]).unwrap().to_bits(),
        crate::substrate::stats::normal_quantile(1.0 - 0.05).to_bits()
    );
}

#[test]
fn wrong_result_type_is_an_error() {
    let s = compile("fn f(x, y) { \"no\" }").unwrap();
    assert!(s
        .call_f64("f", [0.0, 0.0])
        .unwrap_err()
        .message
        .contains("a number is needed"));
    assert!(s
        .call_bool("f", [0.0, 0.0])
        .unwrap_err()
        .message
        .contains("true or false"));
}

#[test]
fn oversized_source_is_refused() {
    let src = format!("fn f(x, y) {{ x }}\n//{}", "a".repeat(MAX_SOURCE_BYTES));
    assert!(compile(&src).unwrap_err().message.contains("at most"));
}

/// A run's budget: each call's operations are taken from it, the call that would overspend it stops with a
/// message naming the budget, and every later call of the run is refused at once; the run never spends
/// more than the budget.
#[test]
fn a_run_stops_at_its_operation_budget() {
    // 1 000 turns of ~6 operations: about 6 000 per call, far under the per-call limit
    let s = compile("fn f(x, y) {\n  let i = 0;\n  while i < 1000 { i += 1; }\n  x\n}").unwrap();
    let per_call = {
        let b = Budget::new(u64::MAX);
        s.call_f64_in(&b, "f", [1.0, 0.0]).unwrap();
        b.spent()
    };
    assert!((3_000..10_000).contains(&per_call), "{per_call}");
    let budget = Budget::new(10 * per_call + per_call / 2);
    for _ in 0..10 {
        assert_eq!(s.call_f64_in(&budget, "f", [1.0, 0.0]).unwrap(), 1.0);
    }
    let e = s.call_f64_in(&budget, "f", [1.0, 0.0]).unwrap_err();
    assert!(e.message.contains("operation budget of one run"), "{e}");
    assert!(budget.spent() <= 10 * per_call + per_call / 2);
    let e = s.call_f64_in(&budget, "f", [1.0, 0.0]).unwrap_err();
    assert!(e.message.contains("operation budget of one run"), "{e}");
    // without a budget (Script::call) the same script runs on
    assert_eq!(s.call_f64("f", [2.0, 0.0]).unwrap(), 2.0);
}
