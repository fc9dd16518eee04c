#!/usr/bin/perl
# tests/harness.pl: make test's runner (TAP::Harness, prove's engine): the tests that judge no
# time (unit tests, PTX, builds, error paths) two at a time, then every test whose numbers count alone.
# usage: perl tests/harness.pl [-j N] TEST...  (the ones run two at a time are those of @PAR_GLOBS)
use strict;
use warnings;
use TAP::Harness;

# Tests that never judge a time: running two at once costs them nothing but the CPU they share.
# Every other test judges measured numbers or timeouts, and a neighbour would be noise in them.
my @PAR_GLOBS = ('build/tests/*.t', 'tests/structure.t', 'tests/lua.t', 'tests/levels.t', 'tests/ceilings.t',
	'tests/execute.t', 'tests/history.t', 'tests/verdicts.t', 'tests/gpu.t', 'tests/ptx-broken.t', 'tests/e2e/build.t', 'tests/e2e/build-gpu.t',
	# measuring, but asserting only what became of each point (messages, cache, counts), never a time
	'tests/e2e/robust.t', 'tests/e2e/kernels.t', 'tests/e2e/errors.t', 'tests/e2e/cli.t',
	'tests/e2e/deps.t', 'tests/e2e/gpu-verify.t', 'tests/e2e/models.t', 'tests/e2e/protocol.t', 'tests/e2e/apps.t',
	# the counting pass: counts are exact, whatever the machine is doing
	'tests/e2e/count.t');

my $jobs = 2;
if (@ARGV >= 2 && $ARGV[0] eq '-j') {
	shift @ARGV;
	$jobs = shift @ARGV;
}
my $harness = TAP::Harness->new({
	exec  => [],
	jobs  => $jobs,
	timer => 1,
	failures => 1, # a CI log shows each failed test
	comments => 1, # and what it printed about it ("# ..." lines)
	rules => { seq => [ { par => [@PAR_GLOBS] }, { seq => '**' } ] },
});
my $agg = $harness->runtests(@ARGV);
exit($agg->all_passed ? 0 : 1);
