#!/usr/bin/perl
# tests/harness.pl: make test's runner (TAP::Harness, prove's engine): the tests that only
# compile and check (unit tests, PTX, builds) two at a time, then every test that measures alone.
# usage: perl tests/harness.pl [-j N] TEST...  (the compile-only ones are those of @PAR_GLOBS)
use strict;
use warnings;
use TAP::Harness;

# Tests that never time anything: running two at once costs them nothing but the CPU they
# share. Every other test measures, and a neighbour would be noise in its numbers.
my @PAR_GLOBS = ('build/tests/*.t', 'tests/structure.t', 'tests/lua.t', 'tests/levels.t', 'tests/ceilings.t',
	'tests/execute.t', 'tests/history.t', 'tests/gpu.t', 'tests/ptx-broken.t', 'tests/e2e/build.t', 'tests/e2e/build-gpu.t');

my $jobs = 2;
if (@ARGV >= 2 && $ARGV[0] eq '-j') {
	shift @ARGV;
	$jobs = shift @ARGV;
}
my $harness = TAP::Harness->new({
	exec  => [],
	jobs  => $jobs,
	timer => 1,
	rules => { seq => [ { par => [@PAR_GLOBS] }, { seq => '**' } ] },
});
my $agg = $harness->runtests(@ARGV);
exit($agg->all_passed ? 0 : 1);
