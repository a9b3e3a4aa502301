//! Definition-folder loading: the humanoid fixture folder (36 files, one
//! 55-joint model loaded once for bone and animation checks) and one large
//! generated clip table.

fn main() {
    divan::main();
}

#[divan::bench]
fn humanoid_fixture_folder() {
    let dir = zoa_test_support::paths::fixture("defs/humanoid");
    let set = zoa_anim_assets::defs::load_folder(divan::black_box(&dir));
    assert_eq!(set.error_count(), 0);
}

/// A 2 000-row clip table (about 110 KiB of TOML) in one file.
#[divan::bench]
fn large_clip_table(bencher: divan::Bencher<'_, '_>) {
    let tmp = zoa_test_support::paths::temp_dir("defs-bench");
    let dir = tmp.path();
    let loco = ["idle", "walk", "run", "sprint", "strafe", "backward", "turn"];
    let mood = ["calm", "alert", "afraid", "angry", "wounded", "exhausted", "stealthy"];
    let combat = ["unarmed", "armed_pistol", "armed_rifle", "armed_shotgun", "armed_melee", "armed_heavy"];
    let mut text = String::from("kind = \"animation_profile\"\nid = \"big\"\n\n[[entries]]\nclip = \"idle\"\n");
    let mut n = 0;
    'outer: for l in loco {
        for m in mood {
            for c in combat {
                for p in ["standing", "crouching", "prone", "in_cover", "kneeling", "sitting", "mounted"] {
                    text.push_str(&format!(
                        "\n[[entries]]\ntags = \"locomotion={l} posture={p} combat={c} mood={m}\"\nclip = \"c{n}\"\nweight = 1.5\n"
                    ));
                    n += 1;
                    if n == 2000 {
                        break 'outer;
                    }
                }
            }
        }
    }
    std::fs::write(dir.join("big.toml"), &text).unwrap();
    bencher.bench(|| zoa_anim_assets::defs::load_folder(divan::black_box(dir)));
}
