use Test::More tests => 4;
ok(1, 'first');
ok(0, 'second');
SKIP: { skip "no network", 1; ok(1, 'net'); }
TODO: { local $TODO = "not yet"; ok(0, 'future'); }
