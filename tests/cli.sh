#!/usr/bin/env bash
# cli.sh - the real benchtop binary driven as a user drives it: usage errors,
# exit codes, output formats, recordings, plans, SIGINT.
# usage: tests/cli.sh path/to/benchtop
set -u
BT=$1
T=$(mktemp -d /tmp/bt-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_STATE_HOME="$T/state"
pass=0 failn=0

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; }

# expect NAME WANT_STATUS WANT_STDERR_LINE -- ARGS...: exit status and the one stderr line.
expect_err() {
	local name=$1 want_rc=$2 want_msg=$3; shift 4
	"$BT" "$@" >"$T/out" 2>"$T/err"; local rc=$?
	local lines; lines=$(wc -l <"$T/err")
	if [ "$rc" -ne "$want_rc" ]; then bad "$name" "exit $rc, wanted $want_rc: $(cat "$T/err")"; return; fi
	if [ "$lines" -ne 1 ]; then bad "$name" "stderr has $lines lines: $(cat "$T/err")"; return; fi
	if [ "$(cat "$T/err")" != "$want_msg" ]; then bad "$name" "stderr: $(cat "$T/err") wanted: $want_msg"; return; fi
	ok "$name"
}

# Version, help, usage.
out=$("$BT" --version); rc=$?
[ $rc -eq 0 ] && [[ "$out" =~ ^benchtop\ [0-9]+\.[0-9]+\.[0-9]+$ ]] && ok "--version" || bad "--version" "$out"
"$BT" --help | grep -q 'benchtop run WORKLOAD' && ok "--help" || bad "--help"
"$BT" >/dev/null 2>&1; [ $? -eq 2 ] && ok "no arguments without a terminal: exit 2" || bad "no arguments without a terminal"
expect_err "unknown command" 2 "benchtop: unknown command 'frobnicate' (commands: list, run, explore, show, sessions, rerun, compare, export, replay, doctor; see benchtop --help)" -- frobnicate

# list
out=$("$BT" list)
for w in pipeline locks null; do
	grep -q "^$w " <<<"$out" && ok "list shows $w" || bad "list shows $w" "$out"
done
out=$("$BT" list pipeline)
grep -Eq '^  threads +int +4 +1\.\.1024' <<<"$out" && ok "list pipeline: threads row" || bad "list pipeline" "$out"
grep -Eq '^  notify +enum +signal +signal\|broadcast' <<<"$out" && ok "list pipeline: notify row" || bad "list pipeline notify" "$out"
expect_err "list bogus" 2 "benchtop: bogus: no such workload (see benchtop list)" -- list bogus

# Bad parameters: exit 2, one line naming the parameter and what is allowed; nothing recorded.
expect_err "threads=0" 2 "benchtop: threads=0: must be 1..1024" -- run pipeline threads=0
expect_err "lock=bogus" 2 "benchtop: lock=bogus: must be one of mutex, adaptive, spin, ticket" -- run pipeline lock=bogus
expect_err "duration=-1" 2 "benchtop: duration=-1: must be a duration like 500ms, 2s (0..24h)" -- run null duration=-1
expect_err "unknown parameter" 2 "benchtop: bogus: unknown parameter of pipeline (see benchtop list pipeline)" -- run pipeline bogus=1
expect_err "sweep of reps" 2 "benchtop: reps=1,2: reps takes one value" -- run null reps=1,2
expect_err "unknown option" 2 "benchtop: run: unknown option --bogus (allowed: --plan, --save-plan, --record, --no-record, --format, --quiet)" -- run null --bogus
expect_err "bad format" 2 "benchtop: --format=xml: must be one of text, markdown, csv, json, openssl" -- run null --format=xml
expect_err "no workload" 2 "benchtop: nosuch: no such workload (see benchtop list)" -- run nosuch
expect_err "fixed work" 2 "benchtop: duration=1s: pipeline does a fixed amount of work set by its own parameters; duration= and ops= do not apply" -- run pipeline duration=1s
printf '{"benchtop_plan": 1, "workload": "pipeline", "params": {"threads": [1, 2}\n' >"$T/bad.json"
"$BT" run --plan "$T/bad.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "bad.json:1:" "$T/err"; then ok "malformed plan"; else bad "malformed plan" "rc=$rc $(cat "$T/err")"; fi
[ ! -d "$XDG_STATE_HOME/benchtop/sessions" ] || [ -z "$(ls -A "$XDG_STATE_HOME/benchtop/sessions")" ] &&
	ok "bad input records nothing" || bad "bad input records nothing" "$(ls "$XDG_STATE_HOME/benchtop/sessions")"

# A sweep with every format; the recording reads back with the same numbers.
"$BT" run null threads=1,2 ops=20000 reps=2 warmup=0 --format csv --record "$T/a.jsonl" >"$T/a.csv" 2>"$T/err"
rc=$?; [ $rc -eq 0 ] && ok "run null sweep exit 0" || bad "run null sweep" "rc=$rc $(cat "$T/err")"
[ "$(wc -l <"$T/a.csv")" -eq 3 ] && head -1 "$T/a.csv" | grep -q '^workload,threads,' && ok "csv: header + 2 rows" || bad "csv rows" "$(cat "$T/a.csv")"
"$BT" show "$T/a.jsonl" --format csv >"$T/a2.csv" 2>"$T/err"
cmp -s "$T/a.csv" "$T/a2.csv" && ok "show gives the same csv as run" || bad "show csv" "$(diff "$T/a.csv" "$T/a2.csv")"
"$BT" show "$T/a.jsonl" --format json >"$T/a.json" && python3 - "$T/a.json" <<'PY' && ok "json output parses, 2 cells, status complete" || bad "json output"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
assert len(d["cells"]) == 2
PY
"$BT" show "$T/a.jsonl" --format markdown | grep -q '^| threads' && ok "markdown table" || bad "markdown table"
"$BT" show "$T/a.jsonl" | grep -q 'threads' && ok "text table" || bad "text table"
python3 - "$T/a.jsonl" <<'PY' && ok "recording: header first, end complete, 4 reps of 20000 ops" || bad "recording lines"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["type"] == "header" and lines[0]["benchtop_recording"] == 1
assert lines[-1]["type"] == "end" and lines[-1]["status"] == "complete"
reps = [l for l in lines if l["type"] == "rep"]
assert len(reps) == 4 and all(r["ops"] == 20000 for r in reps), reps
assert sum(1 for l in lines if l["type"] == "cell") == 2
PY
expect_err "show missing file" 1 "benchtop: $T/none.jsonl: No such file or directory" -- show "$T/none.jsonl"

# A field from a newer benchtop is ignored with a one-line note; the numbers still show.
sed 's/"type":"rep",/"type":"rep","energy_j":1.5,/' "$T/a.jsonl" >"$T/future.jsonl"
"$BT" show "$T/future.jsonl" --format csv >"$T/f.csv" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && cmp -s "$T/a.csv" "$T/f.csv" && [ "$(cat "$T/err")" = "benchtop: note: $T/future.jsonl: ignored what this benchtop does not know (written by a newer one?): rep.energy_j" ] &&
	ok "unknown field: same numbers, one note" || bad "unknown field note" "rc=$rc $(cat "$T/err")"

# Default recording place.
"$BT" run null ops=1000 reps=1 warmup=0 >/dev/null 2>"$T/err"
f=$(ls "$XDG_STATE_HOME"/benchtop/sessions/*-null-*.jsonl 2>/dev/null | head -1)
[ -n "$f" ] && grep -q "recorded: $f" "$T/err" && ok "recorded under XDG_STATE_HOME by default" || bad "default recording" "$(cat "$T/err")"
"$BT" run null ops=1000 reps=1 warmup=0 --no-record >/dev/null 2>"$T/err"
[ "$(ls "$XDG_STATE_HOME"/benchtop/sessions | wc -l)" -eq 1 ] && ok "--no-record" || bad "--no-record"

# Plans: save, then run the saved plan with an override.
"$BT" run pipeline threads=1,2 units=50 reps=1 warmup=0 --save-plan "$T/p.json" --no-record >/dev/null 2>&1
"$BT" run --plan "$T/p.json" notify=broadcast --format json --no-record >"$T/p.out" 2>"$T/err"
rc=$?
python3 - "$T/p.out" <<'PY' && [ $rc -eq 0 ] && ok "--save-plan then --plan with an override" || bad "plan round trip" "rc=$rc $(cat "$T/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workload"] == "pipeline"
assert len(d["cells"]) == 2, d["cells"]
PY

# The pipeline delivers exactly once under a small sweep of the sync models.
"$BT" run pipeline threads=1,4 notify=signal,broadcast wait=atomic,separate units=200 reps=1 warmup=0 \
	--no-record --format csv >"$T/pl.csv" 2>"$T/err"
rc=$?; [ $rc -eq 0 ] && [ "$(wc -l <"$T/pl.csv")" -eq 9 ] && ok "pipeline sweep verifies" || bad "pipeline sweep" "rc=$rc $(cat "$T/err")"

# SIGINT in the middle of a sweep: exit 130, recording ends interrupted, finished cells kept.
"$BT" run null threads=1,2 duration=300ms reps=2 warmup=0 --record "$T/int.jsonl" >"$T/int.out" 2>"$T/int.err" &
pid=$!
for _ in $(seq 1 200); do
	grep -q '"type":"cell"' "$T/int.jsonl" 2>/dev/null && break
	sleep 0.05
done
kill -INT $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && ok "SIGINT: exit 130" || bad "SIGINT exit" "rc=$rc $(cat "$T/int.err")"
tail -1 "$T/int.jsonl" | grep -q '"status":"interrupted"' && ok "SIGINT: recording ends interrupted" || bad "SIGINT recording" "$(tail -1 "$T/int.jsonl")"
"$BT" show "$T/int.jsonl" >"$T/int.show" 2>&1
grep -q 'interrupted' "$T/int.show" && grep -Eq '^1 ' "$T/int.show" && ok "show: interrupted, finished cell shown" || bad "show interrupted" "$(cat "$T/int.show")"

# Engines: as= picks threads or processes where the workload allows both; one table, every count exact.
expect_err "as=processes refused" 2 "benchtop: as=processes: pipeline runs only as threads" -- run pipeline as=processes
"$BT" run locks as=threads,processes threads=1,2,8,64 lock=mutex,spin ops=20000 reps=1 warmup=0 \
	--record "$T/as.jsonl" >"$T/as.out" 2>"$T/err"
rc=$?; [ $rc -eq 0 ] && ok "locks as=threads,processes: exit 0" || bad "locks as=threads,processes" "rc=$rc $(cat "$T/err")"
python3 - "$T/as.jsonl" <<'PY' && ok "as= sweep: 16 reps, each verified, 20000 ops" || bad "as= sweep reps"
import json, sys
reps = [json.loads(l) for l in open(sys.argv[1]) if '"type":"rep"' in l]
assert len(reps) == 16, len(reps)
assert all(r["ok"] and r["ops"] == 20000 for r in reps), reps
PY
grep -q 'as=processes' "$T/as.out" && grep -q 'as=threads' "$T/as.out" && ok "as= sweep: both engines in the table" || bad "as= table" "$(cat "$T/as.out")"

# The children of a benchtop process (workers, held processes), from /proc.
children() { cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep .; }
# alive PID...: prints the PIDs that still exist.
alive() { local p; for p in "$@"; do [ -e /proc/"$p" ] && echo "$p"; done; }

# kill -9 of one worker process fails its rep by the signal's name; nothing is left behind.
"$BT" run locks as=processes threads=4 lock=mutex duration=60s reps=1 warmup=0 --no-record \
	>"$T/k.out" 2>"$T/k.err" &
pid=$!
kids=
for _ in $(seq 1 200); do
	kids=$(children $pid)
	[ "$(wc -w <<<"$kids")" -eq 4 ] && break
	sleep 0.05
done
victim=$(head -1 <<<"$kids")
if [ -n "$victim" ]; then kill -9 "$victim"; fi
wait $pid; rc=$?
[ $rc -eq 1 ] && grep -q "killed by SIGKILL" "$T/k.err" && ok "kill -9 of a worker: rep failed, killed by SIGKILL" ||
	bad "kill -9 of a worker" "rc=$rc kids=$kids $(cat "$T/k.err")"
left=$(alive $kids)
[ -n "$kids" ] && [ -z "$left" ] && ok "kill -9 of a worker: no process left" || bad "kill -9 leftovers" "kids=$kids left=$left"

# Resources held per run, cell or rep are released on SIGINT, SIGTERM and SIGHUP:
# no scratch file, no child process (rep level as processes: no worker either).
mkdir -p "$T/hold"
for level in run cell rep; do
	for sig in INT TERM HUP; do
		# The children to wait for: the held process, and as processes the 2 workers too.
		as=threads want=1; [ $level = rep ] && as=processes want=3
		TMPDIR="$T/hold" "$BT" run null hold=$level as=$as threads=2,3 duration=60s reps=1 warmup=0 \
			--no-record >/dev/null 2>"$T/h.err" &
		pid=$!
		f=
		for _ in $(seq 1 200); do
			f=$(ls "$T/hold"/benchtop-hold.$level.* 2>/dev/null | head -1)
			[ -n "$f" ] && [ -s "$f" ] && [ "$(children $pid | wc -l)" -ge $want ] && break
			sleep 0.05
		done
		kids=$(children $pid)
		kill -$sig $pid; wait $pid; rc=$?
		left=$(alive $kids)
		if [ -n "$f" ] && [ $rc -ne 0 ] && [ -z "$(ls -A "$T/hold")" ] && [ -z "$left" ]; then
			ok "hold=$level, SIG$sig: file and processes released"
		else
			bad "hold=$level, SIG$sig" "rc=$rc file=$f left=$left files=$(ls "$T/hold") $(cat "$T/h.err")"
			for p in $left; do kill -9 "$p" 2>/dev/null; done
			rm -f "$T/hold"/*
		fi
	done
done
# And at a normal end.
TMPDIR="$T/hold" "$BT" run null hold=run threads=1 ops=100 reps=1 warmup=0 --no-record >/dev/null 2>&1
[ $? -eq 0 ] && [ -z "$(ls -A "$T/hold")" ] && ok "hold=run: released at the end" || bad "hold=run end" "$(ls "$T/hold")"

# A recording cut in the middle of a line still opens, as interrupted.
head -c $(( $(wc -c <"$T/a.jsonl") - 40 )) "$T/a.jsonl" >"$T/cut.jsonl"
"$BT" show "$T/cut.jsonl" >"$T/cut.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q interrupted "$T/cut.out" && ok "torn recording opens as interrupted" || bad "torn recording" "$(cat "$T/cut.out")"

# Typed metrics end to end: pipeline's wait timeouts are a column of the table, a field of the
# JSON and the CSV, and survive show and compare of the recording.
"$BT" run pipeline wait=separate threads=8 reps=2 --record "$T/m1.jsonl" >"$T/m.out" 2>"$T/m.err"
rc=$?; [ $rc -eq 0 ] && grep -q 'timeouts (waits)' "$T/m.out" && ok "metrics: timeouts column" || bad "metrics column" "rc=$rc $(cat "$T/m.out" "$T/m.err")"
"$BT" run pipeline wait=separate threads=8 reps=2 --record "$T/m2.jsonl" --format json >"$T/m.json" 2>"$T/m.err"
python3 - "$T/m.json" <<'PY' && ok "metrics: json carries timeouts" || bad "metrics json" "$(cat "$T/m.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metrics"][0]["name"] == "timeouts", d["metrics"]
t = d["cells"][0]["metrics"]["timeouts"]
assert t["n"] == 2 and t["median"] >= 0, t
PY
"$BT" show "$T/m1.jsonl" --format csv >"$T/m.csv" 2>&1
head -1 "$T/m.csv" | grep -q ',timeouts_waits_n,timeouts_waits_min,timeouts_waits_median,' && ok "metrics: csv carries timeouts" || bad "metrics csv" "$(cat "$T/m.csv")"
"$BT" show "$T/m1.jsonl" >"$T/m.show" 2>&1
grep -q 'timeouts (waits)' "$T/m.show" && ok "metrics: show of the recording" || bad "metrics show" "$(cat "$T/m.show")"
"$BT" compare "$T/m1.jsonl" "$T/m2.jsonl" >"$T/m.cmp" 2>&1
grep -Eq '^pipeline +timeouts \(waits\) ' "$T/m.cmp" && ok "metrics: compare" || bad "metrics compare" "$(cat "$T/m.cmp")"
"$BT" export "$T/m1.jsonl" --format csv --out "$T/m.exp.csv" 2>/dev/null
head -1 "$T/m.exp.csv" | grep -q ',lat_count,timeouts_waits$' && ok "metrics: export per rep" || bad "metrics export" "$(head -2 "$T/m.exp.csv")"
# Any swept axis makes the rows: the first one given, or the one rows= names.
"$BT" run pipeline units=100,1000,10000 threads=4 reps=1 warmup=0 --no-record >"$T/u.out" 2>"$T/err"
rc=$?; [ $rc -eq 0 ] && grep -Eq '^units +\| items/s' "$T/u.out" && grep -Eq '^100 +\|' "$T/u.out" &&
	grep -Eq '^10000 +\|' "$T/u.out" && grep -q 'speedup = throughput / that at units=100$' "$T/u.out" &&
	ok "units=... makes the rows, with speedups" || bad "units rows" "rc=$rc $(cat "$T/u.out" "$T/err")"
"$BT" run pipeline threads=1,2 units=100,1000 rows=units reps=1 warmup=0 --no-record >"$T/u2.out" 2>"$T/err"
rc=$?; [ $rc -eq 0 ] && grep -Eq '^units +\| items/s' "$T/u2.out" && grep -Eq '^ +\| threads=1 +\| threads=2' "$T/u2.out" &&
	grep -q '^units=1000 threads=2 ' "$T/u2.out" &&
	ok "rows=units: units rows, threads groups" || bad "rows=units" "rc=$rc $(cat "$T/u2.out" "$T/err")"
"$BT" run null threads=1,2 work=1,2 ops=1000 reps=1 warmup=0 --record "$T/w.jsonl" >"$T/w.out" 2>"$T/err"
rc=$?; [ $rc -eq 0 ] && grep -Eq '^threads +\| ops/s' "$T/w.out" && grep -q 'speedup = throughput / that at threads=1$' "$T/w.out" &&
	head -1 "$T/w.jsonl" | grep -q '"axes":\["threads","work"\],"worker_axes":\["threads"\]' &&
	ok "threads=1,2: speedup; the recording names the worker axis" || bad "threads worker axis" "rc=$rc $(head -c 600 "$T/w.jsonl") $(cat "$T/w.out")"
"$BT" run null work=1,2 threads=1,2 ops=1000 reps=1 warmup=0 --record "$T/w2.jsonl" >"$T/w2.out" 2>"$T/err"
rc=$?; [ $rc -eq 0 ] && grep -Eq '^work +\| ops/s' "$T/w2.out" &&
	head -1 "$T/w2.jsonl" | grep -q '"axes":\["work","threads"\],"worker_axes":\["threads"\]' &&
	ok "the order given is the order of the axes" || bad "axis order" "rc=$rc $(cat "$T/w2.out")"
expect_err "rows= names an axis that is not swept" 2 "benchtop: rows=units: units is not swept (swept: threads)" -- run pipeline threads=1,2 rows=units
# A key given twice is refused on the command line, as in a plan file (run, rerun and the TUI's prefill alike).
expect_err "a key given twice" 2 "benchtop: threads=2: threads given twice" -- run null threads=1 threads=2
expect_err "rerun: a key given twice" 2 "benchtop: reps=2: reps given twice" -- rerun "$T/w.jsonl" reps=1 reps=2 --no-record
expect_err "rows=bogus" 2 "benchtop: rows=bogus: pipeline has no parameter bogus (see benchtop list pipeline)" -- run pipeline rows=bogus

# doctor: every item judged with a hint, the VM named where there is one, exit 0, nothing changed.
"$BT" doctor >"$T/doc.out" 2>"$T/err"; rc=$?
items=$(grep -Ec '^(ok|info|warn) +[a-z]+ ' "$T/doc.out"); hints=$(grep -Ec '^ {18}[^ ]' "$T/doc.out")
[ $rc -eq 0 ] && [ ! -s "$T/err" ] && [ "$items" -ge 9 ] && [ "$items" -eq "$hints" ] &&
	grep -Eq '^(ok|info|warn) +governor ' "$T/doc.out" && grep -Eq '^(ok|info|warn) +timer +[0-9.]+ ns per clock read$' "$T/doc.out" &&
	grep -Eq '^(ok|info|warn) +busy ' "$T/doc.out" && grep -Eq '^[0-9]+ warnings?, [0-9]+ notes?\.' "$T/doc.out" &&
	ok "doctor: $items items with hints, exit 0" || bad "doctor" "rc=$rc items=$items hints=$hints $(cat "$T/doc.out" "$T/err")"
if grep -qw hypervisor /proc/cpuinfo; then
	grep -Eq '^(info|warn) +vm +[a-z]+ VM, steal [0-9.]+% of CPU time since boot, [0-9.]+% over [0-9]+ ms$' "$T/doc.out" &&
		ok "doctor names the VM and its steal" || bad "doctor VM" "$(cat "$T/doc.out")"
else
	grep -Eq '^(ok|info|warn) +vm ' "$T/doc.out" && ok "doctor: vm item" || bad "doctor vm item" "$(cat "$T/doc.out")"
fi
expect_err "doctor takes no arguments" 2 "benchtop: doctor takes no arguments (it checks this machine and changes nothing)" -- doctor --fix
"$BT" run null ops=1000 reps=1 warmup=0 --no-record >"$T/hc.out" 2>"$T/err"
[ "$(grep -c '^# machine check: ' "$T/hc.out")" -eq 1 ] && grep -Eq '^# machine check: .*(no warnings|warnings: ).* \(benchtop doctor\)$' "$T/hc.out" &&
	ok "results header: one machine check line" || bad "header machine check" "$(head -4 "$T/hc.out")"

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
