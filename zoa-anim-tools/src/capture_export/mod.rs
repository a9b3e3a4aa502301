//! Writers for a preview [`Capture`]: JSON (the CLI contract), CSV (one row
//! per tick, for spreadsheets) and two PNGs (a timeline chart and a strip of
//! stick-figure frames). The runtime records; only the tools know file
//! formats, so a game embedding the runtime does not carry these writers.
//!
//! Numbers: `f32` values are printed at their shortest round-trip form
//! (`0.3`, not `0.30000001192092896`); times are rounded to the microsecond.

mod frames;
mod raster;
mod timeline;
mod timeline_clips;

use std::fmt::Write as _;

use crate::preview::{Capture, ContributionRecord, IkRecord, PartRecord, RowRecord, SoundRecord, SyncRecord};
use serde::Serialize;
use serde::ser::SerializeMap;

pub(crate) use frames::frames_png;
pub(crate) use timeline::timeline_png;

/// An `f32` as the `f64` with the same shortest decimal form.
pub(crate) fn num(x: f32) -> f64 {
    if x.is_finite() { x.to_string().parse().unwrap_or(0.0) } else { 0.0 }
}

/// A time in seconds rounded to the microsecond.
pub(crate) fn secs(t: f64) -> f64 {
    let r = (t * 1e6).round() / 1e6;
    if r == 0.0 { 0.0 } else { r }
}

#[derive(Serialize)]
struct JsonCapture<'a> {
    preset: &'a str,
    rate: f64,
    joints: Vec<&'a str>,
    masks: Bindings<'a, Vec<f64>>,
    ground: Option<f64>,
    sound: JsonSoundProfile<'a>,
    ticks: Vec<JsonTick<'a>>,
}

#[derive(Serialize)]
struct JsonSoundProfile<'a> {
    profile: Option<&'a str>,
    problem: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonTick<'a> {
    time: f64,
    step: u32,
    states: Vec<JsonState<'a>>,
    bindings: Bindings<'a>,
    events: Vec<JsonEvent<'a>>,
    root_motion: [f64; 4],
    #[serde(skip_serializing_if = "Option::is_none")]
    local: Option<Vec<JsonLocal<'a>>>,
    contributions: Vec<JsonContribution<'a>>,
    selector: Option<JsonSelector<'a>>,
    sounds: Vec<JsonCue<'a>>,
    ik: Vec<JsonIk<'a>>,
    switch_alpha: f64,
    inertializing: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sync: Vec<JsonSync<'a>>,
}

/// One state of a syncing group.
#[derive(Serialize)]
struct JsonSync<'a> {
    group: &'a str,
    state: &'a str,
    leader: bool,
    clip: &'a str,
    clip_time: f64,
    phase: f64,
}

/// One input of the composed pose.
#[derive(Serialize)]
struct JsonContribution<'a> {
    stack: &'static str,
    stack_layer: u16,
    part: &'static str,
    layer: &'a str,
    layer_index: Option<u16>,
    state: Option<&'a str>,
    child: Option<u16>,
    row: Option<u32>,
    clip: Option<&'a str>,
    weight: f64,
    clip_time: f64,
    mode: &'static str,
    mask: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonSelector<'a> {
    tags: String,
    rows: Vec<JsonRow<'a>>,
}

#[derive(Serialize)]
struct JsonRow<'a> {
    row: Option<u32>,
    pattern: String,
    clip: &'a str,
    weight: f64,
    clip_time: f64,
    fallback_step: i32,
}

/// One sound cue.
#[derive(Serialize)]
struct JsonCue<'a> {
    time: f64,
    event: &'a str,
    outcome: &'static str,
    entry: Option<usize>,
    entry_event: Option<&'a str>,
    profile: Option<&'a str>,
    variant: Option<usize>,
    clip: Option<&'a str>,
    bus: Option<&'a str>,
    gain: f64,
}

#[derive(Serialize)]
struct JsonIk<'a> {
    behaviour: &'static str,
    side: Option<&'static str>,
    joint: &'a str,
    target: [f64; 3],
    weight: f64,
    error: f64,
}

/// One joint's local transform (`--local`).
#[derive(Serialize)]
struct JsonLocal<'a> {
    name: &'a str,
    t: [f64; 3],
    r: [f64; 4],
    s: [f64; 3],
}

#[derive(Serialize)]
struct JsonState<'a> {
    layer: &'a str,
    state: &'a str,
    weight: f64,
    clip_time: f64,
}

#[derive(Serialize)]
struct JsonEvent<'a> {
    kind: &'a str,
    name: &'a str,
    time: f64,
}

/// Binding values in column order (a map; absent bindings left out), or
/// any other map keyed by names in a chosen order.
struct Bindings<'a, V = f64>(Vec<(&'a str, V)>);

impl<V: Serialize> Serialize for Bindings<'_, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The selector's clips are listed among the states under the layer name
/// `selector` (state = clip name), after the graph's layers.
pub(crate) const SELECTOR_LAYER: &str = "selector";

/// The capture as the CLI's JSON contract (documented field by field in
/// `cmd::preview`'s module docs): the preset, rate, joint names, bone masks,
/// ground and sound profile, then per tick `time`, `step`, `states`,
/// `bindings`, `events`, `root_motion` (and `local` when recorded), the
/// pose's `contributions`, the `selector`, the `sounds`, the `ik` goals,
/// `switch_alpha` and `inertializing`, and `sync` in a tick where a sync
/// group syncs.
pub(crate) fn to_json(c: &Capture) -> String {
    let ticks = (0..c.ticks.len()).map(|i| json_tick(c, i)).collect();
    let json = JsonCapture {
        preset: &c.preset,
        rate: num(c.rate),
        joints: c.joint_names.iter().map(|n| c.name(*n)).collect(),
        masks: Bindings(c.masks.iter().map(|(n, w)| (c.name(*n), w.iter().map(|x| num(*x)).collect())).collect()),
        ground: c.ground.map(num),
        sound: JsonSoundProfile { profile: c.sound_profile.map(|p| c.name(p)), problem: c.sound_problem.as_deref() },
        ticks,
    };
    serde_json::to_string(&json).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// Tick `i` of the JSON capture.
fn json_tick(c: &Capture, i: usize) -> JsonTick<'_> {
    let t = &c.ticks[i];
    let mut states: Vec<JsonState<'_>> = c
        .tick_states(i)
        .iter()
        .map(|s| JsonState {
            layer: c.name(s.layer),
            state: c.name(s.state),
            weight: num(s.weight),
            clip_time: num(s.clip_time),
        })
        .collect();
    states.extend(c.tick_rows(i).iter().map(|r| JsonState {
        layer: SELECTOR_LAYER,
        state: c.name(r.clip),
        weight: num(r.weight),
        clip_time: num(r.clip_time),
    }));
    let bindings = Bindings(
        c.binding_columns
            .iter()
            .zip(c.tick_bindings(i))
            .filter(|(_, v)| v.is_finite())
            .map(|(k, v)| (c.name(*k), num(*v)))
            .collect(),
    );
    let events = c
        .tick_events(i)
        .iter()
        .map(|e| JsonEvent { kind: e.kind.as_str(), name: c.name(e.name), time: secs(e.time) })
        .collect();
    let locals = c.tick_locals(i);
    let local = (!locals.is_empty()).then(|| {
        c.joint_names
            .iter()
            .zip(locals)
            .map(|(n, v)| JsonLocal {
                name: c.name(*n),
                t: [num(v[0]), num(v[1]), num(v[2])],
                r: [num(v[3]), num(v[4]), num(v[5]), num(v[6])],
                s: [num(v[7]), num(v[8]), num(v[9])],
            })
            .collect()
    });
    JsonTick {
        time: secs(t.time),
        step: t.step,
        states,
        bindings,
        events,
        root_motion: t.root_motion.map(num),
        local,
        contributions: c.tick_contributions(i).iter().map(|k| json_contribution(c, k)).collect(),
        selector: t.applied_tags.map(|tags| JsonSelector {
            tags: tags.to_string(),
            rows: c.tick_rows(i).iter().map(|r| json_row(c, r)).collect(),
        }),
        sounds: c.tick_sounds(i).iter().map(|s| json_sound(c, s)).collect(),
        ik: c.tick_ik(i).iter().map(|g| json_ik(c, g)).collect(),
        switch_alpha: num(t.switch_alpha),
        inertializing: t.inertializing,
        sync: json_sync(c, i),
    }
}

/// The members of tick `i`'s sync groups that sync (two or more states of the group play).
fn json_sync(c: &Capture, i: usize) -> Vec<JsonSync<'_>> {
    let members = c.tick_sync(i);
    let syncing = |r: &&SyncRecord| members.iter().filter(|o| o.group == r.group).count() > 1;
    members
        .iter()
        .filter(syncing)
        .map(|r| JsonSync {
            group: c.name(r.group),
            state: c.name(r.state),
            leader: r.leader,
            clip: c.name(r.clip),
            clip_time: num(r.clip_time),
            phase: num(r.phase),
        })
        .collect()
}

/// What a contribution's part is called: (`part`, layer name, layer index, state, child, row).
type PartNames<'a> = (&'static str, &'a str, Option<u16>, Option<&'a str>, Option<u16>, Option<u32>);

pub(crate) fn part_names(c: &Capture, part: PartRecord) -> PartNames<'_> {
    match part {
        PartRecord::State { layer_index, layer, state, child } => {
            ("state", c.name(layer), Some(layer_index), Some(c.name(state)), Some(child), None)
        }
        PartRecord::Slot => ("slot", crate::preview::SLOT_LAYER_NAME, None, None, None, None),
        PartRecord::Selector { row } => {
            ("selector", SELECTOR_LAYER, None, None, None, (row != u32::MAX).then_some(row))
        }
        PartRecord::Procedural => ("procedural", "procedural", None, None, None, None),
    }
}

fn json_contribution<'a>(c: &'a Capture, k: &ContributionRecord) -> JsonContribution<'a> {
    let (part, layer, layer_index, state, child, row) = part_names(c, k.part);
    JsonContribution {
        stack: if k.outgoing { "outgoing" } else { "current" },
        stack_layer: k.stack_layer,
        part,
        layer,
        layer_index,
        state,
        child,
        row,
        clip: k.clip.map(|n| c.name(n)),
        weight: num(k.weight),
        clip_time: num(k.clip_time),
        mode: if k.additive { "additive" } else { "override" },
        mask: k.mask.map(|n| c.name(n)),
    }
}

fn json_row<'a>(c: &'a Capture, r: &RowRecord) -> JsonRow<'a> {
    JsonRow {
        row: (r.row != u32::MAX).then_some(r.row),
        pattern: r.pattern.to_string(),
        clip: c.name(r.clip),
        weight: num(r.weight),
        clip_time: num(r.clip_time),
        fallback_step: r.fallback_step,
    }
}

fn json_sound<'a>(c: &'a Capture, s: &SoundRecord) -> JsonCue<'a> {
    let entry = c.sound_entry(s);
    JsonCue {
        time: secs(s.time),
        event: c.name(s.event),
        outcome: s.outcome.name(),
        entry: s.outcome.entry(),
        entry_event: entry.map(|(e, _)| c.name(e.event)),
        profile: entry.map(|(e, _)| c.name(e.profile)),
        variant: s.outcome.variant(),
        clip: entry.and_then(|(_, v)| v).map(|v| c.name(v)),
        bus: entry.map(|(e, _)| c.name(e.bus)),
        gain: num(s.gain),
    }
}

fn json_ik<'a>(c: &'a Capture, g: &IkRecord) -> JsonIk<'a> {
    JsonIk {
        behaviour: g.behaviour.name(),
        side: g.side.map(zoa_anim_ik::Side::name),
        joint: c.name(g.joint),
        target: g.target.map(num),
        weight: num(g.weight),
        error: num(g.error),
    }
}

fn csv_cell(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// The CSV header of a capture (see [`to_csv`]).
pub(crate) fn csv_header(c: &Capture) -> Vec<String> {
    let mut h: Vec<String> =
        ["tick", "time", "step", "root_x", "root_y", "root_z", "root_yaw"].iter().map(|s| s.to_string()).collect();
    h.extend(c.binding_columns.iter().map(|b| format!("binding:{}", c.name(*b))));
    let series = c.state_series();
    h.extend(series.iter().map(|(l, s)| format!("weight:{}/{}", c.name(*l), c.name(*s))));
    h.extend(series.iter().map(|(l, s)| format!("clip_time:{}/{}", c.name(*l), c.name(*s))));
    for k in ["selector", "events", "contributions", "sounds", "ik", "switch_alpha", "inertializing"] {
        h.push(k.to_owned());
    }
    h
}

/// One row per tick: tick index, time, step, root motion, one column per
/// binding (empty when absent), the weight and clip time of every graph
/// state that ever played (empty when not playing), the selector's clips
/// (`row:clip:weight:fallback_step`, `;`-separated), the tick's events
/// (`kind:name@time`, `;`-separated), then (columns added after the
/// contract's first version, so scripts reading by name are unaffected)
/// the pose's inputs (`[out:]stack_layer:layer/state:clip:weight:mode[:mask]`;
/// `layer/state` is `slot/slot`, `selector/<row>` or `procedural/-` for
/// those parts, `out:` marks the outgoing stack of a loadout switch), the
/// sound cues (`event>entry_event#entry/variant:clip:gain@time` when a
/// voice started, else `event>outcome@time`), the IK goals
/// (`behaviour[.side]:joint:weight:error`), the loadout switch's alpha and
/// whether an inertialized transition was decaying (`0`/`1`).
pub(crate) fn to_csv(c: &Capture) -> String {
    let series = c.state_series();
    let mut out = String::new();
    for (i, h) in csv_header(c).iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        csv_cell(&mut out, h);
    }
    out.push('\n');
    for (i, t) in c.ticks.iter().enumerate() {
        let _ = write!(out, "{i},{},{}", secs(t.time), t.step);
        for v in t.root_motion {
            let _ = write!(out, ",{}", num(v));
        }
        for v in c.tick_bindings(i) {
            out.push(',');
            if v.is_finite() {
                let _ = write!(out, "{}", num(*v));
            }
        }
        let states = c.tick_states(i);
        let find = |l, s| states.iter().find(|r| r.layer == l && r.state == s);
        for &(l, s) in &series {
            out.push(',');
            if let Some(r) = find(l, s) {
                let _ = write!(out, "{}", num(r.weight));
            }
        }
        for &(l, s) in &series {
            out.push(',');
            if let Some(r) = find(l, s) {
                let _ = write!(out, "{}", num(r.clip_time));
            }
        }
        out.push(',');
        let rows: Vec<String> = c
            .tick_rows(i)
            .iter()
            .map(|r| {
                let row = if r.row == u32::MAX { "default".to_owned() } else { r.row.to_string() };
                format!("{row}:{}:{}:{}", c.name(r.clip), num(r.weight), r.fallback_step)
            })
            .collect();
        csv_cell(&mut out, &rows.join(";"));
        out.push(',');
        let events: Vec<String> = c
            .tick_events(i)
            .iter()
            .map(|e| format!("{}:{}@{}", e.kind.as_str(), c.name(e.name), secs(e.time)))
            .collect();
        csv_cell(&mut out, &events.join(";"));
        for cell in [csv_contributions(c, i), csv_sounds(c, i), csv_ik(c, i)] {
            out.push(',');
            csv_cell(&mut out, &cell);
        }
        let _ = writeln!(out, ",{},{}", num(t.switch_alpha), u8::from(t.inertializing));
    }
    out
}

/// The pose inputs of tick `i` as one CSV cell (see [`to_csv`]).
fn csv_contributions(c: &Capture, i: usize) -> String {
    let items: Vec<String> =
        c.tick_contributions(i)
            .iter()
            .map(|k| {
                let (_, layer, _, state, _, row) = part_names(c, k.part);
                let what = state.map(str::to_owned).or(row.map(|r| r.to_string())).unwrap_or_else(|| {
                    if matches!(k.part, PartRecord::Slot) { "slot".to_owned() } else { "-".to_owned() }
                });
                let mut s = format!(
                    "{}{}:{layer}/{what}:{}:{}:{}",
                    if k.outgoing { "out:" } else { "" },
                    k.stack_layer,
                    k.clip.map_or("-", |n| c.name(n)),
                    num(k.weight),
                    if k.additive { "additive" } else { "override" }
                );
                if let Some(m) = k.mask {
                    s.push(':');
                    s.push_str(c.name(m));
                }
                s
            })
            .collect();
    items.join(";")
}

/// The sound cues of tick `i` as one CSV cell (see [`to_csv`]).
fn csv_sounds(c: &Capture, i: usize) -> String {
    let items: Vec<String> = c
        .tick_sounds(i)
        .iter()
        .map(|s| match (c.sound_entry(s), s.outcome.entry(), s.outcome.variant()) {
            (Some((e, clip)), Some(entry), Some(variant)) => format!(
                "{}>{}#{entry}/{variant}:{}:{}@{}",
                c.name(s.event),
                c.name(e.event),
                clip.map_or("-", |v| c.name(v)),
                num(s.gain),
                secs(s.time)
            ),
            _ => format!("{}>{}@{}", c.name(s.event), s.outcome.name(), secs(s.time)),
        })
        .collect();
    items.join(";")
}

/// The IK goals of tick `i` as one CSV cell (see [`to_csv`]).
fn csv_ik(c: &Capture, i: usize) -> String {
    let items: Vec<String> = c
        .tick_ik(i)
        .iter()
        .map(|g| {
            let side = g.side.map_or(String::new(), |s| format!(".{}", s.name()));
            format!("{}{side}:{}:{}:{}", g.behaviour.name(), c.name(g.joint), num(g.weight), num(g.error))
        })
        .collect();
    items.join(";")
}
