# driver: the port is looked up although the drive was told its system under test (--sut-metrics, a job's own): the named one no longer wins alone
# kill: ./driver TestDriveCountsTheServerFoundByPort
# file: driver/selfserve.go
# expect: told of the server
s#if len(resources) > 0 || target == "" {#if target == "" {#
