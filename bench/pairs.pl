#!/usr/bin/perl
# bench/pairs.pl N A... -- B...: runs command A, then command B, N times, interleaved (each pair
# in the same minutes: the guest's pace cancels in their ratio); prints "a_ms b_ms a/b" a pair.
# Each is timed around its fork, exec and wait (no shell), its output thrown away.
use strict;
use warnings;
use Time::HiRes qw(time);

my $n = shift @ARGV;
my @a;
push @a, shift @ARGV while @ARGV && $ARGV[0] ne '--';
shift @ARGV;
my @b = @ARGV;
die "usage: pairs.pl N A... -- B...\n" unless $n && @a && @b;

sub timed {
	my $t0 = time;
	my $pid = fork // die "fork: $!\n";
	if ($pid == 0) {
		open STDOUT, '>', '/dev/null';
		open STDERR, '>', '/dev/null';
		exec @_ or exit 127;
	}
	waitpid $pid, 0;
	die "'@_' failed\n" if $?;
	return (time - $t0) * 1000;
}

for (1 .. $n) {
	my $x = timed(@a);
	my $y = timed(@b);
	printf "%.3f %.3f %.4f\n", $x, $y, $x / $y;
}
