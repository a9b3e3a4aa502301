//! `equipment`: one held item — the weapon classes it is for, the bone that
//! holds it and where each hand grips it (at rest, aiming, per slot).

use zoa_anim_core::equipment::{DEFAULT_ATTACH, Equipment, GripSocket, Grips, ItemOffset, SlotGrips};
use zoa_anim_core::glam::{EulerRot, Quat};
use zoa_anim_core::rig::BONE_ROLES;
use zoa_anim_core::{AnimationSlotId, PlayerProfileType};

use super::Names;
use super::player_profile_set::CLASS;
use crate::defs::codes::Code;
use crate::defs::diag::FileCtx;
use crate::defs::read::{Obj, Rule, choice_of, index};
use crate::defs::spec::{Constraint, Enum, Field, KindSpec, Table, Ty};
use crate::defs::{Kind, Shared, Target};

/// Bone roles, as `rig_policy`'s `bone_overrides` names them.
static ROLE: Enum = Enum { noun: "bone role", values: &BONE_ROLES, aliases: &[] };

static CLASS_TY: Ty = Ty::Enum(&CLASS);

const ROTATION_ABOUT: &str = "the hand's rotation in the item frame, quaternion `x, y, z, w` (normalised; not zero)";
const EULER_ABOUT: &str =
    "the same rotation as intrinsic XYZ Euler angles (three.js's default order); not with `rotation`";

/// A grip socket where the idle grips define it.
static SOCKET: Table = Table {
    fields: &[
        Field::req("position", Ty::Vector(3), "where the wrist goes", "the wrist's position in the item frame")
            .unit("m"),
        Field::opt("rotation", Ty::Vector(4), "the hand's animated orientation", ROTATION_ABOUT),
        Field::opt("euler", Ty::Vector(3), "none", EULER_ABOUT).unit("degrees"),
        Field::opt("weight", Ty::Num(Rule::Unit), "`1`", "how strongly the hand reaches the socket; 0 lets go"),
    ],
    constraints: &[Constraint::AtMostOne(&["rotation", "euler"])],
};

/// A grip socket of an override (aim, slot): what it leaves out is the idle socket's.
static OVERRIDE_SOCKET: Table = Table {
    fields: &[
        Field::opt("position", Ty::Vector(3), "the idle socket's", "the wrist's position in the item frame").unit("m"),
        Field::opt("rotation", Ty::Vector(4), "the idle socket's", ROTATION_ABOUT),
        Field::opt("euler", Ty::Vector(3), "the idle socket's", EULER_ABOUT).unit("degrees"),
        Field::opt("weight", Ty::Num(Rule::Unit), "the idle socket's", "0 lets go (a reload's off hand)"),
    ],
    constraints: &[Constraint::AtMostOne(&["rotation", "euler"])],
};

static GRIPS: Table = Table::of(&[
    Field::opt("main_hand", Ty::Table(&SOCKET), "none (as animated)", "the hand on the attach bone's side"),
    Field::opt("off_hand", Ty::Table(&SOCKET), "none (as animated)", "the other hand"),
]);

static OVERRIDE_GRIPS: Table = Table::of(&[
    Field::opt("main_hand", Ty::Table(&OVERRIDE_SOCKET), "the idle grip", "the hand on the attach bone's side"),
    Field::opt("off_hand", Ty::Table(&OVERRIDE_SOCKET), "the idle grip", "the other hand"),
]);

static SLOT: Table = Table::of(&[
    Field::req("slot", Ty::Id, "a slot id", "a slot of some binding profile; unique in the item"),
    Field::opt("main_hand", Ty::Table(&OVERRIDE_SOCKET), "the idle grip", "the main hand while the slot plays"),
    Field::opt("off_hand", Ty::Table(&OVERRIDE_SOCKET), "the idle grip", "the off hand while the slot plays"),
]);

static OFFSET: Table = Table {
    fields: &[
        Field::opt("position", Ty::Vector(3), "`[0, 0, 0]`", "translation in the attach bone's frame").unit("m"),
        Field::opt("rotation", Ty::Vector(4), "identity", "quaternion `x, y, z, w` (normalised; not zero)"),
        Field::opt("euler", Ty::Vector(3), "none", "the same as intrinsic XYZ Euler angles; not with `rotation`")
            .unit("degrees"),
    ],
    constraints: &[Constraint::AtMostOne(&["rotation", "euler"])],
};

/// The description of `equipment`.
pub(crate) static SPEC: KindSpec = KindSpec {
    kind: Kind::Equipment,
    produces: "[`zoa_anim_core::Equipment`]",
    intro: "One held item per file. Grip sockets are written in the *item frame*: the attach bone's frame \
            (the hand that holds the item, `right_hand` by default) followed by `offset`. A socket's `position` is \
            where that hand's wrist (the hand joint) goes. When a character equips a class the item is for, its \
            grips blend in over the loadout cross-fade and the rig policy's `hand_on_weapon` puts the hands on \
            them; they blend out on holster. `aim` and `slots` override the idle grips while aiming and while a \
            slot plays; a field they leave out is the idle socket's.",
    table: Table::of(&[
        Field::req(
            "classes",
            Ty::List(&CLASS_TY, 1),
            "the weapon classes that hold the item",
            "each class holds at most one item in a folder (E017)",
        ),
        Field::opt("attach", Ty::Enum(&ROLE), "`right_hand`", "bone role holding the item; its side is the main hand"),
        Field::opt("offset", Ty::Table(&OFFSET), "identity", "the item frame relative to the attach bone"),
        Field::req("grips", Ty::Table(&GRIPS), "the item's grip sockets", "grips when held at rest"),
        Field::opt("aim", Ty::Table(&OVERRIDE_GRIPS), "the idle grips", "grips while aiming"),
        Field::opt("slots", Ty::Rows(&SLOT), "`[]`", "grips while a slot plays"),
    ]),
    notes: "Example: `grips.off_hand = { position = [0.0, 0.02, 0.32] }` puts the off hand 32 cm along the attach \
            hand's +Z; `[[slots]] slot = \"reload_magazine\"`, `off_hand = { weight = 0 }` lets it go while the \
            reload plays.",
};

pub(crate) fn read(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Option<Equipment> {
    let classes = read_classes(ctx, root, id, sh);
    let attach = root.choice(ctx, "attach").map_or(DEFAULT_ATTACH, |a| *a.get_ref()).to_owned();
    let offset = match root.obj(ctx, "offset") {
        Some(mut o) => {
            let position = o.vector::<3>(ctx, "position").unwrap_or([0.0; 3]);
            let rotation = read_rotation(ctx, &mut o).unwrap_or([0.0, 0.0, 0.0, 1.0]);
            o.finish(ctx);
            ItemOffset { position, rotation }
        }
        None => ItemOffset::default(),
    };
    let (grips, declared) = match root.obj(ctx, "grips") {
        Some(mut g) => {
            let declared = [g.has("main_hand"), g.has("off_hand")];
            let grips = read_grips(ctx, &mut g, None);
            g.finish(ctx);
            (grips, declared)
        }
        None => (Grips::default(), [false; 2]),
    };
    let idle = Idle { grips: &grips, declared };
    let aim = root.obj(ctx, "aim").map(|mut a| {
        let aim = read_grips(ctx, &mut a, Some(&idle));
        a.finish(ctx);
        aim
    });
    let mut names = Names::new("slot");
    let mut slots = Vec::new();
    for mut row in root.tables(ctx, "slots") {
        let slot = row.str(ctx, "slot");
        let row_grips = read_grips(ctx, &mut row, Some(&idle));
        row.finish(ctx);
        let Some(slot) = slot else { continue };
        let field = row.field("slot");
        let Ok(sid) = AnimationSlotId::new(slot.get_ref()) else {
            ctx.report(Code::InvalidValue, slot.span(), &field, format!("invalid slot id `{}`", slot.get_ref()));
            continue;
        };
        sh.refer(Target::Slot, *slot.get_ref(), ctx.at(slot.span(), &field));
        if names.insert(ctx, slot.get_ref(), slot.span(), &field) {
            slots.push(SlotGrips { slot: sid, grips: row_grips });
        }
    }
    Some(Equipment { id: id.to_owned(), classes, attach, offset, grips, aim, slots })
}

/// `classes`: each a weapon class, once; every one recorded for the check
/// that a class holds one item per folder.
fn read_classes(ctx: &mut FileCtx<'_>, root: &mut Obj<'_, '_>, id: &str, sh: &mut Shared) -> Vec<PlayerProfileType> {
    let mut classes = Vec::new();
    let field = root.field("classes");
    let Some(v) = root.raw("classes") else {
        root.missing(ctx, "classes", "the weapon classes that hold the item");
        return classes;
    };
    let Some(items) = crate::defs::read::array_of(ctx, v, &field) else { return classes };
    if items.is_empty() {
        ctx.report(Code::OutOfRange, v.span(), &field, "expected at least 1 weapon class, found none");
    }
    let mut names = Names::new("weapon class");
    for (i, item) in items.iter().enumerate() {
        let f = index(&field, i);
        let Some(name) = choice_of(ctx, item, &f, &CLASS) else { continue };
        let Some(class) = PlayerProfileType::from_name(name) else { continue };
        if names.insert(ctx, name, item.span(), &f) {
            classes.push(class);
            sh.item_classes.push((class, id.to_owned(), ctx.at(item.span(), &f)));
        }
    }
    classes
}

/// The idle grips an override takes what it leaves out from, and which
/// hands the idle `grips` table names (read or not: a hand whose idle socket
/// has an error of its own is not reported again by its overrides).
struct Idle<'g> {
    grips: &'g Grips,
    declared: [bool; 2],
}

/// `main_hand` and `off_hand` of a grips table (or a slot row); `idle` is
/// `None` for the idle grips themselves, else what an override falls back on.
fn read_grips(ctx: &mut FileCtx<'_>, table: &mut Obj<'_, '_>, idle: Option<&Idle<'_>>) -> Grips {
    let mut hand = |key: &'static str, base: Option<(Option<GripSocket>, bool)>| {
        let mut o = table.obj(ctx, key)?;
        let socket = read_socket(ctx, &mut o, base);
        o.finish(ctx);
        socket
    };
    let main_hand = hand("main_hand", idle.map(|i| (i.grips.main_hand, i.declared[0])));
    let off_hand = hand("off_hand", idle.map(|i| (i.grips.off_hand, i.declared[1])));
    Grips {
        main_hand: main_hand.or(idle.and_then(|i| i.grips.main_hand)),
        off_hand: off_hand.or(idle.and_then(|i| i.grips.off_hand)),
    }
}

/// One socket. `base` is `None` for an idle socket (`position` required by
/// its description) and, for an override, the idle socket of the same hand
/// (it takes what it leaves out from there) and whether the idle grips name
/// that hand; `position` is needed when they do not.
fn read_socket(
    ctx: &mut FileCtx<'_>,
    o: &mut Obj<'_, '_>,
    base: Option<(Option<GripSocket>, bool)>,
) -> Option<GripSocket> {
    let idle = base.and_then(|(socket, _)| socket);
    let position = o.vector::<3>(ctx, "position");
    let rotation = read_rotation(ctx, o);
    let weight = o.num(ctx, "weight");
    let position = match (position, idle, base) {
        (Some(p), _, _) => p,
        (None, Some(i), _) => i.position,
        (None, None, Some((None, false))) if !o.has("position") => {
            o.missing(ctx, "position", "the item has no idle grip for this hand to take it from");
            return None;
        }
        _ => return None,
    };
    Some(GripSocket {
        position,
        rotation: rotation.or(idle.and_then(|i| i.rotation)),
        weight: weight.or(idle.map(|i| i.weight)).unwrap_or(1.0),
    })
}

/// `rotation` (a unit-normalised quaternion) or `euler` (degrees), not both.
fn read_rotation(ctx: &mut FileCtx<'_>, o: &mut Obj<'_, '_>) -> Option<[f32; 4]> {
    let quat = o.vector::<4>(ctx, "rotation");
    let euler = o.vector::<3>(ctx, "euler");
    if o.has("rotation") && o.has("euler") {
        let span = o.table.iter().find(|(k, _)| k.get_ref().as_ref() == "euler").map(|(k, _)| k.span());
        ctx.report(
            Code::ConflictingFields,
            span.unwrap_or(o.span.clone()),
            &o.field("euler"),
            "`rotation` and `euler` given together; write the rotation one way",
        );
        return None;
    }
    if let Some(q) = quat {
        let q = Quat::from_array(q);
        if q.length_squared() <= 1e-12 {
            let span = o.table.iter().find(|(k, _)| k.get_ref().as_ref() == "rotation").map(|(_, v)| v.span());
            let field = o.field("rotation");
            ctx.report(Code::InvalidValue, span.unwrap_or(o.span.clone()), &field, "a rotation quaternion is not zero");
            return None;
        }
        return Some(q.normalize().to_array());
    }
    euler.map(|[x, y, z]| Quat::from_euler(EulerRot::XYZ, x.to_radians(), y.to_radians(), z.to_radians()).to_array())
}
