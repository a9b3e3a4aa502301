use std::time::Instant;
use zoa_animation::assets::{baked, defs, character};
#[test]
fn timing() {
    let (bytes, _) = zoa_animation::Loader::new().bake(zoa_test_support::paths::fixture("defs/humanoid"), &baked::Tolerance::default()).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let b = baked::read_baked(&bytes).unwrap();
        let t1 = t.elapsed();
        let set = defs::load_texts(&b.definitions);
        let t2 = t.elapsed();
        let bundle = character::bundle_baked(&set, Default::default(), b).unwrap();
        let t3 = t.elapsed();
        let _d = zoa_animation::runtime::CharacterDefinition::new(&bundle, Default::default()).unwrap();
        let t4 = t.elapsed();
        let f = Instant::now();
        let _ = zoa_animation::load(zoa_test_support::paths::fixture("defs/humanoid")).unwrap();
        eprintln!("read {t1:?} texts {t2:?} bundle {t3:?} compile {t4:?}; folder {:?}", f.elapsed());
    }
}
