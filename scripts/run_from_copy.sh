# Sourced at the top of the long benchmark scripts, after they set ROOT from
# ${BENCH_ROOT:-...}: re-runs the calling script from a copy (bash reads a script as it
# goes, so editing it mid-run would break the run), then works from the repository's root.
if [ -z "${BENCH_ROOT:-}" ]; then
    copy=$(mktemp)
    cp "$0" "$copy"
    BENCH_ROOT=$ROOT exec bash "$copy" "$@"
fi
cd "$ROOT"
