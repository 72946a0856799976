"""A lab on one machine: three network namespaces ``src`` — ``dut`` — ``sink`` joined
by veth pairs, each with its own sshd, hostname, /root and /tmp, reached by ssh
through an ssh_config of their own. See docs/lab.md."""

from perfwalk.lab.build import LabStatus, NamespaceStatus, lab_down, lab_status, lab_up
from perfwalk.lab.plan import DEFAULT_NAME, LabPlan, lab_plan

__all__ = [
    "DEFAULT_NAME",
    "LabPlan",
    "LabStatus",
    "NamespaceStatus",
    "lab_down",
    "lab_plan",
    "lab_status",
    "lab_up",
]
