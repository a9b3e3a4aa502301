//! Graph layers (`[[layers]]` above the implicit `base`), their entry states,
//! and the blend mode and bone mask that layers and states share.

use std::path::Path;

use toml::Spanned;
use zoa_anim_core::graph::{BlendMode, BoneMask, GraphLayer, StateIndex};

use super::StateInfo;
use super::capped_list;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::kinds::Names;
use crate::defs::read::{Obj, Rule, array_of, did_you_mean, index, name_of};
use crate::defs::spec::{Enum, Field, Table, Ty};
use crate::defs::{Shared, Target};

/// Blend modes, as `BlendMode::from_name` reads them.
pub(crate) static BLEND_MODE: Enum = Enum { noun: "blend mode", values: &["override", "additive"], aliases: &[] };

static BONE_NAME: Ty = Ty::Text;

/// A `bone_mask = { include = [..], exclude = [..] }` table.
pub(crate) static BONE_MASK: Table = Table {
    fields: &[
        Field::opt("include", Ty::List(&BONE_NAME, 1), "none", "joints whose subtrees the mask keeps"),
        Field::opt("exclude", Ty::List(&BONE_NAME, 1), "none", "joints whose subtrees it removes again"),
    ],
    constraints: &[crate::defs::spec::Constraint::AnyOf(&["include", "exclude"])],
};

/// A `[[layers]]` row.
pub(crate) static TABLE: Table = Table::of(&[
    Field::req("name", Ty::Text, "the layer name", "unique; `base` is the implicit layer 0"),
    Field::req("entry", Ty::Text, "the layer's entry state", "a state of that layer"),
    Field::opt("weight", Ty::Num(Rule::Unit), "`1`", ""),
    Field::opt("blend_mode", Ty::Enum(&BLEND_MODE), "`override`", ""),
    Field::opt("bone_mask", Ty::Table(&BONE_MASK), "none", "bones must exist in the model (E015)"),
    Field::opt("any_position", Ty::Point, "laid out by the editor", super::ANY_POSITION_ABOUT),
]);

/// Reads the `bone_mask` table of a layer or state.
pub(crate) fn bone_mask(
    ctx: &mut FileCtx<'_>,
    parent: &mut Obj<'_, '_>,
    model: &Path,
    sh: &mut Shared,
) -> Option<BoneMask> {
    let mut t = parent.obj(ctx, "bone_mask")?;
    let mut mask = BoneMask::default();
    for key in ["include", "exclude"] {
        let Some(v) = t.raw(key) else { continue };
        let field = t.field(key);
        let Some(items) = array_of(ctx, v, &field) else { continue };
        if items.is_empty() {
            ctx.report(Code::OutOfRange, v.span(), &field, "expected at least one bone name (omit the list instead)");
            continue;
        }
        for (i, item) in items.iter().enumerate() {
            let f = index(&field, i);
            let Some(name) = name_of(ctx, item, &f) else { continue };
            sh.refer(Target::Bone(model.to_path_buf()), name, ctx.at(item.span(), &f));
            if key == "include" { &mut mask.include } else { &mut mask.exclude }.push(name.to_owned());
        }
    }
    if !t.has("include") && !t.has("exclude") {
        ctx.report(Code::MissingField, t.span.clone(), &t.path, "a bone mask needs `include`, `exclude` or both");
    }
    t.finish(ctx);
    Some(mask)
}

/// The `blend_mode` of a layer or state.
pub(crate) fn blend_mode(ctx: &mut FileCtx<'_>, o: &mut Obj<'_, '_>) -> Option<BlendMode> {
    o.choice(ctx, "blend_mode").and_then(|v| BlendMode::from_name(v.get_ref()))
}

/// The layers (base first) and each one's written entry state with the
/// field it was written in.
pub(crate) struct Layers {
    pub list: Vec<GraphLayer>,
    entries: Vec<(Option<Spanned<String>>, String)>,
}

/// Reads `[[layers]]`; `entry` is the base layer's entry state.
pub(crate) fn read(
    ctx: &mut FileCtx<'_>,
    root: &mut Obj<'_, '_>,
    entry: Option<&Spanned<&str>>,
    model: &Path,
    sh: &mut Shared,
) -> Layers {
    let mut layers = Layers {
        list: vec![GraphLayer {
            name: "base".into(),
            entry: StateIndex(0),
            weight: 1.0,
            blend_mode: BlendMode::Override,
            bone_mask: None,
        }],
        entries: vec![(entry.map(|e| Spanned::new(e.span(), (*e.get_ref()).to_owned())), "entry".to_owned())],
    };
    let mut names = Names::new("layer");
    names.insert(ctx, "base", 0..0, "");
    for mut l in root.tables(ctx, "layers") {
        let name = l.str(ctx, "name");
        let entry = l.str(ctx, "entry");
        let weight = l.num(ctx, "weight").unwrap_or(1.0);
        let mode = blend_mode(ctx, &mut l).unwrap_or_default();
        let mask = bone_mask(ctx, &mut l, model, sh);
        l.finish(ctx);
        let Some(name) = name else { continue };
        if *name.get_ref() == "base" {
            ctx.report(
                Code::DuplicateName,
                name.span(),
                &l.field("name"),
                "`base` is the implicit base layer; pick another name",
            );
            continue;
        }
        if !names.insert(ctx, name.get_ref(), name.span(), &l.field("name")) {
            continue;
        }
        layers.list.push(GraphLayer {
            name: (*name.get_ref()).to_owned(),
            entry: StateIndex(0),
            weight,
            blend_mode: mode,
            bone_mask: mask,
        });
        layers.entries.push((entry.map(|e| Spanned::new(e.span(), (*e.get_ref()).to_owned())), l.field("entry")));
    }
    layers
}

impl Layers {
    /// Points each layer at its entry state, once the states are known.
    pub(crate) fn resolve_entries(&mut self, ctx: &mut FileCtx<'_>, infos: &[StateInfo]) {
        let state_names = || capped_list(infos.iter().map(|s| s.name.as_str()));
        for (li, (entry, field)) in self.entries.iter().enumerate() {
            let Some(e) = entry else { continue };
            match infos.iter().position(|s| s.name == *e.get_ref()) {
                Some(si) if infos[si].layer == li => self.list[li].entry = StateIndex(si as u16),
                Some(si) => ctx.report(
                    Code::InvalidValue,
                    e.span(),
                    field,
                    format!(
                        "entry state `{}` belongs to layer `{}`, not `{}`",
                        e.get_ref(),
                        self.list[infos[si].layer].name,
                        self.list[li].name
                    ),
                ),
                None => ctx.report(
                    Code::UnresolvedReference,
                    e.span(),
                    field,
                    format!(
                        "no state `{}`{}; declared: {}",
                        e.get_ref(),
                        did_you_mean(e.get_ref(), infos.iter().map(|s| s.name.as_str())),
                        state_names()
                    ),
                ),
            }
        }
    }
}
