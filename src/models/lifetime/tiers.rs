//! The tiered policies' host indexes (issue 30): LA-Binary's and LAVA's hosts grouped by what decides their
//! tier (the policy's `PlacementRule::group`: LA-Binary's long / short / empty hosts, ALGORITHMS.md §5.5;
//! LAVA's state and lifetime class, §5.4), each group in slack order, so that the pool's choice
//! (`policies/la_binary.rs`, `policies/lava.rs`: `choose_grouped`) walks only the groups that can still beat the
//! best key found instead of every host the VM fits.

use super::host::SlackKey;
use std::collections::BTreeSet;

/// Hosts by group, each group ordered by (slack key, host id) as the pool's slack order is.
#[derive(Clone, Debug)]
pub struct TierIndex {
    sets: Vec<BTreeSet<SlackKey>>,
    /// Per host: its group and its entry in that group's set.
    at: Vec<(u8, SlackKey)>,
}

impl TierIndex {
    /// `groups` groups; host `h` in group `entries[h].0` under key `entries[h].1` (its host id is `h`).
    pub fn new(groups: usize, entries: Vec<(u8, SlackKey)>) -> TierIndex {
        let mut sets = vec![BTreeSet::new(); groups];
        for &(g, k) in &entries {
            sets[g as usize].insert(k);
        }
        TierIndex { sets, at: entries }
    }

    /// Moves host `h` to group `g` under key `k` (`k.1` is `h`).
    pub fn set(&mut self, h: usize, g: u8, k: SlackKey) {
        let (og, ok) = self.at[h];
        if (og, ok) == (g, k) {
            return;
        }
        self.sets[og as usize].remove(&ok);
        self.sets[g as usize].insert(k);
        self.at[h] = (g, k);
    }

    /// Host `h`'s group.
    pub fn group(&self, h: usize) -> u8 {
        self.at[h].0
    }

    /// The hosts of group `g` with slack key at least `from`, in slack order.
    pub fn range(&self, g: u8, from: f64) -> impl Iterator<Item = SlackKey> + '_ {
        self.sets[g as usize].range(SlackKey(from, 0)..).copied()
    }

    /// The number of hosts in group `g`.
    pub fn len(&self, g: u8) -> usize {
        self.sets[g as usize].len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_move_between_groups_and_stay_in_slack_order() {
        let mut ix = TierIndex::new(
            3,
            vec![
                (0, SlackKey(1.0, 0)),
                (0, SlackKey(0.5, 1)),
                (2, SlackKey(0.5, 2)),
            ],
        );
        let ids = |ix: &TierIndex, g, from| ix.range(g, from).map(|k| k.1).collect::<Vec<_>>();
        assert_eq!(ids(&ix, 0, f64::NEG_INFINITY), [1, 0]);
        assert_eq!(ids(&ix, 0, 0.75), [0]);
        ix.set(1, 2, SlackKey(0.25, 1));
        assert_eq!(ids(&ix, 0, f64::NEG_INFINITY), [0]);
        assert_eq!(ids(&ix, 2, f64::NEG_INFINITY), [1, 2]);
        assert_eq!((ix.group(1), ix.len(1), ix.len(2)), (2, 0, 2));
        ix.set(2, 2, SlackKey(0.1, 2));
        assert_eq!(ids(&ix, 2, f64::NEG_INFINITY), [2, 1]);
    }
}
