"""The instance formats of the solver competitions, below every backend that writes
them: a component as a cell system (:mod:`~mscsp.formats.instances`), "exactly k of these"
in CNF (:mod:`~mscsp.formats.cnf`), DIMACS CNF as the Model Counting Competition reads it
(:mod:`~mscsp.formats.dimacs`), OPB, MiniZinc data and CPLEX LP."""
