"""The evaluation harness: ``mscsp bench`` (estimators on positions) and ``mscsp
play`` (players on seeded games), their results files, corpora and plots."""
