"""The dependence probe's perturbation as data, shared by the judge (which draws one
per grade, see ``grader.judge.request``) and the child (which applies it, see
``child.perturb``). No JAX here: the judge's process imports this."""
from __future__ import annotations

# In the order the judge sends them: the factor a transform's result is multiplied by,
# the shift added to the arguments a gradient differentiates, and the frequency and
# phase of the lane pattern (a vmap's lane i is multiplied by
# 1 + LANE_AMPLITUDE * cos(i * frequency + phase)), and the passes added to the trip
# count of a fori_loop the probe lengthens (a whole number, sent as a float).
PARAMS = ("factor", "shift", "lane_frequency", "lane_phase", "extra_passes")
NEUTRAL = (1.0, 0.0, 0.0, 0.0, 0.0)  # changes nothing
LANE_AMPLITUDE = 0.3  # lane factors lie in [0.7, 1.3]
