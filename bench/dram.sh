# bench/dram.sh: make bench's DRAM triad references, sourced by bench/bench.sh (B, R, m, lk: its
# temp dir, its rot command, what bench/machine.lua says, likwid-bench's widest stream kernel or
# empty): a
# STREAM-convention triad (bench/triad.c) and likwid-bench, at the size where rot's DRAM triad
# ceiling is read, in rounds before, between and after the two peaks runs (dram_round), then the
# three side by side with a verdict (dram_report). Every reference holds rot's measuring lock
# (locked: no other rot measures meanwhile) and has its arrays on transparent huge pages, as rot's
# pool has a kernel's (core/pool.c): bench/triad.c asks for them itself, likwid-bench through
# glibc's malloc (glibc.malloc.hugetlb=1, glibc 2.35 and later). A 4 KiB-page run of the
# STREAM-convention triad a round shows what the page size alone is worth.
tri="" trin=""
cc -O3 -march=native -fopenmp -o "$B/triad" bench/triad.c 2>/dev/null && tri="$B/triad"
cc -O2 -fno-tree-vectorize -fopenmp -o "$B/triadn" bench/triad.c 2>/dev/null && trin="$B/triadn"
THP=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
LIBC=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ split($2, v, "."); print v[1] * 1000 + v[2] }')
: >"$B/dram"
dram_r=1

# dram_stream KEY THREADS PROGRAM PAGES: its fastest pass as "KEY_THREADS GB/s", and its mean
# pass as "KEYmean_THREADS GB/s"
dram_stream() {
	[ -n "$3" ] && locked env OMP_NUM_THREADS="$2" OMP_PROC_BIND=true OMP_PLACES=cores "$3" "$(m "dram_kib_$2")" 10 "$4" 2>/dev/null |
		awk -v k="$1" -v t="$2" '$1 == "best_gbs" { print k "_" t, $2 } $1 == "mean_gbs" { print k "mean_" t, $2 }'
}
# dram_lk KEY THREADS KERNEL: likwid-bench's run of 4 iterations a thread (its figure the mean
# over them) as "KEY_THREADS GB/s": its default run (iterations calibrated on one thread first)
# scattered most, at 2 threads 0.60-1.04 of such runs in the same rounds here (1 thread 0.99-1.03)
dram_lk() {
	[ -n "$lk" ] && locked env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 likwid-bench -t "$3" -i 4 -w "S0:$(m "dram_kib_$2")kB:$2" 2>/dev/null |
		awk -v k="$1_$2" '/^MByte\/s/ { print k, $2 / 1000 }'
}
# a round, per thread count: both builds of the STREAM-convention triad twice (a process's pages
# can land in a slower placement than the next one's, and rot's ceiling is the best of several
# processes' rounds); likwid-bench's widest kernel twice (the neighbours here come in phases of
# seconds) and its scalar "stream" once (narrow code can stream more from DRAM, as rot's
# ceilings take the faster of two codes); rot's own DRAM triad point as the peaks measure it
# (bench/dram.lua: in the references' minutes, where the ceiling is the best of the peaks' own);
# and the triad on 4 KiB pages. "KEY GB/s round" lines in $B/dram.
dram_round() {
	for t in 1 $(m cpus); do
		dram_stream stream "$t" "$tri" thp
		dram_lk lk "$t" "$lk"
		$R -progress=never run bench/dram.lua "$t" "$(m "dram_kib_$t")" 2>/dev/null
		dram_stream stream "$t" "$trin" thp
		dram_lk lk "$t" stream
		dram_stream page "$t" "$tri" 4k
		dram_stream stream "$t" "$tri" thp
		dram_lk lk "$t" "$lk"
		dram_stream stream "$t" "$trin" thp
		[ "$t" = "$(m cpus)" ] && break
	done | awk -v r="$dram_r" '{ print $0, r }' >>"$B/dram"
	dram_r=$((dram_r + 1))
}

# dram_report: per thread count, rot's DRAM triad ceiling of each peaks run (bench/ceilings.lua's
# lines in $B/p1 and $B/p2) beside each reference's best of the two rounds just before and after
# that run (the same minutes: the neighbours' phases last minutes), their ratios and the verdict
dram_report() {
	echo "transparent huge pages: ${THP:-unknown} (rot's pool and bench/triad.c ask for them with madvise, likwid-bench through glibc.malloc.hugetlb=1$([ "${LIBC:-0}" -ge 2035 ] || [ "$THP" != madvise ] || echo ", which only glibc 2.35 and later reads: its arrays are on 4 KiB pages here"))"
	for t in 1 $(m cpus); do
		awk -v t="$t" -v lk="${lk:-}" -v kib="$(m "dram_kib_$t")" -f bench/dram.awk "$B/p1" "$B/p2" "$B/dram"
		[ "$t" = "$(m cpus)" ] && break
	done
}
