//! Joints → entities: a character's skeleton bound to the entities of the
//! hierarchy below its root, by name first, then by bone role.

use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::{Component, Entity, Resource};
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::ReflectComponent;
use bevy_ecs::world::DeferredWorld;
use zoa_anim_core::glam::{Quat, Vec3};
use zoa_anim_core::skeleton::{Joint, Skeleton, Transform as CoreTransform};
use zoa_anim_ik::{BoneRoles, Role};

/// Marks an entity driven by a joint of a character: the plugin writes the
/// joint's local transform into the entity's `Transform` every frame.
///
/// Immutable (replace it with `insert`, or leave it to the plugin, which
/// inserts and removes it as characters bind): every insert and every
/// removal (a despawn too) counts in [`JointGeneration`], so a character that
/// checked its joints name it does not check again until one changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Component)]
#[component(immutable, on_insert = count_joint_change, on_discard = count_joint_change)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect), reflect(Component))]
pub struct ZoaJoint {
    /// The entity holding the [`crate::ZoaCharacter`].
    pub character: Entity,
    /// Joint index in the character's skeleton.
    pub joint: u16,
}

/// How many times a [`ZoaJoint`] was inserted, replaced or removed (the
/// plugin's; a hook counts each). A character remembers the count at which
/// it last found every joint entity it binds naming it, and writes them
/// without looking each one's `ZoaJoint` up again while the count stays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Resource)]
pub(crate) struct JointGeneration(pub(crate) u64);

fn count_joint_change(mut world: DeferredWorld<'_>, _: HookContext) {
    if let Some(mut g) = world.get_resource_mut::<JointGeneration>() {
        g.0 = g.0.wrapping_add(1);
    }
}

/// One entity of the hierarchy below (and including) a character's root, in
/// an order where parents come before their children.
#[derive(Debug, Clone, PartialEq)]
pub struct HierarchyNode<'a> {
    /// The entity.
    pub entity: Entity,
    /// Its `Name`, if any.
    pub name: Option<&'a str>,
    /// Index of its parent in the same list (`None` for the root).
    pub parent: Option<usize>,
    /// Its local transform (used for bone discovery by structure).
    pub local: CoreTransform,
}

/// How a character's joints map onto entities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JointBinding {
    entities: Vec<Option<Entity>>,
    by_name: usize,
    by_role: Vec<(u16, Role)>,
}

impl JointBinding {
    /// Binds every joint of `skeleton` to a node of `nodes`: first the node
    /// whose name equals the joint's name (the first in `nodes` order); then,
    /// for joints still unbound, the node that plays the same bone role
    /// (`roles` are the skeleton's roles; the nodes' roles are discovered
    /// from their names and structure the same way). A node drives at most
    /// one joint.
    #[must_use]
    pub fn bind(skeleton: &Skeleton, roles: &BoneRoles, nodes: &[HierarchyNode<'_>]) -> JointBinding {
        let mut entities = vec![None; skeleton.joint_count()];
        let mut used = vec![false; nodes.len()];
        let mut by_name = 0;
        for (j, joint) in skeleton.joints().iter().enumerate() {
            let Some(name) = joint.name.as_deref() else { continue };
            if let Some(k) = nodes.iter().position(|n| n.name == Some(name))
                && !used[k]
            {
                used[k] = true;
                entities[j] = Some(nodes[k].entity);
                by_name += 1;
            }
        }
        let mut by_role = Vec::new();
        if by_name < entities.len()
            && let Some(node_roles) = discover(nodes)
        {
            for role in Role::ALL {
                let (Some(j), Some(k)) = (roles.get(role), node_roles.get(role)) else { continue };
                let (j, k) = (usize::from(j), usize::from(k));
                if entities[j].is_none() && !used[k] {
                    used[k] = true;
                    entities[j] = Some(nodes[k].entity);
                    by_role.push((j as u16, role));
                }
            }
        }
        JointBinding { entities, by_name, by_role }
    }

    /// The entity joint `joint` drives.
    #[must_use]
    pub fn entity(&self, joint: usize) -> Option<Entity> {
        self.entities.get(joint).copied().flatten()
    }
    /// The entity of every joint, by joint index.
    #[must_use]
    pub fn entities(&self) -> &[Option<Entity>] {
        &self.entities
    }
    /// How many joints were bound by name.
    #[must_use]
    pub fn bound_by_name(&self) -> usize {
        self.by_name
    }
    /// Joints bound by role because no entity has their name.
    #[must_use]
    pub fn bound_by_role(&self) -> &[(u16, Role)] {
        &self.by_role
    }
    /// How many joints drive an entity.
    #[must_use]
    pub fn bound(&self) -> usize {
        self.by_name + self.by_role.len()
    }
    /// Joints that drive no entity.
    pub fn unbound(&self) -> impl Iterator<Item = usize> + '_ {
        self.entities.iter().enumerate().filter(|(_, e)| e.is_none()).map(|(j, _)| j)
    }
}

/// Bone roles of the node hierarchy (as if it were a skeleton).
fn discover(nodes: &[HierarchyNode<'_>]) -> Option<BoneRoles> {
    let joints = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            Some(Joint {
                name: n.name.map(str::to_owned),
                node: u32::try_from(i).ok()?,
                parent: match n.parent {
                    Some(p) => Some(u16::try_from(p).ok()?),
                    None => None,
                },
                rest: n.local,
                inverse_bind: zoa_anim_core::glam::Mat4::IDENTITY,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let skeleton = Skeleton::new("hierarchy", joints).ok()?;
    Some(BoneRoles::discover(&skeleton))
}

/// A Bevy transform as the core's TRS (bit for bit).
pub(crate) fn core_transform(t: &bevy_transform::components::Transform) -> CoreTransform {
    CoreTransform {
        translation: Vec3::from_array(t.translation.to_array()),
        rotation: Quat::from_array(t.rotation.to_array()),
        scale: Vec3::from_array(t.scale.to_array()),
    }
}

/// The core's TRS as a Bevy transform (bit for bit).
#[must_use]
pub fn bevy_transform(t: &CoreTransform) -> bevy_transform::components::Transform {
    bevy_transform::components::Transform {
        translation: bevy_math::Vec3::from_array(t.translation.to_array()),
        rotation: bevy_math::Quat::from_array(t.rotation.to_array()),
        scale: bevy_math::Vec3::from_array(t.scale.to_array()),
    }
}
