//! Azure readers, the derived arrivals bundle and the App. B maximum-likelihood fits (seed 000;
//! src/trace/azure.rs, src/models/admission/fit.rs).

use packlab::input::gzip;
use packlab::models::admission::fit::{
    fit_azure_arrivals, fit_exponential, fit_lambda_prior, fit_vmtable, lambda_marginal_loglik,
    FitOptions, LifetimeObs,
};
use packlab::models::admission::params::{AdmitParams, InitialSize};
use packlab::substrate::rng;
use packlab::workload::azure::arrivals::*;
use packlab::workload::azure::vmtable::*;

const ARR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/azure-v1-vm-arrivals-bergsma-sosp21"
);
const V1: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/azure-v1-excerpt-opendc/vmtable.csv"
);
const V2: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/azure-v2-20vm-cpu-readings"
);
const BUNDLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/static/traces/azure2017-arrivals.txt.gz"
);

fn load_folder() -> AzureArrivals {
    let mut files = Vec::new();
    for sub in ["maps", "traces"] {
        let mut names: Vec<_> = std::fs::read_dir(format!("{ARR}/{sub}"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        for p in names {
            files.push((
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    read_arrivals_files("azure-v1-vm-arrivals-bergsma-sosp21", &files).unwrap()
}

#[test]
fn arrivals_counts_match_source_md() {
    let d = load_folder();
    assert_eq!(d.flavours.flavours.len(), 16);
    assert_eq!(d.flavours.get('d').unwrap().cores, 16);
    assert_eq!(d.intervals.len(), 46);
    assert_eq!(d.intervals.bins[13], (3900, 7200));
    assert_eq!(d.intervals.bins[36], (86_700, 172_800));
    assert_eq!(d.intervals.bin_of(5_000_000), 45);
    let names: Vec<_> = d.splits.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["dev", "test"]);
    let (dev, test) = (&d.splits[0], &d.splits[1]);
    assert_eq!(
        (
            dev.vm_count(),
            dev.batches.len(),
            dev.censored_count(),
            dev.lines
        ),
        (259_159, 53_109, 14_317, 1000)
    );
    assert_eq!(
        (
            test.vm_count(),
            test.batches.len(),
            test.censored_count(),
            test.lines
        ),
        (410_276, 82_946, 23_311, 1638)
    );
    assert_eq!(
        (dev.start_s, dev.end_s, dev.cut_s),
        (1_800_000, 2_100_000, 2_100_000)
    );
    assert_eq!(
        (test.start_s, test.end_s, test.cut_s),
        (2_100_000, 2_591_400, 2_591_400)
    );
    // first line of dev: "1800000 m,|,a,|,g×7,k,k,g×4,k,k,|..."
    assert_eq!(dev.batches[0].vms.len(), 1);
    assert_eq!(dev.batches[0].cores(), 8);
    assert_eq!(dev.batches[2].cores(), 7 * 2 + 2 * 4 + 4 * 2 + 2 * 4);
}

#[test]
fn malformed_inputs_name_file_line_column() {
    let e = read_flavour_sequence("f.txt", "0 a,|\n300 a,xy,|\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "f.txt:2:7: token 'xy' is not a flavour letter or '|'"
    );
    let e = read_flavour_sequence("f.txt", "0 a,|\n300 a,b\n").unwrap_err();
    assert_eq!((e.line, e.file.as_str()), (Some(2), "f.txt"));
    assert!(e.message.contains("not closed"), "{e}");
    let e = read_flavour_sequence("f.txt", "300 a,|\n0 a,|\n").unwrap_err();
    assert_eq!((e.line, e.column), (Some(2), Some(1)));
    let e = read_lifetime_sequence("l.c600.txt", "0 U1,|\n300 U1,Cx,|\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "l.c600.txt:2:9: bin 'x' in token 'Cx' is not a non-negative integer"
    );
    let e = read_interval_map("m.txt", "0 0\n300 1\n300 1\n").unwrap_err();
    assert_eq!((e.line, e.column), (Some(3), Some(1)));
    let e = read_flav_map("fm.txt", "1,0.75 a\n1,x b\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "fm.txt:2:3: memory 'x' is not a non-negative number"
    );
    // misaligned flavour and lifetime files
    let fm = read_flav_map("fm", "1,1 a\n").unwrap();
    let im = read_interval_map("im", "0 0\n300 1\n600 2\n").unwrap();
    let f = read_flavour_sequence("f.txt", "0 a,a,|\n").unwrap();
    let l = read_lifetime_sequence("l.c600.txt", "0 U1,|\n").unwrap();
    let e = join_arrivals("x", "f.txt", &f, "l.c600.txt", &l, 600, &fm, &im).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("l.c600.txt", Some(1)));
    let l = read_lifetime_sequence("l.c600.txt", "0 C1,U0,|\n").unwrap();
    let e = join_arrivals("x", "f.txt", &f, "l.c600.txt", &l, 600, &fm, &im).unwrap_err();
    assert!(e.message.contains("censored bin C1"), "{e}");
    // vmtable
    let e = read_vmtable(
        "vt.csv",
        "a,b,c,0,300,1,1,1,Interactive,1,1.75\na,b,c,x,300,1,1,1,Interactive,1,1.75\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "vt.csv:2:7: vmcreated 'x' is not a non-negative integer"
    );
    let e = read_vmtable("vt.csv", "a,b,c,0,300\n").unwrap_err();
    assert_eq!((e.line, e.column), (Some(1), Some(1)));
    let e = read_arrivals_bundle("b.txt", b"#packlab-azure-arrivals v1 source=x\n#flavours a=1,1\n#bins 0-0 300-300\n#split s start=0 end=600 cut=600 lines=2\n0 a1,q*2\n").unwrap_err();
    assert_eq!((e.line, e.column), (Some(5), Some(6)), "{e}");
}

#[test]
fn vmtable_excerpts_both_schemas() {
    let t = read_vmtable("vmtable.csv", &std::fs::read_to_string(V1).unwrap()).unwrap();
    assert_eq!(
        (t.schema, t.header, t.rows.len()),
        (VmtableSchema::V1_2017, false, 10)
    );
    let subs: std::collections::BTreeSet<_> = t.rows.iter().map(|r| &r.tenant).collect();
    let deps: std::collections::BTreeSet<_> = t.rows.iter().map(|r| &r.deployment).collect();
    assert_eq!((subs.len(), deps.len()), (4, 5));
    assert_eq!(t.rows.iter().filter(|r| r.created_s > 0.0).count(), 3);
    assert_eq!(t.rows.iter().filter(|r| r.is_censored()).count(), 6);
    assert_eq!(
        (t.rows[0].cores, t.rows[0].memory_gb, t.rows[3].cores),
        (1.0, 1.75, 8.0)
    );
    for f in ["deep_study_vms_metadata.csv", "selected_vms_500.csv"] {
        let t2 = read_vmtable(f, &std::fs::read_to_string(format!("{V2}/{f}")).unwrap()).unwrap();
        assert_eq!((t2.schema, t2.header), (VmtableSchema::V2_2019, true));
        assert_eq!(t2.rows.len(), if f.starts_with("deep") { 20 } else { 500 });
        // every VM lives through the whole month: no deployment arrives inside the trace
        assert!(fit_vmtable(&t2, &FitOptions::default())
            .unwrap_err()
            .contains("no deployment arrives"));
    }
    let t5 = read_vmtable(
        "s.csv",
        &std::fs::read_to_string(format!("{V2}/selected_vms_500.csv")).unwrap(),
    )
    .unwrap();
    let cores: Vec<u32> = [2.0, 4.0, 8.0, 24.0]
        .iter()
        .map(|c| t5.rows.iter().filter(|r| r.cores == *c).count() as u32)
        .collect();
    assert_eq!(cores, [380, 91, 27, 2]);
    // V1 fit: the deployments whose first VM was created after 0 s; hand-computed rate and sizes
    let deps = packlab::models::admission::fit::vmtable_deployments(&t, &FitOptions::default());
    let late: std::collections::BTreeSet<_> = {
        let mut first = std::collections::BTreeMap::new();
        for r in &t.rows {
            let e = first.entry(&r.deployment).or_insert(f64::MAX);
            *e = (*e).min(r.created_s);
        }
        first
            .into_iter()
            .filter(|(_, c)| *c > 0.0)
            .map(|(d, _)| d.clone())
            .collect()
    };
    assert_eq!(deps.len(), late.len());
    let f = fit_vmtable(&t, &FitOptions::default()).unwrap();
    assert!((f.arrival_rate.value - late.len() as f64 / (2_591_700.0 / 3600.0)).abs() < 1e-12);
    assert_eq!(f.initial_size.counts.iter().sum::<u64>(), late.len() as u64);
    assert!(f.sigma.is_none() && f.defaults_kept.contains(&"sigma".to_string()));
    let mut p = AdmitParams::default();
    f.apply(&mut p);
    assert!(p.validate().is_ok());
}

#[test]
fn exponential_mle_matches_closed_form_with_censoring() {
    // 5 deployments: exact deaths and right-censored cores; λ̂ = deaths / exposure (per hour)
    let obs = vec![
        LifetimeObs {
            exact: vec![(2.0, 1), (3.5, 2)],
            censored: vec![(10.0, 1)],
            ..Default::default()
        },
        LifetimeObs {
            exact: vec![(0.5, 1)],
            ..Default::default()
        },
        LifetimeObs {
            censored: vec![(7.0, 3)],
            ..Default::default()
        },
        LifetimeObs {
            exact: vec![(12.0, 1), (1.0, 1)],
            ..Default::default()
        },
        LifetimeObs {
            exact: vec![(4.0, 4)],
            censored: vec![(4.0, 1)],
            ..Default::default()
        },
    ];
    let deaths = 1.0 + 2.0 + 1.0 + 1.0 + 1.0 + 4.0;
    let expo = 2.0 + 7.0 + 10.0 + 0.5 + 21.0 + 13.0 + 16.0 + 4.0;
    let e = fit_exponential(&obs).unwrap();
    assert!(
        (e.value - deaths / expo).abs() < 1e-7 * e.value,
        "{} vs {}",
        e.value,
        deaths / expo
    );
    assert!(
        (e.se - deaths.sqrt() / expo).abs() < 1e-3 * e.se,
        "{} vs {}",
        e.se,
        deaths.sqrt() / expo
    );
    // marginal likelihood under Γ(a, b): closed form Σ [a ln b − lnΓ(a) + lnΓ(a+D) − (a+D) ln(b+E)]
    use statrs::function::gamma::ln_gamma;
    for (a, b) in [(1.2, 60.0), (0.7, 3.0), (4.0, 15.0)] {
        let cf: f64 = obs
            .iter()
            .map(|o| {
                let d: f64 = o.exact.iter().map(|x| x.1 as f64).sum();
                let t: f64 = o.exact.iter().map(|x| x.0 * x.1 as f64).sum::<f64>()
                    + o.censored.iter().map(|x| x.0 * x.1 as f64).sum::<f64>();
                a * f64::ln(b) - ln_gamma(a) + ln_gamma(a + d) - (a + d) * (b + t).ln()
            })
            .sum();
        let q = lambda_marginal_loglik(&obs, a, b);
        assert!((q - cf).abs() < 1e-6, "a={a} b={b}: {q} vs {cf}");
    }
}

#[test]
fn gamma_prior_recovered_from_simulated_censored_binned_data() {
    let (a0, b0) = (1.5, 20.0);
    let mut r = rng::stream(7, 1, 0);
    let mut obs = Vec::new();
    for _ in 0..3000 {
        let lam = rng::gamma(&mut r, a0, b0);
        let n = 1 + rng::poisson(&mut r, 2.0) as u32;
        let cut = 200.0 * rng::uniform_open0(&mut r);
        let mut o = LifetimeObs::default();
        for _ in 0..n {
            let t = rng::exp(&mut r, lam);
            if t > cut {
                o.censored.push((cut, 1));
            } else {
                let k = (t / 0.25).floor();
                o.interval.push((k * 0.25, (k + 1.0) * 0.25, 1));
            }
        }
        obs.push(o);
    }
    let f = fit_lambda_prior(&obs).unwrap();
    assert!(f.converged);
    assert!((f.shape.value - a0).abs() < 4.0 * f.shape.se, "{f:?}");
    assert!((f.rate.value - b0).abs() < 4.0 * f.rate.se, "{f:?}");
    assert!(
        f.shape.se > 0.0 && f.shape.se < 0.3 && f.rate.se < 5.0,
        "{f:?}"
    );
}

#[test]
fn bundle_roundtrip_and_fit() {
    let d = load_folder();
    let text = write_arrivals_bundle(&d);
    let gz = gzip(text.as_bytes());
    if std::env::var_os("PACKLAB_WRITE_AZURE_BUNDLE").is_some() {
        std::fs::write(BUNDLE, &gz).unwrap();
    }
    let shipped = std::fs::read(BUNDLE).expect(
        "static/traces/azure2017-arrivals.txt.gz (regenerate with PACKLAB_WRITE_AZURE_BUNDLE=1)",
    );
    assert_eq!(
        shipped, gz,
        "the shipped bundle is not reproduced from the raw folder"
    );
    assert!(shipped.len() < 1_000_000, "{} bytes", shipped.len());
    let b = read_arrivals_bundle("azure2017-arrivals.txt.gz", &shipped).unwrap();
    assert_eq!(b.splits, d.splits);
    assert_eq!(b.intervals.bins, d.intervals.bins);
    assert_eq!(b.flavours, d.flavours);
    let f = fit_azure_arrivals(&b, &FitOptions::default()).unwrap();
    let n = (53_109 + 82_946) as f64;
    let hours = (2_591_400.0 - 1_800_000.0) / 3600.0;
    assert!((f.arrival_rate.value - n / hours).abs() < 1e-9);
    assert_eq!(f.initial_size.counts.iter().sum::<u64>(), n as u64);
    let lam = f.lambda.as_ref().unwrap();
    assert!(
        lam.converged && lam.shape.value > 0.0 && lam.shape.se > 0.0 && lam.shape.se.is_finite()
    );
    assert_eq!(f.defaults_kept, ["nu", "sigma", "kappa"]);
    let mut p = AdmitParams::default();
    f.apply(&mut p);
    assert!(p.validate().is_ok());
    assert!(matches!(p.initial_size, InitialSize::Empirical { .. }));
    eprintln!("{}", serde_json::to_string_pretty(&f).unwrap());
}
