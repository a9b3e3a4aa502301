//! Auto-binder: ranks scanned clips against the canonical slots
//! ([`zoa_anim_core::DefaultSlots`]) with several weak signals, never one
//! substring match.
//!
//! # Signals
//!
//! Every candidate carries its breakdown (signal name → contribution); the
//! score is their sum.
//!
//! | signal | range | meaning |
//! |---|---|---|
//! | `alias` | `0..=1` | mean over the slot's alias groups of the best alias strength among the clip name's tokens (`run` 1, `jog` 0.9, `sprint` 0.5 for `locomotion_run`) |
//! | `file_alias` | `0..=0.8` | the same over the file stem's tokens, only for single-clip files (Mixamo names the file, not the take) |
//! | `folder` | `0..=0.3` | the same over the folder names between the root and the file |
//! | `bonus` | `0..` | +0.15 per refining token (`start` for a jump, `mag` for a magazine reload) |
//! | `contradiction` | `..=0` | −0.6 per token that is another slot's primary alias and none of this slot's (`idle` for a walk slot, `crouch` for a standing walk) |
//! | `weapon_class` | `-0.6..=0.3` | with a profile type: its aliases (`rifle`/`ar`/`smg`) +0.3, another class's (`pistol` for a rifle set) −0.6; unarmed sets and untyped runs take −0.2 for weapon words on locomotion slots |
//! | `loop` | `±0.15` | the clip loops (first pose = last pose) as the slot expects |
//! | `duration` | `-0.3..=0.1` | inside the slot's plausible length range, else a penalty growing with the distance |
//! | `motion` | `-0.2..=0.25` | humanoid motion hints: root travel or strong leg motion for moving slots, no travel for in-place slots, arms moving while the legs stay for weapon handling |
//!
//! A clip is a candidate for a slot only when every alias group of the slot
//! is matched by the clip name, the (single-clip) file stem or a folder name,
//! and its score reaches [`AutoBindOptions::min_score`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use zoa_anim_core::PlayerProfileType;

use super::scan::{ScanReport, ScannedClip, ScannedFile};
use super::tokens::{to_id, tokenize};

/// What kind of motion a slot's clip should show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MotionHint {
    /// Travels or strides (walk, run, sprint, crouch walk).
    Moving,
    /// Stays in place (idle, stances).
    InPlace,
    /// Arms work while the legs stay (reload, fire, equip).
    WeaponHandling,
    /// No expectation.
    Any,
}

/// How a canonical slot is recognised.
#[derive(Debug, Clone, Copy)]
pub struct SlotSpec {
    /// Slot id (a [`zoa_anim_core::DefaultSlots`] id).
    pub slot: &'static str,
    /// Alias groups: every group must be matched; each alias has a strength `0..=1`.
    pub groups: &'static [&'static [(&'static str, f32)]],
    /// Refining tokens that add a small bonus.
    pub bonus: &'static [&'static str],
    /// Extra contradictory tokens beyond the derived ones.
    pub against: &'static [&'static str],
    /// Whether the clip should loop (`None`: no expectation).
    pub looping: Option<bool>,
    /// Plausible duration range, seconds.
    pub duration: (f32, f32),
    /// Motion expectation.
    pub motion: MotionHint,
    /// Locomotion slot (weapon words count against it in unarmed sets).
    pub locomotion: bool,
}

const CROUCH: &[(&str, f32)] = &[("crouch", 1.0), ("crouched", 1.0), ("crouching", 1.0), ("sneak", 0.8)];
const FIRE: &[(&str, f32)] = &[("fire", 1.0), ("firing", 1.0), ("shoot", 1.0), ("shot", 0.9), ("recoil", 0.8)];
const RELOAD: &[(&str, f32)] = &[("reload", 1.0), ("reloading", 1.0)];
const EQUIP: &[(&str, f32)] = &[("equip", 1.0), ("draw", 0.9), ("unholster", 0.9), ("pullout", 0.8)];
const HOLSTER: &[(&str, f32)] = &[("holster", 1.0), ("unequip", 0.9), ("stow", 0.9), ("putaway", 0.8)];
const TWO_HAND: &[&str] = &["two", "2h", "twohand", "twohanded", "rifle", "shotgun"];
const ONE_HAND: &[&str] = &["one", "1h", "onehand", "onehanded", "pistol", "knife"];

const fn spec(
    slot: &'static str,
    groups: &'static [&'static [(&'static str, f32)]],
    looping: Option<bool>,
    duration: (f32, f32),
    motion: MotionHint,
) -> SlotSpec {
    SlotSpec { slot, groups, bonus: &[], against: &[], looping, duration, motion, locomotion: false }
}

const fn loco(mut s: SlotSpec) -> SlotSpec {
    s.locomotion = true;
    s
}

const fn with(mut s: SlotSpec, bonus: &'static [&'static str], against: &'static [&'static str]) -> SlotSpec {
    s.bonus = bonus;
    s.against = against;
    s
}

use MotionHint::{Any, InPlace, Moving, WeaponHandling};

/// The alias table, one entry per shipped slot.
pub const SLOT_SPECS: &[SlotSpec] = &[
    with(spec("equip_two_hand", &[EQUIP], Some(false), (0.2, 4.0), WeaponHandling), TWO_HAND, ONE_HAND),
    with(spec("equip_one_hand", &[EQUIP], Some(false), (0.2, 4.0), WeaponHandling), ONE_HAND, TWO_HAND),
    with(spec("holster_two_hand", &[HOLSTER], Some(false), (0.2, 4.0), WeaponHandling), TWO_HAND, ONE_HAND),
    with(spec("holster_one_hand", &[HOLSTER], Some(false), (0.2, 4.0), WeaponHandling), ONE_HAND, TWO_HAND),
    spec("inspect", &[&[("inspect", 1.0), ("examine", 0.8), ("check", 0.5)]], Some(false), (0.5, 10.0), WeaponHandling),
    with(
        spec(
            "reload_magazine",
            &[&[("reload", 1.0), ("reloading", 1.0), ("mag", 0.9), ("magazine", 0.9)]],
            Some(false),
            (0.5, 6.0),
            WeaponHandling,
        ),
        &["mag", "magazine"],
        &["shell", "shells", "bolt"],
    ),
    spec("reload_shell", &[RELOAD, &[("shell", 1.0), ("shells", 1.0)]], Some(false), (0.3, 6.0), WeaponHandling),
    spec("reload_bolt", &[&[("bolt", 1.0), ("rack", 0.7), ("chamber", 0.7)]], Some(false), (0.3, 4.0), WeaponHandling),
    with(
        spec("fire_single", &[FIRE], Some(false), (0.05, 2.0), WeaponHandling),
        &["single", "semi"],
        &["auto", "burst"],
    ),
    spec("fire_burst", &[FIRE, &[("burst", 1.0), ("triple", 0.6)]], Some(false), (0.1, 2.0), WeaponHandling),
    with(
        spec("fire_auto", &[FIRE], None, (0.05, 4.0), WeaponHandling),
        &["auto", "full", "loop"],
        &["single", "semi", "burst"],
    ),
    spec(
        "melee_attack",
        &[&[
            ("melee", 1.0),
            ("attack", 0.9),
            ("strike", 0.9),
            ("slash", 0.9),
            ("stab", 0.9),
            ("swing", 0.8),
            ("punch", 0.8),
            ("kick", 0.8),
            ("bash", 0.8),
        ]],
        Some(false),
        (0.2, 4.0),
        Any,
    ),
    spec("throw", &[&[("throw", 1.0), ("toss", 0.9), ("lob", 0.8), ("grenade", 0.7)]], Some(false), (0.3, 4.0), Any),
    with(spec("stance_stand", &[&[("stand", 1.0), ("standing", 1.0)]], None, (0.0, 60.0), InPlace), &["idle"], &[]),
    with(spec("stance_crouch", &[CROUCH], None, (0.0, 60.0), InPlace), &["idle"], &[]),
    spec("stance_prone", &[&[("prone", 1.0), ("crawl", 0.6)]], None, (0.0, 60.0), Any),
    spec("stance_cover", &[&[("cover", 1.0)]], None, (0.0, 60.0), InPlace),
    loco(spec(
        "locomotion_idle",
        &[&[("idle", 1.0), ("breathe", 0.7), ("breathing", 0.7), ("rest", 0.5), ("stand", 0.4), ("pose", 0.3)]],
        Some(true),
        (0.5, 30.0),
        InPlace,
    )),
    loco(spec(
        "locomotion_walk",
        &[&[("walk", 1.0), ("walking", 1.0), ("stroll", 0.8), ("move", 0.6), ("locomotion", 0.4)]],
        Some(true),
        (0.3, 4.0),
        Moving,
    )),
    loco(spec(
        "locomotion_run",
        &[&[("run", 1.0), ("running", 1.0), ("jog", 0.9), ("jogging", 0.9), ("sprint", 0.5), ("move", 0.5)]],
        Some(true),
        (0.2, 3.0),
        Moving,
    )),
    loco(spec(
        "locomotion_sprint",
        &[&[("sprint", 1.0), ("sprinting", 1.0), ("dash", 0.8), ("run", 0.5), ("running", 0.5)]],
        Some(true),
        (0.2, 3.0),
        Moving,
    )),
    loco(spec("locomotion_crouch_idle", &[CROUCH, &[("idle", 1.0), ("stand", 0.4)]], Some(true), (0.5, 30.0), InPlace)),
    loco(spec(
        "locomotion_crouch_walk",
        &[CROUCH, &[("walk", 1.0), ("walking", 1.0), ("move", 0.6), ("sneak", 0.8)]],
        Some(true),
        (0.3, 4.0),
        Moving,
    )),
    loco(with(
        spec(
            "locomotion_jump",
            &[&[("jump", 1.0), ("jumping", 1.0), ("takeoff", 0.9), ("hop", 0.7)]],
            Some(false),
            (0.1, 3.0),
            Any,
        ),
        &["start", "up"],
        &[],
    )),
    loco(spec(
        "locomotion_fall",
        &[&[("fall", 1.0), ("falling", 1.0), ("airborne", 0.8), ("inair", 0.8), ("air", 0.7)]],
        Some(true),
        (0.1, 5.0),
        Any,
    )),
    loco(spec("locomotion_land", &[&[("land", 1.0), ("landing", 1.0)]], Some(false), (0.1, 3.0), Any)),
    spec(
        "hit_react",
        &[&[
            ("hit", 1.0),
            ("flinch", 0.9),
            ("react", 0.8),
            ("reaction", 0.8),
            ("impact", 0.8),
            ("damage", 0.8),
            ("hurt", 0.8),
        ]],
        Some(false),
        (0.1, 3.0),
        Any,
    ),
    spec(
        "death",
        &[&[("death", 1.0), ("die", 1.0), ("dying", 1.0), ("dead", 0.9), ("killed", 0.8)]],
        Some(false),
        (0.3, 10.0),
        Any,
    ),
];

/// Weapon-class alias table.
pub const CLASS_ALIASES: &[(PlayerProfileType, &[&str])] = &[
    (PlayerProfileType::Unarmed, &["unarmed", "fist", "fists", "barehand", "punch", "kick"]),
    (PlayerProfileType::Pistol, &["pistol", "handgun", "revolver", "sidearm"]),
    (PlayerProfileType::Rifle, &["rifle", "ar", "smg", "carbine", "assault", "ak", "m4"]),
    (PlayerProfileType::Shotgun, &["shotgun", "sg", "pump"]),
    (PlayerProfileType::Melee, &["melee", "sword", "knife", "blade", "axe", "club", "bat"]),
    (PlayerProfileType::Heavy, &["heavy", "rpg", "launcher", "lmg", "minigun"]),
    (PlayerProfileType::Throwable, &["grenade", "throwable"]),
];

/// The slots a weapon class's binding profile holds.
#[must_use]
pub fn slots_for(class: PlayerProfileType) -> &'static [&'static str] {
    use PlayerProfileType as P;
    match class {
        P::Unarmed => &[
            "locomotion_idle",
            "locomotion_walk",
            "locomotion_run",
            "locomotion_sprint",
            "locomotion_crouch_idle",
            "locomotion_crouch_walk",
            "locomotion_jump",
            "locomotion_fall",
            "locomotion_land",
            "stance_stand",
            "stance_crouch",
            "stance_prone",
            "stance_cover",
            "melee_attack",
            "hit_react",
            "death",
        ],
        P::Pistol => {
            &["equip_one_hand", "holster_one_hand", "inspect", "reload_magazine", "fire_single", "hit_react", "death"]
        }
        P::Rifle => &[
            "equip_two_hand",
            "holster_two_hand",
            "inspect",
            "reload_magazine",
            "fire_single",
            "fire_burst",
            "fire_auto",
            "melee_attack",
            "hit_react",
            "death",
        ],
        P::Shotgun => &[
            "equip_two_hand",
            "holster_two_hand",
            "inspect",
            "reload_shell",
            "reload_bolt",
            "fire_single",
            "melee_attack",
            "hit_react",
            "death",
        ],
        P::Melee => &["equip_one_hand", "holster_one_hand", "melee_attack", "hit_react", "death"],
        P::Heavy => {
            &["equip_two_hand", "holster_two_hand", "reload_magazine", "fire_single", "fire_auto", "hit_react", "death"]
        }
        P::Throwable => &["equip_one_hand", "throw", "hit_react", "death"],
    }
}

/// The spec of slot `id`.
#[must_use]
pub fn slot_spec(id: &str) -> Option<&'static SlotSpec> {
    SLOT_SPECS.iter().find(|s| s.slot == id)
}

/// Options of [`autobind`].
#[derive(Debug, Clone, Copy)]
pub struct AutoBindOptions {
    /// Bind for this weapon class (its slots and its class aliases); `None`
    /// binds every shipped slot with no class preference.
    pub profile_type: Option<PlayerProfileType>,
    /// Lowest score a candidate needs (default 0.3).
    pub min_score: f32,
}

impl Default for AutoBindOptions {
    fn default() -> Self {
        AutoBindOptions { profile_type: None, min_score: 0.3 }
    }
}

/// One clip scored against one slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The model file.
    pub file: PathBuf,
    /// File stem (for the `<stem>_<animation>` clip id).
    pub stem: String,
    /// Animation name in the file.
    pub clip: String,
    /// Animation index in the file.
    pub index: usize,
    /// Clip definition id the import gives this clip (`<stem>_<animation>` as an id).
    pub clip_id: String,
    /// Sum of the signals.
    pub score: f32,
    /// Signal name → contribution (only non-zero signals).
    pub signals: BTreeMap<&'static str, f32>,
}

/// A slot with its ranked candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotAssignment {
    /// Slot id.
    pub slot: &'static str,
    /// Candidates, best first (ties: report order). Never empty.
    pub candidates: Vec<Candidate>,
}

impl SlotAssignment {
    /// The chosen clip.
    #[must_use]
    pub fn best(&self) -> &Candidate {
        &self.candidates[0]
    }
    /// The best candidate that is a different clip from the chosen one.
    #[must_use]
    pub fn runner_up(&self) -> Option<&Candidate> {
        let best = self.best();
        self.candidates.iter().skip(1).find(|c| c.file != best.file || c.index != best.index)
    }
}

/// Result of [`autobind`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AutoBindResult {
    /// The class bound for, if any.
    pub profile_type: Option<PlayerProfileType>,
    /// Slots with at least one candidate, in slot-table order.
    pub assignments: Vec<SlotAssignment>,
    /// Slots considered that no clip fits.
    pub unassigned: Vec<&'static str>,
}

impl AutoBindResult {
    /// The assignment of `slot`.
    #[must_use]
    pub fn assignment(&self, slot: &str) -> Option<&SlotAssignment> {
        self.assignments.iter().find(|a| a.slot == slot)
    }
}

/// Tokens that name some slot strongly (strength >= 0.9), for contradictions.
fn primary_tokens(spec: &SlotSpec) -> impl Iterator<Item = &'static str> {
    spec.groups.iter().flat_map(|g| g.iter()).filter(|(_, s)| *s >= 0.9).map(|(t, _)| *t)
}

fn is_own_token(spec: &SlotSpec, tok: &str) -> bool {
    spec.groups.iter().flat_map(|g| g.iter()).any(|(t, _)| *t == tok) || spec.bonus.contains(&tok)
}

fn is_contradiction(spec: &SlotSpec, tok: &str) -> bool {
    if is_own_token(spec, tok) {
        return false;
    }
    spec.against.contains(&tok)
        || SLOT_SPECS.iter().filter(|o| o.slot != spec.slot).any(|o| primary_tokens(o).any(|t| t == tok))
}

fn group_strength(group: &[(&str, f32)], tokens: &[String]) -> f32 {
    group.iter().filter(|(a, _)| tokens.iter().any(|t| t == a)).map(|(_, s)| *s).fold(0.0, f32::max)
}

fn alias_score(spec: &SlotSpec, tokens: &[String]) -> (f32, Vec<bool>) {
    let hits: Vec<f32> = spec.groups.iter().map(|g| group_strength(g, tokens)).collect();
    let mean = hits.iter().sum::<f32>() / hits.len().max(1) as f32;
    (mean, hits.iter().map(|h| *h > 0.0).collect())
}

fn class_of_token(tok: &str) -> Option<PlayerProfileType> {
    CLASS_ALIASES.iter().find(|(_, a)| a.contains(&tok)).map(|(c, _)| *c)
}

/// Tokens of the folders between a file's root and the file.
fn folder_tokens(file: &ScannedFile) -> Vec<String> {
    let mut parts: Vec<&str> = file.relative.split('/').collect();
    parts.pop();
    parts.iter().flat_map(|p| tokenize(p)).collect()
}

/// Scores one clip for one slot; `None` when it is not a candidate.
pub fn score_clip(
    spec: &SlotSpec,
    file: &ScannedFile,
    clip: &ScannedClip,
    profile_type: Option<PlayerProfileType>,
) -> Option<Candidate> {
    let name = tokenize(&clip.name);
    let stem = if file.clips.len() == 1 || !clip.named { tokenize(&file.stem) } else { Vec::new() };
    let folders = folder_tokens(file);
    let (name_s, name_hits) = alias_score(spec, &name);
    let (stem_s, stem_hits) = alias_score(spec, &stem);
    let (folder_s, folder_hits) = alias_score(spec, &folders);
    let covered = (0..spec.groups.len()).all(|g| name_hits[g] || stem_hits[g] || folder_hits[g]);
    if !covered {
        return None;
    }
    let mut signals: BTreeMap<&'static str, f32> = BTreeMap::new();
    let mut put = |k: &'static str, v: f32| {
        if v != 0.0 {
            *signals.entry(k).or_insert(0.0) += v;
        }
    };
    put("alias", name_s);
    put("file_alias", 0.8 * stem_s);
    put("folder", 0.3 * folder_s);
    let own: Vec<&String> = name.iter().chain(stem.iter()).collect();
    let mut seen: Vec<&str> = Vec::new();
    for t in &own {
        if seen.contains(&t.as_str()) {
            continue;
        }
        seen.push(t);
        if spec.bonus.contains(&t.as_str()) {
            put("bonus", 0.15);
        } else if is_contradiction(spec, t) {
            put("contradiction", -0.6);
        }
    }
    // Weapon class.
    let classes: Vec<PlayerProfileType> =
        own.iter().map(|t| t.as_str()).chain(folders.iter().map(String::as_str)).filter_map(class_of_token).collect();
    for v in weapon_class_signals(spec, &classes, profile_type) {
        put("weapon_class", v);
    }
    if let Some(want) = spec.looping {
        put("loop", if clip.loops == want { 0.15 } else { -0.15 });
    }
    put("duration", duration_signal(spec, clip));
    put("motion", motion_signal(spec, clip));
    for v in signals.values_mut() {
        *v = (*v * 1000.0).round() / 1000.0;
    }
    let score = signals.values().sum::<f32>();
    Some(Candidate {
        file: file.path.clone(),
        stem: file.stem.clone(),
        clip: clip.name.clone(),
        index: clip.index,
        clip_id: to_id(&format!("{}_{}", file.stem, clip.name)),
        score: (score * 1000.0).round() / 1000.0,
        signals,
    })
}

/// The `weapon_class` signals, in order, of a clip whose own and folder
/// tokens name `classes`, for a set of `profile_type`.
fn weapon_class_signals(
    spec: &SlotSpec,
    classes: &[PlayerProfileType],
    profile_type: Option<PlayerProfileType>,
) -> Vec<f32> {
    let mut out = Vec::new();
    match profile_type {
        Some(PlayerProfileType::Unarmed) | None => {
            if spec.locomotion && classes.iter().any(|c| *c != PlayerProfileType::Unarmed) {
                out.push(-0.2);
            }
        }
        Some(want) => {
            if classes.contains(&want) {
                out.push(0.3);
            }
            if classes.iter().any(|c| *c != want && *c != PlayerProfileType::Unarmed) {
                out.push(-0.6);
            }
            // A punch or a kick is unarmed melee: not a weapon set's clip.
            if classes.contains(&PlayerProfileType::Unarmed) {
                out.push(-0.6);
            }
        }
    }
    out
}

/// +0.1 inside the slot's duration range, else down to -0.3 the further out.
fn duration_signal(spec: &SlotSpec, clip: &ScannedClip) -> f32 {
    let (lo, hi) = spec.duration;
    let d = clip.duration;
    if d >= lo && d <= hi {
        0.1
    } else {
        let off = if d < lo { (lo - d) / lo.max(0.1) } else { (d - hi) / hi.max(0.1) };
        -0.1 - (0.2 * off).min(0.2)
    }
}

/// How well the clip's root travel and limb motion fit the slot's motion kind.
fn motion_signal(spec: &SlotSpec, clip: &ScannedClip) -> f32 {
    let speed = if clip.duration > 0.0 { clip.root_travel / clip.duration } else { 0.0 };
    match spec.motion {
        Moving if speed > 0.3 => 0.25,
        Moving if clip.leg_motion > 20.0 => 0.15,
        Moving if clip.leg_motion < 5.0 && speed < 0.05 => -0.2,
        InPlace if speed > 0.3 => -0.2,
        InPlace if clip.leg_motion > 35.0 => -0.1,
        WeaponHandling if clip.arm_motion > 10.0 && clip.leg_motion < 10.0 && speed < 0.1 => 0.2,
        WeaponHandling if clip.leg_motion > 25.0 || speed > 0.3 => -0.1,
        _ => 0.0,
    }
}

/// Ranks every scanned clip against the slots of `opts.profile_type` (every
/// shipped slot when `None`). Deterministic: ties keep report order.
#[must_use]
pub fn autobind(report: &ScanReport, opts: &AutoBindOptions) -> AutoBindResult {
    let slots: Vec<&'static SlotSpec> = match opts.profile_type {
        Some(class) => slots_for(class).iter().filter_map(|s| slot_spec(s)).collect(),
        None => SLOT_SPECS.iter().collect(),
    };
    let mut result = AutoBindResult { profile_type: opts.profile_type, ..Default::default() };
    for spec in slots {
        let mut cands: Vec<Candidate> = report
            .clips()
            .filter_map(|(f, c)| score_clip(spec, f, c, opts.profile_type))
            .filter(|c| c.score >= opts.min_score)
            .collect();
        cands.sort_by(|a, b| b.score.total_cmp(&a.score));
        if cands.is_empty() {
            result.unassigned.push(spec.slot);
        } else {
            result.assignments.push(SlotAssignment { slot: spec.slot, candidates: cands });
        }
    }
    result
}

/// Whether the candidate's clip, file stem or folders name a weapon class
/// (any class alias but the unarmed ones).
#[must_use]
pub fn names_weapon(report: &ScanReport, c: &Candidate) -> bool {
    let Some(file) = report.files.iter().find(|f| f.path == c.file) else { return false };
    tokenize(&c.clip)
        .into_iter()
        .chain(tokenize(&file.stem))
        .chain(folder_tokens(file))
        .any(|t| class_of_token(&t).is_some_and(|k| k != PlayerProfileType::Unarmed))
}

/// The weapon class most of the weapon-slot winners name (by class aliases
/// in clip, stem and folder tokens); `None` when none names one.
#[must_use]
pub fn detect_weapon_class(result: &AutoBindResult, report: &ScanReport) -> Option<PlayerProfileType> {
    let mut counts: BTreeMap<PlayerProfileType, usize> = BTreeMap::new();
    for a in &result.assignments {
        if slot_spec(a.slot).is_some_and(|s| s.motion != WeaponHandling) {
            continue;
        }
        let best = a.best();
        let Some(file) = report.files.iter().find(|f| f.path == best.file) else { continue };
        let toks = tokenize(&best.clip).into_iter().chain(tokenize(&file.stem)).chain(folder_tokens(file));
        for t in toks {
            if let Some(c) = class_of_token(&t).filter(|c| *c != PlayerProfileType::Unarmed) {
                *counts.entry(c).or_default() += 1;
            }
        }
    }
    counts.into_iter().max_by_key(|(c, n)| (*n, std::cmp::Reverse(*c))).map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_slot_has_a_spec_and_every_spec_is_shipped() {
        for s in zoa_anim_core::DefaultSlots::ALL {
            assert!(slot_spec(s.as_str()).is_some(), "no spec for {}", s.as_str());
        }
        assert_eq!(SLOT_SPECS.len(), zoa_anim_core::DefaultSlots::ALL.len());
        for class in PlayerProfileType::ALL {
            for s in slots_for(class) {
                assert!(slot_spec(s).is_some(), "{class}: {s}");
            }
        }
    }

    fn scanned(stem: &str, clip: &str) -> (ScannedFile, ScannedClip) {
        let clip = ScannedClip {
            name: clip.to_owned(),
            index: 0,
            named: true,
            duration: 0.8,
            key_count: 10,
            joints_animated: 10,
            loops: false,
            root_travel: 0.0,
            root_displacement: [0.0; 3],
            leg_motion: 30.0,
            arm_motion: 30.0,
        };
        let file = ScannedFile {
            path: PathBuf::from(format!("{stem}.glb")),
            relative: format!("{stem}.glb"),
            root: 0,
            stem: stem.to_owned(),
            bones: Vec::new(),
            animated: Vec::new(),
            kind: super::super::scan::ModelKind::Skinned,
            clips: vec![clip.clone(), clip.clone()],
            error: None,
        };
        (file, clip)
    }

    #[test]
    fn common_clip_words_are_aliases() {
        let sprint = slot_spec("locomotion_sprint").unwrap();
        let run = slot_spec("locomotion_run").unwrap();
        let melee = slot_spec("melee_attack").unwrap();
        let (f, c) = scanned("Knight", "Running");
        let as_run = score_clip(run, &f, &c, None).expect("Running is a run");
        let as_sprint = score_clip(sprint, &f, &c, None).expect("and, weaker, a sprint");
        assert!(as_run.score > as_sprint.score);
        for word in ["Punch", "Kick"] {
            let (f, c) = scanned("Knight", word);
            let unarmed = score_clip(melee, &f, &c, Some(PlayerProfileType::Unarmed)).expect(word);
            let rifle = score_clip(melee, &f, &c, Some(PlayerProfileType::Rifle)).expect(word);
            assert!(rifle.score < unarmed.score && rifle.signals["weapon_class"] < 0.0, "{word}");
        }
        assert!(slots_for(PlayerProfileType::Unarmed).contains(&"melee_attack"));
    }

    #[test]
    fn contradictions_are_derived_from_other_slots() {
        let walk = slot_spec("locomotion_walk").unwrap();
        assert!(is_contradiction(walk, "idle"));
        assert!(is_contradiction(walk, "crouch"));
        assert!(!is_contradiction(walk, "walk"));
        let run = slot_spec("locomotion_run").unwrap();
        assert!(!is_contradiction(run, "sprint"), "sprint is a weak run alias");
        let mag = slot_spec("reload_magazine").unwrap();
        assert!(is_contradiction(mag, "shell"));
    }
}
