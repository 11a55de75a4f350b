//! Discrete-event simulation kernel shared by the dynamic models (ALGORITHMS.md §1.2).
//!
//! A binary heap of `(time: f64 hours, seq: u64, event)`. Events with equal time fire in insertion order
//! (`seq`), which keeps runs deterministic. Cancellation is lazy: an event scheduled under a [`TimerKey`]
//! carries the key's generation at scheduling time; cancelling (or re-scheduling) the key bumps the generation,
//! and stale heap entries are dropped when they reach the top. Each model is a [`World`] that owns its state and
//! handles its events; fixed-step models schedule periodic tick events on the same kernel.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A cancellable timer slot. At most one live event per key: scheduling on a key replaces (lazily cancels)
/// the event pending on it. Obtain with [`Des::new_key`], give back with [`Des::release_key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerKey(u32);

const NO_KEY: u32 = u32::MAX;

struct Entry<E> {
    time: f64,
    seq: u64,
    key: u32,
    gen: u32,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest time, then the lowest sequence number.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .total_cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A model driven by the kernel: owns its state and handles its own events (ALGORITHMS.md §1.2).
pub trait World<E> {
    /// Handle `event` firing at time `now` (hours); may schedule or cancel further events on `des`.
    fn handle(&mut self, now: f64, event: E, des: &mut Des<E>);
}

/// The discrete-event kernel: event queue, simulation clock (hours) and timer keys. Generic over the event type.
pub struct Des<E> {
    heap: BinaryHeap<Entry<E>>,
    now: f64,
    seq: u64,
    gens: Vec<u32>,
    free: Vec<u32>,
    fired: u64,
}

impl<E> Default for Des<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Des<E> {
    /// An empty kernel with the clock at 0 h.
    pub fn new() -> Self {
        Des {
            heap: BinaryHeap::new(),
            now: 0.0,
            seq: 0,
            gens: Vec::new(),
            free: Vec::new(),
            fired: 0,
        }
    }

    /// Current simulation time (hours).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Number of events delivered so far (cancelled events are not counted).
    pub fn fired(&self) -> u64 {
        self.fired
    }

    /// Number of heap entries, including lazily cancelled ones not yet discarded.
    pub fn pending_entries(&self) -> usize {
        self.heap.len()
    }

    /// Allocate a timer key (recycles released keys).
    pub fn new_key(&mut self) -> TimerKey {
        if let Some(k) = self.free.pop() {
            TimerKey(k)
        } else {
            self.gens.push(0);
            TimerKey((self.gens.len() - 1) as u32)
        }
    }

    /// Cancel any event pending on `key` and return the key for reuse.
    pub fn release_key(&mut self, key: TimerKey) {
        self.cancel(key);
        self.free.push(key.0);
    }

    /// Schedule a non-cancellable `event` at absolute time `time` (hours). Times before `now` are clamped to
    /// `now` (the event then fires next among equal times, after those already queued).
    pub fn schedule(&mut self, time: f64, event: E) {
        self.push(time, NO_KEY, 0, event);
    }

    /// Schedule `event` at `time` on `key`, cancelling whatever was pending on that key.
    pub fn schedule_keyed(&mut self, key: TimerKey, time: f64, event: E) {
        let g = &mut self.gens[key.0 as usize];
        *g = g.wrapping_add(1);
        let gen = *g;
        self.push(time, key.0, gen, event);
    }

    /// Cancel the event pending on `key`, if any (lazy deletion: the heap entry is skipped when popped).
    pub fn cancel(&mut self, key: TimerKey) {
        let g = &mut self.gens[key.0 as usize];
        *g = g.wrapping_add(1);
    }

    /// Reserve the next `n` sequence numbers and return the first, for `n` non-cancellable events scheduled
    /// later with [`Des::schedule_reserved`]: among equal times they fire where they would had they been
    /// scheduled now, in reservation order. A long stream known in advance (every arrival of a trace, in time
    /// order) can so be fed one event at a time, each when its predecessor fires, with the same order of
    /// events as scheduling them all at once and a heap as small as what is pending.
    pub fn reserve_seq(&mut self, n: u64) -> u64 {
        let first = self.seq;
        self.seq += n;
        first
    }

    /// Schedule a non-cancellable `event` at `time` (hours; clamped to `now` as [`Des::schedule`]) under a
    /// sequence number from [`Des::reserve_seq`].
    pub fn schedule_reserved(&mut self, seq: u64, time: f64, event: E) {
        debug_assert!(
            seq < self.seq,
            "schedule_reserved: sequence number not reserved"
        );
        self.push_seq(time, seq, NO_KEY, 0, event);
    }

    fn push(&mut self, time: f64, key: u32, gen: u32, event: E) {
        let seq = self.seq;
        self.seq += 1;
        self.push_seq(time, seq, key, gen, event);
    }

    fn push_seq(&mut self, time: f64, seq: u64, key: u32, gen: u32, event: E) {
        let time = if time.is_nan() || time < self.now {
            self.now
        } else {
            time
        };
        self.heap.push(Entry {
            time,
            seq,
            key,
            gen,
            event,
        });
    }

    fn live(&self, e: &Entry<E>) -> bool {
        e.key == NO_KEY || self.gens[e.key as usize] == e.gen
    }

    /// Time of the next live event, discarding cancelled entries on the way.
    pub fn peek_time(&mut self) -> Option<f64> {
        while let Some(top) = self.heap.peek() {
            if self.live(top) {
                return Some(top.time);
            }
            self.heap.pop();
        }
        None
    }

    /// Remove and return the next live event, advancing the clock to its time.
    pub fn pop(&mut self) -> Option<(f64, E)> {
        while let Some(e) = self.heap.pop() {
            if self.live(&e) {
                self.now = e.time;
                self.fired += 1;
                return Some((e.time, e.event));
            }
        }
        None
    }

    /// Deliver every event with time ≤ `t_end` to `world` in (time, seq) order, then set the clock to `t_end`
    /// (if it is later than the last event). Returns the number of events delivered.
    pub fn run_until<W: World<E>>(&mut self, t_end: f64, world: &mut W) -> u64 {
        let start = self.fired;
        while let Some(t) = self.peek_time() {
            if t > t_end {
                break;
            }
            let (t, ev) = self.pop().expect("peeked");
            world.handle(t, ev, self);
        }
        if t_end > self.now {
            self.now = t_end;
        }
        self.fired - start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Log(Vec<(f64, u32)>);
    impl World<u32> for Log {
        fn handle(&mut self, now: f64, ev: u32, des: &mut Des<u32>) {
            self.0.push((now, ev));
            if ev == 100 {
                des.schedule(now + 1.0, 101);
            }
        }
    }

    #[test]
    fn orders_by_time_then_insertion() {
        let mut d = Des::new();
        d.schedule(2.0, 1);
        d.schedule(1.0, 2);
        d.schedule(2.0, 3);
        d.schedule(1.0, 4);
        let mut w = Log(vec![]);
        assert_eq!(d.run_until(10.0, &mut w), 4);
        assert_eq!(w.0, vec![(1.0, 2), (1.0, 4), (2.0, 1), (2.0, 3)]);
        assert_eq!(d.now(), 10.0);
    }

    /// Arrivals `0..n` at `times`, each scheduling a follow-up `1000 + i` one hour later (ties with later
    /// arrivals); fed lazily (`feed`) or all scheduled at the start.
    struct Stream {
        times: Vec<f64>,
        feed: Option<(u64, usize)>,
        log: Vec<(f64, u32)>,
    }
    impl World<u32> for Stream {
        fn handle(&mut self, now: f64, ev: u32, des: &mut Des<u32>) {
            self.log.push((now, ev));
            if ev < 1000 {
                if let Some((first, next)) = &mut self.feed {
                    if *next < self.times.len() {
                        des.schedule_reserved(
                            *first + *next as u64,
                            self.times[*next],
                            *next as u32,
                        );
                        *next += 1;
                    }
                }
                des.schedule(now + 1.0, 1000 + ev);
            }
        }
    }

    #[test]
    fn a_reserved_stream_fires_as_if_scheduled_at_once() {
        let times = vec![0.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 5.0];
        let mut eager = Stream {
            times: times.clone(),
            feed: None,
            log: vec![],
        };
        let mut d = Des::new();
        for (i, &t) in times.iter().enumerate() {
            d.schedule(t, i as u32);
        }
        d.run_until(100.0, &mut eager);
        let mut lazy = Stream {
            times: times.clone(),
            feed: None,
            log: vec![],
        };
        let mut d = Des::new();
        let first = d.reserve_seq(times.len() as u64);
        d.schedule_reserved(first, times[0], 0);
        lazy.feed = Some((first, 1));
        d.run_until(100.0, &mut lazy);
        assert_eq!(lazy.log, eager.log);
        // the follow-up of arrival 0 (at 1.0) fires after the arrivals at 1.0, as they were scheduled first
        assert_eq!(&eager.log[1..4], &[(1.0, 1), (1.0, 2), (1.0, 1000)]);
        assert_eq!(eager.log.len(), 16);
    }

    #[test]
    fn keyed_reschedule_and_cancel() {
        let mut d = Des::new();
        let k = d.new_key();
        let k2 = d.new_key();
        d.schedule_keyed(k, 5.0, 1);
        d.schedule_keyed(k, 3.0, 2); // replaces 1
        d.schedule_keyed(k2, 4.0, 3);
        d.cancel(k2);
        d.schedule(6.0, 4);
        let mut w = Log(vec![]);
        d.run_until(100.0, &mut w);
        assert_eq!(w.0, vec![(3.0, 2), (6.0, 4)]);
    }

    #[test]
    fn run_until_stops_and_handlers_schedule() {
        let mut d = Des::new();
        d.schedule(1.0, 100);
        d.schedule(5.0, 7);
        let mut w = Log(vec![]);
        assert_eq!(d.run_until(2.5, &mut w), 2);
        assert_eq!(w.0, vec![(1.0, 100), (2.0, 101)]);
        assert_eq!(d.now(), 2.5);
        assert_eq!(d.peek_time(), Some(5.0));
        // released key recycled: stale event of the old owner must not fire
        let k = d.new_key();
        d.schedule_keyed(k, 3.0, 9);
        d.release_key(k);
        let k2 = d.new_key();
        assert_eq!(k, k2);
        d.schedule_keyed(k2, 4.0, 10);
        d.run_until(10.0, &mut w);
        assert_eq!(&w.0[2..], &[(4.0, 10), (5.0, 7)]);
    }
}
