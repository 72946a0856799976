echo "needs a network"
echo SKIPPED
