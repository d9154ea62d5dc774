#!/usr/bin/env bash
# The typed interfaces catch mistakes at compile time: wrong_receiver.cc
# compiles as it stands, and fails with CAF's static assertion once a
# message goes to an actor that does not accept it (WRONG_RECEIVER) or a
# reply is taken as the wrong type (WRONG_REPLY), and once a FetchWorker,
# a blocking actor behind a typed handle, is sent what it does not take
# (WRONG_WORKER_MESSAGE).
#   typed_interfaces.sh CXX SOURCE_DIR
set -u
cxx=$1
src=$2
compile() {
  "$cxx" -std=c++17 -fsyntax-only -I"$src" "$@" "$src/tests/messages/wrong_receiver.cc" 2>&1
}
status=0
if ! out=$(compile); then
  echo "wrong_receiver.cc does not compile as it stands:"
  echo "$out" | head -40
  exit 1
fi
echo "as it stands: compiles"
expect_failure() {
  local macro=$1 message=$2 out
  if out=$(compile -D"$macro"); then
    echo "$macro: compiled, but the interfaces should have refused it"
    status=1
  elif grep -q "$message" <<<"$out"; then
    echo "$macro: refused: $(grep -m1 -o "static assertion failed: .*" <<<"$out")"
  else
    echo "$macro: failed to compile, but not with \"$message\":"
    echo "$out" | grep -m5 error
    status=1
  fi
}
expect_failure WRONG_RECEIVER "receiver does not accept given message"
expect_failure WRONG_REPLY "wrong functor signature"
expect_failure WRONG_WORKER_MESSAGE "receiver does not accept given message"
exit $status
