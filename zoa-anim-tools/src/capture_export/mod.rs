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

use crate::preview::{Capture, SyncRecord};
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
    ticks: Vec<JsonTick<'a>>,
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

/// Binding values in column order (a map; absent bindings left out).
struct Bindings<'a>(Vec<(&'a str, f64)>);

impl Serialize for Bindings<'_> {
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

/// The capture as the CLI's JSON contract:
/// `{"preset","rate","ticks":[{"time","step","states":[{"layer","state","weight","clip_time"}],
/// "bindings":{id:value},"events":[{"kind","name","time"}],"root_motion":[x,y,z,yaw]}]}`;
/// when local transforms were recorded each tick also has
/// `"local":[{"name","t":[x,y,z],"r":[x,y,z,w],"s":[x,y,z]}]` (joints in skeleton order);
/// a tick in which a sync group syncs (two or more of its states play) has
/// `"sync":[{"group","state","leader","clip","clip_time","phase"}]` (`clip`: the clip
/// whose markers the state follows by).
pub(crate) fn to_json(c: &Capture) -> String {
    let ticks = (0..c.ticks.len())
        .map(|i| {
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
            let members = c.tick_sync(i);
            let syncing = |r: &&SyncRecord| members.iter().filter(|o| o.group == r.group).count() > 1;
            let sync = members
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
                .collect();
            JsonTick {
                time: secs(t.time),
                step: t.step,
                states,
                bindings,
                events,
                root_motion: t.root_motion.map(num),
                local,
                sync,
            }
        })
        .collect();
    let json = JsonCapture { preset: &c.preset, rate: num(c.rate), ticks };
    serde_json::to_string(&json).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
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
    h.push("selector".to_owned());
    h.push("events".to_owned());
    h
}

/// One row per tick: tick index, time, step, root motion, one column per
/// binding (empty when absent), the weight and clip time of every graph
/// state that ever played (empty when not playing), the selector's clips
/// (`row:clip:weight:fallback_step`, `;`-separated) and the tick's events
/// (`kind:name@time`, `;`-separated).
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
        out.push('\n');
    }
    out
}
