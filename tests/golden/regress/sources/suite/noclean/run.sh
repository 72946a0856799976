echo fine
