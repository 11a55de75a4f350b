//! Tests of the fit tests and spec strings against values by hand.

use super::*;

fn item(mean: f64, sd: f64) -> ItemStats {
    ItemStats {
        mean,
        var: sd * sd,
        size: mean,
    }
}

#[test]
fn parse_and_display() {
    assert_eq!(FitSpec::parse("gpa:0.05").unwrap(), FitSpec::Gpa(0.05));
    assert_eq!(FitSpec::parse(" Perc : 95 ").unwrap(), FitSpec::Perc(95.0));
    assert_eq!(FitSpec::parse("max").unwrap(), FitSpec::Max);
    assert_eq!(FitSpec::Cantelli(1.7).to_string(), "cantelli:1.7");
    assert_eq!(
        FitSpec::parse("GPA-Cal:0.01").unwrap(),
        FitSpec::GpaCal(0.01)
    );
    assert_eq!(FitSpec::GpaCal(0.001).to_string(), "gpa-cal:0.001");
    assert_eq!(
        serde_json::to_string(&Family::GpaCal).unwrap(),
        "\"gpa-cal\""
    );
    for bad in [
        "gpa",
        "gpa:0",
        "gpa:1",
        "gpa:NaN",
        "gpa:x",
        "av:0",
        "av:-1",
        "perc:101",
        "cantelli:-0.1",
        "max:3",
        "foo:1",
        "av:inf",
        "gpa-cal",
        "gpa-cal:0",
        "gpa-cal:1",
        "gpa-cal:-0.1",
        "gpa-cal:NaN",
    ] {
        assert!(FitSpec::parse(bad).is_err(), "{bad} should be rejected");
    }
    let j: FitSpec = serde_json::from_str("\"av:1.25\"").unwrap();
    assert_eq!(j, FitSpec::Av(1.25));
    assert!(serde_json::from_str::<FitSpec>("\"gpa:2\"").is_err());
}

#[test]
fn gpa_fit_by_hand() {
    // rho = 0.05: z = 1.6448536. Bin mean 0.5, sd 0.2; item mean 0.2, sd 0.1.
    // mu' = 0.7, sd' = sqrt(0.05) = 0.2236068; mu' + z sd' = 0.7 + 0.3678 = 1.0678 > 1 -> no fit.
    let g = Gpa::new(0.05);
    assert!((g.z - 1.6448536269514722).abs() < 1e-9);
    let bin = BinLoad {
        mean: 0.5,
        var: 0.04,
        size: 0.5,
        ..BinLoad::default()
    };
    assert!(!g.fits(&bin, &item(0.2, 0.1), 1.0));
    // with c = 1.07 it fits (1.0678 <= 1.07)
    assert!(g.fits(&bin, &item(0.2, 0.1), 1.07));
    // rho = 0.2: z = 0.8416212; 0.7 + 0.8416*0.2236 = 0.8882 <= 1 -> fits
    assert!(Gpa::new(0.2).fits(&bin, &item(0.2, 0.1), 1.0));
    // sigma' = 0: fits iff mu' <= c
    let zero = BinLoad {
        mean: 0.6,
        var: 0.0,
        size: 0.6,
        ..BinLoad::default()
    };
    assert!(g.fits(&zero, &item(0.4, 0.0), 1.0));
    assert!(!g.fits(&zero, &item(0.41, 0.0), 1.0));
    assert_eq!(g.best_fit_key(&zero, &item(0.4, 0.0), 1.0), f64::INFINITY);
    // key z = (c - mu')/sd' = 0.3/0.2236068 = 1.3416408
    assert!(
        (Gpa::new(0.2).best_fit_key(&bin, &item(0.2, 0.1), 1.0) - 1.3416407864998738).abs() < 1e-12
    );
}

#[test]
fn gpa_quantile_form_equals_cdf_form() {
    // ALGORITHMS.md §4.2: slack = rho - (1 - Phi((c - mu')/sd')) >= 0  <=>  mu' + z sd' <= c.
    let mut s: u64 = 12345;
    let mut u = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..20000 {
        let rho = 0.0005 + 0.4 * u();
        let (bm, bs, im, is) = (u(), 0.3 * u(), 0.3 * u(), 0.2 * u());
        let g = Gpa::new(rho);
        let bin = BinLoad {
            mean: bm,
            var: bs * bs,
            size: bm,
            ..BinLoad::default()
        };
        let it = item(im, is);
        let sd = (bs * bs + is * is).sqrt();
        let slack = rho - crate::substrate::stats::normal_sf((1.0 - bm - im) / sd);
        if slack.abs() > 1e-9 {
            assert_eq!(
                g.fits(&bin, &it, 1.0),
                slack >= 0.0,
                "rho {rho} bin {bm},{bs} item {im},{is}"
            );
        }
    }
}

#[test]
fn deterministic_sizes_by_hand() {
    let obs = [0.0, 0.1, 0.2, 0.3, 0.4];
    let (mean, sd) = (0.2, (0.02f64).sqrt());
    assert!((FitSpec::Av(1.25).test().item_size(mean, sd, &obs) - 0.25).abs() < 1e-15);
    assert!(
        (FitSpec::Cantelli(1.0).test().item_size(mean, sd, &obs) - (0.2 + 0.1414213562373095))
            .abs()
            < 1e-12
    );
    assert!((FitSpec::Perc(90.0).test().item_size(mean, sd, &obs) - 0.36).abs() < 1e-12);
    assert_eq!(FitSpec::Max.test().item_size(mean, sd, &obs), 0.4);
    let t = FitSpec::Av(1.0).test();
    let bin = BinLoad {
        mean: 0.0,
        var: 0.0,
        size: 0.7,
        ..BinLoad::default()
    };
    assert!(t.fits(
        &bin,
        &ItemStats {
            mean: 0.3,
            var: 0.0,
            size: 0.3
        },
        1.0
    ));
    assert!(!t.fits(
        &bin,
        &ItemStats {
            mean: 0.31,
            var: 0.0,
            size: 0.31
        },
        1.0
    ));
    assert!(
        (t.best_fit_key(
            &bin,
            &ItemStats {
                mean: 0.2,
                var: 0.0,
                size: 0.2
            },
            1.0
        ) - 0.1)
            .abs()
            < 1e-15
    );
}
