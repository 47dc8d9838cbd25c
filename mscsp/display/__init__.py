"""Pictures of a position's odds: in a terminal, and as heat-map colours and PNGs."""
