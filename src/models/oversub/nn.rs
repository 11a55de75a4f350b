//! STUB (replaced by the helper's MLP).
