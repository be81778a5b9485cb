//! What a share-group run reports (model.md §11): the crash counts summed over the
//! partitions, their worst instants, and what happened to the records — deliveries,
//! redeliveries, acknowledgements, archived records — read from the run's lines and marks.

use crate::keys::millis_f64;
use crate::output::MarkKind;
use crate::timeline::Run;
use serde::Serialize;

/// A crash of the whole share group at one instant (model.md §11), summed over partitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ShareCrashState {
    /// Records that ended without a completed run (archived, rejected, or accepted unrun).
    pub lost: u64,
    /// Records whose run completed and which have not ended: delivered again after the crash.
    pub duplicated: u64,
    /// Records between the start offsets and the windows' ends (acquired, offered again, or
    /// ended above an earlier record still in flight).
    pub in_flight: u64,
}

/// The share group's report in the result JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShareSummary {
    /// At the crash instant.
    pub at_crash: ShareCrashState,
    /// The largest `lost` over the horizon and its earliest instant (ms).
    pub worst_lost: u64,
    /// Earliest instant of `worst_lost`, ms; null when it is 0.
    pub worst_lost_at_ms: Option<f64>,
    /// The largest `duplicated` over the horizon.
    pub worst_duplicated: u64,
    /// Earliest instant of `worst_duplicated`, ms; null when it is 0.
    pub worst_duplicated_at_ms: Option<f64>,
    /// Acquisitions within the horizon (each counts one delivery).
    pub deliveries: u64,
    /// Acquisitions of records delivered before.
    pub redeliveries: u64,
    /// Completed runs within the horizon.
    pub processed: u64,
    /// Completed runs per member, `processed_by_member[n]` for consumer-(n + 1).
    pub processed_by_member: Vec<u64>,
    /// ACCEPTs that landed.
    pub accepted: u64,
    /// RELEASEs that landed.
    pub released: u64,
    /// REJECTs that landed.
    pub rejected: u64,
    /// RENEWs that landed (each started a record's lock over).
    pub renewed: u64,
    /// Acquisition locks that expired.
    pub locks_expired: u64,
    /// Records archived at the delivery count limit.
    pub archived: u64,
}

impl ShareSummary {
    /// The report of a share-group `run` for a crash at `crash_at_us`.
    pub fn new(run: &Run, crash_at_us: u64) -> Self {
        let horizon = run.scenario.horizon_us;
        let mut summary = ShareSummary {
            at_crash: run.share_state_at(crash_at_us),
            worst_lost: 0,
            worst_lost_at_ms: None,
            worst_duplicated: 0,
            worst_duplicated_at_ms: None,
            deliveries: 0,
            redeliveries: 0,
            processed: 0,
            processed_by_member: vec![0; run.scenario.member_count() as usize],
            accepted: 0,
            released: 0,
            rejected: 0,
            renewed: 0,
            locks_expired: 0,
            archived: 0,
        };
        // The sums change only where a partition's profile steps: read them 1 µs after.
        let mut instants: Vec<u64> =
            run.partitions.iter().flat_map(|p| p.profile.steps().map(|s| s.at_us + 1)).collect();
        crate::keys::sort_ascending(&mut instants);
        instants.dedup();
        for at in instants.into_iter().filter(|&t| t <= horizon) {
            let state = run.share_state_at(at);
            if state.lost > summary.worst_lost {
                summary.worst_lost = state.lost;
                summary.worst_lost_at_ms = Some(millis_f64(at));
            }
            if state.duplicated > summary.worst_duplicated {
                summary.worst_duplicated = state.duplicated;
                summary.worst_duplicated_at_ms = Some(millis_f64(at));
            }
        }
        for mark in run.marks.marks().take_while(|m| m.at_us <= horizon) {
            match mark.kind {
                MarkKind::ShareAcquired { delivery, .. } => {
                    summary.deliveries += 1;
                    summary.redeliveries += u64::from(delivery > 1);
                }
                MarkKind::RecordDurable { .. } => {
                    summary.processed += 1;
                    if let Some(n) = summary.processed_by_member.get_mut(mark.member as usize) {
                        *n += 1;
                    }
                }
                MarkKind::ShareAccepted { .. } => summary.accepted += 1,
                MarkKind::ShareReleased { .. } => summary.released += 1,
                MarkKind::ShareRejected { .. } => summary.rejected += 1,
                MarkKind::ShareRenewed { .. } => summary.renewed += 1,
                MarkKind::ShareLockExpired { .. } => summary.locks_expired += 1,
                MarkKind::ShareArchived { .. } => summary.archived += 1,
                _ => {}
            }
        }
        summary
    }
}

impl Run {
    /// model.md §11: what a crash of the whole share group at `crash_at_us` leaves, summed
    /// over the partitions (every event before that instant happened, none at or after it).
    pub fn share_state_at(&self, crash_at_us: u64) -> ShareCrashState {
        (0..self.partitions.len()).fold(ShareCrashState::default(), |sum, p| {
            let state = self.partition_state_at(p, crash_at_us);
            ShareCrashState {
                lost: sum.lost + state.lost,
                duplicated: sum.duplicated + state.duplicated,
                in_flight: sum.in_flight + state.reread,
            }
        })
    }
}
