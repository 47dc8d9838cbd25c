"""Command-line model counters of mscsp's own, for the ``external:COMMAND`` backend.

No #SAT counter installs as a program from the registries mscsp uses (apt ships none;
the PyPI counters are libraries), so :mod:`mscsp.counters.mcc` turns an in-process one
(Ganak or D4) into a program that reads and answers in the Model Counting Competition's
format, as a real counter binary does.
"""
