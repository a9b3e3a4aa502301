//! The Graph Editor in real headless Chromium: open the fixture's
//! locomotion graph and see every state and transition of the file drawn;
//! add a state (context menu on empty space) and a transition with a
//! condition (context menu on a node, then a click on the target), save,
//! and check the file validates with its comments kept; drag a node, save,
//! reload the page and find it where it was left; undo an edit and get the
//! saved text back. Screenshots of the canvas and the details panel.
//!
//! Same requirements and switches as `serve_browser.rs` (see `browser_support`).

mod browser_support;
mod serve_support;

use std::path::Path;
use std::time::{Duration, Instant};

use browser_support::{Browser, css, mouse, pixels, save_shot, until};
use fantoccini::Client;
use fantoccini::actions::{MOUSE_BUTTON_LEFT, MOUSE_BUTTON_RIGHT, PointerAction};
use serde_json::{Value, json};
use serve_support::Server;

const GRAPH: &str = "defs/graphs/humanoid_locomotion.toml";

#[test]
fn the_graph_editor_in_headless_chromium() {
    let Some(browser) = Browser::start() else { return };
    let server = Server::start();
    let shots = zoa_test_support::paths::temp_dir("graph-shots");
    let started = Instant::now();
    browser.run(|c| async move {
        let c = &c;
        open_the_locomotion_graph(c, &server, shots.path()).await;
        add_a_state_and_a_transition_with_a_condition(c, &server, shots.path()).await;
        the_new_state_plays_when_its_parameter_is_set_live(c, shots.path()).await;
        drag_a_node_and_reload(c, &server).await;
        undo_restores_the_saved_text(c, &server).await;
        move_a_notify_in_the_clip_editor(c, &server, shots.path()).await;
        free_play_in_the_preview_lab(c, shots.path()).await;
    });
    eprintln!("graph editor browser test: {:.1} s", started.elapsed().as_secs_f64());
}

fn file(s: &Server) -> std::path::PathBuf {
    s.defs().join("graphs/humanoid_locomotion.toml")
}

/// `[[states]]` names and `[[transitions]]` (from, to) pairs of the file on disk.
fn states_and_transitions(s: &Server) -> (Vec<String>, Vec<(String, String)>) {
    let t: toml::Table = std::fs::read_to_string(file(s)).unwrap().parse().unwrap();
    let names = t["states"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_owned()).collect();
    let pairs = t["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let from = r["from"].as_str().unwrap();
            (if from == "any" { "Any State" } else { from }.to_owned(), r["to"].as_str().unwrap().to_owned())
        })
        .collect();
    (names, pairs)
}

async fn js(c: &Client, body: &str) -> Value {
    c.execute(body, vec![]).await.unwrap_or_else(|e| panic!("{body}: {e}"))
}

/// What the list beside the visible canvas says is drawn.
async fn drawn(c: &Client) -> Value {
    js(
        c,
        "const host = [...document.querySelectorAll('.ge-layer-canvas')].find(h => !h.hidden); \
         const items = [...host.querySelectorAll('.graph-a11y li')].map(li => ({ ...li.dataset })); \
         const r = host.querySelector('canvas').getBoundingClientRect(); \
         return { items, left: r.left, top: r.top, width: r.width, height: r.height };",
    )
    .await
}

fn items<'a>(d: &'a Value, kind: &str) -> Vec<&'a Value> {
    d["items"].as_array().unwrap().iter().filter(|i| i["kind"] == kind).collect()
}

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_str().unwrap().parse().unwrap()
}

/// Viewport position of the state named `name`.
async fn node_at(c: &Client, name: &str) -> (i64, i64) {
    let d = drawn(c).await;
    let n = items(&d, "state").into_iter().find(|i| i["name"] == name).unwrap_or_else(|| panic!("{name} not drawn"));
    ((d["left"].as_f64().unwrap() + num(n, "x")) as i64, (d["top"].as_f64().unwrap() + num(n, "y")) as i64)
}

async fn click_at(c: &Client, (x, y): (i64, i64), button: u64) {
    mouse(
        c,
        vec![
            PointerAction::MoveTo { duration: None, x, y },
            PointerAction::Down { button },
            PointerAction::Up { button },
        ],
    )
    .await;
}

async fn open_the_locomotion_graph(c: &Client, s: &Server, shots: &Path) {
    c.goto(&format!("{}/#graphs", s.origin)).await.unwrap();
    until(c, "the Workbench", "document.body.dataset.ready === '1'").await;
    until(c, "the graph", &format!("document.body.dataset.graph === '{GRAPH}' && document.body.dataset.graphChecked"))
        .await;
    let status = css(c, "#ge-status").await.text().await.unwrap();
    assert_eq!(status, "valid");
    // Every state and every transition of the file is drawn, and the Any State.
    let (names, pairs) = states_and_transitions(s);
    let d = drawn(c).await;
    let drawn_names: Vec<&str> = items(&d, "state").iter().map(|i| i["name"].as_str().unwrap()).collect();
    assert_eq!(drawn_names, names);
    let drawn_pairs: Vec<(String, String)> = items(&d, "transition")
        .iter()
        .map(|i| (i["from"].as_str().unwrap().to_owned(), i["to"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(drawn_pairs, pairs);
    assert_eq!(items(&d, "any").len(), 1);
    let entry: Vec<_> = items(&d, "state").into_iter().filter(|i| i["flag"] == "").collect();
    assert_eq!(entry.len(), names.len(), "nothing flagged in a valid graph");
    // The pixels say so too: each node's centre is painted, not the background.
    let canvas = css(c, ".ge-layer-canvas:not([hidden]) canvas").await;
    let shot = canvas.screenshot().await.unwrap();
    let (px, width, channels) = pixels(&shot);
    for n in items(&d, "state") {
        let (x, y) = (num(n, "x") as usize, num(n, "y") as usize);
        let at = (y * width as usize + x) * channels;
        assert_ne!(&px[at..at + 3], &[0x1e, 0x24, 0x2c], "node {} is drawn at ({x}, {y})", n["name"]);
    }
    save_shot("graph-canvas.png", &shot, shots);
    // Select the blend-tree state: the details panel shows its tree.
    click_at(c, node_at(c, "locomotion").await, MOUSE_BUTTON_LEFT).await;
    until(c, "the state's details", "document.querySelector('#gd-state-name')?.value === 'locomotion'").await;
    let thresholds =
        js(c, "return [...document.querySelectorAll('.gd-child-threshold')].map(i => i.value).join(' ');").await;
    // The outer tree's children, then the nested tree's (the moving child).
    assert_eq!(thresholds, json!("0 1.5 1.5 4 6.5"));
    let nested = js(c, "return document.querySelector('.gd-child-nested')?.textContent;").await;
    assert_eq!(nested, json!("nested 1D tree, 3 children (below)"));
    let inner =
        js(c, "return [...document.querySelectorAll('.gd-tree-nested .gd-child-clip')].map(s => s.value).join(' ');")
            .await;
    assert_eq!(inner, json!("walk run sprint"));
    // The airborne machine: its entry is picked among its own states.
    click_at(c, node_at(c, "airborne").await, MOUSE_BUTTON_LEFT).await;
    until(c, "the machine's details", "document.querySelector('#gd-state-name')?.value === 'airborne'").await;
    let entry = js(c, "const s = document.querySelector('#gd-machine-entry'); return [s.value, [...s.options].map(o => o.value).join(' ')];").await;
    assert_eq!(entry, json!(["jump_start", "jump_start fall land"]));
    assert_eq!(js(c, "return document.querySelector('#gd-motion').value;").await, json!("machine"));
    save_shot("graph-editor-state.png", &c.screenshot().await.unwrap(), shots);
}

/// A point of the canvas far from every node and arrow (viewport coordinates).
async fn empty_spot(c: &Client) -> (i64, i64) {
    let d = drawn(c).await;
    let nodes: Vec<(f64, f64)> =
        items(&d, "state").iter().chain(items(&d, "any").iter()).map(|n| (num(n, "x"), num(n, "y"))).collect();
    let arrows: Vec<[f64; 4]> =
        items(&d, "transition").iter().map(|a| [num(a, "x1"), num(a, "y1"), num(a, "x2"), num(a, "y2")]).collect();
    let (w, h) = (d["width"].as_f64().unwrap(), d["height"].as_f64().unwrap());
    let mut best = (0.0, (0.0, 0.0));
    for gx in 1..20 {
        for gy in 1..14 {
            let (x, y) = (w * f64::from(gx) / 20.0, h * f64::from(gy) / 14.0);
            let near_node = nodes.iter().map(|(nx, ny)| ((x - nx) / 1.8).hypot(y - ny)).fold(f64::MAX, f64::min);
            let near_arrow = arrows.iter().map(|a| seg_dist((x, y), a)).fold(f64::MAX, f64::min);
            let score = near_node.min(near_arrow * 2.0);
            if score > best.0 {
                best = (score, (x, y));
            }
        }
    }
    assert!(best.0 > 40.0, "no empty space on the canvas: {best:?}");
    ((d["left"].as_f64().unwrap() + best.1.0) as i64, (d["top"].as_f64().unwrap() + best.1.1) as i64)
}

fn seg_dist((x, y): (f64, f64), a: &[f64; 4]) -> f64 {
    let (dx, dy) = (a[2] - a[0], a[3] - a[1]);
    let l2 = (dx * dx + dy * dy).max(1e-9);
    let k = (((x - a[0]) * dx + (y - a[1]) * dy) / l2).clamp(0.0, 1.0);
    (x - (a[0] + k * dx)).hypot(y - (a[1] + k * dy))
}

async fn menu(c: &Client, item: &str) {
    css(c, &format!("#ge-menu:not([hidden]) button[data-item='{item}']")).await.click().await.unwrap();
}

/// Waits until the server's edit and the check that follows it are done.
async fn settled(c: &Client, what: &str) {
    until(c, what, "['valid', 'valid, 1 warning(s)'].includes(document.querySelector('#ge-status').textContent) || document.querySelector('#ge-status').textContent.includes('error')").await;
}

/// Replaces the text of the input at `selector` by typing, once the page is
/// done with earlier edits (the details panel is re-made after each edit).
async fn type_into(c: &Client, selector: &str, text: &str) {
    settled(c, "earlier edits").await;
    let input = css(c, selector).await;
    input.click().await.unwrap();
    let ctrl = char::from(fantoccini::key::Key::Control);
    let null = char::from(fantoccini::key::Key::Null);
    input.send_keys(&format!("{ctrl}a{null}{text}\t")).await.unwrap();
}

async fn add_a_state_and_a_transition_with_a_condition(c: &Client, s: &Server, shots: &Path) {
    let original = std::fs::read_to_string(file(s)).unwrap();
    // Right-click on empty space: add a state there.
    click_at(c, empty_spot(c).await, MOUSE_BUTTON_RIGHT).await;
    menu(c, "add-state").await;
    let name = css(c, "#dialog-input").await;
    name.clear().await.unwrap();
    name.send_keys("dodge").await.unwrap();
    css(c, "#dialog-ok").await.click().await.unwrap();
    until(c, "the new state", "document.querySelector('#gd-state-name')?.value === 'dodge'").await;
    css(c, "#gd-clip").await.select_by_value("hit_react").await.unwrap();
    until(c, "its clip", "document.querySelector('.graph-a11y li[data-name=\"dodge\"]') && document.querySelector('#gd-clip')?.value === 'hit_react'").await;
    // Right-click a node: add a transition, then click its target.
    click_at(c, node_at(c, "locomotion").await, MOUSE_BUTTON_RIGHT).await;
    menu(c, "add-transition").await;
    until(c, "the pending hint", "!document.querySelector('#ge-pending').hidden").await;
    click_at(c, node_at(c, "dodge").await, MOUSE_BUTTON_LEFT).await;
    until(
        c,
        "the new transition's details",
        "document.querySelector('.gd-route')?.textContent === 'locomotion → dodge'",
    )
    .await;
    // Unconditional so far: flagged.
    until(c, "the W002 flag", "document.querySelector('.gd-problems li[data-code=\"W002\"]')").await;
    css(c, "#gd-add-condition").await.click().await.unwrap();
    until(c, "the condition row", "document.querySelector('.gd-cond-value')?.value === '0'").await;
    type_into(c, ".gd-cond-value", "5").await;
    until(c, "the condition", "document.querySelector('.gd-cond-value')?.value === '5' && !document.querySelector('.gd-problems li[data-code=\"W002\"]')").await;
    // And back, at the end of the clip.
    click_at(c, node_at(c, "dodge").await, MOUSE_BUTTON_RIGHT).await;
    menu(c, "add-transition").await;
    click_at(c, node_at(c, "locomotion").await, MOUSE_BUTTON_LEFT).await;
    until(c, "the way back", "document.querySelector('.gd-route')?.textContent === 'dodge → locomotion'").await;
    type_into(c, "#gd-exit-time", "0.9").await;
    settled(c, "the check").await;
    until(c, "a clean graph", "document.querySelector('#ge-status').textContent === 'valid'").await;
    until(c, "the unsaved marker", "document.title.startsWith('* ') && document.querySelector('#ge-file').selectedOptions[0].textContent.startsWith('* ')").await;
    save_shot("graph-editor-transition.png", &c.screenshot().await.unwrap(), shots);
    assert_eq!(std::fs::read_to_string(file(s)).unwrap(), original, "nothing written before Save");
    css(c, "#ge-save").await.click().await.unwrap();
    until(c, "the save", "document.body.dataset.unsaved === '0' && !document.title.startsWith('*')").await;
    let saved = std::fs::read_to_string(file(s)).unwrap();
    assert!(saved.starts_with(&original[..original.find("[[transitions]]").unwrap()]), "everything before is kept");
    assert!(saved.contains("[[states]]\nname = \"dodge\"\nclip = \"hit_react\"\nposition = ["), "{saved}");
    assert!(saved.contains("from = \"locomotion\"\nto = \"dodge\"\nconditions = [\"speed > 5\"]\n"), "{saved}");
    assert!(saved.contains("from = \"dodge\"\nto = \"locomotion\"\nexit_time = 0.9\n"), "{saved}");
    assert!(saved.contains("# death may cut the recovery short\n"), "comments are kept");
    // The saved folder validates (the CLI's check), the new state included.
    let set = zoa_anim_assets::defs::load_folder(&s.defs());
    let mine: Vec<_> = set.diagnostics.iter().filter(|d| d.file.ends_with("humanoid_locomotion.toml")).collect();
    assert!(mine.is_empty(), "{mine:?}");
    let g = set.animation_graphs.iter().find(|g| g.value.id == "humanoid_locomotion").unwrap();
    assert!(g.value.state("dodge").is_some());
}

async fn the_new_state_plays_when_its_parameter_is_set_live(c: &Client, shots: &Path) {
    css(c, "#ge-play").await.click().await.unwrap();
    until(c, "free play", "(document.body.dataset.liveStates || '').startsWith('locomotion')").await;
    // Set `speed` live past the new transition's condition (speed > 5).
    type_into(c, ".ge-param[data-name='speed'] .live-number", "6").await;
    until(c, "the new state", "(document.body.dataset.liveStates || '').startsWith('dodge')").await;
    until(c, "its node lit", "document.querySelector('.graph-a11y li[data-name=\"dodge\"]').dataset.active === '1'")
        .await;
    save_shot("graph-editor-live.png", &c.screenshot().await.unwrap(), shots);
    css(c, "#ge-stop").await.click().await.unwrap();
    until(c, "the stop", "!document.body.dataset.live").await;
}

/// Types into a live control of the Preview Lab (no edits to wait for there).
async fn type_into_live(c: &Client, selector: &str, text: &str) {
    let input = css(c, selector).await;
    input.click().await.unwrap();
    let ctrl = char::from(fantoccini::key::Key::Control);
    let null = char::from(fantoccini::key::Key::Null);
    input.send_keys(&format!("{ctrl}a{null}{text}\t")).await.unwrap();
}

async fn move_a_notify_in_the_clip_editor(c: &Client, s: &Server, shots: &Path) {
    css(c, "#tab-clips").await.click().await.unwrap();
    until(c, "the first clip", "document.body.dataset.clipChecked").await;
    css(c, "#ce-file").await.select_by_value("defs/clips/walk.toml").await.unwrap();
    until(c, "the clip", "document.body.dataset.clip === 'defs/clips/walk.toml' && document.querySelector('#ce-status').textContent === 'valid' && document.querySelectorAll('#ce-markers li').length === 2").await;
    let times = js(c, "return [...document.querySelectorAll('#ce-markers li')].map(li => li.dataset.time);").await;
    assert_eq!(times, json!(["0.1", "0.5"]));
    let info = css(c, "#ce-info").await.text().await.unwrap();
    assert!(info.contains("Skeleton") && info.contains("plays"), "{info}");
    // Scrub: the figure follows the playhead.
    let figure = css(c, "#ce-figure").await;
    let first = figure.screenshot().await.unwrap();
    let r = js(c, "const r = document.querySelector('#ce-strip').getBoundingClientRect(); return [r.left + r.width * 0.7, r.top + r.height / 2];").await;
    click_at(c, (r[0].as_f64().unwrap() as i64, r[1].as_f64().unwrap() as i64), MOUSE_BUTTON_LEFT).await;
    until(c, "the playhead", "parseFloat(document.querySelector('#ce-time').textContent) > 0.3").await;
    let later = figure.screenshot().await.unwrap();
    assert_ne!(pixels(&first).0, pixels(&later).0, "the scrubbed figure moved");
    // Move the second footstep to 0.3 s.
    let input = css(c, "#ce-notifies tr[data-index='1'] .ce-time").await;
    input.click().await.unwrap();
    let ctrl = char::from(fantoccini::key::Key::Control);
    let null = char::from(fantoccini::key::Key::Null);
    input.send_keys(&format!("{ctrl}a{null}0.3\t")).await.unwrap();
    until(c, "the moved marker", "document.querySelectorAll('#ce-markers li')[1]?.dataset.time === '0.3' && document.body.dataset.unsaved === '1'").await;
    save_shot("clip-editor.png", &c.screenshot().await.unwrap(), shots);
    css(c, "#ce-save").await.click().await.unwrap();
    until(c, "the save", "document.body.dataset.unsaved === '0'").await;
    let text = std::fs::read_to_string(s.defs().join("clips/walk.toml")).unwrap();
    assert!(text.contains("\nnotifies = [\"Footstep@0.1\", \"Footstep@0.3\"]\n"), "{text}");
    // What the editor does not edit is kept, comment included (the sync markers).
    assert!(text.ends_with("# Sync markers: states of one sync group put these feet down together.\nmarkers = [\"foot_l@0.1\", \"foot_r@0.5\"]\n"), "{text}");
}

async fn free_play_in_the_preview_lab(c: &Client, shots: &Path) {
    css(c, "#tab-preview").await.click().await.unwrap();
    css(c, "#live-card summary").await.click().await.unwrap();
    until(c, "the graphs", "document.querySelectorAll('#live-graph option').length === 2").await;
    css(c, "#live-graph").await.select_by_value("humanoid_locomotion").await.unwrap();
    css(c, "#live-play").await.click().await.unwrap();
    until(c, "free play", "(document.body.dataset.labLiveStates || '').startsWith('locomotion')").await;
    css(c, ".live-param[data-name='is_crouching'] .live-bool").await.click().await.unwrap();
    until(c, "the crouch", "(document.body.dataset.labLiveStates || '').startsWith('crouch')").await;
    until(
        c,
        "the lit node",
        "document.querySelector('#live-graph-host .graph-a11y li[data-name=\"crouch\"]')?.dataset.active === '1'",
    )
    .await;
    c.execute("document.querySelector('#live-lab').scrollIntoView();", vec![]).await.unwrap();
    save_shot("preview-live.png", &c.screenshot().await.unwrap(), shots);
    // The skinned character (WebGL), the stick figure switched off: two
    // moments of a run differ where the mesh moves.
    until(c, "the skinned mesh", "document.body.dataset.labMesh === '1'").await;
    css(c, "#live-stick").await.click().await.unwrap();
    css(c, ".live-param[data-name='is_crouching'] .live-bool").await.click().await.unwrap();
    type_into_live(c, ".live-param[data-name='speed'] .live-number", "4").await;
    until(c, "the run", "(document.body.dataset.labLiveStates || '').startsWith('locomotion')").await;
    let mesh = css(c, "#live-mesh").await;
    let a = mesh.screenshot().await.unwrap();
    tokio::time::sleep(Duration::from_millis(350)).await;
    let b = mesh.screenshot().await.unwrap();
    save_shot("preview-mesh-a.png", &a, shots);
    save_shot("preview-mesh-b.png", &b, shots);
    let ((pa, wa, ch), (pb, _, _)) = (pixels(&a), pixels(&b));
    let differing = pa.chunks(ch).zip(pb.chunks(ch)).filter(|(p, q)| p != q).count();
    let total = pa.len() / ch;
    assert!(differing > 300 && differing < total / 2, "the mesh moved: {differing} of {total} pixels ({wa} wide)");
    // Lit, not flat: the figure shows more than a handful of shades.
    let mut shades: Vec<&[u8]> = pa.chunks(ch).filter(|p| p[0] > 90).collect();
    shades.sort_unstable();
    shades.dedup();
    assert!(shades.len() > 20, "{} shades", shades.len());
    css(c, "#live-stick").await.click().await.unwrap();
    // A single clip, looping: its footsteps arrive as events.
    css(c, "#live-mode").await.select_by_value("clip").await.unwrap();
    css(c, "#live-clip").await.select_by_value("walk").await.unwrap();
    css(c, "#live-play").await.click().await.unwrap();
    until(c, "the clip", "(document.body.dataset.labLiveStates || '') === 'walk'").await;
    // The footstep the clip editor moved to 0.3 s fires there (and none at 0.5 s).
    until(
        c,
        "the moved footstep",
        "[...document.querySelectorAll('#live-events .chip')].some(e => e.textContent === '0.300 s notify Footstep')",
    )
    .await;
    let early = js(c, "return [...document.querySelectorAll('#live-events .chip')].map(e => e.textContent).filter(t => parseFloat(t) < 0.9);").await;
    assert_eq!(early, json!(["0.300 s notify Footstep", "0.100 s notify Footstep"]), "newest first");
    css(c, "#live-stop").await.click().await.unwrap();
    until(c, "the stop", "!document.body.dataset.labLive").await;
}

async fn drag_a_node_and_reload(c: &Client, s: &Server) {
    let before = drawn(c).await;
    let fall = items(&before, "state").into_iter().find(|i| i["name"] == "fall").unwrap().clone();
    let (wx, wy) = (num(&fall, "wx"), num(&fall, "wy"));
    let (x, y) = node_at(c, "fall").await;
    mouse(
        c,
        vec![
            PointerAction::MoveTo { duration: None, x, y },
            PointerAction::Down { button: MOUSE_BUTTON_LEFT },
            PointerAction::MoveBy { duration: Some(Duration::from_millis(100)), x: 40, y: 20 },
            PointerAction::MoveBy { duration: Some(Duration::from_millis(100)), x: 40, y: 20 },
            PointerAction::Up { button: MOUSE_BUTTON_LEFT },
        ],
    )
    .await;
    until(c, "the move", "document.body.dataset.unsaved === '1'").await;
    let moved = drawn(c).await;
    let fall = items(&moved, "state").into_iter().find(|i| i["name"] == "fall").unwrap().clone();
    let (mx, my) = (num(&fall, "wx"), num(&fall, "wy"));
    assert!(mx > wx + 20.0 && my > wy + 10.0, "moved from ({wx}, {wy}) to ({mx}, {my})");
    // Ctrl+S saves the graph.
    css(c, ".ge-layer-canvas:not([hidden]) canvas")
        .await
        .send_keys(&format!("{}s", char::from(fantoccini::key::Key::Control)))
        .await
        .unwrap();
    until(c, "the save", "document.body.dataset.unsaved === '0'").await;
    let text = std::fs::read_to_string(file(s)).unwrap();
    assert!(
        text.contains(&format!(
            "name = \"fall\"\nmachine = \"airborne\"\nclip = \"fall\"\nposition = [{}, {}]\n",
            mx.round(),
            my.round()
        )),
        "{text}"
    );
    c.refresh().await.unwrap();
    until(
        c,
        "the reloaded graph",
        &format!("document.body.dataset.graph === '{GRAPH}' && document.body.dataset.graphChecked"),
    )
    .await;
    let after = drawn(c).await;
    let fall = items(&after, "state").into_iter().find(|i| i["name"] == "fall").unwrap().clone();
    assert_eq!((num(&fall, "wx"), num(&fall, "wy")), (mx.round(), my.round()), "the position is kept");
}

async fn undo_restores_the_saved_text(c: &Client, s: &Server) {
    let saved = std::fs::read_to_string(file(s)).unwrap();
    // Select the any -> death arrow and delete it with the Delete key.
    let d = drawn(c).await;
    let arrow = items(&d, "transition").into_iter().find(|a| a["from"] == "Any State").unwrap().clone();
    let (x, y) = (
        d["left"].as_f64().unwrap() + (num(&arrow, "x1") + num(&arrow, "x2")) / 2.0,
        d["top"].as_f64().unwrap() + (num(&arrow, "y1") + num(&arrow, "y2")) / 2.0,
    );
    click_at(c, (x as i64, y as i64), MOUSE_BUTTON_LEFT).await;
    until(c, "the arrow's details", "document.querySelector('.gd-route')?.textContent === 'Any State → death'").await;
    css(c, ".ge-layer-canvas:not([hidden]) canvas")
        .await
        .send_keys(&char::from(fantoccini::key::Key::Delete).to_string())
        .await
        .unwrap();
    until(
        c,
        "the deletion",
        "document.body.dataset.unsaved === '1' && !document.querySelector('.graph-a11y li[data-from=\"Any State\"]')",
    )
    .await;
    // Unreachable now: death is flagged.
    until(c, "the unreachable flag", "document.querySelector('.graph-a11y li[data-name=\"death\"]')?.dataset.flag")
        .await;
    css(c, "#ge-undo").await.click().await.unwrap();
    until(
        c,
        "the undo",
        "document.body.dataset.unsaved === '0' && document.querySelector('.graph-a11y li[data-from=\"Any State\"]')",
    )
    .await;
    // The buffer holds exactly the saved text again: the TOML editor shows it.
    css(c, "#tab-definitions").await.click().await.unwrap();
    css(c, &format!(".def-item[data-path='{GRAPH}']")).await.click().await.unwrap();
    let text = until(c, "the text", "document.querySelector('#editor-text').value.includes('humanoid_locomotion') && document.querySelector('#editor-text').value").await;
    assert_eq!(text.as_str().unwrap(), saved);
}
