"""What every long run stands on: time budgets, memory ceilings, Ctrl-C that is
never lost, and one writer per output."""
