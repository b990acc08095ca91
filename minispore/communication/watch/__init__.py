"""Watching the world: the arrival table every MPI call publishes in, the watchdog thread that
judges waits, the reports it prints, and the exit handshake of a rank leaving its script.
Imports nothing of minispore.communication but its state."""
