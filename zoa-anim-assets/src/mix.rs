//! Mix files: a stack of clip layers to blend, read by `zoa-anim pose --mix`.
//!
//! One `[[layer]]` table per layer, in blending order:
//!
//! ```toml
//! [[layer]]
//! clip = "Walk"        # name or index
//! time = 0.4           # seconds, before looping/clamping
//! weight = 0.25
//! loop = true          # default true
//! additive = false     # true: made additive against reference_time of the same clip
//! reference_time = 0.0
//! include = []         # optional mask: joint names whose subtrees are kept
//! exclude = []         # optional mask: joint names whose subtrees are removed
//! ```
//!
//! [`parse_mix`] checks the file on its own: TOML syntax and field types, at
//! least one layer and at most [`MAX_MIX_LAYERS`]; [`MixLayer::problems`]
//! checks each layer's numbers. What needs the model (does the clip exist, do
//! the mask's joints exist) is checked by the caller that binds the layers to
//! a skeleton. Messages name the layer and field (`layer[2].weight: …`) but
//! not the file: the caller prefixes its path.

use serde::Deserialize;

/// Most `[[layer]]` tables a mix file may have (each layer owns a sampling
/// context sized to the skeleton, about 20 KiB for a 24-joint rig); a longer
/// mix is refused before any layer is checked.
pub const MAX_MIX_LAYERS: usize = 256;

/// Which clip of the model a layer plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClipKey {
    /// The clip's index in the file.
    Index(usize),
    /// The clip's name (as `zoa_anim_assets::gltf::GltfAsset::clip` looks it up).
    Name(String),
}

impl std::fmt::Display for ClipKey {
    /// The index as a number, a name in backticks.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClipKey::Index(k) => write!(f, "{k}"),
            ClipKey::Name(n) => write!(f, "`{n}`"),
        }
    }
}

/// One `[[layer]]` of a mix file, as written (numbers are checked by
/// [`MixLayer::problems`], not here).
#[derive(Debug, Clone, PartialEq)]
pub struct MixLayer {
    /// The clip it plays.
    pub clip: ClipKey,
    /// Seconds, before looping or clamping.
    pub time: f32,
    /// Blend weight, `0..=1`.
    pub weight: f32,
    /// Loop the clip (`loop`, default true) rather than clamp the time.
    pub looping: bool,
    /// Made additive against `reference_time` of the same clip.
    pub additive: bool,
    /// The additive reference time, seconds (default 0).
    pub reference_time: f32,
    /// Mask: joint names whose subtrees are kept (empty with `exclude`: no mask).
    pub include: Vec<String>,
    /// Mask: joint names whose subtrees are removed.
    pub exclude: Vec<String>,
}

impl MixLayer {
    /// Every problem with this layer's numbers, each as
    /// `layer[index].field: what`, in field order (`time`, `weight`,
    /// `reference_time`).
    #[must_use]
    pub fn problems(&self, index: usize) -> Vec<String> {
        let at = format!("layer[{index}]");
        let mut problems = Vec::new();
        if !self.time.is_finite() {
            problems.push(format!("{at}.time: {} is not a finite number of seconds", self.time));
        }
        if !(0.0..=1.0).contains(&self.weight) {
            problems.push(format!("{at}.weight: {} is outside 0..=1", self.weight));
        }
        if !self.reference_time.is_finite() {
            problems.push(format!("{at}.reference_time: {} is not finite", self.reference_time));
        }
        problems
    }
}

/// A parsed mix file: its layers in blending order (at least one, at most
/// [`MAX_MIX_LAYERS`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Mix {
    /// The layers, bottom first.
    pub layers: Vec<MixLayer>,
}

impl Mix {
    /// Every layer's [`MixLayer::problems`], layer by layer.
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        self.layers.iter().enumerate().flat_map(|(i, l)| l.problems(i)).collect()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLayer {
    clip: RawClipKey,
    time: f32,
    weight: f32,
    #[serde(default = "yes", rename = "loop")]
    looping: bool,
    #[serde(default)]
    additive: bool,
    #[serde(default)]
    reference_time: f32,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawClipKey {
    Index(usize),
    Name(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMix {
    layer: Vec<RawLayer>,
}

/// Parses a mix file's text. `Err` holds the problems that leave no mix to
/// check further (a TOML or field-type error with its line and column, no
/// layer, more than [`MAX_MIX_LAYERS`]); the layers' numbers are checked by
/// [`Mix::problems`].
///
/// # Errors
/// Those problems, one message each.
pub fn parse_mix(text: &str) -> Result<Mix, Vec<String>> {
    let raw: RawMix = toml::from_str(text).map_err(|e| vec![e.to_string()])?;
    if raw.layer.is_empty() {
        return Err(vec!["no [[layer]] tables".to_owned()]);
    }
    if raw.layer.len() > MAX_MIX_LAYERS {
        return Err(vec![format!("{} layers; a mix has at most {MAX_MIX_LAYERS}", raw.layer.len())]);
    }
    let layers = raw
        .layer
        .into_iter()
        .map(|l| MixLayer {
            clip: match l.clip {
                RawClipKey::Index(k) => ClipKey::Index(k),
                RawClipKey::Name(n) => ClipKey::Name(n),
            },
            time: l.time,
            weight: l.weight,
            looping: l.looping,
            additive: l.additive,
            reference_time: l.reference_time,
            include: l.include,
            exclude: l.exclude,
        })
        .collect();
    Ok(Mix { layers })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_takes_its_defaults() {
        let mix = parse_mix("[[layer]]\nclip = \"Walk\"\ntime = 0.5\nweight = 1\n").unwrap();
        assert_eq!(
            mix.layers,
            vec![MixLayer {
                clip: ClipKey::Name("Walk".into()),
                time: 0.5,
                weight: 1.0,
                looping: true,
                additive: false,
                reference_time: 0.0,
                include: vec![],
                exclude: vec![],
            }]
        );
        assert!(mix.problems().is_empty());
    }

    #[test]
    fn an_index_is_a_clip_index() {
        let mix = parse_mix("[[layer]]\nclip = 3\ntime = 0\nweight = 0\nloop = false\n").unwrap();
        assert_eq!(mix.layers[0].clip, ClipKey::Index(3));
        assert_eq!(mix.layers[0].clip.to_string(), "3");
        assert!(!mix.layers[0].looping);
    }

    #[test]
    fn numbers_are_checked_per_layer_and_field() {
        let text = "[[layer]]\nclip = 0\ntime = inf\nweight = 1.5\nreference_time = nan\n\
                    [[layer]]\nclip = \"a\"\ntime = 0\nweight = -0.1\n";
        let mix = parse_mix(text).unwrap();
        assert_eq!(
            mix.problems(),
            [
                "layer[0].time: inf is not a finite number of seconds",
                "layer[0].weight: 1.5 is outside 0..=1",
                "layer[0].reference_time: NaN is not finite",
                "layer[1].weight: -0.1 is outside 0..=1",
            ]
        );
    }

    #[test]
    fn no_layer_too_many_layers_and_syntax_errors_leave_no_mix() {
        assert_eq!(parse_mix("layer = []").unwrap_err(), ["no [[layer]] tables"]);
        let many = "[[layer]]\nclip = 0\ntime = 0\nweight = 1\n".repeat(MAX_MIX_LAYERS + 1);
        assert_eq!(parse_mix(&many).unwrap_err(), ["257 layers; a mix has at most 256"]);
        let err = parse_mix("[[layer]]\nclip = 0\ntime = 0\nweight = 1\nspeed = 2\n").unwrap_err();
        assert!(err[0].contains("unknown field `speed`") && err[0].contains("line 5"), "{err:?}");
        let err = parse_mix("[[layer]]\nclip = 0\n").unwrap_err();
        assert!(err[0].contains("missing field `time`"), "{err:?}");
    }
}
