//! One module per subcommand.

pub mod inspect;
pub mod sound;
pub mod tags;

/// `--format human|json`, shared by every subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Readable text.
    #[default]
    Human,
    /// Machine-readable JSON on stdout.
    Json,
}
