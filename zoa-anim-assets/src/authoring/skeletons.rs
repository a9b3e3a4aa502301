//! Groups scanned model files by skeleton, so the auto-binder never puts an
//! idle from one character and a walk from another into one profile set.
//!
//! # Rule
//!
//! A file's names are the joints of its skins (skinned files) or the nodes
//! its clips animate (animation-only files); static files have none and are
//! left out. Skinned files are taken in report order: a file joins the first
//! group with which it shares at least [`SHARED_FRACTION`] of the smaller of
//! the two name sets (the group's names are the union of its files'), else
//! it starts a group. Animation-only files then join the group sharing the
//! most names with them, provided that is at least [`SHARED_FRACTION`] of
//! their own names; otherwise they start (or join, by the same rule) groups
//! of their own. Files that could not be read are left out.
//!
//! A group's id is its first file's stem as a definition id; a second group
//! whose id would repeat gets `_2`, `_3`, … appended.

use std::collections::BTreeSet;

use super::scan::{ModelKind, ScanReport, ScannedFile};
use super::tokens::to_id;

/// Least share of names (of the smaller set) two skeletons need in common to be one.
pub const SHARED_FRACTION: f32 = 0.5;

/// Files on one skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct SkeletonGroup {
    /// Id (see the module docs).
    pub id: String,
    /// Indices into the report's `files`, in report order.
    pub files: Vec<usize>,
    /// Every joint or animated node name of the group's files.
    pub names: BTreeSet<String>,
}

impl SkeletonGroup {
    /// A report holding only this group's files (same roots).
    #[must_use]
    pub fn report(&self, report: &ScanReport) -> ScanReport {
        ScanReport { roots: report.roots.clone(), files: self.files.iter().map(|&i| report.files[i].clone()).collect() }
    }
}

/// The names a file is matched by (see the module docs).
#[must_use]
pub fn file_names(file: &ScannedFile) -> BTreeSet<String> {
    match file.kind {
        ModelKind::Skinned => file.bones.iter().cloned().collect(),
        ModelKind::AnimationOnly => file.animated.iter().cloned().collect(),
        ModelKind::Static => BTreeSet::new(),
    }
}

fn shared(a: &BTreeSet<String>, b: &BTreeSet<String>) -> usize {
    a.intersection(b).count()
}

fn same_skeleton(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    let n = shared(a, b);
    n > 0 && n as f32 >= SHARED_FRACTION * a.len().min(b.len()) as f32
}

/// Groups the report's files by skeleton (see the module docs).
#[must_use]
pub fn group_by_skeleton(report: &ScanReport) -> Vec<SkeletonGroup> {
    let mut groups: Vec<SkeletonGroup> = Vec::new();
    let readable = |f: &ScannedFile| f.error.is_none();
    let add = |groups: &mut Vec<SkeletonGroup>, i: usize, names: BTreeSet<String>, join: Option<usize>| match join {
        Some(g) => {
            groups[g].files.push(i);
            groups[g].names.extend(names);
        }
        None => {
            let base = to_id(&report.files[i].stem);
            let mut id = base.clone();
            let mut n = 2;
            while groups.iter().any(|g| g.id == id) {
                id = format!("{base}_{n}");
                n += 1;
            }
            groups.push(SkeletonGroup { id, files: vec![i], names });
        }
    };
    for (i, f) in report.files.iter().enumerate() {
        if !readable(f) || f.kind != ModelKind::Skinned {
            continue;
        }
        let names = file_names(f);
        let join = groups.iter().position(|g| same_skeleton(&names, &g.names));
        add(&mut groups, i, names, join);
    }
    for (i, f) in report.files.iter().enumerate() {
        if !readable(f) || f.kind != ModelKind::AnimationOnly {
            continue;
        }
        let names = file_names(f);
        let best = groups
            .iter()
            .enumerate()
            .map(|(g, group)| (g, shared(&names, &group.names)))
            .filter(|(_, n)| *n > 0 && *n as f32 >= SHARED_FRACTION * names.len() as f32)
            .max_by_key(|(g, n)| (*n, std::cmp::Reverse(*g)))
            .map(|(g, _)| g);
        add(&mut groups, i, names, best);
    }
    for g in &mut groups {
        g.files.sort_unstable();
    }
    groups
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn file(stem: &str, kind: ModelKind, names: &[&str]) -> ScannedFile {
        let names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        ScannedFile {
            path: PathBuf::from(format!("{stem}.glb")),
            relative: format!("{stem}.glb"),
            root: 0,
            stem: stem.to_owned(),
            bones: if kind == ModelKind::Skinned { names.clone() } else { Vec::new() },
            animated: if kind == ModelKind::AnimationOnly { names } else { Vec::new() },
            kind,
            clips: Vec::new(),
            error: None,
        }
    }

    #[test]
    fn files_sharing_most_bone_names_are_one_skeleton() {
        let mixamo = ["Hips", "Spine", "LeftUpLeg", "RightUpLeg", "Head"];
        let report = ScanReport {
            roots: Vec::new(),
            files: vec![
                file("Knight", ModelKind::Skinned, &mixamo),
                file("Fox", ModelKind::Skinned, &["b_Root_00", "b_Hip_01", "b_Spine01_02"]),
                // Same rig, one extra bone (a weapon socket).
                file(
                    "Knight_Sword",
                    ModelKind::Skinned,
                    &["Hips", "Spine", "LeftUpLeg", "RightUpLeg", "Head", "Socket"],
                ),
                // Animation-only export of the Mixamo rig: joins the Knight.
                file("Running", ModelKind::AnimationOnly, &["Hips", "Spine", "LeftUpLeg"]),
                // A prop and an unrelated animation.
                file("Hat", ModelKind::Static, &[]),
                file("Door", ModelKind::AnimationOnly, &["Hinge"]),
                // A second file called Fox on another rig: a distinct id.
                file("Fox", ModelKind::Skinned, &["tail_1", "tail_2"]),
            ],
        };
        let groups = group_by_skeleton(&report);
        let summary: Vec<(&str, &[usize])> = groups.iter().map(|g| (g.id.as_str(), g.files.as_slice())).collect();
        assert_eq!(summary, [("knight", &[0, 2, 3][..]), ("fox", &[1][..]), ("fox_2", &[6][..]), ("door", &[5][..])]);
        assert_eq!(groups[0].report(&report).files.len(), 3);
    }
}
