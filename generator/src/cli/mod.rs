//! The command lines of the generator: its run ([`generate`]) and its `explain` and `can-i`
//! subcommands, whose resource arguments are kubectl's ([`kubectl`]).

pub mod can_i;
pub mod explain;
pub mod generate;
pub mod kubectl;
