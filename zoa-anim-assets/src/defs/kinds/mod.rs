//! One file per definition kind: its declarative description (`SPEC`, see
//! [`super::spec`]) and its reader. A reader reads its fields through
//! [`super::read::Obj`] (which checks them against the description), checks
//! every rule across fields it can check inside the file, and records
//! cross-file references in [`Shared`]. A definition is added to the set only
//! when its file has no error.

pub(crate) mod animation_graph;
pub(crate) mod animation_profile;
pub(crate) mod binding_profile;
pub(crate) mod clip;
pub(crate) mod equipment;
pub(crate) mod player_profile_set;
pub(crate) mod preview_preset;
pub(crate) mod rig_policy;
pub(crate) mod sound_profile;
pub(crate) mod state_graph;

use std::collections::HashMap;

use toml::Spanned;
use toml::de::DeTable;
use zoa_anim_core::ids::check_id_syntax;

use super::codes::Code;
use super::diag::FileCtx;
use super::read::Obj;
use super::spec::KindSpec;
use super::{Decl, DefinitionSet, FailedFile, Kind, Loaded, Shared};

pub(crate) fn read_definition(
    ctx: &mut FileCtx<'_>,
    doc: &Spanned<DeTable<'_>>,
    set: &mut DefinitionSet,
    sh: &mut Shared,
) {
    let mut root = Obj::root(doc.get_ref(), doc.span());
    let kind_val = root.str(ctx, "kind");
    let id_val = root.str(ctx, "id");
    let stem = || ctx.rel.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let declared_id = id_val.as_ref().map_or_else(stem, |v| (*v.get_ref()).to_owned());
    let Some(kind_val) = kind_val else {
        sh.failed.push(FailedFile { kind: None, id: declared_id, file: ctx.rel.clone() });
        return;
    };
    let Some(kind) = Kind::from_name(kind_val.get_ref()) else {
        sh.failed.push(FailedFile { kind: None, id: declared_id, file: ctx.rel.clone() });
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
        None => {
            sh.failed.push(FailedFile { kind: Some(kind), id: declared_id, file: ctx.rel.clone() });
            String::new()
        }
    };
    root.describe(&spec_of(kind).table);
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
        Kind::BindingProfile => read!(binding_profile::read, binding_profiles),
        Kind::AnimationProfile => read!(animation_profile::read, animation_profiles),
        Kind::StateGraph => read!(state_graph::read, state_graphs),
        Kind::RigPolicy => read!(rig_policy::read, rig_policies),
        Kind::SoundProfile => read!(sound_profile::read, sound_profiles),
        Kind::PlayerProfileSet => read!(player_profile_set::read, player_profile_sets),
        Kind::Clip => read!(clip::read, clips),
        Kind::AnimationGraph => read!(animation_graph::read, animation_graphs),
        Kind::PreviewPreset => read!(preview_preset::read, preview_presets),
        Kind::Equipment => read!(equipment::read, equipment),
    }
}

/// The description of `kind`.
pub(crate) fn spec_of(kind: Kind) -> &'static KindSpec {
    match kind {
        Kind::BindingProfile => &binding_profile::SPEC,
        Kind::AnimationProfile => &animation_profile::SPEC,
        Kind::StateGraph => &state_graph::SPEC,
        Kind::RigPolicy => &rig_policy::SPEC,
        Kind::SoundProfile => &sound_profile::SPEC,
        Kind::PlayerProfileSet => &player_profile_set::SPEC,
        Kind::Clip => &clip::SPEC,
        Kind::AnimationGraph => &animation_graph::SPEC,
        Kind::PreviewPreset => &preview_preset::SPEC,
        Kind::Equipment => &equipment::SPEC,
    }
}

/// Every kind's description, in documentation order.
pub(crate) fn all_specs() -> impl Iterator<Item = &'static KindSpec> {
    Kind::ALL.into_iter().map(spec_of)
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

/// Tracks names inside one definition and reports the second use (E017).
pub(crate) struct Names {
    seen: HashMap<String, (usize, usize)>,
    what: &'static str,
}

impl Names {
    pub(crate) fn new(what: &'static str) -> Self {
        Names { seen: HashMap::new(), what }
    }
    /// Returns false (and reports) when `name` was used before.
    pub(crate) fn insert(
        &mut self,
        ctx: &mut FileCtx<'_>,
        name: &str,
        span: std::ops::Range<usize>,
        field: &str,
    ) -> bool {
        let (line, col) = ctx.line_col(span.start);
        if let Some((l, c)) = self.seen.get(name) {
            ctx.report(
                Code::DuplicateName,
                span,
                field,
                format!("{} `{name}` is already defined at line {l}, column {c}", self.what),
            );
            return false;
        }
        self.seen.insert(name.to_owned(), (line, col));
        true
    }
}
