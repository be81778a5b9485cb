//! The same scenario and crash instant under each real client's commit behaviour
//! (model.md §8.4): where "the timer commits mid-batch" is true and where it is not.

#[cfg(feature = "group")]
use crate::scenario::{Assignor, BrokerVersion, ShareAcknowledgementMode};
use crate::scenario::{Client, Scenario, ScenarioError, Strategy};
#[cfg(feature = "group")]
use crate::share_report::ShareSummary;
use crate::simulate;
use serde::Serialize;

/// The (client, strategy) pairs worth comparing, in the order a table shows them.
pub const PAIRS: &[(Client, Strategy)] = &[
    (Client::JavaClassic, Strategy::AutoCommit),
    (Client::JavaConsumerProtocol, Strategy::AutoCommit),
    (Client::JavaConsumerProtocolPreFix, Strategy::AutoCommit),
    (Client::Librdkafka, Strategy::AutoCommit),
    (Client::Librdkafka, Strategy::StoreOffsetsAfterProcessing),
    (Client::JavaClassic, Strategy::CommitSyncBatch),
    (Client::JavaClassic, Strategy::CommitSyncRecord),
    (Client::JavaClassic, Strategy::CommitAsyncBatch),
    (Client::JavaClassic, Strategy::Transactional),
    // model.md §8.14: the other clients, each with its default and the behaviours its users pick.
    (Client::LibrdkafkaBefore1_9, Strategy::AutoCommit),
    (Client::Sarama, Strategy::MarkMessage),
    (Client::Sarama, Strategy::CommitSyncRecord),
    (Client::FranzGo, Strategy::AutoCommit),
    (Client::FranzGo, Strategy::GreedyAutoCommit),
    (Client::FranzGo, Strategy::AutoCommitMarks),
    (Client::KafkaGo, Strategy::ReadMessage),
    (Client::KafkaGo, Strategy::FetchMessageCommitMessages),
    (Client::Kafkajs, Strategy::EachMessage),
    (Client::Kafkajs, Strategy::EachBatch),
    (Client::Kafkajs, Strategy::EachBatchResolveOffset),
];

/// One row of the comparison: what a crash at the scenario's instant costs under one
/// (client, strategy) pair, and the worst instant over the horizon.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ComparisonRow {
    /// The client's JSON name.
    pub client: &'static str,
    /// The strategy's JSON name.
    pub strategy: &'static str,
    /// Which real client and version behaves so.
    pub note: &'static str,
    /// Records lost at the crash instant.
    pub lost: u64,
    /// Records processed twice at the crash instant.
    pub duplicated: u64,
    /// Records handed out again after restart.
    pub reread: u64,
    /// The worst `lost` over the horizon.
    pub worst_lost: u64,
    /// The worst `duplicated` over the horizon.
    pub worst_duplicated: u64,
}

/// Runs `scenario` once per pair of [`PAIRS`], everything else unchanged, and reads each at
/// `crash_at_us` (µs, in (0, horizon]). Pairs the scenario refuses (transactions have no
/// worker pool; the clients of model.md §8.14 run one consumer with its own loop; Spring's
/// error handlers run the Java client) are left out; [`compare_clients_left_out`] says which
/// and why. Errors: the scenario's own validation error.
pub fn compare_clients(scenario: &Scenario, crash_at_us: u64) -> Result<Vec<ComparisonRow>, ScenarioError> {
    compare_clients_left_out(scenario, crash_at_us).map(|(rows, _)| rows)
}

/// Rows a comparison leaves out, grouped by refusal in the comparison's order: each refusal
/// with the rows it refused.
pub type Refused<T> = Vec<(Vec<T>, ScenarioError)>;

/// Adds `row`, refused for `why`, to `list` (beside the rows refused for the same reason).
pub fn refuse_row<T>(list: &mut Refused<T>, row: T, why: ScenarioError) {
    match list.iter_mut().find(|(_, seen)| *seen == why) {
        Some((rows, _)) => rows.push(row),
        None => list.push((vec![row], why)),
    }
}

/// The (client, strategy) pairs a client comparison leaves out, with why.
pub type PairsLeftOut = Refused<(Client, Strategy)>;

/// [`compare_clients`]'s rows and the pairs it leaves out, with why.
pub fn compare_clients_left_out(
    scenario: &Scenario,
    crash_at_us: u64,
) -> Result<(Vec<ComparisonRow>, PairsLeftOut), ScenarioError> {
    scenario.validate()?;
    let mut rows = Vec::new();
    let mut left_out = Vec::new();
    for &(client, strategy) in PAIRS {
        let run = match simulate(&Scenario { client, strategy, ..scenario.clone() }) {
            Ok(run) => run,
            Err(why) => {
                refuse_row(&mut left_out, (client, strategy), why);
                continue;
            }
        };
        let at = run.state_at(crash_at_us);
        let worst = run.worst();
        rows.push(ComparisonRow {
            client: client.name(),
            strategy: strategy.name(),
            note: client.note(),
            lost: at.lost,
            duplicated: at.duplicated,
            reread: at.reread,
            worst_lost: worst.lost,
            worst_duplicated: worst.duplicated,
        });
    }
    Ok((rows, left_out))
}

/// One row of the group comparison (model.md §10): the same events under one protocol and
/// assignor, with or without static membership.
#[cfg(feature = "group")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GroupComparisonRow {
    /// The protocol and assignor, in words.
    pub protocol: &'static str,
    /// `group.instance.id` set (static membership).
    pub static_membership: bool,
    /// Records lost at the handovers.
    pub lost: u64,
    /// Records processed again after the handovers.
    pub duplicated: u64,
    /// Time partitions went unprocessed, summed over partitions, µs.
    pub stalled_us: u64,
    /// Rebalances within the horizon.
    pub rebalances: u32,
}

/// The protocols and assignors a group comparison runs: (words, client, assignor). Classic
/// rows keep the scenario's client when it is a classic one (librdkafka or the Java classic
/// consumer); librdkafka on the consumer protocol runs its classic rows as `librdkafka` and
/// its consumer-protocol row as itself.
#[cfg(feature = "group")]
fn protocols(scenario: &Scenario) -> [(&'static str, Client, Assignor); 4] {
    let (classic, kip848) = match scenario.client {
        Client::LibrdkafkaConsumerProtocol => (Client::Librdkafka, Client::LibrdkafkaConsumerProtocol),
        c if c.is_librdkafka() || c == Client::JavaClassic => (c, Client::JavaConsumerProtocol),
        _ => (Client::JavaClassic, Client::JavaConsumerProtocol),
    };
    [
        ("classic, range (eager)", classic, Assignor::Range),
        ("classic, round robin (eager)", classic, Assignor::RoundRobin),
        ("classic, cooperative sticky", classic, Assignor::CooperativeSticky),
        ("consumer protocol (KIP-848)", kip848, Assignor::Range),
    ]
}

/// The libraries a group comparison also runs, each with the balancer it is modelled with in a
/// group and dynamic members only (model.md §8.14): (words, client, assignor).
#[cfg(feature = "group")]
pub const GROUP_LIBRARIES: [(&str, Client, Assignor); 4] = [
    ("sarama, range (eager)", Client::Sarama, Assignor::Range),
    ("kafka-go, range (eager)", Client::KafkaGo, Assignor::Range),
    ("franz-go, cooperative sticky", Client::FranzGo, Assignor::CooperativeSticky),
    ("KafkaJS, round robin (eager)", Client::Kafkajs, Assignor::RoundRobin),
];

/// The variants a group comparison runs, in its order: each protocol and assignor, dynamic
/// and static, everything else unchanged, then each library of [`GROUP_LIBRARIES`] (with its
/// own default commits, `auto_commit`, unless the scenario is that library's); each with its
/// row's words.
#[cfg(feature = "group")]
fn group_variants(scenario: &Scenario) -> Vec<(&'static str, Scenario)> {
    let java = |(words, client, assignor)| {
        let strategy = if crate::clients::strategies(scenario.client).is_some() {
            Strategy::AutoCommit
        } else {
            scenario.strategy
        };
        [false, true].map(|static_membership| (words, client, assignor, strategy, static_membership))
    };
    let libraries = GROUP_LIBRARIES.iter().map(|&(words, client, assignor)| {
        let strategy = if client == scenario.client { scenario.strategy } else { Strategy::AutoCommit };
        (words, client, assignor, strategy, false)
    });
    let variants = protocols(scenario).into_iter().flat_map(java).chain(libraries);
    variants
        .map(|(protocol, client, assignor, strategy, static_membership)| {
            // The broker's version decides only the consumer protocol's commits (model.md
            // §10.6): the other rows run on the same broker as it is read for them.
            let broker_version =
                if matches!(client, Client::JavaConsumerProtocol | Client::LibrdkafkaConsumerProtocol) {
                    scenario.broker_version
                } else {
                    BrokerVersion::Kafka4_3
                };
            let variant = Scenario {
                client,
                strategy,
                assignment_strategy: assignor,
                static_membership,
                broker_version,
                ..scenario.clone()
            };
            (protocol, variant)
        })
        .collect()
}

/// Runs a group `scenario` under each protocol and assignor, dynamic and static, then under
/// each library of [`GROUP_LIBRARIES`]. Rows whose run is refused (e.g. an event reaching a
/// member that is down under that protocol, or a setting the library does not have) are left
/// out; [`compare_group_left_out`] also says which and why. Errors: the scenario's own
/// validation error.
#[cfg(feature = "group")]
pub fn compare_group(scenario: &Scenario) -> Result<Vec<GroupComparisonRow>, ScenarioError> {
    compare_group_left_out(scenario).map(|(rows, _)| rows)
}

/// Rows a group comparison leaves out: each refusal with its rows' (protocol words, static
/// membership).
pub type LeftOut = Refused<(&'static str, bool)>;

/// [`compare_group`]'s rows and the rows it leaves out, with why.
#[cfg(feature = "group")]
pub fn compare_group_left_out(
    scenario: &Scenario,
) -> Result<(Vec<GroupComparisonRow>, LeftOut), ScenarioError> {
    // Each row is a whole simulation: the bound of a run that keeps its lines.
    scenario.validate()?;
    scenario.check_events(crate::scenario::MAX_EVENTS)?;
    let mut rows = Vec::new();
    let mut left_out: LeftOut = Vec::new();
    for (protocol, variant) in group_variants(scenario) {
        let group = match simulate(&variant).map(|run| run.group) {
            Ok(Some(group)) => group,
            Ok(None) => continue, // never: a variant keeps the group's members, partitions and events
            Err(why) => {
                refuse_row(&mut left_out, (protocol, variant.static_membership), why);
                continue;
            }
        };
        rows.push(GroupComparisonRow {
            protocol,
            static_membership: variant.static_membership,
            lost: group.lost(),
            duplicated: group.duplicated(),
            stalled_us: group.partitions.iter().map(|p| p.stalled_us).sum(),
            rebalances: group.rebalances,
        });
    }
    Ok((rows, left_out))
}

/// One row of the share-group comparison (model.md §11): the same group and crash instant
/// under one acknowledgement mode and commit strategy.
#[cfg(feature = "group")]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShareComparisonRow {
    /// `share.acknowledgement.mode`'s JSON name.
    pub acknowledgement_mode: &'static str,
    /// The strategy's JSON name.
    pub strategy: &'static str,
    /// Records lost at the crash instant.
    pub lost: u64,
    /// Records delivered again after a crash at that instant.
    pub duplicated: u64,
    /// The worst `duplicated` over the horizon.
    pub worst_duplicated: u64,
    /// Records processed within the horizon.
    pub processed: u64,
    /// Fraction 0..1 of the horizon the loops spent blocked in `commitSync()`.
    pub blocked_on_commits: f64,
}

/// The commit strategies a share consumer has, in the comparison's order.
#[cfg(feature = "group")]
const SHARE_STRATEGIES: [Strategy; 4] =
    [Strategy::AutoCommit, Strategy::CommitSyncBatch, Strategy::CommitAsyncBatch, Strategy::CommitSyncRecord];

/// The acknowledgement modes [`compare_share`] leaves out of a share-group `scenario`
/// because the scenario refuses every strategy in them, each with the first refusal (e.g.
/// `on_error: reject` in implicit mode: "release and reject are acknowledgements"). Only
/// validates; runs nothing.
#[cfg(feature = "group")]
pub fn share_modes_left_out(scenario: &Scenario) -> Vec<(ShareAcknowledgementMode, ScenarioError)> {
    ShareAcknowledgementMode::ALL
        .iter()
        .filter_map(|&mode| {
            let refusals = SHARE_STRATEGIES.iter().map(|&strategy| {
                Scenario { share_acknowledgement_mode: mode, strategy, ..scenario.clone() }.validate()
            });
            let mut first = None;
            for refusal in refusals {
                match refusal {
                    Ok(()) => return None,
                    Err(e) => first = first.or(Some(e)),
                }
            }
            first.map(|e| (mode, e))
        })
        .collect()
}

/// Runs a share-group `scenario` under both acknowledgement modes and each commit strategy
/// a share consumer has, reading each at `crash_at_us`. Rows whose run is refused (e.g.
/// `on_error: release` in implicit mode) are left out ([`share_modes_left_out`] says why).
/// Errors: the scenario's own validation error.
#[cfg(feature = "group")]
pub fn compare_share(
    scenario: &Scenario,
    crash_at_us: u64,
) -> Result<Vec<ShareComparisonRow>, ScenarioError> {
    scenario.validate()?;
    let mut rows = Vec::new();
    for mode in ShareAcknowledgementMode::ALL {
        for strategy in SHARE_STRATEGIES {
            let variant = Scenario { share_acknowledgement_mode: *mode, strategy, ..scenario.clone() };
            if variant.validate().is_err() {
                continue;
            }
            let Ok(run) = simulate(&variant) else { continue };
            let share = ShareSummary::new(&run, crash_at_us);
            rows.push(ShareComparisonRow {
                acknowledgement_mode: mode.name(),
                strategy: strategy.name(),
                lost: share.at_crash.lost,
                duplicated: share.at_crash.duplicated,
                worst_duplicated: share.worst_duplicated,
                processed: share.processed,
                blocked_on_commits: run.blocked_on_commits(),
            });
        }
    }
    Ok(rows)
}
