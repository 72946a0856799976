perfwalk.logs(4,0,{"ids":[270,287],"len":[21,21],"size":[13,13],"total":[13,13],"cut":[0,0],"large":{},"z":"eJxLKs3MKVEozkxJVXDkAgAiYQRReJxLKs3MKVEozkxJVXDiAgAiYwRS"});
