"""What every long run stands on, one runtime under every command.

Time budgets (:mod:`~mscsp.runtime.deadline`); isolated runs, a function or a program in a
child under a wall-clock limit and a resident-memory limit, killed with its process group
and answered by one typed outcome with its CPU time and peak memory
(:mod:`~mscsp.runtime.isolated`, the persistent :mod:`~mscsp.runtime.worker`,
:mod:`~mscsp.runtime.child`, :mod:`~mscsp.runtime.resident`, :mod:`~mscsp.runtime.memlimit`);
one executor layer, local processes or Ray (:mod:`~mscsp.runtime.executors`); one resumable
log format (:mod:`~mscsp.runtime.runlog`); Ctrl-C that is never lost
(:mod:`~mscsp.runtime.interrupts`); and one writer per output (:mod:`~mscsp.runtime.outlock`).
"""
