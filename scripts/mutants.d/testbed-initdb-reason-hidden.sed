# scripts/testbed up hides why initdb failed (its log is not shown): only "up failed" is printed
# kill: ./cmd/tradebench TestTestbedUpSaysWhyItFailed
# file: scripts/testbed
# expect: a failed up does not say why
s/{ echo "testbed: initdb failed:" >&2; tail -n 5 "\$dir\/pg.log" | sed 's\/^\/  \/' >&2; false; }/false/
