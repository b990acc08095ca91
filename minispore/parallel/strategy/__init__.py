"""Parallel strategies: the checks that turn an operator's strategy into its device matrix and
layouts (check), and strategy checkpoints that save a compile's choices and pin a later one's
(ckpt). The choosers -- propagation.py, search.py -- sit above the sharding rules, beside them."""
