"""What a checkout is made of before it runs: the quirks that hold there, its variants,
layout, environment, install and the facts of its build."""
