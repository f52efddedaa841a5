"""Measurement: question files, retrieval and answer evaluation, and the benchmarks whose numbers live
in docs/EVALUATION.md and docs/BENCHMARKS.md (never in timed tests)."""
