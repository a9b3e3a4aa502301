//! Name tokenizing shared by the scanner, the auto-binder and the
//! neighbourhood scan: `RifleReload_Mag02` → `rifle reload mag 02`.

/// Splits `text` into lowercase word tokens: breaks at every non-alphanumeric
/// character, at lower→upper case changes (`RifleReload`), and between
/// letters and digits (`Mag02`). Empty tokens are dropped.
#[must_use]
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            flush(&mut cur, &mut out);
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let case_break = p.is_lowercase() && c.is_uppercase();
            let digit_break = p.is_ascii_digit() != c.is_ascii_digit();
            if case_break || digit_break {
                flush(&mut cur, &mut out);
            }
        }
        cur.extend(c.to_lowercase().filter(|l| l.is_alphanumeric()));
        prev = Some(c);
    }
    flush(&mut cur, &mut out);
    out
}

fn flush(cur: &mut String, out: &mut Vec<String>) {
    if !cur.is_empty() {
        out.push(std::mem::take(cur));
    }
}

/// Turns arbitrary text into a definition id (core id syntax: lowercase
/// `a-z0-9_`, starting with a letter): every other character becomes `_`,
/// runs of `_` collapse, leading/trailing `_` go, and an id that would not
/// start with a letter gets a `clip_` prefix. Never empty (`clip`).
pub fn to_id(text: &str) -> String {
    let mut id = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() { c } else { '_' };
        if c == '_' && (id.is_empty() || id.ends_with('_')) {
            continue;
        }
        id.push(c);
    }
    while id.ends_with('_') {
        id.pop();
    }
    if !id.starts_with(|c: char| c.is_ascii_lowercase()) {
        id.insert_str(0, if id.is_empty() { "clip" } else { "clip_" });
    }
    id.truncate(120);
    while id.ends_with('_') {
        id.pop();
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenize_splits_case_digits_and_separators() {
        assert_eq!(tokenize("RifleReload_Mag02"), ["rifle", "reload", "mag", "02"]);
        assert_eq!(tokenize("1_idle"), ["1", "idle"]);
        assert_eq!(tokenize("mixamo.com"), ["mixamo", "com"]);
        assert_eq!(tokenize("RUN"), ["run"]);
        assert!(tokenize("__").is_empty());
    }

    proptest::proptest! {
        #[test]
        fn to_id_is_always_a_valid_id(text in ".{0,200}") {
            let id = to_id(&text);
            proptest::prop_assert!(zoa_anim_core::ids::check_id_syntax(&id).is_ok(), "{:?} -> {:?}", text, id);
            proptest::prop_assert_eq!(to_id(&id), id.clone(), "idempotent");
        }

        #[test]
        fn tokens_are_lowercase_alphanumeric(text in ".{0,100}") {
            for t in tokenize(&text) {
                proptest::prop_assert!(!t.is_empty() && t.chars().all(char::is_alphanumeric));
                proptest::prop_assert_eq!(t.to_lowercase(), t.clone());
            }
        }
    }

    #[test]
    fn to_id_yields_valid_ids() {
        assert_eq!(to_id("Fox_Walk"), "fox_walk");
        assert_eq!(to_id("greenman_1_idle"), "greenman_1_idle");
        assert_eq!(to_id("3 Attack!"), "clip_3_attack");
        assert_eq!(to_id("a..b"), "a_b");
        assert_eq!(to_id(""), "clip");
        for s in ["Fox_Walk", "9", "Ünïcode name", "x.y", "___", "A-B-C"] {
            assert!(zoa_anim_core::ids::check_id_syntax(&to_id(s)).is_ok(), "{s} -> {}", to_id(s));
        }
    }
}
