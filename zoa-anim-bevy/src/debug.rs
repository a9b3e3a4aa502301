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
/// layer (stroke text above the root).
#[derive(Debug, Default, Clone, Copy)]
pub struct ZoaDebugPlugin;

impl Plugin for ZoaDebugPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(PostUpdate, draw.after(TransformSystems::Propagate));
    }
}

fn draw(mut gizmos: Gizmos, characters: Query<(&ZoaCharacter, &GlobalTransform)>, globals: Query<&GlobalTransform>) {
    let bone = Color::srgb(1.0, 0.75, 0.2);
    let behaviour = Color::srgb(0.2, 0.9, 1.0);
    let chain = Color::srgb(1.0, 0.3, 0.9);
    for (c, root) in &characters {
        let Some(binding) = c.binding() else { continue };
        let at =
            |joint: usize| binding.entity(joint).and_then(|e| globals.get(e).ok()).map(GlobalTransform::translation);
        for (j, joint) in c.definition().skeleton().skeleton().joints().iter().enumerate() {
            if let (Some(a), Some(b)) = (at(j), joint.parent.and_then(|p| at(usize::from(p)))) {
                gizmos.line(a, b, bone);
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
            let above = root.translation() + Vec3::Y * 2.1;
            gizmos.text(Isometry3d::from_translation(above), state, 0.15, Vec2::ZERO, Color::WHITE);
        }
    }
}
