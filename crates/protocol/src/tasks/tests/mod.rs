//! Data-driven tests of the tracker: parsing tables, then scripted sessions snapshotted.

mod bindings;
mod contract;
mod lists;
mod parse;
mod sessions;
