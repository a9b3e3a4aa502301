//! Per-instance parameter values and condition tests.
//!
//! Values are stored in one `Vec` sized from the definition at construction;
//! setting and testing never allocate. Setters check the kind and return
//! `false` on a mismatch or an out-of-range index instead of panicking, so a
//! stale binding cannot crash a frame.

use zoa_anim_core::graph::{Condition, ConditionTest, GraphParameter, ParameterDefault, ParameterIndex};

/// One parameter's current value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    /// A float.
    Float(f32),
    /// An int.
    Int(i32),
    /// A bool.
    Bool(bool),
    /// A trigger: `true` while set; consumed by the transition it fires.
    Trigger(bool),
}

impl ParamValue {
    /// The starting value of a parameter.
    #[must_use]
    pub fn from_default(d: ParameterDefault) -> ParamValue {
        match d {
            ParameterDefault::Float(v) => ParamValue::Float(v),
            ParameterDefault::Int(v) => ParamValue::Int(v),
            ParameterDefault::Bool(v) => ParamValue::Bool(v),
            ParameterDefault::Trigger => ParamValue::Trigger(false),
        }
    }

    /// The value as a number (floats and ints; `None` for bools and triggers).
    #[must_use]
    pub fn as_number(self) -> Option<f32> {
        match self {
            ParamValue::Float(v) => Some(v),
            ParamValue::Int(v) => Some(v as f32),
            _ => None,
        }
    }
}

/// The parameter values of one instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameters {
    values: Vec<ParamValue>,
}

impl Parameters {
    /// Prefetching for a crowd (see [`crate::pose::simd::prefetch`]).
    pub(super) fn prefetch(&self) {
        crate::pose::simd::prefetch(&self.values, usize::MAX);
    }
    /// Every parameter at its default.
    #[must_use]
    pub fn from_definitions(params: &[GraphParameter]) -> Parameters {
        Parameters { values: params.iter().map(|p| ParamValue::from_default(p.default)).collect() }
    }

    /// Resets every parameter to its default (no allocation).
    pub fn reset(&mut self, params: &[GraphParameter]) {
        for (v, p) in self.values.iter_mut().zip(params) {
            *v = ParamValue::from_default(p.default);
        }
    }

    /// Every value, in parameter order.
    #[must_use]
    pub fn values(&self) -> &[ParamValue] {
        &self.values
    }

    /// The value of parameter `i`.
    #[must_use]
    pub fn get(&self, i: ParameterIndex) -> Option<ParamValue> {
        self.values.get(i.index()).copied()
    }

    /// Sets a float parameter; `false` when `i` is out of range or not a float.
    pub fn set_float(&mut self, i: ParameterIndex, value: f32) -> bool {
        match self.values.get_mut(i.index()) {
            Some(ParamValue::Float(v)) if value.is_finite() => {
                *v = value;
                true
            }
            _ => false,
        }
    }

    /// Sets an int parameter; `false` when `i` is out of range or not an int.
    pub fn set_int(&mut self, i: ParameterIndex, value: i32) -> bool {
        match self.values.get_mut(i.index()) {
            Some(ParamValue::Int(v)) => {
                *v = value;
                true
            }
            _ => false,
        }
    }

    /// Sets a bool parameter; `false` when `i` is out of range or not a bool.
    pub fn set_bool(&mut self, i: ParameterIndex, value: bool) -> bool {
        match self.values.get_mut(i.index()) {
            Some(ParamValue::Bool(v)) => {
                *v = value;
                true
            }
            _ => false,
        }
    }

    /// Sets (`true`) or resets (`false`) a trigger; `false` when `i` is out of
    /// range or not a trigger.
    pub fn set_trigger(&mut self, i: ParameterIndex, set: bool) -> bool {
        match self.values.get_mut(i.index()) {
            Some(ParamValue::Trigger(v)) => {
                *v = set;
                true
            }
            _ => false,
        }
    }

    /// A number parameter as `f32` (ints convert); 0 for anything else.
    pub fn number(&self, i: ParameterIndex) -> f32 {
        self.get(i).and_then(ParamValue::as_number).unwrap_or(0.0)
    }

    /// Whether one condition holds: numbers compare with the
    /// constant (an int parameter compared with a float constant converts to
    /// `f32`, a float parameter compared with an int constant too); `is true`
    /// / `is false` test bools; a trigger condition holds while the trigger is
    /// set. A test of the wrong kind does not hold.
    #[must_use]
    pub fn holds(&self, c: &Condition) -> bool {
        let Some(v) = self.get(c.parameter) else { return false };
        match (c.test, v) {
            (ConditionTest::CompareFloat(op, k), ParamValue::Float(x)) => op.compare(x, k),
            (ConditionTest::CompareFloat(op, k), ParamValue::Int(x)) => op.compare(x as f32, k),
            (ConditionTest::CompareInt(op, k), ParamValue::Int(x)) => op.compare(x, k),
            (ConditionTest::CompareInt(op, k), ParamValue::Float(x)) => op.compare(x, k as f32),
            (ConditionTest::IsTrue, ParamValue::Bool(b)) => b,
            (ConditionTest::IsFalse, ParamValue::Bool(b)) => !b,
            (ConditionTest::Triggered, ParamValue::Trigger(t)) => t,
            _ => false,
        }
    }

    /// Whether every condition holds (AND; an empty list holds).
    #[must_use]
    pub fn all_hold(&self, conditions: &[Condition]) -> bool {
        conditions.iter().all(|c| self.holds(c))
    }

    /// Resets every trigger the conditions test (called when their transition fires).
    pub fn consume_triggers(&mut self, conditions: &[Condition]) {
        for c in conditions {
            if c.test == ConditionTest::Triggered {
                self.set_trigger(c.parameter, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zoa_anim_core::graph::CompareOp;

    fn params() -> Parameters {
        let p = |name: &str, default| GraphParameter { name: name.into(), default };
        Parameters::from_definitions(&[
            p("speed", ParameterDefault::Float(0.5)),
            p("ammo", ParameterDefault::Int(3)),
            p("grounded", ParameterDefault::Bool(true)),
            p("jump", ParameterDefault::Trigger),
        ])
    }

    fn c(i: u16, test: ConditionTest) -> Condition {
        Condition { parameter: ParameterIndex(i), test }
    }

    #[test]
    fn conditions_follow_their_test() {
        let mut p = params();
        assert!(p.holds(&c(0, ConditionTest::CompareFloat(CompareOp::Gt, 0.1))));
        assert!(!p.holds(&c(0, ConditionTest::CompareFloat(CompareOp::Ge, 0.6))));
        assert!(p.holds(&c(1, ConditionTest::CompareInt(CompareOp::Eq, 3))));
        assert!(p.holds(&c(1, ConditionTest::CompareFloat(CompareOp::Lt, 3.5))));
        assert!(p.holds(&c(2, ConditionTest::IsTrue)));
        assert!(!p.holds(&c(2, ConditionTest::IsFalse)));
        assert!(!p.holds(&c(3, ConditionTest::Triggered)));
        assert!(!p.holds(&c(2, ConditionTest::Triggered)), "wrong kind never holds");
        assert!(!p.holds(&c(9, ConditionTest::IsTrue)), "out of range never holds");
        assert!(p.set_trigger(ParameterIndex(3), true));
        let conds = [c(3, ConditionTest::Triggered), c(2, ConditionTest::IsTrue)];
        assert!(p.all_hold(&conds));
        p.consume_triggers(&conds);
        assert!(!p.all_hold(&conds));
        assert!(p.all_hold(&[]));
    }

    #[test]
    fn setters_check_kind_and_range() {
        let mut p = params();
        assert!(!p.set_float(ParameterIndex(1), 1.0));
        assert!(!p.set_int(ParameterIndex(0), 1));
        assert!(!p.set_bool(ParameterIndex(3), true));
        assert!(!p.set_trigger(ParameterIndex(2), true));
        assert!(!p.set_float(ParameterIndex(7), 1.0));
        assert!(!p.set_float(ParameterIndex(0), f32::NAN), "non-finite floats are refused");
        assert!(p.set_int(ParameterIndex(1), -2));
        assert_eq!(p.number(ParameterIndex(1)), -2.0);
    }
}
