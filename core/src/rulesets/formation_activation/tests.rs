//! Tests of the formation-activation rules.
