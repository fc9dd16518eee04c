# bench/dram.awk: dram_report's lines for one thread count t (bench/dram.sh): rot's DRAM triad
# ceiling of each peaks run (the first two files: bench/ceilings.lua's "key value" lines) beside
# each reference's best of the two rounds just before and after that run (the third file:
# "KEY_t GB/s round" lines), their ratios and the verdict. lk: likwid-bench's widest kernel, or
# empty; kib: the size the references ran at.
FILENAME == ARGV[1] || FILENAME == ARGV[2] {
	run = FILENAME == ARGV[1] ? 1 : 2
	if ($1 == "dram_" t) rot[run] = $2
	if ($1 == "dramat_" t) at[run] = $2
	if ($1 == "dramnote_" t) { note[run] = $2; gsub(/_/, " ", note[run]); if (match($2, /spread_[0-9.]+/)) sp[run] = substr($2, RSTART + 7, RLENGTH - 7) / 100 }
	next
}
{
	k = $1
	if (!sub("_" t "$", "", k)) next
	for (run = 1; run <= 2; run++)
		if (($NF == run || $NF == run + 1) && $2 > v[k, run]) v[k, run] = $2
	if ($2 > rb[k, $NF]) rb[k, $NF] = $2
	if ($NF > rounds) rounds = $NF
}
# how far a reference's best rounds lie apart (the largest over the smallest, less 1), 0 with one
function drift(k,   i, lo, hi) {
	for (i = 1; i <= rounds; i++) if (rb[k, i] > 0) { if (!lo || rb[k, i] < lo) lo = rb[k, i]; if (rb[k, i] > hi) hi = rb[k, i] }
	return lo > 0 ? hi / lo - 1 : 0
}
function r(a, b) { return a > 0 && b > 0 ? a / b : 0 }
function in3(x) { return x >= 0.97 && x <= 1.03 }
function f(x) { return x > 0 ? sprintf("%.3f", x) : "-" }
function g(x) { return x > 0 ? sprintf("%.2f", x) : "-" }
function gib(b) { return sprintf("%.2f GiB", b / 2^30) }
END {
	printf "DRAM triad, %s, at %s (where rot's DRAM ceiling is read), runs 1 and 2, each reference the best of the rounds just before and after its run:\n", t == 1 ? "1 thread" : t " threads", gib(kib * 1024)
	for (run = 1; run <= 2; run++) {
		s[run] = r(rot[run], v["stream", run]); l[run] = r(rot[run], v["lk", run]); q[run] = r(v["lk", run], v["stream", run])
		qm[run] = r(v["lk", run], v["streammean", run]); pg[run] = r(v["page", run], v["stream", run])
		ps[run] = r(v["rot", run], v["stream", run]); pl[run] = r(v["rot", run], v["lk", run])
		if (at[run] && at[run] != kib * 1024) moved = moved sprintf("; run %d read it at %s", run, gib(at[run]))
	}
	apart = rot[1] > 0 && rot[2] > 0 ? sprintf("%.1f%%", (rot[1] > rot[2] ? rot[1] / rot[2] : rot[2] / rot[1]) * 100 - 100) : "-"
	printf "  rot's ceiling %s, %s GB/s (%s apart, target within 5%%; run 1 %s, run 2 %s%s), the STREAM-convention triad %s, %s GB/s (bench/triad.c, the fastest of 10 passes, each of 2 builds twice a round)", g(rot[1]), g(rot[2]), apart, note[1], note[2], moved, g(v["stream", 1]), g(v["stream", 2])
	if (lk != "") printf ", likwid-bench %s, %s GB/s (%s twice and stream once a round, each run the mean of 4 passes)", g(v["lk", 1]), g(v["lk", 2]), lk
	printf ", rot's own triad point there in the same rounds %s, %s GB/s (bench/dram.lua)", g(v["rot", 1]), g(v["rot", 2])
	printf ": rot over STREAM %s, %s", f(s[1]), f(s[2])
	if (lk != "") printf ", over likwid-bench %s, %s", f(l[1]), f(l[2])
	printf " (target 0.97-1.03)\n"
	ms = drift("stream"); ml = lk != "" ? drift("lk") : 0
	# the machine moved: between the references' rounds, or under a peaks run's own rounds (its
	# ceiling's spread: how far its third best round lies below its best), by more than the target
	for (run = 1; run <= 2; run++) if (sp[run] > 0.03) own_moved = own_moved sprintf("%srun %d's %.1f%%", own_moved ? ", " : "", run, sp[run] * 100)
	noisy = ms > 0.03 || ml > 0.03 || own_moved != ""
	refs = lk != "" ? "both references" : "the STREAM-convention triad (likwid-bench is not installed)"
	within = in3(s[1]) && in3(s[2]) && (lk == "" || (in3(l[1]) && in3(l[2])))
	own = sprintf("rot's own point in the references' rounds over STREAM %s, %s%s", f(ps[1]), f(ps[2]), (lk != "" ? sprintf(", over likwid-bench %s, %s", f(pl[1]), f(pl[2])) : ""))
	if (noisy) {
		printf "  verdict: UNDECIDABLE, not a pass: the machine moved by more than the target's 3%%: "
		if (ms > 0.03 || ml > 0.03) printf "the references' best rounds (before, between and after the peaks runs) lie %.1f%% apart for the STREAM-convention triad%s%s", ms * 100, lk != "" ? sprintf(", %.1f%% for likwid-bench", ml * 100) : "", own_moved != "" ? "; " : ""
		if (own_moved != "") printf "rot's ceiling's own rounds spread by %s", own_moved
		printf "; the ratios lie %s 0.97-1.03 of %s, which says nothing here; %s\n", within ? "within" : "beyond", refs, own
	} else if (within) printf "  verdict: within 0.97-1.03 of %s in both runs\n", refs
	else if (lk != "" && !(in3(q[1]) && in3(q[2]))) {
		printf "  verdict: not within 0.97-1.03 of both, and the references disagree with each other: likwid-bench over the STREAM-convention triad %s, %s", f(q[1]), f(q[2])
		if (in3(qm[1]) && in3(qm[2])) printf ", over STREAM's mean pass %s, %s (likwid-bench reports a mean over its run, STREAM and rot the fastest pass: here the passes of a run differ by more than 3 %%)", f(qm[1]), f(qm[2])
		else printf ", over STREAM's mean pass %s, %s (not their conventions: the two programs stream differently here)", f(qm[1]), f(qm[2])
		printf "; rot within 0.97-1.03 of STREAM: %s; of likwid-bench: %s\n", in3(s[1]) && in3(s[2]) ? "yes" : "no", in3(l[1]) && in3(l[2]) ? "yes" : "no"
	} else {
		agree = lk != "" ? sprintf(", where the references agree with each other (likwid-bench over STREAM %s, %s)", f(q[1]), f(q[2])) : ""
		outs = !(in3(s[1]) && in3(s[2])); outl = lk != "" && !(in3(l[1]) && in3(l[2]))
		above = outs ? s[1] > 1.03 || s[2] > 1.03 : l[1] > 1.03 || l[2] > 1.03
		which = outs && outl ? "both references" : (outs ? "the STREAM-convention triad" : "likwid-bench")
		printf "  verdict: OUTSIDE 0.97-1.03 of %s%s: rot's DRAM ceiling is %s", which, agree, (above ? "higher" : "lower")
		same = in3(ps[1]) && in3(ps[2]) && (lk == "" || (in3(pl[1]) && in3(pl[2])))
		printf "; %s", own
		if (same) printf " (within 0.97-1.03: kernel, pages and convention agree; the ceiling's rounds ran in a %s phase of the machine than the references')\n", (above ? "faster" : "slower")
		else printf " (beyond 0.97-1.03 in the same minutes too: rot's triad streams %s than theirs here, not only in its own rounds)\n", (above ? "faster" : "slower")
	}
	printf "  on 4 KiB pages (MADV_NOHUGEPAGE) the STREAM-convention triad streams %s, %s of its huge-page figure in the same rounds: what a program whose arrays are not on huge pages gets here\n", f(pg[1]), f(pg[2])
}
