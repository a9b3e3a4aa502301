//! The one place the Workbench reaches the runtime's preview pipeline: the
//! Preview Lab runs presets through it, and the Binding Browser asks it which
//! bindings are inert. Everything else in `serve/` sees only [`LabRun`] and
//! [`InertBinding`], so moving to another runtime API changes this file
//! alone.
//!
//! It builds the `zoa-anim preview` set-up (`PreviewSetup::from_folder`: the
//! definition folder loaded into a character bundle) and runs
//! `crate::preview::PreviewSim`, exactly as the CLI does; the
//! simulator drives one `Character` of the public character API, so what the
//! Lab shows is what a game gets from that API.
//!
//! Models are read only from inside `--defs`/`--assets`: a clip whose model
//! lies elsewhere is refused with a note naming the folder to pass.

use crate::preview::{Capture, PreviewSetup, PreviewSim};
use serde_json::{Value, json};
use zoa_anim_assets::defs::DefinitionSet;
use zoa_anim_core::PlayerProfileType;
use zoa_anim_core::contracts::DriverProblem;

use super::{App, Job};
use crate::capture_export;

/// Why the pipeline could not run.
#[derive(Debug)]
pub enum PipelineError {
    /// The folder lacks what a preview needs, or the runtime rejects it (every problem).
    Setup(Vec<String>),
    /// No such preset or player profile set.
    Preset(String),
    /// The run is over one of the Lab's budgets (the message names it).
    Budget(String),
}

impl PipelineError {
    /// Every problem as text.
    pub fn problems(&self) -> Vec<String> {
        match self {
            PipelineError::Setup(p) => p.clone(),
            PipelineError::Preset(p) | PipelineError::Budget(p) => vec![p.clone()],
        }
    }
}

/// A binding the driver treats as a no-op for a class.
#[derive(Debug, Clone, PartialEq)]
pub struct InertBinding {
    /// The loadout class.
    pub class: PlayerProfileType,
    /// Binding or slot id.
    pub id: String,
    /// Why it does nothing.
    pub reason: String,
}

fn models_outside(app: &App, set: &DefinitionSet) -> Vec<String> {
    let dir = &app.roots.defs().dir;
    let mut out: Vec<String> = set
        .clips
        .iter()
        .map(|c| &c.value.source)
        .filter(|s| {
            let p = dir.join(s);
            p.exists() && !app.roots.contains(&p)
        })
        .map(|s| {
            let p = dir.join(s);
            let folder = p.parent().map(|f| f.display().to_string()).unwrap_or_default();
            format!(
                "model `{s}` lies outside --defs and --assets; the Workbench reads models only from those folders \
                 (restart it with `--assets {folder}`)"
            )
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The set-up for the player profile set `profile_set` (the first by id
/// when `None`, as `zoa-anim preview` plays).
fn setup(app: &App, set: &DefinitionSet, profile_set: Option<&str>, rate: f32) -> Result<PreviewSetup, PipelineError> {
    let outside = models_outside(app, set);
    if !outside.is_empty() {
        return Err(PipelineError::Setup(outside));
    }
    // The CLI set-up plays the first set by id: hand it the chosen one alone.
    let only;
    let set = match profile_set {
        Some(id) => {
            if set.player_profile_set(id).is_none() {
                return Err(PipelineError::Preset(format!("no valid player profile set `{id}`")));
            }
            let mut s = set.clone();
            s.player_profile_sets.retain(|l| l.value.id == id);
            only = s;
            &only
        }
        None => set,
    };
    PreviewSetup::from_folder(set, &app.roots.defs().dir, rate).map_err(PipelineError::Setup)
}

fn simulator(setup: PreviewSetup) -> Result<PreviewSim, PipelineError> {
    PreviewSim::new(setup).map_err(|e| PipelineError::Setup(vec![format!("the runtime rejects the definitions: {e}")]))
}

fn describe(p: &DriverProblem) -> (String, String) {
    match p {
        DriverProblem::MissingParameter { binding, parameter } => {
            (binding.as_str().to_owned(), format!("the graph has no parameter `{parameter}`"))
        }
        DriverProblem::TypeMismatch { binding, parameter, declared, actual } => (
            binding.as_str().to_owned(),
            format!(
                "parameter `{parameter}` is a {} in the graph, the profile says {}",
                actual.name(),
                declared.name()
            ),
        ),
        DriverProblem::LayerOutOfRange { binding, layer, layer_count } => {
            (binding.as_str().to_owned(), format!("layer {layer} does not exist (the graph has {layer_count})"))
        }
        DriverProblem::UnresolvedSlot { slot, clip_reference } => {
            (slot.as_str().to_owned(), format!("clip `{clip_reference}` does not resolve"))
        }
    }
}

/// Every inert binding of player profile set `profile_set`, as the preview's
/// driver sees them.
pub fn inert_bindings(app: &App, set: &DefinitionSet, profile_set: &str) -> Result<Vec<InertBinding>, PipelineError> {
    let sim = simulator(setup(app, set, Some(profile_set), crate::preview::DEFAULT_RATE)?)?;
    Ok(sim
        .binding_problems()
        .into_iter()
        .map(|(class, p)| {
            let (id, reason) = describe(&p);
            InertBinding { class, id, reason }
        })
        .collect())
}

/// The profile set ids, sorted; the first is what `zoa-anim preview` plays.
pub fn profile_sets(set: &DefinitionSet) -> Vec<String> {
    let mut ids: Vec<String> = set.player_profile_sets.iter().map(|s| s.value.id.clone()).collect();
    ids.sort();
    ids
}

/// What one preset run recorded, ready for the page and the exports.
#[derive(Debug)]
pub struct LabRun {
    capture: Capture,
    /// Inert-binding warnings of the run's set-up.
    pub warnings: Vec<String>,
}

/// Runs preset `id` at `rate` Hz with player profile set `profile_set` (the
/// first by id when `None`). The run is checked against the Lab's budgets
/// ([`zoa_anim_core::budget::PreviewWork::check_lab`]: ticks, and ticks ×
/// joints × layers × bindings in bytes) before it starts, and stops between
/// ticks once `job` is cancelled (`Ok(None)`).
pub fn run_preset(
    app: &App,
    set: &DefinitionSet,
    profile_set: Option<&str>,
    id: &str,
    rate: f32,
    job: &Job,
) -> Result<Option<LabRun>, PipelineError> {
    let Some(preset) = set.preview_preset(id).cloned() else {
        return Err(PipelineError::Preset(format!("no valid preview preset `{id}`")));
    };
    // Ticks first: that check needs no model.
    let what = format!("preset `{id}` at {rate} Hz");
    let ticks = crate::preview::preset_ticks(&preset, rate);
    if let Err(e) = zoa_anim_core::budget::LAB_TICKS.check(what.clone(), ticks) {
        return Err(PipelineError::Budget(format!("{e}; use `zoa-anim preview` for long runs")));
    }
    let setup = setup(app, set, profile_set, rate)?;
    let work = setup.work(&preset);
    if let Err(e) = work.check_lab(&what) {
        let fits = work.ticks_within(&zoa_anim_core::budget::LAB_RUN_BYTES, true);
        return Err(PipelineError::Budget(format!(
            "{e} (about {fits} ticks fit on this rig of {} joints): lower the rate or shorten the waits, or use \
             `zoa-anim preview`",
            work.joints
        )));
    }
    let mut sim = simulator(setup)?;
    let warnings = sim
        .binding_problems()
        .iter()
        .map(|(class, p)| {
            let (id, reason) = describe(p);
            format!("class {}: `{id}` is inert: {reason}", class.name())
        })
        .collect();
    let capture = match sim.run_until_cancelled(&preset, job.flag()) {
        Ok(Some(c)) => c.clone(),
        Ok(None) => return Ok(None),
        Err(e) => return Err(PipelineError::Setup(vec![format!("preset `{}` failed: {e}", preset.id)])),
    };
    Ok(Some(LabRun { capture, warnings }))
}

/// The pose inputs of tick `i` for the page (see `LabRun::tick_json`).
fn contributions_json(c: &Capture, i: usize) -> Vec<Value> {
    c.tick_contributions(i)
        .iter()
        .map(|k| {
            let (part, layer, _, state, _, row) = capture_export::part_names(c, k.part);
            let what = state.map(Value::from).or(row.map(Value::from)).unwrap_or(Value::Null);
            json!([
                if k.outgoing { "outgoing" } else { "current" },
                k.stack_layer,
                part,
                layer,
                what,
                k.clip.map(|n| c.name(n)),
                r4(k.weight),
                r4(k.clip_time),
                if k.additive { "additive" } else { "override" },
                k.mask.map(|n| c.name(n)),
            ])
        })
        .collect()
}

/// The sound cues of tick `i` for the page.
fn sounds_json(c: &Capture, i: usize) -> Vec<Value> {
    c.tick_sounds(i)
        .iter()
        .map(|s| {
            let entry = c.sound_entry(s);
            json!([
                capture_export::secs(s.time),
                c.name(s.event),
                s.outcome.name(),
                entry.map(|(e, _)| c.name(e.event)),
                entry.and_then(|(_, v)| v).map(|v| c.name(v)),
                entry.map(|(e, _)| c.name(e.bus)),
                r4(s.gain),
            ])
        })
        .collect()
}

/// The IK goals of tick `i` for the page (the error at full precision: it is often sub-millimetre).
fn ik_json(c: &Capture, i: usize) -> Vec<Value> {
    c.tick_ik(i)
        .iter()
        .map(|g| {
            let side = g.side.map(zoa_anim_ik::Side::name);
            json!([g.behaviour.name(), side, c.name(g.joint), g.target.map(r4), r4(g.weight), g.error])
        })
        .collect()
}

fn r4(x: f32) -> f64 {
    if x.is_finite() { (f64::from(x) * 1e4).round() / 1e4 } else { 0.0 }
}

impl LabRun {
    /// The page's form: names once (with the sound profile played, or why
    /// none, and the ground), then per tick states, selector rows, binding
    /// values (null where the active profile lacks the binding), events, root
    /// motion, model-space joint positions (flat `x, y, z`), the pose's
    /// inputs, the sound cues and the IK goals (see [`LabRun::tick_json`]).
    /// Written as text one tick at a time, so a long run never holds the
    /// whole document as a JSON tree (about 100 bytes a number).
    pub fn to_json(&self) -> String {
        let c = &self.capture;
        let head = json!({
            "preset": c.preset,
            "name": c.preset_name,
            "rate": capture_export::num(c.rate),
            "joint_names": c.joint_names.iter().map(|n| c.name(*n)).collect::<Vec<_>>(),
            "joint_parents": c.joint_parents,
            "binding_names": c.binding_columns.iter().map(|n| c.name(*n)).collect::<Vec<_>>(),
            "warnings": self.warnings,
            "sound": { "profile": c.sound_profile.map(|p| c.name(p)), "problem": c.sound_problem },
            "ground": c.ground,
        });
        let mut out = head.to_string();
        out.pop(); // the closing brace: the ticks follow
        out.push_str(",\"ticks\":[");
        for i in 0..c.ticks.len() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&self.tick_json(i).to_string());
        }
        out.push_str("]}");
        out
    }

    /// One tick of the page's form. Beside the states, rows, bindings,
    /// events, root motion and joints: `contributions`, each
    /// `[stack, stack_layer, part, layer, state or row, clip, weight,
    /// clip_time, mode, mask]` (`stack` is `current` or `outgoing`);
    /// `sounds`, each `[time, event, outcome, entry_event, variant_file, bus,
    /// gain]`; `ik`, each `[behaviour, side, joint, [x, y, z], weight,
    /// error]` (model space, metres); `tags` (the selector's applied tags)
    /// and `switch_alpha`.
    fn tick_json(&self, i: usize) -> Value {
        let c = &self.capture;
        let t = &c.ticks[i];
        let states: Vec<Value> = c
            .tick_states(i)
            .iter()
            .map(|s| json!([c.name(s.layer), c.name(s.state), r4(s.weight), r4(s.clip_time)]))
            .collect();
        let rows: Vec<Value> =
            c.tick_rows(i).iter().map(|r| json!([c.name(r.clip), r4(r.weight), r.fallback_step])).collect();
        let bindings: Vec<Value> =
            c.tick_bindings(i).iter().map(|v| if v.is_finite() { json!(r4(*v)) } else { Value::Null }).collect();
        let events: Vec<Value> = c
            .tick_events(i)
            .iter()
            .map(|e| json!([e.kind.as_str(), c.name(e.name), capture_export::secs(e.time)]))
            .collect();
        let joints: Vec<f64> = c.tick_joints(i).iter().flat_map(|p| p.map(r4)).collect();
        let (contributions, sounds, ik) = (contributions_json(c, i), sounds_json(c, i), ik_json(c, i));
        json!({
            "time": capture_export::secs(t.time),
            "step": t.step,
            "states": states,
            "rows": rows,
            "bindings": bindings,
            "events": events,
            "root": t.root_motion.map(r4),
            "joints": joints,
            "contributions": contributions,
            "sounds": sounds,
            "ik": ik,
            "tags": t.applied_tags.map(|tags| tags.to_string()),
            "switch_alpha": r4(t.switch_alpha),
        })
    }

    /// An export: `json` and `csv` are `zoa-anim preview`'s files, `timeline`
    /// and `frames` its PNGs. Returns (content type, file name, bytes).
    pub fn export(&self, format: &str) -> Option<(&'static str, String, Vec<u8>)> {
        let c = &self.capture;
        let stem = &c.preset;
        Some(match format {
            "json" => ("application/json", format!("{stem}-capture.json"), capture_export::to_json(c).into_bytes()),
            "csv" => ("text/csv", format!("{stem}-capture.csv"), capture_export::to_csv(c).into_bytes()),
            "timeline" => ("image/png", format!("{stem}-timeline.png"), capture_export::timeline_png(c)),
            "frames" => ("image/png", format!("{stem}-frames.png"), capture_export::frames_png(c)),
            _ => return None,
        })
    }
}

/// A free-play session's character ([`crate::preview::LiveSim`]): what the
/// Lab's live mode steps and pokes.
#[derive(Debug)]
pub struct LiveRun {
    sim: crate::preview::LiveSim,
    /// The character's model (its first skin is the skeleton; its skinned meshes the body).
    model: Option<std::path::PathBuf>,
    /// Frames carry the skinning matrices (for a viewer that skins the mesh).
    skin: bool,
}

/// What a live session plays: a graph by id, or one clip.
pub use crate::preview::LiveMode;

/// A value for a live parameter.
pub use crate::preview::LiveValue;

/// Starts free play of `mode` at `rate` Hz (models only from inside the Workbench's folders).
pub fn start_live(app: &App, set: &DefinitionSet, mode: &LiveMode, rate: f32) -> Result<LiveRun, PipelineError> {
    let outside = models_outside(app, set);
    if !outside.is_empty() {
        return Err(PipelineError::Setup(outside));
    }
    let dir = &app.roots.defs().dir;
    let sim = crate::preview::LiveSim::from_folder(set, dir, mode, rate).map_err(PipelineError::Setup)?;
    let model = zoa_anim_assets::character::character_model(set, dir);
    Ok(LiveRun { sim, model, skin: false })
}

fn param_json(v: zoa_anim_runtime::character::graph::ParamValue) -> Value {
    use zoa_anim_runtime::character::graph::ParamValue as P;
    match v {
        P::Float(x) => json!(r4(x)),
        P::Int(i) => json!(i),
        P::Bool(b) | P::Trigger(b) => json!(b),
    }
}

impl LiveRun {
    /// Names once: parameters (name, type, default, whether a binding sets
    /// it), layers and the skeleton.
    pub fn header_json(&self) -> Value {
        use zoa_anim_core::graph::ParameterDefault as D;
        let parameters: Vec<Value> = self
            .sim
            .parameters()
            .iter()
            .map(|p| {
                let default = match p.default {
                    D::Float(x) => json!(r4(x)),
                    D::Int(i) => json!(i),
                    D::Bool(b) => json!(b),
                    D::Trigger => Value::Null,
                };
                json!({ "name": p.name, "type": p.default.type_name(), "default": default,
                        "settable": p.binding.is_some() })
            })
            .collect();
        let sk = self.sim.definition().skeleton().skeleton();
        let names: Vec<String> = (0..sk.joint_count())
            .map(|j| sk.joints()[j].name.clone().unwrap_or_else(|| format!("node{}", sk.joints()[j].node)))
            .collect();
        let parents: Vec<Option<usize>> = (0..sk.joint_count()).map(|j| sk.parent(j)).collect();
        json!({ "parameters": parameters, "joint_names": names, "joint_parents": parents })
    }

    /// The state now: time, per layer the active states (name, weight,
    /// normalised time) and the transition under way (from, to, progress),
    /// parameter values, model-space joint positions (flat `x, y, z`).
    pub fn frame_json(&self) -> Value {
        let layers: Vec<Value> = self
            .sim
            .layers()
            .into_iter()
            .map(|l| {
                json!({
                    "name": l.name,
                    "states": l.states.iter().map(|(n, w, t)| json!([n, r4(*w), (t * 1e4).round() / 1e4])).collect::<Vec<_>>(),
                    "transition": l.transition.map(|(f, t, p)| json!({ "from": f, "to": t, "progress": r4(p) })),
                })
            })
            .collect();
        let joints: Vec<f64> = self.sim.joint_positions().iter().flat_map(|p| p.map(r4)).collect();
        let mut out = json!({
            "time": capture_export::secs(self.sim.character().time()),
            "ticks": self.sim.ticks(),
            "layers": layers,
            "values": self.sim.values().into_iter().map(param_json).collect::<Vec<_>>(),
            "joints": joints,
        });
        if self.skin {
            let skin: Vec<f64> = self
                .sim
                .character()
                .skinning_matrices()
                .iter()
                .flat_map(|m| m.to_cols_array().map(|x| (f64::from(x) * 1e5).round() / 1e5))
                .collect();
            out["skin"] = Value::from(skin);
        }
        out
    }

    /// Frames from now on carry the skinning matrices (`skin`, 16 numbers a
    /// joint, column-major: the runtime's, for a viewer that skins the mesh).
    pub fn send_skinning(&mut self, on: bool) {
        self.skin = on;
    }

    /// The character's model file.
    pub fn model(&self) -> Option<&std::path::Path> {
        self.model.as_deref()
    }

    /// Sets a parameter (see [`crate::preview::LiveSim::set`]).
    pub fn set(&mut self, name: &str, value: LiveValue) -> Result<(), String> {
        self.sim.set(name, value)
    }

    /// Playback speed of everything.
    pub fn set_playback_speed(&mut self, speed: f32) {
        self.sim.set_playback_speed(speed);
    }

    /// Advances by `seconds` (capped) and returns the events delivered meanwhile.
    pub fn advance(&mut self, seconds: f64) -> Result<Vec<String>, String> {
        self.sim.advance(seconds).map_err(|e| e.to_string())?;
        Ok(self.sim.take_events())
    }

    /// Ticks run so far.
    pub fn ticks(&self) -> u64 {
        self.sim.ticks()
    }
}

/// Clip `clip` played once at `hz` from its start to its end: its animation
/// length, its playback length (divided by its rate), and model-space joint
/// positions per tick (the clip editor's scrubbed figure), checked against
/// the Lab's budgets.
pub fn clip_samples(app: &App, set: &DefinitionSet, clip: &str, hz: f32) -> Result<Value, PipelineError> {
    let mode = LiveMode::Clip { clip: clip.to_owned(), looping: false };
    let mut run = start_live(app, set, &mode, hz)?;
    let (duration, playback) =
        run.sim.clip_length(clip).ok_or_else(|| PipelineError::Preset(format!("no clip `{clip}` plays")))?;
    let ticks = (f64::from(playback) * f64::from(hz)).ceil() as u64 + 1;
    let sk = run.sim.definition().skeleton().skeleton();
    let work =
        zoa_anim_core::budget::PreviewWork { ticks, joints: sk.joint_count() as u64, layers: 1, ..Default::default() };
    work.check_lab(&format!("clip `{clip}` at {hz} Hz")).map_err(|e| PipelineError::Budget(e.to_string()))?;
    let mut frames = Vec::with_capacity(ticks as usize);
    for k in 0..ticks {
        if k > 0 {
            run.sim.advance(1.0 / f64::from(hz)).map_err(|e| PipelineError::Setup(vec![e.to_string()]))?;
        }
        let joints: Vec<f64> = run.sim.joint_positions().iter().flat_map(|p| p.map(r4)).collect();
        frames.push(Value::from(joints));
    }
    let mut out = run.header_json();
    out["duration"] = json!(r4(duration));
    out["playback_length"] = json!(r4(playback));
    out["hz"] = json!(hz);
    out["frames"] = Value::Array(frames);
    Ok(out)
}
