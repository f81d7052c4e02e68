//! `[routing]`: how switches pick among equal-cost next hops.

use super::names::named_enum;
use super::ScenarioError;
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
        /// Per-packet spraying, round robin.
        Spray = "spray",
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
}

impl RoutingSpec {
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

    pub fn validate(&self, switches: &[&str]) -> Result<(), ScenarioError> {
        for name in self.switches.keys() {
            if !switches.contains(&name.as_str()) {
                return Err(ScenarioError::new(
                    format!("routing.switches.{name}"),
                    format!(
                        "{name:?} is not a switch of this topology; expected one of {}",
                        switches.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec {
            selection: RoutingSpec::default_selection(),
            switches: BTreeMap::new(),
        }
    }
}
