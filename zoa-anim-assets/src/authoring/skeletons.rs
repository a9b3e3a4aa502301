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

use std::collections::{BTreeSet, HashMap, HashSet};

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

/// The groups being built, with an index from each name to the groups that
/// hold it, so matching a file costs its names times the groups each name is
/// in, not a pass over every group's names.
struct Grouping<'r> {
    report: &'r ScanReport,
    groups: Vec<SkeletonGroup>,
    holders: HashMap<String, Vec<usize>>,
    ids: HashSet<String>,
    /// Scratch: names shared with the file being matched, per group (zero between calls).
    counts: Vec<usize>,
}

impl Grouping<'_> {
    /// `(group, names shared)` for every group that shares a name with `names`, in group order.
    fn overlaps(&mut self, names: &BTreeSet<String>) -> Vec<(usize, usize)> {
        self.counts.resize(self.groups.len(), 0);
        let mut touched = Vec::new();
        for g in names.iter().filter_map(|n| self.holders.get(n)).flatten() {
            if self.counts[*g] == 0 {
                touched.push(*g);
            }
            self.counts[*g] += 1;
        }
        touched.sort_unstable();
        touched.into_iter().map(|g| (g, std::mem::take(&mut self.counts[g]))).collect()
    }

    /// Adds file `i` with `names` to group `join`, or to a new group.
    fn add(&mut self, i: usize, names: BTreeSet<String>, join: Option<usize>) {
        let g = match join {
            Some(g) => {
                self.groups[g].files.push(i);
                g
            }
            None => {
                let base = to_id(&self.report.files[i].stem);
                let mut id = base.clone();
                let mut n = 2;
                while self.ids.contains(&id) {
                    id = format!("{base}_{n}");
                    n += 1;
                }
                self.ids.insert(id.clone());
                self.groups.push(SkeletonGroup { id, files: vec![i], names: BTreeSet::new() });
                self.groups.len() - 1
            }
        };
        for name in names {
            if !self.groups[g].names.contains(&name) {
                self.holders.entry(name.clone()).or_default().push(g);
                self.groups[g].names.insert(name);
            }
        }
    }
}

/// Groups the report's files by skeleton (see the module docs).
#[must_use]
pub fn group_by_skeleton(report: &ScanReport) -> Vec<SkeletonGroup> {
    let mut grouping =
        Grouping { report, groups: Vec::new(), holders: HashMap::new(), ids: HashSet::new(), counts: Vec::new() };
    let of_kind =
        |kind: ModelKind| report.files.iter().enumerate().filter(move |(_, f)| f.error.is_none() && f.kind == kind);
    for (i, f) in of_kind(ModelKind::Skinned) {
        let names = file_names(f);
        // The first group sharing at least the fraction of the smaller name set.
        let join = grouping
            .overlaps(&names)
            .into_iter()
            .find(|&(g, n)| n as f32 >= SHARED_FRACTION * names.len().min(grouping.groups[g].names.len()) as f32);
        grouping.add(i, names, join.map(|(g, _)| g));
    }
    for (i, f) in of_kind(ModelKind::AnimationOnly) {
        let names = file_names(f);
        // The group sharing the most names (the first of equals), at least the fraction of the file's.
        let best = grouping
            .overlaps(&names)
            .into_iter()
            .filter(|&(_, n)| n as f32 >= SHARED_FRACTION * names.len() as f32)
            .max_by_key(|&(g, n)| (n, std::cmp::Reverse(g)))
            .map(|(g, _)| g);
        grouping.add(i, names, best);
    }
    let mut groups = grouping.groups;
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

    /// The rule as the module docs state it, pass by pass over every group.
    fn literal(report: &ScanReport) -> Vec<(String, Vec<usize>)> {
        let mut groups: Vec<(String, Vec<usize>, BTreeSet<String>)> = Vec::new();
        for kind in [ModelKind::Skinned, ModelKind::AnimationOnly] {
            for (i, f) in report.files.iter().enumerate().filter(|(_, f)| f.error.is_none() && f.kind == kind) {
                let names = file_names(f);
                let shared = |g: &BTreeSet<String>| names.intersection(g).count();
                let join = if kind == ModelKind::Skinned {
                    groups.iter().position(|g| {
                        let n = shared(&g.2);
                        n > 0 && n as f32 >= SHARED_FRACTION * names.len().min(g.2.len()) as f32
                    })
                } else {
                    (0..groups.len())
                        .map(|g| (g, shared(&groups[g].2)))
                        .filter(|&(_, n)| n > 0 && n as f32 >= SHARED_FRACTION * names.len() as f32)
                        .max_by_key(|&(g, n)| (n, std::cmp::Reverse(g)))
                        .map(|(g, _)| g)
                };
                if let Some(g) = join {
                    groups[g].1.push(i);
                    groups[g].2.extend(names);
                } else {
                    let base = to_id(&f.stem);
                    let mut id = base.clone();
                    let mut n = 2;
                    while groups.iter().any(|g| g.0 == id) {
                        id = format!("{base}_{n}");
                        n += 1;
                    }
                    groups.push((id, vec![i], names));
                }
            }
        }
        groups
            .into_iter()
            .map(|(id, mut files, _)| {
                (id, {
                    files.sort_unstable();
                    files
                })
            })
            .collect()
    }

    #[test]
    fn grouping_follows_the_literal_rule_on_overlapping_rigs() {
        // A fixed pseudo-random stream: files drawing a few names from a small pool, so
        // groups overlap, ties happen and stems repeat.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m) as usize
        };
        let pool: Vec<String> = (0..12).map(|i| format!("j{i}")).collect();
        for _ in 0..300 {
            let files: Vec<ScannedFile> = (0..next(9))
                .map(|_| {
                    let kind = [ModelKind::Skinned, ModelKind::AnimationOnly, ModelKind::Static][next(3)];
                    let names: Vec<&str> = (0..next(6)).map(|_| pool[next(12)].as_str()).collect();
                    let mut f = file(&format!("m{}", next(3)), kind, &names);
                    f.bones.sort();
                    f.bones.dedup();
                    f.animated.sort();
                    f.animated.dedup();
                    f
                })
                .collect();
            let report = ScanReport { roots: Vec::new(), files };
            let got: Vec<(String, Vec<usize>)> =
                group_by_skeleton(&report).into_iter().map(|g| (g.id, g.files)).collect();
            assert_eq!(got, literal(&report), "{:?}", report.files);
        }
    }
}
