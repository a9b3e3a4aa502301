//! The model files a definition folder names: each is decoded once per
//! folder load, checked against (bone names, animation names and
//! durations), and kept, so that building a character from the folder
//! ([`crate::character::load_character`]) decodes nothing again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::gltf::GltfAsset;

/// What the checks need from one model.
#[derive(Debug, Clone)]
pub(crate) struct ModelFacts {
    /// File stem, for `<stem>_<animation>` clip names.
    pub stem: String,
    /// Every named joint of every skin.
    pub bones: Vec<String>,
    /// `(name, duration in seconds)` per animation, in animation order.
    pub animations: Vec<(String, f32)>,
    /// Animation name → its first index (lookups stay O(1) with thousands of animations).
    by_name: HashMap<String, usize>,
}

impl ModelFacts {
    fn from_asset(asset: &GltfAsset) -> Self {
        let mut bones: Vec<String> =
            asset.skeletons.iter().flat_map(|s| s.joints().iter().filter_map(|j| j.name.clone())).collect();
        bones.sort();
        bones.dedup();
        let animations: Vec<(String, f32)> = asset.clips.iter().map(|c| (c.name().to_owned(), c.duration())).collect();
        let mut by_name = HashMap::with_capacity(animations.len());
        for (i, (n, _)) in animations.iter().enumerate() {
            by_name.entry(n.clone()).or_insert(i);
        }
        ModelFacts { stem: asset.stem.clone(), bones, animations, by_name }
    }

    /// Animation index by name, `<stem>_<name>`, or `#index` / decimal index text.
    pub(crate) fn animation(&self, key: &str) -> Option<usize> {
        if let Some(&i) = self.by_name.get(key) {
            return Some(i);
        }
        if let Some(rest) = key.strip_prefix(self.stem.as_str()).and_then(|r| r.strip_prefix('_'))
            && let Some(&i) = self.by_name.get(rest)
        {
            return Some(i);
        }
        let digits = key.strip_prefix('#').unwrap_or(key);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return digits.parse::<usize>().ok().filter(|i| *i < self.animations.len());
        }
        None
    }
}

/// A decoded model and the facts the checks read from it.
#[derive(Debug, Clone)]
pub(crate) struct LoadedModel {
    pub asset: Arc<GltfAsset>,
    pub facts: ModelFacts,
}

/// Models keyed by their path on disk (the definition folder joined with
/// the folder-relative path a definition names); `Err` holds the loader's message.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModelCache {
    models: HashMap<PathBuf, Option<Result<LoadedModel, String>>>,
}

impl ModelCache {
    /// `None` when the file does not exist; otherwise the load result (decoded once, cached).
    pub(crate) fn load(&mut self, path: &Path) -> Option<Result<&ModelFacts, &str>> {
        self.models
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                if !path.is_file() {
                    return None;
                }
                Some(
                    crate::gltf::load_gltf(path)
                        .map(|a| LoadedModel { facts: ModelFacts::from_asset(&a), asset: Arc::new(a) })
                        .map_err(|e| e.to_string()),
                )
            })
            .as_ref()
            .map(|r| r.as_ref().map(|m| &m.facts).map_err(String::as_str))
    }

    /// A model as loaded: `None` when it was never named or does not exist.
    pub(crate) fn get(&self, path: &Path) -> Option<Result<&Arc<GltfAsset>, &str>> {
        match self.models.get(path)? {
            Some(Ok(m)) => Some(Ok(&m.asset)),
            Some(Err(e)) => Some(Err(e.as_str())),
            None => None,
        }
    }

    /// Every model that loaded.
    pub(crate) fn loaded(&self) -> impl Iterator<Item = (&PathBuf, &ModelFacts)> {
        self.models.iter().filter_map(|(p, r)| match r {
            Some(Ok(m)) => Some((p, &m.facts)),
            _ => None,
        })
    }
}
