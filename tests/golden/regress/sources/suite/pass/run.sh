echo all good
