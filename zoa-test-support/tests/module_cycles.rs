//! No import cycles between modules, in every crate of the workspace.
//!
//! Within any module, its child modules must form a DAG: when `a::x` uses
//! `b::y` (through `crate::` or `super::` paths, in `use` items or inline),
//! that is an edge `a → b` between the children of their closest common
//! module. Uses between a module and its own ancestors or descendants do not
//! count (a parent re-exporting its child, a child using its parent's
//! helpers), nor do paths that end at the crate root (re-exports).
//!
//! Known cycles are listed in [`KNOWN`] with the reason they still exist;
//! the test fails on a cycle that is not listed and on a listed one that is
//! gone (so the list only shrinks).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use zoa_test_support::paths::repo_root;

/// `(crate, "a <-> b", why it is still there)`.
const KNOWN: &[(&str, &str, &str)] = &[];

/// A module path inside one crate (`["graph", "profile_set"]`; the root is empty).
type ModPath = Vec<String>;

/// Every module of a crate: path → file.
fn modules(src: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut out = BTreeMap::new();
    let root = if src.join("lib.rs").is_file() { src.join("lib.rs") } else { src.join("main.rs") };
    walk(&root, Vec::new(), &mut out);
    out
}

fn walk(file: &Path, path: ModPath, out: &mut BTreeMap<ModPath, PathBuf>) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    out.insert(path.clone(), file.to_path_buf());
    let dir = match file.file_name().and_then(|n| n.to_str()) {
        Some("lib.rs" | "main.rs" | "mod.rs") => file.parent().unwrap().to_path_buf(),
        _ => file.with_extension(""),
    };
    for child in declared_modules(&strip(&text)) {
        let mut p = path.clone();
        p.push(child.clone());
        let flat = dir.join(format!("{child}.rs"));
        let nested = dir.join(&child).join("mod.rs");
        if flat.is_file() {
            walk(&flat, p, out);
        } else if nested.is_file() {
            walk(&nested, p, out);
        }
    }
}

/// Names of `mod x;` declarations (inline `mod x { .. }` bodies are part of
/// their file's module: their uses count for it).
fn declared_modules(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let t = t.strip_prefix("pub(crate) ").or_else(|| t.strip_prefix("pub ")).unwrap_or(t);
        if let Some(rest) = t.strip_prefix("mod ")
            && let Some(name) = rest.trim_end().strip_suffix(';')
        {
            out.push(name.trim().to_owned());
        }
    }
    out
}

/// The text without comments, string literals and `#[cfg(test)]` modules
/// (tests may use anything).
fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i..].starts_with(b"r#\"") {
            let end = text[i + 3..].find("\"#").map_or(b.len(), |e| i + 3 + e + 2);
            i = end;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || (b[i + 1] == b'\\' && i + 3 < b.len())) {
            // A char literal (`'x'`, `'\n'`); lifetimes have no closing quote.
            let close = text[i + 1..].find('\'').map_or(b.len(), |e| i + 1 + e + 1);
            i = close;
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    cut_test_modules(&out)
}

fn cut_test_modules(text: &str) -> String {
    let mut out = text.to_owned();
    while let Some(at) = out.find("#[cfg(test)]") {
        let after = &out[at..];
        let Some(open) = after.find('{') else { break };
        // Only a module (or item) right after the attribute: cut its braces.
        let mut depth = 0usize;
        let mut end = None;
        for (k, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(at + open + k + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.unwrap_or(out.len());
        out.replace_range(at..end, "");
    }
    out
}

/// Every path a module names through `crate::` or `super::`, expanded over
/// `use` groups, with the line it is on.
fn used_paths(text: &str, here: &[String]) -> Vec<(ModPath, usize)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let at_word = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'_' | b':' | b'$'));
        let rest = &text[i..];
        let start = if at_word && rest.starts_with("crate::") {
            Some((Vec::new(), 7))
        } else if at_word && rest.starts_with("super::") {
            let mut base: Vec<String> = here.to_vec();
            let mut k = 0;
            while text[i + k..].starts_with("super::") {
                base.pop();
                k += 7;
            }
            Some((base, k))
        } else {
            None
        };
        let Some((base, skip)) = start else {
            i += 1;
            continue;
        };
        let line = text[..i].matches('\n').count() + 1;
        let mut tails = Vec::new();
        let consumed = parse_tree(&text[i + skip..], &mut Vec::new(), &mut tails);
        for t in tails {
            let mut p = base.clone();
            p.extend(t);
            out.push((p, line));
        }
        i += skip + consumed.max(1);
    }
    out
}

/// Parses `a::b::{c, d::{e, f}}` from the start of `s`; pushes every full
/// path; returns the bytes consumed.
fn parse_tree(s: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    let mut pushed = 0;
    let mut group = false;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b'{' {
            group = true;
            i += 1;
            loop {
                let n = parse_tree(&s[i..], prefix, out);
                i += n;
                while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
                    i += 1;
                }
                if i >= b.len() || b[i] == b'}' {
                    i += 1;
                    break;
                }
                if n == 0 {
                    i += 1;
                }
            }
            break;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        if i == start {
            if b.get(i) == Some(&b'*') {
                i += 1;
            }
            break;
        }
        prefix.push(s[start..i].to_owned());
        pushed += 1;
        if s[i..].starts_with("::") {
            i += 2;
        } else {
            break;
        }
    }
    if !group && (pushed > 0 || !prefix.is_empty()) {
        out.push(prefix.clone());
    }
    for _ in 0..pushed {
        prefix.pop();
    }
    i
}

/// The longest module path that `p` starts with.
fn resolve<'m>(p: &[String], mods: &'m BTreeMap<ModPath, PathBuf>) -> Option<&'m ModPath> {
    (0..=p.len()).rev().find_map(|n| mods.get_key_value(&p[..n].to_vec()).map(|(k, _)| k))
}

/// One lifted edge: in module `parent`, child `from` uses child `to`, seen at `file:line`.
type Edges = BTreeMap<(ModPath, String, String), (PathBuf, usize)>;

fn edges(mods: &BTreeMap<ModPath, PathBuf>) -> Edges {
    let mut out = Edges::new();
    for (here, file) in mods {
        let text = strip(&std::fs::read_to_string(file).unwrap_or_default());
        for (p, line) in used_paths(&text, here) {
            let Some(target) = resolve(&p, mods) else { continue };
            let common = here.iter().zip(target).take_while(|(a, b)| a == b).count();
            if common == here.len() || common == target.len() {
                continue; // ancestor, descendant or itself
            }
            let parent = here[..common].to_vec();
            out.entry((parent, here[common].clone(), target[common].clone())).or_insert_with(|| (file.clone(), line));
        }
    }
    out
}

/// Cycles among the children of each module: each as its members, sorted.
fn cycles(edges: &Edges) -> Vec<(ModPath, Vec<String>)> {
    let mut by_parent: BTreeMap<&ModPath, BTreeMap<&str, BTreeSet<&str>>> = BTreeMap::new();
    for (parent, from, to) in edges.keys() {
        by_parent.entry(parent).or_default().entry(from).or_default().insert(to);
    }
    let mut out = Vec::new();
    for (parent, graph) in by_parent {
        // Strongly connected components by reachability (graphs are small).
        let nodes: BTreeSet<&str> =
            graph.iter().flat_map(|(f, ts)| std::iter::once(*f).chain(ts.iter().copied())).collect();
        let reach = |from: &str| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from];
            while let Some(n) = stack.pop() {
                for t in graph.get(n).into_iter().flatten() {
                    if seen.insert(*t) {
                        stack.push(t);
                    }
                }
            }
            seen
        };
        let reach: BTreeMap<&str, BTreeSet<&str>> = nodes.iter().map(|n| (*n, reach(n))).collect();
        let mut done = BTreeSet::new();
        for n in &nodes {
            if done.contains(n) || !reach[n].contains(n) {
                continue;
            }
            let scc: Vec<&str> =
                nodes.iter().copied().filter(|m| reach[n].contains(m) && reach[m].contains(n)).collect();
            done.extend(scc.iter().copied());
            out.push((parent.clone(), scc.into_iter().map(str::to_owned).collect()));
        }
    }
    out
}

fn crate_dirs() -> Vec<(String, PathBuf)> {
    let root = repo_root();
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file() && p.join("src").is_dir())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_owned();
            name.starts_with("zoa-").then_some((name, p.join("src")))
        })
        .collect();
    out.sort();
    out
}

fn show(parent: &[String], scc: &[String]) -> String {
    let at = if parent.is_empty() { String::new() } else { format!("{}::", parent.join("::")) };
    scc.iter().map(|m| format!("{at}{m}")).collect::<Vec<_>>().join(" <-> ")
}

#[test]
fn no_module_import_cycles() {
    let mut found = Vec::new();
    let mut report = Vec::new();
    for (krate, src) in crate_dirs() {
        let mods = modules(&src);
        assert!(!mods.is_empty(), "{krate}: no modules found");
        let edges = edges(&mods);
        for (parent, scc) in cycles(&edges) {
            let name = show(&parent, &scc);
            let mut why = Vec::new();
            for ((p, from, to), (file, line)) in &edges {
                if *p == parent && scc.contains(from) && scc.contains(to) {
                    let rel = file.strip_prefix(repo_root()).unwrap_or(file);
                    why.push(format!("    {from} -> {to} ({}:{line})", rel.display()));
                }
            }
            report.push(format!("{krate}: {name}\n{}", why.join("\n")));
            found.push((krate.clone(), name));
        }
    }
    let unknown: Vec<&String> = report
        .iter()
        .zip(&found)
        .filter(|(_, (k, n))| !KNOWN.iter().any(|(kk, nn, _)| kk == k && nn == n))
        .map(|(r, _)| r)
        .collect();
    assert!(
        unknown.is_empty(),
        "import cycles between modules:\n{}",
        unknown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    for (k, n, _) in KNOWN {
        assert!(
            found.iter().any(|(fk, fname)| fk == k && fname == n),
            "{k}: `{n}` is no longer a cycle; remove it from KNOWN"
        );
    }
}

#[test]
fn the_parser_reads_use_groups_and_super_paths() {
    let text = strip(
        "use crate::a::{b, c::{d, e}};\n// use crate::zzz;\nfn f() { super::super::x::y(); let s = \"crate::q\"; }\n",
    );
    let got: Vec<ModPath> = used_paths(&text, &["m".into(), "n".into()]).into_iter().map(|(p, _)| p).collect();
    let want: Vec<ModPath> = vec![
        vec!["a".into(), "b".into()],
        vec!["a".into(), "c".into(), "d".into()],
        vec!["a".into(), "c".into(), "e".into()],
        vec!["x".into(), "y".into()],
    ];
    assert_eq!(got, want);
}
