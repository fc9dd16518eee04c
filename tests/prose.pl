#!/usr/bin/perl
# tests/prose.pl: how long the docs' sentences, paragraphs and table cells run, page by page.
# usage: perl tests/prose.pl [--check | --sentences | --limits] PAGE.md...
# Without --check it prints one line a page: sentences, their median and 90th-percentile length
# in words, the longest sentence, the longest paragraph in words and the longest table cell in
# characters. With --check it prints each page over a limit below, and exits 1 if any is. With
# --sentences it prints every sentence with its length, the longest first; --limits prints the
# limits.
#
# What counts: prose, that is paragraphs and list items. Code blocks, headings, pictures and
# tables are not sentences; a table's cells are measured in characters instead. An inline code
# span, a link's target and a bare URL are one word each, so a command line is one word.
# A sentence ends at . ! or ? before a space, but not after e.g., i.e., vs., etc., cf. or al.,
# nor after an ellipsis (...) that does not end in a fourth dot.
use strict;
use warnings;

# The limits tests/structure.t holds every page to.
# The pages sit well below them (run this script without --check for their figures): the limits
# leave a page room to grow, not room for a sentence nobody can hold.
my %limit = (
	median    => 20,  # a page's median sentence, in words
	p90       => 30,  # its 90th percentile
	sentence  => 40,  # any one sentence, unless allowed below
	paragraph => 120, # a paragraph or list item, in words
	cell      => 200, # a table cell, in characters as written
);

# Sentences allowed past the sentence limit, each with its reason in a comment above it: the page,
# then the sentence's first words as this script reads them (a code span reads CODE), e.g.
#   'docs/x.md' => ['The band is the 99 % prediction band of'],
# None is needed now.
my %allowed = ();

sub words {
	my ($s) = @_;
	return scalar grep { /[[:alnum:]]/ } split ' ', $s;
}

# A block's text as prose: code spans and URLs one word, links their text, emphasis dropped.
sub plain {
	my ($s) = @_;
	$s =~ s/``.*?``/CODE/g;
	$s =~ s/`[^`]*`/CODE/g;
	$s =~ s/!?\[([^\]]*)\]\([^)]*\)/$1/g;
	$s =~ s{\w+://\S+}{URL}g;
	$s =~ s/\*\*|__//g;
	$s =~ s/(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])//g;
	return $s;
}

sub sentences {
	my ($s) = @_;
	$s =~ s/\b(e\.g|i\.e|vs|etc|cf|al)\./$1<dot>/g;
	my @out = grep { /[[:alnum:]]/ } split /(?:(?<=[^.]\.)|(?<=\.\.\.\.)|(?<=[!?]))["')]?\s+(?=\S)/, $s;
	s/<dot>/./g for @out;
	return @out;
}

sub page {
	my ($file) = @_;
	open(my $fh, '<', $file) or die "prose.pl: cannot read $file: $!\n";
	my (@blocks, @cells, $block, $code);
	my $end = sub { push @blocks, $block if defined $block && $block =~ /\S/; undef $block; };
	while (my $line = <$fh>) {
		chomp $line;
		if ($line =~ /^\s*```/) { $end->(); $code = !$code; next; }
		next if $code;
		if ($line =~ /^\s*\|/) {
			$end->();
			next if $line =~ /^\s*\|[\s:|-]+\|?\s*$/;
			my @c = split /(?<!\\)\|/, $line;
			shift @c;
			push @cells, map { s/^\s+|\s+$//gr } @c;
			next;
		}
		if ($line =~ /^\s*$/ || $line =~ /^#/ || $line =~ /^!\[/ || $line =~ /^<!--/) { $end->(); next; }
		if ($line =~ /^\s*(?:[-*]|\d+\.)\s/) { $end->(); $line =~ s/^\s*(?:[-*]|\d+\.)\s+//; }
		$block = defined $block ? "$block $line" : $line;
	}
	$end->();
	close $fh;
	my (@len, @long, @all);
	my $para = 0;
	for my $b (@blocks) {
		my $p = plain($b);
		my $w = words($p);
		$para = $w if $w > $para;
		for my $s (sentences($p)) {
			my $n = words($s);
			push @len, $n;
			push @all, [$n, $s];
			push @long, [$n, $s] if $n > $limit{sentence};
		}
	}
	my @sorted = sort { $a <=> $b } @len;
	my $at = sub { my ($q) = @_; return 0 unless @sorted; my $i = int($q * @sorted + 0.999999) - 1; $sorted[$i < 0 ? 0 : $i] };
	my $cell = 0;
	for (@cells) { $cell = length if length > $cell; }
	return {
		sentences => scalar @len, median => $at->(0.5), p90 => $at->(0.9), longest => $sorted[-1] // 0,
		paragraph => $para, cell => $cell, long => \@long, all => \@all,
	};
}

my $mode = @ARGV && $ARGV[0] =~ /^--/ ? shift @ARGV : '';
my $check = $mode eq '--check';
if ($mode eq '--limits') {
	print "median sentence $limit{median} words, 90th percentile $limit{p90}, any sentence $limit{sentence}, "
		. "a paragraph $limit{paragraph}, a table cell $limit{cell} characters\n";
	exit 0;
}
if ($mode eq '--sentences') {
	for my $file (@ARGV) { printf "%s: %3d %s\n", $file, @$_ for sort { $b->[0] <=> $a->[0] } @{ page($file)->{all} }; }
	exit 0;
}
my $bad = 0;
printf "%-26s %9s %6s %4s %7s %9s %5s\n", 'page', 'sentences', 'median', 'p90', 'longest', 'paragraph', 'cell' unless $check;
for my $file (@ARGV) {
	my $p = page($file);
	unless ($check) {
		printf "%-26s %9d %6d %4d %7d %9d %5d\n", $file, @$p{qw(sentences median p90 longest paragraph cell)};
		next;
	}
	my @over;
	push @over, "median sentence $p->{median} words (at most $limit{median})" if $p->{median} > $limit{median};
	push @over, "90th-percentile sentence $p->{p90} words (at most $limit{p90})" if $p->{p90} > $limit{p90};
	push @over, "a paragraph of $p->{paragraph} words (at most $limit{paragraph})" if $p->{paragraph} > $limit{paragraph};
	push @over, "a table cell of $p->{cell} characters (at most $limit{cell})" if $p->{cell} > $limit{cell};
	for my $l (@{ $p->{long} }) {
		my ($n, $s) = @$l;
		next if grep { index($s, $_) == 0 } @{ $allowed{$file} // [] };
		push @over, "a sentence of $n words (at most $limit{sentence}): '" . join(' ', (split ' ', $s)[0 .. 7]) . " ...'";
	}
	print "$file: $_\n" for @over;
	$bad = 1 if @over;
}
exit $bad;
