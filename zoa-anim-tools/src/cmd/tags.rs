//! `zoa-anim tags`: the state-tag vocabulary, so authors can write state texts
//! without reading the source.

use std::process::ExitCode;

use zoa_anim_core::StateDimension;
use zoa_anim_core::fallback::RELAX_ORDER;

use super::Format;

/// Arguments of `zoa-anim tags`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Prints every dimension with its flags, and the fallback relax order.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.format {
        Format::Json => {
            let dims: serde_json::Map<String, serde_json::Value> = StateDimension::ALL
                .iter()
                .map(|d| (d.name().to_owned(), d.flags().map(|(n, _)| n).collect::<Vec<_>>().into()))
                .collect();
            let relax: Vec<&str> = RELAX_ORDER.iter().map(|d| d.name()).collect();
            let out = serde_json::json!({ "dimensions": dims, "relax_order": relax });
            crate::output::json_document(serde_json::to_string_pretty(&out)?)?;
        }
        Format::Human => {
            for d in StateDimension::ALL {
                let flags: Vec<String> = d.flags().map(|(n, _)| n).collect();
                outln!("{:<12} {}", d.name(), flags.join(" | "));
            }
            let relax: Vec<&str> = RELAX_ORDER.iter().map(|d| d.name()).collect();
            outln!("\nfallback relaxes: {} (locomotion is never relaxed)", relax.join(" -> "));
            outln!("state text: locomotion=sprint posture=standing combat=armed_rifle|aiming mood=alert");
        }
    }
    Ok(ExitCode::SUCCESS)
}
