//! Tests of the leader-activation rules (filled below).
