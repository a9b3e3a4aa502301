//! One module per subcommand.

pub mod autobind;
pub mod bake;
pub mod bench;
pub mod gen_fixtures;
pub mod graph;
pub mod ik;
pub mod import;
pub mod inspect;
pub mod neighbourhood;
pub mod pose;
pub mod preview;
pub mod resolve;
pub mod scan;
pub mod schema;
pub mod sound;
pub mod tags;
pub mod validate;

/// `--format human|json`, shared by every subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Readable text.
    #[default]
    Human,
    /// Machine-readable JSON on stdout.
    Json,
}
