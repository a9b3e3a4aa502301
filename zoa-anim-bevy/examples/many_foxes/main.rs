//! Bevy's `many_foxes` stress test, side by side: N copies of the Fox glTF
//! scene animated by `bevy_animation` in one headless app and by ZOA in
//! another, in one process, alternating blocks of frames so both see the same
//! machine state; every fox walks and runs at once with its own mix and phase.
//!
//! ```sh
//! cargo run --release -p zoa-anim-bevy --features render --example many_foxes -- \
//!     --foxes 1000 --frames 300 [--block 30] [--format json|text]
//! ```
//!
//! Both apps hold the same plugins (Bevy's defaults without window, renderer
//! or log, plus ZOA's), the same entities and a fixed 1/60 s frame; only the
//! animator differs (see `foxes.rs`). Reported per frame, mean over `--frames`
//! frames of each app after a warm-up of 60:
//! - `*_ms`: the whole `App::update`;
//! - `*_anim_ms`: the animator's systems only, from a system ordered right
//!   before them to one right after (`bevy_animation`'s `AnimationSystems`
//!   set; ZOA's `ZoaSet::Input ..= ZoaSet::Events`, ordered after it);
//! - `ratio`, `anim_ratio`: ZOA over `bevy_animation` (below 1: ZOA is faster).
//!
//! `Fox.glb` comes from `ZOA_ASSETS` (else `../shared/assets` beside the
//! repository); ZOA's definitions (`many_foxes/fox/`) are copied into a
//! temporary folder with a link to it.

#![allow(elided_lifetimes_in_paths)]

mod foxes;

use std::time::{Duration, Instant};

use bevy::prelude::App;
use foxes::{AnimationClock, Animator, fox_app, fox_folder, shared_assets, wait_until_animated};

struct Args {
    foxes: usize,
    frames: usize,
    block: usize,
    json: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { foxes: 1000, frames: 300, block: 30, json: false };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut number = |name: &str| {
            it.next()
                .and_then(|v| v.parse::<usize>().ok())
                .filter(|&n| n > 0)
                .ok_or(format!("{name} needs a positive number"))
        };
        match flag.as_str() {
            "--foxes" => a.foxes = number("--foxes")?,
            "--frames" => a.frames = number("--frames")?,
            "--block" => a.block = number("--block")?,
            "--format" => match it.next().as_deref() {
                Some("json") => a.json = true,
                Some("text") => a.json = false,
                _ => return Err("--format takes json or text".into()),
            },
            other => {
                return Err(format!(
                    "unknown argument `{other}` (--foxes N, --frames N, --block N, --format json|text)"
                ));
            }
        }
    }
    Ok(a)
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One side of the comparison: its app and what its frames took.
struct Side {
    app: App,
    frames: Duration,
}

impl Side {
    fn run(&mut self, frames: usize) {
        let start = Instant::now();
        for _ in 0..frames {
            self.app.update();
        }
        self.frames += start.elapsed();
    }
    fn anim(&self) -> Duration {
        self.app.world().resource::<AnimationClock>().total
    }
}

fn run(args: &Args) -> Result<String, String> {
    let assets = shared_assets();
    if !assets.join("Fox.glb").is_file() {
        return Err(format!("Fox.glb not found in {} (set ZOA_ASSETS to the shared asset folder)", assets.display()));
    }
    let tmp = std::env::temp_dir().join(format!("zoa-many-foxes-{}", std::process::id()));
    let folder = fox_folder(&assets, &tmp.join("fox")).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let result = compare(args, &assets, &folder);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn compare(args: &Args, assets: &std::path::Path, folder: &std::path::Path) -> Result<String, String> {
    let mut sides = Vec::new();
    for animator in [Animator::BevyAnimation, Animator::Zoa] {
        let mut app = fox_app(assets, folder, args.foxes, animator)?;
        wait_until_animated(&mut app, args.foxes, 600)?;
        for _ in 0..60 {
            app.update();
        }
        app.world_mut().resource_mut::<AnimationClock>().total = Duration::ZERO;
        sides.push(Side { app, frames: Duration::ZERO });
    }
    let mut done = 0;
    while done < args.frames {
        let n = args.block.min(args.frames - done);
        for side in &mut sides {
            side.run(n);
        }
        done += n;
    }
    let per_frame = |d: Duration| d.as_secs_f64() * 1000.0 / args.frames as f64;
    let (b, z) = (&sides[0], &sides[1]);
    let (b_ms, z_ms, b_anim, z_anim) =
        (per_frame(b.frames), per_frame(z.frames), per_frame(b.anim()), per_frame(z.anim()));
    Ok(if args.json {
        format!(
            "{{\"foxes\":{},\"frames\":{},\"bevy_animation_ms\":{b_ms:.3},\"zoa_ms\":{z_ms:.3},\"ratio\":{:.3},\
             \"bevy_animation_anim_ms\":{b_anim:.3},\"zoa_anim_ms\":{z_anim:.3},\"anim_ratio\":{:.3}}}",
            args.foxes,
            args.frames,
            z_ms / b_ms,
            z_anim / b_anim
        )
    } else {
        format!(
            "{} foxes, {} frames each (blocks of {}), ms per frame:\n\
             \x20                 App::update   animation systems\n\
             \x20 bevy_animation  {b_ms:11.3}   {b_anim:17.3}\n\
             \x20 ZOA             {z_ms:11.3}   {z_anim:17.3}\n\
             \x20 ZOA / bevy      {:11.3}   {:17.3}",
            args.foxes,
            args.frames,
            args.block,
            z_ms / b_ms,
            z_anim / b_anim
        )
    })
}

fn main() {
    let json = std::env::args().collect::<Vec<_>>().windows(2).any(|w| w[0] == "--format" && w[1] == "json");
    let outcome = parse_args().and_then(|args| run(&args));
    match outcome {
        Ok(report) => println!("{report}"),
        Err(e) => {
            if json {
                println!("{{\"error\":{}}}", json_string(&e));
            } else {
                eprintln!("many_foxes: {e}");
            }
            std::process::exit(2);
        }
    }
}
