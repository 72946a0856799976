use Test::More;
ok(1, 'alpha');
subtest 'group' => sub { plan tests => 2; ok(1, 'inner one'); ok(1, 'inner two'); };
TODO: { local $TODO = "surprise"; ok(1, 'todo passes'); }
done_testing;
