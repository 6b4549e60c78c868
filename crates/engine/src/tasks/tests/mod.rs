//! Data-driven tests of the tracker: parsing tables, then scripted sessions snapshotted.

mod contract;
mod lists;
mod parse;
mod sessions;
