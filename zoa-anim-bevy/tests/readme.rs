//! The README's Bevy example is the `bevy_scene` example (which CI lints
//! with the `render` feature): the code block in the root README's
//! "Using ZOA in Bevy" section equals the example file from its first `use`.

use zoa_test_support::paths::repo_root;

#[test]
fn the_readme_bevy_example_is_the_bevy_scene_example() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let example = std::fs::read_to_string(repo_root().join("zoa-anim-bevy/examples/bevy_scene.rs")).unwrap();
    let code = &example[example.find("use bevy::asset").expect("the example's first `use`")..];
    let section = &readme[readme.find("## Using ZOA in Bevy").expect("the README's Bevy section")..];
    let block = section.split("```rust\n").nth(1).and_then(|b| b.split("```").next()).expect("a rust block");
    assert_eq!(block, code, "README's Bevy example and examples/bevy_scene.rs differ");
    assert!(block.lines().count() <= 45, "a short example ({} lines)", block.lines().count());
}
