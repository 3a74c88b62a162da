#!/usr/bin/env bash
# Is the machine code of every kernel the same at two commits? Builds the library at BEFORE and
# AFTER (default: d7f8030, the commit before the house step, and HEAD) in worktrees under
# ${WORK:-/tmp/house_sass}, then compares each object file's kernels with sass_compare.py: the
# rungs' objects by name, and the library's one kernel file whose name changed (api.cu's scale_c,
# now scale_c.cu). No GPU. Needs cuobjdump and nvdisasm on PATH (a build's tools/bin has them).
#   experiments/house/sass_before_after.sh [BEFORE [AFTER]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
before=${1:-d7f8030}
after=${2:-HEAD}
work=${WORK:-/tmp/house_sass}
mkdir -p "$work"
build() {  # commit folder
  [ -d "$work/$2" ] || git -C "$root" worktree add -q --detach "$work/$2" "$1"
  git -C "$work/$2" checkout -q --detach "$1"
  cmake -S "$work/$2" -B "$work/$2/build" -DSGEMM_BUILD_TOOLS=OFF >/dev/null
  cmake --build "$work/$2/build" -j"$(nproc)" --target sgemm_ladder >/dev/null
}
build "$before" before
build "$after" after
status=0
compare() {  # object-before object-after label [sass_compare options]
  cuobjdump -sass "$1" >"$work/b.sass"
  cuobjdump -sass "$2" >"$work/a.sass"
  printf '%-28s ' "$3"
  if ! grep -q Function "$work/b.sass" "$work/a.sass"; then echo "no device code"; return; fi
  python3 "$here/sass_compare.py" "$work/b.sass" "$work/a.sass" "${@:4}" | tail -n 1 || status=1
}
objects() { find "$work/$1/build/CMakeFiles" -path '*kernels*' -name '[0-9][0-9]_*.cu.o' | sort; }
for b in $(objects before); do
  name=$(basename "$b" .cu.o)
  a=$(objects after | grep "/$name.cu.o$")
  if [ "$name" = 16_ozaki_int8 ]; then  # decide() became decide<bool>: <false> is the rung's
    compare "$b" "$a" "$name" --pair 'decide\(' 'decide<\(bool\)0>' --ignore 'decide<\(bool\)1>'
  else
    compare "$b" "$a" "$name"
  fi
done
lib() { find "$work/$1/build/CMakeFiles" -path "*/library/*" -name "$2"; }
compare "$(lib before api.cu.o)" "$(lib after scale_c.cu.o)" "library scale_c"
compare "$(lib before transpose.cu.o)" "$(lib after transpose.cu.o)" "library transpose"
exit $status
