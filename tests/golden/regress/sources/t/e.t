use Test::More tests => 2;
ok(1, '<b>bold</b> & "quoted"');
diag("a <diagnostic> line");
ok(1, 'last');
