use super::*;

const SPRINT_RIFLE: StateTagSet = StateTagSet::new(
    LocomotionTag::SPRINT,
    PostureTag::STANDING,
    CombatTag::ARMED_RIFLE.union(CombatTag::AIMING),
    InteractionTag::empty(),
    ReactionTag::empty(),
    MoodTag::ALERT,
);

#[test]
fn text_form_round_trips() {
    let text = "locomotion=sprint posture=standing combat=armed_rifle|aiming mood=alert";
    let parsed: StateTagSet = text.parse().unwrap();
    assert_eq!(parsed, SPRINT_RIFLE);
    assert_eq!(parsed.to_string(), text);
    assert_eq!(StateTagSet::EMPTY.to_string(), "any");
    assert_eq!(StateTagSet::parse("any").unwrap(), StateTagSet::EMPTY);
    assert_eq!(StateTagSet::parse("  ").unwrap(), StateTagSet::EMPTY);
    let camel: StateTagSet = "Combat=ArmedRifle|Aiming Locomotion=SPRINT".parse().unwrap();
    assert_eq!(camel.combat(), CombatTag::ARMED_RIFLE | CombatTag::AIMING);
    assert_eq!(camel.locomotion(), LocomotionTag::SPRINT);
}

#[test]
fn parse_errors_name_the_culprit_and_list_valid_names() {
    let err = StateTagSet::parse("locomotion=sprnt").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("`sprnt`") && msg.contains("sprint") && msg.contains("walk"), "{msg}");
    let err = StateTagSet::parse("locomotoin=sprint").unwrap_err();
    assert!(err.to_string().contains("posture"), "{err}");
    assert!(StateTagSet::parse("sprint").is_err());
    assert!(StateTagSet::parse("mood=calm mood=alert").is_err());
    assert!(StateTagSet::parse("mood=calm|").is_err());
}

#[test]
fn algebra() {
    let pattern = StateTagSet::EMPTY.with_locomotion(LocomotionTag::SPRINT);
    assert!(SPRINT_RIFLE.matches(&pattern));
    assert!(pattern.is_subset_of(&SPRINT_RIFLE));
    assert!(!SPRINT_RIFLE.is_subset_of(&pattern));
    assert_eq!(SPRINT_RIFLE.specificity(), 5);
    assert_eq!(SPRINT_RIFLE.without(StateDimension::Combat).specificity(), 3);
    assert_eq!(SPRINT_RIFLE.restrict_to(StateDimension::Combat).specificity(), 2);
    assert_eq!(pattern.union_with(&SPRINT_RIFLE), SPRINT_RIFLE);
    assert_eq!(
        SPRINT_RIFLE.changed_dimensions(&SPRINT_RIFLE.with_mood(MoodTag::CALM)),
        DimensionSet::EMPTY.with(StateDimension::Mood)
    );
    assert!(SPRINT_RIFLE.matches(&StateTagSet::EMPTY));
    assert_eq!(SPRINT_RIFLE.with_mask(StateDimension::Mood, u32::MAX).mood(), MoodTag::all());
}
