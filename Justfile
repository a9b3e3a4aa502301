# Front doors. Every recipe is one line; CI runs .ci/run, not this file.

# Run every test in the workspace (the README's test command).
test:
    cargo test --workspace

# Format check and clippy with warnings as errors.
lint:
    cargo fmt --all --check && cargo clippy --workspace --all-targets -- -D warnings

# All benchmarks (divan).
bench:
    cargo bench --workspace

# Review pending insta snapshots.
snap:
    cargo insta review

# Fail if a crate has a dependency not in scripts/layering-allow.txt or reaches past its layer.
layering:
    bash scripts/check-layering.sh
