# the drive's preflight sizes the scenario from config.json's store only, not a remote web tier's access.data_set
# kill: ./bench/tradejob TestDriveSizesToARemoteWebTier
# file: driver/preflight.go
# expect: drive against a remote web tier: preflight|was not sized
s/^\t\tfor _, part := range \[\]json.RawMessage{body.Store, body.Access} {$/\t\tfor _, part := range []json.RawMessage{body.Store} {/
