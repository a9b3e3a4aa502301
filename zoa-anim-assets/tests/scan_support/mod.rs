//! Scanner results built in memory, shared by the import tests and the
//! scaling benchmark (`#[path]`-included there): clip summaries as the
//! scanner would report them, without a model file to scan.

use zoa_anim_assets::authoring::ScannedClip;

/// `n` one-second animations that all carry the name `Take 001` (as many
/// exporters name every take), at indices `0..n`: each has two keys on one
/// animated joint and does not loop.
#[must_use]
pub fn takes_named_alike(n: usize) -> Vec<ScannedClip> {
    (0..n)
        .map(|index| ScannedClip {
            name: "Take 001".into(),
            index,
            named: true,
            duration: 1.0,
            key_count: 2,
            joints_animated: 1,
            loops: false,
            root_travel: 0.0,
            root_displacement: [0.0; 3],
            leg_motion: 0.0,
            arm_motion: 0.0,
        })
        .collect()
}
