//! [`ZoaDebugPlugin`] (the `render` feature): every character's skeleton,
//! IK targets and active state drawn with Bevy's gizmos.
//!
//! Behind `render` because `bevy_gizmos` brings cameras, meshes, windows and
//! input (its drawing is `bevy_gizmos_render`'s); a headless build has
//! nothing to draw on.

use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::ZoaCharacter;

/// Draws, for every bound [`ZoaCharacter`], after transform propagation:
/// its skeleton (a line from each joint's entity to its parent joint's
/// entity, amber), the targets its IK aimed at in the last frame (the rig
/// policy's behaviours cyan, its chains magenta; a sphere each, bigger with
/// the goal's weight) and the name of its graph's active state on the base
/// layer (stroke text above the highest joint). Drawn in its own gizmo
/// group, [`ZoaDebugGizmos`], over the meshes: a skeleton sits inside its
/// skin, where depth-tested lines would be hidden.
#[derive(Debug, Default, Clone, Copy)]
pub struct ZoaDebugPlugin;

/// The gizmo group of [`ZoaDebugPlugin`]'s drawing, set up with a depth bias
/// of -1 (always in front). Turn it off or restyle it at run time with
/// `GizmoConfigStore::config_mut::<ZoaDebugGizmos>()`, without touching the
/// app's default gizmos.
#[derive(Debug, Default, Reflect, GizmoConfigGroup)]
pub struct ZoaDebugGizmos;

impl Plugin for ZoaDebugPlugin {
    fn build(&self, app: &mut App) {
        app.insert_gizmo_config(ZoaDebugGizmos, GizmoConfig { depth_bias: -1.0, ..default() })
            .add_systems(PostUpdate, draw.after(TransformSystems::Propagate));
    }
}

fn draw(
    mut gizmos: Gizmos<ZoaDebugGizmos>,
    characters: Query<(&ZoaCharacter, &GlobalTransform)>,
    globals: Query<&GlobalTransform>,
) {
    let bone = Color::srgb(1.0, 0.75, 0.2);
    let behaviour = Color::srgb(0.2, 0.9, 1.0);
    let chain = Color::srgb(1.0, 0.3, 0.9);
    for (c, root) in &characters {
        let Some(binding) = c.binding() else { continue };
        let at =
            |joint: usize| binding.entity(joint).and_then(|e| globals.get(e).ok()).map(GlobalTransform::translation);
        let mut top = root.translation().y;
        for (j, joint) in c.definition().skeleton().skeleton().joints().iter().enumerate() {
            if let Some(a) = at(j) {
                top = top.max(a.y);
                if let Some(b) = joint.parent.and_then(|p| at(usize::from(p))) {
                    gizmos.line(a, b, bone);
                }
            }
        }
        // IK targets are in the character's model space: the root entity's.
        let world = |t: zoa_anim_core::glam::Vec3| root.transform_point(Vec3::from_array(t.to_array()));
        if let Some(report) = c.ik_report() {
            for g in report.goals() {
                gizmos.sphere(Isometry3d::from_translation(world(g.target)), 0.02 + 0.03 * g.weight, behaviour);
            }
            for g in report.chain_goals() {
                gizmos.sphere(Isometry3d::from_translation(world(g.target)), 0.02 + 0.03 * g.weight, chain);
            }
        }
        if let Some(state) = c.graph_instance().current_state_name(0) {
            let root = root.translation();
            let above = Vec3::new(root.x, top + 0.3, root.z);
            gizmos.text(Isometry3d::from_translation(above), state, 0.15, Vec2::ZERO, Color::WHITE);
        }
    }
}
