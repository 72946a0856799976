echo started
sleep 60
echo never
