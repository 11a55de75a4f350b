//! The streamed wide reader and the compact usage storage (issue 14, large traces) against values computed
//! independently here: each token read by `str::parse` and divided by the unit's divisor, the decimal grid
//! counted from the text, the errors of reading the whole text first.

use packlab::input::InputFile;

use packlab::trace::{read_trace, write_wide, TraceFormat, UsageTrace};
use std::io::Write;

fn file(name: &str, bytes: Vec<u8>) -> Vec<InputFile> {
    vec![InputFile {
        name: name.into(),
        bytes,
    }]
}

fn wide(text: &str) -> Result<UsageTrace, packlab::input::TraceError> {
    read_trace(
        "t",
        &file("t.tsv", text.as_bytes().to_vec()),
        Some(TraceFormat::Wide),
    )
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A small deterministic generator (64-bit LCG, Knuth's MMIX constants).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A decimal token as people write them: 1–16 digits, maybe a point anywhere, maybe leading zeros.
fn token(r: &mut Lcg) -> String {
    let digits = 1 + r.below(16) as usize;
    let mut s: String = (0..digits)
        .map(|_| char::from(b'0' + r.below(10) as u8))
        .collect();
    match r.below(4) {
        0 => {}
        1 => s.insert(r.below(digits as u64 + 1) as usize, '.'),
        2 => s.insert(digits, '.'),
        _ => s.insert(0, '.'),
    }
    s
}

/// The independent reading: every token by `str::parse`, divided by `divisor`.
fn expected(rows: &[Vec<String>], divisor: f64) -> Vec<u64> {
    rows.iter()
        .flatten()
        .map(|t| (t.parse::<f64>().unwrap() / divisor).to_bits())
        .collect()
}

fn bits(t: &UsageTrace) -> Vec<u64> {
    t.usage.iter().map(f64::to_bits).collect()
}

#[test]
fn plain_decimal_tokens_read_as_str_parse_reads_them() {
    let mut r = Lcg(14);
    let rows: Vec<Vec<String>> = (0..400)
        .map(|_| (0..25).map(|_| token(&mut r)).collect())
        .collect();
    let mut text = String::from("#packlab-wide v1 unit=vm interval_s=60\n");
    for (i, row) in rows.iter().enumerate() {
        text.push_str(&format!("vm {i}\t{}\n", row.join(",")));
    }
    let t = wide(&text).unwrap();
    assert_eq!(bits(&t), expected(&rows, 1.0));
    assert_eq!(t.samples, 25);
    assert_eq!(t.items[7], "vm 7");
    // the same bytes gzip-compressed, read as a stream, give the same trace
    let z = read_trace("t", &file("t.tsv.gz", gz(text.as_bytes())), None).unwrap();
    assert_eq!(z, t);
}

#[test]
fn integer_and_one_decimal_percents_round_trip_in_one_or_two_bytes_a_value() {
    for decimals in [0u32, 1] {
        let mut r = Lcg(u64::from(decimals) + 1);
        let scale = 10u64.pow(decimals);
        let rows: Vec<Vec<String>> = (0..300)
            .map(|_| {
                (0..288)
                    .map(|_| {
                        let k = r.below(100 * scale + 1);
                        if decimals == 0 {
                            k.to_string()
                        } else {
                            format!("{}.{}", k / 10, k % 10)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut text = String::from("#packlab-wide v1 unit=percent interval_s=300\n");
        for (i, row) in rows.iter().enumerate() {
            text.push_str(&format!("vm{i}\t{}\r\n", row.join(",")));
            if i == 10 {
                text.push_str("# a comment\n\n   \n");
            }
        }
        let t = wide(&text).unwrap();
        assert_eq!(bits(&t), expected(&rows, 100.0), "{decimals} decimals");
        assert_eq!(t.grid.map(|g| g.decimals()), Some(decimals + 2));
        let per_value = t.usage.heap_bytes() as f64 / t.usage.len() as f64;
        assert!(
            per_value < 1.1 + decimals as f64,
            "{per_value} bytes a value"
        );
        // indexing, series views and to_vec agree with the iteration
        let all = t.usage.to_vec();
        assert_eq!(t.usage[288 * 5 + 17], all[288 * 5 + 17]);
        assert_eq!(t.series(5).to_vec(), all[288 * 5..288 * 6].to_vec());
        // written back (shortest round-trip percents) and read again: the same values
        let again = wide(&write_wide(&t, "")).unwrap();
        assert_eq!(bits(&again), bits(&t));
    }
}

#[test]
fn many_distinct_values_fall_back_to_plain_f64_with_the_same_values() {
    // 80,000 distinct values: more than 16-bit codes hold
    let rows: Vec<Vec<String>> = (0..800)
        .map(|i| {
            (0..100)
                .map(|t| format!("{}", (i * 100 + t) as f64 / 1000.0))
                .collect()
        })
        .collect();
    let mut text = String::from("#packlab-wide v1 unit=percent\n");
    for (i, row) in rows.iter().enumerate() {
        text.push_str(&format!("m{i}\t{}\n", row.join(",")));
    }
    let t = wide(&text).unwrap();
    assert_eq!(bits(&t), expected(&rows, 100.0));
    assert_eq!(t.usage.heap_bytes(), 8 * t.usage.len());
    assert_eq!(t.grid.map(|g| g.decimals()), Some(5));
}

#[test]
fn errors_are_those_of_reading_the_whole_text_first() {
    let head = "#packlab-wide v1 unit=percent\n";
    // a bad number on line 2, invalid UTF-8 on line 4: the UTF-8 error is reported, as before
    let mut bytes = format!("{head}a\t1,x\nb\t1,2\nc\t1,").into_bytes();
    bytes.extend(b"\xff\n");
    let e = read_trace("t", &file("t.tsv", bytes.clone()), None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.tsv:4:5: not UTF-8 text (is this a binary file?)"
    );
    // the same through gzip
    let e = read_trace("t", &file("t.tsv.gz", gz(&bytes)), None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.tsv.gz:4:5: not UTF-8 text (is this a binary file?)"
    );
    // no later error: the first parse error, with its column
    let e = wide(&format!("{head}ab\t1,2\nab\t1,,3\n")).unwrap_err();
    assert_eq!(e.to_string(), "t.tsv:3:6: '' is not a number");
    let e = wide(&format!("{head}ab\t1,2\nab\t1, 101\n")).unwrap_err();
    assert_eq!(e.to_string(), "t.tsv:3:6: usage '101' is out of range");
    let e = wide(&format!("{head}é\t1,2\nab\t1,1e400\n")).unwrap_err();
    assert_eq!(e.to_string(), "t.tsv:3:6: usage '1e400' is out of range");
    // a truncated gzip stream after a bad line: the gzip error
    let z = gz(format!("{head}a\t1,x\n{}", "b\t1,2\n".repeat(5000)).as_bytes());
    let e = read_trace("t", &file("t.tsv.gz", z[..z.len() - 12].to_vec()), None).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("t.tsv.gz", None));
    assert!(e.message.starts_with("not a valid gzip stream"), "{e}");
    // values that are not plain decimals still read as str::parse reads them
    let t = wide(&format!("{head}a\t 1.5 ,1e1,+2,0.0\n")).unwrap();
    assert_eq!(t.usage, vec![0.015, 0.1, 0.02, 0.0]);
}
