//! One module per subcommand.

pub mod gen_fixtures;
pub mod ik;
pub mod inspect;
pub mod pose;
pub mod preview;
pub mod resolve;
pub mod bench;
pub mod sound;
pub mod tags;
pub mod validate;
pub mod scan;
pub mod import;
pub mod autobind;
pub mod neighbourhood;
pub mod schema;

/// `--format human|json`, shared by every subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Readable text.
    #[default]
    Human,
    /// Machine-readable JSON on stdout.
    Json,
}
