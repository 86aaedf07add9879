# every web tier signs sessions with its own random secret (the shared one not given)
# kill: ./cmd/tradebench TestTestbed
# file: scripts/testbed
s#  export TRADEBENCH_SESSION_SECRET; TRADEBENCH_SESSION_SECRET=\$(cat "\$dir/session-secret")#  unset TRADEBENCH_SESSION_SECRET#
