echo "==== run-regress-epsilon ===="
echo FAILED
echo about to fail >&2
exit 3
