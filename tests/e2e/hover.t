#!/bin/sh
# Points you can hover: the roofline, staircase and compare SVGs opened in a real headless
# browser (Debian's chromium, installed here when run as root, else one SKIP line), each
# point's mousemove dispatched through the DOM, and its description read back from the popover
# gnuplot's embedded script shows. The SVG must work offline and alone.
. "$(dirname "$0")/lib.sh"

. "$ROOT/tests/optional.sh"
browser() { for b in chromium chromium-browser; do command -v "$b" && return 0; done; return 1; }
browser >/dev/null || optional_install chromium chromium
if ! B=$(browser); then
	echo "1..0 # SKIP chromium is not installed and could not be installed here (sudo apt-get install chromium)"
	exit 0
fi

S="$T/study"
mkdir -p "$S/kernels"
cp "$ROOT/tests/fixtures/iterate/scale.c" "$S/kernels/"
cat >"$S/study.lua" <<'L'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 1024, 4096 }) }, function(p)
  return { kernel = "scale", params = { n = p.n }, flags = "-O2" }
end)
r:table()
r:roofline { name = "study" }
r:staircase { name = "study-bw" }
L
rot measure "$S/study.lua" >"$T/o" 2>&1
ok $? "a study is measured, its roofline and staircase drawn"
mkdir -p "$T/first" && cp "$OUT/study.svg" "$T/first/study.svg"
# the rerun under peaks measured again (every bandwidth ceiling 10% higher): all from the cache,
# other bounds, so a record of its own (an identical rerun leaves none)
awk -F, -v OFS=, '$2 == "bandwidth" { $4 = $4 * 1.1 } 1' "$ROOT/tests/fixtures/peaks.csv" >"$T/peaks2.csv"
rot measure "$S/study.lua" -peaksFile="$T/peaks2.csv" >"$T/o" 2>&1 && rot compare "$S/study.lua" 1 2 >"$T/c" 2>&1
ok $? "and compared with its cached rerun under other peaks"

# the probe: after gnuplot's script has set the SVG up, hover every point (a mousemove on its
# element) and write what the popover shows into the DOM, where --dump-dom prints it
cat >"$T/probe.js" <<'J'
<script type="text/javascript"><![CDATA[
var rotHover = document.querySelectorAll('g[onmousemove^="gnuplot_svg.showHypertext"]');
window.addEventListener('load', function () { setTimeout(function () {
  var seen = [], box = document.getElementById('hypertext');
  for (var i = 0; i < rotHover.length; i++) {
    var r = rotHover[i].getBoundingClientRect();
    rotHover[i].dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 }));
    var lines = [];
    box.querySelectorAll('tspan').forEach(function (t) { lines.push(t.textContent); });
    seen.push((box.getAttribute('visibility') === 'visible' ? 'shown: ' : 'hidden: ') + lines.join(' | '));
  }
  var out = document.createElementNS('http://www.w3.org/2000/svg', 'text');
  out.setAttribute('id', 'rot-hover-probe');
  out.textContent = 'HOVERED ' + rotHover.length + ' :: ' + seen.join(' :: ');
  document.documentElement.appendChild(out);
}, 0); });
]]></script>
J
hovered() { # hovered NAME [DIR]: the probe's line for DIR/NAME.svg (DIR: the outputs), opened from a copy
	mkdir -p "$T/web"
	awk -v probe="$T/probe.js" '/^<\/svg>/ { while ((getline l < probe) > 0) print l } { print }' "${2:-$OUT}/$1.svg" >"$T/web/$1.svg"
	timeout 120 "$B" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
		--user-data-dir="$T/profile-$1" --virtual-time-budget=5000 --dump-dom "file://$T/web/$1.svg" 2>"$T/$1.err" |
		grep -o 'HOVERED [^<]*' >"$T/$1.dom"
}
hovered study "$T/first"
ok $? "the roofline opens in $B"
contains "$T/study.dom" "^HOVERED 2 :: shown: kernel scale n=1024 | flags -O2 | time [0-9.]* [nu]s, [0-9.]* GB/s, [0-9.]* GFLOP/s | [0-9]*% of bound (L[0-9] bw) | spread [0-9.]*%, [0-9]* runs in [0-9]* rounds[^|]* | measured" \
	"hovering a roofline point shows its kernel, parameters, flags, time, rates, bound, limiter, spread and source"
contains "$T/study.dom" ":: shown: kernel scale n=4096 " "every point has its own text"
hovered study-bw
contains "$T/study-bw.dom" "^HOVERED 2 :: shown: kernel scale n=1024 " "so do the staircase's points"
hovered study-compare
contains "$T/study-compare.dom" "^HOVERED 4 :: shown: n=1024 | A (run 1): same, B/A 1.000 | noise: identical builds: any difference is noise | kernel scale, flags -O2 | time " \
	"and the compare plot's, A and B, with the verdict and the noise it was judged against"
contains "$T/study-compare.dom" "shown: n=1024 | B (run 2): same.* | from the cache" "B's from the cache"
! grep -q -e 'href="http' -e "href='http" -e 'src="http' "$OUT/study.svg"
ok $? "the SVG loads nothing from elsewhere (its script is embedded)"
grep -q "<script" "$OUT/study.svg"
ok $? "and carries its script"
done_testing
