//! Subscribers and the episode generator (ALGORITHMS.md §3.1, §3.6): one generator, driven by per-subscriber
//! profiles that come either from §3.6's synthetic internal cloud (drawn from the run's seed) or from the
//! Azure-derived fit of E1.3 (`static/oversub/azure-e13.json`, made by `scripts/seed001_fit_azure.py` from the
//! Azure 2019 CPU readings and the Azure 2017 arrivals).
//!
//! An episode is the list of VM requests of hours `−history..T` (the history hours feed the MA and peak
//! windows, and warm starts), each with its subscriber, requested cores, memory, network, start and end hour,
//! and its usage fraction for every hour it lives: `u_v(t) ~ Normal(μ_{n,h}, s_{n,h}²)` clipped to [0, 1]
//! with `h = t mod 24` (seed 001 App. B.1). The usage does not depend on the policy, so every policy is
//! evaluated on the same episodes (common random numbers).

use super::params::{component, OversubParams};
use crate::experiment::RunError;
use crate::substrate::rng::{normal, poisson, stream};
use crate::substrate::stats::normal_sf;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// Hours of history before an episode's first hour (MA's and the peak predictor's windows, warm starts).
pub const HISTORY_H: i32 = 48;

/// One subscriber's profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subscriber {
    /// Short id (the fit's subscription hash prefix, or `s1`, `s2`, … for the synthetic cloud).
    pub id: String,
    /// Mean usage fraction by hour of day (24 values in [0, 1]).
    pub mu: Vec<f64>,
    /// Standard deviation of the usage fraction by hour of day (24 values ≥ 0).
    pub sd: Vec<f64>,
    /// Relative arrival rate of new VMs by hour of day (24 values ≥ 0; scaled to the occupancy target).
    pub rate: Vec<f64>,
    /// VM sizes: `[cores, probability]` pairs (probabilities sum to 1).
    pub cores: Vec<[f64; 2]>,
    /// Memory per requested core, GB.
    pub mem_gb_per_core: f64,
}

/// The subscribers of a run and their VMs' lifetime distribution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profiles {
    /// Where the profiles come from (shown in the UI).
    pub name: String,
    /// The subscribers, in agent order.
    pub subscribers: Vec<Subscriber>,
    /// Median VM lifetime, hours (LogNormal).
    pub life_median_h: f64,
    /// σ of the log lifetime.
    pub life_sigma: f64,
}

/// The E1.3 fit as bundled (the engine reads only the fields of [`Profiles`] it needs).
#[derive(Deserialize)]
struct AzureFit {
    name: String,
    subscribers: Vec<Subscriber>,
    life_median_h: f64,
    life_sigma: f64,
}

/// The bundled E1.3 fit (`static/oversub/azure-e13.json`).
pub const AZURE_E13_JSON: &str = include_str!("../../../static/oversub/azure-e13.json");

impl Profiles {
    /// The §3.6 synthetic internal cloud of `n` subscribers: diurnal mean
    /// `μ_n(h) = b_n + A_n·max(0, cos(2π(h − φ_n)/24))` with `b ~ U(base)`, `A ~ U(amplitude)` (ALGORITHMS.md
    /// §3.6: base [0.05, 0.15], amplitude [0.05, 0.45]; the scenario's defaults are lower, see
    /// [`OversubParams::amplitude`]), `φ ~ U(0, 24)`, `s = 0.3·μ`; equal arrival rates at every hour; sizes
    /// uniform on {2, 4, 8, 16} cores; lifetimes LogNormal with median 2 h and σ = 1.2.
    pub fn synthetic(
        n: usize,
        mem_gb_per_core: f64,
        base: [f64; 2],
        amplitude: [f64; 2],
        seed: u64,
    ) -> Profiles {
        let mut r = stream(seed, component::PROFILES, 0);
        let subscribers = (0..n)
            .map(|i| {
                let b = base[0] + (base[1] - base[0]) * r.random::<f64>();
                let a = amplitude[0] + (amplitude[1] - amplitude[0]) * r.random::<f64>();
                let phi = r.random_range(0.0..24.0);
                let mu: Vec<f64> = (0..24)
                    .map(|h| {
                        b + a * libm::cos(std::f64::consts::TAU * (h as f64 - phi) / 24.0).max(0.0)
                    })
                    .collect();
                Subscriber {
                    id: format!("s{}", i + 1),
                    sd: mu.iter().map(|m| 0.3 * m).collect(),
                    mu,
                    rate: vec![1.0; 24],
                    cores: vec![[2.0, 0.25], [4.0, 0.25], [8.0, 0.25], [16.0, 0.25]],
                    mem_gb_per_core,
                }
            })
            .collect();
        Profiles {
            name: "synthetic internal cloud (ALGORITHMS.md §3.6)".into(),
            subscribers,
            life_median_h: 2.0,
            life_sigma: 1.2,
        }
    }

    /// The Azure-derived fit of E1.3. Errors: a malformed bundled file (a build defect, reported, not a panic).
    pub fn azure() -> Result<Profiles, RunError> {
        let f: AzureFit = serde_json::from_str(AZURE_E13_JSON)
            .map_err(|e| RunError::msg(format!("static/oversub/azure-e13.json: {e}")))?;
        let p = Profiles {
            name: f.name,
            subscribers: f.subscribers,
            life_median_h: f.life_median_h,
            life_sigma: f.life_sigma,
        };
        p.check()
            .map_err(|e| RunError::msg(format!("static/oversub/azure-e13.json: {e}")))?;
        Ok(p)
    }

    /// The profiles of a scenario: E1.3's fit or the synthetic cloud of the section's size, with every
    /// subscriber's usage mean and s.d. multiplied by [`OversubParams::usage_scale`] (the mean clipped at
    /// [`OversubParams::usage_cap`]).
    pub fn of(params: &OversubParams, seed: u64) -> Result<Profiles, RunError> {
        let mut p = if params.preset.azure() {
            Profiles::azure()?
        } else {
            Profiles::synthetic(
                params.subscriber_count() as usize,
                params.vm_mem_gb_per_core,
                params.base,
                params.amplitude,
                seed,
            )
        };
        if params.usage_scale != 1.0 || params.usage_cap != 1.0 {
            p.scale_usage(params.usage_scale, params.usage_cap);
        }
        Ok(p)
    }

    /// Multiplies every subscriber's usage mean and s.d. by `k` (> 0), the mean clipped at `cap` (in (0, 1];
    /// 1 = the plain clip).
    pub fn scale_usage(&mut self, k: f64, cap: f64) {
        for s in &mut self.subscribers {
            s.mu.iter_mut().for_each(|m| *m = (*m * k).min(cap));
            s.sd.iter_mut().for_each(|d| *d *= k);
        }
    }

    /// Checks shapes and ranges; the message names the subscriber and field.
    pub fn check(&self) -> Result<(), String> {
        if self.subscribers.is_empty() || self.subscribers.len() > 64 {
            return Err("between 1 and 64 subscribers are needed".into());
        }
        if !(self.life_median_h > 0.0
            && self.life_median_h < 1e4
            && self.life_sigma >= 0.0
            && self.life_sigma < 5.0)
        {
            return Err("life_median_h must lie in (0, 1e4) and life_sigma in [0, 5)".into());
        }
        for (i, s) in self.subscribers.iter().enumerate() {
            let at = |f: &str| format!("subscribers[{i}].{f}");
            for (f, v, lo, hi) in [
                ("mu", &s.mu, 0.0, 1.0),
                ("sd", &s.sd, 0.0, 1.0),
                ("rate", &s.rate, 0.0, 1e9),
            ] {
                if v.len() != 24 || v.iter().any(|x| !(x.is_finite() && *x >= lo && *x <= hi)) {
                    return Err(format!("{}: 24 numbers in [{lo}, {hi}] are needed", at(f)));
                }
            }
            let total: f64 = s.cores.iter().map(|c| c[1]).sum();
            if s.cores.is_empty()
                || s.cores
                    .iter()
                    .any(|c| !(c[0] > 0.0 && c[0] <= 1024.0 && c[1] >= 0.0))
                || (total - 1.0).abs() > 1e-6
            {
                return Err(format!(
                    "{}: sizes in (0, 1024] cores with probabilities summing to 1",
                    at("cores")
                ));
            }
            if !(s.mem_gb_per_core.is_finite() && s.mem_gb_per_core >= 0.0) {
                return Err(format!("{}: must be ≥ 0", at("mem_gb_per_core")));
            }
        }
        if self
            .subscribers
            .iter()
            .all(|s| s.rate.iter().all(|r| *r == 0.0))
        {
            return Err("every arrival rate is 0".into());
        }
        Ok(())
    }

    /// Mean VM duration in whole hours, `E[max(1, ⌈L⌉)] = 1 + Σ_{k≥1} P(L > k)` for the LogNormal `L`.
    pub fn mean_duration_h(&self) -> f64 {
        let ln_m = libm::log(self.life_median_h);
        let mut e = 1.0;
        for k in 1..100_000 {
            let p = if self.life_sigma == 0.0 {
                if self.life_median_h > k as f64 {
                    1.0
                } else {
                    0.0
                }
            } else {
                normal_sf((libm::log(k as f64) - ln_m) / self.life_sigma)
            };
            if p < 1e-12 {
                break;
            }
            e += p;
        }
        e
    }

    /// Mean new VMs per hour of subscriber `n` at hour of day `h` such that, by Little's law, the requested
    /// cores alive average `occupancy·B·K`: `λ_{n,h} = occupancy·B·K·w_{n,h} / (Σ_{n,h} w_{n,h}/24 · E[c]·E[d])`
    /// with the profile weights `w`, the size mean `E[c]` weighted by arrivals and the duration `E[d]`.
    pub fn arrival_means(&self, params: &OversubParams) -> Vec<[f64; 24]> {
        let ed = self.mean_duration_h();
        let per_hour: f64 = self
            .subscribers
            .iter()
            .map(|s| s.rate.iter().sum::<f64>())
            .sum::<f64>()
            / 24.0;
        let mean_cores: f64 = self
            .subscribers
            .iter()
            .map(|s| {
                s.rate.iter().sum::<f64>() / 24.0 * s.cores.iter().map(|c| c[0] * c[1]).sum::<f64>()
            })
            .sum::<f64>()
            / per_hour;
        let target = params.occupancy * params.pm_cores * params.pm_count() as f64;
        let scale = target / (per_hour * mean_cores * ed);
        self.subscribers
            .iter()
            .map(|s| {
                let mut a = [0.0; 24];
                for (h, x) in a.iter_mut().enumerate() {
                    *x = s.rate[h] * scale;
                }
                a
            })
            .collect()
    }
}

/// One VM request of an episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VmRequest {
    /// Subscriber (agent) index.
    pub sub: u16,
    /// Requested cores `c_v`.
    pub cores: f64,
    /// Memory, GB.
    pub mem: f64,
    /// Network, Gb/s.
    pub net: f64,
    /// First hour alive (negative = history).
    pub start: i32,
    /// First hour no longer alive (deleted at the start of this hour); at most the episode's `T`.
    pub end: i32,
    /// Offset of `u_v(start)` in [`Episode::usage`]; `u_v(t)` is at `usage_at + (t − start)`.
    pub usage_at: u32,
}

/// Per subscriber and hour: the VM usage rates of the VMs alive (history hours included), for the baselines.
#[derive(Clone, Debug, Default)]
pub struct SubHour {
    /// VMs alive.
    pub n: u32,
    /// Σ u_v.
    pub sum: f64,
    /// Σ u_v².
    pub sum_sq: f64,
    /// Σ u_v·c_v (cores used).
    pub used: f64,
    /// Σ c_v (cores requested).
    pub requested: f64,
    /// Histogram of u_v in [`HIST_BINS`] equal bins of [0, 1].
    pub hist: Vec<u32>,
}

/// Bins of the per-hour usage-rate histograms.
pub const HIST_BINS: usize = 100;

impl SubHour {
    /// The `p`-th percentile (0–100) of the usage rates of a set of hours, to the upper edge of its 1% bin.
    pub fn percentile(hours: &[&SubHour], p: f64) -> Option<f64> {
        let n: u64 = hours.iter().map(|h| h.n as u64).sum();
        if n == 0 {
            return None;
        }
        let rank = ((p / 100.0 * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0u64;
        for b in 0..HIST_BINS {
            seen += hours.iter().map(|h| h.hist[b] as u64).sum::<u64>();
            if seen >= rank {
                return Some((b + 1) as f64 / HIST_BINS as f64);
            }
        }
        Some(1.0)
    }
}

/// One episode's requests and usage (hours `−HISTORY_H..T`).
#[derive(Clone, Debug)]
pub struct Episode {
    /// Requests sorted by start, then (start, subscriber, draw order) or a seeded random order within the
    /// hour ([`super::ArrivalOrder`]): the allocator's arrival order.
    pub vms: Vec<VmRequest>,
    /// Usage fractions (see [`VmRequest::usage_at`]).
    pub usage: Vec<f64>,
    /// Hours T.
    pub hours: i32,
    /// `stats[(t + HISTORY_H)·N + n]`: subscriber n's VMs at hour t, for t in `−HISTORY_H..T` (empty from
    /// [`Episode::generate_requests`]).
    pub stats: Vec<SubHour>,
    /// Subscribers N.
    pub subs: usize,
}

impl Episode {
    /// An episode of `subs` subscribers over `hours` hours without any VM request: every subscriber-hour of
    /// `−HISTORY_H..hours` empty (no VMs, [`HIST_BINS`] zero bins). A fixture for the rate policies' tests
    /// and the `script` fuzz target.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn empty(subs: usize, hours: i32) -> Self {
        let stats = vec![
            SubHour {
                hist: vec![0; HIST_BINS],
                ..SubHour::default()
            };
            (HISTORY_H + hours) as usize * subs
        ];
        Episode {
            vms: vec![],
            usage: vec![],
            hours,
            stats,
            subs,
        }
    }
}

/// Hour of day of hour `t` (episodes start at midnight on a Monday).
#[inline]
pub fn hour_of_day(t: i32) -> usize {
    t.rem_euclid(24) as usize
}

impl Episode {
    /// Generates an episode from the stream `(seed, comp, index)`: Poisson arrivals per subscriber and hour
    /// with the means of [`Profiles::arrival_means`], sizes from the subscriber's distribution, durations
    /// `max(1, ⌈L⌉)` hours with `L` LogNormal (truncated at `T`), usage per VM-hour; then the per-hour
    /// statistics [`Episode::stats`] the rate policies read.
    pub fn generate(
        profiles: &Profiles,
        params: &OversubParams,
        means: &[[f64; 24]],
        seed: u64,
        comp: u64,
        index: u64,
    ) -> Episode {
        let mut ep = Self::generate_requests(profiles, params, means, seed, comp, index);
        ep.stats = ep.hourly_stats();
        ep
    }

    /// [`Episode::generate`] without the per-hour statistics (`stats` left empty, so [`Episode::stat`] must
    /// not be called): the same requests and usage, for the C2MARL training episodes, which no rate policy
    /// reads (the statistics' ~2,000 histograms per episode cost ~4% of a training run, issue 30).
    pub fn generate_requests(
        profiles: &Profiles,
        params: &OversubParams,
        means: &[[f64; 24]],
        seed: u64,
        comp: u64,
        index: u64,
    ) -> Episode {
        let n_sub = profiles.subscribers.len();
        let t_end = params.hours as i32;
        let mut r = stream(seed, comp, index);
        let mut vms = Vec::new();
        let mut usage = Vec::new();
        for t in -HISTORY_H..t_end {
            let h = hour_of_day(t);
            for (n, s) in profiles.subscribers.iter().enumerate() {
                let k = poisson(&mut r, means[n][h]);
                for _ in 0..k {
                    let x: f64 = r.random();
                    let mut acc = 0.0;
                    let mut cores = s.cores[s.cores.len() - 1][0];
                    for c in &s.cores {
                        acc += c[1];
                        if x < acc {
                            cores = c[0];
                            break;
                        }
                    }
                    let l =
                        profiles.life_median_h * libm::exp(profiles.life_sigma * normal(&mut r));
                    let d = l.ceil().clamp(1.0, 1e6) as i32;
                    let end = (t + d).min(t_end);
                    let usage_at = usage.len() as u32;
                    for tt in t..end {
                        let hh = hour_of_day(tt);
                        let u = s.mu[hh] + s.sd[hh] * normal(&mut r);
                        usage.push(u.clamp(0.0, 1.0));
                    }
                    vms.push(VmRequest {
                        sub: n as u16,
                        cores,
                        mem: cores * s.mem_gb_per_core,
                        net: cores * params.vm_net_gbps_per_core,
                        start: t,
                        end,
                        usage_at,
                    });
                }
            }
        }
        if params.arrival_order == super::ArrivalOrder::Mixed {
            // One seeded random order per hour across subscribers (Fisher–Yates, continuing the stream).
            let mut from = 0;
            while from < vms.len() {
                let start = vms[from].start;
                let to = from + vms[from..].iter().take_while(|v| v.start == start).count();
                for j in (from + 1..to).rev() {
                    let k = from + r.random_range(0..=(j - from));
                    vms.swap(j, k);
                }
                from = to;
            }
        }
        Episode {
            vms,
            usage,
            hours: t_end,
            stats: Vec::new(),
            subs: n_sub,
        }
    }

    /// The per-hour statistics of the requests and usage ([`Episode::stats`]).
    fn hourly_stats(&self) -> Vec<SubHour> {
        let n_sub = self.subs;
        let hours_total = (HISTORY_H + self.hours) as usize;
        let mut stats = vec![
            SubHour {
                hist: vec![0; HIST_BINS],
                ..SubHour::default()
            };
            hours_total * n_sub
        ];
        for v in &self.vms {
            for t in v.start..v.end {
                let u = self.usage[v.usage_at as usize + (t - v.start) as usize];
                let s = &mut stats[(t + HISTORY_H) as usize * n_sub + v.sub as usize];
                s.n += 1;
                s.sum += u;
                s.sum_sq += u * u;
                s.used += u * v.cores;
                s.requested += v.cores;
                s.hist[((u * HIST_BINS as f64) as usize).min(HIST_BINS - 1)] += 1;
            }
        }
        stats
    }

    /// Subscriber `n`'s statistics at hour `t` (`−HISTORY_H ≤ t < T`).
    pub fn stat(&self, t: i32, n: usize) -> &SubHour {
        &self.stats[(t + HISTORY_H) as usize * self.subs + n]
    }

    /// `u_v(t)` of request `v` (alive at `t`).
    #[inline]
    pub fn usage_of(&self, v: &VmRequest, t: i32) -> f64 {
        self.usage[v.usage_at as usize + (t - v.start) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_duration_matches_a_direct_sum() {
        // σ = 0: every VM lives exactly ⌈median⌉ hours.
        let mut p = Profiles::synthetic(2, 4.0, [0.05, 0.15], [0.05, 0.45], 1);
        p.life_sigma = 0.0;
        p.life_median_h = 2.5;
        assert_eq!(p.mean_duration_h(), 3.0);
        // Median 2 h, σ = 1.2: Monte Carlo of max(1, ⌈L⌉) with 200,000 draws agrees within 3 standard errors.
        let p = Profiles::synthetic(2, 4.0, [0.05, 0.15], [0.05, 0.45], 1);
        let mut r = stream(9, 9, 9);
        let n = 200_000;
        let (mut s, mut s2) = (0.0, 0.0);
        for _ in 0..n {
            let l = 2.0 * libm::exp(1.2 * normal(&mut r));
            let d = l.ceil().max(1.0);
            s += d;
            s2 += d * d;
        }
        let m = s / n as f64;
        let se = ((s2 / n as f64 - m * m) / n as f64).sqrt();
        assert!(
            (p.mean_duration_h() - m).abs() < 3.0 * se,
            "{} vs {m} ± {se}",
            p.mean_duration_h()
        );
    }

    #[test]
    fn mixed_arrival_order_permutes_each_hour_and_keeps_the_workload() {
        let params = OversubParams {
            pms: 40,
            arrival_order: crate::models::oversub::ArrivalOrder::Subscriber,
            ..OversubParams::default()
        };
        let mixed = OversubParams {
            arrival_order: crate::models::oversub::ArrivalOrder::Mixed,
            ..params.clone()
        };
        let p = Profiles::of(&params, 3).unwrap();
        let means = p.arrival_means(&params);
        let a = Episode::generate(&p, &params, &means, 3, component::EVAL, 0);
        let b = Episode::generate(&p, &mixed, &means, 3, component::EVAL, 0);
        // The same requests and usage: the starts in the same order, each hour's requests a permutation.
        assert_eq!(a.usage, b.usage);
        let key = |v: &VmRequest| (v.start, v.usage_at, v.sub, v.cores.to_bits(), v.end);
        let mut ka: Vec<_> = a.vms.iter().map(key).collect();
        let mut kb: Vec<_> = b.vms.iter().map(key).collect();
        assert_eq!(
            a.vms.iter().map(|v| v.start).collect::<Vec<_>>(),
            b.vms.iter().map(|v| v.start).collect::<Vec<_>>()
        );
        ka.sort();
        kb.sort();
        assert_eq!(ka, kb);
        // Subscriber order: subscribers ascending within each hour; mixed: not in most hours.
        let sorted_hours = |e: &Episode| {
            (-HISTORY_H..e.hours)
                .filter(|&t| {
                    let subs: Vec<u16> = e
                        .vms
                        .iter()
                        .filter(|v| v.start == t)
                        .map(|v| v.sub)
                        .collect();
                    subs.windows(2).all(|w| w[0] <= w[1])
                })
                .count() as i32
        };
        assert_eq!(sorted_hours(&a), HISTORY_H + a.hours);
        assert!(
            sorted_hours(&b) < (HISTORY_H + b.hours) / 10,
            "{}",
            sorted_hours(&b)
        );
    }

    #[test]
    fn usage_scale_multiplies_the_fit_and_clips_the_mean_at_one() {
        let fit = Profiles::azure().unwrap();
        let params = OversubParams {
            preset: crate::models::oversub::Preset::E13,
            usage_scale: 4.0,
            ..OversubParams::default()
        };
        let p = Profiles::of(&params, 3).unwrap();
        // Subscriber 0 peaks at 0.630 (×4 = 2.52 → 1); subscriber 1 stays below 1 (≤ 0.154·4).
        assert_eq!(p.subscribers[0].mu.iter().cloned().fold(0.0, f64::max), 1.0);
        for (a, b) in p.subscribers.iter().zip(&fit.subscribers) {
            for h in 0..24 {
                assert_eq!(a.mu[h], (4.0 * b.mu[h]).min(1.0));
                assert_eq!(a.sd[h], 4.0 * b.sd[h]);
            }
            assert_eq!((&a.rate, &a.cores), (&b.rate, &b.cores));
        }
        let d = OversubParams {
            preset: crate::models::oversub::Preset::E13,
            ..OversubParams::default()
        };
        assert_eq!(Profiles::of(&d, 3).unwrap(), fit);
        // A cap of 0.5 after × 2.5 cuts only the means above 0.2 before scaling (subscriber 0's peak hours).
        let capped = OversubParams {
            preset: crate::models::oversub::Preset::E13,
            usage_scale: 2.5,
            usage_cap: 0.5,
            ..OversubParams::default()
        };
        let p = Profiles::of(&capped, 3).unwrap();
        for (a, b) in p.subscribers.iter().zip(&fit.subscribers) {
            for h in 0..24 {
                assert_eq!(a.mu[h], (2.5 * b.mu[h]).min(0.5));
                assert_eq!(a.sd[h], 2.5 * b.sd[h]);
            }
        }
        assert!(p.subscribers[0].mu.iter().filter(|&&m| m == 0.5).count() > 0);
    }

    #[test]
    fn generated_occupancy_matches_the_target() {
        let params = OversubParams {
            pms: 100,
            hours: 240,
            ..OversubParams::default()
        };
        let p = Profiles::of(&params, 3).unwrap();
        let means = p.arrival_means(&params);
        let e = Episode::generate(&p, &params, &means, 3, component::EVAL, 0);
        // Requested cores alive, averaged over hours 48..240 (VMs of hour ≥ 0 onwards are not truncated
        // before 240 except near the end, so stop 48 h early).
        let mut alive = 0.0;
        for t in 0..192 {
            alive += (0..e.subs).map(|n| e.stat(t, n).requested).sum::<f64>();
        }
        let occ = alive / 192.0 / (48.0 * 100.0);
        assert!((occ - params.occupancy).abs() < 0.03, "occupancy {occ}");
        // Usage fractions stay in [0, 1] and the stats count each VM-hour once.
        assert!(e.usage.iter().all(|u| (0.0..=1.0).contains(u)));
        let vm_hours: usize = e.vms.iter().map(|v| (v.end - v.start) as usize).sum();
        let counted: u32 = e.stats.iter().map(|s| s.n).sum();
        assert_eq!(vm_hours, counted as usize);
    }

    #[test]
    fn percentile_of_histograms() {
        let mut a = SubHour {
            hist: vec![0; HIST_BINS],
            ..SubHour::default()
        };
        // 10 VMs at rates 0.005, 0.105, …, 0.905 (bins 0, 10, …, 90).
        for k in 0..10 {
            a.hist[k * 10] += 1;
            a.n += 1;
        }
        assert_eq!(SubHour::percentile(&[&a], 50.0), Some(0.41)); // 5th of 10 → bin 40 → upper edge 0.41
        assert_eq!(SubHour::percentile(&[&a], 100.0), Some(0.91));
        assert_eq!(SubHour::percentile(&[&a, &a], 10.0), Some(0.01));
    }

    #[test]
    fn the_bundled_azure_fit_loads() {
        let p = Profiles::azure().unwrap();
        assert_eq!(p.subscribers.len(), 9);
    }
}
