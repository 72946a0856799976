echo "==== run-regress-alpha ===="
echo ok
echo "==== run-regress-beta ===="
echo "beta: wrong answer"
echo FAILED
echo "==== run-regress-delta ===="
echo "delta: crashed"
echo FAILED
