use Test::More skip_all => 'no database';
