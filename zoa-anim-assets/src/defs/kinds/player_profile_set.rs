//! `player_profile_set`: one binding profile (and optionally an animation
//! profile and graph) per weapon class.

use zoa_anim_core::{PlayerProfileEntry, PlayerProfileSet, PlayerProfileType};

use super::Names;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::Obj;
use crate::defs::spec::{Enum, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

/// Weapon classes, as `PlayerProfileType::from_name` reads them.
pub(crate) static CLASS: Enum = Enum {
    noun: "weapon class",
    values: &["unarmed", "pistol", "rifle", "shotgun", "melee", "heavy", "throwable"],
    aliases: &[],
};

static PROFILE: Table = Table::of(&[
    Field::req("class", Ty::Enum(&CLASS), "a weapon class", "unique"),
    Field::req("binding_profile", Ty::Id, "a binding_profile id", "a `binding_profile` id"),
    Field::opt("animation_profile", Ty::Id, "none", "an `animation_profile` id"),
    Field::opt("animation_graph", Ty::Id, "none", "an `animation_graph` id"),
]);

/// The description of `player_profile_set`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::PlayerProfileSet,
    produces: "[`zoa_anim_core::PlayerProfileSet`]",
    intro: "",
    table: Table::of(&[
        Field::req(
            "default_profile",
            Ty::Enum(&CLASS),
            "the weapon class used when a class has no entry",
            "the class used when the requested one has no entry; must have an entry",
        ),
        Field::opt("profiles", Ty::Rows(&PROFILE), "`[]`", "one entry per class"),
    ]),
    notes: "",
};

pub(crate) fn read(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    id: &str,
    sh: &mut Shared,
) -> Option<PlayerProfileSet> {
    let default = root.choice(ctx, "default_profile");
    let default_class = default.as_ref().and_then(|d| PlayerProfileType::from_name(d.get_ref()));
    let mut names = Names::new("weapon class");
    let mut profiles = Vec::new();
    for mut e in root.tables(ctx, "profiles") {
        let class = e.choice(ctx, "class");
        let binding = e.str(ctx, "binding_profile");
        let anim = e.str(ctx, "animation_profile");
        let graph = e.str(ctx, "animation_graph");
        e.finish(ctx);
        for (v, kind, key) in [
            (&binding, Kind::BindingProfile, "binding_profile"),
            (&anim, Kind::AnimationProfile, "animation_profile"),
            (&graph, Kind::AnimationGraph, "animation_graph"),
        ] {
            if let Some(v) = v {
                sh.refer(Target::Def(kind), *v.get_ref(), ctx.at(v.span(), &e.field(key)));
            }
        }
        let Some(class) = class else { continue };
        let Some(c) = PlayerProfileType::from_name(class.get_ref()) else { continue };
        if !names.insert(ctx, class.get_ref(), class.span(), &e.field("class")) {
            continue;
        }
        if let Some(binding) = binding {
            profiles.push(PlayerProfileEntry {
                class: c,
                binding_profile: (*binding.get_ref()).to_owned(),
                animation_profile: anim.map(|a| (*a.get_ref()).to_owned()),
                animation_graph: graph.map(|g| (*g.get_ref()).to_owned()),
            });
        }
    }
    let (default, default_class) = (default?, default_class?);
    if !profiles.iter().any(|p| p.class == default_class) {
        ctx.report(
            Code::UnresolvedReference,
            default.span(),
            "default_profile",
            format!("no entry in `profiles` has class `{}`; the default class needs an entry", default.get_ref()),
        );
        return None;
    }
    Some(PlayerProfileSet { id: id.to_owned(), default_profile: default_class, profiles })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_the_cores() {
        let names: Vec<&str> = PlayerProfileType::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(CLASS.values, names.as_slice());
    }
}
