#!/usr/bin/perl
# tests/harness.pl: make test's and make check's runner (TAP::Harness, prove's engine): the tests
# that judge no time two at a time, then every other test alone, each group in the order given.
# usage: perl tests/harness.pl [-j N] TEST|FOLDER...
# A test that judges no time says so itself: a line "judges no time" in its head comment (# in a
# shell test, -- in a Lua test; a C unit test build/tests/NAME.t in tests/unit/NAME.c's). A test
# without it may judge a time, and runs alone. A folder (tests/lua) stands for the Lua tests in
# it, each run by tests/lua/run.sh.
use strict;
use warnings;
use File::Basename qw(basename dirname);
use TAP::Harness;

my $here = dirname(__FILE__);

# The Lua tests in a folder: its files named after what they test, the path with dots for
# slashes (rot.machine.levels.lua, kernels.cpu.sum.lua), sorted; helpers have no dot (tap.lua).
sub lua_tests {
	my ($dir) = @_;
	opendir(my $dh, $dir) or die "harness.pl: cannot read $dir: $!\n";
	my @found = map { "$dir/$_" } grep { /^[^.]+\.[^\/]+\.lua$/ && -f "$dir/$_" } readdir $dh;
	closedir $dh;
	return sort @found;
}

# Whether a test declares that it judges no time: a line of its head comment (the lines up to
# the first that is no comment) that begins "judges no time". A compiled test's is its source's.
sub judges_no_time {
	my ($test) = @_;
	my $src = -B $test ? "$here/unit/" . basename($test, '.t') . '.c' : $test;
	open(my $fh, '<', $src) or return 0;
	while (my $line = <$fh>) {
		last unless $line =~ m{^\s*(?:#|--|/\*|\*|//)};
		return 1 if $line =~ m{^\s*(?:#|--|/\*|\*|//)\s*judges no time\b};
	}
	return 0;
}

my $jobs = 2;
if (@ARGV >= 2 && $ARGV[0] eq '-j') {
	shift @ARGV;
	$jobs = shift @ARGV;
}
my @tests = map { -d $_ ? lua_tests(s{/+$}{}r) : $_ } @ARGV;
# Running two at once costs a test that judges no time nothing but the CPU they share; any
# other test judges measured numbers or timeouts, and a neighbour would be noise in them.
my @par = map { (my $glob = $_) =~ s/([\\{}?*,])/\\$1/g; $glob } grep { judges_no_time($_) } @tests;
my $harness = TAP::Harness->new({
	exec  => sub { my (undef, $test) = @_; return $test =~ /\.lua$/ ? ['sh', "$here/lua/run.sh", $test] : [$test] },
	jobs  => $jobs,
	timer => 1,
	failures => 1, # a CI log shows each failed test
	comments => 1, # and what it printed about it ("# ..." lines)
	rules => { seq => [ { par => [@par] }, { seq => '**' } ] },
});
my $agg = $harness->runtests(@tests);
exit($agg->all_passed ? 0 : 1);
