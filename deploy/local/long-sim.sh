#!/usr/bin/env bash
# The cluster simulator's long form: many more seeds than the test command's short form, with
# each of its option sets (the default one, --schedules and --webhooks), in slices, every slice under a time
# limit. It goes on past a failing seed and at the end lists every failing seed with the command
# that replays it. Exit status 0 when every seed passed, 1 when any failed (or a slice crashed or
# ran out of time), 2 on a bad option. See docs/operations.md, "The long simulation".
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

usage() {
    cat <<'EOF'
usage: deploy/local/long-sim.sh [options] [-- baton-sim options]
  --seeds N               seeds with the test command's default options (default 10000)
  --first-seed S          the first of them (default 1)
  --schedule-seeds M      seeds with --schedules (default N/5; 0: none)
  --schedule-first-seed S the first of them (default 1001)
  --webhook-seeds W       seeds with --webhooks (default N/5; 0: none)
  --webhook-first-seed S  the first of them (default 2001)
  --steps K               steps with faults per seed (default 2000, as the test command)
  --slice L               seeds per baton-sim process (default 500)
  --slice-time T          real seconds a slice may take before it stops (default 1800)
  --jobs J                slices run at once (default 1)
  --bin PATH              the baton-sim binary (default: built with swift build --product baton-sim)
  --out DIR               keep each slice's output there (default: a temporary directory)
Options after -- go to every baton-sim run (e.g. --fault-mix uniform, --queue-type quorum).
EOF
}

seeds=10000 first=1 sched_seeds="" sched_first=1001 hook_seeds="" hook_first=2001 steps=2000 slice=500 slice_time=1800 jobs=1 bin="" out=""
extra=()
need() { [ $# -ge 2 ] && [ -n "$2" ] || { echo "long-sim: $1 needs a value" >&2; exit 2; }; }
number() { [[ "$2" =~ ^[0-9]+$ ]] || { echo "long-sim: $1 must be a whole number, not '$2'" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
        --seeds) need "$@"; number "$1" "$2"; seeds=$2; shift 2 ;;
        --first-seed) need "$@"; number "$1" "$2"; first=$2; shift 2 ;;
        --schedule-seeds) need "$@"; number "$1" "$2"; sched_seeds=$2; shift 2 ;;
        --schedule-first-seed) need "$@"; number "$1" "$2"; sched_first=$2; shift 2 ;;
        --webhook-seeds) need "$@"; number "$1" "$2"; hook_seeds=$2; shift 2 ;;
        --webhook-first-seed) need "$@"; number "$1" "$2"; hook_first=$2; shift 2 ;;
        --steps) need "$@"; number "$1" "$2"; steps=$2; shift 2 ;;
        --slice) need "$@"; number "$1" "$2"; slice=$2; shift 2 ;;
        --slice-time) need "$@"; number "$1" "$2"; slice_time=$2; shift 2 ;;
        --jobs) need "$@"; number "$1" "$2"; jobs=$2; shift 2 ;;
        --bin) need "$@"; bin=$2; shift 2 ;;
        --out) need "$@"; out=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "long-sim: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$sched_seeds" ] || sched_seeds=$((seeds / 5))
[ -n "$hook_seeds" ] || hook_seeds=$((seeds / 5))
for v in slice jobs; do [ "${!v}" -ge 1 ] || { echo "long-sim: --$v must be at least 1" >&2; exit 2; }; done
if [ -z "$bin" ]; then
    (cd "$ROOT" && swift build --product baton-sim >&2)
    bin="$(cd "$ROOT" && swift build --show-bin-path)/baton-sim"
fi
[ -x "$bin" ] || { echo "long-sim: no baton-sim at $bin" >&2; exit 2; }
if [ -z "$out" ]; then out=$(mktemp -d -t long-sim.XXXXXX); fi
mkdir -p "$out"

# One slice: seeds [from, from+count) of one option set; after a failing seed it goes on with the
# next. Writes `failed SEED<TAB>violation<TAB>replay command`, `crashed …`, `cut …` and the summary
# lines (`summary …`) to $out/NAME.result, and baton-sim's output to $out/NAME.log.
run_slice() {
    local name=$1 from=$2 count=$3
    shift 3
    local end=$((from + count)) started=$SECONDS result="$out/$name.result" log="$out/$name.log"
    : >"$result"
    : >"$log"
    while [ "$from" -lt "$end" ]; do
        local left=$((slice_time - (SECONDS - started)))
        if [ "$left" -le 0 ]; then
            printf 'cut\tseeds %s-%s not run: the slice took its %s s\n' "$from" "$((end - 1))" "$slice_time" >>"$result"
            return
        fi
        local part status=0
        part=$(mktemp "$out/$name.part.XXXXXX")
        # baton-sim stops itself at the time limit (it says how many seeds it ran); timeout only stops a hang.
        timeout --kill-after=10 $((left + 60)) "$bin" --seeds $((end - from)) --first-seed "$from" --steps "$steps" \
            --time-limit "$left" "$@" "${extra[@]}" >"$part" 2>&1 || status=$?
        cat "$part" >>"$log"
        local summary ran failed
        summary=$(grep '^seeds [0-9]*,' "$part" | tail -1 || true)
        ran=$(sed -n 's/^seeds \([0-9]*\),.*/\1/p' <<<"$summary")
        failed=$(sed -n 's/^seed \([0-9]*\) (.*broke a guarantee: .*/\1/p' "$part" | head -1)
        [ -z "$summary" ] || printf 'summary\t%s\n' "$summary" >>"$result"
        if [ "$status" = 0 ]; then
            from=$((from + ${ran:-0}))
            if [ "$from" -lt "$end" ]; then
                printf 'cut\tseeds %s-%s not run: the slice took its %s s\n' "$from" "$((end - 1))" "$slice_time" >>"$result"
            fi
            rm -f "$part"
            return
        elif [ "$status" = 1 ] && [ -n "$failed" ]; then
            local violation replay
            violation=$(sed -n "s/^seed $failed (.*broke a guarantee: //p" "$part" | head -1)
            replay=$(sed -n 's/^last steps (replay with: \(.*\)):$/\1/p' "$part" | head -1)
            printf 'failed\t%s\t%s\t%s\n' "$failed" "$violation" "$replay" >>"$result"
            from=$((failed + 1))
        else
            printf 'crashed\tseeds %s-%s: baton-sim exited with status %s (see %s): %s\n' "$from" "$((end - 1))" "$status" "$log" \
                "$(tail -1 "$part")" >>"$result"
            rm -f "$part"
            return
        fi
        rm -f "$part"
    done
}

names=()
queue_slices() {  # NAME-PREFIX FIRST COUNT BATON-SIM-OPTIONS...
    local prefix=$1 from=$2 count=$3
    shift 3
    local end=$((from + count))
    while [ "$from" -lt "$end" ]; do
        local n=$((end - from < slice ? end - from : slice))
        local name="$prefix-$from"
        names+=("$name")
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
        run_slice "$name" "$from" "$n" "$@" &
        from=$((from + n))
    done
}

started=$SECONDS
echo "long-sim: $seeds seeds from $first, $sched_seeds with --schedules from $sched_first, $hook_seeds with --webhooks from $hook_first, $steps steps, slices of $slice" \
    "(${slice_time} s each, $jobs at once), baton-sim ${extra[*]:-}; output in $out" >&2
queue_slices default "$first" "$seeds"
[ "$sched_seeds" -eq 0 ] || queue_slices schedules "$sched_first" "$sched_seeds" --schedules
[ "$hook_seeds" -eq 0 ] || queue_slices webhooks "$hook_first" "$hook_seeds" --webhooks
wait

failures=0 problems=0 ran=0
for name in "${names[@]}"; do
    while IFS=$'\t' read -r kind a b c; do
        case "$kind" in
            summary) ran=$((ran + $(sed -n 's/^seeds \([0-9]*\),.*/\1/p' <<<"$a"))) ;;
            failed)
                failures=$((failures + 1))
                echo "FAILED seed $a ($name): $b"
                echo "  replay: $c"
                ;;
            crashed | cut)
                problems=$((problems + 1))
                echo "${kind^^} ($name): $a"
                ;;
        esac
    done <"$out/$name.result"
done
# A failing seed's summary line counts it among the seeds run, but the slice goes on after it.
echo "long-sim: $ran seeds run in $((SECONDS - started)) s; $failures failed, $problems slice(s) crashed or cut short; output in $out"
[ "$failures" -eq 0 ] && [ "$problems" -eq 0 ]
