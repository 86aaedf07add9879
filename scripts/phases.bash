# Sourced by .ci/run and scripts/test: the wall time of each step of a run, so that every CI log
# shows where its budget went (docs/guide.md, "The CI budget").
#
#   phase NAME      ends the step running (if any) and starts NAME, printing "== NAME"
#   phase_end [RC]  ends the step running; with RC other than 0 it is marked as where the run
#                   stopped (call it from the script's EXIT trap with $?)
#   phase_table     prints every step ended so far and their total
#
# The steps are kept in the file $PHASES_FILE, which the first script to source this creates and
# exports: a script run by another (scripts/test by .ci/run) adds its steps to the same file,
# indented under the outer step and named with $PHASES_PREFIX, and the outer script's table holds
# them all; its total counts the outer steps only.

if [ -z "${PHASES_FILE:-}" ]; then
  PHASES_FILE=$(mktemp "${TMPDIR:-/tmp}/tradebench-phases.XXXXXX")
  export PHASES_FILE
  phase_owner=1 phase_level=0
else
  phase_owner=0 phase_level=1
fi
phase_prefix=${PHASES_PREFIX:-}
phase_name="" phase_start=0

phase_now() { date +%s%N; }

phase() {
  phase_end 0
  phase_name=$1 phase_start=$(phase_now)
  echo "== $phase_prefix$1"
}

phase_end() {
  local rc=${1:-0} secs
  [ -n "$phase_name" ] || return 0
  secs=$(awk -v ns="$(($(phase_now) - phase_start))" 'BEGIN { printf "%.1f", ns / 1e9 }')
  if [ "$rc" = 0 ]; then
    printf '%s\t%s\t%s\n' "$secs" "$phase_level" "$phase_prefix$phase_name" >>"$PHASES_FILE"
  else
    printf '%s\t%s\t%s (stopped here: exit %s)\n' "$secs" "$phase_level" "$phase_prefix$phase_name" "$rc" >>"$PHASES_FILE"
  fi
  phase_name=""
}

phase_table() {
  echo "== wall time of each phase (s)"
  awk -F '\t' '{ printf "%8s  %*s%s\n", $1, 2 * $2, "", $3 } $2 == 0 { total += $1 }
    END { printf "%8.1f  total\n", total }' "$PHASES_FILE"
}

# phase_cleanup removes the file, when this script created it.
phase_cleanup() {
  [ "$phase_owner" = 1 ] && rm -f "$PHASES_FILE"
  return 0
}
