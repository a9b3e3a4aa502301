//! Free play (the Preview Lab's live mode): one [`Character`] that plays a
//! graph — or a single clip — while its parameters are set from outside,
//! advanced in fixed ticks as time passes.
//!
//! Like the preset simulator it is a client of the public character API: a
//! graph plays as the one graph of a loadout whose binding profile binds
//! every parameter under its own name (`speed` → `speed`), so setting a
//! parameter is [`Character::set_float`] / `set_int` / `set_bool` /
//! [`Character::fire`] of that binding, exactly what a game binding the
//! graph that way would call. A single clip plays as a one-state graph
//! (loop and speed as asked; speed also live through
//! [`Character::set_playback_speed`]). No tag table is used, so what plays
//! is the graph alone.
//!
//! # Key decisions
//! - **Ticks, not wall time.** [`LiveSim::advance`] runs whole ticks of
//!   `1 / rate` seconds and keeps the remainder, so the evaluation is the
//!   same whatever the caller's clock does.
//! - **Bounded.** A session runs at most [`zoa_anim_core::budget::LAB_TICKS`]
//!   ticks (the Lab's budget), and one call advances at most
//!   [`MAX_ADVANCE`] seconds.

use std::path::Path;
use std::sync::Arc;

use zoa_anim_assets::character::{CharacterChoice, load_character};
use zoa_anim_assets::defs::DefinitionSet;
use zoa_anim_core::graph::{AnimationGraph, Crossfade, GraphLayer, GraphState, Motion, ParameterDefault, StateIndex};
use zoa_anim_core::{
    AnimationBindingId, BindingProfileBuilder, CharacterBundle, DefaultBindings, PlayerProfileEntry, PlayerProfileSet,
    PlayerProfileType,
};
use zoa_anim_runtime::character::graph::ParamValue;
use zoa_anim_runtime::{Character, CharacterDefinition, CharacterSettings, RuntimeError};

/// Most seconds one [`LiveSim::advance`] call simulates (a late caller
/// slows the preview down rather than making it jump).
pub const MAX_ADVANCE: f64 = 0.25;

/// Id of the loadout and binding profile free play makes.
const FREE_PLAY: &str = "workbench.free_play";

/// Id of the one-state graph single-clip mode makes.
const CLIP_GRAPH: &str = "workbench.clip";

/// What a live session plays.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveMode {
    /// The animation graph with this id, every parameter settable.
    Graph(String),
    /// One clip, looping or once.
    Clip {
        /// Clip id.
        clip: String,
        /// Loop it.
        looping: bool,
    },
}

/// A graph parameter as free play offers it.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveParameter {
    /// Its name.
    pub name: String,
    /// Its type and default.
    pub default: ParameterDefault,
    /// The binding that sets it (`None`: its name is not a binding id, so
    /// nothing outside the graph can set it).
    pub binding: Option<AnimationBindingId>,
}

/// A value to give a parameter (`Fire` for a trigger).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LiveValue {
    /// A float or int parameter (ints are rounded).
    Number(f64),
    /// A bool parameter.
    Bool(bool),
    /// Fires a trigger.
    Fire,
}

/// What one layer plays now.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveLayer {
    /// Layer name.
    pub name: String,
    /// Active states: name, weight and normalised time (unwrapped cycles).
    pub states: Vec<(String, f32, f64)>,
    /// The transition under way: source, target and progress `0..=1`.
    pub transition: Option<(String, String, f32)>,
}

/// Free play of one character.
pub struct LiveSim {
    def: Arc<CharacterDefinition>,
    character: Character,
    rate: f32,
    graph: String,
    parameters: Vec<LiveParameter>,
    carry: f64,
    ticks: u64,
    events: Vec<String>,
}

impl std::fmt::Debug for LiveSim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSim").field("graph", &self.graph).field("ticks", &self.ticks).finish_non_exhaustive()
    }
}

/// The one-state graph that plays `clip`.
fn clip_graph(clip: &str, model: &str, looping: bool) -> AnimationGraph {
    AnimationGraph {
        id: CLIP_GRAPH.to_owned(),
        model: model.to_owned(),
        parameters: Vec::new(),
        layers: vec![GraphLayer {
            name: "base".into(),
            entry: StateIndex(0),
            weight: 1.0,
            blend_mode: zoa_anim_core::graph::BlendMode::Override,
            bone_mask: None,
        }],
        states: vec![GraphState {
            name: clip.to_owned(),
            layer: 0,
            machine: None,
            motion: Motion::Clip(clip.to_owned()),
            looping,
            speed: 1.0,
            crossfade: Crossfade::default(),
            weight: None,
            blend_mode: None,
            bone_mask: None,
            sync_group: None,
        }],
        transitions: Vec::new(),
    }
}

/// `bundle` made to play graph `graph` alone, every parameter bound under its own name.
fn free_play(mut bundle: CharacterBundle, graph: &str) -> Result<(CharacterBundle, Vec<LiveParameter>), Vec<String>> {
    let Some(g) = bundle.graphs.iter().find(|g| g.id == graph) else {
        return Err(vec![format!("no animation_graph `{graph}` loads (fix its problems first)")]);
    };
    let mut profile = BindingProfileBuilder::new(FREE_PLAY, "Workbench free play");
    let mut parameters = Vec::with_capacity(g.parameters.len());
    for p in &g.parameters {
        let binding = AnimationBindingId::new(&p.name).ok();
        if let Some(id) = binding {
            profile = match p.default {
                ParameterDefault::Float(_) => profile.add_float(id, &p.name),
                ParameterDefault::Int(_) => profile.add_int(id, &p.name),
                ParameterDefault::Bool(_) => profile.add_bool(id, &p.name),
                ParameterDefault::Trigger => profile.add_trigger(id, &p.name),
            };
        }
        parameters.push(LiveParameter { name: p.name.clone(), default: p.default, binding });
    }
    let profile = profile.build().map_err(|e| vec![format!("cannot bind the graph's parameters: {e}")])?;
    bundle.binding_profiles.push(profile);
    bundle.player_set = Some(PlayerProfileSet {
        id: FREE_PLAY.to_owned(),
        default_profile: PlayerProfileType::Unarmed,
        profiles: vec![PlayerProfileEntry {
            class: PlayerProfileType::Unarmed,
            binding_profile: FREE_PLAY.to_owned(),
            animation_profile: None,
            animation_graph: Some(graph.to_owned()),
        }],
    });
    bundle.animation_profile = None;
    Ok((bundle, parameters))
}

impl LiveSim {
    /// Free play of `mode` in the folder `set` (loaded from `dir`) at `rate` Hz.
    pub fn from_folder(set: &DefinitionSet, dir: &Path, mode: &LiveMode, rate: f32) -> Result<LiveSim, Vec<String>> {
        if !(rate.is_finite() && rate > 0.0 && rate <= 1000.0) {
            return Err(vec![format!("rate {rate} Hz must be in (0, 1000]")]);
        }
        let mut bundle = load_character(set, dir, CharacterChoice::default())
            .map_err(|problems| problems.iter().map(ToString::to_string).collect::<Vec<_>>())?;
        let graph = match mode {
            LiveMode::Graph(id) => id.clone(),
            LiveMode::Clip { clip, looping } => {
                let Some(c) = bundle.clips.iter().find(|c| c.asset.id == *clip) else {
                    return Err(vec![format!("no clip `{clip}` loads")]);
                };
                let model = c.asset.source.clone();
                bundle.graphs.push(clip_graph(clip, &model, *looping));
                CLIP_GRAPH.to_owned()
            }
        };
        let (bundle, parameters) = free_play(bundle, &graph)?;
        let settings = CharacterSettings { root_motion: false, ..CharacterSettings::default() };
        let def = CharacterDefinition::new(&bundle, settings)
            .map_err(|e| vec![format!("the runtime rejects the definitions: {e}")])?;
        let character = Character::new(&def).map_err(|e| vec![e.to_string()])?;
        Ok(LiveSim { def, character, rate, graph, parameters, carry: 0.0, ticks: 0, events: Vec::new() })
    }

    /// The graph's parameters.
    #[must_use]
    pub fn parameters(&self) -> &[LiveParameter] {
        &self.parameters
    }

    /// The character (for its pose and matrices).
    #[must_use]
    pub fn character(&self) -> &Character {
        &self.character
    }

    /// The compiled definition.
    #[must_use]
    pub fn definition(&self) -> &Arc<CharacterDefinition> {
        &self.def
    }

    /// Ticks run so far.
    #[must_use]
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Sets parameter `name` through its binding. Errors: no such parameter,
    /// one no binding reaches, or a value of the wrong type.
    pub fn set(&mut self, name: &str, value: LiveValue) -> Result<(), String> {
        let p = self.parameters.iter().find(|p| p.name == name).ok_or_else(|| format!("no parameter `{name}`"))?;
        let id =
            p.binding.ok_or_else(|| format!("`{name}` is not a binding id, so nothing outside the graph sets it"))?;
        let c = &mut self.character;
        match (p.default, value) {
            (ParameterDefault::Float(_), LiveValue::Number(v)) if id == DefaultBindings::SPEED => c.set_speed(v as f32),
            (ParameterDefault::Float(_), LiveValue::Number(v)) => c.set_float(id, v as f32),
            (ParameterDefault::Int(_), LiveValue::Number(v)) => c.set_int(id, v.round().clamp(-2e9, 2e9) as i32),
            (ParameterDefault::Bool(_), LiveValue::Bool(v)) => c.set_bool(id, v),
            (ParameterDefault::Trigger, LiveValue::Fire) => c.fire(id),
            (d, _) => return Err(format!("`{name}` is a {} parameter", d.type_name())),
        }
        Ok(())
    }

    /// Plays everything at `speed` times (`>= 0`).
    pub fn set_playback_speed(&mut self, speed: f32) {
        self.character.set_playback_speed(speed);
    }

    /// Runs as many whole ticks as fit in `seconds` (at most [`MAX_ADVANCE`])
    /// plus what the last call left over; returns the ticks run.
    pub fn advance(&mut self, seconds: f64) -> Result<u64, RuntimeError> {
        let dt = 1.0 / f64::from(self.rate);
        self.carry += seconds.clamp(0.0, MAX_ADVANCE);
        let mut n = 0;
        while self.carry + 1e-9 >= dt {
            self.carry -= dt;
            self.character.update(dt as f32)?;
            for e in self.character.events() {
                if self.events.len() < 256 {
                    self.events.push(e.to_string());
                }
            }
            self.character.clear_events();
            n += 1;
        }
        self.ticks += n;
        Ok(n)
    }

    /// The events delivered since the last call (`0.350 s notify Footstep`), at most 256.
    pub fn take_events(&mut self) -> Vec<String> {
        std::mem::take(&mut self.events)
    }

    /// Each parameter's value now (`None`: a trigger that is not set).
    #[must_use]
    pub fn values(&self) -> Vec<ParamValue> {
        self.character.graph_instance().parameters().values().to_vec()
    }

    /// What each layer of the graph plays now.
    #[must_use]
    pub fn layers(&self) -> Vec<LiveLayer> {
        let instance = self.character.graph_instance();
        let Some(def) = instance.definition() else { return Vec::new() };
        let graph = def.graph();
        let name = |s: StateIndex| graph.states.get(s.index()).map_or_else(String::new, |x| x.name.clone());
        (0..graph.layers.len())
            .map(|l| LiveLayer {
                name: graph.layers[l].name.clone(),
                states: instance.active_states(l).map(|a| (name(a.state), a.weight, a.normalized_time)).collect(),
                transition: instance.transition(l).map(|t| {
                    let p = if t.duration > 0.0 { (t.elapsed / t.duration).clamp(0.0, 1.0) } else { 1.0 };
                    (name(t.from), name(t.to), p)
                }),
            })
            .collect()
    }

    /// Clip `name`'s animation length and its playback length (divided by
    /// its rate), seconds.
    #[must_use]
    pub fn clip_length(&self, name: &str) -> Option<(f32, f32)> {
        let clips = self.def.clips();
        let info = clips.try_get(clips.index_of(name)?)?;
        Some((info.duration, info.playback_length()))
    }

    /// Model-space joint positions now.
    #[must_use]
    pub fn joint_positions(&self) -> Vec<[f32; 3]> {
        self.character.model_matrices().iter().map(|m| m.w_axis.truncate().to_array()).collect()
    }
}
