//! `[routing]`: how switches pick among equal-cost next hops.

use super::error::{name_list, ScenarioError};
use crate::vocab::named_enum;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

named_enum! {
    /// A switch's choice among the output ports on shortest paths to a
    /// destination (docs/scenario.md).
    pub enum SelectionName ("next-hop selection") {
        /// Per-flow ECMP: a hash of the flow's 5-tuple under the switch's
        /// own salt (data-center switches' default).
        Ecmp = "ecmp",
        /// Always the first port (in link order): one path per destination.
        First = "first",
        /// The destination address's low-order bits (the fat tree of
        /// Al-Fares et al., as the outcast study routes).
        AddressBits = "address_bits",
        /// The destination host's index, one base-(ties) digit per tier:
        /// every flow to a host takes one path from the top tier down (the
        /// TCP outcast reproduction's static routing).
        DestinationId = "destination_id",
        /// Per-packet spraying, round robin.
        Spray = "spray",
        /// Per-flow ECMP with one hash at every switch (no per-switch
        /// salt): the known failure of ns-3-derived code, kept to show it
        /// (flows that tie at one tier tie again at the next).
        EcmpUnsalted = "ecmp_unsalted",
    }
}

named_enum! {
    /// Which paths routing keeps (docs/scenario.md).
    pub enum PathsName ("routing paths") {
        /// Shortest paths (hop count); ties go to the selection.
        Shortest = "shortest",
        /// Every flow climbs to the top tier and comes down (the outcast
        /// study's remedy): flows reach a receiver's switch over its ports
        /// from above, however close their sender is.
        EqualLength = "equal_length",
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// Every switch's selection. ECMP by default: what a researcher gets
    /// from a data-center switch (and only matters where paths tie; the
    /// star and the dumbbell have one path per destination).
    #[serde(default = "RoutingSpec::default_selection")]
    pub selection: SelectionName,
    /// Per-switch overrides: switch name -> selection.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub switches: BTreeMap<String, SelectionName>,
    /// Shortest paths by default: what every routing protocol computes.
    #[serde(
        default = "RoutingSpec::default_paths",
        skip_serializing_if = "PathsName::is_shortest"
    )]
    pub paths: PathsName,
}

impl PathsName {
    fn is_shortest(&self) -> bool {
        *self == PathsName::Shortest
    }
}

impl RoutingSpec {
    fn default_paths() -> PathsName {
        PathsName::Shortest
    }

    fn default_selection() -> SelectionName {
        SelectionName::Ecmp
    }

    pub fn is_default(&self) -> bool {
        *self == RoutingSpec::default()
    }

    /// The selection of switch `name`.
    pub fn of(&self, name: &str) -> SelectionName {
        self.switches.get(name).copied().unwrap_or(self.selection)
    }

    pub fn validate(
        &self,
        switch_set: &std::collections::HashSet<&str>,
        switches: &[&str],
        topology: &super::TopologySpec,
    ) -> Result<(), ScenarioError> {
        for name in self.switches.keys() {
            if !switch_set.contains(name.as_str()) {
                return Err(ScenarioError::new(
                    format!("routing.switches.{name}"),
                    format!(
                        "{name:?} is not a switch of this topology; expected one of {}",
                        name_list(switches)
                    ),
                ));
            }
        }
        if self.paths == PathsName::EqualLength && !topology.graph().is_some_and(|g| g.has_tiers())
        {
            return Err(ScenarioError::new(
                "routing.paths",
                format!(
                    "\"equal_length\" needs switches in tiers; the {} topology has none; expected \"shortest\", or a fat_tree or leaf_spine",
                    topology.kind()
                ),
            ));
        }
        Ok(())
    }
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec {
            selection: RoutingSpec::default_selection(),
            switches: BTreeMap::new(),
            paths: PathsName::Shortest,
        }
    }
}
