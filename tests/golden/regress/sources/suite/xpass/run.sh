echo "==== run-regress-gamma ===="
echo UNEXPECTED_PASS
