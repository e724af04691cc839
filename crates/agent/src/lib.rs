//! The live agent's layer. So far: topology detection (`topology`).

pub mod topology;
