//! Rig policy: which IK behaviours the runtime generates from discovered
//! bones, and how the procedural fallback feels (a `rig_policy`
//! definition). Each policy is silently skipped when the rig lacks
//! the bones it needs: a door with foot planting enabled is not a bug.

/// IK and procedural-motion policy for one archetype.
#[derive(Debug, Clone, PartialEq)]
pub struct RigPolicy {
    /// Unique id.
    pub id: String,
    /// Plant feet on the ground.
    pub foot_plant: bool,
    /// Turn the head towards a look target.
    pub look_at: bool,
    /// Keep the off hand on the weapon's grip.
    pub hand_on_weapon: bool,
    /// Put hands on ledge targets while climbing.
    pub climb_hand: bool,
    /// Normalised locomotion speed (0 ..= 1) at which foot planting has faded
    /// out completely; fully engaged at rest.
    pub foot_plant_blend_in_speed: f32,
    /// Half-angle of the look-at cone, degrees (0 ..= 180).
    pub look_at_fov_degrees: f32,
    /// Allow procedural motion when no clip resolves.
    pub allow_procedural_fallback: bool,
    /// Idle breath frequency, Hz (`>= 0`).
    pub breath_frequency: f32,
    /// Idle breath amplitude, radians of spine-root pitch (`>= 0`).
    pub breath_amplitude: f32,
    /// Head bob amplitude during locomotion fallback, metres (`>= 0`).
    pub head_bob_amplitude: f32,
    /// Explicit role → bone name overrides (`("left_foot", "foot_l")`); the
    /// role is one of [`BONE_ROLES`].
    pub bone_overrides: Vec<(String, String)>,
    /// Joint chains (tails, spines, tentacles) solved towards a per-frame
    /// target, in declaration order: the game addresses a chain's target by
    /// its index here. At most [`IK_CHAINS`](crate::budget::IK_CHAINS).
    pub chains: Vec<RigChain>,
}

/// One IK chain of a rig policy (authored form: bones by name; the IK crate
/// compiles it for a skeleton). The chain is every joint on the path from
/// `root` down to `tip`; the solver turns them so the tip reaches the
/// target the game sets each frame.
#[derive(Debug, Clone, PartialEq)]
pub struct RigChain {
    /// Name, unique in the policy (`tail`).
    pub name: String,
    /// The chain's first joint (bone name); it turns, its parent does not.
    pub root: String,
    /// The chain's last joint (bone name), a descendant of `root`: the
    /// effector that goes to the target.
    pub tip: String,
    /// Most solver sweeps per frame, 1 ..= [`IK_CHAIN_ITERATIONS`](crate::budget::IK_CHAIN_ITERATIONS).
    /// Default 10.
    pub iterations: u32,
    /// The solve stops once the tip is this close to the target, model
    /// units (metres for glTF), `>= 0`. Default 0.001.
    pub tolerance: f32,
    /// Blend from the animated pose, 0 ..= 1. Default 1.
    pub weight: f32,
    /// Largest swing of each joint away from its animated direction,
    /// degrees (0 ..= 180; 180 leaves it free). Default 180.
    pub swing_limit_degrees: f32,
    /// Largest twist of each joint about its bone from its animated
    /// orientation, either way, degrees (0 ..= 180; 180 leaves it free).
    /// The solve only swings joints, so this bounds the tip turning to the
    /// target's rotation. Default 180.
    pub twist_limit_degrees: f32,
}

impl RigChain {
    /// A chain from `root` to `tip` with default settings.
    #[must_use]
    pub fn new(name: impl Into<String>, root: impl Into<String>, tip: impl Into<String>) -> RigChain {
        RigChain {
            name: name.into(),
            root: root.into(),
            tip: tip.into(),
            iterations: 10,
            tolerance: 0.001,
            weight: 1.0,
            swing_limit_degrees: 180.0,
            twist_limit_degrees: 180.0,
        }
    }
}

/// The role names `bone_overrides` accepts, in the order the IK crate's
/// role discovery reports them (its `Role::ALL` names match this list).
pub const BONE_ROLES: [&str; 20] = [
    "hips",
    "spine",
    "neck",
    "head",
    "left_upper_leg",
    "left_lower_leg",
    "left_foot",
    "left_toe",
    "right_upper_leg",
    "right_lower_leg",
    "right_foot",
    "right_toe",
    "left_shoulder",
    "left_upper_arm",
    "left_forearm",
    "left_hand",
    "right_shoulder",
    "right_upper_arm",
    "right_forearm",
    "right_hand",
];

impl Default for RigPolicy {
    fn default() -> Self {
        RigPolicy {
            id: String::new(),
            foot_plant: true,
            look_at: true,
            hand_on_weapon: true,
            climb_hand: false,
            foot_plant_blend_in_speed: 0.5,
            look_at_fov_degrees: 70.0,
            allow_procedural_fallback: true,
            breath_frequency: 0.25,
            breath_amplitude: 0.02,
            head_bob_amplitude: 0.02,
            bone_overrides: Vec::new(),
            chains: Vec::new(),
        }
    }
}
