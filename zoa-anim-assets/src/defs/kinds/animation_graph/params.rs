//! Graph parameters: `[[parameters]]` rows, and looking parameters up by name.

use toml::Spanned;
use zoa_anim_core::graph::{GraphParameter, ParameterDefault, ParameterIndex};

use super::capped_list;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::kinds::Names;
use crate::defs::read::{Obj, Rule, bool_of, did_you_mean, int_of, num_of};
use crate::defs::spec::{Enum, Field, Table, Ty};

/// Parameter types of a graph.
pub(crate) static PARAMETER_TYPE: Enum =
    Enum { noun: "parameter type", values: &["float", "int", "bool", "trigger"], aliases: &[] };

/// A `[[parameters]]` row.
pub(crate) static TABLE: Table = Table::of(&[
    Field::req("name", Ty::Text, "the parameter name", "unique"),
    Field::req("type", Ty::Enum(&PARAMETER_TYPE), "float, int, bool or trigger", ""),
    Field::opt(
        "default",
        Ty::Either(&[Ty::Num(Rule::Any), Ty::Bool]),
        "`0` / `false`",
        "a value of the type; none for triggers",
    )
    .shown_as("matching value"),
]);

/// The parameters declared so far.
pub(crate) struct Params {
    pub list: Vec<GraphParameter>,
}

impl Params {
    pub(crate) fn find(&self, name: &str) -> Option<(ParameterIndex, ParameterDefault)> {
        self.list.iter().position(|p| p.name == name).map(|i| (ParameterIndex(i as u16), self.list[i].default))
    }

    pub(crate) fn names(&self) -> String {
        capped_list(self.list.iter().map(|p| p.name.as_str()))
    }

    /// Reports `name` as not declared (E012) at `span`.
    pub(crate) fn unknown(&self, ctx: &mut FileCtx<'_>, name: &str, span: std::ops::Range<usize>, field: &str) {
        ctx.report(
            Code::UnresolvedReference,
            span,
            field,
            format!(
                "no parameter `{name}` in this graph{}; declared: {}",
                did_you_mean(name, self.list.iter().map(|p| p.name.as_str())),
                self.names()
            ),
        );
    }

    /// A number parameter for a blend-tree axis.
    pub(crate) fn number(&self, ctx: &mut FileCtx<'_>, v: &Spanned<&str>, field: &str) -> Option<ParameterIndex> {
        match self.find(v.get_ref()) {
            None => {
                self.unknown(ctx, v.get_ref(), v.span(), field);
                None
            }
            Some((i, d)) if d.is_number() => Some(i),
            Some((_, d)) => {
                ctx.report(
                    Code::TypeMismatch,
                    v.span(),
                    field,
                    format!(
                        "blend tree axis `{}` is a {} parameter; expected float or int",
                        v.get_ref(),
                        d.type_name()
                    ),
                );
                None
            }
        }
    }
}

/// Reads every `[[parameters]]` row.
pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>) -> Params {
    let mut params = Params { list: Vec::new() };
    let mut names = Names::new("parameter");
    for mut p in root.tables(ctx, "parameters") {
        let name = p.str(ctx, "name");
        let ty = p.choice(ctx, "type");
        let dv = p.raw("default");
        let dfield = p.field("default");
        p.finish(ctx);
        let (Some(name), Some(ty)) = (name, ty) else { continue };
        let default = match *ty.get_ref() {
            "float" => {
                ParameterDefault::Float(dv.map_or(Some(0.0), |v| num_of(ctx, v, &dfield, Rule::Any)).unwrap_or(0.0))
            }
            "int" => ParameterDefault::Int(
                dv.map_or(Some(0), |v| int_of(ctx, v, &dfield, i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or(0)
                    as i32,
            ),
            "bool" => ParameterDefault::Bool(dv.map_or(Some(false), |v| bool_of(ctx, v, &dfield)).unwrap_or(false)),
            _ => {
                if let Some(v) = dv {
                    ctx.report(
                        Code::ConflictingFields,
                        v.span(),
                        &dfield,
                        "a trigger has no default (it starts unset)",
                    );
                }
                ParameterDefault::Trigger
            }
        };
        if names.insert(ctx, name.get_ref(), name.span(), &p.field("name")) {
            params.list.push(GraphParameter { name: (*name.get_ref()).to_owned(), default });
        }
    }
    params
}
