#!/usr/bin/env bash
# sessions.sh - the session commands driven as a user drives them:
# sessions, rerun, compare, export, and every kind of bad file.
# usage: tests/sessions.sh path/to/benchtop
set -u
BT=$1
T=$(mktemp -d /tmp/bt-sessions.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_STATE_HOME="$T/state"
S="$XDG_STATE_HOME/benchtop/sessions"
pass=0 failn=0

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; }

# expect_err NAME WANT_STATUS WANT_STDERR_LINE -- ARGS...: exit status and the one stderr line.
expect_err() {
	local name=$1 want_rc=$2 want_msg=$3; shift 4
	"$BT" "$@" >"$T/out" 2>"$T/err"; local rc=$?
	local lines; lines=$(wc -l <"$T/err")
	if [ "$rc" -ne "$want_rc" ]; then bad "$name" "exit $rc, wanted $want_rc: $(cat "$T/err")"; return; fi
	if [ "$lines" -ne 1 ]; then bad "$name" "stderr has $lines lines: $(cat "$T/err")"; return; fi
	if [ "$(cat "$T/err")" != "$want_msg" ]; then bad "$name" "stderr: $(cat "$T/err") wanted: $want_msg"; return; fi
	ok "$name"
}

# The newest recording in the default place.
newest() { ls -t "$S"/*.jsonl | head -1; }
count() { ls "$S"/*.jsonl 2>/dev/null | wc -l; }

# ---- sessions -----------------------------------------------------------
out=$("$BT" sessions); rc=$?
[ $rc -eq 0 ] && grep -q "^no recorded sessions in $S" <<<"$out" && ok "sessions: none yet" || bad "sessions: none yet" "rc=$rc $out"

"$BT" run null threads=1,2 ops=20000 reps=3 warmup=0 >/dev/null 2>"$T/err" || bad "run null" "$(cat "$T/err")"
A=$(newest)
"$BT" run pipeline threads=1,2 units=100 reps=3 warmup=0 >/dev/null 2>"$T/err" || bad "run pipeline" "$(cat "$T/err")"
P=$(newest)
[ "$(count)" -eq 2 ] && ok "two sessions recorded" || bad "two sessions recorded" "$(ls "$S")"

out=$("$BT" sessions)
head -1 <<<"$out" | grep -Eq '^TIME +WORKLOAD +PLAN +CELLS +STATUS +HOST +FILE$' && ok "sessions: header" || bad "sessions: header" "$out"
[ "$(wc -l <<<"$out")" -eq 3 ] && ok "sessions: one line each" || bad "sessions: one line each" "$out"
grep -Eq "^[0-9T:Z-]+ +null +threads=1,2 work=0 +2/2 +complete +[^ ]+ +$(basename "$A")$" <<<"$out" &&
	ok "sessions: null line (time, workload, plan, cells, status, host, file)" || bad "sessions: null line" "$out"
grep -q "pipeline .*$(basename "$P")" <<<"$out" && ok "sessions: pipeline line" || bad "sessions: pipeline line" "$out"
out=$("$BT" sessions --workload pipeline)
[ "$(wc -l <<<"$out")" -eq 2 ] && grep -q pipeline <<<"$out" && ! grep -q ' null ' <<<"$out" &&
	ok "sessions --workload" || bad "sessions --workload" "$out"
"$BT" sessions --format json >"$T/s.json" && python3 - "$T/s.json" "$A" <<'PY' && ok "sessions --format json" || bad "sessions --format json" "$(cat "$T/s.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d) == 2, d
n = [s for s in d if s["path"] == sys.argv[2]][0]
assert n["workload"] == "null" and n["cells"] == 2 and n["cells_done"] == 2, n
assert n["status"] == "complete" and n["readable"] is True and n["axes"] == "threads=1,2" and n["fixed"] == "work=0", n
assert d[0]["start_unix_ns"] >= d[1]["start_unix_ns"]
PY
mkdir "$T/other"
cp "$A" "$T/other/x.jsonl"
out=$("$BT" sessions --dir "$T/other")
[ "$(wc -l <<<"$out")" -eq 2 ] && grep -q 'x.jsonl' <<<"$out" && ok "sessions --dir" || bad "sessions --dir" "$out"
expect_err "sessions: bad format" 2 "benchtop: --format=csv: must be text or json" -- sessions --format csv
expect_err "sessions: bad argument" 2 "benchtop: sessions: unexpected argument rm (allowed: --workload NAME, --format text|json, --dir DIR)" -- sessions rm

# ---- show / export: the same numbers ------------------------------------
"$BT" show "$A" --format csv >"$T/show.csv" || bad "show csv"
"$BT" export "$A" --format csv >"$T/exp.csv" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && ok "export csv: exit 0" || bad "export csv" "rc=$rc $(cat "$T/err")"
python3 - "$A" "$T/exp.csv" <<'PY' && ok "export csv: one row per cell and rep, the recorded numbers exactly" || bad "export csv rows" "$(cat "$T/exp.csv")"
import csv, json, sys
reps = [json.loads(l) for l in open(sys.argv[1]) if '"type":"rep"' in l]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(reps) == 6, (len(rows), len(reps))
head = open(sys.argv[2]).readline().strip().split(",")
assert head[:5] == ["cell", "threads", "rep", "warmup", "ok"], head
for f in ["ops", "bytes", "errors", "wall_s", "user_s", "sys_s", "vcsw", "ivcsw", "ops_s",
          "bytes_s", "lat_every", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns", "lat_count"]:
    assert f in head, f
by = {(int(r["cell"]), int(r["rep"])): r for r in rows}
for r in reps:
    row = by[(r["cell"], r["rep"])]
    assert float(row["ops_s"]) == r["ops_s"], (row["ops_s"], r["ops_s"])
    assert float(row["wall_s"]) == r["wall_s"]
    assert int(row["ops"]) == r["ops"] == 20000
    assert row["threads"] == str(r["cell"] + 1)
    assert int(row["max_ns"]) == r["hist"]["max"]
PY
for fmt in markdown json; do
	"$BT" export "$A" --format $fmt >"$T/exp.$fmt" 2>"$T/err" || bad "export $fmt" "$(cat "$T/err")"
done
grep -q '^| threads' "$T/exp.markdown" && ok "export markdown: the results table" || bad "export markdown" "$(cat "$T/exp.markdown")"
python3 - "$T/exp.json" <<'PY' && ok "export json: the results table" || bad "export json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete" and len(d["cells"]) == 2
PY
"$BT" export "$A" --format markdown --out "$T/t.md" >"$T/out" 2>"$T/err"
[ -s "$T/t.md" ] && [ ! -s "$T/out" ] && grep -q '^| threads' "$T/t.md" && ok "export --out FILE" || bad "export --out FILE" "$(cat "$T/err")"
expect_err "export hgrm needs --out" 2 "benchtop: export --format hgrm writes one file per cell: give the directory with --out DIR" -- export "$A" --format hgrm
expect_err "export needs --format" 2 "benchtop: export: --format is required (markdown, csv, json or hgrm)" -- export "$A"
expect_err "export bad format" 2 "benchtop: --format=xml: must be one of markdown, csv, json, hgrm" -- export "$A" --format xml
"$BT" export "$P" --format hgrm --out "$T/hg/sub" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = "$T/hg/sub/cell-0-threads_1.hgrm
$T/hg/sub/cell-1-threads_2.hgrm" ] && head -1 "$T/hg/sub/cell-0-threads_1.hgrm" | grep -q 'Value *Percentile *TotalCount' &&
	grep -q '^#\[Max' "$T/hg/sub/cell-1-threads_2.hgrm"; then
	ok "export hgrm: one file per cell, paths printed"
else
	bad "export hgrm" "rc=$rc $(cat "$T/out" "$T/err")"
fi
"$BT" run null threads=1 ops=1000 reps=1 warmup=0 lat=off --record "$T/nolat.jsonl" >/dev/null 2>&1
expect_err "export hgrm without latencies" 1 "benchtop: $T/nolat.jsonl: no cell has latencies to export (recorded with lat=off, or no rep finished)" -- export "$T/nolat.jsonl" --format hgrm --out "$T/hg2"

# ---- compare ------------------------------------------------------------
"$BT" compare "$A" "$A" >"$T/self.txt" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^threads=.*within noise' "$T/self.txt")" -eq 2 ] && [ "$(grep -Ec '^threads=[12] .* 1\.000 ' "$T/self.txt")" -eq 2 ] &&
	grep -q 'plan differences, A -> B: none' "$T/self.txt" && grep -q 'machine differences, A -> B: none' "$T/self.txt" &&
	ok "compare with itself: ratio 1.000, within noise" || bad "compare with itself" "rc=$rc $(cat "$T/self.txt" "$T/err")"
"$BT" compare "$A" "$A" --format csv >"$T/self.csv"
python3 - "$T/self.csv" <<'PY' && ok "compare csv with itself: ratio exactly 1" || bad "compare csv self" "$(cat "$T/self.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2
for r in rows:
    assert float(r["ratio"]) == 1.0 and float(r["ratio_means"]) == 1.0, r
    assert r["verdict"] == "within_noise", r
    assert float(r["ci_lo"]) < 1 < float(r["ci_hi"]), r
PY

# A known large difference: the same plan with 200 ns of work per op. Longer
# reps (ops=200000) keep the base steady enough on a loaded test machine.
"$BT" run null threads=1,2 ops=200000 reps=5 warmup=1 --record "$T/fast.jsonl" >/dev/null 2>&1
"$BT" rerun "$T/fast.jsonl" work=200 >"$T/out" 2>"$T/err"; rc=$?
B=$(newest)
[ $rc -eq 0 ] && grep -q "^rerun of $T/fast.jsonl$" "$T/err" && grep -q "^recorded: $B$" "$T/err" &&
	ok "rerun with an override: exit 0, recorded in the default place" || bad "rerun work=200" "rc=$rc $(cat "$T/err")"
python3 - "$B" <<'PY' && ok "rerun: the recorded plan has the override and the rest of the original" || bad "rerun plan" "$(head -c 600 "$B")"
import json, sys
h = json.loads(open(sys.argv[1]).readline())
p = h["plan"]["params"]
assert p["work"] == 200 and p["threads"] == [1, 2] and p["reps"] == 5 and p["ops"] == 200000, p
PY
"$BT" compare "$T/fast.jsonl" "$B" >"$T/cmp.txt" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^  work: 0 -> 200$' "$T/cmp.txt" && ok "compare: plan differences listed" || bad "compare plan differences" "$(cat "$T/cmp.txt" "$T/err")"
[ "$(grep -Ec '^threads=[12] .* slower ' "$T/cmp.txt")" -eq 2 ] && ok "compare: a large difference is marked slower" || bad "compare: slower" "$(cat "$T/cmp.txt")"
"$BT" compare "$T/fast.jsonl" "$B" --format json >"$T/cmp.json"
python3 - "$T/cmp.json" <<'PY' && ok "compare json: ratios below 1, interval excludes 1" || bad "compare json" "$(cat "$T/cmp.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["differences"][0]["plan"] == ["work: 0 -> 200"], d["differences"]
for c in d["cells"]:
    k = c["comparisons"][0]
    assert k["verdict"] == "slower" and k["ratio"] < 0.9 and k["ci_hi"] < 1, k
PY
"$BT" compare "$T/fast.jsonl" "$B" --format markdown | grep -q '^| threads=1 ' && ok "compare markdown" || bad "compare markdown"

# Cells present in only one recording are rows, not dropped.
"$BT" rerun "$A" threads=2,4 --record "$T/c.jsonl" --quiet >/dev/null 2>&1
"$BT" compare "$A" "$T/c.jsonl" >"$T/cmp2.txt"
grep -Eq '^threads=1 .*only in A' "$T/cmp2.txt" && grep -Eq '^threads=4 .*only in B' "$T/cmp2.txt" &&
	grep -q '^  threads: \[1,2\] -> \[2,4\]$' "$T/cmp2.txt" && ok "compare: only in A, only in B" || bad "compare only-in" "$(cat "$T/cmp2.txt")"
"$BT" compare "$A" "$T/c.jsonl" "$A" >"$T/cmp3.txt"; rc=$?
[ $rc -eq 0 ] && grep -q '^C: ' "$T/cmp3.txt" && grep -q 'C/A' "$T/cmp3.txt" && ok "compare three recordings" || bad "compare three" "$(cat "$T/cmp3.txt")"
expect_err "compare needs two" 2 "benchtop: compare: which recordings? (benchtop compare A B [C ...])" -- compare "$A"

# ---- rerun ---------------------------------------------------------------
n=$(count)
"$BT" rerun "$A" --no-record >/dev/null 2>&1 && [ "$(count)" -eq "$n" ] && ok "rerun --no-record" || bad "rerun --no-record"
"$BT" rerun "$A" --record "$T/r.jsonl" --format csv >"$T/r.csv" 2>/dev/null && [ -s "$T/r.jsonl" ] &&
	[ "$(wc -l <"$T/r.csv")" -eq 3 ] && ok "rerun --record FILE --format csv" || bad "rerun --record"
expect_err "rerun: bad override" 2 "benchtop: threads=0: must be 1..1024" -- rerun "$A" threads=0
expect_err "rerun: unknown parameter" 2 "benchtop: bogus: unknown parameter of null (see benchtop list null)" -- rerun "$A" bogus=1
[ "$(count)" -eq "$n" ] && ok "a refused rerun records nothing" || bad "a refused rerun records nothing"
sed 's/"kernel":"[^"]*"/"kernel":"Linux 0.01"/; s/"logical_cpus":[0-9]*/"logical_cpus":999/' "$A" >"$T/othermachine.jsonl"
"$BT" rerun "$T/othermachine.jsonl" --no-record >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q "^benchtop: machine differs from the recording's (2 fields; recorded -> now):$" "$T/err" &&
	grep -q '^  kernel: Linux 0.01 -> ' "$T/err" && grep -q '^  logical_cpus: 999 -> ' "$T/err" &&
	[ "$(grep -n 'machine differs' "$T/err" | cut -d: -f1)" -lt "$(grep -n '^rerun of' "$T/err" | cut -d: -f1)" ] &&
	ok "rerun on another machine: the differing fields, before the run" || bad "rerun machine diff" "rc=$rc $(cat "$T/err")"
"$BT" compare "$A" "$T/othermachine.jsonl" | grep -q '^  kernel: .* -> Linux 0.01$' && ok "compare: machine differences listed" || bad "compare machine differences"

# ---- bad files: one line naming file and line, exit 1, never a crash -------
: >"$T/empty.jsonl"
head -c 4000 "$BT" >"$T/binary.jsonl"
sed '3s/.*/{"type":"rep", garbage/' "$A" >"$T/corrupt.jsonl"
sed 's/"benchtop_recording":1/"benchtop_recording":3/' "$A" >"$T/future.jsonl"
for cmd in show export compare rerun; do
	for f in empty binary corrupt future; do
		case $f in
			empty) msg="benchtop: $T/empty.jsonl: empty file, not a benchtop recording" ;;
			binary) msg="benchtop: $T/binary.jsonl:1: not a benchtop recording" ;;
			corrupt) msg="benchtop: $T/corrupt.jsonl:3: invalid JSON: string or '}' expected near 'garbage'" ;;
			future) msg="benchtop: $T/future.jsonl:1: recording version 3 is newer than this benchtop (1)" ;;
		esac
		case $cmd in
			show) expect_err "show $f recording" 1 "$msg" -- show "$T/$f.jsonl" ;;
			export) expect_err "export $f recording" 1 "$msg" -- export "$T/$f.jsonl" --format csv ;;
			compare) expect_err "compare with a $f recording" 1 "$msg" -- compare "$A" "$T/$f.jsonl" ;;
			rerun) expect_err "rerun $f recording" 1 "$msg" -- rerun "$T/$f.jsonl" ;;
		esac
	done
done
expect_err "show missing file" 1 "benchtop: $T/none.jsonl: No such file or directory" -- show "$T/none.jsonl"

# A recording cut in half opens everywhere, says interrupted, shows what finished.
head -c $(( $(wc -c <"$T/fast.jsonl") / 2 )) "$T/fast.jsonl" >"$T/half.jsonl"
"$BT" show "$T/half.jsonl" >"$T/half.txt" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'session interrupted: 1 of 2 cells finished' "$T/half.txt" && grep -Eq '^1 +\| +[0-9.]+[kMG]?!? ' "$T/half.txt" &&
	ok "cut in half: show says interrupted, the finished cell shown" || bad "cut in half: show" "rc=$rc $(cat "$T/half.txt")"
"$BT" compare "$T/fast.jsonl" "$T/half.jsonl" >"$T/half.cmp" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^B: .*interrupted (1/2 cells)' "$T/half.cmp" && grep -Eq '^threads=1 .*within noise' "$T/half.cmp" &&
	grep -Eq '^threads=2 .*(no reps in B|n<2: no test|within noise)' "$T/half.cmp" &&
	ok "cut in half: compare" || bad "cut in half: compare" "rc=$rc $(cat "$T/half.cmp")"
"$BT" export "$T/half.jsonl" --format csv >"$T/half.csv" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^0,1,' "$T/half.csv")" -eq 6 ] && ok "cut in half: export csv has the finished reps" || bad "cut in half: export" "rc=$rc $(cat "$T/half.csv")"
"$BT" export "$T/half.jsonl" --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["status"]=="interrupted" and d["cells_done"]==1' &&
	ok "cut in half: export json says interrupted" || bad "cut in half: export json"

# The listing copes with all of them.
cp "$T/empty.jsonl" "$T/binary.jsonl" "$T/corrupt.jsonl" "$T/future.jsonl" "$T/half.jsonl" "$S/"
"$BT" sessions >"$T/list.txt" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$T/err" ] && ok "sessions with bad files: exit 0, nothing on stderr" || bad "sessions with bad files" "rc=$rc $(cat "$T/err")"
grep -q 'unreadable .*empty.jsonl  (empty file, not a benchtop recording)$' "$T/list.txt" &&
	grep -q 'unreadable .*binary.jsonl  (binary file, not a benchtop recording)$' "$T/list.txt" &&
	grep -q 'unreadable .*corrupt.jsonl  (line 3: not a JSON object (the file is damaged))$' "$T/list.txt" &&
	grep -q 'unreadable .*future.jsonl  (line 1: recording version 3 is newer than this benchtop (1))$' "$T/list.txt" &&
	grep -Eq ' null +threads=1,2 work=0 +1/2 +interrupted .*half.jsonl$' "$T/list.txt" &&
	ok "sessions: bad files listed as unreadable with the reason, the cut one as interrupted" || bad "sessions: bad files" "$(cat "$T/list.txt")"
"$BT" sessions --format json | python3 -c '
import json, sys
d = {s["file"]: s for s in json.load(sys.stdin)}
assert d["empty.jsonl"]["status"] == "unreadable: empty file, not a benchtop recording", d["empty.jsonl"]
assert d["half.jsonl"]["status"] == "interrupted" and d["half.jsonl"]["cells_done"] == 1' &&
	ok "sessions json: unreadable: <reason>" || bad "sessions json bad files"

# Bad plans given to run: one line, exit 2.
printf '{"benchtop_plan": 2, "workload": "null", "params": {}}\n' >"$T/future.json"
: >"$T/empty.json"
head -c 300 "$BT" >"$T/binary.json"
printf '{"benchtop_plan": 1, "workload": "null", "params": {"threads": [1, 2}\n' >"$T/cut.json"
for f in future empty binary cut; do
	"$BT" run --plan "$T/$f.json" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^benchtop: $T/$f.json" "$T/err"; then
		ok "run --plan with a $f plan: exit 2, one line"
	else
		bad "run --plan $f" "rc=$rc $(cat "$T/err")"
	fi
done

# ---- export --format all: the TUI's file set, named after the recording -------
expect_err "export all needs --out" 2 "benchtop: export --format all writes a set of files: give the directory with --out DIR" -- export "$P" --format all
pb=$(basename "${P%.jsonl}")
mkdir -p "$T/all" && ln -s "$T/victim" "$T/all/$pb.md"
"$BT" export "$P" --format all --out "$T/all" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && [ ! -e "$T/victim" ] && grep -q "$pb.md" "$T/err"; then ok "export all: a symlink in the way is refused, not followed"
else bad "export all: symlink refused" "rc=$rc $(cat "$T/err")"; fi
rm -f "$T/all/$pb.md"
"$BT" export "$P" --format all --out "$T/all" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = "$T/all/$pb.md
$T/all/$pb.csv
$T/all/$pb.json
$T/all/$pb-cell-0-threads_1.hgrm
$T/all/$pb-cell-1-threads_2.hgrm" ] && grep -q '^| threads' "$T/all/$pb.md" && grep -q "machine check:" "$T/all/$pb.md"; then
	ok "export all: .md .csv .json and one .hgrm per cell, named by label"
else
	bad "export all" "rc=$rc $(cat "$T/out" "$T/err")"
fi
"$BT" export "$P" --format csv | cmp -s - "$T/all/$pb.csv" && ok "export all: the csv is export --format csv" || bad "export all: csv"

# ---- run --save-plan never truncates what it did not create --------------------
ln -s "$T/sp-victim" "$T/sp-link.json"
"$BT" run null threads=1 ops=10 reps=1 warmup=0 --no-record --quiet --save-plan "$T/sp-link.json" >/dev/null 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && [ ! -e "$T/sp-victim" ] && grep -q "sp-link.json exists and is a symbolic link" "$T/err" &&
	ok "--save-plan onto a symlink: refused, not followed" || bad "--save-plan onto a symlink" "rc=$rc $(cat "$T/err")"
"$BT" run null threads=1 ops=10 reps=1 warmup=0 --no-record --quiet --save-plan "$T/sp.json" >/dev/null 2>&1
"$BT" run null threads=2 ops=10 reps=1 warmup=0 --no-record --quiet --save-plan "$T/sp.json" >/dev/null 2>&1
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["params"]["threads"] in (2, [2])' "$T/sp.json" &&
	ok "--save-plan replaces a regular file whole" || bad "--save-plan replaces a regular file" "$(cat "$T/sp.json")"

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
