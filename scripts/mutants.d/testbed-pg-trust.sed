# the test bed's own PostgreSQL trusts every local user again (pg_hba.conf with trust): any local user connects as its superuser without a password
# kill: ./cmd/tradebench TestTestbedDatabaseScram
# file: scripts/testbed
# expect: without the password|want scram
s#printf 'local all postgres scram-sha-256\\nhost all postgres 127.0.0.0/8 scram-sha-256\\n'#printf 'local all postgres trust\\nhost all postgres 127.0.0.0/8 trust\\n'#
