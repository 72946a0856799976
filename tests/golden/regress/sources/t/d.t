use Test::More tests => 3;
ok(1, 'before');
die "boom\n";
