//! Pose evaluation benchmarks (divan), per character per frame:
//! (a) one clip sampled, (b) two clips blended by a 1D tree, (c) four layers
//! (1D locomotion tree, a weighted override, a masked upper-body layer, an
//! additive layer), (d) = (c) + local-to-model; and a 1,000-character crowd of
//! (d) on a rayon pool of 1 and 2 threads (`crowd_1000_*`) and on a `Team` of
//! 1 and 2 members (`crowd_1000_humanoid_team`); (e) = (d) + the rig policy's IK stage (foot plant
//! on flat ground, look-at, off hand on a weapon grip; whatever the rig has
//! bones for), per character and as a 1,000-character crowd. Each bench prints its joint count so ns per joint
//! can be derived (divan's `items/s` counter counts joints).
//!
//! The `job_*` benches time one job alone, and `kit_character` the whole
//! character of `zoa-anim bench` (and of the ozz-animation comparison kit): a
//! two-clip 1D blend, one additive layer at weight 0.5 against its clip's first
//! frame, local-to-model.
//! - `job_sample`: one clip sampled, forward playback, warm cursors.
//! - `job_blend_two`: two sampled poses, weights 0.6 / 0.4, rest fill.
//! - `job_blend_two_additive`: the same plus one additive input at 0.5 (the
//!   kit's blend).
//! - `job_blend_four_additive`: four sampled poses (0.4, 0.3, 0.2, 0.1), one
//!   of them masked to the upper body, plus one additive input at 0.5.
//! - `job_local_to_model`: the whole skeleton.
//!
//! The blends use [`Composition::Mixer`], the composition an [`ClipPlayer`]
//! defaults to. Assets: `fixtures/models/humanoid.glb` when it exists, the
//! shared `Fox.glb` and `CesiumMan.glb` (from `ZOA_ASSETS` or
//! `../shared/assets`; absent assets are skipped with a note), and
//! `own-times`, made here: a 43-joint rig whose three clips key translation,
//! rotation and scale of every joint at 30 fps, each channel keeping its own
//! 60% of the keys (as exporters that drop redundant keys per channel
//! write them), so no two tracks share key times (the sampling job's lane
//! batches); and `own-times-cubic`, the same rig with CUBICSPLINE tracks
//! (zero tangents: sampling costs the same whatever their values), which
//! the sampling job samples in cubic lane batches.

use std::path::PathBuf;
use std::sync::Arc;

use divan::Bencher;
use divan::counter::ItemsCount;
use zoa_anim_assets::gltf::load_gltf;
use zoa_anim_runtime::pose::*;

fn main() {
    divan::main();
}

const DT: f32 = 1.0 / 60.0;

fn asset_path(which: &str) -> Option<PathBuf> {
    let path = match which {
        "humanoid" => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/models/humanoid.glb")),
        shared => std::env::var_os("ZOA_ASSETS")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/assets")))
            .join(match shared {
                "fox" => "Fox.glb",
                _ => "CesiumMan.glb",
            }),
    };
    if path.is_file() {
        Some(path)
    } else {
        eprintln!("note: {} is absent; skipping", path.display());
        None
    }
}

struct Rig {
    skeleton: Arc<RuntimeSkeleton>,
    clips: Vec<Arc<Animation>>,
}

impl Rig {
    fn load(which: &str) -> Option<Rig> {
        if which == "own-times" {
            return Some(Rig::own_times(false));
        }
        if which == "own-times-cubic" {
            return Some(Rig::own_times(true));
        }
        let asset = load_gltf(&asset_path(which)?).expect("asset loads");
        let skeleton = asset.skeletons.first().expect("a skin").clone();
        let clips = asset
            .clips
            .iter()
            .map(|c| Arc::new(Animation::bind(c, &skeleton, BindBy::Node).expect("clip binds")))
            .collect();
        Some(Rig { skeleton: Arc::new(RuntimeSkeleton::new(skeleton)), clips })
    }

    /// The `own-times` rig (see the module docs), the same on every run;
    /// with `cubic`, its tracks are cubic splines with zero tangents.
    fn own_times(cubic: bool) -> Rig {
        use zoa_anim_core::{Clip, Interpolation, Joint, Skeleton, Track, TrackProperty, Transform};
        // A spine of 7 joints, then four limbs of 9 (two from the top of the
        // spine, two from its third joint).
        let mut parents: Vec<Option<u16>> = (0..7).map(|j: u16| j.checked_sub(1)).collect();
        for base in [6u16, 6, 2, 2] {
            let mut parent = base;
            for _ in 0..9 {
                parents.push(Some(parent));
                parent = parents.len() as u16 - 1;
            }
        }
        let joints = parents
            .iter()
            .enumerate()
            .map(|(j, &parent)| Joint {
                name: Some(format!("joint_{j:02}")),
                node: j as u32,
                parent,
                rest: Transform { translation: glam::Vec3::new(0.0, 0.1, 0.0), ..Transform::IDENTITY },
                inverse_bind: glam::Mat4::IDENTITY,
            })
            .collect();
        let skeleton = Skeleton::new("own-times", joints).expect("skeleton");
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let clips = [("walk", 1.0f32), ("run", 0.7), ("wave", 1.6)]
            .into_iter()
            .enumerate()
            .map(|(c, (name, duration))| {
                let frames = (duration * 30.0).round() as usize;
                let mut tracks = Vec::new();
                for j in 0..parents.len() {
                    let phase = 0.37 * j as f32 + c as f32;
                    for property in [TrackProperty::Translation, TrackProperty::Rotation, TrackProperty::Scale] {
                        let kept: Vec<usize> =
                            (0..=frames).filter(|&k| k == 0 || k == frames || next() < 0.6).collect();
                        let times: Vec<f32> = kept.iter().map(|&k| k as f32 / 30.0).collect();
                        let values: Vec<f32> = times
                            .iter()
                            .flat_map(|t| {
                                let w = std::f32::consts::TAU * t / duration + phase;
                                let value = match property {
                                    TrackProperty::Translation => vec![0.01 * w.sin(), 0.1 + 0.01 * w.cos(), 0.0],
                                    TrackProperty::Rotation => {
                                        let axis = glam::Vec3::new(phase.sin(), (1.3 * phase).cos(), 0.5).normalize();
                                        glam::Quat::from_axis_angle(axis, 0.6 * w.sin()).to_array().to_vec()
                                    }
                                    TrackProperty::Scale => vec![1.0 + 0.05 * (2.0 * w).sin(); 3],
                                };
                                if cubic {
                                    let tangent = vec![0.0; value.len()];
                                    [tangent.clone(), value, tangent].concat()
                                } else {
                                    value
                                }
                            })
                            .collect();
                        tracks.push(Track {
                            node: j as u32,
                            node_name: None,
                            property,
                            interpolation: if cubic { Interpolation::CubicSpline } else { Interpolation::Linear },
                            times,
                            values,
                        });
                    }
                }
                let clip = Clip::new(name, tracks).expect("clip");
                Arc::new(Animation::bind(&clip, &skeleton, BindBy::Node).expect("clip binds"))
            })
            .collect();
        Rig { skeleton: Arc::new(RuntimeSkeleton::new(skeleton)), clips }
    }

    /// The first clip whose name contains one of `names` (case-insensitive), else clip `fallback`.
    fn clip(&self, names: &[&str], fallback: usize) -> Arc<Animation> {
        names
            .iter()
            .find_map(|n| self.clips.iter().find(|c| c.name().to_lowercase().contains(n)))
            .unwrap_or(&self.clips[fallback % self.clips.len()])
            .clone()
    }

    /// Upper body: the second spine joint if there is one (Mixamo `Spine1`), else the first.
    fn upper_body_mask(&self) -> Arc<BoneWeights> {
        let s = self.skeleton.skeleton();
        let spines: Vec<usize> = s
            .eval_order()
            .iter()
            .map(|&j| j as usize)
            .filter(|&j| s.display_name(j).to_lowercase().contains("spine"))
            .collect();
        let root = spines.get(1).or(spines.first()).copied().unwrap_or(0);
        let name = s.display_name(root).into_owned();
        Arc::new(BoneWeights::from_names(s, &[name.as_str()], &[]).expect("mask"))
    }

    fn instance(&self, scenario: char, seed: usize) -> ClipPlayer {
        let walk = self.clip(&["walk"], 0);
        let run = self.clip(&["run"], 1);
        let phase = (seed % 17) as f32 / 17.0;
        let tree = || LayerSource::Tree {
            tree: CompiledBlendTree::one_d(&[0.0, 1.0]).expect("tree"),
            motions: vec![BoundMotion::looping(walk.clone()), BoundMotion::looping(run.clone())],
            x: 0.4 + (seed % 5) as f32 * 0.1,
            y: 0.0,
            clock: SyncClock { phase },
            speed: 1.0,
        };
        let layers = match scenario {
            'a' => vec![Layer::new(
                "walk",
                LayerSource::Clip { motion: BoundMotion::looping(walk.clone()), time: phase, speed: 1.0 },
            )],
            'b' => vec![Layer::new("loco", tree())],
            _ => vec![
                Layer::new("loco", tree()),
                Layer::new("idle", LayerSource::clip(BoundMotion::looping(self.clip(&["idle", "survey"], 2))))
                    .with_weight(0.3),
                Layer::new(
                    "aim",
                    LayerSource::clip(BoundMotion::looping(self.clip(&["rifle_aim", "aim", "survey"], 2))),
                )
                .with_mask(self.upper_body_mask()),
                Layer::new("recoil", LayerSource::clip(BoundMotion::looping(self.clip(&["recoil", "hit", "run"], 1))))
                    .additive(AdditiveReference::Time(0.0))
                    .with_weight(0.7),
            ],
        };
        let mut inst = ClipPlayer::new(self.skeleton.clone(), layers).expect("instance");
        inst.set_compute_model(matches!(scenario, 'd' | 'e'));
        if scenario == 'e' {
            inst.set_ik(Some(self.ik_stage(seed))).expect("IK stage fits");
        }
        inst.update(0.0).expect("warm-up frame");
        inst
    }
}

impl Rig {
    /// The default rig policy's IK with every input set.
    fn ik_stage(&self, seed: usize) -> IkStage {
        use zoa_anim_core::contracts::{PoseSnapshot, PoseTargetData};
        let policy = zoa_anim_core::RigPolicy { id: "bench".into(), ..Default::default() };
        let rig = Arc::new(zoa_anim_ik::RigIk::for_policy(self.skeleton.skeleton(), &policy).0);
        let mut stage = IkStage::new(rig, &self.skeleton).expect("stage");
        let inputs = stage.inputs_mut();
        inputs.locomotion_speed = 0.1;
        inputs.ground = Some(Arc::new(zoa_anim_ik::FlatGround { height: 0.02, normal: glam::Vec3::Y }));
        inputs.look_target = Some(glam::Vec3::new((seed as f32).sin(), 1.6, 2.0));
        let mut weapon = PoseSnapshot::default();
        weapon.set_target(PoseTargetData {
            target: zoa_anim_ik::LEFT_HAND_GRIP,
            position: [0.2, 1.2, 0.35],
            rotation: Some([0.0, 0.0, 0.0, 1.0]),
            weight: 1.0,
            space: zoa_anim_core::contracts::PoseSpace::Model,
        });
        inputs.weapon_pose = Some(weapon);
        stage
    }
}

fn per_character(bencher: Bencher<'_, '_>, asset: &str, scenario: char) {
    let Some(rig) = Rig::load(asset) else { return };
    let mut inst = rig.instance(scenario, 0);
    eprintln!("[{asset} ({scenario})] {} joints", rig.skeleton.joint_count());
    bencher.counter(ItemsCount::new(rig.skeleton.joint_count())).bench_local(|| inst.update(DT).expect("frame"));
}

/// (a) one clip sampled (forward playback, key cursors warm).
#[divan::bench(args = ["humanoid", "fox"])]
fn a_one_clip(bencher: Bencher<'_, '_>, asset: &str) {
    per_character(bencher, asset, 'a');
}

/// (b) two clips blended by a 1D tree on a shared clock.
#[divan::bench(args = ["humanoid", "fox"])]
fn b_two_clips_1d(bencher: Bencher<'_, '_>, asset: &str) {
    per_character(bencher, asset, 'b');
}

/// (c) four layers: 1D tree, weighted override, masked upper body, additive.
#[divan::bench(args = ["humanoid", "fox"])]
fn c_four_layers(bencher: Bencher<'_, '_>, asset: &str) {
    per_character(bencher, asset, 'c');
}

/// (d) (c) plus local-to-model matrices.
#[divan::bench(args = ["humanoid", "fox"])]
fn d_four_layers_model(bencher: Bencher<'_, '_>, asset: &str) {
    per_character(bencher, asset, 'd');
}

/// (e) (d) plus the rig policy's IK stage.
#[divan::bench(args = ["humanoid", "fox"])]
fn e_four_layers_model_ik(bencher: Bencher<'_, '_>, asset: &str) {
    per_character(bencher, asset, 'e');
}

/// 1,000 characters of (d), on a rayon pool of 1 and 2 threads.
#[divan::bench(args = [1, 2], sample_count = 20)]
fn crowd_1000_humanoid(bencher: Bencher<'_, '_>, threads: usize) {
    crowd(bencher, "humanoid", threads);
}

/// 1,000 Fox characters of (d), on a rayon pool of 1 and 2 threads.
#[divan::bench(args = [1, 2], sample_count = 20)]
fn crowd_1000_fox(bencher: Bencher<'_, '_>, threads: usize) {
    crowd(bencher, "fox", threads);
}

/// 1,000 humanoids of (e), with IK, on a rayon pool of 1 and 2 threads.
#[divan::bench(args = [1, 2], sample_count = 20)]
fn crowd_1000_humanoid_ik(bencher: Bencher<'_, '_>, threads: usize) {
    crowd_of(bencher, "humanoid", 'e', threads);
}

/// 1,000 humanoids of (d) on a `Team` of 1 and 2 members (fixed shares,
/// workers awake between frames), to set against `crowd_1000_humanoid`.
#[divan::bench(args = [1, 2], sample_count = 20)]
fn crowd_1000_humanoid_team(bencher: Bencher<'_, '_>, members: usize) {
    let Some(rig) = Rig::load("humanoid") else { return };
    let mut crowd = Crowd::new((0..1000).map(|i| rig.instance('d', i)).collect());
    let mut team = Team::new(members).expect("team");
    bencher
        .counter(ItemsCount::new(crowd.joint_count()))
        .bench_local(|| crowd.update_on(&mut team, DT).expect("frame"));
}

fn crowd(bencher: Bencher<'_, '_>, asset: &str, threads: usize) {
    crowd_of(bencher, asset, 'd', threads);
}

fn crowd_of(bencher: Bencher<'_, '_>, asset: &str, scenario: char, threads: usize) {
    let Some(rig) = Rig::load(asset) else { return };
    let mut crowd = Crowd::new((0..1000).map(|i| rig.instance(scenario, i)).collect());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
    eprintln!("[{asset} crowd] 1000 x {} joints", rig.skeleton.joint_count());
    bencher
        .counter(ItemsCount::new(crowd.joint_count()))
        .bench_local(|| pool.install(|| crowd.update_parallel(DT).expect("frame")));
}

/// The assets the per-job benches run on.
const ASSETS: [&str; 5] = ["humanoid", "fox", "cesiumman", "own-times", "own-times-cubic"];

/// Job: sampling alone (one clip, forward playback, warm cursors).
#[divan::bench(args = ASSETS)]
fn job_sample(bencher: Bencher<'_, '_>, asset: &str) {
    let Some(rig) = Rig::load(asset) else { return };
    let walk = rig.clip(&["walk"], 0);
    let mut context = SamplingContext::for_animation(&walk);
    let mut pose = rig.skeleton.rest().clone();
    let mut time = 0.0f32;
    bencher.counter(ItemsCount::new(rig.skeleton.joint_count())).bench_local(|| {
        time += DT;
        let t = zoa_anim_runtime::pose::math::wrap_time(time, walk.duration());
        SamplingJob { animation: &walk, time: t, context: &mut context, output: &mut pose }.run().expect("sample");
    });
}

/// Sampled poses for the blending benches: clip `k` (by name, else index) at
/// time `0.1 + 0.1 k` seconds.
struct Sampled {
    clips: Vec<Arc<Animation>>,
    poses: Vec<Pose>,
}

impl Sampled {
    fn new(rig: &Rig, names: &[&str]) -> Sampled {
        let clips: Vec<_> = names.iter().enumerate().map(|(k, n)| rig.clip(&[n], k)).collect();
        let poses = clips
            .iter()
            .enumerate()
            .map(|(k, c)| c.sample_to_new(0.1 + 0.1 * k as f32, rig.skeleton.rest()).expect("sample"))
            .collect();
        Sampled { clips, poses }
    }
    fn input(&self, k: usize, weight: f32) -> BlendInput<'_> {
        BlendInput::new(&self.poses[k], self.clips[k].animated(), weight)
    }
}

fn blend_bench(bencher: Bencher<'_, '_>, rig: &Rig, layers: &[BlendLayer<'_>]) {
    let rest = rig.skeleton.rest();
    let mut context = BlendingContext::new(rest.len());
    let mut out = rest.clone();
    bencher.counter(ItemsCount::new(rest.len())).bench_local(|| {
        BlendingJob { rest, layers, composition: Composition::Mixer, context: &mut context, output: &mut out }
            .run()
            .expect("blend");
    });
}

/// Job: blending two sampled poses (override 0.6 / 0.4 + rest fill).
#[divan::bench(args = ASSETS)]
fn job_blend_two(bencher: Bencher<'_, '_>, asset: &str) {
    let Some(rig) = Rig::load(asset) else { return };
    let s = Sampled::new(&rig, &["walk", "run"]);
    let inputs = [s.input(0, 0.6), s.input(1, 0.4)];
    blend_bench(bencher, &rig, &[BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &inputs }]);
}

/// Job: the kit's blend: two sampled poses (0.6 / 0.4) and one additive input
/// at 0.5 against its clip's first frame.
#[divan::bench(args = ASSETS)]
fn job_blend_two_additive(bencher: Bencher<'_, '_>, asset: &str) {
    let Some(rig) = Rig::load(asset) else { return };
    let s = Sampled::new(&rig, &["walk", "run", "recoil"]);
    let reference = additive_reference(&rig, &s.clips[2]);
    let inputs = [s.input(0, 0.6), s.input(1, 0.4)];
    let additive = [s.input(2, 1.0).with_reference(&reference)];
    blend_bench(
        bencher,
        &rig,
        &[
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &inputs },
            BlendLayer { mode: BlendMode::Additive, weight: 0.5, inputs: &additive },
        ],
    );
}

/// Job: four sampled poses (0.4, 0.3, 0.2, 0.1; the last masked to the upper
/// body) and one additive input at 0.5.
#[divan::bench(args = ASSETS)]
fn job_blend_four_additive(bencher: Bencher<'_, '_>, asset: &str) {
    let Some(rig) = Rig::load(asset) else { return };
    let s = Sampled::new(&rig, &["walk", "run", "idle", "aim", "recoil"]);
    let mask = rig.upper_body_mask();
    let reference = additive_reference(&rig, &s.clips[4]);
    let inputs = [s.input(0, 0.4), s.input(1, 0.3), s.input(2, 0.2), s.input(3, 0.1).with_mask(mask.weights())];
    let additive = [s.input(4, 1.0).with_reference(&reference)];
    blend_bench(
        bencher,
        &rig,
        &[
            BlendLayer { mode: BlendMode::Override, weight: 1.0, inputs: &inputs },
            BlendLayer { mode: BlendMode::Additive, weight: 0.5, inputs: &additive },
        ],
    );
}

fn additive_reference(rig: &Rig, clip: &Animation) -> ReferencePose {
    ReferencePose::from_pose(&clip.sample_to_new(0.0, rig.skeleton.rest()).expect("sample"))
}

/// Job: local-to-model for the whole skeleton.
#[divan::bench(args = ASSETS)]
fn job_local_to_model(bencher: Bencher<'_, '_>, asset: &str) {
    let Some(rig) = Rig::load(asset) else { return };
    let pose = rig.clip(&["walk"], 0).sample_to_new(0.3, rig.skeleton.rest()).expect("sample");
    let mut model = vec![zoa_anim_runtime::glam::Mat4::IDENTITY; pose.len()];
    bencher.counter(ItemsCount::new(pose.len())).bench_local(|| {
        LocalToModelJob { skeleton: &rig.skeleton, input: &pose, root: None, output: &mut model }.run().expect("l2m");
    });
}

/// Whole character: the `zoa-anim bench` / ozz-kit character (clips 0 and 1
/// in a 1D tree at x = 0.5, clip 2 additive at 0.5 against its first frame,
/// local-to-model), advance + evaluate.
#[divan::bench(args = ASSETS)]
fn kit_character(bencher: Bencher<'_, '_>, asset: &str) {
    let Some(rig) = Rig::load(asset) else { return };
    let clip = |k: usize| rig.clips[k % rig.clips.len()].clone();
    let blend = LayerSource::Tree {
        tree: CompiledBlendTree::one_d(&[0.0, 1.0]).expect("tree"),
        motions: vec![BoundMotion::looping(clip(0)), BoundMotion::looping(clip(1))],
        x: 0.5,
        y: 0.0,
        clock: SyncClock { phase: 0.2 },
        speed: 1.0,
    };
    let additive = LayerSource::Clip { motion: BoundMotion::looping(clip(2)), time: 0.1, speed: 1.0 };
    let layers = vec![
        Layer::new("blend", blend),
        Layer::new("additive", additive).additive(AdditiveReference::Time(0.0)).with_weight(0.5),
    ];
    let mut inst = ClipPlayer::new(rig.skeleton.clone(), layers).expect("instance");
    inst.update(0.0).expect("warm-up frame");
    bencher.counter(ItemsCount::new(rig.skeleton.joint_count())).bench_local(|| inst.update(DT).expect("frame"));
}
