//! One reader per definition kind. Each reads its fields through
//! [`super::read::Obj`] (so unknown fields are reported), checks every rule it
//! can check inside the file, and records cross-file references in
//! [`Shared`]. A definition is added to the set only when its file has no error.

mod graph;
mod simple;
mod tables;

use toml::Spanned;
use toml::de::DeTable;
use zoa_anim_core::ids::check_id_syntax;

use super::codes::Code;
use super::diag::FileCtx;
use super::read::Obj;
use super::{Decl, DefinitionSet, Kind, Loaded, Shared};

pub(crate) fn read_definition(
    ctx: &mut FileCtx<'_>,
    doc: &Spanned<DeTable<'_>>,
    set: &mut DefinitionSet,
    sh: &mut Shared,
) {
    let mut root = Obj::new(doc.get_ref(), doc.span(), String::new());
    let kind_val = root.req_str(ctx, "kind", "one of the nine definition kinds");
    let id_val = root.req_str(ctx, "id", "the definition's unique id");
    let Some(kind_val) = kind_val else { return };
    let Some(kind) = Kind::from_name(kind_val.get_ref()) else {
        let valid: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        ctx.report(
            Code::UnknownKind,
            kind_val.span(),
            "kind",
            format!("unknown kind `{}`; expected one of: {}", kind_val.get_ref(), valid.join(", ")),
        );
        return;
    };
    let id = match &id_val {
        Some(v) => {
            if let Err(reason) = check_id_syntax(v.get_ref()) {
                ctx.report(Code::InvalidValue, v.span(), "id", format!("invalid id `{}`: {reason}", v.get_ref()));
            }
            sh.decls.push(Decl { kind, id: (*v.get_ref()).to_owned(), at: ctx.at(v.span(), "id"), parent: None });
            (*v.get_ref()).to_owned()
        }
        None => String::new(),
    };
    let errors_before = ctx.error_count();
    let file = ctx.rel.clone();
    macro_rules! read {
        ($f:path, $list:ident) => {{
            let value = $f(ctx, &mut root, &id, sh);
            root.finish(ctx);
            if let Some(value) = value
                && ctx.error_count() == errors_before
                && id_val.is_some()
            {
                set.$list.push(Loaded { value, file });
            }
        }};
    }
    match kind {
        Kind::BindingProfile => read!(simple::binding_profile, binding_profiles),
        Kind::AnimationProfile => read!(tables::animation_profile, animation_profiles),
        Kind::StateGraph => read!(simple::state_graph, state_graphs),
        Kind::RigPolicy => read!(simple::rig_policy, rig_policies),
        Kind::SoundProfile => read!(tables::sound_profile, sound_profiles),
        Kind::PlayerProfileSet => read!(simple::player_profile_set, player_profile_sets),
        Kind::Clip => read!(graph::clip, clips),
        Kind::AnimationGraph => read!(graph::animation_graph, animation_graphs),
        Kind::PreviewPreset => read!(simple::preview_preset, preview_presets),
    }
}

/// Records the `parent` field of an inheriting definition.
pub(crate) fn read_parent(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, sh: &mut Shared) -> Option<String> {
    let v = root.str(ctx, "parent")?;
    let at = ctx.at(v.span(), "parent");
    if let Some(decl) = sh.decls.last_mut().filter(|d| d.at.file == ctx.rel) {
        decl.parent = Some(((*v.get_ref()).to_owned(), at));
    }
    Some((*v.get_ref()).to_owned())
}
