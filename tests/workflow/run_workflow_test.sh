#!/usr/bin/env bash
# The Snakemake workflow (workflow/Snakefile, docs/workflow.md) on the CPU
# backend and the bundled data, 3 shards: every merged output must be
# byte-identical (cmp) to one gpualign run over the whole input.
#   pairs:  sw and sg in TSV, SAM, PAF and blast6; nw in SAM; an input with
#           fewer pairs than shards (an empty shard)
#   search: proteins (data/orthologs_cow.fa against data/orthologs_pig.fa)
#           in TSV, SAM and blast6; the same against a DB holding every record
#           twice (score ties across shards, -k 5 cutting through them);
#           DNA reads against the reference windows with --strand both
#           (minus-strand hits) in blast6; the proteins against a DB file of
#           `gpualign makedb` (query shards), equal to the FASTA DB's output
#   failures: a shard job killed midway (the workflow fails, leaves no
#           output; the rerun completes it), and Snakemake itself killed
#           midway (unlock, rerun with --rerun-incomplete)
# Usage: tests/workflow/run_workflow_test.sh [GPUALIGN]   (default build/app/gpualign)
# Skips (exit 0) when snakemake or seqkit is not installed. WORKFLOW_TEST_KEEP=1
# keeps the work directory (logs, outputs). The SLURM profile is tested on a
# real cluster by tests/workflow/run_slurm_test.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
for tool in snakemake seqkit; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: workflow test: $tool not found (bash scripts/deps.sh installs it)"
    exit 0
  fi
done
G=$(realpath "${1:-$ROOT/build/app/gpualign}")
if [ ! -x "$G" ]; then echo "FAIL: workflow test: no gpualign binary at $G" >&2; exit 1; fi
D=$ROOT/data
SNAKEFILE=$ROOT/workflow/Snakefile
W=$(mktemp -d "${TMPDIR:-/tmp}/gpualign-wf-test.XXXXXX")
if [ "${WORKFLOW_TEST_KEEP:-0}" = 1 ]; then echo "keeping $W"; else trap 'rm -rf "$W"' EXIT; fi
mkdir -p "$W/wf" "$W/single" "$W/in" "$W/logs"
failures=0
start=$SECONDS

# The inputs made for the test.
seqkit head -n 2 "$D/reads.fa" > "$W/in/two_reads.fa"
seqkit head -n 2 "$D/ref_windows.fa" > "$W/in/two_windows.fa"
seqkit head -n 30 "$D/reads.fa" > "$W/in/reads30.fa"
{ cat "$D/orthologs_pig.fa"; seqkit replace -p '^' -r 'dup_' "$D/orthologs_pig.fa"; } > "$W/in/pig_twice.fa"

# wf NAME SNAKEMAKE-CONFIG...: the workflow, run in $W/wf (log in $W/logs/NAME.log)
wf() {
  local name=$1; shift
  # (WF_FLAGS: more snakemake options)
  # shellcheck disable=SC2086
  (cd "$W/wf" && snakemake -s "$SNAKEFILE" --cores 2 ${WF_FLAGS:-} --config shards=3 gpualign="$G" "$@") \
    > "$W/logs/$name.log" 2>&1
}

# single OUT MODE Q R ARGS: one gpualign run, in $W/single
single() {
  local out=$1 mode=$2 q=$3 r=$4 args=$5
  # shellcheck disable=SC2086  # args is a list of words, as the workflow splits it
  (cd "$W/single" && "$G" "$mode" "$q" "$r" $args -o "$out") >> "$W/logs/single.log" 2>&1
}

# same OUT LABEL: cmp the workflow's OUT with the single run's
same() {
  local out=$1 label=$2
  if [ ! -e "$W/wf/$out" ]; then
    echo "FAIL  $label: the workflow wrote no $out"; failures=$((failures + 1)); return
  fi
  if cmp "$W/wf/$out" "$W/single/$out"; then
    echo "cmp OK  $label: $out ($(wc -l < "$W/wf/$out") lines) == single run"
  else
    echo "FAIL  $label: $out differs from the single run"; failures=$((failures + 1))
  fi
}

# check NAME MODE Q R-KEY R OUT ARGS: workflow and single run, then cmp
check() {
  local name=$1 mode=$2 q=$3 rkey=$4 r=$5 out=$6 args=$7
  if ! wf "$name" mode="$mode" queries="$q" "$rkey=$r" out="$out" args="$args"; then
    echo "FAIL  $name: the workflow failed:"; tail -20 "$W/logs/$name.log"; failures=$((failures + 1)); return
  fi
  single "$out" "$mode" "$q" "$r" "$args" || true
  same "$out" "$name"
}

echo "== workflow: pairs (3 shards, --backend cpu) =="
for mode in sw sg; do
  for ext in tsv sam paf m8; do
    check "$mode-$ext" "$mode" "$D/reads.fa" refs "$D/ref_windows.fa" "$mode.$ext" "--backend cpu"
  done
done
check nw-sam nw "$D/reads.fa" refs "$D/ref_windows.fa" nw.sam "--backend cpu"
check sw-empty-shard sw "$W/in/two_reads.fa" refs "$W/in/two_windows.fa" two.sam "--backend cpu"

echo "== workflow: search (3 DB shards, whole-DB E-values) =="
for ext in tsv sam m8; do
  check "search-$ext" search "$D/orthologs_cow.fa" db "$D/orthologs_pig.fa" "search.$ext" "--backend cpu"
done
for ext in tsv m8; do
  check "search-ties-$ext" search "$D/orthologs_cow.fa" db "$W/in/pig_twice.fa" "ties.$ext" "--backend cpu -k 5"
done
check search-dna-both search "$W/in/reads30.fa" db "$D/ref_windows.fa" dna_both.m8 "--backend cpu --strand both"

echo "== workflow: search against a DB file of gpualign makedb (3 query shards) =="
"$G" makedb "$D/orthologs_pig.fa" "$W/in/pig.gadb" -q
for ext in tsv sam m8; do
  check "search-dbfile-$ext" search "$D/orthologs_cow.fa" db "$W/in/pig.gadb" "dbfile.$ext" "--backend cpu"
done
# ... and the same bytes as against the FASTA DB (SAM: but its @PG command line)
for ext in tsv m8; do
  if cmp "$W/wf/dbfile.$ext" "$W/single/search.$ext"; then echo "cmp OK  search-dbfile-$ext == FASTA DB"
  else echo "FAIL  search-dbfile-$ext differs from the search of the FASTA DB"; failures=$((failures + 1)); fi
done
if cmp <(grep -v '^@PG' "$W/wf/dbfile.sam") <(grep -v '^@PG' "$W/single/search.sam"); then
  echo "cmp OK  search-dbfile-sam == FASTA DB (but @PG)"
else
  echo "FAIL  search-dbfile-sam differs from the search of the FASTA DB"; failures=$((failures + 1))
fi

echo "== workflow: a shard killed midway, then the rerun =="
# A gpualign wrapper that, while $W/crash exists, SIGKILLs shard 1's gpualign
# 0.1 s into its run and fails (137, as a job killed by a scheduler). exec -a
# keeps argv[0] (the @PG CL) the wrapper's path.
cat > "$W/gpualign-crash" <<EOF
#!/usr/bin/env bash
case "\$*" in
  *part.1.*)
    if [ -e "$W/crash" ]; then
      "$G" "\$@" & pid=\$!
      sleep 0.1; kill -KILL \$pid 2>/dev/null; wait \$pid
      exit 137
    fi ;;
esac
exec -a "\$0" "$G" "\$@"
EOF
chmod +x "$W/gpualign-crash"
touch "$W/crash"
crash_cfg=(mode=sw queries="$D/reads.fa" refs="$D/ref_windows.fa" out=crash.sam args="--backend cpu --cpu-kernel scalar" gpualign="$W/gpualign-crash")
if wf crash-1 "${crash_cfg[@]}"; then
  echo "FAIL  crash: the workflow succeeded with a killed shard"; failures=$((failures + 1))
elif [ -e "$W/wf/crash.sam" ]; then
  echo "FAIL  crash: the failed workflow left crash.sam"; failures=$((failures + 1))
else
  echo "ok    crash: the killed shard failed the workflow ($(grep -c '^Error in rule' "$W/logs/crash-1.log") failed job), no crash.sam"
fi
rm "$W/crash"
if wf crash-2 "${crash_cfg[@]}"; then
  (cd "$W/single" && "$W/gpualign-crash" sw "$D/reads.fa" "$D/ref_windows.fa" --backend cpu --cpu-kernel scalar \
    -o crash.sam) >> "$W/logs/single.log" 2>&1
  same crash.sam "rerun after a killed shard"
else
  echo "FAIL  crash: the rerun failed"; tail -20 "$W/logs/crash-2.log"; failures=$((failures + 1))
fi

echo "== workflow: Snakemake killed midway, then unlock and rerun =="
# A wrapper that makes shard 2 slow, so that Snakemake is killed while shard
# jobs run (or have finished): SIGKILL of its whole process group.
cat > "$W/gpualign-slow" <<EOF
#!/usr/bin/env bash
case "\$*" in *part.2.*) touch "$W/slow-started"; sleep 60 ;; esac
exec "$G" "\$@"
EOF
chmod +x "$W/gpualign-slow"
kill_cfg=(mode=search queries="$D/orthologs_cow.fa" db="$D/orthologs_pig.fa" out=killed.m8 args="--backend cpu" gpualign="$W/gpualign-slow")
# Snakemake runs under setsid, leader of a new process group, so that the group is
# exactly it and its jobs: the group's id is the pid written to sm.pid.
setsid bash -c 'echo $$ > "$1/sm.pid"; cd "$1/wf"; shift; exec snakemake "$@"' _ "$W" -s "$SNAKEFILE" --cores 2 \
  --config shards=3 "${kill_cfg[@]}" > "$W/logs/kill-1.log" 2>&1 &
launcher=$!
for _ in $(seq 1 600); do  # until shard 2's job has started (at most 60 s)
  [ -e "$W/slow-started" ] && [ -s "$W/sm.pid" ] && break
  sleep 0.1
done
sm=$(cat "$W/sm.pid")
kill -KILL -- "-$sm" 2>/dev/null || true
wait "$launcher" 2>/dev/null || true
if [ -e "$W/wf/killed.m8" ]; then
  echo "FAIL  kill: killed.m8 exists after the kill"; failures=$((failures + 1))
else
  echo "ok    kill: Snakemake killed (SIGKILL, its process group) while shard jobs ran; no killed.m8"
fi
kill_cfg[5]="gpualign=$G"
(cd "$W/wf" && snakemake -s "$SNAKEFILE" --cores 2 --unlock --config shards=3 "${kill_cfg[@]}") > "$W/logs/kill-unlock.log" 2>&1
if WF_FLAGS=--rerun-incomplete wf kill-2 "${kill_cfg[@]}"; then
  single killed.m8 search "$D/orthologs_cow.fa" "$D/orthologs_pig.fa" "--backend cpu"
  same killed.m8 "rerun after Snakemake was killed"
else
  echo "FAIL  kill: the rerun failed"; tail -20 "$W/logs/kill-2.log"; failures=$((failures + 1))
fi

echo "workflow test: $failures failure(s), $((SECONDS - start)) s"
[ "$failures" = 0 ]
