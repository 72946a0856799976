"""A drill's measuring: what it narrows, the first-parent line between its two ends
searched by measuring what the scheduler (:mod:`perfwalk.drill`) asks for, and the
culprit's profiles against its parent."""
