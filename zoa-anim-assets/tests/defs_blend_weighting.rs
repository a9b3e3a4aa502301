//! 2D blend trees choose their weighting in the file: `weighting`
//! (`inverse_distance` | `gradient_band`, alias `freeform_cartesian`) and
//! `power` (inverse distance only, a finite number > 0).

use zoa_anim_assets::defs::{DefinitionSet, Severity, load_folder};
use zoa_anim_core::graph::{Motion, Weighting2D};
use zoa_test_support::paths::{fixture, temp_dir};

/// A folder with one graph whose `strafe` state is a 2D tree with `extra`
/// lines in its `blend_tree` table (`tree_type` for its `type`).
fn load(tree_type: &str, extra: &str) -> DefinitionSet {
    let tmp = temp_dir("blend-weighting");
    let dir = tmp.path();
    std::fs::copy(fixture("models/humanoid.glb"), dir.join("humanoid.glb")).unwrap();
    let children = match tree_type {
        "direct" => "[{ clip = \"walk\", weight = 1.0 }, { clip = \"run\", weight = 1.0 }]",
        _ => {
            "[{ clip = \"walk\", threshold = 0.0, threshold_y = 1.0 }, { clip = \"run\", threshold = 1.0, threshold_y = 0.0 }]"
        }
    };
    let y = if tree_type == "2D" { "parameter_y = \"y\"\n" } else { "" };
    let text = format!(
        "kind = \"animation_graph\"\nid = \"g\"\nmodel = \"humanoid.glb\"\nentry = \"strafe\"\n\
         parameters = [{{ name = \"x\", type = \"float\" }}, {{ name = \"y\", type = \"float\" }}]\n\n\
         [[states]]\nname = \"strafe\"\n[states.blend_tree]\ntype = \"{tree_type}\"\nparameter = \"x\"\n{y}{extra}\
         children = {children}\n"
    );
    std::fs::write(dir.join("graph.toml"), text).unwrap();
    load_folder(dir)
}

fn weighting(set: &DefinitionSet) -> Weighting2D {
    let errors: Vec<String> =
        set.diagnostics.iter().filter(|d| d.severity == Severity::Error).map(|d| d.message.clone()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    match &set.animation_graphs[0].value.states[0].motion {
        Motion::BlendTree(t) => t.weighting,
        other => panic!("not a blend tree: {other:?}"),
    }
}

/// `(code, line, field)` of every error.
fn errors(set: &DefinitionSet) -> Vec<(&'static str, usize, String)> {
    set.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.code, d.line, d.field.clone()))
        .collect()
}

#[test]
fn weighting_and_power_are_read_from_the_file() {
    assert_eq!(weighting(&load("2D", "")), Weighting2D::InverseDistance { power: 1.0 }, "the default");
    assert_eq!(weighting(&load("2D", "power = 2.5\n")), Weighting2D::InverseDistance { power: 2.5 });
    assert_eq!(
        weighting(&load("2D", "weighting = \"inverse_distance\"\npower = 3\n")),
        Weighting2D::InverseDistance { power: 3.0 }
    );
    assert_eq!(weighting(&load("2D", "weighting = \"gradient_band\"\n")), Weighting2D::GradientBand);
    assert_eq!(weighting(&load("2D", "weighting = \"freeform_cartesian\"\n")), Weighting2D::GradientBand);
}

#[test]
fn bad_weighting_values_name_file_line_and_field() {
    let field = "states[0].blend_tree.power";
    // Line 13 is the first extra line of a 2D tree (after `parameter_y`), 12 of a 1D tree.
    assert_eq!(errors(&load("2D", "power = -1.0\n")), [("E008", 13, field.to_owned())]);
    assert_eq!(errors(&load("2D", "power = 0.0\n")), [("E008", 13, field.to_owned())]);
    assert_eq!(errors(&load("2D", "power = nan\n")), [("E009", 13, field.to_owned())]);
    assert_eq!(errors(&load("2D", "power = inf\n")), [("E009", 13, field.to_owned())]);
    assert_eq!(errors(&load("2D", "power = \"two\"\n")), [("E007", 13, field.to_owned())]);
    assert_eq!(
        errors(&load("2D", "weighting = \"polar\"\n")),
        [("E010", 13, "states[0].blend_tree.weighting".to_owned())]
    );
    // Fields of another weighting or another tree type.
    assert_eq!(errors(&load("2D", "weighting = \"gradient_band\"\npower = 2.0\n")), [("E019", 14, field.to_owned())]);
    assert_eq!(errors(&load("1D", "power = 2.0\n")), [("E019", 12, field.to_owned())]);
    assert_eq!(
        errors(&load("1D", "weighting = \"gradient_band\"\n")),
        [("E019", 12, "states[0].blend_tree.weighting".to_owned())]
    );
    // Every problem at once.
    let all = errors(&load("2D", "weighting = \"polar\"\npower = -2\n"));
    assert_eq!(all.len(), 2, "{all:?}");
    let msg = load("2D", "power = -1.0\n").diagnostics.iter().map(|d| d.message.clone()).collect::<String>();
    assert!(msg.contains("> 0"), "{msg}");
}
