echo "known bug 42"
echo EXPECTED_FAIL
